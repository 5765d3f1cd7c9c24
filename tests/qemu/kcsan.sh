# SPDX-License-Identifier: GPL-2.0
#
# Guest script for the KCSAN test kernel: the KUnit suites (the Bloom and
# cuckoo stress kthreads), the selftests that race threads through the
# ioctls and the dedup target's test (racing writers), on two CPUs.
# vm.sh fails the run on any "BUG: KCSAN:" report.

. /memfilter/lib.sh

section tap guest.cpus tap_check "kernel brought up $MF_CPUS CPUs" cpus_online
section tap module.load tap_check "insmod memfilter.ko" load_memfilter
run_kunit $MF/memfilter_kunit.ko
section tap selftest.filter_test.threads "$MF/bin/filter_test" \
	-t threads_bloom -t threads_cuckoo
# The dedup target under racing writers, suspend and reload with writes in
# flight (about 50 s here); the device is read back as in the debug guest.
MF_DM_DEVICE_READS=few section tap selftest.dm_test "$MF/bin/dm_test"
section tap module.unload tap_check "rmmod memfilter" unload_memfilter
exit $failed
