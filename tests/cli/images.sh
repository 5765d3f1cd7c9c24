# SPDX-License-Identifier: GPL-2.0
#
# memfilterctl's tests (tests/cli_test.sh, which sources this file and has
# the helpers and the driver). Filter images: offline builds, dump and load,
# inspect, corrupt images, merge.

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
	expect_error "cuckoo.img is a cuckoo filter image: only Bloom" \
		memfilterctl merge "$T/cuckoo.img" "$T/cuckoo.img"
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
