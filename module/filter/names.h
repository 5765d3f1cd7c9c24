/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memfilter's by-id cache (names.c): the lookup of a published filter by
 * id that the BPF kfuncs make for every packet, in one load and one
 * compare, inlined where it is used.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_NAMES_H
#define _MEMFILTER_NAMES_H

#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/rcupdate.h>

#include "filter.h"

/* Slots of the by-id cache: an id's low bits choose its slot. */
#define MEMFILTER_ID_CACHE_BITS	8
#define MEMFILTER_ID_CACHE_SLOTS	BIT(MEMFILTER_ID_CACHE_BITS)

extern struct memfilter_name_entry __rcu *
	memfilter_id_cache[MEMFILTER_ID_CACHE_SLOTS];

struct memfilter *memfilter_lookup_id_xa(u32 id);

/**
 * memfilter_lookup_id_fast() - memfilter_lookup_id_rcu(), its common case
 *	inline
 * @id: a published id (MEMFILTER_IOC_INFO's pub_id)
 *
 * One load of the slot the id's low bits choose and one compare of the
 * full id with the entry's there (an id is not issued again until about
 * 2^31 later publishes, names.c): a slot that holds another id, or none,
 * sends the lookup to the xarray.
 *
 * Context: inside rcu_read_lock() (or with bottom halves disabled); the
 * filter may be used until the read-side section ends.
 * Return: the filter, or NULL if no published filter has that id.
 */
static __always_inline struct memfilter *memfilter_lookup_id_fast(u32 id)
{
	const struct memfilter_name_entry *n;

	n = rcu_dereference_check(memfilter_id_cache[id & (MEMFILTER_ID_CACHE_SLOTS - 1)],
				  rcu_read_lock_any_held());
	if (likely(n && n->id == id))
		return memfilter_name_filter(n);
	return memfilter_lookup_id_xa(id);
}

#endif /* _MEMFILTER_NAMES_H */
