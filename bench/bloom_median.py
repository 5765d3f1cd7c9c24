#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Median, cell by cell, of several runs of bench/bloom_bench: reads their
# markdown tables on stdin, writes one table per section (filter kind and
# size), each cell the median of that cell across the runs, printed with
# as many decimals as the runs printed (ratios 2, times 1); other lines
# (messages) once each.
import re
import statistics
import sys

order, sections, notes = [], {}, []
head = None
for line in sys.stdin:
    line = line.rstrip('\n')
    if line.startswith('### '):
        head = line
        if head not in sections:
            order.append(head)
            sections[head] = {'rows': {}, 'names': [], 'hdr': []}
        continue
    if head is None or not line.startswith('|'):
        if line and line not in notes:
            notes.append(line)
        continue
    sec = sections[head]
    if line.startswith('| filter') or line.startswith('|---'):
        if len(sec['hdr']) < 2:
            sec['hdr'].append(line)
        continue
    cells = [c.strip() for c in line.strip().strip('|').split('|')]
    if cells[0] not in sec['rows']:
        sec['names'].append(cells[0])
        sec['rows'][cells[0]] = []
    sec['rows'][cells[0]].append(cells[1:])

for line in notes:
    print(line)
for head in order:
    sec = sections[head]
    runs = max(len(v) for v in sec['rows'].values())
    print('\n%s (median of %d run%s)\n' % (head, runs, 's' if runs > 1 else ''))
    for h in sec['hdr']:
        print(h)
    for name in sec['names']:
        rows = sec['rows'][name]
        out = []
        for i in range(len(rows[0])):
            xs = [r[i] for r in rows]
            try:
                dec = len(xs[0].split('.')[1]) if '.' in xs[0] else 0
                out.append('%.*f' % (dec, statistics.median(float(x) for x in xs)))
            except ValueError:
                out.append(xs[0])
        print('| %s | %s |' % (name, ' | '.join(out)))
