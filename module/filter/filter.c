// SPDX-License-Identifier: GPL-2.0
/*
 * memfilter's filter objects: creation with limits and memcg accounting,
 * reference counting with RCU-deferred freeing, statistics, and one
 * function per operation on a batch of key hashes, each a call through
 * the filter type's table (core/filter_type.h). The exported in-kernel
 * API is in api.c, images in image_io.c.
 *
 * Conventions in this file: a filter is freed only after its last
 * reference is dropped AND an RCU Tasks Trace grace period and then an RCU
 * grace period have passed, so readers that found it through the name
 * table (memfilter_lookup_rcu()) inside rcu_read_lock() or
 * rcu_read_lock_trace() may use it until that section ends without a
 * reference. Writers of a type with
 * locked_writers (cuckoo) take f->lock with bottom halves disabled,
 * because packet paths (softirq) add and delete too; Bloom writers take
 * the stripe lock of each block they write (core/bloom.c), likewise with
 * bottom halves disabled; windows and growing filters take no lock;
 * readers never lock.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <linux/bitmap.h>
#include <linux/irq_work.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/slab.h>

#include <kunit/visibility.h>
#include <linux/kmemleak.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/vmalloc.h>

#include "consumers/bpf.h"
#include "filter.h"
#include "image.h"
#include "kernel_compat.h"

unsigned long memfilter_max_filter_mb = 1024;
module_param_named(max_filter_mb, memfilter_max_filter_mb, ulong, 0644);
MODULE_PARM_DESC(max_filter_mb, "Largest table of one filter, MiB (default 1024)");
EXPORT_SYMBOL_IF_KUNIT(memfilter_max_filter_mb);

unsigned long memfilter_max_total_mb = 4096;
module_param_named(max_total_mb, memfilter_max_total_mb, ulong, 0644);
MODULE_PARM_DESC(max_total_mb, "Most memory of all filters together, MiB (default 4096)");
EXPORT_SYMBOL_IF_KUNIT(memfilter_max_total_mb);

static atomic64_t mf_total_bytes = ATOMIC64_INIT(0);
static atomic64_t mf_next_id = ATOMIC64_INIT(0);
static struct workqueue_struct *mf_wq;

/* Serializes the name table and the list of all filters. */
DEFINE_MUTEX(memfilter_names_lock);
EXPORT_SYMBOL_IF_KUNIT(memfilter_names_lock);	/* memfilter_name_filter() */
LIST_HEAD(memfilter_all_filters);

/* Types without kernel-side state. */
static const struct memfilter_kops mf_no_kops;

/* The kernel-side hooks of each type that has any (struct memfilter_kops). */
static const struct memfilter_kops *const mf_kops[] = {
	&memfilter_window_kops,
	&memfilter_grow_kops,
};

/* Looked up once, when a filter is made. */
static const struct memfilter_kops *mf_kops_of(const struct memfilter_type_ops *ops)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mf_kops); i++)
		if (mf_kops[i]->ops == ops)
			return mf_kops[i];
	return &mf_no_kops;
}

/*
 * A filter's last put frees it only after two grace periods: RCU Tasks
 * Trace, then RCU. BPF programs find filters without a reference
 * (bpf_memfilter_borrow(), the *_id kfuncs) and use a borrowed one across
 * kfunc calls: XDP, TC and netfilter programs run inside rcu_read_lock(),
 * but a bpf_wq callback of such a program, and sleepable or freplace
 * programs, hold only rcu_read_lock_trace(). A filter found in either
 * kind of section stays valid until that section ends, as for BPF maps
 * used by sleepable programs (bpf_map_put()'s free_after_mult_rcu_gp);
 * bpf.h owns the Tasks Trace part (memfilter_bpf_call_after_gp()).
 */
static void mf_filter_free_tt(struct rcu_head *head)
{
	struct memfilter *f = container_of(head, struct memfilter, free_tt);

	queue_rcu_work(mf_wq, &f->free_work);
}

static void mf_filter_free_later(struct memfilter *f)
{
	memfilter_bpf_call_after_gp(&f->free_tt, mf_filter_free_tt);
}

/* Filters whose last reference went in NMI (a BPF map's kptr destructor). */
static LLIST_HEAD(mf_nmi_frees);

static void mf_nmi_free_fn(struct irq_work *work)
{
	struct llist_node *list = llist_del_all(&mf_nmi_frees);
	struct memfilter *f, *next;

	llist_for_each_entry_safe(f, next, list, free_node)
		mf_filter_free_later(f);
}

static DEFINE_IRQ_WORK(mf_nmi_free_work, mf_nmi_free_fn);

/**
 * memfilter_nmi_frees_pending() - is a filter put in NMI waiting for its
 *	irq_work?
 *
 * For tests.
 *
 * Context: any.
 * Return: true if the list of filters put in NMI is not empty.
 */
bool memfilter_nmi_frees_pending(void)
{
	return !llist_empty(&mf_nmi_frees);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_nmi_frees_pending);

/* Wait until every filter already put has been freed. */
static void mf_filter_free_barrier(void)
{
	irq_work_sync(&mf_nmi_free_work);
	memfilter_bpf_barrier();
	rcu_barrier();
	flush_workqueue(mf_wq);
}

static void mf_filter_free_work(struct work_struct *work)
{
	struct memfilter *f = container_of(to_rcu_work(work), struct memfilter,
					   free_work);

	mutex_lock(&memfilter_names_lock);
	list_del(&f->all);
	mutex_unlock(&memfilter_names_lock);
	if (f->kops->free)
		f->kops->free(f);
	kvfree(f->mem);
	free_percpu(f->stats);
	atomic64_sub(f->bytes + f->ops->lock_bytes, &mf_total_bytes);
	mutex_destroy(&f->prefix_lock);
	mutex_destroy(&f->dump_lock);
	kfree(f);
}

/**
 * memfilter_charge() - count memory against max_total_mb
 * @bytes: a filter's table or a dump snapshot
 *
 * Context: any.
 * Return: 0, or -ENOMEM (nothing counted) past max_total_mb.
 */
int memfilter_charge(u64 bytes)
{
	u64 max_total;

	if (check_shl_overflow((u64)memfilter_max_total_mb, 20, &max_total))
		max_total = U64_MAX;
	if (atomic64_add_return(bytes, &mf_total_bytes) > max_total) {
		atomic64_sub(bytes, &mf_total_bytes);
		return -ENOMEM;
	}
	return 0;
}

/**
 * memfilter_uncharge() - give back what memfilter_charge() counted
 * @bytes: as charged
 *
 * Context: any.
 */
void memfilter_uncharge(u64 bytes)
{
	atomic64_sub(bytes, &mf_total_bytes);
}

/* A table of @bytes against max_filter_mb, and with @extra against the total. */
static int mf_charge(u64 bytes, u64 extra)
{
	if (bytes > (u64)memfilter_max_filter_mb << 20)
		return -E2BIG;
	return memfilter_charge(bytes + extra);
}

/**
 * memfilter_total_settled() - the memory counted against max_total_mb,
 *	once every filter already put has been freed
 *
 * For tests: waits for the RCU grace periods and frees in flight.
 *
 * Context: process context, may sleep.
 * Return: the bytes counted.
 */
u64 memfilter_total_settled(void)
{
	mf_filter_free_barrier();
	return atomic64_read(&mf_total_bytes);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_total_settled);

/**
 * memfilter_table_alloc() - zeroed memory for a table or a copy of one
 * @bytes: any size the limits allow
 *
 * kvmalloc() refuses more than INT_MAX bytes (and WARNs without
 * __GFP_NOWARN), so bigger tables come from vmalloc directly, huge-page
 * mapped where possible, as kvmalloc() would map them. Either way the
 * memory is charged to the caller's memory cgroup (GFP_KERNEL_ACCOUNT),
 * and kmemleak does not scan it: it holds bits, never pointers.
 *
 * Context: process context, may sleep.
 * Return: the memory, to be freed with kvfree(), or NULL.
 */
void *memfilter_table_alloc(u64 bytes)
{
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_NOWARN;
	void *p;

	if (bytes > SIZE_MAX)
		return NULL;
	p = bytes <= INT_MAX ? kvmalloc(bytes, gfp) : vmalloc_huge(bytes, gfp);
	if (p)
		kmemleak_no_scan(p);
	return p;
}

static struct memfilter_pcpu_stats mf_stats_sum(struct memfilter *f)
{
	struct memfilter_pcpu_stats sum = {};
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct memfilter_pcpu_stats *s = per_cpu_ptr(f->stats, cpu);

		sum.adds += READ_ONCE(s->adds);
		sum.queries += READ_ONCE(s->queries);
		sum.hits += READ_ONCE(s->hits);
		sum.deletes += READ_ONCE(s->deletes);
		sum.failed += READ_ONCE(s->failed);
	}
	return sum;
}

/**
 * memfilter_filter_alloc() - allocate an empty filter
 * @ops: its type
 * @flags: the MEMFILTER_CREATE_* flags it reports
 * @p: its parameters, hasher included
 *
 * The table is charged against the module's limits and to the caller's
 * memory cgroup.
 *
 * Context: process context, may sleep.
 * Return: the filter with one reference, or an ERR_PTR(): -E2BIG when
 * larger than max_filter_mb or overflowing, -ENOMEM.
 */
struct memfilter *memfilter_filter_alloc(const struct memfilter_type_ops *ops,
					 u32 flags,
					 const union memfilter_params *p)
{
	u64 locks = ops->lock_bytes;
	struct memfilter *f;
	u64 bytes, alloc;
	void *table;
	int ret;

	bytes = ops->mem_bytes(p);
	if (!bytes ||
	    check_add_overflow(bytes, (u64)MEMFILTER_BLOOM_BLOCK_BYTES - 1 + locks,
			       &alloc) ||
	    alloc > SIZE_MAX)
		return ERR_PTR(-E2BIG);

	ret = mf_charge(bytes, locks);
	if (ret)
		return ERR_PTR(ret);

	f = kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
	if (!f) {
		ret = -ENOMEM;
		goto out_uncharge;
	}
	f->bytes = bytes;
	f->mem = memfilter_table_alloc(alloc);
	if (!f->mem) {
		ret = -ENOMEM;
		goto out_free_f;
	}
	f->stats = alloc_percpu_gfp(struct memfilter_pcpu_stats,
				    GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!f->stats) {
		ret = -ENOMEM;
		goto out_free_mem;
	}

	f->ops = ops;
	f->kops = mf_kops_of(ops);
	f->flags = flags;
	table = PTR_ALIGN(f->mem, MEMFILTER_BLOOM_BLOCK_BYTES);
	ops->init(&f->s, p, table);
	/* The writers' locks follow the table (Bloom's stripes, core/bloom.c). */
	if (locks)
		ops->attach_locks(&f->s, table + bytes);
	refcount_set(&f->ref, 1);
	spin_lock_init(&f->lock);
	mutex_init(&f->dump_lock);
	mutex_init(&f->prefix_lock);
	INIT_RCU_WORK(&f->free_work, mf_filter_free_work);
	if (f->kops->init)
		f->kops->init(f);
	f->id = atomic64_inc_return(&mf_next_id);
	f->owner = INVALID_UID;

	mutex_lock(&memfilter_names_lock);
	list_add_tail(&f->all, &memfilter_all_filters);
	mutex_unlock(&memfilter_names_lock);
	return f;

out_free_mem:
	kvfree(f->mem);
out_free_f:
	kfree(f);
out_uncharge:
	atomic64_sub(bytes + locks, &mf_total_bytes);
	return ERR_PTR(ret);
}

/**
 * memfilter_filter_create() - make a filter from a create request
 * @c: the request, copied from userspace
 *
 * Context: process context, may sleep.
 * Return: the filter with one reference, or an ERR_PTR(): -EOPNOTSUPP for
 * unknown flags or type, -EINVAL for inconsistent parameters, -E2BIG when
 * larger than max_filter_mb or overflowing, -ENOMEM when over
 * max_total_mb or out of memory. Nothing is left allocated on error.
 */
struct memfilter *memfilter_filter_create(const struct memfilter_create *c)
{
	const struct memfilter_type_ops *ops;
	union memfilter_params p;
	struct memfilter *f;
	int ret;

	ret = memfilter_create_params(c, &ops, &p);
	f = ret ? ERR_PTR(ret) : memfilter_filter_alloc(ops, c->flags, &p);
	memzero_explicit(&p, sizeof(p));
	if (IS_ERR(f))
		return f;
	/* Checked by memfilter_create_params(): cannot fail. */
	memfilter_prefixes_init(&f->px, c->prefix_lengths, NULL);
	if (f->kops->start)
		f->kops->start(f);
	return f;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_filter_create);

/**
 * memfilter_filter_added() - how many keys were added to a filter
 * @f: the filter
 *
 * Context: any.
 * Return: the sum of the per-CPU add counters.
 */
u64 memfilter_filter_added(struct memfilter *f)
{
	return mf_stats_sum(f).adds;
}

/**
 * memfilter_get() - take another reference to a filter
 * @f: a filter the caller holds a reference to, or found under RCU
 *
 * Context: any.
 * Return: @f, or NULL if its last reference was already dropped (possible
 * only for a filter found under RCU).
 */
struct memfilter *memfilter_get(struct memfilter *f)
{
	return refcount_inc_not_zero(&f->ref) ? f : NULL;
}
EXPORT_SYMBOL_GPL(memfilter_get);

/**
 * memfilter_put() - drop a reference to a filter
 * @f: the filter; NULL is ignored
 *
 * The last reference frees the filter after an RCU Tasks Trace and then
 * an RCU grace period, from a workqueue (mf_filter_free_tt()); in NMI
 * the wait starts from an irq_work. So this is callable from any context.
 *
 * Context: any, NMI included.
 */
void memfilter_put(struct memfilter *f)
{
	if (!f || !refcount_dec_and_test(&f->ref))
		return;
	if (unlikely(in_nmi())) {
		/* call_rcu*() is not NMI-safe; llist_add() and irq_work are. */
		llist_add(&f->free_node, &mf_nmi_frees);
		irq_work_queue(&mf_nmi_free_work);
		return;
	}
	mf_filter_free_later(f);
}
EXPORT_SYMBOL_GPL(memfilter_put);

/**
 * memfilter_filter_info() - fill in a filter's parameters and statistics
 * @f: the filter
 * @info: zeroed by the caller; everything but size and flags is written
 *
 * Context: process context (takes memfilter_names_lock for the name).
 */
void memfilter_filter_info(struct memfilter *f, struct memfilter_info *info)
{
	struct memfilter_pcpu_stats s = mf_stats_sum(f);

	memfilter_state_info(f->ops, &f->s, s.adds, info);
	info->adds = s.adds;
	info->queries = s.queries;
	info->hits = s.hits;
	info->deletes = s.deletes;
	info->failed = s.failed;
	info->bytes = f->bytes;
	memfilter_prefixes_info(&f->px, info);

	mutex_lock(&memfilter_names_lock);
	if (f->pub) {
		info->status |= MEMFILTER_STATUS_PUBLISHED;
		strscpy(info->name, f->pub->name, sizeof(info->name));
		info->pub_id = f->pub->id;
	}
	mutex_unlock(&memfilter_names_lock);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_filter_info);

/**
 * memfilter_filter_add_lengths() - record prefix lengths before their keys
 * @f: a prefix filter
 * @want: the lengths a batch of prefixes has (memfilter_prefix_mark())
 *
 * The lengths are recorded, and visible, before this returns: add the
 * batch's keys only after it (core/prefix.h).
 *
 * Context: process context, may sleep (takes @f->prefix_lock).
 * Return: 0, -EOPNOTSUPP for a filter of keys, -ENOSPC if a family would
 * hold more than its most lengths (nothing recorded then).
 */
int memfilter_filter_add_lengths(struct memfilter *f, const u64 *want)
{
	int ret;

	mutex_lock(&f->prefix_lock);
	ret = memfilter_prefixes_check_add(&f->px, want);
	if (!ret)
		memfilter_prefixes_add(&f->px, want);
	mutex_unlock(&f->prefix_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_filter_add_lengths);

/**
 * memfilter_filter_prefix_hashes() - the hashes of prefixes' keys
 * @f: a prefix filter
 * @p: @n prefixes
 * @n: how many
 * @hashes: out: @n hashes, to add as memfilter_filter_add() takes them
 *
 * Each prefix must be valid and its length recorded
 * (memfilter_filter_add_lengths()): its key is never added without its
 * length.
 *
 * Context: any.
 * Return: 0, or -EINVAL for a prefix invalid or of a length not recorded
 * (the first @n hashes are then not all written).
 */
int memfilter_filter_prefix_hashes(struct memfilter *f,
				   const struct memfilter_prefix *p, u32 n,
				   u64 *hashes)
{
	const struct memfilter_hasher *hasher = memfilter_state_hasher(f->ops, &f->s);
	u8 key[MEMFILTER_PREFIX_KEY_MAX];
	u32 i, len;

	for (i = 0; i < n; i++) {
		if (memfilter_prefix_check(&p[i]) ||
		    !memfilter_prefix_marked(f->px.lengths, &p[i]))
			return -EINVAL;
		len = memfilter_prefix_key(key, p[i].addr,
					   memfilter_prefix_addr_len(p[i].family),
					   p[i].length);
		hashes[i] = memfilter_hash_lean(hasher, key, len);
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_filter_prefix_hashes);

/**
 * memfilter_filter_clear() - empty a filter
 * @f: the filter
 *
 * Keys added concurrently with a clear may or may not survive it; so may
 * (as false positives) keys that a concurrent writer moves out of a part
 * of the table not yet cleared, and (Bloom) bits of a word that a
 * stripe-locked writer read before the clear zeroed it. Types with a writer lock are cleared one
 * step (16 KiB of table) per locked section.
 *
 * Context: process context, may sleep.
 */
void memfilter_filter_clear(struct memfilter *f)
{
	struct memfilter_pcpu_stats *s;
	u64 k, steps;
	int cpu;

	if (!f->ops->steps) {
		f->ops->clear(&f->s);
	} else {
		steps = f->ops->steps(&f->s);
		for (k = 0; k < steps; k++) {
			memfilter_writer_lock(f);
			f->ops->clear_step(&f->s, k);
			memfilter_writer_unlock(f);
			cond_resched();
		}
	}
	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(f->stats, cpu);
		WRITE_ONCE(s->adds, 0);
	}
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_filter_clear);

/**
 * memfilter_filter_hash() - a key's hash under a filter's hasher
 * @f: the filter
 * @key: the key
 * @len: its length in bytes
 *
 * Context: any.
 * Return: the hash every operation on the key starts from.
 */
u64 memfilter_filter_hash(struct memfilter *f, const void *key, size_t len)
{
	return memfilter_key_hash(f->ops, &f->s, key, len);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_filter_hash);

/**
 * memfilter_filter_hash_keys() - many keys' hashes under a filter's hasher
 * @f: the filter
 * @keys: @n keys of @len bytes each, back to back
 * @len: the length of each
 * @n: how many
 * @hashes: @n hashes, written: memfilter_filter_hash() of each key
 *
 * The batch paths' hashing: the hasher found once (two indirect calls,
 * retpolines on the stock kernels, per call instead of per key) and
 * memfilter_hash_keys()'s loops for the common lengths.
 *
 * Context: any.
 */
void memfilter_filter_hash_keys(struct memfilter *f, const void *keys,
				size_t len, u32 n, u64 *hashes)
{
	memfilter_hash_keys(memfilter_state_hasher(f->ops, &f->s), keys, len, n,
			    hashes);
}

/**
 * memfilter_filter_contains() - query a batch of key hashes
 * @f: the filter
 * @hashes: the keys' hashes (memfilter_filter_hash())
 * @n: how many
 * @result: bitmap of @n bits, written: set when the key may be present
 *
 * Context: any but hard interrupt; lockless, does not sleep.
 * Return: how many keys may be present.
 */
u32 memfilter_filter_contains(struct memfilter *f, const u64 *hashes, u32 n,
			      unsigned long *result)
{
	u32 hits;

	bitmap_zero(result, n);
	f->ops->contains(&f->s, hashes, n, result);
	hits = bitmap_weight(result, n);
	this_cpu_add(f->stats->queries, n);
	this_cpu_add(f->stats->hits, hits);
	return hits;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_filter_contains);

typedef int (*mf_write_op)(union memfilter_state *s, const u64 *hashes, u32 n,
			   unsigned long *result, u32 *done);

/*
 * Keys written per section under the writer lock (bottom halves off),
 * whatever the batch. Each key reads at most max_kicks + 2 (502) cuckoo
 * buckets and moves the fingerprints of one path (at most 10), so a
 * section reads at most MF_LOCK_KEYS * 502 (8032) buckets. While a dump
 * of the filter may be copying it, a writer also copies out every 16 KiB
 * step it is about to change first (up to 11 a key): then sections hold
 * MF_LOCK_KEYS_DUMP keys, at most 44 such copies (704 KiB). Fewer keys
 * per section would cost more than the work (every lock round trip is
 * expensive under lockdep); more would stretch the bound.
 */
#define MF_LOCK_KEYS		16
#define MF_LOCK_KEYS_DUMP	4

static int mf_filter_write_locked(struct memfilter *f, mf_write_op op,
				  const u64 *hashes, u32 n,
				  unsigned long *result, u32 *done)
{
	unsigned long bits;
	u32 i, j, m, d = 0;
	int ret = 0;

	static_assert(MF_LOCK_KEYS <= BITS_PER_LONG);
	for (i = 0; i < n && !ret; i += d) {
		bits = 0;
		memfilter_writer_lock(f);
		/*
		 * A dump begins (copy_begin) under this lock after taking
		 * dump_lock: unlocked here, none can start in this section.
		 */
		m = min_t(u32, n - i, mutex_is_locked(&f->dump_lock) ?
			  MF_LOCK_KEYS_DUMP : MF_LOCK_KEYS);
		ret = op(&f->s, hashes + i, m, &bits, &d);
		memfilter_writer_unlock(f);
		for (j = 0; j < d; j++)
			if (bits & BIT(j))
				__set_bit(i + j, result);
	}
	*done = i;
	return ret;
}

/*
 * One writing operation of the type, under the writer lock if it needs
 * it; @may_sleep: the caller makes room on -EAGAIN (kops' added).
 */
static int mf_filter_write(struct memfilter *f, mf_write_op op,
			   const u64 *hashes, u32 n, unsigned long *result,
			   u32 *done, bool deletes, bool may_sleep)
{
	u32 count;
	int ret;

	bitmap_zero(result, n);
	if (!op) {
		*done = 0;
		return -EOPNOTSUPP;
	}
	if (f->ops->locked_writers) {
		ret = mf_filter_write_locked(f, op, hashes, n, result, done);
	} else {
		/* A window's rotation waits for writers with RCU (window_kops.c). */
		rcu_read_lock();
		ret = op(&f->s, hashes, n, result, done);
		rcu_read_unlock();
	}
	if (!deletes && f->kops->added)
		ret = f->kops->added(f, ret, may_sleep);
	count = bitmap_weight(result, *done);
	if (deletes)
		this_cpu_add(f->stats->deletes, count);
	else
		this_cpu_add(f->stats->adds, count);
	if (ret == -ENOSPC)
		this_cpu_inc(f->stats->failed);
	return ret;
}

static int mf_filter_add(struct memfilter *f, const u64 *hashes, u32 n,
			 unsigned long *result, u32 *done, bool may_sleep)
{
	return mf_filter_write(f, f->ops->add, hashes, n, result, done, false,
			       may_sleep);
}

static int mf_filter_test_and_add(struct memfilter *f, const u64 *hashes,
				  u32 n, unsigned long *result, u32 *done,
				  bool may_sleep)
{
	u32 hits;
	int ret;

	bitmap_zero(result, n);
	if (!f->ops->test_and_add) {
		*done = 0;
		return -EOPNOTSUPP;
	}
	rcu_read_lock();
	ret = f->ops->test_and_add(&f->s, hashes, n, result, done);
	rcu_read_unlock();
	if (f->kops->added)
		ret = f->kops->added(f, ret, may_sleep);
	hits = bitmap_weight(result, *done);
	this_cpu_add(f->stats->queries, *done);
	this_cpu_add(f->stats->hits, hits);
	/* A key found present is not added again: not counted again. */
	this_cpu_add(f->stats->adds, *done - hits);
	return ret;
}

/**
 * memfilter_filter_add() - add a batch of key hashes
 * @f: the filter
 * @hashes: the keys' hashes (memfilter_filter_hash())
 * @n: how many
 * @result: bitmap of @n bits, written: set when the key was added
 * @done: out: how many hashes were processed (< @n only on error)
 *
 * Context: any but hard interrupt; does not sleep.
 * Return: 0, or -ENOSPC when the filter is full (nothing in it lost), or
 * -EAGAIN when a growing filter's newest sub-filter is full and its
 * worker is preparing the next (retry later, or from process context
 * memfilter_filter_add_sleepable()).
 */
int memfilter_filter_add(struct memfilter *f, const u64 *hashes, u32 n,
			 unsigned long *result, u32 *done)
{
	return mf_filter_add(f, hashes, n, result, done, false);
}

typedef int (*mf_filter_fn)(struct memfilter *f, const u64 *hashes, u32 n,
			    unsigned long *result, u32 *done, bool may_sleep);

/*
 * @fn, and while it says -EAGAIN (a growing filter's newest sub-filter is
 * full and no worker made the next yet), make room here and go on with
 * the keys not yet done.
 */
static int mf_filter_sleepable(struct memfilter *f, mf_filter_fn fn,
			       const u64 *hashes, u32 n, unsigned long *result,
			       u32 *done)
{
	unsigned long part;
	u32 d = 0, got, m, j;
	int ret;

	might_sleep();
	ret = fn(f, hashes, n, result, &d, true);
	while (ret == -EAGAIN) {
		ret = f->kops->make_room ? f->kops->make_room(f) : -ENOSPC;
		if (ret) {
			if (ret == -ENOSPC)
				this_cpu_inc(f->stats->failed);
			break;
		}
		/*
		 * The rest in runs of BITS_PER_LONG keys, each run's answers
		 * in one word on the stack: nothing to allocate, so no
		 * -ENOMEM part way but a growing filter's own (make_room()).
		 */
		do {
			part = 0;
			m = min_t(u32, n - d, BITS_PER_LONG);
			ret = fn(f, hashes + d, m, &part, &got, true);
			for (j = 0; j < got; j++)
				__assign_bit(d + j, result, part & BIT(j));
			d += got;
		} while (!ret && d < n);
	}
	*done = d;
	return ret;
}

/**
 * memfilter_filter_add_sleepable() - add a batch, making room if needed
 * @f: the filter
 * @hashes: the keys' hashes (memfilter_filter_hash())
 * @n: how many
 * @result: bitmap of @n bits, written: set when the key was added
 * @done: out: how many hashes were processed (< @n only on error)
 *
 * memfilter_filter_add() for callers that may sleep (ioctls): a growing
 * filter whose newest sub-filter is full gets its next one here rather
 * than from its worker, so the caller sees -ENOSPC only at the filter's
 * limits, never -EAGAIN.
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOSPC (nothing in the filter lost), -ENOMEM.
 */
int memfilter_filter_add_sleepable(struct memfilter *f, const u64 *hashes,
				   u32 n, unsigned long *result, u32 *done)
{
	return mf_filter_sleepable(f, mf_filter_add, hashes, n, result, done);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_filter_add_sleepable);

/**
 * memfilter_filter_test_and_add_sleepable() - test-and-add, making room
 * @f: the filter
 * @hashes: the keys' hashes (memfilter_filter_hash())
 * @n: how many
 * @result: as for memfilter_filter_test_and_add()
 * @done: out: how many hashes were processed (< @n only on error)
 *
 * Context: process context, may sleep.
 * Return: as memfilter_filter_add_sleepable(), or -EOPNOTSUPP.
 */
int memfilter_filter_test_and_add_sleepable(struct memfilter *f,
					    const u64 *hashes, u32 n,
					    unsigned long *result, u32 *done)
{
	return mf_filter_sleepable(f, mf_filter_test_and_add, hashes, n,
				   result, done);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_filter_test_and_add_sleepable);

/**
 * memfilter_filter_rotate() - MEMFILTER_IOC_ROTATE
 * @f: the filter
 *
 * Context: process context, may sleep.
 * Return: 0, or -EOPNOTSUPP for a type that does not rotate.
 */
int memfilter_filter_rotate(struct memfilter *f)
{
	return f->kops->rotate ? f->kops->rotate(f) : -EOPNOTSUPP;
}

/**
 * memfilter_filter_parts() - a filter's generations or sub-filters, for INFO
 * @f: the filter
 * @g: out: MEMFILTER_INFO_PARTS_MAX entries, the first ones filled
 *
 * Context: process context, may sleep.
 * Return: how many it has (0 for types without parts).
 */
u32 memfilter_filter_parts(struct memfilter *f, struct memfilter_generation *g)
{
	if (f->kops->info_parts)
		return f->kops->info_parts(f, g);
	return f->ops->parts ? f->ops->parts(&f->s, g) : 0;
}

/**
 * memfilter_filter_add_unique() - add the keys that are not in yet
 * @f: the filter
 * @hashes: the keys' hashes (memfilter_filter_hash())
 * @n: how many
 * @result: bitmap of @n bits, written: set when the key was added
 * @done: out: how many hashes were processed (< @n only on -ENOSPC)
 *
 * Context: any but hard interrupt; does not sleep.
 * Return: 0, -ENOSPC, or -EOPNOTSUPP for a type that cannot tell (Bloom).
 */
int memfilter_filter_add_unique(struct memfilter *f, const u64 *hashes, u32 n,
				unsigned long *result, u32 *done)
{
	return mf_filter_write(f, f->ops->add_unique, hashes, n, result, done,
			       false, false);
}

/**
 * memfilter_filter_delete() - delete one copy of each of a batch of keys
 * @f: the filter
 * @hashes: the keys' hashes (memfilter_filter_hash())
 * @n: how many
 * @result: bitmap of @n bits, written: set when the key was removed
 * @done: out: how many hashes were processed
 *
 * Context: any but hard interrupt; does not sleep.
 * Return: 0, or -EOPNOTSUPP for a type that cannot delete (Bloom).
 */
int memfilter_filter_delete(struct memfilter *f, const u64 *hashes, u32 n,
			    unsigned long *result, u32 *done)
{
	return mf_filter_write(f, f->ops->delete, hashes, n, result, done,
			       true, false);
}

/**
 * memfilter_filter_test_and_add() - was each key present? add it
 * @f: the filter
 * @hashes: the keys' hashes (memfilter_filter_hash())
 * @n: how many
 * @result: bitmap of @n bits, written: set when the key may have been
 *	present before it was added
 * @done: out: how many hashes were processed
 *
 * Counts as @n queries (hits: the keys that were present) and as many
 * adds as keys that were absent: a present key is not added again.
 *
 * Context: any but hard interrupt; does not sleep (Bloom: stripe locks,
 * bottom halves off).
 * Return: 0, -EAGAIN or -ENOSPC (growing filters, as memfilter_filter_add()),
 * or -EOPNOTSUPP for a type without it (cuckoo).
 */
int memfilter_filter_test_and_add(struct memfilter *f, const u64 *hashes,
				  u32 n, unsigned long *result, u32 *done)
{
	return mf_filter_test_and_add(f, hashes, n, result, done, false);
}

/**
 * memfilter_filter_count() - count a batch of key hashes
 * @f: the filter, of a type with a count operation
 * @hashes: the keys' hashes (memfilter_filter_hash())
 * @n: how many
 * @counts: out: @counts[i] is how many copies of key i the filter holds
 *
 * Counts as @n queries, and as many hits as keys with a non-zero count.
 * Lockless; a key whose lockless count found a writer inside an update
 * every time (MEMFILTER_CUCKOO_COUNT_BUSY8) is recounted under the writer
 * lock, where no copy is mid-move, so every count is exact at some instant.
 *
 * Context: process or softirq; may take the writer lock with bottom halves
 * disabled for one key's count; does not sleep.
 * Return: how many keys have a non-zero count.
 */
u32 memfilter_filter_count(struct memfilter *f, const u64 *hashes, u32 n,
			   u8 *counts)
{
	u32 i, hits = 0;

	f->ops->count(&f->s, hashes, n, counts);
	for (i = 0; i < n; i++) {
		if (unlikely(counts[i] == MEMFILTER_CUCKOO_COUNT_BUSY8) &&
		    f->ops->locked_writers) {
			spin_lock_bh(&f->lock);
			f->ops->count(&f->s, &hashes[i], 1, &counts[i]);
			spin_unlock_bh(&f->lock);
		}
		hits += counts[i] != 0;
	}
	this_cpu_add(f->stats->queries, n);
	this_cpu_add(f->stats->hits, hits);
	return hits;
}

int memfilter_filter_init(void)
{
	mf_wq = alloc_workqueue("memfilter", WQ_PERCPU, 0);
	return mf_wq ? 0 : -ENOMEM;
}

void memfilter_filter_exit(void)
{
	/* Every filter's last put has run: wait for its frees to finish. */
	mf_filter_free_barrier();
	destroy_workqueue(mf_wq);
}
