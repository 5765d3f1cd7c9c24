#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Instructions per key from callgrind dumps named "row|column|keys"
# (CALLGRIND_DUMP_STATS_AT in grow_bench --instr, window_bench --instr):
# one line "row | column | instructions per key" per dump, in dump order.
for f in $(ls "$@" | sort -t. -k3 -n); do
	awk '/^desc: Trigger: Client Request:/ {
		sub(/^desc: Trigger: Client Request: /, ""); l = $0 }
	/^(summary|totals):/ { t = $2 }
	END { if (l != "") { split(l, a, "|");
		printf "%s | %s | %.1f\n", a[1], a[2], t / a[3] } }' "$f"
done
