// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite memfilter_window: window filters in the kernel. Retention
 * across thousands of explicit rotations for several G (core); AVX2 and
 * scalar batch paths bit for bit equal; the module's rotation with an
 * injected clock (period and count triggers, no sleeping); rotation by
 * count exact per generation (a batch split where a generation fills,
 * -EAGAIN from softirq context until the work rotated, racing adders
 * never pushing a generation past its capacity); test-and-add through the
 * in-kernel API for window and Bloom filters; and concurrent rotate +
 * insert + query kthreads with zero false negatives inside the guarantee
 * (KASAN, lockdep and DEBUG_ATOMIC_SLEEP watching).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/random.h>

#include "filter/filter.h"
#include "helpers.h"

/*
 * A core window filter of @layout with KUnit-managed memory, generation 0
 * born at 0.
 */
static struct memfilter_window *mf_wk_core_of(struct kunit *test, u64 cap, u32 gens,
					      u32 layout)
{
	struct memfilter_window *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct memfilter_window_params p;
	u64 *words;

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_EQ(test, memfilter_window_params_init(&p, cap, gens, 0,
							   64, layout), 0);
	KUNIT_ASSERT_EQ(test, memfilter_hasher_init(&p.gen.hasher,
						    MEMFILTER_HASH_XXH64, 5, NULL), 0);
	words = memfilter_kunit_alloc(test, memfilter_window_bytes(&p), 1);
	KUNIT_ASSERT_TRUE(test, IS_ALIGNED((unsigned long)words, 64));
	memfilter_window_init(w, &p, words, 0);
	return w;
}

static struct memfilter_window *mf_wk_core(struct kunit *test, u64 cap, u32 gens)
{
	return mf_wk_core_of(test, cap, gens, MEMFILTER_BLOOM_LINE64);
}

/* The layouts and G, for the SIMD case: G = 4 has loops of its own. */
struct mf_wk_shape {
	u32 layout, gens;
	const char *desc;
};

static const struct mf_wk_shape mf_wk_shapes[] = {
	{ MEMFILTER_BLOOM_LINE64, 4, "line64, G=4" },
	{ MEMFILTER_BLOOM_LINE64, 3, "line64, G=3" },
	{ MEMFILTER_BLOOM_SPLIT32, 4, "split32, G=4" },
	{ MEMFILTER_BLOOM_SPLIT32, 3, "split32, G=3" },
};

static void mf_wk_shape_desc(const struct mf_wk_shape *s, char *desc)
{
	strscpy(desc, s->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(mf_wk_shape, mf_wk_shapes, mf_wk_shape_desc);

static u64 mf_wk_hash(const struct memfilter_window *w, u64 id)
{
	__le64 key = cpu_to_le64(id);

	return memfilter_hash(&w->p.gen.hasher, &key, sizeof(key));
}

static const u32 mf_wk_gens[] = { 2, 3, 4, 16 };

static void mf_wk_gens_desc(const u32 *g, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "G=%u", *g);
}

KUNIT_ARRAY_PARAM(mf_wk_gens, mf_wk_gens, mf_wk_gens_desc);

/*
 * Period r adds PER keys; after it, every key of periods r - G + 1 .. r is
 * present, and the keys of period r - G are gone up to false positives.
 */
static void mf_window_retention(struct kunit *test)
{
	const u32 gens = *(const u32 *)test->param_value, per = 64;
	const u32 rotations = gens == 16 ? 1000 : 2000;
	struct memfilter_window *w;
	u64 h[64], stale = 0, checked = 0;
	DECLARE_BITMAP(bm, 64);
	u32 r, i, age;

	memfilter_kunit_concurrent_only_under_kcsan(test);
	w = mf_wk_core(test, per, gens);
	for (r = 0; r < rotations; r++) {
		if (r)
			memfilter_window_rotate_exclusive(w, r);
		for (i = 0; i < per; i++)
			h[i] = mf_wk_hash(w, (u64)r * per + i);
		memfilter_window_add_hashes(w, h, per);
		for (age = 0; age < gens && age <= r; age++) {
			for (i = 0; i < per; i++)
				h[i] = mf_wk_hash(w, (u64)(r - age) * per + i);
			memfilter_window_contains_hashes(w, h, per, bm);
			KUNIT_ASSERT_EQ_MSG(test, bitmap_weight(bm, per), per,
					    "rotation %u: a key of age %u lost",
					    r, age);
		}
		if (r >= gens) {
			for (i = 0; i < per; i++)
				h[i] = mf_wk_hash(w, (u64)(r - gens) * per + i);
			memfilter_window_contains_hashes(w, h, per, bm);
			stale += bitmap_weight(bm, per);
			checked += per;
		}
		cond_resched();
	}
	/* 16 bits/key per generation: about G * 0.09% false positives. */
	KUNIT_EXPECT_LE(test, stale * 1000, checked * gens * 2);
}

/*
 * The AVX2 sections, and the single-key AVX2 call, give the scalar code's
 * answers and tables.
 */
static void mf_window_simd_matches_scalar(struct kunit *test)
{
	const struct mf_wk_shape *sh = test->param_value;
	const u32 n = MEMFILTER_SIMD_CHUNK;
	struct memfilter_window *a = mf_wk_core_of(test, 2000, sh->gens, sh->layout);
	struct memfilter_window *b = mf_wk_core_of(test, 2000, sh->gens, sh->layout);
	unsigned long *ra = memfilter_kunit_alloc(test, BITS_TO_LONGS(n), sizeof(long));
	unsigned long *rb = memfilter_kunit_alloc(test, BITS_TO_LONGS(n), sizeof(long));
	u64 *h = memfilter_kunit_alloc(test, n, sizeof(u64));
	u64 bytes = memfilter_window_bytes(&a->p);
	u32 round, i;

	if (!MEMFILTER_HAVE_AVX2 || !memfilter_simd_begin())
		kunit_skip(test, "no AVX2 here");
	memfilter_simd_end();
	for (round = 0; round < 12; round++) {
		enum memfilter_window_op op = round % 3;
		u32 cur = round / 3 % sh->gens, diff = 0;

		for (i = 0; i < n; i++)
			h[i] = i % 3 ? get_random_u64() :
				       mf_wk_hash(a, round * n + i / 2);
		memfilter_window_hashes_scalar(a, h, n,
					       op == MEMFILTER_WINDOW_OP_ADD ? NULL : ra,
					       cur, op);
		KUNIT_ASSERT_TRUE(test, memfilter_simd_begin());
		memfilter_window_hashes_avx2(b, h, n,
					     op == MEMFILTER_WINDOW_OP_ADD ? NULL : rb,
					     cur, op);
		memfilter_simd_end();
		KUNIT_ASSERT_EQ(test, memcmp(a->words, b->words, bytes), 0);
		if (op == MEMFILTER_WINDOW_OP_ADD)
			continue;
		KUNIT_ASSERT_TRUE(test, bitmap_equal(ra, rb, n));
		for (i = 0; i < 16; i++) {
			u64 x = h[i] ^ (i % 4 ? 0 : round);

			memfilter_window_hashes_scalar(a, &x, 1, ra, cur, op);
			KUNIT_ASSERT_TRUE(test, memfilter_simd_begin());
			diff += (ra[0] & 1) !=
				memfilter_window_one_avx2(b, memfilter_window_group_ptr(b, x),
							  x, cur, op);
			memfilter_simd_end();
		}
		KUNIT_EXPECT_EQ(test, diff, 0);
		KUNIT_ASSERT_EQ(test, memcmp(a->words, b->words, bytes), 0);
	}
}

static struct memfilter *mf_wk_filter(struct kunit *test, u32 gens,
				      u64 cap, u64 period_ms, u32 wflags)
{
	struct memfilter_create c = {
		.type = MEMFILTER_TYPE_WINDOW, .capacity = cap,
		.bits_per_key_q4 = 64, .flags = MEMFILTER_CREATE_SEED,
		.seed = 9, .generations = gens, .period_ms = period_ms,
		.window_flags = wflags,
	};
	struct memfilter *f = memfilter_filter_create(&c);

	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	return f;
}

/* Explicit rotations through the module: G - 1 rotations keep a key. */
static void mf_window_module_rotate(struct kunit *test)
{
	struct memfilter *f = mf_wk_filter(test, 3, 1000, 0, 0);
	struct memfilter *bloom;
	struct memfilter_create c = {
		.type = MEMFILTER_TYPE_BLOOM, .capacity = 10,
		.bits_per_key_q4 = 40,
	};

	KUNIT_EXPECT_EQ(test, memfilter_test_and_add(f, "key", 3), 0);
	KUNIT_EXPECT_EQ(test, memfilter_test_and_add(f, "key", 3), 1);
	KUNIT_EXPECT_EQ(test, memfilter_rotate(f), 0);
	KUNIT_EXPECT_TRUE(test, memfilter_contains(f, "key", 3));
	KUNIT_EXPECT_EQ(test, memfilter_rotate(f), 0);
	KUNIT_EXPECT_TRUE(test, memfilter_contains(f, "key", 3));
	KUNIT_EXPECT_EQ(test, memfilter_rotate(f), 0);
	KUNIT_EXPECT_FALSE(test, memfilter_contains(f, "key", 3));
	KUNIT_EXPECT_EQ(test, memfilter_add(f, "other", 5), 0);
	KUNIT_EXPECT_EQ(test, memfilter_delete(f, "other", 5), -EOPNOTSUPP);
	memfilter_put(f);

	bloom = memfilter_filter_create(&c);
	KUNIT_ASSERT_FALSE(test, IS_ERR(bloom));
	KUNIT_EXPECT_EQ(test, memfilter_rotate(bloom), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, memfilter_test_and_add(bloom, "b", 1), 0);
	KUNIT_EXPECT_EQ(test, memfilter_test_and_add(bloom, "b", 1), 1);
	memfilter_put(bloom);
}

/* Rotation by period and by count, on an injected clock: no sleeping. */
static void mf_window_module_tick(struct kunit *test)
{
	struct memfilter *f = mf_wk_filter(test, 2, 100, 60000, 0);
	struct memfilter_info info = {};
	u64 born = f->s.window.born[0];
	u32 i;

	/* The timer is a minute away: the test drives memfilter_rotate_tick(). */
	KUNIT_EXPECT_FALSE(test, memfilter_rotate_tick(f, born + 59999));
	KUNIT_EXPECT_EQ(test, memfilter_window_current(&f->s.window), 0);
	KUNIT_EXPECT_TRUE(test, memfilter_rotate_tick(f, born + 60000));
	KUNIT_EXPECT_EQ(test, memfilter_window_current(&f->s.window), 1);
	KUNIT_EXPECT_EQ(test, f->s.window.born[1], born + 60000);
	KUNIT_EXPECT_FALSE(test, memfilter_rotate_tick(f, born + 119999));
	KUNIT_EXPECT_TRUE(test, memfilter_rotate_tick(f, born + 120000));
	KUNIT_EXPECT_EQ(test, memfilter_window_current(&f->s.window), 0);
	memfilter_put(f);

	/* By count: 100 keys fill a generation; no period. */
	f = mf_wk_filter(test, 4, 100, 0, MEMFILTER_WINDOW_ROTATE_BY_COUNT);
	for (i = 0; i < 99; i++)
		KUNIT_EXPECT_EQ(test, memfilter_add(f, &i, sizeof(i)), 0);
	KUNIT_EXPECT_FALSE(test, memfilter_rotate_tick(f, U64_MAX));
	KUNIT_EXPECT_EQ(test, memfilter_add(f, &i, sizeof(i)), 0);
	/* The add queued the work; rotate it now or see it done. */
	flush_delayed_work(&f->rot.work);
	KUNIT_EXPECT_EQ(test, memfilter_window_current(&f->s.window), 1);
	memfilter_filter_info(f, &info);
	KUNIT_EXPECT_EQ(test, info.generations, 4);
	KUNIT_EXPECT_EQ(test, info.current_gen, 1);
	KUNIT_EXPECT_EQ(test, info.keys, 100);
	KUNIT_EXPECT_EQ(test, info.capacity, 100);
	KUNIT_EXPECT_EQ(test, info.window_flags,
			MEMFILTER_WINDOW_ROTATE_BY_COUNT);
	memfilter_put(f);
}

/* Each generation's key count (what INFO reports) and the current one. */
static void mf_wk_expect_counts(struct kunit *test, struct memfilter *f,
				const u64 *want, u32 cur)
{
	const struct memfilter_window *w = &f->s.window;
	u64 keys;
	u32 j;

	for (j = 0; j < w->p.generations; j++) {
		keys = READ_ONCE(w->gen_keys[j]);
		KUNIT_EXPECT_EQ_MSG(test, keys, want[j], "generation %u", j);
	}
	KUNIT_EXPECT_EQ(test, memfilter_window_current(w), cur);
}

/* Keys @base.. in one batch, as MEMFILTER_IOC_ADD or _TEST_AND_ADD does. */
static void mf_wk_batch(struct kunit *test, struct memfilter *f, bool tadd,
			u64 base, u32 n)
{
	u64 *h = memfilter_kunit_alloc(test, n, sizeof(*h));
	unsigned long *res = memfilter_kunit_alloc(test, BITS_TO_LONGS(n),
						   sizeof(long));
	u32 i, done = 0;
	int ret;

	for (i = 0; i < n; i++)
		h[i] = mf_wk_hash(&f->s.window, base + i);
	if (tadd)
		ret = memfilter_filter_test_and_add_sleepable(f, h, n, res,
							      &done);
	else
		ret = memfilter_filter_add_sleepable(f, h, n, res, &done);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, done, n);
	KUNIT_EXPECT_EQ(test, memfilter_filter_contains(f, h, n, res), n);
}

/*
 * By count, a batch rotates where the generation fills, however large:
 * 2,500 keys into capacity 1,000 leave 1,000, 1,000 and 500; two adds of
 * 600 leave 1,000 and 200. The rotation the filling add queued finds the
 * new generation not full and does nothing more.
 */
static void mf_window_count_exact(struct kunit *test)
{
	static const u64 one[] = { 1000, 1000, 500, 0 };
	static const u64 two[] = { 1000, 200, 0, 0 };
	struct memfilter *f;
	int tadd;

	for (tadd = 0; tadd < 2; tadd++) {
		f = mf_wk_filter(test, 4, 1000, 0,
				 MEMFILTER_WINDOW_ROTATE_BY_COUNT);
		mf_wk_batch(test, f, tadd, 0, 2500);
		mf_wk_expect_counts(test, f, one, 2);
		flush_delayed_work(&f->rot.work);
		mf_wk_expect_counts(test, f, one, 2);
		memfilter_put(f);

		f = mf_wk_filter(test, 4, 1000, 0,
				 MEMFILTER_WINDOW_ROTATE_BY_COUNT);
		mf_wk_batch(test, f, tadd, 0, 600);
		mf_wk_batch(test, f, tadd, 600, 600);
		mf_wk_expect_counts(test, f, two, 1);
		flush_delayed_work(&f->rot.work);
		mf_wk_expect_counts(test, f, two, 1);
		memfilter_put(f);
	}
}

static int mf_wk_add_bh(struct memfilter *f, u64 id, bool tadd)
{
	int ret;

	local_bh_disable();
	ret = tadd ? memfilter_test_and_add(f, &id, sizeof(id)) :
		     memfilter_add(f, &id, sizeof(id));
	local_bh_enable();
	return ret;
}

/*
 * The in-kernel API cannot rotate (it may run in softirq context): with
 * the work item held off, an add past the capacity is -EAGAIN and the
 * generation stays at its capacity; once the work rotated, adds go on.
 */
static void mf_window_count_atomic(struct kunit *test)
{
	static const u64 full[] = { 100, 0, 0 }, after[] = { 100, 2, 0 };
	struct memfilter *f = mf_wk_filter(test, 3, 100, 0,
					   MEMFILTER_WINDOW_ROTATE_BY_COUNT);
	struct memfilter_info info = {};
	u64 i;

	mutex_lock(&f->rot.lock);
	for (i = 0; i < 100; i++)
		KUNIT_EXPECT_EQ(test, mf_wk_add_bh(f, i, false), 0);
	KUNIT_EXPECT_EQ(test, mf_wk_add_bh(f, i, false), -EAGAIN);
	KUNIT_EXPECT_EQ(test, mf_wk_add_bh(f, i, true), -EAGAIN);
	/* A repeat is still a repeat while the generation is full. */
	KUNIT_EXPECT_EQ(test, mf_wk_add_bh(f, 5, true), 1);
	mf_wk_expect_counts(test, f, full, 0);
	mutex_unlock(&f->rot.lock);
	flush_delayed_work(&f->rot.work);
	KUNIT_EXPECT_EQ(test, mf_wk_add_bh(f, i, false), 0);
	KUNIT_EXPECT_EQ(test, mf_wk_add_bh(f, i, true), 1);
	mf_wk_expect_counts(test, f, after, 1);
	memfilter_filter_info(f, &info);
	KUNIT_EXPECT_EQ(test, info.failed, 0);
	KUNIT_EXPECT_EQ(test, info.status & MEMFILTER_STATUS_OVERFILL, 0);
	memfilter_put(f);
}

/*
 * Racing adders on a window that rotates by count: an ioctl-like one
 * (sleepable batches of 1 to 40 keys, rotating itself when refused), one
 * in softirq context retrying on -EAGAIN until the work item rotated, and
 * a watcher that never sees a generation counted past its capacity.
 * 2 * 1,400 keys at capacity 200 fill 14 generations of 16 (no clear
 * meets a key): each exactly full, 14 rotations in all.
 */
#define MF_WC_KEYS	1400
#define MF_WC_CAP	200

struct mf_wc {
	struct memfilter *f;
	atomic_t running;
	atomic64_t over;
	int again;
	struct completion exited[3];
};

static int mf_wc_sleepable(void *data)
{
	struct mf_wc *c = data;
	unsigned long res[BITS_TO_LONGS(40)];
	u64 h[40];
	u32 i = 0, j, m, done;

	while (i < MF_WC_KEYS) {
		m = min_t(u32, MF_WC_KEYS - i, 1 + get_random_u32_below(40));
		for (j = 0; j < m; j++)
			h[j] = mf_wk_hash(&c->f->s.window, i + j);
		if (memfilter_filter_add_sleepable(c->f, h, m, res, &done) ||
		    done != m)
			atomic64_inc(&c->over);
		i += m;
		cond_resched();
	}
	atomic_dec(&c->running);
	complete(&c->exited[0]);
	return 0;
}

static int mf_wc_atomic(void *data)
{
	struct mf_wc *c = data;
	__le64 key;
	u32 i;
	int ret;

	for (i = 0; i < MF_WC_KEYS; i++) {
		key = cpu_to_le64(MF_WC_KEYS + i);
		for (;;) {
			local_bh_disable();
			ret = memfilter_add(c->f, &key, sizeof(key));
			local_bh_enable();
			if (ret != -EAGAIN)
				break;
			c->again++;
			usleep_range(20, 100);
		}
		if (ret)
			atomic64_inc(&c->over);
		cond_resched();
	}
	atomic_dec(&c->running);
	complete(&c->exited[1]);
	return 0;
}

static int mf_wc_watcher(void *data)
{
	struct mf_wc *c = data;
	const struct memfilter_window *w = &c->f->s.window;
	u32 j;

	while (atomic_read(&c->running)) {
		for (j = 0; j < w->p.generations; j++)
			if (READ_ONCE(w->gen_keys[j]) > MF_WC_CAP)
				atomic64_inc(&c->over);
		cond_resched();
	}
	complete(&c->exited[2]);
	return 0;
}

static void mf_window_count_concurrent(struct kunit *test)
{
	static int (*const fn[3])(void *) = { mf_wc_sleepable, mf_wc_atomic,
					      mf_wc_watcher };
	struct mf_wc *c = memfilter_kunit_alloc(test, 1, sizeof(*c));
	u64 want[16] = {}, *h;
	unsigned long *res;
	struct task_struct *t;
	int i;

	c->f = mf_wk_filter(test, 16, MF_WC_CAP, 0,
			    MEMFILTER_WINDOW_ROTATE_BY_COUNT);
	atomic_set(&c->running, 2);
	for (i = 0; i < 3; i++)
		init_completion(&c->exited[i]);
	for (i = 0; i < 3; i++) {
		t = kthread_run(fn[i], c, "mf_wc%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	}
	for (i = 0; i < 3; i++)
		wait_for_completion(&c->exited[i]);
	flush_delayed_work(&c->f->rot.work);
	kunit_info(test, "%d adds retried after -EAGAIN", c->again);
	KUNIT_EXPECT_EQ(test, atomic64_read(&c->over), 0);
	for (i = 0; i < 14; i++)
		want[i] = MF_WC_CAP;
	mf_wk_expect_counts(test, c->f, want, 14);
	h = memfilter_kunit_alloc(test, 2 * MF_WC_KEYS, sizeof(*h));
	res = memfilter_kunit_alloc(test, BITS_TO_LONGS(2 * MF_WC_KEYS),
				    sizeof(long));
	for (i = 0; i < 2 * MF_WC_KEYS; i++)
		h[i] = mf_wk_hash(&c->f->s.window, i);
	KUNIT_EXPECT_EQ(test, memfilter_filter_contains(c->f, h, 2 * MF_WC_KEYS,
							res), 2 * MF_WC_KEYS);
	memfilter_put(c->f);
}

#define MF_WK_INSERTERS	2
#define MF_WK_RING	256

/*
 * Concurrent rotate + insert + query. Rotation counters bracket each
 * rotation: @started before, @done after. A key whose add began when
 * @done read d is in a generation published by rotation d or later, which
 * is cleared by rotation d + G at the earliest; so a query that ended
 * before @started reached d + G must find it.
 */
struct mf_wk_conc {
	struct memfilter *f;
	u32 gens;
	atomic_t started, done;
	atomic_t stop;
	atomic64_t checks, misses;
	struct {
		u64 key;
		int epoch;
	} ring[MF_WK_INSERTERS][MF_WK_RING];
	unsigned int head[MF_WK_INSERTERS];
	struct completion exited[MF_WK_INSERTERS + 2];
};

static void mf_wk_check(struct mf_wk_conc *c, u64 key, int epoch)
{
	bool found = memfilter_contains(c->f, &key, sizeof(key));

	smp_mb();	/* the query ends before @started is read */
	if (atomic_read(&c->started) < epoch + (int)c->gens) {
		atomic64_inc(&c->checks);
		if (!found)
			atomic64_inc(&c->misses);
	}
}

struct mf_wk_arg {
	struct mf_wk_conc *c;
	int id;
};

static int mf_wk_inserter(void *data)
{
	struct mf_wk_arg *a = data;
	struct mf_wk_conc *c = a->c;
	unsigned int n = 0, slot;
	u64 key;
	int epoch;

	while (!atomic_read(&c->stop)) {
		key = ((u64)a->id << 48) | n;
		epoch = atomic_read(&c->done);
		smp_mb();	/* @done is read before the add starts */
		memfilter_add(c->f, &key, sizeof(key));
		mf_wk_check(c, key, epoch);
		slot = n % MF_WK_RING;
		/*
		 * The querier may still be reading this slot, published
		 * MF_WK_RING keys ago: @head (n) is visible before the slot
		 * changes, so the querier's re-read of @head tells it.
		 */
		smp_wmb();
		WRITE_ONCE(c->ring[a->id][slot].key, key);
		WRITE_ONCE(c->ring[a->id][slot].epoch, epoch);
		/* The entry is written before the querier can see it. */
		smp_store_release(&c->head[a->id], ++n);
		/* One of this thread's earlier keys, again. */
		slot = get_random_u32_below(min_t(unsigned int, n, MF_WK_RING));
		mf_wk_check(c, c->ring[a->id][slot].key,
			    c->ring[a->id][slot].epoch);
		cond_resched();
	}
	complete(&c->exited[a->id]);
	return 0;
}

/* Queries the other threads' latest keys, published with release. */
static int mf_wk_querier(void *data)
{
	struct mf_wk_conc *c = data;
	unsigned int head, slot;
	int id = 0, epoch;
	u64 key;

	while (!atomic_read(&c->stop)) {
		/* Pairs with the inserter's release: the entry is written. */
		head = smp_load_acquire(&c->head[id]);
		if (head) {
			slot = (head - 1) % MF_WK_RING;
			key = READ_ONCE(c->ring[id][slot].key);
			epoch = READ_ONCE(c->ring[id][slot].epoch);
			/*
			 * Pairs with the inserter's smp_wmb(): if it has not
			 * reached key head - 1 + MF_WK_RING, which reuses
			 * the slot, the pair read is the one published.
			 */
			smp_rmb();
			if (READ_ONCE(c->head[id]) - head < MF_WK_RING - 1)
				mf_wk_check(c, key, epoch);
		}
		id = (id + 1) % MF_WK_INSERTERS;
		cond_resched();
	}
	complete(&c->exited[MF_WK_INSERTERS]);
	return 0;
}

static int mf_wk_rotator(void *data)
{
	struct mf_wk_conc *c = data;
	int i;

	for (i = 0; i < 300 && !atomic_read(&c->stop); i++) {
		atomic_inc(&c->started);
		/* @started counts before the rotation's clear begins ... */
		smp_mb__after_atomic();
		memfilter_rotate(c->f);
		/* ... and @done only after its publish. */
		smp_mb__before_atomic();
		atomic_inc(&c->done);
		usleep_range(200, 400);
	}
	atomic_set(&c->stop, 1);
	complete(&c->exited[MF_WK_INSERTERS + 1]);
	return 0;
}

static void mf_window_concurrent(struct kunit *test)
{
	struct mf_wk_conc *c = memfilter_kunit_alloc(test, 1, sizeof(*c));
	struct mf_wk_arg args[MF_WK_INSERTERS];
	struct task_struct *t;
	int i;

	c->gens = 3;
	c->f = mf_wk_filter(test, c->gens, 2000, 0, 0);
	for (i = 0; i < MF_WK_INSERTERS + 2; i++)
		init_completion(&c->exited[i]);
	for (i = 0; i < MF_WK_INSERTERS; i++) {
		args[i].c = c;
		args[i].id = i;
		t = kthread_run(mf_wk_inserter, &args[i], "mf_wk_ins%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	}
	t = kthread_run(mf_wk_querier, c, "mf_wk_query");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	t = kthread_run(mf_wk_rotator, c, "mf_wk_rotate");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	for (i = 0; i < MF_WK_INSERTERS + 2; i++)
		wait_for_completion(&c->exited[i]);
	kunit_info(test, "%d rotations, %lld checks inside the guarantee",
		   atomic_read(&c->done), atomic64_read(&c->checks));
	KUNIT_EXPECT_EQ(test, atomic64_read(&c->misses), 0);
	KUNIT_EXPECT_GT(test, atomic64_read(&c->checks), 1000);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->done), 300);
	memfilter_put(c->f);
}

static struct kunit_case mf_window_cases[] = {
	KUNIT_CASE_PARAM(mf_window_retention, mf_wk_gens_gen_params),
	KUNIT_CASE_PARAM(mf_window_simd_matches_scalar, mf_wk_shape_gen_params),
	KUNIT_CASE(mf_window_module_rotate),
	KUNIT_CASE(mf_window_module_tick),
	KUNIT_CASE(mf_window_count_exact),
	KUNIT_CASE(mf_window_count_atomic),
	KUNIT_CASE_SLOW(mf_window_count_concurrent),
	KUNIT_CASE_SLOW(mf_window_concurrent),
	{}
};

static struct kunit_suite mf_window_suite = {
	.name = "memfilter_window",
	.test_cases = mf_window_cases,
};

kunit_test_suite(mf_window_suite);
