#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SIMD discipline of a built module, checked on its machine code:
#   check-simd.sh MODULE.ko...
#
# 1. No function outside the AVX2 entry points (names ending in _avx2,
#    compiled with __attribute__((target("avx2"))) in core/*_avx2.c)
#    contains a vector or x87 register instruction: everything else is
#    built with the kernel's -mno-sse -mno-avx ... and must stay so.
# 2. Every call of an _avx2 function comes from an _avx2 function or lies
#    between a call of kernel_fpu_begin_mask() and the next call of
#    kernel_fpu_end() in the calling function (mf_simd_begin()/_end()).
# Prints each violation; exits 1 if there is any, 2 on a usage error.

set -u
[ $# -ge 1 ] || { echo "usage: $0 MODULE.ko..." >&2; exit 2; }

rc=0
for ko in "$@"; do
	[ -f "$ko" ] || { echo "check-simd: no such file: $ko" >&2; exit 2; }
	objdump -dr --no-show-raw-insn "$ko" | awk -v ko="$ko" '
	function is_simd(f) { return f ~ /_avx2($|\.)/ }
	function flush() {
		if (fn != "" && !is_simd(fn) && nvec)
			bad("vector instruction(s) outside an AVX2 function: " \
			    nvec " in " fn ", first: " firstvec)
		nvec = 0; firstvec = ""; infpu = 0
	}
	function bad(msg) { print "check-simd: " ko ": " msg; fails++ }
	function called(line,   t) {
		if (match(line, /<[^>+]+/))
			return substr(line, RSTART + 1, RLENGTH - 1)
		return ""
	}
	# A call or jump: its target is the relocation on the next line if
	# there is one (objdump names unrelocated targets after whatever
	# symbol precedes the address), else the symbol objdump shows.
	function flushcall() {
		if (pending != "" && pending != fn && pending !~ /^__pfx_/)
			checkcall(pending)
		pending = ""
	}
	/^[0-9a-f]+ <[^>]+>:$/ {
		flushcall()
		flush()
		fn = $2; gsub(/[<>:]/, "", fn); nfn++
		next
	}
	/^[ \t]+[0-9a-f]+:[ \t]+R_X86_64_/ {
		if (pending != "") {
			t = $3; sub(/[-+]0x[0-9a-f]+$/, "", t)
			pending = t
			flushcall()
		}
		next
	}
	/^[ \t]+[0-9a-f]+:\t/ {
		flushcall()
		insn = $0; sub(/^[ \t]+[0-9a-f]+:\t/, "", insn)
		if (insn ~ /^(call|jmp)/)
			pending = called(insn)
		if (insn ~ /%[xyz]?mm[0-9]|^vzero|^(f[a-z]+|emms|ldmxcsr|stmxcsr)( |$)/ &&
		    insn !~ /^(fnop|fwait)/) {
			nvec++
			if (firstvec == "") firstvec = insn
		}
	}
	function checkcall(t) {
		if (t ~ /^kernel_fpu_begin/) { infpu = 1; return }
		if (t ~ /^kernel_fpu_end/) { infpu = 0; return }
		if (is_simd(t) && !is_simd(fn) && !infpu)
			bad(fn " calls " t " outside kernel_fpu_begin/end")
		if (is_simd(t)) ncalls++
	}
	END {
		flushcall()
		flush()
		if (nfn == 0) bad("no functions disassembled")
		printf "check-simd: %s: %d functions, %d calls into AVX2 code%s\n",
		       ko, nfn, ncalls, fails ? ", " fails " violation(s)" : ", clean"
		exit fails ? 1 : 0
	}' || rc=1
done
exit $rc
