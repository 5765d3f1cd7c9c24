# SPDX-License-Identifier: GPL-2.0
#
# Guest script for Debian's stock kernels (no KUnit): the module loads,
# every selftest passes against it, and it unloads.

. /memfilter/lib.sh

echo "# kernel $(uname -r)"
section tap guest.cpus tap_check "kernel brought up $MF_CPUS CPUs" cpus_online
# The ioctl fuzzer runs its full minute in the debug guest only, whose
# kernel is built from the same 6.12 source as Debian's 6.12 (and 30 s
# more there in the fault pass): 10 s here on 6.12 (half of the 55000
# calls 20 s made there, about as many as the debug guest's minute),
# 20 s on 6.1, which no other guest runs.
case $(uname -r) in
6.12.*) fuzz_seconds=10 ;;
*) fuzz_seconds=20 ;;
esac
export MF_FUZZ_SECONDS=${MF_FUZZ_SECONDS:-$fuzz_seconds}
section tap module.load tap_check "insmod memfilter.ko" load_memfilter
for t in $MF/bin/*_test; do
	only_selected "${t##*/}" || continue
	section tap "selftest.${t##*/}" "$t"
done
section tap module.unload tap_check "rmmod memfilter" unload_memfilter
exit $failed
