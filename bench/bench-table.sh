#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench-table: README's results table from one command. RUNS times
# (default 5), in turn, each pinned to one core: bench/bloom_bench
# --layouts at each size of KEYS (default 1M,10M; at most QUERIES
# queries, default 2M), bench/cuckoo_bench at each size (the 94% fill at
# 2^18 buckets with the first), window_bench --single, grow_bench
# --single and bpf_key_bench. The runs' stdout stays in OUTDIR; then
# bench/bench_table.py writes the table, each cell the median of the
# runs' figures, between README's bench-table markers, with the command,
# the machine, the date and the load.
#   bench-table.sh BINDIR README OUTDIR
# QUICK=1: the test run (scripts/bench-table-test.sh): 1M keys, 1 run,
# 200K queries, window_bench and grow_bench --quick. RAW=1: write the
# table from the runs already in OUTDIR.

set -eu
bin=$1
readme=$2
out=$3
here=$(dirname "$0")
if [ -n "${QUICK:-}" ]; then
	runs=1 keys=1M queries=200K quick=--quick
else
	runs=${RUNS:-5} keys=${KEYS:-1M,10M} queries=${QUERIES:-2M} quick=--single
fi
pin=
if command -v taskset >/dev/null 2>&1; then
	pin="taskset -c $(($(nproc) - 1))"
fi
ff=${FASTFILTER_DIR:-}
if [ -z "$ff" ]; then
	ff="none (its rows are -)"
elif c=$(git -C "$ff" log -1 --format='%h %cs' 2>/dev/null); then
	ff="commit $c"
else
	ff="$(basename "$ff")"
fi

if [ -z "${RAW:-}" ]; then
	mkdir -p "$out"
	rm -f "$out"/bloom-* "$out"/cuckoo-* "$out/window" "$out/grow" \
		"$out/bpf" "$out/load" "$out/meta"
	before=$(uptime | sed 's/.*load/load/')
	i=0
	while [ "$i" -lt "$runs" ]; do
		cut -d' ' -f1 /proc/loadavg >>"$out/load"
		fill=--fill=18
		for n in $(echo "$keys" | tr , ' '); do
			$pin "$bin/bloom_bench" --layouts --sizes="$n" \
				--queries="$queries" >>"$out/bloom-$n"
			$pin "$bin/cuckoo_bench" --sizes="$n" "$fill" \
				>>"$out/cuckoo-$n"
			fill=--fill=
		done
		$pin "$bin/window_bench" "$quick" >>"$out/window"
		$pin "$bin/grow_bench" "$quick" >>"$out/grow"
		$pin "$bin/bpf_key_bench" >>"$out/bpf"
		i=$((i + 1))
		echo "bench-table: run $i of $runs done" >&2
	done
	cut -d' ' -f1 /proc/loadavg >>"$out/load"
	cat >"$out/meta" <<-EOF
	keys=$keys
	runs=$runs
	queries=$queries
	cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) CPUs${pin:+, pinned to one}
	kernel=$(uname -r)
	ff=$ff
	date=$(date -u '+%Y-%m-%d %H:%M UTC')
	before=$before
	after=$(uptime | sed 's/.*load/load/')
	EOF
fi
"$here/bench_table.py" write "$out" "$readme"
echo "bench-table: $readme updated; the runs are in $out" >&2
