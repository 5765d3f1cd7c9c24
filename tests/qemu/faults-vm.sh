#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make faults`: memfilter under the kernel's fault injection (failslab,
# fail_page_alloc, fail_make_request) in the debug test kernel: builds
# the kernel (or reuses it), the module and the guest binaries, boots one
# guest running tests/faults.sh and decides with scripts/results.py.
# make check runs a short pass of the same parts in its debug guest
# (tests/qemu/debug.sh); this is the long run: the guest takes several
# minutes.
#
#   FAULTS_FUZZ_SECONDS  how long the ioctl fuzzer runs (default 60)
#   FAULTS_PROB          the injectors' probability in percent (10)
#   BUILD                build directory (default build)
#
# Log: $BUILD/results/vm-faults.log (console: .console next to it).
#
# The kernel's console must be clean as for every guest (tests/qemu/vm.sh,
# which accepts an allocator's own warn_alloc() report of a failed
# allocation, and its stack dump, only while tests/faults.sh has the
# allocation faults armed, and lists them). Every other report (BUG,
# WARNING, KASAN, lockdep, kmemleak, ...) fails the run.

set -eu
cd "$(dirname "$0")/../.."
. scripts/common.sh

B=${BUILD:-build}
R=$B/results
log=$R/vm-faults.log
mkdir -p "$R"

K=$(tests/qemu/build-kernel.sh debug) || die "building the test kernel failed"
scripts/build-module.sh "$K" "$B/kbuild/faults" >"$R/faults-build.log" 2>&1 ||
	{ cat "$R/faults-build.log"; die "building the module failed"; }
guest_bins "$B" ioctl_fuzz_test memfilterctl dedup_io faultrun

rc=0
tests/qemu/vm.sh --kernel "$K/arch/x86/boot/bzImage" --ko "$B/kbuild/faults" \
	--bin "$work/bin" --script tests/faults.sh --tools "dmsetup losetup" \
	--env MF_FAULTS_FUZZ_SECONDS="${FAULTS_FUZZ_SECONDS:-60}" \
	--env MF_FAULTS_PROB="${FAULTS_PROB:-10}" \
	--out "$log" --timeout 2400 || rc=$?

[ "$rc" = 0 ] || echo "vm: faults run failed (rc $rc)"
grep '^# figures:' "$log" || true
scripts/results.py --kunit-py "$K/tools/testing/kunit/kunit.py" "$log"
