// SPDX-License-Identifier: GPL-2.0
/*
 * Native tests of memfilter's window filter (core/window.c) and of the
 * Bloom filter's test-and-add, built in userspace with ASan and UBSan from
 * the sources the module uses: retention across thousands of explicit
 * rotations for every G, keys gone after G rotations, the FPR model
 * against a million keys at full and half-rotated windows, test-and-add
 * semantics (single and batch, duplicates inside a batch), the AVX2 path
 * bit for bit equal to the scalar one, chunked clears, images, sizing
 * limits, and the rotation protocol under threads (rotator, inserters and
 * a querier, with a minimal userspace grace period standing in for RCU).
 * Nothing is timed.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "image.h"
#include "window.h"
#include "kselftest_harness.h"
#include "native_utils.h"

#define NKEYS		(1u << 20)
#define NABSENT		(4u << 20)

/*
 * A zeroed window filter of mf_test_layout: @capacity keys per generation
 * at @q4 / 4 bits.
 */
static struct memfilter_window *mf_test_window(u64 capacity, u32 gens, u32 q4)
{
	struct memfilter_window_params p;
	struct memfilter_window *w;
	u64 *words;

	if (memfilter_window_params_init(&p, capacity, gens, 0, q4, mf_test_layout))
		return NULL;
	memfilter_hasher_init(&p.gen.hasher, MEMFILTER_HASH_XXH64, 11, NULL);
	words = aligned_alloc(64, memfilter_window_bytes(&p));
	memset(words, 0, memfilter_window_bytes(&p));
	w = calloc(1, sizeof(*w));
	memfilter_window_init(w, &p, words, 0);
	return w;
}

static void mf_test_window_free(struct memfilter_window *w)
{
	free(w->words);
	free(w);
}

static bool mf_test_bit(const unsigned long *bm, size_t i)
{
	return (bm[i / BITS_PER_LONG] >> (i % BITS_PER_LONG)) & 1;
}

static u64 mf_test_popcount(const unsigned long *bm, size_t n)
{
	u64 sum = 0;

	for (size_t i = 0; i < DIV_ROUND_UP(n, BITS_PER_LONG); i++)
		sum += hweight64(bm[i]);
	return sum;
}

static u64 mf_test_hashes_one(const struct memfilter_window *w, u64 id)
{
	u64 key = htole64(id);

	return memfilter_hash(&w->p.gen.hasher, &key, 8);
}

static u64 *mf_test_hashes(const struct memfilter_window *w, size_t n, u64 base)
{
	u64 *h = malloc(n * sizeof(*h));

	for (size_t i = 0; i < n; i++)
		h[i] = mf_test_hashes_one(w, base + i);
	return h;
}

/*
 * Retention with explicit rotations: period r adds PER keys (key ids
 * r * PER ..), then every key of periods r - G + 1 .. r must be present
 * (the guarantee: G - 1 whole periods after its own), and the keys of
 * period r - G, cleared by rotation r, must be gone up to false positives.
 */
static void mf_test_retention(struct __test_metadata *_metadata, u32 gens,
			      u32 rotations)
{
	const u32 per = 200;
	struct memfilter_window *w = mf_test_window(per, gens, 64);
	unsigned long bm[DIV_ROUND_UP(200, BITS_PER_LONG)];
	u64 stale = 0, checked = 0;

	ASSERT_NE(NULL, w);
	for (u32 r = 0; r < rotations; r++) {
		u64 *h;

		if (r)
			memfilter_window_rotate_exclusive(w, r);
		ASSERT_EQ(r % gens, memfilter_window_current(w));
		ASSERT_EQ(r, w->born[r % gens]);
		h = mf_test_hashes(w, per, (u64)r * per);
		if (r % 2)
			memfilter_window_add_hashes(w, h, per);
		else
			for (u32 i = 0; i < per; i++) {
				u64 key = htole64((u64)r * per + i);

				memfilter_window_add_key(w, &key, 8);
			}
		free(h);
		for (u32 age = 0; age < gens && age <= r; age++) {
			h = mf_test_hashes(w, per, (u64)(r - age) * per);
			memfilter_window_contains_hashes(w, h, per, bm);
			ASSERT_EQ(per, mf_test_popcount(bm, per))
				TH_LOG("G=%u rotation %u: a key of age %u lost",
				       gens, r, age);
			free(h);
		}
		if (r >= gens) {
			h = mf_test_hashes(w, per, (u64)(r - gens) * per);
			memfilter_window_contains_hashes(w, h, per, bm);
			stale += mf_test_popcount(bm, per);
			checked += per;
			free(h);
		}
	}
	/* 16 bits/key per generation: about G * 0.09% false positives. */
	TH_LOG("G=%u: %llu of %llu expired keys still reported", gens,
	       (unsigned long long)stale, (unsigned long long)checked);
	EXPECT_LE(stale * 1000, checked * gens * 2);
	mf_test_window_free(w);
}

MF_LAYOUT_TEST(retention_g2)
{
	mf_test_retention(_metadata, 2, 3000);
}

MF_LAYOUT_TEST(retention_g3)
{
	mf_test_retention(_metadata, 3, 3000);
}

MF_LAYOUT_TEST(retention_g4)
{
	mf_test_retention(_metadata, 4, 3000);
}

MF_LAYOUT_TEST(retention_g16)
{
	mf_test_retention(_metadata, 16, 1000);
}

/* Measured FPR on NABSENT absent keys vs the model at the actual fill. */
static void mf_test_fpr_vs_model(struct __test_metadata *_metadata,
				 struct memfilter_window *w, const u64 *gen_keys,
				 const char *what)
{
	u64 *absent = mf_test_keys(NABSENT, 1ULL << 40);
	unsigned long *bm = calloc(NABSENT / BITS_PER_LONG, sizeof(*bm));
	u64 hits = 0, measured, model;
	u64 *h = malloc(NABSENT * sizeof(*h));

	for (size_t i = 0; i < NABSENT; i++)
		h[i] = memfilter_hash(&w->p.gen.hasher, &absent[i], 8);
	memfilter_window_contains_hashes(w, h, NABSENT, bm);
	hits = mf_test_popcount(bm, NABSENT);
	measured = hits * 1000000000ULL / NABSENT;
	model = memfilter_window_model_fpr_ppb(&w->p, gen_keys);
	TH_LOG("%s: G=%u k=%u measured %llu ppb (%llu hits), model %llu ppb",
	       what, w->p.generations, w->p.gen.k,
	       (unsigned long long)measured, (unsigned long long)hits,
	       (unsigned long long)model);
	EXPECT_LE(measured * 10, model * 11);
	EXPECT_GE(measured * 10, model * 9);
	free(h);
	free(bm);
	free(absent);
}

/*
 * A million keys over G = 4 generations of 256 Ki keys at 10 bits/key: the
 * union model at full fill, then half-rotated (the oldest cleared, the new
 * current one half full).
 */
MF_LAYOUT_TEST(fpr_model_full_and_half_rotated)
{
	const u32 gens = 4, per = NKEYS / 4;
	struct memfilter_window *w = mf_test_window(per, gens, 40);
	u64 gen_keys[MEMFILTER_WINDOW_MAX_GENS] = { 0 };
	u64 *h;

	ASSERT_NE(NULL, w);
	for (u32 j = 0; j < gens; j++) {
		if (j)
			memfilter_window_rotate_exclusive(w, j);
		h = mf_test_hashes(w, per, (u64)j * per);
		ASSERT_EQ(j, memfilter_window_add_hashes(w, h, per));
		gen_keys[j] = per;
		free(h);
	}
	mf_test_fpr_vs_model(_metadata, w, gen_keys, "full");
	EXPECT_GE(memfilter_window_model_fpr_ppb(&w->p, gen_keys),
		  memfilter_bloom_model_fpr_ppb(&w->p.gen, per) * 39 / 10);

	memfilter_window_rotate_exclusive(w, gens);
	ASSERT_EQ(0, memfilter_window_current(w));
	EXPECT_EQ(0, memfilter_window_gen_popcount(w, 0));
	h = mf_test_hashes(w, per / 2, (u64)gens * per);
	memfilter_window_add_hashes(w, h, per / 2);
	gen_keys[0] = per / 2;
	free(h);
	mf_test_fpr_vs_model(_metadata, w, gen_keys, "half-rotated");
	mf_test_window_free(w);
}

/* Sized from a target: every generation full stays under it. */
MF_LAYOUT_TEST(fpr_target)
{
	struct memfilter_window_params p;
	u64 gen_keys[MEMFILTER_WINDOW_MAX_GENS];

	for (u32 g = MEMFILTER_WINDOW_MIN_GENS; g <= MEMFILTER_WINDOW_MAX_GENS; g++) {
		ASSERT_EQ(0, memfilter_window_params_init(&p, 100000, g,
							  10000000, 0, mf_test_layout));
		for (u32 j = 0; j < g; j++)
			gen_keys[j] = 100000;
		EXPECT_LE(memfilter_window_model_fpr_ppb(&p, gen_keys),
			  10000000);
		EXPECT_GE(memfilter_window_model_fpr_ppb(&p, gen_keys),
			  5000000);
	}
}

/*
 * test-and-add: each answer is what a query said just before, the key is
 * present after, and the batch call is the single-key call in order
 * (a key repeated inside one batch is present the second time).
 */
MF_LAYOUT_TEST(test_and_add_semantics)
{
	const u32 n = 50000;
	struct memfilter_window *a = mf_test_window(n, 4, 40);
	struct memfilter_window *b = mf_test_window(n, 4, 40);
	u64 *keys = mf_test_keys(2 * n, 0);
	u64 *h = malloc(2 * n * sizeof(*h));
	unsigned long *bm = calloc(DIV_ROUND_UP(2 * n, BITS_PER_LONG),
				   sizeof(*bm));
	u32 absent = 0, gen;

	/* Keys 0..n-1, then each key again: the second half repeats. */
	for (u32 i = 0; i < 2 * n; i++) {
		keys[i] = htole64(i % n);
		h[i] = memfilter_hash(&a->p.gen.hasher, &keys[i], 8);
	}
	for (u32 i = 0; i < 2 * n; i++) {
		bool before = memfilter_window_contains_key(a, &keys[i], 8);
		bool was = memfilter_window_test_and_add_key(a, &keys[i], 8,
							     &gen);

		ASSERT_EQ(before, was);
		ASSERT_EQ(0, gen);
		ASSERT_TRUE(memfilter_window_contains_key(a, &keys[i], 8));
		if (i >= n)
			ASSERT_TRUE(was);
		absent += !was;
	}
	/* At 10 bits/key a few of the first n are false positives. */
	EXPECT_GE(absent, n - n / 50);
	ASSERT_EQ(0, memfilter_window_test_and_add_hashes(b, h, 2 * n, bm));
	for (u32 i = 0; i < 2 * n; i++) {
		bool was = mf_test_bit(bm, i);

		if (i >= n)
			ASSERT_TRUE(was);
	}
	ASSERT_EQ(2 * n - absent, mf_test_popcount(bm, 2 * n));
	ASSERT_EQ(0, memcmp(a->words, b->words, memfilter_window_bytes(&a->p)));

	/*
	 * A key refreshed by test-and-add every period never expires; one
	 * added once is gone after G rotations (its generation cleared).
	 */
	for (u32 r = 1; r <= 12; r++) {
		memfilter_window_rotate_exclusive(a, r);
		ASSERT_TRUE(memfilter_window_test_and_add_key(a, &keys[0], 8,
							      &gen));
		ASSERT_EQ(r % 4, gen);
	}
	memfilter_window_contains_hashes(a, h + 1, n - 1, bm);
	EXPECT_LE(mf_test_popcount(bm, n - 1), n / 50);
	free(bm);
	free(h);
	free(keys);
	mf_test_window_free(a);
	mf_test_window_free(b);
}

/* Plain Bloom test-and-add, the same contract. */
TEST(bloom_test_and_add)
{
	const u32 n = 100000;
	struct memfilter_bloom_params p;
	struct memfilter_bloom a, b;
	u64 *h = malloc(2 * n * sizeof(*h));
	unsigned long *bm = calloc(DIV_ROUND_UP(2 * n, BITS_PER_LONG),
				   sizeof(*bm));
	unsigned long one, *bm2;
	u32 absent = 0;

	ASSERT_EQ(0, memfilter_bloom_params_from_bpk(&p, n, 40, MEMFILTER_BLOOM_LINE64));
	memfilter_hasher_init(&p.hasher, MEMFILTER_HASH_XXH64, 3, NULL);
	a.p = p;
	b.p = p;
	a.words = aligned_alloc(64, memfilter_bloom_bytes(&p));
	b.words = aligned_alloc(64, memfilter_bloom_bytes(&p));
	memset(a.words, 0, memfilter_bloom_bytes(&p));
	memset(b.words, 0, memfilter_bloom_bytes(&p));
	for (u32 i = 0; i < 2 * n; i++) {
		u64 key = htole64(i % n);

		h[i] = memfilter_hash(&p.hasher, &key, 8);
	}
	for (u32 i = 0; i < 2 * n; i++) {
		bool before = memfilter_bloom_contains_hash(&a, h[i]);

		memfilter_bloom_test_and_add_hashes(&a, h + i, 1, &one);
		ASSERT_EQ(before, one & 1);
		ASSERT_TRUE(memfilter_bloom_contains_hash(&a, h[i]));
		if (i >= n)
			ASSERT_TRUE(one & 1);
		absent += !(one & 1);
	}
	EXPECT_GE(absent, n - n / 50);
	memfilter_bloom_test_and_add_hashes(&b, h, 2 * n, bm);
	ASSERT_EQ(2 * n - absent, mf_test_popcount(bm, 2 * n));
	ASSERT_EQ(0, memcmp(a.words, b.words, memfilter_bloom_bytes(&p)));
	/* The same bits as a plain add of the same keys. */
	memset(a.words, 0, memfilter_bloom_bytes(&p));
	memfilter_bloom_add_hashes(&a, h, n);
	ASSERT_EQ(0, memcmp(a.words, b.words, memfilter_bloom_bytes(&p)));
	/* The scalar path: the same answers and bits as the batch call. */
	memset(a.words, 0, memfilter_bloom_bytes(&p));
	bm2 = calloc(DIV_ROUND_UP(2 * n, BITS_PER_LONG), sizeof(*bm2));
	memfilter_bloom_test_and_add_hashes_scalar(&a, h, 2 * n, bm2);
	ASSERT_EQ(0, memcmp(a.words, b.words, memfilter_bloom_bytes(&p)));
	ASSERT_EQ(0, memcmp(bm, bm2, DIV_ROUND_UP(2 * n, BITS_PER_LONG) *
			    sizeof(*bm)));
	free(bm2);
	free(a.words);
	free(b.words);
	free(bm);
	free(h);
}

/* Chunked clears make the same table as one clear; other gens untouched. */
MF_LAYOUT_TEST(chunked_clear)
{
	struct memfilter_window *a = mf_test_window(30000, 3, 40);
	struct memfilter_window *b = mf_test_window(30000, 3, 40);
	u64 bytes = memfilter_window_bytes(&a->p), groups = a->p.gen.nblocks;
	u64 *h = mf_test_hashes(a, 30000, 0);

	ASSERT_GT(groups, 3 * 7);
	for (u32 j = 0; j < 3; j++) {
		if (j) {
			memfilter_window_rotate_exclusive(a, j);
			memfilter_window_rotate_exclusive(b, j);
		}
		memfilter_window_add_hashes(a, h + j * 10000, 10000);
		memfilter_window_add_hashes(b, h + j * 10000, 10000);
	}
	ASSERT_EQ(0, memfilter_window_oldest(a));
	memfilter_window_rotate_exclusive(a, 3);
	for (u64 g = 0; g < groups; g += 7)
		memfilter_window_clear_gen(b, 0, g, 7);
	memfilter_window_clear_gen(b, 0, groups, 7);
	memfilter_window_publish(b, 0, 3);
	ASSERT_EQ(0, memcmp(a->words, b->words, bytes));
	ASSERT_EQ(0, memcmp(a->born, b->born, sizeof(a->born)));
	EXPECT_EQ(0, memfilter_window_current(b));
	EXPECT_EQ(0, memfilter_window_gen_popcount(b, 0));
	EXPECT_GT(memfilter_window_gen_popcount(b, 1), 10000 * 5);
	EXPECT_GT(memfilter_window_gen_popcount(b, 2), 10000 * 5);
	free(h);
	mf_test_window_free(a);
	mf_test_window_free(b);
}

/* The AVX2 sections give the scalar code's answers and tables, every op. */
static void mf_test_simd(struct __test_metadata *_metadata, u32 gens)
{
	const u32 n = MEMFILTER_SIMD_CHUNK;
	struct memfilter_window *a = mf_test_window(3000, gens, 40);
	struct memfilter_window *b = mf_test_window(3000, gens, 40);
	unsigned long ra[MEMFILTER_SIMD_CHUNK / BITS_PER_LONG];
	unsigned long rb[MEMFILTER_SIMD_CHUNK / BITS_PER_LONG];
	u64 h[MEMFILTER_SIMD_CHUNK], rng = 1;

	if (!MEMFILTER_HAVE_AVX2 || !memfilter_simd_begin())
		SKIP(return, "no AVX2 on this CPU");
	for (u32 round = 0; round < 60; round++) {
		enum memfilter_window_op op = round % 3;
		u32 cur = (round / 3) % gens;

		for (u32 i = 0; i < n; i++) {
			rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
			/* Half the keys repeat earlier rounds' keys. */
			h[i] = i % 2 ? rng : mf_test_hashes_one(a, (round * n + i) / 4);
		}
		memset(ra, 0x55, sizeof(ra));
		memset(rb, 0xaa, sizeof(rb));
		memfilter_window_hashes_scalar(a, h, n,
					       op == MEMFILTER_WINDOW_OP_ADD ? NULL : ra,
					       cur, op);
		memfilter_window_hashes_avx2(b, h, n,
					     op == MEMFILTER_WINDOW_OP_ADD ? NULL : rb,
					     cur, op);
		ASSERT_EQ(0, memcmp(a->words, b->words,
				    memfilter_window_bytes(&a->p)));
		if (op != MEMFILTER_WINDOW_OP_ADD)
			ASSERT_EQ(0, memcmp(ra, rb, sizeof(ra)));
		if (op == MEMFILTER_WINDOW_OP_ADD)
			continue;
		/* The single-key AVX2 path: a batch of one's answer and bits. */
		for (u32 i = 0; i < 16; i++) {
			u64 x = h[i] ^ (i % 4 ? 0 : round);

			memfilter_window_hashes_scalar(a, &x, 1, ra, cur, op);
			ASSERT_EQ(ra[0] & 1,
				  memfilter_window_one_avx2(b, memfilter_window_group_ptr(b, x),
							    x, cur, op));
		}
		ASSERT_EQ(0, memcmp(a->words, b->words,
				    memfilter_window_bytes(&a->p)));
	}
	/* Some keys were found, some not: the comparison meant something. */
	EXPECT_NE(0, mf_test_popcount(ra, n));
	EXPECT_NE(n, mf_test_popcount(ra, n));
	mf_test_window_free(a);
	mf_test_window_free(b);
}

/*
 * G = 4 has its own unrolled AVX2 loops; 2 and 5 take the general ones,
 * a query of 2 testing every generation, of 5 stopping at the first hit.
 */
MF_LAYOUT_TEST(simd_matches_scalar)
{
	mf_test_simd(_metadata, 2);
	mf_test_simd(_metadata, 3);
	mf_test_simd(_metadata, 4);
	mf_test_simd(_metadata, 5);
}

/* A window filter made through its type's table, as the module does. */
struct mf_test_wf {
	union memfilter_state s;
	void *mem;
};

static void mf_test_wf_init(struct mf_test_wf *f,
			    const union memfilter_params *p)
{
	u64 bytes = memfilter_window_ops.mem_bytes(p);

	f->mem = aligned_alloc(64, bytes);
	memset(f->mem, 0, bytes);
	memfilter_window_ops.init(&f->s, p, f->mem);
}

/* The image of @f, as the module's dump makes it. */
static u8 *mf_test_image(struct mf_test_wf *f, size_t *len)
{
	struct memfilter_image_desc d;
	u8 *img;

	memfilter_window_ops.image(&f->s, 0, &d, NULL);
	*len = MEMFILTER_IMAGE_HDR_SIZE + d.payload_size;
	img = malloc(*len);
	memfilter_window_ops.image(&f->s, 0, &d, img + MEMFILTER_IMAGE_HDR_SIZE);
	memfilter_image_header((void *)img, &d, img + MEMFILTER_IMAGE_HDR_SIZE);
	return img;
}

/* Load an image as the module does: parse, check, copy, restore. */
static int mf_test_load(const u8 *img, size_t len, struct mf_test_wf *out)
{
	struct memfilter_image_desc d;
	int ret = memfilter_image_parse(img, len, &d);

	if (!ret)
		ret = memfilter_image_check_payload(&d, img + MEMFILTER_IMAGE_HDR_SIZE);
	if (ret)
		return ret;
	mf_test_wf_init(out, &d.params);
	memcpy(out->mem, img + MEMFILTER_IMAGE_HDR_SIZE, d.payload_size);
	ret = memfilter_window_ops.restore(&out->s, &d);
	if (ret)
		free(out->mem);
	return ret;
}

/* Rewrite both checksums after editing an image. */
static void mf_test_reseal(u8 *img, size_t len)
{
	struct memfilter_image_header *h = (void *)img;

	h->payload_xxh64 = htole64(memfilter_xxh64(img + MEMFILTER_IMAGE_HDR_SIZE,
						   len - MEMFILTER_IMAGE_HDR_SIZE, 0));
	h->header_xxh64 = htole64(memfilter_xxh64(h, offsetof(typeof(*h),
							       header_xxh64), 0));
}

TEST(image_roundtrip_and_checks)
{
	struct memfilter_create c = {
		.type = MEMFILTER_TYPE_WINDOW, .capacity = 5000,
		.bits_per_key_q4 = 40, .generations = 3, .period_ms = 20000,
		.window_flags = MEMFILTER_WINDOW_ROTATE_BY_COUNT,
		.flags = MEMFILTER_CREATE_SEED, .seed = 9,
	};
	const struct memfilter_type_ops *ops;
	struct memfilter_image_window *sec;
	union memfilter_params p;
	struct mf_test_wf a, b;
	struct memfilter_window *w = &a.s.window;
	struct memfilter_generation ga[3], gb[3];
	u64 *h;
	size_t len;
	u8 *img;

	ASSERT_EQ(0, memfilter_create_params(&c, &ops, &p));
	ASSERT_EQ(&memfilter_window_ops, ops);
	mf_test_wf_init(&a, &p);
	h = mf_test_hashes(w, 6200, 0);
	memfilter_window_add_hashes(w, h, 5000);
	memfilter_window_rotate_exclusive(w, memfilter_now_ms() - 10000);
	memfilter_window_add_hashes(w, h + 5000, 1200);
	img = mf_test_image(&a, &len);
	ASSERT_EQ(MEMFILTER_IMAGE_HDR_SIZE + MEMFILTER_IMAGE_WINDOW_SIZE +
		  memfilter_window_bytes(&w->p), len);
	ASSERT_EQ(0, mf_test_load(img, len, &b));
	EXPECT_EQ(3, b.s.window.p.generations);
	EXPECT_EQ(w->p.gen.nblocks, b.s.window.p.gen.nblocks);
	EXPECT_EQ(w->p.gen.k, b.s.window.p.gen.k);
	EXPECT_EQ(9, b.s.window.p.gen.hasher.seed);
	EXPECT_EQ(20000, b.s.window.p.period_ms);
	EXPECT_EQ(MEMFILTER_WINDOW_ROTATE_BY_COUNT, b.s.window.p.flags);
	EXPECT_EQ(1, memfilter_window_current(&b.s.window));
	EXPECT_EQ(0, memcmp(w->words, b.s.window.words,
			    memfilter_window_bytes(&w->p)));
	memfilter_window_gen_info(w, memfilter_now_ms(), ga);
	memfilter_window_gen_info(&b.s.window, memfilter_now_ms(), gb);
	for (int j = 0; j < 3; j++) {
		EXPECT_EQ(ga[j].keys, gb[j].keys);
		EXPECT_EQ(ga[j].fill, gb[j].fill);
		EXPECT_LE(ga[j].age_ms, gb[j].age_ms + 1000);
		EXPECT_GE(ga[j].age_ms + 1000, gb[j].age_ms);
	}
	EXPECT_EQ(5000, gb[0].keys);
	EXPECT_EQ(1200, gb[1].keys);
	EXPECT_LE(9000, gb[1].age_ms);
	free(b.mem);

	/* Every state field checked: each edit below is refused. */
	sec = (void *)(img + MEMFILTER_IMAGE_HDR_SIZE);
#define MF_EDIT(field, bad, good, err) do {				\
		sec->field = (bad);					\
		mf_test_reseal(img, len);				\
		EXPECT_EQ(err, mf_test_load(img, len, &b));		\
		sec->field = (good);					\
	} while (0)
	MF_EDIT(current_gen, htole32(3), htole32(1), -EBADMSG);
	MF_EDIT(generations, htole32(4), htole32(3), -EBADMSG);
	MF_EDIT(keys[3], htole64(1), 0, -EBADMSG);
	MF_EDIT(age_ms[5], htole64(1), 0, -EBADMSG);
	MF_EDIT(keys[0], htole64(4999), htole64(5000), -EBADMSG);
	MF_EDIT(__reserved0, htole32(1), 0, -EBADMSG);
	MF_EDIT(__reserved[103], 1, 0, -EBADMSG);
	MF_EDIT(flags, htole32(1U << 5), htole32(1), -EOPNOTSUPP);
	mf_test_reseal(img, len);
	ASSERT_EQ(0, mf_test_load(img, len, &b));
	free(b.mem);
	/* A payload bit flip without resealing. */
	img[len - 1] ^= 1;
	EXPECT_EQ(-EBADMSG, mf_test_load(img, len, &b));
	img[len - 1] ^= 1;
	/* The header's generation count: 1 and 17 are corrupt. */
	((struct memfilter_image_header *)img)->stash = htole64(1);
	mf_test_reseal(img, len);
	EXPECT_EQ(-EBADMSG, mf_test_load(img, len, &b));
	((struct memfilter_image_header *)img)->stash = htole64(17);
	mf_test_reseal(img, len);
	EXPECT_EQ(-EBADMSG, mf_test_load(img, len, &b));
	free(img);
	free(h);
	free(a.mem);
}

/*
 * A window that rotates by count, through its type's table as the module
 * and libmemfilter add: an add stops where the current generation reaches
 * its capacity (ENOSPC, *done the keys that fit), so no generation is
 * ever counted past it; the owner rotates and goes on. 2,500 keys in one
 * batch into capacity 1,000 fill generations 0, 1 and 2 with 1,000, 1,000
 * and 500; two adds of 600 with 1,000 and 200. test-and-add alike.
 */
static void mf_test_by_count(struct __test_metadata *_metadata, bool tadd,
			     const u32 *batches, u32 nbatches,
			     const u64 *want, u32 want_cur)
{
	struct memfilter_create c = {
		.type = MEMFILTER_TYPE_WINDOW, .capacity = 1000,
		.bits_per_key_q4 = 40, .generations = 4,
		.window_flags = MEMFILTER_WINDOW_ROTATE_BY_COUNT,
	};
	const struct memfilter_type_ops *ops;
	union memfilter_params p;
	struct mf_test_wf f;
	struct memfilter_window *w = &f.s.window;
	unsigned long *res = calloc(DIV_ROUND_UP(2500, BITS_PER_LONG), sizeof(long));
	u64 *h, base = 0;
	u32 b, d, done;
	int ret;

	ASSERT_EQ(0, memfilter_create_params(&c, &ops, &p));
	mf_test_wf_init(&f, &p);
	h = mf_test_hashes(w, 2500, 0);
	for (b = 0; b < nbatches; b++) {
		for (d = 0; d < batches[b]; d += done) {
			if (tadd)
				ret = ops->test_and_add(&f.s, h + base + d,
							batches[b] - d, res,
							&done);
			else
				ret = ops->add(&f.s, h + base + d,
					       batches[b] - d, res, &done);
			if (!ret) {
				ASSERT_EQ(batches[b] - d, done);
				continue;
			}
			/* Stopped exactly at the capacity. */
			ASSERT_EQ(-ENOSPC, ret);
			ASSERT_LT(done, batches[b] - d);
			ASSERT_EQ(1000, w->gen_keys[memfilter_window_current(w)]);
			memfilter_window_rotate_exclusive(w, 0);
		}
		base += batches[b];
	}
	for (u32 j = 0; j < 4; j++)
		EXPECT_EQ(want[j], w->gen_keys[j]);
	EXPECT_EQ(want_cur, memfilter_window_current(w));
	free(h);
	free(res);
	free(f.mem);
}

TEST(rotate_by_count_exact)
{
	static const u32 one[] = { 2500 }, two[] = { 600, 600 };
	static const u64 want_one[] = { 1000, 1000, 500, 0 };
	static const u64 want_two[] = { 1000, 200, 0, 0 };

	mf_test_by_count(_metadata, false, one, 1, want_one, 2);
	mf_test_by_count(_metadata, false, two, 2, want_two, 1);
	mf_test_by_count(_metadata, true, one, 1, want_one, 2);
	mf_test_by_count(_metadata, true, two, 2, want_two, 1);
}

/*
 * Four threads add 300 keys each, one or a few at a time, into a window
 * of capacity 100 that rotates by count; whoever is refused (ENOSPC)
 * rotates, under a lock, if the current generation is still full. Fewer
 * than G rotations: none clears a generation anyone writes. Each
 * generation's count is claimed before its bits are set, so however the
 * adds race, generations 0..11 end with exactly 100 keys each and the
 * filter rotated exactly 11 times.
 */
#define MF_BC_THREADS	4
#define MF_BC_KEYS	300

struct mf_bc {
	struct mf_test_wf f;
	pthread_mutex_t rot;
	u64 *h;
	u32 done[MF_BC_THREADS];
	u32 rotations;
};

struct mf_bc_arg {
	struct mf_bc *c;
	int id;
};

static void *mf_bc_adder(void *data)
{
	struct mf_bc_arg *a = data;
	struct mf_bc *c = a->c;
	struct memfilter_window *w = &c->f.s.window;
	const u64 *h = c->h + a->id * MF_BC_KEYS;
	unsigned long res;
	u32 i = 0, m, got;

	while (i < MF_BC_KEYS) {
		m = min(MF_BC_KEYS - i, 1 + (i + a->id) % 5);
		if (!memfilter_window_ops.add(&c->f.s, h + i, m, &res, &got)) {
			i += m;
			continue;
		}
		i += got;
		pthread_mutex_lock(&c->rot);
		if (w->gen_keys[memfilter_window_current(w)] >= w->p.gen.capacity) {
			memfilter_window_rotate_exclusive(w, 0);
			c->rotations++;
		}
		pthread_mutex_unlock(&c->rot);
	}
	c->done[a->id] = i;
	return NULL;
}

TEST(rotate_by_count_under_threads)
{
	struct memfilter_create cr = {
		.type = MEMFILTER_TYPE_WINDOW, .capacity = 100,
		.bits_per_key_q4 = 40, .generations = 16,
		.window_flags = MEMFILTER_WINDOW_ROTATE_BY_COUNT,
	};
	const struct memfilter_type_ops *ops;
	struct mf_bc *c = calloc(1, sizeof(*c));
	struct mf_bc_arg args[MF_BC_THREADS];
	pthread_t t[MF_BC_THREADS];
	union memfilter_params p;
	struct memfilter_window *w = &c->f.s.window;
	unsigned long bm[DIV_ROUND_UP(MF_BC_THREADS * MF_BC_KEYS, BITS_PER_LONG)];

	ASSERT_EQ(0, memfilter_create_params(&cr, &ops, &p));
	mf_test_wf_init(&c->f, &p);
	pthread_mutex_init(&c->rot, NULL);
	c->h = mf_test_hashes(w, MF_BC_THREADS * MF_BC_KEYS, 0);
	for (int i = 0; i < MF_BC_THREADS; i++) {
		args[i].c = c;
		args[i].id = i;
		ASSERT_EQ(0, pthread_create(&t[i], NULL, mf_bc_adder, &args[i]));
	}
	for (int i = 0; i < MF_BC_THREADS; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(MF_BC_KEYS, c->done[i]);
	}
	EXPECT_EQ(11, c->rotations);
	EXPECT_EQ(11, memfilter_window_current(w));
	for (u32 j = 0; j < 16; j++)
		EXPECT_EQ(j < 12 ? 100 : 0, w->gen_keys[j]);
	/* Every key went in somewhere. */
	memfilter_window_contains_hashes(w, c->h, MF_BC_THREADS * MF_BC_KEYS, bm);
	EXPECT_EQ(MF_BC_THREADS * MF_BC_KEYS,
		  mf_test_popcount(bm, MF_BC_THREADS * MF_BC_KEYS));
	pthread_mutex_destroy(&c->rot);
	free(c->h);
	free(c->f.mem);
	free(c);
}

/*
 * The rotation protocol of core/window.c under threads. Userspace has no
 * RCU: each inserter bumps its own counter around every insert (odd
 * inside, seq_cst), and the rotator's "grace period" waits until every
 * counter it saw odd has moved, which is all the rotator needs: no insert
 * that began before the previous publish is still running. Rotation
 * counters bracket each rotation as in the KUnit suite: a key whose add
 * began when @done read d may be cleared only once @started reaches
 * d + G, so every query that ends before that must find it.
 */
#define MF_TC_INSERTERS	2
#define MF_TC_RING	256
#define MF_TC_CHECKS_PER_ROTATION 8

struct mf_tc {
	struct memfilter_window *w;
	u32 gens;
	int started, done, stop;
	unsigned long cs[MF_TC_INSERTERS];
	u64 checks, misses;
	struct {
		u64 key;
		int epoch;
	} ring[MF_TC_INSERTERS][MF_TC_RING];
	unsigned int head[MF_TC_INSERTERS];
};

struct mf_tc_arg {
	struct mf_tc *c;
	int id;
};

static void mf_tc_check(struct mf_tc *c, u64 key, int epoch)
{
	u64 h = mf_test_hashes_one(c->w, key);
	unsigned long bm;

	memfilter_window_contains_hashes(c->w, &h, 1, &bm);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&c->started, __ATOMIC_SEQ_CST) <
	    epoch + (int)c->gens) {
		__atomic_fetch_add(&c->checks, 1, __ATOMIC_RELAXED);
		if (!(bm & 1))
			__atomic_fetch_add(&c->misses, 1, __ATOMIC_RELAXED);
	}
}

static void *mf_tc_inserter(void *data)
{
	struct mf_tc_arg *a = data;
	struct mf_tc *c = a->c;
	unsigned int n = 0, slot;
	u64 key, h;
	int epoch;

	while (!__atomic_load_n(&c->stop, __ATOMIC_SEQ_CST)) {
		key = ((u64)(a->id + 1) << 48) | n;
		h = mf_test_hashes_one(c->w, key);
		epoch = __atomic_load_n(&c->done, __ATOMIC_SEQ_CST);
		__atomic_fetch_add(&c->cs[a->id], 1, __ATOMIC_SEQ_CST);
		memfilter_window_add_hashes(c->w, &h, 1);
		__atomic_fetch_add(&c->cs[a->id], 1, __ATOMIC_SEQ_CST);
		mf_tc_check(c, key, epoch);
		slot = n % MF_TC_RING;
		c->ring[a->id][slot].key = key;
		c->ring[a->id][slot].epoch = epoch;
		__atomic_store_n(&c->head[a->id], ++n, __ATOMIC_RELEASE);
		slot = (n * 2654435761U) % (n < MF_TC_RING ? n : MF_TC_RING);
		mf_tc_check(c, c->ring[a->id][slot].key,
			    c->ring[a->id][slot].epoch);
	}
	return NULL;
}

static void *mf_tc_querier(void *data)
{
	struct mf_tc *c = data;
	unsigned int head, slot;
	int id = 0;

	while (!__atomic_load_n(&c->stop, __ATOMIC_SEQ_CST)) {
		head = __atomic_load_n(&c->head[id], __ATOMIC_ACQUIRE);
		if (head) {
			slot = (head - 1) % MF_TC_RING;
			mf_tc_check(c, c->ring[id][slot].key,
				    c->ring[id][slot].epoch);
		}
		id = (id + 1) % MF_TC_INSERTERS;
	}
	return NULL;
}

/* Wait until no insert that began before this call is still running. */
static void mf_tc_grace_period(struct mf_tc *c)
{
	unsigned long seen[MF_TC_INSERTERS];

	/* The previous publish is ordered before the snapshot (as in RCU). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (int i = 0; i < MF_TC_INSERTERS; i++)
		seen[i] = __atomic_load_n(&c->cs[i], __ATOMIC_SEQ_CST);
	for (int i = 0; i < MF_TC_INSERTERS; i++)
		while ((seen[i] & 1) &&
		       __atomic_load_n(&c->cs[i], __ATOMIC_SEQ_CST) == seen[i])
			sched_yield();
}

TEST(rotation_under_threads)
{
	struct mf_tc *c = calloc(1, sizeof(*c));
	struct mf_tc_arg args[MF_TC_INSERTERS];
	pthread_t ins[MF_TC_INSERTERS], q;
	const u64 chunk = 7;

	c->gens = 3;
	c->w = mf_test_window(3000, c->gens, 64);
	for (int i = 0; i < MF_TC_INSERTERS; i++) {
		args[i].c = c;
		args[i].id = i;
		ASSERT_EQ(0, pthread_create(&ins[i], NULL, mf_tc_inserter,
					    &args[i]));
	}
	ASSERT_EQ(0, pthread_create(&q, NULL, mf_tc_querier, c));
	for (int r = 1; r <= 300; r++) {
		u32 gen = memfilter_window_oldest(c->w);

		__atomic_fetch_add(&c->started, 1, __ATOMIC_SEQ_CST);
		/* Step 1: inserters of the previous publish are done. */
		mf_tc_grace_period(c);
		for (u64 g = 0; g < c->w->p.gen.nblocks; g += chunk)
			memfilter_window_clear_gen(c->w, gen, g, chunk);
		memfilter_window_publish(c->w, gen, r);
		__atomic_fetch_add(&c->done, 1, __ATOMIC_SEQ_CST);
		/*
		 * Rotate only after the other threads made progress, so the
		 * coverage below does not depend on how the host schedules
		 * them (a loaded CI machine once gave 792 checks in 300
		 * rotations). The threads never block, so this terminates.
		 */
		while (__atomic_load_n(&c->checks, __ATOMIC_SEQ_CST) <
		       (u64)r * MF_TC_CHECKS_PER_ROTATION)
			sched_yield();
	}
	__atomic_store_n(&c->stop, 1, __ATOMIC_SEQ_CST);
	for (int i = 0; i < MF_TC_INSERTERS; i++)
		pthread_join(ins[i], NULL);
	pthread_join(q, NULL);
	TH_LOG("300 rotations, %llu checks inside the guarantee",
	       (unsigned long long)c->checks);
	EXPECT_EQ(0, c->misses);
	EXPECT_GE(c->checks, 300 * MF_TC_CHECKS_PER_ROTATION);
	mf_test_window_free(c->w);
	free(c);
}

TEST(sizing)
{
	struct memfilter_window_params p;

	EXPECT_EQ(-EINVAL, memfilter_window_params_init(&p, 1000, 1, 0, 40, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(-EINVAL, memfilter_window_params_init(&p, 1000, 17, 0, 40, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(-EINVAL, memfilter_window_params_init(&p, 1000, 4, 0, 0, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(-EINVAL, memfilter_window_params_init(&p, 1000, 4, 1000, 40, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(-EINVAL, memfilter_window_params_init(&p, 0, 4, 0, 40, MEMFILTER_BLOOM_LINE64));
	/* Below what 64 bits/key per generation reaches. */
	EXPECT_EQ(-EINVAL, memfilter_window_params_init(&p, 1000, 4, 1000, 0, MEMFILTER_BLOOM_LINE64));
	/* Each generation fits, G of them do not. */
	EXPECT_EQ(0, memfilter_window_params_init(&p, 1ULL << 36, 2, 0, 64, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(-E2BIG, memfilter_window_params_init(&p, 1ULL << 36, 16, 0,
						       64, MEMFILTER_BLOOM_LINE64));
	ASSERT_EQ(0, memfilter_window_params_init(&p, 1000, 4, 0, 40, MEMFILTER_BLOOM_LINE64));
	EXPECT_EQ(4, p.generations);
	EXPECT_EQ(1000, p.gen.capacity);
	EXPECT_EQ(DIV_ROUND_UP(1000 * 10, 512), p.gen.nblocks);
	EXPECT_EQ(p.gen.nblocks * 4 * 64, memfilter_window_bytes(&p));
	/* SPLIT32: 32-byte blocks, an even number of them. */
	ASSERT_EQ(0, memfilter_window_params_init(&p, 1000, 3, 0, 40,
						  MEMFILTER_BLOOM_SPLIT32));
	EXPECT_EQ(40, p.gen.nblocks);
	EXPECT_EQ(8, p.gen.k);
	EXPECT_EQ(MEMFILTER_BLOOM_SPLIT32, p.gen.layout);
	EXPECT_EQ(40 * 3 * 32, memfilter_window_bytes(&p));
	EXPECT_EQ(0, memfilter_window_params_init(&p, 1ULL << 36, 2, 0, 64,
						  MEMFILTER_BLOOM_SPLIT32));
	EXPECT_EQ(-E2BIG, memfilter_window_params_init(&p, 1ULL << 36, 16, 0, 64,
						       MEMFILTER_BLOOM_SPLIT32));
	EXPECT_EQ(-EINVAL, memfilter_window_params_init(&p, 1000, 4, 0, 40, 2));
}

TEST_HARNESS_MAIN
