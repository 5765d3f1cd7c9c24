# SPDX-License-Identifier: GPL-2.0
#
# Guest script for the debug test kernel (KASAN, lockdep, kmemleak, KUnit):
# KUnit suites, every selftest, then unload and a kmemleak scan.
#
# scripts/check.sh boots this kernel twice, each guest in one of its two
# lanes (Documentation/testing.rst, "Two lanes"): MF_DEBUG_PART=1 runs
# KUnit and every selftest not in PART2, MF_DEBUG_PART=2 the selftests in
# PART2; both load, unload and scan for leaks. Unset, one guest runs
# everything. A selftest is in exactly one part, whatever its name.
PART2="dm_test dm_discard_test dm_fs_test nf_test window_test"
# The documentation's examples run in the stock guests only (unless make
# vm-test names them): they test what the docs say, and every kernel path
# they take runs here under the other selftests.
STOCK_ONLY="docs_test"
part=${MF_DEBUG_PART:-all}

. /memfilter/lib.sh

case $part in
1|2|all) ;;
*) section tap guest.part tap_check "MF_DEBUG_PART=1|2, not '$part'" false
	exit 1 ;;
esac

# Everything runs under KASAN here, so user-space repetition is left to
# the stock guests and every kernel path runs once
# (Documentation/testing.rst, "What the debug guest leaves out"):
# the CLI's big test adds 20000 keys, three batches of its 8192 (the stock
# kernels add a million); the offline CLI tests never reach the kernel
# (they run natively under ASan and in the stock guests); the CLI tests of
# parsing, help and output formats make no kernel call that other tests
# here do not make.
export MF_CLI_BIG=20000
export MF_CLI_SKIP_OFFLINE=1
export MF_CLI_SKIP_USERSPACE=1
# dm_test reads the 4 MiB device back through the target once per target
# (and after racing writers), not after every step: the backing file is
# compared after every step.
export MF_DM_DEVICE_READS=few

# kmemleak: forget what boot left, and no automatic scans (one 60 s after
# boot, then every 10 min, each 15 s of CPU under KASAN): kmemleak_clean
# scans at the end, and a leak stays a leak until then.
kml=/sys/kernel/debug/kmemleak
[ -e $kml ] && echo clear >$kml && echo scan=off >$kml

section tap guest.cpus tap_check "kernel brought up $MF_CPUS CPUs" cpus_online
section tap module.load tap_check "insmod memfilter.ko" load_memfilter
# MF_ONLY (make vm-test): only the selftests it names, and KUnit only
# when it names "kunit".
if [ -n "${MF_ONLY:-}" ]; then
	case " $MF_ONLY " in *" kunit "*) run_kunit $MF/memfilter_kunit.ko ;; esac
elif [ $part != 2 ]; then
	run_kunit $MF/memfilter_kunit.ko
fi
for t in $MF/bin/*_test; do
	only_selected "${t##*/}" || continue
	case " $STOCK_ONLY " in
	*" ${t##*/} "*) [ -n "${MF_ONLY:-}" ] || continue ;;
	esac
	case " $PART2 " in
	*" ${t##*/} "*) [ $part != 1 ] || continue ;;
	*) [ $part != 2 ] || continue ;;
	esac
	section tap "selftest.${t##*/}" "$t"
done
# The short pass of fault injection (tests/faults.sh, the same parts as
# make faults with smaller numbers: about 2 minutes here), in the second
# part, the shorter one. Its sections are its own; the unload and the
# kmemleak scan below cover it too.
if [ $part != 1 ] && only_selected faults; then
	MF_FAULTS_PART=debug MF_FAULTS_FUZZ_SECONDS=15 MF_FAULTS_CLI=16 \
		MF_FAULTS_NF=12 MF_FAULTS_FORK_SECONDS=15 \
		MF_FAULTS_DM_BLOCKS=256 sh $MF/bin/faults || failed=1
fi
section tap module.unload tap_check "rmmod memfilter" unload_memfilter
section tap kmemleak tap_check "no kmemleak reports" kmemleak_clean
exit $failed
