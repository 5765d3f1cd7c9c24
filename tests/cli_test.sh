#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Test of memfilterctl's command-line contract, run inside a guest with
# memfilter.ko loaded and memfilterctl on PATH (POSIX sh: busybox ash).
# Prints TAP; exits 0 only if every test passed. Filters it creates are
# named cli-* and removed at the end.

MFC=$(command -v memfilterctl) || { echo "1..0 # SKIP memfilterctl not on PATH"; exit 1; }
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT

# --- helpers ---------------------------------------------------------------

# run CMD...: run, keep stdout in $T/out, stderr in $T/err, status in $rc.
run() {
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
}

fail() {
	echo "$*"
	echo "stdout:"; sed 's/^/  /' "$T/out"
	echo "stderr:"; sed 's/^/  /' "$T/err"
	return 1
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

# UP: seconds since boot, with shell builtins (no date process: under
# KASAN every process started costs a fraction of a second or more).
uptime_s() {
	read -r UP _ </proc/uptime
	UP=${UP%.*}
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

# --hash xxh3 in the kernel: info says so; a kernel filter and the same
# filter built offline are the same bytes (the module's XXH3 is the
# library's, at every length); the feature bit is listed.
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
	expect_rc 0 memfilterctl add cli-x3 "$T/x3keys" && expect_out 1100 &&
	expect_rc 0 memfilterctl query --count cli-x3 "$T/x3keys" &&
		expect_out 1100 || return 1
	to_image "$T/x3k.img" memfilterctl dump cli-x3 &&
	to_image "$T/x3o.img" memfilterctl build --type bloom --capacity 2000 \
		--seed 42 --hash xxh3 "$T/x3keys" || return 1
	cmp -s "$T/x3k.img" "$T/x3o.img" ||
		fail "kernel and offline xxh3 filters differ" || return 1
	expect_rc 0 memfilterctl version &&
		grep -q 'hash-xxh3' "$T/out" || fail "version lacks hash-xxh3"
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
		'"stash_used": [0-9]*$'; do
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
	expect_rc 0 sh -c "cat '$T/million' | memfilterctl query -c cli-cmillion -" &&
		expect_out "$n" &&
	expect_rc 0 memfilterctl del cli-cmillion "$T/million" &&
		expect_out "$n"
}

# --- filter images ---------------------------------------------------------
# Offline builds, dump and load. The kernel and the offline code must answer
# every key identically: present keys all present, absent keys the same
# false positives.

IMG_VARIANTS="bloom bloom-keyed cuckoo cuckoo-keyed bloom-xxh3 cuckoo-xxh3"

img_opts() {
	case $1 in
	bloom) echo "--type bloom --capacity 2000 --seed 11" ;;
	bloom-keyed) echo "--type bloom --capacity 2000 --keyed" ;;
	cuckoo) echo "--type cuckoo --capacity 2000 --seed 12" ;;
	cuckoo-keyed) echo "--type cuckoo --capacity 2000 --fingerprint-bits 8 --keyed" ;;
	bloom-xxh3) echo "--type bloom --capacity 2000 --seed 13 --hash xxh3" ;;
	cuckoo-xxh3) echo "--type cuckoo --capacity 2000 --hash xxh3" ;;
	esac
}

# Overwrite one byte of FILE at OFFSET with a different value.
flip_byte() {
	cp "$1" "$T/flip.orig"
	printf '\000' | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
	cmp -s "$1" "$T/flip.orig" &&
		printf '\001' | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
	! cmp -s "$1" "$T/flip.orig"
}

# to_image FILE CMD...: run CMD with stdout into a new FILE (mode 0600,
# as keyed images must be: an existing file would keep its mode), expect
# exit 0 and nothing on stderr.
to_image() {
	f=$1
	shift
	rm -f "$f"
	(umask 077 && "$@" >"$f" 2>"$T/err")
	rc=$?
	: >"$T/out"
	[ "$rc" = 0 ] || fail "'$*': exit $rc, want 0" || return 1
	[ ! -s "$T/err" ] || fail "'$*': unexpected stderr"
}

# same_answers NAME IMAGE: the kernel filter NAME and IMAGE answer alike.
same_answers() {
	memfilterctl query "$1" "$T/img-present" >"$T/k-present"
	cmp -s "$T/k-present" "$T/img-present" ||
		fail "$1: not every added key present in the kernel" || return 1
	memfilterctl query --image "$2" "$T/img-present" >"$T/o-present"
	cmp -s "$T/o-present" "$T/img-present" ||
		fail "$2: not every added key present offline" || return 1
	memfilterctl query "$1" "$T/img-absent" >"$T/k-absent"
	memfilterctl query --image "$2" "$T/img-absent" >"$T/o-absent"
	cmp -s "$T/k-absent" "$T/o-absent" ||
		fail "$1 and $2: different answers for absent keys" || return 1
	[ "$(wc -l <"$T/k-absent")" -lt 2000 ] ||
		fail "$1: too many false positives"
}

t_image_build_load() {
	seq 1 2000 | sed 's/^/img-/' >"$T/img-present"
	seq 1 20000 | sed 's/^/absent-/' >"$T/img-absent"
	for v in $IMG_VARIANTS; do
		# shellcheck disable=SC2046
		to_image "$T/$v.img" memfilterctl build $(img_opts $v) \
			"$T/img-present" || return 1
		expect_rc 0 memfilterctl load "cli-img-$v" <"$T/$v.img" &&
			listed "cli-img-$v" || return 1
		same_answers "cli-img-$v" "$T/$v.img" || return 1
	done
	memfilterctl info cli-img-bloom-keyed | grep -q '^hash: *siphash' ||
		fail "loaded keyed image does not hash with siphash"
}

t_image_dump_load() {
	for v in $IMG_VARIANTS; do
		to_image "$T/$v.dump" memfilterctl dump "cli-img-$v" || return 1
		expect_rc 0 memfilterctl load "cli-img2-$v" <"$T/$v.dump" ||
			return 1
		same_answers "cli-img2-$v" "$T/$v.dump" || return 1
		memfilterctl query "cli-img-$v" "$T/img-absent" >"$T/k1"
		memfilterctl query "cli-img2-$v" "$T/img-absent" >"$T/k2"
		cmp -s "$T/k1" "$T/k2" ||
			fail "$v: reloaded dump answers differently" || return 1
	done
}

# A filter loaded from an image dumps back to the same bytes.
t_image_dump_identical() {
	for v in $IMG_VARIANTS; do
		cmp -s "$T/$v.img" "$T/$v.dump" ||
			fail "$v: dump of a loaded image differs from the image" ||
			return 1
	done
}

# A filter filled in the kernel, dumped: offline answers equal the kernel's.
t_image_dump_kernel_filter() {
	expect_rc 0 memfilterctl create cli-img-k --type cuckoo --capacity 3000 &&
	expect_rc 0 memfilterctl add cli-img-k "$T/img-present" &&
	to_image "$T/k.img" memfilterctl dump cli-img-k || return 1
	same_answers cli-img-k "$T/k.img"
}

t_image_inspect() {
	expect_rc 0 memfilterctl inspect "$T/bloom.dump" || return 1
	for pat in '^type: *bloom$' '^keys: *2000$' '^capacity: *2000 keys$' \
		'^hash: *xxh3, seed 0x000000000000000b$' '^checksums: *ok' \
		'^fill: *[1-9][0-9]* / [1-9]' '^estimated fpr: *[0-9]' \
		'^format: *memfilter image version 1'; do
		grep -q "$pat" "$T/out" || fail "inspect lacks /$pat/" || return 1
	done
	expect_rc 0 memfilterctl inspect --pretty "$T/cuckoo-keyed.dump" || return 1
	for pat in '"type": "cuckoo",' '"keyed": true,' '"keys": 2000,' \
		'"fingerprint_bits": 8,' '"checksums": "ok"$'; do
		grep -q "$pat" "$T/out" || fail "inspect --pretty lacks /$pat/" ||
			return 1
	done
}

t_image_corrupt() {
	cp "$T/bloom.img" "$T/bad.img" && flip_byte "$T/bad.img" 300 &&
	expect_error "corrupt filter image: payload checksum" \
		memfilterctl load cli-bad <"$T/bad.img" && ! listed cli-bad &&
	expect_error "corrupt filter image: payload checksum" \
		memfilterctl inspect "$T/bad.img" || return 1
	cp "$T/cuckoo.img" "$T/bad.img" && flip_byte "$T/bad.img" 40 &&
	expect_error "corrupt filter image: header checksum" \
		memfilterctl load cli-bad <"$T/bad.img" && ! listed cli-bad &&
	expect_error "header checksum" memfilterctl inspect "$T/bad.img" &&
	expect_error "header checksum" memfilterctl query --image \
		"$T/bad.img" "$T/img-present" || return 1
	head -c 1000 "$T/bloom.img" >"$T/bad.img"
	expect_error "corrupt filter image: truncated" \
		memfilterctl load cli-bad <"$T/bad.img" && ! listed cli-bad || return 1
	cat "$T/bloom.img" "$T/abc" >"$T/bad.img"
	expect_error "trailing bytes" memfilterctl load cli-bad <"$T/bad.img" &&
		! listed cli-bad || return 1
	seq 1 100 >"$T/bad.img"
	expect_error "bad magic" memfilterctl load cli-bad <"$T/bad.img" &&
		! listed cli-bad
}

t_image_load_existing_name() {
	expect_error "already exists" memfilterctl load cli-img-bloom \
		<"$T/bloom.img"
}

t_image_merge() {
	seq 1 1000 | sed 's/^/m1-/' >"$T/m1"
	seq 1 1000 | sed 's/^/m2-/' >"$T/m2"
	cat "$T/m1" "$T/m2" >"$T/m12"
	to_image "$T/m1.img" memfilterctl build --type bloom --capacity 2000 \
		--seed 3 "$T/m1" &&
	to_image "$T/m2.img" memfilterctl build --type bloom --capacity 2000 \
		--seed 3 "$T/m2" &&
	to_image "$T/m4.img" memfilterctl build --type bloom --capacity 2000 \
		--seed 4 "$T/m2" &&
	to_image "$T/m12.img" memfilterctl merge "$T/m1.img" "$T/m2.img" ||
		return 1
	expect_rc 0 memfilterctl query --image "$T/m12.img" "$T/m12" &&
		cmp -s "$T/out" "$T/m12" || fail "merged image lost keys" ||
		return 1
	memfilterctl inspect "$T/m12.img" | grep -q '^keys: *2000$' ||
		fail "merged key count is not 2000" || return 1
	expect_rc 0 memfilterctl load cli-img-merged <"$T/m12.img" &&
	expect_rc 0 memfilterctl query cli-img-merged "$T/m12" &&
		cmp -s "$T/out" "$T/m12" || fail "loaded merge lost keys" ||
		return 1
	expect_error "cannot merge.*seed" memfilterctl merge "$T/m1.img" \
		"$T/m4.img" &&
	expect_error "cannot merge.*Bloom" memfilterctl merge "$T/cuckoo.img" \
		"$T/cuckoo.img"
}

t_image_keyed_warning() {
	rm -f "$T/wide.img"
	(umask 022 && memfilterctl dump cli-img-bloom-keyed >"$T/wide.img" \
		2>"$T/err") || fail "dump keyed" || return 1
	grep -q 'warning: the image holds the filter.s secret key' "$T/err" ||
		fail "no warning for a keyed image in a 0644 file" || return 1
	to_image "$T/narrow.img" memfilterctl dump cli-img-bloom-keyed &&
	cmp -s "$T/wide.img" "$T/narrow.img" || fail "keyed dumps differ" ||
		return 1
	rm -f "$T/wide.img"
	(umask 022 && memfilterctl dump cli-img-bloom >"$T/wide.img" \
		2>"$T/err") && [ ! -s "$T/err" ] ||
		fail "warning for an unkeyed image"
}

t_image_help() {
	for c in build dump load inspect merge; do
		expect_rc 0 memfilterctl "$c" --help &&
			grep -q "^usage: memfilterctl $c" "$T/out" ||
			fail "$c --help" || return 1
	done
	expect_rc 0 memfilterctl query --help && grep -q -- '--image' "$T/out" ||
		fail "query --help lacks --image"
}

# --- issue 16: offline behaviour (also run on the host: MF_CLI_OFFLINE=1) -----

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
	expect_error "image" memfilterctl add --image "$T/o1.img" "$T/o1" &&
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

# --- issue 16: against the module --------------------------------------------

t_version_both() {
	expect_rc 0 memfilterctl --version && cp "$T/out" "$T/version" &&
	expect_rc 0 memfilterctl version &&
		[ "$(sed -n 1p "$T/out")" = "$(cat "$T/version")" ] ||
		fail "version does not start with the --version line"
}

t_list_json_objects() {
	expect_rc 0 memfilterctl list --json || return 1
	[ "$(wc -l <"$T/out")" -eq 1 ] || fail "not compact" || return 1
	grep -q '^\[{"name":"' "$T/out" &&
		grep -q '{"name":"cli-b","type":"bloom",' "$T/out" &&
		grep -q '{"name":"cli-c","type":"cuckoo",' "$T/out" &&
		grep -q '}\]$' "$T/out" || fail "list --json is not objects"
}

t_keys_cli() {
	expect_rc 0 memfilterctl create cli-k --type cuckoo --capacity 100 &&
	expect_rc 0 memfilterctl add cli-k --key k1 --key k2 && expect_out 2 &&
	expect_rc 0 memfilterctl query cli-k --key k2 --key k3 --key k1 &&
		expect_out "$(keys k2 k1)" &&
	expect_rc 0 memfilterctl query -v cli-k --key k2 --key k3 &&
		expect_out k3 &&
	expect_rc 1 memfilterctl query -v cli-k --key k1 &&
	expect_rc 0 memfilterctl add --unique cli-k --key k1 --key k4 &&
		expect_out 1 &&
	expect_rc 0 memfilterctl del cli-k --key k4 && expect_out 1 &&
	expect_error "cuckoo" memfilterctl add --unique cli-b --key k1 &&
	expect_error "--key" memfilterctl add cli-k --key k1 "$T/abc"
}

# count against the module: 3 adds count 3, a delete 2; Bloom refused.
t_count_cli() {
	expect_rc 0 memfilterctl create cli-cnt --type cuckoo --capacity 100 &&
	expect_rc 0 memfilterctl add cli-cnt --key k1 --key k1 --key k1 \
		--key k2 && expect_out 4 &&
	expect_rc 0 memfilterctl count cli-cnt --key k1 --key k2 --key k3 &&
		expect_out "$(printf '3\tk1\n1\tk2\n0\tk3')" &&
	expect_rc 0 memfilterctl del cli-cnt --key k1 && expect_out 1 &&
	keys k1 k3 >"$T/cnt-in" &&
	expect_rc 0 memfilterctl count cli-cnt "$T/cnt-in" &&
		expect_out "$(printf '2\tk1\n0\tk3')" &&
	expect_rc 1 memfilterctl count cli-cnt --key k3 &&
	expect_error "count needs a cuckoo filter" memfilterctl count cli-b \
		--key a &&
	expect_error "no such filter" memfilterctl count cli-none --key a
}

t_clear() {
	expect_rc 0 memfilterctl clear cli-k && [ ! -s "$T/out" ] ||
		fail "clear" || return 1
	expect_rc 1 memfilterctl query cli-k --key k1 --key k2 &&
	memfilterctl info -p cli-k | grep -q '"keys": 0,' ||
		fail "keys after clear" || return 1
	expect_error "no such filter" memfilterctl clear cli-none
}

# dump -o: a keyed image in a new file of mode 0600, the same bytes as on
# stdout; a failed dump leaves the file alone.
t_dump_output() {
	expect_rc 0 memfilterctl dump cli-img-bloom-keyed -o "$T/dump-o.img" &&
		[ ! -s "$T/out" ] && [ ! -s "$T/err" ] &&
		[ "$(stat -c %a "$T/dump-o.img")" = 600 ] &&
		cmp -s "$T/dump-o.img" "$T/narrow.img" || fail "dump -o" ||
		return 1
	echo keep >"$T/keep.img"
	cp "$T/keep.img" "$T/keep.orig"
	expect_error "no such filter" memfilterctl dump cli-none \
		-o "$T/keep.img" && same_file "$T/keep.img" "$T/keep.orig"
}

t_add_overfill_warning() {
	expect_rc 0 memfilterctl create cli-small2 --type bloom --capacity 10 &&
	seq 1 200 >"$T/in" &&
	expect_warning "overfill" memfilterctl add cli-small2 "$T/in" &&
		expect_out 200
}

# A growing filter's sub-filters in info and inspect, text and JSON: 250
# keys (XXH64, seed 42) into 100 + 200, exact capacities, keys, bits and model
# rates per sub-filter, summing to the filter's totals. grow_subs_check
# FILE: the text lines; grow_subs_json FILE: the compact JSON array.
GROW_SUB0='  sub-filter 0    100 / 100 keys, 570 / 1536 bits set, estimated fpr 0.00124643'
GROW_SUB1='  sub-filter 1    150 / 200 keys, 968 / 3072 bits set, estimated fpr 0.000226792 (newest)'
GROW_JSON='"grow_max":16,"grow_factor":2,"grow_ratio":0.50,"fpr_bound":0.01,"subfilters":[{"capacity":100,"keys":100,"fill":570,"fill_max":1536,"est_fpr":0.001246427},{"capacity":200,"keys":150,"fill":968,"fill_max":3072,"est_fpr":0.000226792}]'
grow_subs_check() {
	for line in 'capacity:         300 keys' 'keys:             250' \
		'fill:             1538 / 4608 bits (33.38%)' \
		'estimated fpr:    0.00147322' \
		'sub-filters:      2 of at most 16 (capacity x2, rate x0.50 each)' \
		"$GROW_SUB0" "$GROW_SUB1"; do
		grep -qxF "$line" "$1" || fail "no line '$line'" || return 1
	done
	[ "$(grep -c '^  sub-filter ' "$1")" = 2 ] || fail "not 2 sub-filters"
}
grow_subs_json() {
	grep -qF "$GROW_JSON" "$1" || fail "JSON lacks $GROW_JSON"
}

t_grow_info() {
	seq 1 250 >"$T/g250" &&
	expect_rc 0 memfilterctl create cli-g --grow --capacity 100 \
		--fpr 0.01 --seed 42 --hash xxh64 &&
	expect_rc 0 memfilterctl add cli-g "$T/g250" &&
	expect_rc 0 memfilterctl info cli-g || return 1
	grow_subs_check "$T/out" || return 1
	expect_rc 0 memfilterctl info cli-g --json || return 1
	grow_subs_json "$T/out" || return 1
	expect_rc 0 memfilterctl dump cli-g -o "$T/g.img" &&
	expect_rc 0 memfilterctl inspect "$T/g.img" || return 1
	grow_subs_check "$T/out"
}

t_grow_offline() {
	seq 1 250 >"$T/g250" &&
	expect_rc 0 memfilterctl build --grow --capacity 100 --fpr 0.01 \
		--seed 42 --hash xxh64 "$T/g250" -o "$T/gb.img" &&
	expect_rc 0 memfilterctl inspect "$T/gb.img" || return 1
	grow_subs_check "$T/out" || return 1
	expect_rc 0 memfilterctl inspect "$T/gb.img" --json || return 1
	grow_subs_json "$T/out"
}

# --hash offline: the image and inspect say xxh3, its keys are found,
# merges want the same hash, and the options that exclude it are refused.
t_hash_offline() {
	keys a bb ccc dddddddddddddddd eeeeeeeeeeeeeeeee >"$T/h5"
	to_image "$T/h3.img" memfilterctl build --type bloom --capacity 100 \
		--seed 9 --hash xxh3 "$T/h5" &&
	to_image "$T/h64.img" memfilterctl build --type bloom --capacity 100 \
		--seed 9 --hash xxh64 "$T/h5" || return 1
	expect_rc 0 memfilterctl inspect "$T/h3.img" &&
		grep -q '^hash: *xxh3, seed 0x0000000000000009$' "$T/out" ||
		fail "inspect does not show xxh3" || return 1
	expect_rc 0 memfilterctl inspect --json "$T/h3.img" &&
		grep -q '"hash":"xxh3",' "$T/out" || fail "inspect --json" ||
		return 1
	expect_rc 0 memfilterctl query --image "$T/h3.img" --count "$T/h5" &&
		expect_out 5 || return 1
	cmp -s "$T/h3.img" "$T/h64.img" && fail "xxh3 image equals xxh64's" &&
		return 1
	expect_error "cannot merge.*hash" memfilterctl merge "$T/h3.img" \
		"$T/h64.img" &&
	expect_error "siphash24" memfilterctl build --type bloom \
		--capacity 10 --keyed --hash xxh3 "$T/h5" &&
	expect_error "exclude" memfilterctl build --type bloom \
		--capacity 10 --hash siphash24 --seed 1 "$T/h5" &&
	expect_error "xxh64, xxh3 or siphash24" memfilterctl build \
		--type bloom --capacity 10 --hash xxh128 "$T/h5" &&
	expect_rc 0 memfilterctl build --type cuckoo --capacity 10 \
		--hash siphash24 -o "$T/hs.img" "$T/h5" &&
	memfilterctl inspect "$T/hs.img" | grep -q '^hash: *siphash' ||
		fail "--hash siphash24 is not keyed"
}

zeros() {
	cat /dev/zero
}

# big.hdr: the header of a valid image that declares a 16 MiB payload.
big_header() {
	[ -f "$T/big.hdr" ] && return 0
	memfilterctl build --type bloom --capacity 16777216 --bits-per-key 8 \
		-o "$T/big.img" /dev/null &&
	head -c 128 "$T/big.img" >"$T/big.hdr" && rm -f "$T/big.img"
}

big_header_zeros() {
	cat "$T/big.hdr" /dev/zero
}

big_header_short() {
	cat "$T/big.hdr"
	head -c 1000 /dev/zero
}

# huge.hdr: big.hdr declaring 2^56 bytes more (byte 95 is payload_size's
# top byte): its checksum fails before any payload is read.
huge_header_zeros() {
	cat "$T/huge.hdr" /dev/zero
}

# Every image reader (inspect, query --image, merge, rotate --image, load)
# reads the 128-byte header, checks it, then exactly the payload it
# declares: an endless input is refused in bounded memory, never read
# whole. load reads and checks its image before it opens /dev/memfilter.
t_image_input_bounded() {
	offline_images && big_header || return 1
	magic="corrupt filter image: not a memfilter filter image (bad magic)"
	expect_error "/dev/zero: $magic" limited memfilterctl inspect /dev/zero &&
	expect_error "/dev/zero: $magic" limited memfilterctl query \
		--image /dev/zero --key k &&
	expect_error "/dev/zero: $magic" limited memfilterctl merge \
		"$T/o1.img" /dev/zero &&
	expect_error "/dev/zero: $magic" limited memfilterctl rotate \
		--image /dev/zero -o "$T/z.img" && [ ! -e "$T/z.img" ] ||
		fail "rotate of /dev/zero" || return 1
	expect_error "<stdin>: $magic" from zeros limited memfilterctl load \
		cli-zero || return 1
	expect_error "<stdin>: $magic" from zeros limited memfilterctl \
		inspect - || return 1
	cp "$T/big.hdr" "$T/huge.hdr" && flip_byte "$T/huge.hdr" 95 &&
	expect_error "<stdin>: corrupt filter image: header checksum" \
		from huge_header_zeros limited memfilterctl inspect - || return 1
	expect_error "<stdin>: corrupt filter image: trailing bytes after the payload" \
		from big_header_zeros limited memfilterctl inspect - || return 1
	expect_error "<stdin>: corrupt filter image: truncated: shorter than header + payload" \
		from big_header_short limited memfilterctl inspect - || return 1
	printf 'abc' >"$T/3.img"
	expect_error "3.img: corrupt filter image: truncated: shorter than the 128-byte header" \
		memfilterctl inspect "$T/3.img"
}

long_line() {
	seq 1000
	head -c 1500000000 /dev/zero
}

# A line is read only up to the key limit (4096 bytes, 8192 hex digits,
# a CR before the newline not counted): a longer one is an error naming
# its line, as is a read error; no image is written.
t_keys_bounded() {
	expect_error "<stdin>:1001: key longer than 4096 bytes" from long_line \
		limited memfilterctl build --type bloom --capacity 2000 \
		-o "$T/long.img" - && [ ! -e "$T/long.img" ] ||
		fail "build wrote an image of a partial input" || return 1
	awk 'BEGIN { s = "k"; for (i = 0; i < 12; i++) s = s s;
		print "a"; print s "\r"; print substr(s, 1, 4095) "xy" }' \
		>"$T/edge"
	expect_error "edge:3: key longer than 4096 bytes" memfilterctl build \
		--type cuckoo --capacity 10 -o "$T/edge.img" "$T/edge" || return 1
	head -n 2 "$T/edge" >"$T/edge2"
	expect_rc 0 memfilterctl build --type cuckoo --capacity 10 \
		-o "$T/edge.img" "$T/edge2" &&
	expect_rc 0 memfilterctl query --image "$T/edge.img" --count \
		"$T/edge2" && expect_out 2 || return 1
	awk 'BEGIN { s = "6b"; for (i = 0; i < 12; i++) s = s s;
		print s; print s "6b" }' >"$T/hexedge"
	expect_error "hexedge:2: key longer than 4096 bytes" memfilterctl \
		query --hex --image "$T/edge.img" "$T/hexedge" &&
	expect_error "<stdin>:1: Is a directory" memfilterctl build \
		--type bloom --capacity 10 -o "$T/dir.img" - <"$T" &&
		[ ! -e "$T/dir.img" ] || fail "build from a directory on stdin"
}

# --- issue 33: one meaning per option, no silent guesses (offline) ----------

# Long options are never abbreviated (build --key was --keyed); -k is
# --key (add, query, del, count, seen), never --keyed.
t_no_abbrev() {
	keys a >"$T/ab1"
	rm -f "$T/abbr.img"
	expect_error "unknown option '--key'" memfilterctl build --type bloom \
		--capacity 10 --key "$T/ab1" -o "$T/abbr.img" &&
		[ ! -e "$T/abbr.img" ] || fail "build --key wrote an image" ||
		return 1
	expect_error "unknown option '-k'" memfilterctl build -k --type bloom \
		--capacity 10 -o "$T/abbr.img" "$T/ab1" &&
	expect_error "unknown option '-k'" memfilterctl create cli-x -k \
		--type bloom --capacity 10 &&
	expect_error "unknown option '--cap'" memfilterctl build --type bloom \
		--cap 10 -o "$T/abbr.img" "$T/ab1" &&
	expect_error "unknown option '--ima'" memfilterctl query --ima \
		"$T/abbr.img" --key a &&
	expect_error "unknown option '--key'" memfilterctl build --type bloom \
		--capacity 10 --key=x -o "$T/abbr.img" "$T/ab1" &&
	expect_error "option '--keyed' takes no argument" memfilterctl build \
		--type bloom --capacity 10 --keyed=x -o "$T/abbr.img" "$T/ab1" &&
	expect_error "unknown option '--js'" memfilterctl --js list &&
		[ ! -e "$T/abbr.img" ] || fail "an abbreviation wrote an image" ||
		return 1
	expect_rc 0 memfilterctl build --type bloom --capacity 10 --keyed \
		-o "$T/abbr.img" "$T/ab1" &&
	memfilterctl inspect "$T/abbr.img" | grep -q '^hash: *siphash' ||
		fail "build --keyed" || return 1
	expect_rc 0 memfilterctl query --image "$T/abbr.img" -k a -k b &&
		expect_out a
}

# The grow options make no growing filter by themselves: they need --grow
# or --type grow.
t_grow_needs_grow() {
	keys a b c >"$T/g3"
	rm -f "$T/gg.img"
	expect_error "grow-factor needs --grow" memfilterctl build --type bloom \
		--capacity 10 --grow-factor 2 -o "$T/gg.img" "$T/g3" &&
	expect_error "grow-ratio needs --grow" memfilterctl build \
		--capacity 10 --grow-ratio 0.5 -o "$T/gg.img" "$T/g3" &&
	expect_error "grow-max needs --grow" memfilterctl create cli-x \
		--type bloom --capacity 10 --grow-max 2 &&
		[ ! -e "$T/gg.img" ] || fail "a grow option made an image" ||
		return 1
	expect_error "window" memfilterctl build --type grow --window 2s \
		--capacity 10 -o "$T/gg.img" "$T/g3" &&
	expect_error "bloom, cuckoo or grow" memfilterctl build --type heap \
		--capacity 10 -o "$T/gg.img" "$T/g3" || return 1
	for g in --grow "--type grow"; do
		expect_rc 0 memfilterctl build $g --capacity 10 --grow-factor 4 \
			--seed 1 -o "$T/gg.img" "$T/g3" &&
		memfilterctl inspect "$T/gg.img" | grep -q '^type: *grow$' &&
		memfilterctl inspect "$T/gg.img" |
			grep -q '^sub-filters: *1 of at most 16 (capacity x4,' ||
			fail "build $g --grow-factor 4" || return 1
	done
}

# --bits-per-key: quarter bits only, nothing rounded.
t_bpk_grid() {
	keys a >"$T/bp1"
	for b in 10.1 10.3 1.1 63.9; do
		expect_error "steps of 0.25, not '$b'" memfilterctl build \
			--type bloom --capacity 10 --bits-per-key "$b" \
			-o "$T/bp.img" "$T/bp1" || return 1
	done
	[ ! -e "$T/bp.img" ] || fail "an image off the grid" || return 1
	expect_rc 0 memfilterctl build --type bloom --capacity 10 \
		--bits-per-key 10.25 -o "$T/bp.img" "$T/bp1" &&
	memfilterctl inspect "$T/bp.img" | grep -q '^bits per key: *10.25$' ||
		fail "--bits-per-key 10.25"
}

# query/count --image -: the image is stdin, so the keys cannot be.
t_image_keys_stdin() {
	offline_images || return 1
	expect_error "stdin" memfilterctl query -i - - <"$T/o1.img" &&
	expect_error "stdin" memfilterctl query --image - <"$T/o1.img" &&
	expect_error "stdin" memfilterctl count --image - - <"$T/o1.img" &&
	expect_rc 0 memfilterctl query -i - --key o1-5 --key x <"$T/o1.img" &&
		expect_out o1-5 &&
	expect_rc 0 memfilterctl query -i - --count "$T/o1" <"$T/o1.img" &&
		expect_out 1000
}

# --window: at most 365 days (8760h), and no overflow.
t_window_max() {
	keys a >"$T/wm1"
	for w in 99999999999h 8761h 525601m 31536001s 31536000001ms \
		18446744073709551615ms 18446744073709551616; do
		expect_error "365 days" memfilterctl build --window "$w" \
			--capacity 10 -o "$T/wm.img" "$T/wm1" || return 1
	done
	[ ! -e "$T/wm.img" ] || fail "an image of an endless window" || return 1
	expect_rc 0 memfilterctl build --window 8760h --generations 2 \
		--capacity 10 -o "$T/wm.img" "$T/wm1" &&
	memfilterctl inspect "$T/wm.img" | grep -qx 'period: *31536000000 ms' ||
		fail "--window 8760h"
}

# help COMMAND is COMMAND --help.
t_help_cmd() {
	for c in build query nf version; do
		memfilterctl "$c" --help >"$T/help-want" &&
		expect_rc 0 memfilterctl help "$c" &&
			same_file "$T/out" "$T/help-want" ||
			fail "help $c is not $c --help" || return 1
	done
	expect_rc 0 memfilterctl help && grep -q '^usage: memfilterctl \[' \
		"$T/out" && grep -q '^  help  *\[COMMAND\]' "$T/out" ||
		fail "help" || return 1
	expect_error "unknown command 'frob'" memfilterctl help frob &&
	expect_error "unexpected argument 'x'" memfilterctl help build x
}

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
help_cmd"

TESTS="version create_bloom create_cuckoo create_defaults_and_params create_xxh3
create_existing_name add_file add_stdin query_present query_absent
query_mixed_like_grep query_count empty_key hex hex_invalid del_cuckoo
del_bloom_refused info info_json list overfill cuckoo_full rm bad_usage help
unprivileged million_keys image_build_load image_dump_load
image_dump_identical image_dump_kernel_filter image_inspect image_corrupt
image_load_existing_name image_merge image_keyed_warning image_help
version_both list_json_objects keys_cli count_cli clear add_overfill_warning
dump_output grow_info
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

echo "TAP version 13"
set -- $TESTS
echo "1..$#"
n=0
failed=0
for t in $TESTS; do
	n=$((n + 1))
	uptime_s
	t0=$UP
	if out=$("t_$t" 2>&1); then
		echo "ok $n $t"
	else
		echo "$out" | sed 's/^/# /'
		echo "not ok $n $t"
		failed=1
	fi
	uptime_s
	echo "# $t: $((UP - t0)) s"
done
exit $failed
