// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * memfilter's blocked Bloom filter, the batch calls: many hashes or many
 * keys per call, the scalar loops that prefetch ahead of the key they
 * insert or test, the key pipeline's ring, and the stripe-locked batch
 * inserts. Each picks the AVX2 paths of bloom_avx2.c at run time where
 * the CPU has them and the context allows, and falls back to the scalar
 * loops here. The single-key calls, the sizing and the type's ops are in
 * bloom.c, whose top spells out the concurrency conventions both follow.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include "bloom_internal.h"

/* The scalar batch loop's key (mf_bloom_hashes_loop()). */
static __always_inline bool mf_bloom_hashes_one(const void *ctx, u64 *blk, u64 hash,
						u32 layout, u32 k,
						enum mf_bloom_scalar_op op)
{
	return mf_bloom_do_layout(blk, hash, layout, k, op);
}

/* The scalar batch loop; @layout and @k are @b's, constants. */
static __always_inline void mf_bloom_hashes(struct memfilter_bloom *b,
					    const u64 *hashes, size_t n,
					    unsigned long *result_bitmap, u32 layout,
					    u32 k, enum mf_bloom_scalar_op op)
{
	mf_bloom_hashes_loop(b, hashes, n, result_bitmap, layout, k, op,
			     mf_bloom_hashes_one, NULL);
}

/* mf_bloom_hashes() with @b's layout a constant in each case. */
static __always_inline void mf_bloom_hashes_any(struct memfilter_bloom *b,
						const u64 *hashes, size_t n,
						unsigned long *result_bitmap,
						enum mf_bloom_scalar_op op)
{
	if (b->p.layout == MEMFILTER_BLOOM_SPLIT32)
		mf_bloom_hashes(b, hashes, n, result_bitmap, MEMFILTER_BLOOM_SPLIT32,
				MEMFILTER_BLOOM_SPLIT32_K, op);
	else
		mf_bloom_hashes(b, hashes, n, result_bitmap, MEMFILTER_BLOOM_LINE64,
				b->p.k, op);
}

/*
 * mf_bloom_hashes() with the layout and k constants in each case: for the
 * loops whose per-key work is the probes themselves (query, exclusive
 * insert); the atomic ones are bound by their locked ORs and keep one
 * copy per layout.
 */
static __always_inline void mf_bloom_hashes_with_k(struct memfilter_bloom *b,
						   const u64 *hashes, size_t n,
						   unsigned long *result_bitmap,
						   enum mf_bloom_scalar_op op)
{
	if (b->p.layout == MEMFILTER_BLOOM_SPLIT32) {
		mf_bloom_hashes_any(b, hashes, n, result_bitmap, op);
		return;
	}
	switch (b->p.k) {
	case 1:
		mf_bloom_hashes(b, hashes, n, result_bitmap, MEMFILTER_BLOOM_LINE64, 1, op);
		break;
	case 2:
		mf_bloom_hashes(b, hashes, n, result_bitmap, MEMFILTER_BLOOM_LINE64, 2, op);
		break;
	case 3:
		mf_bloom_hashes(b, hashes, n, result_bitmap, MEMFILTER_BLOOM_LINE64, 3, op);
		break;
	case 4:
		mf_bloom_hashes(b, hashes, n, result_bitmap, MEMFILTER_BLOOM_LINE64, 4, op);
		break;
	case 5:
		mf_bloom_hashes(b, hashes, n, result_bitmap, MEMFILTER_BLOOM_LINE64, 5, op);
		break;
	case 6:
		mf_bloom_hashes(b, hashes, n, result_bitmap, MEMFILTER_BLOOM_LINE64, 6, op);
		break;
	case 7:
		mf_bloom_hashes(b, hashes, n, result_bitmap, MEMFILTER_BLOOM_LINE64, 7, op);
		break;
	default:
		mf_bloom_hashes(b, hashes, n, result_bitmap, MEMFILTER_BLOOM_LINE64,
				MEMFILTER_BLOOM_MAX_K, op);
	}
}

/**
 * memfilter_bloom_add_hashes_scalar() - insert many hashes, scalar code
 * @b: the filter
 * @hashes: the keys' hashes
 * @n: how many
 *
 * The portable path of memfilter_bloom_add_hashes(), exposed for tests.
 *
 * Context: any, as memfilter_bloom_add_hash().
 */
void memfilter_bloom_add_hashes_scalar(struct memfilter_bloom *b, const u64 *hashes,
				       size_t n)
{
	mf_bloom_hashes_any(b, hashes, n, NULL, MF_BLOOM_SET);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_add_hashes_scalar);

/**
 * memfilter_bloom_add_hashes_exclusive_scalar() - insert many, only writer
 * @b: the filter
 * @hashes: the keys' hashes
 * @n: how many
 *
 * The portable path of memfilter_bloom_add_hashes_exclusive(), exposed for
 * tests.
 *
 * Context: any, as memfilter_bloom_add_hash_exclusive().
 */
void memfilter_bloom_add_hashes_exclusive_scalar(struct memfilter_bloom *b,
						 const u64 *hashes, size_t n)
{
	mf_bloom_hashes_with_k(b, hashes, n, NULL, MF_BLOOM_SET_EXCLUSIVE);
}

/* memfilter_bloom_contains_hashes_scalar() of two keys or more. */
static noinline void mf_bloom_contains_hashes_loop(const struct memfilter_bloom *b,
						   const u64 *hashes, size_t n,
						   unsigned long *result_bitmap)
{
	/* Not written through: MF_BLOOM_TEST only reads the filter. */
	mf_bloom_hashes_with_k((struct memfilter_bloom *)b, hashes, n,
			       result_bitmap, MF_BLOOM_TEST);
}

/**
 * memfilter_bloom_contains_hashes_scalar() - query many hashes, scalar code
 * @b: the filter
 * @hashes: the keys' hashes
 * @n: how many
 * @result_bitmap: DIV_ROUND_UP(@n, BITS_PER_LONG) words; bit i is set if
 *	key i may be present, cleared if not; bits past @n are cleared
 *
 * The portable path of memfilter_bloom_contains_hashes(), exposed for tests.
 *
 * Context: any, as memfilter_bloom_contains_hash().
 */
void memfilter_bloom_contains_hashes_scalar(const struct memfilter_bloom *b,
					    const u64 *hashes, size_t n,
					    unsigned long *result_bitmap)
{
	/*
	 * One key (memfilter_contains()): no loop to set up, and no registers
	 * of the loop's to save.
	 */
	if (n == 1)
		result_bitmap[0] = memfilter_bloom_contains_hash_scalar(b, hashes[0]);
	else
		mf_bloom_contains_hashes_loop(b, hashes, n, result_bitmap);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_contains_hashes_scalar);

/**
 * memfilter_bloom_add_hashes() - insert many keys by their hashes
 * @b: the filter
 * @hashes: the keys' hashes under @b->p.hasher
 * @n: how many
 *
 * Uses AVX2 where the CPU has it and the context allows, in sections of at
 * most MEMFILTER_SIMD_CHUNK keys; the filter is bit for bit the same either way.
 *
 * Context: any, as memfilter_bloom_add_hash().
 */
void memfilter_bloom_add_hashes(struct memfilter_bloom *b, const u64 *hashes,
				size_t n)
{
	size_t i, m;

	for (i = 0; i < n; i += m) {
		m = min(n - i, (size_t)MEMFILTER_SIMD_CHUNK);
		if (MEMFILTER_HAVE_AVX2 && memfilter_simd_begin_batch(m)) {
			memfilter_bloom_add_hashes_avx2(b, hashes + i, m);
			memfilter_simd_end();
		} else {
			memfilter_bloom_add_hashes_scalar(b, hashes + i, m);
		}
	}
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_add_hashes);

/**
 * memfilter_bloom_add_hashes_exclusive() - insert many hashes, only writer
 * @b: the filter
 * @hashes: the keys' hashes under @b->p.hasher
 * @n: how many
 *
 * memfilter_bloom_add_hashes() without atomic operations, for the callers
 * of memfilter_bloom_add_hash_exclusive(); the filter is bit for bit the
 * same.
 *
 * Context: any; callers serialise all inserts into @b.
 */
void memfilter_bloom_add_hashes_exclusive(struct memfilter_bloom *b,
					  const u64 *hashes, size_t n)
{
	size_t i, m;

	for (i = 0; i < n; i += m) {
		m = min(n - i, (size_t)MEMFILTER_SIMD_CHUNK);
		if (MEMFILTER_HAVE_AVX2 && memfilter_simd_begin_batch(m)) {
			memfilter_bloom_add_hashes_exclusive_avx2(b, hashes + i,
								  m);
			memfilter_simd_end();
		} else {
			memfilter_bloom_add_hashes_exclusive_scalar(b,
								    hashes + i,
								    m);
		}
	}
}

/**
 * memfilter_bloom_contains_hashes() - query many keys by their hashes
 * @b: the filter
 * @hashes: the keys' hashes under @b->p.hasher
 * @n: how many
 * @result_bitmap: DIV_ROUND_UP(@n, BITS_PER_LONG) words; bit i is set if
 *	key i may be present, cleared if not; bits past @n are cleared
 *
 * Uses AVX2 where the CPU has it and the context allows, in sections of at
 * most MEMFILTER_SIMD_CHUNK keys; the answers are the same either way.
 *
 * Context: any, as memfilter_bloom_contains_hash().
 */
void memfilter_bloom_contains_hashes(const struct memfilter_bloom *b,
				     const u64 *hashes, size_t n,
				     unsigned long *result_bitmap)
{
	unsigned long *out;
	size_t i, m;

	for (i = 0; i < n; i += m) {
		m = min(n - i, (size_t)MEMFILTER_SIMD_CHUNK);
		out = result_bitmap + i / BITS_PER_LONG;
		if (MEMFILTER_HAVE_AVX2 && memfilter_simd_begin_batch(m)) {
			memfilter_bloom_contains_hashes_avx2(b, hashes + i, m,
							     out);
			memfilter_simd_end();
		} else {
			memfilter_bloom_contains_hashes_scalar(b, hashes + i, m,
							       out);
		}
	}
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_contains_hashes);

/* A key batch call's key, scalar; @ctx is the filter. */
static __always_inline bool mf_bloom_keys_one(const void *ctx, u64 *blk, u64 hash,
					      u32 layout, enum memfilter_bloom_op op)
{
	const struct memfilter_bloom *b = ctx;
	enum mf_bloom_scalar_op sop = op == MEMFILTER_BLOOM_OP_ADD ? MF_BLOOM_SET :
				      op == MEMFILTER_BLOOM_OP_ADD_EXCLUSIVE ?
				      MF_BLOOM_SET_EXCLUSIVE : MF_BLOOM_TEST;

	return mf_bloom_do_layout(blk, hash, layout, b->p.k, sop) &&
	       op == MEMFILTER_BLOOM_OP_CONTAINS;
}

/* One section of a key batch call, scalar (see memfilter_bloom_keys_avx2()). */
static void
mf_bloom_keys_scalar_section(struct memfilter_bloom *b, struct memfilter_bloom_ring *r,
			     const void *keys, size_t key_len, size_t start,
			     size_t m, size_t n, unsigned long *result_bitmap,
			     enum memfilter_bloom_op op)
{
	const struct memfilter_bloom f = *b;

	memfilter_bloom_keys_section_op(&f, r, keys, key_len, start, m, n,
					result_bitmap, op, mf_bloom_keys_one, &f);
}

/*
 * The key batch calls: one pipeline over all @n keys (struct
 * memfilter_bloom_ring), in sections of MEMFILTER_SIMD_CHUNK keys that use AVX2 where
 * the CPU has it and the context allows. The ring carries over from one
 * section to the next, so the fetches in flight do too.
 */
static void mf_bloom_keys(struct memfilter_bloom *b, const void *keys, size_t key_len,
			  size_t n, unsigned long *result_bitmap,
			  enum memfilter_bloom_op op, bool simd)
{
	struct memfilter_bloom_ring r;
	size_t i, m;

	for (i = 0; i < MEMFILTER_BLOOM_AHEAD; i += MEMFILTER_BLOOM_GROUP)
		memfilter_bloom_ring_fill(b, &r, keys, key_len, i, n, b->p.layout);
	for (i = 0; i < n; i += m) {
		m = min(n - i, (size_t)MEMFILTER_SIMD_CHUNK);
		if (MEMFILTER_HAVE_AVX2 && simd && memfilter_simd_begin_batch(m)) {
			memfilter_bloom_keys_avx2(b, &r, keys, key_len, i, m, n,
						  result_bitmap, op);
			memfilter_simd_end();
		} else {
			mf_bloom_keys_scalar_section(b, &r, keys, key_len, i, m,
						     n, result_bitmap, op);
		}
	}
}

/**
 * memfilter_bloom_add_keys() - insert many keys of one size
 * @b: the filter
 * @keys: @n keys of @key_len bytes each, back to back, any alignment
 * @key_len: the size of each key
 * @n: how many
 *
 * Hashes each key MEMFILTER_BLOOM_AHEAD keys before inserting it and prefetches
 * its block meanwhile; the filter is the same as from
 * memfilter_bloom_add_key() on each key.
 *
 * Context: any, as memfilter_bloom_add_hash(); uses 512 bytes of stack.
 */
void memfilter_bloom_add_keys(struct memfilter_bloom *b, const void *keys,
			      size_t key_len, size_t n)
{
	mf_bloom_keys(b, keys, key_len, n, NULL, MEMFILTER_BLOOM_OP_ADD, true);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_add_keys);

/**
 * memfilter_bloom_add_keys_exclusive() - insert many keys, only writer
 * @b: the filter
 * @keys: @n keys of @key_len bytes each, back to back, any alignment
 * @key_len: the size of each key
 * @n: how many
 *
 * memfilter_bloom_add_keys() without atomic operations: the same filter,
 * for callers that serialise all inserts into @b (see
 * memfilter_bloom_add_hash_exclusive()).
 *
 * Context: any, as memfilter_bloom_add_hash_exclusive(); uses 512 bytes of
 * stack.
 */
void memfilter_bloom_add_keys_exclusive(struct memfilter_bloom *b, const void *keys,
					size_t key_len, size_t n)
{
	mf_bloom_keys(b, keys, key_len, n, NULL, MEMFILTER_BLOOM_OP_ADD_EXCLUSIVE,
		      true);
}

/**
 * memfilter_bloom_contains_keys() - query many keys of one size
 * @b: the filter
 * @keys: @n keys of @key_len bytes each, back to back, any alignment
 * @key_len: the size of each key
 * @n: how many
 * @result_bitmap: DIV_ROUND_UP(@n, BITS_PER_LONG) words; bit i is set if
 *	key i may be present, cleared if not; bits past @n are cleared
 *
 * Hashes each key MEMFILTER_BLOOM_AHEAD keys before testing it and prefetches its
 * block meanwhile.
 *
 * Context: any, as memfilter_bloom_contains_hash(); uses 512 bytes of
 * stack.
 */
void memfilter_bloom_contains_keys(const struct memfilter_bloom *b, const void *keys,
				   size_t key_len, size_t n,
				   unsigned long *result_bitmap)
{
	BUILD_BUG_ON(MEMFILTER_SIMD_CHUNK % BITS_PER_LONG);
	BUILD_BUG_ON(MEMFILTER_BLOOM_AHEAD + MEMFILTER_BLOOM_GROUP > MEMFILTER_BLOOM_RING);
	BUILD_BUG_ON(MEMFILTER_BLOOM_AHEAD % MEMFILTER_BLOOM_GROUP);
	BUILD_BUG_ON(MEMFILTER_BLOOM_RING % MEMFILTER_BLOOM_GROUP);
	BUILD_BUG_ON(BITS_PER_LONG % MEMFILTER_BLOOM_GROUP);
	/* Not written through: MEMFILTER_BLOOM_OP_CONTAINS only reads the filter. */
	mf_bloom_keys((struct memfilter_bloom *)b, keys, key_len, n, result_bitmap,
		      MEMFILTER_BLOOM_OP_CONTAINS, true);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_contains_keys);

/**
 * memfilter_bloom_keys_scalar() - a key batch call, scalar code
 * @b: the filter (not written for MEMFILTER_BLOOM_OP_CONTAINS)
 * @keys: @n keys of @key_len bytes each, back to back, any alignment
 * @key_len: the size of each key
 * @n: how many
 * @result_bitmap: for MEMFILTER_BLOOM_OP_CONTAINS, as memfilter_bloom_contains_keys()
 * @op: memfilter_bloom_add_keys(), _add_keys_exclusive() or _contains_keys()
 *
 * The portable path of the key batch calls, exposed for tests.
 *
 * Context: as the call @op stands for.
 */
void memfilter_bloom_keys_scalar(struct memfilter_bloom *b, const void *keys,
				 size_t key_len, size_t n,
				 unsigned long *result_bitmap, enum memfilter_bloom_op op)
{
	mf_bloom_keys(b, keys, key_len, n, result_bitmap, op, false);
}

/*
 * Set bit @j of @out if @had (the key was present); @out's words were
 * cleared by the caller.
 */
static __always_inline void mf_bloom_had(unsigned long *out, size_t j, bool had)
{
	if (out && had)
		out[j / BITS_PER_LONG] |= 1UL << (j % BITS_PER_LONG);
}

/* The scalar walk's key (memfilter_bloom_walk()); @ctx is the filter. */
static __always_inline bool mf_bloom_walk_one(const void *ctx, u64 *blk, u64 hash,
					      u32 layout)
{
	const struct memfilter_bloom *b = ctx;

	if (layout == MEMFILTER_BLOOM_SPLIT32)
		return mf_split32_test_and_set_locked(blk, hash);
	return mf_bloom_with_k(blk, hash, b->p.k, MF_BLOOM_TEST_AND_SET_LOCKED);
}

/*
 * The batch inserts of a filter with stripes: chunks of MEMFILTER_SIMD_CHUNK
 * keys sorted by stripe, each stripe's keys under one hold of its lock
 * (AVX2 where the CPU has it and the context allows); short chunks key by
 * key. @result_bitmap (NULL for a plain add): as
 * memfilter_bloom_test_and_add_hashes(). A key repeated in a chunk lands in
 * one stripe, where the sort keeps the chunk's order, so it is present the
 * second time, as when the keys go one by one; keys of different stripes
 * touch different blocks and cannot see each other.
 */
static void mf_bloom_locked(struct memfilter_bloom *b, const u64 *hashes,
			    size_t n, unsigned long *result_bitmap, bool simd)
{
	struct memfilter_bloom_sort s;
	unsigned long *out;
	size_t i, j, m;
	bool vec;

	for (i = 0; i < n; i += m) {
		m = min(n - i, (size_t)MEMFILTER_SIMD_CHUNK);
		out = result_bitmap ? result_bitmap + i / BITS_PER_LONG : NULL;
		if (out)
			for (j = 0; j < DIV_ROUND_UP(m, BITS_PER_LONG); j++)
				out[j] = 0;
		if (m < MEMFILTER_BLOOM_SORT_MIN) {
			for (j = 0; j < m; j++)
				mf_bloom_had(out, j,
					     memfilter_bloom_one_locked(b, hashes[i + j],
									out));
			continue;
		}
		memfilter_bloom_sort(b, hashes + i, m, &s);
		/* Bottom halves off inside the SIMD section (see compat.h). */
		vec = MEMFILTER_HAVE_AVX2 && simd && memfilter_simd_begin();
		memfilter_bh_disable();
		if (vec)
			memfilter_bloom_walk_avx2(b, hashes + i, &s, out);
		else if (b->p.layout == MEMFILTER_BLOOM_SPLIT32)
			memfilter_bloom_walk(b, hashes + i, &s, out,
					     MEMFILTER_BLOOM_SPLIT32,
					     mf_bloom_walk_one, b);
		else
			memfilter_bloom_walk(b, hashes + i, &s, out,
					     MEMFILTER_BLOOM_LINE64,
					     mf_bloom_walk_one, b);
		memfilter_bh_enable();
		if (vec)
			memfilter_simd_end();
	}
}

/**
 * memfilter_bloom_add_hashes_locked() - insert many keys, stripe-locked
 * @b: the filter, with stripes attached
 * @hashes: the keys' hashes under @b->p.hasher
 * @n: how many
 *
 * memfilter_bloom_add_hashes() for a filter with stripes attached: per
 * chunk of MEMFILTER_SIMD_CHUNK keys, one hold of each stripe's lock
 * that has keys in it (at most MEMFILTER_BLOOM_LOCK_KEYS keys per hold)
 * around plain read-modify-writes. The filter is bit for bit the same.
 *
 * Context: any but hard interrupt or NMI; bottom halves off for one chunk
 * at a time.
 */
void memfilter_bloom_add_hashes_locked(struct memfilter_bloom *b,
				       const u64 *hashes, size_t n)
{
	mf_bloom_locked(b, hashes, n, NULL, true);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_add_hashes_locked);

/**
 * memfilter_bloom_test_and_add_hashes_locked() - test-and-add, stripe-locked
 * @b: the filter, with stripes attached
 * @hashes: the keys' hashes under @b->p.hasher
 * @n: how many
 * @result_bitmap: as memfilter_bloom_test_and_add_hashes()
 *
 * memfilter_bloom_test_and_add_hashes() for a filter with stripes
 * attached, under its locks as memfilter_bloom_add_hashes_locked(); the
 * same answers and bits as key by key.
 *
 * Context: as memfilter_bloom_add_hashes_locked().
 */
void memfilter_bloom_test_and_add_hashes_locked(struct memfilter_bloom *b,
						const u64 *hashes, size_t n,
						unsigned long *result_bitmap)
{
	mf_bloom_locked(b, hashes, n, result_bitmap, true);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_test_and_add_hashes_locked);

/**
 * memfilter_bloom_locked_scalar() - the stripe-locked batch, scalar code
 * @b: the filter, with stripes attached
 * @hashes: the keys' hashes
 * @n: how many
 * @result_bitmap: as memfilter_bloom_test_and_add_hashes(), or NULL (add)
 *
 * The portable path of the _locked batch calls, exposed for tests.
 *
 * Context: as memfilter_bloom_add_hashes_locked().
 */
void memfilter_bloom_locked_scalar(struct memfilter_bloom *b, const u64 *hashes,
				   size_t n, unsigned long *result_bitmap)
{
	mf_bloom_locked(b, hashes, n, result_bitmap, false);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_locked_scalar);

/**
 * memfilter_bloom_test_and_add_hashes_scalar() - test-and-add, scalar code
 * @b: the filter
 * @hashes: the keys' hashes
 * @n: how many
 * @result_bitmap: as memfilter_bloom_test_and_add_hashes()
 *
 * The portable path of memfilter_bloom_test_and_add_hashes(), exposed for
 * tests.
 *
 * Context: any, as memfilter_bloom_add_hash().
 */
void memfilter_bloom_test_and_add_hashes_scalar(struct memfilter_bloom *b,
						const u64 *hashes, size_t n,
						unsigned long *result_bitmap)
{
	mf_bloom_hashes_any(b, hashes, n, result_bitmap, MF_BLOOM_TEST_AND_SET);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_test_and_add_hashes_scalar);

/**
 * memfilter_bloom_test_and_add_hashes() - was each key present? add it
 * @b: the filter
 * @hashes: the keys' hashes under @b->p.hasher
 * @n: how many
 * @result_bitmap: DIV_ROUND_UP(@n, BITS_PER_LONG) words; bit i is set if
 *	key i may have been present before its add; bits past @n are cleared
 *
 * For each key in order, the answer memfilter_bloom_contains_hash() would
 * have given, then memfilter_bloom_add_hash(), in one pass over the key's
 * words: the same bits as the add. A key repeated in @hashes is present
 * the second time. Two calls racing on one new key may both report it
 * absent; it is present after both. A key whose add returned before this
 * call started is always reported present. AVX2 where the CPU has it and
 * the context allows, in sections of MEMFILTER_SIMD_CHUNK keys.
 *
 * Context: any, as memfilter_bloom_add_hash().
 */
void memfilter_bloom_test_and_add_hashes(struct memfilter_bloom *b,
					 const u64 *hashes, size_t n,
					 unsigned long *result_bitmap)
{
	unsigned long *out;
	size_t i, m;

	for (i = 0; i < n; i += m) {
		m = min(n - i, (size_t)MEMFILTER_SIMD_CHUNK);
		out = result_bitmap + i / BITS_PER_LONG;
		if (MEMFILTER_HAVE_AVX2 && memfilter_simd_begin_batch(m)) {
			memfilter_bloom_test_and_add_hashes_avx2(b, hashes + i,
								 m, out);
			memfilter_simd_end();
		} else {
			memfilter_bloom_test_and_add_hashes_scalar(b,
								   hashes + i,
								   m, out);
		}
	}
}
