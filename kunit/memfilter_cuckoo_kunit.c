// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite memfilter_cuckoo: the cuckoo filter in the kernel.
 *
 * No false negatives; delete semantics including duplicates up to the
 * two-bucket limit; a failed insert loses nothing; the 95% load target; the
 * FPR against 2b/2^f for each fingerprint width; and lockless readers in
 * kthreads racing a writer that inserts (with long kick chains near full
 * load) and deletes, with zero false negatives; the key API under every
 * hasher answers as the hash API.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "cuckoo.h"
#include "helpers.h"

/* Distinct well-mixed 64-bit key hashes; "absent" ones never collide. */
static u64 mf_h(u64 i)
{
	return memfilter_xxh64(&i, sizeof(i), 0x1234);
}

static void mf_cuckoo_no_false_negatives(struct kunit *test)
{
	const u32 n = 1U << 20;
	struct memfilter_cuckoo *c;
	unsigned long *res;
	u64 *h;
	u32 i;

	memfilter_kunit_concurrent_only_under_kcsan(test);
	c = memfilter_kunit_cuckoo(test, n, 12);
	res = memfilter_kunit_alloc(test, BITS_TO_LONGS(n), sizeof(long));
	h = memfilter_kunit_alloc(test, n, sizeof(u64));
	for (i = 0; i < n; i++) {
		h[i] = mf_h(i);
		KUNIT_ASSERT_EQ(test, memfilter_cuckoo_add_hash(c, h[i]), 0);
	}
	memfilter_cuckoo_contains_hashes(c, h, n, res);
	KUNIT_EXPECT_EQ(test, bitmap_weight(res, n), n);
	for (i = 0; i < n; i += 101)
		KUNIT_EXPECT_TRUE(test, memfilter_cuckoo_contains_hash(c, h[i]));
}

static void mf_cuckoo_delete(struct kunit *test)
{
	struct memfilter_cuckoo *c = memfilter_kunit_cuckoo(test, 1024, 16);
	u64 bytes = memfilter_cuckoo_mem_bytes(&c->p);
	u64 h = mf_h(7), other = mf_h(8);
	struct memfilter_cuckoo_snapshot s;
	void *snap;
	int i;

	/* Deleting an absent key reports it and changes nothing. */
	KUNIT_ASSERT_EQ(test, memfilter_cuckoo_add_hash(c, other), 0);
	snap = memfilter_kunit_alloc(test, 1, bytes);
	memcpy(snap, c->table, bytes);
	KUNIT_EXPECT_EQ(test, memfilter_cuckoo_delete_hash(c, h), -ENOENT);
	KUNIT_EXPECT_EQ(test, memcmp(snap, c->table, bytes), 0);

	/* Duplicates: 2b copies fit in the two buckets, then the stash. */
	for (i = 0; i < 2 * MEMFILTER_CUCKOO_SLOTS; i++)
		KUNIT_ASSERT_EQ(test, memfilter_cuckoo_add_hash(c, h), 0);
	KUNIT_EXPECT_EQ(test, memfilter_cuckoo_count_hash(c, h),
			2 * MEMFILTER_CUCKOO_SLOTS);
	KUNIT_EXPECT_EQ(test, memfilter_cuckoo_add_hash(c, h), 0);	/* stash */
	memfilter_cuckoo_stats(c, &s);
	KUNIT_EXPECT_EQ(test, s.stash_used, 1U);
	KUNIT_EXPECT_EQ(test, memfilter_cuckoo_add_hash(c, h), -ENOSPC);
	KUNIT_EXPECT_EQ(test, memfilter_cuckoo_count_hash(c, h),
			2 * MEMFILTER_CUCKOO_SLOTS + 1);
	KUNIT_EXPECT_EQ(test, memfilter_cuckoo_add_unique_hash(c, h), -EEXIST);
	for (i = 2 * MEMFILTER_CUCKOO_SLOTS + 1; i > 0; i--) {
		KUNIT_EXPECT_TRUE(test, memfilter_cuckoo_contains_hash(c, h));
		KUNIT_EXPECT_EQ(test, memfilter_cuckoo_delete_hash(c, h), 0);
		KUNIT_EXPECT_EQ(test, memfilter_cuckoo_count_hash(c, h), i - 1);
	}
	KUNIT_EXPECT_FALSE(test, memfilter_cuckoo_contains_hash(c, h));
	KUNIT_EXPECT_EQ(test, memfilter_cuckoo_delete_hash(c, h), -ENOENT);
	KUNIT_EXPECT_TRUE(test, memfilter_cuckoo_contains_hash(c, other));
	memfilter_cuckoo_stats(c, &s);
	KUNIT_EXPECT_EQ(test, s.items, 1ULL);
	KUNIT_EXPECT_EQ(test, memfilter_cuckoo_add_unique_hash(c, h), 0);
	KUNIT_EXPECT_EQ(test, memfilter_cuckoo_count_hash(c, h), 1U);
}

static const u32 mf_fp_widths[] = { 8, 12, 16 };

static void mf_fp_desc(const u32 *f, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%u-bit fingerprints", *f);
}

KUNIT_ARRAY_PARAM(mf_fp, mf_fp_widths, mf_fp_desc);

/*
 * A filter in the first layout (a power of two of buckets, XOR), as
 * images from before the second one load: memfilter_kunit_cuckoo()'s
 * bucket count rounded up to a power of two.
 */
static struct memfilter_cuckoo *mf_cuckoo_pow2(struct kunit *test, u64 capacity,
					       u32 fp_bits)
{
	struct memfilter_cuckoo *c = memfilter_kunit_cuckoo(test, capacity, fp_bits);
	struct memfilter_cuckoo_params p = c->p;
	void *mem;

	p.layout = MEMFILTER_CUCKOO_LAYOUT_POW2;
	p.nbuckets = roundup_pow_of_two(p.nbuckets);
	mem = memfilter_kunit_alloc(test, 1, memfilter_cuckoo_mem_bytes(&p) + 64);
	memfilter_cuckoo_init(c, &p, PTR_ALIGN(mem, 64));
	return c;
}

/* Fill to the first failure: 95% load, and every inserted key still in. */
static void mf_cuckoo_fill_one(struct kunit *test, struct memfilter_cuckoo *c)
{
	u64 slots = c->p.nbuckets * MEMFILTER_CUCKOO_SLOTS, i, n;
	struct memfilter_cuckoo_snapshot s;
	int ret = 0;

	for (n = 0; n < 2 * slots; n++) {
		ret = memfilter_cuckoo_add_hash(c, mf_h(n));
		if (ret)
			break;
	}
	KUNIT_ASSERT_EQ(test, ret, -ENOSPC);
	memfilter_cuckoo_stats(c, &s);
	kunit_info(test, "layout %u, %llu buckets: first failure after %llu keys: load %llu/%llu slots, stash %u",
		   c->p.layout, c->p.nbuckets, n, s.slots_used, s.slots,
		   s.stash_used);
	KUNIT_EXPECT_GE(test, s.slots_used * 100, s.slots * 95);
	KUNIT_EXPECT_EQ(test, s.items, n);
	KUNIT_EXPECT_EQ(test, s.failed_inserts, 1ULL);
	for (i = 0; i < n; i++)
		if (!memfilter_cuckoo_contains_hash(c, mf_h(i)))
			break;
	KUNIT_EXPECT_EQ_MSG(test, i, n, "key %llu lost by a failed insert", i);
	/* More failures change nothing either. */
	for (i = 0; i < 100; i++)
		memfilter_cuckoo_add_hash(c, mf_h(n + 1 + i));
	for (i = 0; i < n; i++)
		if (!memfilter_cuckoo_contains_hash(c, mf_h(i)))
			break;
	KUNIT_EXPECT_EQ(test, i, n);
}

/* Both layouts: 4312 buckets (any count), 8192 (a power of two). */
static void mf_cuckoo_fill_to_failure(struct kunit *test)
{
	const u32 fp = *(const u32 *)test->param_value;

	mf_cuckoo_fill_one(test, memfilter_kunit_cuckoo(test, 16384, fp));
	mf_cuckoo_fill_one(test, mf_cuckoo_pow2(test, 16384, fp));
}

/* FPR at ~95% load against 2b/2^f (and the filter's own estimate). */
static void mf_cuckoo_fpr(struct kunit *test)
{
	const u32 fp = *(const u32 *)test->param_value;
	const u64 queries = 1000000;
	u64 i, fpos = 0, measured, bound, slots, target;
	struct memfilter_cuckoo_snapshot s;
	struct memfilter_cuckoo *c;

	memfilter_kunit_concurrent_only_under_kcsan(test);
	c = memfilter_kunit_cuckoo(test, 1U << 20, fp);
	slots = c->p.nbuckets * MEMFILTER_CUCKOO_SLOTS;
	target = slots * 95 / 100;
	for (i = 0; i < target; i++)
		KUNIT_ASSERT_EQ(test, memfilter_cuckoo_add_hash(c, mf_h(i)), 0);
	for (i = 0; i < queries; i++)
		fpos += memfilter_cuckoo_contains_hash(c, mf_h((1ULL << 62) + i));
	measured = div64_u64(fpos * 1000000000ULL, queries);
	bound = div64_u64(2ULL * MEMFILTER_CUCKOO_SLOTS * 1000000000ULL, 1ULL << fp);
	memfilter_cuckoo_stats(c, &s);
	kunit_info(test, "f=%u: measured %llu ppb, 2b/2^f %llu ppb, estimate %llu ppb",
		   fp, measured, bound, s.est_fpr_ppb);
	KUNIT_EXPECT_LE(test, measured * 100, bound * 115);
	KUNIT_EXPECT_GE(test, measured * 100, bound * 85);
	KUNIT_EXPECT_LE(test, measured * 100, s.est_fpr_ppb * 115);
	KUNIT_EXPECT_GE(test, measured * 100, s.est_fpr_ppb * 85);
}

struct mf_race {
	struct memfilter_cuckoo *c;
	spinlock_t lock;	/* the writer lock, as the module holds it */
	u32 stable;
	atomic_t writer_done;
	atomic_t false_negatives;
	atomic_t lookups;
	u64 moved;
	struct completion done[3];
};

static int mf_race_writer(void *data)
{
	struct mf_race *r = data;
	u64 slots = r->c->p.nbuckets * MEMFILTER_CUCKOO_SLOTS;
	u64 churn = slots * 94 / 100 - r->stable, i;
	int round;

	/* Fill to ~94% load (long kick chains), then delete it all, again. */
	for (round = 0; round < 6; round++) {
		for (i = 0; i < churn; i++) {
			spin_lock_bh(&r->lock);
			memfilter_cuckoo_add_hash(r->c, mf_h((1ULL << 40) + i));
			spin_unlock_bh(&r->lock);
		}
		for (i = 0; i < churn; i++) {
			spin_lock_bh(&r->lock);
			memfilter_cuckoo_delete_hash(r->c, mf_h((1ULL << 40) + i));
			spin_unlock_bh(&r->lock);
		}
		cond_resched();
	}
	atomic_set(&r->writer_done, 1);
	complete(&r->done[0]);
	return 0;
}

struct mf_race_reader_arg {
	struct mf_race *r;
	int id;
};

/*
 * 64 stable keys and 64 never added, as one batch lookup each: the first
 * must all be found; the second are validated by the table's version and,
 * when the writer moved it, looked up again key by key.
 */
static void mf_race_batch(struct mf_race *r)
{
	u32 x = get_random_u32_below(r->stable - BITS_PER_LONG), j;
	u64 h[BITS_PER_LONG];
	unsigned long res;

	for (j = 0; j < BITS_PER_LONG; j++)
		h[j] = mf_h(x + j);
	memfilter_cuckoo_contains_hashes(r->c, h, BITS_PER_LONG, &res);
	atomic_add(BITS_PER_LONG - hweight_long(res), &r->false_negatives);
	for (j = 0; j < BITS_PER_LONG; j++)
		h[j] = mf_h((2ULL << 40) + x + j);
	memfilter_cuckoo_contains_hashes(r->c, h, BITS_PER_LONG, &res);
	atomic_add(2 * BITS_PER_LONG, &r->lookups);
	cond_resched();
}

/* Reader 1 looks keys up one at a time, reader 2 in batches. */
static int mf_race_reader(void *data)
{
	struct mf_race_reader_arg *a = data;
	struct mf_race *r = a->r;
	u32 x;

	while (!atomic_read(&r->writer_done)) {
		if (a->id == 2) {
			mf_race_batch(r);
			continue;
		}
		x = get_random_u32_below(r->stable);
		if (!memfilter_cuckoo_contains_hash(r->c, mf_h(x)))
			atomic_inc(&r->false_negatives);
		/*
		 * A key never added: only a consistent snapshot may say
		 * "absent", so this read retries whenever it meets the writer
		 * inside an update (a present key is found at once).
		 */
		memfilter_cuckoo_contains_hash(r->c, mf_h((2ULL << 40) + x));
		atomic_add(2, &r->lookups);
		if (!(x & 255))
			cond_resched();
	}
	complete(&r->done[a->id]);
	return 0;
}

static const u32 mf_layouts[] = {
	MEMFILTER_CUCKOO_LAYOUT_MOD, MEMFILTER_CUCKOO_LAYOUT_POW2
};

static void mf_layout_desc(const u32 *l, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s",
		 *l == MEMFILTER_CUCKOO_LAYOUT_MOD ? "any-size" : "pow2");
}

KUNIT_ARRAY_PARAM(mf_layout, mf_layouts, mf_layout_desc);

static void mf_cuckoo_readers_race_writer(struct kunit *test)
{
	const u32 layout = *(const u32 *)test->param_value;
	struct mf_race *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct mf_race_reader_arg args[3];
	struct memfilter_cuckoo_snapshot s;
	struct task_struct *t[3];
	int i;
	u32 k;

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->c = layout == MEMFILTER_CUCKOO_LAYOUT_MOD ?
	       memfilter_kunit_cuckoo(test, 8192, 12) :
	       mf_cuckoo_pow2(test, 8192, 12);
	spin_lock_init(&r->lock);
	r->stable = r->c->p.nbuckets * MEMFILTER_CUCKOO_SLOTS / 2;
	for (k = 0; k < r->stable; k++)
		KUNIT_ASSERT_EQ(test, memfilter_cuckoo_add_hash(r->c, mf_h(k)), 0);
	for (i = 0; i < 3; i++) {
		init_completion(&r->done[i]);
		args[i].r = r;
		args[i].id = i;
	}

	t[0] = kthread_create(mf_race_writer, r, "mf-cuckoo-w");
	t[1] = kthread_create(mf_race_reader, &args[1], "mf-cuckoo-r1");
	t[2] = kthread_create(mf_race_reader, &args[2], "mf-cuckoo-r2");
	if (memfilter_kunit_start_threads(test, t, 3))
		return;
	wait_for_completion(&r->done[0]);
	for (i = 1; i < 3; i++)
		wait_for_completion(&r->done[i]);

	memfilter_cuckoo_stats(r->c, &s);
	kunit_info(test, "%d lockless lookups during %llu kicks: %llu retries, %llu gave up",
		   atomic_read(&r->lookups), s.kicks, s.read_retries,
		   s.read_busy);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->false_negatives), 0);
	KUNIT_EXPECT_GT(test, s.kicks, 0ULL);
	KUNIT_EXPECT_EQ(test, s.items, (u64)r->stable);
}

static void memfilter_cuckoo_params(struct kunit *test)
{
	struct memfilter_cuckoo_params p;

	KUNIT_EXPECT_EQ(test, memfilter_cuckoo_params_init(&p, 1000, 7), -EINVAL);
	KUNIT_EXPECT_EQ(test, memfilter_cuckoo_params_init(&p, 1000, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, memfilter_cuckoo_params_init(&p, 0, 8), -EINVAL);
	KUNIT_EXPECT_EQ(test, memfilter_cuckoo_params_init(&p, 1ULL << 50, 16),
			-E2BIG);
	KUNIT_EXPECT_EQ(test, memfilter_cuckoo_params_init(&p, U64_MAX, 16),
			-E2BIG);
	KUNIT_ASSERT_EQ(test, memfilter_cuckoo_params_init(&p, 1, 8), 0);
	KUNIT_EXPECT_GE(test, p.nbuckets, 1ULL);
	KUNIT_ASSERT_EQ(test, memfilter_cuckoo_params_init(&p, 1000, 12), 0);
	/* Any bucket count: ceil(1000 / (4 * 0.95)). */
	KUNIT_EXPECT_EQ(test, p.layout, (u32)MEMFILTER_CUCKOO_LAYOUT_MOD);
	KUNIT_EXPECT_EQ(test, p.nbuckets, 264ULL);
	KUNIT_EXPECT_GE(test, p.nbuckets * MEMFILTER_CUCKOO_SLOTS * 95, 1000ULL * 100);
	p.layout = MEMFILTER_CUCKOO_LAYOUT_POW2;
	KUNIT_EXPECT_EQ(test, memfilter_cuckoo_mem_bytes(&p), 0ULL);
	KUNIT_ASSERT_EQ(test, memfilter_cuckoo_params_from_fpr(&p, 1000, 32000000),
			0);
	KUNIT_EXPECT_EQ(test, p.fp_bits, 8U);
	KUNIT_ASSERT_EQ(test, memfilter_cuckoo_params_from_fpr(&p, 1000, 1000000),
			0);
	KUNIT_EXPECT_EQ(test, p.fp_bits, 16U);
	KUNIT_EXPECT_EQ(test, memfilter_cuckoo_params_from_fpr(&p, 1000, 1000),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, memfilter_cuckoo_params_from_fpr(&p, 1000, 0),
			-EINVAL);
}

/*
 * The key API hashes 8-byte keys under XXH64 and XXH3 inline, other keys
 * and SipHash out of line: under every hasher and width it answers as
 * the hash API with memfilter_hash(), key for key, and the batch lookup
 * of the same hashes gives the same answers.
 */
static void mf_cuckoo_key_api(struct kunit *test)
{
	static const u32 algos[] = { MEMFILTER_HASH_XXH64, MEMFILTER_HASH_XXH3,
				     MEMFILTER_HASH_SIPHASH24 };
	static const u64 key2[2] = { 0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL };
	const u32 n = 4096;
	struct memfilter_cuckoo *c;
	u64 k[2], *h, single, batch;
	unsigned long *res;
	u32 a, w, i;
	size_t len;

	h = memfilter_kunit_alloc(test, n, sizeof(u64));
	res = memfilter_kunit_alloc(test, BITS_TO_LONGS(n), sizeof(long));
	for (a = 0; a < ARRAY_SIZE(algos); a++) {
		for (w = 8; w <= 16; w += 4) {
			c = memfilter_kunit_cuckoo(test, 2000, w);
			KUNIT_ASSERT_EQ(test, memfilter_hasher_init(&c->p.hasher,
								    algos[a], 3,
								    key2), 0);
			for (i = 0; i < 2000; i++) {
				k[0] = mf_h(i);
				k[1] = i;
				len = i % 2 ? 8 : 13;
				KUNIT_ASSERT_EQ(test, memfilter_cuckoo_add_key(c, k, len),
						0);
			}
			single = 0;
			for (i = 0; i < n; i++) {
				k[0] = mf_h(i < 2000 ? i : (1ULL << 40) + i);
				k[1] = i;
				len = i % 2 ? 8 : 13;
				h[i] = memfilter_hash(&c->p.hasher, k, len);
				KUNIT_ASSERT_EQ(test,
						memfilter_cuckoo_contains_key(c, k, len),
						memfilter_cuckoo_contains_hash(c, h[i]));
				KUNIT_ASSERT_EQ(test,
						memfilter_cuckoo_count_key(c, k, len),
						memfilter_cuckoo_count_hash(c, h[i]));
				if (i < 2000)
					KUNIT_ASSERT_TRUE(test,
							  memfilter_cuckoo_contains_hash(c, h[i]));
				single += memfilter_cuckoo_contains_hash(c, h[i]);
			}
			memfilter_cuckoo_contains_hashes(c, h, n, res);
			batch = bitmap_weight(res, n);
			KUNIT_EXPECT_EQ(test, batch, single);
			KUNIT_EXPECT_LE(test, 2000ULL, single);
		}
	}
}

static struct kunit_case memfilter_cuckoo_cases[] = {
	KUNIT_CASE(mf_cuckoo_key_api),
	KUNIT_CASE_SLOW(mf_cuckoo_no_false_negatives),
	KUNIT_CASE(mf_cuckoo_delete),
	KUNIT_CASE_PARAM(mf_cuckoo_fill_to_failure, mf_fp_gen_params),
	KUNIT_CASE_PARAM_ATTR(mf_cuckoo_fpr, mf_fp_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM_ATTR(mf_cuckoo_readers_race_writer, mf_layout_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE(memfilter_cuckoo_params),
	{}
};

static struct kunit_suite memfilter_cuckoo_suite = {
	.name = "memfilter_cuckoo",
	.test_cases = memfilter_cuckoo_cases,
};

kunit_test_suite(memfilter_cuckoo_suite);
