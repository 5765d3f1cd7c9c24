# SPDX-License-Identifier: GPL-2.0
#
# Sphinx configuration for memfilter's documentation (make htmldocs, which
# make check runs with -W). The '.. kernel-doc::' directive is the kernel's
# own: Documentation/sphinx/kerneldoc.py and scripts/kernel-doc from
# Debian's linux-source-6.12 (scripts/kerneldoc-tools.sh extracts them once
# into the cache; MEMFILTER_KERNELDOC names another directory with both).

import os
import subprocess
import sys

top = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))
kdoc = os.environ.get('MEMFILTER_KERNELDOC') or subprocess.run(
    [os.path.join(top, 'scripts', 'kerneldoc-tools.sh')], check=True,
    stdout=subprocess.PIPE, text=True).stdout.strip()
sys.path.insert(0, os.path.join(kdoc, 'Documentation', 'sphinx'))

project = 'memfilter'
copyright = '2026, The memfilter authors'
with open(os.path.join(top, 'VERSION')) as f:
    release = version = f.read().strip()

extensions = ['kerneldoc']
kerneldoc_bin = os.path.join(kdoc, 'scripts', 'kernel-doc')
kerneldoc_srctree = top
# A kernel-doc warning in a comment fails the build (-W) like any other.
kerneldoc_verbosity = 1

master_doc = 'index'
primary_domain = 'c'
highlight_language = 'none'
exclude_patterns = ['_build']

# The kernel's attributes that Sphinx's C parser does not know
# (from the kernel's own Documentation/conf.py).
c_id_attributes = ['__aligned', '__packed', '__user', '__rcu', '__must_check']

html_theme = 'alabaster'
html_title = 'memfilter ' + release
