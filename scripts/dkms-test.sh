#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The DKMS test (make check): `make dkms-src` into a private /usr/src, then
# `dkms build` against KDIR with a private DKMS tree, exactly as DKMS
# rebuilds the module for a newly installed kernel: no MEMFILTER_WERROR,
# no signing key made or used. Build only: nothing is installed or loaded.
# Prints TAP.
#   dkms-test.sh KDIR [WORKDIR]   (default: build/dkms-test)

set -u
cd "$(dirname "$0")/.." || exit 1
kdir=$1
W=$(mkdir -p "${2:-build/dkms-test}" && cd "${2:-build/dkms-test}" && pwd)
V=$(cat VERSION)
krel=$(cat "$kdir/include/config/kernel.release") || exit 1
unset MEMFILTER_WERROR WERROR

. scripts/tap.sh

rm -rf "$W"
mkdir -p "$W/tree"
ok "make dkms-src DESTDIR=..." make -s dkms-src DESTDIR="$W/root"

# sign_file pointing nowhere: DKMS then neither signs nor creates
# /var/lib/dkms/mok.key on this machine.
dkms_build() {
	sign_file=/nonexistent dkms build -m memfilter -v "$V" -k "$krel" \
		--dkmstree "$W/tree" --sourcetree "$W/root/usr/src" \
		--kernelsourcedir "$kdir"
}
ok "dkms build memfilter/$V for $krel" dkms_build

ko=$(find "$W/tree/memfilter/$V/$krel" -name 'memfilter.ko*' | head -n 1)
built() {
	local log=$W/tree/memfilter/$V/$krel/x86_64/log/make.log info
	[ -n "$ko" ] || { echo "no memfilter.ko in the DKMS tree"; return 1; }
	info=$(modinfo "$ko") || return 1
	echo "$info" | grep -qx "version: *$V" &&
	echo "$info" | grep -q "^vermagic: *$krel " &&
	echo "$info" | grep -qx 'alias: *devname:memfilter' &&
	echo "$info" | grep -qx 'alias: *char-major-10-[0-9]*' ||
		{ echo "$info"; return 1; }
	! grep -E 'warning:|error:' "$log"
}
ok "the DKMS module: version $V, vermagic, devname alias, no warnings" built

tap_end
