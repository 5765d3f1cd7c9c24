/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The cuckoo filter's core-private helpers, shared by cuckoo.c (single
 * keys, the writer, the type's ops) and cuckoo_batch.c (the batch lookups
 * and adds): the layout's bucket arithmetic, the SWAR slot tests, the
 * common insert and the single-key lookup, inline in both so that each
 * path compiles them with its own constants. The reader and writer
 * protocol they follow is at the top of cuckoo.c. Not for use outside
 * core/cuckoo*.c.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_CUCKOO_INTERNAL_H
#define _MEMFILTER_CUCKOO_INTERNAL_H

#include "cuckoo.h"

union memfilter_state;

#define MF_CUCKOO_TAG_MUL	0x5bd1e995U
/* MEMFILTER_CUCKOO_LAYOUT_MOD: the fingerprint's 64-bit multiplier. */
#define MF_CUCKOO_FP_MUL64	0x9e3779b97f4a7c15ULL
/* The path search's roots: no parent. */
#define MF_CUCKOO_ROOT		0xffffffffU

/* One bucket queued by the path search. */
struct mf_cuckoo_node {
	u64 bucket;
	u32 parent;	/* index in the queue, MF_CUCKOO_ROOT for i1, i2 */
	u32 slot;	/* slot of the parent whose fingerprint moves here */
};

/* Writer-only state, in the caller's memory, away from what readers read. */
struct memfilter_cuckoo_wstate {
	u64 items;
	u64 failed_inserts;
	u64 kicks;
	u64 nodes;
	u64 unstash_wait;
	u64 read_retries;
	u64 read_busy;
	struct mf_cuckoo_node q[];
};

/*
 * The out-of-line slow paths in cuckoo.c that the inline fast paths below
 * fall back to: the insert's path search (both buckets full, or a dump in
 * progress) and the lookup's retries (a writer was inside a window).
 */
int memfilter_cuckoo_add_slow(struct memfilter_cuckoo *c, u64 i1, u64 i2,
			      u32 fp);
bool memfilter_cuckoo_lookup_retry(const struct memfilter_cuckoo *c,
				   u64 i1, u64 i2, u32 fp);

/* The type's batch add (cuckoo_batch.c), in cuckoo.c's table of ops. */
int memfilter_cuckoo_add_batch(union memfilter_state *s, const u64 *hashes,
			       u32 n, unsigned long *result, u32 *done);

static __always_inline u64 mf_cuckoo_bucket(const struct memfilter_cuckoo *c, u64 i)
{
	return memfilter_load_le64(c->table + i * c->bucket_bytes) & c->bucket_mask;
}

/* A hash's fingerprint in [1, @range]: never 0, the empty slot. */
static __always_inline u32 mf_cuckoo_fp_in(u64 hash, u32 range)
{
	return (u32)(((hash >> 40) * range) >> 24) + 1;
}

static __always_inline u32 mf_cuckoo_fp(const struct memfilter_cuckoo *c, u64 hash)
{
	return mf_cuckoo_fp_in(hash, c->fp_range);
}

/* (@t - @i) mod @n, for @t, @i < @n: an involution of @i. */
static __always_inline u64 mf_cuckoo_mod_sub(u64 t, u64 i, u64 n)
{
	return t >= i ? t - i : t - i + n;
}

/* The fingerprint's offset of MEMFILTER_CUCKOO_LAYOUT_MOD, in [0, @n). */
static __always_inline u64 mf_cuckoo_mod_tag(u32 fp, u64 n)
{
	return memfilter_mulhi64(fp * MF_CUCKOO_FP_MUL64, n);
}

/*
 * The two layouts' bucket functions: a key's first bucket and, from either
 * of its buckets, the other. LAYOUT_MOD: any @n buckets; the power-of-two
 * layout: @mask + 1 buckets.
 */
static __always_inline u64 mf_cuckoo_first_mod(u64 hash, u64 n)
{
	return memfilter_mulhi64(hash << 24, n);
}

static __always_inline u64 mf_cuckoo_alt_mod(u64 i, u32 fp, u64 n)
{
	return mf_cuckoo_mod_sub(mf_cuckoo_mod_tag(fp, n), i, n);
}

static __always_inline u64 mf_cuckoo_first_pow2(u64 hash, u64 mask)
{
	return hash & mask;
}

static __always_inline u64 mf_cuckoo_alt_pow2(u64 i, u32 fp, u64 mask)
{
	return i ^ ((u32)(fp * MF_CUCKOO_TAG_MUL) & mask);
}

static __always_inline u64 mf_cuckoo_alt(const struct memfilter_cuckoo *c, u64 i,
					 u32 fp)
{
	if (c->p.layout == MEMFILTER_CUCKOO_LAYOUT_MOD)
		return mf_cuckoo_alt_mod(i, fp, c->p.nbuckets);
	return mf_cuckoo_alt_pow2(i, fp, c->mask);
}

/* A key's first bucket. */
static __always_inline u64 mf_cuckoo_first(const struct memfilter_cuckoo *c,
					   u64 hash)
{
	if (c->p.layout == MEMFILTER_CUCKOO_LAYOUT_MOD)
		return mf_cuckoo_first_mod(hash, c->p.nbuckets);
	return mf_cuckoo_first_pow2(hash, c->mask);
}

/* Non-zero iff some slot of @x is zero (exact as a yes/no answer). */
static __always_inline u64 mf_cuckoo_haszero(const struct memfilter_cuckoo *c, u64 x)
{
	return (x - c->lane_ones) & ~x & c->lane_high;
}

/* The top bit of every slot of @x that is zero, and no other bit. */
static __always_inline u64 mf_cuckoo_zero_slots(const struct memfilter_cuckoo *c,
						u64 x)
{
	u64 low = c->bucket_mask & ~c->lane_high;

	return ~(((x & low) + low) | x) & c->lane_high;
}

/*
 * The same for @f-bit fingerprints, @f a constant (the fast paths switch
 * on the width once, so that masks and multipliers are immediates).
 */
static __always_inline u64 mf_cuckoo_ones(const u32 f)
{
	return 1 | 1ULL << f | 1ULL << (2 * f) | 1ULL << (3 * f);
}

/*
 * What the fast paths read of the filter's shape, copied into a local
 * once per call: the barriers of the lockless protocol would otherwise
 * reload every field for every key of a batch.
 */
struct mf_cuckoo_geo {
	const u8 *table;
	const u32 *ver;
	u64 nbuckets;
	u64 mask;
	u64 lane_ones;
	u32 stripe_mask;
	u32 layout;
};

static __always_inline struct mf_cuckoo_geo
mf_cuckoo_geo_of(const struct memfilter_cuckoo *c)
{
	return (struct mf_cuckoo_geo){
		.table = c->table, .ver = c->ver, .nbuckets = c->p.nbuckets,
		.mask = c->mask, .lane_ones = c->lane_ones,
		.stripe_mask = c->stripe_mask, .layout = c->p.layout,
	};
}

/* mf_cuckoo_fp() for @f-bit fingerprints (fp_range is (1 << @f) - 1). */
static __always_inline u32 mf_cuckoo_fp_f(u64 hash, const u32 f)
{
	return mf_cuckoo_fp_in(hash, (1U << f) - 1);
}

/*
 * mf_cuckoo_locate() for @f-bit fingerprints in layout @lay: the batch
 * loops pass a constant, so that the layout's branch folds away.
 */
static __always_inline void mf_cuckoo_locate_l(const struct mf_cuckoo_geo *g,
					       u64 hash, u64 *i1, u64 *i2,
					       u32 *fp, const u32 f, const u32 lay)
{
	*fp = mf_cuckoo_fp_f(hash, f);
	if (lay == MEMFILTER_CUCKOO_LAYOUT_MOD) {
		*i1 = mf_cuckoo_first_mod(hash, g->nbuckets);
		*i2 = mf_cuckoo_alt_mod(*i1, *fp, g->nbuckets);
	} else {
		*i1 = mf_cuckoo_first_pow2(hash, g->mask);
		*i2 = mf_cuckoo_alt_pow2(*i1, *fp, g->mask);
	}
}

/* mf_cuckoo_locate() for @f-bit fingerprints. */
static __always_inline void mf_cuckoo_locate_g(const struct mf_cuckoo_geo *g,
					       u64 hash, u64 *i1, u64 *i2,
					       u32 *fp, const u32 f)
{
	mf_cuckoo_locate_l(g, hash, i1, i2, fp, f, g->layout);
}

static __always_inline void mf_cuckoo_locate_f(const struct memfilter_cuckoo *c,
					       u64 hash, u64 *i1, u64 *i2,
					       u32 *fp, const u32 f)
{
	struct mf_cuckoo_geo g = mf_cuckoo_geo_of(c);

	mf_cuckoo_locate_g(&g, hash, i1, i2, fp, f);
}

/* Bucket @i of a table of @f-bit slots: its 4 slots in the low 4 @f bits. */
static __always_inline u64 mf_cuckoo_load(const u8 *table, u64 i, const u32 f)
{
	if (f == 8)
		return memfilter_load_le32(table + i * 4);
	return memfilter_load_le64(table + i * (f / 2));
}

/*
 * Prefetch every line that mf_cuckoo_load() of bucket @i reads: a 12-bit
 * bucket is 6 bytes read with an 8-byte load, and 3 of every 32 such
 * loads reach into the next line (8- and 16-bit buckets never do).
 */
static __always_inline void mf_cuckoo_prefetch_bucket(const u8 *table, u64 i,
						      const u32 f)
{
	memfilter_prefetch(table + i * (f / 2));
	if (f == 12)
		memfilter_prefetch(table + i * 6 + 7);
}

/* Slot @s of bucket word @b of @f-bit slots. */
static __always_inline u32 mf_cuckoo_slot_f(u64 b, u32 s, const u32 f)
{
	return (b >> (s * f)) & ((1U << f) - 1);
}

/* The top bit of every zero slot of bucket word @x (as mf_cuckoo_zero_slots()). */
static __always_inline u64 mf_cuckoo_zero_f(u64 x, const u32 f)
{
	const u64 high = mf_cuckoo_ones(f) << (f - 1);
	const u64 low = (f == 16 ? ~0ULL : (1ULL << (4 * f)) - 1) & ~high;

	return ~(((x & low) + low) | x) & high;
}

static __always_inline bool mf_cuckoo_stash_has(u64 stash, u64 i1, u64 i2,
						u32 fp)
{
	return (u32)(stash & 0xffff) == fp &&
	       ((stash >> 16) == i1 || (stash >> 16) == i2);
}

/* The lowest slot of @zero_slots (mf_cuckoo_zero_f()'s top bits), @f-bit slots. */
static __always_inline u32 mf_cuckoo_slot_of_f(u64 zero_slots, const u32 f)
{
	return __ffs64(zero_slots) / f;
}

static __always_inline u32 mf_cuckoo_slot_of(const struct memfilter_cuckoo *c,
					     u64 zero_slots)
{
	return mf_cuckoo_slot_of_f(zero_slots, c->p.fp_bits);
}

/*
 * Store @fp (0: empty) in the @f-bit slot at bit @bit of the table,
 * inside an open window, with no dump in progress (see mf_cuckoo_store_f()
 * in cuckoo.c).
 */
static __always_inline void mf_cuckoo_store_bit(struct memfilter_cuckoo *c, u64 bit,
						u32 fp, const u32 f)
{
	u8 *p = c->table + (bit >> 3);

	if (f == 8) {
		WRITE_ONCE(*p, (u8)fp);
	} else if (f == 16) {
		WRITE_ONCE(*(__le16 *)p, cpu_to_le16((u16)fp));
	} else if (bit & 7) {
		/* 12 bits: one whole byte and one nibble shared with a neighbour. */
		WRITE_ONCE(p[0], (u8)((p[0] & 0x0f) | (fp << 4)));
		WRITE_ONCE(p[1], (u8)(fp >> 4));
	} else {
		WRITE_ONCE(p[0], (u8)fp);
		WRITE_ONCE(p[1], (u8)((p[1] & 0xf0) | (fp >> 8)));
	}
}

static __always_inline void mf_cuckoo_locate(const struct memfilter_cuckoo *c,
					     u64 hash, u64 *i1, u64 *i2,
					     u32 *fp)
{
	*fp = mf_cuckoo_fp(c, hash);
	*i1 = mf_cuckoo_first(c, hash);
	*i2 = mf_cuckoo_alt(c, *i1, *fp);
}

/*
 * The common insert for @f-bit fingerprints, @f a constant, of a key
 * located in buckets @i1, @i2 with fingerprint @fp: a free slot in
 * the key's first bucket, else in its second, stored in a window over
 * that bucket's stripe alone, exactly as mf_cuckoo_place() would store it
 * (same bucket, same slot); a full pair goes to the path search of
 * memfilter_cuckoo_add_slow(), and so does every insert while a dump
 * copies the table.
 */
static __always_inline int mf_cuckoo_add_at_f(struct memfilter_cuckoo *c, u64 i1,
					      u64 i2, u32 fp, const u32 f)
{
	u64 i, z;
	u32 *v, *gen, vv, gv;

	i = i1;
	z = mf_cuckoo_zero_f(mf_cuckoo_load(c->table, i1, f), f);
	if (!z) {
		i = i2;
		z = mf_cuckoo_zero_f(mf_cuckoo_load(c->table, i2, f), f);
	}
	if (unlikely(!z || c->dump))
		return memfilter_cuckoo_add_slow(c, i1, i2, fp);
	v = &c->ver[i & c->stripe_mask];
	gen = c->gen;
	/* Only this writer changes them: no need to read them back. */
	vv = *v;
	gv = *gen;
	WRITE_ONCE(*gen, gv + 1);
	WRITE_ONCE(*v, vv + 1);
	smp_wmb();	/* odd versions before the slot; pairs with readers' smp_rmb() */
	/* The lowest zero slot's top bit is bit f - 1 of its slot. */
	mf_cuckoo_store_bit(c, i * (MEMFILTER_CUCKOO_SLOTS * f) + __ffs64(z) - (f - 1),
			    fp, f);
	smp_wmb();	/* the slot before the even versions */
	WRITE_ONCE(*v, vv + 2);
	WRITE_ONCE(*gen, gv + 2);
	WRITE_ONCE(c->w->items, c->w->items + 1);
	return 0;
}

/*
 * The lookup's fast path for fingerprints of @f bits, @f a constant so
 * that the slot masks are immediates: both versions, then both buckets'
 * loads issued before either is tested (two misses in flight), a SWAR
 * test of each bucket (garbage above the 4 slots of a whole-word load of
 * a 12-bit bucket cannot reach them: borrows only run upwards), and the
 * stash and the versions' re-read only for a negative answer. Any sign
 * of a writer goes to memfilter_cuckoo_lookup_retry(). The same protocol
 * and answers as that loop's first attempt.
 */
static __always_inline bool mf_cuckoo_probe(const struct memfilter_cuckoo *c,
					    const struct mf_cuckoo_geo *g,
					    u64 i1, u64 i2, u32 fp, const u32 f)
{
	const u64 ones = mf_cuckoo_ones(f);
	const u32 *ver = g->ver;
	u32 v1, v2, sm = g->stripe_mask;
	u64 x1, x2, pat, s;

	pat = fp * g->lane_ones;	/* one multiply, not shifts and adds */
	v1 = READ_ONCE(ver[i1 & sm]);
	v2 = READ_ONCE(ver[i2 & sm]);
	smp_rmb();	/* versions before the buckets and the stash */
	/* Racy bucket reads: the versions' re-read below validates them. */
	x1 = data_race(mf_cuckoo_load(g->table, i1, f)) ^ pat;
	/* Racy, as x1. */
	x2 = data_race(mf_cuckoo_load(g->table, i2, f)) ^ pat;
	if ((((x1 - ones) & ~x1) | ((x2 - ones) & ~x2)) & ones << (f - 1))
		return true;
	/*
	 * The stash only for a negative answer: read, like the buckets,
	 * between the versions and their re-read, which validate it too.
	 */
	s = READ_ONCE(c->stash);
	if (unlikely(s) && mf_cuckoo_stash_has(s, i1, i2, fp))
		return true;
	smp_rmb();	/* buckets and stash before the versions' re-read */
	if (likely(!((v1 | v2) & 1) && v1 == READ_ONCE(ver[i1 & sm]) &&
		   v2 == READ_ONCE(ver[i2 & sm])))
		return false;
	return memfilter_cuckoo_lookup_retry(c, i1, i2, fp);
}

/*
 * A single-key lookup: the layout's branch first, so that only the
 * fields this lookup uses are loaded (the layout's own, the table, the
 * versions and their mask, the stash): few enough for the scratch
 * registers, no stack frame.
 */
static __always_inline bool mf_cuckoo_query(const struct memfilter_cuckoo *c,
					    u64 hash, const u32 f)
{
	/*
	 * Initialized whole: a struct left partly unset is zeroed in memory
	 * at every call by the kernel's -ftrivial-auto-var-init=zero (a
	 * rep stos and a stack frame), where this one stays in registers.
	 */
	struct mf_cuckoo_geo g = {
		.table = c->table, .ver = c->ver,
		.stripe_mask = c->stripe_mask, .lane_ones = c->lane_ones,
	};
	u64 i1, i2;
	u32 fp;

	fp = mf_cuckoo_fp_f(hash, f);
	if (likely(c->p.layout == MEMFILTER_CUCKOO_LAYOUT_MOD)) {
		g.nbuckets = c->p.nbuckets;
		i1 = mf_cuckoo_first_mod(hash, g.nbuckets);
		i2 = mf_cuckoo_alt_mod(i1, fp, g.nbuckets);
	} else {
		g.mask = c->mask;
		i1 = mf_cuckoo_first_pow2(hash, g.mask);
		i2 = mf_cuckoo_alt_pow2(i1, fp, g.mask);
	}
	return mf_cuckoo_probe(c, &g, i1, i2, fp, f);
}

/* The single-key lookup: one switch on the width, then straight-line code. */
static __always_inline bool mf_cuckoo_contains(const struct memfilter_cuckoo *c,
					       u64 hash)
{
	switch (c->p.fp_bits) {
	case 12:
		return mf_cuckoo_query(c, hash, 12);
	case 8:
		return mf_cuckoo_query(c, hash, 8);
	default:
		return mf_cuckoo_query(c, hash, 16);
	}
}

#endif /* _MEMFILTER_CUCKOO_INTERNAL_H */
