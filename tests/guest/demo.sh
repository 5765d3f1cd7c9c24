# SPDX-License-Identifier: GPL-2.0
#
# Guest script for `make demo`: the story of memfilter, told on a real
# kernel. Fails (non-zero) if any step does not do what it says.

set -e
say() { printf '\n\033[1m>>> %s\033[0m\n' "$*"; }

say "kernel $(uname -r), loading memfilter.ko"
insmod /memfilter/memfilter.ko
dmesg | grep 'memfilter:' | tail -n 1
ls -l /dev/memfilter

say "memfilterctl version: the ABI handshake"
memfilterctl version

say "an unprivileged user may not open the device"
if su nobody -s /bin/sh -c 'memfilterctl version' 2>&1; then
	echo "unexpected: nobody opened /dev/memfilter"
	exit 1
fi

say "unloading"
rmmod memfilter
[ ! -e /dev/memfilter ] && echo "/dev/memfilter is gone"
