# SPDX-License-Identifier: GPL-2.0
#
# Guest script of tests/qemu/mutants-vm.sh: for each build in MF_MUTANTS
# (directories $MF/bin/mutants/NAME with memfilter.ko and
# memfilter_kunit.ko), load it, run the KUnit suite memfilter_dm, dm_test
# and dm_discard_test, clean up and unload it. One line per build:
#   MUTANT-RESULT NAME kunit=ok|FAIL dm_test=ok|FAIL dm_discard_test=ok|FAIL
# followed by "MUTANT-FAILED NAME TEST: ..." for each failing test case.
# MUTANT-BEGIN/END NAME also go to the kernel log (/dev/kmsg), so that a
# kernel report on the console can be told to a build.

. /memfilter/lib.sh

export MF_DM_DEVICE_READS=few DM_DISABLE_UDEV=1
T=$(mktemp -d)
kml=/sys/kernel/debug/kmemleak
[ -e $kml ] && echo scan=off >$kml

# failed_cases NAME TEST FILE: a line per "not ok" of FILE.
failed_cases() {
	sed -n 's/^ *not ok [0-9]* *//p' "$3" | while read -r c; do
		echo "MUTANT-FAILED $1 $2: $c"
	done
}

# leftovers: what a failed dm test may leave behind.
leftovers() {
	/sbin/dmsetup --noudevsync remove_all >/dev/null 2>&1
	/sbin/losetup -D >/dev/null 2>&1
	for f in $(memfilterctl list 2>/dev/null); do
		memfilterctl rm "$f" >/dev/null 2>&1
	done
}

for m in $MF_MUTANTS; do
	d=$MF/bin/mutants/$m
	echo "MUTANT-BEGIN $m" >/dev/kmsg
	echo "MUTANT-BEGIN $m"
	if ! insmod $d/memfilter.ko; then
		echo "MUTANT-RESULT $m load=FAIL"
		continue
	fi
	k=ok
	# printf: a trailing newline would be part of the glob.
	printf memfilter_dm >/sys/module/kunit/parameters/filter_glob
	if insmod $d/memfilter_kunit.ko &&
		cp /sys/kernel/debug/kunit/memfilter_dm/results $T/kunit; then
		rmmod memfilter_kunit
		grep -q 'not ok' $T/kunit && k=FAIL
		sed 's/^/# kunit: /' $T/kunit
		grep -q '^ok' $T/kunit || k=FAIL
	else
		k=FAIL
		echo "MUTANT-FAILED $m kunit: the suite did not run"
	fi
	failed_cases "$m" kunit $T/kunit
	res="kunit=$k"
	for t in dm_test dm_discard_test; do
		r=ok
		$MF/bin/$t >$T/$t 2>&1 || r=FAIL
		sed "s/^/# $t: /" $T/$t
		failed_cases "$m" $t $T/$t
		res="$res $t=$r"
		leftovers
	done
	rmmod memfilter || res="$res unload=FAIL"
	echo "MUTANT-RESULT $m $res"
	echo "MUTANT-END $m" >/dev/kmsg
done
echo "MUTANT-DONE"
exit 0
