#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Print a directory holding the kernel's kernel-doc tools, from Debian's
# linux-source-6.12, extracted once into the cache: scripts/kernel-doc and
# the Sphinx extension Documentation/sphinx/kerneldoc.py (with its
# kernellog.py). Documentation/conf.py uses them for '.. kernel-doc::'.

set -eu
. "$(dirname "$0")/common.sh"

linux_source_files kerneldoc 1 scripts/kernel-doc \
	scripts/kernel-doc \
	Documentation/sphinx/kerneldoc.py \
	Documentation/sphinx/kernellog.py
