// SPDX-License-Identifier: GPL-2.0
/*
 * The key hash alone and in a Bloom query: XXH64 (the default) against
 * XXH3 (MEMFILTER_CREATE_XXH3), on the same splitmix64 8-byte keys, the
 * same seed and the same 1M-key, 10 bits/key Bloom filter shape.
 *
 *   hash_bench [--keys N] [--reps R] [--instr]
 *
 * Rows, ns per key (median of R repetitions, thread CPU time):
 *   hash             memfilter_hash() of an 8-byte key (16-byte: a second
 *                    row), the dispatch on the algorithm included, summed
 *   query, module    what memfilter_filter_hash() and ops->contains() do
 *                    for one key: the key hash out of line through the
 *                    ops table (length a run-time value), then the scalar
 *                    single-hash query
 *   query, direct    the 8-byte hash inline (memfilter_xxh64(), or XXH3
 *                    as memfilter_hash() computes it for 8 bytes), then
 *                    memfilter_bloom_contains_hash(): what a fixed-size
 *                    fast path for the algorithm runs
 *   window           256 keys hashed through the ops table into an array,
 *                    then ops->contains() on them (the query ioctl)
 * Each query row for present keys and absent ones; XXH64 and XXH3 runs
 * alternate. --instr (under valgrind --tool=callgrind; build
 * bench/hash_bench_v3, valgrind lacks AVX-512): one run per row and
 * algorithm, each dumped as its own profile named "ALGO ROW|KEYS".
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <valgrind/callgrind.h>

#include "bloom.h"
#include "filter_type.h"
#include "bench_util.h"

#define HB_WINDOW	256
#define HB_SEED		1
#define HB_MAX_REPS	31

static int instr;

static double hb_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int hb_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

typedef u64 hb_fn(const struct memfilter_bloom *b, const u64 *k, size_t n);

static volatile u64 hb_sink;

static double hb_once(hb_fn *fn, const struct memfilter_bloom *b, const u64 *k,
		      size_t n)
{
	double t0 = hb_cpu_ns();

	hb_sink += fn(b, k, n);
	return (hb_cpu_ns() - t0) / n;
}

/*
 * One row: @fn64 on the XXH64 filter and @fn3 on the XXH3 one, over the
 * same @n keys, @reps times each, alternating (a machine's noise then
 * falls on both alike); prints the medians in ns per key and their ratio.
 * With --instr, one run of each, dumped as callgrind profiles
 * "ALGO ROW|KEYS".
 */
static void hb_row(const char *row, hb_fn *fn64, hb_fn *fn3,
		   const struct memfilter_bloom b[2], const u64 *k, size_t n,
		   int reps)
{
	double t[2][HB_MAX_REPS];
	hb_fn *fn[2] = { fn64, fn3 };
	char label[160];
	int r, a;

	if (instr) {
		for (a = 0; a < 2; a++) {
			snprintf(label, sizeof(label), "%s %s|%zu",
				 a ? "XXH3" : "XXH64", row, n);
			CALLGRIND_ZERO_STATS;
			hb_sink += fn[a](&b[a], k, n);
			CALLGRIND_DUMP_STATS_AT(label);
		}
		return;
	}
	for (r = 0; r < reps; r++)
		for (a = 0; a < 2; a++)
			t[a][r] = hb_once(fn[a], &b[a], k, n);
	for (a = 0; a < 2; a++)
		qsort(t[a], reps, sizeof(t[a][0]), hb_cmp);
	printf("| %s | %.2f | %.2f | %.2f |\n", row, t[0][reps / 2],
	       t[1][reps / 2], t[1][reps / 2] / t[0][reps / 2]);
}

static u64 hb_hash8(const struct memfilter_bloom *b, const u64 *k, size_t n)
{
	u64 s = 0;

	for (size_t i = 0; i < n; i++)
		s += memfilter_hash(&b->p.hasher, &k[i], 8);
	return s;
}

/* 16-byte keys: pairs of adjacent 8-byte keys (n of them, overlapping). */
static u64 hb_hash16(const struct memfilter_bloom *b, const u64 *k, size_t n)
{
	u64 s = 0;

	for (size_t i = 0; i < n; i++)
		s += memfilter_hash(&b->p.hasher, &k[i], 16);
	return s;
}

/* memfilter_filter_hash() of module/filter/filter.c: out of line, as there. */
static __attribute__((noipa)) u64 hb_filter_hash(const struct memfilter_bloom *b,
						  const void *key, size_t len)
{
	return memfilter_key_hash(&memfilter_bloom_ops,
				  (const union memfilter_state *)b, key, len);
}

static u64 hb_query_module(const struct memfilter_bloom *b, const u64 *k, size_t n)
{
	u64 c = 0;

	for (size_t i = 0; i < n; i++) {
		u64 h = hb_filter_hash(b, &k[i], 8);

		c += memfilter_bloom_contains_hash_scalar(b, h);
	}
	return c;
}

static u64 hb_query_direct_xxh64(const struct memfilter_bloom *b, const u64 *k,
				 size_t n)
{
	u64 c = 0;

	for (size_t i = 0; i < n; i++)
		c += memfilter_bloom_contains_hash(b, memfilter_xxh64(&k[i], 8,
								       b->p.hasher.seed));
	return c;
}

static u64 hb_query_direct_xxh3(const struct memfilter_bloom *b, const u64 *k,
				size_t n)
{
	u64 c = 0;

	for (size_t i = 0; i < n; i++)
		c += memfilter_bloom_contains_hash(b,
			memfilter_xxh3_4to8_flip((const u8 *)&k[i], 8,
						 b->p.hasher.xxh3_flip));
	return c;
}

static u64 hb_query_window(const struct memfilter_bloom *b, const u64 *k, size_t n)
{
	unsigned long bm[HB_WINDOW / BITS_PER_LONG];
	u64 h[HB_WINDOW], c = 0;

	for (size_t i = 0; i < n; i += HB_WINDOW) {
		size_t cnt = min(n - i, (size_t)HB_WINDOW);

		for (size_t j = 0; j < cnt; j++)
			h[j] = hb_filter_hash(b, &k[i + j], 8);
		memset(bm, 0, sizeof(bm));
		memfilter_bloom_ops.contains((const union memfilter_state *)b,
					     h, cnt, bm);
		for (size_t j = 0; j < DIV_ROUND_UP(cnt, BITS_PER_LONG); j++)
			c += __builtin_popcountl(bm[j]);
	}
	return c;
}

static void hb_filter(struct memfilter_bloom *b, u32 algo, size_t n)
{
	memset(b, 0, sizeof(*b));
	if (memfilter_bloom_params_from_bpk(&b->p, n, 40, MEMFILTER_BLOOM_LINE64) ||
	    memfilter_hasher_init(&b->p.hasher, algo, HB_SEED, NULL))
		abort();
	b->words = bench_zalloc(memfilter_bloom_bytes(&b->p));
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		u32 algo;
	} algos[] = {
		{ "XXH64", MEMFILTER_HASH_XXH64 },
		{ "XXH3", MEMFILTER_HASH_XXH3 },
	};
	static const struct {
		const char *name;
		hb_fn *fn64, *fn3;
		bool query;	/* a row for present keys, one for absent */
	} rows[] = {
		{ "hash, 8-byte key", hb_hash8, hb_hash8, false },
		{ "hash, 16-byte key", hb_hash16, hb_hash16, false },
		{ "query, module path (ops hash + scalar contains)",
		  hb_query_module, hb_query_module, true },
		{ "query, direct (inline 8-byte hash + contains_hash)",
		  hb_query_direct_xxh64, hb_query_direct_xxh3, true },
		{ "256-key window (ops hash + ops->contains)",
		  hb_query_window, hb_query_window, true },
	};
	size_t n = 1000000;
	int reps = 5;
	struct memfilter_bloom b[2];
	u64 *present, *absent, seed = 42;
	u64 hits[2], direct;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--keys") && i + 1 < argc)
			n = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--instr"))
			instr = 1;
		else {
			fprintf(stderr, "usage: %s [--keys N] [--reps R] [--instr]\n",
				argv[0]);
			return 2;
		}
	}
	if (reps < 1 || reps > HB_MAX_REPS || !n) {
		fprintf(stderr, "--reps 1..%d, --keys >= 1\n", HB_MAX_REPS);
		return 2;
	}
	/* One key more: the 16-byte row reads pairs k[i], k[i + 1]. */
	present = malloc((n + 1) * sizeof(*present));
	absent = malloc((n + 1) * sizeof(*absent));
	if (!present || !absent)
		abort();
	for (size_t j = 0; j <= n; j++)
		present[j] = bench_splitmix64(&seed);
	for (size_t j = 0; j <= n; j++)
		absent[j] = bench_splitmix64(&seed);

	for (i = 0; i < 2; i++) {
		hb_filter(&b[i], algos[i].algo, n);
		for (size_t j = 0; j < n; j++)
			memfilter_bloom_add_hash_exclusive(&b[i],
				memfilter_hash(&b[i].p.hasher, &present[j], 8));
		/* No false negatives, by either query path. */
		direct = i ? hb_query_direct_xxh3(&b[i], present, n) :
			     hb_query_direct_xxh64(&b[i], present, n);
		if (hb_query_module(&b[i], present, n) != n || direct != n) {
			fprintf(stderr, "%s: a present key was not found\n",
				algos[i].name);
			return 1;
		}
		hits[i] = hb_query_module(&b[i], absent, n);
	}

	printf("# %zu 8-byte splitmix64 keys, Bloom 10 bits/key (k = %u), seed %d, "
	       "median of %d, ns per key (thread CPU time)\n",
	       n, b[0].p.k, HB_SEED, reps);
	if (!instr)
		printf("| row | XXH64 | XXH3 | XXH3 / XXH64 |\n|---|---|---|---|\n");
	for (i = 0; i < (int)ARRAY_SIZE(rows); i++) {
		for (int a = 0; a <= rows[i].query; a++) {
			char label[128];

			snprintf(label, sizeof(label), "%s%s", rows[i].name,
				 rows[i].query ? (a ? ", absent" : ", present") : "");
			hb_row(label, rows[i].fn64, rows[i].fn3, b,
			       a ? absent : present, n, reps);
		}
	}
	printf("# false positives on %zu absent keys: XXH64 %llu (%.3f%%), "
	       "XXH3 %llu (%.3f%%)\n", n,
	       (unsigned long long)hits[0], 100.0 * hits[0] / n,
	       (unsigned long long)hits[1], 100.0 * hits[1] / n);
	return 0;
}
