# SPDX-License-Identifier: GPL-2.0
#
# Guest script of `make realworld` (tests/qemu/realworld-dm-vm.sh): the
# memfilter-dedup target under the clients users put on it, each judged
# by its own checker. Not part of make check, whose subset is
# tests/dm_fs_test.sh.
#
#   fs      mkfs.ext4 and mkfs.xfs (each if the kernel has it), a real
#           tree copied on, sync, umount: e2fsck -fn / xfs_repair -n
#           clean, every file's SHA-256 equal after a fresh mount; the
#           tree copied over itself in place (rsync --inplace) with the
#           fraction of writes elided; rm, fstrim, copy again: clean.
#   fio     a matrix of fio jobs with --verify and --do_verify=1, each
#           run twice with the same seed on a fresh target (and, with
#           MF_RW_RATIO=1, twice on the plain loop device for the
#           bandwidth ratio): fio's exit status and error field decide,
#           and the second pass's elided count is asserted where the
#           data decides it.
#   crash   dm flakey / error between the target and its device, switched
#           in mid-job (when the target has counted half the job's
#           writes): every write fio was told completed reads back
#           (fio --verify_only with its saved verify state); every
#           file ext4 said was durable (its fsync, or a syncfs through
#           a descriptor opened before, returned 0: tests/sync_probe.c)
#           reads back and e2fsck is clean after recovery, on the
#           target and, for reference, without it. drop_writes (a
#           device that acks writes it drops) is the control: there
#           the same check must fail.
#
# Environment (from vm.sh --env): MF_RW_PARTS (default "fs fio crash"),
# MF_RW_FS_MIB, MF_RW_TREE_MIB, MF_RW_FIO_MIB, MF_RW_RATIO (0|1),
# MF_RW_JOBS (fio jobs to run, default all), MF_RW_CRASH (crash cases,
# default all: CRASH_CASES), MF_RW_CRASH_FS=0 (no ext4 crash cases).
# Data lines start "RW "; the host script turns them into
# bench/results/realworld.md.

. /memfilter/lib.sh
export DM_DISABLE_UDEV=1

PARTS=${MF_RW_PARTS:-fs fio crash}
FS_MIB=${MF_RW_FS_MIB:-512}
TREE_MIB=${MF_RW_TREE_MIB:-128}
FIO_MIB=${MF_RW_FIO_MIB:-16}
RATIO=${MF_RW_RATIO:-0}
T=/tmp/rw
mkdir -p $T/mnt
MNT=$T/mnt
cd $T || exit 1

dm() { /sbin/dmsetup --noudevsync "$@"; }
ldev() { /sbin/losetup "$@"; }

fail() {
	echo "# FAIL: $*"
	return 1
}

# tests: TAP for one part, numbered as they run; the plan at the end.
n=0
part_failed=0
t_ok() {
	n=$((n + 1))
	echo "ok $n $*"
}
t_not() {
	n=$((n + 1))
	echo "not ok $n $*"
	part_failed=1
}
t_check() {
	desc=$1
	shift
	if "$@"; then t_ok "$desc"; else t_not "$desc"; fi
}
part_end() {
	echo "1..$n"
	r=$part_failed
	n=0 part_failed=0
	return $r
}

# --- devices ---------------------------------------------------------------

# mkloop NAME MIB: a loop device over a tmpfs file; prints its path.
mkloop() {
	rm -f $T/$1.img
	truncate -s ${2}M $T/$1.img && ldev -f --show $T/$1.img
}

# target MAP DEV SECTORS: a fresh filter and memfilter-dedup target on DEV
# (capacity for every key a run here adds, FPR 1%).
target() {
	memfilterctl rm $1-f >/dev/null 2>&1
	memfilterctl create $1-f --type bloom --capacity 1048576 --fpr 0.01 \
		--seed 7 >/dev/null &&
		dm create $1 --table "0 $3 memfilter-dedup $2 $1-f"
}

untarget() {
	dm remove $1 && memfilterctl rm $1-f >/dev/null
}

blk() { echo /dev/$(dm info -c --noheadings -o blkdevname $1); }

# wsect DEV: sectors written to a block device since boot.
wsect() {
	set -- $(cat /sys/block/${1#/dev/}/stat)
	echo $7
}

# status MAP: the counters since the last reset into W E V M N P B X U.
status() {
	set -- $(dm status $1) || return 1
	shift 3
	W=$1 E=$2 V=$3 M=$4 N=$5 P=$6 B=$7 X=$8 U=$9
	PM=0
	[ "$W" = 0 ] || PM=$((E * 1000 / W))
	CNT="writes=$W elided=$E verify_reads=$V mismatches=$M negatives=$N"
	CNT="$CNT passthrough=$P busy=$B verify_errors=$X untrusted=$U"
}

# --- fs --------------------------------------------------------------------

# The tree: the guest's own files (/sbin, /memfilter and, when TREE_MIB
# is 64 or more, /lib with the 80 MiB of libraries vm.sh copied in) and
# TREE_MIB of generated files: random data in sizes from 1 KiB to 8 MiB,
# every eighth one a copy of another (equal contents at other blocks), a
# sparse file and empty files.
mk_tree() {
	SRC=$T/src
	rm -rf $SRC && mkdir -p $SRC/gen || return 1
	cp -a /sbin /memfilter $SRC/ 2>/dev/null
	[ "$TREE_MIB" -lt 64 ] || cp -a /lib $SRC/ 2>/dev/null
	i=0 kib=0
	while [ $kib -lt $((TREE_MIB * 1024)) ]; do
		i=$((i + 1))
		d=$SRC/gen/d$((i % 16))
		mkdir -p $d
		sz=$(((i * 7919) % 8192 + 1))
		if [ $((i % 8)) = 0 ]; then
			cp $SRC/gen/d$(((i - 1) % 16))/f$((i - 1)) $d/f$i
		else
			dd if=/dev/urandom of=$d/f$i bs=1k count=$sz 2>/dev/null
		fi
		kib=$((kib + $(du -k $d/f$i | cut -f1)))
	done
	truncate -s 16M $SRC/gen/sparse && echo end >>$SRC/gen/sparse
	: >$SRC/gen/empty1 && : >$SRC/gen/empty2
	(cd $SRC && find . -type f | sort | xargs sha256sum >$T/sums) || return 1
	FILES=$(wc -l <$T/sums)
	echo "# tree: $FILES files, $(du -sk $SRC | cut -f1) KiB"
}

fsck_fs() {
	case $FS in
	ext4) /sbin/e2fsck -fn $DEV >$T/fsck 2>&1 ;;
	xfs) /sbin/xfs_repair -n $DEV >$T/fsck 2>&1 ;;
	esac && return 0
	tail -20 $T/fsck | sed 's/^/# /'
	fail "$FS fsck exited non-zero"
}

mnt() { mount -t $FS $DEV $MNT; }

sums() {
	(cd $MNT/tree && sha256sum -c $T/sums >$T/sumout 2>&1) && return 0
	grep -v ': OK$' $T/sumout | head -5 | sed 's/^/# /'
	fail "checksums differ"
}

# step NAME COMMAND...: run a step with the counters reset, print its
# data line (counters, KiB submitted to the target and written to the
# loop device) and fail it if the counters break their identities.
step() {
	stp=$1
	shift
	dm message $MAP 0 reset || return 1
	s0=$(wsect $DEV) l0=$(wsect $LDEV)
	"$@" || return 1
	status $MAP || return 1
	s1=$(wsect $DEV) l1=$(wsect $LDEV)
	echo "RW fs=$FS step=$stp $CNT sub_kib=$(((s1 - s0) / 2))" \
		"dev_kib=$(((l1 - l0) / 2)) elided_pm=$PM"
	[ "$W" = $((N + V + U)) ] && [ "$V" = $((E + M + B + X)) ] &&
		[ "$X" = 0 ] || fail "counters: $CNT"
}

copy() { mnt && cp -a $SRC $MNT/tree && sync && umount $MNT; }
check() { fsck_fs && mnt && sums && umount $MNT; }

# The same files over themselves in place: rsync --inplace --whole-file
# (every block rewritten with its own data; without --whole-file rsync's
# delta transfer finds every block unchanged and writes nothing), or dd
# conv=notrunc where rsync is absent.
inplace() {
	mnt || return 1
	if [ -x /sbin/rsync ]; then
		/sbin/rsync -a --inplace --ignore-times ${1:---whole-file} \
			$SRC/ $MNT/tree/ || return 1
	else
		(cd $SRC && find . -type f | while read -r f; do
			dd if="$f" of="$MNT/tree/$f" bs=64k conv=notrunc \
				2>/dev/null || exit 1
		done) || return 1
	fi
	sync && umount $MNT
}

trim_copy() {
	mnt && rm -rf $MNT/tree && sync && /sbin/fstrim $MNT &&
		cp -a $SRC $MNT/tree && sync && umount $MNT
}

fs_one() {
	FS=$1
	MAP=rwfs
	LDEV=$(mkloop fs $FS_MIB) && target $MAP $LDEV $((FS_MIB * 2048)) &&
		DEV=$(blk $MAP) || { t_not "$FS: setup"; return; }
	case $FS in
	ext4) mk() { /sbin/mke2fs -q -F -t ext4 -b 4096 \
		-E lazy_itable_init=0,lazy_journal_init=0 $DEV; } ;;
	xfs) mk() { /sbin/mkfs.xfs -q -f $DEV; } ;;
	esac
	t_check "$FS: mkfs" step mkfs mk
	t_check "$FS: copy the tree, sync, umount" step copy copy
	t_check "$FS: after the copy: fsck clean, files intact" check
	t_check "$FS: the tree over itself, rsync --inplace --whole-file" \
		step inplace inplace
	t_check "$FS: after it: fsck clean, files intact" check
	if [ -x /sbin/rsync ]; then
		t_check "$FS: the tree over itself, rsync's delta transfer" \
			step rsync_delta inplace --no-whole-file
		t_check "$FS: after it: fsck clean, files intact" check
	fi
	t_check "$FS: rm, fstrim, copy again" step trim_copy trim_copy
	t_check "$FS: after it: fsck clean, files intact" check
	untarget $MAP
	ldev -d $LDEV
	rm -f $T/fs.img
}

part_fs() {
	echo "TAP version 13"
	mk_tree || { t_not "generate the tree"; part_end; return; }
	for fs in ext4 xfs; do
		if grep -qw $fs /proc/filesystems; then
			fs_one $fs
		else
			echo "RW fs=$fs skipped=not-in-kernel"
		fi
	done
	part_end
}

# --- fio -------------------------------------------------------------------

# The jobs: name and fio options. Every value of each dimension appears:
# rw write/randwrite, bs 4k/16k/64k/1M, iodepth 1/32, libaio/io_uring,
# dedupe_percentage 0/50/90, no sync/--fsync/--sync=1, crc32c and
# pattern verification, and trims (randtrimwrite: each block trimmed,
# then written).
JOBS="seq4k-qd1-aio --rw=write --bs=4k --iodepth=1 --ioengine=libaio --dedupe_percentage=0 --verify=crc32c
rand4k-qd32-uring-d50 --rw=randwrite --bs=4k --iodepth=32 --ioengine=io_uring --dedupe_percentage=50 --verify=crc32c
seq16k-qd32-aio-d90 --rw=write --bs=16k --iodepth=32 --ioengine=libaio --dedupe_percentage=90 --verify=crc32c
rand16k-qd1-uring-fsync --rw=randwrite --bs=16k --iodepth=1 --ioengine=io_uring --fsync=8 --verify=crc32c
seq64k-qd1-uring-d50-sync --rw=write --bs=64k --iodepth=1 --ioengine=io_uring --dedupe_percentage=50 --sync=1 --verify=crc32c
rand64k-qd32-aio-d90-fsync --rw=randwrite --bs=64k --iodepth=32 --ioengine=libaio --dedupe_percentage=90 --fsync=16 --verify=crc32c
seq1m-qd32-uring --rw=write --bs=1m --iodepth=32 --ioengine=io_uring --verify=crc32c
rand1m-qd1-aio-d50-sync --rw=randwrite --bs=1m --iodepth=1 --ioengine=libaio --dedupe_percentage=50 --sync=1 --verify=crc32c
rand4k-qd32-aio-d90-sync --rw=randwrite --bs=4k --iodepth=32 --ioengine=libaio --dedupe_percentage=90 --sync=1 --verify=crc32c
rand4k-qd32-uring-pattern --rw=randwrite --bs=4k --iodepth=32 --ioengine=io_uring --verify=pattern --verify_pattern=%o
seq64k-qd32-aio-pattern-fsync --rw=write --bs=64k --iodepth=32 --ioengine=libaio --fsync=4 --verify=pattern --verify_pattern=%o
randtrimwrite16k-qd32-aio --rw=randtrimwrite --bs=16k --iodepth=32 --ioengine=libaio --verify=crc32c"

# fio_pass DEV NAME SEED ARGS...: one pass over FIO_MIB MiB; sets FE
# (error), FR (KiB read back by the verify), FW (KiB written), FBW
# (write KiB/s), rc.
fio_pass() {
	dev=$1 fname=$2 seed=$3
	shift 3
	/sbin/fio --name=$fname --filename=$dev --size=${FIO_MIB}m --direct=1 \
		--do_verify=1 --randseed=$seed --thread --output-format=terse \
		"$@" >$T/fio 2>&1
	rc=$?
	set -- $(grep '^3;' $T/fio | cut -d';' -f5,6,47,48 | tr ';' ' ')
	FE=${1:-?} FR=${2:-?} FW=${3:-?} FBW=${4:-?}
	[ $rc = 0 ] && [ "$FE" = 0 ] && [ "$FR" = $((FIO_MIB * 1024)) ] &&
		return 0
	grep -v '^3;' $T/fio | head -10 | sed 's/^/# /'
	fail "fio $fname: exit $rc, error $FE, verified $FR KiB"
}

# The bytes fio's verify header takes of each bs (crc32c: one 4 KiB
# block per I/O carries it, its other blocks are the seed's data again).
fio_job() {
	job=$1
	shift
	bs=$(echo " $* " | sed 's/.* --bs=\([0-9]*[km]\) .*/\1/')
	case $bs in *k) bsk=${bs%k} ;; *m) bsk=$((${bs%m} * 1024)) ;; esac
	blocks=$((FIO_MIB * 256))
	LDEV=$(mkloop fio $FIO_MIB) && target rwfio $LDEV $((FIO_MIB * 2048)) &&
		DEV=$(blk rwfio) || { t_not "$job: setup"; return; }
	ok=1
	for pass in 1 2; do
		dm message rwfio 0 reset
		s0=$(wsect $DEV) l0=$(wsect $LDEV)
		fio_pass $DEV $job $JOBSEED "$@" || ok=0
		status rwfio
		s1=$(wsect $DEV) l1=$(wsect $LDEV)
		echo "RW fio job=$job pass=$pass dev=dedup rc=$rc fio_err=$FE" \
			"fio_write_kib=$FW fio_verify_kib=$FR bw_kib=$FBW" \
			"sub_kib=$(((s1 - s0) / 2)) dev_kib=$(((l1 - l0) / 2))" \
			"$CNT elided_pm=$PM"
		[ "$W" = $((N + V + U)) ] && [ "$V" = $((E + M + B + X)) ] &&
			[ "$X" = 0 ] || { fail "counters: $CNT"; ok=0; }
	done
	# What the second pass must elide (or find busy): every block fio
	# wrote the same data to. --sync=1 writes are FUA: never candidates;
	# trimwrite trims each block before writing it: nothing trusted.
	want=
	case " $* " in
	*" --sync=1 "* | *trimwrite*) want=0 ;;
	*--verify=pattern*) want=$blocks ;;
	*--verify=crc32c*) want=$((blocks - blocks * 4 / bsk)) ;;
	esac
	echo "# $job: pass 2 elided $E busy $B of $W candidates," \
		"the data allows $want"
	[ -z "$want" ] || [ $((E + B)) = "$want" ] ||
		{ fail "$job: elided + busy $((E + B)), want $want"; ok=0; }
	untarget rwfio
	if [ "$RATIO" = 1 ]; then
		for pass in 1 2; do
			fio_pass $LDEV $job $JOBSEED "$@" || ok=0
			echo "RW fio job=$job pass=$pass dev=loop rc=$rc" \
				"fio_err=$FE fio_write_kib=$FW fio_verify_kib=$FR" \
				"bw_kib=$FBW"
		done
	fi
	ldev -d $LDEV
	rm -f $T/fio.img
	[ $ok = 1 ] && t_ok "fio $job: verified twice, pass 2 as predicted" ||
		t_not "fio $job"
}

part_fio() {
	echo "TAP version 13"
	JOBSEED=0
	echo "$JOBS" | while read -r job args; do
		JOBSEED=$((JOBSEED + 1))
		case " ${MF_RW_JOBS:-$job} " in *" $job "*) ;; *) continue ;; esac
		# shellcheck disable=SC2086 # one option per word
		fio_job $job $args
	done >$T/fio.out
	cat $T/fio.out
	grep -q '^not ok' $T/fio.out && part_failed=1
	n=$(grep -c '^\(not \)\?ok' $T/fio.out)
	part_end
}

# --- crash -----------------------------------------------------------------

# The stack: loop (tmpfs) -> rwlow (linear; flakey or error while the
# fault is on) -> rwcr (memfilter-dedup) -> fio or ext4. STACK=direct
# leaves the target out (ext4 on rwlow): what the kernel does without us,
# in the same boot, over the same kind of device.
lower() { dm suspend rwlow && dm load rwlow --table "$1" && dm resume rwlow; }
linear() { echo "0 $SECT linear $CLDEV 0"; }
fault_table() {
	case $1 in
	error) echo "0 $SECT error" ;;
	error_writes) echo "0 $SECT flakey $CLDEV 0 0 1 1 error_writes" ;;
	error_reads) echo "0 $SECT flakey $CLDEV 0 0 1 1 error_reads" ;;
	drop_writes) echo "0 $SECT flakey $CLDEV 0 0 1 1 drop_writes" ;;
	esac
}

# crash_setup [target|direct]
crash_setup() {
	STACK=${1:-target}
	SECT=$((CR_MIB * 2048))
	CLDEV=$(mkloop cr $CR_MIB) &&
		dm create rwlow --table "$(linear)" && LOWBLK=$(blk rwlow) ||
		return 1
	if [ $STACK = direct ]; then
		DEV=/dev/mapper/rwlow
		return 0
	fi
	target rwcr /dev/mapper/rwlow $SECT && DEV=$(blk rwcr)
}
crash_teardown() {
	[ $STACK = direct ] || untarget rwcr
	dm remove rwlow
	ldev -d $CLDEV
	rm -f $T/cr.img
}

# progress: W = the target's candidates since its reset or, without the
# target, 4 KiB blocks written to rwlow since P0 (wsect).
progress() {
	if [ $STACK = direct ]; then
		W=$((($(wsect $LOWBLK) - P0) / 8))
	else
		status rwcr
	fi
}

# fault_when PID MODE WRITES TOTAL: once WRITES have been counted
# (progress) or PID ended, switch the fault on. FAULTED=1 if PID was
# still running then with fewer than TOTAL counted (a guest with one vCPU
# may run this loop only after the job is done).
fault_when() {
	while :; do
		progress
		[ "$W" -ge "$3" ] && break
		kill -0 $1 2>/dev/null || break
		sleep 0.05
	done
	FAULTED=0
	kill -0 $1 2>/dev/null && [ "$W" -lt "$4" ] && FAULTED=1
	lower "$(fault_table $2)"
	echo "# fault $2 on after $W of $4 candidate writes (running: $FAULTED)"
}

# Block-layer completions with an error, from the block_bio_complete
# tracepoint (when the kernel has tracefs), writes and flushes only
# (rwbs W or F): TRACE is "err_below=N err_above=M", N the bios rwlow
# ended with an error (what the fault failed: the target's bios to it,
# or ext4's without the target) and M those rwcr ended with an error
# (what its user was told; DM splits a bio into the target's 4 KiB
# pieces and ends the original once, so M counts ext4's bios, N the
# pieces). A target that acked failed writes shows N > 0 and M = 0.
trace_start() {
	TR=/sys/kernel/tracing
	[ -d $TR/events ] || mount -t tracefs nodev $TR 2>/dev/null
	EV=$TR/events/block/block_bio_complete
	[ -f $EV/enable ] || { TR=; return 0; }
	echo 0 >$TR/tracing_on && echo >$TR/trace &&
		echo 8192 >$TR/buffer_size_kb &&
		echo 'error != 0' >$EV/filter && echo 1 >$EV/enable &&
		echo 1 >$TR/tracing_on || TR=
}
trace_stop() {
	TRACE="err_below=? err_above=?"
	[ -n "$TR" ] || return 0
	echo 0 >$TR/tracing_on
	echo 0 >$EV/enable
	cat $TR/trace >$T/trace
	echo >$TR/trace
	low=$(dm info -c --noheadings -o major,minor rwlow | tr : ,)
	up=-
	[ $STACK = direct ] ||
		up=$(dm info -c --noheadings -o major,minor rwcr | tr : ,)
	set -- $(awk -v low="$low" -v up="$up" '
		/block_bio_complete:/ {
			for (i = 1; i < NF; i++)
				if ($i == "block_bio_complete:") break
			if ($(i + 2) !~ /[WF]/) next
			if ($(i + 1) == low) n++
			else if ($(i + 1) == up) m++
		}
		END { print n + 0, m + 0 }' $T/trace)
	TRACE="err_below=$1 err_above=$2"
	[ $STACK != direct ] || TRACE="err_below=$1 err_above=-"
	! grep -q 'LOST' $T/trace || TRACE="$TRACE trace_lost=1"
	return 0
}

# fio's crash check for one fault MODE: pattern A written and verified,
# pattern B over it, then A again with the fault switched on mid-job
# (fio saves its verify state when the error stops it); the fault
# lifted, fio --verify_only with that state reads back every write it
# was told completed. A's keys are in the filter and every block is
# trusted, so under the fault the target verifies each write against
# the device: reads fail (error) or find B (error_writes). Prints the
# data line; returns 0 if the verify of the completed part was clean.
crash_fio() {
	mode=$1
	blocks=$((CR_MIB * 256))
	set -- --filename=$DEV --size=${CR_MIB}m --direct=1 --randseed=3 \
		--thread --rw=randwrite --bs=4k --iodepth=8 --ioengine=libaio \
		--verify=pattern --output-format=terse
	rm -f $T/*verify.state
	/sbin/fio --name=a "$@" --verify_pattern=0xa5a5a5a5 --do_verify=1 \
		>$T/fa 2>&1 && /sbin/fio --name=a "$@" \
		--verify_pattern=0x5a5a5a5a --do_verify=1 >$T/fb 2>&1 ||
		{ cat $T/fa $T/fb | head; fail "setup passes"; return 2; }
	rm -f $T/*verify.state
	dm message rwcr 0 reset
	trace_start
	# Paced (5 ms after every 8 writes) so that the poller runs while
	# the job does, even on one vCPU; nothing here is timed.
	/sbin/fio --name=a "$@" --verify_pattern=0xa5a5a5a5 --do_verify=0 \
		--thinktime=5000 --thinktime_blocks=8 \
		--verify_state_save=1 >$T/fc 2>&1 &
	pid=$!
	fault_when $pid $mode $((blocks / 2)) $blocks
	wait $pid
	frc=$?
	status rwcr
	trace_stop
	lower "$(linear)"
	set -- $(grep '^3;' $T/fc | cut -d';' -f5,47 | tr ';' ' ')
	ferr=${1:-?} told=${2:-0}
	state=
	ls $T/*verify.state >/dev/null 2>&1 && state=--verify_state_load=1
	# --iodepth=1: fio decides which of the last writes (those within
	# the saved depth of the end) to verify by its count of completed
	# verify reads; reads issued ahead of that count would verify
	# writes that failed (fio 3.33).
	/sbin/fio --name=a --filename=$DEV --size=${CR_MIB}m --direct=1 \
		--randseed=3 --thread --rw=randwrite --bs=4k --iodepth=1 \
		--ioengine=libaio --verify=pattern --verify_pattern=0xa5a5a5a5 \
		--verify_only $state --output-format=terse >$T/fv 2>&1
	vrc=$?
	bad=$(grep -c 'bad pattern\|verify failed\|mismatch' $T/fv)
	set -- $(grep '^3;' $T/fv | cut -d';' -f5,6 | tr ';' ' ')
	echo "RW crash client=fio mode=$mode faulted=$FAULTED fio_rc=$frc" \
		"fio_err=$ferr told_kib=$told verify_err=${1:-?}" \
		"verified_kib=${2:-?} verify_rc=$vrc verify_msgs=$bad" \
		"state=${state:+saved} $TRACE $CNT"
	grep -v '^3;' $T/fv | head -4 | sed 's/^/# /'
	[ "$FAULTED" = 1 ] || { fail "fio finished before the fault"; return 2; }
	[ $vrc = 0 ] && [ "$bad" = 0 ]
}

# said PREFIX: from sync_probe's output on stdin, what the call on the
# first line starting with PREFIX returned: 0, the errno's name, or
# open-ERRNO when the open failed.
said() {
	awk -v p="$1" 'index($0, p) == 1 {
		$0 = substr($0, length(p) + 1)
		sub(/^[^:]*: /, "")
		print $1 == "0" ? "0" : $1 == "open" ? "open-" $3 : $2
		exit }'
}

# ext4's, judged by what the file system told its writer. A first half
# of the tree (/sbin) copied and syncfs'ed before the fault (syncfs
# returned 0: it must survive). The second half, the whole tree, copied
# file by file by sync_probe, each file fsync'ed with its directory, and
# the fault switched on mid-copy; every file whose fsync (and its
# directory's) returned 0 is durable by the file system's word, and if
# the syncfs at the end, through a descriptor opened before the copy,
# returned 0, every file of the copy is. The fault lifted, a mount
# replays the journal: the first half and every durable file must read
# back intact, and e2fsck -fn must be clean. Files whose fsync failed
# need not exist. cp and busybox's `sync -f` cannot judge: cp never sees
# a writeback error, and busybox ignores syncfs()'s result. Under the
# fault, also records what a new syncfs, an fsync and `sync -f` say
# then, and the kernel's log (ext4's journal abort, its shutdown, I/O
# errors).
crash_ext4() {
	mode=$1
	FS=ext4
	/sbin/mke2fs -q -F -t ext4 -b 4096 \
		-E lazy_itable_init=0,lazy_journal_init=0 $DEV && mnt &&
		mkdir $MNT/tree && cp -a $SRC/sbin $MNT/tree/ &&
		sync_probe syncfs $MNT >$T/sync1 || { cat $T/sync1; return 2; }
	(cd $SRC && find sbin -type f | sort | xargs sha256sum >$T/sums1)
	(cd $SRC && find . -type f | sort) >$T/list
	[ $STACK = direct ] || dm message rwcr 0 reset
	P0=$(wsect $LOWBLK)
	dmesg -c >/dev/null
	trace_start
	if [ $WRITER = cp ]; then
		# The first finding's writer: cp -a, then busybox's sync -f;
		# the word is syncfs's through descriptor 7, opened before.
		exec 7<$MNT
		cp -a $SRC $MNT/tree2 2>/dev/null && sync -f $MNT &
	else
		sync_probe copy $SRC $MNT/tree2 $T/list $T/copylog \
			>$T/copyout 2>&1 &
	fi
	pid=$!
	fault_when $pid $mode 256 $((FS_MIB * 256))
	wait $pid
	crc=$?
	if [ $WRITER = cp ]; then
		sync_probe syncfs-fd 7 >$T/copyout 2>&1
		exec 7<&-
		: >$T/copylog
	fi
	# Still under the fault: a new descriptor's syncfs, an fsync of a
	# file of the first half, busybox's sync -f.
	sync_probe syncfs $MNT >$T/after 2>&1
	sync_probe fsync "$MNT/tree/$(awk 'NR == 1 { print $2 }' $T/sums1)" \
		>>$T/after 2>&1
	sync -f $MNT
	bbrc=$?
	[ $STACK = direct ] || status rwcr
	trace_stop
	dmesg >$T/dmesg
	umount $MNT 2>/dev/null || umount -l $MNT
	lower "$(linear)"
	mnt && umount $MNT
	mrc=$?
	/sbin/e2fsck -fn $DEV >$T/fsck 2>&1
	frc=$?
	sed 's/^/# /' $T/copyout $T/after
	held=$(said 'syncfs (' <$T/copyout)
	new=$(said "syncfs $MNT" <$T/after)
	fs=$(said "fsync $MNT/tree" <$T/after)
	# The files the file system said were durable.
	if [ "$held" = 0 ]; then
		cp $T/sums $T/sums2
	else
		awk 'NR == FNR { if ($1 == "ok") ok["./" $2] = 1; next }
			($2 in ok)' $T/copylog $T/sums >$T/sums2
	fi
	files=$(wc -l <$T/list)
	durable=$(wc -l <$T/sums2)
	mount -t ext4 -o ro $DEV $MNT &&
		(cd $MNT/tree && sha256sum -c $T/sums1 >$T/sumout 2>&1) &&
		if [ "$durable" -gt 0 ]; then
			(cd $MNT/tree2 && sha256sum -c $T/sums2 >>$T/sumout 2>&1)
		fi
	src=$?
	grep -v ': OK$' $T/sumout | head -5 | sed 's/^/# /'
	umount $MNT 2>/dev/null
	abort=$(grep -c 'Aborting journal\|Detected aborted journal' $T/dmesg)
	ro=$(grep -c 'Remounting filesystem read-only' $T/dmesg)
	ioerr=$(grep -c 'I/O error' $T/dmesg)
	grep -m 6 'EXT4-fs\|JBD2\|I/O error' $T/dmesg | sed 's/^/# dmesg: /'
	echo "RW crash client=ext4 writer=$WRITER stack=$STACK mode=$mode" \
		"faulted=$FAULTED writer_rc=$crc files=$files durable=$durable held_syncfs=$held" \
		"new_syncfs=$new fsync_after=$fs busybox_sync_f_rc=$bbrc" \
		"dmesg_abort=$abort dmesg_ro=$ro dmesg_ioerr=$ioerr" \
		"$TRACE remount_rc=$mrc fsck_rc=$frc" \
		"durable_files_rc=$src ${CNT:-}"
	[ $frc = 0 ] || tail -8 $T/fsck | sed 's/^/# /'
	[ "$FAULTED" = 1 ] || { fail "the copy finished before the fault"; return 2; }
	[ $mrc = 0 ] && [ $frc = 0 ] && [ $src = 0 ]
}

# The cases, CLIENT:MODE (MF_RW_CRASH, default all): fio under each fault
# mode (error_reads: only reads fail, so every verify read fails and the
# target must write each block, while fio's writes go on; a write acked
# unverified is then missing); ext4 under error_writes on the target and (ext4-direct) without
# it, written by sync_probe (ext4) or by cp -a and busybox's sync -f
# (ext4cp: the first finding's writer, judged by a syncfs through a
# descriptor opened before the copy); ext4 under drop_writes, the
# control: a device that acks writes it drops makes the file system's
# word false, so the check must fail.
CRASH_CASES="fio:error fio:error_writes fio:error_reads fio:drop_writes
ext4:error_writes
ext4-direct:error_writes ext4cp:error_writes ext4cp-direct:error_writes
ext4:drop_writes"

part_crash() {
	echo "TAP version 13"
	cases=${MF_RW_CRASH:-$CRASH_CASES}
	[ "${MF_RW_CRASH_FS:-1}" = 1 ] || cases=$(echo $cases | tr ' ' '\n' |
		grep '^fio:')
	if echo "$cases" | grep -q ext4 && grep -qw ext4 /proc/filesystems &&
		[ -z "${SRC:-}" ]; then
		mk_tree || t_not "generate the tree"
	fi
	for c in $cases; do
		client=${c%%:*} mode=${c#*:}
		case $client in
		fio)
			CR_MIB=${MF_RW_CRASH_MIB:-16}
			crash_setup target || { t_not "crash setup"; continue; }
			CNT=
			crash_fio $mode ;;
		ext4 | ext4-direct | ext4cp | ext4cp-direct)
			if ! grep -qw ext4 /proc/filesystems || [ -z "${SRC:-}" ]; then
				echo "RW crash client=$client mode=$mode skipped=no-ext4"
				continue
			fi
			CR_MIB=$FS_MIB
			stack=target WRITER=sync_probe
			case $client in *-direct) stack=direct ;; esac
			case $client in ext4cp*) WRITER=cp ;; esac
			crash_setup $stack || { t_not "crash setup"; continue; }
			CNT=
			crash_ext4 $mode ;;
		*)
			t_not "unknown crash case $c"
			continue ;;
		esac
		r=$?
		crash_teardown
		case $client:$mode:$r in
		*:drop_writes:1) t_ok "$client, drop_writes (a lying device): the check fails, as it must" ;;
		*:drop_writes:*) t_not "$client, drop_writes: the check did not fail" ;;
		fio:*:0) t_ok "fio, $mode mid-job: every completed write reads back" ;;
		ext4:*:0) t_ok "ext4, $mode mid-copy: every file fsync said durable is intact, e2fsck clean" ;;
		ext4cp:*:0) t_ok "ext4, cp -a, $mode mid-copy: intact if syncfs said so, e2fsck clean" ;;
		*-direct:*:0) t_ok "$client without the target, $mode mid-copy: the same check holds" ;;
		fio:*) t_not "fio, $mode mid-job" ;;
		*) t_not "$client, $mode mid-copy" ;;
		esac
	done
	part_end
}

echo "# kernel $(uname -r)"
section tap module.load tap_check "insmod memfilter.ko" load_memfilter
for p in $PARTS; do
	section tap realworld.dm.$p part_$p
done
exit $failed
