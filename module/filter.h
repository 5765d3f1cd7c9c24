/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memfilter's filter object, private to the module: one Bloom or cuckoo
 * filter with its memory, reference count, writer lock, statistics and
 * published name.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_FILTER_H
#define _MEMFILTER_FILTER_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>
#include <linux/memfilter.h>

#include "filter_type.h"
#include "memfilter.h"

/* Per-CPU counters, so the packet path never bounces a shared line. */
struct memfilter_pcpu_stats {
	u64 adds;
	u64 queries;
	u64 hits;
	u64 deletes;
	u64 failed;
};

/**
 * struct memfilter_rotation - a window filter's rotation (window.c)
 * @work: the period's timer, and rotations an add that filled up asks for
 * @lock: serializes rotations, and keeps them out of image dumps
 * @cookie: polled RCU state taken right after the last publish
 */
struct memfilter_rotation {
	struct delayed_work work;
	struct mutex lock;	/* rotations; dumps */
	unsigned long cookie;
};

/**
 * struct memfilter - one filter
 * @ref: references: each fd, the published name, each in-kernel user
 * @ops: its type's operations
 * @flags: MEMFILTER_CREATE_* it was created with
 * @s: the filter itself, as its type defines it
 * @mem: the table allocation (kvzalloc, memcg-accounted), unaligned
 * @bytes: bytes charged against the module's limits
 * @lock: serializes writers of types with locked_writers; readers never
 *	take it
 * @stats: per-CPU counters
 * @pub: its entry in the name table while published, under memfilter_names_lock
 * @all: in the list of every live filter (debugfs), under memfilter_names_lock
 * @free_work: frees the filter after an RCU grace period
 * @rot: rotation state (window filters; set up for every filter)
 * @id: unique number, for debugfs and logs
 * @owner: effective uid of its creator, who may open it for writing by name
 * @dump_lock: one stepwise table copy at a time (dumps of locked types)
 */
struct memfilter {
	refcount_t ref;
	const struct memfilter_type_ops *ops;
	u32 flags;
	union memfilter_state s;
	void *mem;
	u64 bytes;
	spinlock_t lock;	/* writers, for ops->locked_writers */
	struct memfilter_pcpu_stats __percpu *stats;
	struct memfilter_name_entry *pub;
	struct list_head all;
	struct rcu_work free_work;
	struct memfilter_rotation rot;
	u64 id;
	kuid_t owner;
	struct mutex dump_lock;	/* stepwise table copies */
};

/**
 * struct memfilter_name_entry - a published name, immutable once in the table
 * @node: in the name hash table, RCU-protected
 * @f: the filter; the entry holds a reference to it
 * @rcu: frees the entry after readers are done with it
 * @name: the name
 */
struct memfilter_name_entry {
	struct hlist_node node;
	struct memfilter *f;
	struct rcu_head rcu;
	char name[MEMFILTER_NAME_MAX];
};

extern struct mutex memfilter_names_lock;
extern struct list_head memfilter_all_filters;

/**
 * memfilter_writer_lock() - serialize a writer, if the filter's type wants it
 * @f: the filter
 *
 * Types with locked_writers (cuckoo) take f->lock with bottom halves
 * disabled; the others (Bloom) write locklessly.
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

/* window.c: window filters' rotation */
void memfilter_rotation_init(struct memfilter *f);
void memfilter_rotation_start(struct memfilter *f);
void memfilter_rotation_stop(struct memfilter *f);
void memfilter_rotation_added(struct memfilter *f);
void memfilter_rotation_lock(struct memfilter *f);
void memfilter_rotation_unlock(struct memfilter *f);
int memfilter_rotate(struct memfilter *f);
bool memfilter_rotate_tick(struct memfilter *f, u64 now);
u32 memfilter_window_gens(struct memfilter *f, struct memfilter_generation *g);

/* image.c: filters to and from images */
struct memfilter *memfilter_filter_load(const u8 __user *uimage, u64 len);
void *memfilter_filter_image(struct memfilter *f, size_t *len);
void memfilter_filter_image_free(void *image, size_t len);
int memfilter_charge(u64 bytes);
void memfilter_uncharge(u64 bytes);
void *memfilter_table_alloc(u64 bytes);

int memfilter_name_valid(const char *name);
int memfilter_publish(struct memfilter *f, const char *name);
int memfilter_unpublish(struct memfilter *f);
void memfilter_unpublish_all(void);
u32 memfilter_list_names(char *names, u32 max);

int memfilter_filter_install_fd(struct memfilter *f, bool writable,
				struct file **filep);

int memfilter_filter_init(void);
void memfilter_filter_exit(void);
int memfilter_debugfs_init(void);
void memfilter_debugfs_exit(void);

/* Module parameters (MiB). */
extern unsigned long memfilter_max_filter_mb;
extern unsigned long memfilter_max_total_mb;

#endif /* _MEMFILTER_FILTER_H */
