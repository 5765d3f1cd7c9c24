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
 *   make bench/window_bench && bench/window_bench [--quick]
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "window.h"
#include "bench_util.h"

#define REPS	11
#define GENS	4
#define FPR_PPB	10000000ULL	/* 1% */

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
		     const u64 *hashes, size_t n, unsigned long *bm)
{
	double best = 1e30;

	for (int r = 0; r < REPS; r++) {
		const u64 *h = hashes + (op == WB_QUERY ? 0 : r * n);
		double t0 = bench_now_ns(), t;

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
	double wq, bq, wp_, bp, wa, wt, ba, bt;

	if (memfilter_window_params_init(&wp, per_gen, GENS, FPR_PPB, 0) ||
	    memfilter_bloom_params_from_fpr(&f.b.p, per_gen * GENS, FPR_PPB))
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

	wq = wb_run(&f, true, WB_QUERY, absent, nq, bm);
	bq = wb_run(&f, false, WB_QUERY, absent, nq, bm);
	wp_ = wb_run(&f, true, WB_QUERY, present, nq, bm);
	bp = wb_run(&f, false, WB_QUERY, present, nq, bm);
	wa = wb_run(&f, true, WB_ADD, fresh, nq, bm);
	ba = wb_run(&f, false, WB_ADD, fresh, nq, bm);
	free(fresh);
	fresh = bench_hashes(nq * REPS, 4);
	wt = wb_run(&f, true, WB_TAS, fresh, nq, bm);
	bt = wb_run(&f, false, WB_TAS, fresh, nq, bm);

	printf("| %s | %.1f MiB / %.1f MiB | %u (k=%u) / k=%u | %.2f / %.2f (%.2fx) | %.2f / %.2f (%.2fx) | %.2f / %.2f (%.2fx) | %.2f / %.2f (%.2fx) |\n",
	       what, memfilter_window_bytes(&wp) / 1048576.0,
	       memfilter_bloom_bytes(&f.b.p) / 1048576.0, GENS, wp.gen.k,
	       f.b.p.k, wq, bq, wq / bq, wp_, bp, wp_ / bp, wt, wa, wt / wa,
	       bt, ba, bt / ba);
	free(f.w.words);
	free(f.b.words);
	free(fresh);
	free(absent);
	free(present);
	free(fill);
	free(bm);
}

int main(int argc, char **argv)
{
	bool quick = argc > 1 && !strcmp(argv[1], "--quick");

	printf("Window filter (G=%u) vs one blocked Bloom filter, both sized for %.2f%% FPR at G*C keys; ns/key, best of %d.\n\n",
	       GENS, FPR_PPB / 1e7, REPS);
	printf("| size | window / Bloom memory | G (k) / k | query absent: window / Bloom | query present: window / Bloom | window: test-and-add / add | Bloom: test-and-add / add |\n");
	printf("|---|---|---|---|---|---|---|\n");
	wb_size("in L1/L2, C=8Ki", 8192, 1 << 18);
	wb_size("in L2, C=64Ki", 65536, 1 << 18);
	if (!quick)
		wb_size("out of cache, C=64Mi", 64ULL << 20, 4 << 20);
	return 0;
}
