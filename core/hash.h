/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * memfilter's key hashing: one 64-bit hash per key, from which every filter
 * derives its block, probes, bucket and fingerprint.
 *
 * Three algorithms, all pinned bit for bit because the hash is part of a
 * filter's identity (a filter answered with another hash gives false
 * negatives): XXH3-64 with a per-filter 64-bit seed (xxHash 0.8's
 * XXH3_64bits_withSeed()), the default, for its speed on keys of up to
 * 16 bytes (two multiplies for an 8-byte key against XXH64's five chained
 * ones; about a third less time, bench/hash_bench.c); XXH64 with a
 * per-filter 64-bit seed, on request (MEMFILTER_CREATE_XXH64; the default
 * before 1.1.0, so older images carry it); and SipHash-2-4 with a
 * per-filter 128-bit secret, for filters fed by untrusted input, where an
 * attacker who can predict the hash could pick keys that all land in one
 * block or bucket.
 *
 * The implementations are inline so that the filters' hot loops can hash
 * without a call (XXH3 of keys over 16 bytes is out of line, in hash.c);
 * they are checked against the kernel's lib/xxhash.c and lib/siphash.c
 * (KUnit), against libxxhash and the SipHash paper's vectors (native
 * tests), and against fixed XXH3 vectors from libxxhash (both).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_HASH_H
#define _MEMFILTER_HASH_H

#include <linux/memfilter.h>

#include "compat.h"

/* Algorithm ids (MEMFILTER_HASH_*) are the uapi's, as stored in images. */

#define MEMFILTER_XXH_P1 0x9E3779B185EBCA87ULL
#define MEMFILTER_XXH_P2 0xC2B2AE3D27D4EB4FULL
#define MEMFILTER_XXH_P3 0x165667B19E3779F9ULL
#define MEMFILTER_XXH_P4 0x85EBCA77C2B2AE63ULL
#define MEMFILTER_XXH_P5 0x27D4EB2F165667C5ULL

/**
 * struct memfilter_hasher - how a filter hashes its keys
 * @algo: MEMFILTER_HASH_XXH64, MEMFILTER_HASH_XXH3 or MEMFILTER_HASH_SIPHASH24
 * @seed: XXH64 or XXH3 seed (unused for SipHash)
 * @key: SipHash-2-4 secret, two little-endian 64-bit words (unused for
 *	XXH64 and XXH3)
 * @xxh3_flip: XXH3: the seed's share of the mix of 4- to 8-byte keys,
 *	memfilter_xxh3_flip_4to8(@seed), so that 8-byte keys do not derive
 *	it per key (0 for the others)
 *
 * Filled in by memfilter_hasher_init() only (and copied whole).
 */
struct memfilter_hasher {
	u32 algo;
	u64 seed;
	u64 key[2];
	u64 xxh3_flip;
};

static __always_inline u64 memfilter_xxh64_round(u64 acc, u64 input)
{
	acc += input * MEMFILTER_XXH_P2;
	acc = rol64(acc, 31);
	return acc * MEMFILTER_XXH_P1;
}

static __always_inline u64 memfilter_xxh64_merge(u64 acc, u64 val)
{
	acc ^= memfilter_xxh64_round(0, val);
	return acc * MEMFILTER_XXH_P1 + MEMFILTER_XXH_P4;
}

/* XXH64's four lanes for @seed, before the first 32-byte stripe. */
static __always_inline void memfilter_xxh64_lanes(u64 v[4], u64 seed)
{
	v[0] = seed + MEMFILTER_XXH_P1 + MEMFILTER_XXH_P2;
	v[1] = seed + MEMFILTER_XXH_P2;
	v[2] = seed;
	v[3] = seed - MEMFILTER_XXH_P1;
}

/* Feed @n 32-byte stripes at @p to the lanes; returns the byte after. */
static __always_inline const u8 *memfilter_xxh64_stripes(u64 v[4], const u8 *p,
							 size_t n)
{
	for (; n; n--, p += 32) {
		v[0] = memfilter_xxh64_round(v[0], memfilter_load_le64(p));
		v[1] = memfilter_xxh64_round(v[1], memfilter_load_le64(p + 8));
		v[2] = memfilter_xxh64_round(v[2], memfilter_load_le64(p + 16));
		v[3] = memfilter_xxh64_round(v[3], memfilter_load_le64(p + 24));
	}
	return p;
}

/* The lanes merged into one accumulator, after the last stripe. */
static __always_inline u64 memfilter_xxh64_converge(const u64 v[4])
{
	u64 h = rol64(v[0], 1) + rol64(v[1], 7) + rol64(v[2], 12) +
		rol64(v[3], 18);

	h = memfilter_xxh64_merge(h, v[0]);
	h = memfilter_xxh64_merge(h, v[1]);
	h = memfilter_xxh64_merge(h, v[2]);
	return memfilter_xxh64_merge(h, v[3]);
}

/* XXH64's final mix; XXH3 uses it for inputs of up to 3 bytes. */
static __always_inline u64 memfilter_xxh64_avalanche(u64 h)
{
	h ^= h >> 33;
	h *= MEMFILTER_XXH_P2;
	h ^= h >> 29;
	h *= MEMFILTER_XXH_P3;
	h ^= h >> 32;
	return h;
}

/*
 * The end of XXH64: accumulator @h (converged lanes, or seed + P5 for
 * inputs under 32 bytes), the total length @len, the last bytes [@p, @end).
 */
static __always_inline u64 memfilter_xxh64_finish(u64 h, u64 len, const u8 *p,
						  const u8 *end)
{
	h += len;
	while (p + 8 <= end) {
		h ^= memfilter_xxh64_round(0, memfilter_load_le64(p));
		h = rol64(h, 27) * MEMFILTER_XXH_P1 + MEMFILTER_XXH_P4;
		p += 8;
	}
	if (p + 4 <= end) {
		h ^= (u64)memfilter_load_le32(p) * MEMFILTER_XXH_P1;
		h = rol64(h, 23) * MEMFILTER_XXH_P2 + MEMFILTER_XXH_P3;
		p += 4;
	}
	while (p < end) {
		h ^= (u64)*p * MEMFILTER_XXH_P5;
		h = rol64(h, 11) * MEMFILTER_XXH_P1;
		p++;
	}
	return memfilter_xxh64_avalanche(h);
}

/**
 * memfilter_xxh64() - XXH64 of a buffer
 * @data: the bytes to hash, any alignment
 * @len: how many
 * @seed: the seed
 *
 * Context: any.
 * Return: XXH64(@data, @len, @seed), identical to the reference.
 */
static __always_inline u64 memfilter_xxh64(const void *data, size_t len, u64 seed)
{
	const u8 *p = (const u8 *)data;
	u64 v[4], h;

	if (len >= 32) {
		memfilter_xxh64_lanes(v, seed);
		p = memfilter_xxh64_stripes(v, p, len / 32);
		h = memfilter_xxh64_converge(v);
	} else {
		h = seed + MEMFILTER_XXH_P5;
	}
	return memfilter_xxh64_finish(h, len, p, (const u8 *)data + len);
}

/*
 * XXH3-64 with a seed (xxHash 0.8, doc/xxhash_spec.md), written from the
 * specification. Inputs of up to 16 bytes are hashed here, inline; longer
 * ones by memfilter_xxh3_17plus() in hash.c. The short paths read the
 * default secret (memfilter_xxh3_secret[]) only through the XORs of its
 * words below, folded at build time.
 */
#define MEMFILTER_XXH3_SECRET_SIZE	192
#define MEMFILTER_XXH3_P32_1		0x9E3779B1U
#define MEMFILTER_XXH3_P32_2		0x85EBCA77U
#define MEMFILTER_XXH3_P32_3		0xC2B2AE3DU
#define MEMFILTER_XXH3_AVALANCHE_MUL	0x165667919E3779F9ULL
#define MEMFILTER_XXH3_RRMXMX_MUL	0x9FB21C651E98DF25ULL
/* le32(secret + 0) ^ le32(secret + 4): inputs of 1 to 3 bytes */
#define MEMFILTER_XXH3_FLIP_1TO3	0x87275a9bULL
/* le64(secret + 8) ^ le64(secret + 16): 4 to 8 bytes */
#define MEMFILTER_XXH3_FLIP_4TO8	0xc73ab174c5ecd5a2ULL
/* le64(secret + 24) ^ le64(secret + 32), le64(+ 40) ^ le64(+ 48): 9 to 16 */
#define MEMFILTER_XXH3_FLIP_9TO16_LO	0x6782737bea4239b9ULL
#define MEMFILTER_XXH3_FLIP_9TO16_HI	0xaf56bc3b0996523aULL
/* le64(secret + 56) ^ le64(secret + 64): the empty input */
#define MEMFILTER_XXH3_FLIP_0		0x8726f9105dc21ddcULL

extern const u8 memfilter_xxh3_secret[MEMFILTER_XXH3_SECRET_SIZE];

/* The 128-bit product of @a and @b, its two halves XORed; any compiler. */
static __always_inline u64 memfilter_mul128_fold64_generic(u64 a, u64 b)
{
	u64 lo_lo = (a & 0xffffffff) * (b & 0xffffffff);
	u64 hi_lo = (a >> 32) * (b & 0xffffffff);
	u64 lo_hi = (a & 0xffffffff) * (b >> 32);
	u64 hi_hi = (a >> 32) * (b >> 32);
	u64 cross = (lo_lo >> 32) + (hi_lo & 0xffffffff) + lo_hi;
	u64 upper = (hi_lo >> 32) + (cross >> 32) + hi_hi;
	u64 lower = (cross << 32) | (lo_lo & 0xffffffff);

	return lower ^ upper;
}

/* The same with one MUL (memfilter_mul128()). */
static __always_inline u64 memfilter_mul128_fold64(u64 a, u64 b)
{
	u64 hi, lo = memfilter_mul128(a, b, &hi);

	return lo ^ hi;
}

static __always_inline u64 memfilter_xxh3_avalanche(u64 h)
{
	h ^= h >> 37;
	h *= MEMFILTER_XXH3_AVALANCHE_MUL;
	return h ^ (h >> 32);
}

/* XXH3's stronger final mix, for inputs of 4 to 8 bytes. */
static __always_inline u64 memfilter_xxh3_rrmxmx(u64 h, u64 len)
{
	h ^= rol64(h, 49) ^ rol64(h, 24);
	h *= MEMFILTER_XXH3_RRMXMX_MUL;
	h ^= (h >> 35) + len;
	h *= MEMFILTER_XXH3_RRMXMX_MUL;
	return h ^ (h >> 28);
}

static __always_inline u64 memfilter_xxh3_9to16(const u8 *p, size_t len, u64 seed)
{
	u64 lo = memfilter_load_le64(p) ^ (MEMFILTER_XXH3_FLIP_9TO16_LO + seed);
	u64 hi = memfilter_load_le64(p + len - 8) ^
		 (MEMFILTER_XXH3_FLIP_9TO16_HI - seed);

	return memfilter_xxh3_avalanche(len + __builtin_bswap64(lo) + hi +
					memfilter_mul128_fold64(lo, hi));
}

/* The seed's part of the mix of 4 to 8 bytes: one value per filter. */
static __always_inline u64 memfilter_xxh3_flip_4to8(u64 seed)
{
	seed ^= (u64)__builtin_bswap32((u32)seed) << 32;
	return MEMFILTER_XXH3_FLIP_4TO8 - seed;
}

/* 4 to 8 bytes, the first four as the high half; @flip from the seed. */
static __always_inline u64 memfilter_xxh3_4to8_flip(const u8 *p, size_t len,
						    u64 flip)
{
	u64 in;

	if (len == 8)	/* the same value: one load and a rotate */
		in = rol64(memfilter_load_le64(p), 32);
	else
		in = memfilter_load_le32(p + len - 4) +
		     ((u64)memfilter_load_le32(p) << 32);
	return memfilter_xxh3_rrmxmx(in ^ flip, len);
}

static __always_inline u64 memfilter_xxh3_4to8(const u8 *p, size_t len, u64 seed)
{
	return memfilter_xxh3_4to8_flip(p, len, memfilter_xxh3_flip_4to8(seed));
}

static __always_inline u64 memfilter_xxh3_1to3(const u8 *p, size_t len, u64 seed)
{
	u32 combined = ((u32)p[0] << 16) | ((u32)p[len >> 1] << 24) |
		       p[len - 1] | ((u32)len << 8);

	return memfilter_xxh64_avalanche(combined ^ (MEMFILTER_XXH3_FLIP_1TO3 + seed));
}

u64 memfilter_xxh3_17plus(const void *data, size_t len, u64 seed);

/**
 * memfilter_xxh3() - XXH3-64 of a buffer, with a seed
 * @data: the bytes to hash, any alignment
 * @len: how many
 * @seed: the seed
 *
 * Context: any (inputs over 240 bytes use 256 bytes of stack).
 * Return: XXH3_64bits_withSeed(@data, @len, @seed), identical to the
 * reference (xxHash 0.8).
 */
static __always_inline u64 memfilter_xxh3(const void *data, size_t len, u64 seed)
{
	const u8 *p = (const u8 *)data;

	if (len > 16)
		return memfilter_xxh3_17plus(data, len, seed);
	if (len > 8)
		return memfilter_xxh3_9to16(p, len, seed);
	if (len >= 4)
		return memfilter_xxh3_4to8(p, len, seed);
	if (len)
		return memfilter_xxh3_1to3(p, len, seed);
	return memfilter_xxh64_avalanche(seed ^ MEMFILTER_XXH3_FLIP_0);
}

static __always_inline void memfilter_sipround(u64 v[4])
{
	v[0] += v[1]; v[1] = rol64(v[1], 13); v[1] ^= v[0]; v[0] = rol64(v[0], 32);
	v[2] += v[3]; v[3] = rol64(v[3], 16); v[3] ^= v[2];
	v[0] += v[3]; v[3] = rol64(v[3], 21); v[3] ^= v[0];
	v[2] += v[1]; v[1] = rol64(v[1], 17); v[1] ^= v[2]; v[2] = rol64(v[2], 32);
}

/**
 * memfilter_siphash24() - SipHash-2-4 of a buffer
 * @data: the bytes to hash, any alignment
 * @len: how many
 * @key: the 128-bit secret as two 64-bit words (k0, k1)
 *
 * Context: any.
 * Return: SipHash-2-4(@key, @data), identical to the reference and to the
 * kernel's siphash() with the same key words.
 */
static __always_inline u64 memfilter_siphash24(const void *data, size_t len,
					       const u64 key[2])
{
	const u8 *p = (const u8 *)data;
	const u8 *end = p + (len & ~(size_t)7);
	u64 v[4] = {
		0x736f6d6570736575ULL ^ key[0], 0x646f72616e646f6dULL ^ key[1],
		0x6c7967656e657261ULL ^ key[0], 0x7465646279746573ULL ^ key[1],
	};
	u64 b = (u64)len << 56;
	unsigned int i;

	for (; p != end; p += 8) {
		u64 m = memfilter_load_le64(p);

		v[3] ^= m;
		memfilter_sipround(v);
		memfilter_sipround(v);
		v[0] ^= m;
	}
	for (i = 0; i < (len & 7); i++)
		b |= (u64)p[i] << (8 * i);
	v[3] ^= b;
	memfilter_sipround(v);
	memfilter_sipround(v);
	v[0] ^= b;
	v[2] ^= 0xff;
	for (i = 0; i < 4; i++)
		memfilter_sipround(v);
	return (v[0] ^ v[1]) ^ (v[2] ^ v[3]);
}

/*
 * An 8-byte key's hash under XXH3 or XXH64 (straight lines of register
 * arithmetic) into @out; false, @out untouched, under SipHash.
 */
static __always_inline bool memfilter_hash_fixed8(const struct memfilter_hasher *h,
						  const void *data, u64 *out)
{
	if (likely(h->algo == MEMFILTER_HASH_XXH3)) {	/* the default */
		*out = memfilter_xxh3_4to8_flip((const u8 *)data, 8, h->xxh3_flip);
		return true;
	}
	if (h->algo == MEMFILTER_HASH_XXH64) {
		*out = memfilter_xxh64(data, 8, h->seed);
		return true;
	}
	return false;
}

/**
 * memfilter_hash_fixed() - a 4-, 8- or 16-byte key's hash, straight-line
 * @h: the filter's hasher
 * @data: the key, any alignment
 * @len: its length in bytes
 * @out: the hash, when the call returns true
 *
 * The key sizes of IPv4 addresses and 32-bit ids (4), addresses, ids and
 * pairs (8) and IPv6 addresses (16) under XXH3 and XXH64: the general
 * functions with the length a constant, so the same values, in a few
 * register instructions and no loop. For the single-key paths.
 *
 * Context: any.
 * Return: true with *@out set; false, *@out untouched, for other lengths
 * and for SipHash.
 */
static __always_inline bool memfilter_hash_fixed(const struct memfilter_hasher *h,
						 const void *data, size_t len,
						 u64 *out)
{
	const u8 *p = (const u8 *)data;

	if (len == 8)
		return memfilter_hash_fixed8(h, data, out);
	if (len != 4 && len != 16)
		return false;
	if (likely(h->algo == MEMFILTER_HASH_XXH3)) {
		*out = len == 4 ? memfilter_xxh3_4to8_flip(p, 4, h->xxh3_flip) :
				  memfilter_xxh3_9to16(p, 16, h->seed);
		return true;
	}
	if (h->algo == MEMFILTER_HASH_XXH64) {
		*out = len == 4 ? memfilter_xxh64(p, 4, h->seed) :
				  memfilter_xxh64(p, 16, h->seed);
		return true;
	}
	return false;
}

/**
 * memfilter_hash() - a key's 64-bit hash under a filter's hasher
 * @h: the filter's hasher
 * @data: the key
 * @len: its length in bytes
 *
 * Context: any.
 * Return: the key's hash.
 */
static __always_inline u64 memfilter_hash(const struct memfilter_hasher *h,
					  const void *data, size_t len)
{
	/*
	 * 8-byte keys (addresses, ids, pairs of 32-bit values), the common
	 * case, and 16-byte ones (IPv6 addresses) under XXH3, hashed by
	 * straight-line code: the same functions with the length a
	 * constant, so the same values.
	 */
	u64 v;

	if (len == 8) {
		if (memfilter_hash_fixed8(h, data, &v))
			return v;
		return memfilter_siphash24(data, 8, h->key);
	}
	if (h->algo == MEMFILTER_HASH_XXH64)
		return memfilter_xxh64(data, len, h->seed);
	if (h->algo == MEMFILTER_HASH_XXH3) {
		if (len == 16)
			return memfilter_xxh3(data, 16, h->seed);
		return memfilter_xxh3(data, len, h->seed);
	}
	return memfilter_siphash24(data, len, h->key);
}

u64 memfilter_hash_outline(const struct memfilter_hasher *h, const void *data,
			   size_t len);

/*
 * memfilter_hash() with only the 4-, 8- and 16-byte XXH3 and XXH64 cases
 * inline (memfilter_hash_fixed()) and the rest out of line
 * (memfilter_hash_outline()): for single-key paths that should keep no
 * stack frame for SipHash's state. The same values.
 */
static __always_inline u64 memfilter_hash_lean(const struct memfilter_hasher *h,
					       const void *data, size_t len)
{
	u64 v;

	if (likely(memfilter_hash_fixed(h, data, len, &v)))
		return v;
	return memfilter_hash_outline(h, data, len);
}

int memfilter_hasher_init(struct memfilter_hasher *h, u32 algo, u64 seed,
			  const u64 key[2]);
void memfilter_hash_keys(const struct memfilter_hasher *h, const void *keys,
			 size_t len, size_t n, u64 *out);

#endif /* _MEMFILTER_HASH_H */
