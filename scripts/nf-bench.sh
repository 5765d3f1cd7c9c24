#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench-nf: boot Debian's stock 6.12 kernel (no KASAN to distort the
# timing) with the module, its veth and nf_tables modules (stock-kernel.sh
# kmods/ and kmods-nf/), Debian's ip and nft, run bench/nf_pps.c there
# (memfilter's netfilter hook against nftables, packets per second through
# a veth pair), then bench/nf_key_bench natively, and write the report.
#   nf-bench.sh BUILD OUT.md

set -eu
. "$(dirname "$0")/common.sh"

build=$1
out=$2
load=$(uptime)
read -r kdir vmlinuz <<EOF2
$("$TOP/scripts/stock-kernel.sh" 6.12)
EOF2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$TOP/scripts/build-module.sh" "$kdir" "$work/ko" >/dev/null
mkdir "$work/bin" "$work/kmods"
cp "$build/bench/nf/nf_pps" "$build/guest/bin/memfilterctl" \
	"$build/guest/bin/nf_dedup" "$work/bin/"
# kmods-nf/ names (1-crc32c_generic.ko ...) sort first: their load order.
cp "$(dirname "$vmlinuz")"/kmods/*.ko "$(dirname "$vmlinuz")"/kmods-nf/*.ko \
	"$work/kmods/"
cat >"$work/run.sh" <<'GUEST'
insmod /memfilter/memfilter.ko || exit 1
/memfilter/bin/nf_pps >/tmp/report.md || exit 1
echo "### BEGIN report"
cat /tmp/report.md
echo "### END report"
GUEST
"$TOP/tests/qemu/vm.sh" --kernel "$vmlinuz" --ko "$work/ko" --bin "$work/bin" \
	--script "$work/run.sh" --smp 1 --kmods "$work/kmods" \
	--tools "ip nft" \
	--out "$work/log" --timeout 1800 >/dev/null ||
	{ tail -n 30 "$work/log"; die "the guest failed"; }
sed -n '/^### BEGIN report/,/^### END report/p' "$work/log" |
	sed '1d;$d' >"$work/report.md"
[ -s "$work/report.md" ] || die "no report in the guest log"
{
	cat "$work/report.md"
	echo
	"$TOP/bench/nf_key_bench"
	echo
	echo "Made by \`make bench-nf\` (scripts/nf-bench.sh) on $(date -u +%Y-%m-%d); host load at the start (a shared 2-core machine): \`$load\`."
} >"$out"
cat "$out"
