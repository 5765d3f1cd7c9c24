// SPDX-License-Identifier: GPL-2.0
/*
 * Native tests of memfilter's blocked Bloom filter (core/bloom.c and
 * core/bloom_avx2.c), built in userspace with ASan and UBSan from the same
 * sources the module uses: no false negatives, the false-positive targets
 * and the model on a million keys, each layout's bits against a reference
 * written from its definition (the exact false-positive counts of filters
 * sized for 1% and 0.1%), AVX2 and scalar paths bit for bit equal, the
 * exclusive (single-writer) inserts bit for bit equal to the
 * concurrent-safe ones, the key batch pipeline at every length and section
 * boundary, keyed hashing, sizing limits, the statistics, and concurrent
 * inserters on every insert path losing no bit. Tests named *_split32 are
 * the test above them on SPLIT32 filters. Nothing is timed.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "bloom.h"
#include "filter_type.h"
#include "kselftest_harness.h"
#include "native_utils.h"

#define NKEYS		(1u << 20)
#define NABSENT		(4u << 20)

static bool mf_test_have_avx2(void)
{
	return MEMFILTER_HAVE_AVX2 && memfilter_simd_begin();
}

/* The k values worth a loop: SPLIT32 has one (k is always 8). */
static u32 mf_test_kmax(void)
{
	return mf_test_layout == MEMFILTER_BLOOM_SPLIT32 ? 1 : MEMFILTER_BLOOM_MAX_K;
}

/*
 * A zeroed filter of about the given shape in mf_test_layout, XXH64 seed
 * 7: SPLIT32 takes an even number of blocks (one more if @nblocks is
 * odd), and k = 8.
 */
static struct memfilter_bloom *mf_test_new(u64 nblocks, u32 k)
{
	struct memfilter_bloom *b = calloc(1, sizeof(*b));

	if (mf_test_layout == MEMFILTER_BLOOM_SPLIT32) {
		nblocks += nblocks & 1;
		k = MEMFILTER_BLOOM_SPLIT32_K;
	}
	b->p.capacity = nblocks * 51;
	b->p.nblocks = nblocks;
	b->p.k = k;
	b->p.bits_per_key_q4 = 40;
	b->p.layout = mf_test_layout;
	memfilter_hasher_init(&b->p.hasher, MEMFILTER_HASH_XXH64, 7, NULL);
	b->words = aligned_alloc(64, memfilter_bloom_bytes(&b->p));
	memset(b->words, 0, memfilter_bloom_bytes(&b->p));
	return b;
}

static struct memfilter_bloom *mf_test_sized(u64 capacity, u32 q4)
{
	struct memfilter_bloom_params p;
	struct memfilter_bloom *b;

	if (memfilter_bloom_params_from_bpk(&p, capacity, q4, mf_test_layout))
		return NULL;
	b = mf_test_new(p.nblocks, p.k);
	p.hasher = b->p.hasher;
	b->p = p;
	return b;
}

static void mf_test_free(struct memfilter_bloom *b)
{
	free(b->words);
	free(b);
}

static bool mf_test_bit(const unsigned long *bm, size_t i)
{
	return (bm[i / BITS_PER_LONG] >> (i % BITS_PER_LONG)) & 1;
}

MF_LAYOUT_TEST(no_false_negatives)
{
	struct memfilter_bloom *single = mf_test_sized(NKEYS, 40);
	struct memfilter_bloom *batch = mf_test_sized(NKEYS, 40);
	struct memfilter_bloom *scalar = mf_test_sized(NKEYS, 40);
	u64 *keys = mf_test_keys(NKEYS, 1ULL << 40);
	u64 *hashes = malloc(NKEYS * sizeof(*hashes));
	unsigned long *bm = calloc(NKEYS / BITS_PER_LONG, sizeof(*bm));
	size_t bytes = memfilter_bloom_bytes(&single->p);

	for (size_t i = 0; i < NKEYS; i++) {
		memfilter_bloom_add_key(single, &keys[i], 8);
		hashes[i] = memfilter_hash(&single->p.hasher, &keys[i], 8);
	}
	memfilter_bloom_add_keys(batch, keys, 8, NKEYS);
	memfilter_bloom_add_hashes_scalar(scalar, hashes, NKEYS);
	ASSERT_EQ(0, memcmp(single->words, batch->words, bytes));
	ASSERT_EQ(0, memcmp(single->words, scalar->words, bytes));

	for (size_t i = 0; i < NKEYS; i++)
		ASSERT_TRUE(memfilter_bloom_contains_key(single, &keys[i], 8));
	memfilter_bloom_contains_keys(single, keys, 8, NKEYS, bm);
	for (size_t i = 0; i < NKEYS / BITS_PER_LONG; i++)
		ASSERT_EQ(~0UL, bm[i]);
	memset(bm, 0, NKEYS / 8);
	memfilter_bloom_contains_hashes_scalar(single, hashes, NKEYS, bm);
	for (size_t i = 0; i < NKEYS / BITS_PER_LONG; i++)
		ASSERT_EQ(~0UL, bm[i]);
	if (mf_test_have_avx2()) {
		struct memfilter_bloom *simd = mf_test_sized(NKEYS, 40);

		for (size_t i = 0; i < NKEYS; i += MEMFILTER_SIMD_CHUNK)
			memfilter_bloom_add_hashes_avx2(simd, hashes + i,
							MEMFILTER_SIMD_CHUNK);
		ASSERT_EQ(0, memcmp(single->words, simd->words, bytes));
		memset(bm, 0, NKEYS / 8);
		for (size_t i = 0; i < NKEYS; i += MEMFILTER_SIMD_CHUNK)
			memfilter_bloom_contains_hashes_avx2(single, hashes + i,
							     MEMFILTER_SIMD_CHUNK, bm + i / BITS_PER_LONG);
		for (size_t i = 0; i < NKEYS / BITS_PER_LONG; i++)
			ASSERT_EQ(~0UL, bm[i]);
		mf_test_free(simd);
	} else {
		TH_LOG("no AVX2 on this CPU: SIMD path not exercised");
	}
	free(bm);
	free(hashes);
	free(keys);
	mf_test_free(single);
	mf_test_free(batch);
	mf_test_free(scalar);
}

/*
 * A measured rate against @b's model at @nkeys keys and the estimate from
 * its fill: both within 10% of it.
 */
static void mf_test_near_model(struct __test_metadata *_metadata,
			       const struct memfilter_bloom *b, u64 nkeys, u64 measured)
{
	u64 model = memfilter_bloom_model_fpr_ppb(&b->p, nkeys);
	u64 est = memfilter_bloom_est_fpr_ppb(b);

	TH_LOG("layout %u, %.2f bits/key k=%u: measured %llu ppb, model %llu, est %llu",
	       b->p.layout, (double)memfilter_bloom_bytes(&b->p) * 8 / nkeys, b->p.k,
	       (unsigned long long)measured, (unsigned long long)model,
	       (unsigned long long)est);
	EXPECT_LE(measured * 10, model * 11);
	EXPECT_GE(measured * 10, model * 9);
	EXPECT_LE(est * 10, measured * 11);
	EXPECT_GE(est * 10, measured * 9);
}

/* Measured FPR on NABSENT absent keys vs the target, model and estimate. */
static void mf_test_fpr(struct __test_metadata *_metadata, u32 q4,
			u64 target_ppb)
{
	struct memfilter_bloom *b = mf_test_sized(NKEYS, q4);
	u64 *keys = mf_test_keys(NKEYS, 0);
	u64 *absent = mf_test_keys(NABSENT, 1ULL << 40);
	unsigned long *bm = calloc(NABSENT / BITS_PER_LONG, sizeof(*bm));
	u64 hits = 0, measured;

	memfilter_bloom_add_keys(b, keys, 8, NKEYS);
	memfilter_bloom_contains_keys(b, absent, 8, NABSENT, bm);
	for (size_t i = 0; i < NABSENT / BITS_PER_LONG; i++)
		hits += hweight64(bm[i]);
	measured = hits * 1000000000ULL / NABSENT;
	EXPECT_LE(measured, target_ppb);
	mf_test_near_model(_metadata, b, NKEYS, measured);
	free(bm);
	free(absent);
	free(keys);
	mf_test_free(b);
}

TEST(fpr_10_bits_per_key)
{
	mf_test_fpr(_metadata, 40, 10000000);
}

TEST(fpr_16_bits_per_key)
{
	mf_test_fpr(_metadata, 64, 1000000);
}

/* Hashes that stress the derivation: zeros, single bits, one half fixed. */
static size_t mf_test_adversarial(u64 *h, size_t max, u64 *rng)
{
	size_t n = 0;

	h[n++] = 0;
	h[n++] = ~0ULL;
	for (int i = 0; i < 64; i++) {
		h[n++] = 1ULL << i;
		h[n++] = ~(1ULL << i);
	}
	while (n < max) {
		u64 r = mf_test_rand(rng);

		switch (n % 4) {
		case 0:
			h[n++] = r << 32;		/* probe word 0 */
			break;
		case 1:
			h[n++] = r & 0xffffffffULL;	/* block word 0 */
			break;
		case 2:
			h[n++] = 0x123456789ULL ^ (r & 0xff);	/* low bits */
			break;
		default:
			h[n++] = 0x123456789ULL ^ (r << 56);	/* high bits */
			break;
		}
	}
	return n;
}

MF_LAYOUT_TEST(simd_matches_scalar)
{
	static const u64 nblocks[] = { 1, 3, 1000, 65537 };
	u64 rng = 1, *h = malloc(4096 * sizeof(*h));
	unsigned long bm_s[4096 / BITS_PER_LONG], bm_v[4096 / BITS_PER_LONG];

	if (!mf_test_have_avx2())
		SKIP(return, "no AVX2 on this CPU");
	for (int kind = 0; kind < 2; kind++) {
		for (size_t nb = 0; nb < ARRAY_SIZE(nblocks); nb++) {
			for (u32 k = 1; k <= mf_test_kmax(); k++) {
				struct memfilter_bloom *s = mf_test_new(nblocks[nb], k);
				struct memfilter_bloom *v = mf_test_new(nblocks[nb], k);
				size_t n = 4096, bytes = memfilter_bloom_bytes(&s->p);

				if (kind)
					mf_test_adversarial(h, n, &rng);
				else
					for (size_t i = 0; i < n; i++)
						h[i] = mf_test_rand(&rng);
				memfilter_bloom_add_hashes_scalar(s, h, n / 2);
				for (size_t i = 0; i < n / 2; i += 200)
					memfilter_bloom_add_hashes_avx2(v, h + i,
									min(n / 2 - i, (size_t)200));
				ASSERT_EQ(0, memcmp(s->words, v->words, bytes))
					TH_LOG("kind %d nblocks %llu k %u", kind,
					       (unsigned long long)nblocks[nb], k);
				memset(bm_v, 0x55, sizeof(bm_v));
				memfilter_bloom_contains_hashes_scalar(s, h, n, bm_s);
				for (size_t i = 0; i < n; i += MEMFILTER_SIMD_CHUNK)
					memfilter_bloom_contains_hashes_avx2(s,
									     h + i, MEMFILTER_SIMD_CHUNK,
									     bm_v + i / BITS_PER_LONG);
				ASSERT_EQ(0, memcmp(bm_s, bm_v, sizeof(bm_s)));
				for (size_t i = 0; i < n; i++) {
					ASSERT_EQ(memfilter_bloom_contains_hash(s, h[i]),
						  mf_test_bit(bm_s, i));
					ASSERT_EQ(memfilter_bloom_contains_hash_scalar(s, h[i]),
						  mf_test_bit(bm_s, i));
					ASSERT_EQ(memfilter_bloom_contains_hash_avx2(s, h[i]),
						  mf_test_bit(bm_s, i));
				}
				/* Single-key inserts: SIMD and scalar, same bits. */
				memset(v->words, 0, bytes);
				memset(s->words, 0, bytes);
				for (size_t i = 0; i < n; i++) {
					if (i % 3 == 2) {
						memfilter_bloom_add_hash_exclusive_avx2(v, h[i]);
						memfilter_bloom_add_hash_exclusive_scalar(s, h[i]);
					} else {
						memfilter_bloom_add_hash_avx2(v, h[i]);
						memfilter_bloom_add_hash_scalar(s, h[i]);
					}
				}
				ASSERT_EQ(0, memcmp(s->words, v->words, bytes))
					TH_LOG("single: kind %d nblocks %llu k %u",
					       kind, (unsigned long long)nblocks[nb], k);
				mf_test_free(s);
				mf_test_free(v);
			}
		}
	}
	free(h);
}

/* The window mask is the k words from the start word, mod 8. */
/*
 * The scalar batch loops, and the AVX2 query's, on every count around
 * their edges (one key, the prefetch distance, a result word): the answers
 * and bits of the per-key calls, and result bits past the count cleared.
 */
MF_LAYOUT_TEST(scalar_batch_counts)
{
	static const size_t counts[] = { 1, 2, 47, 48, 49, 63, 64, 65, 128, 200 };
	unsigned long bm[256 / BITS_PER_LONG];
	u64 rng = 7, h[512];

	for (size_t i = 0; i < ARRAY_SIZE(h); i++)
		h[i] = mf_test_rand(&rng);
	for (u32 k = 1; k <= mf_test_kmax(); k++) {
		struct memfilter_bloom *b = mf_test_new(97, k);
		struct memfilter_bloom *t = mf_test_new(97, k);
		struct memfilter_bloom *one = mf_test_new(97, k);

		/* Keys 150-159 absent, 160-199 present. */
		memfilter_bloom_add_hashes_scalar(b, h, 150);
		memfilter_bloom_add_hashes_scalar(b, h + 160, 40);
		for (size_t c = 0; c < ARRAY_SIZE(counts); c++) {
			size_t n = counts[c];
			size_t end = DIV_ROUND_UP(n, BITS_PER_LONG) * BITS_PER_LONG;

			for (int simd = 0; simd < 1 + mf_test_have_avx2(); simd++) {
				memset(bm, 0x55, sizeof(bm));
				if (simd)
					memfilter_bloom_contains_hashes_avx2(b, h + 150, n, bm);
				else
					memfilter_bloom_contains_hashes_scalar(b, h + 150, n, bm);
				for (size_t i = 0; i < end; i++) {
					bool want = i < n &&
						    memfilter_bloom_contains_hash_scalar(b, h[150 + i]);

					ASSERT_EQ(want, mf_test_bit(bm, i))
						TH_LOG("simd %d k %u count %zu key %zu",
						       simd, k, n, i);
				}
			}
			memset(bm, 0x55, sizeof(bm));
			memfilter_bloom_test_and_add_hashes_scalar(t, h + 256, n, bm);
			for (size_t i = 0; i < end; i++) {
				bool want = i < n &&
					    memfilter_bloom_contains_hash_scalar(one, h[256 + i]);

				if (i < n)
					memfilter_bloom_add_hash_scalar(one, h[256 + i]);
				ASSERT_EQ(want, mf_test_bit(bm, i))
					TH_LOG("k %u count %zu key %zu", k, n, i);
			}
			ASSERT_EQ(0, memcmp(t->words, one->words,
					    memfilter_bloom_bytes(&t->p)));
		}
		mf_test_free(b);
		mf_test_free(t);
		mf_test_free(one);
	}
}

TEST(window)
{
	u64 rng = 4;

	for (int i = 0; i < 4096; i++) {
		u64 h = mf_test_rand(&rng);

		for (u32 k = 1; k <= MEMFILTER_BLOOM_MAX_K; k++) {
			unsigned int s = memfilter_bloom_start(h), want = 0;

			for (unsigned int w = 0; w < MEMFILTER_BLOOM_BLOCK_WORDS; w++)
				if (((w - s) & 7) < k)
					want |= 1U << w;
			ASSERT_EQ(want, memfilter_bloom_window(h, k));
		}
	}
}

/*
 * Each single-key query path on a one-block filter holding exactly one
 * key's pattern: present; with any one of its k bits cleared: absent, even
 * with every bit outside the pattern set; and k outside 1..8 probes all 8
 * words, as the batch loops do.
 */
static void mf_test_one_block(struct memfilter_bloom *b, u64 h, bool want,
			      struct __test_metadata *_metadata)
{
	unsigned long bm[1];

	memfilter_bloom_contains_hashes_scalar(b, &h, 1, bm);
	ASSERT_EQ(want, bm[0] & 1);
	ASSERT_EQ(want, memfilter_bloom_contains_hash_scalar(b, h));
	ASSERT_EQ(want, memfilter_bloom_contains_hash(b, h));
	if (mf_test_have_avx2())
		ASSERT_EQ(want, memfilter_bloom_contains_hash_avx2(b, h));
}

TEST(single_key_exact_window)
{
	struct memfilter_bloom *b = mf_test_new(1, 1);
	u64 rng = 5, pat[MEMFILTER_BLOOM_BLOCK_WORDS];

	for (int i = 0; i < 2048; i++) {
		u64 h = mf_test_rand(&rng);

		for (u32 k = 0; k <= MEMFILTER_BLOOM_MAX_K + 1; k++) {
			u32 kk = k && k <= MEMFILTER_BLOOM_MAX_K ? k : MEMFILTER_BLOOM_MAX_K;

			b->p.k = k;
			memfilter_bloom_pattern(h, kk, pat);
			memcpy(b->words, pat, sizeof(pat));
			mf_test_one_block(b, h, true, _metadata);
			for (unsigned int j = 0; j < MEMFILTER_BLOOM_BLOCK_WORDS; j++)
				b->words[j] = pat[j] ? pat[j] : ~0ULL;
			mf_test_one_block(b, h, true, _metadata);
			for (unsigned int w = 0; w < MEMFILTER_BLOOM_BLOCK_WORDS; w++) {
				if (!pat[w])
					continue;
				memset(b->words, 0xff, sizeof(pat));
				b->words[w] = ~pat[w];
				mf_test_one_block(b, h, false, _metadata);
				memcpy(b->words, pat, sizeof(pat));
				b->words[w] = 0;
				mf_test_one_block(b, h, false, _metadata);
			}
		}
	}
	mf_test_free(b);
}

/*
 * Every exclusive insert path gives the filter the concurrent-safe one
 * gives, bit for bit: into an empty filter and into one half full (so the
 * ORs meet bits already set), at every k and several sizes.
 */
MF_LAYOUT_TEST(exclusive_matches_concurrent)
{
	static const u64 nblocks[] = { 1, 3, 1000, 65537 };
	u64 rng = 5, *h = malloc(4096 * sizeof(*h));
	bool simd = mf_test_have_avx2();

	if (!simd)
		TH_LOG("no AVX2 on this CPU: SIMD path not exercised");
	for (int kind = 0; kind < 2; kind++) {
		for (size_t nb = 0; nb < ARRAY_SIZE(nblocks); nb++) {
			for (u32 k = 1; k <= mf_test_kmax(); k++) {
				struct memfilter_bloom *c = mf_test_new(nblocks[nb], k);
				struct memfilter_bloom *x1 = mf_test_new(nblocks[nb], k);
				struct memfilter_bloom *xs = mf_test_new(nblocks[nb], k);
				struct memfilter_bloom *xv = mf_test_new(nblocks[nb], k);
				struct memfilter_bloom *xd = mf_test_new(nblocks[nb], k);
				size_t n = 4096, bytes = memfilter_bloom_bytes(&c->p);

				if (kind)
					mf_test_adversarial(h, n, &rng);
				else
					for (size_t i = 0; i < n; i++)
						h[i] = mf_test_rand(&rng);
				/* First half: concurrent-safe everywhere. */
				memfilter_bloom_add_hashes_scalar(c, h, n / 2);
				memfilter_bloom_add_hashes_scalar(x1, h, n / 2);
				memfilter_bloom_add_hashes_scalar(xs, h, n / 2);
				memfilter_bloom_add_hashes(xv, h, n / 2);
				memfilter_bloom_add_hashes(xd, h, n / 2);
				/* Second half (and the first again): exclusive. */
				memfilter_bloom_add_hashes_scalar(c, h, n);
				for (size_t i = 0; i < n; i++)
					memfilter_bloom_add_hash_exclusive(x1, h[i]);
				memfilter_bloom_add_hashes_exclusive_scalar(xs, h, n);
				if (simd)
					for (size_t i = 0; i < n; i += 200)
						memfilter_bloom_add_hashes_exclusive_avx2(xv,
											  h + i, min(n - i, (size_t)200));
				else
					memfilter_bloom_add_hashes_exclusive(xv, h, n);
				memfilter_bloom_add_hashes_exclusive(xd, h, n);
				ASSERT_EQ(0, memcmp(c->words, x1->words, bytes))
					TH_LOG("single: kind %d nblocks %llu k %u", kind,
					       (unsigned long long)nblocks[nb], k);
				ASSERT_EQ(0, memcmp(c->words, xs->words, bytes));
				ASSERT_EQ(0, memcmp(c->words, xv->words, bytes));
				ASSERT_EQ(0, memcmp(c->words, xd->words, bytes));
				/* Into an empty filter too. */
				memset(x1->words, 0, bytes);
				memset(xv->words, 0, bytes);
				memset(c->words, 0, bytes);
				memfilter_bloom_add_hashes(c, h, n);
				memfilter_bloom_add_hashes_exclusive(xv, h, n);
				for (size_t i = 0; i < n; i++)
					memfilter_bloom_add_hash_exclusive(x1, h[i]);
				ASSERT_EQ(0, memcmp(c->words, xv->words, bytes));
				ASSERT_EQ(0, memcmp(c->words, x1->words, bytes));
				mf_test_free(c);
				mf_test_free(x1);
				mf_test_free(xs);
				mf_test_free(xv);
				mf_test_free(xd);
			}
		}
	}
	free(h);
}

/*
 * The key batch pipeline (ring of MEMFILTER_BLOOM_AHEAD, MEMFILTER_SIMD_CHUNK sections),
 * AVX2 and scalar, against one key at a time: batch sizes below, at and
 * across the look-ahead and section boundaries, key lengths with and
 * without the 8-byte fast paths, under XXH64, SipHash and XXH3.
 */
MF_LAYOUT_TEST(key_batches)
{
	static const size_t counts[] = {
		0, 1, 2,
		MEMFILTER_BLOOM_AHEAD - 1, MEMFILTER_BLOOM_AHEAD,
		MEMFILTER_BLOOM_AHEAD + 1,
		63, 64, 65,
		MEMFILTER_SIMD_CHUNK - 1, MEMFILTER_SIMD_CHUNK,
		MEMFILTER_SIMD_CHUNK + 1,
		MEMFILTER_SIMD_CHUNK + MEMFILTER_BLOOM_AHEAD, 1000, 5000,
	};
	static const size_t lens[] = { 1, 4, 8, 13, 16, 40 };
	static const u64 skey[2] = { 0x1111, 0x2222 };
	size_t maxn = 5000, words = DIV_ROUND_UP(2 * maxn, BITS_PER_LONG);
	u8 *keys = malloc(2 * maxn * 40 + 1);
	unsigned long *bm = malloc(words * sizeof(*bm));
	unsigned long *bs = malloc(words * sizeof(*bs));
	u64 rng = 6;

	for (size_t i = 0; i < 2 * maxn * 40 + 1; i++)
		keys[i] = mf_test_rand(&rng);
	/* XXH64, SipHash, XXH3: each 8-byte key kind has its own loops. */
	for (int algo = 0; algo < 3; algo++) {
		for (size_t l = 0; l < ARRAY_SIZE(lens); l++) {
			for (size_t c = 0; c < ARRAY_SIZE(counts); c++) {
				size_t n = counts[c], len = lens[l];
				/* Odd offset: keys at any alignment. */
				const u8 *kp = keys + 1;
				struct memfilter_bloom *one = mf_test_sized(maxn, 40);
				struct memfilter_bloom *bat = mf_test_sized(maxn, 40);
				struct memfilter_bloom *sca = mf_test_sized(maxn, 40);
				struct memfilter_bloom *exb = mf_test_sized(maxn, 40);
				struct memfilter_bloom *exs = mf_test_sized(maxn, 40);
				struct memfilter_bloom *ex1 = mf_test_sized(maxn, 40);
				size_t bytes = memfilter_bloom_bytes(&one->p);
				struct memfilter_bloom *all[] = { one, bat, sca, exb, exs, ex1 };
				u32 ha = algo == 1 ? MEMFILTER_HASH_SIPHASH24 :
						     MEMFILTER_HASH_XXH3;

				for (size_t f = 0; algo && f < ARRAY_SIZE(all); f++)
					ASSERT_EQ(0, memfilter_hasher_init(&all[f]->p.hasher,
									   ha, 7, skey));
				for (size_t i = 0; i < n; i++) {
					memfilter_bloom_add_key(one, kp + i * len, len);
					memfilter_bloom_add_key_exclusive(ex1,
									  kp + i * len, len);
				}
				memfilter_bloom_add_keys(bat, kp, len, n);
				memfilter_bloom_keys_scalar(sca, kp, len, n, NULL,
							    MEMFILTER_BLOOM_OP_ADD);
				memfilter_bloom_add_keys_exclusive(exb, kp, len, n);
				memfilter_bloom_keys_scalar(exs, kp, len, n, NULL,
							    MEMFILTER_BLOOM_OP_ADD_EXCLUSIVE);
				for (size_t f = 1; f < ARRAY_SIZE(all); f++) {
					ASSERT_EQ(0, memcmp(one->words, all[f]->words,
							    bytes))
						TH_LOG("algo %d len %zu n %zu filter %zu",
						       algo, len, n, f);
				}
				/* Present keys then as many absent ones. */
				memset(bm, 0x55, words * sizeof(*bm));
				memset(bs, 0xaa, words * sizeof(*bs));
				memfilter_bloom_contains_keys(one, kp, len, 2 * n, bm);
				memfilter_bloom_keys_scalar(one, kp, len, 2 * n, bs,
							    MEMFILTER_BLOOM_OP_CONTAINS);
				for (size_t i = 0; i < 2 * n; i++) {
					bool want = memfilter_bloom_contains_key(one,
						kp + i * len, len);

					ASSERT_EQ(want, mf_test_bit(bm, i));
					ASSERT_EQ(want, mf_test_bit(bs, i));
					if (i < n)
						ASSERT_TRUE(want);
				}
				if (2 * n % BITS_PER_LONG) {
					ASSERT_EQ(0, bm[2 * n / BITS_PER_LONG] >>
						     (2 * n % BITS_PER_LONG));
					ASSERT_EQ(0, bs[2 * n / BITS_PER_LONG] >>
						     (2 * n % BITS_PER_LONG));
				}
				for (size_t f = 0; f < ARRAY_SIZE(all); f++)
					mf_test_free(all[f]);
			}
		}
	}
	free(bs);
	free(bm);
	free(keys);
}

TEST(probes_distinct)
{
	u64 rng = 2, h[1024], pat[MEMFILTER_BLOOM_BLOCK_WORDS];
	size_t n = mf_test_adversarial(h, ARRAY_SIZE(h), &rng);

	for (u32 k = 1; k <= MEMFILTER_BLOOM_MAX_K; k++) {
		struct memfilter_bloom *b = mf_test_new(1, k);

		for (size_t i = 0; i < n; i++) {
			unsigned int words = 0, bits = 0;

			memfilter_bloom_pattern(h[i], k, pat);
			for (int w = 0; w < MEMFILTER_BLOOM_BLOCK_WORDS; w++) {
				words += !!pat[w];
				bits += hweight64(pat[w]);
			}
			ASSERT_EQ(k, words);
			ASSERT_EQ(k, bits);
			memset(b->words, 0, 64);
			memfilter_bloom_add_hash(b, h[i]);
			ASSERT_EQ(k, memfilter_bloom_popcount(b));
			ASSERT_TRUE(memfilter_bloom_contains_hash(b, h[i]));
		}
		mf_test_free(b);
	}
}

MF_LAYOUT_TEST(keyed_and_unkeyed)
{
	static const u64 key[2] = { 0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL };
	struct memfilter_bloom *x = mf_test_sized(100000, 40);
	struct memfilter_bloom *s = mf_test_sized(100000, 40);
	u64 *keys = mf_test_keys(100000, 5);
	unsigned long *bm = calloc(100000 / BITS_PER_LONG + 1, sizeof(*bm));

	ASSERT_EQ(0, memfilter_hasher_init(&s->p.hasher, MEMFILTER_HASH_SIPHASH24, 0,
					   key));
	memfilter_bloom_add_keys(x, keys, 8, 100000);
	memfilter_bloom_add_keys(s, keys, 8, 100000);
	ASSERT_NE(0, memcmp(x->words, s->words, memfilter_bloom_bytes(&x->p)));
	memfilter_bloom_contains_keys(x, keys, 8, 100000, bm);
	for (size_t i = 0; i < 100000; i++)
		ASSERT_TRUE(mf_test_bit(bm, i));
	memset(bm, 0, 100000 / 8);
	memfilter_bloom_contains_keys(s, keys, 8, 100000, bm);
	for (size_t i = 0; i < 100000; i++)
		ASSERT_TRUE(mf_test_bit(bm, i));
	ASSERT_FALSE(bm[100000 / BITS_PER_LONG] >> (100000 % BITS_PER_LONG));
	free(bm);
	free(keys);
	mf_test_free(x);
	mf_test_free(s);
}

/*
 * The layouts written from their definitions (bloom.h), with none of the
 * core's code: a key's block is ((u128)h * nblocks) >> 64 and x its low
 * 32 bits; LINE64 sets bit (x * salt[w]) >> 26 of 64-bit word w for the k
 * words w from (x * 0x9e3779b9) >> 29, mod 8; SPLIT32 sets bit
 * (x * salt[i]) >> 27 of 32-bit word i for all 8 (Parquet's split-block
 * filter). The tables are little-endian, as the host's.
 */
static const u32 mf_ref_salt[8] = {
	0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d,
	0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31,
};

static u64 mf_ref_block(u64 h, u64 nblocks)
{
	return (u64)(((unsigned __int128)h * nblocks) >> 64);
}

/* Set (@set) or test @h's bits in the reference table @t; all were set? */
static bool mf_ref_op(u32 layout, u8 *t, u64 nblocks, u32 k, u64 h, bool set)
{
	u32 x = (u32)h, i, w, bit;
	bool all = true;

	if (layout == MEMFILTER_BLOOM_SPLIT32) {
		u32 *blk = (u32 *)(t + mf_ref_block(h, nblocks) * 32);

		for (i = 0; i < 8; i++) {
			bit = 1U << ((x * mf_ref_salt[i]) >> 27);
			all &= !!(blk[i] & bit);
			if (set)
				blk[i] |= bit;
		}
		return all;
	}
	u64 *blk = (u64 *)(t + mf_ref_block(h, nblocks) * 64);

	for (i = 0; i < k; i++) {
		w = (((x * 0x9e3779b9U) >> 29) + i) & 7;
		u64 b = 1ULL << ((x * mf_ref_salt[w]) >> 26);

		all &= !!(blk[w] & b);
		if (set)
			blk[w] |= b;
	}
	return all;
}

/*
 * Filters sized by memfilter_bloom_params_from_fpr() for 1% and 0.1%, of
 * each layout, on 2^17 keys: the table is bit for bit the reference's,
 * the false positives among 2M absent keys are exactly the reference's
 * and the counts pinned here (XXH64 seed 7, keys from 0 and from 2^40),
 * the rate is within 10% of the layout's model (4.5 standard deviations
 * at 0.1%) and at most 1% over the rate asked for (the model's rate is
 * at most it: LINE64 at 0.1% measures 1.0023, one standard deviation
 * above its model's 0.991), and the estimate from the fill is within 10%
 * of it.
 */
TEST(fpr_model_exact_counts)
{
	static const struct {
		u32 layout;
		u64 fpr_ppb;
		u32 q4;
		u64 hits;
	} cases[] = {
		{ MEMFILTER_BLOOM_LINE64, 10000000, 40, 20799 },
		{ MEMFILTER_BLOOM_LINE64, 1000000, 63, 2102 },
		{ MEMFILTER_BLOOM_SPLIT32, 10000000, 43, 19178 },
		{ MEMFILTER_BLOOM_SPLIT32, 1000000, 68, 2071 },
	};
	const size_t n = 1 << 17, nabsent = 2 << 20;
	u64 *keys = mf_test_keys(n, 0), *absent = mf_test_keys(nabsent, 1ULL << 40);
	unsigned long *bm = calloc(nabsent / BITS_PER_LONG, sizeof(*bm));

	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		struct memfilter_bloom_params p;
		struct memfilter_bloom *b;
		u64 hits = 0, ref_hits = 0, measured;
		u8 *ref;

		ASSERT_EQ(0, memfilter_bloom_params_from_fpr(&p, n, cases[c].fpr_ppb,
							     cases[c].layout));
		mf_test_layout = cases[c].layout;
		b = mf_test_new(p.nblocks, p.k);
		ASSERT_EQ(p.nblocks, b->p.nblocks);
		EXPECT_EQ(cases[c].q4, p.bits_per_key_q4);
		ref = calloc(1, memfilter_bloom_bytes(&p));
		memfilter_bloom_add_keys(b, keys, 8, n);
		for (size_t i = 0; i < n; i++)
			mf_ref_op(p.layout, ref, p.nblocks, p.k,
				  memfilter_hash(&b->p.hasher, &keys[i], 8), true);
		ASSERT_EQ(0, memcmp(ref, b->words, memfilter_bloom_bytes(&p)))
			TH_LOG("case %zu", c);
		memfilter_bloom_contains_keys(b, absent, 8, nabsent, bm);
		for (size_t i = 0; i < nabsent / BITS_PER_LONG; i++)
			hits += hweight64(bm[i]);
		for (size_t i = 0; i < nabsent; i++)
			ref_hits += mf_ref_op(p.layout, ref, p.nblocks, p.k,
					      memfilter_hash(&b->p.hasher, &absent[i], 8),
					      false);
		measured = hits * 1000000000ULL / nabsent;
		TH_LOG("%llu ppb asked: %llu hits", (unsigned long long)cases[c].fpr_ppb,
		       (unsigned long long)hits);
		EXPECT_EQ(ref_hits, hits);
		EXPECT_EQ(cases[c].hits, hits);
		EXPECT_LE(measured * 100, cases[c].fpr_ppb * 101);
		mf_test_near_model(_metadata, b, n, measured);
		free(ref);
		mf_test_free(b);
	}
	free(bm);
	free(absent);
	free(keys);
}

/*
 * SPLIT32 single keys against the reference: every query path finds a
 * key whose 8 bits (and only those) are set in its block; clearing any
 * one of them, even with every other bit of the block set, makes it
 * absent; every insert path sets exactly the reference's bits, 8 of them
 * in 8 distinct 32-bit words, whatever the hash (zeros, single bits).
 */
TEST(split32_exact_block)
{
	u64 rng = 5, h[1024];
	size_t n;

	mf_test_layout = MEMFILTER_BLOOM_SPLIT32;
	n = mf_test_adversarial(h, ARRAY_SIZE(h), &rng);
	for (size_t i = 0; i < n; i++) {
		struct memfilter_bloom *b = mf_test_new(2, 8);
		u32 *w32 = (u32 *)b->words;
		u8 ref[64] = { 0 };
		u64 blk = mf_ref_block(h[i], 2);

		mf_ref_op(MEMFILTER_BLOOM_SPLIT32, ref, 2, 8, h[i], true);
		for (int path = 0; path < 3 + 3 * mf_test_have_avx2(); path++) {
			memset(b->words, 0, 64);
			switch (path) {
			case 0:
				memfilter_bloom_add_hash_scalar(b, h[i]);
				break;
			case 1:
				memfilter_bloom_add_hash_exclusive_scalar(b, h[i]);
				break;
			case 2:
				memfilter_bloom_add_hashes_scalar(b, &h[i], 1);
				break;
			case 3:
				memfilter_bloom_add_hash_avx2(b, h[i]);
				break;
			case 4:
				memfilter_bloom_add_hash_exclusive_avx2(b, h[i]);
				break;
			default:
				memfilter_bloom_add_hashes_avx2(b, &h[i], 1);
				break;
			}
			ASSERT_EQ(0, memcmp(ref, b->words, 64))
				TH_LOG("hash %llx path %d", (unsigned long long)h[i], path);
		}
		ASSERT_EQ(8, memfilter_bloom_popcount(b));
		for (int j = 0; j < 8; j++)
			ASSERT_EQ(1, __builtin_popcount(w32[blk * 8 + j]));
		mf_test_one_block(b, h[i], true, _metadata);
		for (int j = 0; j < 8; j++) {
			u32 bit = w32[blk * 8 + j];

			memset(b->words, 0xff, 64);
			w32[blk * 8 + j] = ~bit;
			mf_test_one_block(b, h[i], false, _metadata);
			memcpy(b->words, ref, 64);
			w32[blk * 8 + j] = 0;
			mf_test_one_block(b, h[i], false, _metadata);
		}
		mf_test_free(b);
	}
}

TEST(sizing_split32)
{
	struct memfilter_bloom_params p;
	const u32 s = MEMFILTER_BLOOM_SPLIT32;

	/* Whole 64-byte lines: an even number of 32-byte blocks. */
	ASSERT_EQ(0, memfilter_bloom_params_from_bpk(&p, 1, 40, s));
	EXPECT_EQ(2, p.nblocks);
	EXPECT_EQ(8, p.k);
	EXPECT_EQ(s, p.layout);
	EXPECT_EQ(64, memfilter_bloom_bytes(&p));
	ASSERT_EQ(0, memfilter_bloom_params_from_bpk(&p, 1000, 40, s));
	EXPECT_EQ(40, p.nblocks);	/* 10000 bits: 39.06 blocks, then even */
	ASSERT_EQ(0, memfilter_bloom_params_from_bpk(&p, 1000, 44, s));
	EXPECT_EQ(44, p.nblocks);	/* 11000 bits: 42.97, 43, then even */
	ASSERT_EQ(0, memfilter_bloom_params_from_bpk(&p, 1000000, 64, s));
	EXPECT_EQ(62500, p.nblocks);
	ASSERT_EQ(0, memfilter_bloom_params_from_bpk(&p, 1ULL << 38, 128, s));
	EXPECT_EQ(MEMFILTER_BLOOM_MAX_BYTES, memfilter_bloom_bytes(&p));
	EXPECT_EQ(-E2BIG, memfilter_bloom_params_from_bpk(&p, (1ULL << 38) + 1, 128, s));
	EXPECT_EQ(-EINVAL, memfilter_bloom_params_from_bpk(&p, 10, 40, 2));
	EXPECT_EQ(-EINVAL, memfilter_bloom_params_from_fpr(&p, 10, 10000000, 2));
	EXPECT_EQ(-EINVAL, memfilter_bloom_params_from_bpk(&p, 0, 40, s));
	/* 1%: 10.75 bits/key (LINE64: 10); 0.1%: 17 (LINE64: 15.75). */
	ASSERT_EQ(0, memfilter_bloom_params_from_fpr(&p, 1000000, 10000000, s));
	EXPECT_EQ(43, p.bits_per_key_q4);
	EXPECT_LE(memfilter_bloom_model_fpr_ppb(&p, 1000000), 10000000);
	ASSERT_EQ(0, memfilter_bloom_params_from_fpr(&p, 1000000, 1000000, s));
	EXPECT_EQ(68, p.bits_per_key_q4);
	EXPECT_LE(memfilter_bloom_model_fpr_ppb(&p, 1000000), 1000000);
	/* The layout's floor at 64 bits/key: about 1.05 ppm. */
	ASSERT_EQ(0, memfilter_bloom_params_from_fpr(&p, 1000, 1100, s));
	EXPECT_EQ(254, p.bits_per_key_q4);
	EXPECT_EQ(-EINVAL, memfilter_bloom_params_from_fpr(&p, 1000, 1000, s));
	ASSERT_EQ(0, memfilter_bloom_params_from_fpr(&p, 1000, 1000, MEMFILTER_BLOOM_LINE64));
}

/*
 * The default layout: SPLIT32 wherever it needs at most 8% more bits per
 * key than LINE64 at the rate asked (27 / 25 quarters), LINE64 elsewhere
 * and for bits per key. Pinned at the rates users ask for most, and the
 * rule itself checked over rates from 1 ppb to 99.9%.
 */
TEST(default_layout)
{
	static const struct { u64 ppb; u32 layout; } pin[] = {
		{ 0, MEMFILTER_BLOOM_LINE64 },		/* bits per key */
		{ 100000000, MEMFILTER_BLOOM_LINE64 },	/* 10%: +20% */
		{ 20000000, MEMFILTER_BLOOM_LINE64 },	/* 2%: +8.8% */
		{ 10000000, MEMFILTER_BLOOM_SPLIT32 },	/* 1%: +7.5% */
		{ 5000000, MEMFILTER_BLOOM_SPLIT32 },	/* 0.5%: +4.3% */
		{ 1000000, MEMFILTER_BLOOM_SPLIT32 },	/* 0.1%: +7.9% */
		{ 500000, MEMFILTER_BLOOM_LINE64 },	/* 0.05%: +8.3% */
		{ 100000, MEMFILTER_BLOOM_LINE64 },	/* 0.01%: +11.6% */
		{ 1000, MEMFILTER_BLOOM_LINE64 },	/* below SPLIT32's reach */
	};
	struct memfilter_bloom_params l, s;
	u64 ppb;
	size_t i;

	for (i = 0; i < sizeof(pin) / sizeof(pin[0]); i++)
		EXPECT_EQ(pin[i].layout, memfilter_bloom_default_layout(pin[i].ppb))
			TH_LOG("%llu ppb", (unsigned long long)pin[i].ppb);
	for (ppb = 1; ppb < 999000000; ppb += ppb / 64 + 1) {
		bool both = !memfilter_bloom_params_from_fpr(&l, 1, ppb, MEMFILTER_BLOOM_LINE64) &&
			    !memfilter_bloom_params_from_fpr(&s, 1, ppb, MEMFILTER_BLOOM_SPLIT32);
		u32 want = both && s.bits_per_key_q4 * 25 <= l.bits_per_key_q4 * 27 ?
			   MEMFILTER_BLOOM_SPLIT32 : MEMFILTER_BLOOM_LINE64;

		ASSERT_EQ(want, memfilter_bloom_default_layout(ppb))
			TH_LOG("%llu ppb", (unsigned long long)ppb);
	}
	/*
	 * The band Documentation/filters.rst and memfilterctl(8) state:
	 * SPLIT32 at every rate from 0.143% to 1.33%; LINE64 below 0.0347%
	 * (the lowest island of SPLIT32) and from 2.93% to 99.7%.
	 */
	for (ppb = 1430000; ppb <= 13300000; ppb += ppb / 4096 + 1)
		ASSERT_EQ(MEMFILTER_BLOOM_SPLIT32, memfilter_bloom_default_layout(ppb))
			TH_LOG("%llu ppb", (unsigned long long)ppb);
	for (ppb = 1; ppb < 347000; ppb += ppb / 4096 + 1)
		ASSERT_EQ(MEMFILTER_BLOOM_LINE64, memfilter_bloom_default_layout(ppb))
			TH_LOG("%llu ppb", (unsigned long long)ppb);
	for (ppb = 29300000; ppb < 997000000; ppb += ppb / 4096 + 1)
		ASSERT_EQ(MEMFILTER_BLOOM_LINE64, memfilter_bloom_default_layout(ppb))
			TH_LOG("%llu ppb", (unsigned long long)ppb);
}

TEST(sizing)
{
	struct memfilter_bloom_params p;

	ASSERT_EQ(0, memfilter_bloom_params_from_bpk(&p, 1, 40, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(1, p.nblocks);
	EXPECT_EQ(6, p.k);
	EXPECT_EQ(64, memfilter_bloom_bytes(&p));
	ASSERT_EQ(0, memfilter_bloom_params_from_bpk(&p, 1000, 40, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(20, p.nblocks);	/* 10000 bits round up to 20 blocks */
	ASSERT_EQ(0, memfilter_bloom_params_from_bpk(&p, 1000000, 64, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(31250, p.nblocks);
	EXPECT_EQ(8, p.k);
	EXPECT_EQ(64, p.bits_per_key_q4);
	EXPECT_EQ(1000000, p.capacity);
	/* 1 TiB exactly is allowed, one more block is not. */
	ASSERT_EQ(0, memfilter_bloom_params_from_bpk(&p, 1ULL << 38, 128, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(MEMFILTER_BLOOM_MAX_BYTES, memfilter_bloom_bytes(&p));
	EXPECT_EQ(-E2BIG, memfilter_bloom_params_from_bpk(&p, (1ULL << 38) + 1, 128, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(-E2BIG, memfilter_bloom_params_from_bpk(&p, 1ULL << 40, 40, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(-E2BIG, memfilter_bloom_params_from_bpk(&p, ~0ULL, 256, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(-E2BIG, memfilter_bloom_params_from_bpk(&p, ~0ULL >> 3, 40, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(-E2BIG, memfilter_bloom_params_from_fpr(&p, ~0ULL, 10000000, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(-EINVAL, memfilter_bloom_params_from_bpk(&p, 0, 40, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(-EINVAL, memfilter_bloom_params_from_bpk(&p, 10, 3, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(-EINVAL, memfilter_bloom_params_from_bpk(&p, 10, 257, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(-EINVAL, memfilter_bloom_params_from_fpr(&p, 0, 10000000, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(-EINVAL, memfilter_bloom_params_from_fpr(&p, 10, 0, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(-EINVAL, memfilter_bloom_params_from_fpr(&p, 10, 1000000000, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(-EINVAL, memfilter_bloom_params_from_fpr(&p, 10, ~0ULL, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(-EINVAL, memfilter_bloom_params_from_fpr(&p, 10, 1, MEMFILTER_BLOOM_LINE64));
	/* 1%: a little under 10 bits/key; 0.1%: under 16. */
	ASSERT_EQ(0, memfilter_bloom_params_from_fpr(&p, 1000000, 10000000, MEMFILTER_BLOOM_LINE64));
	EXPECT_GE(p.bits_per_key_q4, 36);
	EXPECT_LE(p.bits_per_key_q4, 40);
	EXPECT_LE(memfilter_bloom_model_fpr_ppb(&p, 1000000), 10000000);
	ASSERT_EQ(0, memfilter_bloom_params_from_fpr(&p, 1000000, 1000000, MEMFILTER_BLOOM_LINE64));
	EXPECT_LE(p.bits_per_key_q4, 64);
	EXPECT_LE(memfilter_bloom_model_fpr_ppb(&p, 1000000), 1000000);
	ASSERT_EQ(0, memfilter_bloom_params_from_fpr(&p, 1, 999999999, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(1, p.nblocks);
}

MF_LAYOUT_TEST(model_monotone)
{
	struct memfilter_bloom_params p;
	u64 prev = 0;

	ASSERT_EQ(0, memfilter_bloom_params_from_bpk(&p, 1000000, 40, mf_test_layout));
	EXPECT_EQ(0, memfilter_bloom_model_fpr_ppb(&p, 0));
	for (u64 n = 1000; n <= 100000000; n += n / 8) {
		u64 f = memfilter_bloom_model_fpr_ppb(&p, n);

		ASSERT_GE(f, prev);
		ASSERT_LE(f, 1000000000);
		prev = f;
	}
	EXPECT_GT(prev, 900000000);
}

MF_LAYOUT_TEST(stats)
{
	struct memfilter_bloom *b = mf_test_new(16, 6);
	u64 bytes = memfilter_bloom_bytes(&b->p);
	unsigned long bm[2];
	u64 h[70], rng = 3;

	EXPECT_EQ(0, memfilter_bloom_popcount(b));
	EXPECT_EQ(0, memfilter_bloom_est_fpr_ppb(b));
	for (int i = 0; i < 70; i++)
		h[i] = mf_test_rand(&rng);
	memfilter_bloom_add_hashes(b, h, 1);
	EXPECT_EQ(b->p.k, memfilter_bloom_popcount(b));
	memset(bm, 0xff, sizeof(bm));
	memfilter_bloom_contains_hashes(b, h, 70, bm);
	EXPECT_TRUE(bm[0] & 1);
	EXPECT_EQ(0, bm[1] >> (70 - BITS_PER_LONG));
	memset(b->words, 0xff, bytes);
	EXPECT_EQ(bytes * 8, memfilter_bloom_popcount(b));
	EXPECT_EQ(1000000000, memfilter_bloom_est_fpr_ppb(b));
	mf_test_free(b);
}

/*
 * Concurrent-safe inserters on every path at once (single keys, SIMD where
 * the CPU has it, and scalar; key and hash batches) into a small filter,
 * so they keep hitting the same words: the result must be bit for bit the
 * filter one thread builds from the same keys, i.e. no insert lost a bit
 * of another's (ORs commute, so any interleaving gives that filter).
 */
#define MF_CONC_THREADS	4
#define MF_CONC_KEYS	3000

struct mf_conc_arg {
	struct memfilter_bloom *b;
	const u64 *keys;
	int path;
};

static void *mf_conc_insert(void *p)
{
	struct mf_conc_arg *a = p;
	u64 h[MF_CONC_KEYS];

	for (size_t i = 0; i < MF_CONC_KEYS; i++)
		h[i] = memfilter_hash(&a->b->p.hasher, &a->keys[i], 8);
	switch (a->path) {
	case 0:
		for (size_t i = 0; i < MF_CONC_KEYS; i++)
			memfilter_bloom_add_key(a->b, &a->keys[i], 8);
		break;
	case 1:
		memfilter_bloom_add_keys(a->b, a->keys, 8, MF_CONC_KEYS);
		break;
	case 2:
		/* Scalar: half one by one, half as a batch. */
		for (size_t i = 0; i < MF_CONC_KEYS / 2; i++)
			memfilter_bloom_add_hash_scalar(a->b, h[i]);
		memfilter_bloom_add_hashes_scalar(a->b, h + MF_CONC_KEYS / 2,
						  MF_CONC_KEYS - MF_CONC_KEYS / 2);
		break;
	default:
		memfilter_bloom_add_hashes(a->b, h, MF_CONC_KEYS);
		break;
	}
	return NULL;
}

/* Attach stripe locks to @b (freed by mf_test_free_locked()). */
static void mf_test_attach(struct memfilter_bloom *b)
{
	void *mem = aligned_alloc(64, MEMFILTER_BLOOM_STRIPES_BYTES);

	memfilter_bloom_attach_stripes(b, mem);
}

static void mf_test_free_locked(struct memfilter_bloom *b)
{
	free(b->stripes);
	mf_test_free(b);
}

/*
 * 50 rounds of MF_CONC_THREADS threads running @fn on their paths into one
 * 4 KiB filter (stripe-locked if @locked), against the filter one thread
 * builds from the same keys.
 */
static void mf_conc_run(struct __test_metadata *_metadata, void *(*fn)(void *),
			bool locked)
{
	for (int round = 0; round < 50; round++) {
		/* 4 KiB whatever the layout: 64 LINE64 or 128 SPLIT32 blocks. */
		u64 nb = 4096 / memfilter_bloom_block_bytes(mf_test_layout);
		struct memfilter_bloom *b = mf_test_new(nb, 6);
		struct memfilter_bloom *ref = mf_test_new(nb, 6);
		u64 bytes = memfilter_bloom_bytes(&b->p);
		struct mf_conc_arg a[MF_CONC_THREADS];
		pthread_t t[MF_CONC_THREADS];
		u64 *keys = mf_test_keys(MF_CONC_THREADS * MF_CONC_KEYS,
					 (u64)round << 32);

		if (locked)
			mf_test_attach(b);
		for (int i = 0; i < MF_CONC_THREADS; i++) {
			a[i].b = b;
			a[i].keys = keys + i * MF_CONC_KEYS;
			a[i].path = (i + round) % MF_CONC_THREADS;
			ASSERT_EQ(0, pthread_create(&t[i], NULL, fn, &a[i]));
		}
		for (int i = 0; i < MF_CONC_THREADS; i++)
			ASSERT_EQ(0, pthread_join(t[i], NULL));
		memfilter_bloom_add_keys_exclusive(ref, keys, 8,
						   MF_CONC_THREADS * MF_CONC_KEYS);
		ASSERT_EQ(0, memcmp(ref->words, b->words, bytes))
			TH_LOG("round %d", round);
		/* Not saturated: the comparison can fail. */
		ASSERT_LT(memfilter_bloom_popcount(ref), bytes * 8 * 99 / 100);
		free(keys);
		if (locked)
			free(b->stripes);
		mf_test_free(b);
		mf_test_free(ref);
	}
}

MF_LAYOUT_TEST(concurrent_inserters_lose_nothing)
{
	mf_conc_run(_metadata, mf_conc_insert, false);
}

/*
 * The stripe-locked inserts (what the module's Bloom filters use): for
 * hash batches of every size around the thresholds (one key; the key by
 * key path below MEMFILTER_BLOOM_SORT_MIN; sorted chunks; several chunks),
 * with keys repeated inside a batch, the AVX2 and the scalar walks give
 * the bits and the test-and-add answers of the atomic calls.
 */
MF_LAYOUT_TEST(locked_matches_atomic)
{
	static const size_t sizes[] = { 1, 5, 31, 32, 33, 255, 256, 257, 1000 };
	u64 rng = 11, h[1000];
	unsigned long want[16], got[16], got_s[16];

	for (size_t z = 0; z < ARRAY_SIZE(sizes); z++) {
		size_t n = sizes[z], words = DIV_ROUND_UP(n, BITS_PER_LONG);
		struct memfilter_bloom *ref = mf_test_new(300, 6);
		struct memfilter_bloom *b = mf_test_new(300, 6);
		struct memfilter_bloom *bs = mf_test_new(300, 6);
		u64 bytes = memfilter_bloom_bytes(&b->p);

		mf_test_attach(b);
		mf_test_attach(bs);
		for (int round = 0; round < 20; round++) {
			for (size_t i = 0; i < n; i++)
				h[i] = i && mf_test_rand(&rng) % 8 == 0 ?
				       h[mf_test_rand(&rng) % i] : mf_test_rand(&rng);
			memset(got, 0xa5, sizeof(got));
			memset(got_s, 0x5a, sizeof(got_s));
			if (round % 2) {
				memfilter_bloom_test_and_add_hashes(ref, h, n, want);
				memfilter_bloom_test_and_add_hashes_locked(b, h, n, got);
				memfilter_bloom_locked_scalar(bs, h, n, got_s);
				ASSERT_EQ(0, memcmp(want, got, words * sizeof(long)))
					TH_LOG("n %zu round %d", n, round);
				ASSERT_EQ(0, memcmp(want, got_s, words * sizeof(long)))
					TH_LOG("n %zu round %d", n, round);
			} else {
				memfilter_bloom_add_hashes(ref, h, n);
				memfilter_bloom_add_hashes_locked(b, h, n);
				memfilter_bloom_locked_scalar(bs, h, n, NULL);
			}
			ASSERT_EQ(0, memcmp(ref->words, b->words, bytes));
			ASSERT_EQ(0, memcmp(ref->words, bs->words, bytes));
		}
		/* Single keys, present and new. */
		for (int i = 0; i < 500; i++) {
			u64 x = i % 3 ? mf_test_rand(&rng) : h[i % n];

			memfilter_bloom_add_hash(ref, x);
			memfilter_bloom_add_hash_locked(b, x);
		}
		ASSERT_EQ(0, memcmp(ref->words, b->words, bytes));
		/* Not saturated: the comparisons can fail. */
		ASSERT_LT(memfilter_bloom_popcount(ref), bytes * 8 * 9 / 10);
		mf_test_free(ref);
		mf_test_free_locked(b);
		mf_test_free_locked(bs);
	}
}

/*
 * Every stripe-locked writer at once, as in the module (single keys from
 * softirqs, batches from ioctls, test-and-add from packet paths): 4
 * threads hammer a 64-block filter (one block per stripe) with single
 * adds, AVX2 and scalar batch adds, and test-and-adds of batches of 1 to
 * 300 keys (key by key and sorted). The result must be bit for bit the
 * filter one thread builds: a plain read-modify-write outside its lock
 * would lose bits here (it does with memfilter_lock() made a no-op).
 */
static void *mf_locked_insert(void *p)
{
	struct mf_conc_arg *a = p;
	u64 h[MF_CONC_KEYS], rng = a->path + 1;
	unsigned long res[DIV_ROUND_UP(300, BITS_PER_LONG)];
	size_t i, m;

	for (i = 0; i < MF_CONC_KEYS; i++)
		h[i] = memfilter_hash(&a->b->p.hasher, &a->keys[i], 8);
	switch (a->path) {
	case 0:
		for (i = 0; i < MF_CONC_KEYS; i++)
			memfilter_bloom_add_hash_locked(a->b, h[i]);
		break;
	case 1:
		for (i = 0; i < MF_CONC_KEYS; i += 256)
			memfilter_bloom_add_hashes_locked(a->b, h + i,
							  min(MF_CONC_KEYS - i, (size_t)256));
		break;
	case 2:
		for (i = 0; i < MF_CONC_KEYS; i += 512)
			memfilter_bloom_locked_scalar(a->b, h + i,
						      min(MF_CONC_KEYS - i, (size_t)512),
						      NULL);
		break;
	default:
		for (i = 0; i < MF_CONC_KEYS; i += m) {
			m = min(MF_CONC_KEYS - i, 1 + mf_test_rand(&rng) % 300);
			memfilter_bloom_test_and_add_hashes_locked(a->b, h + i, m, res);
		}
		break;
	}
	return NULL;
}

MF_LAYOUT_TEST(locked_writers_lose_nothing)
{
	mf_conc_run(_metadata, mf_locked_insert, true);
}

/*
 * memfilter_state_contains_key() (memfilter_contains() in the module):
 * every type's contains_key gives the answer contains gives the key's
 * hash, for keys of 1 to 40 bytes, under XXH64, SipHash and XXH3, and
 * every added key is found (Bloom: half of them added by
 * memfilter_bloom_add_key()), for Bloom and window filters of each layout
 * (create.layout 1 and 2, and 0, the default). tests/native/single_key_test.c
 * covers the growing filter, rotations and test_and_add_key.
 */
TEST(contains_key_op)
{
	static const u32 types[] = { MEMFILTER_TYPE_BLOOM, MEMFILTER_TYPE_CUCKOO,
				     MEMFILTER_TYPE_WINDOW };
	u8 key[40];
	u64 rng = 6;

	for (size_t t = 0; t < ARRAY_SIZE(types); t++) {
		/* XXH64, SipHash-2-4 (keyed), XXH3; each layout but on cuckoo. */
		for (int kl = 0; kl < (types[t] == MEMFILTER_TYPE_CUCKOO ? 3 : 9); kl++) {
			int keyed = kl % 3;
			struct memfilter_create c = {
				.size = sizeof(c), .type = types[t],
				.capacity = 2000, .seed = keyed == 1 ? 0 : 9,
				.flags = keyed == 1 ? MEMFILTER_CREATE_KEYED :
					 keyed ? MEMFILTER_CREATE_SEED | MEMFILTER_CREATE_XXH3 :
					 MEMFILTER_CREATE_SEED | MEMFILTER_CREATE_XXH64,
				.layout = kl / 3,
			};
			const struct memfilter_type_ops *ops;
			union memfilter_params p;
			union memfilter_state st;
			unsigned long res[1];
			u32 done, hits = 0;
			void *mem;

			if (types[t] == MEMFILTER_TYPE_CUCKOO)
				c.fingerprint_bits = 12;
			else
				c.bits_per_key_q4 = 40;
			if (types[t] == MEMFILTER_TYPE_WINDOW) {
				c.generations = 2;
				c.period_ms = 1000;
			}
			ASSERT_EQ(0, memfilter_create_params(&c, &ops, &p))
				TH_LOG("type %u keyed %d layout %u", types[t], keyed, c.layout);
			ASSERT_NE(NULL, ops->contains_key);
			mem = aligned_alloc(64, ops->mem_bytes(&p));
			memset(mem, 0, ops->mem_bytes(&p));
			memset(&st, 0, sizeof(st));
			ops->init(&st, &p, mem);
			for (int i = 0; i < 4000; i++) {
				size_t len = 1 + i % sizeof(key);
				bool add = i < 2000, got;
				u64 h;

				for (size_t j = 0; j < len; j++)
					key[j] = mf_test_rand(&rng);
				h = memfilter_key_hash(ops, &st, key, len);
				/* Bloom: every other key through the key call. */
				if (add && types[t] == MEMFILTER_TYPE_BLOOM && i % 2)
					memfilter_bloom_add_key(&st.bloom, key, len);
				else if (add)
					ASSERT_EQ(0, ops->add(&st, &h, 1, res, &done));
				res[0] = 0;
				ops->contains(&st, &h, 1, res);
				got = memfilter_state_contains_key(ops, &st, key, len);
				ASSERT_EQ(res[0] & 1, got)
					TH_LOG("type %u keyed %d len %zu", types[t], keyed, len);
				if (add) {
					ASSERT_TRUE(got);
				} else {
					hits += got;
				}
			}
			/* Absent keys: about 1% false positives, not all. */
			ASSERT_LT(hits, 200);
			free(mem);
		}
	}
}

/*
 * The single-key test-and-add (memfilter_bloom_test_and_add_key(), the
 * type's test_and_add_key) against the batch calls on the keys' hashes,
 * with and without stripes attached, for XXH3, XXH64 and SipHash and keys
 * of 4, 8 and 16 bytes (hashed straight-line) and others (the general
 * hash), both layouts: the same answers key by key, repeats included, and
 * the same table bit for bit.
 */
TEST(single_test_and_add_matches_batch)
{
	static const u32 flags[] = {
		MEMFILTER_CREATE_SEED | MEMFILTER_CREATE_XXH3,
		MEMFILTER_CREATE_SEED | MEMFILTER_CREATE_XXH64,
		MEMFILTER_CREATE_KEYED,
	};
	static const size_t lens[] = { 4, 8, 16, 1, 5, 12, 33 };
	static u8 keys[1500][40];
	unsigned long bm[DIV_ROUND_UP(1500, BITS_PER_LONG)];
	u64 rng = 77, h[1500];
	u32 present = 0;

	for (size_t fl = 0; fl < ARRAY_SIZE(flags); fl++) {
		for (size_t l = 0; l < ARRAY_SIZE(lens); l++) {
			for (int locked = 0; locked < 4; locked++) {
				struct memfilter_create c = {
					.size = sizeof(c), .type = MEMFILTER_TYPE_BLOOM,
					.capacity = 1000, .bits_per_key_q4 = 40,
					.flags = flags[fl],
					.seed = flags[fl] & MEMFILTER_CREATE_SEED ? 3 : 0,
					.layout = locked < 2 ? MEMFILTER_LAYOUT_LINE64 :
						  MEMFILTER_LAYOUT_SPLIT32,
				};
				const struct memfilter_type_ops *ops;
				union memfilter_params p;
				union memfilter_state one, batch;
				size_t len = lens[l];
				void *m1, *m2;

				ASSERT_EQ(0, memfilter_create_params(&c, &ops, &p));
				ASSERT_NE(NULL, ops->test_and_add_key);
				m1 = aligned_alloc(64, ops->mem_bytes(&p));
				m2 = aligned_alloc(64, ops->mem_bytes(&p));
				memset(m1, 0, ops->mem_bytes(&p));
				memset(m2, 0, ops->mem_bytes(&p));
				ops->init(&one, &p, m1);
				ops->init(&batch, &p, m2);
				if (locked % 2) {
					mf_test_attach(&one.bloom);
					mf_test_attach(&batch.bloom);
				}
				/* A quarter of the keys repeat an earlier one. */
				for (size_t i = 0; i < 1500; i++) {
					if (i && !(mf_test_rand(&rng) & 3))
						memcpy(keys[i], keys[mf_test_rand(&rng) % i], len);
					else
						for (size_t j = 0; j < len; j++)
							keys[i][j] = mf_test_rand(&rng);
					h[i] = memfilter_key_hash(ops, &batch, keys[i], len);
				}
				memset(bm, 0, sizeof(bm));
				if (locked % 2)
					memfilter_bloom_test_and_add_hashes_locked(&batch.bloom,
										   h, 1500, bm);
				else
					memfilter_bloom_test_and_add_hashes(&batch.bloom, h,
									    1500, bm);
				for (size_t i = 0; i < 1500; i++) {
					int got = memfilter_state_test_and_add_key(ops, &one,
										   keys[i], len);

					ASSERT_EQ(mf_test_bit(bm, i), got)
						TH_LOG("flags %x len %zu locked %d key %zu",
						       flags[fl], len, locked, i);
					present += got;
				}
				ASSERT_EQ(0, memcmp(m1, m2, ops->mem_bytes(&p)));
				if (locked % 2) {
					free(one.bloom.stripes);
					free(batch.bloom.stripes);
				}
				free(m1);
				free(m2);
			}
		}
	}
	/* Repeats were found present: the comparison saw both answers. */
	EXPECT_LT(3 * 7 * 4 * 300, present);
	EXPECT_GT(3 * 7 * 4 * 600, present);
}

TEST_HARNESS_MAIN
