# SPDX-License-Identifier: GPL-2.0
#
# Guest script of bench/dm-bench.sh: what the memfilter-dedup target
# saves when dd copies the same 256 MiB image onto it twice, then the image
# with 10% of its blocks changed, against dm-linear (no target) and the
# target without a filter ("*": every write verified). For each pass: the
# sectors written to and the reads issued to the underlying loop device,
# and the pass's time (emulated: compare ratios only). GNU dd (vm.sh
# --tools dd) writes with O_DIRECT in 1 MiB requests, which DM splits into
# 4 KiB bios.

. /memfilter/lib.sh
export DM_DISABLE_UDEV=1
N=${MF_DM_BENCH_BLOCKS:-65536}
T=/tmp/dmbench
mkdir -p $T
insmod $MF/memfilter.ko || exit 1

dedup_io image $T/img 0 $N 1 1 || exit 1
cp $T/img $T/img10 && dedup_io image $T/img10 0 $((N / 10)) 10 2 || exit 1

uptime_cs() {
	read -r up _ </proc/uptime
	echo "${up%.*}${up#*.}"
}

# pass CONFIG NAME IMAGE
pass() {
	s=/sys/block/${LDEV#/dev/}/stat
	set -- "$@" $(cat $s)
	r0=$4 w0=${10}
	[ "$1" = linear ] || dmsetup message $MAP 0 reset || exit 1
	t0=$(uptime_cs)
	/sbin/dd if="$3" of="$DEV" bs=1M oflag=direct conv=fsync status=none ||
		exit 1
	t1=$(uptime_cs)
	set -- "$1" "$2" "$3" $(cat $s)
	printf '%-8s %-12s %12d %10d %8d.%02d  %s\n' "$1" "$2" \
		$(((${10} - w0) * 512)) $(($4 - r0)) $(((t1 - t0) / 100)) \
		$(((t1 - t0) % 100)) "$(dmsetup status $MAP | cut -d' ' -f4-)"
}

config() {
	name=$1 table=$2
	rm -f $T/back
	dd if=/dev/zero of=$T/back bs=4096 count=0 seek=$N 2>/dev/null
	LDEV=$(losetup -f --show $T/back) || exit 1
	if [ "$table" = filter ]; then
		memfilterctl create mfbench --type bloom \
			--capacity $((N * 2)) --fpr 0.001 >/dev/null || exit 1
		table="memfilter-dedup $LDEV mfbench"
	elif [ "$table" = nofilter ]; then
		table="memfilter-dedup $LDEV *"
	else
		table="linear $LDEV 0"
	fi
	MAP=mfbench
	dmsetup --noudevsync create $MAP --table "0 $((N * 8)) $table" ||
		exit 1
	DEV=/dev/$(dmsetup info -c --noheadings -o blkdevname $MAP)
	pass "$name" "image" $T/img
	pass "$name" "same-image" $T/img
	pass "$name" "10%-changed" $T/img10
	cmp $T/back $T/img10 || { echo "content differs"; exit 1; }
	dmsetup --noudevsync remove $MAP && losetup -d $LDEV || exit 1
	memfilterctl rm mfbench 2>/dev/null
}

echo "# $N blocks of 4 KiB; kernel $(uname -r)"
echo "# config   pass          bytes-written  loop-reads  seconds  status (writes elided verify_reads mismatches negatives passthrough busy verify_errors untrusted)"
config linear linear
config dedup filter
config verify-all nofilter
