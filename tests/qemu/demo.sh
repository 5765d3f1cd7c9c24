# SPDX-License-Identifier: GPL-2.0
#
# Guest script for `make demo`: the story of memfilter, told on Debian's
# stock kernel. Fails (non-zero) if any step does not do what it says.

set -e
say() { printf '\n\033[1m>>> %s\033[0m\n' "$*"; }
T=/tmp/demo
mkdir -p $T

. /memfilter/lib.sh
say "kernel $(uname -r) on $MF_CPUS CPUs: loading memfilter.ko"
cpus_online
insmod /memfilter/memfilter.ko
dmesg | grep 'memfilter:' | tail -n 1
ls -l /dev/memfilter
memfilterctl version

say "a Bloom filter for 1M keys at 1% FPR, and a cuckoo filter with 12-bit fingerprints"
memfilterctl create demo.bloom --type bloom --capacity 1000000 --fpr 0.01
memfilterctl create demo.cuckoo --type cuckoo --capacity 1000000 --fingerprint-bits 12
memfilterctl list

say "loading a million keys into each (progress on stderr)"
awk 'BEGIN { for (i = 0; i < 1000000; i++) print "user-" i }' >$T/keys
awk 'BEGIN { for (i = 0; i < 1000000; i++) print "stranger-" i }' >$T/absent
echo "bloom: added $(memfilterctl add demo.bloom $T/keys)"
echo "cuckoo: added $(memfilterctl add demo.cuckoo $T/keys)"

say "querying: every present key answers 'maybe', absent keys rarely do"
for f in demo.bloom demo.cuckoo; do
	p=$(memfilterctl query --count $f $T/keys)
	a=$(memfilterctl query --count $f $T/absent || true)
	echo "$f: present $p/1000000, absent keys answering maybe: $a/1000000" \
		"(measured FPR $(awk -v a="$a" 'BEGIN { printf "%.3f%%", a / 10000 }'))"
	[ "$p" = 1000000 ]
done
printf 'user-42\nnobody-here\n' | memfilterctl query demo.bloom - || true

say "info: the kernel's own estimate of the FPR from the actual fill"
memfilterctl info demo.bloom
memfilterctl info demo.cuckoo

say "deleting half the keys from the cuckoo filter"
head -n 500000 $T/keys >$T/half
echo "deleted: $(memfilterctl del demo.cuckoo $T/half)"
echo "still present: $(memfilterctl query --count demo.cuckoo $T/keys || true) (500000 plus false positives)"

say "images: dump the Bloom filter, load it back under a new name, same answers"
memfilterctl dump demo.bloom >$T/bloom.img
memfilterctl inspect $T/bloom.img
memfilterctl load demo.copy <$T/bloom.img
echo "copy: present $(memfilterctl query --count demo.copy $T/keys)/1000000"

say "time windows: a filter that forgets (seen: test-and-add; kept 2 to 3 s)"
memfilterctl create demo.recent --window 2s --generations 3 --capacity 10000
for k in alice bob; do
	memfilterctl seen demo.recent --key $k >/dev/null || echo "$k: new"
done
echo "seen again: $(memfilterctl seen demo.recent --key alice --key carol)"
sleep 4
memfilterctl seen demo.recent --key alice >/dev/null && exit 1
echo "after 4 s alice is new again: forgotten"
memfilterctl info demo.recent | grep -A 4 '^generations:'

# Two network namespaces joined by a veth pair: 10.0.0.2 (mfB) pings
# 10.0.0.1 (mfA), whose filters decide.
mkdir -p /run
ip netns add mfA
ip netns add mfB
ip link add va netns mfA type veth peer name vb netns mfB
ip -n mfA addr add 10.0.0.1/24 dev va
ip -n mfA link set va up
ip -n mfB addr add 10.0.0.2/24 dev vb
ip -n mfB link set vb up
pings() { ip netns exec mfB ping -q -c "$1" -W 2 10.0.0.1 >/dev/null 2>&1; }

say "netfilter: a blocklist of source addresses, dropped at the input hook"
memfilterctl create demo.deny --type bloom --capacity 100000 --fpr 0.0001
memfilterctl add demo.deny --hex --key 0a000002 >/dev/null	# 10.0.0.2
pings 1 && echo "before: 10.0.0.2 pings 10.0.0.1"
id=$(ip netns exec mfA memfilterctl nf attach demo.deny --hook input \
	--key saddr --action drop-hit --family ipv4)
ip netns exec mfA memfilterctl nf list
pings 3 && exit 1
echo "attached: the pings are dropped"
ip netns exec mfA memfilterctl nf stats "$id"
ip netns exec mfA memfilterctl nf detach "$id"
pings 1 && echo "detached: pings pass again"

say "XDP: the same blocklist from a BPF program, in the driver (kfunc by id)"
ip netns exec mfA xdp_blocklist va demo.deny 8 >$T/xdp.out &
xdp=$!
sleep 3
pings 3 && exit 1
echo "XDP program attached: the pings are dropped before the stack"
wait $xdp
cat $T/xdp.out
grep -q '^dropped [1-9]' $T/xdp.out

say "device mapper: memfilter-dedup skips rewriting blocks the device already holds"
export DM_DISABLE_UDEV=1	# no udev here: dmsetup makes /dev/mapper nodes
truncate -s 16M $T/disk
loop=$(losetup -f --show $T/disk)
memfilterctl create demo.blocks --type bloom --capacity 100000 --fpr 0.001
dmsetup --noudevsync create demo --table \
	"0 32768 memfilter-dedup $loop demo.blocks"
dmsetup table demo
dd if=/dev/urandom of=$T/image bs=1M count=8 2>/dev/null
# status: start length target writes elided verify_reads mismatches
# filter_negatives ... (Documentation/device-mapper.rst)
copy() {
	what=$1
	dmsetup message demo 0 reset
	dd if=$T/image of=/dev/mapper/demo bs=1M oflag=direct 2>/dev/null
	set -- $(dmsetup status demo)
	echo "$what: $4 block writes, $5 skipped (read back: equal), $8" \
		"written without a read (the filter had never seen them)"
}
copy "first copy of an 8 MiB image"
copy "the same image again"
set -- $(dmsetup status demo)
[ "$4" = 2048 ] && [ "$5" = 2048 ]
dmsetup --noudevsync remove demo
losetup -d $loop

say "an unprivileged user may not open the device"
if su nobody -s /bin/sh -c 'memfilterctl list' 2>&1; then
	echo "unexpected: nobody opened /dev/memfilter"
	exit 1
fi

say "unloading with filters still published: the module drops them"
rmmod memfilter
[ ! -e /dev/memfilter ] && echo "/dev/memfilter is gone"
