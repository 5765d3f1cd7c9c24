// SPDX-License-Identifier: GPL-2.0
/*
 * Window filter benchmark: a G = 4 window filter (core/window.c) against a
 * single blocked Bloom filter (core/bloom.c) sized for the same false
 * positive rate and the same keys (G generations of C keys vs one filter
 * of G * C keys), in cache and out of cache, plus test-and-add against add
 * for both. Batch calls on precomputed hashes, the module's hot path;
 * best of REPS runs, nanoseconds per key. A benchmark, not a test: it
 * reports numbers and asserts nothing.
 *
 *   make bench/window_bench && bench/window_bench [--quick | --single]
 *
 * Instructions per key (callgrind, an AVX2 build, one run per loop):
 *
 *   cc -D_GNU_SOURCE -Icore -Iuapi -Ilib -Ibuild/include -O3 \
 *	-march=x86-64-v3 -o /tmp/wb bench/window_bench.c core/hash.c \
 *	core/bloom.c core/bloom_batch.c core/bloom_avx2.c core/window.c core/window_avx2.c
 *   valgrind --tool=callgrind --callgrind-out-file=/tmp/wb.%p /tmp/wb --instr
 *   bench/instr-rows.sh /tmp/wb.*
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <immintrin.h>
#include <valgrind/callgrind.h>

#include "filter_type.h"
#include "window.h"
#include "bench_util.h"
#include "bench_single.h"

#define REPS	11
#define GENS	4
#define FPR_PPB	10000000ULL	/* 1% */

/*
 * --instr (under callgrind, a -march=x86-64-v3 build): each timed loop
 * once, between a zeroing of the counters and a dump named
 * "row|column|keys", for instructions per key (bench/instr-rows.sh).
 */
static int reps = REPS;
static const char *wb_row;

static void wb_end(const char *col, size_t n)
{
	char label[128];

	snprintf(label, sizeof(label), "%s|%s|%zu", wb_row, col, n);
	CALLGRIND_DUMP_STATS_AT(label);
}

/*
 * The physical-limit probe: the least a batch query can do with @lines
 * adjacent 64-byte lines per key (the window's group layout, G lines, or
 * one, the Bloom filter's block): the same block index from the hash
 * (multiply-shift), the same prefetch distance (MEMFILTER_BLOOM_AHEAD
 * keys, every line of the group), two 32-byte loads per line ANDed into
 * the key's answer bit, and nothing else: no pattern, no test. What it
 * costs per key with 4 lines against 1 is what the layout itself costs.
 */
static __attribute__((target("avx2"))) noinline void
wb_probe(const u64 *table, u64 ngroups, u32 lines, const u64 *h, size_t n,
	 unsigned long *bm)
{
	unsigned long acc = 0;
	size_t i;
	u32 l;

#define WB_GROUP(x) (table + mul_u64_u64_shr((x), ngroups, 64) * lines * 8)
	for (i = 0; i < MEMFILTER_BLOOM_AHEAD && i < n; i++)
		for (l = 0; l < lines; l++)
			memfilter_prefetch(WB_GROUP(h[i]) + l * 8);
	for (i = 0; i < n; i++) {
		const u64 *g = WB_GROUP(h[i]);
		__m256i v = _mm256_setzero_si256();

		if (i + MEMFILTER_BLOOM_AHEAD < n)
			for (l = 0; l < lines; l++)
				memfilter_prefetch(WB_GROUP(h[i + MEMFILTER_BLOOM_AHEAD]) +
						   l * 8);
		for (l = 0; l < lines; l++)
			v = _mm256_or_si256(v, _mm256_and_si256(
				_mm256_load_si256((const void *)(g + l * 8)),
				_mm256_load_si256((const void *)(g + l * 8 + 4))));
		acc |= (unsigned long)_mm256_testz_si256(v, v) << (i % BITS_PER_LONG);
		if (i % BITS_PER_LONG == BITS_PER_LONG - 1 || i == n - 1) {
			bm[i / BITS_PER_LONG] = acc;
			acc = 0;
		}
	}
#undef WB_GROUP
}

/* Best of the runs of the probe with @lines lines per key. */
static double wb_probe_run(const u64 *table, u64 ngroups, u32 lines,
			   const u64 *h, size_t n, unsigned long *bm)
{
	double best = 1e30;

	for (int r = 0; r < reps; r++) {
		double t0, t;

		CALLGRIND_ZERO_STATS;
		t0 = bench_now_ns();
		wb_probe(table, ngroups, lines, h, n, bm);
		t = (bench_now_ns() - t0) / n;
		wb_end(lines == 1 ? "probe 1 line" : "probe G lines", n);
		if (t < best)
			best = t;
	}
	return best;
}

enum wb_op { WB_QUERY, WB_ADD, WB_TAS };

struct wb_pair {
	struct memfilter_window w;
	struct memfilter_bloom b;
};

/*
 * Best of REPS runs of @op on @n hashes; adds take fresh keys every run
 * (@h holds REPS * @n of them), queries the same ones.
 */
static double wb_run(struct wb_pair *f, bool window, enum wb_op op,
		     const u64 *hashes, size_t n, unsigned long *bm,
		     const char *col)
{
	double best = 1e30;

	for (int r = 0; r < reps; r++) {
		const u64 *h = hashes + (op == WB_QUERY ? 0 : r * n);
		double t0, t;

		CALLGRIND_ZERO_STATS;
		t0 = bench_now_ns();

		if (window && op == WB_QUERY)
			memfilter_window_contains_hashes(&f->w, h, n, bm);
		else if (window && op == WB_ADD)
			memfilter_window_add_hashes(&f->w, h, n);
		else if (window)
			memfilter_window_test_and_add_hashes(&f->w, h, n, bm);
		else if (op == WB_QUERY)
			memfilter_bloom_contains_hashes(&f->b, h, n, bm);
		else if (op == WB_ADD)
			memfilter_bloom_add_hashes(&f->b, h, n);
		else
			memfilter_bloom_test_and_add_hashes(&f->b, h, n, bm);
		t = (bench_now_ns() - t0) / n;
		wb_end(col, n);
		if (t < best)
			best = t;
	}
	return best;
}

static void wb_size(const char *what, u64 per_gen, size_t nq)
{
	struct wb_pair f;
	struct memfilter_window_params wp;
	const size_t piece = 1 << 20;
	u64 *fill = malloc(piece * sizeof(*fill));
	u64 *present = malloc(nq * sizeof(*present));
	u64 *absent = bench_hashes(nq, 2);
	u64 *fresh = bench_hashes(nq * REPS, 3);
	unsigned long *bm = calloc(nq / BITS_PER_LONG + 1, sizeof(long));
	double wq, bq, wp_, bp, wa, wt, ba, bt, pg, p1;

	if (memfilter_window_params_init(&wp, per_gen, GENS, FPR_PPB, 0, MEMFILTER_BLOOM_LINE64) ||
	    memfilter_bloom_params_from_fpr(&f.b.p, per_gen * GENS, FPR_PPB, MEMFILTER_BLOOM_LINE64))
		abort();
	memfilter_window_init(&f.w, &wp, bench_zalloc(memfilter_window_bytes(&wp)),
			      0);
	f.b.words = bench_zalloc(memfilter_bloom_bytes(&f.b.p));
	/*
	 * Generation j gets the keys of stream 100 + j, in pieces (the big
	 * sizes would not fit as one array); the Bloom filter all of them.
	 * The present queries are the first nq / GENS of each stream.
	 */
	for (u32 j = 0; j < GENS; j++) {
		u64 seed = 100 + j;

		if (j)
			memfilter_window_rotate_exclusive(&f.w, j);
		for (u64 done = 0; done < per_gen; done += piece) {
			size_t m = per_gen - done < piece ? per_gen - done : piece;

			for (size_t i = 0; i < m; i++)
				fill[i] = bench_splitmix64(&seed);
			memfilter_window_add_hashes(&f.w, fill, m);
			memfilter_bloom_add_hashes(&f.b, fill, m);
			for (size_t i = 0; !done && i < nq / GENS && i < m; i++)
				present[j * (nq / GENS) + i] = fill[i];
		}
	}

	wb_row = what;
	wq = wb_run(&f, true, WB_QUERY, absent, nq, bm, "window absent");
	bq = wb_run(&f, false, WB_QUERY, absent, nq, bm, "Bloom absent");
	pg = wb_probe_run(f.w.words, wp.gen.nblocks, GENS, absent, nq, bm);
	p1 = wb_probe_run(f.b.words, f.b.p.nblocks, 1, absent, nq, bm);
	wp_ = wb_run(&f, true, WB_QUERY, present, nq, bm, "window present");
	bp = wb_run(&f, false, WB_QUERY, present, nq, bm, "Bloom present");
	wa = wb_run(&f, true, WB_ADD, fresh, nq, bm, "window add");
	ba = wb_run(&f, false, WB_ADD, fresh, nq, bm, "Bloom add");
	free(fresh);
	fresh = bench_hashes(nq * REPS, 4);
	wt = wb_run(&f, true, WB_TAS, fresh, nq, bm, "window test-and-add");
	bt = wb_run(&f, false, WB_TAS, fresh, nq, bm, "Bloom test-and-add");

	printf("| %s | %.1f MiB / %.1f MiB | %u (k=%u) / k=%u | %.2f / %.2f (%.2fx) | %.2f / %.2f (%.2fx) | %.2f / %.2f (%.2fx) | %.2f / %.2f (%.2fx) | %.2f / %.2f (%.2fx) |\n",
	       what, memfilter_window_bytes(&wp) / 1048576.0,
	       memfilter_bloom_bytes(&f.b.p) / 1048576.0, GENS, wp.gen.k,
	       f.b.p.k, wq, bq, wq / bq, pg, p1, pg / p1, wp_, bp, wp_ / bp,
	       wt, wa, wt / wa, bt, ba, bt / ba);
	free(f.w.words);
	free(f.b.words);
	free(fresh);
	free(absent);
	free(present);
	free(fill);
	free(bm);
}

/*
 * Single keys through the type table (memfilter_contains() and
 * memfilter_test_and_add() without their counters): a G = 4 window of
 * @per_gen keys per generation, every generation full, against a Bloom
 * filter of the same G * @per_gen keys at the same FPR; 8-byte keys,
 * XXH3. "before": the key's hash and the batch op on one key, the
 * window's single-key path before it had its own. Medians of @reps runs, the
 * contenders in turn.
 */
static void wb_single(const char *what, u64 per_gen, size_t nq, int nreps)
{
	struct memfilter_create wc = {
		.type = MEMFILTER_TYPE_WINDOW, .capacity = per_gen,
		.fpr_ppb = FPR_PPB, .generations = GENS, .period_ms = 1000,
	};
	struct memfilter_create bc = {
		.type = MEMFILTER_TYPE_BLOOM, .capacity = per_gen * GENS,
		.fpr_ppb = FPR_PPB,
	};
	struct bs_cell c[BS_CELLS];
	struct bs_filter w, b;
	struct bs_keys k;
	u64 *fill;

	bs_keys_make(&k, per_gen, nq, nreps);
	fill = k.fill;
	bs_make(&w, &wc);
	bs_make(&b, &bc);
	for (u32 j = 0; j < GENS; j++) {
		u64 seed = 100 + j;

		if (j)
			memfilter_window_rotate_exclusive(&w.s.window, j);
		for (u64 i = 0; i < per_gen; i++)
			fill[i] = bench_splitmix64(&seed);
		bs_fill(&w, fill, per_gen);
		bs_fill(&b, fill, per_gen);
		/* Present queries from every generation, in turn. */
		for (size_t i = j; i < nq; i += GENS)
			k.present[i] = fill[(i / GENS) % per_gen];
	}
	bs_cells(c, &b, &w, &k);
	bs_run(c, BS_CELLS, nq, nreps);
	printf("| %s | %.2f | %.2f (%.2fx) | %.2f | %.2f | %.2f (%.2fx) | %.2f | %.2f (%.2fx) | %.2f |\n",
	       what, c[0].median,
	       c[1].median, c[1].median / c[0].median, c[2].median,
	       c[3].median,
	       c[4].median, c[4].median / c[3].median, c[5].median,
	       c[6].median, c[6].median / c[0].median, c[7].median);
	bs_free(&w);
	bs_free(&b);
	bs_keys_free(&k);
}

int main(int argc, char **argv)
{
	bool instr = argc > 1 && !strcmp(argv[1], "--instr");
	bool quick = instr || (argc > 1 && !strcmp(argv[1], "--quick"));
	bool single = argc > 1 && !strcmp(argv[1], "--single");

	if (instr)
		reps = 1;
	if (single)
		goto single;
	printf("Window filter (G=%u) vs one blocked Bloom filter, both sized for %.2f%% FPR at G*C keys; ns/key, best of %d. Probe: the least loop reading G adjacent lines per key vs 1 (absent keys' lines; window's and Bloom's tables).\n\n",
	       GENS, FPR_PPB / 1e7, reps);
	printf("| size | window / Bloom memory | G (k) / k | query absent: window / Bloom | probe: G lines / 1 line | query present: window / Bloom | window: test-and-add / add | Bloom: test-and-add / add |\n");
	printf("|---|---|---|---|---|---|---|---|\n");
	wb_size("in L1/L2, C=8Ki", 8192, 1 << 18);
	wb_size("in L2, C=64Ki", 65536, 1 << 18);
	if (!quick)
		wb_size("out of cache, C=64Mi", 64ULL << 20, 4 << 20);
	if (instr)
		return 0;
single:
	printf("\nSingle keys through the type table (ops->contains_key, ops->test_and_add_key: memfilter_contains() and memfilter_test_and_add() without counters), 8-byte keys, XXH3; ns/key, medians of %d runs taken in turn. Window G=%u, every generation full, vs one Bloom filter of the same G*C keys at the same FPR; before: the key's hash, then the batch op on one key (the window's path until issue 32). Goals: window query <= 1.5x a Bloom query, test-and-add (fresh keys) <= 2x.\n\n",
	       quick ? 3 : 7, GENS);
	printf("| keys (G*C) | Bloom absent | window absent (/ Bloom) | before | Bloom present | window present (/ Bloom) | before | window test-and-add (/ Bloom absent) | before |\n");
	printf("|---|---|---|---|---|---|---|---|---|\n");
	wb_single("1M", 1 << 18, 1 << 20, quick ? 3 : 7);
	if (!quick)
		wb_single("10M", 2500000, 1 << 20, 7);
	return 0;
}
