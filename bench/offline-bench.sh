#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Offline filters before and after: build bench/offline_bench.c against the
# static libmemfilter of each git revision (each built by its own Makefile
# in a clean export under build/offline-bench/), run every binary RUNS
# times (default 3), alternating between them, pinned with taskset -c CPU
# (default 1), on the same N keys (default 10000000), and write a markdown
# report: the revisions, the exact commands, the load average before and
# after, the median ns/key of each measurement per revision and its ratio
# to the first revision.
#   offline-bench.sh OUT.md REV...
# N, RUNS, CPU: environment.

set -eu
out=$1
shift
[ $# -ge 1 ] || { echo "usage: $0 OUT.md REV..." >&2; exit 2; }
n=${N:-10000000}
runs=${RUNS:-3}
cpu=${CPU:-1}
top=$(cd "$(dirname "$0")/.." && pwd)
work=$top/build/offline-bench
mkdir -p "$work"
cc=${CC:-gcc}
cflags="-O2 -g -D_GNU_SOURCE"

revs=
for rev in "$@"; do
	h=$(git -C "$top" rev-parse --short=7 "$rev^{commit}")
	d=$work/$h
	if [ ! -f "$d/build/lib/libmemfilter.a" ]; then
		rm -rf "$d" && mkdir -p "$d"
		git -C "$top" archive "$h" | tar -x -C "$d"
		make -s -C "$d" build/lib/libmemfilter.a >"$work/$h.build.log" 2>&1 ||
			{ cat "$work/$h.build.log" >&2; exit 1; }
	fi
	# shellcheck disable=SC2086
	$cc $cflags -I"$d/lib" -I"$d/build/include" -o "$work/bench-$h" \
		"$top/bench/offline_bench.c" "$d/build/lib/libmemfilter.a"
	revs="$revs $h"
done

uptime_before=$(uptime)
i=1
while [ "$i" -le "$runs" ]; do
	for h in $revs; do
		taskset -c "$cpu" "$work/bench-$h" "$n" >"$work/run$i-$h.tsv"
	done
	i=$((i + 1))
done
uptime_after=$(uptime)

python3 - "$work" "$runs" "$revs" >"$out.tmp" <<'EOF'
import statistics, sys
work, runs, revs = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
data = {}   # (type, layout, phase) -> rev -> [ns...]
answers = {}
for h in revs:
    for i in range(1, runs + 1):
        for line in open(f"{work}/run{i}-{h}.tsv"):
            if line.startswith("#"):
                continue
            t, lay, ph, ns, ans = line.split("\t")
            data.setdefault((t, lay, ph), {}).setdefault(h, []).append(float(ns))
            answers.setdefault((t, lay, ph), {}).setdefault(h, set()).add(int(ans))
hdr = "| filter | keys | phase | " + " | ".join(f"{h} ns/key" for h in revs)
hdr += " | " + " | ".join(f"{h} / {revs[0]}" for h in revs[1:]) + " | answers |"
print(hdr)
print("|" + "---|" * (hdr.count("|") - 1))
for key, per in data.items():
    med = {h: statistics.median(per[h]) for h in revs}
    ans = set().union(*answers[key].values())
    row = f"| {key[0]} | {key[1]} | {key[2]} | "
    row += " | ".join(f"{med[h]:.1f} ({', '.join(f'{v:.1f}' for v in per[h])})" for h in revs)
    row += " | " + " | ".join(f"{med[h] / med[revs[0]]:.2f}" for h in revs[1:])
    row += " | " + (str(ans.pop()) if len(ans) == 1 else "DIFFER: " + str(answers[key])) + " |"
    print(row)
EOF
{
	echo "# Offline filters: build and query, before and after"
	echo
	echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) CPUs, shared with other users"
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- load before: \`$uptime_before\`"
	echo "- load after: \`$uptime_after\`"
	echo "- revisions:"
	for h in $revs; do
		echo "  - $h: $(git -C "$top" log -1 --format=%s "$h")"
	done
	echo "- command: \`N=$n RUNS=$runs CPU=$cpu bench/offline-bench.sh $out $*\`"
	echo "- each revision's static libmemfilter built by its own Makefile (\`make build/lib/libmemfilter.a\`, -O2 -g);"
	echo "  bench/offline_bench.c ($cc $cflags) linked against it; runs alternate between revisions,"
	echo "  each \`taskset -c $cpu build/offline-bench/bench-REV $n\`"
	echo "- thread CPU time per key (CLOCK_THREAD_CPUTIME_ID); median of $runs runs, the runs in parentheses;"
	echo "  ratios are medians / the first revision's median (below 1: faster)"
	echo "- $n keys present, $n absent; u64: 8-byte keys (mf_offline_add/query); text: \"key-<i>\" lines"
	echo "  (mf_offline_addv/queryv, memfilterctl's path); batches of 8192 keys; Bloom 1% FPR, cuckoo 12-bit"
	echo "- answers: keys added (build) or answered \"may be present\" (queries); identical across revisions"
	echo
	cat "$out.tmp"
} >"$out"
rm -f "$out.tmp"
cat "$out"
