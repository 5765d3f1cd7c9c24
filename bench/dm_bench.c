// SPDX-License-Identifier: GPL-2.0
/*
 * The memfilter-dedup target's CPU cost per 4 KiB block
 * (module/consumers/dm.c), natively: what every candidate write pays (XXH64 of
 * the block, the 16-byte key's hash under the filter's hasher, one Bloom
 * test-and-add) against what a verify pays besides its read (memcmp of the
 * block with an equal copy: the worst case, it reads both to the end). Blocks
 * in cache (the same 16 over and over) and out of cache (64 MiB of distinct
 * blocks, and for memcmp a second 64 MiB copy); the filter holds 1 Mi
 * keys at 1% FPR (1.2 MiB) plus the blocks' keys. Then the filter work
 * alone, per block, as the target does it since it has single-key calls:
 * memfilter_test_and_add()'s (memfilter_state_test_and_add_key() on the
 * 16-byte key, without RCU and the counters) on a filter made through the
 * type table as memfilterctl makes one by default (XXH3, the default
 * layout), against the batch of one it replaced; the keys are new blocks
 * (a write's usual case), their block hashes computed before timing
 * (built for AVX2, the batch tests and sets a LINE64 block with AVX2, the
 * single-key call with the scalar code the kernel runs).
 * Best of REPS runs, nanoseconds per block. A benchmark, not a test: it
 * asserts nothing but that both ways answer alike.
 *
 *   make bench-dm   (bench/dm_bench [--quick])
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "filter_type.h"
#include "bench_util.h"

#define REPS	9
#define BLOCK	4096
#define FPR_PPB	10000000ULL	/* 1% */

static u8 *db_blocks(size_t n, u64 seed)
{
	u8 *p = aligned_alloc(BLOCK, n * BLOCK);

	if (!p)
		abort();
	for (size_t i = 0; i < n * BLOCK; i += 8) {
		u64 v = bench_splitmix64(&seed);

		memcpy(p + i, &v, 8);
	}
	return p;
}

/* What map() does for a candidate: block hash, key hash, test-and-add. */
static double db_filter(struct memfilter_bloom *b, const u8 *blocks,
			size_t n, size_t nblocks)
{
	static volatile unsigned long sink;
	double best = 1e30;

	for (int r = 0; r < REPS; r++) {
		double t0 = bench_now_ns(), t;

		for (size_t i = 0; i < n; i++) {
			u64 key[2] = { i + (u64)r * n,
				       memfilter_xxh64(blocks + (i % nblocks) * BLOCK,
						       BLOCK, 0) };
			u64 h = memfilter_hash(&b->p.hasher, key, sizeof(key));
			unsigned long bm = 0;

			memfilter_bloom_test_and_add_hashes(b, &h, 1, &bm);
			sink += bm;
		}
		t = (bench_now_ns() - t0) / n;
		if (t < best)
			best = t;
	}
	return best;
}

/* What the verify worker does after its read: compare the block. */
static double db_memcmp(const u8 *a, const u8 *c, size_t n, size_t nblocks)
{
	static volatile int sink;
	double best = 1e30;

	for (int r = 0; r < REPS; r++) {
		double t0 = bench_now_ns(), t;

		for (size_t i = 0; i < n; i++) {
			size_t o = (i % nblocks) * BLOCK;

			sink += memcmp(a + o, c + o, BLOCK);
		}
		t = (bench_now_ns() - t0) / n;
		if (t < best)
			best = t;
	}
	return best;
}

/* A Bloom filter of 1 Mi keys at 1% through the type table, half full. */
struct db_filter {
	const struct memfilter_type_ops *ops;
	union memfilter_state s;
	void *mem;
};

static void db_make(struct db_filter *f, u32 layout)
{
	struct memfilter_create c = {
		.size = sizeof(c), .type = MEMFILTER_TYPE_BLOOM,
		.capacity = 1 << 20, .fpr_ppb = FPR_PPB, .layout = layout,
	};
	union memfilter_params p;
	u64 seed = 7;

	if (memfilter_create_params(&c, &f->ops, &p) ||
	    memfilter_hasher_init(f->ops->hasher(&p), MEMFILTER_HASH_XXH3, 42, NULL))
		abort();
	f->mem = bench_zalloc(f->ops->mem_bytes(&p));
	f->ops->init(&f->s, &p, f->mem);
	for (int i = 0; i < 1 << 19; i++) {
		u64 h = bench_splitmix64(&seed);
		unsigned long res = 0;
		u32 done;

		f->ops->add(&f->s, &h, 1, &res, &done);
	}
}

/*
 * The filter work per block: @n new blocks' keys (block number, the
 * block's hash from @bh), @single: the target's call, else the key's hash
 * and the batch test-and-add of one.
 */
static double db_work(struct db_filter *f, const u64 *bh, size_t n,
		      bool single, u64 *hits)
{
	double best = 1e30;
	u64 acc = 0;

	for (int r = 0; r < REPS; r++) {
		double t0 = bench_now_ns(), t;

		acc = 0;
		for (size_t i = 0; i < n; i++) {
			u64 key[2] = { i + ((u64)r + 1) * n, bh[i] };
			unsigned long bm = 0;
			u32 done;
			u64 h;

			/* A new bio: nothing hoisted out of the loop. */
			asm volatile("" : : "r"(key) : "memory");
			if (single) {
				acc += memfilter_state_test_and_add_key(f->ops, &f->s,
									key, sizeof(key));
				continue;
			}
			h = memfilter_key_hash(f->ops, &f->s, key, sizeof(key));
			f->ops->test_and_add(&f->s, &h, 1, &bm, &done);
			acc += bm;
		}
		t = (bench_now_ns() - t0) / n;
		if (t < best)
			best = t;
	}
	*hits = acc;
	return best;
}

/* The filter work alone, both ways, on a fresh filter each. */
static void db_work_row(const char *what, u32 layout, const u64 *bh, size_t n)
{
	struct db_filter a, b;
	u64 ha, hb;
	double s, o;

	db_make(&a, layout);
	db_make(&b, layout);
	s = db_work(&a, bh, n, true, &ha);
	o = db_work(&b, bh, n, false, &hb);
	if (ha != hb) {
		fprintf(stderr, "dm_bench: the two ways answered differently\n");
		exit(1);
	}
	printf("| %s%s | %.2f | %.2f | %.2f |\n", what,
	       layout ? "" : a.s.bloom.p.layout == MEMFILTER_BLOOM_SPLIT32 ?
	       " (split32)" : " (line64)", s, o, s / o);
	free(a.mem);
	free(b.mem);
}

static void db_row(const char *what, struct memfilter_bloom *b, size_t n,
		   size_t nblocks)
{
	u8 *a = db_blocks(nblocks, 1), *c = malloc(nblocks * BLOCK);
	double f, m;

	if (!c)
		abort();
	memcpy(c, a, nblocks * BLOCK);
	f = db_filter(b, a, n, nblocks);
	m = db_memcmp(a, c, n, nblocks);
	printf("| %s | %.0f | %.0f | %.2fx |\n", what, f, m, f / m);
	free(a);
	free(c);
}

int main(int argc, char **argv)
{
	bool quick = argc > 1 && !strcmp(argv[1], "--quick");
	struct memfilter_bloom b;
	u64 seed = 7, *bh;

	if (memfilter_bloom_params_from_fpr(&b.p, 1 << 20, FPR_PPB, MEMFILTER_BLOOM_LINE64) ||
	    memfilter_hasher_init(&b.p.hasher, MEMFILTER_HASH_XXH64, 42, NULL))
		abort();
	b.words = aligned_alloc(64, memfilter_bloom_bytes(&b.p));
	if (!b.words)
		abort();
	memset(b.words, 0, memfilter_bloom_bytes(&b.p));
	for (int i = 0; i < 1 << 19; i++)
		memfilter_bloom_add_hash(&b, bench_splitmix64(&seed));

	printf("memfilter-dedup CPU cost per 4 KiB block, ns, best of %d.\n\n",
	       REPS);
	printf("| blocks | hash + key hash + test-and-add | memcmp (equal) | ratio |\n");
	printf("|---|---|---|---|\n");
	db_row("in cache (16 blocks)", &b, 1 << 16, 16);
	if (!quick)
		db_row("out of cache (64 MiB)", &b, 1 << 14, 1 << 14);
	free(b.words);

	bh = bench_hashes(1 << 16, 11);
	printf("\nThe filter work alone per block (the 16-byte key's hash and the Bloom test-and-add), new blocks, XXH3, 1 Mi keys at 1%%, half full; ns per block, best of %d.\n\n",
	       REPS);
	printf("| filter | the target's call (memfilter_state_test_and_add_key) | hash, then a batch of one | ratio |\n");
	printf("|---|---|---|---|\n");
	db_work_row("default", MEMFILTER_LAYOUT_DEFAULT, bh, 1 << 16);
	db_work_row("line64", MEMFILTER_LAYOUT_LINE64, bh, 1 << 16);
	db_work_row("split32", MEMFILTER_LAYOUT_SPLIT32, bh, 1 << 16);
	free(bh);
	return 0;
}
