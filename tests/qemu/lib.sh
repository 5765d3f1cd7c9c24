# SPDX-License-Identifier: GPL-2.0
#
# Helpers for scripts that run inside the test guest (sourced). Output is
# cut into sections that scripts/results.py reads on the host:
#   ### BEGIN <kind> <name>
#   ... TAP or KTAP ...
#   ### END <kind> <name> rc=<exit status>
# <kind> is ktap (parsed by the kernel's kunit.py) or tap.

MF=/memfilter
failed=0
# Host tools copied in with vm.sh --tools: call the real ones, not
# busybox's applets of the same name.
[ -f $MF/tools.sh ] && . $MF/tools.sh

# UP: seconds since boot. A builtin, not date(1): every process started
# costs a fraction of a second to seconds under KASAN.
uptime_s() {
	read -r UP _ </proc/uptime
	UP=${UP%.*}
}

section() {
	kind=$1 name=$2
	shift 2
	echo "### BEGIN $kind $name"
	uptime_s
	t0=$UP
	"$@" 2>&1
	rc=$?
	uptime_s
	echo "# $name: $((UP - t0)) s"
	echo "### END $kind $name rc=$rc"
	[ $rc = 0 ] || failed=1
	return 0
}

# only_selected NAME: true unless MF_ONLY (make vm-test T=...) is set and
# does not name NAME.
only_selected() {
	[ -z "${MF_ONLY:-}" ] && return 0
	case " $MF_ONLY " in *" $1 "*) return 0 ;; esac
	return 1
}

# One TAP test whose result is a shell command's exit status.
tap_check() {
	desc=$1
	shift
	echo "TAP version 13"
	echo "1..1"
	if out=$("$@" 2>&1); then
		echo "ok 1 $desc"
	else
		echo "$out" | sed 's/^/# /'
		echo "not ok 1 $desc"
		return 1
	fi
}

# The kernel brought up every CPU that vm.sh gave the guest (MF_CPUS):
# concurrency tests that ran on one CPU would prove little.
cpus_online() {
	n=$(grep -c '^processor' /proc/cpuinfo)
	echo "# online CPUs: $n ($(cat /sys/devices/system/cpu/online)), expected ${MF_CPUS:-?}"
	[ "$n" = "${MF_CPUS:-}" ]
}

load_memfilter() {
	insmod $MF/memfilter.ko && [ -c /dev/memfilter ]
}

# Unload with a published filter still alive: the module drops its names.
unload_memfilter() {
	if command -v memfilterctl >/dev/null; then
		memfilterctl create guest.unload --type cuckoo --capacity 1000 \
			>/dev/null &&
			seq 1 100 | memfilterctl add guest.unload >/dev/null ||
			return 1
	fi
	rmmod memfilter && [ ! -e /dev/memfilter ] &&
		! grep -q '^memfilter ' /proc/modules
}

# Load the KUnit modules given, emit one ktap section per memfilter suite
# (from debugfs), unload them again.
run_kunit() {
	uptime_s
	t0=$UP
	for ko in "$@"; do
		insmod "$ko" || { failed=1; return 1; }
	done
	uptime_s
	echo "# KUnit suites ran in $((UP - t0)) s"
	for d in /sys/kernel/debug/kunit/memfilter_*; do
		section ktap "kunit.${d##*/}" cat "$d/results"
	done
	# What the concurrency tests report about the races they ran.
	grep -h -i 'lockless\|retr\|concurren' \
		/sys/kernel/debug/kunit/memfilter_*/results | sed 's/^ */# stress: /'
	for ko in "$@"; do
		rmmod "$(basename "$ko" .ko)" || { failed=1; return 1; }
	done
}

# kmemleak: anything the tests leaked, reported after a fresh scan.
# kmemleak reports an object only when a scan finds it unreferenced, at
# least 5 s old when that scan started, and unchanged since the scan
# before: so two scans, the second starting 6 s or more after the last
# test (a scan takes longer than that under KASAN: then no sleep).
kmemleak_clean() {
	f=/sys/kernel/debug/kmemleak
	[ -e $f ] || { echo "kmemleak not available"; return 0; }
	s0=$(cut -d. -f1 /proc/uptime)
	echo scan >$f
	left=$((s0 + 6 - $(cut -d. -f1 /proc/uptime)))
	[ $left -le 0 ] || sleep $left
	echo scan >$f
	if [ -s $f ]; then
		cat $f
		return 1
	fi
}
