/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * memfilter's growing filter: the scalable Bloom filter of Almeida,
 * Baquero, Preguica and Hutchison (2007), RedisBloom's EXPANSION. A list
 * of blocked Bloom sub-filters (bloom.h): inserts go to the newest; when
 * it holds its capacity, the next one takes over, s times larger and at r
 * times the false-positive rate, so that the rates sum to less than the
 * bound asked for: sub-filter i holds capacity * s^i keys at
 * fpr * (1 - r) * r^i, and sum_i fpr * (1 - r) * r^i < fpr. A query is
 * positive if any sub-filter holds the key.
 *
 * Memory comes from the owner, never from here: the first sub-filters
 * live in the filter's table memory (struct memfilter_type_ops.mem_bytes),
 * the later ones in memory the owner attaches with
 * memfilter_grow_attach() when memfilter_grow_next_bytes() says it can,
 * in process context (the module from a work item or an ioctl, never from
 * an insert: inserts may run in softirq context). An insert that finds
 * the newest sub-filter full and none attached after it stops with
 * -ENOSPC; the owner attaches one and retries, or reports it.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_GROW_H
#define _MEMFILTER_GROW_H

#include <linux/memfilter.h>

#include "bloom.h"

/*
 * Compare-and-exchange on the counters below, lock-free in both builds:
 * true if *@p held *@old and now holds @new, else *@old is what it held.
 * memfilter_grow_cmpxchg() is for @active (32 bits), _cmpxchg64() for
 * @keys: 32-bit kernels have no try_cmpxchg() of 64 bits.
 */
#ifdef __KERNEL__
#define memfilter_grow_cmpxchg(p, old, new)	try_cmpxchg(p, old, new)
#define memfilter_grow_cmpxchg64(p, old, new)	try_cmpxchg64(p, old, new)
#else
#define memfilter_grow_cmpxchg(p, old, new) \
	__atomic_compare_exchange_n(p, old, new, false, __ATOMIC_SEQ_CST, \
				    __ATOMIC_RELAXED)
#define memfilter_grow_cmpxchg64(p, old, new) \
	memfilter_grow_cmpxchg(p, old, new)
#endif

/**
 * struct memfilter_grow_params - the shape of a growing filter
 * @sub0: the first sub-filter's shape, hasher included (every sub-filter
 *	hashes alike)
 * @fpr_ppb: the bound on the whole filter's false-positive rate
 * @max_subs: the most sub-filters, 1..MEMFILTER_GROW_MAX_SUBS
 * @factor: s, each sub-filter's capacity over the previous one's
 * @ratio_pct: r in percent, each sub-filter's rate over the previous one's
 * @nsubs: sub-filters in the filter's table memory: 1 at creation, the
 *	image's count at load; in a live filter's state, every sub-filter
 *	made so far (those attached later included)
 */
struct memfilter_grow_params {
	struct memfilter_bloom_params sub0;
	u64 fpr_ppb;
	u32 max_subs;
	u32 factor;
	u32 ratio_pct;
	u32 nsubs;
};

/**
 * struct memfilter_grow - a growing filter
 * @p: its shape; @p.nsubs is written by the owner's grower only
 *	(memfilter_grow_attach(), with release order)
 * @sec: the image state section at the start of the table memory
 * @sub: the sub-filters made so far, 0 .. @p.nsubs - 1
 * @keys: keys claimed by inserts into each sub-filter (at most its
 *	capacity; counted before the bits are set)
 * @active: sub-filters in use, 1 .. @p.nsubs: queries read @sub[0 ..
 *	@active - 1], inserts go to @sub[@active - 1]; only ever grows, by
 *	compare-and-exchange, except in a clear
 */
struct memfilter_grow {
	struct memfilter_grow_params p;
	void *sec;
	struct memfilter_bloom sub[MEMFILTER_GROW_MAX_SUBS];
	u64 keys[MEMFILTER_GROW_MAX_SUBS];
	u32 active;
};

int memfilter_grow_params_init(struct memfilter_grow_params *p, u64 capacity,
			       u64 fpr_ppb, u32 max_subs, u32 factor,
			       u32 ratio_pct, u32 layout);
int memfilter_grow_sub_params(const struct memfilter_grow_params *p, u32 i,
			      struct memfilter_bloom_params *sub);
u64 memfilter_grow_bytes(const struct memfilter_grow_params *p);
void memfilter_grow_init(struct memfilter_grow *g,
			 const struct memfilter_grow_params *p, void *mem);
u32 memfilter_grow_active(const struct memfilter_grow *g);

u64 memfilter_grow_next_bytes(const struct memfilter_grow *g);
bool memfilter_grow_wants_next(const struct memfilter_grow *g);
void memfilter_grow_attach(struct memfilter_grow *g, void *mem);

int memfilter_grow_add_hashes(struct memfilter_grow *g, const u64 *hashes,
			      u32 n, u32 *done, bool exclusive);
int memfilter_grow_test_and_add_hashes(struct memfilter_grow *g,
				       const u64 *hashes, u32 n,
				       unsigned long *result, u32 *done);
void memfilter_grow_contains_hashes(const struct memfilter_grow *g,
				    const u64 *hashes, u32 n,
				    unsigned long *result);
bool memfilter_grow_contains_hash(const struct memfilter_grow *g, u64 h);
int memfilter_grow_test_and_add_hash(struct memfilter_grow *g, u64 h);
u64 memfilter_grow_model_fpr_ppb(const struct memfilter_grow *g);

#endif /* _MEMFILTER_GROW_H */
