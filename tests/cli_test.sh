#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Test of memfilterctl's command-line contract, run inside a guest with
# memfilter.ko loaded and memfilterctl on PATH (POSIX sh: busybox ash).
# Prints TAP; exits 0 only if every test passed. Filters it creates are
# named cli-* and removed at the end. The tests are in tests/cli/*.sh.

MFC=$(command -v memfilterctl) || { echo "1..0 # SKIP memfilterctl not on PATH"; exit 1; }
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
# Installed as cli_test with the TAP library (tap.sh) and tests/cli/ as
# cli/ beside it, as in the tree.
case $0 in
*/*) here=${0%/*} ;;
*) here=. ;;
esac
. "$here/tap.sh"
tap_log=$T/log

# --- helpers ---------------------------------------------------------------

# run CMD...: run, keep stdout in $T/out, stderr in $T/err, status in $rc.
run() {
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
}

# What fail() adds to its message: the last command's output.
tap_context() {
	echo "stdout:"; sed 's/^/  /' "$T/out"
	echo "stderr:"; sed 's/^/  /' "$T/err"
}

# expect_rc WANT CMD...
expect_rc() {
	want=$1
	shift
	run "$@"
	[ "$rc" = "$want" ] || fail "'$*': exit $rc, want $want"
}

# expect_error SUBSTRING CMD...: exit 2, empty stdout, one stderr line
# that starts with "memfilterctl" and contains SUBSTRING.
expect_error() {
	sub=$1
	shift
	expect_rc 2 "$@" || return 1
	[ ! -s "$T/out" ] || fail "'$*': stdout not empty" || return 1
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "'$*': not one error line" ||
		return 1
	grep -q '^memfilterctl' "$T/err" || fail "'$*': bad error prefix" ||
		return 1
	grep -q -- "$sub" "$T/err" || fail "'$*': error lacks '$sub'"
}

# limited CMD...: CMD with at most MEM_LIMIT_MB MiB of memory (ulimit -v).
# An ASan build (MF_CLI_ASAN=1, set by tests/native/cli_test) cannot start
# under ulimit -v (its shadow memory takes terabytes of address space): no
# allocation above the limit succeeds instead, which is what stops a
# reader that grows one buffer.
MEM_LIMIT_MB=64
limited() {
	if [ "${MF_CLI_ASAN:-0}" = 1 ]; then
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}max_allocation_size_mb=$MEM_LIMIT_MB:allocator_may_return_null=1" \
			"$@"
	else
		(ulimit -v $((MEM_LIMIT_MB * 1024)) && exec "$@")
	fi
}

# from GEN CMD...: CMD reading the output of the shell function GEN on
# stdin (GEN's own errors, a broken pipe when CMD stops reading, dropped).
from() {
	g=$1
	shift
	"$g" 2>/dev/null | "$@"
}

# expect_out TEXT: stdout is exactly TEXT (one line).
expect_out() {
	[ "$(cat "$T/out")" = "$1" ] || fail "stdout is not '$1'"
}

# listed NAME: memfilterctl list has the line NAME (read by the shell:
# one process, not two).
listed() {
	memfilterctl list >"$T/list" || return 1
	while IFS= read -r l; do
		[ "$l" != "$1" ] || return 0
	done <"$T/list"
	return 1
}

keys() {
	printf '%s\n' "$@"
}

# --- tests -----------------------------------------------------------------

# In tests/cli/, all sourced before any test runs: a part may use
# another's helpers. $TESTS below gives the order.
CLI_PARTS=$here/cli
for p in basic images offline module options output messages; do
	[ -r "$CLI_PARTS/$p.sh" ] ||
		{ echo "Bail out! no $CLI_PARTS/$p.sh"; exit 1; }
	. "$CLI_PARTS/$p.sh"
done

t_cleanup() {
	for n in $(memfilterctl list | grep '^cli-'); do
		memfilterctl rm "$n" || fail "rm $n" || return 1
	done
	[ -z "$(memfilterctl list | grep '^cli-')" ] || fail "cli-* left over"
}

# --- driver ----------------------------------------------------------------

OFFLINE_TESTS="version_flag merge_bad_args output_atomic overfill_warning
unsupported_combinations range_errors json_offline keys_offline count_offline
help_new window_offline hash_offline grow_offline image_input_bounded
keys_bounded no_abbrev grow_needs_grow bpk_grid image_keys_stdin window_max
help_cmd output_devices output_links output_files help_hash layout_offline
other_commands_options options_once nf_and_help_output merge_messages
cuckoo_full_key names_offline image_name_hint add_image seen_image
peak_memory merge_peak memory_check write_progress
empty_key_offline number_forms grow_full hex_messages fpr_ranges image_truncated overfill_repeats
empty_paths number_too_large seen_counts"

TESTS="version create_bloom create_cuckoo create_defaults_and_params create_xxh3
create_layout
create_existing_name add_file add_stdin query_present query_absent
query_mixed_like_grep query_count empty_key hex hex_invalid del_cuckoo
del_bloom_refused seen_cuckoo_refused info info_json list overfill cuckoo_full rm bad_usage help
unprivileged million_keys image_build_load image_dump_load
image_dump_identical image_dump_kernel_filter image_inspect image_corrupt
image_load_existing_name image_merge image_keyed_warning image_help
version_both list_json_objects keys_cli count_cli clear add_overfill_warning
dump_output grow_info overfill_estimate replace_cli swap_cli refresh
seen_counts_kernel
$OFFLINE_TESTS cleanup"

# Tests that make no kernel call other tests here do not make with the
# same kind of arguments: argument parsing, help, output formats, offline
# image work (inspect, merge) and user-space warnings; their loads, dumps,
# infos and lists repeat image_build_load's, image_dump_load's, info's and
# list's. MF_CLI_SKIP_USERSPACE=1 leaves them out (the debug guest: the
# stock guests run every test). No test kept uses what they leave behind.
USERSPACE_TESTS="hex_invalid info_json bad_usage help image_dump_identical
image_inspect image_merge image_keyed_warning image_help version_both
list_json_objects add_overfill_warning dump_output"

# MF_CLI_OFFLINE=1: only the tests that need no /dev/memfilter (on the host).
[ "${MF_CLI_OFFLINE:-0}" = 1 ] && TESTS=$OFFLINE_TESTS
# MF_CLI_SKIP_OFFLINE=1: all but those (the debug guest: they never reach
# the kernel, run natively under ASan and in the stock guests).
# without() WORDS: $TESTS less WORDS.
without() {
	for t in $TESTS; do
		case " $(echo $1) " in *" $t "*) ;; *) echo "$t" ;; esac
	done
}
[ "${MF_CLI_SKIP_OFFLINE:-0}" = 1 ] && TESTS=$(without "$OFFLINE_TESTS")
[ "${MF_CLI_SKIP_USERSPACE:-0}" = 1 ] && TESTS=$(without "$USERSPACE_TESTS")
# MF_CLI_TESTS="a b ...": just those (a targeted guest run).
[ -n "${MF_CLI_TESTS:-}" ] && TESTS=$MF_CLI_TESTS

set -- $TESTS
tap_begin $#
for t in $TESTS; do
	ok "$t" "t_$t"
done
tap_end
