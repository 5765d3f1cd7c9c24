// SPDX-License-Identifier: GPL-2.0
/*
 * Native test of the inline single-key query (core/bloom_probe.h) as
 * userspace built for AVX2 compiles it (this file is built with -mavx2:
 * the SPLIT32 block is tested in a YMM register in place), against the
 * out-of-line calls built without it: for both layouts, keys of 1 to 40
 * bytes under XXH3, XXH64 and SipHash, present and absent, the inline
 * query, the scalar probe the kernel inlines and the AVX2 and scalar
 * calls give one answer. Nothing is timed.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <stdlib.h>

#include "filter_type.h"
#include "kselftest_harness.h"
#include "native_utils.h"

#if !MEMFILTER_PROBE_AVX2
#error "probe_test.c is built with -mavx2 (Makefile): the AVX2 inline probe"
#endif

MF_LAYOUT_TEST(inline_query_is_the_calls)
{
	static const u64 skey[2] = { 0x77, 0x99 };
	static const u32 algos[] = { MEMFILTER_HASH_XXH3, MEMFILTER_HASH_XXH64,
				     MEMFILTER_HASH_SIPHASH24 };
	u64 rng = 3;
	u8 key[40];

	if (!__builtin_cpu_supports("avx2"))
		SKIP(return, "no AVX2 on this CPU");
	for (size_t a = 0; a < ARRAY_SIZE(algos); a++) {
		struct memfilter_bloom b = { 0 };
		u32 hits = 0, absent = 0;

		ASSERT_EQ(0, memfilter_bloom_params_from_bpk(&b.p, 3000, 40, mf_test_layout));
		ASSERT_EQ(0, memfilter_hasher_init(&b.p.hasher, algos[a], 5, skey));
		b.words = aligned_alloc(64, memfilter_bloom_bytes(&b.p));
		memset(b.words, 0, memfilter_bloom_bytes(&b.p));
		for (int i = 0; i < 6000; i++) {
			size_t len = 1 + i % sizeof(key);
			u64 h;
			bool want;

			for (size_t j = 0; j < len; j++)
				key[j] = mf_test_rand(&rng);
			h = memfilter_hash(&b.p.hasher, key, len);
			if (i < 3000)
				memfilter_bloom_add_hash(&b, h);
			want = memfilter_bloom_contains_hash_scalar(&b, h);
			ASSERT_EQ(want, memfilter_bloom_contains_key_inline(&b, key, len))
				TH_LOG("algo %u len %zu key %d", algos[a], len, i);
			ASSERT_EQ(want, memfilter_bloom_contains_hash_inline(&b, h));
			ASSERT_EQ(want, memfilter_bloom_contains_hash_avx2(&b, h));
			ASSERT_EQ(want, memfilter_bloom_contains_key(&b, key, len));
			if (mf_test_layout == MEMFILTER_BLOOM_SPLIT32)
				ASSERT_EQ(want, memfilter_split32_test_scalar(
						memfilter_bloom_block_ptr(&b, h), h));
			if (i < 3000) {
				ASSERT_TRUE(want);
			} else {
				hits += want;
				absent++;
			}
		}
		/* About 1% of the absent keys: both answers were seen. */
		EXPECT_GT(hits, 0);
		EXPECT_LT(hits, absent / 20);
		free(b.words);
	}
}

TEST_HARNESS_MAIN
