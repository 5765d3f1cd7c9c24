#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The internals each in-kernel consumer uses are the ones the docs list.

make check (static stage) runs this. A consumer (module/consumers/*.c)
uses the in-kernel API, <linux/memfilter.h>, and beyond it only the
internals that Documentation/internals.rst lists for it, in its bullet
"- ``<file>.c``: ..." under "How to add an in-kernel consumer". An
internal is a memfilter_* or MEMFILTER_* name that module/filter/*.h or
core/*.h mention and include/linux/memfilter.h and uapi/linux/memfilter.h
do not; a bullet names them as ``name()``, ``struct name``, ``NAME`` or
``PREFIX_*``.

Fails, one line each, for an internal a consumer's code uses (comments
and strings aside) that its bullet does not name, and for an internal a
bullet names that the consumer's code no longer uses. It sees names, not
field reads: a consumer that reads f->ops itself is for review to catch.
    check-consumers.py [SOURCE_DIR]      (default: this script's tree)
"""
import fnmatch
import glob
import os
import re
import sys

NAME = re.compile(r'\b(?:memfilter|MEMFILTER)_\w+')
# What a file defines: a function at the start of a line, or a macro.
DEFINED = re.compile(r'^(?:[A-Za-z_][\w ]*[\s*])?'
                     r'((?:memfilter|MEMFILTER)_\w+)\(|'
                     r'^#define\s+((?:memfilter|MEMFILTER)_\w+)', re.M)


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def names(paths):
    """Every memfilter_* / MEMFILTER_* name the files mention."""
    return {n for p in paths for n in NAME.findall(read(p))}


def code(text):
    """C source without its comments and string literals."""
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"', ' ', text,
                  flags=re.S)


def bullets(rst):
    """file -> the names its bullet in the consumer section gives."""
    sec = rst.split('How to add an in-kernel consumer', 1)[-1]
    out = {}
    for m in re.finditer(r'^- ``(\w+\.c)``:(.*?)(?=^- |^\S|^$)', sec,
                         re.M | re.S):
        out[m.group(1)] = set(re.findall(
            r'``(?:struct )?((?:memfilter|MEMFILTER)_\w*\*?)(?:\(\))?``',
            m.group(2)))
    return out


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    public = names([os.path.join(top, 'include/linux/memfilter.h'),
                    os.path.join(top, 'uapi/linux/memfilter.h')])
    internal = names(glob.glob(os.path.join(top, 'module/filter/*.h')) +
                     glob.glob(os.path.join(top, 'core/*.h'))) - public
    # The consumers' own names, should a comment there mention one.
    internal -= names(glob.glob(os.path.join(top, 'module/consumers/*.h')))
    listed = bullets(read(os.path.join(top, 'Documentation/internals.rst')))
    bad = nfiles = nlisted = 0
    for path in sorted(glob.glob(os.path.join(top, 'module/consumers/*.c'))):
        base = os.path.basename(path)
        text = code(read(path))
        own = {a or b for a, b in DEFINED.findall(text)}
        used = {n for n in NAME.findall(text) if n in internal - own}
        doc = {d for d in listed.get(base, set())
               if '*' in d or d in internal}
        nlisted += len(doc)
        for n in sorted(used):
            if not any(fnmatch.fnmatchcase(n, d) for d in doc):
                print('module/consumers/%s uses %s, which internals.rst '
                      'does not list for it' % (base, n))
                bad += 1
        for d in sorted(doc):
            if not any(fnmatch.fnmatchcase(n, d) for n in used):
                print('internals.rst lists %s for %s, which does not use it'
                      % (d, base))
                bad += 1
        nfiles += 1
    print('%d consumers, %d internals listed: %s' % (
        nfiles, nlisted, '%d mismatches' % bad if bad else 'all as used'))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
