// SPDX-License-Identifier: GPL-2.0
/*
 * Native tests of libmemfilter's single-key calls and offline
 * test-and-add, with ASan and UBSan: for every filter type, each
 * mf_offline_*_key() answers as the lengths-array call of one key does
 * and leaves the same table (keys of 0 to 40 bytes, the empty key among
 * them); mf_offline_test_and_add() and _addv() answer, key by key, what a
 * query before each key's add answers, and leave the table add leaves,
 * across window rotations by count and a growing filter's sub-filters;
 * the empty key is a key (added, found, counted, deleted), a key of
 * MF_KEY_MAX bytes too, one byte more is -EINVAL.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "libmemfilter.h"
#include "native_utils.h"

#define NKEYS 3000
#define MAXLEN 40

/* @n keys of 0 .. MAXLEN bytes, back to back, and their lengths. */
struct keyset {
	unsigned char *bytes;
	uint32_t lens[NKEYS];
	size_t off[NKEYS];
	size_t n;
};

static void keyset_make(struct keyset *k, size_t n, uint64_t seed)
{
	size_t i, j, total = 0;

	k->n = n;
	k->bytes = malloc(n * MAXLEN + 1);
	for (i = 0; i < n; i++) {
		/* Every 17th key empty; many repeats among the short ones. */
		k->lens[i] = i % 17 ? mf_test_rand(&seed) % (MAXLEN + 1) : 0;
		k->off[i] = total;
		for (j = 0; j < k->lens[i]; j++)
			k->bytes[total++] = mf_test_rand(&seed) % 4;
	}
}

static struct mf_offline *make(int type, uint64_t capacity)
{
	MF_OPTS(mf_create_opts, o, .type = type, .capacity = capacity,
		.fixed_seed = true, .seed = 99);
	MF_OPTS(mf_window_opts, w, .generations = 3, .rotate_by_count = true);
	MF_OPTS(mf_grow_opts, g, .max_subs = 8);
	struct mf_offline *f = NULL;

	if (type == MF_TYPE_CUCKOO)
		o.fingerprint_bits = 12;
	else
		o.fpr = 0.01;
	mf_test_offline(&o, &w, &g, &f);
	return f;
}

/* The two filters' images are the same bytes. */
static bool same_image(const struct mf_offline *a, const struct mf_offline *b)
{
	void *ia, *ib;
	size_t la, lb;
	bool same;

	if (mf_offline_image(a, &ia, &la) || mf_offline_image(b, &ib, &lb))
		return false;
	same = la == lb && !memcmp(ia, ib, la);
	free(ia);
	free(ib);
	return same;
}

FIXTURE(types) {
	struct keyset k;
};

FIXTURE_VARIANT(types) {
	int type;
	uint64_t capacity;	/* small enough to rotate and grow */
};

FIXTURE_VARIANT_ADD(types, bloom) { .type = MF_TYPE_BLOOM, .capacity = 4000 };
FIXTURE_VARIANT_ADD(types, cuckoo) { .type = MF_TYPE_CUCKOO, .capacity = 4000 };
FIXTURE_VARIANT_ADD(types, window) { .type = MF_TYPE_WINDOW, .capacity = 500 };
FIXTURE_VARIANT_ADD(types, grow) { .type = MF_TYPE_GROW, .capacity = 200 };

FIXTURE_SETUP(types)
{
	keyset_make(&self->k, NKEYS, 7);
}

FIXTURE_TEARDOWN(types)
{
	free(self->k.bytes);
}

/* Each single-key call is its lengths-array call of one key. */
TEST_F(types, single_key_is_batch_of_one)
{
	struct mf_offline *a = make(variant->type, variant->capacity);
	struct mf_offline *b = make(variant->type, variant->capacity);
	bool cuckoo = variant->type == MF_TYPE_CUCKOO;
	const struct keyset *k = &self->k;
	uint8_t count;
	uint64_t res;
	size_t i;
	int one;

	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	for (i = 0; i < k->n; i++) {
		const void *key = k->bytes + k->off[i];

		/*
		 * Query, then add; a cuckoo filter takes a key at most
		 * MF_COUNT_MAX times: add_unique for every third key and for
		 * those already in 4 times.
		 */
		res = 0;
		one = mf_offline_query_key(a, key, k->lens[i]);
		ASSERT_EQ(mf_offline_queryv(b, key, &k->lens[i], 1, &res, NULL), one);
		ASSERT_EQ(res, (uint64_t)one);
		if (cuckoo && (i % 3 == 0 ||
			       mf_offline_count_key(a, key, k->lens[i]) >= 4)) {
			one = mf_offline_add_unique_key(a, key, k->lens[i]);
			ASSERT_EQ(mf_offline_keys(b, MF_KEYS_ADD_UNIQUE, key, 1,
				&(struct mf_keys_opts){ .sz = sizeof(struct mf_keys_opts),
							.lens = &k->lens[i] }), one);
		} else {
			ASSERT_EQ(1, mf_offline_add_key(a, key, k->lens[i]));
			ASSERT_EQ(1, mf_offline_addv(b, key, &k->lens[i], 1, NULL, NULL));
		}
		if (!cuckoo)
			continue;
		count = 0;
		one = mf_offline_count_key(a, key, k->lens[i]);
		ASSERT_EQ(one != 0, mf_offline_countv(b, key, &k->lens[i], 1, &count, NULL));
		ASSERT_EQ(count, one);
		if (i % 5 == 0) {
			one = mf_offline_delete_key(a, key, k->lens[i]);
			ASSERT_EQ(1, one);
			ASSERT_EQ(1, mf_offline_deletev(b, key, &k->lens[i], 1, NULL, NULL));
		}
	}
	EXPECT_TRUE(same_image(a, b));
	if (cuckoo) {
		EXPECT_EQ(-EOPNOTSUPP, mf_offline_test_and_add_key(a, "x", 1));
	} else {
		EXPECT_EQ(-EOPNOTSUPP, mf_offline_delete_key(a, "x", 1));
		EXPECT_EQ(-EOPNOTSUPP, mf_offline_count_key(a, "x", 1));
		EXPECT_EQ(-EOPNOTSUPP, mf_offline_add_unique_key(a, "x", 1));
	}
	mf_offline_free(a);
	mf_offline_free(b);
}

/*
 * Test-and-add of a batch: bit i is what a query of key i answered just
 * before key i was added, and the table is add's: of the keys it found
 * new for a Bloom filter (one found present is not added, nor counted,
 * again), of every key for a window (a present key goes into the current
 * generation too).
 */
TEST_F(types, test_and_add_is_query_then_add)
{
	const struct keyset *k = &self->k;
	struct mf_offline *batch = make(variant->type, variant->capacity);
	struct mf_offline *single = make(variant->type, variant->capacity);
	struct mf_offline *by_key = make(variant->type, variant->capacity);
	struct mf_offline *added = make(variant->type, variant->capacity);
	uint64_t res[(NKEYS + 63) / 64], present = 0;
	bool grow = variant->type == MF_TYPE_GROW;
	bool window = variant->type == MF_TYPE_WINDOW;
	struct mf_info ib, ia;
	size_t i, done = 0;
	ssize_t n;
	int q;

	if (variant->type == MF_TYPE_CUCKOO) {
		EXPECT_EQ(-EOPNOTSUPP, mf_offline_test_and_addv(batch, k->bytes,
								k->lens, k->n, res, &done));
		EXPECT_EQ(0, done);
		goto out;
	}
	n = mf_offline_test_and_addv(batch, k->bytes, k->lens, k->n, res, &done);
	ASSERT_LE(0, n);
	ASSERT_EQ(k->n, done);
	for (i = 0; i < k->n; i++) {
		const void *key = k->bytes + k->off[i];
		bool bit = (res[i / 64] >> (i % 64)) & 1;

		q = mf_offline_query_key(by_key, key, k->lens[i]);
		ASSERT_EQ(bit, q) TH_LOG("key %zu len %u", i, k->lens[i]);
		ASSERT_EQ(q, mf_offline_test_and_add_key(by_key, key, k->lens[i]));
		if (!grow) {
			ASSERT_EQ(q, mf_offline_query_key(single, key, k->lens[i]));
			if (!q || window)
				ASSERT_EQ(1, mf_offline_add_key(single, key,
								k->lens[i]));
		}
		if (!q || window)
			ASSERT_EQ(1, mf_offline_addv(added, key, &k->lens[i], 1,
						     NULL, NULL));
		present += q;
	}
	EXPECT_EQ(present, (uint64_t)n);
	EXPECT_TRUE(same_image(batch, by_key));
	if (grow) {
		/*
		 * A growing filter's test-and-add gives a present key no
		 * room (as RedisBloom's scalable filters): it grows later
		 * than add of the same keys.
		 */
		ASSERT_EQ(0, mf_offline_info(batch, &ib));
		EXPECT_EQ(k->n - present, ib.keys);
		goto out;
	}
	EXPECT_TRUE(same_image(batch, single));
	EXPECT_TRUE(same_image(batch, added));
	ASSERT_EQ(0, mf_offline_info(batch, &ib));
	ASSERT_EQ(0, mf_offline_info(added, &ia));
	/* A window counts every key into its generation; adds the new. */
	EXPECT_EQ(ia.keys, ib.keys);
	EXPECT_EQ(k->n - present, ib.adds);
	if (!window)
		EXPECT_EQ(k->n - present, ib.keys);
	TH_LOG("%zd of %zu keys present before their add", n, k->n);
out:
	mf_offline_free(batch);
	mf_offline_free(single);
	mf_offline_free(by_key);
	mf_offline_free(added);
}

/* Fixed-size keys, 8 bytes: the same answers as the variable layout. */
TEST_F(types, test_and_add_fixed_size)
{
	struct mf_offline *a = make(variant->type, variant->capacity);
	struct mf_offline *b = make(variant->type, variant->capacity);
	uint64_t *keys = mf_test_keys(NKEYS, 0), ra[(NKEYS + 63) / 64],
		 rb[(NKEYS + 63) / 64];
	uint32_t lens[NKEYS];
	size_t i;

	if (variant->type == MF_TYPE_CUCKOO)
		SKIP(goto out, "no test-and-add");
	for (i = 0; i < NKEYS; i++) {
		lens[i] = 8;
		keys[i] %= NKEYS / 2;	/* every key twice */
	}
	EXPECT_EQ(mf_offline_test_and_add(a, keys, 8, NKEYS, ra, NULL),
		  mf_offline_test_and_addv(b, keys, lens, NKEYS, rb, NULL));
	EXPECT_EQ(0, memcmp(ra, rb, sizeof(ra)));
	EXPECT_TRUE(same_image(a, b));
	EXPECT_EQ(-EINVAL, mf_offline_test_and_add(a, keys, 0, 1, NULL, NULL));
out:
	free(keys);
	mf_offline_free(a);
	mf_offline_free(b);
}

/* The empty key is a key, as every layout and call takes it. */
TEST_F(types, empty_key_is_a_key)
{
	struct mf_offline *f = make(variant->type, variant->capacity);
	static const uint32_t zero = 0;
	unsigned char big[MF_KEY_MAX + 1] = { 0 };
	uint64_t res = 0;

	ASSERT_NE(NULL, f);
	EXPECT_EQ(0, mf_offline_query_key(f, NULL, 0));
	EXPECT_EQ(0, mf_offline_queryv(f, "", &zero, 1, NULL, NULL));
	ASSERT_EQ(1, mf_offline_add_key(f, NULL, 0));
	EXPECT_EQ(1, mf_offline_query_key(f, "", 0));
	EXPECT_EQ(1, mf_offline_queryv(f, "x", &zero, 1, &res, NULL));
	EXPECT_EQ(1, res);
	/* Fixed-size keys are 1 .. MF_KEY_MAX bytes: 0 means lengths. */
	EXPECT_EQ(-EINVAL, mf_offline_query(f, "", 0, 1, NULL, NULL));
	EXPECT_LE(0, mf_offline_add_key(f, big, MF_KEY_MAX));
	EXPECT_EQ(1, mf_offline_query_key(f, big, MF_KEY_MAX));
	EXPECT_EQ(-EINVAL, mf_offline_add_key(f, big, MF_KEY_MAX + 1));
	if (variant->type == MF_TYPE_CUCKOO) {
		EXPECT_EQ(1, mf_offline_count_key(f, NULL, 0));
		EXPECT_EQ(1, mf_offline_delete_key(f, NULL, 0));
		EXPECT_EQ(0, mf_offline_query_key(f, NULL, 0));
	} else {
		EXPECT_EQ(1, mf_offline_test_and_add_key(f, NULL, 0));
	}
	mf_offline_free(f);
}

TEST_HARNESS_MAIN
