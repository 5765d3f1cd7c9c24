// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite memfilter_bloom: the blocked Bloom filter in the kernel.
 *
 * No false negatives on a million keys, the FPR targets against each
 * layout's model, SIMD and scalar paths bit-identical for both layouts
 * (the AVX2 path runs inside kernel_fpu_begin/end, as in production),
 * lockless inserters and queriers in kthreads, stripe-locked writers in
 * softirq and process context at once, keyed and unkeyed hashing, sizing
 * limits and statistics.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <linux/vmalloc.h>

#include "bloom.h"
#include "filter/filter.h"
#include "helpers.h"
#include "kernel_compat.h"

#define MF_TEST_KEYS	BIT(20)

struct mf_test_bloom {
	struct memfilter_bloom b;
	void *mem;
};

/* A filter of @layout that KUnit frees when the test ends. */
static struct memfilter_bloom *mf_test_bloom_of(struct kunit *test, u64 capacity,
						u32 bpk_q4, bool keyed, u32 layout)
{
	static const u64 key[2] = { 0x0123456789abcdefULL, 0xfedcba9876543210ULL };
	struct mf_test_bloom *t;
	u64 bytes;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, memfilter_bloom_params_from_bpk(&t->b.p, capacity,
							      bpk_q4, layout), 0);
	if (keyed)
		KUNIT_ASSERT_EQ(test, memfilter_hasher_init(&t->b.p.hasher,
							    MEMFILTER_HASH_SIPHASH24,
							    0, key), 0);
	else
		KUNIT_ASSERT_EQ(test, memfilter_hasher_init(&t->b.p.hasher,
							    MEMFILTER_HASH_XXH64,
							    0x5eed, NULL), 0);
	bytes = memfilter_bloom_bytes(&t->b.p);
	t->mem = memfilter_kunit_alloc(test, 1, bytes + MEMFILTER_BLOOM_BLOCK_BYTES);
	t->b.words = PTR_ALIGN(t->mem, MEMFILTER_BLOOM_BLOCK_BYTES);
	return &t->b;
}

static struct memfilter_bloom *mf_test_bloom(struct kunit *test, u64 capacity,
					     u32 bpk_q4, bool keyed)
{
	return mf_test_bloom_of(test, capacity, bpk_q4, keyed, MEMFILTER_BLOOM_LINE64);
}

/* The layouts, for the cases run on each. */
static const u32 mf_layouts[] = { MEMFILTER_BLOOM_LINE64, MEMFILTER_BLOOM_SPLIT32 };

static void mf_layout_desc(const u32 *layout, char *desc)
{
	strscpy(desc, *layout == MEMFILTER_BLOOM_SPLIT32 ? "split32" : "line64",
		KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(mf_layout, mf_layouts, mf_layout_desc);

/* The layout of a case run on each (mf_layout_gen_params). */
static u32 mf_test_layout(struct kunit *test)
{
	return *(const u32 *)test->param_value;
}

/* Keys are 8-byte little-endian integers; absent keys have bit 63 set. */
static __le64 *mf_test_keys(struct kunit *test, u32 n, u64 base)
{
	__le64 *keys = memfilter_kunit_alloc(test, n, sizeof(u64));
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, keys);
	for (i = 0; i < n; i++)
		keys[i] = cpu_to_le64(base + i);
	return keys;
}

static unsigned long *mf_test_bitmap(struct kunit *test, u32 n)
{
	return memfilter_kunit_alloc(test, BITS_TO_LONGS(n), sizeof(long));
}

static void mf_bloom_no_false_negatives(struct kunit *test)
{
	struct memfilter_bloom *b;
	unsigned long *res;
	__le64 *keys;
	u32 i;

	memfilter_kunit_concurrent_only_under_kcsan(test);
	b = mf_test_bloom(test, MF_TEST_KEYS, 40, false);
	keys = mf_test_keys(test, MF_TEST_KEYS, 0);
	res = mf_test_bitmap(test, MF_TEST_KEYS);
	/* Half through the batch path, half one by one. */
	memfilter_bloom_add_keys(b, keys, 8, MF_TEST_KEYS / 2);
	for (i = MF_TEST_KEYS / 2; i < MF_TEST_KEYS; i++)
		memfilter_bloom_add_key(b, &keys[i], 8);

	memfilter_bloom_contains_keys(b, keys, 8, MF_TEST_KEYS, res);
	KUNIT_EXPECT_EQ(test, bitmap_weight(res, MF_TEST_KEYS), MF_TEST_KEYS);
	for (i = 0; i < MF_TEST_KEYS; i += 97)
		KUNIT_EXPECT_TRUE(test, memfilter_bloom_contains_key(b, &keys[i], 8));
}

struct mf_fpr_case {
	u32 bpk_q4;
	u64 max_ppb;
	u32 layout;
	const char *desc;
};

/* The bits per key memfilter_bloom_params_from_fpr() gives each rate. */
static const struct mf_fpr_case mf_fpr_cases[] = {
	{ 40, 10000000, MEMFILTER_BLOOM_LINE64, "line64, 10 bits/key, FPR <= 1.0%" },
	{ 64, 1000000, MEMFILTER_BLOOM_LINE64, "line64, 16 bits/key, FPR <= 0.1%" },
	{ 43, 10000000, MEMFILTER_BLOOM_SPLIT32, "split32, 10.75 bits/key, FPR <= 1.0%" },
	{ 68, 1000000, MEMFILTER_BLOOM_SPLIT32, "split32, 17 bits/key, FPR <= 0.1%" },
};

static void mf_fpr_desc(const struct mf_fpr_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(mf_fpr, mf_fpr_cases, mf_fpr_desc);

static void mf_bloom_fpr_targets(struct kunit *test)
{
	const struct mf_fpr_case *c = test->param_value;
	u64 fp, measured_ppb, model_ppb, est_ppb;
	struct memfilter_bloom *b;
	__le64 *keys, *absent;
	unsigned long *res;

	memfilter_kunit_concurrent_only_under_kcsan(test);
	b = mf_test_bloom_of(test, MF_TEST_KEYS, c->bpk_q4, false, c->layout);
	keys = mf_test_keys(test, MF_TEST_KEYS, 0);
	absent = mf_test_keys(test, MF_TEST_KEYS, 1ULL << 63);
	res = mf_test_bitmap(test, MF_TEST_KEYS);
	memfilter_bloom_add_keys(b, keys, 8, MF_TEST_KEYS);
	memfilter_bloom_contains_keys(b, absent, 8, MF_TEST_KEYS, res);
	fp = bitmap_weight(res, MF_TEST_KEYS);
	measured_ppb = div64_u64(fp * 1000000000ULL, MF_TEST_KEYS);
	model_ppb = memfilter_bloom_model_fpr_ppb(&b->p, MF_TEST_KEYS);
	est_ppb = memfilter_bloom_est_fpr_ppb(b);
	kunit_info(test, "measured %llu ppb, model %llu ppb, estimate %llu ppb, k %u",
		   measured_ppb, model_ppb, est_ppb, b->p.k);

	KUNIT_EXPECT_LE(test, measured_ppb, c->max_ppb);
	/* Within 10% (relative) of the layout's model, and of the estimate. */
	KUNIT_EXPECT_LE(test, measured_ppb * 10, model_ppb * 11);
	KUNIT_EXPECT_GE(test, measured_ppb * 10, model_ppb * 9);
	KUNIT_EXPECT_LE(test, measured_ppb * 10, est_ppb * 11);
	KUNIT_EXPECT_GE(test, measured_ppb * 10, est_ppb * 9);
}

/* Hashes that stress the probe derivation: zero words, single bits, ... */
static void mf_adversarial_hashes(u64 *h, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		switch (i % 6) {
		case 0:
			h[i] = (u64)i << 32;		/* low word 0 */
			break;
		case 1:
			h[i] = i;			/* high word 0 */
			break;
		case 2:
			h[i] = 1ULL << (i % 64);
			break;
		case 3:
			h[i] = ~0ULL << (i % 64);
			break;
		case 4:
			h[i] = 0;
			break;
		default:
			h[i] = get_random_u64();
		}
	}
}

static void mf_bloom_simd_matches_scalar(struct kunit *test)
{
	const u32 n = 64 * 1024, l = mf_test_layout(test);
	struct memfilter_bloom *a = mf_test_bloom_of(test, n, 40, false, l);
	struct memfilter_bloom *s = mf_test_bloom_of(test, n, 40, false, l);
	struct memfilter_bloom *v = mf_test_bloom_of(test, n, 40, false, l);
	unsigned long *ra = mf_test_bitmap(test, 2 * n);
	unsigned long *rs = mf_test_bitmap(test, 2 * n);
	u64 *h = memfilter_kunit_alloc(test, 2 * n, sizeof(u64));
	u64 bytes = memfilter_bloom_bytes(&a->p);
	u32 i;

	for (i = 0; i < n; i++)
		h[i] = get_random_u64();
	mf_adversarial_hashes(h + n / 2, n / 2);
	for (i = n; i < 2 * n; i++)
		h[i] = get_random_u64();

	memfilter_bloom_add_hashes(a, h, n);
	memfilter_bloom_add_hashes_scalar(s, h, n);
	for (i = 0; i < n; i++)
		memfilter_bloom_add_hash(v, h[i]);
	KUNIT_EXPECT_EQ(test, memcmp(a->words, s->words, bytes), 0);
	KUNIT_EXPECT_EQ(test, memcmp(v->words, s->words, bytes), 0);

	memfilter_bloom_contains_hashes(a, h, 2 * n, ra);
	memfilter_bloom_contains_hashes_scalar(a, h, 2 * n, rs);
	KUNIT_EXPECT_TRUE(test, bitmap_equal(ra, rs, 2 * n));
	KUNIT_EXPECT_EQ(test, bitmap_weight(ra, n), n);

	/* The AVX2 path itself, entered the way production enters it. */
	if (!MEMFILTER_HAVE_AVX2 || !memfilter_simd_begin())
		kunit_skip(test, "no usable AVX2 here; scalar path checked");
	memset(a->words, 0, bytes);
	for (i = 0; i < 2 * n; i += MEMFILTER_SIMD_CHUNK) {
		if (i)
			KUNIT_ASSERT_TRUE(test, memfilter_simd_begin());
		if (i < n)
			memfilter_bloom_add_hashes_avx2(a, h + i, MEMFILTER_SIMD_CHUNK);
		else
			memfilter_bloom_contains_hashes_avx2(a, h + i, MEMFILTER_SIMD_CHUNK,
							     ra + i / BITS_PER_LONG);
		memfilter_simd_end();
	}
	KUNIT_EXPECT_EQ(test, memcmp(a->words, s->words, bytes), 0);
	memfilter_bloom_contains_hashes_scalar(a, h + n, n, rs);
	KUNIT_EXPECT_TRUE(test, bitmap_equal(ra + n / BITS_PER_LONG, rs, n));

	/* The single-key AVX2 calls (libmemfilter's): same bits, answers. */
	memset(a->words, 0, bytes);
	for (i = 0; i < 2 * n; i += MEMFILTER_SIMD_CHUNK) {
		u32 j, diff = 0;

		KUNIT_ASSERT_TRUE(test, memfilter_simd_begin());
		for (j = i; j < i + MEMFILTER_SIMD_CHUNK; j++) {
			if (j >= n)
				diff += memfilter_bloom_contains_hash_avx2(a, h[j]) !=
					memfilter_bloom_contains_hash_scalar(s, h[j]);
			else if (j % 3)
				memfilter_bloom_add_hash_avx2(a, h[j]);
			else
				memfilter_bloom_add_hash_exclusive_avx2(a, h[j]);
		}
		memfilter_simd_end();
		KUNIT_EXPECT_EQ(test, diff, 0);
	}
	KUNIT_EXPECT_EQ(test, memcmp(a->words, s->words, bytes), 0);
}

static void mf_bloom_degenerate_probes(struct kunit *test)
{
	struct memfilter_bloom *b = mf_test_bloom_of(test, 1, 40, false,
						     mf_test_layout(test));
	u64 h;

	/* Whatever the hash, a key sets exactly k distinct bits. */
	for (h = 0; h < 64; h++) {
		memset(b->words, 0, memfilter_bloom_bytes(&b->p));
		memfilter_bloom_add_hash(b, h << 32);
		KUNIT_EXPECT_EQ(test, memfilter_bloom_popcount(b), (u64)b->p.k);
		KUNIT_EXPECT_TRUE(test, memfilter_bloom_contains_hash(b, h << 32));
	}
}

struct mf_conc {
	struct memfilter_bloom *b;
	u32 per_writer;
	u32 progress[2];
	atomic_t false_negatives;
	atomic_t checked;
	atomic_t writers_left;
	struct completion done[4];
};

struct mf_conc_arg {
	struct mf_conc *c;
	int id;
};

static int mf_conc_writer(void *data)
{
	struct mf_conc_arg *a = data;
	struct mf_conc *c = a->c;
	u64 base = (u64)a->id << 40;
	__le64 keys[64];
	u32 i, j;

	for (i = 0; i < c->per_writer; i += 64) {
		for (j = 0; j < 64; j++)
			keys[j] = cpu_to_le64(base + i + j);
		if (i & 64)
			memfilter_bloom_add_keys(c->b, keys, 8, 64);
		else
			for (j = 0; j < 64; j++)
				memfilter_bloom_add_key(c->b, &keys[j], 8);
		/* Publish: every key below i + 64 has been inserted. */
		smp_store_release(&c->progress[a->id], i + 64);
		cond_resched();
	}
	atomic_dec(&c->writers_left);
	complete(&c->done[a->id]);
	return 0;
}

static int mf_conc_reader(void *data)
{
	struct mf_conc_arg *a = data;
	struct mf_conc *c = a->c;
	u32 w, p, x;
	__le64 key;

	while (atomic_read(&c->writers_left)) {
		for (w = 0; w < 2; w++) {
			/* Pairs with the writer's release: keys below p are in. */
			p = smp_load_acquire(&c->progress[w]);
			if (!p)
				continue;
			x = get_random_u32_below(p);
			key = cpu_to_le64(((u64)w << 40) + x);
			if (!memfilter_bloom_contains_key(c->b, &key, 8))
				atomic_inc(&c->false_negatives);
			atomic_inc(&c->checked);
		}
		cond_resched();
	}
	complete(&c->done[a->id]);
	return 0;
}

static void mf_bloom_concurrent(struct kunit *test)
{
	struct mf_conc *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct mf_conc_arg args[4];
	struct task_struct *t[4];
	int i;

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->per_writer = 128 * 1024;
	c->b = mf_test_bloom_of(test, 2 * c->per_writer, 40, false,
				mf_test_layout(test));
	atomic_set(&c->writers_left, 2);
	for (i = 0; i < 4; i++) {
		init_completion(&c->done[i]);
		args[i].c = c;
		args[i].id = i;
	}
	/* Create all first: nothing may run unless all can. */
	for (i = 0; i < 4; i++)
		t[i] = kthread_create(i < 2 ? mf_conc_writer : mf_conc_reader,
				      &args[i], "mf-bloom-%d", i);
	if (memfilter_kunit_start_threads(test, t, 4))
		return;
	for (i = 0; i < 4; i++)
		wait_for_completion(&c->done[i]);
	kunit_info(test, "%d concurrent lookups of completed inserts",
		   atomic_read(&c->checked));
	KUNIT_EXPECT_EQ(test, atomic_read(&c->false_negatives), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&c->checked), 0);
	for (i = 0; i < 2; i++) {
		__le64 key = cpu_to_le64(((u64)i << 40) + c->per_writer - 1);

		KUNIT_EXPECT_TRUE(test, memfilter_bloom_contains_key(c->b, &key, 8));
	}
}

/*
 * A module Bloom filter (stripe locks attached by memfilter_filter_alloc())
 * written at once by a softirq (a timer, as a packet path: single-key
 * memfilter_add() and memfilter_test_and_add()) and by two kthreads in
 * process context (256-key memfilter_filter_add_sleepable() batches, the
 * ioctl's; test-and-add batches of 1 to 300 keys, key by key below MEMFILTER_BLOOM_SORT_MIN and
 * sorted above). The filter is ~60 blocks, so the writers keep meeting on
 * the same stripes and words. Afterwards every key is present and the bits
 * are exactly those of a filter built by one writer: a lost bit fails it.
 */
#define MF_LK_SOFTIRQ	512
#define MF_LK_BATCH	1024
#define MF_LK_PER_TICK	16

struct mf_lk {
	struct memfilter *f;
	struct timer_list timer;
	struct completion done[3];
	u32 ticked, not_softirq;
	u64 base;
};

struct mf_lk_arg {
	struct mf_lk *c;
	int id;
	u64 h[300];
	unsigned long res[BITS_TO_LONGS(300)];
};

static u64 mf_lk_key(const struct mf_lk *c, int writer, u32 i)
{
	return c->base + ((u64)writer << 32) + i;
}

static void mf_lk_tick(struct timer_list *t)
{
	struct mf_lk *c = timer_container_of(c, t, timer);
	__le64 key;
	u32 i;

	if (!in_serving_softirq())
		c->not_softirq++;
	for (i = 0; i < MF_LK_PER_TICK; i++) {
		key = cpu_to_le64(mf_lk_key(c, 0, c->ticked + i));
		if (i % 2)
			memfilter_add(c->f, &key, 8);
		else
			memfilter_test_and_add(c->f, &key, 8);
	}
	c->ticked += MF_LK_PER_TICK;
	if (c->ticked < MF_LK_SOFTIRQ)
		mod_timer(&c->timer, jiffies + 1);
	else
		complete(&c->done[0]);
}

static int mf_lk_writer(void *data)
{
	struct mf_lk_arg *a = data;
	struct mf_lk *c = a->c;
	unsigned long *res = a->res;
	u64 *h = a->h;
	u32 i = 0, j, m, done;
	__le64 key;

	while (i < MF_LK_BATCH) {
		m = a->id == 1 ? 256 : 1 + get_random_u32_below(300);
		m = min(m, MF_LK_BATCH - i);
		for (j = 0; j < m; j++) {
			key = cpu_to_le64(mf_lk_key(c, a->id, i + j));
			h[j] = memfilter_hash(&c->f->s.bloom.p.hasher, &key, 8);
		}
		if (a->id == 1)
			memfilter_filter_add_sleepable(c->f, h, m, res, &done);
		else
			memfilter_filter_test_and_add_sleepable(c->f, h, m,
								res, &done);
		i += m;
		cond_resched();
	}
	complete(&c->done[a->id]);
	return 0;
}

static void mf_bloom_locked_writers(struct kunit *test)
{
	struct memfilter_create cr = {
		.type = MEMFILTER_TYPE_BLOOM, .capacity = 3000,
		.bits_per_key_q4 = 40, .flags = MEMFILTER_CREATE_SEED, .seed = 3,
	};
	struct mf_lk *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct memfilter_bloom *ref;
	struct mf_lk_arg *args = kunit_kcalloc(test, 3, sizeof(*args), GFP_KERNEL);
	struct task_struct *t[3];
	u32 round, i, w, n, missing;
	__le64 key;
	u64 h;

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, args);
	for (round = 0; round < 8; round++) {
		c->f = memfilter_filter_create(&cr);
		KUNIT_ASSERT_FALSE(test, IS_ERR(c->f));
		KUNIT_ASSERT_NOT_NULL(test, c->f->s.bloom.stripes);
		c->base = (u64)round << 48;
		c->ticked = 0;
		c->not_softirq = 0;
		for (i = 0; i < 3; i++) {
			init_completion(&c->done[i]);
			args[i].c = c;
			args[i].id = i;
		}
		for (i = 1; i < 3; i++) {
			t[i] = kthread_run(mf_lk_writer, &args[i], "mf-lk-%u", i);
			KUNIT_ASSERT_FALSE(test, IS_ERR(t[i]));
		}
		timer_setup(&c->timer, mf_lk_tick, 0);
		mod_timer(&c->timer, jiffies + 1);
		for (i = 0; i < 3; i++)
			wait_for_completion(&c->done[i]);
		timer_delete_sync(&c->timer);
		KUNIT_EXPECT_EQ(test, c->not_softirq, 0);

		ref = mf_test_bloom(test, 1, 40, false);
		ref->p = c->f->s.bloom.p;
		ref->words = memfilter_kunit_alloc(test, 1, memfilter_bloom_bytes(&ref->p));
		KUNIT_ASSERT_NOT_NULL(test, ref->words);
		missing = 0;
		for (w = 0; w < 3; w++) {
			n = w ? MF_LK_BATCH : MF_LK_SOFTIRQ;
			for (i = 0; i < n; i++) {
				key = cpu_to_le64(mf_lk_key(c, w, i));
				h = memfilter_hash(&ref->p.hasher, &key, 8);
				memfilter_bloom_add_hash_exclusive_scalar(ref, h);
				missing += !memfilter_contains(c->f, &key, 8);
			}
		}
		KUNIT_EXPECT_EQ_MSG(test, missing, 0, "round %u", round);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(ref->words, c->f->s.bloom.words,
						 memfilter_bloom_bytes(&ref->p)), 0,
				    "round %u", round);
		/* Not saturated: the comparison can fail. */
		KUNIT_EXPECT_LT(test, memfilter_bloom_popcount(ref),
				ref->p.nblocks * MEMFILTER_BLOOM_BLOCK_BITS * 9 / 10);
		memfilter_put(c->f);
	}
}

static void mf_bloom_keyed(struct kunit *test)
{
	const u32 n = 50000;
	struct memfilter_bloom *u = mf_test_bloom(test, n, 40, false);
	struct memfilter_bloom *k = mf_test_bloom(test, n, 40, true);
	__le64 *keys = mf_test_keys(test, n, 0);
	unsigned long *res = mf_test_bitmap(test, n);

	memfilter_bloom_add_keys(u, keys, 8, n);
	memfilter_bloom_add_keys(k, keys, 8, n);
	KUNIT_EXPECT_NE(test, memcmp(u->words, k->words,
				     memfilter_bloom_bytes(&u->p)), 0);
	memfilter_bloom_contains_keys(k, keys, 8, n, res);
	KUNIT_EXPECT_EQ(test, bitmap_weight(res, n), n);
	memfilter_bloom_contains_keys(u, keys, 8, n, res);
	KUNIT_EXPECT_EQ(test, bitmap_weight(res, n), n);
}

static void mf_bloom_sizes(struct kunit *test)
{
	const u32 l64 = MEMFILTER_BLOOM_LINE64;
	struct memfilter_bloom_params p;

	KUNIT_EXPECT_EQ(test, memfilter_bloom_params_from_bpk(&p, 1, 40, l64), 0);
	KUNIT_EXPECT_EQ(test, p.nblocks, 1ULL);
	KUNIT_EXPECT_EQ(test, memfilter_bloom_bytes(&p), 64ULL);
	KUNIT_EXPECT_EQ(test, memfilter_bloom_params_from_bpk(&p, 1000, 40, l64), 0);
	KUNIT_EXPECT_EQ(test, p.nblocks, 20ULL);	/* 10000 bits: not 32 */
	KUNIT_EXPECT_EQ(test, memfilter_bloom_params_from_bpk(&p, 0, 40, l64), -EINVAL);
	KUNIT_EXPECT_EQ(test, memfilter_bloom_params_from_bpk(&p, 10, 0, l64), -EINVAL);
	KUNIT_EXPECT_EQ(test, memfilter_bloom_params_from_bpk(&p, 10,
							      MEMFILTER_BLOOM_MAX_BPK_Q4 + 1,
							      l64),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, memfilter_bloom_params_from_bpk(&p, 1ULL << 40, 40, l64),
			-E2BIG);
	KUNIT_EXPECT_EQ(test, memfilter_bloom_params_from_bpk(&p, U64_MAX, 256, l64),
			-E2BIG);
	KUNIT_EXPECT_EQ(test, memfilter_bloom_params_from_fpr(&p, 1000, 0, l64), -EINVAL);
	KUNIT_EXPECT_EQ(test, memfilter_bloom_params_from_fpr(&p, 1000,
							      1000000000ULL, l64),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, memfilter_bloom_params_from_fpr(&p, U64_MAX, 1000, l64),
			-E2BIG);
	KUNIT_ASSERT_EQ(test, memfilter_bloom_params_from_fpr(&p, 1000000,
							      10000000, l64), 0);
	KUNIT_EXPECT_LE(test, memfilter_bloom_model_fpr_ppb(&p, 1000000),
			10000000ULL);
	/* SPLIT32: an even number of 32-byte blocks, k = 8; its own model. */
	KUNIT_EXPECT_EQ(test, memfilter_bloom_params_from_bpk(&p, 1, 40,
							      MEMFILTER_BLOOM_SPLIT32), 0);
	KUNIT_EXPECT_EQ(test, p.nblocks, 2ULL);
	KUNIT_EXPECT_EQ(test, p.k, 8U);
	KUNIT_EXPECT_EQ(test, memfilter_bloom_bytes(&p), 64ULL);
	KUNIT_EXPECT_EQ(test, memfilter_bloom_params_from_bpk(&p, 1000, 40,
							      MEMFILTER_BLOOM_SPLIT32), 0);
	KUNIT_EXPECT_EQ(test, p.nblocks, 40ULL);
	KUNIT_ASSERT_EQ(test, memfilter_bloom_params_from_fpr(&p, 1000000, 10000000,
							      MEMFILTER_BLOOM_SPLIT32), 0);
	KUNIT_EXPECT_EQ(test, p.bits_per_key_q4, 43U);
	KUNIT_EXPECT_LE(test, memfilter_bloom_model_fpr_ppb(&p, 1000000),
			10000000ULL);
	KUNIT_EXPECT_EQ(test, memfilter_bloom_params_from_fpr(&p, 1000, 1000,
							      MEMFILTER_BLOOM_SPLIT32), -EINVAL);
	KUNIT_EXPECT_EQ(test, memfilter_bloom_params_from_bpk(&p, 1000, 40,
							      MEMFILTER_BLOOM_NLAYOUTS), -EINVAL);
}

static void mf_bloom_stats(struct kunit *test)
{
	const u32 n = 100000;
	struct memfilter_bloom *b = mf_test_bloom(test, n, 40, false);
	__le64 *keys = mf_test_keys(test, n, 0);
	u64 i, pc = 0;

	KUNIT_EXPECT_EQ(test, memfilter_bloom_popcount(b), 0ULL);
	KUNIT_EXPECT_EQ(test, memfilter_bloom_est_fpr_ppb(b), 0ULL);
	memfilter_bloom_add_keys(b, keys, 8, n);
	for (i = 0; i < b->p.nblocks * MEMFILTER_BLOOM_BLOCK_WORDS; i++)
		pc += hweight64(b->words[i]);
	KUNIT_EXPECT_EQ(test, memfilter_bloom_popcount(b), pc);
	KUNIT_EXPECT_GT(test, pc, (u64)n);
	KUNIT_EXPECT_LE(test, pc, (u64)n * b->p.k);
	KUNIT_EXPECT_GT(test, memfilter_bloom_est_fpr_ppb(b), 0ULL);
	KUNIT_EXPECT_LE(test, memfilter_bloom_est_fpr_ppb(b), 20000000ULL);
}

/*
 * max_total_mb counts what a filter really holds: a module Bloom filter's
 * table and its writers' stripe locks (4 KiB, more with lockdep), a cuckoo
 * filter's table alone (its version counters are in it); each is given
 * back in full when the filter is freed.
 */
static void mf_bloom_charged_with_locks(struct kunit *test)
{
	struct memfilter_create cr = {
		.type = MEMFILTER_TYPE_BLOOM, .capacity = 3000,
		.bits_per_key_q4 = 40,
	};
	struct memfilter *f;
	u64 before = memfilter_total_settled();

	f = memfilter_filter_create(&cr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, memfilter_total_settled() - before,
			f->bytes + MEMFILTER_BLOOM_STRIPES_BYTES);
	memfilter_put(f);
	KUNIT_EXPECT_EQ(test, memfilter_total_settled(), before);

	cr.type = MEMFILTER_TYPE_CUCKOO;
	cr.bits_per_key_q4 = 0;
	cr.fingerprint_bits = 12;
	f = memfilter_filter_create(&cr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, memfilter_total_settled() - before, f->bytes);
	memfilter_put(f);
	KUNIT_EXPECT_EQ(test, memfilter_total_settled(), before);
}

static struct kunit_case memfilter_bloom_cases[] = {
	KUNIT_CASE_SLOW(mf_bloom_no_false_negatives),
	KUNIT_CASE_PARAM_ATTR(mf_bloom_fpr_targets, mf_fpr_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM(mf_bloom_simd_matches_scalar, mf_layout_gen_params),
	KUNIT_CASE_PARAM(mf_bloom_degenerate_probes, mf_layout_gen_params),
	KUNIT_CASE_PARAM_ATTR(mf_bloom_concurrent, mf_layout_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_SLOW(mf_bloom_locked_writers),
	KUNIT_CASE(mf_bloom_keyed),
	KUNIT_CASE(mf_bloom_sizes),
	KUNIT_CASE(mf_bloom_stats),
	KUNIT_CASE(mf_bloom_charged_with_locks),
	{}
};

static struct kunit_suite memfilter_bloom_suite = {
	.name = "memfilter_bloom",
	.test_cases = memfilter_bloom_cases,
};

kunit_test_suite(memfilter_bloom_suite);
