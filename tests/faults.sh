# SPDX-License-Identifier: GPL-2.0
#
# Guest script (`make faults`, tests/qemu/faults-vm.sh): memfilter under the
# kernel's own fault injection (Documentation/fault-injection/) in the
# debug test kernel (KASAN, lockdep, kmemleak):
#
#  - fault.cli: memfilterctl creates, fills, dumps, loads and removes
#    filters of every type with failslab and fail_page_alloc armed for its
#    process only (task-filter, /proc/self/make-it-fail): every failure
#    must be a clean error message; afterwards, with nothing armed, the
#    filters listed must be exactly those whose create or load exited 0,
#    every key of an add that exited 0 must be present, and fresh filters
#    must work;
#  - fault.fuzz: the ioctl fuzzer (tests/ioctl_fuzz_test.c) with the same
#    faults armed in its chaos threads (MF_FUZZ_FAULTS=1) and their
#    children, while its owner threads check their filters' models;
#  - fault.dm: memfilter-dedup over a loop device whose bios fail at
#    random (fail_make_request, /sys/block/loopN/make-it-fail): dedup_io
#    writes every block six times; afterwards every block whose last
#    write was reported complete must hold that write's data, on the loop
#    device and through the target;
#  - fault.fork: the fuzzer at the system's thread limit (threads-max):
#    fork() and pthread_create() fail with EAGAIN, a right answer;
#  - fault.nf: netfilter attach and detach with the faults armed per
#    command while packets flow; afterwards exactly the attachments that
#    exited 0 are listed and their counters match the traffic;
#  - then rmmod and a kmemleak scan that must find nothing.
#
# The run fails on any kernel report (tests/qemu/vm.sh) but a
# warn_alloc() trace that tests/qemu/faults-vm.sh accepts: a failed allocation
# the kernel reports itself (see there). verbose=0 keeps the fault
# injector quiet. Figures (calls, injected faults from each injector's
# "times" left of 1000000, I/O errors, bytes verified) are "# figures:"
# lines.
#
# Environment: MF_FAULTS_FUZZ_SECONDS (60), MF_FAULTS_PROB (percent, 10),
# MF_FAULTS_CLI (filters the CLI creates, 24), MF_FAULTS_NF (attach
# tries, 40), MF_FAULTS_FORK_SECONDS (40), MF_FAULTS_DM_BLOCKS (1024).
# MF_FAULTS_PART=debug: the short pass of make check's debug guest
# (tests/qemu/debug.sh runs this script with smaller numbers): the module
# is loaded already and debug.sh unloads it and scans for leaks after
# every test, so only the fault.* sections run here.
#
# While allocation faults are armed the kernel log is marked
# ("memfilter-faults: armed" ... "memfilter-faults: disarmed", written to
# /dev/kmsg): tests/qemu/vm.sh accepts a warn_alloc() report only inside
# such a window.

. /memfilter/lib.sh

D=/sys/kernel/debug
PROB=${MF_FAULTS_PROB:-10}
TIMES=1000000
T=$(mktemp -d)
export DM_DISABLE_UDEV=1

kml=$D/kmemleak
[ "${MF_FAULTS_PART:-}" = debug ] ||
	{ [ -e $kml ] && echo clear >$kml && echo scan=off >$kml; }

# arm_alloc: failslab and fail_page_alloc fail PROB% of the allocations
# of tasks with make-it-fail set, sleeping ones too. fail_page_alloc
# keeps its defaults otherwise: user pages (__GFP_HIGHMEM) and order-0
# pages (page tables) never fail, so that a page fault in copy_to_user()
# does not turn into EFAULT.
arm_alloc() {
	echo "memfilter-faults: armed" >/dev/kmsg
	for f in failslab fail_page_alloc; do
		echo 0 >$D/$f/probability &&
			echo Y >$D/$f/task-filter &&
			echo 1 >$D/$f/interval &&
			echo $TIMES >$D/$f/times &&
			echo 0 >$D/$f/space &&
			echo 0 >$D/$f/verbose &&
			echo N >$D/$f/ignore-gfp-wait &&
			echo "$PROB" >$D/$f/probability || return 1
	done
}

disarm() {
	echo 0 >$D/"$1"/probability
	echo "memfilter-faults: disarmed $1" >/dev/kmsg
}

# injected F: failures injected by fault injector F since it was armed.
injected() {
	echo $((TIMES - $(cat $D/"$1"/times)))
}

# faulty CMD...: CMD with make-it-fail set once its exec completed
# (tests/faultrun.c: an exec under faults mostly fails before the program
# runs); its threads and children inherit it, this shell is unaffected.
faulty() {
	faultrun "$@"
}

fail() {
	echo "$*"
	return 1
}

# tap_show DESC CMD...: tap_check, with the output shown either way.
tap_show() {
	desc=$1
	shift
	echo "TAP version 13"
	echo "1..1"
	"$@" >$T/section.out 2>&1
	rc=$?
	sed 's/^/# /' $T/section.out
	if [ $rc = 0 ]; then
		echo "ok 1 $desc"
	else
		echo "not ok 1 $desc"
	fi
	return $rc
}

# --- fault.cli ---------------------------------------------------------------

# create options by type: bloom, cuckoo, window, growing.
cli_opts() {
	case $(($1 % 4)) in
	0) echo --type bloom --capacity 20000 --fpr 0.01 ;;
	1) echo --type cuckoo --capacity 20000 ;;
	2) echo --window 1h --generations 4 --capacity 5000 ;;
	3) echo --grow --capacity 1000 --fpr 0.01 ;;
	esac
}

# clean_error RC ERRFILE: a failure must be memfilterctl's error (exit
# status 2) with an out-of-memory message (the module's, or strerror's
# for a file it reads), or the static C library's
# start-up failing for memory before main() runs (exit status 127, "error
# while loading shared libraries: ... Cannot allocate memory", "Fatal
# glibc error: Cannot allocate TLS block" or no message when even that
# failed), or a kill by a signal; the last two are counted in startup.
clean_error() {
	sed 's/fz[0-9]*/NAME/g' "$2" >>$T/messages
	if [ "$1" -gt 128 ]; then
		killed=$((killed + 1))
		return 0
	fi
	case "$1:$(cat "$2")" in
	"2:memfilterctl: "*"out of memory"*) return 0 ;;
	# A file of its own (the keys) failing to open or read for memory.
	"2:memfilterctl: "*": Cannot allocate memory") return 0 ;;
	"127:" | "127:"*"Cannot allocate"*)
		killed=$((killed + 1))
		return 0 ;;
	esac
	echo "exit status $1"
	return 1
}

t_cli() {
	n=${MF_FAULTS_CLI:-24}
	seq 1 2000 >$T/keys
	: >$T/created
	: >$T/added
	: >$T/messages
	errors=0 ok=0 dirty=0 killed=0
	arm_alloc || fail "arming failslab/fail_page_alloc failed" || return 1
	i=0
	while [ $i -lt $n ]; do
		i=$((i + 1))
		# shellcheck disable=SC2046
		if faulty memfilterctl create fz$i $(cli_opts $i) \
			>/dev/null 2>$T/err; then
			echo fz$i >>$T/created
			ok=$((ok + 1))
		else
			rc=$?
			errors=$((errors + 1))
			clean_error $rc $T/err || { dirty=1; sed 's/^/create: /' $T/err; }
		fi
	done
	for f in $(cat $T/created); do
		if faulty memfilterctl add $f $T/keys >/dev/null 2>$T/err; then
			echo $f >>$T/added
			ok=$((ok + 1))
		else
			rc=$?
			errors=$((errors + 1))
			clean_error $rc $T/err || { dirty=1; sed 's/^/add: /' $T/err; }
		fi
	done
	# dump (not faulted: its file would be half written) and load faulted.
	for f in $(cat $T/added); do
		memfilterctl dump $f -o $T/$f.img || return 1
		if faulty memfilterctl load l$f <$T/$f.img >/dev/null 2>$T/err; then
			echo l$f >>$T/created
			echo l$f >>$T/added
			ok=$((ok + 1))
		else
			rc=$?
			errors=$((errors + 1))
			clean_error $rc $T/err || { dirty=1; sed 's/^/load: /' $T/err; }
		fi
	done
	slab=$(injected failslab) pages=$(injected fail_page_alloc)
	disarm failslab
	disarm fail_page_alloc
	echo "figures: cli: $((ok + errors)) commands, $ok succeeded," \
		"$errors failed ($killed in the C library's start-up); injected:" \
		"failslab $slab, fail_page_alloc $pages"
	echo "error messages:"
	sort $T/messages | uniq -c
	[ $dirty = 0 ] || fail "a failure was not a clean errno" || return 1
	[ "$errors" -gt 0 ] || fail "no command failed: nothing was injected" ||
		return 1

	# Exactly the filters created (or loaded) with exit status 0 exist.
	memfilterctl list | grep '^l*fz[0-9]*$' | sort >$T/listed
	sort $T/created >$T/want
	cmp -s $T/listed $T/want || {
		echo "listed:"; cat $T/listed; echo "created:"; cat $T/want
		fail "the filters listed are not the ones created"
	} || return 1
	# Every key of every add (or load of a full filter) that exited 0.
	for f in $(cat $T/added); do
		c=$(memfilterctl query --count $f $T/keys) &&
			[ "$c" = 2000 ] || fail "$f: $c of 2000 keys present" || return 1
	done
	# Every filter left works: info, add, query.
	for f in $(cat $T/created); do
		memfilterctl info $f >/dev/null &&
			memfilterctl add $f --key fresh-$f >/dev/null &&
			c=$(memfilterctl query --count $f --key fresh-$f) &&
			[ "$c" = 1 ] || fail "$f does not work after the faults" ||
			return 1
	done
	# Fresh filters of every type.
	for i in 0 1 2 3; do
		# shellcheck disable=SC2046
		memfilterctl create fresh$i $(cli_opts $i) &&
			memfilterctl add fresh$i $T/keys >/dev/null &&
			c=$(memfilterctl query --count fresh$i $T/keys) &&
			[ "$c" = 2000 ] && memfilterctl rm fresh$i ||
			fail "a fresh filter (type $i) does not work" || return 1
	done
	# Removal under faults: gone if rm exited 0, still there if not.
	arm_alloc || return 1
	for f in $(cat $T/created); do
		if faulty memfilterctl rm $f 2>$T/err; then
			echo $f >>$T/removed
		fi
	done
	disarm failslab
	disarm fail_page_alloc
	touch $T/removed
	for f in $(cat $T/created); do
		if grep -qx $f $T/removed; then
			! memfilterctl info $f >/dev/null 2>&1 ||
				fail "$f: rm exited 0, still there" || return 1
		else
			memfilterctl rm $f || fail "$f: rm failed twice" || return 1
		fi
	done
	echo "rm under faults: $(wc -l <$T/removed) of $(wc -l <$T/created) removed at once"
}

# --- fault.fuzz --------------------------------------------------------------

t_fuzz() {
	export MF_FUZZ_SECONDS=${MF_FAULTS_FUZZ_SECONDS:-60} MF_FUZZ_FAULTS=1
	arm_alloc || return 1
	# The fuzzer's chaos threads arm themselves (make-it-fail), their
	# children inherit it; its owner threads stay unarmed.
	$MF/bin/ioctl_fuzz_test >$T/fuzz.out 2>&1
	rc=$?
	slab=$(injected failslab) pages=$(injected fail_page_alloc)
	disarm failslab
	disarm fail_page_alloc
	grep -v '^ok \|^TAP\|^1\.\.' $T/fuzz.out | sed 's/^# //'
	calls=$(sed -n 's/^# errno histogram over \([0-9]*\) calls.*/\1/p' $T/fuzz.out)
	echo "figures: fuzz: ${calls:-?} calls; injected: failslab $slab," \
		"fail_page_alloc $pages"
	return $rc
}

# fault.fork: the fuzzer at the system's thread limit. With threads-max
# at the number of tasks alive, every fork() fails with EAGAIN, root's
# too (copy_process(): nr_threads >= max_threads), a right answer the
# fuzzer must take (its children simply do not run). Only shell builtins
# run while the limit is down.
t_fork() {
	tm=/proc/sys/kernel/threads-max
	old=$(cat $tm)
	MF_FUZZ_SECONDS=${MF_FAULTS_FORK_SECONDS:-40} MF_FUZZ_FAULTS=0 \
		MF_FUZZ_FORK_PERMILLE=30 \
		$MF/bin/ioctl_fuzz_test >$T/fork.out 2>&1 &
	pid=$!
	sleep 5
	read -r _ _ _ tasks _ </proc/loadavg
	echo "${tasks#*/}" >$tm
	wait $pid
	rc=$?
	echo "$old" >$tm
	grep -v '^ok \|^TAP\|^1\.\.' $T/fork.out | sed 's/^# //'
	forks=$(sed -n 's/^# fork  *//p' $T/fork.out)
	echo "figures: fork: threads-max held at ${tasks#*/} tasks; fork calls" \
		"$forks"
	# Proof that the limit was met: some fork() said EAGAIN.
	case " $forks " in
	*" EAGAIN "[1-9]*) ;;
	*) echo "no fork() met the thread limit (EAGAIN): '$forks'"; rc=1 ;;
	esac
	return $rc
}

# --- fault.dm ----------------------------------------------------------------

t_dm() {
	B=${MF_FAULTS_DM_BLOCKS:-1024}
	dd if=/dev/zero of=$T/back bs=4096 count=$B 2>/dev/null &&
		LDEV=$(losetup -f --show $T/back) || return 1
	L=/sys/block/${LDEV##*/}
	memfilterctl create faults-dm --type bloom --capacity 16384 --fpr 0.01 &&
		dmsetup --noudevsync create mffault --table \
			"0 $((B * 8)) memfilter-dedup $LDEV faults-dm" || return 1
	DEV=/dev/$(dmsetup info -c --noheadings -o blkdevname mffault)
	truncate -s $((B * 4096)) $T/exp && truncate -s $B $T/state || return 1
	F=$D/fail_make_request
	echo 0 >$F/probability && echo N >$F/task-filter &&
		echo 1 >$F/interval && echo $TIMES >$F/times &&
		echo 0 >$F/verbose && echo "$PROB" >$F/probability &&
		echo 1 >$L/make-it-fail || return 1
	w=$(dedup_io faultwrite "$DEV" $T/exp $T/state 0 $B 6 7)
	rc=$?
	echo 0 >$L/make-it-fail
	disarm fail_make_request
	io=$(injected fail_make_request)
	echo "faultwrite: $w"
	[ $rc = 0 ] || return 1
	echo "target counters: $(dmsetup status mffault)"
	echo 3 >/proc/sys/vm/drop_caches
	v=$(dedup_io verify "$LDEV" $T/exp $T/state 0 $B) || {
		echo "$v"
		fail "a completed write is not on the loop device"
	} || return 1
	echo "on the loop device: $v"
	v2=$(dedup_io verify "$DEV" $T/exp $T/state 0 $B) || {
		echo "$v2"
		fail "a completed write does not read back through the target"
	} || return 1
	echo "figures: dm: $w; $io bios failed (fail_make_request); $v"
	echo "$w" | grep -q ' 0 I/O errors' && fail "no write failed" && return 1
	# Without faults every block takes its writes again.
	w=$(dedup_io faultwrite "$DEV" $T/exp $T/state 0 $B 2 9) &&
		v=$(dedup_io verify "$LDEV" $T/exp $T/state 0 $B) &&
		echo "after the faults: $w; $v" &&
		echo "$v" | grep -q "^$B blocks" ||
		fail "the target does not work after the faults: $w; $v" || return 1
	dmsetup --noudevsync remove mffault && losetup -d "$LDEV" &&
		memfilterctl rm faults-dm
}

# --- fault.nf ----------------------------------------------------------------

# nf_ids: the attachment ids listed, one a line, sorted.
nf_ids() {
	memfilterctl nf list | sed -n 's/^\([0-9][0-9]*\): .*/\1/p' | sort -n
}

# nf_packets ID: the attachment's packet counter.
nf_packets() {
	memfilterctl nf stats "$1" | sed -n 's/^[[:space:]]*packets \([0-9]*\) .*/\1/p'
}

t_nf() {
	n=${MF_FAULTS_NF:-40}
	hooks="prerouting input output postrouting forward"
	: >$T/messages
	: >$T/nf.attached
	: >$T/nf.detached
	errors=0 ok=0 dirty=0 killed=0
	ip link set lo up &&
		memfilterctl create faults-nf --type bloom --capacity 1000 \
			--fpr 0.01 || return 1
	# Unfaulted packets through every hook the attachments take.
	ping -A -q 127.0.0.1 >/dev/null 2>&1 &
	pid=$!
	arm_alloc || return 1
	i=0
	while [ $i -lt "$n" ]; do
		i=$((i + 1))
		set -- $hooks
		shift $((i % 5))
		a=count
		[ $((i % 2)) = 0 ] && a=drop-hit
		if id=$(faulty memfilterctl nf attach faults-nf --hook "$1" \
			--key saddr --action $a --family ipv4 2>$T/err); then
			echo "$id $1" >>$T/nf.attached
			ok=$((ok + 1))
		else
			rc=$?
			errors=$((errors + 1))
			clean_error $rc $T/err || { dirty=1; sed 's/^/attach: /' $T/err; }
		fi
	done
	# Every other attachment detached under faults.
	j=0
	while read -r id h; do
		j=$((j + 1))
		[ $((j % 2)) = 0 ] || continue
		if faulty memfilterctl nf detach "$id" </dev/null 2>$T/err; then
			echo "$id" >>$T/nf.detached
			ok=$((ok + 1))
		else
			rc=$?
			errors=$((errors + 1))
			clean_error $rc $T/err || { dirty=1; sed 's/^/detach: /' $T/err; }
		fi
	done <$T/nf.attached
	slab=$(injected failslab) pages=$(injected fail_page_alloc)
	disarm failslab
	disarm fail_page_alloc
	kill $pid
	wait $pid 2>/dev/null
	echo "figures: nf: $((ok + errors)) commands, $ok succeeded," \
		"$errors failed ($killed in the C library's start-up); injected:" \
		"failslab $slab, fail_page_alloc $pages"
	echo "error messages:"
	sort $T/messages | uniq -c
	[ $dirty = 0 ] || fail "a failure was not a clean errno" || return 1
	[ "$errors" -gt 0 ] || fail "no command failed: nothing was injected" ||
		return 1

	# Listed: exactly the attachments that exited 0 and were not detached.
	while read -r id h; do
		grep -qx "$id" $T/nf.detached || echo "$id"
	done <$T/nf.attached | sort -n >$T/nf.want
	nf_ids >$T/nf.listed
	cmp -s $T/nf.listed $T/nf.want || {
		echo "listed:"; cat $T/nf.listed; echo "attached:"; cat $T/nf.want
		fail "the attachments listed are not the ones attached"
	} || return 1
	# Counters add up: 5 echo requests and 5 replies over lo pass each
	# IPv4 hook of the local path once (10 packets), none FORWARD.
	while read -r id h; do
		grep -qx "$id" $T/nf.detached || echo "$id $h $(nf_packets "$id")"
	done <$T/nf.attached >$T/nf.before
	ping -c 5 -q 127.0.0.1 >/dev/null || fail "ping after the faults" ||
		return 1
	while read -r id h p; do
		want=10
		[ "$h" = forward ] && want=0
		now=$(nf_packets "$id")
		[ "$((now - p))" = $want ] ||
			fail "attachment $id ($h): $((now - p)) packets, not $want" ||
			return 1
	done <$T/nf.before
	echo "counters: $(wc -l <$T/nf.want) attachments left, each counted exactly the ping"
	# A fresh attachment works; then every one is detached.
	id=$(memfilterctl nf attach faults-nf --hook input --key saddr \
		--action count --family ipv4) || fail "attach after the faults" ||
		return 1
	for id in $id $(cat $T/nf.want); do
		memfilterctl nf detach "$id" || fail "detach $id" || return 1
	done
	[ -z "$(nf_ids)" ] && memfilterctl rm faults-nf
}

faults_run() {
	section tap fault.cli tap_show "memfilterctl under failslab + fail_page_alloc" t_cli
	section tap fault.fuzz tap_show "ioctl fuzzer under failslab + fail_page_alloc" t_fuzz
	section tap fault.fork tap_show "ioctl fuzzer at the thread limit (fork EAGAIN)" t_fork
	section tap fault.dm tap_show "dm target over a device failing bios" t_dm
	section tap fault.nf tap_show "netfilter attach/detach under failslab + fail_page_alloc, packets flowing" t_nf
}

echo "# kernel $(uname -r), $MF_CPUS CPUs, faults at $PROB%"
if [ "${MF_FAULTS_PART:-}" = debug ]; then
	faults_run
	exit $failed
fi
section tap guest.cpus tap_check "kernel brought up $MF_CPUS CPUs" cpus_online
section tap module.load tap_check "insmod memfilter.ko" load_memfilter
faults_run
section tap module.unload tap_check "rmmod memfilter" unload_memfilter
section tap kmemleak tap_check "no kmemleak reports" kmemleak_clean
exit $failed
