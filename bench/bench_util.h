/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers the small native benchmarks share: a monotonic clock in
 * nanoseconds and the splitmix64 generator their keys and data come from.
 * Include after the core header that defines u64.
 */
#ifndef _MEMFILTER_BENCH_UTIL_H
#define _MEMFILTER_BENCH_UTIL_H

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

#endif /* _MEMFILTER_BENCH_UTIL_H */
