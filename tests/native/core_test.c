// SPDX-License-Identifier: GPL-2.0
/*
 * Native tests of memfilter's shared code (core/), built in userspace with
 * ASan and UBSan from the same sources the module uses: the hashes against
 * libxxhash and the SipHash reference vectors.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <xxhash.h>

#include "hash.h"
#include "hash_vectors.h"
#include "kselftest_harness.h"

TEST(xxh64_vectors)
{
	u8 buf[256 + 8];

	for (unsigned int i = 0; i < MEMFILTER_TEST_XXH64_LENS; i++) {
		unsigned int len = memfilter_test_xxh64_len(i);

		for (unsigned int off = 0; off < 8; off++) {
			for (unsigned int j = 0; j < len; j++)
				buf[off + j] = memfilter_test_msg(j);
			ASSERT_EQ(memfilter_test_xxh64_seed0[i],
				  memfilter_xxh64(buf + off, len, 0));
			ASSERT_EQ(memfilter_test_xxh64_seed1[i],
				  memfilter_xxh64(buf + off, len,
						  MEMFILTER_TEST_XXH64_SEED1));
		}
	}
}

TEST(xxh64_matches_libxxhash)
{
	static u8 buf[4096 + 8];
	unsigned int seedx = 12345;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = rand_r(&seedx);
	for (unsigned int round = 0; round < 64; round++) {
		u64 seed = ((u64)rand_r(&seedx) << 33) ^ rand_r(&seedx);

		for (size_t len = 0; len <= 4096; len += len < 100 ? 1 : 61) {
			ASSERT_EQ(XXH64(buf + (round & 7), len, seed),
				  memfilter_xxh64(buf + (round & 7), len, seed))
				TH_LOG("len %zu round %u", len, round);
		}
	}
}

TEST(siphash_vectors)
{
	u8 buf[64 + 8];

	for (unsigned int off = 0; off < 8; off++) {
		for (unsigned int len = 0; len < 64; len++) {
			for (unsigned int i = 0; i < len; i++)
				buf[off + i] = i;
			ASSERT_EQ(memfilter_test_siphash24[len],
				  memfilter_siphash24(buf + off, len,
						      memfilter_test_sipkey)) {
				TH_LOG("len %u off %u", len, off);
			}
		}
	}
}

TEST(hasher_init)
{
	static const u64 zero[2], key[2] = { 1, 2 };
	struct memfilter_hasher h;

	EXPECT_EQ(-EOPNOTSUPP, memfilter_hasher_init(&h, 0, 0, NULL));
	EXPECT_EQ(-EOPNOTSUPP, memfilter_hasher_init(&h, 99, 0, key));
	EXPECT_EQ(-EINVAL, memfilter_hasher_init(&h, MEMFILTER_HASH_SIPHASH24, 0, NULL));
	EXPECT_EQ(-EINVAL, memfilter_hasher_init(&h, MEMFILTER_HASH_SIPHASH24, 0, zero));
	ASSERT_EQ(0, memfilter_hasher_init(&h, MEMFILTER_HASH_XXH64, 42, NULL));
	EXPECT_EQ(XXH64("abc", 3, 42), memfilter_hash(&h, "abc", 3));
	ASSERT_EQ(0, memfilter_hasher_init(&h, MEMFILTER_HASH_SIPHASH24, 42,
					   memfilter_test_sipkey));
	EXPECT_EQ(memfilter_test_siphash24[0], memfilter_hash(&h, "", 0));
}

TEST_HARNESS_MAIN
