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
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "cuckoo.h"

/*
 * A case that runs on one thread (statistics over a million keys,
 * sequential properties) cannot race, and the KCSAN kernel, whose job is
 * finding races, spends 100 s on such cases under its instrumentation:
 * there they are skipped. The debug kernel (KASAN, lockdep) runs them all.
 */
static inline void memfilter_kunit_concurrent_only_under_kcsan(struct kunit *test)
{
	if (IS_ENABLED(CONFIG_KCSAN))
		kunit_skip(test, "one thread: no race for KCSAN; the debug kernel runs it");
}

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

/* An empty cuckoo filter (XXH64, seed 0xc0c0) that KUnit frees. */
static inline struct memfilter_cuckoo *
memfilter_kunit_cuckoo(struct kunit *test, u64 capacity, u32 fp_bits)
{
	struct memfilter_cuckoo *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct memfilter_cuckoo_params p;
	void *mem;

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_EQ(test, memfilter_cuckoo_params_init(&p, capacity, fp_bits),
			0);
	KUNIT_ASSERT_EQ(test, memfilter_hasher_init(&p.hasher, MEMFILTER_HASH_XXH64,
						    0xc0c0, NULL), 0);
	mem = memfilter_kunit_alloc(test, 1, memfilter_cuckoo_mem_bytes(&p) + 64);
	memfilter_cuckoo_init(c, &p, PTR_ALIGN(mem, 64));
	return c;
}

/*
 * Start the @n threads @t made by kthread_create(), last first, or none:
 * if any of them failed, stop the others, fail @test and return the
 * error. A thread stopped before it was woken never runs its function.
 */
static inline int memfilter_kunit_start_threads(struct kunit *test,
						struct task_struct **t, int n)
{
	int i, err = 0;

	for (i = 0; i < n; i++)
		if (IS_ERR(t[i]))
			err = PTR_ERR(t[i]);
	if (err) {
		for (i = 0; i < n; i++)
			if (!IS_ERR(t[i]))
				kthread_stop(t[i]);
		KUNIT_FAIL(test, "kthread_create: %d", err);
		return err;
	}
	for (i = n - 1; i >= 0; i--)
		wake_up_process(t[i]);
	return 0;
}

#endif /* _MEMFILTER_KUNIT_HELPERS_H */
