#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make realworld`, the device-mapper part: the memfilter-dedup target
# under ext4, xfs and fio, with dm flakey and error between it and its
# device, each client's own checker deciding (tests/qemu/realworld-dm.sh
# runs in the guests). Two boots:
#
#   debug  the debug test kernel (KASAN, lockdep): correctness; small
#          sizes (it has no xfs: ext4 only)
#   stock  Debian's 6.12 kernel (one vCPU), with ext4, xfs and dm-flakey
#          loaded from its image package: the same checks at larger
#          sizes, and every fio job also run on the plain loop device
#          for the bandwidth ratio (within the one boot)
#
# Writes this part's section of bench/results/realworld.md (between its
# markers; other parts' sections are kept). Exit status: 0 only if both
# guests passed.
#
#   GUESTS   the boots to run (default "debug stock")
#   BUILD    build directory (default build)
#   REV      build the module from this commit (git archive) instead
#            of the working tree, e.g. REV=HEAD while others edit it
#   MF_RW_PARTS, MF_RW_JOBS, MF_RW_CRASH  run a selection (passed to
#            the guest script: parts, fio jobs, crash cases such as
#            "ext4:error_writes ext4-direct:error_writes"); the report
#            is then left as it is
#   MUTANT   readerr|ackerr: instead, build a mutated copy of
#            module/consumers/dm.c (under $BUILD, never the tree's) and
#            run the crash part in the debug guest (GUESTS=stock: the
#            stock one; MF_RW_CRASH selects cases, default the fio ones):
#            the check must fail ("killed"). readerr elides a write whose
#            verify read failed (acks it unverified); ackerr acks a
#            full-block write the device failed.
#
# Logs: $BUILD/results/vm-realworld-dm-{debug,stock}.log.

set -eu
cd "$(dirname "$0")/../.."
. scripts/common.sh

B=${BUILD:-build}
R=$B/results
GUESTS=${GUESTS:-debug stock}
MUTANT=${MUTANT:-}
mkdir -p "$R"

eval "$(grep -E '^(GUEST_TOOLS|SCSI_DEBUG_APPEND)=' scripts/check.sh)"
TOOLS="$GUEST_TOOLS mke2fs e2fsck fstrim fio mkfs.xfs xfs_repair rsync"
for t in $TOOLS; do
	PATH=/usr/sbin:/sbin:/usr/bin:/bin command -v "$t" >/dev/null ||
		die "$t is not installed (scripts/deps.sh)"
done

# A mutant runs in the debug guest unless GUESTS=stock.
[ -z "$MUTANT" ] || [ "$GUESTS" = stock ] || GUESTS=debug
case " $GUESTS " in
*" debug "*)
	K=$(tests/qemu/build-kernel.sh debug) ||
		die "building the test kernel failed" ;;
esac
case " $GUESTS " in
*" stock "*)
	read -r KDIR612 VMLINUZ612 < <(tests/qemu/stock-kernel.sh 6.12) ||
		die "no stock 6.12 kernel" ;;
esac
make -s BUILD="$B" "$B/guest/bin/memfilterctl" "$B/guest/bin/sync_probe"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
cp "$B/guest/bin/memfilterctl" "$B/guest/bin/sync_probe" "$bin/"

# The stock kernel's file systems and dm-flakey, with what they depend
# on, in load order (vm.sh --kmods loads in name order), beside its
# loop and dm-mod: from the image package stock-kernel.sh downloads.
stock_kmods() {
	local rel dir deb m n=0
	rel=$(basename "$(dirname "$VMLINUZ612")")
	dir=$CACHE/stock/$rel/kmods-rw
	if [ ! -f "$dir/.done" ]; then
		rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
		deb=$(ls /var/cache/apt/archives/linux-image-"$rel"-unsigned_*.deb \
			/var/cache/apt/archives/linux-image-"$rel"_*.deb 2>/dev/null |
			head -n 1) || true
		if [ -z "$deb" ]; then
			(cd "$dir.tmp" &&
				apt-get download -qq "linux-image-$rel-unsigned") >&2 ||
				die "cannot download linux-image-$rel-unsigned"
			deb=$(ls "$dir.tmp"/*.deb)
		fi
		for m in crypto/crc32c_generic lib/libcrc32c lib/crc16 fs/mbcache \
			fs/jbd2/jbd2 fs/ext4/ext4 fs/xfs/xfs drivers/md/dm-mod \
			drivers/md/dm-flakey drivers/block/loop; do
			n=$((n + 1))
			dpkg-deb --fsys-tarfile "$deb" | tar -xOf - \
				"./lib/modules/$rel/kernel/$m.ko.xz" | xz -dc \
				>"$dir.tmp/$(printf %02d $n)-${m##*/}.ko" ||
				die "no $m in $deb"
		done
		rm -f "$dir.tmp"/*.deb
		touch "$dir.tmp/.done"
		rm -rf "$dir" && mv "$dir.tmp" "$dir"
	fi
	echo "$dir"
}

# mutate NAME FILE (a copy of dm.c).
mutate() {
	case $1 in
	readerr) e='s/^\t\treturn MF_DM_VERIFY_ERRORS;$/\t\treturn MF_DM_ELIDED;/'
		sed -i "$e" "$2" ;;
	ackerr) sed -i '/^\tcase MF_DM_IO_BLOCK:$/{n;s/if (\*error)$/if (*error \&\& !(*error = BLK_STS_OK))/}' "$2" ;;
	*) die "unknown mutant '$1'" ;;
	esac
	! cmp -s "$msrc/module/consumers/dm.c" "$2" ||
		die "mutant '$1' no longer applies"
}

# The module's sources: the working tree, or REV's tree.
msrc=.
if [ -n "${REV:-}" ]; then
	msrc=$bin/src
	mkdir -p "$msrc"
	git archive "$REV" | tar -x -C "$msrc"
fi

# module KDIR OUT: memfilter.ko alone (CONFIG_KUNIT= leaves out the
# KUnit modules) for a kernel, a mutated dm.c with MUTANT.
module() {
	# Up to date (no source newer than its memfilter.ko): kept.
	if [ -z "$MUTANT" ] && [ -z "${REV:-}" ] && [ -f "$2/memfilter.ko" ] &&
		[ -z "$(find Kbuild module core include uapi -newer \
			"$2/memfilter.ko" 2>/dev/null | head -n 1)" ]; then
		return 0
	fi
	mkdir -p "$2"
	"$msrc/scripts/build-module.sh" "$1" "$(cd "$2" && pwd)" -j2 \
		CONFIG_KUNIT= >"$2.log" 2>&1 ||
		{ tail -n 30 "$2.log"; die "building the module in $2 failed"; }
	if [ -n "$MUTANT" ]; then
		mutate "$MUTANT" "$2/module/consumers/dm.c"
		make -C "$1" M="$(cd "$2" && pwd)" -j2 CONFIG_KUNIT= modules \
			>>"$2.log" 2>&1 ||
			{ tail -n 30 "$2.log"; die "building mutant $MUTANT failed"; }
	fi
}

rc=0
run_guest() {
	local g=$1 log=$R/vm-realworld-dm-$1.log
	[ -z "$MUTANT" ] || log=$R/vm-realworld-dm-mutant-$MUTANT.log
	case $g in
	debug)
		ko=$B/kbuild/rw-debug
		[ -z "$MUTANT" ] || ko=$B/kbuild/rw-mutant-$MUTANT
		module "$K" "$ko"
		args=(--kernel "$K/arch/x86/boot/bzImage" --ko "$ko"
			--append "$SCSI_DEBUG_APPEND" --mem 3G
			--env MF_RW_FS_MIB=256 --env MF_RW_TREE_MIB=16
			--env MF_RW_FIO_MIB=2 --env MF_RW_CRASH_MIB=4)
		;;
	stock)
		ko=$B/kbuild/rw-stock-6.12
		[ -z "$MUTANT" ] || ko=$B/kbuild/rw-stock-6.12-mutant-$MUTANT
		module "$KDIR612" "$ko"
		args=(--kernel "$VMLINUZ612" --ko "$ko"
			--smp 1 --mem 4G --kmods "$(stock_kmods)"
			--env MF_RW_FS_MIB=512 --env MF_RW_TREE_MIB=64
			--env MF_RW_FIO_MIB=16 --env MF_RW_CRASH_MIB=16
			--env MF_RW_RATIO=1)
		;;
	esac
	[ -z "$MUTANT" ] || args+=(--env MF_RW_PARTS=crash)
	[ -z "$MUTANT" ] || [ -n "${MF_RW_CRASH:-}" ] ||
		args+=(--env MF_RW_CRASH_FS=0)
	[ -z "${MF_RW_PARTS:-}" ] || args+=(--env MF_RW_PARTS="$MF_RW_PARTS")
	[ -z "${MF_RW_JOBS:-}" ] || args+=(--env MF_RW_JOBS="$MF_RW_JOBS")
	[ -z "${MF_RW_CRASH:-}" ] || args+=(--env MF_RW_CRASH="$MF_RW_CRASH")
	echo "realworld-dm: $g guest, log $log"
	tests/qemu/vm.sh "${args[@]}" --bin "$bin" \
		--script tests/qemu/realworld-dm.sh --tools "$TOOLS" \
		--out "$log" --timeout 5400 >/dev/null || rc=1
	grep -E '^(not )?ok |^# FAIL|^### END' "$log" | grep -v ' rc=0$' |
		grep -v '^ok ' || true
}

if [ -n "$MUTANT" ]; then
	run_guest "$GUESTS"
	log=$R/vm-realworld-dm-mutant-$MUTANT.log
	grep '^RW crash\|ok [0-9]* \(fio\|ext4\)' "$log"
	# Killed: a fault mode other than the control failed its check.
	if grep -E '^not ok [0-9]+ (fio|ext4[a-z-]*), error(_writes|_reads)? ' \
		"$log"; then
		echo "mutant $MUTANT: killed"
		exit 0
	fi
	echo "mutant $MUTANT: SURVIVED"
	exit 1
fi

for g in $GUESTS; do
	run_guest "$g"
done
if [ -n "${MF_RW_PARTS:-}${MF_RW_JOBS:-}${MF_RW_CRASH:-}" ]; then
	echo "realworld-dm: a selection: bench/results/realworld.md left as it is"
else
	tests/qemu/realworld-dm-report.py "$R" bench/results/realworld.md $GUESTS
fi
exit $rc
