// SPDX-License-Identifier: GPL-2.0
/*
 * Growing filter benchmark: query cost against the number of sub-filters
 * (core/grow.c). A growing filter of first capacity C (factor 2, ratio
 * 0.5, 1% bound) filled with C * (2^S - 1) keys has S full sub-filters;
 * it is queried with absent keys (every sub-filter visited) and present
 * ones, shuffled (newest first: most keys are in the largest), against one
 * blocked Bloom filter (core/bloom.c) sized for the same keys at the same 1%.
 * Batch calls on precomputed hashes, the module's hot path; best of REPS
 * runs, nanoseconds per key, and the false-positive rate measured on the
 * absent keys. A benchmark, not a test: it reports numbers and asserts
 * nothing.
 *
 *   make bench/grow_bench && bench/grow_bench [--quick | --single]
 *
 * --quick: the small tables only, and the single-key table at 1M keys
 * over 3 runs (bench/bench-table.sh's test run); --single: the
 * single-key table alone.
 *
 * Instructions per key (callgrind, an AVX2 build, one run per loop):
 *
 *   cc -D_GNU_SOURCE -Icore -Iuapi -Ilib -Ibuild/include -O3 \
 *	-march=x86-64-v3 -o /tmp/gb bench/grow_bench.c core/hash.c \
 *	core/bloom.c core/bloom_batch.c core/bloom_avx2.c core/grow.c
 *   valgrind --tool=callgrind --callgrind-out-file=/tmp/gb.%p /tmp/gb --instr
 *   bench/instr-rows.sh /tmp/gb.*
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <valgrind/callgrind.h>

#include "filter_type.h"
#include "grow.h"
#include "bench_util.h"
#include "bench_single.h"

#define REPS	11
#define FPR_PPB	10000000ULL	/* 1% */

/*
 * --instr (under callgrind, a -march=x86-64-v3 build): each timed loop
 * once, between a zeroing of the counters and a dump named
 * "row|column|keys", for instructions per key.
 */
static int reps = REPS;
static char gb_label[128];

static void gb_begin(void)
{
	CALLGRIND_ZERO_STATS;
}

static void gb_end(const char *row, const char *col, size_t n)
{
	snprintf(gb_label, sizeof(gb_label), "%s|%s|%zu", row, col, n);
	CALLGRIND_DUMP_STATS_AT(gb_label);
}

static double gb_run(const struct memfilter_grow *g,
		     const struct memfilter_bloom *b, const u64 *h, size_t n,
		     unsigned long *bm, u64 *hits, const char *row,
		     const char *col)
{
	double best = 1e30;

	for (int r = 0; r < reps; r++) {
		double t0, t;

		memset(bm, 0, (n / BITS_PER_LONG + 1) * sizeof(long));
		gb_begin();
		t0 = bench_now_ns();
		if (g)
			memfilter_grow_contains_hashes(g, h, n, bm);
		else
			memfilter_bloom_contains_hashes(b, h, n, bm);
		t = (bench_now_ns() - t0) / n;
		gb_end(row, col, n);
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
	char row[64];
	u32 done, n = 0;

	if (memfilter_grow_params_init(&p, cap, FPR_PPB, 0, 2, 50, MEMFILTER_BLOOM_LINE64) ||
	    memfilter_bloom_params_from_fpr(&b.p, total, FPR_PPB, MEMFILTER_BLOOM_LINE64))
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
	/* In no particular order, as a stream of lookups would be. */
	for (u64 i = npresent; i > 1; i--) {
		u64 j = bench_splitmix64(&seed) % i, t = present[i - 1];

		present[i - 1] = present[j];
		present[j] = t;
	}
	p = g.p;
	bytes = memfilter_grow_bytes(&p);
	snprintf(row, sizeof(row), "%s S=%u", what, subs);
	ga = gb_run(&g, NULL, absent, nq, bm, &gfp, row, "grow absent");
	ba = gb_run(NULL, &b, absent, nq, bm, &bfp, row, "Bloom absent");
	gp = gb_run(&g, NULL, present, npresent, bm, &hits, row,
		    "grow present");
	bp = gb_run(NULL, &b, present, npresent, bm, &hits, row,
		    "Bloom present");

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

/* Empty the newest sub-filter in use again (between timed runs). */
static void gb_reset_newest(struct memfilter_grow *g)
{
	u32 a = memfilter_grow_active(g);

	memset(g->sub[a - 1].words, 0, memfilter_bloom_bytes(&g->sub[a - 1].p));
	g->keys[a - 1] = 0;
}

/*
 * Test-and-add against add: S full sub-filters of first capacity @cap and
 * a newest, empty one; @n fresh keys per run (every run starts from the
 * empty newest again), added (the Bloom add of the newest) or
 * test-and-added (S + 1 sub-filters asked, then the add), and @n keys
 * already in (a dedup hit: asked until found, nothing added). The ops
 * table's test_and_add, the module's entry point.
 */
static void gb_ta_row(const char *what, u64 cap, u32 subs, size_t n)
{
	union memfilter_state st;
	struct memfilter_grow *g = &st.grow;
	struct memfilter_grow_params p;
	void *parts[MEMFILTER_GROW_MAX_SUBS] = { 0 };
	u64 total = cap * ((1ULL << subs) - 1), seed = 11;
	u64 *fill = malloc(total * sizeof(*fill)), *present = malloc(n * 8);
	u64 *fresh = bench_hashes(n, 5);
	unsigned long *bm = calloc(n / BITS_PER_LONG + 1, sizeof(long));
	double best[3] = { 1e30, 1e30, 1e30 };
	static const char * const col[] = { "add fresh", "ta fresh",
					    "ta present" };
	char row[64];
	u32 done, np = 0;

	if (!fill || !present || !bm ||
	    memfilter_grow_params_init(&p, cap, FPR_PPB, 0, 2, 50, MEMFILTER_BLOOM_LINE64))
		abort();
	memfilter_grow_init(g, &p, bench_zalloc(memfilter_grow_bytes(&p)));
	for (u64 i = 0; i < total; i++)
		fill[i] = bench_splitmix64(&seed);
	for (u64 i = 0; i < total; i += done) {
		if (!memfilter_grow_add_hashes(g, fill + i, total - i, &done,
					       true))
			break;
		parts[np] = bench_zalloc(memfilter_grow_next_bytes(g));
		memfilter_grow_attach(g, parts[np++]);
	}
	/* The newest, empty (with S = 0, the first). */
	if (subs) {
		parts[np] = bench_zalloc(memfilter_grow_next_bytes(g));
		memfilter_grow_attach(g, parts[np++]);
		g->active = memfilter_grow_active(g) + 1;	/* not shared */
	}
	if (g->sub[memfilter_grow_active(g) - 1].p.capacity < n)
		abort();
	for (size_t i = 0; total && i < n; i++)
		present[i] = fill[(i * 7919) % total];
	snprintf(row, sizeof(row), "%s S=%u+1", what, subs);
	for (int r = 0; r < reps; r++) {
		for (int op = 0; op < (total ? 3 : 2); op++) {
			double t0, t;
			int ret = 0;

			gb_reset_newest(g);
			memset(bm, 0, (n / BITS_PER_LONG + 1) * sizeof(long));
			gb_begin();
			t0 = bench_now_ns();
			if (op == 0)
				ret = memfilter_grow_add_hashes(g, fresh, n,
								&done, false);
			else
				ret = memfilter_grow_ops.test_and_add(&st,
						op == 1 ? fresh : present, n,
						bm, &done);
			t = (bench_now_ns() - t0) / n;
			gb_end(row, col[op], n);
			if (ret || done != n)
				abort();
			if (t < best[op])
				best[op] = t;
		}
	}
	printf("| %s | %u + 1 | %.2f | %.2f (%.2fx) | ", what, subs, best[0],
	       best[1], best[1] / best[0]);
	printf(total ? "%.2f |\n" : "- |\n", best[2]);
	for (u32 i = 0; i < np; i++)
		free(parts[i]);
	free(g->sec);
	free(fill);
	free(present);
	free(fresh);
	free(bm);
}

/*
 * Single keys through the type table (memfilter_contains() and
 * memfilter_test_and_add() without their counters): a growing filter of
 * @subs full sub-filters (first capacity @cap, factor 2, ratio 0.5, 1%
 * bound) against one Bloom filter of the same keys at 1%, in the default
 * layout and in LINE64, the sub-filters' (a growing filter of the
 * default 16 sub-filters cannot be SPLIT32: its last ones' rates are
 * beyond that layout's reach); 8-byte keys,
 * XXH3. "before": the key's hash and the batch op on one key, the
 * growing filter's single-key path before it had its own. Medians of @nreps
 * runs, the contenders in turn.
 */
static void gb_single(const char *what, u64 cap, u32 subs, size_t nq,
		      int nreps)
{
	u64 total = cap * ((1ULL << subs) - 1);
	struct memfilter_create gc = {
		.type = MEMFILTER_TYPE_GROW, .capacity = cap,
		.fpr_ppb = FPR_PPB, .grow_factor = 2, .grow_ratio_pct = 50,
	};
	struct memfilter_create bc = {
		.type = MEMFILTER_TYPE_BLOOM, .capacity = total,
		.fpr_ppb = FPR_PPB,
	};
	struct memfilter_create lc = bc;
	struct bs_cell c[BS_CELLS + 1];
	struct bs_filter g, b, l;
	struct bs_keys k;
	u64 seed = 5;
	u32 a;

	lc.layout = MEMFILTER_LAYOUT_LINE64;
	bs_keys_make(&k, total, nq, nreps);
	bs_make(&g, &gc);
	bs_make(&b, &bc);
	bs_make(&l, &lc);
	bs_fill(&g, k.fill, total);
	bs_fill(&b, k.fill, total);
	bs_fill(&l, k.fill, total);
	a = memfilter_grow_active(&g.s.grow);
	for (size_t i = 0; i < nq; i++)
		k.present[i] = k.fill[bench_splitmix64(&seed) % total];
	/* Room for the test-and-adds of fresh keys: one more, empty. */
	g.parts[g.nparts] = bench_zalloc(g.ops->next_bytes(&g.s));
	g.ops->attach(&g.s, g.parts[g.nparts++]);
	bs_cells(c, &b, &g, &k);
	/* The LINE64 Bloom query with the other queries, in turn. */
	c[BS_CELLS] = c[BS_TAS_FRESH_OLD];
	c[BS_TAS_FRESH_OLD] = c[BS_TAS_FRESH];
	c[BS_TAS_FRESH] = (struct bs_cell){ &l, BS_QUERY, k.absent };
	bs_run(c, BS_TAS_FRESH + 1, nq, nreps);
	/* Test-and-add last: its keys go to the sub-filter after @a. */
	bs_run(c + BS_TAS_FRESH + 1, 2, nq, nreps);
	printf("| %s | %u | %.2f | %.2f (%.2fx, %.2fx per sub-filter) | %.2f | %.2f | %.2f (%.2fx) | %.2f | %.2f | %.2f | %.2f | %.2fx |\n",
	       what, a, c[0].median, c[1].median, c[1].median / c[0].median,
	       c[1].median / c[0].median / a, c[2].median, c[3].median,
	       c[4].median, c[4].median / c[3].median, c[5].median,
	       c[BS_TAS_FRESH_OLD].median, c[BS_CELLS].median,
	       c[BS_TAS_FRESH].median,
	       c[1].median / c[BS_TAS_FRESH].median / a);
	bs_free(&g);
	bs_free(&b);
	bs_free(&l);
	bs_keys_free(&k);
}

int main(int argc, char **argv)
{
	bool instr = argc > 1 && !strcmp(argv[1], "--instr");
	bool quick = instr || (argc > 1 && !strcmp(argv[1], "--quick"));
	bool single = argc > 1 && !strcmp(argv[1], "--single");

	if (instr)
		reps = 1;
	static const u32 subs[] = { 1, 2, 4, 6, 8 }, ta_subs[] = { 0, 1, 3, 5 };

	if (single)
		goto single;
	printf("Growing filter (factor 2, ratio 0.5, 1%% bound) with S full sub-filters vs one blocked Bloom filter sized for the same keys at 1%%; ns/key, best of %d; batch queries of precomputed hashes.\n\n",
	       reps);
	printf("| size | S | keys | memory: grow / Bloom | query absent: grow / Bloom | query present: grow / Bloom | measured FPR: grow / Bloom |\n");
	printf("|---|---|---|---|---|---|---|\n");
	for (u32 i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
		gb_row("C=256", 256, subs[i], 1 << 18);
	if (!quick)
		for (u32 i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
			gb_row("C=64Ki", 65536, subs[i], 1 << 20);
	printf("\nTest-and-add vs add: S full sub-filters and an empty newest one; ns/key, best of %d; batches of fresh keys (test-and-add asks all S + 1, then adds) and of keys already in (a dedup hit).\n\n",
	       REPS);
	printf("| size | S + newest | add fresh | test-and-add fresh (/ add) | test-and-add present |\n");
	printf("|---|---|---|---|---|\n");
	for (u32 i = 0; i < sizeof(ta_subs) / sizeof(ta_subs[0]); i++)
		gb_ta_row("C=4Ki, 4Ki keys", 4096, ta_subs[i], 4096);
	if (!quick)
		for (u32 i = 0; i < sizeof(ta_subs) / sizeof(ta_subs[0]); i++)
			gb_ta_row("C=256Ki, 64Ki keys", 262144, ta_subs[i], 65536);
	if (instr)
		return 0;
single:
	printf("\nSingle keys through the type table (ops->contains_key, ops->test_and_add_key: memfilter_contains() and memfilter_test_and_add() without counters), 8-byte keys, XXH3; ns/key, medians of %d runs taken in turn. S full sub-filters (factor 2, ratio 0.5, 1%% bound) vs one Bloom filter of the same keys at 1%%; before: the key's hash, then the batch op on one key (the path until issue 32). Bloom: the default layout's (SPLIT32 at 1%%) and, in the last columns, LINE64, the sub-filters' layout. Goal: absent key <= 1.0x a Bloom query per sub-filter in use. Test-and-add: fresh keys into an empty next sub-filter.\n\n",
	       quick ? 3 : 7);
	printf("| keys | S | Bloom absent | grow absent (/ Bloom, per sub-filter) | before | Bloom present | grow present (/ Bloom) | before | grow test-and-add | before | Bloom absent, LINE64 | grow absent / LINE64, per sub-filter |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	gb_single("1M", 4096, 8, 1 << 20, quick ? 3 : 7);
	if (!quick)
		gb_single("10M", 39216, 8, 1 << 20, 7);
	return 0;
}
