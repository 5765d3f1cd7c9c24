/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memfilter's filter object, private to the module: a filter of any type
 * (Bloom, cuckoo, window, growing: core/filter_type.h) with its memory,
 * reference count, writer lock, statistics, kernel-side state (a window's
 * rotation, a growing filter's growth) and published name; and what the
 * module's files that work on it export to each other, file by file.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_FILTER_H
#define _MEMFILTER_FILTER_H

#include <linux/list.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>
#include <linux/memfilter.h>

#include "filter_type.h"
#include "prefix.h"

/* Per-CPU counters, so the packet path never bounces a shared line. */
struct memfilter_pcpu_stats {
	u64 adds;
	u64 queries;
	u64 hits;
	u64 deletes;
	u64 failed;
};

/**
 * struct memfilter_rotation - a window filter's rotation (window_kops.c)
 * @work: the period's timer, and rotations an add that filled up asks for
 * @lock: serializes rotations, and keeps them out of image dumps
 * @cookie: polled RCU state taken right after the last publish
 */
struct memfilter_rotation {
	struct delayed_work work;
	struct mutex lock;	/* rotations; dumps */
	unsigned long cookie;
};

struct mem_cgroup;

/**
 * struct memfilter_growth - a growing filter's sub-filter allocations
 *	(grow_kops.c)
 * @work: prepares the next sub-filter when the newest fills up
 * @lock: serializes growth, and keeps it out of image dumps
 * @raw: the allocation of each sub-filter added after creation or load
 *	(NULL for those in the filter's own table memory)
 * @full: the last try to grow hit the filter's limits: atomic-context
 *	adds get -ENOSPC, not -EAGAIN
 * @mem_full: the last try to grow hit the module's max_total_mb, which
 *	other filters' deletion can lift: like @full until @retry (jiffies),
 *	then an atomic-context add queues another try
 * @retry: see @mem_full
 * @memcg: the memory cgroup of the filter's creator (a reference, or
 *	NULL without memcg), charged for every sub-filter whoever's add
 *	makes it: the work item runs in a kernel thread, which has none
 */
struct memfilter_growth {
	struct work_struct work;
	struct mutex lock;	/* growth; dumps */
	void *raw[MEMFILTER_GROW_MAX_SUBS];
	struct mem_cgroup *memcg;
	bool full;
	bool mem_full;
	unsigned long retry;
};

struct memfilter;

/**
 * struct memfilter_kops - a filter type's kernel-side state, in the module
 *
 * The type's table (core/filter_type.h) is shared with userspace; what
 * only the module has (timers, work items, allocations after creation)
 * hangs off these hooks, one table per type that needs any, listed in
 * mf_kops[] (module/filter/filter.c). Every hook is optional.
 *
 * @ops: the type's table, which this one extends
 * @init: set up the kernel-side state of a filter just allocated
 *	(process context, cannot fail)
 * @start: the filter is complete (created, or loaded from an image) and
 *	not yet shared: arm its timers
 * @added: a batch was added with result @ret (any context but hard
 *	interrupt; must not sleep): queue what the filter's new fill asks
 *	for. @may_sleep: the caller makes room itself on -EAGAIN
 *	(@make_room), so a limit that lifts by itself is tried again now,
 *	not after a back-off. Return: the result to report (-EAGAIN for
 *	"full until a worker makes room"; @make_room may make it now).
 * @make_room: an add in process context got -EAGAIN from @added: make
 *	room now (may sleep). Return: 0 if the add should be retried, else
 *	-ENOSPC or -ENOMEM.
 * @rotate: MEMFILTER_IOC_ROTATE (process context); NULL: -EOPNOTSUPP
 * @image_begin: a dump starts: keep out what would change the table's
 *	shape (rotations, growth) until @image_end
 * @image_end: the dump is done
 * @info_parts: for INFO: fill the filter's generations, at most
 *	MEMFILTER_INFO_PARTS_MAX; return how many it has. NULL: the type's
 *	own &memfilter_type_ops.parts, if any (sub-filters)
 * @free: the filter is unreachable and about to be freed: stop and free
 *	the kernel-side state (process context, may sleep)
 */
struct memfilter_kops {
	const struct memfilter_type_ops *ops;
	void (*init)(struct memfilter *f);
	void (*start)(struct memfilter *f);
	int (*added)(struct memfilter *f, int ret, bool may_sleep);
	int (*make_room)(struct memfilter *f);
	int (*rotate)(struct memfilter *f);
	void (*image_begin)(struct memfilter *f);
	void (*image_end)(struct memfilter *f);
	u32 (*info_parts)(struct memfilter *f, struct memfilter_generation *g);
	void (*free)(struct memfilter *f);
};

/* The most entries an info_parts hook fills in. */
#define MEMFILTER_INFO_PARTS_MAX \
	MAX(MEMFILTER_WINDOW_MAX_GENS, MEMFILTER_GROW_MAX_SUBS)

extern const struct memfilter_kops memfilter_window_kops;
extern const struct memfilter_kops memfilter_grow_kops;

/**
 * struct memfilter - one filter
 * @ref: references: each fd, the published name, each in-kernel user
 * @ops: its type's operations
 * @kops: its type's kernel-side hooks (never NULL; hooks may be)
 * @flags: MEMFILTER_CREATE_* it was created with
 * @s: the filter itself, as its type defines it
 * @mem: the table allocation (kvzalloc, memcg-accounted), unaligned
 * @bytes: bytes charged against the module's limits
 * @lock: serializes writers of types with locked_writers; readers never
 *	take it
 * @stats: per-CPU counters
 * @pub: its entry in the name table while published, under memfilter_names_lock
 * @all: in the list of every live filter (debugfs), under memfilter_names_lock
 * @free_tt: waits for an RCU Tasks Trace grace period before @free_work
 * @free_node: on the list of filters put in NMI (memfilter_put())
 * @free_work: frees the filter after an RCU grace period
 * @rot: rotation state (window filters)
 * @grow: growth state (growing filters)
 * @id: unique number, for debugfs and logs
 * @owner: effective uid of its creator (the credentials of its first fd:
 *	MEMFILTER_IOC_CREATE's or LOAD's caller); INVALID_UID for filters
 *	made in the kernel
 * @owner_caps: MEMFILTER_OWNER_* capabilities its creator held: whoever
 *	opens it for writing as its owner must hold them too
 * @dump_lock: one stepwise table copy at a time (dumps of locked types)
 * @px: the prefix lengths it holds (core/prefix.h); @px.max 0 for a
 *	filter of keys, set before the filter is shared and then constant
 * @prefix_lock: serializes writers of new prefix lengths
 */
struct memfilter {
	refcount_t ref;
	const struct memfilter_type_ops *ops;
	const struct memfilter_kops *kops;
	u32 flags;
	union memfilter_state s;
	void *mem;
	u64 bytes;
	spinlock_t lock;	/* writers, for ops->locked_writers */
	struct memfilter_pcpu_stats __percpu *stats;
	struct memfilter_name_entry *pub;
	struct list_head all;
	struct rcu_head free_tt;
	struct llist_node free_node;
	struct rcu_work free_work;
	union {
		struct memfilter_rotation rot;
		struct memfilter_growth grow;
	};
	u64 id;
	kuid_t owner;
	u8 owner_caps;
	struct mutex dump_lock;	/* stepwise table copies */
	struct memfilter_prefixes px;
	struct mutex prefix_lock;	/* new prefix lengths */
};

/**
 * struct memfilter_name_entry - a published name (names.c)
 * @node: in the name hash table, RCU-protected
 * @f: the filter the name refers to; the entry holds a reference to it.
 *	Changed only by a replace or an exchange (one rcu_assign_pointer()),
 *	under memfilter_names_lock; read under RCU (memfilter_name_filter())
 * @rcu: frees the entry after readers are done with it
 * @ref: the table's reference while published, and each holder's
 *	(memfilter_name_hold())
 * @test_and_add: holders that call memfilter_test_and_add() on @f
 *	(MEMFILTER_HOLD_TEST_AND_ADD)
 * @addresses: those of them whose keys are addresses
 *	(MEMFILTER_HOLD_ADDRESSES)
 * @id: the filter's published id, its index in the id xarray; never
 *	changes
 * @name: the name; never changes
 */
struct memfilter_name_entry {
	struct hlist_node node;
	struct memfilter __rcu *f;
	struct rcu_head rcu;
	refcount_t ref;
	atomic_t test_and_add;
	atomic_t addresses;
	u32 id;
	char name[MEMFILTER_NAME_MAX];
};

/**
 * memfilter_name_filter() - the filter a name entry refers to now
 * @n: a published entry found under RCU, or one held
 *	(memfilter_name_hold())
 *
 * Context: inside an RCU read-side section (rcu_read_lock(), or bottom
 * halves disabled), or under memfilter_names_lock; the filter may be used
 * until the section ends.
 * Return: the filter, never NULL.
 */
#define memfilter_name_filter(n)					\
	rcu_dereference_check((n)->f, rcu_read_lock_any_held() ||	\
			      lockdep_is_held(&memfilter_names_lock))

/* struct memfilter's owner_caps: its creator's, in the initial user namespace. */
#define MEMFILTER_OWNER_SYS_ADMIN	BIT(0)	/* CAP_SYS_ADMIN */
#define MEMFILTER_OWNER_NET_ADMIN	BIT(1)	/* CAP_NET_ADMIN */

/* Published ids are 1 .. MEMFILTER_PUB_ID_MAX (names.c); 0 is none. */
#define MEMFILTER_PUB_ID_MAX	INT_MAX

extern struct mutex memfilter_names_lock;
extern struct list_head memfilter_all_filters;

/**
 * memfilter_writer_lock() - serialize a writer, if the filter's type wants it
 * @f: the filter
 *
 * Types with locked_writers (cuckoo) take f->lock with bottom halves
 * disabled; the others (Bloom, window, growing) write locklessly.
 *
 * Context: any but hard interrupt.
 */
static inline void memfilter_writer_lock(struct memfilter *f)
	__acquires(&f->lock)
{
	if (f->ops->locked_writers)
		spin_lock_bh(&f->lock);
	else
		__acquire(&f->lock);
}

static inline void memfilter_writer_unlock(struct memfilter *f)
	__releases(&f->lock)
{
	if (f->ops->locked_writers)
		spin_unlock_bh(&f->lock);
	else
		__release(&f->lock);
}

/* filter.c: the object, its limits and statistics */
struct memfilter *memfilter_filter_alloc(const struct memfilter_type_ops *ops,
					 u32 flags,
					 const union memfilter_params *p);
struct memfilter *memfilter_filter_create(const struct memfilter_create *c);
u64 memfilter_filter_added(struct memfilter *f);
void memfilter_filter_info(struct memfilter *f, struct memfilter_info *info);
void memfilter_filter_clear(struct memfilter *f);
u64 memfilter_filter_hash(struct memfilter *f, const void *key, size_t len);

/**
 * memfilter_contains_inline() - memfilter_contains() in its caller
 * @f: the filter (a reference, or found under RCU)
 * @key: the key
 * @len: its length in bytes
 *
 * The single-key query of the module's own per-packet, per-block and BPF
 * paths (netfilter.c, dm.c, bpf.c): the type's contains_key as
 * memfilter_state_contains_key() chooses it (a Bloom filter's hash and
 * SPLIT32 probe inline here, no call), then the per-CPU counters.
 * memfilter_contains() is this, for other modules.
 *
 * Context: as memfilter_contains().
 * Return: as memfilter_contains().
 */
static __always_inline bool memfilter_contains_inline(struct memfilter *f,
						      const void *key, u32 len)
{
	bool hit = memfilter_state_contains_key(f->ops, &f->s, key, len);

	this_cpu_inc(f->stats->queries);
	if (hit)
		this_cpu_inc(f->stats->hits);
	return hit;
}

void memfilter_filter_hash_keys(struct memfilter *f, const void *keys,
				size_t len, u32 n, u64 *hashes);
u32 memfilter_filter_contains(struct memfilter *f, const u64 *hashes, u32 n,
			      unsigned long *result);
int memfilter_filter_add(struct memfilter *f, const u64 *hashes, u32 n,
			 unsigned long *result, u32 *done);
int memfilter_filter_add_unique(struct memfilter *f, const u64 *hashes, u32 n,
				unsigned long *result, u32 *done);
int memfilter_filter_delete(struct memfilter *f, const u64 *hashes, u32 n,
			    unsigned long *result, u32 *done);
int memfilter_filter_test_and_add(struct memfilter *f, const u64 *hashes,
				  u32 n, unsigned long *result, u32 *done);
u32 memfilter_filter_count(struct memfilter *f, const u64 *hashes, u32 n,
			   u8 *counts);
int memfilter_filter_add_lengths(struct memfilter *f, const u64 *want);
int memfilter_filter_prefix_hashes(struct memfilter *f,
				   const struct memfilter_prefix *p, u32 n,
				   u64 *hashes);

int memfilter_filter_add_sleepable(struct memfilter *f, const u64 *hashes,
				   u32 n, unsigned long *result, u32 *done);
int memfilter_filter_test_and_add_sleepable(struct memfilter *f,
					    const u64 *hashes, u32 n,
					    unsigned long *result, u32 *done);
int memfilter_filter_rotate(struct memfilter *f);
u32 memfilter_filter_parts(struct memfilter *f, struct memfilter_generation *g);
int memfilter_charge(u64 bytes);
void memfilter_uncharge(u64 bytes);
u64 memfilter_total_settled(void);
bool memfilter_nmi_frees_pending(void);
void *memfilter_table_alloc(u64 bytes);
int memfilter_filter_init(void);
void memfilter_filter_exit(void);

/* window_kops.c: window filters' rotation (memfilter_window_kops) */
int memfilter_rotate(struct memfilter *f);
bool memfilter_rotate_tick(struct memfilter *f, u64 now);
int memfilter_window_added(struct memfilter *f, int ret, bool may_sleep);

/* grow_kops.c: growing filters' sub-filters (memfilter_grow_kops) */
int memfilter_grow_prepare(struct memfilter *f);

/* image_io.c: filters to and from images */
struct memfilter *memfilter_filter_load(const u8 __user *uimage, u64 len);
void *memfilter_filter_image(struct memfilter *f, size_t *len);
void memfilter_filter_image_free(void *image, size_t len);

/* names.c: published names and their ids */
int memfilter_name_valid(const char *name);
int memfilter_publish(struct memfilter *f, const char *name);
int memfilter_unpublish(struct memfilter *f);
int memfilter_replace(const char *name, struct memfilter *f, bool publish);
int memfilter_exchange(const char *a, const char *b);
/* What a holder asks of every filter under the name (memfilter_name_hold()). */
#define MEMFILTER_HOLD_TEST_AND_ADD	BIT(0)	/* test-and-add */
#define MEMFILTER_HOLD_ADDRESSES	BIT(1)	/* ... of addresses: no prefix filter */
struct memfilter_name_entry *memfilter_name_hold(const char *name,
						 unsigned int flags);
void memfilter_name_end_hold(struct memfilter_name_entry *n,
			     unsigned int flags);
void memfilter_name_release(struct memfilter_name_entry *n);
void memfilter_unpublish_all(void);
u32 memfilter_list_names(char *names, u32 max);

/* fd.c: a filter's fds */
int memfilter_filter_install_fd(struct memfilter *f, bool writable,
				struct file **filep);
struct memfilter *memfilter_filter_fget(int fd, bool write);

/* debugfs.c */
int memfilter_debugfs_init(void);
void memfilter_debugfs_exit(void);

/* Module parameters (MiB; filter.c). */
extern unsigned long memfilter_max_filter_mb;
extern unsigned long memfilter_max_total_mb;

#endif /* _MEMFILTER_FILTER_H */
