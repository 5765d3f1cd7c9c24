// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * AVX2 batch paths of memfilter's window filter (window.h), x86-64 only. A
 * key's 512-bit LINE64 pattern is built once in two YMM registers
 * (bloom_avx2.h), a SPLIT32 one in one, and applied to each of its G
 * adjacent blocks: a LINE64 query is two VPORs with the pattern's
 * complement (the loads folded in), a VPAND and a VPTEST per generation,
 * a SPLIT32 one a VPTEST with the load folded in, stopping at the first
 * that holds the key; an insert
 * ORs, atomically, only the words of the current generation's block
 * still missing bits; test-and-add does both in one pass. Answers and
 * tables are bit for bit those of the scalar code in window.c, and the
 * memory-ordering rules at the top of window.c hold unchanged (each
 * aligned 8-byte lane of a vector load is read whole).
 *
 * As in bloom_avx2.c, only MF_AVX2 (target("avx2")) functions use vector
 * registers; the file is built with the kernel's usual no-FPU flags, and
 * its entry point runs only between memfilter_simd_begin() and
 * memfilter_simd_end() (scripts/check-simd.sh checks the .ko).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include "bloom_avx2.h"
#include "window.h"

/*
 * Does block @blk hold every bit of a pattern, given its complement @nlo,
 * @nhi? Each half of the block ORed with the complement (one VPOR with a
 * memory operand), the halves ANDed, one VPTEST against all ones: four
 * instructions for a generation, where testing each half (two loads, two
 * VPTEST, two SETB, a TEST) takes seven and more.
 */
static __always_inline MF_AVX2 bool
mf_window_avx2_has(const u64 *blk, __m256i nlo, __m256i nhi, __m256i ones)
{
	__m256i t = _mm256_and_si256(_mm256_or_si256(nlo, memfilter_bloom_avx2_load(blk)),
				     _mm256_or_si256(nhi, memfilter_bloom_avx2_load(blk + 4)));

	return _mm256_testc_si256(t, ones);
}

/*
 * @op with a key's pattern @lo, @hi on its group; returns whether it was
 * present before. A query or test-and-add tests the generations in order
 * and stops at the first that holds the key (measured faster than testing
 * all G without a branch between them, absent keys included:
 * bench/results/window.md); a test-and-add then sets the key's bits in the
 * current one.
 */
static __always_inline MF_AVX2 bool
mf_window_avx2_apply(u64 *grp, __m256i lo, __m256i hi, u32 gens, u32 cur,
		     enum memfilter_window_op op)
{
	__m256i nlo, nhi, ones = _mm256_set1_epi64x(-1);
	bool hit = false;
	u32 j;

	if (op == MEMFILTER_WINDOW_OP_ADD)
		return memfilter_bloom_avx2_set_pattern(grp + cur * MEMFILTER_BLOOM_BLOCK_WORDS,
						 lo, hi);
	nlo = _mm256_xor_si256(lo, ones);
	nhi = _mm256_xor_si256(hi, ones);
	for (j = 0; j < gens; j++) {
		hit = mf_window_avx2_has(grp + j * MEMFILTER_BLOOM_BLOCK_WORDS, nlo, nhi, ones);
		if (hit)
			break;
	}
	if (op == MEMFILTER_WINDOW_OP_TEST_AND_ADD)
		memfilter_bloom_avx2_set_pattern(grp + cur * MEMFILTER_BLOOM_BLOCK_WORDS, lo, hi);
	return hit;
}

/* mf_window_avx2_apply() for a SPLIT32 pattern @pat. */
static __always_inline MF_AVX2 bool
mf_split32_window_avx2_apply(u64 *grp, __m256i pat, u32 gens, u32 cur,
			     enum memfilter_window_op op)
{
	u64 *now = grp + cur * MEMFILTER_BLOOM_SPLIT32_WORDS;
	bool hit = false;
	u32 j;

	if (op == MEMFILTER_WINDOW_OP_ADD)
		return memfilter_split32_avx2_set(now, pat);
	for (j = 0; j < gens; j++) {
		hit = memfilter_split32_avx2_has(grp + j * MEMFILTER_BLOOM_SPLIT32_WORDS, pat);
		if (hit)
			break;
	}
	if (op == MEMFILTER_WINDOW_OP_TEST_AND_ADD)
		memfilter_split32_avx2_set(now, pat);
	return hit;
}

/*
 * @op on one key's group, its pattern built from @c (the batch paths);
 * @layout a constant.
 */
static __always_inline MF_AVX2 bool
mf_window_avx2_do(const struct memfilter_bloom_avx2 *c, u64 *grp, u64 hash, u32 gens, u32 cur,
		  u32 layout, enum memfilter_window_op op)
{
	__m256i lo, hi;

	if (layout == MEMFILTER_BLOOM_SPLIT32)
		return mf_split32_window_avx2_apply(grp, memfilter_split32_avx2_pattern(c, hash),
						    gens, cur, op);
	memfilter_bloom_avx2_pattern(c, hash, &lo, &hi);
	return mf_window_avx2_apply(grp, lo, hi, gens, cur, op);
}

static __always_inline MF_AVX2 void
mf_window_avx2(struct memfilter_window *w, const u64 *hashes, size_t n,
	       unsigned long *result_bitmap, u32 cur, u32 gens, u32 layout,
	       enum memfilter_window_op op)
{
	/* Locals: the result stores cannot make the compiler reload them. */
	u64 *words = w->words, ngroups = w->p.gen.nblocks;
	unsigned int nw = memfilter_bloom_block_words(layout);
	struct memfilter_bloom_avx2 c;
	size_t i, j, run;

	memfilter_bloom_avx2_init(&c, w->p.gen.k);
	for (i = 0; i < MEMFILTER_BLOOM_AHEAD && i < n; i++)
		memfilter_window_prefetch(w, hashes, i, n, cur, gens, layout, op);
	/* Keys in runs of up to BITS_PER_LONG, one result word each. */
	for (i = 0; i < n; i += run) {
		unsigned long acc = 0;

		run = min(n - i, (size_t)BITS_PER_LONG);
		for (j = 0; j < run; j++) {
			u64 h = hashes[i + j];
			u64 *grp = words + memfilter_mulhi64(h, ngroups) * gens * nw;

			memfilter_window_prefetch(w, hashes, i + j + MEMFILTER_BLOOM_AHEAD,
						  n, cur, gens, layout, op);
			acc |= (unsigned long)mf_window_avx2_do(&c, grp, h, gens, cur,
								layout, op) << j;
		}
		if (op != MEMFILTER_WINDOW_OP_ADD)
			result_bitmap[i / BITS_PER_LONG] = acc;
	}
}

/*
 * mf_window_avx2() with @op, @layout and (G = 4, the common case, gets
 * loops unrolled for it) @gens constants.
 */
static __always_inline MF_AVX2 void
mf_window_avx2_of(struct memfilter_window *w, const u64 *hashes, size_t n,
		  unsigned long *result_bitmap, u32 cur, u32 layout,
		  enum memfilter_window_op op)
{
	u32 gens = w->p.generations;

	if (op == MEMFILTER_WINDOW_OP_ADD)
		mf_window_avx2(w, hashes, n, NULL, cur, gens, layout,
			       MEMFILTER_WINDOW_OP_ADD);
	else if (op == MEMFILTER_WINDOW_OP_CONTAINS && gens == 4)
		mf_window_avx2(w, hashes, n, result_bitmap, cur, 4, layout,
			       MEMFILTER_WINDOW_OP_CONTAINS);
	else if (op == MEMFILTER_WINDOW_OP_CONTAINS)
		mf_window_avx2(w, hashes, n, result_bitmap, cur, gens, layout,
			       MEMFILTER_WINDOW_OP_CONTAINS);
	else if (gens == 4)
		mf_window_avx2(w, hashes, n, result_bitmap, cur, 4, layout,
			       MEMFILTER_WINDOW_OP_TEST_AND_ADD);
	else
		mf_window_avx2(w, hashes, n, result_bitmap, cur, gens, layout,
			       MEMFILTER_WINDOW_OP_TEST_AND_ADD);
}

/**
 * memfilter_window_hashes_avx2() - one section of a batch call, AVX2
 * @w: the filter (not written for MEMFILTER_WINDOW_OP_CONTAINS)
 * @hashes: the keys' hashes
 * @n: how many, at most MEMFILTER_SIMD_CHUNK
 * @result_bitmap: as memfilter_window_hashes_scalar()
 * @cur: the generation to insert into
 * @op: what to do with each key
 *
 * Context: between memfilter_simd_begin() (true) and memfilter_simd_end(); otherwise as
 * the batch call @op stands for.
 */
MF_AVX2 void
memfilter_window_hashes_avx2(struct memfilter_window *w, const u64 *hashes, size_t n,
			     unsigned long *result_bitmap, u32 cur, enum memfilter_window_op op)
{
	if (w->p.gen.layout == MEMFILTER_BLOOM_SPLIT32)
		mf_window_avx2_of(w, hashes, n, result_bitmap, cur,
				  MEMFILTER_BLOOM_SPLIT32, op);
	else
		mf_window_avx2_of(w, hashes, n, result_bitmap, cur,
				  MEMFILTER_BLOOM_LINE64, op);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_window_hashes_avx2);

/**
 * memfilter_window_one_avx2() - one key's query or test-and-add, AVX2
 * @w: the filter (not written for MEMFILTER_WINDOW_OP_CONTAINS)
 * @grp: the key's group (memfilter_window_group_ptr())
 * @hash: the key's hash
 * @cur: the generation to insert into
 * @op: MEMFILTER_WINDOW_OP_CONTAINS or MEMFILTER_WINDOW_OP_TEST_AND_ADD
 *
 * The single-key path's AVX2 half: the pattern built once, its window
 * from a table (memfilter_bloom_avx2_pattern_table()), tested against
 * each generation's block in order; bit for bit the scalar path's.
 *
 * Context: between memfilter_simd_begin() (true) and memfilter_simd_end();
 * otherwise as memfilter_window_contains_key() or
 * memfilter_window_test_and_add_key().
 * Return: whether the key may have been present before.
 */
MF_AVX2 bool memfilter_window_one_avx2(struct memfilter_window *w, u64 *grp,
				       u64 hash, u32 cur,
				       enum memfilter_window_op op)
{
	u32 gens = w->p.generations;
	__m256i lo, hi;

	if (w->p.gen.layout == MEMFILTER_BLOOM_SPLIT32) {
		struct memfilter_bloom_avx2 c;

		memfilter_bloom_avx2_init(&c, MEMFILTER_BLOOM_SPLIT32_K);
		lo = memfilter_split32_avx2_pattern(&c, hash);
		if (op == MEMFILTER_WINDOW_OP_CONTAINS)
			return gens == 4 ?
			       mf_split32_window_avx2_apply(grp, lo, 4, cur,
							    MEMFILTER_WINDOW_OP_CONTAINS) :
			       mf_split32_window_avx2_apply(grp, lo, gens, cur,
							    MEMFILTER_WINDOW_OP_CONTAINS);
		return mf_split32_window_avx2_apply(grp, lo, gens, cur,
						    MEMFILTER_WINDOW_OP_TEST_AND_ADD);
	}
	memfilter_bloom_avx2_pattern_table(hash, w->p.gen.k, &lo, &hi);
	if (op == MEMFILTER_WINDOW_OP_CONTAINS)
		return gens == 4 ?
		       mf_window_avx2_apply(grp, lo, hi, 4, cur,
					    MEMFILTER_WINDOW_OP_CONTAINS) :
		       mf_window_avx2_apply(grp, lo, hi, gens, cur,
					    MEMFILTER_WINDOW_OP_CONTAINS);
	return mf_window_avx2_apply(grp, lo, hi, gens, cur,
				    MEMFILTER_WINDOW_OP_TEST_AND_ADD);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_window_one_avx2);
