#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make realworld`, the network part: replayed traffic (tcpreplay)
# through memfilter's netfilter hook and the XDP and TC examples with
# exact counts against replay_predict's, the XDP example loaded by
# xdp-loader, and iperf3 TCP and UDP through a veth pair with each
# configuration (tests/qemu/realworld-net.sh runs in the guest). One
# boot of Debian's stock 6.12 kernel (one vCPU, TCG: throughput ratios
# only), with its veth and nf_tables modules (stock-kernel.sh's kmods/ and
# kmods-nf/) and Debian's tcpreplay, xdp-loader, tc, iperf3, nft, ip and
# bpftool.
#
# Writes this part's section of bench/results/realworld.md (between its
# markers; other parts' sections are kept). Exit status: 0 only if the
# guest passed.
#
#   BUILD        build directory (default build)
#   MF_TP_ROUNDS iperf3 rounds (default 5), MF_TP_SECONDS per run (3)
#
# Log: $BUILD/results/vm-realworld-net.log.

set -eu
cd "$(dirname "$0")/../.."
. scripts/common.sh

B=${BUILD:-build}
R=$B/results
REPORT=bench/results/realworld.md
TOOLS="ip bpftool tcpreplay xdp-loader tc iperf3 nft"
mkdir -p "$R"
for t in $TOOLS; do
	PATH=/usr/sbin:/sbin:/usr/bin:/bin command -v "$t" >/dev/null ||
		die "$t is not installed (scripts/deps.sh)"
done

read -r KDIR612 VMLINUZ612 < <(tests/qemu/stock-kernel.sh 6.12) ||
	die "no stock 6.12 kernel"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
scripts/build-module.sh "$KDIR612" "$B/kbuild/stock-6.12" >/dev/null
FILES="memfilterctl nf_dedup tc_dedup replay.pcap replay_predict replay_test
	tap.sh xdp-dispatcher.o xdp_blocklist.bpf.o tc_dedup.bpf.o"
# shellcheck disable=SC2046 # one target per file
make -s BUILD="$B" $(for f in $FILES; do echo "$B/guest/bin/$f"; done)
mkdir "$work/bin" "$work/kmods"
for f in $FILES; do
	cp "$B/guest/bin/$f" "$work/bin/"
done
# kmods-nf/ names (01-crc32c_generic.ko ...) sort first: their load order.
cp "$(dirname "$VMLINUZ612")"/kmods/*.ko \
	"$(dirname "$VMLINUZ612")"/kmods-nf/*.ko "$work/kmods/"

log=$R/vm-realworld-net.log
rc=0
load=$(uptime)
tests/qemu/vm.sh --kernel "$VMLINUZ612" --ko "$B/kbuild/stock-6.12" \
	--bin "$work/bin" --script tests/qemu/realworld-net.sh --smp 1 \
	--mem 2G --kmods "$work/kmods" --tools "$TOOLS" \
	--env MF_TP_ROUNDS="${MF_TP_ROUNDS:-5}" \
	--env MF_TP_SECONDS="${MF_TP_SECONDS:-3}" \
	--out "$log" --timeout 3600 || rc=1
scripts/results.py "$log" || rc=1

python3 - "$log" "$REPORT" "$rc" "$load" <<'PY'
import re
import statistics
import sys

log, report, rc, load = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
BEGIN = "<!-- BEGIN realworld-net (tests/qemu/realworld-net-vm.sh) -->"
END = "<!-- END realworld-net -->"
lines = open(log, errors="replace").read().splitlines()


def section(name):
    out, inside = [], False
    for line in lines:
        if line.startswith("### BEGIN") and line.split()[-1] == name:
            inside = True
            continue
        if inside and line.startswith("### END"):
            break
        if inside:
            out.append(line)
    return out


kernel = next((l[9:] for l in lines if l.startswith("# kernel ")), "?")
out = [BEGIN, "## Netfilter hook, XDP and TC (replayed traffic, xdp-loader, iperf3)", "",
       f"Debian's stock {kernel} in QEMU TCG, one vCPU (`make realworld`, "
       "tests/qemu/realworld-net-vm.sh; guest script tests/qemu/realworld-net.sh). "
       f"Guest {'passed' if rc == '0' else 'FAILED'}.", "",
       "### Replayed capture (tests/replay_test.sh, MF_REPLAY_FULL=1)", "",
       "The capture: tests/data/gen_replay_pcap.py (scapy, fixed seed), sent "
       "by `tcpreplay --topspeed` from namespace rpA over veth into rpB. "
       "Each row: what the real tools counted against what replay_predict "
       "computed offline from the same capture and filter image (libmemfilter, "
       "false positives included); a row passes only when they are equal.", "",
       "| check | result | counts |", "|---|---|---|"]
rep = section("selftest.replay_test")
i = 0
while i < len(rep):
    m = re.match(r"^(ok|not ok) \d+ (.*)$", rep[i])
    if m:
        detail = []
        j = i + 1
        while j < len(rep) and rep[j].startswith("#   "):
            detail.append(rep[j][4:].strip())
            j += 1
        out.append(f"| {m.group(2)} | {'pass' if m.group(1) == 'ok' else '**FAIL**'} "
                   f"| {'; '.join(detail)} |")
    i += 1

rates = {}
for l in section("rates"):
    f = l.split()
    if len(f) == 4:
        rates.setdefault((f[0], f[1]), []).append(float(f[3]))
tp = section("throughput")
fails = [l for l in tp if l.startswith("not ok")]
out += ["", "### iperf3 through the veth pair", "",
        "Namespace tpA (client) to tpB (server), each configuration at tpB's "
        "prerouting (XDP: on vb2), installed afresh before each run, the "
        "configurations alternating round by round; receiver Mbit/s. Under "
        "TCG read the ratios to `none` (medians), not the rates; spread is "
        "(max - min) / median of a configuration's runs.", ""]
order = ["none", "mf-drop-hit", "mf-drop-miss", "mf-count", "mf-dedup",
         "nft-set", "bpf-xdp", "bpf-nf-dedup"]
what = {"none": "nothing attached",
        "mf-drop-hit": "memfilter drop-hit, saddr, Bloom of 1000 other sources",
        "mf-drop-miss": "memfilter drop-miss, saddr, allowlist holding the client",
        "mf-count": "memfilter count, saddr",
        "mf-dedup": "memfilter dedup, l4-payload, window filter",
        "nft-set": "nftables `ip saddr @block drop`, the same 1000 sources",
        "bpf-xdp": "bpf/xdp_blocklist by xdp-loader, the same filter",
        "bpf-nf-dedup": "bpf/nf_dedup (netfilter link), window filter"}
for proto in ("tcp", "udp"):
    base = rates.get(("none", proto))
    bmed = statistics.median(base) if base else None
    out += [f"{proto.upper()}:", "",
            "| configuration | runs | median Mbit/s | min .. max | spread | / none |",
            "|---|---|---|---|---|---|"]
    for c in order:
        v = rates.get((c, proto))
        if not v:
            out.append(f"| {c}: {what[c]} | 0 | - | - | - | - |")
            continue
        med = statistics.median(v)
        ratio = f"{med / bmed:.3f}" if bmed else "-"
        spread = f"{(max(v) - min(v)) / med:.2f}" if med else "-"
        out.append(f"| {c}: {what[c]} | {len(v)} | {med:.1f} | {min(v):.1f} .. "
                   f"{max(v):.1f} | {spread} | {ratio} |")
    out.append("")
ntp = sum(1 for l in tp if re.match(r"^(ok|not ok) \d+", l))
out.append(f"Connectivity and leaks: {ntp - len(fails)} of {ntp} checks passed "
           "(every run moved data and a ping passed after it; at the end no "
           "attachment, filter, nft table or BPF program was left)" +
           ("." if not fails else "; failed: " + "; ".join(fails)))
out += ["", f"Host load at the start (a shared 2-core machine): `{load}`.", END]
sec = "\n".join(out) + "\n"
try:
    text = open(report).read()
except OSError:
    text = "# Real-world clients (make realworld)\n\n"
# This part's section in place, or appended: other parts' stay as they are.
mine = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END) + "\n?", re.S)
if mine.search(text):
    text = mine.sub(lambda _: sec, text)
else:
    text = text.rstrip("\n") + "\n\n" + sec
with open(report, "w") as f:
    f.write(text)
print(sec)
PY
exit $rc
