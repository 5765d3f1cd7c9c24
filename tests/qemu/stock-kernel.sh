#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Find Debian's stock kernel for a series (6.1 or 6.12): the headers that
# scripts/deps.sh installed, and the matching unsigned image, downloaded
# once into the cache with the few modules the guests need (in kmods/,
# beside vmlinuz, for vm.sh --kmods; 6.12 also kmods-dm/). Prints
# "KDIR VMLINUZ".
#
# "686" is the 32-bit build target (make check's build matrix): the
# headers of Debian's 6.1 kernel for i386 (flavour 686-pae), the same
# release as the amd64 6.1 headers installed, downloaded once into the
# cache (an i386 package list is fetched for that; dpkg's architectures
# are left alone) and built with the amd64 kbuild and compiler those
# headers already use (both Multi-Arch: foreign). Prints "KDIR" only:
# nothing 32-bit is booted.

set -eu
. "$(dirname "$0")/../../scripts/common.sh"

case "${1:-}" in
6.12) meta=linux-headers-6.12-amd64 ;;
6.1|686) meta=linux-headers-amd64 ;;
*) die "usage: stock-kernel.sh 6.1|6.12|686" ;;
esac

if [ "$1" = 686 ]; then
	rel=$(headers_release $meta)
	[ -n "$rel" ] || die "$meta is not installed (scripts/deps.sh)"
	rel=${rel%-amd64}-686-pae
	dir=$CACHE/stock/$rel
	kdir=$dir/usr/src/linux-headers-$rel
	if [ ! -f "$dir/.done" ]; then
		pkg=linux-headers-$rel:i386
		i386="-o APT::Architectures=amd64,i386"
		rm -rf "$dir.tmp"
		mkdir -p "$dir.tmp"
		# shellcheck disable=SC2086 # the options are words
		(cd "$dir.tmp" && { apt-get $i386 download -qq "$pkg" 2>/dev/null ||
			{ apt-get $i386 update -qq &&
			  apt-get $i386 download -qq "$pkg"; }; }) >&2 ||
			die "cannot download $pkg"
		dpkg-deb -x "$dir.tmp"/*.deb "$dir.tmp"
		# Its scripts/ and tools/ are relative links into the kbuild
		# package: the installed (amd64) one of the same series.
		kb=$(readlink "$dir.tmp/usr/src/linux-headers-$rel/scripts")
		kb=${kb#../../lib/}
		kb=${kb%/scripts}
		[ -d "/usr/lib/$kb" ] || die "no /usr/lib/$kb (linux-kbuild)"
		mkdir -p "$dir.tmp/usr/lib"
		ln -s "/usr/lib/$kb" "$dir.tmp/usr/lib/$kb"
		rm -f "$dir.tmp"/*.deb
		touch "$dir.tmp/.done"
		rm -rf "$dir"
		mv "$dir.tmp" "$dir"
	fi
	[ -f "$kdir/Makefile" ] || die "no headers in $kdir"
	echo "$kdir"
	exit 0
fi

rel=$(headers_release $meta)
[ -n "$rel" ] || die "$meta is not installed (scripts/deps.sh)"
kdir=/usr/src/linux-headers-$rel
[ -f "$kdir/Makefile" ] || die "no headers in $kdir"

# Modules the guests load from the image package (the test kernel has them
# built in): loop and dm-mod for the dedup target, veth for the network
# tests, and dm-delay (not in the test kernels), which holds writes below
# the target for dm_test. Numbered in load order: dm-delay needs dm-mod.
kmods="drivers/block/loop drivers/md/dm-mod drivers/md/dm-delay drivers/net/veth"
# nf_tables for Debian's nft (make bench-nf), in kmods-nf/, in load order
# (6.12's nf_tables depends on nfnetlink and libcrc32c, whose softdep is
# crc32c; the set types and dynset are built into nf_tables), then ipset's
# hash:net and the legacy iptables raw table that matches it (make
# bench-nf-prefix: x_tables, ip_tables, iptable_raw, ip_set on nfnetlink,
# its hash:net type, xt_set): apart, because vm.sh loads kmods/ in name
# order, and no test needs them. kmods-nf/.done lists them: a change
# extracts them again.
nfkmods="crypto/crc32c_generic lib/libcrc32c net/netfilter/nfnetlink net/netfilter/nf_tables net/netfilter/x_tables net/ipv4/netfilter/ip_tables net/ipv4/netfilter/iptable_raw net/netfilter/ipset/ip_set net/netfilter/ipset/ip_set_hash_net net/netfilter/xt_set"
# The real clients' stack for the 6.12 guest's dm_fs_test and
# dm_discard_test, in kmods-dm/, in load order: ext4 (jbd2's and ext4's
# softdep is crc32c; AIO and io_uring are built in) and the scsi_debug
# disk (vm.sh gives it its parameters from the kernel command line) with
# the SCSI core and disk driver it needs.
dmkmods=
[ "$1" = 6.12 ] && dmkmods="crypto/crc32c_generic lib/crc16 fs/mbcache fs/jbd2/jbd2 fs/ext4/ext4 drivers/scsi/scsi_common drivers/scsi/scsi_mod drivers/scsi/sd_mod drivers/scsi/scsi_debug"

dir=$CACHE/stock/$rel
if [ ! -f "$dir/vmlinuz" ] || [ ! -f "$dir/kmods/.done" ] ||
	! ls "$dir"/kmods/*-dm-delay.ko >/dev/null 2>&1 ||
	[ "$(cat "$dir/kmods-nf/.done" 2>/dev/null)" != "$nfkmods" ] ||
	{ [ -n "$dmkmods" ] && [ ! -f "$dir/kmods-dm/.done" ]; }; then
	pkg=linux-image-$rel-unsigned
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	(cd "$dir.tmp" && { apt-get download -qq "$pkg" 2>/dev/null ||
		{ apt-get update -qq && apt-get download -qq "$pkg"; }; }) >&2 ||
		die "cannot download $pkg"
	# One pattern per module (tar fails on a pattern given twice).
	# shellcheck disable=SC2046
	dpkg-deb --fsys-tarfile "$dir.tmp"/*.deb |
		tar -xf - -C "$dir.tmp" --wildcards "./boot/vmlinuz-$rel" \
			$(for m in $kmods $nfkmods $dmkmods; do
				echo "./lib/modules/$rel/kernel/$m.ko*"; done | sort -u)
	mv "$dir.tmp/boot/vmlinuz-$rel" "$dir.tmp/vmlinuz"
	mkdir -p "$dir.tmp/kmods" "$dir.tmp/kmods-nf" "$dir.tmp/kmods-dm"
	# put SET NUMBER-WIDTH MODULE...: into SET/, numbered in load order
	# when NUMBER-WIDTH is not 0.
	put() {
		local set=$1 w=$2 n=0 m f to
		shift 2
		for m; do
			f=$(ls "$dir.tmp/lib/modules/$rel/kernel/$m".ko*) ||
				die "no $m module in the $pkg package"
			n=$((n + 1)) to=$set/${m##*/}.ko
			[ "$w" = 0 ] || to=$set/$(printf "%0${w}d" $n)-${m##*/}.ko
			case "$f" in
			*.xz) xz -dc "$f" ;;
			*.zst) zstd -dcq "$f" ;;
			*) cat "$f" ;;
			esac >"$dir.tmp/$to"
		done
	}
	# shellcheck disable=SC2086 # one word per module
	put kmods 1 $kmods && put kmods-nf 2 $nfkmods && put kmods-dm 2 $dmkmods
	touch "$dir.tmp/kmods/.done" "$dir.tmp/kmods-dm/.done"
	echo "$nfkmods" >"$dir.tmp/kmods-nf/.done"
	rm -rf "$dir.tmp/boot" "$dir.tmp/lib" "$dir.tmp"/*.deb
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
fi
echo "$kdir $dir/vmlinuz"
