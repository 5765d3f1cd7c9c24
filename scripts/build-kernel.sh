#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) memfilter's test kernel: Debian's linux-source-6.12,
# `make tinyconfig` plus the fragments in scripts/kconfig/. The tree is
# cached outside the checkout, keyed by the source package version and a
# hash of the fragments and this script, so a warm run costs nothing.
# Prints the path of the built tree on stdout.

set -eu
. "$(dirname "$0")/common.sh"

srcver=$(pkg_version linux-source-6.12)
[ -n "$srcver" ] || die "linux-source-6.12 is not installed (scripts/deps.sh)"
tarball=/usr/src/linux-source-6.12.tar.xz
key=$( (echo "$srcver"; cat "$TOP"/scripts/kconfig/*.config "$0") |
	sha256sum | cut -c1-16)
tree="$CACHE/kernel-$key"

if [ -f "$tree/.memfilter-built" ]; then
	echo "$tree"
	exit 0
fi

# Drop older test kernels: each is about 3 GiB.
for old in "$CACHE"/kernel-*; do
	[ -d "$old" ] && [ "$old" != "$tree" ] && rm -rf "$old"
done

echo "build-kernel: building test kernel $srcver (key $key) in $tree" >&2
rm -rf "$tree" "$tree.tmp"
mkdir -p "$tree.tmp"
tar -C "$tree.tmp" --strip-components=1 -xJf "$tarball"
cd "$tree.tmp"
{
	make tinyconfig
	scripts/kconfig/merge_config.sh -m .config \
		"$TOP"/scripts/kconfig/base.config "$TOP"/scripts/kconfig/debug.config
	make olddefconfig
} >build.log 2>&1 || { tail -30 build.log >&2; die "configuring failed"; }

# Every requested option must have survived olddefconfig.
bad=0
for f in "$TOP"/scripts/kconfig/*.config; do
	grep -E '^(CONFIG_[A-Z0-9_]+=|# CONFIG_[A-Z0-9_]+ is not set)' "$f" |
	while read -r line; do
		grep -qxF "$line" .config || { echo "missing: $line" >&2; exit 1; }
	done || bad=1
done
[ "$bad" = 0 ] || die "config fragment options did not apply"

start=$(date +%s)
if ! make -j"$JOBS" bzImage modules >>build.log 2>&1; then
	tail -40 build.log >&2
	die "kernel build failed (log: $tree.tmp/build.log)"
fi
echo "build-kernel: built in $(($(date +%s) - start)) s" >&2
touch .memfilter-built
cd /
mv "$tree.tmp" "$tree"
echo "$tree"
