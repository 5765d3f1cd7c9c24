#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run a libFuzzer binary for a fixed time over the committed seeds and a
# work corpus, and report as TAP: one test, "ok" unless the fuzzer found a
# crash, leak, timeout or sanitizer error (then the artifact and the
# fuzzer's report follow as comments). Prints executions, executions per
# second and libFuzzer's coverage (cov: edges, ft: features).
# usage: scripts/fuzz.sh FUZZER SECONDS SEED_DIR WORK_DIR

set -u
fuzzer=$1
secs=$2
seeds=$3
work=$4
name=${fuzzer##*/}

mkdir -p "$work/corpus" "$work/artifacts"
log=$work/fuzz.log
"$fuzzer" -max_total_time="$secs" -max_len=8192 -timeout=10 \
	-rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$work/artifacts/" "$work/corpus" "$seeds" >"$log" 2>&1
rc=$?

stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -n 1; }
last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
corp=$(echo "$last" | sed -n 's/.*corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p')

echo "TAP version 13"
echo "1..1"
echo "# $name: $(stat number_of_executed_units) execs in $secs s," \
	"$(stat average_exec_per_sec) exec/s, cov: ${cov:-?} ft: ${ft:-?}," \
	"corpus ${corp:-?}, peak rss $(stat peak_rss_mb) MB"
if [ "$rc" = 0 ]; then
	echo "ok 1 $name"
else
	sed 's/^/# /' "$log" | grep -v '^# #[0-9]' | tail -n 60
	for a in "$work"/artifacts/*; do
		[ -e "$a" ] && echo "# artifact: $a"
	done
	echo "not ok 1 $name # fuzzer exit $rc"
fi
exit "$rc"
