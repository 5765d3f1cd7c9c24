# SPDX-License-Identifier: GPL-2.0
#
# Shared settings for memfilter's scripts: where the heavy, reusable
# artifacts (test kernel, stock kernels) are cached outside the checkout.
# Sourced, not run.

# The checkout's top: the nearest directory above the running script
# that holds this file (scripts/, bench/ and tests/qemu/ source it).
TOP=$(cd "$(dirname "$0")" &&
	while [ ! -f scripts/common.sh ] && [ "$PWD" != / ]; do cd ..; done &&
	pwd)
CACHE=${MEMFILTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/memfilter}
JOBS=${JOBS:-$(($(nproc) + 1))}
mkdir -p "$CACHE"

die() {
	echo "$(basename "$0"): $*" >&2
	exit 1
}

# Version of an installed Debian package, or nothing.
pkg_version() {
	dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true
}

# The kernel release (uname -r) that a headers metapackage points at.
headers_release() {
	dpkg-query -W -f='${Depends}' "$1" 2>/dev/null |
		sed -n 's/^linux-headers-\([^ ,]*\).*/\1/p'
}

# Extract files of Debian's linux-source-6.12 once into $CACHE/NAME-VERSION
# and print that directory:
#   linux_source_files NAME STRIP-COMPONENTS MARKER-FILE PATH...
# (PATHs inside linux-source-6.12/; MARKER-FILE, relative to the
# directory, exists once the extraction is complete).
linux_source_files() {
	local name=$1 strip=$2 marker=$3 ver dir
	shift 3
	ver=$(pkg_version linux-source-6.12)
	[ -n "$ver" ] ||
		die "linux-source-6.12 is not installed (scripts/deps.sh)"
	dir=$CACHE/$name-$ver
	if [ ! -e "$dir/$marker" ]; then
		rm -rf "$dir.tmp"
		mkdir -p "$dir.tmp"
		tar -xJf /usr/src/linux-source-6.12.tar.xz -C "$dir.tmp" \
			--strip-components="$strip" \
			$(printf 'linux-source-6.12/%s\n' "$@") || return 1
		rm -rf "$dir"
		mv "$dir.tmp" "$dir"
	fi
	echo "$dir"
}

# For a benchmark in Debian's stock 6.12 guest (no KASAN to distort the
# timing): sets kdir and vmlinuz (stock-kernel.sh), work (a temporary
# directory, removed at exit) and builds the module into $work/ko.
stock_bench_setup() {
	read -r kdir vmlinuz <<EOF2
$("$TOP/tests/qemu/stock-kernel.sh" 6.12)
EOF2
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	"$TOP/scripts/build-module.sh" "$kdir" "$work/ko" >/dev/null
}

# guest_bins BUILD PROGRAM...: build each guest PROGRAM in BUILD/guest/bin
# and copy them into $work/bin, work being a new temporary directory
# (removed at exit), for tests/qemu/vm.sh --bin.
guest_bins() {
	local b=$1 p
	shift
	make -s BUILD="$b" $(for p; do echo "$b/guest/bin/$p"; done)
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	mkdir -p "$work/bin"
	for p; do
		cp "$b/guest/bin/$p" "$work/bin/"
	done
}
