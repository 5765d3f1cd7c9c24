#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench-replace: boot Debian's stock 6.12 kernel (no KASAN to distort
# the timing) with the module, run bench/replace_bench.c there (the time
# per REPLACE and EXCHANGE against one INFO ioctl and against UNPUBLISH +
# PUBLISH) and write its report.
#   replace-bench.sh BINDIR OUT.md

set -eu
. "$(dirname "$0")/../scripts/common.sh"

bindir=$1
out=$2
load=$(cut -d' ' -f1-3 /proc/loadavg)
stock_bench_setup
cat >"$work/run.sh" <<'GUEST'
insmod /memfilter/memfilter.ko || exit 1
echo "### BEGIN report"
/memfilter/bin/replace_bench || exit 1
echo "### END report"
GUEST
"$TOP/tests/qemu/vm.sh" --kernel "$vmlinuz" --ko "$work/ko" --bin "$bindir" \
	--script "$work/run.sh" --smp 1 --kmods "$(dirname "$vmlinuz")/kmods" \
	--out "$work/log" --timeout 1200 \
	>/dev/null || { tail -n 30 "$work/log"; die "the guest failed"; }
sed -n '/^### BEGIN report/,/^### END report/p' "$work/log" |
	sed '1d;$d' >"$work/report.md"
[ -s "$work/report.md" ] || die "no report in the guest log"
{
	cat "$work/report.md"
	echo
	echo "Made by \`make bench-replace\` (bench/replace-bench.sh) on $(date -u +%Y-%m-%d); host load at the start (a shared 2-core machine): \`$load\`."
} >"$out"
cat "$out"
