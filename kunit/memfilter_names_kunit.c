// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite memfilter_names: the by-id cache of published filters
 * (names.c, names.h). A lookup by id must find the filter published
 * under that id and nothing else: not a filter published later under an
 * id that reuses the cache slot, not a filter after its unpublish; and a
 * slot freed by an unpublish goes to another published filter of the
 * same low bits, so that the one-load path keeps serving it.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <kunit/test.h>
#include <linux/rcupdate.h>

#include "names.h"

static struct memfilter *mf_names_new(struct kunit *test)
{
	struct memfilter_create c = {
		.type = MEMFILTER_TYPE_BLOOM, .capacity = 100,
		.flags = MEMFILTER_CREATE_SEED, .seed = 42,
		.bits_per_key_q4 = 40,
	};
	struct memfilter *f = memfilter_filter_create(&c);

	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	return f;
}

static u32 mf_names_id(struct memfilter *f)
{
	struct memfilter_info info = { .size = sizeof(info) };

	memfilter_filter_info(f, &info);
	return info.pub_id;
}

static u32 mf_names_slot(u32 id)
{
	return id & (MEMFILTER_ID_CACHE_SLOTS - 1);
}

/* The filter of @id by the inline path and by the exported one. */
static struct memfilter *mf_names_lookup(struct kunit *test, u32 id)
{
	struct memfilter *f, *g;

	rcu_read_lock();
	f = memfilter_lookup_id_fast(id);
	g = memfilter_lookup_id_rcu(id);
	rcu_read_unlock();
	KUNIT_EXPECT_PTR_EQ(test, f, g);
	return f;
}

/* The id of the entry in @id's slot, 0 if it is empty. */
static u32 mf_names_cached(u32 id)
{
	const struct memfilter_name_entry *n;
	u32 ret;

	rcu_read_lock();
	n = rcu_dereference(memfilter_id_cache[mf_names_slot(id)]);
	ret = n ? n->id : 0;
	rcu_read_unlock();
	return ret;
}

/*
 * Publish @f under @name until its id takes the cache slot of @id (ids
 * are issued cyclically: at most one round of the slots). Return its id.
 */
static u32 mf_names_publish_in_slot(struct kunit *test, struct memfilter *f,
				    const char *name, u32 id)
{
	u32 i, got;

	for (i = 0; i <= 2 * MEMFILTER_ID_CACHE_SLOTS; i++) {
		KUNIT_ASSERT_EQ(test, memfilter_publish(f, name), 0);
		got = mf_names_id(f);
		if (mf_names_slot(got) == mf_names_slot(id))
			return got;
		KUNIT_ASSERT_EQ(test, memfilter_unpublish(f), 0);
	}
	KUNIT_FAIL(test, "no id in the slot of %u after %u publishes", id, i);
	return 0;
}

/* Unpublish, then a new filter in the same slot: the old id finds nothing. */
static void mf_names_slot_reused(struct kunit *test)
{
	struct memfilter *f = mf_names_new(test), *g = mf_names_new(test);
	u32 a, b;

	KUNIT_ASSERT_EQ(test, memfilter_publish(f, "kunit.idcache.f"), 0);
	a = mf_names_id(f);
	KUNIT_EXPECT_EQ(test, mf_names_cached(a), a);
	KUNIT_EXPECT_PTR_EQ(test, mf_names_lookup(test, a), f);

	KUNIT_ASSERT_EQ(test, memfilter_unpublish(f), 0);
	KUNIT_EXPECT_EQ(test, mf_names_cached(a), 0);
	KUNIT_EXPECT_NULL(test, mf_names_lookup(test, a));

	b = mf_names_publish_in_slot(test, g, "kunit.idcache.g", a);
	KUNIT_EXPECT_NE(test, b, a);
	KUNIT_EXPECT_EQ(test, mf_names_cached(a), b);
	KUNIT_EXPECT_PTR_EQ(test, mf_names_lookup(test, b), g);
	/* The stale id, its slot now another filter's: nothing. */
	KUNIT_EXPECT_NULL(test, mf_names_lookup(test, a));

	/* Republished: a new id, the old one still stale. */
	KUNIT_ASSERT_EQ(test, memfilter_publish(f, "kunit.idcache.f"), 0);
	KUNIT_EXPECT_NE(test, mf_names_id(f), a);
	KUNIT_EXPECT_NULL(test, mf_names_lookup(test, a));
	KUNIT_EXPECT_PTR_EQ(test, mf_names_lookup(test, mf_names_id(f)), f);

	KUNIT_EXPECT_EQ(test, memfilter_unpublish(g), 0);
	KUNIT_EXPECT_EQ(test, memfilter_unpublish(f), 0);
	KUNIT_EXPECT_NULL(test, mf_names_lookup(test, b));
	memfilter_put(g);
	memfilter_put(f);
}

/* Two published filters in one slot: both found; the slot passes on. */
static void mf_names_slot_shared(struct kunit *test)
{
	struct memfilter *f = mf_names_new(test), *g = mf_names_new(test);
	u32 a, b;

	KUNIT_ASSERT_EQ(test, memfilter_publish(f, "kunit.idcache.f"), 0);
	a = mf_names_id(f);
	b = mf_names_publish_in_slot(test, g, "kunit.idcache.g", a);
	KUNIT_EXPECT_NE(test, b, a);
	/* The first keeps the slot; the second is found in the xarray. */
	KUNIT_EXPECT_EQ(test, mf_names_cached(a), a);
	KUNIT_EXPECT_PTR_EQ(test, mf_names_lookup(test, a), f);
	KUNIT_EXPECT_PTR_EQ(test, mf_names_lookup(test, b), g);

	KUNIT_ASSERT_EQ(test, memfilter_unpublish(f), 0);
	KUNIT_EXPECT_EQ(test, mf_names_cached(a), b);
	KUNIT_EXPECT_NULL(test, mf_names_lookup(test, a));
	KUNIT_EXPECT_PTR_EQ(test, mf_names_lookup(test, b), g);

	KUNIT_ASSERT_EQ(test, memfilter_unpublish(g), 0);
	KUNIT_EXPECT_EQ(test, mf_names_cached(b), 0);
	KUNIT_EXPECT_NULL(test, mf_names_lookup(test, b));
	memfilter_put(g);
	memfilter_put(f);
}

static struct kunit_case memfilter_names_cases[] = {
	KUNIT_CASE(mf_names_slot_reused),
	KUNIT_CASE(mf_names_slot_shared),
	{}
};

static struct kunit_suite memfilter_names_suite = {
	.name = "memfilter_names",
	.test_cases = memfilter_names_cases,
};

kunit_test_suite(memfilter_names_suite);
