// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite memfilter_names: the name table and the by-id cache of
 * published filters (names.c, names.h). A lookup by id must find the
 * filter published under that id and nothing else: not a filter
 * published later under an id that reuses the cache slot, not a filter
 * after its unpublish; and a slot freed by an unpublish goes to another
 * published filter of the same low bits, so that the one-load path keeps
 * serving it. A replace or an exchange changes the filter of a name, its
 * id and its holders in one step: readers racing 1000 replaces always
 * find one of the two filters (never none), memfilter_get_by_name()
 * always gets its reference, and the old filter's reference goes after
 * a grace period.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/rcupdate.h>

#include "filter/names.h"

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

/* A Bloom filter holding @key. */
static struct memfilter *mf_names_with(struct kunit *test, u64 key)
{
	struct memfilter *f = mf_names_new(test);

	KUNIT_ASSERT_EQ(test, memfilter_add(f, &key, sizeof(key)), 0);
	return f;
}

static struct memfilter *mf_names_cuckoo(struct kunit *test)
{
	struct memfilter_create c = {
		.type = MEMFILTER_TYPE_CUCKOO, .capacity = 100,
		.fingerprint_bits = 12,
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

/* The filter published under @name now, by name. */
static struct memfilter *mf_names_by_name(const char *name)
{
	struct memfilter *f;

	rcu_read_lock();
	f = memfilter_lookup_rcu(name);
	rcu_read_unlock();
	return f;
}

/* The name's references to filters that lost it go after a grace period. */
static void mf_names_settle(void)
{
	rcu_barrier();
}

/*
 * Replace: the name and its id (in the cache and, for a second entry of
 * the same slot, in the xarray) find the new filter, which takes the id
 * over; the old one loses its name, and the name's reference to it.
 */
static void mf_names_replace_keeps_id(struct kunit *test)
{
	struct memfilter *f = mf_names_new(test), *g = mf_names_new(test);
	struct memfilter *h = mf_names_new(test), *k = mf_names_new(test);
	struct memfilter_info info = { .size = sizeof(info) };
	u32 a, b;

	KUNIT_ASSERT_EQ(test, memfilter_publish(f, "kunit.replace.f"), 0);
	a = mf_names_id(f);
	b = mf_names_publish_in_slot(test, h, "kunit.replace.h", a);
	KUNIT_EXPECT_EQ(test, mf_names_cached(a), a);	/* h: the xarray */

	KUNIT_ASSERT_EQ(test, memfilter_replace("kunit.replace.f", g, false), 0);
	KUNIT_EXPECT_PTR_EQ(test, mf_names_by_name("kunit.replace.f"), g);
	KUNIT_EXPECT_PTR_EQ(test, mf_names_lookup(test, a), g);
	KUNIT_EXPECT_EQ(test, mf_names_cached(a), a);
	KUNIT_EXPECT_EQ(test, mf_names_id(g), a);
	KUNIT_EXPECT_EQ(test, mf_names_id(f), 0);
	memfilter_filter_info(g, &info);
	KUNIT_EXPECT_STREQ(test, info.name, "kunit.replace.f");
	KUNIT_EXPECT_TRUE(test, info.status & MEMFILTER_STATUS_PUBLISHED);
	memset(&info, 0, sizeof(info));
	memfilter_filter_info(f, &info);
	KUNIT_EXPECT_FALSE(test, info.status & MEMFILTER_STATUS_PUBLISHED);
	/* Ours and, until a grace period has passed, the name's. */
	KUNIT_EXPECT_GE(test, refcount_read(&f->ref), 1);
	mf_names_settle();
	KUNIT_EXPECT_EQ(test, refcount_read(&f->ref), 1);
	KUNIT_EXPECT_EQ(test, refcount_read(&g->ref), 2);

	/* The id found through the xarray follows too. */
	KUNIT_ASSERT_EQ(test, memfilter_replace("kunit.replace.h", k, false), 0);
	KUNIT_EXPECT_PTR_EQ(test, mf_names_lookup(test, b), k);
	KUNIT_EXPECT_EQ(test, mf_names_id(k), b);
	KUNIT_EXPECT_PTR_EQ(test, mf_names_lookup(test, a), g);

	/* The old filter can take a name again, and the id goes with it. */
	KUNIT_ASSERT_EQ(test, memfilter_replace("kunit.replace.f", f, false), 0);
	KUNIT_EXPECT_PTR_EQ(test, mf_names_lookup(test, a), f);
	KUNIT_EXPECT_EQ(test, mf_names_id(f), a);
	KUNIT_EXPECT_EQ(test, mf_names_id(g), 0);

	KUNIT_EXPECT_EQ(test, memfilter_unpublish(f), 0);
	KUNIT_EXPECT_EQ(test, memfilter_unpublish(k), 0);
	KUNIT_EXPECT_NULL(test, mf_names_lookup(test, a));
	KUNIT_EXPECT_NULL(test, mf_names_lookup(test, b));
	KUNIT_EXPECT_EQ(test, memfilter_unpublish(h), -ENOENT);
	mf_names_settle();
	KUNIT_EXPECT_EQ(test, refcount_read(&h->ref), 1);
	memfilter_put(k);
	memfilter_put(h);
	memfilter_put(g);
	memfilter_put(f);
}

/* Errors leave everything as it was. */
static void mf_names_replace_errors(struct kunit *test)
{
	struct memfilter *f = mf_names_new(test), *g = mf_names_new(test);
	struct memfilter *c = mf_names_cuckoo(test);
	struct memfilter_name_entry *n;
	u32 a;

	KUNIT_EXPECT_EQ(test, memfilter_replace("kunit.replace.none", g, false),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, mf_names_id(g), 0);
	KUNIT_ASSERT_EQ(test, memfilter_publish(f, "kunit.replace.f"), 0);
	a = mf_names_id(f);
	/* A published filter, its own name included: EBUSY. */
	KUNIT_EXPECT_EQ(test, memfilter_replace("kunit.replace.f", f, false),
			-EBUSY);
	KUNIT_ASSERT_EQ(test, memfilter_replace("kunit.replace.g", g, true), 0);
	KUNIT_EXPECT_PTR_EQ(test, mf_names_by_name("kunit.replace.g"), g);
	KUNIT_EXPECT_NE(test, mf_names_id(g), 0);
	KUNIT_EXPECT_EQ(test, memfilter_replace("kunit.replace.f", g, false),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, memfilter_replace("kunit.replace.f", g, true),
			-EBUSY);

	/* A holder that test-and-adds keeps a cuckoo filter out. */
	n = memfilter_name_hold("kunit.replace.f", MEMFILTER_HOLD_TEST_AND_ADD);
	KUNIT_ASSERT_FALSE(test, IS_ERR(n));
	KUNIT_EXPECT_EQ(test, memfilter_replace("kunit.replace.f", c, false),
			-EOPNOTSUPP);
	KUNIT_EXPECT_PTR_EQ(test, mf_names_lookup(test, a), f);
	KUNIT_EXPECT_EQ(test, mf_names_id(c), 0);
	KUNIT_ASSERT_EQ(test, memfilter_replace("kunit.replace.c", c, true), 0);
	KUNIT_EXPECT_EQ(test, memfilter_exchange("kunit.replace.f",
						 "kunit.replace.c"), -EOPNOTSUPP);
	KUNIT_EXPECT_PTR_EQ(test, mf_names_by_name("kunit.replace.c"), c);
	KUNIT_EXPECT_TRUE(test, IS_ERR(memfilter_name_hold("kunit.replace.c",
							   MEMFILTER_HOLD_TEST_AND_ADD)));
	memfilter_name_end_hold(n, MEMFILTER_HOLD_TEST_AND_ADD);
	memfilter_name_release(n);
	KUNIT_EXPECT_EQ(test, memfilter_exchange("kunit.replace.f",
						 "kunit.replace.c"), 0);
	KUNIT_EXPECT_PTR_EQ(test, mf_names_lookup(test, a), c);

	KUNIT_EXPECT_EQ(test, memfilter_exchange("kunit.replace.f",
						 "kunit.replace.f"), -EINVAL);
	KUNIT_EXPECT_EQ(test, memfilter_exchange("kunit.replace.f",
						 "kunit.replace.none"), -ENOENT);
	KUNIT_EXPECT_EQ(test, memfilter_unpublish(c), 0);
	KUNIT_EXPECT_EQ(test, memfilter_unpublish(f), 0);
	KUNIT_EXPECT_EQ(test, memfilter_unpublish(g), 0);
	mf_names_settle();
	memfilter_put(c);
	memfilter_put(g);
	memfilter_put(f);
}

/* Exchange: each name keeps its id, the filters swap names and ids. */
static void mf_names_exchange_swaps(struct kunit *test)
{
	struct memfilter *f = mf_names_new(test), *g = mf_names_new(test);
	u32 a, b;

	KUNIT_ASSERT_EQ(test, memfilter_publish(f, "kunit.exchange.f"), 0);
	KUNIT_ASSERT_EQ(test, memfilter_publish(g, "kunit.exchange.g"), 0);
	a = mf_names_id(f);
	b = mf_names_id(g);
	KUNIT_ASSERT_EQ(test, memfilter_exchange("kunit.exchange.f",
						 "kunit.exchange.g"), 0);
	KUNIT_EXPECT_PTR_EQ(test, mf_names_by_name("kunit.exchange.f"), g);
	KUNIT_EXPECT_PTR_EQ(test, mf_names_by_name("kunit.exchange.g"), f);
	KUNIT_EXPECT_PTR_EQ(test, mf_names_lookup(test, a), g);
	KUNIT_EXPECT_PTR_EQ(test, mf_names_lookup(test, b), f);
	KUNIT_EXPECT_EQ(test, mf_names_id(g), a);
	KUNIT_EXPECT_EQ(test, mf_names_id(f), b);
	/* No reference moved: one each for the names, one each ours. */
	KUNIT_EXPECT_EQ(test, refcount_read(&f->ref), 2);
	KUNIT_EXPECT_EQ(test, refcount_read(&g->ref), 2);
	/* Unpublishing a filter removes the name it has now. */
	KUNIT_EXPECT_EQ(test, memfilter_unpublish(f), 0);
	KUNIT_EXPECT_NULL(test, mf_names_by_name("kunit.exchange.g"));
	KUNIT_EXPECT_PTR_EQ(test, mf_names_by_name("kunit.exchange.f"), g);
	KUNIT_EXPECT_EQ(test, memfilter_unpublish(g), 0);
	memfilter_put(g);
	memfilter_put(f);
}

/* A holder follows replaces, and keeps the last filter after unpublish. */
static void mf_names_hold_follows(struct kunit *test)
{
	struct memfilter *f = mf_names_new(test), *g = mf_names_new(test);
	struct memfilter_name_entry *n;
	struct memfilter *got;

	KUNIT_EXPECT_EQ(test, PTR_ERR(memfilter_name_hold("kunit.hold", 0)),
			-ENOENT);
	KUNIT_ASSERT_EQ(test, memfilter_publish(f, "kunit.hold"), 0);
	n = memfilter_name_hold("kunit.hold", 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(n));
	rcu_read_lock();
	got = memfilter_name_filter(n);
	rcu_read_unlock();
	KUNIT_EXPECT_PTR_EQ(test, got, f);
	KUNIT_ASSERT_EQ(test, memfilter_replace("kunit.hold", g, false), 0);
	rcu_read_lock();
	got = memfilter_name_filter(n);
	rcu_read_unlock();
	KUNIT_EXPECT_PTR_EQ(test, got, g);
	KUNIT_EXPECT_EQ(test, memfilter_unpublish(g), 0);
	rcu_read_lock();
	got = memfilter_name_filter(n);
	rcu_read_unlock();
	KUNIT_EXPECT_PTR_EQ(test, got, g);
	/* The name is free again; the holder stays with its entry. */
	KUNIT_ASSERT_EQ(test, memfilter_publish(f, "kunit.hold"), 0);
	rcu_read_lock();
	got = memfilter_name_filter(n);
	rcu_read_unlock();
	KUNIT_EXPECT_PTR_EQ(test, got, g);
	mf_names_settle();
	KUNIT_EXPECT_EQ(test, refcount_read(&g->ref), 2);	/* ours, n's */
	memfilter_name_release(n);
	KUNIT_EXPECT_EQ(test, refcount_read(&g->ref), 1);
	KUNIT_EXPECT_EQ(test, memfilter_unpublish(f), 0);
	memfilter_put(g);
	memfilter_put(f);
}

#define MF_RACE_READERS		2
#define MF_RACE_REPLACES	1000
/* Replaces by a new filter each time, whose name holds its last reference. */
#define MF_RACE_FRESH		300
#define MF_RACE_KEY		0x5eed5eedULL

struct mf_race {
	struct memfilter *f[2];
	bool fresh;		/* new filters: any filter holding the key */
	struct memfilter_name_entry *n;
	u32 id;
	atomic_t stop;
	atomic_t bad;
	atomic_t checked;
	struct completion done[MF_RACE_READERS];
};

struct mf_race_arg {
	struct mf_race *r;
	int i;
};

/* One of the two filters (or, fresh, any), holding the key all hold. */
static bool mf_race_good(const struct mf_race *r, struct memfilter *f)
{
	u64 key = MF_RACE_KEY;

	if (!f || (!r->fresh && f != r->f[0] && f != r->f[1]))
		return false;
	return memfilter_contains(f, &key, sizeof(key));
}

static int mf_race_reader(void *data)
{
	struct mf_race_arg *a = data;
	struct mf_race *r = a->r;
	struct memfilter *f;
	bool ok;

	while (!atomic_read(&r->stop)) {
		rcu_read_lock();
		ok = mf_race_good(r, memfilter_lookup_rcu("kunit.race")) &&
		     mf_race_good(r, memfilter_lookup_id_rcu(r->id)) &&
		     mf_race_good(r, memfilter_name_filter(r->n));
		rcu_read_unlock();
		f = memfilter_get_by_name("kunit.race");
		ok = ok && f && mf_race_good(r, f);
		memfilter_put(f);
		if (!ok)
			atomic_inc(&r->bad);
		atomic_inc(&r->checked);
		cond_resched();
	}
	complete(&r->done[a->i]);
	return 0;
}

/*
 * Readers by name, by id, through a holder and by reference, racing
 * replaces: MF_RACE_REPLACES between two filters that both hold a key,
 * or (@fresh) MF_RACE_FRESH by a new filter holding it each time, whose
 * name then holds its only reference (so each old one is freed, after
 * its deferred put, while readers may still have found it): every read
 * finds a filter holding the key, never none.
 */
static void mf_names_race_run(struct kunit *test, bool fresh)
{
	struct mf_race *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct mf_race_arg args[MF_RACE_READERS];
	struct task_struct *t[MF_RACE_READERS];
	int i, n = fresh ? MF_RACE_FRESH : MF_RACE_REPLACES, err = 0;
	struct memfilter *g;

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->fresh = fresh;
	r->f[0] = mf_names_with(test, MF_RACE_KEY);
	r->f[1] = mf_names_with(test, MF_RACE_KEY);
	KUNIT_ASSERT_EQ(test, memfilter_publish(r->f[0], "kunit.race"), 0);
	r->id = mf_names_id(r->f[0]);
	r->n = memfilter_name_hold("kunit.race", MEMFILTER_HOLD_TEST_AND_ADD);
	KUNIT_ASSERT_FALSE(test, IS_ERR(r->n));
	for (i = 0; i < MF_RACE_READERS; i++) {
		init_completion(&r->done[i]);
		args[i].r = r;
		args[i].i = i;
		t[i] = kthread_create(mf_race_reader, &args[i], "mf-race-%d", i);
		if (IS_ERR(t[i]))
			err = PTR_ERR(t[i]);
	}
	if (err) {
		for (i = 0; i < MF_RACE_READERS; i++)
			if (!IS_ERR(t[i]))
				kthread_stop(t[i]);
		KUNIT_FAIL(test, "kthread_create: %d", err);
		return;
	}
	for (i = 0; i < MF_RACE_READERS; i++)
		wake_up_process(t[i]);
	for (i = 1; i <= n && !err; i++) {
		if (fresh) {
			g = i < n ? mf_names_with(test, MF_RACE_KEY) : r->f[0];
			err = memfilter_replace("kunit.race", g, false);
			if (g != r->f[0])
				memfilter_put(g);	/* the name's alone */
		} else {
			err = memfilter_replace("kunit.race", r->f[i & 1], false);
		}
		cond_resched();
	}
	atomic_set(&r->stop, 1);
	for (i = 0; i < MF_RACE_READERS; i++)
		wait_for_completion(&r->done[i]);
	KUNIT_EXPECT_EQ(test, err, 0);
	kunit_info(test, "%d reads across %d replaces%s",
		   atomic_read(&r->checked), n, fresh ? " by new filters" : "");
	KUNIT_EXPECT_EQ(test, atomic_read(&r->bad), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&r->checked), 0);
	KUNIT_EXPECT_PTR_EQ(test, mf_names_lookup(test, r->id), r->f[0]);
	memfilter_name_end_hold(r->n, MEMFILTER_HOLD_TEST_AND_ADD);
	memfilter_name_release(r->n);
	KUNIT_EXPECT_EQ(test, memfilter_unpublish(r->f[0]), 0);
	mf_names_settle();
	KUNIT_EXPECT_EQ(test, refcount_read(&r->f[0]->ref), 1);
	KUNIT_EXPECT_EQ(test, refcount_read(&r->f[1]->ref), 1);
	memfilter_put(r->f[1]);
	memfilter_put(r->f[0]);
}

static void mf_names_replace_race(struct kunit *test)
{
	mf_names_race_run(test, false);
}

static void mf_names_replace_race_fresh(struct kunit *test)
{
	mf_names_race_run(test, true);
}

static struct kunit_case memfilter_names_cases[] = {
	KUNIT_CASE(mf_names_slot_reused),
	KUNIT_CASE(mf_names_slot_shared),
	KUNIT_CASE(mf_names_replace_keeps_id),
	KUNIT_CASE(mf_names_replace_errors),
	KUNIT_CASE(mf_names_exchange_swaps),
	KUNIT_CASE(mf_names_hold_follows),
	KUNIT_CASE(mf_names_replace_race),
	KUNIT_CASE(mf_names_replace_race_fresh),
	{}
};

static struct kunit_suite memfilter_names_suite = {
	.name = "memfilter_names",
	.test_cases = memfilter_names_cases,
};

kunit_test_suite(memfilter_names_suite);
