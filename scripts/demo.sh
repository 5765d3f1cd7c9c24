#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: install what is needed, build memfilter against Debian's
# stock 6.12 kernel, boot that kernel in QEMU and show the module working.
# No kernel is compiled: a cold demo costs the package downloads only.

set -eu
cd "$(dirname "$0")/.."
. scripts/common.sh

scripts/deps.sh
read -r kdir vmlinuz < <(tests/qemu/stock-kernel.sh 6.12)
echo "demo: building memfilter.ko against $kdir"
scripts/build-module.sh "$kdir" build/kbuild/stock-6.12 >build/demo-build.log 2>&1 ||
	{ cat build/demo-build.log; die "module build failed"; }
make -s guest
echo "demo: booting Debian's stock kernel in QEMU (TCG)"
tests/qemu/vm.sh --kernel "$vmlinuz" --ko build/kbuild/stock-6.12 \
	--bin build/guest/bin --script tests/qemu/demo.sh --smp 1 \
	--tools "ip bpftool dmsetup losetup" \
	--kmods "$(dirname "$vmlinuz")/kmods" \
	--out build/results/demo.log --timeout 300
