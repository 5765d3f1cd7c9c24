// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite memfilter_api: the exported in-kernel API as kernel hooks
 * and kfuncs use it. Name lookups with and without references, lookups
 * and queries from softirq context under RCU (DEBUG_ATOMIC_SLEEP and
 * lockdep watch for sleeping), filter lifetime across unpublish and the
 * last put, batch calls, and the errors of each call.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/interrupt.h>
#include <linux/rcupdate.h>
#include <linux/timer.h>

#include "filter/filter.h"
#include "kernel_compat.h"

static struct memfilter *mf_new(struct kunit *test, u32 type, u64 cap)
{
	struct memfilter_create c = {
		.type = type, .capacity = cap, .flags = MEMFILTER_CREATE_SEED,
		.seed = 42,
	};
	struct memfilter *f;

	if (type == MEMFILTER_TYPE_BLOOM)
		c.bits_per_key_q4 = 40;
	else
		c.fingerprint_bits = 12;
	f = memfilter_filter_create(&c);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	return f;
}

static void mf_api_names(struct kunit *test)
{
	struct memfilter *f = mf_new(test, MEMFILTER_TYPE_BLOOM, 1000), *g;
	char name[MEMFILTER_NAME_MAX] = "kunit.names";

	KUNIT_EXPECT_NULL(test, memfilter_get_by_name(name));
	KUNIT_ASSERT_EQ(test, memfilter_publish(f, name), 0);
	KUNIT_EXPECT_EQ(test, memfilter_publish(f, "kunit.other"), -EBUSY);
	g = mf_new(test, MEMFILTER_TYPE_BLOOM, 10);
	KUNIT_EXPECT_EQ(test, memfilter_publish(g, name), -EEXIST);
	memfilter_put(g);

	g = memfilter_get_by_name(name);
	KUNIT_EXPECT_PTR_EQ(test, g, f);
	rcu_read_lock();
	KUNIT_EXPECT_PTR_EQ(test, memfilter_lookup_rcu(name), f);
	KUNIT_EXPECT_NULL(test, memfilter_lookup_rcu("kunit.none"));
	rcu_read_unlock();

	/* Unpublished, still usable through the reference we hold. */
	KUNIT_EXPECT_EQ(test, memfilter_unpublish(f), 0);
	KUNIT_EXPECT_EQ(test, memfilter_unpublish(f), -ENOENT);
	KUNIT_EXPECT_NULL(test, memfilter_get_by_name(name));
	KUNIT_EXPECT_EQ(test, memfilter_add(g, "k", 1), 0);
	KUNIT_EXPECT_TRUE(test, memfilter_contains(g, "k", 1));
	memfilter_put(g);
	memfilter_put(f);	/* the last reference: freed after RCU */
}

static void mf_api_name_rules(struct kunit *test)
{
	char n[MEMFILTER_NAME_MAX];

	memset(n, 0, sizeof(n));
	KUNIT_EXPECT_EQ(test, memfilter_name_valid(n), -EINVAL);
	strscpy(n, "ok.name-1_x", sizeof(n));
	KUNIT_EXPECT_EQ(test, memfilter_name_valid(n), 0);
	strscpy(n, "bad/name", sizeof(n));
	KUNIT_EXPECT_EQ(test, memfilter_name_valid(n), -EINVAL);
	strscpy(n, "bad name", sizeof(n));
	KUNIT_EXPECT_EQ(test, memfilter_name_valid(n), -EINVAL);
	memset(n, 'a', sizeof(n));
	KUNIT_EXPECT_EQ(test, memfilter_name_valid(n), -EINVAL);	/* no NUL */
	memset(n, 0, sizeof(n));
	strscpy(n, "a", sizeof(n));
	n[5] = 'x';						/* junk after NUL */
	KUNIT_EXPECT_EQ(test, memfilter_name_valid(n), -EINVAL);
}

struct mf_softirq {
	struct timer_list timer;
	struct memfilter *f;
	struct completion done;
	bool in_softirq;
	bool found, absent, added;
};

/* A packet path: find the filter by name under RCU, query and add. */
static void mf_softirq_fn(struct timer_list *t)
{
	struct mf_softirq *s = timer_container_of(s, t, timer);
	struct memfilter *f;

	s->in_softirq = in_softirq();
	rcu_read_lock();
	f = memfilter_lookup_rcu("kunit.softirq");
	if (f) {
		s->found = memfilter_contains(f, "present", 7);
		s->absent = !memfilter_contains(f, "nothere", 7);
		s->added = !memfilter_add(f, "fromsoftirq", 11);
	}
	rcu_read_unlock();
	complete(&s->done);
}

static void mf_api_softirq(struct kunit *test)
{
	static const u32 types[] = { MEMFILTER_TYPE_BLOOM, MEMFILTER_TYPE_CUCKOO };
	struct mf_softirq *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		struct memfilter *f = mf_new(test, types[i], 1000);

		KUNIT_ASSERT_EQ(test, memfilter_add(f, "present", 7), 0);
		KUNIT_ASSERT_EQ(test, memfilter_publish(f, "kunit.softirq"), 0);
		memset(s, 0, sizeof(*s));
		init_completion(&s->done);
		timer_setup_on_stack(&s->timer, mf_softirq_fn, 0);
		mod_timer(&s->timer, jiffies + 1);
		wait_for_completion(&s->done);
		timer_delete_sync(&s->timer);
		destroy_timer_on_stack(&s->timer);

		KUNIT_EXPECT_TRUE(test, s->in_softirq);
		KUNIT_EXPECT_TRUE(test, s->found);
		KUNIT_EXPECT_TRUE(test, s->absent);
		KUNIT_EXPECT_TRUE(test, s->added);
		KUNIT_EXPECT_TRUE(test, memfilter_contains(f, "fromsoftirq", 11));
		KUNIT_EXPECT_EQ(test, memfilter_unpublish(f), 0);
		memfilter_put(f);
	}
}

static void mf_api_calls(struct kunit *test)
{
	struct memfilter *b = mf_new(test, MEMFILTER_TYPE_BLOOM, 1000);
	struct memfilter *c = mf_new(test, MEMFILTER_TYPE_CUCKOO, 64);
	unsigned long *res = kunit_kcalloc(test, BITS_TO_LONGS(300),
					   sizeof(long), GFP_KERNEL);
	u64 *keys = kunit_kcalloc(test, 300, sizeof(u64), GFP_KERNEL);
	u32 i, done;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, res);
	KUNIT_ASSERT_NOT_NULL(test, keys);
	for (i = 0; i < 300; i++)
		keys[i] = i;
	KUNIT_EXPECT_EQ(test, memfilter_delete(b, "x", 1), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, memfilter_add_batch(b, keys, 8, 200, &done), 0);
	KUNIT_EXPECT_EQ(test, done, 200U);
	KUNIT_EXPECT_EQ(test, memfilter_contains_batch(b, keys, 8, 200, res), 200U);
	KUNIT_EXPECT_TRUE(test, bitmap_full(res, 200));
	KUNIT_EXPECT_EQ(test, memfilter_contains_batch(b, keys, 8, 0, res), 0U);

	/* A full cuckoo filter refuses more and keeps what it has. */
	ret = memfilter_add_batch(c, keys, 8, 300, &done);
	KUNIT_EXPECT_EQ(test, ret, -ENOSPC);
	KUNIT_EXPECT_LT(test, done, 300U);
	KUNIT_EXPECT_GE(test, done, 60U);
	KUNIT_EXPECT_EQ(test, memfilter_contains_batch(c, keys, 8, done, res), done);
	KUNIT_EXPECT_EQ(test, memfilter_delete(c, &keys[0], 8), 0);
	KUNIT_EXPECT_EQ(test, memfilter_delete(c, "never", 5), -ENOENT);

	/* References: get on a live filter, and the last put frees. */
	KUNIT_EXPECT_PTR_EQ(test, memfilter_get(b), b);
	memfilter_put(b);
	memfilter_put(b);
	memfilter_put(c);
	memfilter_put(NULL);
}

/*
 * memfilter_test_and_add() and memfilter_contains(), the types' single-key
 * ops (scalar in the kernel, with the module's hooks and counters), answer
 * as the batch path does for the same keys in order: a window rotated by
 * hand, a growing filter through its attachments to its limit (the single
 * key's -EAGAIN: the test makes the next sub-filter, as the work item
 * would, and retries; the batch's sleepable call makes it in line), and
 * Bloom; the keys, adds, queries (but the retried calls' own) and hits
 * counted alike.
 */
static void mf_api_single_is_batch(struct kunit *test)
{
	static const struct memfilter_create shapes[] = {
		{ .type = MEMFILTER_TYPE_WINDOW, .capacity = 300,
		  .bits_per_key_q4 = 40, .generations = 4 },
		{ .type = MEMFILTER_TYPE_GROW, .capacity = 50,
		  .fpr_ppb = 10000000, .grow_max = 4 },
		{ .type = MEMFILTER_TYPE_BLOOM, .capacity = 2000,
		  .bits_per_key_q4 = 40 },
	};
	u32 s, i, done, limits = 0, retries;

	for (s = 0; s < ARRAY_SIZE(shapes); s++) {
		struct memfilter_create c = shapes[s];
		struct memfilter_info *i1, *i2;
		struct memfilter *f1, *f2;

		c.flags = MEMFILTER_CREATE_SEED;
		c.seed = 17;
		f1 = memfilter_filter_create(&c);
		KUNIT_ASSERT_FALSE(test, IS_ERR(f1));
		f2 = memfilter_filter_create(&c);
		KUNIT_ASSERT_FALSE(test, IS_ERR(f2));
		retries = 0;
		for (i = 0; i < 2000; i++) {
			/* A quarter of the keys repeat earlier ones. */
			u64 key = i % 4 ? i : i / 8, h, q = i * 7 + 100000;
			unsigned long res = 0;
			int one, want;

			one = memfilter_test_and_add(f1, &key, sizeof(key));
			while (one == -EAGAIN) {
				/* Its query of the absent key counted too. */
				retries++;
				KUNIT_ASSERT_EQ(test, memfilter_grow_prepare(f1), 0);
				one = memfilter_test_and_add(f1, &key, sizeof(key));
			}
			h = memfilter_key_hash(f2->ops, &f2->s, &key, sizeof(key));
			want = memfilter_filter_test_and_add_sleepable(f2, &h, 1,
								       &res, &done);
			if (want && !done)
				want = memfilter_contains(f2, &key, sizeof(key)) ?
				       1 : want;
			else
				want = res & 1;
			KUNIT_ASSERT_EQ_MSG(test, one, want, "type %u key %u",
					    c.type, i);
			limits += one == -ENOSPC;
			res = 0;
			KUNIT_ASSERT_EQ(test, memfilter_contains(f1, &q, sizeof(q)),
					memfilter_contains_batch(f2, &q, sizeof(q),
								 1, &res) == 1);
			if (c.type == MEMFILTER_TYPE_WINDOW && i % 250 == 249) {
				KUNIT_ASSERT_EQ(test, memfilter_rotate(f1), 0);
				KUNIT_ASSERT_EQ(test, memfilter_rotate(f2), 0);
			}
		}
		/* Large structs: not on the stack. */
		i1 = kunit_kzalloc(test, sizeof(*i1), GFP_KERNEL);
		i2 = kunit_kzalloc(test, sizeof(*i2), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, i1);
		KUNIT_ASSERT_NOT_NULL(test, i2);
		memfilter_filter_info(f1, i1);
		memfilter_filter_info(f2, i2);
		KUNIT_EXPECT_EQ(test, i1->keys, i2->keys);
		KUNIT_EXPECT_EQ(test, i1->adds, i2->adds);
		KUNIT_EXPECT_EQ(test, i1->queries, i2->queries + retries);
		KUNIT_EXPECT_EQ(test, i1->hits, i2->hits);
		memfilter_put(f1);
		memfilter_put(f2);
	}
	/* The growing filter reached its limit: its new keys were refused. */
	KUNIT_EXPECT_GT(test, limits, 100U);
}

static struct kunit_case memfilter_api_cases[] = {
	KUNIT_CASE(mf_api_names),
	KUNIT_CASE(mf_api_name_rules),
	KUNIT_CASE(mf_api_softirq),
	KUNIT_CASE(mf_api_calls),
	KUNIT_CASE(mf_api_single_is_batch),
	{}
};

static struct kunit_suite memfilter_api_suite = {
	.name = "memfilter_api",
	.test_cases = memfilter_api_cases,
};

kunit_test_suite(memfilter_api_suite);
