#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build the module out of tree against KDIR in a fresh private copy of the
# sources under OUTDIR, so builds for several kernels never share objects.
#   build-module.sh KDIR OUTDIR [extra make arguments, e.g. C=2]

set -eu
. "$(dirname "$0")/common.sh"

kdir=$1
mkdir -p "$2"
outdir=$(cd "$2" && pwd)
shift 2
[ -f "$kdir/Makefile" ] || die "no kernel build tree at $kdir"
rm -rf "$outdir"
mkdir -p "$outdir"
cp -r "$TOP/Kbuild" "$TOP/VERSION" "$TOP/module" "$TOP/core" "$TOP/kunit" "$TOP/include" "$TOP/uapi" "$outdir/"
mkdir -p "$outdir/bench"
cp -r "$TOP/bench/kunit" "$outdir/bench/"
make -C "$kdir" M="$outdir" "$@" modules
