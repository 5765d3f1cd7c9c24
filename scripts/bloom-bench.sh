#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the Bloom filter benchmark pinned to one core and write its markdown
# report (machine, date, table).
#   bloom-bench.sh BENCH_BINARY OUT.md [size index 0|1|2]

set -eu
bin=$1
out=$2
shift 2
pin=
if command -v taskset >/dev/null 2>&1; then
	pin="taskset -c $(($(nproc) - 1))"
fi
{
	echo "# Bloom filter benchmark"
	echo
	echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) CPUs, $(uname -r)"
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- ns per key, median of 3 runs, pinned with: ${pin:-not pinned}"
	echo "- same 8-byte keys, 10 bits/key, for every filter; FPR measured on absent keys"
	$pin "$bin" "$@"
} | tee "$out"
