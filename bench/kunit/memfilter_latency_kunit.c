// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit benchmark memfilter_latency: how long softirqs wait while a big
 * cuckoo filter (512 MiB) is dumped or cleared. It is a measurement, not a
 * test: it asserts only that it ran, prints its figures, and is built as
 * its own module (memfilter_latency_kunit.ko) that `make check` does not
 * load. bench/latency-vm.sh boots the debug test kernel and runs it.
 *
 * The probe is a pinned softirq hrtimer firing every 100 us on the CPU
 * doing the work; its worst lateness is the longest time softirqs could
 * not run there. "Before" is the design the module's bounded steps
 * replace: the whole table copied (dump) or zeroed (clear) in one
 * spin_lock_bh() section. "After" calls the module's own dump and clear. The probe's
 * figure includes the emulator's and the host's scheduling; the length of
 * each locked section itself is timed too, by wrapping the filter's step
 * and add operations (as the memfilter_bounds suite counts them): the
 * longest dump and clear step, and the longest 16-key writer section in a
 * cuckoo filter 85% full (long cuckoo paths).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/vmalloc.h>

#include "filter/filter.h"
#include "kernel_compat.h"
#include <linux/memfilter.h>

#define MF_LAT_PERIOD_NS	(100 * NSEC_PER_USEC)

/* The filter's ops, wrapped to time each call made inside a section. */
static struct {
	struct memfilter_type_ops ops;
	const struct memfilter_type_ops *real;
	u64 max_ns, sum_ns, calls;
} mf_lat_wrap;

static void mf_lat_max(u64 t0)
{
	u64 ns = ktime_get_ns() - t0;

	mf_lat_wrap.calls++;
	mf_lat_wrap.sum_ns += ns;
	if (ns > mf_lat_wrap.max_ns)
		mf_lat_wrap.max_ns = ns;
}

static void mf_lat_clear_step(union memfilter_state *s, u64 k)
{
	u64 t0 = ktime_get_ns();

	mf_lat_wrap.real->clear_step(s, k);
	mf_lat_max(t0);
}

static void mf_lat_copy_step(union memfilter_state *s, u64 k)
{
	u64 t0 = ktime_get_ns();

	mf_lat_wrap.real->copy_step(s, k);
	mf_lat_max(t0);
}

static int mf_lat_add(union memfilter_state *s, const u64 *hashes, u32 n,
		      unsigned long *result, u32 *done)
{
	u64 t0 = ktime_get_ns();
	int ret = mf_lat_wrap.real->add(s, hashes, n, result, done);

	mf_lat_max(t0);
	return ret;
}

/*
 * Time @f's sections from now on; mf_lat_unwrap() gives the longest.
 * Under TCG the longest is mostly the host descheduling the vCPU (the
 * guest clock then jumps by milliseconds); the mean is the section's cost.
 */
static void mf_lat_wrap_ops(struct memfilter *f)
{
	mf_lat_wrap.real = f->ops;
	mf_lat_wrap.ops = *f->ops;
	mf_lat_wrap.ops.clear_step = mf_lat_clear_step;
	mf_lat_wrap.ops.copy_step = mf_lat_copy_step;
	mf_lat_wrap.ops.add = mf_lat_add;
	mf_lat_wrap.max_ns = 0;
	mf_lat_wrap.sum_ns = 0;
	mf_lat_wrap.calls = 0;
	f->ops = &mf_lat_wrap.ops;
}

static u64 mf_lat_unwrap(struct memfilter *f)
{
	f->ops = mf_lat_wrap.real;
	return mf_lat_wrap.max_ns;
}

struct mf_lat {
	struct hrtimer timer;
	u64 worst_ns;
	u64 fires;
	bool stop;
};

static enum hrtimer_restart mf_lat_fire(struct hrtimer *t)
{
	struct mf_lat *l = container_of(t, struct mf_lat, timer);
	s64 late = ktime_to_ns(ktime_sub(ktime_get(), hrtimer_get_expires(t)));

	if (late > 0 && late > l->worst_ns)
		l->worst_ns = late;
	l->fires++;
	if (READ_ONCE(l->stop))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(MF_LAT_PERIOD_NS));
	return HRTIMER_RESTART;
}

static void mf_lat_start(struct mf_lat *l)
{
	memset(l, 0, sizeof(*l));
	hrtimer_setup(&l->timer, mf_lat_fire, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_PINNED_SOFT);
	hrtimer_start(&l->timer, ns_to_ktime(MF_LAT_PERIOD_NS),
		      HRTIMER_MODE_REL_PINNED_SOFT);
	/* Let it settle: a few periods of idle-CPU lateness first. */
	schedule_timeout_uninterruptible(msecs_to_jiffies(20));
}

static u64 mf_lat_stop(struct mf_lat *l)
{
	WRITE_ONCE(l->stop, true);
	hrtimer_cancel(&l->timer);
	return l->worst_ns;
}

/* Dump and clear a 512 MiB cuckoo filter the old way and the new way. */
static void mf_latency_512mib(struct kunit *test)
{
	struct memfilter_create c = {
		.size = sizeof(c), .type = MEMFILTER_TYPE_CUCKOO,
		.capacity = 240000000, .fingerprint_bits = 16,
	};
	u64 payload, t0, held, step, lat[4];
	struct memfilter *f;
	struct mf_lat l;
	size_t len;
	void *snap;

	/* Work and probe on one CPU: the probe's softirq runs there. */
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(0)), 0);
	f = memfilter_filter_create(&c);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	payload = f->ops->payload_bytes(f->ops->params_of(&f->s));
	kunit_info(test, "cuckoo table: %llu MiB", payload >> 20);

	/* Before: one locked memcpy of the whole table. */
	snap = vmalloc(payload);
	KUNIT_ASSERT_NOT_NULL(test, snap);
	mf_lat_start(&l);
	t0 = ktime_get_ns();
	spin_lock_bh(&f->lock);
	memcpy(snap, f->s.cuckoo.table, payload);
	spin_unlock_bh(&f->lock);
	held = ktime_get_ns() - t0;
	lat[0] = mf_lat_stop(&l);
	vfree(snap);
	kunit_info(test, "dump before: one bh-off section of %llu ns; worst softirq delay %llu ns",
		   held, lat[0]);

	/* After: the module's dump, 16 KiB per locked step. */
	mf_lat_wrap_ops(f);
	mf_lat_start(&l);
	t0 = ktime_get_ns();
	snap = memfilter_filter_image(f, &len);
	held = ktime_get_ns() - t0;
	lat[1] = mf_lat_stop(&l);
	step = mf_lat_unwrap(f);
	KUNIT_ASSERT_FALSE(test, IS_ERR(snap));
	memfilter_filter_image_free(snap, len);
	kunit_info(test, "dump after: %llu ns in all, %llu steps of mean %llu ns, longest %llu ns; worst softirq delay %llu ns",
		   held, mf_lat_wrap.calls,
		   div64_u64(mf_lat_wrap.sum_ns, mf_lat_wrap.calls ?: 1), step,
		   lat[1]);

	/* After: the module's clear. */
	mf_lat_wrap_ops(f);
	mf_lat_start(&l);
	t0 = ktime_get_ns();
	memfilter_filter_clear(f);
	held = ktime_get_ns() - t0;
	lat[2] = mf_lat_stop(&l);
	step = mf_lat_unwrap(f);
	kunit_info(test, "clear after: %llu ns in all, %llu steps of mean %llu ns, longest %llu ns; worst softirq delay %llu ns",
		   held, mf_lat_wrap.calls,
		   div64_u64(mf_lat_wrap.sum_ns, mf_lat_wrap.calls ?: 1), step,
		   lat[2]);

	/*
	 * Before: the old clear, one memset of the whole table under the
	 * lock. Last, since a debug kernel may call it a soft lockup.
	 */
	mf_lat_start(&l);
	t0 = ktime_get_ns();
	spin_lock_bh(&f->lock);
	memset(f->s.cuckoo.table, 0, payload);
	spin_unlock_bh(&f->lock);
	held = ktime_get_ns() - t0;
	lat[3] = mf_lat_stop(&l);
	kunit_info(test, "clear before: one bh-off section of %llu ns; worst softirq delay %llu ns",
		   held, lat[3]);

	memfilter_put(f);
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	KUNIT_EXPECT_GT(test, l.fires, 0ULL);
}

/*
 * Writers: 20000 keys into a cuckoo filter 85% full (of its slots), 16 keys
 * per locked section; the longest section, and the probe's worst delay.
 */
static void mf_latency_writers(struct kunit *test)
{
	struct memfilter_create c = {
		.size = sizeof(c), .type = MEMFILTER_TYPE_CUCKOO,
		.capacity = 249000, .fingerprint_bits = 8,
		.flags = MEMFILTER_CREATE_SEED, .seed = 7,
	};
	const u32 fill = 224000, more = 20000;
	struct memfilter *f;
	struct mf_lat l;
	u64 *keys, i, t0, held, lat, step;
	u32 done;

	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(0)), 0);
	f = memfilter_filter_create(&c);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	keys = kunit_kmalloc_array(test, fill + more, sizeof(*keys), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, keys);
	for (i = 0; i < fill + more; i++)
		keys[i] = i;
	KUNIT_ASSERT_EQ(test, memfilter_add_batch(f, keys, sizeof(*keys), fill,
						  &done), 0);
	mf_lat_wrap_ops(f);
	mf_lat_start(&l);
	t0 = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, memfilter_add_batch(f, keys + fill, sizeof(*keys),
						  more, &done), 0);
	held = ktime_get_ns() - t0;
	lat = mf_lat_stop(&l);
	step = mf_lat_unwrap(f);
	kunit_info(test, "writers: %u keys in %llu ns, %llu sections of mean %llu ns, longest %llu ns; worst softirq delay %llu ns",
		   more, held, mf_lat_wrap.calls,
		   div64_u64(mf_lat_wrap.sum_ns, mf_lat_wrap.calls ?: 1), step,
		   lat);
	memfilter_put(f);
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	KUNIT_EXPECT_GT(test, l.fires, 0ULL);
}

static struct kunit_case memfilter_latency_cases[] = {
	KUNIT_CASE_SLOW(mf_latency_512mib),
	KUNIT_CASE_SLOW(mf_latency_writers),
	{}
};

static struct kunit_suite memfilter_latency_suite = {
	.name = "memfilter_latency",
	.test_cases = memfilter_latency_cases,
};

kunit_test_suite(memfilter_latency_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("memfilter bottom-half latency benchmark (not a test)");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
