#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The oops of a static key flipped under multi-threaded TCG, on demand
# (Documentation/testing.rst, "One TCG thread"): RUNS guests of Debian's
# stock 6.12 kernel with 2 vCPUs run tests/qemu/textpoke.sh (a static key
# flipped by netfilter attach/detach on one vCPU while the other receives
# packets) under the TCG mode given, and the runs that oopsed are
# counted.
#
#   textpoke-vm.sh multi|single [RUNS [ROUNDS]]
#
# Needs the module built for the stock kernel in $BUILD/kbuild/stock-6.12
# and the guest binaries (make BUILD=... guest). Logs:
# $BUILD/results/textpoke-TCG-N.log (vm.sh's stderr in .stderr beside it).
# Exit status 0 when no run failed.

set -eu
cd "$(dirname "$0")/../.."
. scripts/common.sh

tcg=${1:?multi or single}
runs=${2:-20}
rounds=${3:-300}
B=${BUILD:-build}
R=$B/results
mkdir -p "$R"
read -r _ vmlinuz < <(tests/qemu/stock-kernel.sh 6.12) || die "no stock 6.12 kernel"
[ -f "$B/kbuild/stock-6.12/memfilter.ko" ] ||
	die "build the module first: scripts/build-module.sh KDIR $B/kbuild/stock-6.12"

oops=0 other=0 clean=0
for i in $(seq 1 "$runs"); do
	log=$R/textpoke-$tcg-$i.log
	s=$(date +%s)
	rc=0
	tests/qemu/vm.sh --kernel "$vmlinuz" --ko "$B/kbuild/stock-6.12" \
		--bin "$B/guest/bin" --script tests/qemu/textpoke.sh \
		--smp 2 --tcg "$tcg" --tools ip \
		--kmods "$(dirname "$vmlinuz")/kmods" \
		--env MF_POKE_ROUNDS="$rounds" \
		--out "$log" --timeout 1800 >/dev/null 2>"$log.stderr" || rc=$?
	if grep -q 'int3' "$log.console"; then
		oops=$((oops + 1))
		what="int3: $(grep -m1 -o 'RIP: 0010:[^ ]*' "$log.console" || true)"
	elif [ "$rc" = 0 ]; then
		clean=$((clean + 1))
		what=clean
	else
		other=$((other + 1))
		what="failed (rc $rc): $(grep -m1 'not ok' "$log" || true)"
	fi
	echo "run $i/$runs ($tcg): $what, $(($(date +%s) - s)) s," \
		"load $(cut -d' ' -f1 /proc/loadavg)"
done
echo "textpoke $tcg: $runs runs, $clean clean, $oops int3 oopses, $other other failures"
[ $((oops + other)) = 0 ]
