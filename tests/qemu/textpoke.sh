# SPDX-License-Identifier: GPL-2.0
#
# Guest script for tests/qemu/textpoke-vm.sh: QEMU 7.2's multi-threaded TCG
# race with the kernel's text patching (Documentation/testing.rst,
# "Guests"). CPU 0 attaches and detaches a netfilter hook at IPv4
# PREROUTING, which flips the nf_hooks_needed static key each time
# (text_poke_bp(): int3, sync, tail, sync, first byte, sync), while
# CPU 1 receives a ping flood over lo through ip_rcv(), whose NF_HOOK
# branch is one of the patched sites. Under the race the kernel oopses
# with "int3" in ip_rcv and tests/qemu/vm.sh fails the run.
#
# Environment: MF_POKE_ROUNDS (attach/detach pairs, 300).

. /memfilter/lib.sh

N=${MF_POKE_ROUNDS:-300}

# poke: N attach/detach pairs on CPU 0 under a ping flood on CPU 1.
poke() {
	ip link set lo up || return 1
	memfilterctl create poke --type bloom --capacity 1000 || return 1
	taskset -c 1 ping -A -q 127.0.0.1 >/dev/null 2>&1 &
	pid=$!
	i=0
	while [ $i -lt "$N" ]; do
		id=$(taskset -c 0 memfilterctl nf attach poke --hook prerouting \
			--key saddr --action count --family ipv4) &&
			taskset -c 0 memfilterctl nf detach "$id" || break
		i=$((i + 1))
	done
	kill $pid
	wait $pid 2>/dev/null
	echo "$i of $N attach/detach pairs"
	memfilterctl rm poke && [ "$i" = "$N" ]
}

echo "# kernel $(uname -r), $MF_CPUS CPUs"
section tap guest.cpus tap_check "kernel brought up $MF_CPUS CPUs" cpus_online
section tap module.load tap_check "insmod memfilter.ko" load_memfilter
section tap textpoke.nf tap_check "static key flips under traffic" poke
section tap module.unload tap_check "rmmod memfilter" unload_memfilter
exit $failed
