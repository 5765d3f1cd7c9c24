# SPDX-License-Identifier: GPL-2.0
#
# Guest script for bench/latency-vm.sh: the bottom-half latency benchmark
# (KUnit suite memfilter_latency) in the debug test kernel.

. /memfilter/lib.sh

section tap guest.cpus tap_check "kernel brought up $MF_CPUS CPUs" cpus_online
section tap module.load tap_check "insmod memfilter.ko" load_memfilter
run_kunit $MF/memfilter_latency.ko
exit $failed
