/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers the small native benchmarks share: a monotonic clock in
 * nanoseconds, the splitmix64 generator their keys and data come from,
 * zeroed cache-line-aligned tables, arrays of distinct hashes and the
 * --sizes parser. Include after the core header that defines u64 (C or
 * C++: bench/bloom_bench.cc includes it too).
 */
#ifndef _MEMFILTER_BENCH_UTIL_H
#define _MEMFILTER_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static inline u64 bench_splitmix64(u64 *s)
{
	u64 z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* @bytes of zeroes, 64-byte aligned (a filter's table); aborts on failure. */
static inline void *bench_zalloc(u64 bytes)
{
	void *p = aligned_alloc(64, (bytes + 63) & ~63ULL);

	if (!p)
		abort();
	memset(p, 0, bytes);
	return p;
}

/* @n hashes of distinct keys, as the filters' XXH64 hasher would give. */
static inline u64 *bench_hashes(size_t n, u64 seed)
{
	u64 *h = (u64 *)malloc(n * sizeof(*h));

	if (!h)
		abort();
	for (size_t i = 0; i < n; i++)
		h[i] = bench_splitmix64(&seed);
	return h;
}

/* A --sizes element: "1M", "250K", "1.5M" or a plain count. */
static inline u64 bench_parse_size(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (*end == 'M')
		v *= 1e6;
	else if (*end == 'K' || *end == 'k')
		v *= 1e3;
	return (u64)v;
}

/* A markdown table's header: "| filter |" and the @n column names. */
static inline void bench_table_header(const char *const *cols, int n)
{
	int c;

	printf("| filter |");
	for (c = 0; c < n; c++)
		printf(" %s |", cols[c]);
	printf("\n|---|");
	for (c = 0; c < n; c++)
		printf("---|");
	printf("\n");
}

#endif /* _MEMFILTER_BENCH_UTIL_H */
