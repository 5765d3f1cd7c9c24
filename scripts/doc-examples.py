#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every example block of the documentation, found, checked and run.

"An example that is not tested is not shipped": this finds every code
block of Documentation/*.rst (literal blocks after "::" and
".. code-block::"), man/*.[0-9] (.EX/.EE and .nf/.fi) and README.md
(indented and fenced blocks), and requires a marker before each that
says what the block is. The marker is a comment, invisible in the
rendered page, right before the block or before the paragraph that
introduces it:

  rst   .. example: KIND [OPTION[=VALUE]...]
           SECTION:
              text
  md    <!-- example: KIND [OPTION...]
        SECTION: text -->
  man   .\\" example: KIND [OPTION...]
        .\\"   SECTION: text

A block without a marker, or with one this script does not understand,
fails. The kinds (Documentation/testing.rst, "Documentation examples"):

  sh          shell commands that need no module: run natively in a temp
              directory, memfilterctl on PATH and as build/bin/memfilterctl
  sh-module   shell commands that need the module: run in the guests by
              docs_test (as root, in a new network namespace with
              "netns"); "needs=bpf,dm,TOOL" skips where those are missing
  c           a C program (or with "main" the body of main()): compiled
              against the in-tree libmemfilter with -Wall -Wextra -Werror
              and run natively
  c-module    the same, run in the guests (also compiled natively)
  c-decl      C declarations: compiled after <libmemfilter.h>, so each
              must match the header; "f(int fd, ...)" only says f exists
  c-struct    structure definitions, field for field as in header=FILE
              (default uapi/linux/memfilter.h)
  bpf         a BPF program, compiled with clang -target bpf against the
              kernel's vmlinux.h and loaded in the guests (bpftool prog
              load: the verifier accepts it)
  output      program output, not run: each line matches a string
              literal of from=FILE[,FILE] (a printf format's %s as any
              text) or contains one of 8 or more characters
  file        lines of the file path=FILE, each found there
  text        not a command (a format, a listing): reason required
  host        commands that change the host (install, systemctl):
              reason required, and covered-by=FILE names the test that
              runs them, where one does

Sections: "setup" (shell before the example; hidden from readers),
"check" (shell after it: assertions on its files, "stdout" and
"stderr" of the block), "cleanup" (shell run even on failure),
"before"/"after"/"globals" (code around a C or BPF block), "elided"
(code for a line that is just "..."), "reason". With "prompt", a shell
block is a transcript: lines starting "# " are commands, the lines
after a command its expected output (combined stdout and stderr;
numbers match any number unless "exact"), and a command without lines
after it is not compared. An "exact" transcript that builds a filter
(memfilterctl create or build) without --seed is refused: its false
positives, and so its numbers, would change from run to run; "any-seed"
says its output holds whatever the seed.

Usage:
  doc-examples.py list
  doc-examples.py check [--cc CC] [--bpf-cc CMD]
      every block marked, the static kinds checked, the C examples
      compiled: prints TAP
  doc-examples.py bundle --where host|guest --out DIR --cc CMD [--libs L]
                  [--bpf-cc CMD]
      DIR/NNN/ per example to run there (run.sh, the compiled program),
      for tests/docs_test.sh
"""
import argparse
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))

KINDS = {
    # kind: (options it takes, sections it takes)
    'sh': ({'prompt', 'exact', 'any-seed'}, {'setup', 'check', 'cleanup'}),
    'sh-module': ({'prompt', 'exact', 'any-seed', 'netns', 'needs'},
                  {'setup', 'check', 'cleanup'}),
    'c': ({'main'}, {'globals', 'before', 'after', 'elided', 'setup',
                     'check'}),
    'c-module': ({'main', 'needs'}, {'globals', 'before', 'after', 'elided',
                                     'setup', 'check', 'cleanup'}),
    'c-decl': (set(), set()),
    'c-struct': ({'header'}, set()),
    'bpf': ({'needs'}, {'before', 'after', 'elided', 'setup', 'cleanup'}),
    'output': ({'from'}, set()),
    'file': ({'path'}, set()),
    'text': (set(), {'reason'}),
    'host': ({'covered-by'}, {'reason'}),
}
# Where each kind runs (bundle --where).
RUNS = {'sh': 'host', 'c': 'host', 'sh-module': 'guest',
        'c-module': 'guest', 'bpf': 'guest'}

# What a wrapped C example (option "main") can use without saying so.
C_INCLUDES = ['err.h', 'errno.h', 'fcntl.h', 'inttypes.h', 'stdbool.h',
              'stdint.h', 'stdio.h', 'stdlib.h', 'string.h', 'unistd.h',
              'libmemfilter.h']


class Error(Exception):
    pass


class Marker:
    def __init__(self, path, line, text):
        self.path, self.line = path, line
        first, rest = text[0], text[1:]
        m = re.match(r'^example:\s*(\S+)\s*(.*)$', first)
        if not m:
            raise Error('%s:%d: a marker starts "example: KIND"'
                        % (path, line))
        self.kind = m.group(1)
        if self.kind not in KINDS:
            raise Error('%s:%d: unknown example kind "%s" (kinds: %s)'
                        % (path, line, self.kind, ', '.join(sorted(KINDS))))
        self.opts = {}
        for w in shlex.split(m.group(2)):
            k, _, v = w.partition('=')
            self.opts[k] = v
        self.sections = {}
        cur = None
        for t in rest:
            s = re.match(r'^([a-z][a-z-]*):(?:\s+(.*))?$', t)
            if s and not t[:1].isspace():
                cur = s.group(1)
                self.sections[cur] = [s.group(2)] if s.group(2) else []
            elif cur is None:
                if t.strip():
                    raise Error('%s:%d: marker text "%s" outside a section'
                                % (path, line, t.strip()))
            else:
                self.sections[cur].append(t)
        for k in self.sections:
            self.sections[k] = dedent(self.sections[k])
        opts, secs = KINDS[self.kind]
        for k in self.opts:
            if k not in opts:
                raise Error('%s:%d: kind %s takes no option "%s"'
                            % (path, line, self.kind, k))
        for k in self.sections:
            if k not in secs:
                raise Error('%s:%d: kind %s takes no section "%s:"'
                            % (path, line, self.kind, k))
        for k in {'text': ['reason'], 'host': ['reason']}.get(self.kind, []):
            if not ''.join(self.sections.get(k, [])).strip():
                raise Error('%s:%d: kind %s needs a "%s:"'
                            % (path, line, self.kind, k))
        for k in {'output': ['from'], 'file': ['path']}.get(self.kind, []):
            if not self.opts.get(k):
                raise Error('%s:%d: kind %s needs %s=FILE'
                            % (path, line, self.kind, k))

    def text(self, name):
        return '\n'.join(self.sections.get(name, []))


class Block:
    def __init__(self, path, line, lines, marker):
        self.path, self.line, self.lines, self.marker = \
            path, line, lines, marker

    @property
    def where(self):
        return '%s:%d' % (self.path, self.line)


def dedent(lines):
    ind = min((len(t) - len(t.lstrip()) for t in lines if t.strip()),
              default=0)
    out = [t[ind:] for t in lines]
    while out and not out[-1].strip():
        out.pop()
    while out and not out[0].strip():
        out.pop(0)
    return out


def indent_of(t):
    return len(t) - len(t.expandtabs().lstrip())


# --- rst ---------------------------------------------------------------------

def rst_blocks(path, text):
    """(first line, lines, marker) of every literal block of an rst file."""
    L = text.expandtabs().split('\n')
    out = []
    pending = None      # (marker, line after it)
    i = 0
    para_start = None   # first line of the paragraph being read
    while i < len(L):
        t = L[i]
        if not t.strip():
            para_start = None
            i += 1
            continue
        if para_start is None:
            para_start = i
        ind = indent_of(t)
        m = re.match(r'^\s*\.\. example:', t)
        if m:
            if pending:
                raise Error('%s:%d: a marker that no block follows'
                            % (path, pending[0].line))
            j = i + 1
            while j < len(L) and (not L[j].strip() or indent_of(L[j]) > ind):
                j += 1
            body = [t.strip()[3:]] + dedent(L[i + 1:j])
            pending = (Marker(path, i + 1, body), j)
            i = j
            para_start = None
            continue
        d = re.match(r'^\s*\.\. (code-block|code|sourcecode)::', t)
        if re.match(r'^\s*\.\. (literalinclude|doctest|testcode)::', t):
            raise Error('%s:%d: directive not handled by %s'
                        % (path, i + 1, os.path.basename(__file__)))
        literal = (t.rstrip().endswith('::') and not
                   re.match(r'^\s*\.\. ', t) and
                   (i + 1 >= len(L) or not L[i + 1].strip()))
        if re.match(r'^\s*>>> ', t) and para_start == i:
            raise Error('%s:%d: doctest blocks are not handled' % (path, i + 1))
        if not (d or literal):
            i += 1
            continue
        # The block: the next lines indented more than this line's text
        # (after a list item's bullet).
        bullet = re.match(r'^\s*(?:[-*+]|#\.|\d+\.|\(?[a-z0-9]\))\s+', t)
        if bullet:
            ind = bullet.end()
        j = i + 1
        if d:
            while j < len(L) and re.match(r'^\s+:[\w-]+:', L[j]):
                j += 1
        while j < len(L) and not L[j].strip():
            j += 1
        if j >= len(L) or indent_of(L[j]) <= ind:
            raise Error('%s:%d: "::" but no indented block after it'
                        % (path, i + 1))
        k = j
        while k < len(L) and (not L[k].strip() or indent_of(L[k]) > ind):
            k += 1
        marker = None
        if pending:
            mk, after = pending
            # Only blank lines between the marker and this paragraph.
            start = i if d else para_start
            if any(L[x].strip() for x in range(after, start)):
                raise Error('%s:%d: a marker must come right before the '
                            'block or the paragraph that introduces it'
                            % (path, mk.line))
            marker = mk
            pending = None
        out.append(Block(path, j + 1, dedent(L[j:k]), marker))
        i = k
        para_start = None
    if pending:
        raise Error('%s:%d: a marker that no block follows'
                    % (path, pending[0].line))
    return out


def kerneldoc_literals(path, text):
    """kernel-doc comments of files the rst pulls in hold no blocks."""
    bad = []
    for f in re.findall(r'^\.\. kernel-doc::\s*(\S+)', text, re.M):
        src = os.path.join(TOP, f)
        for n, t in enumerate(open(src, encoding='utf-8'), 1):
            if re.match(r'^\s*\*.*::\s*$', t):
                bad.append('%s:%d: a literal block in a kernel-doc comment '
                           '(pulled in by %s): not handled' % (f, n, path))
    return bad


# --- markdown ----------------------------------------------------------------

def md_blocks(path, text):
    L = text.split('\n')
    out = []
    pending = None
    i = 0
    paras = 0           # paragraphs since the marker
    prev_blank = True
    while i < len(L):
        t = L[i]
        if t.lstrip().startswith('<!--'):
            j = i
            while '-->' not in L[j]:
                j += 1
                if j >= len(L):
                    raise Error('%s:%d: unterminated comment' % (path, i + 1))
            body = '\n'.join(L[i:j + 1])
            body = body.split('<!--', 1)[1].rsplit('-->', 1)[0]
            blines = body.strip('\n').split('\n')
            if blines and blines[0].strip().startswith('example:'):
                if pending:
                    raise Error('%s:%d: a marker that no block follows'
                                % (path, pending.line))
                pending = Marker(path, i + 1, [blines[0].strip()] +
                                 dedent(blines[1:]))
                paras = 0
            i = j + 1
            prev_blank = True
            continue
        fence = re.match(r'^\s*(```+|~~~+)', t)
        code = (t.startswith('    ') or t.startswith('\t')) and prev_blank \
            and t.strip()
        if fence or code:
            if fence:
                j = i + 1
                while j < len(L) and not L[j].strip().startswith(
                        fence.group(1)):
                    j += 1
                lines, first, k = L[i + 1:j], i + 2, j + 1
            else:
                j = i
                while j < len(L) and (not L[j].strip() or
                                      L[j].startswith('    ') or
                                      L[j].startswith('\t')):
                    j += 1
                lines, first, k = L[i:j], i + 1, j
            marker = None
            if pending:
                if paras > 1:
                    raise Error('%s:%d: a marker must come right before the '
                                'block or the paragraph that introduces it'
                                % (path, pending.line))
                marker, pending = pending, None
            out.append(Block(path, first, dedent(lines), marker))
            i = k
            prev_blank = True
            continue
        if t.strip():
            if prev_blank:
                paras += 1
            prev_blank = False
        else:
            prev_blank = True
        i += 1
    if pending:
        raise Error('%s:%d: a marker that no block follows'
                    % (path, pending.line))
    return out


# --- man ---------------------------------------------------------------------

def troff_text(t):
    """One line of troff as the reader sees it."""
    def args(s):
        return [(a or b).replace('\\"', '"') for a, b in
                re.findall(r'"((?:[^"\\]|\\.)*)"|(\S+)', s)]
    m = re.match(r'^\.(B|I|R|BI|IB|BR|RB|IR|RI)\s+(.*)$', t)
    if m:
        # .B joins its words with spaces, .BI and the like alternate
        # fonts without them.
        t = (' ' if len(m.group(1)) == 1 else '').join(args(m.group(2)))
    elif re.match(r'^\.(PP|P|LP|sp|br)\b', t):
        t = ''
    elif t.startswith('.'):
        raise Error('troff request "%s" inside an example: not handled'
                    % t.split()[0])
    t = re.sub(r'\\f[BIRP]|\\f\(\w\w|\\&|\\c$', '', t)
    for a, b in (('\\-', '-'), ('\\(aq', "'"), ('\\(dq', '"'), ('\\e', '\\'),
                 ('\\ ', ' '), ('\\(em', '--'), ('\\~', ' ')):
        t = t.replace(a, b)
    return t


def man_blocks(path, text):
    L = text.split('\n')
    out = []
    pending = None
    i = 0
    while i < len(L):
        t = L[i]
        m = re.match(r'^\.\\"\s?(\s*)example:(.*)$', t)
        if m:
            j = i + 1
            body = ['example:' + m.group(2)]
            while j < len(L) and L[j].startswith('.\\"') and \
                    not re.match(r'^\.\\"\s*example:', L[j]):
                body.append(re.sub(r'^\.\\" ?', '', L[j]))
                j += 1
            if pending:
                raise Error('%s:%d: a marker that no block follows'
                            % (path, pending.line))
            pending = Marker(path, i + 1, [body[0]] + dedent(body[1:]))
            if j >= len(L) or not re.match(r'^\.(nf|EX)\b', L[j]):
                raise Error('%s:%d: a marker must come right before .nf or '
                            '.EX' % (path, i + 1))
            i = j
            continue
        b = re.match(r'^\.(nf|EX)\b', t)
        if b:
            end = {'nf': r'^\.fi\b', 'EX': r'^\.EE\b'}[b.group(1)]
            j = i + 1
            while j < len(L) and not re.match(end, L[j]):
                j += 1
            try:
                lines = [troff_text(x) for x in L[i + 1:j]
                         if not x.startswith('.\\"')]
            except Error as e:
                raise Error('%s:%d: %s' % (path, i + 1, e))
            out.append(Block(path, i + 2, lines, pending))
            pending = None
            i = j + 1
            continue
        i += 1
    return out


def all_blocks():
    blocks, bad = [], []
    files = sorted(glob.glob(os.path.join(TOP, 'Documentation/*.rst'))) + \
        sorted(glob.glob(os.path.join(TOP, 'man/*.[0-9]'))) + \
        [os.path.join(TOP, 'README.md')]
    for f in files:
        rel = os.path.relpath(f, TOP)
        text = open(f, encoding='utf-8').read()
        try:
            if f.endswith('.rst'):
                blocks += rst_blocks(rel, text)
                bad += kerneldoc_literals(rel, text)
            elif f.endswith('.md'):
                blocks += md_blocks(rel, text)
            else:
                blocks += man_blocks(rel, text)
        except Error as e:
            bad.append(str(e))
    return blocks, bad


# --- what each kind becomes --------------------------------------------------

def c_program(b):
    mk = b.marker
    body = []
    for t in b.lines:
        if t.strip() == '...':
            if 'elided' not in mk.sections:
                raise Error('%s: a "..." line needs an "elided:" section'
                            % b.where)
            body += mk.sections['elided']
        else:
            body.append(t)
    # #line keeps compiler messages pointing into the document.
    src = []
    if 'main' in mk.opts:
        src += ['#include <%s>' % h for h in C_INCLUDES]
        src += mk.sections.get('globals', [])
        src += ['int main(void)', '{']
        src += mk.sections.get('before', [])
        src += ['#line %d "%s"' % (b.line, b.path)] + body
        src += ['#line 1 "%s (after)"' % b.where]
        src += mk.sections.get('after', []) + ['\treturn 0;', '}']
    else:
        src += mk.sections.get('before', [])
        src += ['#line %d "%s"' % (b.line, b.path)] + body
        src += ['#line 1 "%s (after)"' % b.where]
        src += mk.sections.get('after', [])
    return '\n'.join(src) + '\n'


def c_decls(b):
    """A translation unit that fails unless each declaration matches."""
    src, text = [], ' '.join(t for t in b.lines if not t.startswith('#'))
    src += [t for t in b.lines if t.startswith('#')]
    if not any(t.startswith('#include') for t in src):
        src.append('#include <libmemfilter.h>')
    for d in text.split(';'):
        d = ' '.join(d.split())
        if not d:
            continue
        if re.search(r',\s*\.\.\.\s*\)', d):
            # "ssize_t mf_query(int fd, ...)": the function exists.
            name = re.search(r'(\w+)\s*\(', d).group(1)
            src.append('extern __typeof__(%s) %s;' % (name, name))
        else:
            src.append(d + ';')
    return '\n'.join(src) + '\n'


def struct_fields(text, name):
    m = re.search(r'struct\s+%s\s*\{(.*?)\}\s*;' % re.escape(name), text,
                  re.S)
    if not m:
        return None
    body = re.sub(r'/\*.*?\*/|//[^\n]*', '', m.group(1), flags=re.S)
    return [' '.join(f.split()) for f in body.split(';') if f.strip()]


def check_struct(b):
    hdr = b.marker.opts.get('header') or 'uapi/linux/memfilter.h'
    htext = open(os.path.join(TOP, hdr), encoding='utf-8').read()
    text = '\n'.join(b.lines)
    names = re.findall(r'struct\s+(\w+)\s*\{', text)
    if not names:
        return ['no struct definition in the block']
    bad = []
    for n in names:
        doc, real = struct_fields(text, n), struct_fields(htext, n)
        if real is None:
            bad.append('struct %s is not defined in %s' % (n, hdr))
        elif doc != real:
            bad.append('struct %s differs from %s:\n  doc:    %s\n  header: %s'
                       % (n, hdr, '; '.join(doc), '; '.join(real)))
    return bad


def c_literals(path):
    text = open(os.path.join(TOP, path), encoding='utf-8').read()
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    # Adjacent literals join, as the compiler joins them.
    text = re.sub(r'"\s*\n\s*"', '', text)
    out = []
    for s in re.findall(r'"((?:[^"\\\n]|\\.)*)"', text):
        s = s.replace('\\"', '"').replace('\\\\', '\\')
        out += s.split('\\n')
    return [s for s in out if s]


def check_output(b):
    lits = []
    for f in b.marker.opts['from'].split(','):
        if not os.path.exists(os.path.join(TOP, f)):
            return ['from=%s: no such file' % f]
        lits += c_literals(f)
    pats = [re.compile('^' + re.sub(r'%-?[0-9.]*(?:z|l|ll)?[sduxXp]', '.*',
                                    re.escape(s).replace('\\%', '%')) + '$')
            for s in lits if '%' in s]
    bad = []
    for t in b.lines:
        t = t.strip()
        if not t:
            continue
        if t in lits or any(p.match(t) for p in pats):
            continue
        if any(len(s) >= 8 and s in t for s in lits):
            continue
        bad.append('"%s" is not printed by %s' % (t, b.marker.opts['from']))
    return bad


def check_file(b):
    path = b.marker.opts['path']
    try:
        have = [t.rstrip() for t in open(os.path.join(TOP, path),
                                         encoding='utf-8')]
    except OSError:
        return ['path=%s: no such file' % path]
    return ['"%s" is not a line of %s' % (t, path) for t in b.lines
            if t.strip() and t.rstrip() not in have]


def check_host(b):
    f = b.marker.opts.get('covered-by')
    if f and not os.path.exists(os.path.join(TOP, f)):
        return ['covered-by=%s: no such file' % f]
    return []


# --- shell scripts for tests/docs_test.sh ------------------------------------

def loose(line, exact):
    """An awk ERE for one expected output line."""
    toks = line.split()
    out = []
    for tok in toks:
        parts = re.split(r'([0-9]+)', tok)
        p = ''
        for k, s in enumerate(parts):
            if k % 2 and not exact:
                p += '[0-9]+'
            else:
                p += re.sub(r'([][\\.^$*+?(){}|/])', r'\\\1', s)
        out.append(p)
    return '^[[:space:]]*' + '[[:space:]]+'.join(out) + '[[:space:]]*$'


def script_start(b, cleanup=''):
    """run.sh's first lines: where it comes from, its cleanup, its setup."""
    mk = b.marker
    s = ['# %s (%s), from scripts/doc-examples.py' % (b.where, mk.kind),
         'set -e']
    cleanup = '\n'.join(t for t in (cleanup, mk.text('cleanup')) if t)
    if cleanup:
        s += ['mf_cleanup() {', cleanup, '}']
    return s + [mk.text('setup')]


# A command that makes a filter whose hash seed is random unless given.
FILTER_BUILD = re.compile(r'\bmemfilterctl\b.*\b(create|build)\b')


def unseeded_builds(b):
    """The commands of shell example b (and its setup) that make a filter
    without --seed."""
    prompt = 'prompt' in b.marker.opts
    lines = b.marker.text('setup').split('\n') + \
        [t[2:] if prompt and t.startswith('# ') else t for t in b.lines]
    # Shell comments ("# or create + add") are no commands.
    text = '\n'.join(re.sub(r'(^|\s)#.*', '', t) for t in lines)
    cmds = re.split(r'&&|\|\||[|;\n]', text.replace('\\\n', ' '))
    return [c.strip() for c in cmds
            if FILTER_BUILD.search(c) and '--seed' not in c]


def shell_script(b, d):
    """run.sh (and exp.N) of a shell example, in directory d."""
    mk = b.marker
    unseeded = unseeded_builds(b) if 'exact' in mk.opts and \
        'any-seed' not in mk.opts else []
    if unseeded:
        raise Error('%s: its output is compared exactly ("exact") but "%s" '
                    'makes a filter without --seed, whose false positives '
                    'change from run to run: pin --seed, or mark it '
                    '"any-seed" if its output holds for every seed'
                    % (b.where, unseeded[0]))
    s = script_start(b)
    if 'prompt' not in mk.opts:
        s += ['{', '\n'.join(b.lines), '} >stdout 2>stderr']
    else:
        cmds = []
        for t in b.lines:
            if t.startswith('# '):
                cmds.append([t[2:], []])
            elif not cmds:
                raise Error('%s: a transcript starts with a "# " command'
                            % b.where)
            elif cmds[-1][0].endswith('\\') and not cmds[-1][1]:
                cmds[-1][0] += '\n' + t
            else:
                cmds[-1][1].append(t)
        for n, (c, outl) in enumerate(cmds, 1):
            s += ['{', c, '} >out.%d 2>&1 || { cat out.%d >&2; exit 1; }'
                  % (n, n)]
            if outl:
                with open(os.path.join(d, 'exp.%d' % n), 'w') as f:
                    for t in outl:
                        f.write(loose(t, 'exact' in mk.opts) + '\n')
                s += ['mf_expect "$EX/exp.%d" out.%d' % (n, n)]
    s += check_section(mk)
    return '\n'.join(s) + '\n'


def check_section(mk):
    # Traced: on failure the log shows which assertion failed.
    return ['set -x', mk.text('check')] if mk.sections.get('check') else []


def c_script(b):
    s = script_start(b) + ['"$EX/prog" >stdout 2>stderr'] + \
        check_section(b.marker)
    return '\n'.join(s) + '\n'


def bpf_script(b):
    s = script_start(b, 'rm -f /sys/fs/bpf/mf_docs_example') + \
        ['bpftool prog load "$EX/prog.bpf.o" /sys/fs/bpf/mf_docs_example']
    return '\n'.join(s) + '\n'


def compile_example(b, src, cmd):
    """Write the program of example b to src and compile it with cmd."""
    with open(src, 'w') as f:
        f.write(c_program(b))
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if r.returncode:
        raise Error('%s: does not compile (%s):\n%s'
                    % (b.where, ' '.join(cmd), r.stdout))


def compile_c(b, src_dir, cc, libs, out):
    src = os.path.join(src_dir, 'prog.c')
    compile_example(b, src, shlex.split(cc) + ['-o', out, src] +
                    shlex.split(libs or ''))


def compile_bpf(b, src_dir, bpf_cc, out):
    src = os.path.join(src_dir, 'prog.bpf.c')
    compile_example(b, src, shlex.split(bpf_cc) + ['-c', '-o', out, src])


# --- commands ----------------------------------------------------------------

def cmd_list(args):
    blocks, bad = all_blocks()
    for b in blocks:
        print('%-36s %s' % (b.where, b.marker.kind if b.marker else
                            'UNMARKED: ' + (b.lines[0] if b.lines else '')))
    for e in bad:
        print('error: ' + e)
    return 1 if bad or any(not b.marker for b in blocks) else 0


def cmd_check(args):
    """TAP: one test per block (and per file-level problem)."""
    blocks, bad = all_blocks()
    results = [(False, e, []) for e in bad]
    tmp = tempfile.mkdtemp(prefix='doc-examples.')
    try:
        for n, b in enumerate(blocks):
            mk = b.marker
            if not mk:
                results.append((False, '%s: no "example:" marker (first '
                                'line: %s); Documentation/testing.rst, '
                                '"Documentation examples", says how to mark '
                                'it' % (b.where, b.lines[0]), []))
                continue
            desc = '%s %s' % (b.where, mk.kind)
            errs = []
            try:
                if mk.kind in ('c', 'c-module'):
                    compile_c(b, tmp, args.cc, args.libs,
                              os.path.join(tmp, 'prog%d' % n))
                elif mk.kind == 'c-decl':
                    with open(os.path.join(tmp, 'decl.c'), 'w') as f:
                        f.write(c_decls(b))
                    cmd = shlex.split(args.cc) + ['-fsyntax-only',
                                                  os.path.join(tmp, 'decl.c')]
                    r = subprocess.run(cmd, stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT,
                                       universal_newlines=True)
                    if r.returncode:
                        errs.append('declarations do not match the header:'
                                    '\n' + r.stdout)
                elif mk.kind == 'c-struct':
                    errs += check_struct(b)
                elif mk.kind == 'output':
                    errs += check_output(b)
                elif mk.kind == 'file':
                    errs += check_file(b)
                elif mk.kind == 'host':
                    errs += check_host(b)
                elif mk.kind == 'bpf' and args.bpf_cc:
                    compile_bpf(b, tmp, args.bpf_cc,
                                os.path.join(tmp, 'prog%d.bpf.o' % n))
                elif mk.kind in ('sh', 'sh-module'):
                    d = os.path.join(tmp, 'sh%d' % n)
                    os.mkdir(d)
                    shell_script(b, d)
            except Error as e:
                errs.append(str(e))
            results.append((not errs, desc, errs))
    finally:
        shutil.rmtree(tmp)
    print('TAP version 13')
    print('1..%d' % len(results))
    for n, (ok, desc, errs) in enumerate(results, 1):
        for e in errs:
            for t in e.split('\n'):
                print('# ' + t)
        print('%s %d %s' % ('ok' if ok else 'not ok', n, desc))
    kinds = {}
    for b in blocks:
        k = b.marker.kind if b.marker else 'unmarked'
        kinds[k] = kinds.get(k, 0) + 1
    print('# %d blocks: %s' % (len(blocks), ', '.join(
        '%d %s' % (v, k) for k, v in sorted(kinds.items()))))
    return 0 if all(ok for ok, _, _ in results) else 1


def cmd_bundle(args):
    blocks, bad = all_blocks()
    if bad:
        for e in bad:
            print(e, file=sys.stderr)
        return 1
    if os.path.exists(args.out):
        shutil.rmtree(args.out)
    os.makedirs(args.out)
    n = 0
    for b in blocks:
        mk = b.marker
        if not mk or RUNS.get(mk.kind) != args.where:
            continue
        n += 1
        d = os.path.join(args.out, '%03d' % n)
        os.mkdir(d)
        try:
            if mk.kind in ('sh', 'sh-module'):
                script = shell_script(b, d)
            elif mk.kind in ('c', 'c-module'):
                compile_c(b, d, args.cc, args.libs, os.path.join(d, 'prog'))
                os.unlink(os.path.join(d, 'prog.c'))
                script = c_script(b)
            else:
                if not args.bpf_cc:
                    raise Error('%s: a BPF example and no --bpf-cc' % b.where)
                compile_bpf(b, d, args.bpf_cc, os.path.join(d, 'prog.bpf.o'))
                os.unlink(os.path.join(d, 'prog.bpf.c'))
                script = bpf_script(b)
        except Error as e:
            print(e, file=sys.stderr)
            return 1
        with open(os.path.join(d, 'run.sh'), 'w') as f:
            f.write(script)
        with open(os.path.join(d, 'info'), 'w') as f:
            f.write('%s %s\n' % (b.where, mk.kind))
            needs = mk.opts.get('needs', '').replace(',', ' ')
            if mk.kind == 'bpf':
                needs = ('bpf bpftool ' + needs).strip()
            f.write(needs + '\n')
            f.write(('netns' if 'netns' in mk.opts else '') + '\n')
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = p.add_subparsers(dest='cmd', required=True)
    sub.add_parser('list')
    c = sub.add_parser('check')
    c.add_argument('--cc', required=True)
    c.add_argument('--libs', default='')
    c.add_argument('--bpf-cc', default='')
    bd = sub.add_parser('bundle')
    bd.add_argument('--where', choices=('host', 'guest'), required=True)
    bd.add_argument('--out', required=True)
    bd.add_argument('--cc', required=True)
    bd.add_argument('--libs', default='')
    bd.add_argument('--bpf-cc', default='')
    args = p.parse_args()
    return {'list': cmd_list, 'check': cmd_check,
            'bundle': cmd_bundle}[args.cmd](args)


if __name__ == '__main__':
    sys.exit(main())
