#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench-table's tests (make check's native stage), no timing judged:
#  - bench/bench_table.py formats the fixed runs in tests/data/bench-table/
#    (three runs of the benches, trimmed to the rows it reads) into
#    tests/data/bench-table/block.md, and a cell is the median of its
#    runs' figures (taken here again with sort); its fixture command
#    gives the fixed runs again from themselves. When a bench's rows
#    change, make them anew from a run of make bench-table:
#      bench/bench_table.py fixture build/bench-results/table \
#          tests/data/bench-table 3
#  - its check refuses a block without its end marker, with a figure
#    edited into words, with a row left out, with "-" in a row that
#    fastfilter_cpp does not make, and a speed figure outside the block;
#  - README.md's block passes the check;
#  - a quick run of the real benches (bench/bench-table.sh, QUICK=1:
#    1M keys, one run; built without fastfilter_cpp unless FASTFILTER_DIR
#    names it) writes a block that passes the check: the benches still
#    print every row the table reads.
# Prints TAP.
#   bench-table-test.sh [SCRATCH] (default build/bench-table-test)

set -u
cd "$(dirname "$0")/.." || exit 1
. tests/tap.sh
tap_begin

dir=${1:-build/bench-table-test}
data=tests/data/bench-table
fmt=bench/bench_table.py
rm -rf "$dir"
mkdir -p "$dir"

# wrap BLOCK OUT: a README of BLOCK between the markers.
wrap() {
	{
		printf '# t\n\n<!-- bench-table begin -->\n'
		cat "$1"
		printf '<!-- bench-table end -->\n\nMore text.\n'
	} >"$2"
}

formats() {
	"$fmt" format "$data" >"$dir/block.md" || return 1
	diff -u "$data/block.md" "$dir/block.md"
}
ok "the fixed runs give block.md" formats

# The first row's 1M cell opens with the median of the three runs'
# "query present" of that ratio at 1%.
median_cell() {
	want=$(awk -F'|' '/^### Bloom layouts at --fpr 0.01,/ { on = 1; next }
		/^### / { on = 0 }
		on && $2 ~ /^ ratio: split32 public API \/ SimdBlockFilter $/ {
			print $7 }' "$data/bloom-1M" | sort -n | sed -n 2p | tr -d ' ')
	got=$(grep -m1 '^| Bloom split32 single query, public API' "$dir/block.md" |
		cut -d'|' -f4 | sed 's/^ 1%: \([0-9.]*\) .*/\1/')
	[ -n "$want" ] && eq "median of 3 runs" "$got" "$want"
}
ok "a cell is the median of its runs" median_cell

refixture() {
	"$fmt" fixture "$data" "$dir/fixture" 3 || return 1
	diff -ru "$data" "$dir/fixture"
}
ok "fixture makes the fixed runs again from themselves" refixture

wrap "$data/block.md" "$dir/good.md"
ok "the check passes block.md" "$fmt" check "$dir/good.md"

# refuses WHAT SED: the check fails on good.md edited by SED.
refuses() {
	sed "$2" "$dir/good.md" >"$dir/bad.md"
	! cmp -s "$dir/good.md" "$dir/bad.md" || fail "sed '$2' changed nothing"
	! "$fmt" check "$dir/bad.md" >"$dir/bad.out" 2>&1 ||
		fail "the check passed $1"
}
ok "the check refuses a missing end marker" refuses "no end marker" \
	'/bench-table end/d'
ok "the check refuses a figure edited into words" refuses "words" \
	's/^\(| Bloom split32 single query, public API [^|]*| [^|]*| \)[^|]*/\1fast /'
ok "the check refuses a missing row" refuses "a row fewer" \
	'/^| window G=4 test-and-add/d'
ok "the check refuses - in a row fastfilter does not make" refuses "-" \
	's/^\(| growing, 8 sub-filters[^|]*| [^|]*| \)[^|]*/\1- /'
ok "the check refuses a speed figure outside the block" refuses "ns" \
	's/^More text\./A query takes 5 ns./'

ok "README.md's block passes the check" "$fmt" check README.md

quick() {
	make -s bench/bloom_bench bench/cuckoo_bench bench/window_bench \
		bench/grow_bench bench/bpf_key_bench \
		FASTFILTER_DIR="${FASTFILTER_DIR:-}" >"$dir/build.log" 2>&1 ||
		{ cat "$dir/build.log"; return 1; }
	cp README.md "$dir/README.md"
	QUICK=1 bench/bench-table.sh bench "$dir/README.md" "$dir/runs" ||
		return 1
	"$fmt" check "$dir/README.md"
}
ok "a quick run of the benches writes a block that passes the check" quick

tap_end
