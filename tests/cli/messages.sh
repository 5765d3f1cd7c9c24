# SPDX-License-Identifier: GPL-2.0
#
# memfilterctl's tests (tests/cli_test.sh, which sources this file and has
# the helpers and the driver). What its help and messages say, and the
# options it refuses (issue 42), offline.

# The help says XXH3 is the default hash (it is, since 1.1.0).
t_help_hash() {
	for c in build create; do
		expect_rc 0 memfilterctl "$c" --help &&
		grep -q -- '--hash H *xxh3 (default)' "$T/out" &&
		! grep -qi 'xxh64 (default)\|XXH64 (XXH3)' "$T/out" ||
			fail "$c --help: the default hash" || return 1
	done
}

# An option of other commands, or a letter that is another option's,
# is named as such, not blamed on an abbreviation.
t_other_commands_options() {
	keys a >"$T/oc1"
	expect_error "unknown option '--key': an option of add, query" \
		memfilterctl build --type bloom --capacity 10 --key a \
		-o "$T/oc.img" &&
	! grep -q abbreviat "$T/err" || fail "build --key: abbreviation" ||
		return 1
	expect_error "'-p': -p is --pretty in every command" memfilterctl \
		build --type bloom --capacity 10 -p 0.1 "$T/oc1" &&
	expect_error "'-c': -c is --capacity in every command" memfilterctl \
		query --image "$T/oc.img" -c "$T/oc1" &&
	expect_error "'--unique': an option of add, not of query" \
		memfilterctl query --unique --image "$T/oc.img" "$T/oc1" &&
	expect_error "'--cap': long options are not abbreviated (--capacity?)" \
		memfilterctl build --type bloom --cap 10 "$T/oc1" &&
		[ ! -e "$T/oc.img" ] || fail "an image was written" || return 1
	# The letters as they now are: -e is --fpr, -n is --count.
	expect_rc 0 memfilterctl build -t bloom -c 100 -e 0.001 -s 1 \
		-o "$T/oc.img" "$T/oc1" &&
	memfilterctl inspect "$T/oc.img" | grep -q '^bits per key: *15.75$' &&
	expect_rc 0 memfilterctl query -n -i "$T/oc.img" "$T/oc1" &&
		expect_out 1
}

# An option given twice is an error, not "the last one wins"; --key
# adds a key each time.
t_options_once() {
	offline_images || return 1
	rm -f "$T/twice.img"
	expect_error "option '--type' given twice" memfilterctl build \
		--type bloom --type cuckoo --capacity 10 -o "$T/twice.img" \
		"$T/o1" &&
	expect_error "option '--type' given twice" memfilterctl build \
		-t bloom --type bloom --capacity 10 -o "$T/twice.img" "$T/o1" &&
	expect_error "option '--output' given twice" memfilterctl build \
		-t bloom -c 10 -o "$T/twice.img" -o "$T/twice.img" "$T/o1" &&
	expect_error "option '--image' given twice" memfilterctl query \
		--image "$T/o1.img" --image "$T/o2.img" --key o1-1 &&
	expect_error "option '--json' given twice" memfilterctl inspect \
		--json -j "$T/o1.img" &&
		[ ! -e "$T/twice.img" ] || fail "an image was written" || return 1
	expect_rc 0 memfilterctl query --image "$T/o1.img" --key o1-1 \
		--key o1-2 -k zz && expect_out "$(keys o1-1 o1-2)"
}

# nf alone is a usage error (stderr, one line, exit 2); its help names
# show; help that cannot be written (a full device) is exit 2.
t_nf_and_help_output() {
	expect_error "missing subcommand" memfilterctl nf &&
	expect_rc 0 memfilterctl nf --help &&
		grep -q '^       memfilterctl nf list|show' "$T/out" ||
		fail "nf --help does not name show" || return 1
	if dev_nodes; then
		for h in "--help" "help" "help build" "build --help" "nf --help" \
			"info --help" "--version"; do
			# shellcheck disable=SC2086
			memfilterctl $h >"$T/od-full" 2>"$T/err"
			rc=$?
			[ "$rc" = 2 ] && grep -q "No space left" "$T/err" ||
				fail "'$h' >full device: exit $rc, want 2" ||
				return 1
		done
	fi
	expect_error "missing COMMAND" memfilterctl
}
