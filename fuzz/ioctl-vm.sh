#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make fuzz-ioctl`: the ioctl fuzzer (tests/ioctl_fuzz_test.c) alone in a
# guest, for longer than make check gives it. Boots the debug test kernel
# (KASAN, lockdep) or a Debian stock kernel, loads the module, runs the
# fuzzer, unloads the module and decides with scripts/results.py (which
# also fails on any kernel report on the console).
#
#   FUZZ_SECONDS  how long the fuzzer runs (default 600)
#   FUZZ_SEED     its seed (default: random, printed)
#   FUZZ_THREADS  chaos threads (default 4)
#   FUZZ_KERNEL   debug (default), 6.12 or 6.1
#   FUZZ_STRICT=1 fail on the departures marked known too
#   FUZZ_INJECT=1 plant a false negative in the shadow model (must fail)
#   FUZZ_WATCHDOG seconds a single call may take (default 60)
#
# Log: build/results/vm-fuzz-ioctl.log (console: .console next to it).

set -eu
cd "$(dirname "$0")/.."
. scripts/common.sh

secs=${FUZZ_SECONDS:-600}
kernel=${FUZZ_KERNEL:-debug}
R=build/results
log=$R/vm-fuzz-ioctl.log
mkdir -p "$R"

case "$kernel" in
debug)
	K=$(tests/qemu/build-kernel.sh) || die "building the test kernel failed"
	vmlinuz=$K/arch/x86/boot/bzImage
	kdir=$K
	;;
6.12 | 6.1)
	read -r kdir vmlinuz < <(tests/qemu/stock-kernel.sh "$kernel") ||
		die "no stock $kernel kernel"
	;;
*) die "FUZZ_KERNEL must be debug, 6.12 or 6.1" ;;
esac
scripts/build-module.sh "$kdir" "build/kbuild/fuzz-$kernel" >"$R/fuzz-ioctl-build.log" 2>&1 ||
	{ cat "$R/fuzz-ioctl-build.log"; die "building the module failed"; }
make -s "build/guest/bin/ioctl_fuzz_test" build/guest/bin/memfilterctl

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
cp build/guest/bin/ioctl_fuzz_test build/guest/bin/memfilterctl "$work/bin/"
cat >"$work/run.sh" <<EOF
. /memfilter/lib.sh
echo "# kernel \$(uname -r), \$(grep -c ^processor /proc/cpuinfo) CPUs"
export MF_FUZZ_SECONDS=$secs MF_FUZZ_SEED=${FUZZ_SEED:-0}
export MF_FUZZ_THREADS=${FUZZ_THREADS:-4} MF_FUZZ_STRICT=${FUZZ_STRICT:-0}
export MF_FUZZ_INJECT=${FUZZ_INJECT:-0} MF_FUZZ_WATCHDOG=${FUZZ_WATCHDOG:-60}
section tap module.load tap_check "insmod memfilter.ko" load_memfilter
section tap fuzz.ioctl \$MF/bin/ioctl_fuzz_test
section tap module.unload tap_check "rmmod memfilter" unload_memfilter
exit \$failed
EOF
smp=2 kmods=()
# Stock kernels boot on one vCPU (tests/qemu/vm.sh, Documentation/testing.rst)
# and load their own dm-mod, which memfilter.ko's dedup target needs.
[ "$kernel" = debug ] || { smp=1; kmods=(--kmods "$(dirname "$vmlinuz")/kmods"); }
tests/qemu/vm.sh --kernel "$vmlinuz" --ko "build/kbuild/fuzz-$kernel" --smp $smp \
	"${kmods[@]}" \
	--bin "$work/bin" --script "$work/run.sh" --out "$log" \
	--timeout $((secs + 600)) || echo "vm: fuzz run failed"
kunit=()
[ "$kernel" = debug ] && kunit=(--kunit-py "$K/tools/testing/kunit/kunit.py")
scripts/results.py "${kunit[@]}" "$log"
