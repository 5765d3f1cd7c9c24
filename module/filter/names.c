// SPDX-License-Identifier: GPL-2.0
/*
 * memfilter's name table: filters published under a name, found by other
 * processes (MEMFILTER_IOC_OPEN) and by kernel hooks and BPF programs
 * (memfilter_get_by_name(), memfilter_lookup_rcu()), and by the number each
 * published filter also gets (memfilter_lookup_id_rcu()).
 *
 * Conventions in this file: the table is a hash of struct memfilter_name_entry entries.
 * Writers (publish, unpublish, replace, exchange) hold memfilter_names_lock;
 * readers walk it under RCU and never block. An entry's name and id never
 * change; its filter pointer (@f) is the one thing a replace or an exchange
 * changes, with one rcu_assign_pointer(): every way of finding a published
 * filter (by name, through the by-id cache, through the id xarray, and the
 * netfilter attachments that hold the entry) reads that one pointer, so
 * each reader sees the filter before the step or the one after, never
 * neither. The entry holds a reference to the filter it points to; a
 * filter that a replace took the name from keeps that reference for one
 * more RCU grace period (mf_name_put_rcu()), so that a reader that loaded
 * the old pointer can still take a reference to it (memfilter_get_by_name()
 * never fails for a name that stays published). Entries are reference
 * counted: the table holds one while the name is published, and each
 * holder (memfilter_name_hold(): a netfilter attachment) one more, which
 * keeps the entry, and the filter it last pointed to, after an unpublish.
 * The last put drops the filter's reference and frees the entry after an
 * RCU grace period, so a filter or entry found under RCU stays valid until
 * rcu_read_unlock().
 *
 * Published ids: an xarray from id to entry, changed together with the
 * hash table under memfilter_names_lock, read under RCU by xas_load(). The
 * id is erased before the table's reference to the entry is dropped, so
 * the same rule holds: the last put frees the entry and its filter only
 * after a grace period that started after the erase. Ids are allocated cyclically in
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
 * another published entry of the same low bits, before the table's
 * reference to the entry is dropped (replace and exchange change no slot:
 * the entry stays, its filter changes).
 * A reader loads the slot under RCU and takes its filter only if the
 * entry's full id is the one asked for: an entry unpublished meanwhile
 * is still valid memory until the read-side section ends, and a reused
 * slot holds another id, never a filter under an id it was not given.
 * Anything else (an empty slot, another id) asks the xarray.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <kunit/visibility.h>
#include <linux/atomic.h>
#include <linux/cleanup.h>
#include <linux/err.h>
#include <linux/hashtable.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
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

	return n ? memfilter_name_filter(n) : NULL;
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
	struct memfilter_name_entry *n;
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
	if (!rcu_read_lock_held()) {
		entry = xa_load(&mf_ids, id);
	} else {
		do {
			entry = xas_load(&xas);
			if (xa_is_zero(entry))
				entry = NULL;
		} while (xas_retry(&xas, entry));
	}
	n = entry;
	return n ? memfilter_name_filter(n) : NULL;
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
 * The filter the name refers to now: the reference keeps that filter,
 * whatever a later replace or exchange does to the name (callers that
 * must follow the name look it up each time, memfilter_lookup_rcu()).
 * A filter a concurrent replace took the name from still holds the
 * name's reference until a grace period after the replace, so the
 * reference is always taken: NULL only if no filter has the name.
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

static struct memfilter_name_entry *mf_entry_alloc(const char *name)
{
	struct memfilter_name_entry *n = kzalloc(sizeof(*n), GFP_KERNEL_ACCOUNT);

	if (n) {
		strscpy(n->name, name, sizeof(n->name));
		refcount_set(&n->ref, 1);
	}
	return n;
}

/*
 * Publish @f under @n's name (free: the caller looked) with a new id: the
 * table's reference to @n, @n's to @f. On error @n is still the caller's.
 */
static int mf_publish_locked(struct memfilter *f, struct memfilter_name_entry *n)
{
	int ret;

	lockdep_assert_held(&memfilter_names_lock);
	/* 1 when the cursor wrapped: not an error. */
	ret = xa_alloc_cyclic(&mf_ids, &n->id, n,
			      XA_LIMIT(1, MEMFILTER_PUB_ID_MAX), &mf_id_next,
			      GFP_KERNEL_ACCOUNT);
	if (ret < 0)
		return ret;
	memfilter_get(f);
	RCU_INIT_POINTER(n->f, f);
	f->pub = n;
	hash_add_rcu(mf_names, &n->node, mf_name_hash(n->name));
	if (!rcu_access_pointer(*mf_id_slot(n->id)))
		rcu_assign_pointer(*mf_id_slot(n->id), n);
	return 0;
}

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
	struct memfilter_name_entry *n __free(kfree) = mf_entry_alloc(name);
	int ret;

	if (!n)
		return -ENOMEM;
	guard(mutex)(&memfilter_names_lock);
	if (f->pub)
		return -EBUSY;
	if (mf_find(name))
		return -EEXIST;
	ret = mf_publish_locked(f, n);
	if (!ret)
		n = NULL;	/* the table's now */
	return ret;
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

/* @f's entry leaves the table; the table's reference is the caller's to put. */
static struct memfilter_name_entry *mf_unpublish_locked(struct memfilter *f)
{
	struct memfilter_name_entry *n = f->pub;

	lockdep_assert_held(&memfilter_names_lock);
	hash_del_rcu(&n->node);
	mf_id_cache_remove(n);
	xa_erase(&mf_ids, n->id);
	f->pub = NULL;
	return n;
}

/**
 * mf_entry_put() - drop a reference to a name entry
 * @n: the entry (the table's reference, or memfilter_name_hold()'s)
 *
 * The last one drops the entry's reference to the filter it points to
 * and frees the entry after an RCU grace period. Only entries out of the
 * table reach zero.
 *
 * Context: any but NMI (an RCU callback, for one).
 */
static void mf_entry_put(struct memfilter_name_entry *n)
{
	if (!refcount_dec_and_test(&n->ref))
		return;
	memfilter_put(rcu_dereference_protected(n->f, true));
	kfree_rcu(n, rcu);
}

/**
 * memfilter_unpublish() - remove a filter's name
 * @f: the filter
 *
 * Holders of the entry (netfilter attachments) keep the filter it
 * pointed to last.
 *
 * Context: process context, may sleep.
 * Return: 0, or -ENOENT if it had no name.
 */
int memfilter_unpublish(struct memfilter *f)
{
	struct memfilter_name_entry *n;

	scoped_guard(mutex, &memfilter_names_lock) {
		if (!f->pub)
			return -ENOENT;
		n = mf_unpublish_locked(f);
	}
	mf_entry_put(n);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_unpublish);

/* Can @f serve a holder that asks @flags (MEMFILTER_HOLD_*)? */
static bool mf_filter_fits(const struct memfilter *f, unsigned int flags)
{
	if ((flags & MEMFILTER_HOLD_TEST_AND_ADD) && !f->ops->test_and_add)
		return false;
	/* A prefix filter's keys are prefixes, not addresses. */
	return !(flags & MEMFILTER_HOLD_ADDRESSES) || !f->px.max;
}

/* Can @f serve every holder of @n? */
static bool mf_entry_fits(struct memfilter_name_entry *n, struct memfilter *f)
{
	unsigned int flags = 0;

	if (atomic_read(&n->test_and_add))
		flags |= MEMFILTER_HOLD_TEST_AND_ADD;
	if (atomic_read(&n->addresses))
		flags |= MEMFILTER_HOLD_ADDRESSES;
	return mf_filter_fits(f, flags);
}

/**
 * memfilter_name_hold() - hold a published name, to follow its filter
 * @name: the name
 * @flags: what the holder asks of the filter (MEMFILTER_HOLD_*): with
 *	MEMFILTER_HOLD_TEST_AND_ADD it calls memfilter_test_and_add(), so
 *	the filter's type must have it, and with MEMFILTER_HOLD_ADDRESSES
 *	its keys are addresses, so the filter must not be a prefix filter
 *	(-EOPNOTSUPP); so must every filter a replace or an exchange puts
 *	under the name while it is held
 *
 * The entry's filter (memfilter_name_filter(), under RCU) is the name's
 * while it stays published, replaces and exchanges included, and the last
 * one it had after an unpublish.
 *
 * Context: process context, may sleep.
 * Return: the entry, to release with memfilter_name_release() after
 * memfilter_name_end_hold() with the same @flags, or ERR_PTR(-ENOENT) if
 * no filter has the name, ERR_PTR(-EOPNOTSUPP).
 */
struct memfilter_name_entry *memfilter_name_hold(const char *name,
						 unsigned int flags)
{
	struct memfilter_name_entry *n;
	struct memfilter *f;

	guard(mutex)(&memfilter_names_lock);
	n = mf_find(name);
	if (!n)
		return ERR_PTR(-ENOENT);
	f = rcu_dereference_protected(n->f, lockdep_is_held(&memfilter_names_lock));
	if (!mf_filter_fits(f, flags))
		return ERR_PTR(-EOPNOTSUPP);
	refcount_inc(&n->ref);
	if (flags & MEMFILTER_HOLD_TEST_AND_ADD)
		atomic_inc(&n->test_and_add);
	if (flags & MEMFILTER_HOLD_ADDRESSES)
		atomic_inc(&n->addresses);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_name_hold);

/**
 * memfilter_name_end_hold() - a holder stops asking things of the filter
 * @n: an entry held (memfilter_name_hold())
 * @flags: the flags it was held with
 *
 * From now on a replace may put a filter without test-and-add, or a
 * prefix filter, under the name. Called when the holder's last
 * test-and-add call may still be running (a netfilter hook just
 * unregistered): that call then gets -EOPNOTSUPP from a filter without
 * test-and-add, or adds an address to a prefix filter as a key (which
 * may add a false positive, never a false negative).
 *
 * Context: any but NMI.
 */
void memfilter_name_end_hold(struct memfilter_name_entry *n,
			     unsigned int flags)
{
	if (flags & MEMFILTER_HOLD_TEST_AND_ADD)
		atomic_dec(&n->test_and_add);
	if (flags & MEMFILTER_HOLD_ADDRESSES)
		atomic_dec(&n->addresses);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_name_end_hold);

/**
 * memfilter_name_release() - end a memfilter_name_hold()
 * @n: the entry (after memfilter_name_end_hold())
 *
 * Context: any but NMI (an RCU callback, for one).
 */
void memfilter_name_release(struct memfilter_name_entry *n)
{
	mf_entry_put(n);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_name_release);

/* A filter's reference, dropped after an RCU grace period. */
struct mf_name_put_rcu {
	struct rcu_head rcu;
	struct memfilter *f;
};

static void mf_name_put_rcu(struct rcu_head *head)
{
	struct mf_name_put_rcu *p = container_of(head, typeof(*p), rcu);

	memfilter_put(p->f);
	kfree(p);
}

/**
 * memfilter_replace() - make a published name refer to another filter
 * @name: a name that passed memfilter_name_valid()
 * @f: the filter to put under it, not published (the caller holds a
 *	reference)
 * @publish: if no filter has @name, publish @f under it
 *
 * One step for every reader: the name, its id and every holder of the
 * name find the filter that had it until the step and @f after it (see
 * the top of this file); @f takes over the name's id. The old filter
 * loses its name; the name's reference to it goes an RCU grace period
 * later, and the filter when its other references (fds, attachments
 * that hold it by reference, dm tables) are gone.
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOENT if no filter has @name (and not @publish), -EBUSY
 * if @f is published, -EOPNOTSUPP if @f cannot serve a holder of the name
 * (memfilter_name_hold()'s flags), -ENOMEM; with @publish also
 * memfilter_publish()'s errors.
 */
int memfilter_replace(const char *name, struct memfilter *f, bool publish)
{
	struct mf_name_put_rcu *put __free(kfree) =
		kmalloc(sizeof(*put), GFP_KERNEL_ACCOUNT);
	struct memfilter_name_entry *fresh __free(kfree) = NULL;
	struct memfilter_name_entry *n;
	int ret;

	if (!put)
		return -ENOMEM;
	if (publish) {
		fresh = mf_entry_alloc(name);
		if (!fresh)
			return -ENOMEM;
	}
	scoped_guard(mutex, &memfilter_names_lock) {
		if (f->pub)
			return -EBUSY;
		n = mf_find(name);
		if (!n) {
			if (!publish)
				return -ENOENT;
			ret = mf_publish_locked(f, fresh);
			if (!ret)
				fresh = NULL;	/* the table's now */
			return ret;
		}
		if (!mf_entry_fits(n, f))
			return -EOPNOTSUPP;
		put->f = rcu_dereference_protected(n->f,
						   lockdep_is_held(&memfilter_names_lock));
		memfilter_get(f);
		f->pub = n;
		rcu_assign_pointer(n->f, f);
		put->f->pub = NULL;
	}
	call_rcu(&put->rcu, mf_name_put_rcu);
	put = NULL;	/* the callback's now */
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_replace);

/**
 * memfilter_exchange() - swap the filters of two published names
 * @a: a name that passed memfilter_name_valid()
 * @b: another one
 *
 * Each name, with its id and its holders, changes in one step, as in
 * memfilter_replace(); the two steps are taken one after the other under
 * memfilter_names_lock, so a reader that looks up both names in between
 * may find the same filter under both, never a name without one. No
 * reference changes hands: each name holds the other's filter.
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOENT if either name is not published, -EINVAL if they
 * are the same, -EOPNOTSUPP if the other name's filter cannot serve a
 * holder of one name (memfilter_name_hold()'s flags).
 */
int memfilter_exchange(const char *a, const char *b)
{
	struct memfilter_name_entry *na, *nb;
	struct memfilter *fa, *fb;

	guard(mutex)(&memfilter_names_lock);
	na = mf_find(a);
	nb = mf_find(b);
	if (!na || !nb)
		return -ENOENT;
	if (na == nb)
		return -EINVAL;
	fa = rcu_dereference_protected(na->f, lockdep_is_held(&memfilter_names_lock));
	fb = rcu_dereference_protected(nb->f, lockdep_is_held(&memfilter_names_lock));
	if (!mf_entry_fits(na, fb) || !mf_entry_fits(nb, fa))
		return -EOPNOTSUPP;
	rcu_assign_pointer(na->f, fb);
	rcu_assign_pointer(nb->f, fa);
	fa->pub = nb;
	fb->pub = na;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_exchange);

/**
 * memfilter_unpublish_all() - drop every name (module unload)
 *
 * Also waits for the references that replaces left to drop after a grace
 * period, so that the filters' own frees can be waited for next
 * (memfilter_filter_exit()).
 *
 * Context: process context, may sleep.
 */
void memfilter_unpublish_all(void)
{
	struct memfilter_name_entry *n, *gone;
	struct hlist_node *tmp;
	int bkt;

	for (;;) {
		gone = NULL;
		mutex_lock(&memfilter_names_lock);
		hash_for_each_safe(mf_names, bkt, tmp, n, node) {
			gone = mf_unpublish_locked(memfilter_name_filter(n));
			break;
		}
		mutex_unlock(&memfilter_names_lock);
		if (!gone)
			break;
		mf_entry_put(gone);
	}
	/* Empty now; frees the xarray's nodes. */
	xa_destroy(&mf_ids);
	rcu_barrier();
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
