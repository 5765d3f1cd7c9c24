/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Address prefixes (CIDR ranges) in a filter: the key a prefix is stored
 * under, the set of prefix lengths a filter holds, and the rule by which
 * an address is looked up against them. The one definition of all three,
 * compiled into the module (netfilter hook, BPF kfuncs, ADD_PREFIXES)
 * and into userspace (libmemfilter's live and offline filters,
 * memfilterctl, the native tests and benchmarks). The uapi header's
 * "Address prefixes" section is the contract; Documentation/filters.rst
 * explains the false-positive arithmetic.
 *
 * Conventions in this file: a set of lengths is four 64-bit words, bit L
 * of word 0 for IPv4 /L (L <= 32), bit L % 64 of word 1 + L / 64 for IPv6
 * /L (L <= 128), as memfilter_info.prefixes and images carry it. Bits are
 * only ever set, never cleared, in a live filter: readers load the words
 * locklessly with READ_ONCE(); writers of new lengths are serialized by
 * the owner and set them (memfilter_prefixes_add()) before adding any key
 * of those lengths, with a full barrier between, so whoever sees a key's
 * bits in the table and then reads the lengths (an image dump) sees its
 * length.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_PREFIX_H
#define _MEMFILTER_PREFIX_H

#include <linux/memfilter.h>

#include "compat.h"
#include "filter_type.h"

/* Words of a set of lengths. */
#define MEMFILTER_PREFIX_WORDS	4
/* The longest prefix key: the length byte and an IPv6 address. */
#define MEMFILTER_PREFIX_KEY_MAX 17

/**
 * struct memfilter_prefixes - the prefix lengths a filter holds
 * @lengths: the set (see the top of this file); written only through
 *	memfilter_prefixes_add()
 * @max: the most lengths per family (memfilter_create.prefix_lengths);
 *	0 for a filter of keys, which holds no prefixes
 */
struct memfilter_prefixes {
	u64 lengths[MEMFILTER_PREFIX_WORDS];
	u32 max;
};

/* Bytes of an address of a family, 0 for an unknown family. */
static inline u32 memfilter_prefix_addr_len(u32 family)
{
	return family == MEMFILTER_PREFIX_IPV4 ? 4 :
	       family == MEMFILTER_PREFIX_IPV6 ? 16 : 0;
}

/* Clear the bits of an address of @alen bytes past its first @length. */
static __always_inline void memfilter_prefix_clear(u8 *a, u32 alen, u32 length)
{
	u32 i = length / 8;

	if (length % 8)
		a[i++] &= 0xff << (8 - length % 8);
	if (i < alen)
		memset(a + i, 0, alen - i);
}

/**
 * memfilter_prefix_key() - the key a prefix is stored under
 * @key: out: MEMFILTER_PREFIX_KEY_MAX bytes at least
 * @addr: an address, network byte order
 * @alen: 4 (IPv4) or 16 (IPv6)
 * @length: the prefix length, at most 8 * @alen
 *
 * The byte @length, then @addr with every bit past the first @length
 * cleared.
 *
 * Context: any.
 * Return: the key's length, @alen + 1.
 */
static __always_inline u32 memfilter_prefix_key(u8 *key, const u8 *addr,
						u32 alen, u32 length)
{
	key[0] = length;
	memcpy(key + 1, addr, alen);
	memfilter_prefix_clear(key + 1, alen, length);
	return alen + 1;
}

/* The words of the set that hold a family's lengths: [*first, *last]. */
static __always_inline bool memfilter_prefix_words(u32 alen, u32 *first,
						   u32 *last)
{
	if (alen == 4) {
		*first = 0;
		*last = 0;
		return true;
	}
	if (alen == 16) {
		*first = 1;
		*last = 3;
		return true;
	}
	return false;
}

/**
 * struct memfilter_prefix_iter - the lengths of a family, longest first
 * @set: what is left of the word being walked
 * @w: that word
 * @first: the family's first word
 *
 * Each word is loaded once (READ_ONCE()), when the walk reaches it.
 */
struct memfilter_prefix_iter {
	u64 set;
	u32 w;
	u32 first;
};

/**
 * memfilter_prefix_iter_init() - start walking a family's lengths
 * @it: the walk
 * @px: a filter's lengths
 * @alen: the family's address length, 4 or 16
 *
 * Context: any; lockless on a live filter.
 * Return: false for another @alen (nothing to walk).
 */
static __always_inline bool memfilter_prefix_iter_init(struct memfilter_prefix_iter *it,
						       const struct memfilter_prefixes *px,
						       u32 alen)
{
	u32 last;

	if (!memfilter_prefix_words(alen, &it->first, &last))
		return false;
	it->w = last;
	it->set = READ_ONCE(px->lengths[last]);
	return true;
}

/**
 * memfilter_prefix_next() - the next length of a walk
 * @it: the walk
 * @px: the lengths it walks
 *
 * Context: as memfilter_prefix_iter_init().
 * Return: the next length, shorter than the one before, or -1 at the end.
 */
static __always_inline int memfilter_prefix_next(struct memfilter_prefix_iter *it,
						 const struct memfilter_prefixes *px)
{
	u32 bit;

	while (!it->set) {
		if (it->w == it->first)
			return -1;
		it->set = READ_ONCE(px->lengths[--it->w]);
	}
	bit = fls64(it->set) - 1;
	it->set &= ~BIT_ULL(bit);
	return (it->w - it->first) * 64 + bit;
}

int memfilter_prefix_check(const struct memfilter_prefix *p);
void memfilter_prefix_mark(u64 *set, const struct memfilter_prefix *p);
bool memfilter_prefix_marked(const u64 *set, const struct memfilter_prefix *p);
u32 memfilter_prefixes_count(const u64 *set, u32 alen);
int memfilter_prefixes_check_add(const struct memfilter_prefixes *px,
				 const u64 *want);
void memfilter_prefixes_add(struct memfilter_prefixes *px, const u64 *want);
u32 memfilter_prefixes_lengths(const struct memfilter_prefixes *px, u32 alen,
			       u8 *lens);
int memfilter_prefixes_init(struct memfilter_prefixes *px, u32 max,
			    const u64 *lengths);
u64 memfilter_prefix_fpr_ppb(u64 key_fpr_ppb, u32 lengths);
void memfilter_prefixes_info(const struct memfilter_prefixes *px,
			     struct memfilter_info *info);

/*
 * The walk of memfilter_prefix_contains() for one family, @alen a
 * constant where it is inlined, so that the copy, the clearing and the
 * key's hash are for a known length.
 */
static __always_inline bool mf_prefix_walk(const struct memfilter_type_ops *ops,
					   const union memfilter_state *s,
					   const struct memfilter_prefixes *px,
					   const u8 *addr, u32 alen)
{
	struct memfilter_prefix_iter it;
	u8 key[MEMFILTER_PREFIX_KEY_MAX + 3];
	u32 a, m;
	int length;
	u64 k;

	memfilter_prefix_iter_init(&it, px, alen);
	if (alen == 4) {
		/*
		 * memfilter_prefix_key() in one 8-byte store, from which
		 * the hash's loads of the key forward: a key stored byte by
		 * byte makes each of them wait for the stores to retire.
		 */
		a = memfilter_load_le32(addr);
		while ((length = memfilter_prefix_next(&it, px)) >= 0) {
			m = length ? ~0U << (32 - length) : 0;
			k = length | (u64)(a & __builtin_bswap32(m)) << 8;
			k = (__force u64)cpu_to_le64(k);
			memcpy(key, &k, sizeof(k));
			if (memfilter_state_contains_key(ops, s, key, 5))
				return true;
		}
		return false;
	}
	/* memfilter_prefix_key(), each length clearing more of one copy. */
	memcpy(key + 1, addr, alen);
	while ((length = memfilter_prefix_next(&it, px)) >= 0) {
		key[0] = length;
		memfilter_prefix_clear(key + 1, alen, length);
		if (memfilter_state_contains_key(ops, s, key, alen + 1))
			return true;
	}
	return false;
}

/**
 * memfilter_prefix_contains() - may an address be in a filter?
 * @ops: the filter's type
 * @s: the filter
 * @px: its prefix lengths
 * @addr: the address, network byte order
 * @alen: its length: 4 (IPv4) or 16 (IPv6)
 *
 * The lookup rule: a filter of keys (@px->max 0) holds addresses as keys
 * of @alen bytes; a prefix filter is asked for the address's key
 * (memfilter_prefix_key()) at each length of its family that it holds,
 * longest first, until one may be present.
 *
 * Context: as the type's @contains_key: lockless, any context it allows.
 * At most @px->max probes, each one key's hash and probe.
 * Return: false if no prefix the filter holds covers the address
 * (certainly; always for a prefix filter and an @alen other than 4 or
 * 16), true if one may.
 */
static inline bool memfilter_prefix_contains(const struct memfilter_type_ops *ops,
					     const union memfilter_state *s,
					     const struct memfilter_prefixes *px,
					     const u8 *addr, u32 alen)
{
	if (!px->max)
		return memfilter_state_contains_key(ops, s, addr, alen);
	if (alen == 4)
		return mf_prefix_walk(ops, s, px, addr, 4);
	if (alen == 16)
		return mf_prefix_walk(ops, s, px, addr, 16);
	return false;
}

#endif /* _MEMFILTER_PREFIX_H */
