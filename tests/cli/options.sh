# SPDX-License-Identifier: GPL-2.0
#
# memfilterctl's tests (tests/cli_test.sh, which sources this file and has
# the helpers and the driver). One meaning per option, no silent guesses
# (offline): no abbreviated long options, grow options only with --grow,
# the bits-per-key grid, stdin, window limits, help CMD.

# --- one meaning per option, no silent guesses (offline) --------------------

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
	cp "$T/out" "$T/help-want"
	for h in --help -h help; do
		expect_rc 0 memfilterctl help "$h" &&
			same_file "$T/out" "$T/help-want" ||
			fail "help $h is not help" || return 1
	done
	expect_error "unknown command 'frob'" memfilterctl help frob &&
	expect_error "unexpected argument 'x'" memfilterctl help build x
}

# A number past 2^64 - 1 is too large, with the limit (it was "not a
# valid unsigned integer"), in the base typed; an option with a smaller
# range says that range, as for any number above it.
t_number_too_large() {
	: >"$T/nt-none"
	for c in 18446744073709551616 99999999999999999999999; do
		expect_error "^memfilterctl build: --capacity: '$c' is too large (at most 18446744073709551615) (try" \
			memfilterctl build --type bloom --capacity "$c" \
			-o "$T/nt.img" "$T/nt-none" || return 1
	done
	expect_error "^memfilterctl build: --seed: '0x10000000000000000' is too large (at most 0xffffffffffffffff) (try" \
		memfilterctl build --type bloom --capacity 10 \
		--seed 0x10000000000000000 -o "$T/nt.img" "$T/nt-none" &&
	expect_error "^memfilterctl build: --seed: '18446744073709551616' is too large (at most 18446744073709551615) (try" \
		memfilterctl build --type bloom --capacity 10 \
		--seed 18446744073709551616 -o "$T/nt.img" "$T/nt-none" &&
	expect_rc 0 memfilterctl build --type bloom --capacity 10 \
		--seed 0xffffffffffffffff -o "$T/nt.img" "$T/nt-none" &&
	expect_error "--generations must be 2 to 16" memfilterctl build \
		--capacity 10 --window 1s --generations 18446744073709551616 \
		-o "$T/nt.img" "$T/nt-none" &&
	expect_error "--fingerprint-bits must be 8, 12 or 16" memfilterctl \
		build --type cuckoo --capacity 10 \
		--fingerprint-bits 18446744073709551616 -o "$T/nt.img" \
		"$T/nt-none" &&
	expect_error "--grow-factor must be 1 to 16" memfilterctl build \
		--type grow --capacity 10 --grow-factor 18446744073709551616 \
		-o "$T/nt.img" "$T/nt-none" &&
	expect_error "--grow-max must be 1 to 16" memfilterctl build \
		--type grow --capacity 10 --grow-max 18446744073709551616 \
		-o "$T/nt.img" "$T/nt-none" &&
	expect_error "ID: '18446744073709551616' is not an attachment ID" \
		memfilterctl nf detach 18446744073709551616
}

# Numbers are decimal as typed: no sign, space, exponent or other base
# (strtoull() took " -5" as 2^64 - 5 and --seed 010 as octal 8); --seed
# also takes hex after 0x, --priority a minus.
t_number_forms() {
	: >"$T/nf-none"
	for c in " -5" " 10" "+5" 0x10 1e3 "10 " ""; do
		expect_error "--capacity: '$c' is not a valid unsigned integer" \
			memfilterctl build --type bloom --capacity "$c" \
			-o "$T/nf.img" "$T/nf-none" || return 1
	done
	for s in " -1" -1 0x 0x0x5 " 1"; do
		expect_error "--seed: '$s' is not a valid unsigned integer" \
			memfilterctl build --type bloom --capacity 10 --seed "$s" \
			-o "$T/nf.img" "$T/nf-none" || return 1
	done
	for e in " 0.01" +0.01 0x1p-4 "0.01 " nan; do
		expect_error "--fpr: '$e' is not a number" memfilterctl build \
			--type bloom --capacity 10 --fpr "$e" -o "$T/nf.img" \
			"$T/nf-none" || return 1
	done
	for w in " 5s" +5s; do
		expect_error "--window: '$w' is not a duration" memfilterctl \
			build --window "$w" --capacity 10 -o "$T/nf.img" \
			"$T/nf-none" || return 1
	done
	for p in " 5" +5 0x10 - 5x; do
		expect_error "--priority: '$p' is not an integer" memfilterctl \
			nf attach cli-x --hook input --key saddr --action count \
			--priority "$p" || return 1
	done
	[ ! -e "$T/nf.img" ] || fail "a bad number made an image" || return 1
	for s in 010:000000000000000a 0x10:0000000000000010 \
		0XfFfFfFfFfFfFfFfF:ffffffffffffffff 09:0000000000000009; do
		expect_rc 0 memfilterctl build --type bloom --capacity 10 \
			--seed "${s%%:*}" -o "$T/nf.img" "$T/nf-none" &&
		memfilterctl inspect "$T/nf.img" |
			grep -q "^hash: *xxh3, seed 0x${s#*:}$" ||
			fail "--seed ${s%%:*} is not 0x${s#*:}" || return 1
	done
	expect_rc 0 memfilterctl build --type bloom --capacity 010 \
		-o "$T/nf.img" "$T/nf-none" &&
	memfilterctl inspect "$T/nf.img" | grep -q '^capacity: *10 keys$' ||
		fail "--capacity 010 is not 10"
}

# --fpr of a window or growing filter: each of G generations is sized for
# fpr / G, a growing filter's first sub-filter for fpr (1 - ratio); below
# what 64 bits per key reach is refused with the range (it was "build:
# invalid argument"), by build and create alike, before any device.
t_fpr_ranges() {
	: >"$T/fr-none"
	for c in build create; do
		[ "$c" = build ] && set -- build -o "$T/fr.img" "$T/fr-none"
		[ "$c" = create ] && set -- create cli-fr
		expect_error "$c: --fpr 1e-06 is out of range for a window filter of 4 generations: 1.196e-06 to below 1 (each generation is sized for fpr / 4" \
			memfilterctl "$@" --window 10s --capacity 10 --fpr 1e-6 &&
		expect_error "$c: --fpr 2.99e-07 is out of range for a growing filter with --grow-ratio 0.5: 5.98e-07 to below 1" \
			memfilterctl "$@" --grow --capacity 10 --fpr 2.99e-7 &&
		expect_error "$c: --fpr 2e-06 is out of range for a growing filter with --grow-ratio 0.9: 2.99e-06 to below 1" \
			memfilterctl "$@" --grow --grow-ratio 0.9 --capacity 10 \
			--fpr 2e-6 || return 1
	done
	[ ! -e "$T/fr.img" ] || fail "an image of an unreachable rate" ||
		return 1
	expect_rc 0 memfilterctl build --generations 4 --capacity 10 \
		--fpr 1.196e-6 -o "$T/fr.img" "$T/fr-none" &&
	expect_rc 0 memfilterctl build --grow --capacity 10 --fpr 5.98e-7 \
		-o "$T/fr.img" "$T/fr-none"
}
