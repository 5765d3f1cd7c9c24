#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make faults`: memfilter under the kernel's fault injection (failslab,
# fail_page_alloc, fail_make_request) in the debug test kernel: builds
# the kernel (or reuses it), the module and the guest binaries, boots one
# guest running tests/faults.sh and decides with scripts/results.py.
# Not part of make check: the guest takes several minutes.
#
#   FAULTS_FUZZ_SECONDS  how long the ioctl fuzzer runs (default 60)
#   FAULTS_PROB          the injectors' probability in percent (10)
#   BUILD                build directory (default build)
#
# Log: $BUILD/results/vm-faults.log (console: .console next to it).
#
# The kernel's console must be clean as for every guest (tests/qemu/vm.sh),
# with one exception: an allocation that fails without __GFP_NOWARN is
# reported by the allocator itself, warn_alloc() ("<comm>: <what>,
# mode:0x...(...), nodemask=..." and a stack dump: vmalloc() when its
# vm_struct or page array cannot be allocated, for one). Fault injection
# makes such failures happen by design; this script accepts the stack
# dump that directly follows such a line and nothing else, and lists
# them. Every other report (BUG, WARNING, KASAN, lockdep, kmemleak, ...)
# still fails the run.

set -eu
cd "$(dirname "$0")/.."
. scripts/common.sh

B=${BUILD:-build}
R=$B/results
log=$R/vm-faults.log
mkdir -p "$R"

K=$(scripts/build-kernel.sh debug) || die "building the test kernel failed"
scripts/build-module.sh "$K" "$B/kbuild/faults" >"$R/faults-build.log" 2>&1 ||
	{ cat "$R/faults-build.log"; die "building the module failed"; }
make -s BUILD="$B" "$B/guest/bin/ioctl_fuzz_test" "$B/guest/bin/memfilterctl" \
	"$B/guest/bin/dedup_io" "$B/guest/bin/faultrun"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
cp "$B/guest/bin/ioctl_fuzz_test" "$B/guest/bin/memfilterctl" \
	"$B/guest/bin/dedup_io" "$B/guest/bin/faultrun" "$work/bin/"

rc=0
tests/qemu/vm.sh --kernel "$K/arch/x86/boot/bzImage" --ko "$B/kbuild/faults" \
	--bin "$work/bin" --script tests/faults.sh --tools "dmsetup losetup" \
	--env MF_FAULTS_FUZZ_SECONDS="${FAULTS_FUZZ_SECONDS:-60}" \
	--env MF_FAULTS_PROB="${FAULTS_PROB:-10}" \
	--out "$log" --timeout 2400 || rc=$?

# vm.sh's pattern, on the console without warn_alloc()'s stack dumps.
pattern='BUG:|WARNING:|Oops|general protection fault|KASAN:|UBSAN:|KCSAN:|Kernel panic|kernel BUG|Call Trace:|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|unreferenced object|sleeping function called from invalid context|INFO: task .* blocked|soft lockup|hung_task'
console=$log.console
if [ "$rc" = 1 ] && [ -f "$console" ]; then
	awk '
		/, mode:0x[0-9a-f]+\(.*\), nodemask=/ { alloc = 6; print "# warn_alloc: " $0 > "/dev/stderr"; next }
		alloc > 0 && /Call Trace:/ { skip = 1; alloc = 0; next }
		skip && /<\/TASK>/ { skip = 0; next }
		skip { next }
		{ if (alloc > 0) alloc--; print }
	' "$console" >"$work/console" 2>"$work/allocs"
	if ! grep -Eq "$pattern" "$work/console" &&
		grep -q '^MEMFILTER-END rc=0' "$log"; then
		n=$(wc -l <"$work/allocs")
		echo "faults: the console's only reports are $n warn_alloc() stack dumps of failed allocations:"
		sed 's/^# warn_alloc: //' "$work/allocs" | head -n 20
		# The verdict section vm.sh appended, now with that reason.
		sed -i '/^### BEGIN tap vm.verdict/,$d' "$log"
		{
			echo "### BEGIN tap vm.verdict"
			echo "TAP version 13"
			echo "1..1"
			echo "ok 1 guest finished, kernel log clean but for $n warn_alloc() reports"
			echo "### END tap vm.verdict rc=0"
		} >>"$log"
		rc=0
	fi
fi
[ "$rc" = 0 ] || echo "vm: faults run failed (rc $rc)"
grep '^# figures:' "$log" || true
scripts/results.py --kunit-py "$K/tools/testing/kunit/kunit.py" "$log"
