#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the Bloom filter benchmark pinned to one core, RUNS times (default 3),
# and write its markdown report: machine, date, load average at the start,
# and per table cell the median of the runs (bench/bloom_median.py).
#   bloom-bench.sh BENCH_BINARY OUT.md [SIZE [huge] [quick]]

set -eu
bin=$1
out=$2
shift 2
runs=${RUNS:-3}
pin=
if command -v taskset >/dev/null 2>&1; then
	pin="taskset -c $(($(nproc) - 1))"
fi
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
load=$(cut -d' ' -f1-3 /proc/loadavg)
i=0
while [ "$i" -lt "$runs" ]; do
	$pin "$bin" "$@" >>"$raw"
	i=$((i + 1))
done
{
	echo "# Bloom filter benchmark"
	echo
	echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) CPUs, $(uname -r)"
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'), load average at start: $load"
	echo "- ns per key; each run takes the median of 3 repetitions, the table the median of $runs runs; pinned with: ${pin:-not pinned}"
	echo "- same 8-byte keys, 10 bits/key, for every filter; FPR measured on absent keys"
	"$(dirname "$0")/../bench/bloom_median.py" <"$raw"
} | tee "$out"
