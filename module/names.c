// SPDX-License-Identifier: GPL-2.0
/*
 * memfilter's name table: filters published under a name, found by other
 * processes (MEMFILTER_IOC_OPEN) and by kernel hooks and BPF programs
 * (memfilter_get_by_name(), memfilter_lookup_rcu()), and by the number each
 * published filter also gets (memfilter_lookup_id_rcu()).
 *
 * Conventions in this file: the table is a hash of struct memfilter_name_entry entries.
 * Writers (publish, unpublish) hold memfilter_names_lock; readers walk it under
 * RCU and never block. An entry is immutable once visible and is freed
 * after a grace period; it holds a reference to its filter, dropped only
 * after the entry left the table, so a filter found under RCU stays valid
 * until rcu_read_unlock().
 *
 * Published ids: an xarray from id to filter, changed together with the
 * hash table under memfilter_names_lock, read under RCU by xas_load(). The
 * id is erased before the entry's reference to the filter is dropped, so
 * the same rule holds: the last put frees the filter only after a grace
 * period that started after the erase. Ids are allocated cyclically in
 * 1 .. MEMFILTER_PUB_ID_MAX (0 means "not published"): an id is never
 * issued while in use, and not issued again until the allocator wrapped
 * past MEMFILTER_PUB_ID_MAX, that is after about 2^31 further publishes,
 * so an id a program kept after an unpublish finds nothing rather than a
 * different filter until then.
 *
 * The by-id cache (names.h): memfilter_id_cache[] holds, in the slot an
 * id's low MEMFILTER_ID_CACHE_BITS bits choose, the name entry of one
 * published filter whose id has those bits, or NULL. It changes with the
 * xarray under memfilter_names_lock: publish fills an empty slot with
 * the new entry, unpublish empties its entry's slot, or hands it to
 * another published entry of the same low bits, before the entry is
 * freed (kfree_rcu()) and before its reference to the filter is dropped.
 * A reader loads the slot under RCU and takes its filter only if the
 * entry's full id is the one asked for: an entry unpublished meanwhile
 * is still valid memory until the read-side section ends, and a reused
 * slot holds another id, never a filter under an id it was not given.
 * Anything else (an empty slot, another id) asks the xarray.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <kunit/visibility.h>
#include <linux/cleanup.h>
#include <linux/hashtable.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/stringhash.h>
#include <linux/xarray.h>

#include "names.h"

static DEFINE_HASHTABLE(mf_names, 8);
static DEFINE_XARRAY_ALLOC1(mf_ids);
static u32 mf_id_next;	/* xa_alloc_cyclic()'s cursor, under memfilter_names_lock */

/* Changed under memfilter_names_lock, read under RCU (names.h). */
struct memfilter_name_entry __rcu *memfilter_id_cache[MEMFILTER_ID_CACHE_SLOTS];
EXPORT_SYMBOL_IF_KUNIT(memfilter_id_cache);

static struct memfilter_name_entry __rcu **mf_id_slot(u32 id)
{
	return &memfilter_id_cache[id & (MEMFILTER_ID_CACHE_SLOTS - 1)];
}

static u32 mf_name_hash(const char *name)
{
	return full_name_hash(NULL, name, strlen(name));
}

/* [A-Za-z0-9._-] in ASCII: isalnum() would also take Latin-1 letters. */
static bool mf_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

/**
 * memfilter_name_valid() - is this a usable filter name?
 * @name: a buffer of MEMFILTER_NAME_MAX bytes from userspace
 *
 * Context: any.
 * Return: 0, or -EINVAL unless it is 1..63 characters of [A-Za-z0-9._-],
 * NUL-terminated and NUL-padded (padding must be zero, like any reserved
 * field, so that the bytes after the name can carry meaning later).
 */
int memfilter_name_valid(const char *name)
{
	size_t len = strnlen(name, MEMFILTER_NAME_MAX);
	size_t i;

	if (!len || len == MEMFILTER_NAME_MAX)
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (!mf_name_char(name[i]))
			return -EINVAL;
	if (memchr_inv(name + len, 0, MEMFILTER_NAME_MAX - len))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_name_valid);

/* Under RCU (lookups) or memfilter_names_lock (publish). */
static struct memfilter_name_entry *mf_find(const char *name)
{
	struct memfilter_name_entry *n;

	hash_for_each_possible_rcu(mf_names, n, node, mf_name_hash(name),
				   lockdep_is_held(&memfilter_names_lock))
		if (!strcmp(n->name, name))
			return n;
	return NULL;
}

/**
 * memfilter_lookup_rcu() - find a published filter without a reference
 * @name: its name
 *
 * Context: the caller holds rcu_read_lock() (or runs with bottom halves
 * disabled, as XDP and netfilter hooks do); the filter may be used until
 * the read-side section ends. Never sleeps.
 * Return: the filter, or NULL.
 */
struct memfilter *memfilter_lookup_rcu(const char *name)
{
	struct memfilter_name_entry *n = mf_find(name);

	return n ? n->f : NULL;
}
EXPORT_SYMBOL_GPL(memfilter_lookup_rcu);

/**
 * memfilter_lookup_id_xa() - find a published filter by id in the xarray
 * @id: its id
 *
 * The by-id cache's fallback (memfilter_lookup_id_fast()): one xas_load()
 * under the caller's read-side section.
 *
 * Context: as memfilter_lookup_rcu().
 * Return: the filter, or NULL if no published filter has that id.
 */
struct memfilter *memfilter_lookup_id_xa(u32 id)
{
	XA_STATE(xas, &mf_ids, id);
	void *entry;

	/*
	 * xa_load() less its own rcu_read_lock() and rcu_read_unlock()
	 * (out-of-line calls with CONFIG_PREEMPT_RCU): the caller is in a
	 * read-side section. Lockdep's check in xas_load() knows only
	 * rcu_read_lock(), not a section made by disabling bottom halves
	 * (rcu_read_lock_bh() around TC egress programs, for one), so such
	 * a caller takes xa_load()'s way. Without lockdep,
	 * rcu_read_lock_held() is constant true.
	 */
	if (!rcu_read_lock_held())
		return xa_load(&mf_ids, id);
	do {
		entry = xas_load(&xas);
		if (xa_is_zero(entry))
			entry = NULL;
	} while (xas_retry(&xas, entry));
	return entry;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_lookup_id_xa);

/**
 * memfilter_lookup_id_rcu() - find a published filter by id, no reference
 * @id: its id (MEMFILTER_IOC_INFO's pub_id)
 *
 * memfilter_lookup_rcu() by number, no string hash or compare: the by-id
 * cache (one load and one compare, see the top of this file), else one
 * xas_load(), under the caller's read-side section. An id is not issued
 * again until about 2^31 later publishes, so a stale one finds nothing
 * until then.
 *
 * Context: as memfilter_lookup_rcu().
 * Return: the filter, or NULL if no published filter has that id.
 */
struct memfilter *memfilter_lookup_id_rcu(u32 id)
{
	return memfilter_lookup_id_fast(id);
}
EXPORT_SYMBOL_GPL(memfilter_lookup_id_rcu);

/**
 * memfilter_get_by_name() - find a published filter and take a reference
 * @name: its name
 *
 * Context: any but hard interrupt; never sleeps.
 * Return: the filter, to be released with memfilter_put(), or NULL.
 */
struct memfilter *memfilter_get_by_name(const char *name)
{
	struct memfilter *f;

	rcu_read_lock();
	f = memfilter_lookup_rcu(name);
	if (f)
		f = memfilter_get(f);
	rcu_read_unlock();
	return f;
}
EXPORT_SYMBOL_GPL(memfilter_get_by_name);

/**
 * memfilter_publish() - publish a filter under a name
 * @f: the filter
 * @name: a name that passed memfilter_name_valid()
 *
 * The filter also gets the next free id (memfilter_lookup_id_rcu()).
 *
 * Context: process context, may sleep.
 * Return: 0, -EEXIST if the name is taken, -EBUSY if @f already has a
 * name or every id is in use, -ENOMEM.
 */
int memfilter_publish(struct memfilter *f, const char *name)
{
	struct memfilter_name_entry *n __free(kfree) =
		kzalloc(sizeof(*n), GFP_KERNEL_ACCOUNT);
	int ret;

	if (!n)
		return -ENOMEM;
	strscpy(n->name, name, sizeof(n->name));
	n->f = f;

	guard(mutex)(&memfilter_names_lock);
	if (f->pub)
		return -EBUSY;
	if (mf_find(name))
		return -EEXIST;
	/* 1 when the cursor wrapped: not an error. */
	ret = xa_alloc_cyclic(&mf_ids, &n->id, f,
			      XA_LIMIT(1, MEMFILTER_PUB_ID_MAX), &mf_id_next,
			      GFP_KERNEL_ACCOUNT);
	if (ret < 0)
		return ret;
	memfilter_get(f);
	f->pub = no_free_ptr(n);
	hash_add_rcu(mf_names, &f->pub->node, mf_name_hash(f->pub->name));
	if (!rcu_access_pointer(*mf_id_slot(f->pub->id)))
		rcu_assign_pointer(*mf_id_slot(f->pub->id), f->pub);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_publish);

/*
 * Empty @n's cache slot if it holds @n, or give it to another published
 * entry whose id has the same low bits. @n is out of the name table.
 */
static void mf_id_cache_remove(struct memfilter_name_entry *n)
{
	struct memfilter_name_entry __rcu **slot = mf_id_slot(n->id);
	struct memfilter_name_entry *o, *next = NULL;
	int bkt;

	if (rcu_access_pointer(*slot) != n)
		return;
	hash_for_each(mf_names, bkt, o, node)
		if (mf_id_slot(o->id) == slot) {
			next = o;
			break;
		}
	rcu_assign_pointer(*slot, next);
}

static void mf_unpublish_locked(struct memfilter *f)
{
	struct memfilter_name_entry *n = f->pub;

	lockdep_assert_held(&memfilter_names_lock);
	hash_del_rcu(&n->node);
	mf_id_cache_remove(n);
	xa_erase(&mf_ids, n->id);
	f->pub = NULL;
	kfree_rcu(n, rcu);
}

/**
 * memfilter_unpublish() - remove a filter's name
 * @f: the filter
 *
 * Context: process context, may sleep.
 * Return: 0, or -ENOENT if it had no name.
 */
int memfilter_unpublish(struct memfilter *f)
{
	scoped_guard(mutex, &memfilter_names_lock) {
		if (!f->pub)
			return -ENOENT;
		mf_unpublish_locked(f);
	}
	memfilter_put(f);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_unpublish);

/**
 * memfilter_unpublish_all() - drop every name (module unload)
 *
 * Context: process context, may sleep.
 */
void memfilter_unpublish_all(void)
{
	struct memfilter *f;
	struct hlist_node *tmp;
	struct memfilter_name_entry *n;
	int bkt;

	for (;;) {
		f = NULL;
		mutex_lock(&memfilter_names_lock);
		hash_for_each_safe(mf_names, bkt, tmp, n, node) {
			f = n->f;
			mf_unpublish_locked(f);
			break;
		}
		mutex_unlock(&memfilter_names_lock);
		if (!f)
			break;
		memfilter_put(f);
	}
	/* Empty now; frees the xarray's nodes. */
	xa_destroy(&mf_ids);
}

/**
 * memfilter_list_names() - copy out published names
 * @names: room for @max names of MEMFILTER_NAME_MAX bytes each, zeroed
 * @max: how many fit
 *
 * Context: process context, may sleep.
 * Return: how many names are published (may exceed @max).
 */
u32 memfilter_list_names(char *names, u32 max)
{
	struct memfilter_name_entry *n;
	u32 count = 0;
	int bkt;

	guard(mutex)(&memfilter_names_lock);
	hash_for_each(mf_names, bkt, n, node) {
		if (count < max)
			strscpy(names + (size_t)count * MEMFILTER_NAME_MAX,
				n->name, MEMFILTER_NAME_MAX);
		count++;
	}
	return count;
}
