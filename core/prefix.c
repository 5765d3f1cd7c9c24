// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Address prefixes: checking a prefix, the sets of lengths a filter holds
 * and the false-positive rate of an address lookup (core/prefix.h has the
 * key encoding and the lookup rule itself, inline for the packet path).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include "prefix.h"

/* The bits a family may have in each word of a set. */
static const u64 mf_prefix_valid[MEMFILTER_PREFIX_WORDS] = {
	(1ULL << 33) - 1, ~0ULL, ~0ULL, 1,
};

/* The word and bit of a length of a family whose address has @alen bytes. */
static u32 mf_prefix_bit(u32 alen, u32 length, u32 *word)
{
	*word = alen == 4 ? 0 : 1 + length / 64;
	return length % 64;
}

/**
 * memfilter_prefix_check() - is a prefix one a filter can hold?
 * @p: the prefix
 *
 * Context: any.
 * Return: 0, or -EINVAL for an unknown family, a length past the
 * address's bits, a set bit past the length or past an IPv4 address, or
 * a non-zero reserved byte.
 */
int memfilter_prefix_check(const struct memfilter_prefix *p)
{
	u32 alen = memfilter_prefix_addr_len(p->family);
	u8 a[16];

	if (!alen || p->length > 8 * alen || p->__reserved[0] ||
	    p->__reserved[1])
		return -EINVAL;
	memcpy(a, p->addr, sizeof(a));
	memfilter_prefix_clear(a, sizeof(a), p->length);
	return memcmp(a, p->addr, sizeof(a)) ? -EINVAL : 0;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_prefix_check);

/**
 * memfilter_prefix_mark() - add a checked prefix's length to a set
 * @set: MEMFILTER_PREFIX_WORDS words (not a live filter's: see
 *	memfilter_prefixes_add())
 * @p: a prefix memfilter_prefix_check() accepted
 *
 * Context: any.
 */
void memfilter_prefix_mark(u64 *set, const struct memfilter_prefix *p)
{
	u32 w, b = mf_prefix_bit(memfilter_prefix_addr_len(p->family),
				 p->length, &w);

	set[w] |= BIT_ULL(b);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_prefix_mark);

/**
 * memfilter_prefix_marked() - is a checked prefix's length in a set?
 * @set: MEMFILTER_PREFIX_WORDS words
 * @p: a prefix memfilter_prefix_check() accepted
 *
 * Context: any; lockless on a live filter's set.
 * Return: true if it is.
 */
bool memfilter_prefix_marked(const u64 *set, const struct memfilter_prefix *p)
{
	u32 w, b = mf_prefix_bit(memfilter_prefix_addr_len(p->family),
				 p->length, &w);

	return READ_ONCE(set[w]) & BIT_ULL(b);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_prefix_marked);

/**
 * memfilter_prefixes_count() - how many lengths of a family a set holds
 * @set: MEMFILTER_PREFIX_WORDS words
 * @alen: the family's address length, 4 or 16
 *
 * Context: any; lockless on a live filter's set.
 * Return: the count, 0 for another @alen.
 */
u32 memfilter_prefixes_count(const u64 *set, u32 alen)
{
	u32 first, last, w, n = 0;

	if (!memfilter_prefix_words(alen, &first, &last))
		return 0;
	for (w = first; w <= last; w++)
		n += hweight64(READ_ONCE(set[w]));
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_prefixes_count);

/**
 * memfilter_prefixes_check_add() - may a filter take these lengths too?
 * @px: the filter's lengths
 * @want: a set of lengths (memfilter_prefix_mark())
 *
 * Context: any; meaningful while the caller keeps other writers of new
 * lengths out (as memfilter_prefixes_add() needs).
 * Return: 0, -EOPNOTSUPP for a filter of keys, -ENOSPC if a family would
 * hold more than @px->max lengths.
 */
int memfilter_prefixes_check_add(const struct memfilter_prefixes *px,
				 const u64 *want)
{
	u64 u[MEMFILTER_PREFIX_WORDS];
	u32 w;

	if (!px->max)
		return -EOPNOTSUPP;
	for (w = 0; w < MEMFILTER_PREFIX_WORDS; w++)
		u[w] = READ_ONCE(px->lengths[w]) | want[w];
	if (memfilter_prefixes_count(u, 4) > px->max ||
	    memfilter_prefixes_count(u, 16) > px->max)
		return -ENOSPC;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_prefixes_check_add);

/**
 * memfilter_prefixes_add() - record lengths in a live filter
 * @px: the filter's lengths
 * @want: lengths memfilter_prefixes_check_add() accepted
 *
 * Sets the bits, then a full barrier: the caller adds keys of these
 * lengths only after this returns, so that a reader of the table who
 * then reads the lengths (a dump) finds every length whose key it saw.
 * Readers on the lookup path that miss a bit just set miss only keys not
 * yet added.
 *
 * Context: any; writers of new lengths serialized by the caller (the
 * lengths check before it and the bits it sets must not interleave with
 * another's).
 */
void memfilter_prefixes_add(struct memfilter_prefixes *px, const u64 *want)
{
	u32 w;

	for (w = 0; w < MEMFILTER_PREFIX_WORDS; w++)
		if (want[w] & ~READ_ONCE(px->lengths[w]))
			memfilter_atomic_or64(&px->lengths[w], want[w]);
	/* The lengths before any key of them: pairs with the dump's smp_rmb(). */
	smp_mb();
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_prefixes_add);

/**
 * memfilter_prefixes_lengths() - the lengths of a family, longest first
 * @px: a filter's lengths
 * @alen: the family's address length, 4 or 16
 * @lens: out: MEMFILTER_PREFIX_LENGTHS_MAX bytes at least
 *
 * The order memfilter_prefix_contains() probes them in.
 *
 * Context: any; lockless on a live filter.
 * Return: how many, at most @px->max (0 for a filter of keys or another
 * @alen).
 */
u32 memfilter_prefixes_lengths(const struct memfilter_prefixes *px, u32 alen,
			       u8 *lens)
{
	struct memfilter_prefix_iter it;
	u32 n = 0;
	int length;

	if (!px->max || !memfilter_prefix_iter_init(&it, px, alen))
		return 0;
	while (n < px->max && (length = memfilter_prefix_next(&it, px)) >= 0)
		lens[n++] = length;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_prefixes_lengths);

/**
 * memfilter_prefixes_init() - a filter's lengths, new or from an image
 * @px: out
 * @max: the most lengths per family, 0 for a filter of keys
 * @lengths: the lengths held (MEMFILTER_PREFIX_WORDS words), or NULL for
 *	none
 *
 * Context: any.
 * Return: 0, or -EINVAL for a @max over MEMFILTER_PREFIX_LENGTHS_MAX, a
 * bit no family has, more lengths of a family than @max, or lengths in
 * a filter of keys.
 */
int memfilter_prefixes_init(struct memfilter_prefixes *px, u32 max,
			    const u64 *lengths)
{
	u32 w;

	memset(px, 0, sizeof(*px));
	if (max > MEMFILTER_PREFIX_LENGTHS_MAX)
		return -EINVAL;
	if (!lengths)
		goto out;
	for (w = 0; w < MEMFILTER_PREFIX_WORDS; w++) {
		if ((lengths[w] & ~mf_prefix_valid[w]) || (lengths[w] && !max))
			return -EINVAL;
		px->lengths[w] = lengths[w];
	}
	if (memfilter_prefixes_count(px->lengths, 4) > max ||
	    memfilter_prefixes_count(px->lengths, 16) > max) {
		memset(px, 0, sizeof(*px));
		return -EINVAL;
	}
out:
	px->max = max;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_prefixes_init);

/**
 * memfilter_prefix_fpr_ppb() - the false-positive rate of an address lookup
 * @key_fpr_ppb: the filter's rate per key, parts per billion
 * @lengths: the lengths the address's family holds
 *
 * 1 - (1 - p)^L: the lookup probes L keys and is a false positive when
 * any of them is one, each independently at the rate p. Integer
 * arithmetic in ppb, rounded up.
 *
 * Context: any.
 * Return: the rate in ppb, at most 10^9; 0 for no lengths.
 */
u64 memfilter_prefix_fpr_ppb(u64 key_fpr_ppb, u32 lengths)
{
	const u64 one = 1000000000;
	u64 q = one - min(key_fpr_ppb, one), miss = one;
	u32 i;

	for (i = 0; i < lengths && miss; i++)
		miss = div64_u64(miss * q, one);
	return one - miss;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_prefix_fpr_ppb);

/**
 * memfilter_prefixes_info() - a prefix filter's fields of struct memfilter_info
 * @px: its lengths
 * @info: filled in: prefix_lengths, prefixes and the address lookups'
 *	rates from @info->est_fpr_ppb, which must be set; untouched for a
 *	filter of keys
 *
 * Context: any; lockless.
 */
void memfilter_prefixes_info(const struct memfilter_prefixes *px,
			     struct memfilter_info *info)
{
	u64 set[MEMFILTER_PREFIX_WORDS], p = info->est_fpr_ppb;
	u32 w;

	if (!px->max)
		return;
	for (w = 0; w < MEMFILTER_PREFIX_WORDS; w++) {
		set[w] = READ_ONCE(px->lengths[w]);
		info->prefixes[w] = set[w];
	}
	info->prefix_lengths = px->max;
	info->prefix_fpr4_ppb =
		memfilter_prefix_fpr_ppb(p, memfilter_prefixes_count(set, 4));
	info->prefix_fpr6_ppb =
		memfilter_prefix_fpr_ppb(p, memfilter_prefixes_count(set, 16));
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_prefixes_info);
