/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * memfilter's window filter: a blocked Bloom filter made of G generations
 * (2..16) that forgets keys by age. Inserts go to the current generation;
 * a query is positive if any generation holds the key; a rotation clears
 * the oldest generation and makes it current. A key added at the start of
 * rotation period r is present until rotation r + G clears it: through at
 * least G - 1 whole periods.
 *
 * Layout: every generation has the same shape, that of a Bloom filter of
 * ngroups blocks of either layout (bloom.h: 64-byte LINE64 or 32-byte
 * SPLIT32 blocks), and keys map to the same block index and the same
 * bits in each one. The G blocks of one index are stored next to each
 * other, a group of G blocks: group g's block of generation j is block
 * g * G + j of the table. So a key touches G adjacent blocks (G cache
 * lines for LINE64, about G / 2 for SPLIT32; one DRAM page, and the
 * adjacent-line prefetcher helps), not G random ones, and the key's bit
 * pattern is computed once for all of them.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_WINDOW_H
#define _MEMFILTER_WINDOW_H

#include <linux/memfilter.h>

#include "bloom.h"

#define MEMFILTER_WINDOW_MIN_GENS	MEMFILTER_WINDOW_MIN_GENERATIONS
#define MEMFILTER_WINDOW_MAX_GENS	MEMFILTER_WINDOW_MAX_GENERATIONS
/* Groups cleared per memfilter_window_clear_gen() call by the rotators. */
#define MEMFILTER_WINDOW_CLEAR_CHUNK	4096

/**
 * struct memfilter_window_params - the shape of a window filter
 * @gen: the shape of each generation: @gen.capacity keys per generation,
 *	@gen.nblocks blocks (the number of groups), @gen.k probes,
 *	@gen.bits_per_key_q4, @gen.layout, @gen.hasher
 * @generations: G, MEMFILTER_WINDOW_MIN_GENS..MEMFILTER_WINDOW_MAX_GENS
 * @flags: MEMFILTER_WINDOW_* bits (uapi): how the owner rotates it
 * @period_ms: the owner's rotation period, 0 for none
 */
struct memfilter_window_params {
	struct memfilter_bloom_params gen;
	u32 generations;
	u32 flags;
	u64 period_ms;
};

/**
 * struct memfilter_window - a window filter
 * @p: its shape
 * @words: memfilter_window_bytes() of table, 64-byte aligned, zeroed,
 *	allocated and freed by the caller
 * @cur: the current generation, written only by the rotator with
 *	memfilter_window_publish()
 * @born: when each generation last became current, in milliseconds of
 *	memfilter_now_ms() (or a clock the caller injects), modulo 2^64 (a
 *	generation loaded from an image may predate the clock: compare with
 *	signed differences); written by the rotator
 * @gen_keys: keys added to each generation since it was last cleared,
 *	counted by the table's add operations; never above the capacity
 *	when the window rotates by count (claimed before the bits are set)
 */
struct memfilter_window {
	struct memfilter_window_params p;
	u64 *words;
	u32 cur;
	u64 born[MEMFILTER_WINDOW_MAX_GENS];
	u64 gen_keys[MEMFILTER_WINDOW_MAX_GENS];
};

/*
 * The group (G adjacent blocks) of a hash, @layout a constant where the
 * caller has one, else @w's.
 */
static __always_inline u64 *
memfilter_window_group_ptr_of(const struct memfilter_window *w, u64 hash, u32 layout)
{
	return w->words + memfilter_mulhi64(hash, w->p.gen.nblocks) *
			  w->p.generations * memfilter_bloom_block_words(layout);
}

/* The group (G adjacent blocks) of a hash. */
static __always_inline u64 *memfilter_window_group_ptr(const struct memfilter_window *w,
						       u64 hash)
{
	return memfilter_window_group_ptr_of(w, hash, w->p.gen.layout);
}

/* What a batch call does with each key. */
enum memfilter_window_op {
	MEMFILTER_WINDOW_OP_CONTAINS,
	MEMFILTER_WINDOW_OP_ADD,
	MEMFILTER_WINDOW_OP_TEST_AND_ADD,
};

/*
 * Prefetch every line of group @grp; @gens is the filter's generation
 * count and @layout its layout (constants where the caller specialises
 * for them: no loop then). SPLIT32 blocks are 32 bytes, two to a line:
 * every other block starts one, wherever the group starts (blocks 0, 2,
 * 4, ... land in distinct lines that cover the group).
 */
static __always_inline void memfilter_window_prefetch_group(const u64 *grp, u32 gens,
							    u32 layout)
{
	u32 j, step = layout == MEMFILTER_BLOOM_SPLIT32 ? 2 : 1;

	for (j = 0; j < gens; j += step)
		memfilter_prefetch(grp + j * memfilter_bloom_block_words(layout));
}

/*
 * Prefetch the lines of hashes[@i]'s group that @op reads, if @i < @n;
 * @gens is @w's generation count and @layout its layout (constants in
 * specialised loops).
 */
static __always_inline void
memfilter_window_prefetch(const struct memfilter_window *w, const u64 *hashes,
			  size_t i, size_t n, u32 cur, u32 gens, u32 layout,
			  enum memfilter_window_op op)
{
	const u64 *grp;

	if (i >= n)
		return;
	grp = memfilter_window_group_ptr_of(w, hashes[i], layout);
	if (op == MEMFILTER_WINDOW_OP_ADD) {
		memfilter_prefetch(grp + cur * memfilter_bloom_block_words(layout));
		return;
	}
	memfilter_window_prefetch_group(grp, gens, layout);
}

int memfilter_window_params_init(struct memfilter_window_params *p, u64 capacity,
				 u32 generations, u64 fpr_ppb,
				 u32 bits_per_key_q4, u32 layout);
u64 memfilter_window_bytes(const struct memfilter_window_params *p);
void memfilter_window_init(struct memfilter_window *w,
			   const struct memfilter_window_params *p, u64 *words,
			   u64 now);

u32 memfilter_window_add_hashes(struct memfilter_window *w, const u64 *hashes,
				size_t n);
void memfilter_window_contains_hashes(const struct memfilter_window *w,
				      const u64 *hashes, size_t n,
				      unsigned long *result_bitmap);
u32 memfilter_window_test_and_add_hashes(struct memfilter_window *w,
					 const u64 *hashes, size_t n,
					 unsigned long *result_bitmap);
u32 memfilter_window_add_key(struct memfilter_window *w, const void *key,
			     size_t len);
bool memfilter_window_contains_key(const struct memfilter_window *w, const void *key,
				   size_t len);
bool memfilter_window_test_and_add_key(struct memfilter_window *w, const void *key,
				       size_t len, u32 *gen);

u32 memfilter_window_current(const struct memfilter_window *w);
u32 memfilter_window_oldest(const struct memfilter_window *w);
void memfilter_window_clear_gen(struct memfilter_window *w, u32 gen, u64 first,
				u64 n);
void memfilter_window_publish(struct memfilter_window *w, u32 gen, u64 now);
void memfilter_window_rotate_exclusive(struct memfilter_window *w, u64 now);

u64 memfilter_window_gen_popcount(const struct memfilter_window *w, u32 gen);
void memfilter_window_gen_info(const struct memfilter_window *w, u64 now,
			       struct memfilter_generation *g);
u64 memfilter_window_model_fpr_ppb(const struct memfilter_window_params *p,
				   const u64 *gen_keys);

/* The two implementations behind the batch calls, for tests. */
void memfilter_window_hashes_scalar(struct memfilter_window *w, const u64 *hashes,
				    size_t n, unsigned long *result_bitmap,
				    u32 cur, enum memfilter_window_op op);
/* x86-64 only (window_avx2.c); callers hold memfilter_simd_begin(), n <= MEMFILTER_SIMD_CHUNK. */
void memfilter_window_hashes_avx2(struct memfilter_window *w, const u64 *hashes,
				  size_t n, unsigned long *result_bitmap,
				  u32 cur, enum memfilter_window_op op);
/* x86-64 only (window_avx2.c); callers hold memfilter_simd_begin(). */
bool memfilter_window_one_avx2(struct memfilter_window *w, u64 *grp, u64 hash,
			       u32 cur, enum memfilter_window_op op);

#endif /* _MEMFILTER_WINDOW_H */
