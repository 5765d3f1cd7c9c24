/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The AVX2 building blocks of memfilter's blocked Bloom layout (bloom.h):
 * a key's 512-bit pattern in two YMM registers, and the insert and test of
 * one block with it. Shared by the Bloom filter's batch paths
 * (bloom_avx2.c) and the window filter's (window_avx2.c), which apply the
 * same pattern to each of a key's G adjacent blocks. Every function here is
 * marked MF_AVX2 (__attribute__((target("avx2")))); the files including
 * it are built with the kernel's usual -mno-sse -mno-avx ..., so only
 * MF_AVX2 functions can use a vector register, and they are used only
 * between memfilter_simd_begin() and memfilter_simd_end().
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_BLOOM_AVX2_H
#define _MEMFILTER_BLOOM_AVX2_H

#ifndef __CHECKER__
#define _MM_MALLOC_H_INCLUDED	/* immintrin.h must not pull in libc */
#include <immintrin.h>
#else
#include "bloom_avx2_sparse.h"
#endif

#include "bloom.h"

#ifndef __CHECKER__
#define MF_AVX2	__attribute__((target("avx2")))
#else
#define MF_AVX2
#endif

struct memfilter_bloom_avx2 {
	__m256i salt, one, one32;
	const u32 *win;
};

/* The windows of memfilter_bloom_avx2_init(), in bloom_avx2.c. */
extern const u32 memfilter_bloom_avx2_win[MEMFILTER_BLOOM_MAX_K][2 * MEMFILTER_BLOOM_BLOCK_WORDS];

/*
 * @c->win: the row of memfilter_bloom_avx2_win for k, from its second
 * half: the 8 lanes before it, from lane -s, are the k-word window
 * starting at word s, 0 in the 32-bit lane of a word inside it and 64
 * outside (where VPSLLVQ gives 0). As in the scalar code, k outside 1..7
 * probes all 8 words.
 */
static __always_inline MF_AVX2 void memfilter_bloom_avx2_init(struct memfilter_bloom_avx2 *c, u32 k)
{
	c->salt = _mm256_setr_epi32(0x47b6137b, 0x44974d91, 0x8824ad5b,
				    0xa2b7289d, 0x705495c7, 0x2df1424b,
				    0x9efc4947, 0x5c6bfb31);
	c->one = _mm256_set1_epi64x(1);
	c->one32 = _mm256_set1_epi32(1);
	if (--k > MEMFILTER_BLOOM_MAX_K - 1)
		k = MEMFILTER_BLOOM_MAX_K - 1;
	c->win = &memfilter_bloom_avx2_win[k][MEMFILTER_BLOOM_BLOCK_WORDS];
}

/* Each word's bit number for @hash, one per 32-bit lane, before the window. */
static __always_inline MF_AVX2 __m256i
memfilter_bloom_avx2_bits(const struct memfilter_bloom_avx2 *c, u64 hash)
{
	return _mm256_srli_epi32(_mm256_mullo_epi32(_mm256_set1_epi32((u32)hash), c->salt), 26);
}

/*
 * The pattern from @bit, a bit number per word (64 for a word outside the
 * window: VPSLLVQ gives 0), as words 0-3 (@lo) and 4-7 (@hi).
 */
static __always_inline MF_AVX2 void
memfilter_bloom_avx2_spread(const struct memfilter_bloom_avx2 *c, __m256i bit, __m256i *lo,
			    __m256i *hi)
{
	*lo = _mm256_sllv_epi64(c->one, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(bit)));
	*hi = _mm256_sllv_epi64(c->one, _mm256_cvtepu32_epi64(_mm256_extracti128_si256(bit, 1)));
}

/*
 * The pattern of @hash as words 0-3 (@lo) and 4-7 (@hi): the window
 * loaded from @c's row, not computed from k, so one load (folded into the
 * VPOR) instead of a rotate and two moves into a vector register.
 */
static __always_inline MF_AVX2 void
memfilter_bloom_avx2_pattern(const struct memfilter_bloom_avx2 *c, u64 hash, __m256i *lo,
			     __m256i *hi)
{
	__m256i win = _mm256_loadu_si256((const void *)(c->win - memfilter_bloom_start(hash)));

	memfilter_bloom_avx2_spread(c, _mm256_or_si256(memfilter_bloom_avx2_bits(c, hash), win),
				    lo, hi);
}

/*
 * memfilter_bloom_avx2_pattern() after memfilter_bloom_avx2_init(c, @k),
 * for the single-key paths, which cannot hoist the init out of a loop
 * (the salts and ones it takes are constants; the row is one address).
 */
static __always_inline MF_AVX2 void
memfilter_bloom_avx2_pattern_table(u64 hash, u32 k, __m256i *lo, __m256i *hi)
{
	struct memfilter_bloom_avx2 c;

	memfilter_bloom_avx2_init(&c, k);
	memfilter_bloom_avx2_pattern(&c, hash, lo, hi);
}

/* One bit per 64-bit lane: its top bit. */
static __always_inline MF_AVX2 unsigned int memfilter_bloom_avx2_mask(__m256i v)
{
	return _mm256_movemask_pd(_mm256_castsi256_pd(v));
}

/*
 * Load half a block that inserters may be setting bits in with atomic ORs
 * at the same time: the lockless protocol of core/bloom.c (bits are only
 * ever set, so a racing load can miss only a key whose add has not
 * returned yet).
 */
static __always_inline MF_AVX2 __m256i memfilter_bloom_avx2_load(const u64 *p)
{
	/* Inserters' atomic ORs race with this load by design. */
	return data_race(_mm256_load_si256((const void *)p));
}

/*
 * Store half a block that lockless readers may be loading at the same time
 * (memfilter_bloom_avx2_load(), the scalar READ_ONCE()s), by the block's
 * only writer (the stripe lock's holder, or the exclusive inserter). Each
 * aligned 8-byte lane is written whole, as WRITE_ONCE() would, so a reader
 * sees each word old or new. Marked like the scalar writers' WRITE_ONCE():
 * KCSAN assumes no plain store wider than a word atomic.
 */
static __always_inline MF_AVX2 void memfilter_bloom_avx2_store(u64 *p, __m256i v)
{
	/* Lockless readers' loads race with this store by design. */
	data_race(*(__m256i *)p = v);
}

/*
 * The 64-bit words of the 4 at @blk missing bits of @pat, bit w for word
 * w (a lockless read: the insert that follows ORs only those).
 */
static __always_inline MF_AVX2 unsigned int
memfilter_bloom_avx2_missing(const u64 *blk, __m256i pat)
{
	__m256i got = _mm256_and_si256(pat, memfilter_bloom_avx2_load(blk));

	return memfilter_bloom_avx2_mask(_mm256_cmpeq_epi64(got, pat)) ^ 0xf;
}

/* One relaxed atomic OR of @pat[w] into @blk[w] for each bit w of @miss. */
static __always_inline void memfilter_bloom_avx2_or_words(u64 *blk, const u64 *pat,
							  unsigned int miss)
{
	do {
		unsigned int w = __builtin_ctz(miss);

		memfilter_atomic_or64(&blk[w], pat[w]);
		miss &= miss - 1;
	} while (miss);
}

/*
 * Insert pattern @lo, @hi into block @blk, safe against concurrent
 * inserters (as mf_bloom_set()); returns whether every bit was set before.
 */
static __always_inline MF_AVX2 bool
memfilter_bloom_avx2_set_pattern(u64 *blk, __m256i lo, __m256i hi)
{
	/* Stored whole below before any read: no auto-var-init zeroing. */
	u64 pat[MEMFILTER_BLOOM_BLOCK_WORDS] __aligned(32) __uninitialized;
	unsigned int miss;

	/* Words whose pattern bits are all set already: skip them. */
	miss = memfilter_bloom_avx2_missing(blk, lo) |
	       memfilter_bloom_avx2_missing(blk + 4, hi) << 4;
	if (!miss)
		return true;
	_mm256_store_si256((void *)pat, lo);
	_mm256_store_si256((void *)(pat + 4), hi);
	memfilter_bloom_avx2_or_words(blk, pat, miss);
	return false;
}

/* Insert, safe against concurrent inserters (as mf_bloom_set()). */
static __always_inline MF_AVX2 void
memfilter_bloom_avx2_set(const struct memfilter_bloom_avx2 *c, u64 *blk,
			 u64 hash)
{
	__m256i lo, hi;

	memfilter_bloom_avx2_pattern(c, hash, &lo, &hi);
	memfilter_bloom_avx2_set_pattern(blk, lo, hi);
}

/* Insert by the only writer (as mf_bloom_set_exclusive()). */
static __always_inline MF_AVX2 void
memfilter_bloom_avx2_set_exclusive(const struct memfilter_bloom_avx2 *c, u64 *blk, u64 hash)
{
	__m256i lo, hi;

	memfilter_bloom_avx2_pattern(c, hash, &lo, &hi);
	lo = _mm256_or_si256(lo, _mm256_load_si256((void *)blk));
	hi = _mm256_or_si256(hi, _mm256_load_si256((void *)(blk + 4)));
	memfilter_bloom_avx2_store(blk, lo);
	memfilter_bloom_avx2_store(blk + 4, hi);
}

/*
 * Test-and-insert pattern @lo, @hi into block @blk under its stripe lock
 * (as mf_bloom_test_and_set_locked(), and like it without a branch on the
 * block): plain loads and stores of both halves; whether every bit was
 * set before. Only lock holders write the block, so words without new
 * bits are stored back unchanged (memfilter_bloom_avx2_store()).
 */
static __always_inline MF_AVX2 bool
memfilter_bloom_avx2_set_locked(u64 *blk, __m256i lo, __m256i hi)
{
	__m256i old_lo = memfilter_bloom_avx2_load(blk);
	__m256i old_hi = memfilter_bloom_avx2_load(blk + 4);
	bool had = _mm256_testc_si256(old_lo, lo) & _mm256_testc_si256(old_hi, hi);

	memfilter_bloom_avx2_store(blk, _mm256_or_si256(old_lo, lo));
	memfilter_bloom_avx2_store(blk + 4, _mm256_or_si256(old_hi, hi));
	return had;
}

/*
 * Does block @blk hold every bit of pattern @lo, @hi? The pattern's bits
 * missing from the block, both halves, in one VPTEST.
 */
static __always_inline MF_AVX2 bool
memfilter_bloom_avx2_has_pattern(const u64 *blk, __m256i lo, __m256i hi)
{
	__m256i miss = _mm256_or_si256(_mm256_andnot_si256(memfilter_bloom_avx2_load(blk), lo),
				       _mm256_andnot_si256(memfilter_bloom_avx2_load(blk + 4),
							   hi));

	return _mm256_testz_si256(miss, miss);
}

/* Query (as mf_bloom_test()). */
static __always_inline MF_AVX2 bool
memfilter_bloom_avx2_test(const struct memfilter_bloom_avx2 *c,
			  const u64 *blk, u64 hash)
{
	__m256i lo, hi;

	memfilter_bloom_avx2_pattern(c, hash, &lo, &hi);
	return memfilter_bloom_avx2_has_pattern(blk, lo, hi);
}

/*
 * SPLIT32 (bloom.h): a key's whole 256-bit pattern, one bit per 32-bit
 * lane, (x * salt[i]) >> 27 shifted into lane i: one register, the
 * layout of fastfilter_cpp's SimdBlockFilter.
 */
static __always_inline MF_AVX2 __m256i
memfilter_split32_avx2_pattern(const struct memfilter_bloom_avx2 *c, u64 hash)
{
	__m256i bit = _mm256_srli_epi32(_mm256_mullo_epi32(_mm256_set1_epi32((u32)hash),
							   c->salt), 27);

	return _mm256_sllv_epi32(c->one32, bit);
}

/* SPLIT32: does block @blk hold every bit of @pat? One VPTEST. */
static __always_inline MF_AVX2 bool memfilter_split32_avx2_has(const u64 *blk, __m256i pat)
{
	return _mm256_testc_si256(memfilter_bloom_avx2_load(blk), pat);
}

/*
 * SPLIT32: insert @pat into @blk, safe against concurrent inserters (an
 * atomic OR of each 64-bit word still missing bits); whether every bit
 * was set before.
 */
static __always_inline MF_AVX2 bool memfilter_split32_avx2_set(u64 *blk, __m256i pat)
{
	/* Stored whole below before any read: no auto-var-init zeroing. */
	u64 p[MEMFILTER_BLOOM_SPLIT32_WORDS] __aligned(32) __uninitialized;
	unsigned int miss = memfilter_bloom_avx2_missing(blk, pat);

	if (!miss)
		return true;
	_mm256_store_si256((void *)p, pat);
	memfilter_bloom_avx2_or_words(blk, p, miss);
	return false;
}

/* SPLIT32: insert by the only writer: one VPOR and one store. */
static __always_inline MF_AVX2 void memfilter_split32_avx2_set_exclusive(u64 *blk, __m256i pat)
{
	memfilter_bloom_avx2_store(blk, _mm256_or_si256(pat, _mm256_load_si256((void *)blk)));
}

/*
 * SPLIT32: test-and-insert under the block's stripe lock, without a
 * branch on the block (as memfilter_bloom_avx2_set_locked()).
 */
static __always_inline MF_AVX2 bool memfilter_split32_avx2_set_locked(u64 *blk, __m256i pat)
{
	__m256i old = memfilter_bloom_avx2_load(blk);
	bool had = _mm256_testc_si256(old, pat);

	memfilter_bloom_avx2_store(blk, _mm256_or_si256(old, pat));
	return had;
}

#endif /* _MEMFILTER_BLOOM_AVX2_H */
