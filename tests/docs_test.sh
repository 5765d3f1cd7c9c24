#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The documentation's examples, run (POSIX sh: busybox ash in the guests).
# scripts/doc-examples.py makes a bundle of them: a directory per example
# (NNN/) with run.sh, made from the example block and its marker's setup,
# check and cleanup, what it runs (a program compiled from the block, a
# BPF object), expected output (exp.N) and info (where the block is; what
# it needs; "netns"). Each example runs in a temporary directory of its
# own, with memfilterctl on PATH and as build/bin/memfilterctl there, in
# a network namespace of its own when it asks for one; published filters
# it leaves are removed after it. Prints TAP; exits 0 only if every
# example passed (an example whose needs are missing is skipped).
#   docs_test [BUNDLE]
# In the guests (installed as docs_test, the bundle beside it in docs/)
# as root with memfilter.ko loaded; natively (make check's packaging
# stage) with the bundle of the examples that need no module.

here=$(cd "$(dirname "$0")" && pwd)
B=$(cd "${1:-$here/docs}" && pwd) || exit 1
MF_BIN=$here
export MF_BIN
MFC=$(command -v memfilterctl) || { echo "1..0 # SKIP memfilterctl not on PATH"; exit 1; }
W=$(mktemp -d) || exit 1
trap 'rm -rf "$W"' EXIT
# The TAP library: installed beside this script, tests/tap.sh in the tree.
. "$here/tap.sh"
tap_log=$W/tap.log

# What every run.sh can call, sourced before it: the guest's real tools
# (lib.sh's functions that call /sbin/NAME, not busybox's applets),
# mf_expect for transcripts, and the cleanup of its marker on exit.
cat >"$W/prelude.sh" <<'EOF'
[ ! -f /memfilter/tools.sh ] || . /memfilter/tools.sh
# mf_expect EXP OUT: each line of OUT matches the ERE of the same line
# of EXP, and they have as many lines.
mf_expect() {
	awk 'NR == FNR { p[FNR] = $0; n = FNR; next }
	     { m = FNR; if (!(FNR in p) || $0 !~ p[FNR]) bad = FNR }
	     END { if (!bad && m != n) bad = (m < n ? m : n) + 1; exit bad != 0 }' \
		"$1" "$2" && return 0
	echo "output of a transcript command differs:"
	sed 's/^/  got:  /' "$2"
	sed 's/^/  want: /' "$1"
	return 1
}
mf_exit() {
	st=$?
	set +e
	command -v mf_cleanup >/dev/null && mf_cleanup
	exit $st
}
trap mf_exit EXIT
EOF

# needs WORD: true if what an example needs is here.
has_kfuncs=
needs() {
	case $1 in
	bpf)
		[ -n "$has_kfuncs" ] || {
			has_kfuncs=no
			memfilterctl version 2>/dev/null | grep -qw bpf-kfuncs &&
				has_kfuncs=yes
		}
		[ $has_kfuncs = yes ] ;;
	dm)
		(
			[ ! -f /memfilter/tools.sh ] || . /memfilter/tools.sh
			DM_DISABLE_UDEV=1 dmsetup targets 2>/dev/null
		) | grep -q '^memfilter-dedup' ;;
	*)
		(
			[ ! -f /memfilter/tools.sh ] || . /memfilter/tools.sh
			command -v "$1"
		) >/dev/null ;;
	esac
}

# The names published now, one per line (none without the module).
published() {
	[ -e /dev/memfilter ] && memfilterctl list 2>/dev/null
}

# example DIR NETNS: run the example in DIR (in a network namespace of
# its own with NETNS "netns"); when it fails, how it ended.
example() {
	T=$W/run
	rm -rf "$T"
	mkdir -p "$T/build/bin"
	ln -s "$MFC" "$T/build/bin/memfilterctl"
	ns=
	[ "$2" = netns ] && ns="unshare -n"
	(cd "$T" && EX=$1 timeout 300 $ns sh -c '. "$1"; set -e; . "$2"' sh \
		"$W/prelude.sh" "$1/run.sh") >"$W/log" 2>&1
	rc=$?
	[ $rc != 0 ] || return 0
	echo "exit status $rc"
	cat "$W/log"
	for f in stdout stderr; do
		[ -s "$T/$f" ] || continue
		echo "$f:"
		tail -n 20 "$T/$f" | sed 's/^/  /'
	done
	return 1
}

set -- "$B"/[0-9]*
[ -d "$1" ] || set --
tap_begin $#
for ex in "$@"; do
	{ read -r where kind; read -r need; read -r netns; } <"$ex/info"
	missing=
	for w in $need; do
		needs "$w" || missing="$missing $w"
	done
	if [ -n "$missing" ]; then
		tap_skip "needs$missing" "$where $kind"
		continue
	fi
	published >"$W/before"
	ok "$where $kind" example "$ex" "$netns"
	# Filters the example published and left.
	published | while read -r f; do
		grep -qx -- "$f" "$W/before" || memfilterctl rm "$f" >/dev/null 2>&1
	done
done
tap_end
