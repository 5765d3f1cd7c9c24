// SPDX-License-Identifier: GPL-2.0
/*
 * memfilter's window filters in the module: their rotation, by period (a
 * delayed work), by count (an add that fills the current generation) or
 * on request (MEMFILTER_IOC_ROTATE). The algorithm and its memory-ordering
 * argument are in core/window.c; the type's table does the rest.
 *
 * Conventions in this file: rotations of one filter are serialized by
 * f->rot.lock and run in process context (the work runs on
 * system_unbound_wq): wait for the inserters of the previous publish
 * (cond_synchronize_rcu() on the cookie taken right after it, usually
 * expired long ago), clear the oldest generation in chunks with
 * cond_resched() in between, publish it, take a new cookie. Inserts run
 * inside rcu_read_lock() (filter.c runs every writer so), from reading
 * the current generation to their last bit. Queries take no lock. Every
 * filter has a struct memfilter_rotation, set up at allocation; only
 * window filters ever arm it. Times are milliseconds of boot time
 * (memfilter_now_ms()), compared by signed differences.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>

#include "filter.h"

static bool mf_is_window(const struct memfilter *f)
{
	return f->ops == &memfilter_window_ops;
}

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
	queue_delayed_work(system_unbound_wq, &f->rot.work,
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
	if (!mf_is_window(f))
		return -EOPNOTSUPP;
	mutex_lock(&f->rot.lock);
	mf_rotate_locked(f, memfilter_now_ms());
	mutex_unlock(&f->rot.lock);
	if (f->s.window.p.period_ms)
		mod_delayed_work(system_unbound_wq, &f->rot.work,
				 mf_ms_to_jiffies(f->s.window.p.period_ms));
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_rotate);

/**
 * memfilter_rotation_init() - set up a new filter's rotation state
 * @f: the filter, just allocated
 *
 * Context: process context.
 */
void memfilter_rotation_init(struct memfilter *f)
{
	mutex_init(&f->rot.lock);
	INIT_DELAYED_WORK(&f->rot.work, mf_rotation_work);
	f->rot.cookie = get_state_synchronize_rcu();
}

/**
 * memfilter_rotation_start() - start a complete window filter's timer
 * @f: the filter, created or loaded, not yet shared; others are ignored
 *
 * Context: process context.
 */
void memfilter_rotation_start(struct memfilter *f)
{
	if (mf_is_window(f))
		mf_rotation_arm(f);
}

/**
 * memfilter_rotation_stop() - stop a filter's timer for good
 * @f: the filter, no longer reachable by anyone
 *
 * Context: process context, may sleep.
 */
void memfilter_rotation_stop(struct memfilter *f)
{
	cancel_delayed_work_sync(&f->rot.work);
	mutex_destroy(&f->rot.lock);
}

/**
 * memfilter_rotation_added() - a batch was added: rotate if it filled up
 * @f: the filter; only window filters rotating by count are concerned
 *
 * Context: any but hard interrupt; does not sleep (queues the work).
 */
void memfilter_rotation_added(struct memfilter *f)
{
	const struct memfilter_window *w = &f->s.window;

	if (mf_is_window(f) && (w->p.flags & MEMFILTER_WINDOW_ROTATE_BY_COUNT) &&
	    READ_ONCE(w->gen_keys[memfilter_window_current(w)]) >=
	    w->p.gen.capacity)
		mod_delayed_work(system_unbound_wq, &f->rot.work, 0);
}

/**
 * memfilter_rotation_lock() - keep rotations out (image dumps)
 * @f: the filter
 *
 * Context: process context, may sleep.
 */
void memfilter_rotation_lock(struct memfilter *f)
{
	mutex_lock(&f->rot.lock);
}

/**
 * memfilter_rotation_unlock() - let rotations in again
 * @f: the filter
 *
 * Context: process context.
 */
void memfilter_rotation_unlock(struct memfilter *f)
{
	mutex_unlock(&f->rot.lock);
}

/**
 * memfilter_window_gens() - a window filter's generations, for INFO
 * @f: the filter
 * @g: out: MEMFILTER_WINDOW_MAX_GENS entries, the first G filled
 *
 * Context: process context, may sleep; a lockless snapshot, linear in
 * the table (memfilter_window_gen_popcount() yields).
 * Return: G, or 0 if @f is not a window filter.
 */
u32 memfilter_window_gens(struct memfilter *f, struct memfilter_generation *g)
{
	if (!mf_is_window(f))
		return 0;
	memfilter_window_gen_info(&f->s.window, memfilter_now_ms(), g);
	return f->s.window.p.generations;
}
