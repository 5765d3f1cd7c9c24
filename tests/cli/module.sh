# SPDX-License-Identifier: GPL-2.0
#
# memfilterctl's tests (tests/cli_test.sh, which sources this file and has
# the helpers and the driver). The commands against the module
# (version, list --json, keys, count, clear, dump), growing filters, --hash,
# the bounded image and key readers, and create/load --replace and swap.

# --- against the module ------------------------------------------------------

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
		-o "$T/keep.img" && same_file "$T/keep.img" "$T/keep.orig" ||
		return 1
	# As build -o: a device in place (full: an error), a link refused.
	if dev_nodes; then
		expect_error "od-full: No space left on device" memfilterctl \
			dump cli-img-bloom -o "$T/od-full" && still c "$T/od-full" ||
			return 1
	fi
	rm -f "$T/dump-link.img" && ln -s keep.img "$T/dump-link.img" &&
	expect_error "is a symbolic link" memfilterctl dump cli-img-bloom \
		-o "$T/dump-link.img" && still L "$T/dump-link.img" &&
		same_file "$T/keep.img" "$T/keep.orig"
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

# --layout offline: the image, inspect and its JSON say split32 (32-byte
# blocks, k 8), its keys are found, a merge with a line64 image is
# refused, and so are an unknown layout, one on a cuckoo filter and a
# rate split32 cannot reach.
t_layout_offline() {
	seq 1 300 | sed 's/^/lay-/' >"$T/lay"
	to_image "$T/ls.img" memfilterctl build --type bloom --capacity 400 \
		--seed 9 --layout split32 "$T/lay" &&
	to_image "$T/ll.img" memfilterctl build --type bloom --capacity 400 \
		--seed 9 --layout line64 "$T/lay" || return 1
	expect_rc 0 memfilterctl inspect "$T/ls.img" &&
		grep -q '^layout: *split32$' "$T/out" &&
		grep -q '^probes per key: *8$' "$T/out" &&
		grep -q '^geometry: *[0-9]* blocks of 32 bytes$' "$T/out" ||
		fail "inspect does not show split32" || return 1
	expect_rc 0 memfilterctl inspect "$T/ll.img" &&
		grep -q '^layout: *line64$' "$T/out" &&
		grep -q '^geometry: *[0-9]* blocks of 64 bytes$' "$T/out" ||
		fail "inspect does not show line64" || return 1
	expect_rc 0 memfilterctl inspect --json "$T/ls.img" &&
		grep -q '"type":"bloom","layout":"split32",' "$T/out" ||
		fail "inspect --json" || return 1
	expect_rc 0 memfilterctl query --image "$T/ls.img" --count "$T/lay" &&
		expect_out 300 || return 1
	expect_rc 0 memfilterctl build --window 10s --capacity 100 --seed 3 \
		--layout split32 -o "$T/lw.img" "$T/lay" &&
	memfilterctl inspect "$T/lw.img" | grep -q '^layout: *split32$' ||
		fail "build --window --layout split32" || return 1
	# 16 bits/key: both tables 6656 bits, k 8; only the layout differs.
	to_image "$T/ms.img" memfilterctl build --type bloom --capacity 400 \
		--seed 9 --bits-per-key 16 --layout split32 "$T/lay" &&
	to_image "$T/ml.img" memfilterctl build --type bloom --capacity 400 \
		--seed 9 --bits-per-key 16 --layout line64 "$T/lay" &&
	expect_error "different layouts" memfilterctl merge "$T/ms.img" \
		"$T/ml.img" &&
	expect_error "cannot merge" memfilterctl merge "$T/ls.img" \
		"$T/ll.img" &&
	expect_error "split32 or line64" memfilterctl build --type bloom \
		--capacity 10 --layout line32 "$T/lay" &&
	expect_error "Bloom, window and growing" memfilterctl build \
		--type cuckoo --capacity 10 --layout split32 "$T/lay" &&
	expect_error "1.052e-06" memfilterctl build --type bloom --capacity 10 \
		--layout split32 --fpr 0.0000005 "$T/lay" &&
	expect_rc 0 memfilterctl build --type bloom --capacity 10 \
		--layout line64 --fpr 0.0000005 -o "$T/lf.img" "$T/lay"
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

# --- replace and swap --------------------------------------------------------

# ID: the published id 'memfilterctl info NAME' shows; its output in
# $T/info.
info_id() {
	memfilterctl info "$1" >"$T/info" || return 1
	ID=$(sed -n 's/^id: *//p' "$T/info")
}

# create --replace and load --replace: NAME and its id go to the new
# filter; a refused image leaves NAME with its filter; a free name is
# published; without --replace a taken name says how to replace it.
t_replace_cli() {
	expect_rc 0 memfilterctl create cli-rep --type bloom --capacity 100 \
		--fpr 0.001 --seed 1 &&
	expect_rc 0 memfilterctl add cli-rep --key old && info_id cli-rep ||
		return 1
	id=$ID
	expect_rc 0 memfilterctl create cli-rep --replace --type bloom \
		--capacity 200 --fpr 0.001 --seed 2 && [ ! -s "$T/out" ] &&
		[ ! -s "$T/err" ] || fail "create --replace" || return 1
	info_id cli-rep && [ "$ID" = "$id" ] ||
		fail "id '$ID' after create --replace, want $id" || return 1
	grep -q '^capacity: *200 keys' "$T/info" ||
		fail "not the new filter" || return 1
	expect_rc 1 memfilterctl query cli-rep --key old &&
	keys new | memfilterctl build --type cuckoo --capacity 64 \
		--fingerprint-bits 16 --seed 3 -o "$T/rep.img" &&
	expect_rc 0 memfilterctl load cli-rep --replace <"$T/rep.img" &&
	info_id cli-rep && [ "$ID" = "$id" ] ||
		fail "id '$ID' after load --replace, want $id" || return 1
	grep -q '^type: *cuckoo' "$T/info" || fail "not the loaded filter" ||
		return 1
	expect_rc 0 memfilterctl query cli-rep --key new --key old &&
		expect_out new &&
	head -c 200 "$T/rep.img" >"$T/rep-bad.img" &&
	expect_error "corrupt filter image: truncated" \
		memfilterctl load cli-rep --replace <"$T/rep-bad.img" &&
	expect_rc 0 memfilterctl query cli-rep --key new &&
	info_id cli-rep && [ "$ID" = "$id" ] || fail "id changed by a refused load" ||
		return 1
	expect_rc 0 memfilterctl load cli-rep2 --replace <"$T/rep.img" &&
		listed cli-rep2 || fail "load --replace of a free name" || return 1
	expect_error "already exists (--replace replaces it)" \
		memfilterctl load cli-rep <"$T/rep.img" &&
	expect_error "already exists (--replace replaces it)" \
		memfilterctl create cli-rep --type bloom --capacity 10 --fpr 0.1
}

# swap: each name keeps its id and gets the other's filter; twice is the
# start again; bad names and missing filters are clear errors.
t_swap_cli() {
	info_id cli-rep && a=$ID && info_id cli-rep2 && b=$ID &&
	expect_rc 0 memfilterctl add cli-rep --key only-in-rep &&
	expect_rc 0 memfilterctl swap cli-rep cli-rep2 && [ ! -s "$T/out" ] ||
		fail "swap" || return 1
	info_id cli-rep && [ "$ID" = "$a" ] && info_id cli-rep2 &&
		[ "$ID" = "$b" ] || fail "ids moved with the filters" || return 1
	expect_rc 0 memfilterctl query cli-rep2 --key only-in-rep &&
	expect_rc 1 memfilterctl query cli-rep --key only-in-rep &&
	expect_rc 0 memfilterctl swap cli-rep2 cli-rep &&
	expect_rc 0 memfilterctl query cli-rep --key only-in-rep &&
	expect_error "cli-none: no such filter" \
		memfilterctl swap cli-rep cli-none &&
	expect_error "cli-none: no such filter" \
		memfilterctl swap cli-none cli-rep &&
	expect_error "same name" memfilterctl swap cli-rep cli-rep &&
	expect_error "missing the OTHER" memfilterctl swap cli-rep &&
	expect_error "invalid filter name" memfilterctl swap cli-rep 'a b' &&
	expect_error "unexpected argument" memfilterctl swap a b c
}

# memfilter-refresh (what memfilter-refresh@.service runs) against the
# module: a free name is published, a refresh keeps the id and brings the
# new list's keys, the image is kept; an empty or unbuildable list leaves
# the filter as it was.
t_refresh() {
	r=$(command -v memfilter-refresh) || { echo "# no memfilter-refresh"; return 0; }
	mkdir -p "$T/rimg" && keys 0a000001 0a000002 >"$T/r1.hex" &&
	keys 0a000002 0a000003 0a000004 >"$T/r2.hex" && : >"$T/r0.hex" &&
	expect_rc 0 "$r" cli-refresh "$T/r1.hex" --type bloom --fpr 0.0001 \
		--seed 9 --hex && info_id cli-refresh || return 1
	id=$ID
	expect_rc 0 env MEMFILTER_IMAGES="$T/rimg" "$r" cli-refresh \
		"$T/r2.hex" --type bloom --fpr 0.0001 --seed 9 --hex &&
		expect_out "memfilter-refresh: cli-refresh: 3 keys from $T/r2.hex" &&
	info_id cli-refresh && [ "$ID" = "$id" ] ||
		fail "id '$ID' after the refresh, want $id" || return 1
	grep -q '^capacity: *3 keys' "$T/info" || fail "capacity" || return 1
	expect_rc 0 memfilterctl query cli-refresh --hex --count \
		--key 0a000003 --key 0a000004 && expect_out 2 &&
	expect_rc 0 memfilterctl inspect "$T/rimg/cli-refresh.img" &&
	expect_rc 1 "$r" cli-refresh "$T/r0.hex" --type bloom --hex &&
	grep -q 'is empty: cli-refresh unchanged' "$T/err" &&
	expect_rc 1 "$r" cli-refresh "$T/r2.hex" --type bloom --fpr 2 --hex &&
	grep -q 'could not build' "$T/err" &&
	expect_rc 0 memfilterctl query cli-refresh --hex --count \
		--key 0a000003 --key 0a000004 && expect_out 2
}

