#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# README's results table from the raw runs bench/bench-table.sh keeps:
# the concatenated stdout of every run of bench/bloom_bench --layouts and
# cuckoo_bench at each size, window_bench --single, grow_bench --single
# and bpf_key_bench, in DIR (bloom-SIZE, cuckoo-SIZE, window, grow, bpf),
# with
# DIR/meta (key=value lines: keys, runs, queries, cpu, date, ff, the
# uptime before and after) and DIR/load (the 1-minute load average before
# each run and after the last). Each cell is the median over the runs of
# a figure measured within one run: a ratio is memfilter's time over the
# other's in the same process on the same keys, never a ratio of medians.
#
#   bench_table.py format DIR            the block, on stdout
#   bench_table.py write DIR README      the block between README's markers
#   bench_table.py fixture DIR OUT N     OUT: DIR's first N runs, only the
#                                        lines the block reads (the test's
#                                        tests/data/bench-table/) and
#                                        OUT/block.md, their block
#   bench_table.py check README          README's block is well formed: its
#                                        markers, the command, every row
#                                        of the format and no other, every
#                                        cell a figure; and no speed figure
#                                        (ns, NN.Nx) outside it
import os
import re
import statistics
import sys

BEGIN = '<!-- bench-table begin -->'
END = '<!-- bench-table end -->'
COMMAND = 'make bench-table FASTFILTER_DIR=<a fastfilter_cpp checkout>'


class Missing(Exception):
    pass


def lines(path):
    """(line, section, key) for each line of a file of markdown tables: a
    section is the '### ' line or the paragraph before a table, cut at
    its first comma (the figures after it are per run); key is a table
    row's name, '' for its header, None for any other line."""
    sec, hdr, by = None, False, 0
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if not line.startswith('|'):
                if line.strip():
                    sec = line.lstrip('# ').split(',')[0].strip()
                    hdr = True
                yield line, sec, None
                continue
            if sec is None or line.startswith('|---'):
                yield line, sec, None
                continue
            cells = [c.strip() for c in line.strip().strip('|').split('|')]
            if hdr:
                # cuckoo_bench's fill table: one key count, a row per filter
                by = 1 if cells[:2] == ['keys', 'filter'] else 0
                hdr = False
                yield line, sec, ''
                continue
            yield line, sec, cells[by]


def tables(path):
    """{section: {row name: [cells of each run], '': [header]}}"""
    secs = {}
    for line, sec, key in lines(path):
        if sec is None:
            continue
        s = secs.setdefault(sec, {})
        if key is None:
            continue
        cells = [c.strip() for c in line.strip().strip('|').split('|')][1:]
        if key == '':
            s.setdefault('', [cells])
        else:
            s.setdefault(key, []).append(cells)
    return secs


class Runs:
    def __init__(self, d):
        self.d = d
        self.cache = {}
        self.used = set()  # (file, section, row) read, row None: its head

    def section(self, name, sec):
        path = os.path.join(self.d, name)
        if path not in self.cache:
            if not os.path.exists(path):
                raise Missing('no %s' % path)
            self.cache[path] = tables(path)
        secs = self.cache[path]
        hit = [s for s in secs if s == sec] or \
            [s for s in secs if s.startswith(sec)]
        if len(hit) != 1:
            raise Missing('%s: %d sections "%s"' % (path, len(hit), sec))
        self.used.add((name, hit[0], None))
        return secs[hit[0]]

    def section_name(self, name, s):
        return next(k for k, v in self.cache[os.path.join(self.d, name)].items()
                    if v is s)

    def cells(self, name, sec, row, col):
        """The cell of column COL (a header name or an index) in the row
        whose name starts with ROW, in every run."""
        s = self.section(name, sec)
        hit = [r for r in s if r == row] or \
            [r for r in s if r and r.startswith(row)]
        if len(hit) != 1:
            raise Missing('%s/%s: %d rows "%s"' % (name, sec, len(hit), row))
        self.used.add((name, self.section_name(name, s), hit[0]))
        if isinstance(col, str):
            h = s[''][0]
            if col not in h:
                raise Missing('%s/%s: no column "%s"' % (name, sec, col))
            col = h.index(col)
        return [r[col] for r in s[hit[0]]]


def num(cell, pick=0):
    """The PICK-th number of a cell ("5.4", "0.904%", "26.02 (1.49x)",
    "0.93 (0.84-1.06)"); None for "-"."""
    xs = re.findall(r'\d+(?:\.\d+)?', cell)
    return float(xs[pick]) if len(xs) > pick else None


def median(cells, pick=0, dec=2):
    xs = [num(c, pick) for c in cells]
    if not xs or None in xs:
        return '-'
    return '%.*f' % (dec, statistics.median(xs))


# The rows: (title, goal, cell function of (runs, size)); a cell
# function raises Missing where its bench printed no such row (a
# fastfilter row without FASTFILTER_DIR): the cell is then "-".
def bloom(row, cols, fpr='0.01', dec=2, pick=0, unit=''):
    def f(r, size):
        sec = 'Bloom layouts at --fpr %s' % fpr
        out = [median(r.cells('bloom-' + size, sec, row.format(fpr=fpr), c),
                      pick, dec) + unit
               for c in cols]
        return ' / '.join(out)
    return f


MF32 = 'memfilter split32, --fpr {fpr}: public API'
MF64 = 'memfilter line64, --fpr {fpr}: public API'
S = ('query present', 'query absent')
B = ('batch query present', 'batch query absent')


def both(row, cols):
    """1%: a / b; 0.1%: c / d"""
    def f(r, size):
        return '1%%: %s; 0.1%%: %s' % (bloom(row, cols)(r, size),
                                       bloom(row, cols, '0.001')(r, size))
    return f


def cuckoo(row, cols, dec=2, pick=0):
    def f(r, size):
        return ' / '.join(median(r.cells('cuckoo-' + size, 'Cuckoo', row, c),
                                 pick, dec) for c in cols)
    return f


def single(name, cols, pick=1):
    """window or grow --single: the ratio in parentheses of each column."""
    def f(r, size):
        return ' / '.join(median(r.cells(name, 'Single keys', size, c), pick)
                          for c in cols)
    return f


def bpf(a, b):
    """bpf_key_bench: row A over row B, present / absent, in each run."""
    def f(r, size):
        out = []
        for col in ('present keys', 'absent keys'):
            xs = r.cells('bpf', 'Native', a, col)
            ys = r.cells('bpf', 'Native', b, col)
            out.append('%.2f' % statistics.median(
                float(x) / float(y) for x, y in zip(xs, ys)))
        return ' / '.join(out)
    return f


def fill(r, size):
    """cuckoo_bench's fill at 2^18 buckets, in the first size's runs."""
    return median(r.cells('cuckoo-' + size, 'Insert to 94% load',
                          'ratio memfilter / fastfilter', 'insert ns/key'))


ROWS = [
    ('Bloom split32 single query, public API / fastfilter SimdBlockFilter',
     '<= 1.1', both('ratio: split32 public API / SimdBlockFilter', S)),
    ('Bloom split32 single query, in-module path (kernel build) / SimdBlockFilter',
     '<= 1.1', both('ratio: split32 in-module path / SimdBlockFilter', S)),
    ('Bloom split32 single query, inline in the caller / SimdBlockFilter',
     '', both('ratio: split32 inline / SimdBlockFilter', S)),
    ('Bloom line64 single query, public API / SimdBlockFilterFixed64 fed the same hash',
     '<= 1.2', both("ratio: line64 public API / Fixed64 fed memfilter's hash", S)),
    ('Bloom line64 single query, in-module path / Fixed64 fed the same hash',
     '<= 1.2', both("ratio: line64 in-module path / Fixed64 fed memfilter's hash", S)),
    ('Bloom split32 batch query, key API / SimdBlockFilter prefetch loop',
     '<= 1.0', both('ratio: split32 public API / SimdBlockFilter', B)),
    ("Bloom split32 batch query, the module's ops (AVX2) / SimdBlockFilter prefetch loop",
     '<= 1.0', both('ratio: split32 module path / SimdBlockFilter', B)),
    ('Bloom split32 batch query, in-module path (scalar kernel build) / prefetch loop',
     '', both('ratio: split32 in-module path / SimdBlockFilter', B)),
    ('Bloom split32 single query, public API / memory-limit probe (1 random line per key)',
     '', both('ratio: split32 public API / memory-limit probe', S)),
    ('Bloom split32 batch query, key API / memory-limit probe, prefetched',
     '', both('ratio: split32 public API / memory-limit probe', B)),
    ('fastfilter SimdBlockFilter single query / memory-limit probe',
     '', both('ratio: SimdBlockFilter (batch: its prefetch loop) / memory-limit probe', S)),
    ('Bloom split32 / line64 single query, public API (the default layout)',
     '', both('ratio: split32 / line64, public API', S)),
    ('Bloom bits per key, split32 / line64',
     '', lambda r, s: '1%%: %s; 0.1%%: %s' % tuple(
         '%s / %s' % (bloom(MF32, ('bits/key',), f)(r, s),
                      bloom(MF64, ('bits/key',), f)(r, s))
         for f in ('0.01', '0.001'))),
    ('Bloom measured FPR, split32 / line64 (asked: 1%, 0.1%)',
     '', lambda r, s: '%s; %s' % tuple(
         '%s / %s' % (bloom(MF32, ('FPR',), f, 3, unit='%')(r, s),
                      bloom(MF64, ('FPR',), f, 3, unit='%')(r, s))
         for f in ('0.01', '0.001'))),
    ('ns per key: Bloom split32 single query, public API; SimdBlockFilter (1%)',
     '', lambda r, s: '%s; %s' % (
         bloom(MF32, S, dec=1)(r, s),
         bloom('fastfilter_cpp SimdBlockFilter (32 B)', S, dec=1)(r, s))),
    ('cuckoo-12 single query, key API (XXH3) / fastfilter Cuckoo12',
     '<= 1.5', cuckoo('ratio: memfilter XXH3 key API / fastfilter Cuckoo12', S)),
    ('cuckoo-12 single query, module path (XXH3) / Cuckoo12',
     '<= 1.5', cuckoo('ratio: module path (XXH3) / fastfilter Cuckoo12', S)),
    ('cuckoo-12 bits per key / Cuckoo12 bits per key (its load)',
     '', lambda r, s: '%s / %s (%s)' % (
         cuckoo('memfilter cuckoo-12 (key API: XXH3', ('bits/key',))(r, s),
         cuckoo('fastfilter_cpp Cuckoo12', ('bits/key',))(r, s),
         cuckoo('fastfilter_cpp Cuckoo12', ('load',), 1)(r, s) + '%')),
    ('cuckoo-12 batch query / Bloom batch query at the cuckoo FPR (XXH64 both)',
     '', cuckoo('ratio: memfilter cuckoo / Bloom at its FPR', B)),
    ('window G=4 single query / one Bloom query, same keys and FPR',
     '<= 1.5 absent', single('window', ('window present (/ Bloom)',
                                        'window absent (/ Bloom)'))),
    ('window G=4 test-and-add / one Bloom query (absent)',
     '', single('window', ('window test-and-add (/ Bloom absent)',))),
    ('growing, 8 sub-filters, absent / one Bloom query per sub-filter',
     '<= 1.0', single('grow', ('grow absent (/ Bloom, per sub-filter)',), 2)),
]

# Rows of one size, their own (kernel BPF Bloom map: the guest race's
# 10000 keys; cuckoo fill: 2^18 buckets, 1M slots).
FIXED = [
    ('kernel BPF Bloom map algorithm: memfilter contains (XXH3, scalar) / map peek, k=4 (equal FPR)',
     '10,000 IPv4 keys', bpf('memfilter contains: XXH3', 'Bloom map peek, k=4')),
    ("... / map peek, k=7 (the map's default)", '10,000 IPv4 keys',
     bpf('memfilter contains: XXH3', 'Bloom map peek, k=7')),
    ('... memfilter batch kfunc per key (AVX2) / map peek, k=4', '10,000 IPv4 keys',
     bpf('memfilter batch of 64, per key: XXH3 each + AVX2', 'Bloom map peek, k=4')),
    ('cuckoo-12 insert to 94% load / Cuckoo12, same slots', '2^18 buckets', fill),
]


def cell(f, r, size):
    try:
        return f(r, size)
    except Missing:
        return '-'


def meta(d):
    m = {}
    with open(os.path.join(d, 'meta')) as f:
        for line in f:
            k, _, v = line.rstrip('\n').partition('=')
            m[k] = v
    return m


def block(d, r=None):
    r, m = r or Runs(d), meta(d)
    sizes = m['keys'].split(',')
    loads = [float(x) for x in open(os.path.join(d, 'load')).read().split()]
    out = []
    out.append('Made by `%s` (bench/bench-table.sh; %s run%s of each bench,'
               ' taken in turn, each cell the median of the runs\' figures).'
               % (COMMAND, m['runs'], '' if m['runs'] == '1' else 's'))
    out.append('This table: %s, %s; fastfilter_cpp %s; %s; 1-minute load'
               ' average %.1f-%.1f over the runs (uptime before: %s; after:'
               ' %s).' % (m['cpu'], m['kernel'], m['ff'], m['date'],
                          min(loads), max(loads), m['before'], m['after']))
    out.append('')
    out.append('Ratios are memfilter\'s time per key over the other\'s, in one'
               ' process on the same splitmix64 8-byte keys (below 1:'
               ' memfilter faster), present / absent keys; Bloom filters'
               ' sized by `--fpr` (1%%: about 10 bits/key) against'
               ' fastfilter_cpp sized to the measured FPR; at most %s'
               ' queries per measurement. Goal: the target the project set'
               ' for that measure.'
               % m['queries'])
    out.append('')
    out.append('| measure | goal | %s |' % ' | '.join('%s keys' % s for s in sizes))
    out.append('|---|---|%s' % ('---|' * len(sizes)))
    for title, goal, f in ROWS:
        out.append('| %s | %s | %s |' % (title, goal or '-',
                                         ' | '.join(cell(f, r, s) for s in sizes)))
    out.append('')
    out.append('| measure | size | ratio |')
    out.append('|---|---|---|')
    for title, size, f in FIXED:
        out.append('| %s | %s | %s |' % (title, size, cell(f, r, sizes[0])))
    return '\n'.join(out) + '\n'


def split(text, path):
    if text.count(BEGIN + '\n') != 1 or text.count(END + '\n') != 1:
        sys.exit('bench_table: %s lacks one pair of lines %s, %s'
                 % (path, BEGIN, END))
    a = text.index(BEGIN + '\n') + len(BEGIN) + 1
    b = text.index(END + '\n')
    if b < a:
        sys.exit('bench_table: %s: %s before %s' % (path, END, BEGIN))
    return text[:a], text[a:b], text[b:]


CELL = re.compile(r'[-\d.%/ ();:]+$')
FIGURE = re.compile(r'\b\d+(\.\d+)? ?(ns|x)\b|\bns/(key|query|packet)\b')
# A row whose title names a fastfilter_cpp filter needs FASTFILTER_DIR.
NEEDS_FF = re.compile(r'SimdBlock|Fixed64|prefetch loop|Cuckoo12')


def check(path):
    """Problems of README's block and of the rest, [] if none: the
    command first; the format's rows, in order; in every cell figures,
    "-" (not measured) only in a fastfilter row of a table made without
    fastfilter_cpp; outside the block no time nor speed ratio."""
    text = open(path).read()
    head, blk, tail = split(text, path)
    errs = []
    lines = blk.split('\n')
    if not lines[0].startswith('Made by `%s`' % COMMAND):
        errs.append('the block does not open with "Made by `%s`"' % COMMAND)
    no_ff = 'fastfilter_cpp none' in blk
    want = [t for t, _, _ in ROWS] + [t for t, _, _ in FIXED]
    got = []
    for line in lines:
        if not line.startswith('| ') or line.startswith('| measure |'):
            continue
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        got.append(cells[0])
        for c in cells[2:]:
            if not CELL.match(c) or not re.search(r'\d|^-$', c):
                errs.append('row "%s": cell "%s" is not a figure' % (cells[0], c))
            elif re.search(r'(^|[ ;:/(])-($|[ ;/)])', c) and \
                    not (no_ff and NEEDS_FF.search(cells[0])):
                errs.append('row "%s": cell "%s" lacks a figure' % (cells[0], c))
    if got != want:
        errs.append("the rows are not the format's (%s)" %
                    (sorted(set(got) ^ set(want)) or 'their order'))
    for line in (head + tail).split('\n'):
        if FIGURE.search(line):
            errs.append('a speed figure outside the block: "%s"' % line.strip())
    return errs


def fixture(d, out, n):
    """OUT: the first N runs in D, trimmed to the lines the block reads
    (scripts/bench-table-test.sh's fixed runs), and block.md, theirs."""
    os.makedirs(out, exist_ok=True)
    names = sorted(f for f in os.listdir(d)
                   if f not in ('load', 'meta', 'block.md'))
    for f in names:
        text = open(os.path.join(d, f)).read().split('\n')
        first = next(line for line in text if line.strip())
        runs = []
        for line in text:
            if line == first:
                runs.append([])
            if runs:
                runs[-1].append(line)
        with open(os.path.join(out, f), 'w') as o:
            o.write('\n'.join(sum(runs[:n], [])).strip('\n') + '\n')
    m = re.sub(r'(?m)^runs=.*$', 'runs=%d' % n, open(os.path.join(d, 'meta')).read())
    open(os.path.join(out, 'meta'), 'w').write(m)
    loads = open(os.path.join(d, 'load')).read().split()[:n + 1]
    open(os.path.join(out, 'load'), 'w').write('\n'.join(loads) + '\n')
    r = Runs(out)
    want = block(out, r)
    for f in names:
        keep = []
        for line, sec, key in lines(os.path.join(out, f)):
            if (f, sec, None) not in r.used:
                continue
            if key is None and not line.startswith('|'):
                keep += [''] + ([line, ''] if line.strip() else [])
            elif key in (None, '') or (f, sec, key) in r.used:
                keep.append(line)
        text = re.sub(r'\n\n+', '\n\n', '\n'.join(keep)).strip('\n')
        with open(os.path.join(out, f), 'w') as o:
            o.write(text + '\n' if text else '')
    got = block(out)
    if got != want:
        sys.exit('bench_table: the trimmed runs give another block')
    open(os.path.join(out, 'block.md'), 'w').write(got)


def main(argv):
    if len(argv) == 3 and argv[1] == 'format':
        sys.stdout.write(block(argv[2]))
    elif len(argv) == 4 and argv[1] == 'write':
        text = open(argv[3]).read()
        head, _, tail = split(text, argv[3])
        with open(argv[3] + '.tmp', 'w') as f:
            f.write(head + block(argv[2]) + tail)
        errs = check(argv[3] + '.tmp')
        if errs:
            sys.exit('bench_table: the new %s:\n  %s' % (argv[3], '\n  '.join(errs)))
        os.replace(argv[3] + '.tmp', argv[3])
    elif len(argv) == 5 and argv[1] == 'fixture':
        fixture(argv[2], argv[3], int(argv[4]))
    elif len(argv) == 3 and argv[1] == 'check':
        errs = check(argv[2])
        if errs:
            sys.exit('bench_table: %s:\n  %s' % (argv[2], '\n  '.join(errs)))
    else:
        sys.exit('usage: bench_table.py format DIR | write DIR README | '
                 'check README | fixture DIR OUT N')


if __name__ == '__main__':
    main(sys.argv)
