// SPDX-License-Identifier: GPL-2.0
/*
 * AVX2 batch insert and query for memfilter's blocked Bloom filter
 * (bloom.h), x86-64 only. The whole 512-bit pattern of a key is built in
 * two YMM registers: one 32-bit multiply per word gives the bit, a compare
 * against the key's window masks the words outside it, and a variable
 * shift turns the bit numbers into masks. A query is then two 32-byte loads
 * and two VPTESTs; an insert ORs, atomically, only the words still missing
 * bits; an exclusive insert (single writer) is two VPORs and two 32-byte
 * stores. Answers and filters are bit for bit those of the scalar code.
 *
 * Built with -mavx2 for this file only (Kbuild, Makefile) and entered only
 * between memfilter_simd_begin() and memfilter_simd_end(), which in the kernel bracket
 * kernel_fpu_begin() and kernel_fpu_end(). The vector loads of a block are
 * not READ_ONCE(), but each aligned 8-byte lane is read whole, which is all
 * the scalar code relies on; likewise the exclusive insert's 32-byte
 * stores write each 8-byte word whole, as WRITE_ONCE() would.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef __CHECKER__
#define _MM_MALLOC_H_INCLUDED	/* immintrin.h must not pull in libc */
#include <immintrin.h>
#else
#include "bloom_avx2_sparse.h"
#endif

#include "bloom.h"

struct mf_bloom_avx2 {
	__m256i salt, one;
	u64 out;
};

/*
 * @c->out: which words of a block lie outside the k-word window starting
 * at word 0, one byte per word, 0 inside and 64 outside (where VPSLLVQ
 * gives 0). Rotated left by s bytes it is the window starting at word s.
 * As in the scalar code, k outside 1..7 probes all 8 words.
 */
static __always_inline void mf_bloom_avx2_init(struct mf_bloom_avx2 *c, u32 k)
{
	c->salt = _mm256_setr_epi32(0x47b6137b, 0x44974d91, 0x8824ad5b,
				    0xa2b7289d, 0x705495c7, 0x2df1424b,
				    0x9efc4947, 0x5c6bfb31);
	c->one = _mm256_set1_epi64x(1);
	c->out = k - 1 < MEMFILTER_BLOOM_MAX_K - 1 ?
		 0x4040404040404040ULL << (8 * k) : 0;
}

/* The pattern of @hash as words 0-3 (@lo) and 4-7 (@hi). */
static __always_inline void mf_bloom_avx2_pattern(const struct mf_bloom_avx2 *c,
						  u64 hash, __m256i *lo,
						  __m256i *hi)
{
	__m256i x = _mm256_set1_epi32((u32)hash);
	__m256i bit = _mm256_srli_epi32(_mm256_mullo_epi32(x, c->salt), 26);
	u64 out = rol64(c->out, 8 * memfilter_bloom_start(hash));

	bit = _mm256_or_si256(bit, _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(out)));
	*lo = _mm256_sllv_epi64(c->one,
				_mm256_cvtepu32_epi64(_mm256_castsi256_si128(bit)));
	*hi = _mm256_sllv_epi64(c->one,
				_mm256_cvtepu32_epi64(_mm256_extracti128_si256(bit, 1)));
}

/* One bit per 64-bit lane: its top bit. */
static __always_inline unsigned int mf_bloom_avx2_mask(__m256i v)
{
	return _mm256_movemask_pd(_mm256_castsi256_pd(v));
}

/* Insert, safe against concurrent inserters (as mf_bloom_set()). */
static __always_inline void mf_bloom_avx2_set(const struct mf_bloom_avx2 *c,
					      u64 *blk, u64 hash)
{
	u64 pat[MEMFILTER_BLOOM_BLOCK_WORDS] __aligned(32);
	__m256i lo, hi, got_lo, got_hi;
	unsigned int miss;

	mf_bloom_avx2_pattern(c, hash, &lo, &hi);
	/* Words whose pattern bits are all set already: skip them. */
	got_lo = _mm256_and_si256(lo, _mm256_load_si256((void *)blk));
	got_hi = _mm256_and_si256(hi, _mm256_load_si256((void *)(blk + 4)));
	got_lo = _mm256_cmpeq_epi64(got_lo, lo);
	got_hi = _mm256_cmpeq_epi64(got_hi, hi);
	miss = mf_bloom_avx2_mask(got_lo) | mf_bloom_avx2_mask(got_hi) << 4;
	miss ^= 0xff;
	if (!miss)
		return;
	_mm256_store_si256((void *)pat, lo);
	_mm256_store_si256((void *)(pat + 4), hi);
	do {
		unsigned int w = __builtin_ctz(miss);

		memfilter_atomic_or64(&blk[w], pat[w]);
		miss &= miss - 1;
	} while (miss);
}

/* Insert by the only writer (as mf_bloom_set_exclusive()). */
static __always_inline void
mf_bloom_avx2_set_exclusive(const struct mf_bloom_avx2 *c, u64 *blk, u64 hash)
{
	__m256i lo, hi;

	mf_bloom_avx2_pattern(c, hash, &lo, &hi);
	lo = _mm256_or_si256(lo, _mm256_load_si256((void *)blk));
	hi = _mm256_or_si256(hi, _mm256_load_si256((void *)(blk + 4)));
	_mm256_store_si256((void *)blk, lo);
	_mm256_store_si256((void *)(blk + 4), hi);
}

/* Query (as mf_bloom_test()). */
static __always_inline bool mf_bloom_avx2_test(const struct mf_bloom_avx2 *c,
					       const u64 *blk, u64 hash)
{
	__m256i lo, hi;

	mf_bloom_avx2_pattern(c, hash, &lo, &hi);
	return _mm256_testc_si256(_mm256_load_si256((const void *)blk), lo) &
	       _mm256_testc_si256(_mm256_load_si256((const void *)(blk + 4)),
				  hi);
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
bool memfilter_bloom_contains_hash_avx2(const struct memfilter_bloom *b, u64 hash)
{
	struct mf_bloom_avx2 c;

	mf_bloom_avx2_init(&c, b->p.k);
	return mf_bloom_avx2_test(&c, memfilter_bloom_block_ptr(b, hash), hash);
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
void memfilter_bloom_add_hash_avx2(struct memfilter_bloom *b, u64 hash)
{
	struct mf_bloom_avx2 c;

	mf_bloom_avx2_init(&c, b->p.k);
	mf_bloom_avx2_set(&c, memfilter_bloom_block_ptr(b, hash), hash);
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
void memfilter_bloom_add_hash_exclusive_avx2(struct memfilter_bloom *b, u64 hash)
{
	struct mf_bloom_avx2 c;

	mf_bloom_avx2_init(&c, b->p.k);
	mf_bloom_avx2_set_exclusive(&c, memfilter_bloom_block_ptr(b, hash), hash);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_add_hash_exclusive_avx2);

/**
 * memfilter_bloom_add_hashes_avx2() - insert many hashes with AVX2
 * @b: the filter
 * @hashes: the keys' hashes
 * @n: how many, at most MEMFILTER_SIMD_CHUNK
 *
 * Context: between memfilter_simd_begin() (true) and memfilter_simd_end(); otherwise as
 * memfilter_bloom_add_hash().
 */
void memfilter_bloom_add_hashes_avx2(struct memfilter_bloom *b, const u64 *hashes,
				     size_t n)
{
	struct mf_bloom_avx2 c;
	size_t i;

	mf_bloom_avx2_init(&c, b->p.k);
	for (i = 0; i < MEMFILTER_BLOOM_AHEAD; i++)
		memfilter_bloom_prefetch(b, hashes, i, n);
	for (i = 0; i < n; i++) {
		memfilter_bloom_prefetch(b, hashes, i + MEMFILTER_BLOOM_AHEAD, n);
		mf_bloom_avx2_set(&c, memfilter_bloom_block_ptr(b, hashes[i]),
				  hashes[i]);
	}
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_add_hashes_avx2);

/**
 * memfilter_bloom_add_hashes_exclusive_avx2() - insert many, AVX2, only writer
 * @b: the filter
 * @hashes: the keys' hashes
 * @n: how many, at most MEMFILTER_SIMD_CHUNK
 *
 * Context: between memfilter_simd_begin() (true) and memfilter_simd_end(); otherwise as
 * memfilter_bloom_add_hash_exclusive().
 */
void memfilter_bloom_add_hashes_exclusive_avx2(struct memfilter_bloom *b,
					       const u64 *hashes, size_t n)
{
	struct mf_bloom_avx2 c;
	size_t i;

	mf_bloom_avx2_init(&c, b->p.k);
	for (i = 0; i < MEMFILTER_BLOOM_AHEAD; i++)
		memfilter_bloom_prefetch(b, hashes, i, n);
	for (i = 0; i < n; i++) {
		memfilter_bloom_prefetch(b, hashes, i + MEMFILTER_BLOOM_AHEAD, n);
		mf_bloom_avx2_set_exclusive(&c,
					    memfilter_bloom_block_ptr(b, hashes[i]),
					    hashes[i]);
	}
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
void memfilter_bloom_contains_hashes_avx2(const struct memfilter_bloom *b,
					  const u64 *hashes, size_t n,
					  unsigned long *result_bitmap)
{
	struct mf_bloom_avx2 c;
	unsigned long acc = 0;
	size_t i;

	mf_bloom_avx2_init(&c, b->p.k);
	for (i = 0; i < MEMFILTER_BLOOM_AHEAD; i++)
		memfilter_bloom_prefetch(b, hashes, i, n);
	for (i = 0; i < n; i++) {
		unsigned long hit;

		memfilter_bloom_prefetch(b, hashes, i + MEMFILTER_BLOOM_AHEAD, n);
		hit = mf_bloom_avx2_test(&c, memfilter_bloom_block_ptr(b, hashes[i]),
					 hashes[i]);
		acc |= hit << (i % BITS_PER_LONG);
		if (i % BITS_PER_LONG == BITS_PER_LONG - 1 || i == n - 1) {
			result_bitmap[i / BITS_PER_LONG] = acc;
			acc = 0;
		}
	}
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_contains_hashes_avx2);

/*
 * One section of a key batch call, for one operation and key kind (see
 * bloom.h): keys in runs of up to BITS_PER_LONG, one result word per run
 * (@start is a multiple of BITS_PER_LONG), so the per-key work is the
 * hash, the prefetch and the test.
 */
static __always_inline void
mf_bloom_avx2_keys(struct memfilter_bloom *b, struct memfilter_bloom_ring *r,
		   const void *keys, size_t key_len, size_t start, size_t m,
		   size_t n, unsigned long *result_bitmap, enum memfilter_bloom_op op,
		   bool fixed8)
{
	struct mf_bloom_avx2 c;
	size_t i = start, end = start + m, run;

	mf_bloom_avx2_init(&c, b->p.k);
	while (i < end) {
		unsigned long acc = 0;

		run = min(end, i + BITS_PER_LONG);
		for (; i < run; i++) {
			u64 h = r->h[i % MEMFILTER_BLOOM_RING];
			u64 *blk = memfilter_bloom_block_ptr(b, h);

			memfilter_bloom_ring_fill(b, r, keys, key_len,
						  i + MEMFILTER_BLOOM_AHEAD, n,
						  fixed8);
			if (op == MEMFILTER_BLOOM_OP_ADD)
				mf_bloom_avx2_set(&c, blk, h);
			else if (op == MEMFILTER_BLOOM_OP_ADD_EXCLUSIVE)
				mf_bloom_avx2_set_exclusive(&c, blk, h);
			else
				acc |= (unsigned long)mf_bloom_avx2_test(&c, blk, h)
				       << (i % BITS_PER_LONG);
		}
		if (op == MEMFILTER_BLOOM_OP_CONTAINS)
			result_bitmap[(i - 1) / BITS_PER_LONG] = acc;
	}
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
void memfilter_bloom_keys_avx2(struct memfilter_bloom *b, struct memfilter_bloom_ring *r,
			       const void *keys, size_t key_len, size_t start,
			       size_t m, size_t n, unsigned long *result_bitmap,
			       enum memfilter_bloom_op op)
{
	bool f8 = memfilter_bloom_fixed8(b, key_len);

	if (op == MEMFILTER_BLOOM_OP_ADD && f8)
		mf_bloom_avx2_keys(b, r, keys, 8, start, m, n, NULL,
				   MEMFILTER_BLOOM_OP_ADD, true);
	else if (op == MEMFILTER_BLOOM_OP_ADD)
		mf_bloom_avx2_keys(b, r, keys, key_len, start, m, n, NULL,
				   MEMFILTER_BLOOM_OP_ADD, false);
	else if (op == MEMFILTER_BLOOM_OP_ADD_EXCLUSIVE && f8)
		mf_bloom_avx2_keys(b, r, keys, 8, start, m, n, NULL,
				   MEMFILTER_BLOOM_OP_ADD_EXCLUSIVE, true);
	else if (op == MEMFILTER_BLOOM_OP_ADD_EXCLUSIVE)
		mf_bloom_avx2_keys(b, r, keys, key_len, start, m, n, NULL,
				   MEMFILTER_BLOOM_OP_ADD_EXCLUSIVE, false);
	else if (f8)
		mf_bloom_avx2_keys(b, r, keys, 8, start, m, n, result_bitmap,
				   MEMFILTER_BLOOM_OP_CONTAINS, true);
	else
		mf_bloom_avx2_keys(b, r, keys, key_len, start, m, n,
				   result_bitmap, MEMFILTER_BLOOM_OP_CONTAINS, false);
}
