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

. tests/tap.sh
tap_begin

rm -rf "$W"
mkdir -p "$W/tree"
# Exit status 0 and not a word on stderr (a file list gone stale once
# printed "tar: ...: Cannot stat" and still exited 0), and every source
# Kbuild names is in the copy.
dkms_src() {
	local o f n=0
	make -s dkms-src DESTDIR="$W/root" 2>"$W/dkms-src.err" &&
		[ ! -s "$W/dkms-src.err" ] || { cat "$W/dkms-src.err"; return 1; }
	for o in $(sed 's/#.*//' Kbuild | grep -Eo '\b[a-z]+(/[a-z]+)?/[a-z0-9_]+\.o\b'); do
		f=$W/root/usr/src/memfilter-$V/${o%.o}.c
		[ -f "$f" ] || { echo "$f missing"; return 1; }
		n=$((n + 1))
	done
	[ "$n" -gt 10 ] || { echo "only $n objects in Kbuild?"; return 1; }
}
ok "make dkms-src DESTDIR=...: no error output, every Kbuild source" dkms_src

# sign_file pointing nowhere: DKMS then neither signs nor creates
# /var/lib/dkms/mok.key on this machine.
dkms_build() {
	sign_file=/nonexistent dkms build -m memfilter -v "$V" -k "$krel" \
		--dkmstree "$W/tree" --sourcetree "$W/root/usr/src" \
		--kernelsourcedir "$kdir"
}
ok "dkms build memfilter/$V for $krel" dkms_build

# dkms.conf's BUILD_EXCLUSIVE_*: a kernel before 6.1, or one without
# netfilter, is skipped (exit 77), not a failed build.
excluded() {
	local rc fake=$W/fake-kdir
	sign_file=/nonexistent dkms build -m memfilter -v "$V" \
		-k 5.10.0-30-amd64 --dkmstree "$W/tree" \
		--sourcetree "$W/root/usr/src" --kernelsourcedir "$kdir" \
		>"$W/old.log" 2>&1
	rc=$?
	[ "$rc" = 77 ] || { echo "5.10: exit $rc, want 77"; cat "$W/old.log"; return 1; }
	mkdir -p "$fake" && grep -v '^CONFIG_NETFILTER=' "$kdir/.config" \
		>"$fake/.config" &&
	sign_file=/nonexistent dkms build -m memfilter -v "$V" \
		-k 6.12.0-no-netfilter --dkmstree "$W/tree" \
		--sourcetree "$W/root/usr/src" --kernelsourcedir "$fake" \
		>"$W/nonf.log" 2>&1
	rc=$?
	[ "$rc" = 77 ] || { echo "no netfilter: exit $rc, want 77"; cat "$W/nonf.log"; return 1; }
	bash -c '. "$1" && [[ 6.1.0-57-amd64 =~ $BUILD_EXCLUSIVE_KERNEL &&
		6.12.118+deb12-amd64 =~ $BUILD_EXCLUSIVE_KERNEL &&
		7.0.0 =~ $BUILD_EXCLUSIVE_KERNEL &&
		10.2.1 =~ $BUILD_EXCLUSIVE_KERNEL &&
		! 6.0.19 =~ $BUILD_EXCLUSIVE_KERNEL &&
		! 5.19.0 =~ $BUILD_EXCLUSIVE_KERNEL ]]' _ dkms.conf
}
ok "dkms.conf: kernels before 6.1 and without CONFIG_NETFILTER are skipped" \
	excluded

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
