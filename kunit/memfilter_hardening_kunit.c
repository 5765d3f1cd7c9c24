// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite memfilter_hardening: the bounds that let memfilter run next
 * to packet paths. A cuckoo reader whose stripe a writer left odd (the
 * writer interrupted by that very reader) returns; the SIMD batch asked
 * from NMI context goes scalar without asking may_use_simd(), and a
 * softirq's batch takes the path the running kernel gives it while a
 * task is in a SIMD section; a stepwise copy of a cuckoo table taken
 * while a writer churns is the table of one instant (it restores, and
 * holds every key); a clear done range by range under a writer leaves the
 * counters consistent with the table.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/hardirq.h>
#include <linux/interrupt.h>
#include <linux/kthread.h>
#include <linux/preempt.h>
#include <linux/spinlock.h>

#include "bloom.h"
#include "cuckoo.h"
#include "filter/filter.h"
#include "helpers.h"
#include "kernel_compat.h"

static u64 mf_hh(u64 i)
{
	return memfilter_xxh64(&i, sizeof(i), 0x4242);
}

/*
 * A writer interrupted inside an update leaves its stripe odd until the
 * interrupt returns; a reader in that interrupt must not wait for it.
 */
static void mf_odd_stripe_does_not_hang(struct kunit *test)
{
	struct memfilter_cuckoo *c = memfilter_kunit_cuckoo(test, 4096, 12);
	u64 present = mf_hh(1), absent = mf_hh(2), i1, i2;
	struct memfilter_cuckoo_snapshot s;
	unsigned long res = 0;
	u32 *v, fp;

	KUNIT_ASSERT_EQ(test, memfilter_cuckoo_add_hash(c, present), 0);
	KUNIT_ASSERT_FALSE(test, memfilter_cuckoo_contains_hash(c, absent));
	memfilter_cuckoo_locate(c, absent, &i1, &i2, &fp);
	v = &c->ver[i1 & c->stripe_mask];
	/* An open window: its stripe and the table's version both odd. */
	WRITE_ONCE(*v, *v + 1);
	WRITE_ONCE(*c->gen, *c->gen + 1);
	KUNIT_EXPECT_TRUE(test, memfilter_cuckoo_contains_hash(c, absent));
	memfilter_cuckoo_contains_hashes(c, &absent, 1, &res);
	KUNIT_EXPECT_EQ(test, res & 1, 1UL);
	KUNIT_EXPECT_EQ(test, memfilter_cuckoo_count_hash(c, absent),
			MEMFILTER_CUCKOO_COUNT_BUSY);
	KUNIT_EXPECT_TRUE(test, memfilter_cuckoo_contains_hash(c, present));
	/* Three reads gave up, each after every one of its attempts. */
	memfilter_cuckoo_stats(c, &s);
	KUNIT_EXPECT_EQ(test, s.read_busy, 3ULL);
	KUNIT_EXPECT_EQ(test, s.read_retries, 3ULL * MEMFILTER_CUCKOO_READ_TRIES);
	WRITE_ONCE(*v, *v + 1);
	WRITE_ONCE(*c->gen, *c->gen + 1);
	KUNIT_EXPECT_FALSE(test, memfilter_cuckoo_contains_hash(c, absent));
	memfilter_cuckoo_contains_hashes(c, &absent, 1, &res);
	KUNIT_EXPECT_EQ(test, res & 1, 0UL);
	KUNIT_EXPECT_EQ(test, memfilter_cuckoo_count_hash(c, absent), 0U);
	memfilter_cuckoo_stats(c, &s);
	KUNIT_EXPECT_EQ(test, s.read_busy, 3ULL);
	KUNIT_EXPECT_EQ(test, s.read_retries, 3ULL * MEMFILTER_CUCKOO_READ_TRIES);
}

/*
 * A Bloom batch query from NMI context (a tracing hook) must not ask
 * may_use_simd(): on 6.1 and 6.12 irq_fpu_usable() WARNs in NMI, which
 * panics a panic_on_warn machine. The NMI is simulated by the preempt
 * count, with interrupts off, as nmi_enter() sets it.
 */
static void mf_simd_not_asked_in_nmi(struct kunit *test)
{
	struct memfilter_bloom *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	unsigned long res[BITS_TO_LONGS(64)] = {}, flags;
	u64 h[64];
	bool simd;
	void *mem;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_EQ(test, memfilter_bloom_params_from_bpk(&b->p, 1000, 40,
							      MEMFILTER_BLOOM_LINE64), 0);
	mem = memfilter_kunit_alloc(test, 1, memfilter_bloom_bytes(&b->p) + 64);
	b->words = PTR_ALIGN(mem, 64);
	for (i = 0; i < 64; i++)
		h[i] = mf_hh(i);
	memfilter_bloom_add_hashes(b, h, 32);

	local_irq_save(flags);
	__preempt_count_add(NMI_OFFSET + HARDIRQ_OFFSET);
	simd = memfilter_simd_begin();
	if (simd)
		memfilter_simd_end();
	memfilter_bloom_contains_hashes(b, h, 64, res);
	__preempt_count_sub(NMI_OFFSET + HARDIRQ_OFFSET);
	local_irq_restore(flags);

	KUNIT_EXPECT_FALSE(test, simd);
	for (i = 0; i < 32; i++)
		KUNIT_EXPECT_TRUE(test, test_bit(i, res));
}

/* A softirq's batch asking for the FPU, for mf_simd_softirq_in_fpu_section. */
struct mf_fpu_probe {
	struct tasklet_struct tasklet;
	bool section_open;	/* the task's SIMD section, written by the task */
	bool ran, in_section, simd;
};

static void mf_fpu_probe_fn(struct tasklet_struct *t)
{
	struct mf_fpu_probe *p = from_tasklet(p, t, tasklet);

	p->in_section = READ_ONCE(p->section_open);
	p->simd = memfilter_simd_begin();
	if (p->simd)
		memfilter_simd_end();
	p->ran = true;
}

/*
 * The path a softirq's batch (XDP, TC, netfilter) takes when the softirq
 * comes while the task below it is in a SIMD section (a batch ioctl):
 * before 6.15 the softirq runs inside the section (local_bh_enable() runs
 * it there) and memfilter_simd_begin() says no, so the batch is scalar;
 * from 6.15 kernel_fpu_begin() holds softirqs off, so the softirq runs
 * when the section ends and gets AVX2 (MEMFILTER_FPU_HOLDS_SOFTIRQS,
 * kernel_compat.h; Documentation/filters.rst, "SIMD in the kernel").
 * PREEMPT_RT runs softirqs in threads: not this question.
 */
static void mf_simd_softirq_in_fpu_section(struct kunit *test)
{
	struct mf_fpu_probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		kunit_skip(test, "PREEMPT_RT: softirqs run in threads");
	if (!memfilter_simd_begin())
		kunit_skip(test, "no AVX2 SIMD section on this machine");
	memfilter_simd_end();
	tasklet_setup(&p->tasklet, mf_fpu_probe_fn);

	KUNIT_ASSERT_TRUE(test, memfilter_simd_begin());
	WRITE_ONCE(p->section_open, true);
	tasklet_schedule(&p->tasklet);
	/* Runs pending softirqs now, unless the section holds them off. */
	local_bh_disable();
	local_bh_enable();
	WRITE_ONCE(p->section_open, false);
	memfilter_simd_end();
	tasklet_kill(&p->tasklet);

	KUNIT_EXPECT_TRUE(test, p->ran);
	KUNIT_EXPECT_EQ(test, p->in_section, !MEMFILTER_FPU_HOLDS_SOFTIRQS);
	KUNIT_EXPECT_EQ(test, p->simd, (bool)MEMFILTER_FPU_HOLDS_SOFTIRQS);
}

struct mf_churn {
	struct memfilter_cuckoo *c;
	spinlock_t lock;	/* the writer lock, as the module holds it */
	u64 base;
	u32 n;
	atomic_t stop;
	struct completion done;
};

/* Add and delete keys (with kicks) until told to stop. */
static int mf_churn_writer(void *data)
{
	struct mf_churn *w = data;
	u32 i;

	while (!atomic_read(&w->stop)) {
		for (i = 0; i < w->n; i++) {
			spin_lock_bh(&w->lock);
			memfilter_cuckoo_add_hash(w->c, mf_hh(w->base + i));
			spin_unlock_bh(&w->lock);
		}
		for (i = 0; i < w->n; i++) {
			spin_lock_bh(&w->lock);
			memfilter_cuckoo_delete_hash(w->c, mf_hh(w->base + i));
			spin_unlock_bh(&w->lock);
		}
		cond_resched();
	}
	complete(&w->done);
	return 0;
}

static struct mf_churn *mf_start_churn(struct kunit *test,
				       struct memfilter_cuckoo *c, u32 n)
{
	struct mf_churn *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct task_struct *t;

	KUNIT_ASSERT_NOT_NULL(test, w);
	w->c = c;
	w->base = 1ULL << 40;
	w->n = n;
	spin_lock_init(&w->lock);
	init_completion(&w->done);
	t = kthread_run(mf_churn_writer, w, "mf-churn");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	return w;
}

static void mf_stop_churn(struct mf_churn *w)
{
	atomic_set(&w->stop, 1);
	wait_for_completion(&w->done);
}

/*
 * A stepwise copy taken under a churning writer, with the lock dropped
 * between chunks, is the table of the instant it began: loaded into a new
 * filter it passes the restore check (as many fingerprints as items) and
 * answers "maybe" for every key that was in the filter throughout.
 */
static void mf_stepwise_dump_is_one_instant(struct kunit *test)
{
	const u32 stable = 20000;
	struct memfilter_cuckoo *c = memfilter_kunit_cuckoo(test, 1 << 16, 12);
	struct memfilter_cuckoo *copy = memfilter_kunit_cuckoo(test, 1 << 16, 12);
	struct memfilter_table_copy d = {};
	u64 k, chunks = memfilter_cuckoo_dump_chunks(c);
	struct mf_churn *w;
	u32 i, missing = 0;

	for (i = 0; i < stable; i++)
		KUNIT_ASSERT_EQ(test, memfilter_cuckoo_add_hash(c, mf_hh(i)), 0);
	d.dst = memfilter_kunit_alloc(test, chunks, MEMFILTER_CUCKOO_DUMP_CHUNK);
	d.copied = memfilter_kunit_alloc(test, DIV_ROUND_UP(chunks, 64),
					 sizeof(u64));
	w = mf_start_churn(test, c, (u32)(c->p.nbuckets * 4 * 90 / 100) - stable);

	msleep(20);
	spin_lock_bh(&w->lock);
	memfilter_cuckoo_dump_begin(c, &d);
	spin_unlock_bh(&w->lock);
	for (k = 0; k < chunks; k++) {
		spin_lock_bh(&w->lock);
		memfilter_cuckoo_dump_step(c, k);
		spin_unlock_bh(&w->lock);
		if (!(k & 3))
			usleep_range(1000, 2000);
	}
	spin_lock_bh(&w->lock);
	memfilter_cuckoo_dump_end(c);
	spin_unlock_bh(&w->lock);
	mf_stop_churn(w);

	memcpy(copy->table, d.dst, c->p.nbuckets * c->bucket_bytes);
	KUNIT_EXPECT_EQ(test, memfilter_cuckoo_restore(copy, d.stash, d.items), 0);
	for (i = 0; i < stable; i++)
		missing += !memfilter_cuckoo_contains_hash(copy, mf_hh(i));
	KUNIT_EXPECT_EQ(test, missing, 0U);
	kunit_info(test, "copied %llu chunks, %llu items, under a writer", chunks,
		   d.items);
}

/*
 * A clear done 1024 buckets at a time with a writer running in between
 * keeps the item count equal to the fingerprints left in the table.
 */
static void mf_stepwise_clear_keeps_counts(struct kunit *test)
{
	struct memfilter_cuckoo *c = memfilter_kunit_cuckoo(test, 1 << 16, 16);
	struct memfilter_cuckoo_snapshot s;
	struct mf_churn *w;
	u64 first;
	u32 i;

	for (i = 0; i < 30000; i++)
		KUNIT_ASSERT_EQ(test, memfilter_cuckoo_add_hash(c, mf_hh(i)), 0);
	w = mf_start_churn(test, c, 20000);
	msleep(20);
	for (first = 0; first < c->p.nbuckets; first += 1024) {
		spin_lock_bh(&w->lock);
		memfilter_cuckoo_clear_buckets(c, first, 1024);
		spin_unlock_bh(&w->lock);
		usleep_range(1000, 2000);
	}
	mf_stop_churn(w);
	memfilter_cuckoo_stats(c, &s);
	/* restore() recounts the table: it must agree with the counters. */
	KUNIT_EXPECT_EQ(test, memfilter_cuckoo_restore(c, c->stash, s.items), 0);
	kunit_info(test, "%llu fingerprints moved into cleared buckets survived",
		   s.items);
	memfilter_cuckoo_clear(c);
	memfilter_cuckoo_stats(c, &s);
	KUNIT_EXPECT_EQ(test, s.items, 0ULL);
	KUNIT_EXPECT_EQ(test, memfilter_cuckoo_restore(c, 0, 0), 0);
}

/*
 * The last reference dropped in NMI (a BPF map's kptr destructor run by a
 * perf_event or kprobe program): call_rcu() is not NMI-safe, so the filter
 * waits on a lockless list for an irq_work, then is freed as usual. The
 * NMI is simulated by the preempt count, as in mf_simd_not_asked_in_nmi().
 */
static void mf_last_put_in_nmi(struct kunit *test)
{
	struct memfilter_create cr = {
		.type = MEMFILTER_TYPE_BLOOM, .capacity = 1000,
		.bits_per_key_q4 = 40,
	};
	u64 before = memfilter_total_settled();
	unsigned long flags;
	struct memfilter *f;
	bool pending;

	f = memfilter_filter_create(&cr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_GT(test, memfilter_total_settled(), before);
	local_irq_save(flags);
	__preempt_count_add(NMI_OFFSET + HARDIRQ_OFFSET);
	memfilter_put(f);
	pending = memfilter_nmi_frees_pending();
	__preempt_count_sub(NMI_OFFSET + HARDIRQ_OFFSET);
	local_irq_restore(flags);
	KUNIT_EXPECT_TRUE(test, pending);
	KUNIT_EXPECT_EQ(test, memfilter_total_settled(), before);
	KUNIT_EXPECT_FALSE(test, memfilter_nmi_frees_pending());
}

static struct kunit_case memfilter_hardening_cases[] = {
	KUNIT_CASE(mf_odd_stripe_does_not_hang),
	KUNIT_CASE(mf_simd_not_asked_in_nmi),
	KUNIT_CASE(mf_simd_softirq_in_fpu_section),
	KUNIT_CASE(mf_last_put_in_nmi),
	KUNIT_CASE_SLOW(mf_stepwise_dump_is_one_instant),
	KUNIT_CASE_SLOW(mf_stepwise_clear_keeps_counts),
	{}
};

static struct kunit_suite memfilter_hardening_suite = {
	.name = "memfilter_hardening",
	.test_cases = memfilter_hardening_cases,
};

kunit_test_suite(memfilter_hardening_suite);
