#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make vm-test T="cli_test nf_test" [KERNEL=debug|kcsan|6.12|6.1]`: build
# the module for one of make check's kernels and run only the named guest
# selftests there (add "kunit" to T for the KUnit suites; the debug and
# KCSAN kernels only), judged as make check judges them. For working on
# one test without the whole run; make check still decides.

set -eu
cd "$(dirname "$0")/../.."
. scripts/common.sh

kernel=${KERNEL:-debug}
only=${T:-}
[ -n "$only" ] || die 'name the tests: make vm-test T="cli_test ..."'
export PATH=/usr/lib/ccache:$PATH CCACHE_DIR=$CACHE/ccache \
	CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=1 CCACHE_DEPEND=1
scripts/deps.sh >/dev/null
GUEST_TOOLS="ip bpftool dmsetup losetup blkdiscard tcpreplay xdp-loader"
CLIENT_TOOLS="$GUEST_TOOLS mke2fs e2fsck fstrim fio"
SCSI="scsi_debug.lbpu=1 scsi_debug.lbprz=0 scsi_debug.dev_size_mb=16 scsi_debug.delay=0"
out=build/vm-test/$kernel
mkdir -p "$out"
args=() kunit=()
case $kernel in
debug|kcsan)
	K=$(tests/qemu/build-kernel.sh "$kernel")
	scripts/build-module.sh "$K" "build/kbuild/vmtest-$kernel" -j"$JOBS" >"$out/build.log" 2>&1 ||
		{ cat "$out/build.log"; die "module build failed"; }
	img=$K/arch/x86/boot/bzImage
	kunit=(--kunit-py "$K/tools/testing/kunit/kunit.py")
	script=tests/qemu/debug.sh
	args+=(--tools "$CLIENT_TOOLS" --append "$SCSI")
	[ "$kernel" = kcsan ] && args+=(--tcg multi)
	;;
6.12|6.1)
	read -r KD IMG < <(tests/qemu/stock-kernel.sh "$kernel")
	scripts/build-module.sh "$KD" "build/kbuild/vmtest-$kernel" -j"$JOBS" >"$out/build.log" 2>&1 ||
		{ cat "$out/build.log"; die "module build failed"; }
	img=$IMG
	script=tests/qemu/stock.sh
	args+=(--smp 1 --kmods "$(dirname "$IMG")/kmods")
	if [ "$kernel" = 6.12 ]; then
		args+=(--mem 5G --tools "$CLIENT_TOOLS" --kmods "$(dirname "$IMG")/kmods-dm" --append "$SCSI")
	else
		args+=(--tools "$GUEST_TOOLS")
	fi
	;;
*) die "KERNEL=debug|kcsan|6.12|6.1, not '$kernel'" ;;
esac
make -s -j"$JOBS" WERROR=1 guest
# At most MF_VM_SLOTS (2) of these guests at once on this machine: each
# TCG vCPU wants a host CPU, and more guests only make each slower, up to
# their timeouts. The others wait here for a slot.
slots=${MF_VM_SLOTS:-2}
while :; do
	for s in $(seq 1 "$slots"); do
		exec 8>"$CACHE/.vm-test.$s.lock"
		flock -n 8 && break 2
		exec 8>&-
	done
	[ -n "${waited:-}" ] || echo "vm-test: waiting for a guest slot (MF_VM_SLOTS=$slots)" >&2
	waited=1
	sleep 5
done
rc=0
tests/qemu/vm.sh --kernel "$img" --ko "build/kbuild/vmtest-$kernel" \
	--bin build/guest/bin --script "$script" --env MF_ONLY="$only" \
	--out "$out/vm.log" --timeout 2700 "${args[@]}" || rc=$?
scripts/results.py "${kunit[@]}" "$out/vm.log" || rc=1
echo "vm-test: logs in $out/vm.log and $out/vm.log.console"
exit $rc
