#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Replayed traffic through memfilter, sent and loaded by the tools users
# run (guest selftest; installed as replay_test). tcpreplay sends the
# capture of tests/data/gen_replay_pcap.py (TCP, UDP, ICMP, IPv4 and IPv6,
# fragments, retransmissions, duplicated frames, ARP) from namespace rpA
# across a veth pair into namespace rpB, where it meets
#
#  - memfilter's netfilter hook (memfilterctl nf attach) at prerouting:
#    for each case the filter image is built from the capture's own keys
#    with `memfilterctl build`, loaded into the kernel, and replay_predict
#    computes from the same capture and the same image, with
#    libmemfilter's offline filters, what the hook must count (packets,
#    skipped, hits, misses, drops, added): false positives included;
#  - the XDP blocklist example, loaded by xdp-loader (xdp-tools), listed by
#    `xdp-loader status` and `bpftool net`, unloaded by xdp-loader;
#  - (MF_REPLAY_FULL=1) the TC dedup example, attached by tc.
#
# Every count is exact: tcpreplay's "Successful packets" is the number of
# frames in the capture and the rise of vb's RX packets (`ip -s link`);
# the hook's counters (debugfs) and the BPF programs' (bpftool map dump)
# equal the prediction; a second attachment, action count at priority 0,
# counts the IP packets that got past the first: the IP packets of the
# capture less the predicted drops. After a dedup replay the kernel's
# filter (memfilterctl dump) is byte for byte the image replay_predict
# left after its own test-and-adds.
#
# make check runs the blocklist and dedup replays and xdp-loader's load, status and
# unload (with a replay through it); MF_REPLAY_FULL=1 (`make realworld`)
# adds allowlist, count and dedup through the hook and the TC example.
# Skips what the guest lacks: tcpreplay (a guest without --tools
# tcpreplay), BPF kfuncs (Debian's 6.1), xdp-loader, tc.

BIN=/memfilter/bin
CTL=$BIN/memfilterctl
PRED=$BIN/replay_predict
PCAP=$BIN/replay.pcap
NF=/sys/kernel/debug/memfilter/netfilter
T=/tmp/replay
full=${MF_REPLAY_FULL:-0}
# The TAP library, installed beside this script (tests/tap.sh).
. $BIN/tap.sh

tap_begin
# check DESC EXPECTED GOT
check() {
	if [ "$2" = "$3" ]; then
		tap_ok "$1"
		echo "#   $3"
	else
		tap_not_ok "$1"
		echo "#   expected: $2"
		echo "#   got:      $3"
	fi
}
# finish: the plan, and exit 0 only if every test passed.
finish() {
	tap_end
	exit
}
inA() { nsenter --net=/run/netns/rpA "$@"; }
inB() { nsenter --net=/run/netns/rpB "$@"; }

if [ ! -x /sbin/tcpreplay ] || [ ! -x /sbin/ip ]; then
	tap_skip "replay: no tcpreplay or ip in this guest (vm.sh --tools)"
	finish
fi
rm -rf $T
mkdir -p $T /run
# Frames and IP packets of the capture (the count action on an image of
# nothing: every IP packet is a miss).
$CTL build --type bloom --capacity 10 -o $T/none.img </dev/null || finish
set -- $($PRED nf $PCAP saddr count $T/none.img)
ip_pkts=$2
set -- $($PRED xdp $PCAP $T/none.img)
frames=$(($4 + $6))

# --- the veth pair: rpA (va, the sender) -> rpB (vb, receives) -------------
/sbin/ip netns del rpA 2>/dev/null
/sbin/ip netns del rpB 2>/dev/null
/sbin/ip netns add rpA && /sbin/ip netns add rpB || { tap_not_ok "ip netns add"; finish; }
# The sender must send nothing of its own (IPv6 router solicitations, DAD
# and MLD reports would reach vb): IPv6 off in rpA before va exists.
inA sh -c 'echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6 &&
	echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6' &&
/sbin/ip -n rpB link add vb address 02:00:00:00:00:02 type veth peer name va \
	address 02:00:00:00:00:01 netns rpA &&
/sbin/ip -n rpA link set va up && /sbin/ip -n rpB link set vb up ||
	{ tap_not_ok "veth pair rpA/va - rpB/vb"; finish; }

rx_packets() {
	/sbin/ip -n rpB -s link show dev vb | awk '/RX:/ { getline; print $2; exit }'
}

# hook_counts ID: the attachment's counters in replay_predict's order.
hook_counts() {
	awk -v id="$1" '$2 == id { print "packets", $9, "skipped", $13,
		"hits", $10, "misses", $14, "drops", $11, "added", $12,
		"add_failed", $15 }' $NF
}

# replay DESC: send the capture from rpA; check tcpreplay's count and
# vb's RX packets against the capture's frames.
replay() {
	before=$(rx_packets)
	out=$(inA /sbin/tcpreplay -i va --topspeed $PCAP 2>&1)
	sent=$(echo "$out" | awk '/Successful packets:/ { print $3 }')
	after=$(rx_packets)
	check "$1: tcpreplay sent every frame, vb received them (ip -s link)" \
		"sent $frames received $frames" \
		"sent ${sent:-?} received $((after - before))"
	[ -n "$sent" ] || echo "$out" | sed 's/^/# tcpreplay: /'
}

# settle TARGET CMD...: wait (up to 120 s) until CMD prints TARGET, then
# one second more. veth counts a frame as received when it is sent, but
# the receive path may run later, in ksoftirqd on a loaded host: the
# counters are read when the one under test has seen every packet.
settle() {
	target=$1
	shift
	i=0
	while [ "$("$@")" != "$target" ] && [ $i -lt 120 ]; do
		sleep 1
		i=$((i + 1))
	done
	sleep 1
}
hook_packets() { hook_counts "$1" | awk '{ print $2 }'; }
# count_hook: attach the counting attachment behind the one under test.
count_hook() {
	$CTL load rp.past <$T/none.img &&
	cid=$(inB $CTL nf attach rp.past --hook prerouting --key saddr \
		--action count --priority 0)
}
# nf_case NAME KEY ACTION IMAGE: replay through one attachment.
nf_case() {
	name=$1 key=$2 action=$3 img=$4
	$CTL load rp.$name <"$img" || { tap_not_ok "$name: load the image"; return; }
	id=$(inB $CTL nf attach rp.$name --hook prerouting --key "$key" \
		--action "$action") || { tap_not_ok "$name: nf attach"; return; }
	count_hook || { tap_not_ok "$name: count attachment"; return; }
	want=$($PRED nf $PCAP "$key" "$action" "$img" $T/$name.after.img)
	replay "$name"
	settle "$ip_pkts" hook_packets "$id"
	check "$name: hook counters ($key, $action) = replay_predict's" \
		"$want" "$(hook_counts "$id")"
	set -- $want
	passed=$(($2 - ${10}))
	set -- $(hook_counts "$cid")
	check "$name: IP packets past the hook (count attachment at priority 0)" \
		"packets $passed" "packets ${2:-?}"
	if [ "$action" = dedup ]; then
		$CTL dump rp.$name -o $T/$name.kernel.img
		same_image "$name: the kernel's filter after the replay = replay_predict's image" \
			$T/$name.kernel.img $T/$name.after.img
	fi
	inB $CTL nf detach "$id"
	inB $CTL nf detach "$cid"
	$CTL rm rp.$name
	$CTL rm rp.past
}

# same_image DESC KERNEL.img PREDICTED.img: the same bits (fill and the
# payload's checksum; the header's key counter is left out: the kernel's
# test-and-add counts a key found present as an add too, the offline
# query-then-add does not).
filter_bits() {
	$CTL inspect "$1" | sed -n 's/^fill: *//p; s/.*checksums:.*payload \(0x[0-9a-f]*\).*/payload \1/p' |
		tr '\n' ' '
}
same_image() {
	check "$1" "$(filter_bits "$3")" "$(filter_bits "$2")"
}

# The filter images, from the capture's own keys (every 4th source address
# blocked, every 2nd 5-tuple allowed: small filters at a 5% target rate,
# so that false positives happen), with fixed seeds.
$PRED keys $PCAP saddr 4 | $CTL build --type bloom --capacity 48 --fpr 0.05 \
	--seed 1 --hex -o $T/block.img 2>/dev/null
$PRED keys $PCAP 5-tuple 2 | $CTL build --type bloom --capacity 200 \
	--fpr 0.05 --seed 2 --hex -o $T/allow.img 2>/dev/null
$CTL build --type bloom --capacity 2000 --fpr 0.01 --seed 3 \
	-o $T/dedup.img </dev/null

nf_case blocklist saddr drop-hit $T/block.img
nf_case dedup l4-payload dedup $T/dedup.img
if [ "$full" = 1 ]; then
	nf_case allowlist 5-tuple drop-miss $T/allow.img
	nf_case count 5-tuple count $T/allow.img
	nf_case daddr daddr drop-hit $T/block.img
fi

# --- XDP: xdp-loader -----------------------------------------------------------
# bss_counts PROG FIELD...: "FIELD VALUE ..." from the .bss of the loaded
# program PROG (one bpftool map dump per map: each bpftool run costs
# seconds in the debug guest).
bss_counts() {
	prog=$1
	shift
	maps=$(/sbin/bpftool prog show name "$prog" |
		sed -n 's/.*map_ids \([0-9,]*\).*/\1/p' | tr , ' ')
	dump=$(for m in $maps; do /sbin/bpftool map dump id "$m"; done 2>/dev/null)
	for f in "$@"; do
		v=$(echo "$dump" | sed -n "s/.*\"$f\": \([0-9]*\).*/\1/p" | head -n 1)
		echo "$f ${v:-?}"
	done | tr '\n' ' ' | sed 's/ $//'
}
bss_total() {
	bss_counts "$@" | awk '{ for (i = 2; i <= NF; i += 2) t += $i } END { print t + 0 }'
}

if ! $CTL version 2>/dev/null | grep -q bpf-kfuncs; then
	tap_skip "xdp-loader: the module has no BPF kfuncs on this kernel"
	finish
fi
if [ ! -x /sbin/xdp-loader ] || [ ! -x /sbin/bpftool ]; then
	tap_skip "xdp-loader: not in this guest (vm.sh --tools xdp-loader bpftool)"
	finish
fi
mkdir -p /sys/fs/bpf
grep -q ' /sys/fs/bpf ' /proc/mounts || mount -t bpf bpf /sys/fs/bpf
# libxdp's dispatcher object, beside the test (Debian: /usr/lib/.../bpf).
export LIBXDP_OBJECT_PATH=$BIN
$CTL load xdp.blocklist <$T/block.img
if out=$(inB /sbin/xdp-loader load -m native vb $BIN/xdp_blocklist.bpf.o 2>&1); then
	tap_ok "xdp-loader load -m native vb xdp_blocklist.bpf.o"
else
	tap_not_ok "xdp-loader load -m native vb xdp_blocklist.bpf.o"
fi
echo "$out" | sed 's/^/# /'
st=$(inB /sbin/xdp-loader status vb 2>&1)
echo "$st" | sed 's/^/# /'
if echo "$st" | grep -q 'xdp_blocklist'; then
	tap_ok "xdp-loader status vb lists xdp_blocklist"
else
	tap_not_ok "xdp-loader status vb lists xdp_blocklist"
fi
net=$(inB /sbin/bpftool net show dev vb 2>&1)
echo "$net" | sed 's/^/# /'
pid=$(echo "$net" | sed -n 's/.*vb(.*) driver id \([0-9]*\).*/\1/p')
pname=$(/sbin/bpftool prog show id "${pid:-0}" 2>/dev/null | sed -n 's/^[0-9]*: xdp  *name \([^ ]*\).*/\1/p')
case "$pname" in
xdp_blocklist|xdp_dispatcher)
	tap_ok "bpftool net: vb has an XDP program in driver mode ($pname)" ;;
*)	tap_not_ok "bpftool net: vb has an XDP program in driver mode (id '${pid:-}', '${pname:-}')" ;;
esac

count_hook
want=$($PRED xdp $PCAP $T/block.img)
replay xdp
settle "$frames" bss_total xdp_blocklist dropped passed not_ip no_filter
set -- $want
got=$(bss_counts xdp_blocklist dropped passed not_ip no_filter)
check "xdp: the program's counters (bpftool map dump) = replay_predict's" "$want" "$got"
set -- $want
check "xdp: IP packets past XDP (count attachment)" "packets $((ip_pkts - $2))" \
	"$(hook_counts "$cid" | awk '{ print $1, $2 }')"
inB $CTL nf detach "$cid"
$CTL rm rp.past

if out=$(inB /sbin/xdp-loader unload vb --all 2>&1); then
	tap_ok "xdp-loader unload vb --all"
else
	tap_not_ok "xdp-loader unload vb --all"
	echo "$out" | sed 's/^/# /'
fi
net=$(inB /sbin/bpftool net show dev vb 2>&1)
if echo "$net" | grep -q 'driver id\|generic id'; then
	tap_not_ok "bpftool net: nothing left on vb"
	echo "$net" | sed 's/^/# /'
else
	tap_ok "bpftool net: nothing left on vb"
fi
if /sbin/bpftool prog show name xdp_blocklist 2>/dev/null | grep -q .; then
	tap_not_ok "no xdp_blocklist program left loaded"
else
	tap_ok "no xdp_blocklist program left loaded"
fi
$CTL rm xdp.blocklist

# --- TC (MF_REPLAY_FULL): tc filter ... bpf obj, else the example's loader --
# Debian's stock kernels have clsact (sch_ingress) and cls_bpf as modules
# that the guests do not load: there the example's own loader attaches
# it to tcx (built in since 6.6).
if [ "$full" = 1 ]; then
	$CTL load tc.dedup <$T/dedup.img
	loader=
	if [ -x /sbin/tc ] && inB /sbin/tc qdisc add dev vb clsact 2>$T/tc.err; then
		how="tc filter add dev vb ingress bpf da obj tc_dedup.bpf.o"
		inB /sbin/tc filter add dev vb ingress bpf direct-action \
			obj $BIN/tc_dedup.bpf.o sec tc 2>>$T/tc.err
	else
		how="tc_dedup vb tc.dedup (tcx; no clsact: $(head -n 1 $T/tc.err))"
		# nsenter itself, not through inB: its pid is the loader's.
		nsenter --net=/run/netns/rpB $BIN/tc_dedup vb tc.dedup 100000 \
			>$T/tc.out 2>&1 &
		loader=$!
		settle 1 grep -c attached $T/tc.out
		grep -q attached $T/tc.out
	fi && tap_ok "$how" || { tap_not_ok "$how"; sed 's/^/# /' $T/tc.err; }
	count_hook
	want=$($PRED tc $PCAP $T/dedup.img $T/tc.after.img)
	replay tc
	settle "$frames" bss_total tc_dedup dropped passed not_udp \
		no_filter errors
	got=$(bss_counts tc_dedup dropped passed not_udp no_filter errors)
	check "tc: the program's counters (bpftool map dump) = replay_predict's" "$want" "$got"
	set -- $want
	check "tc: IP packets past TC (count attachment)" \
		"packets $((ip_pkts - $2))" \
		"$(hook_counts "$cid" | awk '{ print $1, $2 }')"
	$CTL dump tc.dedup -o $T/tc.kernel.img
	same_image "tc: the kernel's filter after the replay = replay_predict's image" \
		$T/tc.kernel.img $T/tc.after.img
	inB $CTL nf detach "$cid"
	$CTL rm rp.past
	if [ -n "$loader" ]; then
		kill -TERM "$loader"
		wait "$loader"
		sed 's/^/# tc_dedup: /' $T/tc.out
	else
		inB /sbin/tc qdisc del dev vb clsact
	fi
	$CTL rm tc.dedup
fi

/sbin/ip netns del rpA
/sbin/ip netns del rpB
finish
