/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The prefix lists of the prefix lookup benchmarks (bench/nf_key_bench.c
 * natively, bench/nf_prefix_pps.c in a guest): 4096 IPv4 prefixes of 1, 4
 * or 8 distinct lengths, mostly /24 and single addresses as published
 * blocklists are, from tests/prefix_list.h's generator (global unicast,
 * never 10/8: the guest's traffic comes from 10.0.0.1 and must pass).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MF_BENCH_PREFIX_LISTS_H
#define _MF_BENCH_PREFIX_LISTS_H

#include "../tests/prefix_list.h"

#define BENCH_PLISTS		3
#define BENCH_PLIST_N		4096
#define BENCH_PLIST_MAXLEN	8

/* Each list's lengths and how many prefixes of each. */
static const struct {
	unsigned int nlen;
	uint8_t len[BENCH_PLIST_MAXLEN];
	unsigned int count[BENCH_PLIST_MAXLEN];
} bench_plists[BENCH_PLISTS] = {
	{ 1, { 24 }, { 4096 } },
	{ 4, { 16, 20, 24, 32 }, { 96, 500, 2500, 1000 } },
	{ 8, { 8, 12, 16, 18, 20, 22, 24, 32 },
	  { 2, 10, 100, 200, 400, 800, 1584, 1000 } },
};

/* List @which (0 .. BENCH_PLISTS - 1) into @p, BENCH_PLIST_N prefixes. */
static inline void bench_plist(unsigned int which, struct mf_prefix *p)
{
	uint64_t seed = 0x707265666978ULL + which;
	unsigned int l, c, n = 0;

	for (l = 0; l < bench_plists[which].nlen; l++) {
		for (c = 0; c < bench_plists[which].count[l]; c++, n++) {
			memset(&p[n], 0, sizeof(p[n]));
			p[n].family = MF_PREFIX_IPV4;
			p[n].length = bench_plists[which].len[l];
			mf_plist_addr(&seed, MF_PREFIX_IPV4, p[n].addr);
			mf_plist_mask(p[n].addr, 16, p[n].length);
		}
	}
}

#endif /* _MF_BENCH_PREFIX_LISTS_H */
