# SPDX-License-Identifier: GPL-2.0
#
# Guest script of `make realworld`'s network part (tests/qemu/realworld-net-vm.sh),
# for Debian's stock 6.12 kernel with veth and nf_tables: the full replay
# test (tests/replay_test.sh with MF_REPLAY_FULL=1), then iperf3 TCP and
# UDP through a veth pair (namespace tpA, the client, 10.9.0.1, to tpB,
# the server, 10.9.0.2) with each configuration at tpB's prerouting in
# turn, installed afresh before its run and removed after, alternating
# round by round within this boot:
#
#   none            nothing attached
#   mf-drop-hit     memfilter blocklist: saddr, Bloom of 1000 other sources
#   mf-drop-miss    memfilter allowlist: saddr, Bloom holding the client
#   mf-count        memfilter count: saddr on the blocklist
#   mf-dedup        memfilter dedup: l4-payload on a window filter (10 s)
#   nft-set         nftables: ip saddr @block drop (the same 1000 sources)
#   bpf-xdp         the BPF twin of the blocklist: bpf/xdp_blocklist on vb2,
#                   loaded by xdp-loader, on the same filter
#   bpf-nf-dedup    the BPF twin of dedup: bpf/nf_dedup (netfilter link)
#
# Every run must move data (iperf3 exits 0 with a non-zero receiver rate)
# and a ping must pass after it: nothing may lose connectivity. At the end
# nothing may be left: no attachment, filter, BPF program or nft table.
# The report (Markdown, between "### BEGIN report" and "### END report")
# has receiver Mbit/s per run; the host script computes ratios.

. /memfilter/lib.sh

BIN=$MF/bin
CTL=$BIN/memfilterctl
ROUNDS=${MF_TP_ROUNDS:-3}
SECS=${MF_TP_SECONDS:-3}
CONFIGS="none mf-drop-hit mf-drop-miss mf-count mf-dedup nft-set bpf-xdp bpf-nf-dedup"
export LIBXDP_OBJECT_PATH=$BIN

echo "# kernel $(uname -r)"
section tap module.load tap_check "insmod memfilter.ko" load_memfilter
MF_REPLAY_FULL=1 section tap selftest.replay_test $BIN/replay_test

inA() { nsenter --net=/run/netns/tpA "$@"; }
inB() { nsenter --net=/run/netns/tpB "$@"; }

mkdir -p /run /sys/fs/bpf /tmp/tp
grep -q ' /sys/fs/bpf ' /proc/mounts || mount -t bpf bpf /sys/fs/bpf
/sbin/ip netns add tpA && /sbin/ip netns add tpB &&
/sbin/ip -n tpB link add vb2 type veth peer name va2 netns tpA &&
/sbin/ip -n tpA addr add 10.9.0.1/24 dev va2 &&
/sbin/ip -n tpB addr add 10.9.0.2/24 dev vb2 &&
/sbin/ip -n tpA link set va2 up && /sbin/ip -n tpB link set vb2 up &&
/sbin/ip -n tpA link set lo up && /sbin/ip -n tpB link set lo up || exit 1

# The blocklist: 1000 sources 10.8.x.y, not the client (hex keys).
i=0
while [ $i -lt 1000 ]; do
	printf '0a08%04x\n' $i
	i=$((i + 1))
done >/tmp/tp/block.hex
# The same sources for nft, as addresses.
i=0
while [ $i -lt 1000 ]; do
	printf '%s10.8.%d.%d' "$([ $i = 0 ] || echo ', ')" $((i / 256)) $((i % 256))
	i=$((i + 1))
done >/tmp/tp/block.nft

up() {
	case $1 in
	none) ;;
	mf-drop-hit|mf-count|bpf-xdp)
		$CTL create tp.block --type bloom --capacity 1000 --fpr 0.01 &&
		$CTL add tp.block --hex /tmp/tp/block.hex >/dev/null || return 1
		case $1 in
		mf-drop-hit) inB $CTL nf attach tp.block --hook prerouting \
			--key saddr --action drop-hit >/tmp/tp/id ;;
		mf-count) inB $CTL nf attach tp.block --hook prerouting \
			--key saddr --action count >/tmp/tp/id ;;
		bpf-xdp) $CTL rm tp.block &&
			$CTL create xdp.blocklist --type bloom --capacity 1000 \
				--fpr 0.01 &&
			$CTL add xdp.blocklist --hex /tmp/tp/block.hex >/dev/null &&
			inB /sbin/xdp-loader load -m native vb2 \
				$BIN/xdp_blocklist.bpf.o ;;
		esac ;;
	mf-drop-miss)
		$CTL create tp.allow --type bloom --capacity 1000 --fpr 0.01 &&
		$CTL add tp.allow --hex --key 0a090001 >/dev/null &&
		inB $CTL nf attach tp.allow --hook prerouting --key saddr \
			--action drop-miss >/tmp/tp/id ;;
	mf-dedup)
		$CTL create tp.dedup --window 10s --capacity 500000 &&
		inB $CTL nf attach tp.dedup --hook prerouting --key l4-payload \
			--action dedup >/tmp/tp/id ;;
	nft-set)
		printf 'table ip tp {\n\tset block {\n\t\ttype ipv4_addr\n\t\telements = { %s }\n\t}\n\tchain pre {\n\t\ttype filter hook prerouting priority -350; policy accept;\n\t\tip saddr @block drop\n\t}\n}\n' \
			"$(cat /tmp/tp/block.nft)" >/tmp/tp/tp.nft &&
		inB /sbin/nft -f /tmp/tp/tp.nft ;;
	bpf-nf-dedup)
		$CTL create tc.dedup --window 10s --capacity 500000 || return 1
		# nsenter itself, not through inB: its pid is the loader's.
		nsenter --net=/run/netns/tpB $BIN/nf_dedup tc.dedup 100000 \
			>/tmp/tp/nf_dedup.out 2>&1 &
		echo $! >/tmp/tp/pid
		# Attached when it says so (loader_run's message).
		i=0
		while ! grep -q attached /tmp/tp/nf_dedup.out && [ $i -lt 100 ]; do
			sleep 0.2
			i=$((i + 1))
		done
		grep -q attached /tmp/tp/nf_dedup.out ;;
	esac
}

# gone PID: stop a loader started in up() (in a subshell, when up()'s
# output is redirected: not this shell's child to wait for) and wait
# until it has detached and exited.
gone() {
	kill -TERM "$1" || return 1
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 300 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	! kill -0 "$1" 2>/dev/null
}

down() {
	case $1 in
	mf-drop-hit|mf-count) inB $CTL nf detach "$(cat /tmp/tp/id)" &&
		$CTL rm tp.block ;;
	mf-drop-miss) inB $CTL nf detach "$(cat /tmp/tp/id)" && $CTL rm tp.allow ;;
	mf-dedup) inB $CTL nf detach "$(cat /tmp/tp/id)" && $CTL rm tp.dedup ;;
	nft-set) inB /sbin/nft delete table ip tp ;;
	bpf-xdp) inB /sbin/xdp-loader unload vb2 --all && $CTL rm xdp.blocklist ;;
	bpf-nf-dedup) gone "$(cat /tmp/tp/pid)" && $CTL rm tc.dedup ;;
	esac
}

# rate PROTO: the receiver's Mbit/s of one iperf3 run from tpA to tpB.
rate() {
	if [ "$1" = udp ]; then
		args="-u -b 0 -l 1400"
	else
		args=""
	fi
	# shellcheck disable=SC2086
	out=$(inA /sbin/iperf3 -c 10.9.0.2 -t "$SECS" -f m $args 2>&1) || {
		echo "$out" | sed 's/^/# iperf3: /' >&2
		return 1
	}
	echo "$out" | awk '/receiver/ { for (i = 1; i <= NF; i++)
		if ($i == "Mbits/sec") r = $(i - 1) } END { print r }'
}

inB /sbin/iperf3 -s >/tmp/tp/server.log 2>&1 &
server=$!
sleep 1
echo "### BEGIN tap throughput"
echo "TAP version 13"
n=0
tp_fail=0
: >/tmp/tp/rates
r=1
while [ $r -le "$ROUNDS" ]; do
	for c in $CONFIGS; do
		for p in tcp udp; do
			n=$((n + 1))
			if ! up "$c" >/tmp/tp/up.log 2>&1; then
				sed 's/^/# /' /tmp/tp/up.log
				echo "not ok $n round $r $c $p: install"
				tp_fail=1
				down "$c" >/dev/null 2>&1
				continue
			fi
			v=$(rate $p)
			if [ -n "$v" ] && [ "$v" != 0 ] && [ "$v" != 0.00 ] &&
			   inA ping -c 1 -W 5 10.9.0.2 >/dev/null 2>&1; then
				echo "ok $n round $r $c $p: $v Mbit/s, ping passes"
				echo "$c $p $r $v" >>/tmp/tp/rates
			else
				echo "not ok $n round $r $c $p: '${v:-}' Mbit/s or no ping"
				tp_fail=1
			fi
			down "$c" >/tmp/tp/down.log 2>&1 || {
				sed 's/^/# /' /tmp/tp/down.log
				n=$((n + 1))
				echo "not ok $n round $r $c $p: remove"
				tp_fail=1
			}
		done
	done
	r=$((r + 1))
done
# Nothing left behind.
n=$((n + 1))
left="$(inB $CTL nf list)$($CTL list)$(inB /sbin/nft list ruleset)"
left="$left$(/sbin/bpftool prog show | grep -E 'xdp_blocklist|nf_dedup|xdp_dispatcher')"
if [ -z "$left" ]; then
	echo "ok $n nothing left: no attachment, filter, nft table or BPF program"
else
	echo "$left" | sed 's/^/# /'
	echo "not ok $n nothing left: no attachment, filter, nft table or BPF program"
	tp_fail=1
fi
echo "1..$n"
echo "### END tap throughput rc=$tp_fail"
[ $tp_fail = 0 ] || failed=1
kill "$server"
wait "$server" 2>/dev/null

echo "### BEGIN rates"
cat /tmp/tp/rates
echo "### END rates"
/sbin/ip netns del tpA
/sbin/ip netns del tpB
section tap module.unload tap_check "rmmod memfilter" unload_memfilter
exit $failed
