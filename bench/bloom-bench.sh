#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the filter benchmark pinned to one core, RUNS times (default 3), and
# write its markdown report: machine, date, load average at the start, per
# table cell the median of the runs (bench/bloom_median.py), and, when
# valgrind is installed and BENCH_BINARY_v3 exists, the instructions per
# key of every loop from one callgrind run (bench/instr.py).
#   bloom-bench.sh BENCH_BINARY OUT.md [bloom_bench arguments]
# RAW=FILE: report the runs already in FILE (concatenated stdout of
# BENCH_BINARY) instead of running it again; LOAD: their load average.

set -eu
bin=$1
out=$2
shift 2
runs=${RUNS:-3}
here=$(dirname "$0")/..
pin=
if command -v taskset >/dev/null 2>&1; then
	pin="taskset -c $(($(nproc) - 1))"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
load=${LOAD:-$(cut -d' ' -f1-3 /proc/loadavg)}
i=0
if [ -n "${RAW:-}" ]; then
	cp "$RAW" "$tmp/raw"
	runs=$(grep -c '^### Bloom' "$RAW")
	runs=$((runs / $(grep '^### Bloom' "$RAW" | sort -u | wc -l)))
fi
while [ "$i" -lt "$runs" ] && [ -z "${RAW:-}" ]; do
	$pin "$bin" "$@" >>"$tmp/raw"
	i=$((i + 1))
done
if command -v valgrind >/dev/null 2>&1 && [ -x "${bin}_v3" ]; then
	(cd "$tmp" && valgrind --tool=callgrind --callgrind-out-file=cg.out \
		"$(realpath "$OLDPWD/${bin}_v3")" --instr >/dev/null 2>cg.log) ||
		{ cat "$tmp/cg.log" >&2; exit 1; }
fi
{
	echo "# Filter benchmark"
	echo
	echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) CPUs, $(uname -r)"
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'), load average at start: $load"
	echo "- command: \`$(basename "$bin") $*\`, $runs runs, pinned with: ${pin:-not pinned}"
	echo "- ns per key; each run takes the median of 3 repetitions (inserts at 100M keys: 1), the tables the median of the $runs runs"
	echo "- the same splitmix64 8-byte keys for every filter; FPR measured on absent keys; bits/key = table bytes * 8 / keys"
	echo "- ratio row: memfilter / the best peer in the same column and run (peers' inserts are single-writer; memfilter's concurrent-safe and exclusive inserts both face them); the probe is not a peer"
	echo "- fastfilter \"batch query\": a plain hash + prefetch loop over its table (it has no batch API), at memfilter's prefetch distance"
	"$here/bench/bloom_median.py" <"$tmp/raw"
	if [ -e "$tmp/cg.out.1" ]; then
		echo
		echo "### Instructions per key (callgrind, one run of \`$(basename "$bin")_v3 --instr\`: -march=x86-64-v3, 1M keys, 200000 queries)"
		echo
		# shellcheck disable=SC2046
		"$here/bench/instr.py" $(ls "$tmp"/cg.out.* | sort -t. -k3 -n)
	fi
} | tee "$out"
