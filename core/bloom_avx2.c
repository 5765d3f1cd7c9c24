// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * AVX2 batch insert and query for memfilter's blocked Bloom filter
 * (bloom.h), x86-64 only, both layouts. LINE64: the whole 512-bit pattern
 * of a key is built in two YMM registers: one 32-bit multiply per word
 * gives the bit, the key's window (a row of memfilter_bloom_avx2_win)
 * sends the words outside it to 64, and a variable shift turns the bit
 * numbers into masks. A query is then two 32-byte loads, two VPANDNs, a
 * VPOR and one VPTEST; an insert ORs, atomically, only the words still
 * missing bits; an exclusive insert (single writer) is two VPORs and two
 * 32-byte stores. SPLIT32: the 256-bit pattern in one register (eight
 * multiplies, a shift each), a query one load and one VPTEST. Answers and
 * filters are bit for bit those of the scalar code.
 *
 * Only the functions marked MF_AVX2 (here and in bloom_avx2.h) are
 * compiled for AVX2, each by its own __attribute__((target("avx2"))); in
 * the kernel the file itself is built with the usual flags (-mno-sse
 * -mno-avx ...), so no other code, in this file or inlined into it from
 * headers, can use a vector register. The entry points (names ending in
 * _avx2) are called only between memfilter_simd_begin() and
 * memfilter_simd_end(), which in the kernel bracket kernel_fpu_begin() and
 * kernel_fpu_end(). scripts/check-simd.sh checks both rules on the built
 * module's machine code.
 *
 * The vector loads of a block are not READ_ONCE(), but each aligned 8-byte
 * lane is read whole, which is all the scalar code relies on; likewise the
 * 32-byte stores (memfilter_bloom_avx2_store()) write each 8-byte word
 * whole, as WRITE_ONCE() would.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include "bloom_avx2.h"
#include "bloom_internal.h"

/*
 * The windows of memfilter_bloom_avx2_pattern(): row k - 1 holds, twice,
 * 64 in the 32-bit lane of each word outside the k-word window starting
 * at word 0, else 0 (VPSLLVQ gives 0 for a count of 64). The 8 lanes from
 * lane 8 - s are that window rotated by s words, the window starting at
 * word s: loaded instead of computed from k and s for every key. Rows are
 * 64-byte aligned, so no load crosses a cache line.
 */
const u32 memfilter_bloom_avx2_win[MEMFILTER_BLOOM_MAX_K][2 * MEMFILTER_BLOOM_BLOCK_WORDS]
	__aligned(64) = {
	{ 0, 64, 64, 64, 64, 64, 64, 64, 0, 64, 64, 64, 64, 64, 64, 64 },
	{ 0, 0, 64, 64, 64, 64, 64, 64, 0, 0, 64, 64, 64, 64, 64, 64 },
	{ 0, 0, 0, 64, 64, 64, 64, 64, 0, 0, 0, 64, 64, 64, 64, 64 },
	{ 0, 0, 0, 0, 64, 64, 64, 64, 0, 0, 0, 0, 64, 64, 64, 64 },
	{ 0, 0, 0, 0, 0, 64, 64, 64, 0, 0, 0, 0, 0, 64, 64, 64 },
	{ 0, 0, 0, 0, 0, 0, 64, 64, 0, 0, 0, 0, 0, 0, 64, 64 },
	{ 0, 0, 0, 0, 0, 0, 0, 64, 0, 0, 0, 0, 0, 0, 0, 64 },
	{ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
};

/*
 * @op on one key's block @blk, @layout a constant: the AVX2 twin of
 * mf_bloom_do_layout(), with the pattern from @c.
 */
static __always_inline MF_AVX2 bool
mf_bloom_avx2_do(const struct memfilter_bloom_avx2 *c, u64 *blk, u64 hash, u32 layout,
		 enum mf_bloom_scalar_op op)
{
	__m256i lo, hi;

	if (layout == MEMFILTER_BLOOM_SPLIT32) {
		lo = memfilter_split32_avx2_pattern(c, hash);
		switch (op) {
		case MF_BLOOM_TEST:
			return memfilter_split32_avx2_has(blk, lo);
		case MF_BLOOM_SET:
		case MF_BLOOM_TEST_AND_SET:
			return memfilter_split32_avx2_set(blk, lo);
		case MF_BLOOM_TEST_AND_SET_LOCKED:
			return memfilter_split32_avx2_set_locked(blk, lo);
		default:
			memfilter_split32_avx2_set_exclusive(blk, lo);
			return true;
		}
	}
	memfilter_bloom_avx2_pattern(c, hash, &lo, &hi);
	switch (op) {
	case MF_BLOOM_TEST:
		return memfilter_bloom_avx2_has_pattern(blk, lo, hi);
	case MF_BLOOM_SET:
	case MF_BLOOM_TEST_AND_SET:
		return memfilter_bloom_avx2_set_pattern(blk, lo, hi);
	case MF_BLOOM_TEST_AND_SET_LOCKED:
		return memfilter_bloom_avx2_set_locked(blk, lo, hi);
	default:
		lo = _mm256_or_si256(lo, _mm256_load_si256((void *)blk));
		hi = _mm256_or_si256(hi, _mm256_load_si256((void *)(blk + 4)));
		memfilter_bloom_avx2_store(blk, lo);
		memfilter_bloom_avx2_store(blk + 4, hi);
		return true;
	}
}

/* One key of @b, its constants set up for it (the single-key calls). */
static __always_inline MF_AVX2 bool mf_bloom_avx2_one(const struct memfilter_bloom *b,
						      u64 hash, enum mf_bloom_scalar_op op)
{
	struct memfilter_bloom_avx2 c;
	u64 *words = b->words;

	memfilter_bloom_avx2_init(&c, b->p.k);
	if (b->p.layout == MEMFILTER_BLOOM_SPLIT32)
		return mf_bloom_avx2_do(&c, words + memfilter_bloom_block(b, hash) *
					MEMFILTER_BLOOM_SPLIT32_WORDS, hash,
					MEMFILTER_BLOOM_SPLIT32, op);
	return mf_bloom_avx2_do(&c, words + memfilter_bloom_block(b, hash) *
				MEMFILTER_BLOOM_BLOCK_WORDS, hash, MEMFILTER_BLOOM_LINE64,
				op);
}

/**
 * memfilter_bloom_contains_hash_avx2() - query one hash with AVX2
 * @b: the filter
 * @hash: the key's hash
 *
 * Context: between memfilter_simd_begin() (true) and memfilter_simd_end(); otherwise as
 * memfilter_bloom_contains_hash().
 * Return: as memfilter_bloom_contains_hash().
 */
MF_AVX2 bool memfilter_bloom_contains_hash_avx2(const struct memfilter_bloom *b, u64 hash)
{
	const u64 *blk;
	__m256i lo, hi;

	if (b->p.layout == MEMFILTER_BLOOM_SPLIT32)
		return mf_bloom_avx2_one(b, hash, MF_BLOOM_TEST);
	memfilter_bloom_avx2_pattern_table(hash, b->p.k, &lo, &hi);
	blk = memfilter_bloom_block_ptr_of(b, hash, MEMFILTER_BLOOM_LINE64);
	return memfilter_bloom_avx2_has_pattern(blk, lo, hi);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_contains_hash_avx2);

/**
 * memfilter_bloom_add_hash_avx2() - insert one hash with AVX2
 * @b: the filter
 * @hash: the key's hash
 *
 * Context: between memfilter_simd_begin() (true) and memfilter_simd_end(); otherwise as
 * memfilter_bloom_add_hash().
 */
MF_AVX2 void memfilter_bloom_add_hash_avx2(struct memfilter_bloom *b, u64 hash)
{
	mf_bloom_avx2_one(b, hash, MF_BLOOM_SET);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_add_hash_avx2);

/**
 * memfilter_bloom_add_hash_exclusive_avx2() - insert one hash, AVX2, only writer
 * @b: the filter
 * @hash: the key's hash
 *
 * Context: between memfilter_simd_begin() (true) and memfilter_simd_end(); otherwise as
 * memfilter_bloom_add_hash_exclusive().
 */
MF_AVX2 void memfilter_bloom_add_hash_exclusive_avx2(struct memfilter_bloom *b, u64 hash)
{
	mf_bloom_avx2_one(b, hash, MF_BLOOM_SET_EXCLUSIVE);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_add_hash_exclusive_avx2);

/* The AVX2 batch loop's key (mf_bloom_hashes_loop()); @ctx its constants. */
static __always_inline MF_AVX2 bool mf_bloom_avx2_hashes_one(const void *ctx, u64 *blk,
							     u64 hash, u32 layout, u32 k,
							     enum mf_bloom_scalar_op op)
{
	return mf_bloom_avx2_do(ctx, blk, hash, layout, op);
}

/*
 * The AVX2 batch loop over hashes, the scalar one's with the pattern in
 * YMM registers. @f is a local copy, so the result stores cannot make the
 * compiler reload its fields; @layout is its layout, a constant.
 */
static __always_inline MF_AVX2 void
mf_bloom_avx2_hashes(const struct memfilter_bloom *f, const u64 *hashes, size_t n,
		     unsigned long *result_bitmap, u32 layout, enum mf_bloom_scalar_op op)
{
	struct memfilter_bloom_avx2 c;

	memfilter_bloom_avx2_init(&c, f->p.k);
	mf_bloom_hashes_loop(f, hashes, n, result_bitmap, layout, f->p.k, op,
			     mf_bloom_avx2_hashes_one, &c);
}

/* mf_bloom_avx2_hashes() on a copy of @b, with its layout a constant. */
static __always_inline MF_AVX2 void
mf_bloom_avx2_hashes_any(const struct memfilter_bloom *b, const u64 *hashes, size_t n,
			 unsigned long *result_bitmap, enum mf_bloom_scalar_op op)
{
	const struct memfilter_bloom f = *b;

	if (f.p.layout == MEMFILTER_BLOOM_SPLIT32)
		mf_bloom_avx2_hashes(&f, hashes, n, result_bitmap,
				     MEMFILTER_BLOOM_SPLIT32, op);
	else
		mf_bloom_avx2_hashes(&f, hashes, n, result_bitmap,
				     MEMFILTER_BLOOM_LINE64, op);
}

/**
 * memfilter_bloom_add_hashes_avx2() - insert many hashes with AVX2
 * @b: the filter
 * @hashes: the keys' hashes
 * @n: how many, at most MEMFILTER_SIMD_CHUNK
 *
 * Context: between memfilter_simd_begin() (true) and memfilter_simd_end(); otherwise as
 * memfilter_bloom_add_hash().
 */
MF_AVX2 void memfilter_bloom_add_hashes_avx2(struct memfilter_bloom *b, const u64 *hashes, size_t n)
{
	mf_bloom_avx2_hashes_any(b, hashes, n, NULL, MF_BLOOM_SET);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_add_hashes_avx2);

/**
 * memfilter_bloom_test_and_add_hashes_avx2() - test-and-add with AVX2
 * @b: the filter
 * @hashes: the keys' hashes
 * @n: how many, at most MEMFILTER_SIMD_CHUNK
 * @result_bitmap: as memfilter_bloom_test_and_add_hashes()
 *
 * Context: between memfilter_simd_begin() (true) and memfilter_simd_end();
 * otherwise as memfilter_bloom_add_hash().
 */
MF_AVX2 void
memfilter_bloom_test_and_add_hashes_avx2(struct memfilter_bloom *b, const u64 *hashes, size_t n,
					 unsigned long *result_bitmap)
{
	mf_bloom_avx2_hashes_any(b, hashes, n, result_bitmap, MF_BLOOM_TEST_AND_SET);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_test_and_add_hashes_avx2);

/**
 * memfilter_bloom_add_hashes_exclusive_avx2() - insert many, AVX2, only writer
 * @b: the filter
 * @hashes: the keys' hashes
 * @n: how many, at most MEMFILTER_SIMD_CHUNK
 *
 * Context: between memfilter_simd_begin() (true) and memfilter_simd_end(); otherwise as
 * memfilter_bloom_add_hash_exclusive().
 */
MF_AVX2 void
memfilter_bloom_add_hashes_exclusive_avx2(struct memfilter_bloom *b, const u64 *hashes, size_t n)
{
	mf_bloom_avx2_hashes_any(b, hashes, n, NULL, MF_BLOOM_SET_EXCLUSIVE);
}

/**
 * memfilter_bloom_contains_hashes_avx2() - query many hashes with AVX2
 * @b: the filter
 * @hashes: the keys' hashes
 * @n: how many, at most MEMFILTER_SIMD_CHUNK
 * @result_bitmap: DIV_ROUND_UP(@n, BITS_PER_LONG) words; bit i is set if
 *	key i may be present, cleared if not; bits past @n are cleared
 *
 * Context: between memfilter_simd_begin() (true) and memfilter_simd_end(); otherwise as
 * memfilter_bloom_contains_hash().
 */
MF_AVX2 void
memfilter_bloom_contains_hashes_avx2(const struct memfilter_bloom *b, const u64 *hashes, size_t n,
				     unsigned long *result_bitmap)
{
	mf_bloom_avx2_hashes_any(b, hashes, n, result_bitmap, MF_BLOOM_TEST);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_contains_hashes_avx2);

/* A key batch call's key, AVX2; @ctx is the pattern's constants. */
static __always_inline MF_AVX2 bool mf_bloom_avx2_keys_one(const void *ctx, u64 *blk,
							   u64 hash, u32 layout,
							   enum memfilter_bloom_op op)
{
	if (op == MEMFILTER_BLOOM_OP_ADD)
		mf_bloom_avx2_do(ctx, blk, hash, layout, MF_BLOOM_SET);
	else if (op == MEMFILTER_BLOOM_OP_ADD_EXCLUSIVE)
		mf_bloom_avx2_do(ctx, blk, hash, layout, MF_BLOOM_SET_EXCLUSIVE);
	else
		return mf_bloom_avx2_do(ctx, blk, hash, layout, MF_BLOOM_TEST);
	return false;
}

/**
 * memfilter_bloom_keys_avx2() - one section of a key batch call, AVX2
 * @b: the filter (not written for MEMFILTER_BLOOM_OP_CONTAINS)
 * @r: the ring of hashes ahead, as &struct memfilter_bloom_ring says
 * @keys: all @n keys, @key_len bytes each
 * @key_len: the size of each key
 * @start: the first key of the section, a multiple of BITS_PER_LONG
 * @m: keys in the section, at most MEMFILTER_SIMD_CHUNK
 * @n: keys in the whole call
 * @result_bitmap: the whole call's result bitmap (MEMFILTER_BLOOM_OP_CONTAINS)
 * @op: what to do with each key
 *
 * Context: between memfilter_simd_begin() (true) and memfilter_simd_end().
 */
MF_AVX2 void
memfilter_bloom_keys_avx2(struct memfilter_bloom *b, struct memfilter_bloom_ring *r,
			  const void *keys, size_t key_len, size_t start, size_t m, size_t n,
			  unsigned long *result_bitmap, enum memfilter_bloom_op op)
{
	/* A local copy, as memfilter_bloom_keys_section() says. */
	const struct memfilter_bloom f = *b;
	struct memfilter_bloom_avx2 c;

	memfilter_bloom_avx2_init(&c, f.p.k);
	memfilter_bloom_keys_section_op(&f, r, keys, key_len, start, m, n,
					result_bitmap, op, mf_bloom_avx2_keys_one, &c);
}

/* The AVX2 walk's key (memfilter_bloom_walk()); @ctx its constants. */
static __always_inline MF_AVX2 bool mf_bloom_avx2_walk_one(const void *ctx, u64 *blk,
							   u64 hash, u32 layout)
{
	return mf_bloom_avx2_do(ctx, blk, hash, layout, MF_BLOOM_TEST_AND_SET_LOCKED);
}

/**
 * memfilter_bloom_walk_avx2() - one sorted chunk under its stripe locks, AVX2
 * @b: the filter, with stripes attached
 * @hashes: the chunk's hashes
 * @s: them sorted by stripe (memfilter_bloom_sort())
 * @result_bitmap: cleared words for the chunk's keys, or NULL (add)
 *
 * memfilter_bloom_walk() with the key's pattern in YMM registers: the
 * same bits and answers as the scalar walk.
 *
 * Context: between memfilter_simd_begin() (true) and memfilter_simd_end(),
 * bottom halves disabled; otherwise as memfilter_bloom_add_hashes_locked().
 */
MF_AVX2 void memfilter_bloom_walk_avx2(struct memfilter_bloom *b, const u64 *hashes,
				       const struct memfilter_bloom_sort *s,
				       unsigned long *result_bitmap)
{
	struct memfilter_bloom_avx2 c;

	memfilter_bloom_avx2_init(&c, b->p.k);
	if (b->p.layout == MEMFILTER_BLOOM_SPLIT32)
		memfilter_bloom_walk(b, hashes, s, result_bitmap, MEMFILTER_BLOOM_SPLIT32,
				     mf_bloom_avx2_walk_one, &c);
	else
		memfilter_bloom_walk(b, hashes, s, result_bitmap, MEMFILTER_BLOOM_LINE64,
				     mf_bloom_avx2_walk_one, &c);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_walk_avx2);
