#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# scripts/kernel-doc for Sphinx's C domain, where a struct and a function
# of one name collide ("Duplicate C declaration"): libmemfilter has
# struct mf_info and mf_info(), as the kernel's C does without trouble.
# Runs scripts/kernel-doc with the arguments given and puts each such
# struct into the C namespace "struct_" (c:namespace-push/pop around its
# block); everything else passes unchanged. Documentation/conf.py names
# this as kerneldoc_bin.

import os
import re
import subprocess
import sys

KDOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'kernel-doc')
DECL = re.compile(r'^\.\. c:(function|struct|union|enum|macro|type|var)::\s*(.*)$')


def main():
    run = subprocess.run([KDOC] + sys.argv[1:], stdout=subprocess.PIPE,
                         universal_newlines=True)
    lines = run.stdout.split('\n')
    funcs = set()
    for line in lines:
        m = DECL.match(line)
        if m and m.group(1) == 'function':
            name = re.search(r'(\w+)\s*\(', m.group(2))
            if name:
                funcs.add(name.group(1))
    out = []
    pushed = False
    for line in lines:
        m = DECL.match(line)
        if m and pushed:
            out += ['.. c:namespace-pop::', '']
            pushed = False
        if m and m.group(1) in ('struct', 'union') and m.group(2).strip() in funcs:
            out += ['.. c:namespace-push:: struct_', '']
            pushed = True
        out.append(line)
    if pushed:
        out += ['', '.. c:namespace-pop::', '']
    sys.stdout.write('\n'.join(out))
    return run.returncode


if __name__ == '__main__':
    sys.exit(main())
