#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The install test (make check): what a new user does on a host, without
# ever loading the module. From a fresh copy of the sources:
#
#  - plain `make` (the user's CFLAGS/LDFLAGS, no -Werror) builds
#    libmemfilter and memfilterctl; `make install DESTDIR=... PREFIX=/usr`
#    installs every file with its mode, in Debian's multiarch libdir
#  - pkg-config --cflags --libs works against the installed tree, and
#    examples/lib_example.c compiles, links and runs against the installed
#    library (and nothing else); so does the installed memfilterctl
#  - the man pages render without warnings and cover every command and
#    long option of memfilterctl; the bash completion completes them
#  - memfilter-images (the boot/shutdown unit's helper) restores and saves
#    images as documented, and memfilter-refresh (the refresh timer's)
#    builds aside and replaces in one step, against a recording
#    memfilterctl
#  - one version everywhere: VERSION, dkms.conf, man pages, library
#  - every node of the version script documented; functions that changed
#    keep their old symbol versions, which keep their old rules
#  - the headers go to PREFIX/include/memfilter (the .pc file's -I), the
#    installed memfilterctl has no RUNPATH, the in-tree one runs as built
#  - make uninstall removes every file; PREFIX=/usr/local uses /etc for udev
#    and systemd
#  - make dkms-src fails on a file Kbuild builds that is missing; make
#    clean removes kbuild's outputs without a kernel tree
#
# Prints TAP; exits non-zero when any check fails.
#  - with KDIR: `make KDIR=...` also builds memfilter.ko, and
#    `make modules_install DESTDIR=...` installs it with its modules-load.d
#    file (which `make install` does not install)
#
#   install-test.sh [WORKDIR [KDIR]]   (default: build/install-test)

set -u
cd "$(dirname "$0")/.."
TOP=$PWD
W=$(mkdir -p "${1:-build/install-test}" && cd "${1:-build/install-test}" && pwd)
KDIR=${2:-}
# The installed tree is what the user gets: no -Werror from make check.
unset WERROR MEMFILTER_WERROR

. tests/tap.sh
tap_begin

MA=$(gcc -print-multiarch)
# The library's public header; <memfilter.h> is its 1.0.0 name (through 1.x).
HDR=libmemfilter.h
R=$W/root
U=$R/usr
# The library's headers, <linux/memfilter.h> among them.
INC=$U/include/memfilter
LIBDIR=$U/lib/$MA
SRC=$W/src
LOG=$W/build.log


# A fresh copy: the tracked and new files, no build products.
fresh_build() {
	rm -rf "$W/src" "$R" "$W/local"
	mkdir -p "$SRC"
	git ls-files -co --exclude-standard -z |
		xargs -0 tar -cf - 2>/dev/null | tar -xf - -C "$SRC" &&
	(cd "$SRC" && find . -type f | sort) >"$W/src.list" &&
	make -C "$SRC" KDIR="$W/no-kernel" \
		CFLAGS="-O2 -g -DMF_INSTALL_TEST_CFLAGS" \
		LDFLAGS="-Wl,-z,now" >"$LOG" 2>&1 || { cat "$LOG"; return 1; }
	make -C "$SRC" install DESTDIR="$R" PREFIX=/usr >>"$LOG" 2>&1 ||
		{ cat "$LOG"; return 1; }
}
ok "make && make install DESTDIR=... PREFIX=/usr from a fresh copy" fresh_build

user_flags() {
	# Every compile of what is installed carries the user's CFLAGS, the
	# library its LDFLAGS, and nothing forces -Werror.
	! grep -e '-Werror' "$LOG" &&
	! grep -E '^(cc|gcc) .* -c -o build/lib/' "$LOG" |
		grep -v -e '-DMF_INSTALL_TEST_CFLAGS' &&
	! grep -E '^(cc|gcc) .* -c -o build/ctl/' "$LOG" |
		grep -v -e '-DMF_INSTALL_TEST_CFLAGS' &&
	grep -q -- '-DMF_INSTALL_TEST_CFLAGS.* -c -o build/ctl/main.o' "$LOG" &&
	grep -q -- '-DMF_INSTALL_TEST_CFLAGS.* -o build/bin/memfilterctl' "$LOG" &&
	readelf -d "$SRC/build/lib/libmemfilter.so.1" | grep -q BIND_NOW &&
	grep -q 'memfilter.ko not built' "$LOG"
}
ok "user CFLAGS/LDFLAGS honoured, no -Werror, no kernel tree: no module" \
	user_flags

V=$(cat VERSION)
mode_is() { [ "$(stat -c %a "$2")" = "$1" ] || { echo "$2: mode $(stat -c %a "$2"), want $1"; return 1; }; }
installed_files() {
	local f
	for f in usr/bin/memfilterctl "usr/lib/$MA/libmemfilter.so.$V" \
		 usr/libexec/memfilter-images usr/libexec/memfilter-refresh; do
		mode_is 755 "$R/$f" || return 1
	done
	for f in "usr/lib/$MA/libmemfilter.a" \
		 "usr/lib/$MA/pkgconfig/libmemfilter.pc" \
		 "usr/include/memfilter/$HDR" usr/include/memfilter/memfilter.h \
		 usr/include/memfilter/memfilter_version.h \
		 usr/include/memfilter/linux/memfilter.h \
		 usr/share/man/man8/memfilterctl.8 \
		 usr/share/man/man3/libmemfilter.3 \
		 usr/lib/udev/rules.d/70-memfilter.rules \
		 usr/lib/sysusers.d/memfilter.conf \
		 usr/lib/systemd/system/memfilter-images.service \
		 usr/lib/systemd/system/memfilter-refresh@.service \
		 usr/lib/systemd/system/memfilter-refresh@.timer \
		 usr/share/bash-completion/completions/memfilterctl; do
		mode_is 644 "$R/$f" || return 1
	done
	[ "$(readlink "$LIBDIR/libmemfilter.so.1")" = "libmemfilter.so.$V" ] &&
	[ "$(readlink "$LIBDIR/libmemfilter.so")" = libmemfilter.so.1 ] &&
	# Nothing else: every installed file is one of the above (no
	# modules-load.d file without a module, nothing in include/linux/).
	[ "$(find "$R" -type f -o -type l | wc -l)" = 20 ] ||
		{ find "$R" -type f -o -type l; return 1; }
	[ ! -e "$U/include/linux" ] && [ ! -e "$U/lib/modules-load.d" ] ||
		{ echo "include/linux/ or modules-load.d/ installed"; return 1; }
}
ok "installed tree: every file, its mode, the library's symlinks" \
	installed_files

unit_paths() {
	local unit=$U/lib/systemd/system/memfilter-images.service
	! grep -q @ "$unit" &&
	grep -qx 'ExecStart=-/usr/libexec/memfilter-images restore /var/lib/memfilter' "$unit" &&
	grep -qx 'Environment=MEMFILTERCTL=/usr/bin/memfilterctl' "$unit" &&
	grep -qx 'KERNEL=="memfilter", SUBSYSTEM=="misc", GROUP="memfilter", MODE="0660"' \
		"$U/lib/udev/rules.d/70-memfilter.rules" &&
	grep -qx 'g memfilter - -' "$U/lib/sysusers.d/memfilter.conf" &&
	# verify the unit with its paths inside DESTDIR
	sed "s|=\(-*\)/usr/|=\1$R/usr/|" "$unit" >"$W/memfilter-images.service" &&
	systemd-analyze verify --man=no "$W/memfilter-images.service" || return 1
	unit=$U/lib/systemd/system/memfilter-refresh@.service
	! grep -q @[A-Z] "$unit" &&
	grep -qx 'ExecStart=/usr/libexec/memfilter-refresh %i ${LIST} $BUILD_OPTIONS' "$unit" &&
	grep -qx 'Environment=MEMFILTERCTL=/usr/bin/memfilterctl' "$unit" &&
	grep -qx 'OnCalendar=hourly' "$U/lib/systemd/system/memfilter-refresh@.timer" &&
	mkdir -p "$W/units" &&
	sed "s|=\(-*\)/usr/|=\1$R/usr/|" "$unit" >"$W/units/memfilter-refresh@.service" &&
	cp "$U/lib/systemd/system/memfilter-refresh@.timer" "$W/units/" &&
	(cd "$W/units" && systemd-analyze verify --man=no \
		./memfilter-refresh@blk.service ./memfilter-refresh@blk.timer)
}
ok "systemd unit, udev rule, sysusers.d: content" unit_paths

pc() {
	PKG_CONFIG_SYSROOT_DIR=$R PKG_CONFIG_LIBDIR=$LIBDIR/pkgconfig \
		pkg-config "$@" libmemfilter
}
pkgconfig() {
	[ "$(pc --modversion)" = "$V" ] &&
	[ "$(echo $(pc --cflags))" = "-I$INC" ] &&
	[ "$(echo $(pc --libs))" = "-L$LIBDIR -lmemfilter" ] ||
		{ pc --modversion --cflags --libs; return 1; }
}
ok "pkg-config --modversion --cflags --libs against the installed tree" \
	pkgconfig

# Only the installed headers and library: no -I or -L into the sources.
example() {
	gcc -Wall -Wextra -Werror -o "$W/lib_example" \
		"$TOP/examples/lib_example.c" $(pc --cflags --libs) &&
	LD_LIBRARY_PATH=$LIBDIR ldd "$W/lib_example" |
		grep -q "libmemfilter.so.1 => $LIBDIR/libmemfilter.so.1" &&
	LD_LIBRARY_PATH=$LIBDIR "$W/lib_example" apple banana cherry >"$W/ex.out" &&
	grep -qx "libmemfilter $V (built with $V)" "$W/ex.out" &&
	[ "$(grep -c 'may be present$' "$W/ex.out")" -ge 3 ]
}
ok "examples/lib_example.c builds against the installed library and runs" \
	example

static_example() {
	gcc -static -o "$W/lib_example_static" "$TOP/examples/lib_example.c" \
		-I"$INC" "$LIBDIR/libmemfilter.a" &&
	"$W/lib_example_static" >/dev/null
}
ok "examples/lib_example.c links the installed static library" \
	static_example

CTL=$U/bin/memfilterctl
ctl() { LD_LIBRARY_PATH=$LIBDIR "$CTL" "$@"; }
installed_ctl() {
	LD_LIBRARY_PATH=$LIBDIR ldd "$CTL" |
		grep -q "libmemfilter.so.1 => $LIBDIR/libmemfilter.so.1" &&
	seq 1000 | ctl build --type bloom --capacity 1000 --fpr 0.01 \
		--seed 1 >"$W/f.img" &&
	ctl inspect "$W/f.img" >/dev/null &&
	[ "$(seq 1000 | ctl query --image "$W/f.img" --count)" = 1000 ]
}
ok "installed memfilterctl (dynamic) builds, inspects and queries an image" \
	installed_ctl

# The installed binary carries no RUNPATH (the build tree's would be
# searched first on every run); the in-tree one finds the library next to
# it, $ORIGIN/../lib, and runs as built.
rpath() {
	! readelf -d "$CTL" | grep -E 'R(UN)?PATH' &&
	readelf -d "$SRC/build/bin/memfilterctl" |
		grep -q 'RUNPATH.*\[\$ORIGIN/\.\./lib\]' &&
	env -u LD_LIBRARY_PATH "$SRC/build/bin/memfilterctl" --version |
		grep -qx "memfilterctl $V" &&
	env -u LD_LIBRARY_PATH ldd "$SRC/build/bin/memfilterctl" |
		grep -q "libmemfilter.so.1 => $SRC/build/bin/../lib/libmemfilter.so.1"
}
ok "no RUNPATH in the installed memfilterctl; build/bin/memfilterctl runs" \
	rpath

versions() {
	grep -qx "PACKAGE_VERSION=\"$V\"" dkms.conf &&
	grep -q "\"memfilter $V\"" man/memfilterctl.8 &&
	grep -q "\"memfilter $V\"" man/libmemfilter.3 &&
	grep -qx "#define MEMFILTER_VERSION \"$V\"" "$INC/memfilter_version.h"
}
ok "one version ($V): VERSION, dkms.conf, man pages, memfilter_version.h" \
	versions

man_clean() {
	local p out
	for p in man/memfilterctl.8 man/libmemfilter.3; do
		out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$p" 2>&1 >/dev/null)
		[ -z "$out" ] || { echo "$p: $out"; return 1; }
	done
}
ok "man pages render without warnings" man_clean

# Every command of 'memfilterctl help' and every long option of each
# 'memfilterctl COMMAND --help' is in the man page and the completion.
CMDS=$(ctl help | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p; s/^  \([a-z][a-z]*\)$/\1/p')
covered() {
	local c o missing=""
	[ -n "$CMDS" ] || return 1
	for c in $CMDS; do
		grep -q "^\.SS $c\b" man/memfilterctl.8 ||
			missing="$missing man:$c"
		grep -q "cmds=.*\b$c\b" completion/memfilterctl.bash ||
			missing="$missing completion:$c"
		[ "$c" = help ] && continue
		for o in $(ctl "$c" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
			[ "$o" = --help ] && continue
			sed 's/\\-/-/g' man/memfilterctl.8 | grep -q -- "$o" ||
				missing="$missing man:$c:$o"
			grep -q -- "$o" completion/memfilterctl.bash ||
				missing="$missing completion:$c:$o"
		done
	done
	[ -z "$missing" ] || { echo "not documented:$missing"; return 1; }
}
ok "man page and completion cover every command and long option" covered

# Completion as bash runs it: COMP_WORDS in, COMPREPLY out.
complete_words() {
	bash -c '. /usr/share/bash-completion/bash_completion
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_memfilterctl memfilterctl "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"
		echo "${COMPREPLY[*]}"' _ "$U/share/bash-completion/completions/memfilterctl" "$@"
}
completion() {
	[ "$(complete_words memfilterctl in)" = "info inspect" ] &&
	[ "$(complete_words memfilterctl build --type c)" = cuckoo ] &&
	[ "$(complete_words memfilterctl create x --fing)" = --fingerprint-bits ] &&
	[ "$(complete_words memfilterctl query --co)" = --count ] &&
	[ "$(complete_words memfilterctl --pr)" = --pretty ] &&
	[ "$(complete_words memfilterctl -j in)" = "info inspect" ] &&
	[ "$(complete_words memfilterctl build -t "")" = "bloom cuckoo grow" ] &&
	[ "$(complete_words memfilterctl nf "")" = \
		"attach detach list show stats help" ] &&
	[ "$(complete_words memfilterctl nf de)" = detach ] &&
	[ "$(complete_words memfilterctl nf attach x --key "")" = \
		"saddr daddr 5-tuple l4-payload" ] &&
	[ "$(complete_words memfilterctl nf attach x -H pre)" = prerouting ] &&
	[ "$(complete_words memfilterctl nf stats --)" = "--json --pretty --help" ] &&
	[ "$(complete_words memfilterctl help bu)" = build ]
}
ok "bash completion completes commands, options and their values" completion

# memfilter-images against a memfilterctl that records its calls and keeps
# "filters" as files: restore loads every image, save dumps every filter
# atomically and keeps the old image when a dump fails.
images() {
	local d=$W/images fake=$W/fake-ctl
	rm -rf "$d" "$W/kernel" && mkdir -p "$d" "$W/kernel"
	cat >"$fake" <<-'EOF'
	#!/bin/sh
	echo "$*" >>"$FAKE_DIR/calls"
	case $1 in
	load) [ ! -e "$FAKE_DIR/$2" ] && cat >"$FAKE_DIR/$2" ;;
	list) ls "$FAKE_DIR" | grep -v '^calls$' ;;
	dump) [ "$2" != broken ] && cat "$FAKE_DIR/$2" ;;
	esac
	EOF
	chmod +x "$fake"
	echo A >"$d/alpha.img" && echo B >"$d/beta.img" && echo x >"$d/notes.txt"
	export FAKE_DIR=$W/kernel MEMFILTERCTL=$fake
	"$U/libexec/memfilter-images" restore "$d" >/dev/null &&
	[ "$(cat "$W/kernel/alpha")$(cat "$W/kernel/beta")" = AB ] &&
	[ "$(grep -c '^load' "$W/kernel/calls")" = 2 ] || return 1
	# restoring again fails (names taken) and says so: exit status 1
	"$U/libexec/memfilter-images" restore "$d" 2>/dev/null && return 1
	echo C >"$W/kernel/gamma" && echo X >"$W/kernel/broken"
	echo old >"$d/broken.img"
	"$U/libexec/memfilter-images" save "$d" >/dev/null 2>&1 && return 1
	[ "$(cat "$d/gamma.img")" = C ] && [ "$(cat "$d/broken.img")" = old ] &&
	[ "$(stat -c %a "$d/gamma.img")" = 600 ] &&
	[ -z "$(find "$d" -name '.*.tmp')" ] &&
	"$U/libexec/memfilter-images" bogus "$d" 2>/dev/null
	[ $? = 2 ]
}
ok "memfilter-images restore/save: every image, atomic, failures reported" \
	images

# memfilter-refresh against a memfilterctl that records its calls: it
# builds from the list with its line count as capacity (unless given),
# then loads with --replace; an empty, missing or unbuildable list, or a
# refused load, changes nothing and fails; with MEMFILTER_IMAGES the
# image is kept as NAME.img.
refresh() {
	local d=$W/refresh fake=$W/fake-refresh-ctl r=$U/libexec/memfilter-refresh
	rm -rf "$d" && mkdir -p "$d/images"
	cat >"$fake" <<-'EOF'
	#!/bin/sh
	echo "$*" >>"$FAKE_DIR/calls"
	case $1 in
	build)
		for a; do out=$a; done
		[ "$FAKE_BUILD" = fail ] && exit 2
		echo image >"$out" ;;
	load) cat >"$FAKE_DIR/loaded"; [ "$FAKE_LOAD" != fail ] ;;
	esac
	EOF
	chmod +x "$fake"
	printf '0a000001\n0a000002\n0a000003' >"$d/list"
	: >"$d/empty"
	export FAKE_DIR=$d MEMFILTERCTL=$fake FAKE_BUILD= FAKE_LOAD=
	"$r" blk "$d/list" --type bloom --fpr 0.001 --hex >/dev/null &&
	grep -qx "build --capacity 3 --type bloom --fpr 0.001 --hex $d/list -o .*" "$d/calls" &&
	grep -qx 'load blk --replace' "$d/calls" &&
	[ "$(cat "$d/loaded")" = image ] || { cat "$d/calls"; return 1; }
	: >"$d/calls"
	MEMFILTER_IMAGES=$d/images "$r" blk "$d/list" --capacity 100 >/dev/null &&
	grep -qx "build --capacity 100 $d/list -o $d/images/.blk.*" "$d/calls" &&
	[ "$(cat "$d/images/blk.img")" = image ] &&
	[ "$(stat -c %a "$d/images/blk.img")" = 600 ] &&
	[ -z "$(find "$d/images" -name '.blk.*')" ] || { cat "$d/calls"; return 1; }
	: >"$d/calls"
	"$r" blk "$d/empty" 2>/dev/null && return 1
	"$r" blk "$d/none" 2>/dev/null && return 1
	[ ! -s "$d/calls" ] || return 1
	FAKE_BUILD=fail "$r" blk "$d/list" 2>/dev/null && return 1
	! grep -q '^load' "$d/calls" || return 1
	FAKE_LOAD=fail MEMFILTER_IMAGES=$d/images "$r" blk2 "$d/list" \
		2>/dev/null && return 1
	[ ! -e "$d/images/blk2.img" ] && [ -z "$(find "$d/images" -name '.blk2.*')" ] ||
		return 1
	"$r" blk 2>/dev/null
	[ $? = 2 ]
}
ok "memfilter-refresh: build aside, load --replace, nothing changed on failure" \
	refresh

headers_alone() {
	echo "#include <$HDR>" | gcc $(pc --cflags) -x c -std=c99 \
		-Wall -Wextra -pedantic -Werror -fsyntax-only - &&
	echo "#include <$HDR>" | g++ $(pc --cflags) -x c++ \
		-Wall -Wextra -Werror -fsyntax-only - &&
	# <linux/memfilter.h> through the .pc file's -I: the installed one.
	printf '%s\n' '#include <linux/memfilter.h>' \
		'#ifndef MEMFILTER_API_VERSION' '#error' '#endif' |
		gcc $(pc --cflags) -x c -Werror -E -H - 2>&1 >/dev/null |
		grep -qx ". $INC/linux/memfilter.h"
}
ok "installed headers compile alone (C99, C++); <linux/memfilter.h> via .pc" \
	headers_alone

# A program written for 1.0.0 (#include <memfilter.h>) still builds and
# sees the whole API; the old name is nothing but <libmemfilter.h>.
old_header_name() {
	printf '%s\n' '#include <memfilter.h>' \
		'int main(void) { return !mf_version() || MF_COUNT_MAX != 9; }' |
		gcc -Wall -Werror -x c -o "$W/old_name" - $(pc --cflags --libs) &&
	LD_LIBRARY_PATH=$LIBDIR "$W/old_name" &&
	[ "$(grep -v '^ \*\|^/\*\|^$' "$INC/memfilter.h" |
		grep -c '#include')" = 1 ] &&
	grep -qx '#include "libmemfilter.h"' "$INC/memfilter.h"
}
ok "<memfilter.h>, the 1.0.0 name, includes <libmemfilter.h> and builds" \
	old_header_name

lib_version() {
	nm -D --defined-only "$LIBDIR/libmemfilter.so.1" | grep -q ' T mf_version' &&
	readelf -d "$LIBDIR/libmemfilter.so.1" | grep -q 'SONAME.*libmemfilter.so.1'
}
ok "libmemfilter.so.1: soname, mf_version() exported" lib_version

# Every node of the version script is in libmemfilter.rst's "Symbol
# versions" table with a release no newer than VERSION, and the installed
# .pc answers --atleast-version for that release (a program that needs
# mf_count() asks for its node's release); a node of work not yet
# released says "unreleased" in both places.
symbol_nodes() {
	local node rel n=0
	for node in $(sed -n 's/^\(MEMFILTER_[0-9.]*\) {$/\1/p' lib/libmemfilter.map); do
		rel=$(sed -n "s/^\`\`$node\`\` *\([0-9.]*\|unreleased\) .*/\1/p" \
			Documentation/libmemfilter.rst)
		[ -n "$rel" ] || { echo "$node: not in libmemfilter.rst"; return 1; }
		[ "$rel" = unreleased ] ||
		[ "$(printf '%s\n' "$rel" "$V" | sort -V | tail -n 1)" = "$V" ] ||
			{ echo "$node: release $rel is newer than $V"; return 1; }
		[ "$rel" = unreleased ] || pc --atleast-version="$rel" ||
			{ echo "$node: pkg-config --atleast-version=$rel fails"; return 1; }
		grep -B1 -x "$node {" lib/libmemfilter.map | grep -qx "/\* $rel \*/" ||
			{ echo "$node: no /* $rel */ above it in the map"; return 1; }
		n=$((n + 1))
	done
	[ "$n" -ge 8 ] || { echo "only $n nodes"; return 1; }
	nm -D --defined-only "$LIBDIR/libmemfilter.so.1" |
		grep -q ' T mf_count@@MEMFILTER_1.3$' &&
	grep -q '^``MEMFILTER_1.3``  1.1.0 .*``mf_count()``' \
		Documentation/libmemfilter.rst
}
ok "every symbol node documented with its release; --atleast-version" \
	symbol_nodes

# A function whose rules changed keeps its old version for the programs
# linked against it (MF_SYMVER() in lib/internal.h): each is exported in
# its first node and, as the default, in MEMFILTER_1.8; a program bound
# to mf_offline_create@MEMFILTER_1 gets 1.0.0's reading of a zero sz
# (hash_algo is not read), one built now the whole struct.
old_versions() {
	local v
	nm -D --defined-only "$LIBDIR/libmemfilter.so.1" >"$W/syms" || return 1
	for v in mf_create@MEMFILTER_1 mf_offline_create@MEMFILTER_1 \
		 mf_create_window@MEMFILTER_1.2 mf_nf_attach@MEMFILTER_1.2 \
		 mf_create_grow@MEMFILTER_1.4 mf_offline_create_grow@MEMFILTER_1.4 \
		 mf_offline_create_window@MEMFILTER_1.6; do
		grep -q " T $v\$" "$W/syms" &&
		grep -q " T ${v%@*}@@MEMFILTER_1.8\$" "$W/syms" ||
			{ echo "$v or its MEMFILTER_1.8 default missing"; return 1; }
	done
	cat >"$W/old_versions.c" <<'EOF'
#include <libmemfilter.h>

int create_1(const struct mf_create_opts *o, struct mf_offline **f);
__asm__(".symver create_1, mf_offline_create@MEMFILTER_1");

static int algo(int (*create)(const struct mf_create_opts *,
			      struct mf_offline **))
{
	struct mf_create_opts o = { .type = MF_TYPE_BLOOM, .capacity = 10,
				    .fpr = 0.01, .hash_algo = MF_HASH_XXH64 };
	struct mf_offline *f;
	struct mf_info i;

	if (create(&o, &f) || mf_offline_info(f, &i))
		return -1;
	mf_offline_free(f);
	return i.hash_algo;
}

int main(void)
{
	return !(algo(create_1) == MF_HASH_XXH3 &&
		 algo(mf_offline_create) == MF_HASH_XXH64);
}
EOF
	gcc -Wall -Werror -o "$W/old_versions" "$W/old_versions.c" \
		$(pc --cflags --libs) &&
	LD_LIBRARY_PATH=$LIBDIR "$W/old_versions"
}
ok "changed functions keep their old versions; new programs get 1.8's" \
	old_versions

uninstall() {
	make -C "$SRC" uninstall DESTDIR="$R" PREFIX=/usr >/dev/null &&
	[ -z "$(find "$R" -type f -o -type l)" ] ||
		{ find "$R" -type f -o -type l; return 1; }
}
ok "make uninstall removes every installed file" uninstall

local_prefix() {
	local L=$W/local
	make -C "$SRC" install DESTDIR="$L" >/dev/null &&
	[ -x "$L/usr/local/bin/memfilterctl" ] &&
	[ -f "$L/usr/local/lib/libmemfilter.so.$V" ] &&
	[ -f "$L/usr/local/lib/pkgconfig/libmemfilter.pc" ] &&
	[ -f "$L/etc/udev/rules.d/70-memfilter.rules" ] &&
	[ -f "$L/etc/systemd/system/memfilter-images.service" ] &&
	[ -f "$L/usr/local/include/memfilter/linux/memfilter.h" ] &&
	[ ! -e "$L/etc/modules-load.d" ] &&
	grep -qx 'ExecStart=-/usr/local/libexec/memfilter-images restore /var/lib/memfilter' \
		"$L/etc/systemd/system/memfilter-images.service" &&
	grep -qx 'libdir=/usr/local/lib' "$L/usr/local/lib/pkgconfig/libmemfilter.pc"
}
ok "default PREFIX=/usr/local: /usr/local and /etc, no modules-load.d" \
	local_prefix


dkms_src() {
	local d=$W/dkms
	rm -rf "$d"
	make -C "$SRC" -s dkms-src DESTDIR="$d" >/dev/null &&
	[ -f "$d/usr/src/memfilter-$V/dkms.conf" ] &&
	[ -f "$d/usr/src/memfilter-$V/Kbuild" ] &&
	[ -z "$(find "$d" -name '*.o' -o -name '*.ko')" ] || return 1
	# A file Kbuild builds that is missing fails, naming it.
	local rc
	mv "$SRC/module/filter/names.c" "$W/names.c" || return 1
	make -C "$SRC" -s dkms-src DESTDIR="$W/dkms-bad" >/dev/null \
		2>"$W/dkms-bad.err"
	rc=$?
	mv "$W/names.c" "$SRC/module/filter/names.c" || return 1
	[ "$rc" != 0 ] &&
	grep -qx 'dkms-src: module/filter/names.c (Kbuild builds it) is missing' \
		"$W/dkms-bad.err" || { echo "exit $rc"; cat "$W/dkms-bad.err"; return 1; }
}
ok "make dkms-src: the module's sources in /usr/src/memfilter-$V; a missing one fails" \
	dkms_src

readme_commands() {
	# The README's install section uses only targets that exist.
	local t
	for t in $(sed -n '/^## Install on a host/,/^## /p' README.md |
		   grep -o 'make [a-z_-]*' | awk '{print $2}' | sort -u); do
		grep -Eq "^$t:" "$SRC/Makefile" ||
			{ echo "README: make $t does not exist"; return 1; }
	done
	sed -n '/^## Install on a host/,/^## /p' README.md | grep -q 'make install'
}
ok "README 'Install on a host' uses existing make targets" readme_commands

# The README's first screen: its offline example (the lines that start
# with "seq" before "## Install") runs as written in the fresh build, no
# root, no module: every key put in is found, about 1% of the others.
readme_offline() {
	local ex out d=$W/readme
	ex=$(sed -n '1,/^## Install/p' README.md | grep '^    seq ' |
		sed 's/^    //; s/ *#.*//; s#build/bin/#'"$SRC"'/build/bin/#')
	[ "$(echo "$ex" | grep -c 'build/bin/memfilterctl')" = 3 ] ||
		{ echo "README: no three-line offline example"; return 1; }
	rm -rf "$d" && mkdir -p "$d" &&
	(cd "$d" && sh -ec "$(echo "$ex" | sed -n 1p)") &&
	out=$(cd "$d" && sh -ec "$(echo "$ex" | sed -n 2p)") &&
	[ "$(echo "$out" | head -n 3 | tr '\n' ' ')" = "999998 999999 1000000 " ] ||
		{ echo "second line: $out"; return 1; }
	out=$(cd "$d" && sh -ec "$(echo "$ex" | sed -n 3p)") &&
	[ "$out" -ge 5000 ] && [ "$out" -le 15000 ] ||
		{ echo "third line: '$out', not about 10000"; return 1; }
}
ok "README's offline example runs in the fresh build (no root, no module)" \
	readme_offline

# The module, as the README builds and installs it (never loaded here).
module() {
	local rel ko
	rel=$(cat "$KDIR/include/config/kernel.release") &&
	make -C "$SRC" KDIR="$KDIR" >"$W/module.log" 2>&1 &&
	make -C "$SRC" KDIR="$KDIR" modules_install DESTDIR="$W/mod" \
		>>"$W/module.log" 2>&1 || { cat "$W/module.log"; return 1; }
	ko=$(find "$W/mod/lib/modules/$rel" -name 'memfilter.ko*') &&
	[ -n "$ko" ] && modinfo "$ko" | grep -qx "version: *$V" &&
	grep -qx memfilter "$W/mod/etc/modules-load.d/memfilter.conf" &&
	! grep -e '-Werror' "$W/module.log" &&
	! grep -E '(warning|error):' "$W/module.log"
}
[ -n "$KDIR" ] &&
	ok "make KDIR=... builds memfilter.ko; make modules_install DESTDIR=... (with modules-load.d)" \
		module

# make clean without a kernel tree: kbuild's outputs go too (the module's
# above, when built, and a set of its names), and the copy is as fresh;
# git ignores kbuild's leftover dependency files.
clean_no_kdir() {
	local f
	for f in memfilter.ko memfilter.mod memfilter.mod.c .memfilter.ko.cmd \
		 Module.symvers modules.order .module-common.o module/main.o \
		 module/.main.o.cmd module/.main.o.d core/.hash.o.d \
		 kunit/.helpers.o.tmp; do
		echo x >"$SRC/$f" || return 1
	done
	make -C "$SRC" clean KDIR="$W/no-kernel" >/dev/null 2>&1 &&
	(cd "$SRC" && find . -type f | sort) | diff "$W/src.list" - &&
	for f in module/.main.o.d core/.hash.o.d kunit/.x.o.tmp; do
		(cd "$TOP" && git check-ignore -q "$f") ||
			{ echo "git does not ignore $f"; return 1; }
	done
}
ok "make clean without a kernel tree removes kbuild's outputs" clean_no_kdir

tap_end
