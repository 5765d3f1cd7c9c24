#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The memfilter-dedup target's I/O savings in one guest boot (Debian's
# stock 6.12 kernel): bench/dm/dedup-guest.sh, whose table goes to
# stdout. Documentation/device-mapper.rst shows a run.
#   bench/dm-bench.sh [BLOCKS]   (default 65536: 256 MiB)

set -eu
cd "$(dirname "$0")/.."
. scripts/common.sh

read -r kdir vmlinuz < <(tests/qemu/stock-kernel.sh 6.12) || die "no stock 6.12 kernel"
scripts/build-module.sh "$kdir" build/kbuild/stock-6.12 >/dev/null
make -s guest
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
cp build/guest/bin/dedup_io build/guest/bin/memfilterctl "$bin/"
echo "export MF_DM_BENCH_BLOCKS=${1:-65536}" >"$bin/env.sh"
script=$bin/run.sh
{ echo ". /memfilter/bin/env.sh"; cat bench/dm/dedup-guest.sh; } >"$script"
tests/qemu/vm.sh --kernel "$vmlinuz" --ko build/kbuild/stock-6.12 \
	--bin "$bin" --script "$script" --smp 1 --mem 3G \
	--tools "dmsetup losetup dd" --kmods "$(dirname "$vmlinuz")/kmods" \
	--timeout 1800
