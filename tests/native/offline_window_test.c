// SPDX-License-Identifier: GPL-2.0
/*
 * Native tests of libmemfilter's offline window filters
 * (mf_offline_create_window(), mf_offline_rotate(), rotation by count,
 * mf_offline_window_info()), built with ASan and UBSan from the sources
 * the module uses: keys live through G - 1 rotations and are gone after
 * the G-th, the false positives of expired keys counted exactly against a
 * filter built with only the live keys, rotation by count at exactly
 * capacity keys per generation, images that load back and re-serialize
 * to the same bytes, and bad options. Nothing is timed.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "libmemfilter.h"
#include "native_utils.h"

#define SEED	0x5eed
#define CAP	1000

static struct mf_offline *mf_test_window(unsigned int gens, bool by_count)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_WINDOW, .capacity = CAP,
		.fpr = 0.01, .fixed_seed = true, .seed = SEED);
	MF_OPTS(mf_window_opts, w, .generations = gens, .period_ms = 60000,
		.rotate_by_count = by_count);
	struct mf_offline *f;

	if (mf_offline_create_window(&o, &w, &f))
		return NULL;
	return f;
}

static struct mf_window_info mf_test_info(struct mf_offline *f)
{
	MF_OPTS(mf_window_info, wi);

	if (mf_offline_window_info(f, &wi))
		wi.generations = 0;
	return wi;
}

TEST(keys_live_g_minus_1_rotations)
{
	unsigned int gens, r, j;

	for (gens = 2; gens <= 16; gens += 7) {
		struct mf_offline *f = mf_test_window(gens, false);
		uint64_t *keys = mf_test_keys(CAP, 1);
		struct mf_window_info wi;
		struct mf_info info;

		ASSERT_NE(NULL, f);
		wi = mf_test_info(f);
		EXPECT_EQ(gens, wi.generations);
		EXPECT_EQ(0, wi.current_gen);
		EXPECT_EQ(60000, wi.period_ms);
		EXPECT_FALSE(wi.rotate_by_count);
		EXPECT_EQ(CAP, mf_offline_add(f, keys, 8, CAP, NULL, NULL));
		EXPECT_EQ(CAP, mf_offline_query(f, keys, 8, CAP, NULL, NULL));
		for (r = 1; r < gens; r++) {
			ASSERT_EQ(0, mf_offline_rotate(f));
			EXPECT_EQ(CAP, mf_offline_query(f, keys, 8, CAP, NULL,
							NULL));
			wi = mf_test_info(f);
			EXPECT_EQ(r, wi.current_gen);
			EXPECT_EQ(CAP, wi.keys[0]);
			EXPECT_EQ(0, wi.keys[r]);
			EXPECT_EQ(0, wi.fill[r]);
			EXPECT_EQ(0, wi.age_ms[r]);
		}
		ASSERT_EQ(0, mf_offline_rotate(f));
		/* Every generation cleared: nothing, not even a positive. */
		EXPECT_EQ(0, mf_offline_query(f, keys, 8, CAP, NULL, NULL));
		wi = mf_test_info(f);
		EXPECT_EQ(0, wi.current_gen);
		for (j = 0; j < gens; j++) {
			EXPECT_EQ(0, wi.keys[j]);
			EXPECT_EQ(0, wi.fill[j]);
		}
		ASSERT_EQ(0, mf_offline_info(f, &info));
		EXPECT_EQ(0, info.keys);
		EXPECT_EQ(0, info.fill);
		free(keys);
		mf_offline_free(f);
	}
}

/*
 * A rotated-out set's positives are exactly its false positives against
 * the live set: a filter holding only the live set has the same ones.
 */
TEST(expired_keys_exact_false_positives)
{
	const unsigned int gens = 3;
	struct mf_offline *f = mf_test_window(gens, false);
	struct mf_offline *live = mf_test_window(gens, false);
	uint64_t *old = mf_test_keys(CAP, 1), *cur = mf_test_keys(CAP, 1 << 20);
	uint64_t res[(CAP + 63) / 64], want[(CAP + 63) / 64];
	ssize_t fp;
	unsigned int r;

	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, live);
	EXPECT_EQ(CAP, mf_offline_add(f, old, 8, CAP, NULL, NULL));
	ASSERT_EQ(0, mf_offline_rotate(f));
	EXPECT_EQ(CAP, mf_offline_add(f, cur, 8, CAP, NULL, NULL));
	for (r = 1; r < gens; r++) {
		EXPECT_EQ(CAP, mf_offline_query(f, old, 8, CAP, NULL, NULL));
		ASSERT_EQ(0, mf_offline_rotate(f));
	}
	/* @old's generation is cleared now, @cur's is still there. */
	EXPECT_EQ(CAP, mf_offline_query(f, cur, 8, CAP, NULL, NULL));
	EXPECT_EQ(CAP, mf_offline_add(live, cur, 8, CAP, NULL, NULL));
	fp = mf_offline_query(live, old, 8, CAP, want, NULL);
	EXPECT_EQ(fp, mf_offline_query(f, old, 8, CAP, res, NULL));
	EXPECT_EQ(0, memcmp(res, want, sizeof(res)));
	/* About 1% of CAP: not 0, far from all. */
	EXPECT_GT(fp, 0);
	EXPECT_LT(fp, CAP / 20);
	free(old);
	free(cur);
	mf_offline_free(live);
	mf_offline_free(f);
}

TEST(rotate_by_count_exact)
{
	struct mf_offline *f = mf_test_window(4, true);
	uint64_t *keys = mf_test_keys(5 * CAP / 2, 1);
	struct mf_window_info wi;

	ASSERT_NE(NULL, f);
	/* One key short of a full generation: no rotation. */
	EXPECT_EQ(CAP - 1, mf_offline_add(f, keys, 8, CAP - 1, NULL, NULL));
	wi = mf_test_info(f);
	EXPECT_TRUE(wi.rotate_by_count);
	EXPECT_EQ(0, wi.current_gen);
	EXPECT_EQ(CAP - 1, wi.keys[0]);
	/* The capacity-th key fills it: rotated right away. */
	EXPECT_EQ(1, mf_offline_add(f, keys + CAP - 1, 8, 1, NULL, NULL));
	wi = mf_test_info(f);
	EXPECT_EQ(1, wi.current_gen);
	EXPECT_EQ(CAP, wi.keys[0]);
	EXPECT_EQ(0, wi.keys[1]);
	/* One batch across generations is split at capacity. */
	EXPECT_EQ(3 * CAP / 2, mf_offline_add(f, keys + CAP, 8, 3 * CAP / 2,
					      NULL, NULL));
	wi = mf_test_info(f);
	EXPECT_EQ(2, wi.current_gen);
	EXPECT_EQ(CAP, wi.keys[0]);
	EXPECT_EQ(CAP, wi.keys[1]);
	EXPECT_EQ(CAP / 2, wi.keys[2]);
	EXPECT_EQ(0, wi.keys[3]);
	EXPECT_EQ(5 * CAP / 2, mf_offline_query(f, keys, 8, 5 * CAP / 2, NULL,
						NULL));
	free(keys);
	mf_offline_free(f);
}

/* G = 2 by count: 3 * CAP keys leave only the last CAP in the filter. */
TEST(rotate_by_count_expires)
{
	struct mf_offline *f = mf_test_window(2, true);
	struct mf_offline *live = mf_test_window(2, false);
	uint64_t *keys = mf_test_keys(3 * CAP, 1);
	uint64_t res[(2 * CAP + 63) / 64], want[(2 * CAP + 63) / 64];
	struct mf_window_info wi;
	ssize_t fp;

	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, live);
	EXPECT_EQ(3 * CAP, mf_offline_add(f, keys, 8, 3 * CAP, NULL, NULL));
	wi = mf_test_info(f);
	EXPECT_EQ(1, wi.current_gen);
	EXPECT_EQ(CAP, wi.keys[0]);
	EXPECT_EQ(0, wi.keys[1]);
	EXPECT_EQ(0, wi.fill[1]);
	EXPECT_EQ(CAP, mf_offline_query(f, keys + 2 * CAP, 8, CAP, NULL, NULL));
	EXPECT_EQ(CAP, mf_offline_add(live, keys + 2 * CAP, 8, CAP, NULL,
				      NULL));
	fp = mf_offline_query(live, keys, 8, 2 * CAP, want, NULL);
	EXPECT_EQ(fp, mf_offline_query(f, keys, 8, 2 * CAP, res, NULL));
	EXPECT_EQ(0, memcmp(res, want, sizeof(res)));
	EXPECT_LT(fp, CAP / 10);
	free(keys);
	mf_offline_free(live);
	mf_offline_free(f);
}

TEST(image_round_trip)
{
	struct mf_offline *f = mf_test_window(4, true), *g;
	uint64_t *keys = mf_test_keys(3 * CAP / 2, 1);
	struct mf_window_info a, b;
	void *img, *img2;
	size_t len, len2;
	const char *why;

	ASSERT_NE(NULL, f);
	EXPECT_EQ(3 * CAP / 2, mf_offline_add(f, keys, 8, 3 * CAP / 2, NULL,
					      NULL));
	ASSERT_EQ(0, mf_offline_rotate(f));
	ASSERT_EQ(0, mf_offline_image(f, &img, &len));
	ASSERT_EQ(0, mf_offline_from_image(img, len, &g, &why));
	ASSERT_EQ(0, mf_offline_image(g, &img2, &len2));
	ASSERT_EQ(len, len2);
	EXPECT_EQ(0, memcmp(img, img2, len));
	a = mf_test_info(f);
	b = mf_test_info(g);
	EXPECT_EQ(2, b.current_gen);
	EXPECT_EQ(60000, b.period_ms);
	EXPECT_TRUE(b.rotate_by_count);
	EXPECT_EQ(0, memcmp(&a, &b, sizeof(a)));
	EXPECT_EQ(3 * CAP / 2, mf_offline_query(g, keys, 8, 3 * CAP / 2, NULL,
						NULL));
	/* The loaded filter rotates on as the original does. */
	ASSERT_EQ(0, mf_offline_rotate(f));
	ASSERT_EQ(0, mf_offline_rotate(g));
	free(img);
	free(img2);
	ASSERT_EQ(0, mf_offline_image(f, &img, &len));
	ASSERT_EQ(0, mf_offline_image(g, &img2, &len2));
	ASSERT_EQ(len, len2);
	EXPECT_EQ(0, memcmp(img, img2, len));
	free(img);
	free(img2);
	free(keys);
	mf_offline_free(g);
	mf_offline_free(f);
}

TEST(bad_options)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_WINDOW, .capacity = CAP,
		.fpr = 0.01);
	MF_OPTS(mf_window_opts, w, .generations = 4);
	MF_OPTS(mf_window_info, wi);
	struct mf_window_opts small = { .sz = 4, .generations = 4 };
	struct mf_offline *f = (void *)1, *b;

	EXPECT_EQ(-EINVAL, mf_offline_create_window(&o, NULL, &f));
	EXPECT_EQ(NULL, f);
	EXPECT_EQ(-EINVAL, mf_offline_create_window(NULL, &w, &f));
	EXPECT_EQ(-EINVAL, mf_offline_create_window(&o, &small, &f));
	w.generations = 1;
	EXPECT_EQ(-EINVAL, mf_offline_create_window(&o, &w, &f));
	w.generations = 17;
	EXPECT_EQ(-EINVAL, mf_offline_create_window(&o, &w, &f));
	w.generations = 4;
	o.name = "named";
	EXPECT_EQ(-EINVAL, mf_offline_create_window(&o, &w, &f));
	o.name = NULL;
	o.type = MF_TYPE_BLOOM;
	EXPECT_EQ(-EINVAL, mf_offline_create_window(&o, &w, &f));
	o.type = MF_TYPE_WINDOW;
	o.capacity = 0;
	EXPECT_EQ(-EINVAL, mf_offline_create_window(&o, &w, &f));
	EXPECT_EQ(NULL, f);
	/* Rotation and window info are for window filters only. */
	o.type = MF_TYPE_BLOOM;
	o.capacity = CAP;
	ASSERT_EQ(0, mf_offline_create(&o, &b));
	EXPECT_EQ(-EOPNOTSUPP, mf_offline_rotate(b));
	EXPECT_EQ(-EOPNOTSUPP, mf_offline_window_info(b, &wi));
	mf_offline_free(b);
	f = mf_test_window(2, false);
	ASSERT_NE(NULL, f);
	EXPECT_EQ(-EINVAL, mf_offline_window_info(f, NULL));
	mf_offline_free(f);
}

TEST_HARNESS_MAIN
