// SPDX-License-Identifier: GPL-2.0
/*
 * Native tests of counting (MEMFILTER_IOC_COUNT's code, RedisBloom's
 * CF.COUNT) through libmemfilter's offline filters, built with ASan and
 * UBSan: a key added three times counts 3, then 2 after one delete and 0
 * after three; every count of a filter full of duplicates, for present and
 * absent keys alike, equals what an independent model of the layout in
 * core/cuckoo.h predicts (XXH64 from libxxhash, the fingerprint and bucket
 * formulas, false positives included); counts survive an image round
 * trip; and the calls refuse what they must with the documented errno.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <xxhash.h>

#include "kselftest_harness.h"
#include "libmemfilter.h"

#define SEED	0x5eed5eed12345678ULL

static struct mf_offline *cuckoo(uint64_t capacity, unsigned int fp_bits)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_CUCKOO, .capacity = capacity,
		.fingerprint_bits = fp_bits, .fixed_seed = true, .seed = SEED,
		.hash_algo = MF_HASH_XXH64);
	struct mf_offline *f;

	return mf_offline_create(&o, &f) ? NULL : f;
}

TEST(add_three_delete_one)
{
	struct mf_offline *f = cuckoo(1000, 12);
	uint64_t key = 42, other = 43;
	uint32_t len = sizeof(key);
	uint8_t c = 0xff;
	size_t done = 99;
	int i;

	ASSERT_NE(NULL, f);
	EXPECT_EQ(0, mf_offline_count(f, &key, 8, 1, &c, &done));
	EXPECT_EQ(0, c);
	EXPECT_EQ(1, done);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(1, mf_offline_add(f, &key, 8, 1, NULL, NULL));
	ASSERT_EQ(1, mf_offline_add(f, &other, 8, 1, NULL, NULL));
	EXPECT_EQ(1, mf_offline_count(f, &key, 8, 1, &c, NULL));
	EXPECT_EQ(3, c);
	EXPECT_EQ(1, mf_offline_countv(f, &key, &len, 1, &c, &done));
	EXPECT_EQ(3, c);
	EXPECT_EQ(1, done);
	ASSERT_EQ(1, mf_offline_delete(f, &key, 8, 1, NULL, NULL));
	EXPECT_EQ(1, mf_offline_count(f, &key, 8, 1, &c, NULL));
	EXPECT_EQ(2, c);
	ASSERT_EQ(1, mf_offline_delete(f, &key, 8, 1, NULL, NULL));
	ASSERT_EQ(1, mf_offline_delete(f, &key, 8, 1, NULL, NULL));
	EXPECT_EQ(0, mf_offline_count(f, &key, 8, 1, &c, NULL));
	EXPECT_EQ(0, c);
	/* The other key's copy was never touched; NULL counts is allowed. */
	EXPECT_EQ(1, mf_offline_count(f, &other, 8, 1, NULL, NULL));
	mf_offline_free(f);
}

/* Nine copies fill a key's two buckets and the stash: the tenth is refused. */
TEST(nine_copies_at_most)
{
	struct mf_offline *f = cuckoo(1000, 16);
	uint64_t key = 7;
	size_t done;
	uint8_t c;
	int i;

	ASSERT_NE(NULL, f);
	for (i = 1; i <= MF_COUNT_MAX; i++) {
		ASSERT_EQ(1, mf_offline_add(f, &key, 8, 1, NULL, NULL));
		ASSERT_EQ(1, mf_offline_count(f, &key, 8, 1, &c, NULL));
		EXPECT_EQ(i, c);
	}
	EXPECT_EQ(-ENOSPC, mf_offline_add(f, &key, 8, 1, NULL, &done));
	EXPECT_EQ(0, done);
	ASSERT_EQ(1, mf_offline_count(f, &key, 8, 1, &c, NULL));
	EXPECT_EQ(MF_COUNT_MAX, c);
	mf_offline_free(f);
}

/*
 * The layout of core/cuckoo.h, computed here from its description: a key's
 * (fingerprint, unordered bucket pair) as one number. Two keys count each
 * other's copies exactly when these agree.
 */
static uint64_t model_tag(uint64_t key, uint64_t nbuckets, unsigned int f)
{
	uint64_t h = XXH64(&key, sizeof(key), SEED), i1, i2, t;
	uint32_t fp = (uint32_t)(((h >> 40) * ((1ULL << f) - 1)) >> 24) + 1;

	/* New filters' layout: any bucket count, i2 = (t - i1) mod n. */
	i1 = (uint64_t)(((unsigned __int128)(h << 24) * nbuckets) >> 64);
	t = (uint64_t)(((unsigned __int128)(fp * 0x9e3779b97f4a7c15ULL) *
			nbuckets) >> 64);
	i2 = t >= i1 ? t - i1 : t - i1 + nbuckets;
	if (i2 < i1) {
		uint64_t t = i1;

		i1 = i2;
		i2 = t;
	}
	return (i1 << 40) | (i2 << 16) | fp;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* How many entries of the sorted @tags equal @t. */
static size_t model_count(const uint64_t *tags, size_t n, uint64_t t)
{
	size_t lo = 0, hi = n, end;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tags[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < n && tags[end] == t; end++)
		;
	return end - lo;
}

/* Key i is added 1 + (i % 7 == 0) + (i % 13 == 0) times. */
static int copies(uint64_t i)
{
	return 1 + (i % 7 == 0) + (i % 13 == 0);
}

/*
 * 8-bit fingerprints make false positives common: every count, of the
 * added keys and of as many absent ones, is the model's, and the absent
 * keys that count more than 0 are the model's false positives.
 */
TEST(counts_match_model)
{
	const size_t present = 20000, absent = 100000;
	size_t n = present + absent, copies_total = 0, i, fps = 0, hits;
	struct mf_offline *f = cuckoo(30000, 8);
	uint64_t *keys = malloc(n * sizeof(*keys)), *tags, *bits;
	uint8_t *counts = malloc(n);
	struct mf_info info;
	uint64_t nbuckets;
	ssize_t ret;

	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, keys);
	ASSERT_NE(NULL, counts);
	for (i = 0; i < n; i++)
		keys[i] = (i < present ? i : (1ULL << 40) + i) * 0x9e3779b97f4a7c15ULL;
	for (i = 0; i < present; i++)
		copies_total += copies(i);
	tags = malloc(copies_total * sizeof(*tags));
	bits = calloc((n + 63) / 64, sizeof(*bits));
	ASSERT_NE(NULL, tags);
	ASSERT_NE(NULL, bits);

	ASSERT_EQ(0, mf_offline_info(f, &info));
	nbuckets = info.fill_max / 4;
	copies_total = 0;
	for (i = 0; i < present; i++) {
		for (int c = 0; c < copies(i); c++) {
			ASSERT_EQ(1, mf_offline_add(f, &keys[i], 8, 1, NULL, NULL));
			tags[copies_total++] = model_tag(keys[i], nbuckets, 8);
		}
	}
	qsort(tags, copies_total, sizeof(*tags), cmp_u64);

	ret = mf_offline_count(f, keys, 8, n, counts, NULL);
	ASSERT_LE(present, ret);
	hits = 0;
	for (i = 0; i < n; i++) {
		size_t want = model_count(tags, copies_total,
					  model_tag(keys[i], nbuckets, 8));

		ASSERT_EQ(want, counts[i]) {
			TH_LOG("key %zu (%s): count %u, model %zu", i,
			       i < present ? "added" : "absent", counts[i], want);
		}
		if (i < present) {
			ASSERT_LE(copies(i), counts[i]);
		} else {
			fps += counts[i] != 0;
		}
		hits += counts[i] != 0;
	}
	EXPECT_EQ(hits, (size_t)ret);
	/* Count > 0 exactly where a query says "may be present". */
	EXPECT_EQ(ret, mf_offline_query(f, keys, 8, n, bits, NULL));
	for (i = 0; i < n; i++)
		ASSERT_EQ(counts[i] != 0, (bits[i / 64] >> (i % 64)) & 1);
	/* About 2 * load * 4 / 255 of the absent keys: the model must have some. */
	TH_LOG("%zu of %zu absent keys count > 0 (false positives)", fps, absent);
	EXPECT_LT(absent / 200, fps);
	free(tags);
	free(bits);
	free(counts);
	free(keys);
	mf_offline_free(f);
}

/* An image answers every count as the filter it was taken from. */
TEST(image_round_trip)
{
	/* Room for 4000 copies of 1500 keys at about half load. */
	struct mf_offline *f = cuckoo(8000, 12), *g;
	uint64_t keys[4000];
	uint8_t a[4000], b[4000];
	size_t len, i;
	void *img;

	ASSERT_NE(NULL, f);
	for (i = 0; i < 4000; i++)
		keys[i] = i % 1500;	/* 0..999 thrice, 1000..1499 twice */
	ASSERT_EQ(4000, mf_offline_add(f, keys, 8, 4000, NULL, NULL));
	for (i = 0; i < 4000; i++)
		keys[i] = i;
	ASSERT_EQ(0, mf_offline_image(f, &img, &len));
	ASSERT_EQ(0, mf_offline_from_image(img, len, &g, NULL));
	EXPECT_EQ(mf_offline_count(f, keys, 8, 4000, a, NULL),
		  mf_offline_count(g, keys, 8, 4000, b, NULL));
	EXPECT_EQ(0, memcmp(a, b, sizeof(a)));
	for (i = 0; i < 1500; i++)
		ASSERT_LE(i < 1000 ? 3 : 2, a[i]);
	free(img);
	mf_offline_free(g);
	mf_offline_free(f);
}

TEST(errors)
{
	struct mf_create_opts o = {
		.type = MF_TYPE_BLOOM, .capacity = 100, .fpr = 0.01,
	};
	struct mf_offline *f;
	uint64_t key = 1;
	uint32_t len = MF_KEY_MAX + 1;
	uint8_t c = 0xee;
	size_t done = 99;

	ASSERT_EQ(0, mf_offline_create(&o, &f));
	ASSERT_EQ(1, mf_offline_add(f, &key, 8, 1, NULL, NULL));
	EXPECT_EQ(-EOPNOTSUPP, mf_offline_count(f, &key, 8, 1, &c, &done));
	EXPECT_EQ(0, done);
	EXPECT_EQ(0xee, c);
	EXPECT_EQ(-EOPNOTSUPP, mf_offline_count(f, &key, 8, 0, &c, NULL));
	mf_offline_free(f);

	f = cuckoo(100, 12);
	ASSERT_NE(NULL, f);
	done = 99;
	EXPECT_EQ(-EINVAL, mf_offline_count(f, &key, 0, 1, &c, &done));
	EXPECT_EQ(0, done);
	EXPECT_EQ(-EINVAL, mf_offline_count(f, &key, MF_KEY_MAX + 1, 1, &c,
					    NULL));
	EXPECT_EQ(-EINVAL, mf_offline_countv(f, &key, &len, 1, &c, NULL));
	EXPECT_EQ(-EINVAL, mf_offline_countv(f, &key, NULL, 1, &c, NULL));
	EXPECT_EQ(-EINVAL, mf_offline_count(f, NULL, 8, 1, &c, NULL));
	EXPECT_EQ(0, mf_offline_count(f, NULL, 8, 0, NULL, &done));
	EXPECT_EQ(0, done);
	EXPECT_EQ(0xee, c);
	mf_offline_free(f);
}

TEST_HARNESS_MAIN
