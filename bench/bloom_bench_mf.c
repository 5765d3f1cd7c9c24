// SPDX-License-Identifier: GPL-2.0
/*
 * The C half of the Bloom filter benchmark: memfilter's blocked Bloom
 * filter, built from the same core/ sources as the module, and the
 * memory-limit probe. See bloom_bench.cc.
 *
 * The probe runs the very pipeline of memfilter_bloom_contains_keys()
 * (same hash, same ring of MEMFILTER_BLOOM_AHEAD hashed-and-prefetched keys, same
 * MEMFILTER_SIMD_CHUNK sections, same result bitmap), with the Bloom test replaced
 * by one load from each half of the key's random 64-byte line: what is left
 * is the cost of hashing and fetching a line per key, the floor for any
 * filter that touches one line per key with this batching.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "bloom.h"
#include "bloom_bench.h"

#define REPS 3
#define MFB_HUGE_BYTES (2UL << 20)

int mfb_huge;
int mfb_quick;

static volatile u64 mfb_sink;

double mfb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * A zeroed table for a filter or the probe: an anonymous mapping rounded
 * to 2 MiB and 2 MiB aligned, with MADV_HUGEPAGE when mfb_huge (THP in
 * "madvise" mode then backs it with huge pages), MADV_NOHUGEPAGE
 * otherwise, so 4 KiB numbers stay 4 KiB whatever the THP setting. The
 * kernel module allocates with kvzalloc(): 4 KiB pages.
 */
void *mfb_alloc(size_t bytes)
{
	size_t len = (bytes + MFB_HUGE_BYTES - 1) & ~(MFB_HUGE_BYTES - 1);
	u8 *p = mmap(NULL, len + MFB_HUGE_BYTES, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	u8 *a;

	if (p == MAP_FAILED)
		abort();
	a = (u8 *)(((uintptr_t)p + MFB_HUGE_BYTES - 1) & ~(MFB_HUGE_BYTES - 1));
	if (a > p)
		munmap(p, a - p);
	munmap(a + len, p + MFB_HUGE_BYTES - a);
	madvise(a, len, mfb_huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	return a;
}

void mfb_free(void *p, size_t bytes)
{
	munmap(p, (bytes + MFB_HUGE_BYTES - 1) & ~(MFB_HUGE_BYTES - 1));
}

static double mfb_median(double *t, int reps)
{
	double a = t[0], b = t[1], c = t[2];

	if (reps < 3)
		return t[0];
	return a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
}

/* The same loop as the RocksDB and libbloom single queries. */
static u64 mfb_query(const struct memfilter_bloom *b, const u64 *k, size_t nq)
{
	u64 c = 0;

	for (size_t i = 0; i < nq; i++)
		c += memfilter_bloom_contains_key(b, &k[i], 8);
	return c;
}

static u64 mfb_query_batch(const struct memfilter_bloom *b, const u64 *k, size_t nq)
{
	unsigned long bm[1024 / BITS_PER_LONG];
	u64 c = 0;

	for (size_t i = 0; i < nq; i += 1024) {
		size_t m = min(nq - i, (size_t)1024);

		memfilter_bloom_contains_keys(b, &k[i], 8, m, bm);
		for (size_t j = 0; j < DIV_ROUND_UP(m, BITS_PER_LONG); j++)
			c += __builtin_popcountl(bm[j]);
	}
	return c;
}

#define MFB_TIME(dst, n, reps, expr) do {			\
	double t_[REPS] = { 0 };				\
	for (int r_ = 0; r_ < (reps); r_++) {			\
		double t0_ = mfb_now_ns();			\
		expr;						\
		t_[r_] = (mfb_now_ns() - t0_) / (n);		\
	}							\
	(dst) = mfb_median(t_, (reps));				\
} while (0)

void mfb_memfilter(const u64 *keys, size_t n, const u64 *absent, size_t nq,
		   int reps_ins, struct mfb_row *r)
{
	struct memfilter_bloom b;
	u64 hits = 0;
	size_t bytes;

	memfilter_bloom_params_from_bpk(&b.p, n, 40);
	memfilter_hasher_init(&b.p.hasher, MEMFILTER_HASH_XXH64, 1, NULL);
	bytes = memfilter_bloom_bytes(&b.p);
	b.words = mfb_alloc(bytes);
	memset(b.words, 0, bytes);	/* fault it in before any timing */
	if (!mfb_quick) {
		MFB_TIME(r->ins, n, reps_ins, ({
			memset(b.words, 0, bytes);
			t0_ = mfb_now_ns();
			for (size_t i = 0; i < n; i++)
				memfilter_bloom_add_key(&b, &keys[i], 8);
		}));
		MFB_TIME(r->ins_x, n, reps_ins, ({
			memset(b.words, 0, bytes);
			t0_ = mfb_now_ns();
			for (size_t i = 0; i < n; i++)
				memfilter_bloom_add_key_exclusive(&b, &keys[i], 8);
		}));
	}
	MFB_TIME(r->ins_b, n, reps_ins, ({
		memset(b.words, 0, bytes);
		t0_ = mfb_now_ns();
		memfilter_bloom_add_keys(&b, keys, 8, n);
	}));
	MFB_TIME(r->ins_xb, n, reps_ins, ({
		memset(b.words, 0, bytes);
		t0_ = mfb_now_ns();
		memfilter_bloom_add_keys_exclusive(&b, keys, 8, n);
	}));
	MFB_TIME(r->qp, nq, REPS, mfb_sink = mfb_query(&b, keys, nq));
	MFB_TIME(r->qa, nq, REPS, hits = mfb_query(&b, absent, nq));
	MFB_TIME(r->qp_b, nq, REPS, mfb_sink = mfb_query_batch(&b, keys, nq));
	MFB_TIME(r->qa_b, nq, REPS, mfb_sink = mfb_query_batch(&b, absent, nq));
	r->fpr = (double)hits / nq;
	r->bpk = (double)bytes * 8 / n;
	mfb_free(b.words, bytes);
}

/* memfilter_bloom_contains_keys()'s pipeline, minus the Bloom test. */
static void mfb_probe_keys(const struct memfilter_bloom *b, const u64 *keys,
			   size_t n, unsigned long *bm)
{
	struct memfilter_bloom_ring r;
	size_t i, m, j;

	for (i = 0; i < MEMFILTER_BLOOM_AHEAD; i++)
		memfilter_bloom_ring_fill(b, &r, (const u8 *)keys, 8, i, n);
	for (i = 0; i < n; i += m) {
		unsigned long acc = 0;

		m = min(n - i, (size_t)MEMFILTER_SIMD_CHUNK);
		if (!memfilter_simd_begin())
			abort();
		for (j = i; j < i + m; j++) {
			u64 h = r.h[j % MEMFILTER_BLOOM_RING];
			const u64 *blk = memfilter_bloom_block_ptr(b, h);

			memfilter_bloom_ring_fill(b, &r, (const u8 *)keys, 8,
						  j + MEMFILTER_BLOOM_AHEAD, n);
			acc |= (unsigned long)((READ_ONCE(blk[0]) |
						READ_ONCE(blk[4])) & 1) <<
			       (j % BITS_PER_LONG);
			if (j % BITS_PER_LONG == BITS_PER_LONG - 1 ||
			    j == i + m - 1) {
				bm[j / BITS_PER_LONG] = acc;
				acc = 0;
			}
		}
		memfilter_simd_end();
	}
}

void mfb_probe(const u64 *keys, size_t bytes, size_t nq, struct mfb_row *r)
{
	struct memfilter_bloom b = { .p.nblocks = bytes / 64 };
	unsigned long bm[1024 / BITS_PER_LONG];

	memfilter_hasher_init(&b.p.hasher, MEMFILTER_HASH_XXH64, 1, NULL);
	b.words = mfb_alloc(b.p.nblocks * 64);
	memset(b.words, 1, b.p.nblocks * 64);
	MFB_TIME(r->qp_b, nq, REPS, ({
		u64 c = 0;

		for (size_t i = 0; i < nq; i += 1024) {
			size_t m = min(nq - i, (size_t)1024);

			mfb_probe_keys(&b, &keys[i], m, bm);
			for (size_t j = 0; j < DIV_ROUND_UP(m, BITS_PER_LONG); j++)
				c += __builtin_popcountl(bm[j]);
		}
		mfb_sink = c;
	}));
	mfb_free(b.words, b.p.nblocks * 64);
}
