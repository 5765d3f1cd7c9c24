// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * The table of filter types, and the create request's checks, done once
 * here for the module and for libmemfilter's offline filters alike.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include "filter_type.h"

static const struct memfilter_type_ops *const memfilter_types[] = {
	[MEMFILTER_TYPE_BLOOM] = &memfilter_bloom_ops,
	[MEMFILTER_TYPE_CUCKOO] = &memfilter_cuckoo_ops,
	[MEMFILTER_TYPE_WINDOW] = &memfilter_window_ops,
	[MEMFILTER_TYPE_GROW] = &memfilter_grow_ops,
};

/**
 * memfilter_type_ops() - the operations of a filter type
 * @type: a MEMFILTER_TYPE_*, from userspace or an image
 *
 * Context: any.
 * Return: the type's table, or NULL for an unknown type.
 */
const struct memfilter_type_ops *memfilter_type_ops(u32 type)
{
	if (type >= ARRAY_SIZE(memfilter_types))
		return NULL;
	return memfilter_types[type];
}

/*
 * A keyed (SipHash) filter gets a random secret, others (XXH3, XXH64) a
 * seed: XXH3 unless MEMFILTER_CREATE_XXH64 asks for XXH64.
 */
static int memfilter_create_hasher(const struct memfilter_create *c,
				   struct memfilter_hasher *h)
{
	u64 key[2], seed = c->seed;
	int ret;

	if (c->flags & MEMFILTER_CREATE_KEYED) {
		do {
			ret = memfilter_random(key, sizeof(key));
			if (ret)
				return ret;
		} while (!(key[0] | key[1]));
		ret = memfilter_hasher_init(h, MEMFILTER_HASH_SIPHASH24, 0, key);
		memzero_explicit(key, sizeof(key));
		return ret;
	}
	if (!(c->flags & MEMFILTER_CREATE_SEED)) {
		ret = memfilter_random(&seed, sizeof(seed));
		if (ret)
			return ret;
	}
	return memfilter_hasher_init(h, c->flags & MEMFILTER_CREATE_XXH64 ?
				     MEMFILTER_HASH_XXH64 : MEMFILTER_HASH_XXH3,
				     seed, NULL);
}

/**
 * memfilter_create_params() - check a create request and size the filter
 * @c: the request (struct memfilter_create of the uapi)
 * @ops: out: the filter's type
 * @p: out: its parameters, hasher included (a keyed filter's secret is
 *	in there: memzero_explicit() it when done)
 *
 * Context: any that may read random bytes (process context in the kernel).
 * Return: 0; -EOPNOTSUPP for an unknown flag or type; -EINVAL for
 * inconsistent parameters; -E2BIG when too large; or the error of the
 * random source (userspace).
 */
int memfilter_create_params(const struct memfilter_create *c,
			    const struct memfilter_type_ops **ops,
			    union memfilter_params *p)
{
	struct memfilter_create per_key;
	u32 fields;
	int ret;

	if (c->flags & ~MEMFILTER_CREATE_FLAGS)
		return -EOPNOTSUPP;
	if ((c->flags & MEMFILTER_CREATE_KEYED) &&
	    (c->flags & (MEMFILTER_CREATE_SEED | MEMFILTER_CREATE_XXH3 |
			 MEMFILTER_CREATE_XXH64)))
		return -EINVAL;
	if ((c->flags & MEMFILTER_CREATE_XXH3) &&
	    (c->flags & MEMFILTER_CREATE_XXH64))
		return -EINVAL;
	if (!(c->flags & MEMFILTER_CREATE_SEED) && c->seed)
		return -EINVAL;
	if (!c->capacity)
		return -EINVAL;
	/*
	 * Each type-specific field is 0 unless the type claims it (an
	 * unknown type claims none); a known layout, for the types that
	 * have one (an unknown type's is -EOPNOTSUPP, as the type is).
	 */
	*ops = memfilter_type_ops(c->type);
	fields = *ops ? (*ops)->create_fields : 0;
	if (!(fields & MEMFILTER_FIELDS_WINDOW) &&
	    (c->generations || c->window_flags || c->period_ms))
		return -EINVAL;
	if (!(fields & MEMFILTER_FIELDS_GROW) &&
	    (c->grow_max || c->grow_factor || c->grow_ratio_pct))
		return -EINVAL;
	if (c->layout > MEMFILTER_LAYOUT_SPLIT32)
		return -EOPNOTSUPP;
	if (*ops && !(fields & MEMFILTER_FIELDS_LAYOUT) && c->layout)
		return -EINVAL;
	if (c->__reserved1)
		return -EOPNOTSUPP;
	if (c->prefix_lengths > MEMFILTER_PREFIX_LENGTHS_MAX)
		return -EINVAL;
	if (!*ops)
		return -EOPNOTSUPP;
	/*
	 * A prefix filter's address lookup probes up to prefix_lengths keys:
	 * at fpr_ppb / L per key, its rate 1 - (1 - p / L)^L stays under p.
	 */
	if (c->prefix_lengths && c->fpr_ppb) {
		per_key = *c;
		per_key.fpr_ppb = div_u64(c->fpr_ppb, c->prefix_lengths);
		if (!per_key.fpr_ppb)
			per_key.fpr_ppb = 1;
		c = &per_key;
	}
	memset(p, 0, sizeof(*p));
	ret = (*ops)->params(c, p);
	if (ret)
		return ret;
	return memfilter_create_hasher(c, (*ops)->hasher(p));
}

/**
 * memfilter_state_info() - describe a filter in the uapi's terms
 * @ops: its type
 * @s: the filter
 * @added: the owner's count of adds
 * @info: filled in: type, parameters, hasher, fill and the KEYED and
 *	OVERFILL status bits; the owner adds its statistics, size and name
 *
 * Context: any.
 */
void memfilter_state_info(const struct memfilter_type_ops *ops,
			  const union memfilter_state *s, u64 added,
			  struct memfilter_info *info)
{
	const struct memfilter_hasher *h = memfilter_state_hasher(ops, s);

	ops->info(s, added, info);
	info->type = ops->type;
	info->hash_algo = h->algo;
	if (h->algo != MEMFILTER_HASH_SIPHASH24)
		info->seed = h->seed;
	else
		info->status |= MEMFILTER_STATUS_KEYED;
	/*
	 * Window filters say it of their current generation themselves;
	 * growing filters never overfill (a full sub-filter makes a new one).
	 */
	if (info->keys > info->capacity && !info->generations &&
	    !info->subfilters)
		info->status |= MEMFILTER_STATUS_OVERFILL;
}
