#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages test (make check's packaging stage), on this host,
# as root, without ever loading a module:
#
#  - debian/changelog's version is VERSION's, and debian/rules refuses to
#    build when they disagree
#  - dpkg-buildpackage -us -uc -b from a fresh copy of the sources builds
#    memfilter-dkms, memfilterctl, libmemfilter1 and libmemfilter-dev,
#    and lintian reports no error and no warning
#  - no file of the packages is on the host before (no clash with make
#    install, which the other tests run with DESTDIR only), and this
#    host's DKMS is not set to modprobe after installing
#  - apt-get installs them: DKMS builds memfilter.ko for the installed
#    6.12 and 6.1 headers (not for the running kernel, which has none),
#    the group memfilter exists, memfilter-images.service is neither
#    enabled nor started, the installed memfilterctl runs the README's
#    offline example and the installed library builds a program; no
#    module is loaded (/proc/modules as before)
#  - the DKMS-built module for 6.12 is kept in WORKDIR/dkms-ko for the
#    stock 6.12 guest (tests/qemu/variants.sh runs cli_test with it)
#  - apt-get purge leaves nothing the packages installed: every path
#    dpkg -L listed that was not there before, /var/lib/dkms/memfilter,
#    /usr/src/memfilter-*, /lib/modules/*/updates as before; the group
#    memfilter, which Debian never removes, is removed by this test if
#    it made it
#
# DKMS runs with sign_file=/nonexistent: it neither signs nor creates
# /var/lib/dkms/mok.key on this host (as scripts/dkms-test.sh). Prints
# TAP.
#   deb-test.sh [WORKDIR]   (default: build/deb-test)

set -u
cd "$(dirname "$0")/.." || exit 1
TOP=$PWD
W=$(mkdir -p "${1:-build/deb-test}" && cd "${1:-build/deb-test}" && pwd)
V=$(cat VERSION)
ARCH=$(dpkg --print-architecture)
PKGS="memfilter-dkms memfilterctl libmemfilter1 libmemfilter-dev"
DEBS="memfilter-dkms_${V}_all.deb memfilterctl_${V}_$ARCH.deb"
DEBS="$DEBS libmemfilter1_${V}_$ARCH.deb libmemfilter-dev_${V}_$ARCH.deb"
. scripts/common.sh
K612=$(headers_release linux-headers-6.12-amd64)
K61=$(headers_release linux-headers-amd64)
# A user's build: no -Werror from make check.
unset WERROR MEMFILTER_WERROR
export DEBIAN_FRONTEND=noninteractive sign_file=/nonexistent
APT=(apt-get -y -q -o DPkg::Lock::Timeout=300)

. tests/tap.sh
tap_begin
# Each test's seconds since the start, as a TAP comment.
t0=$SECONDS
timed_ok() {
	ok "$@"
	echo "# $((SECONDS - t0)) s"
}
# The same in this shell, for a test that waits on a job started here
# (ok runs its test in a subshell, where wait knows no such child).
timed_step() {
	step "$@"
	echo "# $((SECONDS - t0)) s"
}

rm -rf "$W"
mkdir -p "$W"
SRC=$W/src/memfilter-$V

# One version: debian/changelog's is VERSION's, and debian/rules stops a
# build whose changelog is another version's.
one_version() {
	local cv d=$W/vcheck
	cv=$(dpkg-parsechangelog -l debian/changelog -SVersion) || return 1
	[ "$cv" = "$V" ] || { echo "debian/changelog: $cv, VERSION: $V"; return 1; }
	mkdir -p "$d" && cp -r debian "$d/" && echo 0.0.1 >"$d/VERSION" &&
	if (cd "$d" && debian/rules override_dh_auto_configure) >"$d/out" 2>&1; then
		echo "debian/rules accepted VERSION 0.0.1 against changelog $cv"
		return 1
	fi
	grep -q "add a debian/changelog entry for 0.0.1" "$d/out" ||
		{ cat "$d/out"; return 1; }
}
timed_ok "debian/changelog is version $V, and debian/rules checks it" one_version

build() {
	mkdir -p "$SRC" &&
	git ls-files -co --exclude-standard -z |
		xargs -0 tar -cf - 2>/dev/null | tar -xf - -C "$SRC" &&
	(cd "$SRC" && dpkg-buildpackage -us -uc -b -j"${JOBS:-3}") \
		>"$W/build.log" 2>&1 || { tail -n 40 "$W/build.log"; return 1; }
	local d
	for d in $DEBS; do
		[ -f "$W/src/$d" ] || { echo "no $d"; ls "$W/src"; return 1; }
	done
}
timed_ok "dpkg-buildpackage -us -uc -b: $PKGS" build

# lintian takes a CPU for a minute: it runs while DKMS builds.
lintian --fail-on error,warning "$W/src/memfilter_${V}_$ARCH.changes" \
	>"$W/lintian.log" 2>&1 &
lintian_pid=$!

# Paths the packages would install: files and symlinks, not directories.
deb_files() {
	local d
	for d in $DEBS; do
		dpkg-deb -c "$W/src/$d" | awk '$1 !~ /^d/ { sub(/ -> .*/, ""); print $NF }'
	done | sed 's|^\./|/|' | sort -u
}
# Those paths and every directory above them.
with_parents() {
	awk '{ p = $0; print p; while (sub(/\/[^\/]*$/, "", p) && p != "") print p }' |
		sort -u
}
lsmod_names() { cut -d' ' -f1 /proc/modules | sort; }
updates_tree() { find /lib/modules/*/updates 2>/dev/null | sort; }
clean_host() {
	local p f clash=0
	for p in $PKGS; do
		if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q .; then
			echo "$p is known to dpkg before the test: purging it"
			dpkg --purge $PKGS >>"$W/apt.log" 2>&1
			break
		fi
	done
	deb_files >"$W/deb.files" || return 1
	while read -r f; do
		[ -e "$f" ] || [ -L "$f" ] || continue
		echo "$f exists before installing (make install into /?)"
		clash=1
	done <"$W/deb.files"
	[ ! -e /var/lib/dkms/memfilter ] && ! ls -d /usr/src/memfilter-* 2>/dev/null ||
		{ echo "DKMS already holds memfilter"; clash=1; }
	if grep -hsE '^[[:space:]]*modprobe_on_install=' \
		/etc/dkms/framework.conf /etc/dkms/framework.conf.d/*.conf; then
		echo "this host's DKMS would modprobe after installing: not installing"
		clash=1
	fi
	lsmod_names >"$W/lsmod.before" && updates_tree >"$W/updates.before" &&
	with_parents <"$W/deb.files" | while read -r f; do
		[ ! -e "$f" ] || echo "$f"
	done >"$W/paths.before"
	getent group memfilter >/dev/null && touch "$W/group.before"
	[ $clash = 1 ] || touch "$W/host.clean"
	return $clash
}
timed_ok "no file of the packages on the host before, DKMS does not modprobe" \
	clean_host

install() {
	local d args=()
	[ -e "$W/host.clean" ] || { echo "not installing on this host (above)"; return 1; }
	for d in $DEBS; do
		args+=("$W/src/$d")
	done
	# PATH keeps ccache (make check) for DKMS's builds too.
	"${APT[@]}" install --no-install-recommends "${args[@]}" \
		>"$W/install.log" 2>&1 || { tail -n 40 "$W/install.log"; return 1; }
	for d in $PKGS; do
		dpkg-query -W -f='${Status}\n' "$d" | grep -qx 'install ok installed' ||
			{ echo "$d not installed"; return 1; }
	done
}
timed_ok "apt-get install ./${DEBS// / ./}" install

dkms_ko() { ls /lib/modules/"$1"/updates/dkms/memfilter.ko* 2>/dev/null | head -n 1; }
dkms_built() {
	local k ko info
	for k in "$K612" "$K61"; do
		dkms status -m memfilter -v "$V" -k "$k" | grep -q ': installed' ||
			{ dkms status; echo "not installed for $k"; return 1; }
		ko=$(dkms_ko "$k")
		[ -n "$ko" ] || { echo "no memfilter.ko in /lib/modules/$k"; return 1; }
		info=$(modinfo "$ko") || return 1
		echo "$info" | grep -qx "version: *$V" &&
			echo "$info" | grep -q "^vermagic: *$k " ||
			{ echo "$info"; return 1; }
	done
	[ ! -e "/lib/modules/$(uname -r)" ] ||
		[ -z "$(find "/lib/modules/$(uname -r)" -name 'memfilter.ko*')" ] ||
		{ echo "DKMS built for the running kernel $(uname -r)"; return 1; }
}
timed_ok "DKMS built memfilter.ko for $K612 and $K61, not for $(uname -r)" dkms_built

# The 6.12 module for the stock 6.12 guest (tests/qemu/variants.sh).
keep_ko() {
	local ko
	ko=$(dkms_ko "$K612")
	mkdir -p "$W/dkms-ko" &&
	case $ko in
	*.xz) xz -dc "$ko" ;;
	*.zst) zstd -dcq "$ko" ;;
	*) cat "$ko" ;;
	esac >"$W/dkms-ko/memfilter.ko" &&
	modinfo -F vermagic "$W/dkms-ko/memfilter.ko" | grep -q "^$K612 "
}
timed_ok "the DKMS-built module for $K612 kept for the guest" keep_ko

not_loaded() {
	lsmod_names | diff "$W/lsmod.before" - &&
	[ ! -e /sys/module/memfilter ]
}
timed_ok "installing loaded no module (/proc/modules unchanged)" not_loaded

installed_files() {
	getent group memfilter >/dev/null ||
		{ echo "no group memfilter (sysusers.d)"; return 1; }
	[ -f /lib/udev/rules.d/70-memfilter.rules ] &&
	[ -f /lib/systemd/system/memfilter-images.service ] &&
	[ -x /usr/libexec/memfilter-images ] || return 1
	! ls /etc/systemd/system/*/memfilter-images.service 2>/dev/null ||
		{ echo "memfilter-images.service enabled"; return 1; }
	[ "$(pkg-config --modversion libmemfilter)" = "$V" ] &&
	[ "$(/usr/bin/memfilterctl --version | head -n 1)" != "" ]
}
timed_ok "group memfilter, udev rule, images unit installed and not enabled" \
	installed_files

# The README's offline example with /usr/bin/memfilterctl: no false
# negative; the count is the keys that query lists, about 1%.
readme_example() {
	local d=$W/readme n
	mkdir -p "$d" && cd "$d" || return 1
	seq 1000000 | /usr/bin/memfilterctl build --type bloom \
		--capacity 1000000 --fpr 0.01 -o seen.img &&
	seq 999998 1000002 | /usr/bin/memfilterctl query --image seen.img >q.out &&
	printf '%s\n' 999998 999999 1000000 | diff - <(grep -vx '100000[12]' q.out) &&
	n=$(seq 1000001 2000000 | /usr/bin/memfilterctl query --image seen.img --count) &&
	[ "$n" = "$(seq 1000001 2000000 | /usr/bin/memfilterctl query --image seen.img | wc -l)" ] &&
	[ "$n" -gt 8000 ] && [ "$n" -lt 12000 ] ||
		{ echo "count: ${n:-?}"; return 1; }
	echo "$n of 1000000 absent keys may be present"
}
timed_ok "the installed memfilterctl runs the README's offline example" readme_example

dev_package() {
	local lib
	gcc -Wall -Wextra -Werror -o "$W/lib_example" "$TOP/examples/lib_example.c" \
		$(pkg-config --cflags --libs libmemfilter) || return 1
	lib=$(ldd "$W/lib_example" | awk '$1 == "libmemfilter.so.1" { print $3 }')
	[ "$(readlink -f "$lib")" = "/usr/lib/$(gcc -print-multiarch)/libmemfilter.so.$V" ] ||
		{ ldd "$W/lib_example"; return 1; }
	"$W/lib_example" apple banana cherry >"$W/ex.out" &&
	grep -qx "libmemfilter $V (built with $V)" "$W/ex.out" ||
		{ cat "$W/ex.out"; return 1; }
}
timed_ok "examples/lib_example.c builds against libmemfilter-dev and runs" dev_package

lintian_clean() {
	wait "$lintian_pid"
	local rc=$?
	cat "$W/lintian.log"
	return $rc
}
timed_step "lintian: no error, no warning" lintian_clean

# Purged whatever happened before, so that a failed run leaves the host
# as it was.
purge() {
	local rc=0
	dpkg -L $PKGS 2>/dev/null | sort -u >"$W/dpkg.files"
	[ -s "$W/dpkg.files" ] || { echo "dpkg -L listed nothing"; rc=1; }
	"${APT[@]}" purge $PKGS >"$W/purge.log" 2>&1 ||
		{ tail -n 40 "$W/purge.log"; dpkg --purge --force-all $PKGS; rc=1; }
	[ -e "$W/group.before" ] || ! getent group memfilter >/dev/null ||
		groupdel memfilter
	return $rc
}
timed_ok "apt-get purge $PKGS" purge

nothing_left() {
	local f left=0
	while read -r f; do
		[ "$f" != /. ] || continue
		[ -e "$f" ] || [ -L "$f" ] || continue
		grep -qxF "$f" "$W/paths.before" && continue
		echo "left: $f"
		left=1
	done <"$W/dpkg.files"
	for f in /var/lib/dkms/memfilter /usr/src/memfilter-"$V" /var/lib/memfilter \
		/etc/systemd/system/multi-user.target.wants/memfilter-images.service; do
		[ ! -e "$f" ] || { echo "left: $f"; left=1; }
	done
	ls /var/lib/systemd/deb-systemd-helper-*/*memfilter* 2>/dev/null && left=1
	updates_tree | diff "$W/updates.before" - || left=1
	lsmod_names | diff "$W/lsmod.before" - || left=1
	for f in $PKGS; do
		! dpkg-query -W "$f" >/dev/null 2>&1 || { echo "dpkg still knows $f"; left=1; }
	done
	return $left
}
timed_ok "nothing the packages installed is left" nothing_left

tap_end
