// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite memfilter_core: the shared hashing code, run in the kernel.
 *
 * Checks memfilter's inline XXH64 and SipHash-2-4 against reference vectors
 * (shared with the native tests) and against the kernel's own lib/xxhash.c
 * and lib/siphash.c, on aligned and unaligned buffers of every small length;
 * and its XXH3-64, which the kernel lacks, against the shared vectors from
 * libxxhash at every one of its paths, as the module is built.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/siphash.h>
#include <linux/xxhash.h>

#include "hash.h"
#include "hash_vectors.h"
#include "kernel_compat.h"

static void mf_fill_msg(u8 *buf, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		buf[i] = memfilter_test_msg(i);
}

/* The parameter is a pointer into memfilter_test_xxh64_seed0[]: its index says the length. */
static const void *mf_xxh_gen_params(const void *prev, char *desc)
{
	const u64 *next = prev ? (const u64 *)prev + 1 : memfilter_test_xxh64_seed0;
	unsigned int idx = next - memfilter_test_xxh64_seed0;

	if (idx >= MEMFILTER_TEST_XXH64_LENS)
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "len %u", memfilter_test_xxh64_len(idx));
	return next;
}

static void mf_xxh64_vectors(struct kunit *test)
{
	unsigned int idx = (const u64 *)test->param_value - memfilter_test_xxh64_seed0;
	unsigned int len = memfilter_test_xxh64_len(idx);
	unsigned int off;
	u8 *buf;

	buf = kunit_kzalloc(test, len + 8, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	/* Every misalignment of the input must give the same hash. */
	for (off = 0; off < 8; off++) {
		mf_fill_msg(buf + off, len);
		KUNIT_EXPECT_EQ(test, memfilter_xxh64(buf + off, len, 0),
				memfilter_test_xxh64_seed0[idx]);
		KUNIT_EXPECT_EQ(test,
				memfilter_xxh64(buf + off, len, MEMFILTER_TEST_XXH64_SEED1),
				memfilter_test_xxh64_seed1[idx]);
	}
}

static void mf_xxh64_matches_kernel(struct kunit *test)
{
	unsigned int len, round;
	u8 *buf;

	if (!IS_ENABLED(CONFIG_XXHASH))
		kunit_skip(test, "kernel built without lib/xxhash.c");
	buf = kunit_kzalloc(test, 1024 + 8, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (round = 0; round < 4; round++) {
		u64 seed = get_random_u64();

		get_random_bytes(buf, 1024 + 8);
		for (len = 0; len <= 1024; len += len < 80 ? 1 : 37)
			KUNIT_EXPECT_EQ(test,
					memfilter_xxh64(buf + round, len, seed),
					xxh64(buf + round, len, seed));
	}
}

/*
 * The single-key paths' straight-line hashes of 4-, 8- and 16-byte keys
 * (memfilter_hash_fixed(), memfilter_hash_lean()) as the kernel builds
 * them: XXH64 against lib/xxhash.c, XXH3 against memfilter_xxh3() with
 * the length unknown at build time; random seeds and keys, 8 offsets.
 */
static void mf_hash_fixed_lengths(struct kunit *test)
{
	static const u32 algos[] = { MEMFILTER_HASH_XXH3, MEMFILTER_HASH_XXH64 };
	static const unsigned int lens[] = { 4, 8, 16 };
	struct memfilter_hasher h;
	unsigned int a, r, l;
	u8 buf[16 + 8];
	size_t vlen;
	u64 v, ref;

	for (a = 0; a < ARRAY_SIZE(algos); a++) {
		for (r = 0; r < 512; r++) {
			u64 seed = r ? get_random_u64() : 0;
			unsigned int off = r & 7;

			KUNIT_ASSERT_EQ(test, memfilter_hasher_init(&h, algos[a],
								    seed, NULL), 0);
			get_random_bytes(buf, sizeof(buf));
			for (l = 0; l < ARRAY_SIZE(lens); l++) {
				vlen = lens[l];
				OPTIMIZER_HIDE_VAR(vlen);
				ref = algos[a] == MEMFILTER_HASH_XXH3 ?
				      memfilter_xxh3(buf + off, vlen, seed) :
				      memfilter_xxh64(buf + off, vlen, seed);
				if (IS_ENABLED(CONFIG_XXHASH) &&
				    algos[a] == MEMFILTER_HASH_XXH64)
					KUNIT_EXPECT_EQ(test, ref,
							xxh64(buf + off, lens[l], seed));
				KUNIT_ASSERT_TRUE(test, memfilter_hash_fixed(&h, buf + off,
									     lens[l], &v));
				KUNIT_EXPECT_EQ_MSG(test, v, ref, "algo %u len %u",
						    algos[a], lens[l]);
				KUNIT_EXPECT_EQ(test, memfilter_hash_lean(&h, buf + off,
									  vlen), ref);
			}
		}
	}
	KUNIT_EXPECT_FALSE(test, memfilter_hash_fixed(&h, buf, 5, &v));
}

/* The parameter is a pointer into memfilter_test_xxh3_len[]. */
static const void *mf_xxh3_gen_params(const void *prev, char *desc)
{
	const unsigned int *next = prev ? (const unsigned int *)prev + 1 :
				   memfilter_test_xxh3_len;

	if (next - memfilter_test_xxh3_len >= MEMFILTER_TEST_XXH3_LENS)
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "len %u", *next);
	return next;
}

static void mf_xxh3_vectors(struct kunit *test)
{
	const unsigned int *lenp = test->param_value;
	unsigned int idx = lenp - memfilter_test_xxh3_len;
	unsigned int len = *lenp, off;
	struct memfilter_hasher h;
	u8 *buf;

	buf = kunit_kzalloc(test, len + 8, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, memfilter_hasher_init(&h, MEMFILTER_HASH_XXH3,
						    MEMFILTER_TEST_XXH64_SEED1, NULL), 0);
	for (off = 0; off < 8; off++) {
		mf_fill_msg(buf + off, len);
		KUNIT_EXPECT_EQ_MSG(test, memfilter_xxh3(buf + off, len, 0),
				    memfilter_test_xxh3_seed0[idx], "offset %u", off);
		KUNIT_EXPECT_EQ_MSG(test,
				    memfilter_xxh3(buf + off, len,
						   MEMFILTER_TEST_XXH64_SEED1),
				    memfilter_test_xxh3_seed1[idx], "offset %u", off);
		/* memfilter_hash(), with its 8- and 16-byte straight lines */
		KUNIT_EXPECT_EQ_MSG(test, memfilter_hash(&h, buf + off, len),
				    memfilter_test_xxh3_seed1[idx], "offset %u", off);
	}
}

/*
 * The one-MUL 128-bit product (memfilter_mul128(), inline assembly on
 * x86-64) against the portable fold and the kernel's mul_u64_u64_shr().
 */
static void mf_xxh3_fold(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < 10000; i++) {
		u64 a = get_random_u64(), b = get_random_u64();

		KUNIT_EXPECT_EQ(test, memfilter_mul128_fold64(a, b),
				memfilter_mul128_fold64_generic(a, b));
		KUNIT_EXPECT_EQ(test, memfilter_mulhi64(a, b),
				mul_u64_u64_shr(a, b, 64));
	}
	KUNIT_EXPECT_EQ(test, memfilter_mulhi64(~0ULL, ~0ULL), ~0ULL - 1);
	KUNIT_EXPECT_EQ(test, memfilter_mul128_fold64(~0ULL, ~0ULL),
			memfilter_mul128_fold64_generic(~0ULL, ~0ULL));
	/* (2^64 - 1)^2 = 2^128 - 2^65 + 1: halves 0xff..fe and 1. */
	KUNIT_EXPECT_EQ(test, memfilter_mul128_fold64(~0ULL, ~0ULL), ~0ULL);
}

static void mf_siphash_vectors(struct kunit *test)
{
	unsigned int len, off;
	u8 buf[64 + 8];

	for (off = 0; off < 8; off++) {
		for (len = 0; len < 64; len++) {
			unsigned int i;

			for (i = 0; i < len; i++)
				buf[off + i] = i;
			KUNIT_EXPECT_EQ_MSG(test,
					    memfilter_siphash24(buf + off, len,
								memfilter_test_sipkey),
					    memfilter_test_siphash24[len],
					    "len %u offset %u", len, off);
		}
	}
}

static void mf_siphash_matches_kernel(struct kunit *test)
{
	siphash_key_t key;
	unsigned int len;
	u8 buf[300];

	get_random_bytes(&key, sizeof(key));
	get_random_bytes(buf, sizeof(buf));
	for (len = 0; len < sizeof(buf); len++)
		KUNIT_EXPECT_EQ(test, memfilter_siphash24(buf, len, key.key),
				siphash(buf, len, &key));
}

static void mf_hasher_init_checks(struct kunit *test)
{
	static const u64 zero_key[2];
	static const u64 key[2] = { 1, 2 };
	struct memfilter_hasher h;
	u8 msg[16];

	mf_fill_msg(msg, sizeof(msg));
	KUNIT_EXPECT_EQ(test, memfilter_hasher_init(&h, 0, 0, NULL), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, memfilter_hasher_init(&h, 4, 0, NULL), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, memfilter_hasher_init(&h, MEMFILTER_HASH_SIPHASH24, 0,
						    NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, memfilter_hasher_init(&h, MEMFILTER_HASH_SIPHASH24, 0,
						    zero_key), -EINVAL);

	KUNIT_ASSERT_EQ(test, memfilter_hasher_init(&h, MEMFILTER_HASH_XXH64,
						    MEMFILTER_TEST_XXH64_SEED1, key), 0);
	KUNIT_EXPECT_EQ(test, memfilter_hash(&h, msg, sizeof(msg)),
			memfilter_test_xxh64_seed1[sizeof(msg)]);

	KUNIT_ASSERT_EQ(test, memfilter_hasher_init(&h, MEMFILTER_HASH_SIPHASH24, 7,
						    memfilter_test_sipkey), 0);
	KUNIT_EXPECT_EQ(test, memfilter_hash(&h, "", 0), memfilter_test_siphash24[0]);
	/* A keyed hasher must not depend on the (ignored) XXH64 seed. */
	KUNIT_EXPECT_EQ(test, h.seed, 0ULL);
}

static struct kunit_case memfilter_core_cases[] = {
	KUNIT_CASE_PARAM(mf_xxh64_vectors, mf_xxh_gen_params),
	KUNIT_CASE(mf_xxh64_matches_kernel),
	KUNIT_CASE(mf_hash_fixed_lengths),
	KUNIT_CASE_PARAM(mf_xxh3_vectors, mf_xxh3_gen_params),
	KUNIT_CASE(mf_xxh3_fold),
	KUNIT_CASE(mf_siphash_vectors),
	KUNIT_CASE(mf_siphash_matches_kernel),
	KUNIT_CASE(mf_hasher_init_checks),
	{}
};

static struct kunit_suite memfilter_core_suite = {
	.name = "memfilter_core",
	.test_cases = memfilter_core_cases,
};

kunit_test_suite(memfilter_core_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for memfilter");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
