// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite memfilter_grow: growing filters in the kernel. Growth from
 * process context (the ioctl path) to exactly max_subs sub-filters, then
 * ENOSPC with nothing lost and the memory charged; adds with bottom halves
 * disabled (the softirq callers) that never allocate: -EAGAIN while the
 * work item is kept from making the next sub-filter, success once it has
 * (also when it made the last one while the add was deciding);
 * the module's per-filter memory limit stopping growth; a consistent image
 * of a grown filter; batch test-and-add equal to one key at a time; and
 * concurrent BH-off inserters (one adding, one test-and-adding), growth
 * and a querier with zero false negatives (KASAN, lockdep and
 * DEBUG_ATOMIC_SLEEP watching).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/bottom_half.h>
#include <linux/kthread.h>
#include <linux/slab.h>

#include "filter/filter.h"
#include "helpers.h"
#include "image.h"

static struct memfilter *mf_gk_filter(struct kunit *test, u64 cap,
				      u32 max_subs)
{
	struct memfilter_create c = {
		.type = MEMFILTER_TYPE_GROW, .capacity = cap,
		.fpr_ppb = 10000000, .flags = MEMFILTER_CREATE_SEED,
		.seed = 17, .grow_max = max_subs,
	};
	struct memfilter *f = memfilter_filter_create(&c);

	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	return f;
}

static u64 mf_gk_hash(struct memfilter *f, u64 id)
{
	__le64 key = cpu_to_le64(id);

	return memfilter_key_hash(f->ops, &f->s, &key, sizeof(key));
}

/* A reproducible stream of numbers (splitmix64). */
static u64 mf_gk_rand(u64 *s)
{
	u64 z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * Batch test-and-adds (AVX2 sections where the CPU has them) answer,
 * claim and set what the same keys test-and-added one at a time do: a
 * twin filter fed key by key (a query, then an add if absent) ends with
 * the same answers, key counts and tables, byte for byte, through growth
 * and up to ENOSPC. Keys from a small set (repeats inside and across
 * batches, keys in older sub-filters), batches of 1 to 300 keys.
 */
static void mf_grow_test_and_add(struct kunit *test)
{
	struct memfilter *f = mf_gk_filter(test, 100, 5);
	struct memfilter *t = mf_gk_filter(test, 100, 5);
	u64 *h = memfilter_kunit_alloc(test, 300, sizeof(*h)), rnd = 42;
	unsigned long *res = memfilter_kunit_alloc(test, BITS_TO_LONGS(300),
						   sizeof(long));
	u32 i, n, s, done, one_done, at = 0, absent = 0, present = 0;
	int ret = 0, one_ret = 0;
	unsigned long one;
	bool was;

	while (!ret) {
		n = 1 + mf_gk_rand(&rnd) % 300;
		for (i = 0; i < n; i++)
			h[i] = mf_gk_hash(f, mf_gk_rand(&rnd) % 2 ? at++ :
					  mf_gk_rand(&rnd) % (at + 1));
		ret = memfilter_filter_test_and_add_sleepable(f, h, n, res,
							      &done);
		for (i = 0; i < n; i++) {
			u64 *hi = &h[i];

			was = memfilter_filter_contains(t, hi, 1, &one);
			if (!was) {
				one_ret = memfilter_filter_add_sleepable(t, hi,
									 1, &one,
									 &one_done);
				if (one_ret)
					break;
			}
			if (was != test_bit(i, res)) {
				KUNIT_FAIL(test, "key %u of %u: %d one by one",
					   i, n, was);
				goto out;
			}
			present += was;
			absent += !was;
		}
		KUNIT_EXPECT_EQ(test, ret, one_ret);
		KUNIT_EXPECT_EQ(test, done, i);
		for (s = 0; s < MEMFILTER_GROW_MAX_SUBS; s++)
			KUNIT_ASSERT_EQ(test, f->s.grow.keys[s],
					t->s.grow.keys[s]);
	}
	KUNIT_EXPECT_EQ(test, ret, -ENOSPC);
	/* 100 + 200 + 400 + 800 + 1600 keys: all five full. */
	KUNIT_EXPECT_EQ(test, memfilter_grow_active(&f->s.grow), 5);
	KUNIT_EXPECT_EQ(test, absent, 3100);
	KUNIT_EXPECT_GT(test, present, 2000);
	for (s = 0; s < 5; s++)
		KUNIT_EXPECT_EQ(test, memcmp(f->s.grow.sub[s].words,
					     t->s.grow.sub[s].words,
					     memfilter_bloom_bytes(&f->s.grow.sub[s].p)),
				0);
out:
	memfilter_put(f);
	memfilter_put(t);
}

/* Adds in process context grow the filter; past max_subs, ENOSPC. */
static void mf_grow_sleepable(struct kunit *test)
{
	struct memfilter *f = mf_gk_filter(test, 100, 3);
	struct memfilter_info info = {};
	u64 *h = kunit_kcalloc(test, 701, sizeof(*h), GFP_KERNEL);
	unsigned long *res = kunit_kcalloc(test, BITS_TO_LONGS(701),
					   sizeof(long), GFP_KERNEL);
	u64 bytes0 = f->bytes;
	u32 i, done;

	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_ASSERT_NOT_NULL(test, res);
	for (i = 0; i < 701; i++)
		h[i] = mf_gk_hash(f, i);
	/* 100 + 200 + 400 fit; the 701st does not, and takes nothing with it. */
	KUNIT_EXPECT_EQ(test, memfilter_filter_add_sleepable(f, h, 701, res,
							     &done), -ENOSPC);
	KUNIT_EXPECT_EQ(test, done, 700);
	KUNIT_EXPECT_EQ(test, bitmap_weight(res, 701), 700);
	KUNIT_EXPECT_FALSE(test, test_bit(700, res));
	KUNIT_EXPECT_EQ(test, memfilter_filter_contains(f, h, 700, res), 700);
	memfilter_filter_info(f, &info);
	KUNIT_EXPECT_EQ(test, info.subfilters, 3);
	KUNIT_EXPECT_EQ(test, info.keys, 700);
	KUNIT_EXPECT_EQ(test, info.capacity, 700);
	KUNIT_EXPECT_EQ(test, info.failed, 1);
	KUNIT_EXPECT_EQ(test, info.grow_max, 3);
	KUNIT_EXPECT_EQ(test, info.grow_factor, 2);
	KUNIT_EXPECT_EQ(test, info.grow_ratio_pct, 50);
	KUNIT_EXPECT_EQ(test, info.fpr_ppb, 10000000);
	KUNIT_EXPECT_FALSE(test, info.status & MEMFILTER_STATUS_OVERFILL);
	KUNIT_EXPECT_LT(test, info.est_fpr_ppb, 10000000);
	/* The sub-filters' memory is the filter's, charged as its table. */
	KUNIT_EXPECT_GT(test, f->bytes, bytes0);
	KUNIT_EXPECT_EQ(test, info.bytes, f->bytes);
	KUNIT_EXPECT_EQ(test, f->bytes,
			f->ops->mem_bytes(f->ops->params_of(&f->s)));
	/* The in-kernel API says ENOSPC too: it can grow no further. */
	KUNIT_EXPECT_EQ(test, memfilter_add(f, "x", 1), -ENOSPC);

	/* A clear keeps the sub-filters and starts over in the first. */
	memfilter_filter_clear(f);
	memset(&info, 0, sizeof(info));
	memfilter_filter_info(f, &info);
	KUNIT_EXPECT_EQ(test, info.subfilters, 1);
	KUNIT_EXPECT_EQ(test, info.keys, 0);
	KUNIT_EXPECT_EQ(test, memfilter_filter_add_sleepable(f, h, 700, res,
							     &done), 0);
	KUNIT_EXPECT_EQ(test, done, 700);
	memfilter_put(f);
}

/* memfilter_add() of the u64 @i with bottom halves off, as softirqs add. */
static int mf_gk_add_bh(struct memfilter *f, u64 i)
{
	int ret;

	local_bh_disable();
	ret = memfilter_add(f, &i, sizeof(i));
	local_bh_enable();
	return ret;
}

/* Keys 0..@n-1 in @f's @subs sub-filters, and only they. */
static void mf_gk_expect_keys(struct kunit *test, struct memfilter *f,
			      u64 n, u32 subs)
{
	struct memfilter_info info = {};
	u64 i;

	memfilter_filter_info(f, &info);
	KUNIT_EXPECT_EQ(test, info.subfilters, subs);
	KUNIT_EXPECT_EQ(test, info.keys, n);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_TRUE(test, memfilter_contains(f, &i, sizeof(i)));
}

/*
 * Adds with bottom halves off never allocate. While the work item cannot
 * run (the test holds the growth lock), a full newest sub-filter is
 * -EAGAIN; once it ran, the same add succeeds.
 */
static void mf_grow_atomic(struct kunit *test)
{
	struct memfilter *f = mf_gk_filter(test, 64, 0);
	struct memfilter_info info = {};
	u64 i;

	mutex_lock(&f->grow.lock);
	for (i = 0; i < 64; i++)
		KUNIT_EXPECT_EQ(test, mf_gk_add_bh(f, i), 0);
	KUNIT_EXPECT_EQ(test, mf_gk_add_bh(f, i), -EAGAIN);
	KUNIT_EXPECT_EQ(test, f->s.grow.p.nsubs, 1);
	mutex_unlock(&f->grow.lock);
	flush_work(&f->grow.work);
	KUNIT_EXPECT_EQ(test, f->s.grow.p.nsubs, 2);
	KUNIT_EXPECT_EQ(test, mf_gk_add_bh(f, i), 0);
	memfilter_filter_info(f, &info);
	KUNIT_EXPECT_EQ(test, info.failed, 0);
	mf_gk_expect_keys(test, f, 65, 2);
	memfilter_put(f);
}

/*
 * The work item made the next sub-filter after an add found the newest
 * full: the add is retried (-EAGAIN), not refused, though no sub-filter
 * can follow the new one (a debug guest's ioctl once got ENOSPC after
 * 100 of 300 keys that fit).
 */
static void mf_grow_made_meanwhile(struct kunit *test)
{
	struct memfilter *f = mf_gk_filter(test, 64, 2);
	u64 i;

	for (i = 0; i < 64; i++)
		KUNIT_ASSERT_EQ(test, memfilter_add(f, &i, sizeof(i)), 0);
	flush_work(&f->grow.work);
	KUNIT_ASSERT_EQ(test, memfilter_grow_prepare(f), 0);
	KUNIT_ASSERT_EQ(test, f->s.grow.p.nsubs, 2);
	KUNIT_ASSERT_EQ(test, memfilter_grow_active(&f->s.grow), 1);
	KUNIT_EXPECT_EQ(test, f->kops->added(f, -ENOSPC, false), -EAGAIN);
	/* The retry moves to it. */
	KUNIT_EXPECT_EQ(test, memfilter_add(f, &i, sizeof(i)), 0);
	KUNIT_EXPECT_EQ(test, memfilter_grow_active(&f->s.grow), 2);
	memfilter_put(f);
}

/* The filter whose last sub-filter mf_gk_next_bytes_racing() makes. */
static struct memfilter *mf_gk_racing;
static const struct memfilter_type_ops *mf_gk_real_ops;

/*
 * The type's next_bytes(), which an add that found the newest sub-filter
 * full asks before it answers -ENOSPC: the work item's growth put right
 * there, once (the growth asks it too: then the real answer).
 */
static u64 mf_gk_next_bytes_racing(const union memfilter_state *s)
{
	struct memfilter *f = mf_gk_racing;

	if (f) {
		mf_gk_racing = NULL;
		memfilter_grow_prepare(f);
	}
	return mf_gk_real_ops->next_bytes(s);
}

/*
 * The work item made the filter's last sub-filter while an add that
 * found the newest full was deciding what to answer, after its check for
 * a sub-filter made meanwhile: no next one can follow, but the new one
 * has room, so the add is retried (-EAGAIN), not refused. An ioctl's add
 * goes on in it; an atomic add's retry does. (memfilter_api's single-key
 * test once got -ENOSPC from the ioctl path there, under host load.)
 */
static void mf_grow_made_while_deciding(struct kunit *test)
{
	struct memfilter_type_ops *racing;
	bool may_sleep;

	racing = kunit_kzalloc(test, sizeof(*racing), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, racing);
	for (may_sleep = false; ; may_sleep = true) {
		struct memfilter *f = mf_gk_filter(test, 8, 2);
		unsigned long res = 0;
		u32 done = 0;
		u64 i, h;

		/* No growth ahead: adds take the module's limit as hit. */
		WRITE_ONCE(f->grow.mem_full, true);
		WRITE_ONCE(f->grow.retry, jiffies + 1000 * HZ);
		for (i = 0; i < 8; i++)
			KUNIT_ASSERT_EQ(test, mf_gk_add_bh(f, i), 0);
		KUNIT_ASSERT_FALSE(test, work_pending(&f->grow.work));
		KUNIT_ASSERT_EQ(test, f->s.grow.p.nsubs, 1);
		mf_gk_real_ops = f->ops;
		*racing = *f->ops;
		racing->next_bytes = mf_gk_next_bytes_racing;
		f->ops = racing;
		mf_gk_racing = f;
		if (may_sleep) {
			h = mf_gk_hash(f, i);
			KUNIT_EXPECT_EQ(test,
					memfilter_filter_add_sleepable(f, &h, 1,
								       &res,
								       &done),
					0);
			KUNIT_EXPECT_EQ(test, done, 1);
		} else {
			/* The atomic path, where the growth may sleep. */
			KUNIT_EXPECT_EQ(test, memfilter_add(f, &i, sizeof(i)),
					-EAGAIN);
			KUNIT_EXPECT_EQ(test, mf_gk_add_bh(f, i), 0);
		}
		f->ops = mf_gk_real_ops;
		KUNIT_EXPECT_PTR_EQ(test, mf_gk_racing, NULL);
		KUNIT_EXPECT_EQ(test, f->s.grow.p.nsubs, 2);
		mf_gk_expect_keys(test, f, 9, 2);
		memfilter_put(f);
		if (may_sleep)
			break;
	}
}

/* max_filter_mb stops growth like max_subs does: ENOSPC, nothing lost. */
static void mf_grow_filter_limit(struct kunit *test)
{
	unsigned long saved = memfilter_max_filter_mb;
	struct memfilter *f = mf_gk_filter(test, 200000, 0);
	struct memfilter_info info = {};
	u64 *h = kunit_kcalloc(test, 256, sizeof(*h), GFP_KERNEL);
	unsigned long res[BITS_TO_LONGS(256)];
	u32 i, n = 0, done;
	int ret = 0;

	KUNIT_ASSERT_NOT_NULL(test, h);
	/* ~290 KiB for the first, ~640 KiB the second: 1 MiB holds two. */
	memfilter_max_filter_mb = 1;
	while (!ret) {
		for (i = 0; i < 256; i++)
			h[i] = mf_gk_hash(f, n + i);
		ret = memfilter_filter_add_sleepable(f, h, 256, res, &done);
		n += done;
	}
	memfilter_max_filter_mb = saved;
	KUNIT_EXPECT_EQ(test, ret, -ENOSPC);
	memfilter_filter_info(f, &info);
	KUNIT_EXPECT_EQ(test, info.subfilters, 2);
	KUNIT_EXPECT_EQ(test, n, 600000);
	KUNIT_EXPECT_LE(test, f->bytes, 1ULL << 20);
	for (i = 0; i < 256; i++)
		h[i] = mf_gk_hash(f, n - 256 + i);
	KUNIT_EXPECT_EQ(test, memfilter_filter_contains(f, h, 256, res), 256);
	memfilter_put(f);
}

/*
 * The module's max_total_mb stops growth until other filters give memory
 * back: adds with bottom halves off get -ENOSPC (no work item queued per
 * add) until the retry time, then queue another try, and once that made
 * the next sub-filter, adds go on. Nothing is lost meanwhile.
 */
static void mf_grow_total_limit(struct kunit *test)
{
	unsigned long saved = memfilter_max_total_mb;
	struct memfilter *f = mf_gk_filter(test, 64, 0);
	u64 i;

	/* Growth fails at the module's limit; the 64 keys still fit. */
	memfilter_max_total_mb = 0;
	for (i = 0; i < 64; i++)
		KUNIT_EXPECT_EQ(test, mf_gk_add_bh(f, i), 0);
	flush_work(&f->grow.work);
	KUNIT_EXPECT_EQ(test, f->s.grow.p.nsubs, 1);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(f->grow.mem_full));
	KUNIT_EXPECT_FALSE(test, READ_ONCE(f->grow.full));
	memfilter_max_total_mb = saved;
	/* Memory is back, but before the retry time: still refused. */
	WRITE_ONCE(f->grow.retry, jiffies + 1000 * HZ);
	KUNIT_EXPECT_EQ(test, mf_gk_add_bh(f, i), -ENOSPC);
	KUNIT_EXPECT_FALSE(test, work_pending(&f->grow.work));
	/* Past it: the add queues a try and is told to retry. */
	WRITE_ONCE(f->grow.retry, jiffies - 1);
	KUNIT_EXPECT_EQ(test, mf_gk_add_bh(f, i), -EAGAIN);
	flush_work(&f->grow.work);
	KUNIT_EXPECT_EQ(test, f->s.grow.p.nsubs, 2);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(f->grow.mem_full));
	KUNIT_EXPECT_EQ(test, mf_gk_add_bh(f, i), 0);
	mf_gk_expect_keys(test, f, 65, 2);
	memfilter_put(f);
}

/*
 * An add that may sleep (the ioctls) takes max_total_mb as it is now: at
 * the limit it fails with -ENOSPC (nothing lost, one failure counted),
 * and once memory is back it grows at once, though the atomic adds'
 * back-off still runs (an atomic add at that moment is refused).
 */
static void mf_grow_total_limit_sleepable(struct kunit *test)
{
	unsigned long saved = memfilter_max_total_mb;
	struct memfilter *f = mf_gk_filter(test, 64, 0);
	struct memfilter_info info = {};
	unsigned long res;
	u32 done;
	u64 i, h;

	memfilter_max_total_mb = 0;
	for (i = 0; i < 65; i++) {
		h = mf_gk_hash(f, i);
		KUNIT_EXPECT_EQ(test, memfilter_filter_add_sleepable(f, &h, 1,
								     &res,
								     &done),
				i < 64 ? 0 : -ENOSPC);
	}
	flush_work(&f->grow.work);
	KUNIT_EXPECT_EQ(test, f->s.grow.p.nsubs, 1);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(f->grow.mem_full));
	memfilter_max_total_mb = saved;
	KUNIT_EXPECT_TRUE(test, time_before(jiffies, READ_ONCE(f->grow.retry)));
	WRITE_ONCE(f->grow.retry, jiffies + 1000 * HZ);
	KUNIT_EXPECT_EQ(test, mf_gk_add_bh(f, i), -ENOSPC);
	KUNIT_EXPECT_EQ(test, memfilter_filter_add_sleepable(f, &h, 1, &res,
							     &done), 0);
	KUNIT_EXPECT_EQ(test, done, 1);
	KUNIT_EXPECT_EQ(test, f->s.grow.p.nsubs, 2);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(f->grow.mem_full));
	memfilter_filter_info(f, &info);
	KUNIT_EXPECT_EQ(test, info.failed, 2);
	mf_gk_expect_keys(test, f, 65, 2);
	memfilter_put(f);
}

/* An image of a grown filter: every sub-filter, a header that parses. */
static void mf_grow_image(struct kunit *test)
{
	struct memfilter *f = mf_gk_filter(test, 50, 0);
	struct memfilter_image_desc d;
	const struct memfilter_image_grow *sec;
	size_t len;
	void *img;
	u64 i;

	for (i = 0; i < 500; i++) {
		u64 h = mf_gk_hash(f, i);
		unsigned long res;
		u32 done;

		KUNIT_ASSERT_EQ(test, memfilter_filter_add_sleepable(f, &h, 1,
								     &res,
								     &done), 0);
	}
	flush_work(&f->grow.work);
	img = memfilter_filter_image(f, &len);
	KUNIT_ASSERT_FALSE(test, IS_ERR(img));
	KUNIT_ASSERT_EQ(test, memfilter_image_parse(img, len, &d), 0);
	KUNIT_EXPECT_EQ(test, memfilter_image_check_payload(&d, (u8 *)img +
				MEMFILTER_IMAGE_HDR_SIZE), 0);
	KUNIT_EXPECT_EQ(test, d.type, MEMFILTER_TYPE_GROW);
	KUNIT_EXPECT_EQ(test, d.keys, 500);
	/* 50 + 100 + 200 + 400 holds 500 in four; a fifth may be made ahead. */
	sec = (const void *)((u8 *)img + MEMFILTER_IMAGE_HDR_SIZE);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(sec->active), 4);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(sec->subs), f->s.grow.p.nsubs);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(sec->keys[3]), 150);
	KUNIT_EXPECT_EQ(test, len, MEMFILTER_IMAGE_HDR_SIZE +
			memfilter_grow_bytes(&f->s.grow.p));
	memfilter_filter_image_free(img, len);
	memfilter_put(f);
}

#define MF_GK_INSERTERS	2
#define MF_GK_KEYS	20000

struct mf_gk_conc {
	struct memfilter *f;
	atomic_t published[MF_GK_INSERTERS];
	atomic_t stop;
	atomic64_t checks, misses, eagain, errors, absent;
};

struct mf_gk_arg {
	struct mf_gk_conc *c;
	u32 t;
};

/*
 * One add or test-and-add of @key, with bottom halves off like a softirq
 * caller, retried while the filter is growing.
 */
static int mf_gk_insert(struct mf_gk_conc *c, u64 key, bool tas)
{
	int ret;

	do {
		local_bh_disable();
		if (tas)
			ret = memfilter_test_and_add(c->f, &key, sizeof(key));
		else
			ret = memfilter_add(c->f, &key, sizeof(key));
		local_bh_enable();
		if (ret == -EAGAIN) {
			atomic64_inc(&c->eagain);
			cond_resched();
		}
	} while (ret == -EAGAIN);
	return ret;
}

/*
 * Keys t << 32 | i: inserter 0 adds them, inserter 1 test-and-adds them
 * (counting those it said absent) and then again (present).
 */
static int mf_gk_inserter(void *data)
{
	struct mf_gk_arg *a = data;
	u64 key;
	u32 i;
	int ret;

	for (i = 0; i < MF_GK_KEYS; i++) {
		key = (u64)a->t << 32 | i;
		ret = mf_gk_insert(a->c, key, a->t == 1);
		if (a->t == 1 && !ret)
			atomic64_inc(&a->c->absent);
		if (a->t == 1 && ret >= 0) {
			ret = mf_gk_insert(a->c, key, true);
			if (!ret)
				atomic64_inc(&a->c->misses);
			ret = ret < 0 ? ret : 0;
		}
		if (ret) {
			/* Counted, and the test stops waiting for this one. */
			atomic64_inc(&a->c->errors);
			atomic_set_release(&a->c->published[a->t], MF_GK_KEYS);
			break;
		}
		atomic_set_release(&a->c->published[a->t], i + 1);
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static int mf_gk_querier(void *data)
{
	struct mf_gk_conc *c = data;
	u32 t = 0, last;
	u64 key;

	while (!atomic_read(&c->stop)) {
		last = atomic_read_acquire(&c->published[t]);
		if (last) {
			key = (u64)t << 32 | get_random_u32_below(last);
			if (!memfilter_contains(c->f, &key, sizeof(key)))
				atomic64_inc(&c->misses);
			atomic64_inc(&c->checks);
		}
		t = (t + 1) % MF_GK_INSERTERS;
		cond_resched();
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void mf_grow_concurrent(struct kunit *test)
{
	struct mf_gk_conc *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct mf_gk_arg args[MF_GK_INSERTERS];
	struct task_struct *ins[MF_GK_INSERTERS], *q;
	struct memfilter_info info = {};
	u32 i, t;
	u64 key;

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->f = mf_gk_filter(test, 256, 0);
	q = kthread_run(mf_gk_querier, c, "mf_gk_query");
	KUNIT_ASSERT_FALSE(test, IS_ERR(q));
	for (i = 0; i < MF_GK_INSERTERS; i++) {
		args[i] = (struct mf_gk_arg){ c, i };
		ins[i] = kthread_run(mf_gk_inserter, &args[i], "mf_gk_ins%u", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(ins[i]));
	}
	for (i = 0; i < MF_GK_INSERTERS; i++) {
		while (atomic_read(&c->published[i]) < MF_GK_KEYS)
			schedule_timeout_interruptible(1);
		kthread_stop(ins[i]);
	}
	atomic_set(&c->stop, 1);
	kthread_stop(q);

	KUNIT_EXPECT_EQ(test, atomic64_read(&c->errors), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&c->misses), 0);
	kunit_info(test, "%lld racing queries, %lld adds saw -EAGAIN",
		   atomic64_read(&c->checks), atomic64_read(&c->eagain));
	memfilter_filter_info(c->f, &info);
	/* 40,000 keys: 256 * (2^8 - 1) = 65,280 holds them in eight. */
	KUNIT_EXPECT_EQ(test, info.subfilters, 8);
	/*
	 * Inserter 1's keys took room exactly when said absent (a false
	 * positive, at most 1% of them, took none).
	 */
	KUNIT_EXPECT_EQ(test, info.keys,
			MF_GK_KEYS + atomic64_read(&c->absent));
	KUNIT_EXPECT_GE(test, atomic64_read(&c->absent),
			MF_GK_KEYS * 99 / 100);
	for (t = 0; t < MF_GK_INSERTERS; t++) {
		for (i = 0; i < MF_GK_KEYS; i++) {
			key = (u64)t << 32 | i;
			if (!memfilter_contains(c->f, &key, sizeof(key))) {
				KUNIT_FAIL(test, "key %llx lost", key);
				break;
			}
		}
	}
	memfilter_put(c->f);
}

static struct kunit_case mf_grow_cases[] = {
	KUNIT_CASE(mf_grow_made_meanwhile),
	KUNIT_CASE(mf_grow_made_while_deciding),
	KUNIT_CASE(mf_grow_sleepable),
	KUNIT_CASE(mf_grow_atomic),
	KUNIT_CASE_SLOW(mf_grow_filter_limit),
	KUNIT_CASE(mf_grow_total_limit),
	KUNIT_CASE(mf_grow_total_limit_sleepable),
	KUNIT_CASE(mf_grow_image),
	KUNIT_CASE(mf_grow_test_and_add),
	KUNIT_CASE_SLOW(mf_grow_concurrent),
	{}
};

static struct kunit_suite mf_grow_suite = {
	.name = "memfilter_grow",
	.test_cases = mf_grow_cases,
};

kunit_test_suite(mf_grow_suite);
