#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Find Debian's stock kernel for a series (6.1 or 6.12): the headers that
# scripts/deps.sh installed, and the matching unsigned image, downloaded
# once into the cache with the few modules the guests need (in kmods/,
# beside vmlinuz, for vm.sh --kmods). Prints "KDIR VMLINUZ".

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

# Modules the guests load from the image package (the test kernel has them
# built in): loop and dm-mod for the dedup target, veth for the network
# tests. None of them depends on another module.
kmods="drivers/block/loop drivers/md/dm-mod drivers/net/veth"

dir=$CACHE/stock/$rel
if [ ! -f "$dir/vmlinuz" ] || [ ! -f "$dir/kmods/.done" ]; then
	pkg=linux-image-$rel-unsigned
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	(cd "$dir.tmp" && { apt-get download -qq "$pkg" 2>/dev/null ||
		{ apt-get update -qq && apt-get download -qq "$pkg"; }; }) >&2 ||
		die "cannot download $pkg"
	# shellcheck disable=SC2046 # one pattern per module
	dpkg-deb --fsys-tarfile "$dir.tmp"/*.deb |
		tar -xf - -C "$dir.tmp" --wildcards "./boot/vmlinuz-$rel" \
			$(for m in $kmods; do
				echo "./lib/modules/$rel/kernel/$m.ko*"; done)
	mv "$dir.tmp/boot/vmlinuz-$rel" "$dir.tmp/vmlinuz"
	mkdir -p "$dir.tmp/kmods"
	for m in $kmods; do
		f=$(ls "$dir.tmp/lib/modules/$rel/kernel/$m".ko*) ||
			die "no $m module in the $pkg package"
		case "$f" in
		*.xz) xz -dc "$f" ;;
		*.zst) zstd -dcq "$f" ;;
		*) cat "$f" ;;
		esac >"$dir.tmp/kmods/${m##*/}.ko"
	done
	touch "$dir.tmp/kmods/.done"
	rm -rf "$dir.tmp/boot" "$dir.tmp/lib" "$dir.tmp"/*.deb
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
fi
echo "$kdir $dir/vmlinuz"
