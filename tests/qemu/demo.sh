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

say "an unprivileged user may not open the device"
if su nobody -s /bin/sh -c 'memfilterctl list' 2>&1; then
	echo "unexpected: nobody opened /dev/memfilter"
	exit 1
fi

say "unloading with filters still published: the module drops them"
rmmod memfilter
[ ! -e /dev/memfilter ] && echo "/dev/memfilter is gone"
