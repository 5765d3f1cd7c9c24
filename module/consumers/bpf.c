// SPDX-License-Identifier: GPL-2.0
/*
 * memfilter's BPF face: kfuncs through which XDP, TC, netfilter and syscall
 * programs find a published filter and query or change it, with the
 * return values of a map (0 or -ENOENT like a peek, -ENOSPC when full).
 *
 * Every kfunc here calls the in-kernel API (api.c, names.c); none touches
 * vector registers itself. Keys are memory the verifier proved readable
 * and writable for key__sz bytes: a stack buffer, a map value, or packet
 * data in program types where packets are writable.
 *
 * Not registered for BPF_PROG_TYPE_TRACING: that hook is shared with
 * PERF_EVENT programs, which run in NMI, where the in-kernel API may not
 * be called.
 *
 * Conventions in this file: every kfunc that takes a pointer is
 * registered with KF_TRUSTED_ARGS (MEMFILTER_KF_TRUSTED: kernels from 7.0
 * treat every kfunc so and have no flag, kernel_compat.h), so the
 * verifier refuses a possibly-NULL pointer for any pointer argument (a key
 * from an unchecked bpf_map_lookup_elem(), for one) as well as an
 * untrusted filter. Keys
 * longer than MEMFILTER_KEY_MAX, which no ioctl could query, are refused
 * with -E2BIG; an empty key (key__sz 0) is a key, as it is for the
 * ioctls. Lookups without a reference take rcu_read_lock() themselves:
 * the program context calling them may hold only rcu_read_lock_trace() (a
 * bpf_wq callback, a freplace program), and a filter found so stays valid
 * until that context ends because its free waits for both grace periods
 * (filter.c, mf_filter_free_tt()).
 *
 * The lookups by name and by id resolve the name's entry at each call,
 * so a replace or an exchange of the name (names.c) reaches a program
 * from its next call on; bpf_memfilter_get() and a kptr keep the filter
 * their reference was taken on.
 *
 * The by-id kfuncs find their filter through the by-id cache
 * (memfilter_lookup_id_fast(), names.h: one load and one compare, the
 * xarray only when the id's slot holds another filter), inside that same
 * rcu_read_lock(): the cache's entries are freed after an RCU grace
 * period, their filters after both (mf_bpf_by_id()). A one-call kfunc
 * reaches the filter's single-key operation through the in-kernel API
 * (memfilter_test_and_add(), memfilter_contains_addr()), the query
 * through its inline form (memfilter_contains_inline()), which call the
 * common types' ops directly (no retpoline per packet); the statistics it
 * counts are per-CPU this_cpu_*() additions, never an atomic
 * read-modify-write.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <linux/bitmap.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/cfi.h>
#include <linux/module.h>
#include <linux/string.h>

#include "bpf.h"
/*
 * The internals the kfuncs use (Documentation/internals.rst, "How to add
 * an in-kernel consumer"): memfilter_contains_inline(),
 * memfilter_lookup_id_fast() and struct memfilter itself.
 */
#include "filter/filter.h"
#include "filter/names.h"
#include "kernel_compat.h"

#if MEMFILTER_BPF_KFUNCS

static bool mf_bpf_registered;

/**
 * struct memfilter_borrowed - a filter borrowed for one program run
 * @f: the filter
 *
 * Never allocated: bpf_memfilter_borrow() returns the filter itself under
 * this type, so that the verifier keeps it apart from a referenced one
 * (acquire, release and kptr stores match types strictly; the other
 * kfuncs accept it through its first member).
 */
struct memfilter_borrowed {
	struct memfilter f;
};

/* A key no ioctl could query or delete: refused (-E2BIG). */
static bool mf_bpf_key_too_long(u32 len)
{
	return unlikely(len > MEMFILTER_KEY_MAX);
}

/* The sizes the kfuncs take: a key, an address (4 or 16 bytes). */
static __always_inline int mf_bpf_key_size(u32 len)
{
	return mf_bpf_key_too_long(len) ? -E2BIG : 0;
}

static __always_inline int mf_bpf_addr_size(u32 len)
{
	return unlikely(len != 4 && len != 16) ? -EINVAL : 0;
}

/* The kfuncs' bodies, inlined into each (kfuncs are noinline). */
static __always_inline int mf_bpf_contains(struct memfilter *f,
					   const void *key, u32 len)
{
	if (mf_bpf_key_too_long(len))
		return -E2BIG;
	return memfilter_contains_inline(f, key, len) ? 0 : -ENOENT;
}

/* An address lookup: 4 or 16 bytes, else -EINVAL. */
static __always_inline int mf_bpf_contains_addr(struct memfilter *f,
						const void *addr, u32 len)
{
	int ret = mf_bpf_addr_size(len);

	if (ret)
		return ret;
	return memfilter_contains_addr(f, addr, len) ? 0 : -ENOENT;
}

static __always_inline int mf_bpf_test_and_add(struct memfilter *f,
					       const void *key, u32 len)
{
	int ret;

	if (mf_bpf_key_too_long(len))
		return -E2BIG;
	ret = memfilter_test_and_add(f, key, len);
	return ret == 1 ? -EEXIST : ret;
}

/*
 * A by-id kfunc's body: @len checked (@size: its error whatever the id),
 * then @op on the filter with published id @id, found in the by-id cache
 * inside an rcu_read_lock() of its own (see the top of this file).
 * Inlined with constant @size and @op, which are inlined in turn.
 */
static __always_inline int mf_bpf_by_id(u32 id, const void *key, u32 len,
					int (*size)(u32 len),
					int (*op)(struct memfilter *f,
						  const void *key, u32 len))
{
	struct memfilter *f;
	int ret = size(len);

	if (ret)
		return ret;
	ret = -ESRCH;
	rcu_read_lock();
	f = memfilter_lookup_id_fast(id);
	if (likely(f))
		ret = op(f, key, len);
	rcu_read_unlock();
	return ret;
}

__bpf_kfunc_start_defs();

/**
 * bpf_memfilter_get() - find a published filter and take a reference
 * @name__str: its name, a constant string in a read-only map (.rodata)
 *
 * Context: any program type the kfuncs are registered for; never sleeps.
 * Return: the filter, to be released with bpf_memfilter_release(), or NULL
 * if no filter has that name.
 */
__bpf_kfunc struct memfilter *bpf_memfilter_get(const char *name__str)
{
	return memfilter_get_by_name(name__str);
}

/**
 * bpf_memfilter_release() - drop a reference from bpf_memfilter_get()
 * @f: the filter
 *
 * Context: as bpf_memfilter_get(). The filter is freed (after an RCU Tasks
 * Trace and an RCU grace period) when its last reference, fd, name or BPF,
 * is gone.
 */
__bpf_kfunc void bpf_memfilter_release(struct memfilter *f)
{
	memfilter_put(f);
}

/**
 * bpf_memfilter_borrow() - find a published filter for this program run
 * @name__str: its name, a constant string in a read-only map (.rodata)
 *
 * bpf_memfilter_get() without the reference: no atomic operation on the
 * filter, for the per-packet path. Not for SYSCALL programs (sleepable:
 * not in their kfunc set); the others (XDP, TC and netfilter programs
 * cannot be sleepable) run each time in one RCU read-side section. Their
 * bpf_wq callbacks and freplace programs may run under
 * rcu_read_lock_trace() only: the lookup takes rcu_read_lock() itself,
 * and the last put frees a filter only after an RCU Tasks Trace and an
 * RCU grace period, so the filter stays valid until the run (or callback) ends even if it is
 * unpublished and closed meanwhile. The verifier tracks the result as an
 * acquired reference of its own type, so the program must end it with
 * bpf_memfilter_unborrow() and cannot store it in a map (no destructor
 * exists for that type) or pass it to bpf_memfilter_release().
 *
 * Context: programs that are not sleepable (XDP, TC, netfilter; not in
 * SYSCALL programs' kfunc set); never sleeps.
 * Return: the filter (pass &b->f to the other kfuncs), or NULL if no
 * filter has that name.
 */
__bpf_kfunc struct memfilter_borrowed *bpf_memfilter_borrow(const char *name__str)
{
	struct memfilter *f;

	rcu_read_lock();
	f = memfilter_lookup_rcu(name__str);
	rcu_read_unlock();
	return f ? container_of(f, struct memfilter_borrowed, f) : NULL;
}

/**
 * bpf_memfilter_borrow_id() - bpf_memfilter_borrow() by published id
 * @id: the filter's id (MEMFILTER_IOC_INFO's pub_id, read by the loader)
 *
 * The by-id cache (memfilter_lookup_id_fast(): one load and one compare)
 * instead of hashing and comparing a name, with the same lifetime: the id
 * leaves the cache and the xarray before the name's reference is
 * dropped, so a filter found here stays valid until the run ends. An id
 * that was never issued or whose filter was unpublished finds nothing; a
 * republished filter has a new id. The id belongs to the name: after a
 * replace or an exchange of the name it finds the filter the name refers
 * to now (memfilter_replace()).
 *
 * Context: as bpf_memfilter_borrow() (not for SYSCALL programs).
 * Return: the filter (pass &b->f to the other kfuncs), or NULL if no
 * published filter has that id. End it with bpf_memfilter_unborrow().
 */
__bpf_kfunc struct memfilter_borrowed *bpf_memfilter_borrow_id(u32 id)
{
	struct memfilter *f;

	rcu_read_lock();
	f = memfilter_lookup_id_fast(id);
	rcu_read_unlock();
	return f ? container_of(f, struct memfilter_borrowed, f) : NULL;
}

/**
 * bpf_memfilter_unborrow() - end a bpf_memfilter_borrow()
 * @b: the filter it (or bpf_memfilter_borrow_id()) returned
 *
 * Does nothing at run time: it exists so that the verifier sees the
 * borrowed filter's use end inside the program run.
 *
 * Context: as bpf_memfilter_borrow().
 */
__bpf_kfunc void bpf_memfilter_unborrow(struct memfilter_borrowed *b)
{
}

/**
 * bpf_memfilter_contains() - may a key be in the filter?
 * @f: a filter from bpf_memfilter_get()
 * @key: the key
 * @key__sz: its length in bytes
 *
 * Context: as bpf_memfilter_get(); lockless.
 * Return: 0 if the key may be present, -ENOENT if it is definitely absent
 * (the values of bpf_map_peek_elem() on a Bloom filter map), -E2BIG if
 * @key__sz is over MEMFILTER_KEY_MAX.
 */
__bpf_kfunc int bpf_memfilter_contains(struct memfilter *f, const void *key,
				       u32 key__sz)
{
	return mf_bpf_contains(f, key, key__sz);
}

/**
 * bpf_memfilter_add() - add a key
 * @f: a filter from bpf_memfilter_get()
 * @key: the key
 * @key__sz: its length in bytes
 *
 * Context: as bpf_memfilter_get(); cuckoo filters take their writer lock
 * with bottom halves disabled.
 * Return: 0, or -ENOSPC when a cuckoo filter is full or a growing filter
 * is at its limits (nothing in it lost), -EAGAIN when a growing filter's
 * newest sub-filter is full and its work item is making the next, or a
 * window filter that rotates by count has its current generation full
 * and its work item is rotating (the key was not added; programs never
 * wait), -E2BIG if @key__sz is over MEMFILTER_KEY_MAX.
 */
__bpf_kfunc int bpf_memfilter_add(struct memfilter *f, const void *key,
				  u32 key__sz)
{
	if (mf_bpf_key_too_long(key__sz))
		return -E2BIG;
	return memfilter_add(f, key, key__sz);
}

/**
 * bpf_memfilter_delete() - delete one copy of a key from a cuckoo filter
 * @f: a filter from bpf_memfilter_get()
 * @key: a key previously added
 * @key__sz: its length in bytes
 *
 * Context: as bpf_memfilter_add().
 * Return: 0, -ENOENT if not present, -EOPNOTSUPP for a Bloom filter,
 * -E2BIG if @key__sz is over MEMFILTER_KEY_MAX.
 */
__bpf_kfunc int bpf_memfilter_delete(struct memfilter *f, const void *key,
				     u32 key__sz)
{
	if (mf_bpf_key_too_long(key__sz))
		return -E2BIG;
	return memfilter_delete(f, key, key__sz);
}

/**
 * bpf_memfilter_test_and_add() - was a key present? add it (dedup)
 * @f: a Bloom or window filter from bpf_memfilter_get()
 * @key: the key
 * @key__sz: its length in bytes
 *
 * memfilter_test_and_add(): the answer bpf_memfilter_contains() would have
 * given, and the key added, in one pass. Two programs racing on one new
 * key may both be told it was absent.
 *
 * Context: as bpf_memfilter_contains(); a Bloom filter takes the stripe
 * lock of a new key's block, none for a present key.
 * Return: 0 if the key was certainly absent (it is present now), -EEXIST
 * if it may have been present (the value of a map update with BPF_NOEXIST),
 * -EOPNOTSUPP for a cuckoo filter, -EAGAIN or -ENOSPC as for
 * bpf_memfilter_add() on a growing filter, -EAGAIN as for it on a window
 * filter that rotates by count, -E2BIG if @key__sz is over
 * MEMFILTER_KEY_MAX.
 */
__bpf_kfunc int bpf_memfilter_test_and_add(struct memfilter *f,
					   const void *key, u32 key__sz)
{
	return mf_bpf_test_and_add(f, key, key__sz);
}

/**
 * bpf_memfilter_contains_id() - may a key be in the filter with this id?
 * @id: the filter's published id (MEMFILTER_IOC_INFO's pub_id)
 * @key: the key
 * @key__sz: its length in bytes
 *
 * The per-packet path in one call: the lookup of bpf_memfilter_borrow_id()
 * (the by-id cache, memfilter_lookup_id_fast()) and
 * bpf_memfilter_contains(), both inside one rcu_read_lock() of its own,
 * with no handle for the verifier to track, so no borrow or unborrow call
 * and no reference count.
 *
 * Context: as bpf_memfilter_borrow() (not for SYSCALL programs);
 * lockless.
 * Return: 0 if the key may be present, -ENOENT if it is definitely absent,
 * -ESRCH if no published filter has that id, -E2BIG if @key__sz is over
 * MEMFILTER_KEY_MAX.
 */
__bpf_kfunc int bpf_memfilter_contains_id(u32 id, const void *key,
					  u32 key__sz)
{
	return mf_bpf_by_id(id, key, key__sz, mf_bpf_key_size,
			    mf_bpf_contains);
}

/**
 * bpf_memfilter_test_and_add_id() - bpf_memfilter_test_and_add() by id
 * @id: the filter's published id (MEMFILTER_IOC_INFO's pub_id)
 * @key: the key
 * @key__sz: its length in bytes
 *
 * The dedup path in one call, as bpf_memfilter_contains_id() is the
 * query's.
 *
 * Context: as bpf_memfilter_contains_id().
 * Return: as bpf_memfilter_test_and_add(), or -ESRCH if no published
 * filter has that id.
 */
__bpf_kfunc int bpf_memfilter_test_and_add_id(u32 id, const void *key,
					      u32 key__sz)
{
	return mf_bpf_by_id(id, key, key__sz, mf_bpf_key_size,
			    mf_bpf_test_and_add);
}

/**
 * bpf_memfilter_contains_addr() - may an address be in the filter?
 * @f: a filter from bpf_memfilter_get() (or &b->f of a borrowed one)
 * @addr: an IPv4 or IPv6 address, network byte order
 * @addr__sz: 4 or 16
 *
 * memfilter_contains_addr(): a prefix filter is asked for the address's
 * key at each prefix length of its family that it holds, longest first,
 * until one may be present (core/prefix.h, the netfilter hook's rule); a
 * filter of keys for the address itself, as bpf_memfilter_contains()
 * would be.
 *
 * Context: as bpf_memfilter_contains(); lockless, at most
 * MEMFILTER_PREFIX_LENGTHS_MAX probes.
 * Return: 0 if the address may be covered, -ENOENT if it certainly is
 * not, -EINVAL if @addr__sz is neither 4 nor 16.
 */
__bpf_kfunc int bpf_memfilter_contains_addr(struct memfilter *f,
					    const void *addr, u32 addr__sz)
{
	return mf_bpf_contains_addr(f, addr, addr__sz);
}

/**
 * bpf_memfilter_contains_addr_id() - bpf_memfilter_contains_addr() by id
 * @id: the filter's published id (MEMFILTER_IOC_INFO's pub_id)
 * @addr: an IPv4 or IPv6 address, network byte order
 * @addr__sz: 4 or 16
 *
 * The per-packet address lookup in one call, as bpf_memfilter_contains_id()
 * is the key query's.
 *
 * Context: as bpf_memfilter_contains_id().
 * Return: as bpf_memfilter_contains_addr(), or -ESRCH if no published
 * filter has that id.
 */
__bpf_kfunc int bpf_memfilter_contains_addr_id(u32 id, const void *addr,
					       u32 addr__sz)
{
	return mf_bpf_by_id(id, addr, addr__sz, mf_bpf_addr_size,
			    mf_bpf_contains_addr);
}

/**
 * bpf_memfilter_contains_batch() - query up to 64 fixed-size keys at once
 * @f: a filter from bpf_memfilter_get()
 * @keys: keys__sz / @key_size keys of @key_size bytes, back to back
 * @keys__sz: bytes at @keys, a multiple of @key_size
 * @key_size: bytes per key, at least 1
 * @bitmap: out: bit i set when key i may be present, the other bits clear
 *
 * BPF calls take at most five arguments: the bitmap is one u64, so one call
 * queries at most 64 keys.
 *
 * Context: as bpf_memfilter_contains().
 * Return: how many keys may be present, or -EINVAL when @key_size is 0 or
 * does not divide @keys__sz, or there are more than 64 keys, -E2BIG when
 * @key_size is over MEMFILTER_KEY_MAX (@bitmap is then 0).
 */
__bpf_kfunc int bpf_memfilter_contains_batch(struct memfilter *f,
					     const void *keys, u32 keys__sz,
					     u32 key_size, u64 *bitmap)
{
	unsigned long res[BITS_TO_LONGS(64)];
	u32 n;
	int hits;

	*bitmap = 0;
	if (mf_bpf_key_too_long(key_size))
		return -E2BIG;
	if (!key_size || keys__sz % key_size || keys__sz / key_size > 64)
		return -EINVAL;
	n = keys__sz / key_size;
	if (!n)
		return 0;
	hits = memfilter_contains_batch(f, keys, key_size, n, res);
	bitmap_to_arr64(bitmap, res, n);
	return hits;
}

/**
 * bpf_memfilter_release_dtor() - drop the reference a map holds
 * @f: a filter stored in a map as a kptr (bpf_kptr_xchg())
 *
 * Called by the kernel, never by programs, when a map value holding a
 * filter is freed: a filter stays alive while a map holds it.
 *
 * Context: wherever the kernel frees a map value's kptr: map teardown
 * (process context) or a program's map update or delete, which may run in
 * NMI (a perf_event or kprobe program); memfilter_put() is callable from
 * any context, NMI included.
 */
__bpf_kfunc void bpf_memfilter_release_dtor(void *f)
{
	memfilter_put(f);
}

CFI_NOSEAL(bpf_memfilter_release_dtor);

__bpf_kfunc_end_defs();

/*
 * Two sets: every kfunc for XDP, TC and netfilter programs (never
 * sleepable); for SYSCALL programs (always sleepable: the verifier
 * refuses one loaded without BPF_F_SLEEPABLE) only the kfuncs that take
 * a reference or are given one, not those that find a filter without a
 * reference (borrow, borrow_id, unborrow, contains_id, test_and_add_id,
 * contains_addr_id):
 * a policy, so that a borrow reads as "for this packet". The kernel
 * decides by the set registered for the program's type, by ids it
 * relocates itself when the module's BTF was built on a distilled base
 * (pahole >= 1.26): nothing here compares BTF ids. The policy is not what
 * keeps those kfuncs safe, and it cannot see every context (a bpf_wq
 * callback of an XDP program is verified as sleepable but allowed as
 * its program is); safety holds in every context through the kfuncs'
 * own rcu_read_lock() and the filter's free after both an RCU Tasks
 * Trace and an RCU grace period (see the top of this file).
 */
BTF_KFUNCS_START(mf_kfunc_ids)
BTF_ID_FLAGS(func, bpf_memfilter_get, KF_ACQUIRE | KF_RET_NULL)
BTF_ID_FLAGS(func, bpf_memfilter_release, KF_RELEASE)
BTF_ID_FLAGS(func, bpf_memfilter_contains, MEMFILTER_KF_TRUSTED)
BTF_ID_FLAGS(func, bpf_memfilter_add, MEMFILTER_KF_TRUSTED)
BTF_ID_FLAGS(func, bpf_memfilter_delete, MEMFILTER_KF_TRUSTED)
BTF_ID_FLAGS(func, bpf_memfilter_test_and_add, MEMFILTER_KF_TRUSTED)
BTF_ID_FLAGS(func, bpf_memfilter_contains_batch, MEMFILTER_KF_TRUSTED)
BTF_ID_FLAGS(func, bpf_memfilter_borrow, KF_ACQUIRE | KF_RET_NULL)
BTF_ID_FLAGS(func, bpf_memfilter_borrow_id, KF_ACQUIRE | KF_RET_NULL)
BTF_ID_FLAGS(func, bpf_memfilter_unborrow, KF_RELEASE)
BTF_ID_FLAGS(func, bpf_memfilter_contains_id, MEMFILTER_KF_TRUSTED)
BTF_ID_FLAGS(func, bpf_memfilter_test_and_add_id, MEMFILTER_KF_TRUSTED)
BTF_ID_FLAGS(func, bpf_memfilter_contains_addr, MEMFILTER_KF_TRUSTED)
BTF_ID_FLAGS(func, bpf_memfilter_contains_addr_id, MEMFILTER_KF_TRUSTED)
BTF_KFUNCS_END(mf_kfunc_ids)

BTF_KFUNCS_START(mf_kfunc_syscall_ids)
BTF_ID_FLAGS(func, bpf_memfilter_get, KF_ACQUIRE | KF_RET_NULL)
BTF_ID_FLAGS(func, bpf_memfilter_release, KF_RELEASE)
BTF_ID_FLAGS(func, bpf_memfilter_contains, MEMFILTER_KF_TRUSTED)
BTF_ID_FLAGS(func, bpf_memfilter_add, MEMFILTER_KF_TRUSTED)
BTF_ID_FLAGS(func, bpf_memfilter_delete, MEMFILTER_KF_TRUSTED)
BTF_ID_FLAGS(func, bpf_memfilter_test_and_add, MEMFILTER_KF_TRUSTED)
BTF_ID_FLAGS(func, bpf_memfilter_contains_batch, MEMFILTER_KF_TRUSTED)
BTF_ID_FLAGS(func, bpf_memfilter_contains_addr, MEMFILTER_KF_TRUSTED)
BTF_KFUNCS_END(mf_kfunc_syscall_ids)

static const struct btf_kfunc_id_set mf_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &mf_kfunc_ids,
};

static const struct btf_kfunc_id_set mf_kfunc_syscall_set = {
	.owner = THIS_MODULE,
	.set = &mf_kfunc_syscall_ids,
};

BTF_ID_LIST(mf_dtor_ids)
BTF_ID(struct, memfilter)
BTF_ID(func, bpf_memfilter_release_dtor)

/* One registration per program type: a second one for the same type WARNs. */
static const struct {
	enum bpf_prog_type type;
	const struct btf_kfunc_id_set *set;
} mf_prog_types[] = {
	{ BPF_PROG_TYPE_XDP, &mf_kfunc_set },
	{ BPF_PROG_TYPE_SCHED_CLS, &mf_kfunc_set },
	{ BPF_PROG_TYPE_SCHED_ACT, &mf_kfunc_set },
	{ BPF_PROG_TYPE_NETFILTER, &mf_kfunc_set },
	{ BPF_PROG_TYPE_SYSCALL, &mf_kfunc_syscall_set },
};

/**
 * memfilter_bpf_init() - register the kfuncs (module init)
 *
 * Without module BTF (a module built against headers that ship no vmlinux)
 * the kernel would accept the registration and ignore it; the kfuncs are
 * then reported absent.
 *
 * Context: module init, process context.
 * Return: 0, or the kernel's error from registering (a kfunc set
 * registered before the failure stays until the module's BTF goes).
 */
int memfilter_bpf_init(void)
{
	struct btf_id_dtor_kfunc dtors[1];
	int i, ret;

	if (!THIS_MODULE->btf_data_size) {
		pr_info("no module BTF: BPF kfuncs unavailable\n");
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(mf_prog_types); i++) {
		ret = register_btf_kfunc_id_set(mf_prog_types[i].type,
						mf_prog_types[i].set);
		if (ret) {
			pr_err("registering BPF kfuncs for program type %d: %d\n",
			       mf_prog_types[i].type, ret);
			return ret;
		}
	}
	/* One dtor list per module, likewise. */
	dtors[0].btf_id = mf_dtor_ids[0];
	dtors[0].kfunc_btf_id = mf_dtor_ids[1];
	ret = register_btf_id_dtor_kfuncs(dtors, ARRAY_SIZE(dtors), THIS_MODULE);
	if (ret) {
		pr_err("registering the BPF kptr destructor: %d\n", ret);
		return ret;
	}
	mf_bpf_registered = true;
	return 0;
}

/**
 * memfilter_bpf_available() - are the kfuncs registered?
 *
 * Context: any.
 * Return: true once memfilter_bpf_init() registered them.
 */
bool memfilter_bpf_available(void)
{
	return mf_bpf_registered;
}

#endif /* MEMFILTER_BPF_KFUNCS */
