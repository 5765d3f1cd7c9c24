/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The Bloom filter's core-private helpers, shared by bloom.c (single keys)
 * and bloom_batch.c (the batch calls): the scalar per-key operations,
 * inline in both so that each path compiles them with its own constants,
 * and the one-key stripe-locked insert. Not for use outside core/bloom*.c.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_BLOOM_INTERNAL_H
#define _MEMFILTER_BLOOM_INTERNAL_H

#include "bloom_probe.h"

/*
 * The scalar per-key operations walk the key's window of k words: no
 * data-dependent branches but the insert's per word, and k from
 * the filter, so the loop's own branch always predicts. The single-key
 * calls and the batch loops go through a switch on k (mf_bloom_with_k(),
 * mf_bloom_hashes_with_k()) to get a copy with k a constant for each k:
 * measured faster in scalar code than computing all 8 pattern words
 * branch-free (bench/results/bloom.md at 0ce7f39), and, for the
 * single-key query at the kernel's -O2 for generic x86-64, than testing
 * all 8 words with constant salts and masking the window (no BMI2 there:
 * every variable shift needs its count moved to CL; bench/results/bloom.md).
 */

/*
 * Word @i of a hash's window: its bit, in bit 0. A plain load marked
 * data_race(), as the AVX2 query's (memfilter_bloom_avx2_load()): bits
 * are only ever set, so any value the load sees, even a torn or repeated
 * one, answers as a load racing the insert would. Not READ_ONCE(): GCC
 * folds no address into a volatile load and allocates around it worse;
 * the scalar query, the kernel's single-key path, took 86 instructions
 * per key with it and 74 without (k = 6, -O2 for generic x86-64).
 */
static __always_inline u64 mf_bloom_probe(const u64 *blk, u64 hash,
					  unsigned int s, unsigned int i)
{
	unsigned int w = (s + i) & 7;

	/* Inserters' atomic ORs race with this load by design. */
	return data_race(blk[w]) >> memfilter_bloom_bit(hash, w);
}

/*
 * Query: the probes written out, because the kernel's -O2 unrolls no
 * loop; with k a constant (the callers' switches) the tests fold away.
 * k = 8 probes all 8 words (k is 1..8 in every valid filter).
 */
static __always_inline bool mf_bloom_test(const u64 *blk, u64 hash, u32 k)
{
	unsigned int s = memfilter_bloom_start(hash);
	u64 hit = mf_bloom_probe(blk, hash, s, 0);

	if (k > 1)
		hit &= mf_bloom_probe(blk, hash, s, 1);
	if (k > 2)
		hit &= mf_bloom_probe(blk, hash, s, 2);
	if (k > 3)
		hit &= mf_bloom_probe(blk, hash, s, 3);
	if (k > 4)
		hit &= mf_bloom_probe(blk, hash, s, 4);
	if (k > 5)
		hit &= mf_bloom_probe(blk, hash, s, 5);
	if (k > 6)
		hit &= mf_bloom_probe(blk, hash, s, 6);
	if (k > 7)
		hit &= mf_bloom_probe(blk, hash, s, 7);
	return hit & 1;
}

/*
 * Insert, safe against concurrent inserters: one relaxed atomic OR per
 * word of the window whose bit a plain READ_ONCE() shows still clear.
 * Reading the whole window first and then ORing only the missing words
 * was measured too: faster in cache, 1.8x slower from DRAM.
 */
static __always_inline void mf_bloom_set(u64 *blk, u64 hash, u32 k)
{
	unsigned int s = memfilter_bloom_start(hash), i, w;
	u64 bit;

	for (i = 0; i < k; i++) {
		w = (s + i) & 7;
		bit = 1ULL << memfilter_bloom_bit(hash, w);
		if (!(READ_ONCE(blk[w]) & bit))
			memfilter_atomic_or64(&blk[w], bit);
	}
}

/*
 * Insert by the only writer (memfilter_bloom_add_hash_exclusive()): each
 * word of the window read and written whole.
 */
static __always_inline void mf_bloom_set_exclusive(u64 *blk, u64 hash, u32 k)
{
	unsigned int s = memfilter_bloom_start(hash), i, w;

	for (i = 0; i < k; i++) {
		w = (s + i) & 7;
		WRITE_ONCE(blk[w],
			   READ_ONCE(blk[w]) | 1ULL << memfilter_bloom_bit(hash, w));
	}
}

/*
 * Test-and-insert, safe against concurrent inserters (as mf_bloom_set()):
 * whether every bit was set before.
 */
static __always_inline bool mf_bloom_test_and_set(u64 *blk, u64 hash, u32 k)
{
	unsigned int s = memfilter_bloom_start(hash), i, w;
	bool had = true;
	u64 bit;

	for (i = 0; i < k; i++) {
		w = (s + i) & 7;
		bit = 1ULL << memfilter_bloom_bit(hash, w);
		if (!(READ_ONCE(blk[w]) & bit)) {
			had = false;
			memfilter_atomic_or64(&blk[w], bit);
		}
	}
	return had;
}

/*
 * Test-and-insert under the key's stripe lock (memfilter_bloom_add_hash_locked()):
 * plain READ_ONCE() / WRITE_ONCE() read-modify-writes of the window's
 * words; whether every bit was set before. No branch on the words read:
 * a branch on a missing line resolves only when the line arrives, and a
 * mispredicted one throws away the next keys' work begun meanwhile
 * (measured 2-3x slower per key, bench/results/bloom.md).
 */
static __always_inline bool mf_bloom_test_and_set_locked(u64 *blk, u64 hash, u32 k)
{
	unsigned int s = memfilter_bloom_start(hash), i, w;
	u64 bit, old, miss = 0;

	for (i = 0; i < k; i++) {
		w = (s + i) & 7;
		bit = 1ULL << memfilter_bloom_bit(hash, w);
		old = READ_ONCE(blk[w]);
		miss |= bit & ~old;
		WRITE_ONCE(blk[w], old | bit);
	}
	return !miss;
}

enum mf_bloom_scalar_op {
	MF_BLOOM_SET,
	MF_BLOOM_SET_EXCLUSIVE,
	MF_BLOOM_TEST,
	MF_BLOOM_TEST_AND_SET,
	MF_BLOOM_TEST_AND_SET_LOCKED,
};

static __always_inline bool mf_bloom_do(u64 *blk, u64 hash, u32 k,
					enum mf_bloom_scalar_op op)
{
	switch (op) {
	case MF_BLOOM_TEST:
		return mf_bloom_test(blk, hash, k);
	case MF_BLOOM_TEST_AND_SET:
		return mf_bloom_test_and_set(blk, hash, k);
	case MF_BLOOM_TEST_AND_SET_LOCKED:
		return mf_bloom_test_and_set_locked(blk, hash, k);
	case MF_BLOOM_SET:
		mf_bloom_set(blk, hash, k);
		return true;
	default:
		mf_bloom_set_exclusive(blk, hash, k);
		return true;
	}
}

/* @op on one key, with k a constant in each case. */
static __always_inline bool mf_bloom_with_k(u64 *blk, u64 hash, u32 k,
					    enum mf_bloom_scalar_op op)
{
	switch (k) {
	case 1:
		return mf_bloom_do(blk, hash, 1, op);
	case 2:
		return mf_bloom_do(blk, hash, 2, op);
	case 3:
		return mf_bloom_do(blk, hash, 3, op);
	case 4:
		return mf_bloom_do(blk, hash, 4, op);
	case 5:
		return mf_bloom_do(blk, hash, 5, op);
	case 6:
		return mf_bloom_do(blk, hash, 6, op);
	case 7:
		return mf_bloom_do(blk, hash, 7, op);
	default:
		return mf_bloom_do(blk, hash, MEMFILTER_BLOOM_MAX_K, op);
	}
}

/*
 * SPLIT32's per-key operations: the key's pattern as 4 64-bit words, two
 * bits each (memfilter_split32_word()), against the block's 4 words, with
 * the disciplines of the LINE64 operations above (loads marked as
 * mf_bloom_probe()'s, atomic ORs only of words missing bits, plain
 * read-modify-writes under the stripe lock). The 8 multiplies are
 * independent: no loop-carried chain, and at most 4 atomic ORs per key.
 */
static __always_inline bool mf_split32_test(const u64 *blk, u64 hash)
{
	return memfilter_split32_test_scalar(blk, hash);
}

static __always_inline bool mf_split32_set(u64 *blk, u64 hash)
{
	bool had = true;
	unsigned int w;
	u64 pat;

	for (w = 0; w < MEMFILTER_BLOOM_SPLIT32_WORDS; w++) {
		pat = memfilter_split32_word(hash, w);
		if (pat & ~READ_ONCE(blk[w])) {
			had = false;
			memfilter_atomic_or64(&blk[w], pat);
		}
	}
	return had;
}

static __always_inline void mf_split32_set_exclusive(u64 *blk, u64 hash)
{
	unsigned int w;

	for (w = 0; w < MEMFILTER_BLOOM_SPLIT32_WORDS; w++)
		WRITE_ONCE(blk[w], READ_ONCE(blk[w]) | memfilter_split32_word(hash, w));
}

static __always_inline bool mf_split32_test_and_set_locked(u64 *blk, u64 hash)
{
	u64 pat, old, miss = 0;
	unsigned int w;

	for (w = 0; w < MEMFILTER_BLOOM_SPLIT32_WORDS; w++) {
		pat = memfilter_split32_word(hash, w);
		old = READ_ONCE(blk[w]);
		miss |= pat & ~old;
		WRITE_ONCE(blk[w], old | pat);
	}
	return !miss;
}

static __always_inline bool mf_split32_do(u64 *blk, u64 hash,
					  enum mf_bloom_scalar_op op)
{
	switch (op) {
	case MF_BLOOM_TEST:
		return mf_split32_test(blk, hash);
	case MF_BLOOM_TEST_AND_SET:
	case MF_BLOOM_SET:
		return mf_split32_set(blk, hash);
	case MF_BLOOM_TEST_AND_SET_LOCKED:
		return mf_split32_test_and_set_locked(blk, hash);
	default:
		mf_split32_set_exclusive(blk, hash);
		return true;
	}
}

/*
 * @op on one key's block @blk of a filter of @layout and @k probes, both
 * constants where the caller specialises for them (the batch loops).
 */
static __always_inline bool mf_bloom_do_layout(u64 *blk, u64 hash, u32 layout,
					       u32 k, enum mf_bloom_scalar_op op)
{
	if (layout == MEMFILTER_BLOOM_SPLIT32)
		return mf_split32_do(blk, hash, op);
	return mf_bloom_do(blk, hash, k, op);
}

/*
 * The batch loop over hashes, for the scalar and the AVX2 paths alike
 * (bloom_batch.c, bloom_avx2.c): the blocks of the first
 * MEMFILTER_BLOOM_AHEAD hashes (no more than there are: a one-key call
 * costs one key) are prefetched, then each key's block is prefetched
 * MEMFILTER_BLOOM_AHEAD keys before @one (inlined, with @layout, @k and
 * @op constants; @ctx its own) runs @op on it; keys in runs of up to
 * BITS_PER_LONG, one result word each (written for the ops that answer).
 * @layout is @b's.
 */
static __always_inline void
mf_bloom_hashes_loop(const struct memfilter_bloom *b, const u64 *hashes, size_t n,
		     unsigned long *result_bitmap, u32 layout, u32 k,
		     enum mf_bloom_scalar_op op,
		     bool (*one)(const void *ctx, u64 *blk, u64 hash, u32 layout,
				 u32 k, enum mf_bloom_scalar_op op),
		     const void *ctx)
{
	size_t i, j, run;

	for (i = 0; i < n && i < MEMFILTER_BLOOM_AHEAD; i++)
		memfilter_bloom_prefetch(b, hashes, i, n, layout);
	for (i = 0; i < n; i += run) {
		unsigned long acc = 0;

		run = min(n - i, (size_t)BITS_PER_LONG);
		for (j = 0; j < run; j++) {
			u64 h = hashes[i + j];
			u64 *blk = memfilter_bloom_block_ptr_of(b, h, layout);

			memfilter_bloom_prefetch(b, hashes,
						 i + j + MEMFILTER_BLOOM_AHEAD, n, layout);
			acc |= (unsigned long)one(ctx, blk, h, layout, k, op) << j;
		}
		if (op == MF_BLOOM_TEST || op == MF_BLOOM_TEST_AND_SET)
			result_bitmap[i / BITS_PER_LONG] = acc;
	}
}

/*
 * @op on one key of @b, the single-key calls' path: its layout's block
 * and operation, and for LINE64 a copy with k a constant.
 */
static __always_inline bool mf_bloom_key_op(const struct memfilter_bloom *b, u64 hash,
					    enum mf_bloom_scalar_op op)
{
	/* Not written through for MF_BLOOM_TEST: only the inserts write. */
	u64 *words = b->words;

	if (b->p.layout == MEMFILTER_BLOOM_SPLIT32)
		return mf_split32_do(words + memfilter_bloom_block(b, hash) *
				     MEMFILTER_BLOOM_SPLIT32_WORDS, hash, op);
	return mf_bloom_with_k(words + memfilter_bloom_block(b, hash) *
			       MEMFILTER_BLOOM_BLOCK_WORDS, hash, b->p.k, op);
}

/*
 * One key under its stripe's lock (bloom.c): the single-key _locked calls
 * and the batch's short chunks. Whether it was present before.
 */
bool memfilter_bloom_one_locked(struct memfilter_bloom *b, u64 hash,
				bool test_first);

#endif /* _MEMFILTER_BLOOM_INTERNAL_H */
