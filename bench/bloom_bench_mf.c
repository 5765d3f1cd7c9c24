// SPDX-License-Identifier: GPL-2.0
/*
 * The C half of the Bloom filter benchmark: memfilter's blocked Bloom
 * filter, built from the same core/ sources as the module, and the
 * memory-limit probe (one random 64-byte line per key, hashed, batched and
 * prefetched the same way). See bloom_bench.cc.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <stdlib.h>
#include <time.h>

#include "bloom.h"
#include "bloom_bench.h"

#define REPS 3

static volatile u64 mfb_sink;

double mfb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double mfb_median(double *t, int reps)
{
	double a = t[0], b = t[1], c = t[2];

	if (reps < 3)
		return t[0];
	return a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
}

static u64 mfb_query(const struct mf_bloom *b, const u64 *k, size_t nq)
{
	u64 c = 0;

	for (size_t i = 0; i < nq; i++)
		c += memfilter_bloom_contains_key(b, &k[i], 8);
	return c;
}

static u64 mfb_query_batch(const struct mf_bloom *b, const u64 *k, size_t nq)
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
	struct mf_bloom b;
	u64 hits = 0;
	size_t bytes;

	memfilter_bloom_params_from_bpk(&b.p, n, 40);
	memfilter_hasher_init(&b.p.hasher, MF_HASH_XXH64, 1, NULL);
	bytes = memfilter_bloom_bytes(&b.p);
	b.words = aligned_alloc(64, bytes);
	MFB_TIME(r->ins, n, reps_ins, ({
		memset(b.words, 0, bytes);
		t0_ = mfb_now_ns();
		for (size_t i = 0; i < n; i++)
			memfilter_bloom_add_key(&b, &keys[i], 8);
	}));
	MFB_TIME(r->ins_b, n, reps_ins, ({
		memset(b.words, 0, bytes);
		t0_ = mfb_now_ns();
		memfilter_bloom_add_keys(&b, keys, 8, n);
	}));
	MFB_TIME(r->qp, nq, REPS, mfb_sink = mfb_query(&b, keys, nq));
	MFB_TIME(r->qa, nq, REPS, hits = mfb_query(&b, absent, nq));
	MFB_TIME(r->qp_b, nq, REPS, mfb_sink = mfb_query_batch(&b, keys, nq));
	MFB_TIME(r->qa_b, nq, REPS, mfb_sink = mfb_query_batch(&b, absent, nq));
	r->fpr = (double)hits / nq;
	r->bpk = (double)bytes * 8 / n;
	free(b.words);
}

void mfb_probe(const u64 *keys, size_t bytes, size_t nq, struct mfb_row *r)
{
	u64 nlines = bytes / 64;
	u64 *mem = aligned_alloc(64, nlines * 64);

	memset(mem, 1, nlines * 64);
	MFB_TIME(r->qp_b, nq, REPS, ({
		u64 h[64], acc = 0;

		for (size_t i = 0; i < nq; i += 64) {
			size_t m = min(nq - i, (size_t)64);

			for (size_t j = 0; j < m; j++)
				h[j] = mul_u64_u64_shr(mf_xxh64(&keys[i + j], 8, 1),
						       nlines, 64) * 8;
			for (size_t j = 0; j < m && j < 16; j++)
				__builtin_prefetch(&mem[h[j]]);
			for (size_t j = 0; j < m; j++) {
				if (j + 16 < m)
					__builtin_prefetch(&mem[h[j + 16]]);
				acc += mem[h[j]];
			}
		}
		mfb_sink = acc;
	}));
	free(mem);
}
