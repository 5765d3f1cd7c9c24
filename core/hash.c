// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Setting up a filter's hasher (see hash.h), built into the module and into
 * libmemfilter from this one file, and XXH3-64 of inputs over 16 bytes. The
 * other hash functions are inline in hash.h, so the module exports no copy
 * of XXH64 or SipHash.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include "hash.h"

/*
 * XXH3's default secret (xxHash 0.8, doc/xxhash_spec.md: 192 bytes of
 * FARSH's pseudorandom key). hash.h folds the XORs of its words that short
 * inputs use into constants.
 */
const u8 memfilter_xxh3_secret[MEMFILTER_XXH3_SECRET_SIZE] = {
	0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe,
	0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
	0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb,
	0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
	0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78,
	0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
	0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e,
	0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
	0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb,
	0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
	0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e,
	0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
	0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f,
	0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
	0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31,
	0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
	0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3,
	0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
	0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49,
	0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
	0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc,
	0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
	0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28,
	0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
};
EXPORT_SYMBOL_IF_KUNIT(memfilter_xxh3_secret);

/* Bytes of secret per 64-byte stripe, and stripes per 1024-byte block. */
#define MF_XXH3_STRIPE		64
#define MF_XXH3_SECRET_STEP	8
#define MF_XXH3_BLOCK_STRIPES	\
	((MEMFILTER_XXH3_SECRET_SIZE - MF_XXH3_STRIPE) / MF_XXH3_SECRET_STEP)
/* Offsets into the secret of the spec's mid-size and long paths. */
#define MF_XXH3_MID_START	3
#define MF_XXH3_MID_LAST	(136 - 17)
#define MF_XXH3_LAST_STRIPE	(MEMFILTER_XXH3_SECRET_SIZE - MF_XXH3_STRIPE - 7)
#define MF_XXH3_MERGE_START	11

static inline void mf_store_le64(u8 *p, u64 v)
{
	__le64 x = cpu_to_le64(v);

	memcpy(p, &x, sizeof(x));
}

/* 16 input bytes against 16 secret bytes, the seed added and subtracted. */
static inline u64 mf_xxh3_mix16(const u8 *p, const u8 *secret, u64 seed)
{
	return memfilter_mul128_fold64(memfilter_load_le64(p) ^
				       (memfilter_load_le64(secret) + seed),
				       memfilter_load_le64(p + 8) ^
				       (memfilter_load_le64(secret + 8) - seed));
}

/* 17 to 128 bytes: pairs of 16-byte pieces from both ends, inward. */
static u64 mf_xxh3_17to128(const u8 *p, size_t len, u64 seed)
{
	const u8 *s = memfilter_xxh3_secret;
	u64 acc = len * MEMFILTER_XXH_P1;
	size_t i;

	for (i = (len - 1) / 32; i; i--) {
		acc += mf_xxh3_mix16(p + 16 * i, s + 32 * i, seed);
		acc += mf_xxh3_mix16(p + len - 16 * (i + 1), s + 32 * i + 16, seed);
	}
	acc += mf_xxh3_mix16(p, s, seed);
	acc += mf_xxh3_mix16(p + len - 16, s + 16, seed);
	return memfilter_xxh3_avalanche(acc);
}

/* 129 to 240 bytes: 16-byte pieces in order, an avalanche after eight. */
static u64 mf_xxh3_129to240(const u8 *p, size_t len, u64 seed)
{
	const u8 *s = memfilter_xxh3_secret;
	u64 acc = len * MEMFILTER_XXH_P1;
	size_t i;

	for (i = 0; i < 8; i++)
		acc += mf_xxh3_mix16(p + 16 * i, s + 16 * i, seed);
	acc = memfilter_xxh3_avalanche(acc);
	for (i = 8; i < len / 16; i++)
		acc += mf_xxh3_mix16(p + 16 * i, s + 16 * (i - 8) + MF_XXH3_MID_START,
				     seed);
	acc += mf_xxh3_mix16(p + len - 16, s + MF_XXH3_MID_LAST, seed);
	return memfilter_xxh3_avalanche(acc);
}

/* One 64-byte stripe into the eight accumulators. */
static inline void mf_xxh3_stripe(u64 acc[8], const u8 *p, const u8 *secret)
{
	unsigned int i;

	for (i = 0; i < 8; i++) {
		u64 v = memfilter_load_le64(p + 8 * i);
		u64 k = v ^ memfilter_load_le64(secret + 8 * i);

		acc[i ^ 1] += v;
		acc[i] += (k & 0xffffffff) * (k >> 32);
	}
}

static inline void mf_xxh3_scramble(u64 acc[8], const u8 *secret)
{
	unsigned int i;

	for (i = 0; i < 8; i++) {
		u64 a = acc[i] ^ (acc[i] >> 47);

		acc[i] = (a ^ memfilter_load_le64(secret + 8 * i)) *
			 MEMFILTER_XXH3_P32_1;
	}
}

/* Over 240 bytes: stripes, blocks of 16 stripes, a last stripe, a merge. */
static u64 mf_xxh3_long(const u8 *p, size_t len, const u8 *s)
{
	u64 acc[8] = {
		MEMFILTER_XXH3_P32_3, MEMFILTER_XXH_P1, MEMFILTER_XXH_P2,
		MEMFILTER_XXH_P3, MEMFILTER_XXH_P4, MEMFILTER_XXH3_P32_2,
		MEMFILTER_XXH_P5, MEMFILTER_XXH3_P32_1,
	};
	const size_t block = MF_XXH3_STRIPE * MF_XXH3_BLOCK_STRIPES;
	size_t blocks = (len - 1) / block, stripes, i, n;
	u64 h = len * MEMFILTER_XXH_P1;

	for (n = 0; n < blocks; n++, p += block) {
		for (i = 0; i < MF_XXH3_BLOCK_STRIPES; i++)
			mf_xxh3_stripe(acc, p + MF_XXH3_STRIPE * i,
				       s + MF_XXH3_SECRET_STEP * i);
		mf_xxh3_scramble(acc, s + MEMFILTER_XXH3_SECRET_SIZE - MF_XXH3_STRIPE);
	}
	len -= blocks * block;
	stripes = (len - 1) / MF_XXH3_STRIPE;
	for (i = 0; i < stripes; i++)
		mf_xxh3_stripe(acc, p + MF_XXH3_STRIPE * i, s + MF_XXH3_SECRET_STEP * i);
	mf_xxh3_stripe(acc, p + len - MF_XXH3_STRIPE, s + MF_XXH3_LAST_STRIPE);

	for (i = 0; i < 4; i++) {
		const u8 *k = s + MF_XXH3_MERGE_START + 16 * i;

		h += memfilter_mul128_fold64(acc[2 * i] ^ memfilter_load_le64(k),
					     acc[2 * i + 1] ^ memfilter_load_le64(k + 8));
	}
	return memfilter_xxh3_avalanche(h);
}

/**
 * memfilter_xxh3_17plus() - XXH3-64 of an input of over 16 bytes
 * @data: the bytes to hash, any alignment
 * @len: how many, more than 16
 * @seed: the seed
 *
 * The part of memfilter_xxh3() kept out of line. Over 240 bytes, a
 * non-zero seed derives a secret of its own from the default one (the
 * spec's "custom secret"), 192 bytes on the stack.
 *
 * Context: any.
 * Return: XXH3_64bits_withSeed(@data, @len, @seed).
 */
u64 memfilter_xxh3_17plus(const void *data, size_t len, u64 seed)
{
	u8 secret[MEMFILTER_XXH3_SECRET_SIZE];
	const u8 *s = memfilter_xxh3_secret;
	unsigned int i;

	if (len <= 128)
		return mf_xxh3_17to128(data, len, seed);
	if (len <= 240)
		return mf_xxh3_129to240(data, len, seed);
	if (!seed)
		return mf_xxh3_long(data, len, memfilter_xxh3_secret);
	for (i = 0; i < MEMFILTER_XXH3_SECRET_SIZE; i += 16) {
		u64 lo = memfilter_load_le64(s + i) + seed;
		u64 hi = memfilter_load_le64(s + i + 8) - seed;

		mf_store_le64(secret + i, lo);
		mf_store_le64(secret + i + 8, hi);
	}
	return mf_xxh3_long(data, len, secret);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_xxh3_17plus);

/**
 * memfilter_hash_outline() - memfilter_hash(), out of line
 * @h: the filter's hasher
 * @data: the key
 * @len: its length in bytes
 *
 * The slow half of memfilter_hash_lean().
 *
 * Context: any.
 * Return: the key's hash.
 */
noinline u64 memfilter_hash_outline(const struct memfilter_hasher *h,
				    const void *data, size_t len)
{
	return memfilter_hash(h, data, len);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_hash_outline);

/*
 * A 4-, 8- or 16-byte key's hash under XXH3 or XXH64 (@algo and @len
 * constants), as memfilter_hash_fixed() gives it; the seed and XXH3's
 * flip passed as values, so that the stores of memfilter_hash_keys()'s
 * results, which could alias the hasher, force no reload of them.
 */
static __always_inline u64 mf_hash_fixed_as(const u8 *p, size_t len, u32 algo,
					    u64 seed, u64 flip)
{
	if (algo == MEMFILTER_HASH_XXH3)
		return len == 16 ? memfilter_xxh3_9to16(p, 16, seed) :
				   memfilter_xxh3_4to8_flip(p, len, flip);
	return memfilter_xxh64(p, len, seed);
}

static __always_inline void mf_hash_keys_as(const struct memfilter_hasher *h,
					    const u8 *p, size_t len, size_t n,
					    u64 *out, u32 algo)
{
	const u64 seed = h->seed, flip = h->xxh3_flip;
	size_t i;

	for (i = 0; i < n; i++, p += len)
		out[i] = mf_hash_fixed_as(p, len, algo, seed, flip);
}

/* The loops of @algo for 4, 8 and 16 bytes; false for other lengths. */
static __always_inline bool mf_hash_keys_fixed(const struct memfilter_hasher *h,
					       const u8 *p, size_t len, size_t n,
					       u64 *out, u32 algo)
{
	switch (len) {
	case 4:
		mf_hash_keys_as(h, p, 4, n, out, algo);
		return true;
	case 8:
		mf_hash_keys_as(h, p, 8, n, out, algo);
		return true;
	case 16:
		mf_hash_keys_as(h, p, 16, n, out, algo);
		return true;
	}
	return false;
}

/**
 * memfilter_hash_keys() - hash many keys of one length
 * @h: the filter's hasher
 * @keys: @n keys of @len bytes each, back to back, any alignment
 * @len: the length of each
 * @n: how many
 * @out: @n hashes, written: out[i] = memfilter_hash(@h, key i, @len)
 *
 * The batch calls' hashing (the module's ioctls and batch API, the
 * offline library): the algorithm and the length are tested once per
 * call, not per key, and 4-, 8- and 16-byte keys under XXH3 and XXH64 are
 * hashed by a loop of straight-line code with the length a constant.
 *
 * Context: any.
 */
void memfilter_hash_keys(const struct memfilter_hasher *h, const void *keys,
			 size_t len, size_t n, u64 *out)
{
	const u8 *p = keys;
	size_t i;

	if (h->algo == MEMFILTER_HASH_XXH3 &&
	    mf_hash_keys_fixed(h, p, len, n, out, MEMFILTER_HASH_XXH3))
		return;
	if (h->algo == MEMFILTER_HASH_XXH64 &&
	    mf_hash_keys_fixed(h, p, len, n, out, MEMFILTER_HASH_XXH64))
		return;
	for (i = 0; i < n; i++, p += len)
		out[i] = memfilter_hash(h, p, len);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_hash_keys);

/**
 * memfilter_hasher_init() - set up a filter's hasher
 * @h: the hasher to fill in
 * @algo: MEMFILTER_HASH_XXH64, MEMFILTER_HASH_XXH3 or MEMFILTER_HASH_SIPHASH24
 * @seed: the XXH64 or XXH3 seed
 * @key: the SipHash secret; must not be all zero for MEMFILTER_HASH_SIPHASH24
 *
 * Context: any.
 * Return: 0, or -EOPNOTSUPP for an unknown @algo, or -EINVAL for a SipHash
 * hasher without a secret.
 */
int memfilter_hasher_init(struct memfilter_hasher *h, u32 algo, u64 seed,
			  const u64 key[2])
{
	memset(h, 0, sizeof(*h));
	switch (algo) {
	case MEMFILTER_HASH_XXH64:
	case MEMFILTER_HASH_XXH3:
		h->seed = seed;
		if (algo == MEMFILTER_HASH_XXH3)
			h->xxh3_flip = memfilter_xxh3_flip_4to8(seed);
		break;
	case MEMFILTER_HASH_SIPHASH24:
		if (!key || !(key[0] | key[1]))
			return -EINVAL;
		h->key[0] = key[0];
		h->key[1] = key[1];
		break;
	default:
		return -EOPNOTSUPP;
	}
	h->algo = algo;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_hasher_init);
