# SPDX-License-Identifier: GPL-2.0
#
# memfilterctl's tests (tests/cli_test.sh, which sources this file and has
# the helpers and the driver). The commands against the module: create, add,
# query, del, info, list, rm, usage and help, privileges, a million keys.

t_version() {
	expect_rc 0 memfilterctl version &&
		grep -q '^kernel ABI version 1$' "$T/out" ||
		fail "no kernel ABI version"
}

t_create_bloom() {
	expect_rc 0 memfilterctl create cli-b --type bloom --capacity 10000 \
		--fpr 0.0001 --seed 42 && listed cli-b
}

t_create_cuckoo() {
	expect_rc 0 memfilterctl create cli-c --type cuckoo --capacity 10000 \
		--fingerprint-bits 16 --seed 7 && listed cli-c &&
	expect_rc 0 memfilterctl create cli-c12 --type cuckoo \
		--capacity 1000 && listed cli-c12 &&
	memfilterctl info cli-c12 | grep -q '^fingerprint bits: *12$' ||
		fail "cuckoo default is not 12 fingerprint bits"
}

t_create_defaults_and_params() {
	expect_rc 0 memfilterctl create cli-bpk --type bloom --capacity 1000 \
		--bits-per-key 12 &&
	memfilterctl info cli-bpk | grep -q '^bits per key: *12.00$' ||
		fail "bits per key not 12" || return 1
	expect_rc 0 memfilterctl create cli-keyed --type bloom \
		--capacity 1000 --keyed &&
	memfilterctl info cli-keyed | grep -q '^hash: *siphash' ||
		fail "keyed filter does not hash with siphash" || return 1
	memfilterctl info --json cli-keyed | grep -q '"keyed":true,' ||
		fail "json keyed not true"
}

# Keys of every length from 1 to 1100 bytes: each XXH3 path (0-16 bytes,
# 17-128, 129-240, longer with partial and whole 1024-byte blocks).
xxh3_keys() {
	awk 'BEGIN { for (i = 1; i <= 1100; i++) {
		s = s substr("abcdefghijklmnopqrstuvwxyz", i % 26 + 1, 1); print s } }'
}

# same_as_offline NAME KEYS WHAT OPTION...: the kernel filter NAME, made
# with --type bloom --capacity 2000 --seed 42 OPTION..., takes the 1100
# keys of KEYS (xxh3_keys), finds them all, and dumps to the bytes that
# the same build offline makes (WHAT names the filters if they differ).
same_as_offline() {
	so_name=$1 so_keys=$2 so_what=$3
	shift 3
	expect_rc 0 memfilterctl add "$so_name" "$so_keys" &&
		expect_out 1100 &&
	expect_rc 0 memfilterctl query --count "$so_name" "$so_keys" &&
		expect_out 1100 || return 1
	to_image "$T/$so_name-k.img" memfilterctl dump "$so_name" &&
	to_image "$T/$so_name-o.img" memfilterctl build --type bloom \
		--capacity 2000 --seed 42 "$@" "$so_keys" || return 1
	cmp -s "$T/$so_name-k.img" "$T/$so_name-o.img" ||
		fail "kernel and offline $so_what filters differ"
}

# --hash xxh3 in the kernel: info says so; a kernel filter and the same
# filter built offline are the same bytes (the module's XXH3 is the
# library's, at every length); the feature bit is listed.
# --layout: the module's filter says its layout in info and its JSON, and
# dumps to the bytes the same build offline makes; a window filter too.
t_create_layout() {
	xxh3_keys >"$T/lkeys"
	expect_rc 0 memfilterctl create cli-s32 --type bloom --capacity 2000 \
		--seed 42 --layout split32 &&
	expect_rc 0 memfilterctl info cli-s32 &&
		grep -q '^layout: *split32$' "$T/out" &&
		grep -q '^probes per key: *8$' "$T/out" ||
		fail "info does not show split32" || return 1
	expect_rc 0 memfilterctl info --json cli-s32 &&
		grep -q '"type":"bloom","layout":"split32",' "$T/out" ||
		fail "info --json does not show split32" || return 1
	same_as_offline cli-s32 "$T/lkeys" split32 --layout split32 || return 1
	expect_rc 0 memfilterctl create cli-w32 --window 60s --capacity 100 \
		--layout split32 &&
	memfilterctl info cli-w32 | grep -q '^layout: *split32$' ||
		fail "a split32 window filter" || return 1
	expect_rc 0 memfilterctl rm cli-s32 && expect_rc 0 memfilterctl rm cli-w32
}

t_create_xxh3() {
	xxh3_keys >"$T/x3keys"
	expect_rc 0 memfilterctl create cli-x3 --type bloom --capacity 2000 \
		--seed 42 --hash xxh3 &&
	expect_rc 0 memfilterctl info cli-x3 &&
		grep -q '^hash: *xxh3, seed 0x000000000000002a$' "$T/out" ||
		fail "info does not show xxh3" || return 1
	expect_rc 0 memfilterctl info --json cli-x3 &&
		grep -q '"hash":"xxh3","keyed":false,"seed":"0x000000000000002a"' \
		"$T/out" || fail "info --json does not show xxh3" || return 1
	same_as_offline cli-x3 "$T/x3keys" xxh3 --hash xxh3 || return 1
	expect_rc 0 memfilterctl version &&
		grep -q 'hash-xxh3' "$T/out" || fail "version lacks hash-xxh3" ||
		return 1
	grep -q 'layouts' "$T/out" || fail "version lacks layouts" || return 1
	# Every bit the module sets has a name (a bit without one: "bitN").
	! grep -q '^features:.* bit[0-9]' "$T/out" ||
		fail "version has no name for a feature bit"
}

t_create_existing_name() {
	expect_error "already exists" memfilterctl create cli-b --type bloom \
		--capacity 10
}

t_add_file() {
	keys apple banana cherry >"$T/abc"
	expect_rc 0 memfilterctl add cli-b "$T/abc" && expect_out 3
}

t_add_stdin() {
	keys date elder >"$T/in"
	expect_rc 0 memfilterctl add cli-b - <"$T/in" && expect_out 2 ||
		return 1
	keys fig >"$T/in"
	expect_rc 0 memfilterctl add cli-b <"$T/in" && expect_out 1
}

t_query_present() {
	keys apple banana cherry date elder fig >"$T/present"
	expect_rc 0 memfilterctl query cli-b "$T/present" &&
		cmp -s "$T/out" "$T/present" || fail "not every key printed"
}

t_query_absent() {
	keys zebra yak xylophone walrus vole >"$T/absent"
	expect_rc 1 memfilterctl query cli-b "$T/absent" &&
		[ ! -s "$T/out" ] || fail "absent keys printed"
}

t_query_mixed_like_grep() {
	keys zebra banana yak fig >"$T/mixed"
	expect_rc 0 memfilterctl query cli-b "$T/mixed" || return 1
	[ "$(cat "$T/out")" = "$(keys banana fig)" ] ||
		fail "want banana and fig in input order"
}

t_query_count() {
	expect_rc 0 memfilterctl query --count cli-b "$T/mixed" &&
		expect_out 2 &&
	expect_rc 1 memfilterctl query cli-b "$T/absent" --count &&
		expect_out 0
}

t_empty_key() {
	printf '\n' >"$T/in"
	expect_rc 0 memfilterctl add cli-c <"$T/in" && expect_out 1 &&
	expect_rc 0 memfilterctl query cli-c --count <"$T/in" &&
		expect_out 1
}

t_hex() {
	# 616263 is "abc": the hex form and the text form are one key.
	keys 616263 00ff10 DEADBEEF >"$T/hex"
	expect_rc 0 memfilterctl add --hex cli-c "$T/hex" && expect_out 3 &&
	keys abc >"$T/in" &&
	expect_rc 0 memfilterctl query cli-c <"$T/in" && expect_out abc &&
	expect_rc 0 memfilterctl query --hex cli-c "$T/hex" &&
		cmp -s "$T/out" "$T/hex" || fail "hex keys not all present" ||
		return 1
	printf '\000\377\020\n' >"$T/in"
	expect_rc 0 memfilterctl query cli-c --count <"$T/in" &&
		expect_out 1 || fail "binary key 00ff10 not found"
}

t_hex_invalid() {
	keys 61zz >"$T/in"
	expect_error "hex" memfilterctl add --hex cli-c <"$T/in" || return 1
	keys 616 >"$T/in"
	expect_error "hex" memfilterctl query --hex cli-c <"$T/in"
}

t_del_cuckoo() {
	keys one two three >"$T/del"
	expect_rc 0 memfilterctl add cli-c "$T/del" && expect_out 3 &&
	expect_rc 0 memfilterctl query --count cli-c "$T/del" &&
		expect_out 3 &&
	expect_rc 0 memfilterctl del cli-c "$T/del" && expect_out 3 &&
	expect_rc 1 memfilterctl query cli-c "$T/del" &&
	expect_rc 0 memfilterctl del cli-c "$T/del" && expect_out 0 &&
	memfilterctl info --json cli-c | grep -q '"deletes":3,' ||
		fail "deletes counter is not 3"
}

t_del_bloom_refused() {
	expect_error "cuckoo" memfilterctl del cli-b "$T/abc"
}

# seen (test-and-add) on a cuckoo filter in the kernel: the reason, the
# line seen --image gives (it was "not supported by this filter type,
# kernel module or library"), and no key added.
t_seen_cuckoo_refused() {
	expect_error "^memfilterctl: cli-c: seen needs a Bloom, window or growing filter (test-and-add); a cuckoo filter cannot tell a new key from a false positive$" \
		memfilterctl seen cli-c --key seen-cuckoo-x &&
	expect_rc 1 memfilterctl query cli-c --key seen-cuckoo-x
}

t_info() {
	expect_rc 0 memfilterctl info cli-b || return 1
	for pat in '^name: *cli-b$' '^type: *bloom$' '^capacity: *10000 keys$' \
		'^keys: *6$' '^bytes: *[1-9]' '^fill: *[1-9][0-9]* / [1-9]' \
		'^estimated fpr: *[0-9]' '^overfill: *no$' \
		'^hash: *xxh3, seed 0x000000000000002a$' '^probes per key: *[1-9]' \
		'^adds: *6$' '^queries: *[1-9]' '^hits: *[1-9]'; do
		grep -q "$pat" "$T/out" || fail "info lacks /$pat/" || return 1
	done
}

# Shape of `info --pretty`: one object, one "key": value per line, commas
# on all but the last, strings quoted, the expected keys and values;
# `info --json` is the same object on one line.
t_info_json() {
	expect_rc 0 memfilterctl info cli-c --pretty || return 1
	awk '
		NR == 1 { if ($0 != "{") bad = 1; next }
		/^}$/ { end = NR; next }
		{
			if (end) bad = 1
			last = $0
			if ($0 !~ /^  "[a-z_]+": ("[^"\\]*"|-?[0-9][0-9.e+-]*|true|false),?$/)
				bad = 1
			if ($0 !~ /,$/) nocomma++
		}
		END { if (bad || !end || end != NR || nocomma != 1 || last ~ /,$/)
			exit 1 }' "$T/out" || fail "info --json is not a flat JSON object" ||
		return 1
	for pat in '"name": "cli-c",' '"type": "cuckoo",' '"capacity": 10000,' \
		'"fingerprint_bits": 16,' '"seed": "0x0000000000000007",' \
		'"overfill": false,' '"published": true,' '"est_fpr": [0-9]' \
		'"stash_used": [0-9]*,$' '"prefix_lengths": 0$'; do
		grep -q "$pat" "$T/out" || fail "info --pretty lacks /$pat/" ||
			return 1
	done
	tr -d '\n' <"$T/out" | sed 's/\([:,{]\) */\1/g' >"$T/pretty1"
	memfilterctl info cli-c --json >"$T/compact" &&
		[ "$(wc -l <"$T/compact")" -eq 1 ] &&
		[ "$(cat "$T/pretty1")" = "$(cat "$T/compact")" ] ||
		fail "info --json is not info --pretty on one line"
}

t_list() {
	expect_rc 0 memfilterctl list || return 1
	for n in cli-b cli-c cli-c12; do
		grep -qx "$n" "$T/out" || fail "list lacks $n" || return 1
	done
	expect_rc 0 memfilterctl list --json || return 1
	grep -q '^\[{.*}\]$' "$T/out" && grep -q '{"name":"cli-b",' "$T/out" &&
		grep -q '{"name":"cli-c",' "$T/out" || fail "list --json"
	# One object per name listed.
	[ "$(grep -o '{"name":' "$T/out" | wc -l)" -eq \
		"$(memfilterctl list | wc -l)" ] || fail "list --json: count"
}

t_overfill() {
	expect_rc 0 memfilterctl create cli-small --type bloom --capacity 10 &&
	seq 1 200 >"$T/in" &&
	expect_rc 0 memfilterctl add cli-small "$T/in" && expect_out 200 &&
	memfilterctl info cli-small | grep -q '^overfill: *yes' &&
	memfilterctl info --json cli-small | grep -q '"overfill":true,' ||
		fail "200 keys in a filter for 10 is not overfilled"
}

t_cuckoo_full() {
	expect_rc 0 memfilterctl create cli-full --type cuckoo --capacity 100 &&
	seq 1 100000 >"$T/many" &&
	expect_error "full" memfilterctl add cli-full "$T/many" &&
	memfilterctl info --json cli-full | grep -q '"failed":[1-9]' ||
		fail "failed counter not raised"
}

t_rm() {
	expect_rc 0 memfilterctl create cli-rm --type cuckoo --capacity 10 &&
	expect_rc 0 memfilterctl rm cli-rm && ! listed cli-rm &&
	expect_error "^memfilterctl: cli-rm: no such filter$" \
		memfilterctl query cli-rm "$T/abc" &&
	expect_error "no such filter" memfilterctl info cli-rm &&
	expect_error "no such filter" memfilterctl rm cli-rm
}

t_bad_usage() {
	expect_error "unknown command" memfilterctl frobnicate &&
	expect_error "unknown option" memfilterctl create cli-x --type bloom \
		--capacity 10 --frob &&
	expect_error "missing" memfilterctl query &&
	expect_error "type" memfilterctl create cli-x --type heap \
		--capacity 10 &&
	expect_error "type" memfilterctl create cli-x --capacity 10 &&
	expect_error "capacity" memfilterctl create cli-x --type bloom &&
	expect_error "capacity" memfilterctl create cli-x --type bloom \
		--capacity 12abc &&
	expect_error "fpr" memfilterctl create cli-x --type bloom \
		--capacity 10 --fpr 2 &&
	expect_error "fpr" memfilterctl create cli-x --type bloom \
		--capacity 10 --fpr 0.01 --bits-per-key 10 &&
	expect_error "fingerprint" memfilterctl create cli-x --type cuckoo \
		--capacity 10 --fingerprint-bits 9 &&
	expect_error "bits-per-key" memfilterctl create cli-x --type cuckoo \
		--capacity 10 --bits-per-key 10 &&
	expect_error "seed" memfilterctl create cli-x --type bloom \
		--capacity 10 --keyed --seed 1 &&
	expect_error "needs an argument" memfilterctl create cli-x --type &&
	expect_error "name" memfilterctl create 'cli x' --type bloom \
		--capacity 10 &&
	expect_error "unexpected" memfilterctl info cli-b extra &&
	expect_error "count" memfilterctl add cli-b --count "$T/abc" &&
	expect_error "abc-missing" memfilterctl add cli-b "$T/abc-missing" &&
	! listed cli-x
}

t_help() {
	for c in create add query del info list rm version; do
		expect_rc 0 memfilterctl "$c" --help &&
			grep -q "^usage: memfilterctl $c" "$T/out" ||
			fail "$c --help" || return 1
	done
	expect_rc 0 memfilterctl --help && grep -q '^usage:' "$T/out"
}

t_unprivileged() {
	run su nobody -s /bin/sh -c \
		"$MFC create cli-nobody --type bloom --capacity 10"
	[ "$rc" = 2 ] || fail "nobody: exit $rc, want 2" || return 1
	[ "$(wc -l <"$T/err")" -eq 1 ] &&
		grep -q '^memfilterctl: /dev/memfilter: permission denied$' \
		"$T/err" || fail "nobody: want one permission error" || return 1
	! listed cli-nobody
}

# MF_CLI_BIG keys (a million unless the guest script says otherwise: the
# debug kernel runs everything under KASAN and takes fewer).
t_million_keys() {
	n=${MF_CLI_BIG:-1000000}
	awk 'BEGIN { for (i = 0; i < '"$n"'; i++) print "key-" i }' \
		>"$T/million" &&
	expect_rc 0 memfilterctl create cli-million --type bloom \
		--capacity "$n" --fpr 0.01 &&
	expect_rc 0 memfilterctl add cli-million "$T/million" &&
		expect_out "$n" &&
	expect_rc 0 memfilterctl query --count cli-million "$T/million" &&
		expect_out "$n" &&
	memfilterctl info --json cli-million | grep -q "\"keys\":$n," ||
		fail "info keys != $n" || return 1
	# The same through a pipe, into a cuckoo filter, all found and deleted.
	expect_rc 0 memfilterctl create cli-cmillion --type cuckoo \
		--capacity "$n" &&
	expect_rc 0 sh -c "cat '$T/million' | memfilterctl add cli-cmillion" &&
		expect_out "$n" &&
	expect_rc 0 sh -c "cat '$T/million' | memfilterctl query -n cli-cmillion -" &&
		expect_out "$n" &&
	expect_rc 0 memfilterctl del cli-cmillion "$T/million" &&
		expect_out "$n"
}
