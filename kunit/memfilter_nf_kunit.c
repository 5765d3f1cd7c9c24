// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite memfilter_nf: the netfilter hook's attachment ids, which a
 * selftest cannot wrap (2^32 attaches). An id is 1 .. U32_MAX and unique
 * among the attachments that exist: past U32_MAX the search starts again
 * at 1 and passes over the ids still in use. The packet path is tested
 * with real traffic by tests/nf_test.c.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <kunit/test.h>
#include <linux/limits.h>

#include "consumers/netfilter.h"

#define MF_NF_KUNIT_IDS	4

/* Ids handed out across U32_MAX: never 0, never one in use. */
static void mf_nf_ids_unique_across_wrap(struct kunit *test)
{
	static int live_entry, entries[MF_NF_KUNIT_IDS];
	u32 live, ids[MF_NF_KUNIT_IDS], saved;
	int i, j;

	saved = memfilter_nf_id_set_next(1);
	KUNIT_ASSERT_EQ(test, memfilter_nf_id_alloc(&live_entry, &live), 0);
	KUNIT_EXPECT_NE(test, live, 0);
	memfilter_nf_id_set_next(U32_MAX - 1);
	for (i = 0; i < MF_NF_KUNIT_IDS; i++) {
		KUNIT_ASSERT_EQ(test, memfilter_nf_id_alloc(&entries[i], &ids[i]),
				0);
		KUNIT_EXPECT_NE_MSG(test, ids[i], 0, "id %d", i);
		KUNIT_EXPECT_NE_MSG(test, ids[i], live,
				    "id %d is the live attachment's", i);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE_MSG(test, ids[i], ids[j],
					    "ids %d and %d", j, i);
	}
	KUNIT_EXPECT_EQ(test, ids[0], U32_MAX - 1);
	KUNIT_EXPECT_EQ(test, ids[1], U32_MAX);
	for (i = 0; i < MF_NF_KUNIT_IDS; i++)
		memfilter_nf_id_free(ids[i]);
	memfilter_nf_id_free(live);
	memfilter_nf_id_set_next(saved);
}

static struct kunit_case memfilter_nf_cases[] = {
	KUNIT_CASE(mf_nf_ids_unique_across_wrap),
	{}
};

static struct kunit_suite memfilter_nf_suite = {
	.name = "memfilter_nf",
	.test_cases = memfilter_nf_cases,
};

kunit_test_suite(memfilter_nf_suite);
