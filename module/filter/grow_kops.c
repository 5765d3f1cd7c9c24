// SPDX-License-Identifier: GPL-2.0
/*
 * memfilter's growing filters in the module: where their sub-filters'
 * memory comes from. The algorithm is in core/grow.c; the type's table
 * does the rest.
 *
 * Conventions in this file: a sub-filter is allocated (GFP_KERNEL,
 * charged to max_filter_mb and max_total_mb like the table) only in
 * process context, under f->grow.lock: by the filter's work item, queued
 * when an add leaves the newest sub-filter half full, so that the next
 * one is ready before it fills (inserts never allocate: the kfuncs,
 * netfilter and device-mapper paths insert from softirq context), and by
 * ioctls that found the filter full before the work item ran
 * (memfilter_filter_add_sleepable()). An add in atomic context that finds
 * the newest full and no next one made gets -EAGAIN while the work item
 * can still make it, -ENOSPC once the filter is at its limits. Dumps hold
 * f->grow.lock, so the sub-filters an image lists hold still.
 * Every sub-filter is charged to the memory cgroup the filter was
 * created in, as its first table was, whichever add makes it: the work
 * item runs in a kernel thread, which no cgroup would pay for.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <kunit/visibility.h>
#include <linux/jiffies.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/sched/mm.h>
#include <linux/workqueue.h>

#include "filter.h"
#include "kernel_compat.h"

/*
 * How long atomic-context adds take a growing filter that hit the
 * module's max_total_mb as full before they queue another try (adds
 * that may sleep try again each time: mf_grow_added()).
 */
#define MF_GROW_RETRY	HZ

/*
 * Whether adds should give up on growing: the filter's own limits, or
 * the module's memory limit until its retry time.
 */
static bool mf_grow_stuck(const struct memfilter *f)
{
	return READ_ONCE(f->grow.full) ||
	       (READ_ONCE(f->grow.mem_full) &&
		time_before(jiffies, READ_ONCE(f->grow.retry)));
}

/* Make the next sub-filter, with f->grow.lock held. */
static int mf_grow_locked(struct memfilter *f)
{
	const struct memfilter_type_ops *ops = f->ops;
	u64 bytes = ops->next_bytes(&f->s), max;
	u32 n = f->s.grow.p.nsubs;
	struct mem_cgroup *old;
	void *raw;

	lockdep_assert_held(&f->grow.lock);
	if (check_shl_overflow((u64)memfilter_max_filter_mb, 20, &max))
		max = U64_MAX;
	if (!bytes || f->bytes + bytes > max) {
		WRITE_ONCE(f->grow.full, true);
		return -ENOSPC;
	}
	if (memfilter_charge(bytes)) {
		/* Until other filters give memory back: try again later. */
		WRITE_ONCE(f->grow.retry, jiffies + MF_GROW_RETRY);
		WRITE_ONCE(f->grow.mem_full, true);
		return -ENOSPC;
	}
	old = set_active_memcg(f->grow.memcg);
	raw = memfilter_table_alloc(bytes + MEMFILTER_BLOOM_BLOCK_BYTES - 1);
	set_active_memcg(old);
	if (!raw) {
		memfilter_uncharge(bytes);
		return -ENOMEM;
	}
	f->grow.raw[n] = raw;
	WRITE_ONCE(f->bytes, f->bytes + bytes);
	WRITE_ONCE(f->grow.full, false);
	WRITE_ONCE(f->grow.mem_full, false);
	ops->attach(&f->s, PTR_ALIGN(raw, MEMFILTER_BLOOM_BLOCK_BYTES));
	return 0;
}

/**
 * memfilter_grow_prepare() - make sure the next sub-filter exists
 * @f: a growing filter
 *
 * Makes it unless one was made after the newest in use already.
 *
 * Context: process context, may sleep.
 * Return: 0 if a sub-filter after the newest in use exists now; -ENOSPC
 * past max_subs, the layout's reach or the module's memory limits;
 * -ENOMEM.
 */
int memfilter_grow_prepare(struct memfilter *f)
{
	int ret = 0;

	mutex_lock(&f->grow.lock);
	/* Pairs with memfilter_grow_attach() (ours: only we make them). */
	if (smp_load_acquire(&f->s.grow.p.nsubs) ==
	    memfilter_grow_active(&f->s.grow)) {
		ret = mf_grow_locked(f);
	} else {	/* made meanwhile */
		WRITE_ONCE(f->grow.full, false);
		WRITE_ONCE(f->grow.mem_full, false);
	}
	mutex_unlock(&f->grow.lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_grow_prepare);

static void mf_grow_work(struct work_struct *work)
{
	struct memfilter *f = container_of(work, struct memfilter, grow.work);

	if (f->ops->wants_next(&f->s))
		memfilter_grow_prepare(f);
}

/* The hooks of memfilter_grow_kops: see struct memfilter_kops. */

static void mf_grow_kinit(struct memfilter *f)
{
	mutex_init(&f->grow.lock);
	INIT_WORK(&f->grow.work, mf_grow_work);
	/* The creator's: the active one if set, else its task's (or root). */
	f->grow.memcg = get_mem_cgroup_from_mm(NULL);
}

static void mf_grow_kfree(struct memfilter *f)
{
	u32 i;

	cancel_work_sync(&f->grow.work);
	for (i = 0; i < MEMFILTER_GROW_MAX_SUBS; i++)
		kvfree(f->grow.raw[i]);
	mem_cgroup_put(f->grow.memcg);
	mutex_destroy(&f->grow.lock);
}

/* Whether a sub-filter was made after the newest in use. */
static bool mf_grow_made_next(const struct memfilter_grow *g)
{
	/* Pairs with memfilter_grow_attach(). */
	return smp_load_acquire(&g->p.nsubs) > memfilter_grow_active(g);
}

/*
 * After every add: queue the next sub-filter when the newest is half
 * full; an add it stopped is -EAGAIN while there is room after the
 * newest (the work item made the next sub-filter after the add gave
 * up: the retry moves to it) or the work item may still make some,
 * -ENOSPC once it found the filter at its limits. An add that may sleep
 * makes the next sub-filter itself (memfilter_grow_prepare()), at once
 * even while atomic adds back off from max_total_mb: -EAGAIN unless the
 * filter's own limits stop it.
 */
static int mf_grow_added(struct memfilter *f, int ret, bool may_sleep)
{
	struct memfilter_grow *g = &f->s.grow;

	if (f->ops->wants_next(&f->s) && !mf_grow_stuck(f))
		queue_work(system_dfl_wq, &f->grow.work);
	if (ret != -ENOSPC)
		return ret;
	if (mf_grow_made_next(g))
		return -EAGAIN;
	/*
	 * At its limits, unless the work item made the last sub-filter
	 * since the check above: then next_bytes() of the count it left
	 * is 0 (or a try after it set full), and the add's retry goes on
	 * in that sub-filter.
	 */
	if (READ_ONCE(f->grow.full) || !f->ops->next_bytes(&f->s))
		return mf_grow_made_next(g) ? -EAGAIN : ret;
	if (may_sleep)
		return -EAGAIN;
	if (mf_grow_stuck(f))
		return ret;
	queue_work(system_dfl_wq, &f->grow.work);
	return -EAGAIN;
}

static int mf_grow_make_room(struct memfilter *f)
{
	return memfilter_grow_prepare(f);
}

static void mf_grow_image_begin(struct memfilter *f)
{
	mutex_lock(&f->grow.lock);
}

static void mf_grow_image_end(struct memfilter *f)
{
	mutex_unlock(&f->grow.lock);
}

const struct memfilter_kops memfilter_grow_kops = {
	.ops = &memfilter_grow_ops,
	.init = mf_grow_kinit,
	.added = mf_grow_added,
	.make_room = mf_grow_make_room,
	.image_begin = mf_grow_image_begin,
	.image_end = mf_grow_image_end,
	.free = mf_grow_kfree,
};
