#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test: memfilter-dedup under the clients users put on it, ext4
# and fio, each judged by its own checker. The host's mke2fs, e2fsck,
# fstrim, fio, dmsetup and losetup (vm.sh --tools) drive a target over a
# loop device on a tmpfs file: ext4 is made, filled with a tree of real
# files, rewritten in place, copied over, emptied, trimmed and filled
# again, and e2fsck -fn must exit 0 and every file's SHA-256 must equal
# its source's after each step but the copy over; fio writes the device,
# verifying what it wrote (once with libaio and crc32c headers, twice
# with io_uring and fio's offset pattern), and its exit code, error
# field and read-back byte count decide. The target's counters for each step are printed as
# TAP comments ("# ..."); what is certain about them is asserted.
#
# Needs memfilter.ko loaded and a kernel with ext4 (built into the debug
# test kernel, loaded by the stock 6.12 guest), AIO and io_uring: where
# ext4 is missing (the stock 6.1 guest) it skips. Prints TAP; exits 0
# only if every test passed.

DMSETUP=/sbin/dmsetup
LOSETUP=/sbin/losetup
MKE2FS=/sbin/mke2fs
E2FSCK=/sbin/e2fsck
FSTRIM=/sbin/fstrim
FIO=/sbin/fio
export DM_DISABLE_UDEV=1

MAP=mffs
FILTER=mffs-filter
# The device (MiB), the tree copied onto it (the guest's own files, see
# t_tree) and each fio pass (MiB, from the device's start).
MIB=${MF_DM_FS_MIB:-32}
FIO_MIB=${MF_DM_FIO_MIB:-2}

T=$(mktemp -d) || exit 1
# The TAP library: installed beside this script, tests/tap.sh in the tree.
. "${0%/*}/tap.sh"
tap_log=$T/log
MNT=$T/mnt
BACK=$T/backing.img
LDEV=

dm() { $DMSETUP --noudevsync "$@"; }

cleanup() {
	cd /
	umount "$MNT" 2>/dev/null
	dm remove $MAP >/dev/null 2>&1
	[ -n "$LDEV" ] && $LOSETUP -d "$LDEV" 2>/dev/null
	memfilterctl rm $FILTER >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT

# status: the counters since the last reset (dm.c's order), printed with
# the fraction of candidates elided, in per mille.
status() {
	set -- $(dm status $MAP) || return 1
	[ "$3" = memfilter-dedup ] || fail "status: '$*'" || return 1
	shift 3
	W=$1 E=$2 V=$3 M=$4 N=$5 P=$6 B=$7 X=$8 U=$9
	# Not W ? E * 1000 / W : 0: busybox sh evaluates both branches.
	pm=0
	[ "$W" = 0 ] || pm=$((E * 1000 / W))
	echo "# status: writes $W elided $E ($pm/1000)" \
		"verify_reads $V mismatches $M negatives $N passthrough $P" \
		"busy $B verify_errors $X untrusted $U"
	eq "writes = negatives + verify reads + untrusted" "$W" \
		$((N + V + U)) &&
		eq "verify reads = elided + mismatches + busy + errors" "$V" \
			$((E + M + B + X)) && eq "verify errors" "$X" 0
}

reset() {
	dm message $MAP 0 reset
}

# fsck: e2fsck's verdict on the unmounted file system, read-only.
fsck() {
	$E2FSCK -fn "$DEV" >"$T/fsck" 2>&1 && return 0
	cat "$T/fsck"
	fail "e2fsck -fn exited $?"
}

# sums: every file of the copy has its source's SHA-256 (read from the
# device: mounted afresh, nothing of the file system is cached).
sums() {
	(cd "$MNT/tree" && sha256sum -c "$T/sums" >"$T/sumout" 2>&1) && return 0
	grep -v ': OK$' "$T/sumout" | head -20
	fail "checksums differ"
}

mnt() {
	mount -t ext4 "$DEV" "$MNT"
}

t_setup() {
	mkdir -p "$MNT" && truncate -s ${MIB}M "$BACK" &&
		LDEV=$($LOSETUP -f --show "$BACK") &&
		memfilterctl create $FILTER --type bloom --capacity 262144 \
			--fpr 0.01 --seed 7 &&
		dm create $MAP --table \
			"0 $((MIB * 2048)) memfilter-dedup $LDEV $FILTER" || return 1
	DEV=/dev/$(dm info -c --noheadings -o blkdevname $MAP)
	[ -b "$DEV" ]
}

# The tree: the tools vm.sh --tools copied into the guest's /sbin (about
# 4 MiB in 9 files: every step runs a few times slower per byte under
# KASAN and TCG than on the stock kernel, and t_rewrite starts a dd per
# file). Its files' checksums, and BLOCKS: the 4 KiB blocks of file data.
t_tree() {
	SRC=$T/src
	cp -a /sbin "$SRC" &&
		(cd "$SRC" && find . -type f | sort | xargs sha256sum >"$T/sums") ||
		return 1
	FILES=$(wc -l <"$T/sums")
	BLOCKS=0
	for s in $(find "$SRC" -type f | xargs stat -c %s); do
		BLOCKS=$((BLOCKS + (s + 4095) / 4096))
	done
	echo "# tree: $FILES files, $BLOCKS blocks of data" \
		"($(du -sk "$SRC" | cut -f1) KiB)"
}

# mkfs.ext4, mount, copy, umount: e2fsck clean, every file intact.
# 4 KiB blocks (mke2fs picks 1 KiB below 512 MiB), inode tables zeroed by
# mke2fs: left to ext4lazyinit after the first mount, their write-zeroes
# would run during the copy, and every write that completes while one is
# in flight anywhere on the device is untrusted (its block's next rewrite
# written, not elided), which t_rewrite's count cannot allow for.
t_mkfs_copy() {
	reset && $MKE2FS -q -F -t ext4 -b 4096 -E lazy_itable_init=0 "$DEV" &&
		mnt && cp -a "$SRC" "$MNT/tree" && sync && umount "$MNT" &&
		status && fsck && mnt && sums && umount "$MNT"
}

# The same files written again in place (dd conv=notrunc, as a restore
# over an existing copy or rsync --inplace does): every data block is its
# own completed write with the same contents, read back equal, so elided
# or, when a write to its in-flight slot was running, busy; never written
# for want of trust (untrusted) or found different.
t_rewrite() {
	reset && mnt || return 1
	(cd "$SRC" && for f in $(find . -type f); do
		dd if="$f" of="$MNT/tree/$f" bs=64k conv=notrunc 2>/dev/null ||
			exit 1
	done) && sync && umount "$MNT" && status || return 1
	[ $((E + B)) -ge "$BLOCKS" ] ||
		fail "elided $E + busy $B < $BLOCKS blocks of data" || return 1
	fsck && mnt && sums && umount "$MNT"
}

# cp over the existing files instead: cp truncates, ext4 allocates new
# blocks (the freed ones are reusable only once the transaction commits),
# so the data lands at other block numbers, keys the filter never saw.
# Left mounted: t_trim_copy removes these copies and checks what follows.
t_cp_over() {
	reset && mnt && cp -af "$SRC"/* "$MNT/tree/" && sync && status
}

# rm, fstrim (the target forgets every discarded block), mount again,
# copy again: a fresh mount's allocator hands out the blocks of the first
# copy again, so the filter knows the keys of the data written there, but
# they are written (untrusted), never elided from a read of a discarded
# block.
t_trim_copy() {
	rm -rf "$MNT/tree" && sync && reset &&
		$FSTRIM -v "$MNT" >"$T/trim" && sed 's/^/# /' "$T/trim" &&
		status || return 1
	[ "$P" -gt 0 ] || fail "fstrim sent no discard" || return 1
	umount "$MNT" && mnt && reset && cp -a "$SRC" "$MNT/tree" && sync &&
		umount "$MNT" && status && fsck && mnt && sums && umount "$MNT"
}

# fio_job NAME ARGS...: one fio job over the first FIO_MIB MiB of the device,
# random 4 KiB O_DIRECT writes with fio's verify phase after them. It
# must exit 0, report error 0, and have read back (verified) and written
# every byte. Terse fields: 5 error, 6 read KiB, 47 write KiB.
fio_job() {
	name=$1
	shift
	reset || return 1
	# --thread: no fork per job (a process costs under KASAN).
	$FIO --name="$name" --filename="$DEV" --rw=randwrite --bs=4k \
		--size=${FIO_MIB}m --iodepth=16 --direct=1 --do_verify=1 \
		--randseed=1 --thread --output-format=terse "$@" >"$T/fio" 2>&1
	rc=$?
	[ $rc = 0 ] || { cat "$T/fio"; fail "fio exited $rc"; } || return 1
	set -- $(grep '^3;' "$T/fio" | cut -d';' -f5,6,47 | tr ';' ' ')
	eq "fio error, KiB verified, KiB written" "$*" \
		"0 $((FIO_MIB * 1024)) $((FIO_MIB * 1024))" && status
}

# fio with crc32c headers, once: every byte read back as written. (A
# second pass with the same seed elides nothing at 4 KiB: fio's header
# holds the time. make realworld runs the matrix of fio jobs.)
t_fio_crc() {
	fio_job crc --ioengine=libaio --verify=crc32c
}

# fio with its offset pattern (no header), twice: the second pass writes
# exactly what the first did; every write is verified, read back equal
# and elided or busy, and fio reads back every byte as written.
t_fio_pattern() {
	blocks=$((FIO_MIB * 256))
	fio_job pat --ioengine=io_uring --verify=pattern --verify_pattern=%o &&
		fio_job pat2 --ioengine=io_uring --verify=pattern \
			--verify_pattern=%o || return 1
	eq "writes, verify reads, negatives, untrusted, mismatches" \
		"$W $V $N $U $M" "$blocks $blocks 0 0 0" &&
		eq "elided + busy" $((E + B)) $blocks
}

grep -qw ext4 /proc/filesystems ||
	tap_skip_all "no ext4 in this kernel (the debug and stock 6.12 guests have it)"
for t in $DMSETUP $LOSETUP $MKE2FS $E2FSCK $FSTRIM $FIO; do
	[ -x $t ] || tap_skip_all "no $t (vm.sh --tools)"
done
tap_begin 8
step "setup: loop device, filter, dmsetup create" t_setup
step "the tree to copy, its checksums" t_tree
step "mkfs.ext4, copy: e2fsck clean, files intact" t_mkfs_copy
step "rewrite in place: data elided, e2fsck clean, files intact" t_rewrite
step "cp over the files" t_cp_over
step "rm, fstrim, copy again: e2fsck clean, files intact" t_trim_copy
# Debian's fio needs System V shared memory (shmget for its job table,
# even with --thread): a kernel without CONFIG_SYSVIPC skips these two.
if [ -d /proc/sysvipc ]; then
	step "fio libaio crc32c: verified" t_fio_crc
	step "fio io_uring pattern, twice: verified, second pass elided" \
		t_fio_pattern
else
	for t in "fio libaio crc32c" "fio io_uring pattern"; do
		tap_skip "no System V IPC in this kernel (fio's shmget)" "$t"
	done
fi
tap_end
