// SPDX-License-Identifier: GPL-2.0
/*
 * Native tests of memfilter's growing filter (core/grow.c) and of
 * libmemfilter's offline growing filters, built in userspace with ASan and
 * UBSan from the sources the module uses: sizing and its limits, the
 * compound false-positive bound of every sub-filter sequence, growth with
 * exact sub-filter counts and key counts, no false negative, the false
 * positives counted exactly against sub-filters rebuilt by hand from
 * core/bloom.c with the same seed, ENOSPC at max_subs with nothing lost,
 * images (round trip, a grown-then-loaded filter growing on, and a loader
 * that refuses every inconsistent field), and inserts racing growth and
 * queries under threads. Nothing is timed.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "filter_type.h"
#include "image.h"
#include "kselftest_harness.h"
#include "libmemfilter.h"
#include "native_utils.h"

#define HDR	MEMFILTER_IMAGE_HDR_SIZE
#define SEED	0x5eed
/* Absent keys live far from the present ones. */
#define ABSENT	(1ULL << 40)

static struct mf_offline *mf_test_grow(u64 capacity, double fpr,
				       unsigned int max_subs,
				       unsigned int factor, double ratio)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_GROW, .capacity = capacity,
		.fpr = fpr, .fixed_seed = true, .seed = SEED);
	MF_OPTS(mf_grow_opts, g, .max_subs = max_subs, .factor = factor,
		.ratio = ratio);
	struct mf_offline *f;

	if (mf_offline_create_grow(&o, &g, &f))
		return NULL;
	return f;
}

TEST(params)
{
	struct memfilter_grow_params p;
	struct memfilter_bloom_params sub;
	u32 i;

	ASSERT_EQ(0, memfilter_grow_params_init(&p, 1000, 10000000, 0, 0, 0, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(MEMFILTER_GROW_MAX_SUBS, p.max_subs);
	EXPECT_EQ(2, p.factor);
	EXPECT_EQ(50, p.ratio_pct);
	EXPECT_EQ(1, p.nsubs);
	EXPECT_EQ(1000, p.sub0.capacity);
	EXPECT_EQ(-EINVAL, memfilter_grow_params_init(&p, 0, 10000000, 0, 0, 0, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(-EINVAL, memfilter_grow_params_init(&p, 1000, 0, 0, 0, 0, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(-EINVAL, memfilter_grow_params_init(&p, 1000, 1000000000,
						     0, 0, 0, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(-EINVAL, memfilter_grow_params_init(&p, 1000, 10000000,
						     MEMFILTER_GROW_MAX_SUBS + 1,
						     0, 0, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(-EINVAL, memfilter_grow_params_init(&p, 1000, 10000000, 0,
						     MEMFILTER_GROW_MAX_FACTOR + 1,
						     0, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(-EINVAL, memfilter_grow_params_init(&p, 1000, 10000000, 0, 0,
						     100, MEMFILTER_BLOOM_LINE64));
	/* A first sub-filter the layout cannot reach (~300 ppb at best). */
	EXPECT_EQ(-EINVAL, memfilter_grow_params_init(&p, 1000, 100, 0, 0, 0, MEMFILTER_BLOOM_LINE64));

	/* Sub-filter i: capacity * 3^i at 1% * 0.75 * 0.25^i, rounded down. */
	ASSERT_EQ(0, memfilter_grow_params_init(&p, 1000, 10000000, 8, 3, 25, MEMFILTER_BLOOM_LINE64));
	for (i = 0; i < 4; i++) {
		u64 cap = 1000, fpr = 7500000;

		for (u32 j = 0; j < i; j++) {
			cap *= 3;
			fpr = fpr * 25 / 100;
		}
		ASSERT_EQ(0, memfilter_grow_sub_params(&p, i, &sub));
		EXPECT_EQ(cap, sub.capacity);
		EXPECT_LE(memfilter_bloom_model_fpr_ppb(&sub, cap), fpr);
	}
	EXPECT_EQ(-EINVAL, memfilter_grow_sub_params(&p, 8, &sub));
	/* 9e6 * 0.1^5 = 90 ppb: beyond the layout (~300 ppb), so no 6th. */
	ASSERT_EQ(0, memfilter_grow_params_init(&p, 1000, 10000000, 8, 3, 10, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(0, memfilter_grow_sub_params(&p, 4, &sub));
	EXPECT_EQ(-EINVAL, memfilter_grow_sub_params(&p, 5, &sub));
	/* Capacities past the layout or 64 bits are refused, not wrapped. */
	ASSERT_EQ(0, memfilter_grow_params_init(&p, 1ULL << 20, 10000000, 16,
						16, 50, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(-E2BIG, memfilter_grow_sub_params(&p, 6, &sub));
	EXPECT_EQ(-E2BIG, memfilter_grow_sub_params(&p, 11, &sub));

	/* The offline library refuses what the kernel would. */
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_GROW, .capacity = 10,
		.bits_per_key = 10);
	struct mf_offline *f;

	EXPECT_EQ(-EINVAL, mf_offline_create_grow(&o, NULL, &f));
	o.bits_per_key = 0;
	o.fpr = 0.01;
	MF_OPTS(mf_grow_opts, g, .ratio = 1.0);
	EXPECT_EQ(-EINVAL, mf_offline_create_grow(&o, &g, &f));
	g.ratio = 0.004;
	EXPECT_EQ(-EINVAL, mf_offline_create_grow(&o, &g, &f));
	o.type = MF_TYPE_BLOOM;
	g.ratio = 0;
	EXPECT_EQ(-EINVAL, mf_offline_create_grow(&o, &g, &f));
}

/* The sum of every sub-filter's model rate at capacity: under the bound. */
MF_LAYOUT_TEST(compound_bound)
{
	static const u32 ratios[] = { 10, 25, 50, 75, 90 };
	static const u32 factors[] = { 1, 2, 4, 16 };
	static const u64 fprs[] = { 100000000, 10000000, 1000000, 100000 };
	struct memfilter_grow_params p;
	struct memfilter_bloom_params sub;
	u32 r, s, x, i, checked = 0;

	for (x = 0; x < ARRAY_SIZE(fprs); x++)
	for (r = 0; r < ARRAY_SIZE(ratios); r++)
	for (s = 0; s < ARRAY_SIZE(factors); s++) {
		u64 sum = 0;

		if (memfilter_grow_params_init(&p, 1000, fprs[x], 0,
					       factors[s], ratios[r], mf_test_layout))
			continue;
		for (i = 0; i < p.max_subs; i++) {
			if (memfilter_grow_sub_params(&p, i, &sub))
				break;
			sum += memfilter_bloom_model_fpr_ppb(&sub, sub.capacity);
			checked++;
		}
		EXPECT_LE(sum, fprs[x]);
	}
	EXPECT_GT(checked, 100);
}

/*
 * 10,000 keys into 1,000 + 2,000 + 4,000 + 8,000: four sub-filters holding
 * 1,000, 2,000, 4,000 and 3,000 keys; every key present; the false
 * positives among a million absent keys exactly those of four Bloom
 * filters built by hand from core/bloom.c, and under the 1% bound.
 */
TEST(grows_exactly)
{
	const size_t n = 10000, nabsent = 1000000;
	static const u64 want_keys[] = { 1000, 2000, 4000, 3000 };
	MF_OPTS(mf_grow_info, gi);
	struct memfilter_bloom subs[4];
	struct memfilter_grow_params p;
	struct mf_offline *f = mf_test_grow(1000, 0.01, 0, 0, 0);
	u64 *keys = mf_test_keys(n, 0), *absent = mf_test_keys(nabsent, ABSENT);
	u64 *res = calloc((nabsent + 63) / 64, 8), hits, want = 0, at = 0;
	struct mf_info info;
	size_t done;
	u32 i;

	ASSERT_NE(NULL, f);
	EXPECT_EQ(n, mf_offline_add(f, keys, 8, n, NULL, &done));
	EXPECT_EQ(n, done);
	ASSERT_EQ(0, mf_offline_grow_info(f, &gi));
	EXPECT_EQ(4, gi.subfilters);
	EXPECT_EQ(16, gi.max_subs);
	EXPECT_EQ(2, gi.factor);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(want_keys[i], gi.keys[i]);
	ASSERT_EQ(0, mf_offline_info(f, &info));
	EXPECT_EQ(MF_TYPE_GROW, info.type);
	EXPECT_EQ(15000, info.capacity);
	EXPECT_EQ(n, info.keys);
	EXPECT_FALSE(info.overfill);
	EXPECT_EQ(n, mf_offline_query(f, keys, 8, n, NULL, NULL));

	/* The same four sub-filters, by hand, with the default hash. */
	ASSERT_EQ(0, memfilter_grow_params_init(&p, 1000, 10000000, 0, 0, 0, MEMFILTER_BLOOM_LINE64));
	memfilter_hasher_init(&p.sub0.hasher, MEMFILTER_HASH_XXH3, SEED, NULL);
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, memfilter_grow_sub_params(&p, i, &subs[i].p));
		subs[i].words = aligned_alloc(64, memfilter_bloom_bytes(&subs[i].p));
		memset(subs[i].words, 0, memfilter_bloom_bytes(&subs[i].p));
		for (u64 j = 0; j < want_keys[i]; j++, at++)
			memfilter_bloom_add_key(&subs[i], &keys[at], 8);
	}
	for (size_t j = 0; j < nabsent; j++) {
		for (i = 0; i < 4; i++) {
			if (memfilter_bloom_contains_key(&subs[i], &absent[j], 8)) {
				want++;
				break;
			}
		}
	}
	/*
	 * Each sub-filter's capacity, bits and model rate in mf_grow_info:
	 * the hand-made ones', summing to mf_info's.
	 */
	double fpr_sum = 0;
	u64 fill_sum = 0;

	for (i = 0; i < 4; i++) {
		EXPECT_EQ(subs[i].p.capacity, gi.capacity[i]);
		EXPECT_EQ(subs[i].p.nblocks * 512, gi.fill_max[i]);
		EXPECT_EQ(memfilter_bloom_popcount(&subs[i]), gi.fill[i]);
		EXPECT_EQ(memfilter_bloom_model_fpr_ppb(&subs[i].p,
							want_keys[i]) / 1e9,
			  gi.est_fpr[i]);
		fpr_sum += gi.est_fpr[i];
		fill_sum += gi.fill_max[i];
	}
	EXPECT_EQ(0, gi.capacity[4]);
	EXPECT_EQ(info.fill_max, fill_sum);
	EXPECT_LT(fabs(info.est_fpr - fpr_sum), 1e-12);

	hits = mf_offline_query(f, absent, 8, nabsent, res, NULL);
	EXPECT_EQ(want, hits);
	TH_LOG("%llu false positives in %zu (bound 1%%)",
	       (unsigned long long)hits, nabsent);
	EXPECT_LT(hits, nabsent / 100);
	EXPECT_GT(hits, 0);
	for (i = 0; i < 4; i++)
		free(subs[i].words);
	free(res);
	free(absent);
	free(keys);
	mf_offline_free(f);
}

/*
 * Test-and-add through the type's table: present keys say so and take no
 * room; a key that does not fit stops the batch there.
 */
/*
 * A growing filter of one sub-filter for 100 keys at 1%, seed SEED, on
 * the core's type table alone; NULL if it cannot be made.
 */
static union memfilter_state *mf_test_grow_state(u64 **mem)
{
	const struct memfilter_type_ops *ops = &memfilter_grow_ops, *o;
	struct memfilter_create c = {
		.type = MEMFILTER_TYPE_GROW, .capacity = 100,
		.fpr_ppb = 10000000, .grow_max = 1,
		.flags = MEMFILTER_CREATE_SEED, .seed = SEED,
	};
	union memfilter_params p;
	union memfilter_state *st;

	if (memfilter_create_params(&c, &o, &p) || o != ops)
		return NULL;
	st = calloc(1, sizeof(*st));
	*mem = aligned_alloc(64, ops->mem_bytes(&p));
	memset(*mem, 0, ops->mem_bytes(&p));
	ops->init(st, &p, *mem);
	return st;
}

TEST(test_and_add)
{
	const struct memfilter_type_ops *ops = &memfilter_grow_ops;
	unsigned long res[4] = { 0 };
	u64 h[200], *mem;
	union memfilter_state *st = mf_test_grow_state(&mem);
	u32 done, i;

	ASSERT_NE(NULL, st);
	for (i = 0; i < 200; i++)
		h[i] = memfilter_key_hash(ops, st, &(u64){ i }, 8);
	/* 60 in, then 0..99: 60 present, 40 absent fit exactly. */
	ASSERT_EQ(0, ops->add(st, h, 60, res, &done));
	memset(res, 0, sizeof(res));
	EXPECT_EQ(0, ops->test_and_add(st, h, 100, res, &done));
	EXPECT_EQ(100, done);
	for (i = 0; i < 60; i++)
		EXPECT_TRUE((res[i / BITS_PER_LONG] >> (i % BITS_PER_LONG)) & 1);
	/* A false positive among 40 new keys would leave room: count them. */
	u32 fp = 0;

	for (i = 60; i < 100; i++)
		fp += (res[i / BITS_PER_LONG] >> (i % BITS_PER_LONG)) & 1;
	/* Seed SEED: none of the 40 is a false positive. */
	EXPECT_EQ(0, fp);
	EXPECT_EQ(100, st->grow.keys[0]);
	/* Full: the present ones pass, the first absent one stops the batch. */
	memset(res, 0, sizeof(res));
	EXPECT_EQ(-ENOSPC, ops->test_and_add(st, h + 90, 20, res, &done));
	EXPECT_EQ(10, done);
	EXPECT_EQ(0x3ff, res[0]);
	free(mem);
	free(st);
}

/*
 * A key repeated inside one test-and-add batch is present the second time
 * (filters.rst's contract, the Bloom filter's): the query pass of a chunk
 * saw neither copy, yet the second must not say absent nor take room.
 */
TEST(test_and_add_repeat)
{
	const struct memfilter_type_ops *ops = &memfilter_grow_ops;
	unsigned long res[2] = { 0 };
	u64 h[6], *mem;
	union memfilter_state *st = mf_test_grow_state(&mem);
	u32 done;

	ASSERT_NE(NULL, st);
	/* keys 0, 1, 0, 2, 1, 0 */
	for (u32 i = 0; i < 6; i++)
		h[i] = memfilter_key_hash(ops, st, &(u64){ (0x012010 >> (4 * i)) & 15 }, 8);
	EXPECT_EQ(0, ops->test_and_add(st, h, 6, res, &done));
	EXPECT_EQ(6, done);
	/* Seed SEED: neither 1 nor 2 is a false positive after 0. */
	EXPECT_EQ(0x34, res[0]);
	EXPECT_EQ(3, st->grow.keys[0]);
	free(mem);
	free(st);
}

/*
 * A batch test-and-add answers, claims and sets exactly what the same keys
 * test-and-added one at a time would: a twin filter fed key by key (ask
 * every sub-filter in use; add the key if none holds it) ends with the
 * same answers, the same key counts and the same tables, byte for byte.
 * Keys from a small set (repeats inside and across batches, keys in older
 * sub-filters), batches of 1 to 300 keys (across chunks and sub-filter
 * boundaries), up to ENOSPC at max_subs. Batch queries agree key by key.
 */
MF_LAYOUT_TEST(test_and_add_as_one_by_one)
{
	struct memfilter_grow_params p;
	struct memfilter_grow g[2];
	void *mem[2], *parts[2][MEMFILTER_GROW_MAX_SUBS] = { { 0 } };
	u64 seed = 42, *h = malloc(4000 * sizeof(*h)), absent = 0, present = 0;
	unsigned long res[5];
	u32 t, i, n, done, one_done, at = 0, np = 0, batches = 0;
	int ret, one_ret = 0;

	ASSERT_EQ(0, memfilter_grow_params_init(&p, 100, 10000000, 5, 2, 50, mf_test_layout));
	memfilter_hasher_init(&p.sub0.hasher, MEMFILTER_HASH_XXH64, SEED, NULL);
	for (t = 0; t < 2; t++) {
		mem[t] = aligned_alloc(64, memfilter_grow_bytes(&p));
		memset(mem[t], 0, memfilter_grow_bytes(&p));
		memfilter_grow_init(&g[t], &p, mem[t]);
	}
	/* Every sub-filter made ahead, in both. */
	while (memfilter_grow_next_bytes(&g[0])) {
		u64 bytes = memfilter_grow_next_bytes(&g[0]);

		for (t = 0; t < 2; t++) {
			parts[t][np] = aligned_alloc(64, bytes);
			memset(parts[t][np], 0, bytes);
			memfilter_grow_attach(&g[t], parts[t][np]);
		}
		np++;
	}
	ASSERT_EQ(4, np);
	/* Keys 0..3999 of which a new one about every other time. */
	for (i = 0; i < 4000; i++)
		h[i] = memfilter_hash(&p.sub0.hasher, &(u64){ i }, 8);
	for (ret = 0; !ret; batches++) {
		u64 batch[300];

		n = 1 + (u32)(mf_test_rand(&seed) % 300);
		for (i = 0; i < n; i++) {
			u32 k = mf_test_rand(&seed) % 2 ? at++ :
				(u32)(mf_test_rand(&seed) % (at + 1));

			batch[i] = h[k % 4000];
		}
		memset(res, 0, sizeof(res));
		ret = memfilter_grow_test_and_add_hashes(&g[0], batch, n, res,
							 &done);
		/* The twin, one key at a time. */
		for (i = 0; i < n; i++) {
			unsigned long was = 0;

			memfilter_grow_contains_hashes(&g[1], &batch[i], 1, &was);
			if (!was) {
				one_ret = memfilter_grow_add_hashes(&g[1],
						&batch[i], 1, &one_done, false);
				if (one_ret)
					break;
			}
			ASSERT_EQ(was, (res[i / BITS_PER_LONG] >>
					(i % BITS_PER_LONG)) & 1) {
				TH_LOG("batch %u key %u of %u", batches, i, n);
			}
			present += was;
			absent += !was;
		}
		EXPECT_EQ(one_ret, ret);
		EXPECT_EQ(i, done);
		/* Nothing past done is answered. */
		for (; i < n; i++)
			EXPECT_EQ(0, (res[i / BITS_PER_LONG] >>
				      (i % BITS_PER_LONG)) & 1);
		for (t = 0; t < MEMFILTER_GROW_MAX_SUBS; t++)
			ASSERT_EQ(g[1].keys[t], g[0].keys[t]);
		ASSERT_EQ(memfilter_grow_active(&g[1]),
			  memfilter_grow_active(&g[0]));
		/* Batch queries: key by key the same answers. */
		memset(res, 0, sizeof(res));
		memfilter_grow_contains_hashes(&g[0], batch, n, res);
		for (i = 0; i < n; i++) {
			unsigned long one = 0;

			memfilter_grow_contains_hashes(&g[0], &batch[i], 1, &one);
			ASSERT_EQ(one, (res[i / BITS_PER_LONG] >>
					(i % BITS_PER_LONG)) & 1);
		}
	}
	EXPECT_EQ(-ENOSPC, ret);
	/* 100 + 200 + 400 + 800 + 1600 keys: all five full. */
	EXPECT_EQ(5, memfilter_grow_active(&g[0]));
	EXPECT_EQ(3100, absent);
	EXPECT_GT(present, 2000);
	for (t = 0; t < 5; t++) {
		EXPECT_EQ(g[0].sub[t].p.capacity, g[0].keys[t]);
		EXPECT_EQ(0, memcmp(g[0].sub[t].words, g[1].sub[t].words,
				    memfilter_bloom_bytes(&g[0].sub[t].p)));
	}
	TH_LOG("%u batches, %llu present, %llu absent", batches,
	       (unsigned long long)present, (unsigned long long)absent);
	for (t = 0; t < 2; t++) {
		for (i = 0; i < np; i++)
			free(parts[t][i]);
		free(mem[t]);
	}
	free(h);
}

/* Past max_subs: ENOSPC at the first key that does not fit, none lost. */
TEST(enospc_at_max)
{
	MF_OPTS(mf_grow_info, gi);
	struct mf_offline *f = mf_test_grow(100, 0.01, 2, 2, 0.5);
	u64 *keys = mf_test_keys(400, 0), res[7] = { 0 };
	size_t done = 0;

	ASSERT_NE(NULL, f);
	EXPECT_EQ(-ENOSPC, mf_offline_add(f, keys, 8, 400, res, &done));
	EXPECT_EQ(300, done);
	for (u32 i = 0; i < 400; i++)
		EXPECT_EQ(i < 300, (res[i / 64] >> (i % 64)) & 1);
	EXPECT_EQ(300, mf_offline_query(f, keys, 8, 300, NULL, NULL));
	ASSERT_EQ(0, mf_offline_grow_info(f, &gi));
	EXPECT_EQ(2, gi.subfilters);
	EXPECT_EQ(-ENOSPC, mf_offline_add(f, keys + 300, 8, 1, NULL, &done));
	EXPECT_EQ(0, done);
	free(keys);
	mf_offline_free(f);
}

/*
 * mf_create_grow() and mf_create_window() (one helper in the library):
 * each encodes its own type's options and refuses the other type's, all
 * before the ioctl, which /dev/null answers with ENOTTY.
 */
TEST(create_typed_args)
{
	MF_OPTS(mf_create_opts, grow, .type = MF_TYPE_GROW, .capacity = 100,
		.fpr = 0.01);
	MF_OPTS(mf_create_opts, win, .type = MF_TYPE_WINDOW, .capacity = 100,
		.fpr = 0.01);
	MF_OPTS(mf_grow_opts, g, .max_subs = 4);
	MF_OPTS(mf_window_opts, w, .generations = 4);
	struct mf_grow_opts gbad = { .sz = 1 };
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, fd);
	EXPECT_EQ(-EINVAL, mf_create_grow(fd, NULL, &g));
	EXPECT_EQ(-EINVAL, mf_create_grow(fd, &win, NULL));
	EXPECT_EQ(-EINVAL, mf_create_grow(fd, &grow, &gbad));
	EXPECT_EQ(-EINVAL, mf_create_window(fd, NULL, &w));
	EXPECT_EQ(-EINVAL, mf_create_window(fd, &grow, &w));
	EXPECT_EQ(-EINVAL, mf_create_window(fd, &win, NULL));
	EXPECT_EQ(-ENOTTY, mf_create_grow(fd, &grow, &g));
	EXPECT_EQ(-ENOTTY, mf_create_grow(fd, &grow, NULL));
	EXPECT_EQ(-ENOTTY, mf_create_window(fd, &win, &w));
	close(fd);
}

/* Images carry every sub-filter; a loaded filter answers alike and grows on. */
TEST(image_round_trip)
{
	const size_t n = 5000, nabsent = 200000;
	MF_OPTS(mf_grow_info, gi);
	struct mf_offline *f = mf_test_grow(500, 0.001, 0, 3, 0.25), *g;
	u64 *keys = mf_test_keys(n + 20000, 0), *absent = mf_test_keys(nabsent, ABSENT);
	u64 *r1 = calloc((nabsent + 63) / 64, 8), *r2 = calloc((nabsent + 63) / 64, 8);
	void *img;
	size_t len;
	const char *why;

	ASSERT_NE(NULL, f);
	ASSERT_EQ(n, mf_offline_add(f, keys, 8, n, NULL, NULL));
	ASSERT_EQ(0, mf_offline_image(f, &img, &len));
	ASSERT_EQ(0, mf_offline_from_image(img, len, &g, &why));
	EXPECT_EQ(n, mf_offline_query(g, keys, 8, n, NULL, NULL));
	EXPECT_EQ(mf_offline_query(f, absent, 8, nabsent, r1, NULL),
		  mf_offline_query(g, absent, 8, nabsent, r2, NULL));
	EXPECT_EQ(0, memcmp(r1, r2, (nabsent + 63) / 64 * 8));
	/* 500 + 1,500 + 4,500: three sub-filters. */
	ASSERT_EQ(0, mf_offline_grow_info(g, &gi));
	EXPECT_EQ(3, gi.subfilters);
	EXPECT_EQ(3000, gi.keys[2]);
	/* It grows on from where it was: 13,500 more fit the fourth. */
	EXPECT_EQ(20000, mf_offline_add(g, keys + n, 8, 20000, NULL, NULL));
	ASSERT_EQ(0, mf_offline_grow_info(g, &gi));
	EXPECT_EQ(5, gi.subfilters);
	EXPECT_EQ(500 + 1500 + 4500 + 13500, gi.keys[0] + gi.keys[1] +
		  gi.keys[2] + gi.keys[3]);
	EXPECT_EQ(n + 20000, mf_offline_query(g, keys, 8, n + 20000, NULL, NULL));
	free(img);
	mf_offline_free(g);
	mf_offline_free(f);
	free(r1);
	free(r2);
	free(absent);
	free(keys);
}

/* Re-seal a header after an edit. */
static void mf_test_reseal(u8 *img)
{
	struct memfilter_image_header *h = (void *)img;

	h->header_xxh64 = htole64(memfilter_xxh64(h, offsetof(typeof(*h),
							      header_xxh64), 0));
}

static void mf_test_reseal_payload(u8 *img, size_t len)
{
	struct memfilter_image_header *h = (void *)img;

	h->payload_xxh64 = htole64(memfilter_xxh64(img + HDR, len - HDR, 0));
	mf_test_reseal(img);
}

/* The loader refuses every field that contradicts the rest. */
TEST(image_fields)
{
	struct mf_offline *f = mf_test_grow(100, 0.01, 4, 2, 0.5), *g;
	struct memfilter_image_header *h;
	struct memfilter_image_grow *sec;
	u64 *keys = mf_test_keys(250, 0), stash;
	u8 *img, *bad;
	size_t len;
	const char *why;
	void *out;

	ASSERT_NE(NULL, f);
	ASSERT_EQ(250, mf_offline_add(f, keys, 8, 250, NULL, NULL));
	ASSERT_EQ(0, mf_offline_image(f, &out, &len));
	img = out;
	bad = malloc(len);
	h = (void *)bad;
	sec = (void *)(bad + HDR);
	stash = le64toh(((struct memfilter_image_header *)img)->stash);
	/* 250 keys: 100 + 150, two sub-filters (offline makes them on demand). */
	EXPECT_EQ(2, stash & 0xff);
	EXPECT_EQ(4, (stash >> 8) & 0xff);
	EXPECT_EQ(2, (stash >> 16) & 0xff);
	EXPECT_EQ(50, (stash >> 24) & 0xff);
	EXPECT_EQ(10000000, stash >> 32);

#define BAD_HDR(expr, err) do {						\
		memcpy(bad, img, len);					\
		expr;							\
		mf_test_reseal(bad);					\
		EXPECT_EQ(err, mf_offline_from_image(bad, len, &g, &why)); \
	} while (0)
#define BAD_SEC(expr) do {						\
		memcpy(bad, img, len);					\
		expr;							\
		mf_test_reseal_payload(bad, len);			\
		EXPECT_EQ(-EBADMSG, mf_offline_from_image(bad, len, &g, &why)); \
	} while (0)
	BAD_HDR(h->stash = htole64(stash & ~0xffULL), -EBADMSG);
	BAD_HDR(h->stash = htole64((stash & ~0xffULL) | 5), -EBADMSG);
	BAD_HDR(h->stash = htole64((stash & ~0xffULL) | 3), -EBADMSG);
	BAD_HDR(h->stash = htole64(stash & ~0xff00ULL), -EBADMSG);
	BAD_HDR(h->stash = htole64(stash & ~0xff0000ULL), -EBADMSG);
	BAD_HDR(h->stash = htole64(stash | 0x11ULL << 16), -EBADMSG);
	BAD_HDR(h->stash = htole64(stash & ~0xff000000ULL), -EBADMSG);
	BAD_HDR(h->stash = htole64((stash & ~0xff000000ULL) | 100ULL << 24),
		-EBADMSG);
	BAD_HDR(h->stash = htole64(stash & 0xffffffffULL), -EBADMSG);
	/* A rate bound that sizes the first sub-filter otherwise. */
	BAD_HDR(h->stash = htole64((stash & 0xffffffffULL) |
				   100000000ULL << 32), -EBADMSG);
	BAD_HDR(h->stash = htole64(stash | 0xffffffffULL << 32), -EBADMSG);
	BAD_HDR(h->geometry = htole64(le64toh(h->geometry) + 1), -EBADMSG);
	BAD_HDR(h->k = htole32(le32toh(h->k) + 1), -EBADMSG);
	BAD_HDR(h->bits_per_key_q4 = htole32(le32toh(h->bits_per_key_q4) + 4),
		-EBADMSG);
	BAD_HDR(h->capacity = htole64(200), -EBADMSG);
	BAD_HDR(h->keys = htole64(251), -EBADMSG);
	BAD_SEC(sec->subs = htole32(3));
	BAD_SEC(sec->active = 0);
	BAD_SEC(sec->active = htole32(3));
	BAD_SEC(sec->active = htole32(1));
	BAD_SEC(sec->keys[0] = htole64(101); sec->keys[1] = htole64(149));
	BAD_SEC(sec->keys[2] = htole64(1); sec->keys[1] = htole64(149));
	BAD_SEC(sec->keys[15] = htole64(1); sec->keys[1] = htole64(149));
	BAD_SEC(sec->__reserved[55] = 1);
	/* The unedited image loads. */
	memcpy(bad, img, len);
	ASSERT_EQ(0, mf_offline_from_image(bad, len, &g, &why));
	EXPECT_EQ(250, mf_offline_query(g, keys, 8, 250, NULL, NULL));
	mf_offline_free(g);
	free(bad);
	free(img);
	free(keys);
	mf_offline_free(f);
}

/*
 * Inserters racing growth and queries, as in the kernel: the core filter
 * alone, a grower thread attaching sub-filters when asked (the module's
 * work item), inserters retrying after -ENOSPC, and a querier checking
 * every key an inserter has finished with. No false negative, every key
 * accounted for exactly once.
 */
#define RACE_THREADS	3
#define RACE_KEYS	60000

struct mf_race {
	struct memfilter_grow g;
	void *parts[MEMFILTER_GROW_MAX_SUBS];
	u64 published[RACE_THREADS];
	bool stop;
	bool tas;	/* inserters test-and-add, each key twice */
	u64 absent[RACE_THREADS];	/* keys their test-and-adds said absent */
	u64 misses;
	u64 checks;
};

static void *mf_race_grower(void *arg)
{
	struct mf_race *r = arg;
	u32 n = 0;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		u64 bytes;

		if (smp_load_acquire(&r->g.p.nsubs) !=
		    memfilter_grow_active(&r->g)) {
			sched_yield();
			continue;
		}
		bytes = memfilter_grow_next_bytes(&r->g);
		if (!bytes)
			break;
		r->parts[n] = aligned_alloc(64, bytes);
		memset(r->parts[n], 0, bytes);
		memfilter_grow_attach(&r->g, r->parts[n++]);
	}
	return NULL;
}

struct mf_race_arg {
	struct mf_race *r;
	u32 t;
};

static void *mf_race_inserter(void *arg)
{
	struct mf_race_arg *a = arg;
	struct mf_race *r = a->r;
	u64 h[16];
	u32 i, j, done;

	for (i = 0; i < RACE_KEYS; i += 16) {
		for (j = 0; j < 16; j++)
			h[j] = memfilter_hash(&r->g.p.sub0.hasher,
					      &(u64){ (u64)a->t << 32 | (i + j) }, 8);
		for (j = 0; j < 16 && !r->tas; j += done) {
			if (memfilter_grow_add_hashes(&r->g, h + j, 16 - j,
						      &done, false))
				sched_yield();
		}
		/* Test-and-add: the 16 new keys, then 8 of them again. */
		for (u32 rep = 0; r->tas && rep < 2; rep++) {
			u32 m = rep ? 8 : 16;
			unsigned long res = 0;

			for (j = 0; j < m; j += done) {
				unsigned long part = 0;
				int ret;

				ret = memfilter_grow_test_and_add_hashes(&r->g,
						h + j, m - j, &part, &done);
				res |= part << j;
				if (ret)
					sched_yield();
			}
			if (rep)
				/* Every key of the first round: present. */
				r->misses += __builtin_popcountl(~res & 0xff);
			else
				r->absent[a->t] += 16 - __builtin_popcountl(res);
		}
		__atomic_store_n(&r->published[a->t], i + 16, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void *mf_race_querier(void *arg)
{
	struct mf_race *r = arg;
	unsigned long res;
	u32 t = 0;
	u64 k, h;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		u64 upto = __atomic_load_n(&r->published[t], __ATOMIC_ACQUIRE);

		if (upto) {
			k = (u64)t << 32 | (rand() % upto);
			h = memfilter_hash(&r->g.p.sub0.hasher, &k, 8);
			res = 0;
			memfilter_grow_contains_hashes(&r->g, &h, 1, &res);
			r->misses += !(res & 1);
			r->checks++;
		}
		t = (t + 1) % RACE_THREADS;
	}
	return NULL;
}

/*
 * The false positives the model expects among RACE_THREADS * RACE_KEYS
 * new keys test-and-added into @g's sub-filters in turn: key n sees the
 * sub-filters as the keys said absent before it filled them, whatever
 * the order of the threads.
 */
static u64 mf_race_expected_fp(const struct memfilter_grow *g)
{
	double claimed = 0, fp = 0;
	u32 n, i;

	for (n = 0; n < RACE_THREADS * RACE_KEYS; n++) {
		u64 left = (u64)claimed;
		double miss = 1;

		for (i = 0; i < memfilter_grow_active(g) && left; i++) {
			u64 in = min(left, g->sub[i].p.capacity);

			miss *= 1 - memfilter_bloom_model_fpr_ppb(&g->sub[i].p, in) / 1e9;
			left -= in;
		}
		fp += 1 - miss;
		claimed += miss;
	}
	return (u64)fp;
}

static void mf_race_run(struct __test_metadata *_metadata, bool tas)
{
	struct mf_race *r = calloc(1, sizeof(*r));
	struct mf_race_arg args[RACE_THREADS];
	pthread_t ins[RACE_THREADS], grower, querier;
	struct memfilter_grow_params p;
	void *mem;
	u64 sum = 0;
	u32 i;

	ASSERT_EQ(0, memfilter_grow_params_init(&p, 1000, 10000000, 0, 2, 50, mf_test_layout));
	memfilter_hasher_init(&p.sub0.hasher, MEMFILTER_HASH_XXH64, SEED, NULL);
	mem = aligned_alloc(64, memfilter_grow_bytes(&p));
	memset(mem, 0, memfilter_grow_bytes(&p));
	memfilter_grow_init(&r->g, &p, mem);
	r->tas = tas;
	pthread_create(&grower, NULL, mf_race_grower, r);
	pthread_create(&querier, NULL, mf_race_querier, r);
	for (i = 0; i < RACE_THREADS; i++) {
		args[i] = (struct mf_race_arg){ r, i };
		pthread_create(&ins[i], NULL, mf_race_inserter, &args[i]);
	}
	for (i = 0; i < RACE_THREADS; i++)
		pthread_join(ins[i], NULL);
	__atomic_store_n(&r->stop, true, __ATOMIC_RELEASE);
	pthread_join(grower, NULL);
	pthread_join(querier, NULL);

	EXPECT_EQ(0, r->misses);
	TH_LOG("%llu racing queries, %u sub-filters",
	       (unsigned long long)r->checks, memfilter_grow_active(&r->g));
	/* 180,000 keys: 1,000 .. 128,000 is eight sub-filters. */
	EXPECT_EQ(8, memfilter_grow_active(&r->g));
	for (i = 0; i < MEMFILTER_GROW_MAX_SUBS; i++)
		sum += r->g.keys[i];
	/*
	 * Every key said absent took room exactly once, every key said
	 * present none. The keys said present are the false positives
	 * among new keys, which the threads' order makes a random count:
	 * its mean is the model's (1,644 split32, 1,576 line64, within 0.3%
	 * of the means over 200 hash seeds of the same keys in one order),
	 * its standard deviation 107 and 82 (the first sub-filters, of 48
	 * and 23 blocks, decide half of it), so that half the mean either
	 * side is 7 standard deviations: a bug, not chance.
	 */
	if (tas) {
		u64 absent = 0, fp, want = mf_race_expected_fp(&r->g);

		for (i = 0; i < RACE_THREADS; i++)
			absent += r->absent[i];
		EXPECT_EQ(absent, sum);
		fp = RACE_THREADS * RACE_KEYS - absent;
		EXPECT_GE(fp, want / 2);
		EXPECT_LE(fp, want * 3 / 2);
		TH_LOG("%llu of %u new keys said present, the model expects %llu",
		       (unsigned long long)fp, RACE_THREADS * RACE_KEYS,
		       (unsigned long long)want);
	} else {
		EXPECT_EQ(RACE_THREADS * RACE_KEYS, sum);
		for (i = 0; i < 7; i++)
			EXPECT_EQ(r->g.sub[i].p.capacity, r->g.keys[i]);
	}
	/* Every key, afterwards. */
	for (u32 t = 0; t < RACE_THREADS; t++) {
		for (i = 0; i < RACE_KEYS; i++) {
			u64 k = (u64)t << 32 | i, h;
			unsigned long res = 0;

			h = memfilter_hash(&r->g.p.sub0.hasher, &k, 8);
			memfilter_grow_contains_hashes(&r->g, &h, 1, &res);
			if (!(res & 1)) {
				EXPECT_EQ(1, res & 1);
				break;
			}
		}
	}
	for (i = 0; i < MEMFILTER_GROW_MAX_SUBS; i++)
		free(r->parts[i]);
	free(mem);
	free(r);
}

MF_LAYOUT_TEST(race)
{
	mf_race_run(_metadata, false);
}

/*
 * The same with test-and-add: keys it said absent took room exactly once
 * (the room a repeat or a racing insert claimed is given back), no false
 * negative for the racing querier, nor for a key's second test-and-add,
 * nor afterwards.
 */
MF_LAYOUT_TEST(race_test_and_add)
{
	mf_race_run(_metadata, true);
}

/*
 * The race's keys test-and-added by one thread in a fixed order (16 keys
 * of each inserter in turn) into a new growing filter of the race's shape
 * hashed with XXH64 seed @seed, a sub-filter attached whenever the newest
 * is full: returns the keys said present (false positives), *@want the
 * model's expectation for the sub-filters it made.
 */
static u64 mf_tas_fill(struct __test_metadata *_metadata, u64 seed, u64 *want)
{
	struct mf_race *r = calloc(1, sizeof(*r));
	struct memfilter_grow_params p;
	u64 fp = 0, sum = 0;
	u32 i, j, t, n = 0;
	void *mem;

	ASSERT_EQ(0, memfilter_grow_params_init(&p, 1000, 10000000, 0, 2, 50, mf_test_layout));
	memfilter_hasher_init(&p.sub0.hasher, MEMFILTER_HASH_XXH64, seed, NULL);
	mem = aligned_alloc(64, memfilter_grow_bytes(&p));
	memset(mem, 0, memfilter_grow_bytes(&p));
	memfilter_grow_init(&r->g, &p, mem);
	for (i = 0; i < RACE_KEYS; i += 16) {
		for (t = 0; t < RACE_THREADS; t++) {
			unsigned long res = 0;
			u64 h[16];
			u32 done;

			for (j = 0; j < 16; j++)
				h[j] = memfilter_hash(&p.sub0.hasher,
						      &(u64){ (u64)t << 32 | (i + j) }, 8);
			for (j = 0; j < 16; j += done) {
				unsigned long part = 0;
				u64 bytes;

				if (!memfilter_grow_test_and_add_hashes(&r->g, h + j, 16 - j,
									&part, &done)) {
					res |= part << j;
					break;
				}
				res |= part << j;
				bytes = memfilter_grow_next_bytes(&r->g);
				ASSERT_NE(0, bytes);
				r->parts[n] = aligned_alloc(64, bytes);
				memset(r->parts[n], 0, bytes);
				memfilter_grow_attach(&r->g, r->parts[n++]);
			}
			fp += __builtin_popcountl(res);
		}
	}
	EXPECT_EQ(8, memfilter_grow_active(&r->g));
	for (i = 0; i < MEMFILTER_GROW_MAX_SUBS; i++)
		sum += r->g.keys[i];
	EXPECT_EQ(RACE_THREADS * RACE_KEYS - fp, sum);
	*want = mf_race_expected_fp(&r->g);
	for (i = 0; i < n; i++)
		free(r->parts[i]);
	free(mem);
	free(r);
	return fp;
}

/*
 * mf_tas_fill() for seed SEED: the false positives exactly, near the
 * model's count the race is held to.
 */
MF_LAYOUT_TEST(test_and_add_counts)
{
	u64 want, fp = mf_tas_fill(_metadata, SEED, &want);

	EXPECT_EQ(mf_test_layout == MEMFILTER_BLOOM_SPLIT32 ? 1655 : 1553, fp);
	EXPECT_EQ(mf_test_layout == MEMFILTER_BLOOM_SPLIT32 ? 1644 : 1576, want);
	TH_LOG("%llu false positives, the model expects %llu",
	       (unsigned long long)fp, (unsigned long long)want);
}

/*
 * The growing filter holds its requested rate, 1%, where it is smallest:
 * mf_tas_fill() for 64 hash seeds (the race's eight sub-filters, the first
 * of 23 or 48 blocks, where the model of Poisson block loads is least
 * exact). The false positives of one seed vary (standard deviation 82
 * line64, 107 split32: the first sub-filters decide which later keys are
 * said present), their sum over 64 seeds, pinned here, by an eighth of
 * that: their mean is within 3% of the model's expectation (about 4
 * standard deviations of the mean) and under 1% of the keys. A model 5%
 * low fails the first; a sizing off by a quarter bit fails the counts.
 */
MF_LAYOUT_TEST(test_and_add_rate_seeds)
{
	const u32 nseeds = 64, nkeys = RACE_THREADS * RACE_KEYS;
	u64 fp = 0, want = 0;

	for (u32 s = 0; s < nseeds; s++) {
		u64 w;

		fp += mf_tas_fill(_metadata, SEED + s, &w);
		want += w;
	}
	TH_LOG("%llu false positives in %u fills, the model expects %llu",
	       (unsigned long long)fp, nseeds, (unsigned long long)want);
	EXPECT_EQ(mf_test_layout == MEMFILTER_BLOOM_SPLIT32 ? 105570 : 101139, fp);
	EXPECT_EQ(mf_test_layout == MEMFILTER_BLOOM_SPLIT32 ? 105216 : 100864, want);
	EXPECT_LE(fp * 100, want * 103);
	EXPECT_GE(fp * 100, want * 97);
	EXPECT_LT(fp * 100, (u64)nseeds * nkeys);
}

TEST_HARNESS_MAIN
