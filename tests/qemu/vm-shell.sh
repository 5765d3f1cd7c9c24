#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make vm-shell`: boot the debug test kernel (KASAN, lockdep, KUnit) with
# memfilter loaded and its tools on PATH, and give you its shell on this
# terminal. Ctrl-A X quits QEMU; `exit` powers the guest off.

set -eu
cd "$(dirname "$0")/../.."
. scripts/common.sh

scripts/deps.sh
K=$(tests/qemu/build-kernel.sh debug)
scripts/build-module.sh "$K" build/kbuild/test >/dev/null
make -s guest
exec tests/qemu/vm.sh --kernel "$K/arch/x86/boot/bzImage" \
	--ko build/kbuild/test --bin build/guest/bin --shell
