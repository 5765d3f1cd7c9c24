// SPDX-License-Identifier: GPL-2.0
/*
 * Native tests of the types' single-key operations (struct
 * memfilter_type_ops' contains_key and test_and_add_key, what
 * memfilter_contains() and memfilter_test_and_add() call in the module):
 * for every type, hash (XXH64, XXH3, SipHash) and key size (4, 8, 16 bytes
 * and odd ones), the single-key answers are exactly the batch calls'
 * (contains on the keys' hashes; test_and_add on the same keys in order),
 * the tables end bit for bit the same, and so do the key counts, across
 * window rotations (by hand and by count) and a growing filter's
 * attachments up to its limit. Nothing is timed.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <stdio.h>
#include <stdlib.h>

#include "filter_type.h"
#include "kselftest_harness.h"
#include "native_utils.h"

/* Keys per round of a run; the rounds between rotations or attachments. */
#define MF_SK_KEYS	600
#define MF_SK_ROUNDS	8

/* A filter on its own table memory, and every part attached to it. */
struct mf_sk_filter {
	const struct memfilter_type_ops *ops;
	union memfilter_state s;
	void *mem;
	u64 bytes;
	void *parts[MEMFILTER_MAX_PARTS];
	u64 part_bytes[MEMFILTER_MAX_PARTS];
	u32 nparts;
};

/* Two filters of one shape and hasher: @c's, under hash @algo. */
static int mf_sk_make(struct memfilter_create *c, u32 algo,
		      struct mf_sk_filter *f, u32 nf)
{
	static const u64 sip[2] = { 0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL };
	const struct memfilter_type_ops *ops;
	union memfilter_params p;
	u64 bytes;
	u32 i;

	if (memfilter_create_params(c, &ops, &p))
		return -1;
	memfilter_hasher_init(ops->hasher(&p), algo, 77, sip);
	bytes = ops->mem_bytes(&p);
	for (i = 0; i < nf; i++) {
		memset(&f[i], 0, sizeof(f[i]));
		f[i].ops = ops;
		f[i].bytes = bytes;
		f[i].mem = aligned_alloc(64, bytes);
		memset(f[i].mem, 0, bytes);
		ops->init(&f[i].s, &p, f[i].mem);
	}
	return 0;
}

static void mf_sk_free(struct mf_sk_filter *f)
{
	u32 i;

	for (i = 0; i < f->nparts; i++)
		free(f->parts[i]);
	free(f->mem);
}

/*
 * Make room as an owner would after -ENOSPC: a window that rotates by
 * count rotates; a growing filter gets its next sub-filter, if it can
 * have one. Return: whether there is room now.
 */
static bool mf_sk_room(struct mf_sk_filter *f, u64 now)
{
	u64 bytes;

	if (f->ops->type == MEMFILTER_TYPE_WINDOW) {
		memfilter_window_rotate_exclusive(&f->s.window, now);
		return true;
	}
	if (!f->ops->next_bytes || !(bytes = f->ops->next_bytes(&f->s)))
		return false;
	f->part_bytes[f->nparts] = bytes;
	f->parts[f->nparts] = aligned_alloc(64, bytes);
	memset(f->parts[f->nparts], 0, bytes);
	f->ops->attach(&f->s, f->parts[f->nparts++]);
	return true;
}

/* Key i of a run: @len bytes, a quarter of them repeats of earlier keys. */
static void mf_sk_key(u8 *key, u32 len, u64 *rng, u8 (*seen)[40], u32 i)
{
	u64 r = mf_test_rand(rng);

	if (i > 8 && r % 4 == 0) {
		memcpy(key, seen[(r >> 8) % i], len);
		return;
	}
	for (u32 j = 0; j < len; j++)
		key[j] = mf_test_rand(rng);
}

/* Bit @i of a result bitmap. */
static bool mf_sk_bit(const unsigned long *bm, u32 i)
{
	return (bm[i / BITS_PER_LONG] >> (i % BITS_PER_LONG)) & 1;
}

/*
 * One key's test-and-add in round @r: through
 * memfilter_state_test_and_add_key() (what the module calls, which calls
 * some types directly) in even rounds, the type's op in odd ones.
 */
static int mf_sk_test_and_add(const struct memfilter_type_ops *ops,
			      union memfilter_state *s, const void *key,
			      u32 len, u32 r)
{
	if (r % 2)
		return ops->test_and_add_key(s, key, len);
	return memfilter_state_test_and_add_key(ops, s, key, len);
}

/*
 * One run: @f[0] takes keys one at a time (test_and_add_key, then
 * contains_key of fresh keys), @f[1] the same keys as batches
 * (test_and_add of a round, contains of the fresh keys' hashes); between
 * rounds both rotate (windows) or both make room when a round stopped
 * with -ENOSPC. Every answer, error and stop point must match.
 */
static void mf_sk_run(struct __test_metadata *_metadata,
		      struct mf_sk_filter *f, u32 len, bool rotate,
		      u64 seed, u32 *full_seen)
{
	static u8 keys[MF_SK_KEYS * MF_SK_ROUNDS][40];
	const struct memfilter_type_ops *ops = f[0].ops;
	unsigned long bm[DIV_ROUND_UP(MF_SK_KEYS, BITS_PER_LONG)];
	u64 h[MF_SK_KEYS], rng = seed, now = 0;
	u32 r, i, done, at;
	int ret, one;

	for (r = 0; r < MF_SK_ROUNDS; r++) {
		u8 (*k)[40] = keys + r * MF_SK_KEYS;

		for (i = 0; i < MF_SK_KEYS; i++) {
			mf_sk_key(k[i], len, &rng, keys, r * MF_SK_KEYS + i);
			h[i] = memfilter_key_hash(ops, &f[1].s, k[i], len);
		}
		/* Types without test-and-add (cuckoo): both add, as a batch. */
		if (!ops->test_and_add_key) {
			u32 done1;

			memset(bm, 0, sizeof(bm));
			ret = ops->add(&f[0].s, h, MF_SK_KEYS, bm, &done);
			ASSERT_EQ(ret, ops->add(&f[1].s, h, MF_SK_KEYS, bm,
						&done1));
			ASSERT_EQ(done, done1);
		}
		/* test-and-add: one at a time, and as batches. */
		for (at = 0; ops->test_and_add_key && at < MF_SK_KEYS;
		     at += done) {
			memset(bm, 0, sizeof(bm));
			ret = ops->test_and_add(&f[1].s, h + at,
						MF_SK_KEYS - at, bm, &done);
			for (i = 0; i < done; i++) {
				one = mf_sk_test_and_add(ops, &f[0].s,
							 k[at + i], len, r);
				ASSERT_EQ(mf_sk_bit(bm, i), one)
					TH_LOG("type %u len %u round %u key %u",
					       ops->type, len, r, at + i);
			}
			if (!ret)
				break;
			ASSERT_EQ(-ENOSPC, ret);
			/* The single key stops where the batch stopped. */
			ASSERT_EQ(-ENOSPC, mf_sk_test_and_add(ops, &f[0].s,
							      k[at + done], len, r));
			(*full_seen)++;
			if (!mf_sk_room(&f[0], now) || !mf_sk_room(&f[1], now))
				break;
		}
		/* Queries: half fresh keys, half the round's own. */
		for (i = 0; i < MF_SK_KEYS; i++) {
			if (i % 2)
				mf_sk_key(k[i], len, &rng, keys, 0);
			h[i] = memfilter_key_hash(ops, &f[1].s, k[i], len);
		}
		memset(bm, 0, sizeof(bm));
		ops->contains(&f[1].s, h, MF_SK_KEYS, bm);
		for (i = 0; i < MF_SK_KEYS; i++) {
			ASSERT_EQ(mf_sk_bit(bm, i),
				  memfilter_state_contains_key(ops, &f[0].s,
							       k[i], len))
				TH_LOG("type %u len %u round %u query %u",
				       ops->type, len, r, i);
			ASSERT_EQ(mf_sk_bit(bm, i),
				  memfilter_state_contains_key(ops, &f[1].s,
							       k[i], len));
			/* The op itself, which the wrapper may bypass. */
			ASSERT_EQ(mf_sk_bit(bm, i),
				  ops->contains_key(&f[0].s, k[i], len));
		}
		if (rotate && ops->type == MEMFILTER_TYPE_WINDOW) {
			now += 1000;
			memfilter_window_rotate_exclusive(&f[0].s.window, now);
			memfilter_window_rotate_exclusive(&f[1].s.window, now);
		}
	}
	/* The same bits in the same places, the same counts. */
	ASSERT_EQ(0, memcmp(f[0].mem, f[1].mem, f[0].bytes));
	ASSERT_EQ(f[0].nparts, f[1].nparts);
	for (i = 0; i < f[0].nparts; i++)
		ASSERT_EQ(0, memcmp(f[0].parts[i], f[1].parts[i],
				    f[0].part_bytes[i]));
	if (ops->type == MEMFILTER_TYPE_WINDOW)
		ASSERT_EQ(0, memcmp(f[0].s.window.gen_keys, f[1].s.window.gen_keys,
				    sizeof(f[0].s.window.gen_keys)));
	if (ops->type == MEMFILTER_TYPE_GROW) {
		ASSERT_EQ(f[0].s.grow.active, f[1].s.grow.active);
		ASSERT_EQ(0, memcmp(f[0].s.grow.keys, f[1].s.grow.keys,
				    sizeof(f[0].s.grow.keys)));
	}
}

/* Every type has contains_key, and test_and_add_key if test_and_add. */
TEST(every_type_has_single_key_ops)
{
	static const u32 types[] = { MEMFILTER_TYPE_BLOOM, MEMFILTER_TYPE_CUCKOO,
				     MEMFILTER_TYPE_WINDOW, MEMFILTER_TYPE_GROW };

	for (u32 t = 0; t < ARRAY_SIZE(types); t++) {
		const struct memfilter_type_ops *ops = memfilter_type_ops(types[t]);

		ASSERT_NE(NULL, ops);
		EXPECT_NE(NULL, ops->contains_key) TH_LOG("type %u", types[t]);
		EXPECT_EQ(!!ops->test_and_add, !!ops->test_and_add_key)
			TH_LOG("type %u", types[t]);
	}
}

/*
 * memfilter_state_hasher() finds the common types' hasher directly: the
 * very one their ops give, for every type.
 */
TEST(state_hasher_is_the_types)
{
	static const struct memfilter_create shapes[] = {
		{ .type = MEMFILTER_TYPE_BLOOM, .capacity = 100, .bits_per_key_q4 = 40 },
		{ .type = MEMFILTER_TYPE_CUCKOO, .capacity = 100, .fingerprint_bits = 12 },
		{ .type = MEMFILTER_TYPE_WINDOW, .capacity = 100, .bits_per_key_q4 = 40,
		  .generations = 3, .period_ms = 1000 },
		{ .type = MEMFILTER_TYPE_GROW, .capacity = 100, .fpr_ppb = 10000000,
		  .grow_max = 4 },
	};

	for (u32 t = 0; t < ARRAY_SIZE(shapes); t++) {
		struct memfilter_create c = shapes[t];
		const struct memfilter_hasher *h;
		struct mf_sk_filter f;

		c.size = sizeof(c);
		ASSERT_EQ(0, mf_sk_make(&c, MEMFILTER_HASH_XXH3, &f, 1));
		h = f.ops->hasher((union memfilter_params *)f.ops->params_of(&f.s));
		EXPECT_EQ(h, memfilter_state_hasher(f.ops, &f.s)) TH_LOG("type %u", c.type);
		EXPECT_EQ(MEMFILTER_HASH_XXH3, memfilter_state_hasher(f.ops, &f.s)->algo);
		EXPECT_EQ(77, memfilter_state_hasher(f.ops, &f.s)->seed);
		mf_sk_free(&f);
	}
}

/* The shapes: each type small enough to fill, with room to spare or not. */
static const struct memfilter_create mf_sk_shapes[] = {
	{ .type = MEMFILTER_TYPE_BLOOM, .capacity = 3000, .bits_per_key_q4 = 40 },
	/* 6 and 16 bits/key, k = 4 and 8 (the window of every word): the
	 * single-key paths' window tables against the batch paths' windows.
	 */
	{ .type = MEMFILTER_TYPE_BLOOM, .capacity = 2000, .bits_per_key_q4 = 24 },
	{ .type = MEMFILTER_TYPE_BLOOM, .capacity = 1000, .bits_per_key_q4 = 64 },
	/* Cuckoo: a power-of-two table and an any-size one. */
	{ .type = MEMFILTER_TYPE_CUCKOO, .capacity = 4096, .fingerprint_bits = 12 },
	{ .type = MEMFILTER_TYPE_CUCKOO, .capacity = 5000, .fingerprint_bits = 8 },
	{ .type = MEMFILTER_TYPE_CUCKOO, .capacity = 3001, .fingerprint_bits = 16 },
	/* Windows rotated by hand between rounds, G = 2, 4, 5, 4, 3. */
	{ .type = MEMFILTER_TYPE_WINDOW, .capacity = 700, .bits_per_key_q4 = 40,
	  .generations = 2 },
	{ .type = MEMFILTER_TYPE_WINDOW, .capacity = 700, .bits_per_key_q4 = 40,
	  .generations = 4 },
	{ .type = MEMFILTER_TYPE_WINDOW, .capacity = 500, .bits_per_key_q4 = 32,
	  .generations = 5 },
	{ .type = MEMFILTER_TYPE_WINDOW, .capacity = 400, .bits_per_key_q4 = 24,
	  .generations = 4 },
	{ .type = MEMFILTER_TYPE_WINDOW, .capacity = 300, .bits_per_key_q4 = 64,
	  .generations = 3 },
	/* A window that rotates by count, mid-round. */
	{ .type = MEMFILTER_TYPE_WINDOW, .capacity = 250, .bits_per_key_q4 = 40,
	  .generations = 3, .window_flags = MEMFILTER_WINDOW_ROTATE_BY_COUNT },
	/* Growing: attachments mid-round, then its limit of 5 sub-filters. */
	{ .type = MEMFILTER_TYPE_GROW, .capacity = 100, .fpr_ppb = 10000000,
	  .grow_max = 5 },
	{ .type = MEMFILTER_TYPE_GROW, .capacity = 60, .fpr_ppb = 1000000,
	  .grow_max = 16, .grow_factor = 3, .grow_ratio_pct = 60 },
};

/*
 * Single-key == batch for every shape, hash and key size; the window and
 * growing shapes also stop for room (by count, attachments) and the
 * first growing one reaches its limit.
 */
TEST(single_key_is_batch_of_one)
{
	static const u32 algos[] = { MEMFILTER_HASH_XXH64, MEMFILTER_HASH_XXH3,
				     MEMFILTER_HASH_SIPHASH24 };
	static const u32 lens[] = { 4, 8, 16, 1, 13, 40 };
	u32 full_seen[ARRAY_SIZE(mf_sk_shapes)] = { 0 };

	for (u32 s = 0; s < ARRAY_SIZE(mf_sk_shapes); s++) {
		for (u32 a = 0; a < ARRAY_SIZE(algos); a++) {
			for (u32 l = 0; l < ARRAY_SIZE(lens); l++) {
				struct memfilter_create c = mf_sk_shapes[s];
				struct mf_sk_filter f[2];

				c.size = sizeof(c);
				if (c.type == MEMFILTER_TYPE_WINDOW)
					c.period_ms = 1000;
				ASSERT_EQ(0, mf_sk_make(&c, algos[a], f, 2))
					TH_LOG("shape %u", s);
				mf_sk_run(_metadata, f, lens[l],
					  !(c.window_flags &
					    MEMFILTER_WINDOW_ROTATE_BY_COUNT),
					  s * 100 + a * 10 + l, &full_seen[s]);
				mf_sk_free(&f[0]);
				mf_sk_free(&f[1]);
			}
		}
	}
	/* The shapes that must have stopped for room did, every run. */
	for (u32 s = 0; s < ARRAY_SIZE(mf_sk_shapes); s++) {
		bool fills = mf_sk_shapes[s].type == MEMFILTER_TYPE_GROW ||
			     mf_sk_shapes[s].window_flags;

		if (fills) {
			EXPECT_GE(full_seen[s], 3 * 6 * 3) TH_LOG("shape %u", s);
		} else {
			EXPECT_EQ(0, full_seen[s]) TH_LOG("shape %u", s);
		}
	}
}

/*
 * The shapes reach the single-key AVX2 paths' edge rows: k = 8 (every word
 * of the block, the table's last row) and a k inside 2..7, for Bloom and
 * window filters alike.
 */
TEST(single_key_shapes_reach_k)
{
	u32 seen[2] = { 0 };

	for (u32 s = 0; s < ARRAY_SIZE(mf_sk_shapes); s++) {
		struct memfilter_create c = mf_sk_shapes[s];
		const struct memfilter_type_ops *ops;
		union memfilter_params p;

		c.size = sizeof(c);
		if (c.type == MEMFILTER_TYPE_WINDOW)
			c.period_ms = 1000;
		ASSERT_EQ(0, memfilter_create_params(&c, &ops, &p));
		if (c.type == MEMFILTER_TYPE_BLOOM)
			seen[0] |= 1U << p.bloom.k;
		else if (c.type == MEMFILTER_TYPE_WINDOW)
			seen[1] |= 1U << p.window.gen.k;
	}
	for (u32 t = 0; t < 2; t++) {
		EXPECT_TRUE(seen[t] & 1U << MEMFILTER_BLOOM_MAX_K)
			TH_LOG("type %u: %#x", t, seen[t]);
		EXPECT_TRUE(seen[t] & 0x7c)
			TH_LOG("type %u: %#x", t, seen[t]);
	}
}

TEST_HARNESS_MAIN
