#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make dm-mutants`: do the tests of the memfilter-dedup target notice
# when a condition of its elision rule is gone? A write may be elided
# only if (a) the block read back equals it, (b) no data-changing bio to
# that block's slot (or a wide one) is in flight, (c) it is not FUA and
# (d) the block's contents are the target's own completed write, not
# discarded since (the @written bitmap). For each condition this builds
# the module with that condition removed (sed on a copy of module/consumers/dm.c
# under $BUILD/mutants/, never on module/consumers/dm.c), boots the debug test
# kernel once, and in it loads each build in turn and runs the KUnit
# suite memfilter_dm, dm_test and dm_discard_test
# (tests/qemu/mutants.sh). The unmutated build ("none") must pass all
# three; each of the four mutants must fail at least one. The extra
# mutants break one part of (d) each; whether the tests notice is
# printed, not required.
#
#   MUTANTS  the builds to test (default: all, "none" first)
#   BUILD    build directory (default build)
#
# Log: $BUILD/results/vm-mutants.log (console: .console next to it).

set -eu
cd "$(dirname "$0")/../.."
. scripts/common.sh

B=${BUILD:-build}
R=$B/results
M=$B/mutants
mkdir -p "$R"
# The debug guest's tools and scsi_debug disk, as make check gives them.
eval "$(grep -E '^(GUEST_TOOLS|SCSI_DEBUG_APPEND)=' scripts/check.sh)"

REQUIRED="same busy fua written"
EXTRA="trusted forget wrote"
MUTANTS=${MUTANTS:-none $REQUIRED $EXTRA}

# mutate NAME FILE: remove NAME's condition from FILE (a copy of dm.c).
mutate() {
	case $1 in
	none) return 0 ;;
	# (a) the read-back data equals the write
	same) sed -i 's/if (!memfilter_dm_block_same(bio, disk))/if (0 \&\& !memfilter_dm_block_same(bio, disk))/' "$2" ;;
	# (b) no data-changing bio to its slot or a wide one in flight
	busy) sed -i 's/if (mf_dm_busy(inflight, memfilter_dm_slot(bio, start)) ||/if ((0 \&\& mf_dm_busy(inflight, memfilter_dm_slot(bio, start))) ||/' "$2" ;;
	# (c) not FUA
	fua) e='s/!(opf & (REQ_FUA | REQ_PREFLUSH))/!(opf \& REQ_PREFLUSH)/'
		sed -i "$e" "$2" ;;
	# (d) the block holds the target's own completed write: neither
	# map() nor the decision after the read asks
	written)
		sed -i -e 's/return test_bit(block, t->written);/return true;/' \
			-e 's/memfilter_dm_slot(bio, start)) || !written)/memfilter_dm_slot(bio, start)))/' "$2" ;;
	# (d), parts: map() and the verify trust every block
	trusted) sed -i 's/return test_bit(block, t->written);/return true;/' "$2" ;;
	# (d), parts: a discard (write-zeroes, ...) forgets nothing
	forget) sed -i '/^static void mf_dm_forget(/,/^}/{/mf_dm_clear(t->written, io->first, io->last);/d}' "$2" ;;
	# (d), parts: a write that overlapped a discard in time still marks
	# its block
	wrote) sed -i '/^static void mf_dm_wrote(/,/^}/s/clear_bit(io->first, t->written);/(void)0;/' "$2" ;;
	*) die "unknown mutant '$1'" ;;
	esac
}

K=$(tests/qemu/build-kernel.sh debug) || die "building the test kernel failed"
guest_bins "$B" dm_test dm_discard_test tap.sh dedup_io memfilterctl

# One source tree, rebuilt per mutant: kbuild recompiles dm.c only.
mkdir -p "$work/bin/mutants"
scripts/build-module.sh "$K" "$M/src" -j2 >"$M.build.log" 2>&1 ||
	{ cat "$M.build.log"; die "building the module failed"; }
src=$(cd "$M/src" && pwd)
for m in $MUTANTS; do
	cp module/consumers/dm.c "$src/module/consumers/dm.c"
	mutate "$m" "$src/module/consumers/dm.c"
	if [ "$m" != none ] &&
		cmp -s module/consumers/dm.c "$src/module/consumers/dm.c"; then
		die "mutant '$m' no longer applies to module/consumers/dm.c: update mutate()"
	fi
	diff -u module/consumers/dm.c "$src/module/consumers/dm.c" \
		>"$M/$m.diff" || true
	make -C "$K" M="$src" -j2 modules >>"$M.build.log" 2>&1 ||
		{ tail -n 30 "$M.build.log"; die "building mutant '$m' failed"; }
	mkdir -p "$work/bin/mutants/$m"
	for ko in memfilter memfilter_kunit; do
		strip --strip-debug -o "$work/bin/mutants/$m/$ko.ko" "$src/$ko.ko"
	done
	echo "built $m ($(grep -c '^[-+][^-+]' "$M/$m.diff") lines changed)"
done
cp module/consumers/dm.c "$src/module/consumers/dm.c"

# Boot until every build ran: a build that kills the kernel counts as
# failing ("kernel died") and the next boot goes on after it.
pattern='BUG:|WARNING:|Oops|general protection fault|KASAN:|UBSAN:|KCSAN:|Kernel panic|kernel BUG|Call Trace:|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|unreferenced object|sleeping function called from invalid context|INFO: task .* blocked|soft lockup|hung_task'
left=$MUTANTS boot=0
: >"$R/mutants.txt"
while [ -n "$left" ]; do
	boot=$((boot + 1))
	log=$R/vm-mutants.log
	[ $boot = 1 ] || log=$R/vm-mutants-$boot.log
	tests/qemu/vm.sh --kernel "$K/arch/x86/boot/bzImage" --bin "$work/bin" \
		--script tests/qemu/mutants.sh --tools "$GUEST_TOOLS" \
		--append "$SCSI_DEBUG_APPEND" --env MF_MUTANTS="$left" \
		--out "$log" --timeout 3600 >/dev/null || true
	next=
	for m in $left; do
		if grep -q "^MUTANT-RESULT $m " "$log"; then
			line=$(grep "^MUTANT-RESULT $m " "$log" | sed "s/^MUTANT-RESULT $m //")
			# A kernel report between this build's markers.
			if sed -n "/MUTANT-BEGIN $m\$/,/MUTANT-END $m\$/p" "$log.console" |
				grep -Eq "$pattern"; then
				line="$line kernel=REPORT"
			fi
			echo "$m $line" >>"$R/mutants.txt"
		elif grep -q "^MUTANT-BEGIN $m\$" "$log"; then
			echo "$m kernel=DIED" >>"$R/mutants.txt"
		else
			next="$next $m"
		fi
	done
	# A report outside every build's markers (boot, shutdown) fails all.
	if awk '/MUTANT-BEGIN /{in_m=1} !in_m{print} /MUTANT-END /{in_m=0}' \
		"$log.console" | grep -Eq "$pattern"; then
		echo "none kernel=REPORT-OUTSIDE-A-BUILD" >>"$R/mutants.txt"
	fi
	[ "$next" != " $left" ] && [ "$next" != "$left" ] ||
		die "boot $boot ran none of: $left (see $log)"
	left=${next# }
done

# The table.
rc=0
printf '%-8s %-8s %-7s %-15s %s\n' mutant verdict kunit dm_test dm_discard_test
while read -r m rest; do
	get() { echo "$rest" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
	k=$(get kunit) d=$(get dm_test) s=$(get dm_discard_test)
	if [ "$m" = none ]; then
		verdict=pass
		case "$rest" in *FAIL* | *REPORT* | *DIED*) verdict=FAILED rc=1 ;; esac
	else
		verdict=survived
		case "$rest" in *FAIL* | *REPORT* | *DIED*) verdict=killed ;; esac
		case " $REQUIRED " in
		*" $m "*) [ $verdict = killed ] || rc=1 ;;
		*) verdict="$verdict*" ;;
		esac
	fi
	printf '%-8s %-8s %-7s %-15s %s %s\n' "$m" "$verdict" "${k:--}" \
		"${d:--}" "${s:--}" "$(echo "$rest" |
			grep -o 'kernel=[A-Z]*\|load=FAIL\|unload=FAIL' | tr '\n' ' ')"
done <"$R/mutants.txt"
echo "(* extra mutant: printed, not required)"
echo "failing cases:"
cat "$R"/vm-mutants*.log | grep '^MUTANT-FAILED' | sed 's/^MUTANT-FAILED /  /'
exit $rc
