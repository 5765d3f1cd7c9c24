#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Regenerate the image fuzzer's seed corpus with memfilterctl build: small
# valid images (< 4 KiB) of every filter type, hash and fingerprint width.
# usage: fuzz/gen-corpus.sh MEMFILTERCTL [WINDOW_IMAGES] DIR
# (make fuzz-corpus passes both; WINDOW_IMAGES: fuzz/window_images.c)

set -eu
mfc=$1
win=
[ $# -eq 3 ] && { win=$2; shift; }
dir=$2
mkdir -p "$dir"
rm -f "$dir"/*.img
umask 077
keys() { seq "$1" "$2" | sed 's/^/key-/'; }

keys 1 5 | "$mfc" build --type bloom --capacity 10 --seed 1 >"$dir/bloom-1block.img"
keys 1 0 | "$mfc" build --type bloom --capacity 10 --seed 2 >"$dir/bloom-empty.img"
keys 1 100 | "$mfc" build --type bloom --capacity 100 --fpr 0.001 --seed 3 \
	>"$dir/bloom-fpr.img"
keys 1 200 | "$mfc" build --type bloom --capacity 200 --bits-per-key 2 \
	--seed 4 >"$dir/bloom-bpk2.img"
keys 1 50 | "$mfc" build --type bloom --capacity 50 --keyed \
	>"$dir/bloom-keyed.img"
keys 1 20 | "$mfc" build --type cuckoo --capacity 30 --fingerprint-bits 8 \
	--seed 5 >"$dir/cuckoo-8.img"
keys 1 60 | "$mfc" build --type cuckoo --capacity 60 --fingerprint-bits 12 \
	--seed 6 >"$dir/cuckoo-12.img"
keys 1 100 | "$mfc" build --type cuckoo --capacity 100 --fingerprint-bits 16 \
	--seed 7 >"$dir/cuckoo-16.img"
keys 1 0 | "$mfc" build --type cuckoo --capacity 4 --fingerprint-bits 8 \
	--seed 8 >"$dir/cuckoo-empty.img"
keys 1 40 | "$mfc" build --type cuckoo --capacity 40 --keyed \
	>"$dir/cuckoo-keyed.img"
# XXH3 (hash_algo 3).
keys 1 50 | "$mfc" build --type bloom --capacity 50 --hash xxh3 --seed 12 \
	>"$dir/bloom-xxh3.img"
keys 1 40 | "$mfc" build --type cuckoo --capacity 40 --hash xxh3 --seed 13 \
	>"$dir/cuckoo-xxh3.img"
# Growing filters: one sub-filter; three (10 + 20 + 40 keys); keyed.
keys 1 5 | "$mfc" build --grow --capacity 10 --seed 10 >"$dir/grow-1sub.img"
keys 1 60 | "$mfc" build --grow --capacity 10 --fpr 0.01 --grow-ratio 0.25 \
	--seed 11 >"$dir/grow-3subs.img"
keys 1 30 | "$mfc" build --grow --capacity 10 --grow-factor 1 --grow-max 4 \
	--keyed >"$dir/grow-keyed.img"
# Full tables: every slot used (the stash may be too).
keys 1 64 | "$mfc" build --type cuckoo --capacity 64 --fingerprint-bits 8 \
	--seed 9 >"$dir/cuckoo-full.img" 2>/dev/null || true
[ -s "$dir/cuckoo-full.img" ] || rm -f "$dir/cuckoo-full.img"

# Window filters (memfilterctl build makes none): 2 to 16 generations, by
# count, by period, keyed, rotated, empty; each checked to load offline
# and re-serialize to itself before it is written.
[ -z "$win" ] || "$win" "$dir"

ls -l "$dir"
