#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a kernel in QEMU (TCG) with memfilter's modules and tools in a
# busybox initramfs, run one script inside, and decide pass/fail by machine.
#
#   vm.sh --kernel BZIMAGE [--ko DIR] [--bin DIR] [--script FILE]
#         [--out FILE] [--timeout SEC] [--mem SIZE] [--smp N]
#         [--tcg multi|single] [--tools "ip bpftool ..."] [--kmods DIR]
#         [--env NAME=VALUE]... [--append "ARGS"] [--variant NAME=DIR]...
#         [--shell]
#
# This directory holds the runner and the scripts it runs in guests
# (lib.sh, debug.sh, kcsan.sh, stock.sh, demo.sh), as WireGuard's
# tests/qemu does. The guest script's stdout/stderr go to the second
# serial port (ttyS1), streamed here and kept in --out; the kernel console
# (ttyS0) goes to --out.console. The run passes only if the script exited
# 0, wrote its end token, and the console holds no oops, WARN,
# KASAN/UBSAN/KCSAN report, lockdep splat, kmemleak report or panic (the
# kernel runs with panic_on_warn=1, so a WARN also ends the run early),
# but for failed-allocation reports while fault injection is armed (see
# below).
# Exit status: the script's exit status when clean, 1 on any kernel
# report, 124 on timeout.
#
# --smp N gives N sockets of one core each: the BIOS MP table lists one
# CPU per socket, so a kernel without ACPI (the tinyconfig test kernels)
# still brings up all N. Guest scripts get MF_CPUS=N and assert it
# (lib.sh's cpus_online).
#
# --tools copies the host's (Debian's) binaries of those names into the
# guest's /sbin with every shared library ldd names, so guest scripts
# drive the kernel with the real ip, bpftool, dmsetup or losetup instead of
# re-implementing netlink or device-mapper ioctls. busybox's sh would run
# its own applet of the same name (ip, losetup) whatever PATH says, so
# lib.sh defines a function per tool that calls /sbin/NAME; C programs
# and other shells must call /sbin/NAME by path.
#
# --kmods DIR (repeatable): kernel modules (*.ko) the guest loads before
# its script, all directories' together in name order (number the names
# of modules that depend on others), such as a stock kernel's loop,
# dm-mod and veth (tests/qemu/stock-kernel.sh). Each module is given the
# parameters the kernel command line holds for it (NAME.PARAM=VALUE), as
# modprobe does and insmod does not.
#
# --append "ARGS" adds ARGS to the kernel command line, such as the
# parameters of the scsi_debug disk (built in or from --kmods).
#
# --env NAME=VALUE (repeatable) is exported to the guest script, such as
# check.sh's MF_DEBUG_PART for the two debug guests (debug.sh).
#
# --variant NAME=DIR (repeatable) copies another build's modules (DIR/*.ko)
# to /memfilter/NAME/ in the guest, such as the DKMS-built module and the
# newer-kernel build that tests/qemu/variants.sh loads in turn.
#
# --tcg single (the default) runs all vCPUs on one host thread, round
# robin; --tcg multi gives each vCPU a thread of its own. QEMU 7.2's
# multi-threaded TCG translates guest code before it locks the page
# (fixed in QEMU 8.1, "accel/tcg: Always lock pages before translation"),
# so a vCPU can keep a stale translation of kernel text that another vCPU
# patched: the int3 of a static key flip outlives text_poke_bp() and the
# kernel oopses ("Oops: int3" at ip_rcv+0x42 while a netfilter hook is
# attached, in sched_clock_cpu at boot). One thread never translates while
# another writes. Only the KCSAN guest asks for multi: its reports need
# two vCPUs that really run at once (Documentation/testing.rst, "Guests";
# tests/qemu/textpoke-vm.sh reproduces the race).

set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../scripts/common.sh"

kernel= ko= bin= script= out= timeout=600 mem=2G shell=0 smp=2 tcg=single
tools= kmods= envs=() extra_append= variants=()
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift ;;
	--ko) ko=$2; shift ;;
	--bin) bin=$2; shift ;;
	--script) script=$2; shift ;;
	--out) out=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--mem) mem=$2; shift ;;
	--smp) smp=$2; shift ;;
	--tcg) tcg=$2; shift ;;
	--tools) tools="$tools $2"; shift ;;
	--kmods) kmods="$kmods $2"; shift ;;
	--append) extra_append="$extra_append $2"; shift ;;
	--env)
		[[ "$2" =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] ||
			die "--env NAME=VALUE, not '$2'"
		envs+=("$2"); shift ;;
	--variant)
		[[ "$2" =~ ^[A-Za-z0-9_-]+=. ]] ||
			die "--variant NAME=DIR, not '$2'"
		variants+=("$2"); shift ;;
	--shell) shell=1 ;;
	*) die "unknown option $1" ;;
	esac
	shift
done
[ -f "$kernel" ] || die "no kernel image: '$kernel'"
[ "$shell" = 1 ] || [ -f "$script" ] || die "no guest script: '$script'"
case "$tcg" in multi|single) ;; *) die "--tcg multi|single, not '$tcg'" ;; esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=${out:-$work/out.log}
mkdir -p "$(dirname "$out")"
console=$out.console
rm -f "$out" "$console"

# --- initramfs -------------------------------------------------------------
root=$work/root
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,etc,root,memfilter/bin}
cp /bin/busybox "$root/bin/busybox"
[ -n "$ko" ] && cp "$ko"/*.ko "$root/memfilter/"
for v in "${variants[@]}"; do
	mkdir -p "$root/memfilter/${v%%=*}"
	cp "${v#*=}"/*.ko "$root/memfilter/${v%%=*}/"
done
[ -n "$bin" ] && cp -r "$bin"/. "$root/memfilter/bin/"
[ -n "$script" ] && cp "$script" "$root/memfilter/run.sh"
mkdir -p "$root/memfilter/kmods"
for d in $kmods; do
	cp "$d"/*.ko "$root/memfilter/kmods/"
done
cp "$here/lib.sh" "$root/memfilter/lib.sh"
# --env: one quoted export per variable, sourced by init.
: >"$root/memfilter/env.sh"
for e in "${envs[@]}"; do
	printf 'export %q\n' "$e" >>"$root/memfilter/env.sh"
done
for t in $tools; do
	path=$(PATH=/usr/sbin:/sbin:/usr/bin:/bin command -v "$t") ||
		die "--tools: '$t' is not installed on the host (scripts/deps.sh)"
	cp "$path" "$root/sbin/$t"
	# busybox sh runs its own applet of a name (ip, losetup) before any
	# PATH lookup; a shell function comes first, so lib.sh sources these
	# (not for names no applet has and sh cannot name a function, such
	# as mkfs.xfs: PATH finds those).
	case $t in
	*[!A-Za-z0-9_]*) ;;
	*) echo "$t() { /sbin/$t \"\$@\"; }" >>"$root/memfilter/tools.sh" ;;
	esac
	# Each library at the path the dynamic loader will look for it.
	for lib in $(ldd "$path" | grep -o '/[^ ]*'); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
done
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
cat >"$root/init" <<INIT
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tmpfs tmp /tmp
# What udev makes on every real system and devtmpfs does not: without
# them "-o /dev/stdout" would create a file in /dev.
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
export PATH=/memfilter/bin:/sbin:/bin HOME=/root MF_CPUS=$smp
. /memfilter/env.sh
cd /memfilter
for m in /memfilter/kmods/*.ko; do
	[ -f "\$m" ] || continue
	n=\${m##*/} && n=\${n%.ko} && n=\${n#[0-9]*-}
	insmod "\$m" \$(for a in \$(cat /proc/cmdline); do
		case "\$a" in "\$n".*=*) echo "\${a#"\$n".}" ;; esac
	done)
done
if [ $shell = 1 ]; then
	echo "memfilter guest: modules in /memfilter, tools on PATH; 'exit' powers off"
	[ -n "\$(ls /memfilter/*.ko 2>/dev/null)" ] && insmod /memfilter/memfilter.ko
	setsid cttyhack sh
else
	sh /memfilter/run.sh >/dev/ttyS1 2>&1
	echo "MEMFILTER-END rc=\$?" >/dev/ttyS1
fi
sync
reboot -f
INIT
chmod +x "$root/init"
# Not compressed: the KCSAN kernel took about 20 s of its boot to inflate
# a gzip'd initramfs (instrumented inflate), and QEMU copies an
# uncompressed one into guest memory at no cost.
(cd "$root" && find . | cpio -o -H newc --quiet) >"$work/initrd.cpio"

# --- boot ------------------------------------------------------------------
# -cpu max without LA57: with 5-level paging a KASAN kernel panics at
# boot when an interrupt lands in identify_cpu() while it has cleared
# boot_cpu_data's capability bits (pgtable_l5_enabled() is then false,
# KASAN computes its shadow range for 4 levels and reports the per-CPU
# access as "wild-memory-access in rcu_is_watching"). 4-level paging also
# makes every TCG page walk one level shorter.
accel="-accel tcg,thread=$tcg -cpu max,la57=off"
append="console=ttyS0 panic_on_warn=1 panic=-1 oops=panic softlockup_panic=1"
append="$append rdinit=/init nokaslr kmemleak=on loglevel=7"
# The IO-APIC timer check counts PIT ticks during a TSC busy-wait of
# 40-160 ms: on a loaded host QEMU's timer thread may deliver none in
# time and the kernel panics "IO-APIC + timer doesn't work!". The check
# is for broken 1990s boards; KVM guests skip it the same way.
append="$append no_timer_check$extra_append"
qemu=(qemu-system-x86_64 $accel -m "$mem" -nodefaults
      -smp "$smp,sockets=$smp,cores=1,threads=1"
      -display none -no-reboot -kernel "$kernel" -initrd "$work/initrd.cpio"
      -device isa-debug-exit,iobase=0xf4,iosize=0x04)

if [ "$shell" = 1 ]; then
	exec "${qemu[@]}" -serial mon:stdio -append "$append"
fi

: >"$out"
timeout --foreground "$timeout" "${qemu[@]}" \
	-serial file:"$console" -serial file:"$out" -append "$append" &
qpid=$!
tail -n +1 -f --pid=$qpid "$out" | grep -v '^MEMFILTER-END' || true
rc=0
wait $qpid || rc=$?

# The verdict is itself a TAP section of the log, so that
# scripts/results.py counts a dirty kernel log as a failure.
verdict() {
	local rc=$1 msg=$2 clean=${3:-kernel log clean}
	{
		echo "### BEGIN tap vm.verdict"
		echo "TAP version 13"
		echo "1..1"
		if [ "$rc" = 0 ]; then
			echo "ok 1 guest finished, $clean"
		else
			echo "not ok 1 $msg"
		fi
		echo "### END tap vm.verdict rc=$rc"
	} | tee -a "$out"
}

fail() {
	echo "vm: FAIL: $1" >&2
	echo "vm: last console lines ($console):" >&2
	tail -n 60 "$console" >&2
	verdict "${2:-1}" "$1"
	exit "${2:-1}"
}

[ "$rc" = 124 ] && fail "timed out after ${timeout}s" 124
pattern='BUG:|WARNING:|Oops|general protection fault|KASAN:|UBSAN:|KCSAN:|Kernel panic|kernel BUG|Call Trace:|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|unreferenced object|sleeping function called from invalid context|INFO: task .* blocked|soft lockup|hung_task'
# Fault injection (tests/faults.sh) makes allocations fail by design, and
# the allocator reports a failure without __GFP_NOWARN itself
# (warn_alloc(): "<comm>: <what>, mode:0x...(...), nodemask=..." and a
# stack dump; vmalloc() when its vm_struct or page array cannot be had).
# Such a report, and the stack dump that directly follows it, is accepted
# only between the guest's "memfilter-faults: armed" and "...: disarmed"
# lines (/dev/kmsg) and listed; any other report fails the run, inside
# such a window too.
checked=$work/console.checked
awk '
	/memfilter-faults: armed/ { armed = 1 }
	/memfilter-faults: disarmed/ { armed = 0 }
	armed && /, mode:0x[0-9a-f]+\(.*\), nodemask=/ {
		alloc = 6; print "vm: accepted warn_alloc: " $0 > "/dev/stderr"; next
	}
	alloc > 0 && /Call Trace:/ { skip = 1; alloc = 0; next }
	skip && /<\/TASK>/ { skip = 0; next }
	skip { next }
	{ if (alloc > 0) alloc--; print }
' "$console" >"$checked" 2>"$work/allocs"
allocs=$(wc -l <"$work/allocs")
head -n 20 "$work/allocs" >&2
if grep -Eq "$pattern" "$checked"; then
	echo "vm: kernel reported a problem:" >&2
	grep -En -B2 -A30 "$pattern" "$checked" | head -n 120 >&2
	verdict 1 "kernel log has a report: $(grep -Em1 "$pattern" "$checked")"
	exit 1
fi
end=$(sed -n 's/^MEMFILTER-END rc=\([0-9]*\).*/\1/p' "$out" | tail -n 1)
[ -n "$end" ] || fail "guest script never finished (kernel died?)"
if [ "$allocs" -gt 0 ]; then
	verdict 0 "" "kernel log clean but for $allocs warn_alloc() reports of injected faults"
else
	verdict 0 ""
fi
exit "$end"
