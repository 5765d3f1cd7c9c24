#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install every Debian package that memfilter's build, tests, demo and
# benchmarks need. Idempotent: does nothing when all are present.

set -eu

PKGS="build-essential bc bison flex libelf-dev libssl-dev dwarves kmod cpio \
busybox-static qemu-system-x86 python3 sparse perl git xz-utils zstd \
linux-source-6.12 linux-headers-6.12-amd64 linux-headers-amd64 \
libxxhash-dev libbloom-dev librocksdb-dev g++ clang llvm libclang-rt-14-dev \
dkms python3-sphinx bash-completion man-db pkg-config valgrind \
libbpf-dev bpftool zlib1g-dev libzstd-dev clang-16 iproute2 dmsetup \
util-linux ccache nftables patch e2fsprogs fio xfsprogs rsync \
tcpreplay xdp-tools iperf3 python3-scapy ipset iptables \
dpkg-dev debhelper dh-dkms lintian fakeroot systemd"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
	     grep -q '^install ok installed$'; then
		missing="$missing $p"
	fi
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps.sh: missing packages:$missing (run as root)" >&2
	exit 1
fi

echo "deps.sh: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
