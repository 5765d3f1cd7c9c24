#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Decide pass/fail for memfilter's test logs and print the summary line.

Every test producer (guest scripts, native tests, static checks) writes
sections of the form

    ### BEGIN <ktap|tap> <name>
    ... (K)TAP ...
    ### END <ktap|tap> <name> rc=<status>

A section passes when its exit status is 0, its TAP has no failing result,
and, for ktap sections, the kernel's own kunit.py parser accepts it.
Only leaf results are counted (a KTAP suite line is not a test case).
The last line printed is "N passed, N failed[, N skipped]"; the exit
status is non-zero if anything failed or nothing ran.
"""
import os
import re
import subprocess
import sys
import tempfile

RESULT = re.compile(r'^(\s*)(ok|not ok)\s+\d+\b(.*)$')
BEGIN = re.compile(r'^### BEGIN (\S+) (\S+)\s*$')
END = re.compile(r'^### END (\S+) (\S+) rc=(\d+)\s*$')


def count(lines):
    """Leaf results of (K)TAP lines: a parent follows its deeper children."""
    passed = failed = skipped = 0
    failures = []
    prev_depth = -1
    for line in lines:
        m = RESULT.match(line.expandtabs(8))
        if not m:
            continue
        depth = len(m.group(1))
        if prev_depth <= depth:
            rest = m.group(3)
            if re.search(r'#\s*SKIP', rest, re.I):
                skipped += 1
            elif m.group(2) == 'ok':
                passed += 1
            else:
                failed += 1
                failures.append(rest.strip())
        prev_depth = depth
    return passed, failed, skipped, failures


def kunit_parse(kunit_py, lines):
    with tempfile.NamedTemporaryFile('w', suffix='.ktap', delete=False) as f:
        f.write('\n'.join(lines) + '\n')
        path = f.name
    try:
        r = subprocess.run([sys.executable, kunit_py, 'parse', path],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        return r.returncode == 0, r.stdout
    finally:
        os.unlink(path)


def main():
    args = sys.argv[1:]
    kunit_py = None
    if len(args) >= 2 and args[0] == '--kunit-py':
        kunit_py = args[1]
        args = args[2:]
    total = [0, 0, 0]
    bad = []
    for log in args:
        try:
            with open(log, errors='replace') as f:
                lines = f.read().splitlines()
        except OSError as e:
            bad.append(f'{log}: {e}')
            total[1] += 1
            continue
        cur = None
        for line in lines + ['### EOF']:
            b = BEGIN.match(line)
            e = END.match(line)
            if cur is not None and (b or line == '### EOF'):
                bad.append(f'{log}: {cur[1]}: section never ended')
                total[1] += 1
                cur = None
            if b:
                cur = (b.group(1), b.group(2), [])
            elif e and cur is not None:
                kind, name, body = cur
                p, fl, s, fails = count(body)
                rc = int(e.group(3))
                why = [f'{name}: not ok: {x}' for x in fails]
                if kind == 'ktap' and kunit_py:
                    ok, out = kunit_parse(kunit_py, body)
                    if not ok and not fl:
                        fl += 1
                        why.append(f'{name}: kunit.py parse failed:\n{out}')
                if rc and not fl:
                    fl += 1
                    why.append(f'{name}: exited {rc}')
                if p + fl + s == 0:
                    fl += 1
                    why.append(f'{name}: ran no test')
                print(f'{"PASS" if not fl else "FAIL"}: {os.path.basename(log)}: {name}: '
                      f'{p} passed, {fl} failed, {s} skipped')
                total[0] += p
                total[1] += fl
                total[2] += s
                bad.extend(why)
                cur = None
            elif cur is not None:
                cur[2].append(line)
    for b in bad:
        print('FAILED ' + b)
    summary = f'{total[0]} passed, {total[1]} failed'
    if total[2]:
        summary += f', {total[2]} skipped'
    print(summary)
    return 1 if total[1] or not total[0] else 0


if __name__ == '__main__':
    sys.exit(main())
