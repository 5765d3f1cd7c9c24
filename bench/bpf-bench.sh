#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench-bpf: boot Debian's stock 6.12 kernel (no KASAN to distort the
# timing) with the module, its veth module and Debian's ip (for the packets
# per second through a veth pair), run bench/bpf_bench.c there and write
# its report; with NATIVE (bench/bpf_key_bench), its native per-key cost of
# the same hashing and probing on this host is appended.
#   bpf-bench.sh BINDIR OUT.md [NATIVE]

set -eu
. "$(dirname "$0")/../scripts/common.sh"

bindir=$1
out=$2
native=${3:-}
args=${BPF_BENCH_ARGS:-}
case $args in
''|--keys) ;;
*) die "BPF_BENCH_ARGS: --keys or nothing" ;;
esac
load=$(cut -d' ' -f1-3 /proc/loadavg)
stock_bench_setup
cat >"$work/run.sh" <<'GUEST'
insmod /memfilter/memfilter.ko || exit 1
echo "### BEGIN report"
/memfilter/bin/bpf_bench @ARGS@ || exit 1
echo
echo "Guest CPU mitigations (indirect calls and returns in the kernel go through these):"
echo
for v in spectre_v2 retbleed spec_rstack_overflow; do
	echo "- $v: $(cat /sys/devices/system/cpu/vulnerabilities/$v 2>/dev/null)"
done
echo "### END report"
GUEST
sed -i "s/@ARGS@/$args/" "$work/run.sh"
"$TOP/tests/qemu/vm.sh" --kernel "$vmlinuz" --ko "$work/ko" --bin "$bindir" \
	--script "$work/run.sh" --smp 1 --kmods "$(dirname "$vmlinuz")/kmods" \
	--tools ip \
	--out "$work/log" --timeout 1200 >/dev/null
sed -n '/^### BEGIN report/,/^### END report/p' "$work/log" |
	sed '1d;$d' >"$work/report.md"
[ -s "$work/report.md" ] || die "no report in the guest log"
if [ -n "$native" ]; then
	nload=$(cut -d' ' -f1-3 /proc/loadavg)
	"$native" >"$work/native.md" || die "$native failed"
fi
{
	cat "$work/report.md"
	if [ -n "$native" ]; then
		echo
		echo "## Native cost of the same hashing and probing"
		echo
		cat "$work/native.md"
		echo
		echo "Host load average before the native run: $nload."
	fi
	echo
	echo "Host load average at the start: $load ($(date -u +%Y-%m-%d), a shared 2-core machine)."
} >"$out"
cat "$out"
