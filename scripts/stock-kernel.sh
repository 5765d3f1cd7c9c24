#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Find Debian's stock kernel for a series (6.1 or 6.12): the headers that
# scripts/deps.sh installed, and the matching unsigned image, downloaded
# once into the cache. Prints "KDIR VMLINUZ".

set -eu
. "$(dirname "$0")/common.sh"

case "${1:-}" in
6.12) meta=linux-headers-6.12-amd64 ;;
6.1) meta=linux-headers-amd64 ;;
*) die "usage: stock-kernel.sh 6.1|6.12" ;;
esac

rel=$(headers_release $meta)
[ -n "$rel" ] || die "$meta is not installed (scripts/deps.sh)"
kdir=/usr/src/linux-headers-$rel
[ -f "$kdir/Makefile" ] || die "no headers in $kdir"

dir=$CACHE/stock/$rel
if [ ! -f "$dir/vmlinuz" ]; then
	pkg=linux-image-$rel-unsigned
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	(cd "$dir.tmp" && { apt-get download -qq "$pkg" 2>/dev/null ||
		{ apt-get update -qq && apt-get download -qq "$pkg"; }; }) >&2 ||
		die "cannot download $pkg"
	dpkg-deb --fsys-tarfile "$dir.tmp"/*.deb |
		tar -xf - -C "$dir.tmp" "./boot/vmlinuz-$rel"
	mv "$dir.tmp/boot/vmlinuz-$rel" "$dir.tmp/vmlinuz"
	rm -rf "$dir.tmp/boot" "$dir.tmp"/*.deb
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
fi
echo "$kdir $dir/vmlinuz"
