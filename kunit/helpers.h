/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by memfilter's KUnit suites.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_KUNIT_HELPERS_H
#define _MEMFILTER_KUNIT_HELPERS_H

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/slab.h>

static inline void memfilter_kunit_kvfree(void *p)
{
	kvfree(p);
}

/* Zeroed memory, any size, that KUnit frees when the test ends. */
static inline void *memfilter_kunit_alloc(struct kunit *test, size_t n, size_t size)
{
	void *p = kvcalloc(n, size, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, memfilter_kunit_kvfree, p),
			0);
	return p;
}

#endif /* _MEMFILTER_KUNIT_HELPERS_H */
