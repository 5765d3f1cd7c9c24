# SPDX-License-Identifier: GPL-2.0
#
# Sphinx configuration for memfilter's documentation (make htmldocs, which
# make check runs with -W). The '.. kernel-doc::' directive is the kernel's
# own, vendored from Linux 6.12 so that no kernel source is needed:
# scripts/sphinx/kerneldoc.py (with kernellog.py) runs scripts/kernel-doc.

import os
import sys

top = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))
sys.path.insert(0, os.path.join(top, 'scripts', 'sphinx'))

project = 'memfilter'
copyright = '2026, The memfilter authors'
with open(os.path.join(top, 'VERSION')) as f:
    release = version = f.read().strip()

extensions = ['kerneldoc']
# Through kernel-doc-names.py: a struct named like a function (mf_info)
# goes into the C namespace 'struct_', where Sphinx lets it be.
kerneldoc_bin = os.path.join(top, 'scripts', 'sphinx', 'kernel-doc-names.py')
kerneldoc_srctree = top
# A kernel-doc warning in a comment fails the build (-W) like any other.
kerneldoc_verbosity = 1

master_doc = 'index'
primary_domain = 'c'
highlight_language = 'none'
exclude_patterns = ['_build']

# The kernel's attributes that Sphinx's C parser does not know
# (from the kernel's own Documentation/conf.py).
c_id_attributes = ['__aligned', '__packed', '__user', '__rcu', '__must_check',
                   'LIBMEMFILTER_API']

html_theme = 'alabaster'
html_title = 'memfilter ' + release
