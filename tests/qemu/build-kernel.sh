#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) one of memfilter's test kernels: Debian's
# linux-source-6.12, `make tinyconfig` plus fragments from tests/qemu/kconfig/:
#
#   build-kernel.sh [debug]   base + codegen + debug (KASAN, lockdep, kmemleak)
#   build-kernel.sh kcsan     base + codegen + kcsan (KCSAN; excludes KASAN)
#
# codegen.config makes both compile like Debian's stock kernel (-O2,
# mitigations, X86_DEBUG_FPU). Each tree is cached outside the checkout as
# kernel-<variant>-<key>, the key a hash of the source package version, the
# variant's fragments, its patches (tests/qemu/kernel-patches/<variant>/) and
# this script (the fragments without their comments), so a warm run costs
# nothing. A new build keeps one older finished tree of its own variant
# and deletes the rest, so the variants coexist and a run of the previous
# key elsewhere keeps its tree. Prints the path of the built tree on stdout.

set -eu
. "$(dirname "$0")/../../scripts/common.sh"

variant=${1:-debug}
frags="base codegen $variant"
for f in $frags; do
	[ -f "$TOP/tests/qemu/kconfig/$f.config" ] ||
		die "no fragment tests/qemu/kconfig/$f.config (variant '$variant')"
done
frag_files=$(for f in $frags; do echo "$TOP/tests/qemu/kconfig/$f.config"; done)
# Patches to the kernel's own source, per variant, applied in name order:
# only annotations of the kernel's own benign races that a sanitizer
# reports (each patch says why, with the report), never a change to what
# the kernel does.
patches=$(find "$TOP/tests/qemu/kernel-patches/$variant" -name '*.patch' \
	2>/dev/null | LC_ALL=C sort)

srcver=$(pkg_version linux-source-6.12)
[ -n "$srcver" ] || die "linux-source-6.12 is not installed (scripts/deps.sh)"
tarball=/usr/src/linux-source-6.12.tar.xz
# The fragments' comments are not in the key (an edited comment must not
# cost a 15-minute build); "# CONFIG_X is not set" lines are options.
# shellcheck disable=SC2086 # one path per word
key=$( (echo "$srcver $variant"
	sed '/^#/{/^# CONFIG_[A-Z0-9_]* is not set$/!d}; /^[[:space:]]*$/d' \
		$frag_files
	cat $patches "$0") | sha256sum | cut -c1-16)
tree="$CACHE/kernel-$variant-$key"

if [ -f "$tree/.memfilter-built" ]; then
	echo "$tree"
	exit 0
fi

# One kernel build at a time per cache: two checkouts (or two variants)
# building at once on a small machine each take several times as long, and
# two builds of the same key would share one .tmp tree. The second waits,
# then finds the first one's result.
if [ -z "${MEMFILTER_BUILD_LOCKED:-}" ] && command -v flock >/dev/null; then
	echo "build-kernel: waiting for the kernel build lock ($CACHE/.build.lock)" >&2
	MEMFILTER_BUILD_LOCKED=1 exec flock "$CACHE/.build.lock" "$0" "$@"
fi

echo "build-kernel: building $variant test kernel $srcver (key $key) in $tree" >&2
rm -rf "$tree" "$tree.tmp"
mkdir -p "$tree.tmp"
tar -C "$tree.tmp" --strip-components=1 -xJf "$tarball"
cd "$tree.tmp"
for p in $patches; do
	patch -p1 --forward --quiet <"$p" >>build.log 2>&1 ||
		{ tail -20 build.log >&2; die "patch $p did not apply"; }
	echo "build-kernel: applied $(basename "$p")" >&2
done
{
	make tinyconfig
	# shellcheck disable=SC2086
	scripts/kconfig/merge_config.sh -m .config $frag_files
	make olddefconfig
} >build.log 2>&1 || { tail -30 build.log >&2; die "configuring failed"; }

# Every requested option must have survived olddefconfig: print each one
# checked, so the build log shows what this kernel was built with. As in
# merge_config.sh, a later fragment overrides an earlier one's option.
# shellcheck disable=SC2086
awk '
/^CONFIG_[A-Z0-9_]+=/ { n = $0; sub(/=.*/, "", n) }
/^# CONFIG_[A-Z0-9_]+ is not set$/ { n = $2 }
n != "" { if (!(n in want)) order[++k] = n; want[n] = $0; n = "" }
END { for (i = 1; i <= k; i++) print want[order[i]] }' $frag_files |
while read -r line; do
	# "# CONFIG_X is not set" holds too when X is not even visible.
	case "$line" in
	"# "*) off=$(echo "$line" | cut -d' ' -f2) ;;
	*) off= ;;
	esac
	if grep -qxF "$line" .config ||
		{ [ -n "$off" ] && ! grep -q "^$off=" .config; }; then
		echo "kept: $line"
	else
		echo "missing: $line" >&2
		exit 1
	fi
done >>build.log || die "config fragment options did not apply"
echo "build-kernel: $(grep -c '^kept: ' build.log) fragment options verified in .config" >&2

start=$(date +%s)
if ! make -j"$JOBS" bzImage modules >>build.log 2>&1; then
	tail -40 build.log >&2
	die "kernel build failed (log: $tree.tmp/build.log)"
fi
echo "build-kernel: built in $(($(date +%s) - start)) s" >&2
touch .memfilter-built
cd /
mv "$tree.tmp" "$tree"
# Keep this tree and the newest other finished one of its variant (about
# 3 GiB each): a run still using the previous key, from another checkout,
# keeps its tree. Older ones go, and those of the scheme before variants
# (kernel-<key>). Unfinished trees (*.tmp) are never touched.
ls -dt "$CACHE"/kernel-"$variant"-*/.memfilter-built 2>/dev/null |
	sed 's|/.memfilter-built$||' | grep -vxF "$tree" | tail -n +2 |
	while read -r old; do rm -rf "$old"; done
for old in "$CACHE"/kernel-????????????????; do
	[ -f "$old/.memfilter-built" ] && rm -rf "$old"
done
echo "$tree"
