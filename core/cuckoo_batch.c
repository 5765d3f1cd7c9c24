// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * memfilter's cuckoo filter, the batch paths: lookups of many keys, 64 at
 * a time under the table's version (the batch protocol at the top of
 * cuckoo.c), with a ring of keys located ahead so that their buckets'
 * cache misses overlap; counts of many keys; and the type's batch add,
 * which locates keys ahead the same way. The single-key calls, the writer
 * and the protocol's write-up are in cuckoo.c.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include "cuckoo_internal.h"
#include "filter_type.h"

/*
 * The keys of @miss (bit k: @hashes[k]) that a batch chunk found in
 * neither bucket, looked at again: with @valid (no writer window overlapped
 * the chunk's reads) only the stash word @s read with them is left to
 * test; otherwise each goes through the single-key protocol. Returns the
 * keys found.
 */
static noinline unsigned long mf_cuckoo_batch_recheck(const struct memfilter_cuckoo *c,
						      const u64 *hashes,
						      unsigned long miss,
						      bool valid, u64 s)
{
	unsigned long hit = 0;
	unsigned int k;
	u64 i1, i2;
	u32 fp;

	for (; miss; miss &= miss - 1) {
		k = __ffs64(miss);
		if (valid) {
			mf_cuckoo_locate(c, hashes[k], &i1, &i2, &fp);
			if (!mf_cuckoo_stash_has(s, i1, i2, fp))
				continue;
		} else if (!mf_cuckoo_contains(c, hashes[k])) {
			continue;
		}
		hit |= 1UL << k;
	}
	return hit;
}

/* Locate @hash in @i1, @i2 and prefetch those buckets; return its fingerprint. */
static __always_inline u32 mf_cuckoo_fetch_f(const struct mf_cuckoo_geo *g, u64 hash,
					     u64 *i1, u64 *i2, const u32 f,
					     const u32 lay)
{
	u32 fp;

	mf_cuckoo_locate_l(g, hash, i1, i2, &fp, f, lay);
	mf_cuckoo_prefetch_bucket(g->table, *i1, f);
	mf_cuckoo_prefetch_bucket(g->table, *i2, f);
	return fp;
}

/*
 * Locate @hash, prefetch its buckets and keep them in slot @j of the
 * batch insert's ring (@r1, @r2, @rf).
 */
static __always_inline void mf_cuckoo_ahead_f(const struct mf_cuckoo_geo *g, u64 *r1,
					      u64 *r2, u32 *rf, size_t j, u64 hash,
					      const u32 f, const u32 lay)
{
	u64 i1, i2;
	u32 fp = mf_cuckoo_fetch_f(g, hash, &i1, &i2, f, lay);

	r1[j] = i1;
	r2[j] = i2;
	rf[j] = fp;
}

/*
 * The batch lookup's ring: the two buckets of each key located ahead, as
 * 32-bit indexes for MEMFILTER_CUCKOO_AHEAD keys when the table has at
 * most MEMFILTER_CUCKOO_RING32_BUCKETS buckets (any table under 16 GiB),
 * as 64-bit ones for half as many keys otherwise: 8 bytes a key ahead
 * either way, and no fingerprint (the lookup derives it again from the
 * hash, at hand in the caller's array).
 */
union mf_cuckoo_ring {
	u32 narrow[2][MEMFILTER_CUCKOO_AHEAD];
	u64 wide[2][MEMFILTER_CUCKOO_AHEAD / 2];
};

#ifndef MEMFILTER_CUCKOO_RING32_BUCKETS	/* a test build may lower it */
#define MEMFILTER_CUCKOO_RING32_BUCKETS	BIT_ULL(32)
#endif

/* Locate @hash, prefetch its buckets and keep them in slot @j of @r. */
static __always_inline void mf_cuckoo_ring_put(const struct mf_cuckoo_geo *g,
					       union mf_cuckoo_ring *r, size_t j,
					       u64 hash, const u32 f, const u32 lay,
					       const bool wide)
{
	u64 i1, i2;

	mf_cuckoo_fetch_f(g, hash, &i1, &i2, f, lay);
	if (wide) {
		r->wide[0][j] = i1;
		r->wide[1][j] = i2;
	} else {
		r->narrow[0][j] = (u32)i1;	/* < MEMFILTER_CUCKOO_RING32_BUCKETS */
		r->narrow[1][j] = (u32)i2;
	}
}

/* Bucket @k (0 or 1) of the key in slot @j of @r. */
static __always_inline u64 mf_cuckoo_ring_get(const union mf_cuckoo_ring *r,
					      u32 k, size_t j, const bool wide)
{
	return wide ? r->wide[k][j] : r->narrow[k][j];
}

/*
 * The batch lookup for @f-bit fingerprints, layout @lay and ring width
 * @wide, all constants. Each key MEMFILTER_CUCKOO_AHEAD places ahead (half
 * as many for a @wide ring) is located and its buckets prefetched while
 * this one is tested (a ring of located keys, each key located once), so
 * as many misses stay in flight all along the batch. Keys go 64 at a time
 * (a result word) under the table's version @gen, as for a seqcount: read
 * before the chunk's buckets and stash, and again after them only when a
 * key was found in neither bucket. If no writer window overlapped the
 * chunk (@gen even and unchanged), its answers stand (the stash tested for
 * the keys not found); otherwise those keys take the single-key protocol
 * (mf_cuckoo_batch_recheck()). Per key that leaves two bucket loads and
 * their test: no version counters.
 */
static __always_inline void mf_cuckoo_query_batch(const struct memfilter_cuckoo *c,
						  const u64 *hashes, size_t n,
						  unsigned long *result,
						  const u32 f, const u32 lay,
						  const bool wide)
{
	/* Written before it is read: no auto-var-init zeroing. */
	union mf_cuckoo_ring ring __uninitialized;
	const struct mf_cuckoo_geo g = mf_cuckoo_geo_of(c);
	const size_t ahead = wide ? MEMFILTER_CUCKOO_AHEAD / 2 : MEMFILTER_CUCKOO_AHEAD;
	const u64 ones = mf_cuckoo_ones(f), high = ones << (f - 1);
	const u32 *gen = c->gen;
	unsigned long word, miss, live;
	size_t base, i, j, k, m;
	bool ok;
	u64 x1, x2, pat, s;
	u32 v;

	BUILD_BUG_ON(MEMFILTER_CUCKOO_AHEAD < 2 ||
		     (MEMFILTER_CUCKOO_AHEAD & (MEMFILTER_CUCKOO_AHEAD - 1)));
	for (i = 0; i < n && i < ahead; i++)
		mf_cuckoo_ring_put(&g, &ring, i, hashes[i], f, lay, wide);
	for (base = 0; base < n; base += m) {
		m = n - base < BITS_PER_LONG ? n - base : BITS_PER_LONG;
		live = m == BITS_PER_LONG ? ~0UL : (1UL << m) - 1;
		word = 0;
		v = READ_ONCE(*gen);
		smp_rmb();	/* the version before the buckets and the stash */
		for (k = 0; k < m; k++) {
			i = base + k;
			j = i % ahead;
			pat = mf_cuckoo_fp_f(hashes[i], f) * ones;
			/* Racy bucket reads: the version's re-read validates them. */
			x1 = data_race(mf_cuckoo_load(g.table,
						      mf_cuckoo_ring_get(&ring, 0, j, wide),
						      f)) ^ pat;
			/* Racy, as x1. */
			x2 = data_race(mf_cuckoo_load(g.table,
						      mf_cuckoo_ring_get(&ring, 1, j, wide),
						      f)) ^ pat;
			if (i + ahead < n)
				mf_cuckoo_ring_put(&g, &ring, j, hashes[i + ahead], f, lay,
						   wide);
			word |= (unsigned long)!!((((x1 - ones) & ~x1) |
						   ((x2 - ones) & ~x2)) & high) << k;
		}
		miss = ~word & live;
		if (miss) {
			s = READ_ONCE(c->stash);
			smp_rmb();	/* buckets and stash before the re-read */
			ok = !(v & 1) && READ_ONCE(*gen) == v;
			if (unlikely(s || !ok))
				word |= mf_cuckoo_batch_recheck(c, hashes + base, miss,
								ok, s);
		}
		if (m < BITS_PER_LONG)
			word |= result[base / BITS_PER_LONG] & ~live;
		result[base / BITS_PER_LONG] = word;
	}
}

/*
 * The batch lookup for @f-bit fingerprints in layout @lay: the ring's
 * width. A 32-bit build has no table of 2^32 buckets (16 GiB at least)
 * and no wide ring: its stack frame stays under 1 KiB.
 */
static __always_inline void mf_cuckoo_query_batch_l(const struct memfilter_cuckoo *c,
						    const u64 *hashes, size_t n,
						    unsigned long *result,
						    const u32 f, const u32 lay)
{
	if (BITS_PER_LONG == 32 ||
	    likely(c->p.nbuckets <= MEMFILTER_CUCKOO_RING32_BUCKETS))
		mf_cuckoo_query_batch(c, hashes, n, result, f, lay, false);
	else
		mf_cuckoo_query_batch(c, hashes, n, result, f, lay, true);
}

/**
 * memfilter_cuckoo_contains_hashes() - look up a batch of keys
 * @c: the filter
 * @hashes: the keys' hashes
 * @n: how many
 * @result: bitmap of @n bits; bit i is set when key i may be present and
 *	cleared otherwise (bits past @n in the last word are left alone)
 *
 * Prefetches the buckets of the key MEMFILTER_CUCKOO_AHEAD places ahead
 * (half as far in tables of over 2^32 buckets) while probing each one, so
 * the cache misses of a batch overlap.
 *
 * Context: any, including hard interrupt and NMI; lockless and bounded.
 */
void memfilter_cuckoo_contains_hashes(const struct memfilter_cuckoo *c,
				      const u64 *hashes, size_t n,
				      unsigned long *result)
{
	const u32 mod = MEMFILTER_CUCKOO_LAYOUT_MOD, pow2 = MEMFILTER_CUCKOO_LAYOUT_POW2;

	if (c->p.layout != MEMFILTER_CUCKOO_LAYOUT_MOD) {
		mf_cuckoo_query_batch_l(c, hashes, n, result, c->p.fp_bits, pow2);
		return;
	}
	switch (c->p.fp_bits) {
	case 12:
		mf_cuckoo_query_batch_l(c, hashes, n, result, 12, mod);
		break;
	case 8:
		mf_cuckoo_query_batch_l(c, hashes, n, result, 8, mod);
		break;
	default:
		mf_cuckoo_query_batch_l(c, hashes, n, result, 16, mod);
		break;
	}
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_cuckoo_contains_hashes);

/**
 * memfilter_cuckoo_count_hashes() - count a batch of keys
 * @c: the filter
 * @hashes: the keys' hashes
 * @n: how many
 * @counts: out: @counts[i] is memfilter_cuckoo_count_hash() of key i, or
 *	MEMFILTER_CUCKOO_COUNT_BUSY8 where that was MEMFILTER_CUCKOO_COUNT_BUSY
 *	(the caller recounts those keys under the writer lock)
 *
 * Prefetches the buckets of MEMFILTER_CUCKOO_BATCH keys before counting
 * them, as memfilter_cuckoo_contains_hashes() does.
 *
 * Context: any, lockless; safe concurrently with the writer.
 */
void memfilter_cuckoo_count_hashes(const struct memfilter_cuckoo *c,
				   const u64 *hashes, size_t n, u8 *counts)
{
	const u32 f = c->p.fp_bits;
	size_t base, k, m;
	u64 i1, i2;
	u32 fp, cnt;

	for (base = 0; base < n; base += m) {
		m = n - base < MEMFILTER_CUCKOO_BATCH ? n - base : MEMFILTER_CUCKOO_BATCH;
		for (k = 0; k < m; k++) {
			mf_cuckoo_locate(c, hashes[base + k], &i1, &i2, &fp);
			mf_cuckoo_prefetch_bucket(c->table, i1, f);
			mf_cuckoo_prefetch_bucket(c->table, i2, f);
		}
		for (k = 0; k < m; k++) {
			cnt = memfilter_cuckoo_count_hash(c, hashes[base + k]);
			counts[base + k] = cnt == MEMFILTER_CUCKOO_COUNT_BUSY ?
					   MEMFILTER_CUCKOO_COUNT_BUSY8 : cnt;
		}
	}
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_cuckoo_count_hashes);

/*
 * Adds of @f-bit fingerprints until one fails. As for lookups, the key
 * MEMFILTER_CUCKOO_BATCH places ahead is located and its buckets
 * prefetched while this one is added, in a ring of located keys, so each
 * key is located once. The writer holds the lock: the geometry is fixed.
 */
static __always_inline int mf_cuckoo_add_many(struct memfilter_cuckoo *c,
					      const u64 *hashes, u32 n,
					      unsigned long *result, u32 *done,
					      const u32 f)
{
	/* Written before they are read: no auto-var-init zeroing. */
	u64 r1[MEMFILTER_CUCKOO_BATCH] __uninitialized;
	u64 r2[MEMFILTER_CUCKOO_BATCH] __uninitialized;
	u32 rf[MEMFILTER_CUCKOO_BATCH] __uninitialized;
	const struct mf_cuckoo_geo g = mf_cuckoo_geo_of(c);
	const u32 ahead = MEMFILTER_CUCKOO_BATCH;
	u64 i1, i2;
	int ret = 0;
	u32 i, j, fp;

	BUILD_BUG_ON(MEMFILTER_CUCKOO_BATCH & (MEMFILTER_CUCKOO_BATCH - 1));
	for (i = 0; i < n && i < ahead; i++)
		mf_cuckoo_ahead_f(&g, r1, r2, rf, i, hashes[i], f, g.layout);
	for (i = 0; i < n; i++) {
		j = i % ahead;
		i1 = r1[j];
		i2 = r2[j];
		fp = rf[j];
		if (i + ahead < n)
			mf_cuckoo_ahead_f(&g, r1, r2, rf, j, hashes[i + ahead], f,
					  g.layout);
		ret = mf_cuckoo_add_at_f(c, i1, i2, fp, f);
		if (ret)
			break;
		memfilter_result_set(result, i);
	}
	*done = i;
	return ret;
}

int memfilter_cuckoo_add_batch(union memfilter_state *s, const u64 *hashes, u32 n,
			       unsigned long *result, u32 *done)
{
	struct memfilter_cuckoo *c = &s->cuckoo;

	switch (c->p.fp_bits) {
	case 12:
		return mf_cuckoo_add_many(c, hashes, n, result, done, 12);
	case 8:
		return mf_cuckoo_add_many(c, hashes, n, result, done, 8);
	default:
		return mf_cuckoo_add_many(c, hashes, n, result, done, 16);
	}
}
