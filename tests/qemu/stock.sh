# SPDX-License-Identifier: GPL-2.0
#
# Guest script for Debian's stock kernels (no KUnit): the module loads,
# every selftest passes against it, and it unloads.

. /memfilter/lib.sh

echo "# kernel $(uname -r)"
section tap guest.cpus tap_check "kernel brought up $MF_CPUS CPUs" cpus_online
# The ioctl fuzzer runs its full minute in the debug guest only.
export MF_FUZZ_SECONDS=${MF_FUZZ_SECONDS:-20}
section tap module.load tap_check "insmod memfilter.ko" load_memfilter
for t in $MF/bin/*_test; do
	only_selected "${t##*/}" || continue
	section tap "selftest.${t##*/}" "$t"
done
section tap module.unload tap_check "rmmod memfilter" unload_memfilter
exit $failed
