// SPDX-License-Identifier: GPL-2.0
/*
 * Growing filter benchmark: query cost against the number of sub-filters
 * (core/grow.c). A growing filter of first capacity C (factor 2, ratio
 * 0.5, 1% bound) filled with C * (2^S - 1) keys has S full sub-filters;
 * it is queried with absent keys (every sub-filter visited) and present
 * ones (newest first: most keys are in the largest), against one blocked
 * Bloom filter (core/bloom.c) sized for the same keys at the same 1%.
 * Batch calls on precomputed hashes, the module's hot path; best of REPS
 * runs, nanoseconds per key, and the false-positive rate measured on the
 * absent keys. A benchmark, not a test: it reports numbers and asserts
 * nothing.
 *
 *   make bench/grow_bench && bench/grow_bench [--quick]
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grow.h"
#include "bench_util.h"

#define REPS	11
#define FPR_PPB	10000000ULL	/* 1% */

static double gb_run(const struct memfilter_grow *g,
		     const struct memfilter_bloom *b, const u64 *h, size_t n,
		     unsigned long *bm, u64 *hits)
{
	double best = 1e30;

	for (int r = 0; r < REPS; r++) {
		double t0, t;

		memset(bm, 0, (n / BITS_PER_LONG + 1) * sizeof(long));
		t0 = bench_now_ns();
		if (g)
			memfilter_grow_contains_hashes(g, h, n, bm);
		else
			memfilter_bloom_contains_hashes(b, h, n, bm);
		t = (bench_now_ns() - t0) / n;
		if (t < best)
			best = t;
	}
	*hits = 0;
	for (size_t i = 0; i < n / BITS_PER_LONG + 1; i++)
		*hits += __builtin_popcountl(bm[i]);
	return best;
}

static void gb_row(const char *what, u64 cap, u32 subs, size_t nq)
{
	struct memfilter_grow_params p;
	struct memfilter_grow g;
	struct memfilter_bloom b;
	const size_t piece = 1 << 20;
	u64 total = cap * ((1ULL << subs) - 1), seed = 7, bytes = 0;
	u64 stride = total / nq ? total / nq : 1, npresent = total < nq ? total : nq;
	u64 *fill = malloc(piece * sizeof(*fill));
	u64 *present = malloc(nq * sizeof(*present));
	u64 *absent = bench_hashes(nq, 2);
	unsigned long *bm = calloc(nq / BITS_PER_LONG + 1, sizeof(long));
	void *parts[MEMFILTER_GROW_MAX_SUBS] = { 0 };
	double ga, ba, gp, bp;
	u64 gfp, bfp, hits;
	u32 done, n = 0;

	if (memfilter_grow_params_init(&p, cap, FPR_PPB, 0, 2, 50) ||
	    memfilter_bloom_params_from_fpr(&b.p, total, FPR_PPB))
		abort();
	memfilter_grow_init(&g, &p, bench_zalloc(memfilter_grow_bytes(&p)));
	b.words = bench_zalloc(memfilter_bloom_bytes(&b.p));
	/* The present queries: nq keys spread over the whole fill. */
	for (u64 at = 0; at < total; at += piece) {
		size_t m = total - at < piece ? total - at : piece;

		for (size_t i = 0; i < m; i++)
			fill[i] = bench_splitmix64(&seed);
		for (size_t i = 0; i < m; i += done) {
			if (!memfilter_grow_add_hashes(&g, fill + i, m - i,
						       &done, true))
				break;
			parts[n] = bench_zalloc(memfilter_grow_next_bytes(&g));
			memfilter_grow_attach(&g, parts[n++]);
		}
		memfilter_bloom_add_hashes_exclusive(&b, fill, m);
		for (size_t i = 0; i < m; i++)
			if ((at + i) % stride == 0 && (at + i) / stride < nq)
				present[(at + i) / stride] = fill[i];
	}
	p = g.p;
	bytes = memfilter_grow_bytes(&p);
	ga = gb_run(&g, NULL, absent, nq, bm, &gfp);
	ba = gb_run(NULL, &b, absent, nq, bm, &bfp);
	gp = gb_run(&g, NULL, present, npresent, bm, &hits);
	bp = gb_run(NULL, &b, present, npresent, bm, &hits);

	printf("| %s | %u | %llu | %.2f / %.2f MiB | %.2f / %.2f (%.2fx) | %.2f / %.2f (%.2fx) | %.3f%% / %.3f%% |\n",
	       what, memfilter_grow_active(&g), (unsigned long long)total,
	       bytes / 1048576.0, memfilter_bloom_bytes(&b.p) / 1048576.0,
	       ga, ba, ga / ba, gp, bp, gp / bp, 100.0 * gfp / nq,
	       100.0 * bfp / nq);
	for (u32 i = 0; i < n; i++)
		free(parts[i]);
	free(g.sec);
	free(b.words);
	free(absent);
	free(present);
	free(fill);
	free(bm);
}

int main(int argc, char **argv)
{
	bool quick = argc > 1 && !strcmp(argv[1], "--quick");
	static const u32 subs[] = { 1, 2, 4, 6, 8 };

	printf("Growing filter (factor 2, ratio 0.5, 1%% bound) with S full sub-filters vs one blocked Bloom filter sized for the same keys at 1%%; ns/key, best of %d; batch queries of precomputed hashes.\n\n",
	       REPS);
	printf("| size | S | keys | memory: grow / Bloom | query absent: grow / Bloom | query present: grow / Bloom | measured FPR: grow / Bloom |\n");
	printf("|---|---|---|---|---|---|---|\n");
	for (u32 i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
		gb_row("C=256", 256, subs[i], 1 << 18);
	if (quick)
		return 0;
	for (u32 i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
		gb_row("C=64Ki", 65536, subs[i], 1 << 20);
	return 0;
}
