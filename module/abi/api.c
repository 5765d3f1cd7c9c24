// SPDX-License-Identifier: GPL-2.0
/*
 * memfilter's exported in-kernel API (include/linux/memfilter.h): keys in, one
 * call per operation. What netfilter hooks, block-layer code, BPF kfuncs
 * and other modules call on a filter that userspace created and published
 * by name; memfilter_get_by_name() and memfilter_lookup_rcu() are in
 * names.c, memfilter_get() and memfilter_put() in filter.c.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <linux/bitmap.h>
#include <linux/module.h>

#include "filter/filter.h"

/**
 * memfilter_contains() - may a key be in the filter?
 * @f: the filter (a reference, or found under RCU)
 * @key: the key
 * @len: its length in bytes
 *
 * Never a false negative for a key whose add returned before this call
 * started (and, for cuckoo filters, that was not deleted since).
 *
 * Context: any but hard interrupt; lockless, does not sleep.
 * Return: false if the key is definitely absent, true if it may be present.
 */
bool memfilter_contains(struct memfilter *f, const void *key, u32 len)
{
	/*
	 * One key, the packet path's case: the type's contains_key (a Bloom
	 * filter's inline, cuckoo and window ones called directly,
	 * memfilter_state_contains_key()), without the batch path's bitmap
	 * clearing and counting, which cost several times the probe
	 * (Documentation/bpf.rst, "Cost"). The same answer and the same
	 * counters as memfilter_filter_contains(). The module's own callers
	 * inline it (memfilter_contains_inline()).
	 */
	return memfilter_contains_inline(f, key, len);
}
EXPORT_SYMBOL_GPL(memfilter_contains);

/**
 * memfilter_contains_addr() - may an address be in the filter?
 * @f: the filter (a reference, or found under RCU)
 * @addr: an IPv4 (4 bytes) or IPv6 (16 bytes) address, network byte order
 * @len: 4 or 16
 *
 * The address lookup rule (core/prefix.h): a prefix filter is asked for
 * the address's key at each prefix length of its family that it holds,
 * longest first, until one may be present; a filter of keys for the
 * address itself, as memfilter_contains() would be. Never a false
 * negative for a prefix (or key) whose add returned before this call
 * started. Counted as one query.
 *
 * Context: any but hard interrupt; lockless, does not sleep; at most
 * MEMFILTER_PREFIX_LENGTHS_MAX probes.
 * Return: false if the address is definitely not covered (a prefix filter
 * and a @len other than 4 or 16: never), true if it may be.
 */
bool memfilter_contains_addr(struct memfilter *f, const void *addr, u32 len)
{
	bool hit = memfilter_prefix_contains(f->ops, &f->s, &f->px, addr, len);

	this_cpu_inc(f->stats->queries);
	if (hit)
		this_cpu_inc(f->stats->hits);
	return hit;
}
EXPORT_SYMBOL_GPL(memfilter_contains_addr);

/**
 * memfilter_add() - add a key
 * @f: the filter
 * @key: the key
 * @len: its length in bytes
 *
 * Context: any but hard interrupt; does not sleep (cuckoo filters take a
 * spinlock with bottom halves disabled).
 * Return: 0, or -ENOSPC when a cuckoo filter, or a growing filter at its
 * limits, is full (nothing in it lost), or -EAGAIN when a growing
 * filter's newest sub-filter is full and its work item is making the
 * next (it is usually made ahead, at half fill), or when the current
 * generation of a window filter that rotates by count holds its capacity
 * and the work item the add that filled it queued has not rotated yet:
 * the key was not added, retry later.
 */
int memfilter_add(struct memfilter *f, const void *key, u32 len)
{
	unsigned long res;
	u64 h = memfilter_filter_hash(f, key, len);
	u32 done;

	return memfilter_filter_add(f, &h, 1, &res, &done);
}
EXPORT_SYMBOL_GPL(memfilter_add);

/**
 * memfilter_test_and_add() - was a key present? add it
 * @f: a Bloom, window or growing filter
 * @key: the key
 * @len: its length in bytes
 *
 * The dedup primitive: the answer memfilter_contains() would have given,
 * then memfilter_add() (window filters: into the current generation), in
 * one pass over the key's cache lines. A key whose add returned before
 * this call started (within its window) is always reported present; two
 * calls racing on one new key may both report it absent, and it is
 * present after both.
 *
 * Context: any but hard interrupt; does not sleep; a Bloom filter takes
 * the stripe lock of a new key's block (bottom halves off), none for a
 * present key.
 * A filter that cannot take the key now (a growing filter's newest
 * sub-filter full, a window that rotates by count with its current
 * generation full, until the work item has made room) still answers the
 * test: a key that may be present is reported present (1) without being
 * added again, so a dedup caller never passes a repeat for want of room.
 *
 * Return: 1 if the key may have been present, 0 if it certainly was not
 * (it is now), -EOPNOTSUPP for a cuckoo filter, or -ENOSPC or -EAGAIN as
 * memfilter_add() when the key certainly was not present and could not be
 * added (growing filters: at their limits, or the next sub-filter not made
 * yet; windows rotating by count: the rotation not run yet).
 */
int memfilter_test_and_add(struct memfilter *f, const void *key, u32 len)
{
	int ret;

	if (unlikely(!f->ops->test_and_add_key))	/* the type cannot */
		return -EOPNOTSUPP;
	/*
	 * One key: the type's test_and_add_key (the key hashed and its lines
	 * tested and set in it; a direct call for Bloom and window filters,
	 * memfilter_state_test_and_add_key()), then what
	 * memfilter_filter_test_and_add() does after the type's batch call:
	 * inside rcu_read_lock() (window rotations wait for it), the
	 * type's kernel-side hook (a window's called directly too), the
	 * counters.
	 */
	rcu_read_lock();
	ret = memfilter_state_test_and_add_key(f->ops, &f->s, key, len);
	rcu_read_unlock();
	if (f->kops == &memfilter_window_kops)
		ret = memfilter_window_added(f, ret, false);
	else if (f->kops->added)
		ret = f->kops->added(f, ret, false);
	if (unlikely(ret < 0)) {
		/* No room, nothing added: a key that may be in is still 1. */
		if ((ret == -EAGAIN || ret == -ENOSPC) &&
		    memfilter_contains(f, key, len))
			return 1;
		return ret;
	}
	this_cpu_inc(f->stats->queries);
	this_cpu_add(f->stats->hits, ret);
	this_cpu_add(f->stats->adds, 1 - ret);	/* a present key: not again */
	return ret;
}
EXPORT_SYMBOL_GPL(memfilter_test_and_add);

/**
 * memfilter_delete() - delete one copy of a key from a cuckoo filter
 * @f: the filter
 * @key: a key previously added (deleting others may remove a colliding
 *	key's fingerprint)
 * @len: its length in bytes
 *
 * Context: any but hard interrupt; does not sleep.
 * Return: 0, -ENOENT if not present, -EOPNOTSUPP for a Bloom filter.
 */
int memfilter_delete(struct memfilter *f, const void *key, u32 len)
{
	unsigned long res = 0;
	u64 h = memfilter_filter_hash(f, key, len);
	u32 done;
	int ret;

	ret = memfilter_filter_delete(f, &h, 1, &res, &done);
	if (ret)
		return ret;
	return res & 1 ? 0 : -ENOENT;
}
EXPORT_SYMBOL_GPL(memfilter_delete);

#define MF_KERNEL_BATCH	64

/**
 * memfilter_contains_batch() - query fixed-size keys
 * @f: the filter
 * @keys: @n keys of @key_size bytes, back to back
 * @key_size: bytes per key
 * @n: how many
 * @result: bitmap of @n bits: set when the key may be present
 *
 * Context: any but hard interrupt; lockless, does not sleep.
 * Return: how many keys may be present.
 */
u32 memfilter_contains_batch(struct memfilter *f, const void *keys,
			     u32 key_size, u32 n, unsigned long *result)
{
	DECLARE_BITMAP(res, MF_KERNEL_BATCH);
	u64 h[MF_KERNEL_BATCH];
	u32 i, m, hits = 0;

	for (i = 0; i < n; i += m) {
		m = min_t(u32, n - i, MF_KERNEL_BATCH);
		memfilter_filter_hash_keys(f, keys + (size_t)i * key_size,
					   key_size, m, h);
		hits += memfilter_filter_contains(f, h, m, res);
		bitmap_copy(result + i / BITS_PER_LONG, res, m);
	}
	return hits;
}
EXPORT_SYMBOL_GPL(memfilter_contains_batch);

/**
 * memfilter_add_batch() - add fixed-size keys
 * @f: the filter
 * @keys: @n keys of @key_size bytes, back to back
 * @key_size: bytes per key
 * @n: how many
 * @done: out: how many were added (all unless an error)
 *
 * Context: any but hard interrupt; does not sleep.
 * Return: 0, -ENOSPC or -EAGAIN as memfilter_add() (the keys before
 * *@done were added, nothing already in the filter was lost).
 */
int memfilter_add_batch(struct memfilter *f, const void *keys, u32 key_size,
			u32 n, u32 *done)
{
	DECLARE_BITMAP(res, MF_KERNEL_BATCH);
	u64 h[MF_KERNEL_BATCH];
	u32 i, m, d;
	int ret = 0;

	for (i = 0; i < n && !ret; i += d) {
		m = min_t(u32, n - i, MF_KERNEL_BATCH);
		memfilter_filter_hash_keys(f, keys + (size_t)i * key_size,
					   key_size, m, h);
		ret = memfilter_filter_add(f, h, m, res, &d);
	}
	*done = i;
	return ret;
}
EXPORT_SYMBOL_GPL(memfilter_add_batch);
