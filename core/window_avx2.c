// SPDX-License-Identifier: GPL-2.0
/*
 * AVX2 batch paths of memfilter's window filter (window.h), x86-64 only. A
 * key's 512-bit pattern is built once in two YMM registers (bloom_avx2.h)
 * and applied to each of its G adjacent blocks: a query is two 32-byte
 * loads and two VPTESTs per generation, stopping at the first that holds
 * the key; an insert ORs, atomically, only the words of the current
 * generation's block still missing bits; test-and-add does both in one
 * pass. Answers and tables are bit for bit those of the scalar code in
 * window.c, and the memory-ordering rules at the top of window.c hold
 * unchanged (each aligned 8-byte lane of a vector load is read whole).
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

/* @op on one key's group; returns whether it was present before. */
static __always_inline MF_AVX2 bool
mf_window_avx2_do(const struct memfilter_bloom_avx2 *c, u64 *grp, u64 hash, u32 gens, u32 cur,
		  enum memfilter_window_op op)
{
	bool hit = false;
	__m256i lo, hi;
	u32 j;

	memfilter_bloom_avx2_pattern(c, hash, &lo, &hi);
	if (op == MEMFILTER_WINDOW_OP_ADD)
		return memfilter_bloom_avx2_set_pattern(grp + cur * MEMFILTER_BLOOM_BLOCK_WORDS,
						 lo, hi);
	for (j = 0; j < gens; j++) {
		u64 *blk = grp + j * MEMFILTER_BLOOM_BLOCK_WORDS;

		if (op == MEMFILTER_WINDOW_OP_TEST_AND_ADD && j == cur)
			hit |= memfilter_bloom_avx2_set_pattern(blk, lo, hi);
		else if (memfilter_bloom_avx2_has_pattern(blk, lo, hi))
			hit = true;
		if (hit && op == MEMFILTER_WINDOW_OP_CONTAINS)
			break;
	}
	return hit;
}

static __always_inline MF_AVX2 void
mf_window_avx2(struct memfilter_window *w, const u64 *hashes, size_t n,
	       unsigned long *result_bitmap, u32 cur, u32 gens, enum memfilter_window_op op)
{
	struct memfilter_bloom_avx2 c;
	unsigned long acc = 0;
	size_t i;

	memfilter_bloom_avx2_init(&c, w->p.gen.k);
	for (i = 0; i < MEMFILTER_BLOOM_AHEAD && i < n; i++)
		memfilter_window_prefetch(w, hashes, i, n, cur, gens, op);
	for (i = 0; i < n; i++) {
		unsigned long hit;

		memfilter_window_prefetch(w, hashes, i + MEMFILTER_BLOOM_AHEAD, n,
					  cur, gens, op);
		hit = mf_window_avx2_do(&c, memfilter_window_group_ptr(w, hashes[i]),
					hashes[i], gens, cur, op);
		if (op == MEMFILTER_WINDOW_OP_ADD)
			continue;
		acc |= hit << (i % BITS_PER_LONG);
		if (i % BITS_PER_LONG == BITS_PER_LONG - 1 || i == n - 1) {
			result_bitmap[i / BITS_PER_LONG] = acc;
			acc = 0;
		}
	}
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
	u32 gens = w->p.generations;

	/* G = 4, the common case, gets loops unrolled for it. */
	if (op == MEMFILTER_WINDOW_OP_ADD)
		mf_window_avx2(w, hashes, n, NULL, cur, gens,
			       MEMFILTER_WINDOW_OP_ADD);
	else if (op == MEMFILTER_WINDOW_OP_CONTAINS && gens == 4)
		mf_window_avx2(w, hashes, n, result_bitmap, cur, 4,
			       MEMFILTER_WINDOW_OP_CONTAINS);
	else if (op == MEMFILTER_WINDOW_OP_CONTAINS)
		mf_window_avx2(w, hashes, n, result_bitmap, cur, gens,
			       MEMFILTER_WINDOW_OP_CONTAINS);
	else if (gens == 4)
		mf_window_avx2(w, hashes, n, result_bitmap, cur, 4,
			       MEMFILTER_WINDOW_OP_TEST_AND_ADD);
	else
		mf_window_avx2(w, hashes, n, result_bitmap, cur, gens,
			       MEMFILTER_WINDOW_OP_TEST_AND_ADD);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_window_hashes_avx2);
