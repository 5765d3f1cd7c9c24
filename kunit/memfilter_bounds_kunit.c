// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite memfilter_bounds: the bottom-half-off bounds that
 * Documentation/admin-guide.rst ("Latency") states, checked by counting
 * steps and keys, never by timing (bench/latency-vm.sh measures the time).
 *
 * The filter's type operations are wrapped: a copy of its ops table whose
 * add, clear_step and copy_step record what each locked section was given
 * and call the real ones. A section's end is observed, not assumed: each
 * wrapped call schedules a tasklet on its CPU, which cannot run while
 * bottom halves are off and runs as soon as the section's
 * spin_unlock_bh() enables them (do_softirq() at once, outside interrupt
 * context). So a call that finds its predecessor's tasklet not yet run
 * shares its section, and the counts per section follow exactly.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/interrupt.h>
#include <linux/slab.h>

#include "bloom.h"
#include "cuckoo.h"
#include "filter/filter.h"
#include "image.h"
#include <linux/memfilter.h>
#include "window.h"

/* The figures the admin guide states. */
#define MF_DOC_LOCK_KEYS	16	/* keys per writer section */
#define MF_DOC_LOCK_KEYS_DUMP	4	/* ... while a dump copies */
#define MF_DOC_BUCKET_READS	502	/* per key: max_kicks + 2 */
#define MF_DOC_STEP_BYTES	(16 * 1024)	/* clear and dump steps */
#define MF_DOC_COPIES_PER_KEY	11	/* steps a writer copies out */
#define MF_DOC_READ_TRIES	128	/* a lockless cuckoo lookup */
#define MF_DOC_WINDOW_CLEAR	(256 * 1024)	/* a rotation's step */
#define MF_DOC_SIMD_KEYS	256	/* an AVX2 section */
#define MF_DOC_BLOOM_STRIPES	64	/* Bloom writer locks per filter */
#define MF_DOC_BLOOM_LOCK_KEYS	64	/* keys per Bloom stripe lock hold */

struct mf_bounds {
	struct memfilter_type_ops ops;
	const struct memfilter_type_ops *real;
	struct memfilter *f;
	struct tasklet_struct tasklet;
	unsigned int ran;		/* tasklet runs */
	unsigned int calls, sections, bh_on;
	u32 max_keys;			/* per section */
	u32 keys_now;			/* in the current section */
	unsigned int seen;		/* ran when the last call began */
	struct memfilter_table_copy *copy;	/* a dump under way */
	u64 max_copied;			/* steps copied out per section */
	u64 copied_now;
	u64 steps_done;
};

static struct mf_bounds *mf_bounds_current;

static void mf_bounds_tasklet(struct tasklet_struct *t)
{
	struct mf_bounds *b = from_tasklet(b, t, tasklet);

	WRITE_ONCE(b->ran, b->ran + 1);
}

/*
 * Inside a section: the lock is held, bottom halves are off (the
 * tasklet scheduled by the previous call has not run, unless the section
 * ended since), and a new section begins when it has run.
 */
static void mf_bounds_enter(struct mf_bounds *b, u32 keys)
{
	b->calls++;
	lockdep_assert_held(&b->f->lock);	/* a lockdep report fails the run */
	if (!in_softirq())
		b->bh_on++;
	if (b->calls == 1 || READ_ONCE(b->ran) != b->seen) {
		b->sections++;
		b->keys_now = 0;
		b->copied_now = 0;
	}
	b->keys_now += keys;
	b->max_keys = max(b->max_keys, b->keys_now);
	b->seen = READ_ONCE(b->ran);
	tasklet_schedule(&b->tasklet);
}

static u64 mf_bounds_copied(const struct mf_bounds *b, u64 steps)
{
	return b->copy ? bitmap_weight((const unsigned long *)b->copy->copied,
				       steps) : 0;
}

static int mf_bounds_add(union memfilter_state *s, const u64 *hashes, u32 n,
			 unsigned long *result, u32 *done)
{
	struct mf_bounds *b = mf_bounds_current;
	u64 steps = b->real->steps(s), before = mf_bounds_copied(b, steps);
	int ret;

	mf_bounds_enter(b, n);
	ret = b->real->add(s, hashes, n, result, done);
	b->copied_now += mf_bounds_copied(b, steps) - before;
	b->max_copied = max(b->max_copied, b->copied_now);
	return ret;
}

static void mf_bounds_clear_step(union memfilter_state *s, u64 k)
{
	struct mf_bounds *b = mf_bounds_current;

	mf_bounds_enter(b, 0);
	b->steps_done++;
	b->real->clear_step(s, k);
}

static void mf_bounds_copy_step(union memfilter_state *s, u64 k)
{
	struct mf_bounds *b = mf_bounds_current;

	mf_bounds_enter(b, 0);
	b->steps_done++;
	b->real->copy_step(s, k);
}

/* A cuckoo filter at @fill percent of its capacity, its ops wrapped. */
static struct mf_bounds *mf_bounds_filter(struct kunit *test, u64 capacity,
					  u32 fill)
{
	struct memfilter_create c = {
		.size = sizeof(c), .type = MEMFILTER_TYPE_CUCKOO,
		.capacity = capacity, .fingerprint_bits = 8,
		.flags = MEMFILTER_CREATE_SEED, .seed = 7,
	};
	struct mf_bounds *b;
	u64 i, n = capacity * fill / 100, *keys;
	u32 done;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	b->f = memfilter_filter_create(&c);
	KUNIT_ASSERT_FALSE(test, IS_ERR(b->f));
	keys = kunit_kmalloc_array(test, n, sizeof(*keys), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, keys);
	for (i = 0; i < n; i++)
		keys[i] = i;
	KUNIT_ASSERT_EQ(test, memfilter_add_batch(b->f, keys, sizeof(*keys), n,
						  &done), 0);
	b->real = b->f->ops;
	b->ops = *b->real;
	b->ops.add = mf_bounds_add;
	b->ops.clear_step = mf_bounds_clear_step;
	b->ops.copy_step = mf_bounds_copy_step;
	tasklet_setup(&b->tasklet, mf_bounds_tasklet);
	mf_bounds_current = b;
	b->f->ops = &b->ops;
	return b;
}

static void mf_bounds_put(struct mf_bounds *b)
{
	tasklet_kill(&b->tasklet);
	b->f->ops = b->real;
	memfilter_put(b->f);
	mf_bounds_current = NULL;
}

/*
 * Add @n new keys (numbers from @first) through the wrapped ops, with the
 * in-kernel API (its batches of 64 keys are split into sections as any).
 */
static void mf_bounds_add_keys(struct kunit *test, struct mf_bounds *b,
			       u64 first, u32 n)
{
	u64 *keys = kunit_kmalloc_array(test, n, sizeof(*keys), GFP_KERNEL);
	u32 i, done;

	KUNIT_ASSERT_NOT_NULL(test, keys);
	for (i = 0; i < n; i++)
		keys[i] = first + i;
	KUNIT_EXPECT_EQ(test, memfilter_add_batch(b->f, keys, sizeof(*keys), n,
						  &done), 0);
	KUNIT_EXPECT_EQ(test, done, n);
}

static void mf_bounds_expect_sections(struct kunit *test, struct mf_bounds *b)
{
	KUNIT_EXPECT_EQ(test, b->bh_on, 0U);
}

/*
 * Writers: a batch of 1000 keys is written 16 keys per locked section
 * (exactly: 63 sections, the last of 8), bottom halves off in each and on
 * between them; each key's cuckoo path search is bounded by max_kicks.
 */
static void mf_bound_writer_sections(struct kunit *test)
{
	struct mf_bounds *b = mf_bounds_filter(test, 31000, 80);
	const union memfilter_params *p = b->real->params_of(&b->f->s);

	KUNIT_EXPECT_EQ(test, p->cuckoo.max_kicks + 2, MF_DOC_BUCKET_READS);
	mf_bounds_add_keys(test, b, 1 << 30, 1000);
	mf_bounds_expect_sections(test, b);
	KUNIT_EXPECT_EQ(test, b->max_keys, MF_DOC_LOCK_KEYS);
	KUNIT_EXPECT_EQ(test, b->sections, DIV_ROUND_UP(1000, MF_DOC_LOCK_KEYS));
	KUNIT_EXPECT_EQ(test, b->calls, b->sections);
	mf_bounds_put(b);
}

/*
 * While a dump is copying the table, a section holds 4 keys, and its
 * writer copies out at most 11 steps a key first (44 a section). The
 * filter is 85% full (of its slots), so that paths are long, and its
 * table is 16 steps.
 */
static void mf_bound_writer_sections_during_dump(struct kunit *test)
{
	struct mf_bounds *b = mf_bounds_filter(test, 249000, 90);
	u64 steps = b->real->steps(&b->f->s);
	struct memfilter_table_copy t = { 0 };
	struct memfilter_image_desc d;

	t.dst = kvzalloc(b->real->payload_bytes(b->real->params_of(&b->f->s)),
			 GFP_KERNEL);
	t.copied = kcalloc(DIV_ROUND_UP(steps, 64), sizeof(u64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t.dst);
	KUNIT_ASSERT_NOT_NULL(test, t.copied);
	mutex_lock(&b->f->dump_lock);
	memfilter_writer_lock(b->f);
	b->real->copy_begin(&b->f->s, &t, &d);
	memfilter_writer_unlock(b->f);
	b->copy = &t;
	mf_bounds_add_keys(test, b, 1 << 30, 900);
	memfilter_writer_lock(b->f);
	b->real->copy_end(&b->f->s);
	memfilter_writer_unlock(b->f);
	mutex_unlock(&b->f->dump_lock);
	b->copy = NULL;

	mf_bounds_expect_sections(test, b);
	KUNIT_EXPECT_EQ(test, b->max_keys, MF_DOC_LOCK_KEYS_DUMP);
	KUNIT_EXPECT_EQ(test, b->sections, 900 / MF_DOC_LOCK_KEYS_DUMP);
	KUNIT_EXPECT_LE(test, b->max_copied,
			(u64)MF_DOC_LOCK_KEYS_DUMP * MF_DOC_COPIES_PER_KEY);
	kunit_info(test, "%llu steps of %llu copied out by writers, at most %llu in one section",
		   (u64)bitmap_weight((unsigned long *)t.copied, steps), steps,
		   b->max_copied);
	kvfree(t.dst);
	kfree(t.copied);
	mf_bounds_put(b);
}

/*
 * CLEAR and dumps: one 16 KiB step per locked section, as many steps as
 * the table has 16 KiB pieces.
 */
static void mf_bound_clear_and_dump_steps(struct kunit *test)
{
	struct mf_bounds *b = mf_bounds_filter(test, 200000, 50);
	u64 bytes = b->real->payload_bytes(b->real->params_of(&b->f->s));
	u64 steps = b->real->steps(&b->f->s);
	size_t len;
	void *img;

	KUNIT_EXPECT_EQ(test, steps, DIV_ROUND_UP(bytes, MF_DOC_STEP_BYTES));
	KUNIT_EXPECT_GT(test, steps, 8ULL);

	img = memfilter_filter_image(b->f, &len);
	KUNIT_ASSERT_FALSE(test, IS_ERR(img));
	memfilter_filter_image_free(img, len);
	mf_bounds_expect_sections(test, b);
	KUNIT_EXPECT_EQ(test, b->steps_done, steps);
	KUNIT_EXPECT_EQ(test, b->sections, steps);

	b->steps_done = 0;
	b->sections = 0;
	b->calls = 0;
	memfilter_filter_clear(b->f);
	mf_bounds_expect_sections(test, b);
	KUNIT_EXPECT_EQ(test, b->steps_done, steps);
	KUNIT_EXPECT_EQ(test, b->sections, steps);
	mf_bounds_put(b);
}

/*
 * The other stated figures are constants of the code; they are checked
 * where they take effect elsewhere (memfilter_hardening: a stuck reader
 * gives up after MEMFILTER_CUCKOO_READ_TRIES), here against the guide.
 */
static void mf_bound_constants(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, MEMFILTER_CUCKOO_READ_TRIES, MF_DOC_READ_TRIES);
	KUNIT_EXPECT_EQ(test, MEMFILTER_CUCKOO_DUMP_CHUNK, MF_DOC_STEP_BYTES);
	KUNIT_EXPECT_EQ(test, MEMFILTER_CUCKOO_DEFAULT_KICKS + 2,
			MF_DOC_BUCKET_READS);
	KUNIT_EXPECT_EQ(test,
			MEMFILTER_WINDOW_CLEAR_CHUNK * MEMFILTER_BLOOM_BLOCK_BYTES,
			MF_DOC_WINDOW_CLEAR);
	KUNIT_EXPECT_EQ(test, MEMFILTER_SIMD_CHUNK, MF_DOC_SIMD_KEYS);
	/* A Bloom batch: bottom halves off per MEMFILTER_SIMD_CHUNK keys. */
	KUNIT_EXPECT_EQ(test, MEMFILTER_BLOOM_STRIPES, MF_DOC_BLOOM_STRIPES);
	KUNIT_EXPECT_EQ(test, MEMFILTER_BLOOM_LOCK_KEYS, MF_DOC_BLOOM_LOCK_KEYS);
	KUNIT_EXPECT_LE(test, MEMFILTER_BLOOM_LOCK_KEYS * MEMFILTER_BLOOM_BLOCK_WORDS,
			512);
}

static struct kunit_case memfilter_bounds_cases[] = {
	KUNIT_CASE(mf_bound_writer_sections),
	KUNIT_CASE_SLOW(mf_bound_writer_sections_during_dump),
	KUNIT_CASE(mf_bound_clear_and_dump_steps),
	KUNIT_CASE(mf_bound_constants),
	{}
};

static struct kunit_suite memfilter_bounds_suite = {
	.name = "memfilter_bounds",
	.test_cases = memfilter_bounds_cases,
};

kunit_test_suite(memfilter_bounds_suite);
