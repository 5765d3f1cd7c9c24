#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Measure how long softirqs wait while a 512 MiB cuckoo filter is dumped
# and cleared, the old way (one bottom-half-off section) and the module's
# way (16 KiB steps), in one boot of the debug test kernel (TCG: compare
# the figures with each other, not with hardware). A benchmark: not part
# of `make check`. Prints the suite's lines; results also in build/latency/.

set -eu
cd "$(dirname "$0")/.."
. scripts/common.sh

K=$(tests/qemu/build-kernel.sh debug)
scripts/build-module.sh "$K" build/kbuild/latency >/dev/null
mkdir -p build/latency
tests/qemu/vm.sh --kernel "$K/arch/x86/boot/bzImage" --ko build/kbuild/latency \
	--script bench/latency-guest.sh --out build/latency/vm.log \
	--mem 3G --timeout 1200 >/dev/null || true
grep -E '# mf_latency|ok [0-9]' build/latency/vm.log
