#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Instructions per key from a callgrind run of `bloom_bench_v3 --instr`:
# the benchmark dumps one profile per timed loop, named
# "size|filter|column|keys" (CALLGRIND_DUMP_STATS_AT), so each dump's total
# divided by its key count is that loop's instructions per key, the call
# overhead of the loop included. Reads the dump files named on the command
# line, prints one markdown table per section (Bloom, cuckoo), in the
# benchmark's row and column order.
import re
import sys

COLS = ['insert', 'batch insert', 'excl. insert', 'excl. batch insert',
        'query present', 'query absent', 'batch query present',
        'batch query absent']
cells, rows = {}, []
for path in sys.argv[1:]:
    label = total = None
    with open(path) as f:
        for line in f:
            m = re.match(r'desc: Trigger: Client Request: (.*)', line)
            if m:
                label = m.group(1).strip()
            m = re.match(r'(?:summary|totals): (\d+)', line)
            if m:
                total = int(m.group(1))
    if not label or total is None or label.count('|') != 3:
        continue
    size, row, col, keys = label.split('|')
    if (size, row) not in rows:
        rows.append((size, row))
    cells[(size, row, col)] = total / int(keys)

print('| filter |', ' | '.join(COLS), '|')
print('|---|' + '---|' * len(COLS))
for size, row in rows:
    vals = [cells.get((size, row, c)) for c in COLS]
    print('| %s (%s keys) | %s |' % (row, size, ' | '.join(
        '-' if v is None else '%.0f' % v for v in vals)))
