#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every filter type, feature bit and KUnit suite named where users read.

make check (static stage) runs this. The lists come from the sources, not
from this file: the MEMFILTER_FEAT_* and MEMFILTER_TYPE_* macros of
uapi/linux/memfilter.h, and the KUnit suites of the objects Kbuild links
into memfilter_kunit. A new feature bit or type fails here until

  - memfilterctl names it: a { MEMFILTER_FEAT_X, "name" } entry of the
    feature table `memfilterctl version` prints from (tools/*.c), and a
    { MF_TYPE_X, "name", ... } entry of the userspace type table
    (lib/types.h, which memfilterctl's type names come from);
  - libmemfilter has MF_TYPE_X with the same value (lib/libmemfilter.h);
  - Documentation/uapi.rst's feature table has ``MEMFILTER_FEAT_X`` and
    memfilterctl(8)'s version section the CLI's name for it;
  - the module's MODULE_DESCRIPTION (module/main.c) and Kconfig's
    CONFIG_MEMFILTER prompt and help name the type (its CLI name as the
    start of a word, case-insensitive: "grow" in "growing");

and a new KUnit suite until Kconfig's CONFIG_MEMFILTER_KUNIT_TEST help
names it. Prints one line per omission; exit status 1 if any.
    check-abi-names.py [SOURCE_DIR]      (default: this script's tree)
"""
import glob
import os
import re
import sys


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def header_macros(text, prefix):
    """NAME -> value of every '#define PREFIXNAME value' (values as text)."""
    return {m.group(1): m.group(2) for m in re.finditer(
        r'^#define\s+' + prefix + r'(\w+)\s+(\S+)', text, re.M)}


def kconfig_entry(text, symbol):
    """The prompt and help of 'config SYMBOL' (up to the next config)."""
    m = re.search(r'^config\s+' + symbol + r'\s*\n(.*?)(?=^config\s|\Z)',
                  text, re.M | re.S)
    return m.group(1) if m else ''


def kunit_suites(top):
    """Suite names of the objects Kbuild links into memfilter_kunit."""
    kbuild = read(os.path.join(top, 'Kbuild'))
    # Join continuation lines, then take every memfilter_kunit-* list.
    kbuild = re.sub(r'\\\n', ' ', kbuild)
    objs = []
    for m in re.finditer(r'^memfilter_kunit-\S*\s*[:+]?=\s*(.*)$', kbuild,
                         re.M):
        objs += re.findall(r'(\S+)\.o\b', m.group(1))
    suites = []
    for o in sorted(set(objs)):
        src = read(os.path.join(top, o + '.c'))
        for s in re.finditer(r'struct\s+kunit_suite\s+\w+\s*=\s*\{(.*?)\};',
                             src, re.S):
            n = re.search(r'\.name\s*=\s*"([^"]+)"', s.group(1))
            if n:
                suites.append(n.group(1))
    return suites


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    bad = []
    uapi = read(os.path.join(top, 'uapi/linux/memfilter.h'))
    feats = header_macros(uapi, 'MEMFILTER_FEAT_')
    types = header_macros(uapi, 'MEMFILTER_TYPE_')
    if len(feats) < 10 or len(types) < 2:
        print('uapi/linux/memfilter.h: found %d feature bits and %d types: '
              'the parser is out of date' % (len(feats), len(types)))
        return 1

    tools = ''.join(read(p) for p in sorted(glob.glob(
        os.path.join(top, 'tools/*.c'))))
    feat_names = {}
    for m in re.finditer(r'\{\s*MEMFILTER_FEAT_(\w+)\s*,\s*"([^"]+)"\s*\}',
                         tools):
        feat_names.setdefault(m.group(1), []).append(m.group(2))
    type_names = {}
    for m in re.finditer(r'\{\s*MF_TYPE_(\w+)\s*,\s*"([^"]+)"',
                         read(os.path.join(top, 'lib/types.h'))):
        type_names.setdefault(m.group(1), []).append(m.group(2))
    for f in feats:
        if f not in feat_names:
            bad.append('tools/: MEMFILTER_FEAT_%s has no entry '
                       '{ MEMFILTER_FEAT_%s, "name" } in the feature table '
                       'of memfilterctl version' % (f, f))
        elif len(feat_names[f]) > 1:
            bad.append('tools/: MEMFILTER_FEAT_%s has %d names: %s'
                       % (f, len(feat_names[f]), ', '.join(feat_names[f])))
    for t in types:
        if t not in type_names:
            bad.append('lib/types.h: MEMFILTER_TYPE_%s has no '
                       '{ MF_TYPE_%s, "name", ... } entry in the type '
                       'table' % (t, t))
    names = [n for v in feat_names.values() for n in v]
    for n in sorted(set(names)):
        if names.count(n) > 1:
            bad.append('tools/: feature name "%s" is given to %d bits'
                       % (n, names.count(n)))

    lib = read(os.path.join(top, 'lib/libmemfilter.h'))
    lib_types = header_macros(lib, 'MF_TYPE_')
    for t, v in types.items():
        if lib_types.get(t) != v:
            bad.append('lib/libmemfilter.h: no "#define MF_TYPE_%s %s" '
                       '(MEMFILTER_TYPE_%s)' % (t, v, t))

    rst = read(os.path.join(top, 'Documentation/uapi.rst'))
    for f in feats:
        if '``MEMFILTER_FEAT_%s``' % f not in rst:
            bad.append('Documentation/uapi.rst: the feature table lacks '
                       '``MEMFILTER_FEAT_%s``' % f)
    man = read(os.path.join(top, 'man/memfilterctl.8'))
    m = re.search(r'^\.SS version\n(.*?)^\.S[SH] ', man, re.M | re.S)
    version_sec = m.group(1).replace('\\-', '-') if m else ''
    for f, ns in sorted(feat_names.items()):
        for n in ns:
            if not re.search(r'^\.B[RI]? "?%s\b' % re.escape(n), version_sec,
                             re.M):
                bad.append('man/memfilterctl.8: the version section does '
                           'not list feature "%s" (".B %s")' % (n, n))

    main_c = read(os.path.join(top, 'module/main.c'))
    m = re.search(r'MODULE_DESCRIPTION\("([^"]*)"\)', main_c)
    desc = m.group(1) if m else ''
    kconfig = read(os.path.join(top, 'Kconfig'))
    kc_mf = kconfig_entry(kconfig, 'MEMFILTER')
    for t in types:
        # The CLI's name, else the macro's (until the CLI has one).
        name = type_names.get(t, [t.lower()])[0]
        word = r'\b' + re.escape(name)
        if not re.search(word, desc, re.I):
            bad.append('module/main.c: MODULE_DESCRIPTION does not name '
                       'the %s type ("%s")' % (t, name))
        if not re.search(word, kc_mf, re.I):
            bad.append('Kconfig: CONFIG_MEMFILTER does not name the %s '
                       'type ("%s")' % (t, name))

    kc_kunit = kconfig_entry(kconfig, 'MEMFILTER_KUNIT_TEST')
    suites = kunit_suites(top)
    if len(suites) < 2:
        bad.append('Kbuild: found %d KUnit suites in memfilter_kunit: the '
                   'parser is out of date' % len(suites))
    for s in suites:
        if not re.search(r'\b%s\b' % re.escape(s), kc_kunit):
            bad.append('Kconfig: CONFIG_MEMFILTER_KUNIT_TEST does not name '
                       'the KUnit suite %s' % s)

    for b in bad:
        print(b)
    print('%d feature bits, %d types, %d KUnit suites: %s'
          % (len(feats), len(types), len(suites),
             'all named' if not bad else '%d omissions' % len(bad)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
