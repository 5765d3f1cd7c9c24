#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench-nf: boot Debian's stock 6.12 kernel (no KASAN to distort the
# timing) with the module, its veth and nf_tables modules (stock-kernel.sh
# kmods/ and kmods-nf/), Debian's ip and nft, run bench/nf_pps.c there
# (memfilter's netfilter hook against nftables, packets per second through
# a veth pair), then bench/nf_key_bench natively, and write the report.
# make bench-nf-prefix (--prefixes): bench/nf_prefix_pps.c instead, prefix
# blocklists against ipset (Debian's ipset and iptables-legacy, with the
# two iptables extensions it loads) and nftables interval sets.
#   nf-bench.sh [--prefixes] BUILD OUT.md

set -eu
. "$(dirname "$0")/../scripts/common.sh"

prefixes=0
if [ "${1:-}" = --prefixes ]; then
	prefixes=1
	shift
fi
build=$1
out=$2
load=$(uptime)
stock_bench_setup
mkdir "$work/bin" "$work/kmods"
tools="ip nft"
prog=nf_pps
if [ $prefixes = 1 ]; then
	prog=nf_prefix_pps
	tools="ip nft ipset iptables-legacy"
	cp "$build/bench/nf/nf_prefix_pps" "$build/guest/bin/memfilterctl" \
		"$work/bin/"
	# iptables dlopen()s its match and target: the guest's XTABLES_LIBDIR.
	mkdir "$work/bin/xtables"
	cp /usr/lib/x86_64-linux-gnu/xtables/libxt_set.so \
		/usr/lib/x86_64-linux-gnu/xtables/libxt_standard.so "$work/bin/xtables/"
else
	cp "$build/bench/nf/nf_pps" "$build/guest/bin/memfilterctl" \
		"$build/guest/bin/nf_dedup" "$work/bin/"
fi
# kmods-nf/ names (01-crc32c_generic.ko ...) sort first: their load order.
cp "$(dirname "$vmlinuz")"/kmods/*.ko "$(dirname "$vmlinuz")"/kmods-nf/*.ko \
	"$work/kmods/"
cat >"$work/run.sh" <<GUEST
insmod /memfilter/memfilter.ko || exit 1
/memfilter/bin/$prog >/tmp/report.md || exit 1
echo "### BEGIN report"
cat /tmp/report.md
echo "### END report"
GUEST
"$TOP/tests/qemu/vm.sh" --kernel "$vmlinuz" --ko "$work/ko" --bin "$work/bin" \
	--script "$work/run.sh" --smp 1 --kmods "$work/kmods" \
	--tools "$tools" \
	--out "$work/log" --timeout 1800 >/dev/null ||
	{ tail -n 30 "$work/log"; die "the guest failed"; }
sed -n '/^### BEGIN report/,/^### END report/p' "$work/log" |
	sed '1d;$d' >"$work/report.md"
[ -s "$work/report.md" ] || die "no report in the guest log"
{
	cat "$work/report.md"
	echo
	if [ $prefixes = 1 ]; then
		# The address lookups only: the table after the key table.
		"$TOP/bench/nf_key_bench" | sed -n '/^Address lookups/,$p'
		target=bench-nf-prefix
	else
		"$TOP/bench/nf_key_bench"
		target=bench-nf
	fi
	echo
	echo "Made by \`make $target\` (bench/nf-bench.sh) on $(date -u +%Y-%m-%d); host load at the start (a shared 2-core machine): \`$load\`."
} >"$out"
cat "$out"
