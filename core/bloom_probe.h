/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * A Bloom filter's single-key query inline in its caller: the key hashed
 * straight-line where it is 4, 8 or 16 bytes under XXH3 or XXH64, and a
 * SPLIT32 block tested in place, with no call: the scalar probe in the
 * kernel (where a SIMD section costs more than a key) and in userspace
 * built without AVX2, one VPTEST in userspace built for AVX2. A LINE64
 * block goes to memfilter_bloom_contains_hash() (its k-specialised copies
 * stay out of line: one call). Used by memfilter_bloom_contains_key(), the
 * public single-key call, and memfilter_state_contains_key(), which the
 * module's packet, block and BPF paths inline.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_BLOOM_PROBE_H
#define _MEMFILTER_BLOOM_PROBE_H

#include "bloom.h"

/* Userspace built for AVX2 (-mavx2, -march=native) tests in a YMM register. */
#if MEMFILTER_SIMD_CHEAP && defined(__AVX2__)
#define MEMFILTER_PROBE_AVX2	1
#include "bloom_avx2.h"
#else
#define MEMFILTER_PROBE_AVX2	0
#endif

/*
 * SPLIT32, scalar: does block @blk hold a hash's 8 bits? The pattern's
 * four 64-bit words are built from the hash alone (memfilter_split32_word()),
 * so that only four AND-NOTs and their OR wait for the block's line: out
 * of cache, the instructions stuck behind a miss are what limits how many
 * keys' misses overlap, and shifting each loaded word by its bit (47
 * instructions against these 54, at the kernel's -O2 for generic x86-64)
 * measured 10-25% slower per key at 1M and 10M keys (2026-12-06, a pinned
 * ad-hoc harness of 5 runs that bench/ does not keep).
 * Written out: the kernel's -O2 unrolls no loop. Loads as
 * mf_bloom_probe()'s (bloom_internal.h): plain, marked data_race(); bits
 * are only ever set.
 */
static __always_inline bool memfilter_split32_test_scalar(const u64 *blk, u64 hash)
{
	/* Inserters' atomic ORs race with these loads by design. */
	u64 miss = memfilter_split32_word(hash, 0) & ~data_race(blk[0]);

	/* Likewise. */
	miss |= memfilter_split32_word(hash, 1) & ~data_race(blk[1]);
	/* Likewise. */
	miss |= memfilter_split32_word(hash, 2) & ~data_race(blk[2]);
	/* Likewise. */
	miss |= memfilter_split32_word(hash, 3) & ~data_race(blk[3]);
	return !miss;
}

/* SPLIT32: may a hash be in @b? The block found and tested in place. */
static __always_inline bool memfilter_split32_contains_hash(const struct memfilter_bloom *b,
							    u64 hash)
{
	const u64 *blk = memfilter_bloom_block_ptr_of(b, hash, MEMFILTER_BLOOM_SPLIT32);
#if MEMFILTER_PROBE_AVX2
	struct memfilter_bloom_avx2 c;

	memfilter_bloom_avx2_init(&c, MEMFILTER_BLOOM_SPLIT32_K);
	return memfilter_split32_avx2_has(blk, memfilter_split32_avx2_pattern(&c, hash));
#else
	return memfilter_split32_test_scalar(blk, hash);
#endif
}

/*
 * memfilter_bloom_contains_hash() for one hash, inline where the layout
 * allows: a SPLIT32 block here (AVX2 or scalar, as above); a LINE64 one
 * by the k-specialised scalar walk in the kernel, by the AVX2 or scalar
 * call in userspace (MEMFILTER_SIMD_CHEAP: a SIMD section costs nothing
 * there), one call either way.
 */
static __always_inline bool memfilter_bloom_contains_hash_inline(const struct memfilter_bloom *b,
								 u64 hash)
{
	if (likely(b->p.layout == MEMFILTER_BLOOM_SPLIT32)) {
#if !MEMFILTER_PROBE_AVX2 && MEMFILTER_SIMD_CHEAP
		/* Userspace not built for AVX2: the CPU may still have it. */
		if (memfilter_simd_begin())
			return memfilter_bloom_contains_hash_avx2(b, hash);
#endif
		return memfilter_split32_contains_hash(b, hash);
	}
	if (!MEMFILTER_SIMD_CHEAP)
		return memfilter_bloom_contains_hash_scalar(b, hash);
	return memfilter_bloom_contains_hash(b, hash);
}

/**
 * memfilter_bloom_contains_key_inline() - query a key, inline
 * @b: the filter
 * @key: the key
 * @len: its length in bytes (a constant where the caller has one: the
 *	hash's length tests fold away)
 *
 * memfilter_bloom_contains_key() in its caller: the same answer.
 *
 * Context: any, as memfilter_bloom_contains_hash().
 * Return: false if @key was certainly never inserted, true if it may have
 * been.
 */
static __always_inline bool memfilter_bloom_contains_key_inline(const struct memfilter_bloom *b,
								const void *key, size_t len)
{
	u64 h;

	if (unlikely(!memfilter_hash_fixed(&b->p.hasher, key, len, &h)))
		h = memfilter_hash_outline(&b->p.hasher, key, len);
	return memfilter_bloom_contains_hash_inline(b, h);
}

#endif /* _MEMFILTER_BLOOM_PROBE_H */
