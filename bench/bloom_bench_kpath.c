// SPDX-License-Identifier: GPL-2.0
/*
 * The module's single-key path in userspace, for bloom_bench: this file is
 * built as the kernel builds the module (-O2 for generic x86-64, no SSE or
 * AVX, MEMFILTER_SIMD_CHEAP 0: the kernel's single keys are scalar, a SIMD
 * section costs more than a key), and its one call per key is shaped as
 * memfilter_contains_inline() (module/filter/filter.h) is in the netfilter hook
 * and the kfuncs, without the per-CPU counters: the type table's
 * memfilter_state_contains_key() on a key whose length the caller holds
 * in a variable. The twin of the "in-module inline path" the speed goals
 * name: bloom_bench's "in-module path" rows (bench_layouts(), every run and
 * --layouts). The one call that path makes out of line
 * for a LINE64 filter, memfilter_bloom_contains_hash_scalar(), is this
 * file's copy of it (the same inline body, bloom_internal.h), so that it
 * too is built as the kernel builds it, not with the other objects' flags.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#define memfilter_bloom_contains_hash_scalar mfb_kpath_contains_hash_scalar
#include "bloom_internal.h"
#include "filter_type.h"
#include "bloom_bench.h"

/* memfilter_bloom_contains_hash_scalar() (core/bloom.c), built here. */
noinline bool mfb_kpath_contains_hash_scalar(const struct memfilter_bloom *b, u64 hash)
{
	return mf_bloom_key_op(b, hash, MF_BLOOM_TEST);
}

#if MEMFILTER_SIMD_CHEAP
#error "bloom_bench_kpath.c is built with -DMEMFILTER_SIMD_CHEAP=0 (Makefile)"
#endif

/* In the same union as bloom_bench_mf.c's struct mfb_bloom starts with. */
struct mfb_bloom_kpath {
	union memfilter_state s;
};

/* The hook's call, one key: not inlined into the loop, as in a hook. */
static noinline bool mfb_kpath_one(const union memfilter_state *s,
				   const void *key, u32 len)
{
	return memfilter_state_contains_key(&memfilter_bloom_ops, s, key, len);
}

u64 mfb_bloom_query_kpath(const struct mfb_bloom *m, const u64 *k, size_t n)
{
	const struct mfb_bloom_kpath *b = (const void *)m;
	/* The key's length as the hook has it: a value, not a constant. */
	volatile u32 len = 8;
	u32 l = len;
	u64 c = 0;

	for (size_t i = 0; i < n; i++)
		c += mfb_kpath_one(&b->s, &k[i], l);
	return c;
}
