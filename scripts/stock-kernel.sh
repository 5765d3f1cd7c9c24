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
# nf_tables for Debian's nft (make bench-nf), in kmods-nf/, in load order
# (6.12's nf_tables depends on nfnetlink and libcrc32c, whose softdep is
# crc32c; the set types and dynset are built into nf_tables): apart,
# because vm.sh loads kmods/ in name order, and no test needs them.
nfkmods="crypto/crc32c_generic lib/libcrc32c net/netfilter/nfnetlink net/netfilter/nf_tables"

dir=$CACHE/stock/$rel
if [ ! -f "$dir/vmlinuz" ] || [ ! -f "$dir/kmods/.done" ] ||
	[ ! -f "$dir/kmods-nf/.done" ]; then
	pkg=linux-image-$rel-unsigned
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	(cd "$dir.tmp" && { apt-get download -qq "$pkg" 2>/dev/null ||
		{ apt-get update -qq && apt-get download -qq "$pkg"; }; }) >&2 ||
		die "cannot download $pkg"
	# shellcheck disable=SC2046 # one pattern per module
	dpkg-deb --fsys-tarfile "$dir.tmp"/*.deb |
		tar -xf - -C "$dir.tmp" --wildcards "./boot/vmlinuz-$rel" \
			$(for m in $kmods $nfkmods; do
				echo "./lib/modules/$rel/kernel/$m.ko*"; done)
	mv "$dir.tmp/boot/vmlinuz-$rel" "$dir.tmp/vmlinuz"
	mkdir -p "$dir.tmp/kmods" "$dir.tmp/kmods-nf"
	n=0
	for m in $kmods $nfkmods; do
		f=$(ls "$dir.tmp/lib/modules/$rel/kernel/$m".ko*) ||
			die "no $m module in the $pkg package"
		case " $nfkmods " in
		*" $m "*) n=$((n + 1)) to=kmods-nf/$n-${m##*/}.ko ;;
		*) to=kmods/${m##*/}.ko ;;
		esac
		case "$f" in
		*.xz) xz -dc "$f" ;;
		*.zst) zstd -dcq "$f" ;;
		*) cat "$f" ;;
		esac >"$dir.tmp/$to"
	done
	touch "$dir.tmp/kmods/.done" "$dir.tmp/kmods-nf/.done"
	rm -rf "$dir.tmp/boot" "$dir.tmp/lib" "$dir.tmp"/*.deb
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
fi
echo "$kdir $dir/vmlinuz"
