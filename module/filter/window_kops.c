// SPDX-License-Identifier: GPL-2.0
/*
 * memfilter's window filters in the module: their rotation, by period (a
 * delayed work), by count (an add that fills the current generation) or
 * on request (MEMFILTER_IOC_ROTATE). The algorithm and its memory-ordering
 * argument are in core/window.c; the type's table does the rest.
 *
 * By count, the type's add stops where the current generation reaches its
 * capacity (core/window.c claims room before it writes), so no generation
 * ever holds more. The add that fills it queues the rotation at once; an
 * add that found it full is -EAGAIN (memfilter_window_added()), and the ioctls,
 * in process context, rotate then and there and go on with the rest of
 * the batch (mf_window_make_room(), through
 * memfilter_filter_add_sleepable()), so a batch is split exactly where
 * each generation fills. The in-kernel API, kfuncs and netfilter (any
 * context but hard interrupt) cannot wait for a rotation: they get
 * -EAGAIN, the key not added, until the work item has rotated, as they do
 * from a growing filter whose next sub-filter is not made yet.
 *
 * Conventions in this file: rotations of one filter are serialized by
 * f->rot.lock and run in process context (the work runs on
 * system_dfl_wq): wait for the inserters of the previous publish
 * (cond_synchronize_rcu() on the cookie taken right after it, usually
 * expired long ago), clear the oldest generation in chunks with
 * cond_resched() in between, publish it, take a new cookie. Inserts run
 * inside rcu_read_lock() (filter.c runs every writer so), from reading
 * the current generation to their last bit. Queries take no lock. Every
 * window filter has a struct memfilter_rotation, set up at allocation
 * (memfilter_window_kops, the type's kernel-side hooks). Times are milliseconds of boot time
 * (memfilter_now_ms()), compared by signed differences.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>

#include "filter.h"
#include "kernel_compat.h"

/* One rotation at time @now, with f->rot.lock held. */
static void mf_rotate_locked(struct memfilter *f, u64 now)
{
	struct memfilter_window *w = &f->s.window;
	u32 gen = memfilter_window_oldest(w);
	u64 g;

	lockdep_assert_held(&f->rot.lock);
	cond_synchronize_rcu(f->rot.cookie);
	for (g = 0; g < w->p.gen.nblocks; g += MEMFILTER_WINDOW_CLEAR_CHUNK) {
		memfilter_window_clear_gen(w, gen, g,
					   MEMFILTER_WINDOW_CLEAR_CHUNK);
		cond_resched();
	}
	/*
	 * Born when published, not when the rotation began: waiting for the
	 * inserters and clearing take time, and the keys added to the
	 * previous generation until now are owed their whole window (found
	 * by the ioctl fuzzer: stamped with @now, a key could go (G - 1) * P
	 * minus this rotation's length after its add). KUnit's injected
	 * clocks run ahead of the real one: the later of the two.
	 */
	memfilter_window_publish(w, gen, max(now, memfilter_now_ms()));
	f->rot.cookie = get_state_synchronize_rcu();
}

/*
 * How long generation @cur has been current at @now (0 if born later, as
 * KUnit's injected clocks may have it), and whether its period is over.
 * Periods may be anything up to U64_MAX: compared unsigned, never
 * subtracted, so a huge one is never due (it was, above 2^63).
 */
static u64 mf_gen_age(const struct memfilter_window *w, u32 cur, u64 now)
{
	u64 age = now - READ_ONCE(w->born[cur]);

	return (s64)age < 0 ? 0 : age;
}

/* msecs_to_jiffies() takes an unsigned int: longer waits are capped. */
static unsigned long mf_ms_to_jiffies(u64 ms)
{
	return msecs_to_jiffies(min_t(u64, ms, UINT_MAX));
}

/* Queue the work for the end of the current generation's period. */
static void mf_rotation_arm(struct memfilter *f)
{
	const struct memfilter_window *w = &f->s.window;
	u64 period = w->p.period_ms, age;

	if (!period)
		return;
	age = mf_gen_age(w, memfilter_window_current(w), memfilter_now_ms());
	queue_delayed_work(system_dfl_wq, &f->rot.work,
			   age < period ? mf_ms_to_jiffies(period - age) : 0);
}

/**
 * memfilter_rotate_tick() - rotate a window filter if a rotation is due
 * @f: a window filter
 * @now: the time, ms of boot time (KUnit injects its own)
 *
 * Due when the current generation is a period old, or, with
 * MEMFILTER_WINDOW_ROTATE_BY_COUNT, holds its capacity of keys.
 *
 * Context: process context, may sleep (an RCU grace period, rarely).
 * Return: true if it rotated.
 */
bool memfilter_rotate_tick(struct memfilter *f, u64 now)
{
	struct memfilter_window *w = &f->s.window;
	bool due;
	u32 cur;

	mutex_lock(&f->rot.lock);
	cur = memfilter_window_current(w);
	due = (w->p.period_ms && mf_gen_age(w, cur, now) >= w->p.period_ms) ||
	      ((w->p.flags & MEMFILTER_WINDOW_ROTATE_BY_COUNT) &&
	       READ_ONCE(w->gen_keys[cur]) >= w->p.gen.capacity);
	if (due)
		mf_rotate_locked(f, now);
	mutex_unlock(&f->rot.lock);
	return due;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_rotate_tick);

static void mf_rotation_work(struct work_struct *work)
{
	struct memfilter *f = container_of(to_delayed_work(work),
					   struct memfilter, rot.work);

	memfilter_rotate_tick(f, memfilter_now_ms());
	mf_rotation_arm(f);
}

/**
 * memfilter_rotate() - rotate a window filter now
 * @f: the filter
 *
 * The period, if any, restarts from now.
 *
 * Context: process context, may sleep.
 * Return: 0, or -EOPNOTSUPP if @f is not a window filter.
 */
int memfilter_rotate(struct memfilter *f)
{
	if (f->ops != &memfilter_window_ops)
		return -EOPNOTSUPP;
	mutex_lock(&f->rot.lock);
	mf_rotate_locked(f, memfilter_now_ms());
	mutex_unlock(&f->rot.lock);
	if (f->s.window.p.period_ms)
		mod_delayed_work(system_dfl_wq, &f->rot.work,
				 mf_ms_to_jiffies(f->s.window.p.period_ms));
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_rotate);

/* The hooks of memfilter_window_kops: see struct memfilter_kops. */

static void mf_window_kinit(struct memfilter *f)
{
	mutex_init(&f->rot.lock);
	INIT_DELAYED_WORK(&f->rot.work, mf_rotation_work);
	f->rot.cookie = get_state_synchronize_rcu();
}

static void mf_window_kfree(struct memfilter *f)
{
	cancel_delayed_work_sync(&f->rot.work);
	mutex_destroy(&f->rot.lock);
}

/*
 * A batch was added: rotate now if it filled the current generation; an
 * add the full generation stopped (-ENOSPC, by count only) is -EAGAIN,
 * "retry once the rotation is done". The kops' added; called directly by
 * memfilter_test_and_add() (no indirect call per packet).
 */
int memfilter_window_added(struct memfilter *f, int ret, bool may_sleep)
{
	const struct memfilter_window *w = &f->s.window;

	if (!(w->p.flags & MEMFILTER_WINDOW_ROTATE_BY_COUNT))
		return ret;
	if (ret == -ENOSPC ||
	    READ_ONCE(w->gen_keys[memfilter_window_current(w)]) >=
	    w->p.gen.capacity)
		mod_delayed_work(system_dfl_wq, &f->rot.work, 0);
	return ret == -ENOSPC ? -EAGAIN : ret;
}

/*
 * An ioctl's add found the current generation full: rotate now, unless
 * the work item (or another adder) already has; then the add goes on.
 */
static int mf_window_make_room(struct memfilter *f)
{
	memfilter_rotate_tick(f, memfilter_now_ms());
	return 0;
}

/* Dumps keep rotations out. */
static void mf_window_image_begin(struct memfilter *f)
{
	mutex_lock(&f->rot.lock);
}

static void mf_window_image_end(struct memfilter *f)
{
	mutex_unlock(&f->rot.lock);
}

/* For INFO: a lockless snapshot, linear in the table (it yields). */
static u32 mf_window_info_parts(struct memfilter *f,
				struct memfilter_generation *g)
{
	memfilter_window_gen_info(&f->s.window, memfilter_now_ms(), g);
	return f->s.window.p.generations;
}

const struct memfilter_kops memfilter_window_kops = {
	.ops = &memfilter_window_ops,
	.init = mf_window_kinit,
	.start = mf_rotation_arm,
	.added = memfilter_window_added,
	.make_room = mf_window_make_room,
	.rotate = memfilter_rotate,
	.image_begin = mf_window_image_begin,
	.image_end = mf_window_image_end,
	.info_parts = mf_window_info_parts,
	.free = mf_window_kfree,
};
