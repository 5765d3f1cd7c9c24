# SPDX-License-Identifier: GPL-2.0
#
# TAP for memfilter's shell tests, sourced: the guest selftests
# (cli_test with tests/cli/, dm_test, dm_discard_test, dm_fs_test,
# docs_test, replay_test: installed beside them as tap.sh, and sourced
# from there or from tests/ in the tree) and the host-side test scripts
# (scripts/*-test.sh). POSIX sh, busybox ash in the guests, where every
# process started costs up to seconds under KASAN: a test costs one or
# two processes here, no more.
#
#   tap_begin [N]          "TAP version 13", and the plan when N is known
#   ok DESC CMD [ARG]...   one test, decided by CMD's exit status; CMD
#                          runs in a subshell (what it changes stays there)
#   step DESC CMD [ARG]... the same, CMD run in this shell: for a sequence
#                          whose steps leave state to the next (setup)
#   tap_ok DESC, tap_not_ok DESC
#                          a result the script decided itself
#   tap_skip WHY [DESC]    a test skipped
#   tap_skip_all WHY       instead of tap_begin: the one result is a skip,
#                          and the script exits 0 (a TAP file of no
#                          test counts as failed: scripts/results.py)
#   tap_end                the plan unless tap_begin gave it; returns 0
#                          only if no test failed (scripts end with it)
# Inside a test:
#   fail MSG...            say why it failed (then what tap_context, if
#                          the script defines it, prints) and return 1
#   eq WHAT GOT WANT       GOT is WANT, or fail
#   uptime_cs              UP: the time since boot, in centiseconds
#
# ok and step show a passing test's "# " lines, a failing test's output
# (its last 200 lines) as "# " comments, then the time it took ("# DESC:
# S.CC s"). The output goes through $tap_log (a script may point it
# into a directory of its own; tap_end removes it).

tap_n=0
tap_failed=0
tap_planned=0
tap_log=${TMPDIR:-/tmp}/tap.$$.log

tap_begin() {
	echo "TAP version 13"
	if [ -n "${1:-}" ]; then
		echo "1..$1"
		tap_planned=1
	fi
}

uptime_cs() {
	read -r UP _ </proc/uptime
	UP=$((${UP%.*} * 100 + 1${UP#*.} - 100))
}

tap_ok() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n $*"
}

tap_not_ok() {
	tap_n=$((tap_n + 1))
	echo "not ok $tap_n $*"
	tap_failed=1
}

tap_skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n${2:+ $2} # SKIP $1"
}

tap_skip_all() {
	tap_begin 1
	tap_skip "$*"
	tap_end
	exit 0
}

# tap_report STATUS DESC: ok's and step's result, from $tap_log.
tap_report() {
	uptime_cs
	tap_dt=$((UP - tap_t0))
	if [ "$1" = 0 ]; then
		grep '^# ' "$tap_log"
	else
		sed 's/^/# /' "$tap_log" | tail -n 200
	fi
	echo "# $2: $((tap_dt / 100)).$((tap_dt / 10 % 10))$((tap_dt % 10)) s"
	if [ "$1" = 0 ]; then
		tap_ok "$2"
	else
		tap_not_ok "$2"
	fi
}

ok() {
	tap_desc=$1
	shift
	uptime_cs
	tap_t0=$UP
	if ("$@") >"$tap_log" 2>&1; then
		tap_report 0 "$tap_desc"
	else
		tap_report 1 "$tap_desc"
	fi
}

step() {
	tap_desc=$1
	shift
	uptime_cs
	tap_t0=$UP
	if "$@" >"$tap_log" 2>&1; then
		tap_report 0 "$tap_desc"
	else
		tap_report 1 "$tap_desc"
	fi
}

tap_end() {
	rm -f "$tap_log"
	[ "$tap_planned" = 1 ] || echo "1..$tap_n"
	return $tap_failed
}

fail() {
	echo "$*"
	! command -v tap_context >/dev/null || tap_context
	return 1
}

# eq WHAT GOT WANT
eq() {
	[ "$2" = "$3" ] || fail "$1: '$2', want '$3'"
}
