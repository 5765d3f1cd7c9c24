/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memory-limit probe's loops, shared by bloom_bench_mf.c and
 * cuckoo_bench.c: the least any filter that touches @lines random 64-byte
 * lines per key (1: a blocked Bloom filter; 2: a cuckoo lookup's two
 * buckets) can do. Per key: the cheapest hash any bench row uses (the
 * murmur64 finaliser of fastfilter_cpp's SimpleMixSplit, one add and two
 * multiplies), a multiply-shift line index (the second line from the
 * hash's other half, rotated: independent of the first), one 8-byte load
 * per line; batched, the lines prefetched MEMFILTER_BLOOM_AHEAD keys early
 * (memfilter's distance). Not a filter: it answers nothing, it only sets
 * the floor. Include after core/bloom.h.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_LINE_PROBE_H
#define _MEMFILTER_LINE_PROBE_H

static __always_inline u64 line_probe_mix(u64 h)
{
	h += 0x9e3779b97f4a7c15ULL;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/* Line @w (0 or 1) of @key in @nlines 64-byte lines at @t. */
static __always_inline const u64 *line_probe_line(const u64 *t, u64 nlines,
						  u64 key, int w)
{
	u64 h = line_probe_mix(key);

	if (w)
		h = h << 32 | h >> 32;
	return t + mul_u64_u64_shr(h, nlines, 64) * 8;
}

/* No prefetch: as many misses overlap as the core finds on its own. */
static __always_inline u64 line_probe_single(const u64 *t, u64 nlines,
					     const u64 *k, size_t n, int lines)
{
	u64 c = 0;

	for (size_t i = 0; i < n; i++) {
		u64 v = *line_probe_line(t, nlines, k[i], 0);

		if (lines == 2)
			v |= *line_probe_line(t, nlines, k[i], 1);
		c += v & 1;
	}
	return c;
}

/* Key i's @lines lines, prefetched, into slot i of @ring. */
static __always_inline void line_probe_fetch(const u64 *ring[][MEMFILTER_BLOOM_RING],
					     const u64 *t, u64 nlines,
					     const u64 *k, size_t i, int lines)
{
	for (int w = 0; w < lines; w++) {
		const u64 *l = line_probe_line(t, nlines, k[i], w);

		__builtin_prefetch(l);
		ring[w][i % MEMFILTER_BLOOM_RING] = l;
	}
}

static __always_inline u64 line_probe_batch(const u64 *t, u64 nlines,
					    const u64 *k, size_t n, int lines)
{
	const u64 *ring[2][MEMFILTER_BLOOM_RING];
	u64 c = 0, v;
	size_t i;

	for (i = 0; i < MEMFILTER_BLOOM_AHEAD && i < n; i++)
		line_probe_fetch(ring, t, nlines, k, i, lines);
	for (i = 0; i < n; i++) {
		if (i + MEMFILTER_BLOOM_AHEAD < n)
			line_probe_fetch(ring, t, nlines, k,
					 i + MEMFILTER_BLOOM_AHEAD, lines);
		v = *ring[0][i % MEMFILTER_BLOOM_RING];
		if (lines == 2)
			v |= *ring[1][i % MEMFILTER_BLOOM_RING];
		c += v & 1;
	}
	return c;
}

#endif /* _MEMFILTER_LINE_PROBE_H */
