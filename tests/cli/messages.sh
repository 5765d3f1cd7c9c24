# SPDX-License-Identifier: GPL-2.0
#
# memfilterctl's tests (tests/cli_test.sh, which sources this file and has
# the helpers and the driver). What its help and messages say, and the
# options it refuses, offline.

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
	memfilterctl inspect "$T/oc.img" | grep -q '^bits per key: *17.00$' &&
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

# merge says which image cannot be merged and why; images built apart
# name --seed.
t_merge_messages() {
	offline_images || return 1
	expect_rc 0 memfilterctl build --generations 2 --capacity 10 \
		-o "$T/mm-w.img" "$T/o1" &&
	expect_rc 0 memfilterctl build --grow --capacity 10 \
		-o "$T/mm-g.img" "$T/o1" &&
	expect_rc 0 memfilterctl build --type cuckoo --capacity 2000 \
		-o "$T/mm-c.img" "$T/o1" || return 1
	for t in w:window g:growing c:cuckoo; do
		expect_error "mm-${t%%:*}.img is a ${t#*:} filter image: only Bloom filter images can be merged" \
			memfilterctl merge "$T/o1.img" "$T/mm-${t%%:*}.img" ||
			return 1
	done
	expect_error "window filter's generations" memfilterctl merge \
		"$T/mm-w.img" "$T/o1.img" &&
		! grep -q cuckoo "$T/err" || fail "a window blamed on cuckoo" ||
		return 1
	expect_rc 0 memfilterctl build --type bloom --capacity 2000 \
		-o "$T/mm-a.img" "$T/o1" &&
	expect_rc 0 memfilterctl build --type bloom --capacity 2000 \
		-o "$T/mm-b.img" "$T/o2" &&
	expect_error "different hash seeds (0x.*): images built without --seed get random ones; build both with the same .*--seed S" \
		memfilterctl merge "$T/mm-a.img" "$T/mm-b.img" || return 1
	expect_rc 0 memfilterctl build --type bloom --capacity 4000 --seed 3 \
		-o "$T/mm-4k.img" "$T/o1" &&
	expect_error "different table sizes or probes per key" memfilterctl \
		merge "$T/o1.img" "$T/mm-4k.img"
}

# A cuckoo filter full because one key is stored its most times says so.
# Seed 1 gives key a two buckets; seed 574 one (its alternate bucket is
# its first), where the sixth copy does not fit.
t_cuckoo_full_key() {
	keys a a a a a a a a a a >"$T/cf-a10"
	expect_error "the key of $T/cf-a10:10 is in the filter 9 times already: a cuckoo filter stores one key at most 9 times" \
		memfilterctl build --type cuckoo --capacity 1000 --seed 1 \
		-o "$T/cf.img" "$T/cf-a10" &&
		[ ! -e "$T/cf.img" ] || fail "an image of a failed build" ||
		return 1
	expect_error "the key of $T/cf-a10:6 is in the filter 5 times already: .*; 5 if its two buckets are one); 5 keys were added" \
		memfilterctl build --type cuckoo --capacity 1000 --seed 574 \
		-o "$T/cf.img" "$T/cf-a10"
}

# One name for the keyed hash in text and JSON (siphash24, as --hash
# spells it); a cuckoo filter's JSON has its slots per bucket, not "k",
# and its table's bits per key.
t_names_offline() {
	keys a b >"$T/nm"
	expect_rc 0 memfilterctl build --type bloom --capacity 10 --keyed \
		-o "$T/nm-k.img" "$T/nm" &&
	expect_rc 0 memfilterctl inspect "$T/nm-k.img" &&
		grep -q '^hash: *siphash24 (keyed' "$T/out" &&
	expect_rc 0 memfilterctl inspect --json "$T/nm-k.img" &&
		grep -q '"hash":"siphash24","keyed":true' "$T/out" ||
		fail "the keyed hash's name" || return 1
	expect_rc 0 memfilterctl build --type cuckoo --capacity 1000 \
		--fingerprint-bits 12 -o "$T/nm-c.img" "$T/nm" &&
	expect_rc 0 memfilterctl inspect --json "$T/nm-c.img" &&
		grep -q '"slots_per_bucket":4,"fingerprint_bits":12,' "$T/out" &&
		! grep -q '"k":' "$T/out" || fail "cuckoo JSON: k" || return 1
	# 1056 slots of 12 bits for 1000 keys: 12.67 bits per key.
	grep -q '"fill_max":1056,' "$T/out" &&
		grep -q '"bits_per_key":12.67,' "$T/out" &&
	memfilterctl inspect "$T/nm-c.img" | grep -q '^bits per key: *12.67$' ||
		fail "cuckoo bits per key"
}

# A filter NAME that is a file points to the command that reads images.
t_image_name_hint() {
	offline_images || return 1
	expect_error "o1.img: no filter by that name, but a file: 'memfilterctl inspect $T/o1.img' shows an image" \
		memfilterctl info "$T/o1.img" &&
	(cd "$T" && expect_error "o1.img: no filter by that name, but a file: 'memfilterctl inspect o1.img'" \
		memfilterctl info o1.img) &&
	expect_error "'memfilterctl query --image $T/o1.img' queries an image" \
		memfilterctl query "$T/o1.img" --key a
}

# An overfilled filter's estimated rate is what it is (near 1 for 1000
# keys in a filter for 10), never 0: in the kernel and offline.
t_overfill_estimate() {
	seq 1 1000 >"$T/oe"
	for how in kernel offline; do
		if [ "$how" = kernel ]; then
			memfilterctl create cli-oe --type bloom --capacity 10 &&
			run memfilterctl add cli-oe "$T/oe" || return 1
		else
			run memfilterctl build --type bloom --capacity 10 \
				-o "$T/oe.img" "$T/oe"
		fi
		rate=$(sed -n 's/.*estimated false-positive rate \([0-9.e+-]*\)).*/\1/p' "$T/err")
		awk -v r="$rate" 'BEGIN { exit !(r + 0 >= 0.5 && r + 0 <= 1) }' ||
			fail "$how: overfill warning's rate '$rate'" || return 1
		[ "$how" = offline ] && break
		memfilterctl info --json cli-oe | grep -q '"est_fpr":\(1\|0\.[5-9]\)' ||
			fail "info --json est_fpr" || return 1
	done
}

# A full growing filter says which limit it reached: --grow-max, or a
# next sub-filter's rate below what a Bloom filter reaches (--grow-ratio
# 0.01: 3 sub-filters of 10, 20 and 40 keys, the fourth at 1e-8). build,
# add --image and, where there is a device, add to a filter.
t_grow_full() {
	seq 1 71 >"$T/gf"
	expect_error "build: the growing filter is full: its 1 sub-filter, the most --grow-max allows, holds 10 keys; 10 keys were added ($T/gf:11 not added): raise --grow-max" \
		memfilterctl build --grow --grow-max 1 --capacity 10 \
		-o "$T/gf.img" "$T/gf" &&
	expect_error "build: the growing filter is full at 3 of at most 16 sub-filters, 70 keys: the next would need a false-positive rate of 9.9e-09, below what a Bloom filter reaches" \
		memfilterctl build --grow --grow-ratio 0.01 --capacity 10 \
		-o "$T/gf.img" "$T/gf" &&
		[ ! -e "$T/gf.img" ] || fail "a full build wrote an image" ||
		return 1
	seq 1 5 | memfilterctl build --grow --grow-max 2 --capacity 10 \
		--seed 1 -o "$T/gf.img" && cp "$T/gf.img" "$T/gf.orig" &&
	expect_error "gf.img: the growing filter is full: its 2 sub-filters, the most --grow-max allows, hold 30 keys; 25 keys were added ($T/gf:26 not added)" \
		memfilterctl add --image "$T/gf.img" "$T/gf" &&
		same_file "$T/gf.img" "$T/gf.orig" || return 1
	[ -e /dev/memfilter ] || return 0
	memfilterctl create cli-gf --grow --grow-max 1 --capacity 10 &&
	expect_error "cli-gf: the growing filter is full: its 1 sub-filter, the most --grow-max allows, holds 10 keys; 10 keys were added ($T/gf:11 not added)" \
		memfilterctl add cli-gf "$T/gf" &&
	memfilterctl rm cli-gf
}

# --hex names the character that is not a hex digit, and where, before
# counting digits ("ab cd" has a space, not five digits).
t_hex_messages() {
	printf '00\nab cd\n' >"$T/hm"
	expect_error "hm:2: invalid hex digit ' ' at column 3" memfilterctl \
		build --hex --type bloom --capacity 10 -o "$T/hm.img" "$T/hm" &&
	printf 'ab\r\r\n' >"$T/hm" &&
	expect_error "hm:1: invalid hex digit (byte 0x0d) at column 3" \
		memfilterctl build --hex --type bloom --capacity 10 \
		-o "$T/hm.img" "$T/hm" &&
	[ ! -e "$T/hm.img" ] || fail "an image of bad hex" || return 1
	: | memfilterctl build --type bloom --capacity 10 -o "$T/hm.img" &&
	expect_error "--key:2: invalid hex digit 'x' at column 2" \
		memfilterctl query --hex -i "$T/hm.img" --key 00 --key 0x1 &&
	expect_error "odd number of hex digits" memfilterctl query --hex \
		-i "$T/hm.img" --key abc
}

# An image file read by query --image and cut short by another program
# while the command runs (here: between reading the image and the keys,
# read from a FIFO) changes nothing: the query answers from the image as
# it was (it was "Bus error", then a message and exit status 2, while the
# image was mapped), and so does add --image, whose new image is whole.
t_image_truncated() {
	seq 1 10 | memfilterctl build --type bloom --capacity 20 --seed 1 \
		-o "$T/it.img" && rm -f "$T/it-keys" && mkfifo "$T/it-keys" ||
		return 1
	cp "$T/it.img" "$T/it-orig.img" || return 1
	for c in query add; do
		cp "$T/it-orig.img" "$T/it.img" || return 1
		set -- query -n
		[ $c = add ] && set -- add -o "$T/it-new.img"
		memfilterctl "$@" --image "$T/it.img" "$T/it-keys" \
			>"$T/out" 2>"$T/err" &
		pid=$!
		# Opened once the command has read the image and opens its keys.
		exec 3>"$T/it-keys"
		: >"$T/it.img"
		printf '5\n11\n' >&3
		exec 3>&-
		wait "$pid"
		rc=$?
		[ "$rc" = 0 ] && [ ! -s "$T/err" ] ||
			fail "$c: exit $rc: $(cat "$T/err")" || return 1
		cp "$T/out" "$T/it-$c"
	done
	# query -n counts the keys present: 5 of the image's, not 11 (seed 1);
	# add's new image, whole, holds both.
	[ "$(cat "$T/it-query")" = 1 ] ||
		fail "query: $(cat "$T/it-query") present" || return 1
	printf '5\n11\n' >"$T/it-k2" &&
	memfilterctl query -n --image "$T/it-new.img" "$T/it-k2" >"$T/out" &&
		expect_out 2 || return 1
	rm -f "$T/it-keys" "$T/it.img" "$T/it-orig.img" "$T/it-new.img" \
		"$T/it-k2" "$T/it-query" "$T/it-add"
}

# A Bloom filter counts adds: 1,000 adds of one key into capacity 10 are
# "1000 keys", but its bits are one key's. The warning says so (it said
# "overfilled ... (estimated false-positive rate 0)"), with a rate under
# the estimate's resolution as "below 1e-09"; 20 keys 10 times each are
# too many for 10, and 1,000 distinct keys overfill it. build, inspect
# and, with a device, add and info.
t_overfill_repeats() {
	yes a 2>/dev/null | head -n 1000 >"$T/or-a"
	msg="1000 keys counted for capacity 10, but its bits are those of about 1 distinct key (estimated false-positive rate below 1e-09): a key added again is counted again"
	expect_rc 0 memfilterctl build --type bloom --capacity 10 --seed 1 \
		-o "$T/or.img" "$T/or-a" &&
		grep -qx "memfilterctl: warning: build: $msg" "$T/err" &&
	expect_rc 0 memfilterctl inspect "$T/or.img" &&
		grep -qx "memfilterctl: warning: $T/or.img: $msg" "$T/err" ||
		fail "one key 1000 times" || return 1
	seq 1 20 >"$T/or-20"
	for i in 1 2 3 4 5; do cat "$T/or-20" "$T/or-20"; done >"$T/or-200"
	expect_rc 0 memfilterctl build --type bloom --capacity 10 --seed 1 \
		-o "$T/or.img" "$T/or-200" &&
		grep -q "200 keys counted for capacity 10, but its bits are those of about 2[0-9] distinct keys (.*): a key added again is counted again; use a larger --capacity$" \
		"$T/err" || fail "20 keys 10 times" || return 1
	seq 1 1000 >"$T/or-1000"
	expect_rc 0 memfilterctl build --type bloom --capacity 10 --seed 1 \
		-o "$T/or.img" "$T/or-1000" &&
		grep -q "overfilled: 1000 keys for capacity 10 (estimated false-positive rate 1)" \
		"$T/err" || fail "distinct keys" || return 1
	[ -e /dev/memfilter ] || return 0
	memfilterctl create cli-or --type bloom --capacity 10 &&
	expect_rc 0 memfilterctl add cli-or "$T/or-a" &&
		grep -qx "memfilterctl: warning: cli-or: $msg" "$T/err" &&
	expect_rc 0 memfilterctl info cli-or &&
		grep -qx "memfilterctl: warning: cli-or: $msg" "$T/err" ||
		fail "one key 1000 times in the kernel" || return 1
	memfilterctl rm cli-or
}
