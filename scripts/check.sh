#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: every test memfilter has, from a fresh Debian 12 machine.
#
#  1. install packages (scripts/deps.sh), build or reuse the test kernel
#  2. static checks: checkpatch --strict, uapi header alone in C and C++,
#     sparse, libmemfilter's licences (scripts/check-licences.sh), the
#     commit history's form (scripts/check-commits.sh), every feature
#     bit, filter type and KUnit suite named where users read
#     (scripts/check-abi-names.py), the internals each in-kernel consumer
#     uses as Documentation/internals.rst lists them
#     (scripts/check-consumers.py)
#  3. native tests of the shared code with ASan + UBSan, make
#     bench-table's formatter and a quick run of it
#     (scripts/bench-table-test.sh), and 25 s of libFuzzer on the image
#     loader
#  4. build matrix with -Werror: Debian 6.1 and 6.12 headers (and 6.1's
#     for i386), test kernels, and every module/kernel_compat.h entry's
#     newer-kernel side against 6.12 (scripts/compat-test.sh)
#  5. debug test kernel in QEMU: KUnit, selftests, rmmod, kmemleak
#  6. KCSAN test kernel in QEMU: KUnit, the threaded selftests
#  7. Debian's stock 6.12 and 6.1 kernels in QEMU: selftests; and 6.12
#     with other builds of the module (tests/qemu/variants.sh): the
#     newer-kernel build's bpf_test and the DKMS-built module's
#     cli_test, in the host lane after packaging
#  8. scripts/results.py decides and prints "N passed, N failed"
#
# Packaging stages (after the build matrix): install test, dkms build,
# the Debian packages built, lintian-clean, installed on this host and
# purged (scripts/deb-test.sh),
# docs (sphinx -W; every example block marked, checked and, where it
# needs no module, run: scripts/doc-examples.py; the rest run in the
# guests as docs_test), the example module against the test kernel.
#
# Every stage runs even when an earlier one failed, so one run shows
# everything that is wrong. Logs: build/results/.
#
# Two lanes run side by side once the test kernel's module and the guest
# binaries are built: the debug guest (the longest stage) in one, every
# host stage in the other; then each lane takes the next of the KCSAN and
# stock guests when it is free. A stage's
# output goes to build/results/stage-NAME.out and is printed whole when
# the stage ends, so the lanes never interleave; stage-times.txt has each
# stage's start and end. MF_CHECK_SERIAL=1 runs the lanes one after the
# other (same stages, same logs).

set -u
cd "$(dirname "$0")/.."
. scripts/common.sh

# Warnings are errors here, and only here (users' and DKMS builds: no).
export WERROR=1 MEMFILTER_WERROR=1

# Every C compile goes through ccache (scripts/deps.sh), its cache beside
# the test kernels: a warm run recompiles only what changed, wherever the
# checkout is (paths under it are hashed relative to it). A compile that
# fails (-Werror) is never cached. Depend mode: a miss does not run the
# preprocessor once more just to hash its output (the result is keyed by
# the source and the headers the compiler's -MD/-MMD list names, as a
# direct-mode hit is); a kernel file's miss costs 2-3% more than plain
# gcc instead of about 10%, which is most of a cold run's time.
export PATH=/usr/lib/ccache:$PATH CCACHE_DIR=$CACHE/ccache \
	CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=2G \
	CCACHE_DEPEND=1

R=build/results
rm -rf "$R"
mkdir -p "$R"
t0=$(date +%s)
stage() { echo; echo "=== $* ($(($(date +%s) - t0)) s)"; }

# run_stage NAME CMD...: one stage with its output in $R/stage-NAME.out,
# printed whole (under a lock) when it ends; its times in stage-times.txt.
run_stage() {
	local name=$1 s0 s1
	shift
	s0=$(date +%s)
	echo "=== $name: started ($((s0 - t0)) s)"
	"$@" >"$R/stage-$name.out" 2>&1
	s1=$(date +%s)
	{
		flock 9
		echo
		echo "=== $name ($((s0 - t0)) s .. $((s1 - t0)) s: $((s1 - s0)) s)"
		cat "$R/stage-$name.out"
		printf '%-12s %5d %5d %5d\n' "$name" $((s0 - t0)) $((s1 - t0)) \
			$((s1 - s0)) >>"$R/stage-times.txt"
	} 9>>"$R/.print.lock"
}

# Host-side twin of tests/qemu/lib.sh's section(): append to a log.
section() {
	local log=$1 kind=$2 name=$3
	shift 3
	{
		echo "### BEGIN $kind $name"
		"$@" 2>&1
		echo "### END $kind $name rc=$?"
	} | tee -a "$log"
}

tap_files() {
	local what=$1 n=0 f rc=0
	shift
	echo "TAP version 13"
	echo "1..$(($# - 0))"
	for f in "$@"; do
		n=$((n + 1))
		if out=$($what "$f" 2>&1); then
			echo "ok $n $f"
		else
			echo "$out" | sed 's/^/# /'
			echo "not ok $n $f"
			rc=1
		fi
	done
	return $rc
}

tap_one() {
	local desc=$1
	shift
	echo "TAP version 13"
	echo "1..1"
	if out=$("$@" 2>&1); then
		echo "$out" | tail -n 3 | sed 's/^/# /'
		echo "ok 1 $desc"
	else
		echo "$out" | tail -n 40 | sed 's/^/# /'
		echo "not ok 1 $desc"
		return 1
	fi
}

stage "dependencies and test kernels"
scripts/deps.sh || die "installing packages failed"
K=$(tests/qemu/build-kernel.sh debug) || die "building the test kernel failed"
KK=$(tests/qemu/build-kernel.sh kcsan) || die "building the KCSAN kernel failed"
read -r KDIR612 VMLINUZ612 < <(tests/qemu/stock-kernel.sh 6.12) ||
	die "no stock 6.12 kernel"
read -r KDIR61 VMLINUZ61 < <(tests/qemu/stock-kernel.sh 6.1) ||
	die "no stock 6.1 kernel"
KDIR686=$(tests/qemu/stock-kernel.sh 686) || die "no 6.1 i386 (686-pae) headers"

# --- stages ------------------------------------------------------------------

static_checks() {
	# core/userspace.h is libc glue that never builds into the kernel.
	local KSRC=(module/*.[ch] module/*/*.[ch] core/*.c $(ls core/*.h | grep -v userspace.h) kunit/*.c kunit/*.h bench/kunit/*.c include/linux/*.h uapi/linux/*.h examples/kmod/*.c)
	section $R/static.log tap checkpatch tap_files checkpatch "${KSRC[@]}"
	section $R/static.log tap uapi-header tap_files "eval" uapi_c uapi_cxx
	section $R/static.log tap sparse tap_one "sparse (C=2) reports nothing" sparse_clean
	section $R/static.log tap history scripts/check-commits.sh
	section $R/static.log tap licences tap_one \
		"libmemfilter: every file it is built from allows GPL-2.0-only OR MIT" \
		scripts/check-licences.sh
	section $R/static.log tap abi-names tap_one \
		"every feature bit, filter type and KUnit suite named (CLI, docs, Kconfig, modinfo)" \
		scripts/check-abi-names.py
	section $R/static.log tap consumers tap_one \
		"each in-kernel consumer uses only the internals internals.rst lists for it" \
		scripts/check-consumers.py
}
# module/consumers/bpf.h is BPF code (with bpf.c, it provides the kfuncs): it
# waits for RCU Tasks Trace grace periods as kernel/bpf/ does for maps that
# sleepable programs use, which checkpatch allows only under kernel/bpf/
# by path.
checkpatch() {
	local ignore=FILE_PATH_CHANGES,SPDX_LICENSE_TAG
	[ "$1" = module/consumers/bpf.h ] && ignore=$ignore,RCU_TASKS_TRACE
	"$K/scripts/checkpatch.pl" --no-tree --strict --quiet --show-types \
		--ignore "$ignore" -f "$1"
}
uapi_c() {
	echo '#include <linux/memfilter.h>' |
		gcc -Iuapi -x c -std=c99 -Wall -Wextra -pedantic -Werror -fsyntax-only -
}
uapi_cxx() {
	echo '#include <linux/memfilter.h>' |
		g++ -Iuapi -x c++ -Wall -Wextra -pedantic -Werror -fsyntax-only -
}
sparse_clean() {
	local out
	out=$(scripts/build-module.sh "$K" build/sparse C=2 2>&1) || {
		echo "$out"
		return 1
	}
	! echo "$out" | grep -E '(warning|error):'
}

native_tests() {
	local n
	: >$R/native.log
	for n in $(make -s native-test-list); do
		if make -s "build/native/$n" >$R/native-build.log 2>&1; then
			section $R/native.log tap "native.$n" "build/native/$n"
		else
			cat $R/native-build.log
			section $R/native.log tap "native.$n" false
		fi
	done
	# make bench-table's formatter, README's table, a quick run's table.
	section $R/native.log tap native.bench-table scripts/bench-table-test.sh
}

# The test kernel's module and the guest binaries are built first (the
# debug guest needs them); the build matrix reports that build's result.
build_for() { scripts/build-module.sh "$1" "build/kbuild/$2" -j"$JOBS"; }
test_build() {
	build_for "$K" test >$R/build-test.out 2>&1
	echo $? >$R/build-test.rc
}
test_built() {
	cat $R/build-test.out
	return "$(cat $R/build-test.rc)"
}
build_matrix() {
	# i386 (Debian's 6.1 686-pae headers): 64-bit divisions, cmpxchg
	# sizes, shifts and frames that only a 32-bit build refuses.
	section $R/build.log tap build.matrix tap_files "eval" \
		"build_for $KDIR61 stock-6.1" "build_for $KDIR612 stock-6.12" \
		"test_built" "build_for $KK kcsan" "build_for $KDIR686 i386"
	# Every entry of module/kernel_compat.h on its newer-kernel side
	# against 6.12 (the builds above are the other side).
	section $R/build.log tap build.compat scripts/compat-test.sh "$K" \
		"$KDIR612"
	# SIMD discipline on the machine code: vector registers only inside
	# the AVX2 functions, called only inside kernel_fpu_begin/end.
	section $R/build.log tap build.simd tap_files scripts/check-simd.sh \
		build/kbuild/stock-6.1/memfilter.ko \
		build/kbuild/stock-6.12/memfilter.ko \
		build/kbuild/test/memfilter.ko build/kbuild/kcsan/memfilter.ko \
		build/kbuild/stock-6.12-next/memfilter.ko
	# Documentation/internals.rst's recipe for a new filter type,
	# followed in a scratch tree: it builds (natively, and the type's
	# objects against 6.12) and answers for the new type.
	section $R/build.log tap build.type_recipe tap_one \
		"internals.rst's steps add a filter type that builds and answers" \
		scripts/type-recipe-test.sh "$KDIR612"
	if [ "$(cat $R/guest-build.rc)" != 0 ]; then
		cat $R/guest-build.log
		section $R/build.log tap build.guest false
	fi
	return 0
}

packaging() {
	section $R/packaging.log tap install scripts/install-test.sh \
		build/install-test "$KDIR612"
	section $R/packaging.log tap dkms scripts/dkms-test.sh "$KDIR612"
	section $R/packaging.log tap deb scripts/deb-test.sh
	section $R/packaging.log tap docs.sphinx tap_one \
		"make htmldocs (sphinx-build -W)" make -s htmldocs
	section $R/packaging.log tap docs.examples make -s doc-examples-check
	section $R/packaging.log tap docs.examples.run make -s doc-examples-run
	section $R/packaging.log tap docs.kerneldoc tap_one \
		"kernel-doc -Wall: no warnings" kerneldoc_clean
	section $R/packaging.log tap build.example tap_one \
		"examples/kmod builds against the test kernel's memfilter" \
		build_example
	section $R/packaging.log tap kconfig tap_one \
		"Kconfig: CONFIG_MEMFILTER, CONFIG_MEMFILTER_KUNIT_TEST" \
		kconfig_parses
}
kerneldoc_clean() {
	local out
	out=$(scripts/kernel-doc -none -Wall uapi/linux/*.h include/linux/*.h \
		module/*.c module/*/*.c core/*.c lib/libmemfilter.h 2>&1) || return 1
	[ -z "$out" ] || { echo "$out"; return 1; }
}
# The example module against the test kernel (KBUILD_EXTRA_SYMBOLS).
build_example() {
	rm -rf build/kbuild/example && mkdir -p build/kbuild &&
	cp -r examples/kmod build/kbuild/example &&
	make -C build/kbuild/example KDIR="$K" MEMFILTER_SRC="$PWD" \
		MEMFILTER_SYMVERS="$PWD/build/kbuild/test/Module.symvers" &&
	modinfo build/kbuild/example/memfilter_example.ko | grep -qx 'depends: *memfilter'
}
# Kconfig (in-tree builds) under the kernel's own parser, with stand-ins
# for the symbols it depends on: =m stays =m and selects XXHASH.
kconfig_parses() {
	local d=build/kconfig-test
	rm -rf $d && mkdir -p $d/memfilter && cp Kconfig $d/memfilter/ &&
	printf '%s\n' 'config MODULES' '	def_bool y' '	modules' \
		'config KUNIT' '	tristate "KUnit"' 'config KUNIT_ALL_TESTS' \
		'	tristate' 'config XXHASH' '	tristate' \
		'source "memfilter/Kconfig"' >$d/Kconfig &&
	printf '%s\n' CONFIG_KUNIT=y CONFIG_MEMFILTER=m \
		CONFIG_MEMFILTER_KUNIT_TEST=m >$d/.config &&
	(cd $d && srctree=. "$K/scripts/kconfig/conf" --olddefconfig Kconfig) &&
	grep -qx CONFIG_MEMFILTER=m $d/.config &&
	grep -qx CONFIG_MEMFILTER_KUNIT_TEST=m $d/.config &&
	grep -qx CONFIG_XXHASH=m $d/.config
}

# The real tools the guest tests drive the kernel with (Debian's binaries):
# replay_test sends its capture with tcpreplay and loads the XDP example
# with xdp-loader (libxdp's dispatcher object is among the guest binaries).
GUEST_TOOLS="ip bpftool dmsetup losetup blkdiscard tcpreplay xdp-loader"
# The real clients dm_fs_test puts on the dedup target, for the debug
# guests and the stock 6.12 one (ext4 built in or from kmods-dm/, AIO and
# io_uring built in; the 6.1 guest skips the test): fio alone brings
# about 80 MiB of shared libraries into the initramfs. mke2fs runs from
# its built-in profile (the guest has no /etc/mke2fs.conf); e2fsck finds
# mounts in /proc/mounts when /etc/mtab is missing.
CLIENT_TOOLS="$GUEST_TOOLS mke2fs e2fsck fstrim fio"
# The scsi_debug disk (built into the debug kernel, in the stock 6.12's
# kmods-dm/): 16 MiB that keep a block's old data after UNMAP (lbprz=0),
# for dm_discard_test; no delay per command.
SCSI_DEBUG_APPEND="scsi_debug.lbpu=1 scsi_debug.lbprz=0"
SCSI_DEBUG_APPEND="$SCSI_DEBUG_APPEND scsi_debug.dev_size_mb=16"
SCSI_DEBUG_APPEND="$SCSI_DEBUG_APPEND scsi_debug.delay=0"

# debug_guest 1|2: the debug kernel's two guests, each with its part of
# the tests (tests/qemu/debug.sh's MF_DEBUG_PART). The real clients go
# to the second part only: its dm_fs_test and dm_discard_test are their
# only users (the stock 6.1 guest runs the first part's tests without
# them), and they are 81 of the 139 MiB of the initramfs, which the
# KASAN kernel takes 7 s to unpack, in the lane that ends last in a
# warm run.
debug_guest() {
	local log=$R/vm-debug.log tools=$GUEST_TOOLS
	[ "$1" = 1 ] || log=$R/vm-debug-$1.log tools=$CLIENT_TOOLS
	tests/qemu/vm.sh --kernel "$K/arch/x86/boot/bzImage" \
		--ko build/kbuild/test --bin build/guest/bin \
		--script tests/qemu/debug.sh --env MF_DEBUG_PART="$1" \
		--tools "$tools" --append "$SCSI_DEBUG_APPEND" \
		--out "$log" --timeout 2700 || echo "vm: debug $1 run failed"
}
# The KCSAN guest alone runs a TCG thread per vCPU: KCSAN needs both
# vCPUs running at once (vm.sh --tcg; Documentation/testing.rst, "One TCG
# thread"). The debug guests take vm.sh's one thread: their tests flip
# static keys (netfilter, BPF) while packets flow.
kcsan_guest() {
	tests/qemu/vm.sh --kernel "$KK/arch/x86/boot/bzImage" --tcg multi \
		--ko build/kbuild/kcsan --bin build/guest/bin \
		--script tests/qemu/kcsan.sh --tools "$GUEST_TOOLS" \
		--out $R/vm-kcsan.log --timeout 900 || echo "vm: KCSAN run failed"
}
# stock_guest 6.12|6.1. The 6.12 guest has 5 GiB, so that limits_test's
# 3 GiB filter (over kvmalloc's INT_MAX) runs there (20 to 40 s; the
# other guests, with 2 GiB, skip it), and the real clients' stack, so
# that dm_fs_test and dm_discard_test run on a stock kernel too.
stock_guest() {
	local v=VMLINUZ${1/./} mem=2G tools=$GUEST_TOOLS k
	k=$(dirname "${!v}")
	local args=(--kmods "$k/kmods")
	if [ "$1" = 6.12 ]; then
		mem=5G tools=$CLIENT_TOOLS
		args+=(--kmods "$k/kmods-dm" --append "$SCSI_DEBUG_APPEND")
	fi
	tests/qemu/vm.sh --kernel "${!v}" --ko "build/kbuild/stock-$1" \
		--bin build/guest/bin --script tests/qemu/stock.sh --smp 1 \
		--mem $mem --tools "$tools" "${args[@]}" \
		--out "$R/vm-stock-$1.log" --timeout 900 ||
		echo "vm: stock $1 run failed"
}
# variants_guest: Debian's stock 6.12 kernel with other builds of the
# module, each with the selftests that judge it (tests/qemu/variants.sh):
# the newer-kernel build (scripts/compat-test.sh) with bpf_test, the
# module DKMS built from the memfilter-dkms package (scripts/deb-test.sh)
# with cli_test. A build that is missing fails here (its stage failed).
variants_guest() {
	local k v var dir args=() run=""
	k=$(dirname "$VMLINUZ612")
	for v in next=build/kbuild/stock-6.12-next:bpf_test \
		dkms=build/deb-test/dkms-ko:cli_test; do
		var=${v%%=*} dir=${v#*=} dir=${dir%:*}
		if [ -f "$dir/memfilter.ko" ]; then
			args+=(--variant "$var=$dir")
			run="$run $var:${v##*:}"
		else
			section $R/vm-variants.log tap "variant.$var.built" \
				tap_one "$dir/memfilter.ko exists" false
		fi
	done
	[ -n "$run" ] || return 0
	tests/qemu/vm.sh --kernel "$VMLINUZ612" --bin build/guest/bin \
		--script tests/qemu/variants.sh --smp 1 --mem 2G \
		--kmods "$k/kmods" --tools "$GUEST_TOOLS" "${args[@]}" \
		--env MF_VARIANTS="${run# }" \
		--out $R/vm-variants.log.guest --timeout 900 ||
		echo "vm: variants run failed"
	cat $R/vm-variants.log.guest >>$R/vm-variants.log
}

# --- the run -----------------------------------------------------------------

stage "test kernel's module and guest binaries"
test_build &
make -s -j"$JOBS" guest >$R/guest-build.log 2>&1
echo $? >$R/guest-build.rc
wait

# Two lanes: the debug guest's first part in one, the host stages in the
# other; then each lane takes the next of the other guests from a queue
# when it is free: the debug guest's second part first, the shortest last.
echo "debug-guest-2 debug_guest 2
kcsan-guest kcsan_guest
stock-6.12 stock_guest 6.12
stock-6.1 stock_guest 6.1" >$R/.queue
# next_stage: print the first stage of the queue and remove it.
next_stage() {
	{
		flock 9
		head -n 1 $R/.queue
		sed -i 1d $R/.queue
	} 9>>$R/.queue.lock
}
queued_stages() {
	local job
	while job=$(next_stage) && [ -n "$job" ]; do
		# shellcheck disable=SC2086
		run_stage $job
	done
}
lane_debug() {
	run_stage debug-guest debug_guest 1
	queued_stages
}
lane_host() {
	run_stage static static_checks
	run_stage build build_matrix
	run_stage native native_tests
	run_stage fuzz section $R/native.log tap fuzz.image make -s fuzz-smoke
	run_stage packaging packaging
	run_stage stock-6.12-variants variants_guest
	queued_stages
}
stage "stages (two lanes)"
if [ "${MF_CHECK_SERIAL:-0}" = 1 ]; then
	lane_debug
	lane_host
else
	lane_debug &
	lane_host
	wait
fi

stage "results"
echo "stage         start   end  secs"
cat $R/stage-times.txt
scripts/results.py --kunit-py "$K/tools/testing/kunit/kunit.py" \
	$R/static.log $R/native.log $R/build.log $R/packaging.log $R/vm-debug.log \
	$R/vm-debug-2.log $R/vm-kcsan.log \
	$R/vm-stock-6.12.log $R/vm-stock-6.1.log $R/vm-variants.log
rc=$?
echo "make check: $(($(date +%s) - t0)) s"
exit $rc
