// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite memfilter_prefix: address prefixes in the kernel. The key of
 * a prefix and the lookup's own keys (its IPv4 walk builds them in one
 * store) agree for every length; the walk probes longest first and stops
 * at the first hit; lookups from kthreads race a writer that adds
 * prefixes of new lengths, and none of a prefix whose add returned is
 * missed (the lengths recorded before the keys, read locklessly: KCSAN
 * watches in its kernel); a dump carries the lengths, and CLEAR keeps
 * them.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/random.h>
#include <linux/unaligned.h>

#include "filter/filter.h"
#include "helpers.h"
#include "image.h"
#include "prefix.h"

struct mf_pfx_case {
	u8 family;
	u8 length;
	u8 addr[16];
	u8 key[MEMFILTER_PREFIX_KEY_MAX];
};

static const struct mf_pfx_case mf_pfx_cases[] = {
	{ MEMFILTER_PREFIX_IPV4, 0, { 192, 0, 2, 129 }, { 0, 0, 0, 0, 0 } },
	{ MEMFILTER_PREFIX_IPV4, 8, { 10, 1, 2, 3 }, { 8, 10, 0, 0, 0 } },
	{ MEMFILTER_PREFIX_IPV4, 25, { 192, 0, 2, 129 }, { 25, 192, 0, 2, 128 } },
	{ MEMFILTER_PREFIX_IPV4, 32, { 192, 0, 2, 129 }, { 32, 192, 0, 2, 129 } },
	{ MEMFILTER_PREFIX_IPV6, 36,
	  { 0x20, 0x01, 0x0d, 0xb8, 0xab, 0xcd },
	  { 36, 0x20, 0x01, 0x0d, 0xb8, 0xa0 } },
	{ MEMFILTER_PREFIX_IPV6, 128,
	  { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 },
	  { 128, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 } },
};

static void mf_pfx_case_desc(const struct mf_pfx_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "IPv%u /%u", c->family, c->length);
}

KUNIT_ARRAY_PARAM(mf_pfx, mf_pfx_cases, mf_pfx_case_desc);

static void mf_prefix_key_bytes(struct kunit *test)
{
	const struct mf_pfx_case *c = test->param_value;
	u32 alen = memfilter_prefix_addr_len(c->family);
	u8 key[MEMFILTER_PREFIX_KEY_MAX];

	KUNIT_ASSERT_EQ(test, memfilter_prefix_key(key, c->addr, alen, c->length),
			alen + 1);
	KUNIT_EXPECT_MEMEQ(test, key, c->key, alen + 1);
}

/* A type that records the keys it is asked for and says present to one. */
static struct {
	u8 key[33][MEMFILTER_PREFIX_KEY_MAX];
	u32 len[33];
	u32 n;
	u8 present[MEMFILTER_PREFIX_KEY_MAX];
	u32 present_len;
} mf_rec;

static bool mf_rec_contains_key(const union memfilter_state *s,
				const void *key, size_t len)
{
	if (mf_rec.n < ARRAY_SIZE(mf_rec.key)) {
		memcpy(mf_rec.key[mf_rec.n], key, len);
		mf_rec.len[mf_rec.n] = len;
	}
	mf_rec.n++;
	return len == mf_rec.present_len && !memcmp(key, mf_rec.present, len);
}

static const struct memfilter_type_ops mf_rec_ops = {
	.type = 99,
	.contains_key = mf_rec_contains_key,
};

/*
 * For 32 IPv4 lengths at once (0..31, then 1..32) and random addresses,
 * the walk probes memfilter_prefix_key()'s key of each, longest first,
 * and stops at the one present.
 */
static void mf_prefix_walk_keys(struct kunit *test)
{
	union memfilter_state *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct memfilter_prefixes px;
	u64 set[MEMFILTER_PREFIX_WORDS] = {};
	u8 addr[4], key[MEMFILTER_PREFIX_KEY_MAX];
	u32 round, i, first;
	bool hit;

	KUNIT_ASSERT_NOT_NULL(test, s);
	for (round = 0; round < 64; round++) {
		first = round & 1;	/* lengths first .. first + 31 */
		set[0] = 0xffffffffULL << first;
		KUNIT_ASSERT_EQ(test, memfilter_prefixes_init(&px, 32, set), 0);
		get_random_bytes(addr, sizeof(addr));
		mf_rec.n = 0;
		mf_rec.present_len = 0;
		hit = memfilter_prefix_contains(&mf_rec_ops, s, &px, addr, 4);
		KUNIT_EXPECT_FALSE(test, hit);
		KUNIT_ASSERT_EQ(test, mf_rec.n, 32U);
		for (i = 0; i < 32; i++) {
			memfilter_prefix_key(key, addr, 4, first + 31 - i);
			KUNIT_EXPECT_EQ(test, mf_rec.len[i], 5U);
			KUNIT_EXPECT_MEMEQ(test, mf_rec.key[i], key, 5);
		}
		/* Present at length first + 10: 22 probes, then a hit. */
		mf_rec.present_len = memfilter_prefix_key(mf_rec.present, addr,
							  4, first + 10);
		mf_rec.n = 0;
		hit = memfilter_prefix_contains(&mf_rec_ops, s, &px, addr, 4);
		KUNIT_EXPECT_TRUE(test, hit);
		KUNIT_EXPECT_EQ(test, mf_rec.n, 22U);
	}
}

static struct memfilter *mf_pfx_filter(struct kunit *test, u32 lengths)
{
	struct memfilter_create c = {
		.type = MEMFILTER_TYPE_BLOOM, .capacity = 4096,
		.fpr_ppb = 10000000, .prefix_lengths = lengths,
		.flags = MEMFILTER_CREATE_SEED, .seed = 44,
	};
	struct memfilter *f = memfilter_filter_create(&c);

	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	return f;
}

/* Record @p's length in @f and add it, as ADD_PREFIXES does. */
static int mf_pfx_add(struct memfilter *f, const struct memfilter_prefix *p)
{
	u64 want[MEMFILTER_PREFIX_WORDS] = {}, h;
	unsigned long res = 0;
	u32 done;
	int ret;

	memfilter_prefix_mark(want, p);
	ret = memfilter_filter_add_lengths(f, want);
	if (!ret)
		ret = memfilter_filter_prefix_hashes(f, p, 1, &h);
	if (!ret)
		ret = memfilter_filter_add_sleepable(f, &h, 1, &res, &done);
	return ret;
}

#define MF_RACE_PREFIXES 256

struct mf_pfx_race {
	struct memfilter *f;
	struct memfilter_prefix p[MF_RACE_PREFIXES];
	u32 added;		/* prefixes whose add returned */
	atomic_t misses;
	atomic_t lookups;
	atomic_t writer_done;
	int writer_ret;
	struct completion done[2];	/* the writer's, the readers' */
};

/* The writer: prefixes of lengths 1, 2, ... 32, 1, ..., each new at first. */
static int mf_pfx_writer(void *data)
{
	struct mf_pfx_race *r = data;
	u32 i;

	for (i = 0; i < MF_RACE_PREFIXES; i++) {
		r->writer_ret = mf_pfx_add(r->f, &r->p[i]);
		if (r->writer_ret)
			break;
		/* Readers take prefix i only once its add returned. */
		smp_store_release(&r->added, i + 1);
		if (!(i & 15))
			cond_resched();
	}
	atomic_set(&r->writer_done, 1);
	complete(&r->done[0]);
	return 0;
}

/* A reader: an address inside a prefix whose add returned is a hit. */
static int mf_pfx_reader(void *data)
{
	struct mf_pfx_race *r = data;
	u8 addr[4];
	u32 n, j, m;

	while (!atomic_read(&r->writer_done)) {
		/* Pairs with the writer's store: prefixes 0 .. n - 1 are in. */
		n = smp_load_acquire(&r->added);
		if (!n) {
			cpu_relax();
			continue;
		}
		j = get_random_u32_below(n);
		m = r->p[j].length ? ~0U << (32 - r->p[j].length) : 0;
		put_unaligned_be32((get_random_u32() & ~m) |
				   get_unaligned_be32(r->p[j].addr), addr);
		if (!memfilter_contains_addr(r->f, addr, 4))
			atomic_inc(&r->misses);
		atomic_inc(&r->lookups);
		if (!(j & 63))
			cond_resched();
	}
	complete(&r->done[1]);
	return 0;
}

static void mf_prefix_readers_race_adds(struct kunit *test)
{
	struct mf_pfx_race *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct task_struct *t[3];
	int i;
	u32 m;

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->f = mf_pfx_filter(test, 32);
	for (i = 0; i < MF_RACE_PREFIXES; i++) {
		r->p[i].family = MEMFILTER_PREFIX_IPV4;
		r->p[i].length = 1 + i % 32;
		m = ~0U << (32 - r->p[i].length);
		put_unaligned_be32(get_random_u32() & m, r->p[i].addr);
	}
	for (i = 0; i < 2; i++)
		init_completion(&r->done[i]);
	t[0] = kthread_create(mf_pfx_writer, r, "mf-prefix-w");
	t[1] = kthread_create(mf_pfx_reader, r, "mf-prefix-r1");
	t[2] = kthread_create(mf_pfx_reader, r, "mf-prefix-r2");
	if (memfilter_kunit_start_threads(test, t, 3)) {
		memfilter_put(r->f);
		return;
	}
	wait_for_completion(&r->done[0]);
	wait_for_completion(&r->done[1]);
	wait_for_completion(&r->done[1]);
	kunit_info(test, "%d lookups during %d adds of 32 new lengths",
		   atomic_read(&r->lookups), MF_RACE_PREFIXES);
	KUNIT_EXPECT_EQ(test, r->writer_ret, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->misses), 0);
	KUNIT_EXPECT_EQ(test, memfilter_prefixes_count(r->f->px.lengths, 4), 32U);
	memfilter_put(r->f);
}

/* A dump carries the lengths; CLEAR keeps them; a 33rd length is refused. */
static void mf_prefix_dump_and_clear(struct kunit *test)
{
	struct memfilter *f = mf_pfx_filter(test, 2);
	struct memfilter_prefix p = { .family = MEMFILTER_PREFIX_IPV6,
				      .length = 48, .addr = { 0x20, 0x01, 0x0d, 0xb8 } };
	const u8 *payload;
	struct memfilter_image_desc d;
	size_t len;
	void *img;

	KUNIT_ASSERT_EQ(test, mf_pfx_add(f, &p), 0);
	p.length = 32;
	KUNIT_ASSERT_EQ(test, mf_pfx_add(f, &p), 0);
	p.length = 64;
	KUNIT_EXPECT_EQ(test, mf_pfx_add(f, &p), -ENOSPC);
	img = memfilter_filter_image(f, &len);
	KUNIT_ASSERT_FALSE(test, IS_ERR(img));
	KUNIT_ASSERT_EQ(test, memfilter_image_parse(img, len, &d), 0);
	KUNIT_EXPECT_TRUE(test, d.prefixes);
	payload = (const u8 *)img + MEMFILTER_IMAGE_HDR_SIZE;
	KUNIT_EXPECT_EQ(test, memfilter_image_check_payload(&d, payload), 0);
	KUNIT_ASSERT_EQ(test, memfilter_image_get_prefixes(&d, payload +
						memfilter_image_table_bytes(&d)), 0);
	KUNIT_EXPECT_EQ(test, d.px.max, 2U);
	KUNIT_EXPECT_EQ(test, d.px.lengths[1], BIT_ULL(32) | BIT_ULL(48));
	memfilter_filter_image_free(img, len);
	memfilter_filter_clear(f);
	KUNIT_EXPECT_EQ(test, memfilter_prefixes_count(f->px.lengths, 16), 2U);
	memfilter_put(f);
}

static struct kunit_case memfilter_prefix_cases[] = {
	KUNIT_CASE_PARAM(mf_prefix_key_bytes, mf_pfx_gen_params),
	KUNIT_CASE(mf_prefix_walk_keys),
	KUNIT_CASE(mf_prefix_readers_race_adds),
	KUNIT_CASE(mf_prefix_dump_and_clear),
	{}
};

static struct kunit_suite memfilter_prefix_suite = {
	.name = "memfilter_prefix",
	.test_cases = memfilter_prefix_cases,
};

kunit_test_suite(memfilter_prefix_suite);
