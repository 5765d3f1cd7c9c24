#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Print a directory holding the kernel's kselftest_harness.h and
# kselftest.h (from Debian's linux-source-6.12), extracted once into the
# cache. Selftests and native tests both use that harness.

set -eu
. "$(dirname "$0")/common.sh"

ver=$(pkg_version linux-source-6.12)
[ -n "$ver" ] || die "linux-source-6.12 is not installed (scripts/deps.sh)"
dir=$CACHE/kselftest-$ver
if [ ! -f "$dir/kselftest_harness.h" ]; then
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	tar -xJf /usr/src/linux-source-6.12.tar.xz -C "$dir.tmp" \
		--strip-components=4 \
		linux-source-6.12/tools/testing/selftests/kselftest_harness.h \
		linux-source-6.12/tools/testing/selftests/kselftest.h
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
fi
echo "$dir"
