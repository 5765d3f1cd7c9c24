#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test: discard, then the same data again, through memfilter-dedup
# on a disk that keeps returning a discarded block's old contents, as SCSI
# thin LUNs with LBPRZ=0, SATA SSDs without deterministic read-after-trim
# and NVMe drives with DLFEAT=0 may: scsi_debug with lbpu=1 lbprz=0 (from
# the kernel command line, tests/qemu/vm.sh --append: built into the
# debug kernel, a module for the stock 6.12 guest). The
# device itself is the judge: its provisioning map
# (/sys/bus/pseudo/drivers/scsi_debug/map, the LBAs it holds data for)
# must list every block the image was written to, so that nothing reads
# back as zeroes once the device reclaims what it was told to deallocate.
# A write elided after the discard would leave its block deallocated.
#
# The real dd, blkdiscard and dmsetup do the I/O. Needs memfilter.ko
# loaded; prints TAP; exits 0 only if every test passed (skips where the
# kernel has no such scsi_debug disk: the stock 6.1 guest).

DMSETUP=/sbin/dmsetup
BLKDISCARD=/sbin/blkdiscard
export DM_DISABLE_UDEV=1
SD=/sys/bus/pseudo/drivers/scsi_debug
MAP=mfdisc
FILTER=mfdisc-filter
BLOCKS=256
T=$(mktemp -d) || exit 1
# The TAP library: installed beside this script, tests/tap.sh in the tree.
. "${0%/*}/tap.sh"
tap_log=$T/log

dm() { $DMSETUP --noudevsync "$@"; }

cleanup() {
	dm remove $MAP >/dev/null 2>&1
	memfilterctl rm $FILTER >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT

# The target's counters (dm.c's order), as in dm_test.sh.
status() {
	set -- $(dm status $MAP) || return 1
	shift 3
	W=$1 E=$2 V=$3 N=$5 P=$6 U=$9
	echo "# status: writes $W elided $E verify_reads $V negatives $N" \
		"passthrough $P untrusted $U"
}

# The LBAs (512-byte sectors) scsi_debug holds data for.
provisioned() {
	cat $SD/map
}

# dd the image through the target, as a user restores one.
put_image() {
	dm message $MAP 0 reset &&
		dd if="$T/img" of="$DEV" bs=4096 conv=fsync 2>/dev/null
}

t_setup() {
	for d in $SD/adapter*/host*/target*/*/block/*; do
		[ -e "$d" ] && DISK=/dev/${d##*/}
	done
	[ -b "${DISK:-}" ] || fail "no scsi_debug disk" || return 1
	echo "# $DISK: lbpu $(cat /sys/module/scsi_debug/parameters/lbpu)," \
		"lbprz $(cat /sys/module/scsi_debug/parameters/lbprz)"
	dd if=/dev/urandom of="$T/img" bs=4096 count=$BLOCKS 2>/dev/null &&
		memfilterctl create $FILTER --type bloom --capacity 4096 \
			--fpr 0.01 --seed 11 &&
		dm create $MAP --table \
			"0 $((BLOCKS * 8)) memfilter-dedup $DISK $FILTER" ||
		return 1
	DEV=/dev/$(dm info -c --noheadings -o blkdevname $MAP)
	[ -b "$DEV" ]
}

# dd, blkdiscard, dd: the second image must reach the device.
t_discard_rewrite() {
	want="0-$((BLOCKS * 8 - 1))"
	put_image && status && eq "negatives" "$N" $BLOCKS &&
		eq "provisioned after the first dd" "$(provisioned)" "$want" ||
		return 1
	$BLKDISCARD "$DEV" && eq "provisioned after blkdiscard" \
		"$(provisioned)" "" || return 1
	# The device still returns the old data: the trap.
	cmp "$DEV" "$T/img" && echo "# after the discard the disk reads the old data"
	put_image && status && eq "writes" "$W" $BLOCKS &&
		eq "elided" "$E" 0 && eq "untrusted" "$U" $BLOCKS &&
		eq "provisioned after the second dd" "$(provisioned)" "$want" ||
		return 1
	echo 3 >/proc/sys/vm/drop_caches
	cmp "$DEV" "$T/img"
}

# A third dd of the same image, now the target's own writing: elided.
t_rewrite_elided() {
	put_image && status && eq "elided" "$E" $BLOCKS &&
		eq "provisioned" "$(provisioned)" "0-$((BLOCKS * 8 - 1))"
}

if [ ! -r $SD/map ] ||
	[ "$(cat /sys/module/scsi_debug/parameters/lbpu 2>/dev/null)" != 1 ] ||
	[ "$(cat /sys/module/scsi_debug/parameters/lbprz 2>/dev/null)" != 0 ]; then
	tap_skip_all "no scsi_debug disk with lbpu=1 lbprz=0 here"
fi
[ -x $DMSETUP ] && [ -x $BLKDISCARD ] ||
	tap_skip_all "no $DMSETUP or $BLKDISCARD (vm.sh --tools)"
tap_begin 3
step "setup: scsi_debug disk (lbprz=0), filter, dmsetup create" t_setup
step "dd, blkdiscard, dd: every block written again, on the device" \
	t_discard_rewrite
step "dd again: every block elided" t_rewrite_elided
tap_end
