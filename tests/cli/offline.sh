# SPDX-License-Identifier: GPL-2.0
#
# memfilterctl's tests (tests/cli_test.sh, which sources this file and has
# the helpers and the driver). Offline behaviour (also run on the host,
# MF_CLI_OFFLINE=1): warnings, window images, merge arguments, atomic
# output, ranges, JSON, keys and count offline, help.

# --- offline behaviour (also run on the host: MF_CLI_OFFLINE=1) ---------------

# expect_warning SUBSTRING CMD...: exit 0 and one stderr line
# "memfilterctl: warning: ..." containing SUBSTRING.
expect_warning() {
	sub=$1
	shift
	expect_rc 0 "$@" || return 1
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "'$*': not one warning line" ||
		return 1
	grep -q '^memfilterctl: warning: ' "$T/err" ||
		fail "'$*': no warning" || return 1
	grep -q -- "$sub" "$T/err" || fail "'$*': warning lacks '$sub'"
}

# same_file A B: A and B have the same bytes.
same_file() {
	cmp -s "$1" "$2" || fail "$1 changed"
}

# The empty key is a key (0 to 4096 bytes), as the library and the kernel
# take it: an empty line, --key '', and --hex's empty line; a key of 4096
# bytes is one too, 4097 is refused.
t_empty_key_offline() {
	printf 'a\n\nb\n' >"$T/ek"
	expect_rc 0 memfilterctl build --type bloom --capacity 100 --seed 1 \
		-o "$T/ek.img" "$T/ek" &&
	memfilterctl inspect "$T/ek.img" | grep -q '^keys: *3$' &&
	expect_rc 0 memfilterctl query --image "$T/ek.img" --key '' &&
		expect_out '' &&
	printf '\n' >"$T/ek1" &&
	expect_rc 0 memfilterctl query --image "$T/ek.img" --count --hex "$T/ek1" &&
		expect_out 1 ||
		fail "the empty line is not the empty key" || return 1
	keys a >"$T/ek2"
	expect_rc 0 memfilterctl build --type bloom --capacity 100 --seed 1 \
		-o "$T/ek2.img" "$T/ek2" &&
	expect_rc 1 memfilterctl query --image "$T/ek2.img" --count --key '' &&
		expect_out 0 || fail "the empty key found where never added" ||
		return 1
	head -c 4096 /dev/zero | tr '\0' k >"$T/ek4096" && echo >>"$T/ek4096"
	expect_rc 0 memfilterctl build --type bloom --capacity 100 \
		-o "$T/ek3.img" "$T/ek4096" &&
	head -c 4097 /dev/zero | tr '\0' k >"$T/ek4097" &&
	expect_error "key longer than 4096 bytes" memfilterctl build \
		--type bloom --capacity 100 -o "$T/ek3.img" "$T/ek4097"
}

t_version_flag() {
	expect_rc 0 memfilterctl --version &&
		grep -Eq '^memfilterctl [0-9]+\.[0-9]+\.[0-9]+' "$T/out" &&
		[ "$(wc -l <"$T/out")" -eq 1 ] && [ ! -s "$T/err" ] ||
		fail "--version does not print one version line" || return 1
	cp "$T/out" "$T/version"
	expect_rc 0 memfilterctl -V && same_file "$T/out" "$T/version"
}

# Images for the offline tests: seed 3, 1000 keys each, and a keyed one.
offline_images() {
	[ -f "$T/o1.img" ] && return 0
	seq 1 1000 | sed 's/^/o1-/' >"$T/o1"
	seq 1 1000 | sed 's/^/o2-/' >"$T/o2"
	to_image "$T/o1.img" memfilterctl build --type bloom --capacity 2000 \
		--seed 3 "$T/o1" &&
	to_image "$T/o2.img" memfilterctl build --type bloom --capacity 2000 \
		--seed 3 "$T/o2"
}

# build --window: an offline window filter image; rotate --image keeps its
# keys through G - 1 rotations and clears them at the G-th; with
# --rotate-by-count only the last generations' keys stay.
t_window_offline() {
	seq 1 1000 | sed 's/^/w-/' >"$T/w"
	expect_rc 0 memfilterctl build --window 2s --generations 3 \
		--capacity 1000 --seed 3 -o "$T/w0.img" "$T/w" || return 1
	memfilterctl inspect "$T/w0.img" | grep -q '^type: *window$' ||
		fail "build --window: not a window image" || return 1
	expect_rc 0 memfilterctl query --image "$T/w0.img" --count "$T/w" &&
		expect_out 1000 || return 1
	expect_rc 0 memfilterctl rotate --image "$T/w0.img" -o "$T/w1.img" &&
		[ ! -s "$T/out" ] && [ ! -s "$T/err" ] ||
		fail "rotate --image -o" || return 1
	# inspect lists the generations: the keys went into generation 0,
	# the rotation made generation 1 current.
	expect_rc 0 memfilterctl inspect "$T/w1.img" &&
	grep -qx 'generations: *3 (current 1)' "$T/out" &&
	grep -qx 'period: *1000 ms' "$T/out" &&
	grep -qx 'rotate by count: *no' "$T/out" &&
	grep -qx '  generation 0 *age 0 ms, 1000 keys, [1-9][0-9]* bits set' \
		"$T/out" &&
	grep -qx '  generation 1 *age 0 ms, 0 keys, 0 bits set (current)' \
		"$T/out" ||
		fail "inspect: a window image's generations" || return 1
	fill=$(sed -n 's/^fill: *\([0-9]*\) .*/\1/p' "$T/out")
	expect_rc 0 memfilterctl inspect --json "$T/w1.img" &&
	grep -q '"generations":3,"current_gen":1,"period_ms":1000,"rotate_by_count":false,"gens":\[{"age_ms":0,"keys":1000,"fill":'"$fill"'},{"age_ms":0,"keys":0,"fill":0},{"age_ms":0,"keys":0,"fill":0}\]' \
		"$T/out" || fail "inspect --json: a window image's gens" ||
		return 1
	expect_rc 0 memfilterctl rotate --image "$T/w1.img" -o "$T/w2.img" &&
	expect_rc 0 memfilterctl query --image "$T/w2.img" --count "$T/w" &&
		expect_out 1000 || return 1
	expect_rc 0 memfilterctl rotate --image "$T/w2.img" -o "$T/w3.img" &&
	expect_rc 1 memfilterctl query --image "$T/w3.img" --count "$T/w" &&
		expect_out 0 || return 1
	memfilterctl inspect "$T/w3.img" | grep -q '^keys: *0$' &&
	memfilterctl inspect "$T/w3.img" | grep -q '^fill: *0 / ' ||
		fail "3 rotations of 3 generations left keys or bits" ||
		return 1
	# Generations of 300 keys, 2 of them: keys 601 .. 1000 stay.
	expect_rc 0 memfilterctl build --generations 2 --rotate-by-count \
		--capacity 300 --seed 3 -o "$T/r.img" "$T/w" &&
		[ ! -s "$T/err" ] || fail "build --rotate-by-count" || return 1
	tail -n 400 "$T/w" >"$T/wlast"
	expect_rc 0 memfilterctl query --image "$T/r.img" --count "$T/wlast" &&
		expect_out 400 || return 1
	memfilterctl inspect "$T/r.img" | grep -q '^keys: *400$' ||
		fail "rotate-by-count: not 400 keys" || return 1
	expect_error "cuckoo" memfilterctl build --window 2s --type cuckoo \
		--capacity 10 "$T/w" &&
	expect_error "2 to 16" memfilterctl build --generations 17 \
		--capacity 10 "$T/w" &&
	expect_error "only with --image" memfilterctl rotate cli-w \
		-o "$T/x.img" || return 1
	memfilterctl build --type bloom --capacity 1000 -o "$T/b.img" "$T/w" &&
	expect_error "not a window filter image" memfilterctl rotate \
		--image "$T/b.img" -o "$T/x.img" && [ ! -e "$T/x.img" ] ||
		fail "rotate of a Bloom image wrote an image"
}

t_merge_bad_args() {
	offline_images || return 1
	expect_error "o-missing.img" memfilterctl merge "$T/o1.img" \
		"$T/o-missing.img" &&
	expect_error "o-missing.img" memfilterctl merge "$T/o-missing.img" \
		"$T/o1.img" &&
	expect_error "directory" memfilterctl merge "$T/o1.img" "$T" &&
	expect_error "directory" memfilterctl merge "$T" "$T/o1.img" &&
	expect_error "directory" memfilterctl inspect "$T" &&
	expect_error "directory" memfilterctl query --image "$T" "$T/o1" &&
	expect_error "directory" memfilterctl build --type bloom --capacity 10 \
		-o "$T/dir.img" "$T" && [ ! -e "$T/dir.img" ] ||
		fail "build from a directory wrote an image"
}

# -o FILE: written whole or not at all; a failed command leaves FILE as it
# was; no temporary file stays behind.
t_output_atomic() {
	offline_images || return 1
	echo precious >"$T/dest.img"
	cp "$T/dest.img" "$T/dest.orig"
	expect_error "o-missing.img" memfilterctl merge -o "$T/dest.img" \
		"$T/o1.img" "$T/o-missing.img" && same_file "$T/dest.img" \
		"$T/dest.orig" || return 1
	keys 61 6g >"$T/badhex"
	expect_error "hex" memfilterctl build --type bloom --capacity 10 \
		--hex -o "$T/dest.img" "$T/badhex" &&
		same_file "$T/dest.img" "$T/dest.orig" || return 1
	expect_error "dest-dir" memfilterctl build --type bloom --capacity 1000 \
		-o "$T/dest-dir/x.img" "$T/o1" || return 1
	expect_rc 0 memfilterctl merge -o "$T/dest.img" "$T/o1.img" \
		"$T/o2.img" && [ ! -s "$T/out" ] && [ ! -s "$T/err" ] ||
		fail "merge -o" || return 1
	cat "$T/o1" "$T/o2" >"$T/o12"
	expect_rc 0 memfilterctl query --image "$T/dest.img" --count "$T/o12" &&
		expect_out 2000 || return 1
	keys apple banana >"$T/ab-offline"
	expect_rc 0 memfilterctl build --type cuckoo --capacity 100 --keyed \
		-o "$T/keyed.img" "$T/ab-offline" || return 1
	[ "$(stat -c %a "$T/keyed.img")" = 600 ] ||
		fail "keyed image -o is not mode 0600" || return 1
	[ -z "$(ls -a "$T" | grep '\.tmp')" ] || fail "temporary file left"
}

t_overfill_warning() {
	seq 1 5000 >"$T/many5k"
	expect_warning "overfill" memfilterctl build --type bloom \
		--capacity 100 -o "$T/over.img" "$T/many5k" &&
	grep -q "5000 keys.*capacity 100" "$T/err" ||
		fail "warning lacks the numbers" || return 1
	rm -f "$T/over2.img"
	expect_error "overfill" memfilterctl build --strict --type bloom \
		--capacity 100 -o "$T/over2.img" "$T/many5k" &&
		[ ! -e "$T/over2.img" ] || fail "--strict wrote an image" ||
		return 1
	expect_warning "overfilled: 5000 keys for capacity 100" \
		memfilterctl inspect "$T/over.img" &&
		grep -q '^overfill: *yes' "$T/out" ||
		fail "inspect does not flag overfill" || return 1
	expect_warning "overfill" memfilterctl inspect --json "$T/over.img" &&
		grep -q '"overfill":true' "$T/out" || fail "inspect --json" ||
		return 1
	# A merge past capacity warns as well (2000 + 5000 > 2000).
	offline_images || return 1
	expect_rc 0 memfilterctl build --type bloom --capacity 2000 --seed 3 \
		-o "$T/big.img" "$T/many5k" &&
	expect_warning "overfill" memfilterctl merge -o "$T/m-over.img" \
		"$T/o1.img" "$T/big.img" || return 1
}

t_unsupported_combinations() {
	offline_images || return 1
	expect_error "image" memfilterctl del --image "$T/o1.img" "$T/o1" &&
	expect_error "unique" memfilterctl query --unique cli-b "$T/o1" &&
	expect_error "key" memfilterctl query --image "$T/o1.img" --key a \
		"$T/o1" &&
	expect_error "strict" memfilterctl add --strict cli-b "$T/o1" &&
	expect_error "invert" memfilterctl add -v cli-b "$T/o1" &&
	expect_error "no JSON output" memfilterctl --json merge "$T/o1.img" \
		"$T/o1.img" &&
	expect_error "unknown option '--frob'" memfilterctl --frob list
}

t_range_errors() {
	expect_error "2.99e-07" memfilterctl build --type bloom \
		--capacity 10 --fpr 1e-7 &&
	expect_error "0.000122" memfilterctl build --type cuckoo \
		--capacity 10 --fpr 1e-5 &&
	expect_error "1 to 64" memfilterctl build --type bloom \
		--capacity 10 --bits-per-key 1000 &&
	expect_error "1 to 64" memfilterctl build --type bloom \
		--capacity 10 --bits-per-key 0.5 &&
	expect_error "fingerprint-bits" memfilterctl build --type cuckoo \
		--capacity 10 --fpr 0.01 --fingerprint-bits 8 &&
	expect_error "1 TiB" memfilterctl build --type bloom \
		--capacity 1000000000000000 --fpr 0.01 &&
	! grep -q kernel "$T/err" || fail "offline error blames the kernel" ||
		return 1
	# The edges themselves are valid.
	keys a >"$T/one"
	expect_rc 0 memfilterctl build --type bloom --capacity 10 \
		--fpr 2.99e-7 -o "$T/edge1.img" "$T/one" &&
	expect_rc 0 memfilterctl build --type cuckoo --capacity 10 \
		--fpr 0.000123 -o "$T/edge2.img" "$T/one" &&
	expect_rc 0 memfilterctl build --type bloom --capacity 10 \
		--bits-per-key 64 -o "$T/edge3.img" "$T/one"
}

t_json_offline() {
	keys a b >"$T/ab"
	# 0xfedcba9876543210 is above 2^53: as a JSON number, jq rounds it.
	expect_rc 0 memfilterctl build --type bloom --capacity 10 \
		--seed 0xfedcba9876543210 -o "$T/seed.img" "$T/ab" &&
	expect_rc 0 memfilterctl inspect --json "$T/seed.img" || return 1
	[ "$(wc -l <"$T/out")" -eq 1 ] || fail "not compact" || return 1
	grep -q '^{"image":".*","version":1,"type":"bloom",' "$T/out" &&
		grep -q '"seed":"0xfedcba9876543210"' "$T/out" &&
		grep -q '}$' "$T/out" || fail "compact inspect --json" || return 1
	for p in -p --pretty; do
		expect_rc 0 memfilterctl inspect "$p" --json "$T/seed.img" &&
			[ "$(sed -n 1p "$T/out")" = "{" ] &&
			grep -q '^  "seed": "0xfedcba9876543210",$' "$T/out" &&
			[ "$(tail -n 1 "$T/out")" = "}" ] ||
			fail "inspect $p" || return 1
	done
	# -p is also a global option and implies --json.
	expect_rc 0 memfilterctl -p inspect "$T/seed.img" &&
		grep -q '^  "seed": "0x' "$T/out" || fail "global -p" || return 1
	# Control characters, quotes and bytes that are not UTF-8 in a path.
	weird=$(printf '%s/q"\\\001\303\251\377.img' "$T")
	cp "$T/seed.img" "$weird" &&
	expect_rc 0 memfilterctl inspect --json "$weird" &&
		grep -Fq '/q\"\\\u0001'"$(printf '\303\251')"'\udcff.img","' \
		"$T/out" || fail "path not escaped"
}

t_keys_offline() {
	offline_images || return 1
	expect_rc 0 memfilterctl query --image "$T/o1.img" --key o1-5 \
		--key zz-none --key o1-7 &&
		expect_out "$(keys o1-5 o1-7)" || return 1
	expect_rc 0 memfilterctl query -v --image "$T/o1.img" --key o1-5 \
		--key zz-none &&
		expect_out zz-none || return 1
	expect_rc 1 memfilterctl query -v --image "$T/o1.img" "$T/o1" &&
		[ ! -s "$T/out" ] || fail "query -v printed present keys" ||
		return 1
	keys o1-1 x-1 x-2 o1-2 >"$T/ox"
	expect_rc 0 memfilterctl query --invert --count --image "$T/o1.img" \
		"$T/ox" && expect_out 2 || return 1
	# CRLF lines: the CR is not part of the key.
	printf 'crlf-a\r\ncrlf-b\r\n' >"$T/crlf"
	keys crlf-a crlf-b >"$T/lf"
	to_image "$T/crlf.img" memfilterctl build --type cuckoo --capacity 10 \
		"$T/crlf" &&
	expect_rc 0 memfilterctl query --image "$T/crlf.img" "$T/lf" &&
		expect_out "$(keys crlf-a crlf-b)" || return 1
	expect_rc 0 memfilterctl query --image "$T/crlf.img" "$T/crlf" &&
		expect_out "$(keys crlf-a crlf-b)" || return 1
	# 63726c662d61 is "crlf-a".
	printf '63726c662d61\r\n' >"$T/hexcrlf"
	expect_rc 0 memfilterctl query --hex --count --image "$T/crlf.img" \
		"$T/hexcrlf" && expect_out 1
}

# count --image: per key, in input order, the count, a tab and the key.
t_count_offline() {
	keys a a a b c >"$T/cnt"
	to_image "$T/cnt.img" memfilterctl build --type cuckoo --capacity 100 \
		--seed 5 "$T/cnt" &&
	expect_rc 0 memfilterctl count --image "$T/cnt.img" --key b --key zz \
		--key a && expect_out "$(printf '1\tb\n0\tzz\n3\ta')" || return 1
	keys c zz >"$T/cnt-in"
	expect_rc 0 memfilterctl count --image "$T/cnt.img" <"$T/cnt-in" &&
		expect_out "$(printf '1\tc\n0\tzz')" || return 1
	# 61 is "a"; no key counted: exit 1, the zeros still printed.
	expect_rc 0 memfilterctl count --hex --image "$T/cnt.img" --key 61 &&
		expect_out "$(printf '3\t61')" &&
	expect_rc 1 memfilterctl count --image "$T/cnt.img" --key zz &&
		expect_out "$(printf '0\tzz')" || return 1
	offline_images || return 1
	expect_error "count needs a cuckoo filter" memfilterctl count \
		--image "$T/o1.img" --key a &&
	expect_error "invert" memfilterctl count -v --image "$T/cnt.img" \
		--key a &&
	expect_error "unique" memfilterctl count --unique --image \
		"$T/cnt.img" --key a
}

t_help_new() {
	expect_rc 0 memfilterctl query --help &&
		grep -q -- '--invert' "$T/out" && grep -q -- '--key' "$T/out" &&
		grep -q 'CR' "$T/out" || fail "query --help" || return 1
	expect_rc 0 memfilterctl add --help && grep -q -- '--unique' "$T/out" ||
		fail "add --help" || return 1
	for c in build merge dump; do
		expect_rc 0 memfilterctl "$c" --help &&
			grep -q -- '-o, --output' "$T/out" ||
			fail "$c --help lacks -o" || return 1
	done
	expect_rc 0 memfilterctl clear --help &&
		grep -q '^usage: memfilterctl clear' "$T/out" ||
		fail "clear --help" || return 1
	expect_rc 0 memfilterctl --help &&
		grep -q 'Exit status' "$T/out" && grep -q -- '--version' "$T/out" ||
		fail "--help"
}
