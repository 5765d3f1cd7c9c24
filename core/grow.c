// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * memfilter's growing filter (grow.h): sub-filter shapes, inserts that
 * move on to the next sub-filter when the newest is full, queries over
 * every sub-filter in use, and the type's table of operations.
 *
 * Memory ordering, lockless like the Bloom filter it is made of:
 *  - memfilter_grow_attach() fills in a sub-filter, then publishes it by
 *    a release store of p.nsubs; inserts read p.nsubs with acquire before
 *    they may move @active to it.
 *  - An insert claims room in the newest sub-filter by compare-and-
 *    exchange on its key count (never past its capacity), then sets the
 *    bits. It found that sub-filter by an acquire read of @active (or by
 *    its own compare-and-exchange of it), so any query that starts after
 *    the insert returned reads an @active at least as large (coherence),
 *    and queries that sub-filter, where Bloom's own order (bloom.c) makes
 *    the bits visible. No false negative during growth, then.
 *  - @active only grows, except in a clear, whose contract (concurrent
 *    adds may or may not survive it) covers what it races with.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include "filter_type.h"
#include "grow.h"
#include "image.h"

/* Sub-filters of a growing payload's image state section. */
#define MF_GROW_SEC	MEMFILTER_IMAGE_GROW_SIZE

/*
 * Keys a query or test-and-add handles per chunk: its scratch (hashes and
 * positions of the keys not found yet) is on the stack, about 0.6 KiB;
 * a multiple of BITS_PER_LONG, at most 256 (positions are u8), and at
 * least MEMFILTER_SIMD_MIN_KEYS so that a whole chunk takes the AVX2 path.
 */
#define MF_GROW_CHUNK	64

/* Sub-filter @i's rate in ppb (memfilter_grow_sub_params()). */
static u64 mf_grow_sub_fpr(const struct memfilter_grow_params *p, u32 i)
{
	u64 fpr = div64_u64(p->fpr_ppb * (100 - p->ratio_pct), 100);

	while (i--)
		fpr = div64_u64(fpr * p->ratio_pct, 100);
	return fpr;
}

/**
 * memfilter_grow_sub_params() - the shape of one sub-filter
 * @p: the filter's shape
 * @i: the sub-filter, from 0
 * @sub: out: its shape, @p's hasher included
 *
 * Sub-filter @i holds capacity * factor^@i keys at
 * fpr_ppb * (100 - ratio_pct)% * ratio_pct%^@i, rounded down.
 *
 * Context: any.
 * Return: 0; -E2BIG if it would be too large; -EINVAL if its rate is
 * below what the layout reaches (bloom.c) or @i is past max_subs.
 */
int memfilter_grow_sub_params(const struct memfilter_grow_params *p, u32 i,
			      struct memfilter_bloom_params *sub)
{
	u64 cap = p->sub0.capacity;
	u32 j;
	int ret;

	if (i >= p->max_subs)
		return -EINVAL;
	for (j = 0; j < i; j++)
		if (check_mul_overflow(cap, (u64)p->factor, &cap))
			return -E2BIG;
	ret = memfilter_bloom_params_from_fpr(sub, cap, mf_grow_sub_fpr(p, i),
					      p->sub0.layout);
	sub->hasher = p->sub0.hasher;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_grow_sub_params);

/**
 * memfilter_grow_params_init() - size a growing filter
 * @p: out: its shape, one sub-filter; the hasher is left to the caller
 * @capacity: keys of the first sub-filter, at least 1
 * @fpr_ppb: the bound on the whole filter's rate, 1 .. 10^9 - 1
 * @max_subs: the most sub-filters, 1..MEMFILTER_GROW_MAX_SUBS; 0: that
 * @factor: s, 1..MEMFILTER_GROW_MAX_FACTOR; 0: the default, 2
 * @ratio_pct: r in percent, 1..99; 0: the default, 50
 * @layout: the sub-filters' Bloom layout, MEMFILTER_BLOOM_LINE64 or
 *	MEMFILTER_BLOOM_SPLIT32
 *
 * Context: any.
 * Return: 0; -EINVAL for a value out of range or a first sub-filter rate
 * the layout cannot reach; -E2BIG when the first sub-filter is too large.
 */
int memfilter_grow_params_init(struct memfilter_grow_params *p, u64 capacity,
			       u64 fpr_ppb, u32 max_subs, u32 factor,
			       u32 ratio_pct, u32 layout)
{
	int ret;

	if (!max_subs)
		max_subs = MEMFILTER_GROW_MAX_SUBS;
	if (!factor)
		factor = MEMFILTER_GROW_DEFAULT_FACTOR;
	if (!ratio_pct)
		ratio_pct = MEMFILTER_GROW_DEFAULT_RATIO_PCT;
	if (!capacity || !fpr_ppb || fpr_ppb >= 1000000000ULL ||
	    max_subs > MEMFILTER_GROW_MAX_SUBS ||
	    factor > MEMFILTER_GROW_MAX_FACTOR || ratio_pct >= 100)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	p->sub0.capacity = capacity;
	p->fpr_ppb = fpr_ppb;
	p->max_subs = max_subs;
	p->factor = factor;
	p->ratio_pct = ratio_pct;
	p->nsubs = 1;
	p->sub0.layout = layout;
	ret = memfilter_grow_sub_params(p, 0, &p->sub0);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_grow_params_init);

/**
 * memfilter_grow_bytes() - table memory of a growing filter
 * @p: its shape
 *
 * The image state section, then the tables of sub-filters 0 ..
 * @p->nsubs - 1, back to back (each a multiple of 64 bytes).
 *
 * Context: any.
 * Return: the bytes, or 0 if some sub-filter cannot be made.
 */
u64 memfilter_grow_bytes(const struct memfilter_grow_params *p)
{
	struct memfilter_bloom_params sub;
	u64 bytes = MF_GROW_SEC;
	u32 i;

	if (!p->nsubs || p->nsubs > p->max_subs)
		return 0;
	for (i = 0; i < p->nsubs; i++) {
		if (memfilter_grow_sub_params(p, i, &sub))
			return 0;
		bytes += memfilter_bloom_bytes(&sub);
	}
	return bytes;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_grow_bytes);

/**
 * memfilter_grow_init() - set up a growing filter on its table memory
 * @g: the filter
 * @p: its shape, memfilter_grow_bytes(@p) != 0
 * @mem: memfilter_grow_bytes(@p) bytes, 64-byte aligned, zeroed
 *
 * One sub-filter in use; those past it (an image's) wait, empty.
 *
 * Context: any.
 */
void memfilter_grow_init(struct memfilter_grow *g,
			 const struct memfilter_grow_params *p, void *mem)
{
	u8 *words = (u8 *)mem + MF_GROW_SEC;
	u32 i;

	memset(g, 0, sizeof(*g));
	g->p = *p;
	g->sec = mem;
	for (i = 0; i < p->nsubs; i++) {
		memfilter_grow_sub_params(p, i, &g->sub[i].p);
		g->sub[i].words = (u64 *)words;
		words += memfilter_bloom_bytes(&g->sub[i].p);
	}
	g->active = 1;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_grow_init);

/**
 * memfilter_grow_active() - sub-filters in use
 * @g: the filter
 *
 * Context: any.
 * Return: 1 .. @g->p.nsubs.
 */
u32 memfilter_grow_active(const struct memfilter_grow *g)
{
	/* Pairs with the compare-and-exchange that moved it: see the top. */
	return smp_load_acquire(&g->active);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_grow_active);

/**
 * memfilter_grow_next_bytes() - memory for the next sub-filter
 * @g: the filter
 *
 * Context: any; the answer holds until the owner's grower (serialized with
 * memfilter_grow_attach()) makes the next one.
 * Return: its table's bytes (a multiple of 64), or 0 if the filter cannot
 * grow: max_subs reached, or the next sub-filter's rate or size is out of
 * the layout's reach.
 */
u64 memfilter_grow_next_bytes(const struct memfilter_grow *g)
{
	struct memfilter_bloom_params sub;

	/* Pairs with memfilter_grow_attach(); adds ask too, racing it. */
	if (memfilter_grow_sub_params(&g->p, smp_load_acquire(&g->p.nsubs),
				      &sub))
		return 0;
	return memfilter_bloom_bytes(&sub);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_grow_next_bytes);

/**
 * memfilter_grow_wants_next() - should the owner make the next sub-filter?
 * @g: the filter
 *
 * True when the newest sub-filter in use is at least half full and none
 * was made after it, and max_subs allows one: the owner makes it ahead,
 * so that inserts in atomic context seldom find the filter full.
 *
 * Context: any; lockless, cheap (inserts call it).
 * Return: whether to make the next sub-filter now.
 */
bool memfilter_grow_wants_next(const struct memfilter_grow *g)
{
	u32 a = memfilter_grow_active(g);

	/* Pairs with memfilter_grow_attach(). */
	return smp_load_acquire(&g->p.nsubs) == a && a < g->p.max_subs &&
	       READ_ONCE(g->keys[a - 1]) >= g->sub[a - 1].p.capacity / 2;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_grow_wants_next);

/**
 * memfilter_grow_attach() - make the next sub-filter on the owner's memory
 * @g: the filter; memfilter_grow_next_bytes(@g) was not 0
 * @mem: that many bytes, 64-byte aligned, zeroed; the owner frees them
 *	after the filter
 *
 * It is published for inserts, which move to it when the newest in use
 * is full.
 *
 * Context: the owner's grower, one at a time; safe against concurrent
 * inserts and queries.
 */
void memfilter_grow_attach(struct memfilter_grow *g, void *mem)
{
	u32 n = g->p.nsubs;

	memfilter_grow_sub_params(&g->p, n, &g->sub[n].p);
	g->sub[n].words = mem;
	WRITE_ONCE(g->keys[n], 0);
	/* The sub-filter is complete before inserts may move to it. */
	smp_store_release(&g->p.nsubs, n + 1);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_grow_attach);

/**
 * memfilter_grow_add_hashes() - insert keys by their hashes
 * @g: the filter
 * @hashes: the keys' hashes under the filter's hasher
 * @n: how many
 * @done: out: how many were inserted, in order
 * @exclusive: the caller owns the filter alone (offline builds): plain
 *	stores for the bits
 *
 * Each key goes to the newest sub-filter in use; when that one holds its
 * capacity, to the next one made, if any.
 *
 * Context: any; lockless, safe against concurrent inserts, queries and
 * memfilter_grow_attach() (unless @exclusive).
 * Return: 0, or -ENOSPC when the newest sub-filter is full and none was
 * made after it: keys @done .. @n - 1 were not inserted, and nothing
 * already in the filter was lost.
 */
int memfilter_grow_add_hashes(struct memfilter_grow *g, const u64 *hashes,
			      u32 n, u32 *done, bool exclusive)
{
	struct memfilter_bloom *b;
	u32 a, i = 0;
	u64 k, take;

	while (i < n) {
		a = memfilter_grow_active(g);
		b = &g->sub[a - 1];
		k = READ_ONCE(g->keys[a - 1]);
		if (k >= b->p.capacity) {
			/* Pairs with memfilter_grow_attach(). */
			if (a < smp_load_acquire(&g->p.nsubs)) {
				memfilter_grow_cmpxchg(&g->active, &a, a + 1);
				continue;
			}
			*done = i;
			return -ENOSPC;
		}
		take = min((u64)(n - i), b->p.capacity - k);
		if (!memfilter_grow_cmpxchg64(&g->keys[a - 1], &k, k + take))
			continue;
		if (exclusive)
			memfilter_bloom_add_hashes_exclusive(b, hashes + i, take);
		else
			memfilter_bloom_add_hashes(b, hashes + i, take);
		i += take;
	}
	*done = n;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_grow_add_hashes);

/* Set bit @i of @bm. */
static __always_inline void mf_grow_set(unsigned long *bm, u32 i)
{
	bm[i / BITS_PER_LONG] |= 1UL << (i % BITS_PER_LONG);
}

static __always_inline bool mf_grow_test(const unsigned long *bm, u32 i)
{
	return (bm[i / BITS_PER_LONG] >> (i % BITS_PER_LONG)) & 1;
}

/*
 * Ask sub-filters @a - 1 down to 0 about @n keys, each sub-filter only
 * about the keys no newer one holds: key j's hash is @in[j], its position
 * in the caller's chunk @at[j] (@at NULL: j). Sets bit @at[j] of @was for
 * every key found. The keys found nowhere are written to @left and @pos,
 * in order, and their count returned, if @want_left (otherwise the last
 * sub-filter's answers go straight to @was); @left and @pos are the
 * scratch either way, and @in may be @left + d and @at @pos + d for any d
 * >= 0 (each is read before anything is written over it). A sub-filter
 * that holds none of the keys asked leaves the list as it is; so does,
 * unless @want_left, one that holds fewer than an eighth of them.
 * @n <= MF_GROW_CHUNK.
 */
static u32 mf_grow_ask(const struct memfilter_grow *g, u32 a, const u64 *in,
		       const u8 *at, u32 n, unsigned long *was, u64 *left,
		       u8 *pos, bool want_left)
{
	unsigned long part[DIV_ROUND_UP(MF_GROW_CHUNK, BITS_PER_LONG)];
	u32 s, j, k, w, words, found;

	for (s = a; s-- > 0 && n;) {
		memfilter_bloom_contains_hashes(&g->sub[s], in, n, part);
		words = DIV_ROUND_UP(n, BITS_PER_LONG);
		for (w = 0, found = 0; w < words; w++)
			found += hweight_long(part[w]);
		if (!found)
			continue;
		if (!at) {
			/* Positions are the keys' own: whole words. */
			for (w = 0; w < words; w++)
				was[w] |= part[w];
		} else {
			for (j = 0; j < n; j++)
				if (mf_grow_test(part, j))
					mf_grow_set(was, at[j]);
		}
		if (!s && !want_left)
			return 0;
		/*
		 * A query keeps asking about a few keys found (false
		 * positives, mostly) rather than copy the list for them.
		 */
		if (!want_left && found * 8 < n)
			continue;
		/* Keep the keys not found, without a branch per key. */
		for (j = 0, k = 0; j < n; j++) {
			u32 p = at ? at[j] : j;

			left[k] = in[j];
			pos[k] = p;
			k += !mf_grow_test(part, j);
		}
		in = left;
		at = pos;
		n = k;
	}
	if (n && want_left && in != left) {
		/* The list is the caller's own still: copy it out. */
		for (j = 0; j < n; j++) {
			left[j] = in[j];
			pos[j] = at ? at[j] : j;
		}
	}
	return n;
}

/**
 * memfilter_grow_contains_hashes() - query keys by their hashes
 * @g: the filter
 * @hashes: the keys' hashes under the filter's hasher
 * @n: how many
 * @result: bitmap of @n bits, zeroed by the caller: bit i set when key i
 *	may be in some sub-filter in use
 *
 * Newest (largest) sub-filter first, in sections of
 * MEMFILTER_SIMD_CHUNK keys: while fewer than an eighth of a section's
 * keys were found, the next older sub-filter is asked about all of them
 * (no copy: what absent keys cost, one Bloom lookup per sub-filter);
 * from then on each older one only about the keys no newer one holds, so
 * a present key stops at the first sub-filter that holds it.
 *
 * Context: any; lockless.
 */
void memfilter_grow_contains_hashes(const struct memfilter_grow *g,
				    const u64 *hashes, u32 n,
				    unsigned long *result)
{
	unsigned long part[MEMFILTER_SIMD_CHUNK / BITS_PER_LONG], *out;
	u32 a = memfilter_grow_active(g), i, j, k, c, m, s, w, words, found;
	u64 left[MF_GROW_CHUNK];
	u8 pos[MF_GROW_CHUNK];

	for (i = 0; i < n; i += m) {
		m = min(n - i, (u32)MEMFILTER_SIMD_CHUNK);
		out = result + i / BITS_PER_LONG;
		words = DIV_ROUND_UP(m, BITS_PER_LONG);
		/*
		 * Whole SIMD sections of keys, asked again in each older
		 * sub-filter with no copy, while fewer than an eighth of
		 * them were found (absent keys and their false positives)...
		 */
		for (s = a, found = 0; s > 0 && found * 8 < m;) {
			memfilter_bloom_contains_hashes(&g->sub[--s],
							hashes + i, m, part);
			for (w = 0, found = 0; w < words; w++) {
				out[w] |= part[w];
				found += hweight_long(out[w]);
			}
		}
		/*
		 * ... then, per MF_GROW_CHUNK keys, the older sub-filters
		 * only about the keys no newer one holds.
		 */
		for (j = 0; s > 0 && j < m; j += MF_GROW_CHUNK) {
			for (k = 0, c = 0; k < MF_GROW_CHUNK && j + k < m; k++) {
				left[c] = hashes[i + j + k];
				pos[c] = k;
				c += !mf_grow_test(out + j / BITS_PER_LONG, k);
			}
			mf_grow_ask(g, s, left, pos, c, out + j / BITS_PER_LONG,
				    left, pos, false);
		}
	}
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_grow_contains_hashes);

/*
 * Does a sub-filter in use, @a - 1 down to 0, hold the key of hash @h? The
 * single-key query: the loads of the key's line in every sub-filter are
 * issued first (out of cache, an absent key's misses overlap instead of
 * following each other), then the newest (largest) is tested first and the
 * first that holds the key ends it.
 */
static bool mf_grow_holds(const struct memfilter_grow *g, u32 a, u64 h)
{
	u32 s;

	for (s = a; s-- > 0;)
		memfilter_prefetch(memfilter_bloom_block_ptr(&g->sub[s], h));
	for (s = a; s-- > 0;)
		if (memfilter_bloom_contains_hash(&g->sub[s], h))
			return true;
	return false;
}

/**
 * memfilter_grow_contains_hash() - query one key by its hash
 * @g: the filter
 * @h: the key's hash under the filter's hasher
 *
 * The single-key path: what memfilter_grow_contains_hashes() answers for
 * a batch of one, with no batch machinery.
 *
 * Context: any; lockless.
 * Return: whether the key may be in some sub-filter in use.
 */
bool memfilter_grow_contains_hash(const struct memfilter_grow *g, u64 h)
{
	return mf_grow_holds(g, memfilter_grow_active(g), h);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_grow_contains_hash);

/*
 * Give back @n keys of room claimed in sub-filter @i but not used (never
 * below 0: a clear may have zeroed the count meanwhile).
 */
static void mf_grow_unclaim(struct memfilter_grow *g, u32 i, u64 n)
{
	u64 k = READ_ONCE(g->keys[i]);

	while (!memfilter_grow_cmpxchg64(&g->keys[i], &k, k - min(k, n)))
		;
}

/*
 * Test-and-add of one chunk, @m <= MF_GROW_CHUNK keys: bit j of @out set
 * when key j was present. *@done: keys handled (@m unless -ENOSPC).
 */
static int mf_grow_ta_chunk(struct memfilter_grow *g, const u64 *hashes,
			    u32 m, unsigned long *out, u32 *done)
{
	unsigned long had[DIV_ROUND_UP(MF_GROW_CHUNK, BITS_PER_LONG)];
	u64 left[MF_GROW_CHUNK], k, take, unused;
	u8 pos[MF_GROW_CHUNK];
	struct memfilter_bloom *b;
	u32 a = memfilter_grow_active(g), j, n = m;
	/* One sub-filter in use: nothing to ask before its test-and-add. */
	bool direct = a == 1;

	if (!direct)
		n = mf_grow_ask(g, a, hashes, NULL, m, out, left, pos, true);
	while (n) {
		a = memfilter_grow_active(g);
		if (direct && a > 1) {
			/* It grew meanwhile: ask the older ones first. */
			direct = false;
			n = mf_grow_ask(g, a - 1, hashes, NULL, m, out, left,
					pos, true);
			continue;
		}
		b = &g->sub[a - 1];
		k = READ_ONCE(g->keys[a - 1]);
		if (k >= b->p.capacity) {
			/* Pairs with memfilter_grow_attach(). */
			if (a >= smp_load_acquire(&g->p.nsubs))
				goto full;
			memfilter_grow_cmpxchg(&g->active, &a, a + 1);
			continue;
		}
		/* Room for every key no older sub-filter holds. */
		take = min((u64)n, b->p.capacity - k);
		if (!memfilter_grow_cmpxchg64(&g->keys[a - 1], &k, k + take))
			continue;
		/*
		 * The test-and-add tells a key the newest held already (if
		 * it was not asked), or whose bits an earlier key of the
		 * batch (a repeat) or a racing insert set meanwhile: it was
		 * present and gives its room back.
		 */
		memfilter_bloom_test_and_add_hashes(b, direct ? hashes : left,
						    take, had);
		for (j = 0, unused = 0; j < take; j++) {
			if (mf_grow_test(had, j)) {
				mf_grow_set(out, direct ? j : pos[j]);
				unused++;
			}
		}
		if (unused)
			mf_grow_unclaim(g, a - 1, unused);
		if (take == n)
			break;
		if (direct) {
			direct = false;
			for (j = take; j < m && j < MF_GROW_CHUNK; j++) {
				left[j] = hashes[j];
				pos[j] = j;
			}
		}
		/*
		 * The rest did not fit: ask about them again, since the
		 * keys just added may be their repeats, then go on in the
		 * next sub-filter.
		 */
		n = mf_grow_ask(g, a, left + take, pos + take, n - take, out,
				left, pos, true);
	}
	*done = m;
	return 0;
full:
	if (direct) {
		/* Keys present go on until the first absent one. */
		n = mf_grow_ask(g, a, hashes, NULL, m, out, left, pos, true);
		if (!n) {
			*done = m;
			return 0;
		}
	}
	/* Keys from the first that did not fit on are not done. */
	*done = pos[0];
	for (j = *done; j < m; j++)
		out[j / BITS_PER_LONG] &= ~(1UL << (j % BITS_PER_LONG));
	return -ENOSPC;
}

/**
 * memfilter_grow_test_and_add_hashes() - was each key present? add it
 * @g: the filter
 * @hashes: the keys' hashes under the filter's hasher
 * @n: how many
 * @result: bitmap of @n bits, zeroed by the caller: bit i set when key i
 *	may have been present (in some sub-filter in use) before its add
 * @done: out: how many keys were handled, in order
 *
 * In chunks of MF_GROW_CHUNK keys, each key's lines read once from
 * memory. With one sub-filter in use, the chunk claims room in it and
 * goes straight to the Bloom filter's test-and-add. With more, the newest
 * is asked first, then each older one only about the keys no newer one
 * holds (as a query); the keys found nowhere claim room in the newest, by
 * compare-and-exchange on its count, and get the Bloom test-and-add there
 * (the newest's line again, from cache). Either way a key the Bloom
 * test-and-add finds set already (the newest held it, or an earlier copy
 * in the batch or a racing insert set its bits) is present and gives its
 * room back at once; until then a concurrent add can find up to
 * MF_GROW_CHUNK - 1 keys less room. As RedisBloom's scalable filters do, a
 * key already present takes no room: its bits stay where they were found
 * (bits are cleared only by a clear). Two racing test-and-adds of one new
 * key may both report it absent, and it is present after both; a key
 * whose add returned before this call started is reported present; a key
 * repeated in @hashes is present the second time.
 *
 * Context: any; lockless, as memfilter_grow_add_hashes().
 * Return: 0, or -ENOSPC when the newest sub-filter is full and none was
 * made after it: keys @done .. @n - 1 were not handled (their bits in
 * @result are clear), nothing already in the filter was lost.
 */
int memfilter_grow_test_and_add_hashes(struct memfilter_grow *g,
				       const u64 *hashes, u32 n,
				       unsigned long *result, u32 *done)
{
	u32 i, m, d;
	int ret;

	for (i = 0; i < n; i += m) {
		m = min(n - i, (u32)MF_GROW_CHUNK);
		ret = mf_grow_ta_chunk(g, hashes + i, m,
				       result + i / BITS_PER_LONG, &d);
		if (ret) {
			*done = i + d;
			return ret;
		}
	}
	*done = n;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_grow_test_and_add_hashes);

/**
 * memfilter_grow_test_and_add_hash() - was one key present? add it
 * @g: the filter
 * @h: the key's hash under the filter's hasher
 *
 * memfilter_grow_test_and_add_hashes() for a batch of one, by the
 * single-key query (mf_grow_holds()): a key some sub-filter in use holds
 * is present and takes no room; any other claims room in the newest (the
 * next one made, if the newest is full) and gets the Bloom test-and-add
 * there, which may still find it present (a racing insert set its bits):
 * then it gives its room back. The same contract as the batch call.
 *
 * Context: any; lockless, as memfilter_grow_add_hashes().
 * Return: 1 if the key may have been present, 0 if it certainly was not
 * (it is now), -ENOSPC when it was not and the newest sub-filter is full
 * with none made after it (nothing added).
 */
int memfilter_grow_test_and_add_hash(struct memfilter_grow *g, u64 h)
{
	u32 a = memfilter_grow_active(g), had;
	struct memfilter_bloom *b;
	unsigned long res;
	u64 k;

	if (mf_grow_holds(g, a, h))
		return 1;
	for (;;) {
		a = memfilter_grow_active(g);
		b = &g->sub[a - 1];
		k = READ_ONCE(g->keys[a - 1]);
		if (k >= b->p.capacity) {
			/* Pairs with memfilter_grow_attach(). */
			if (a >= smp_load_acquire(&g->p.nsubs))
				return -ENOSPC;
			memfilter_grow_cmpxchg(&g->active, &a, a + 1);
			continue;
		}
		if (memfilter_grow_cmpxchg64(&g->keys[a - 1], &k, k + 1))
			break;
	}
	res = 0;
	memfilter_bloom_test_and_add_hashes(b, &h, 1, &res);
	had = res & 1;
	if (had)
		mf_grow_unclaim(g, a - 1, 1);
	return had;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_grow_test_and_add_hash);

/**
 * memfilter_grow_model_fpr_ppb() - modelled rate of the filter as it is
 * @g: the filter
 *
 * The sum over the sub-filters in use of each one's modelled rate at its
 * key count: a bound on the whole filter's (the union bound).
 *
 * Context: any.
 * Return: the rate in ppb, at most 10^9.
 */
u64 memfilter_grow_model_fpr_ppb(const struct memfilter_grow *g)
{
	u32 a = memfilter_grow_active(g), i;
	u64 sum = 0;

	for (i = 0; i < a; i++)
		sum += memfilter_bloom_model_fpr_ppb(&g->sub[i].p,
						     READ_ONCE(g->keys[i]));
	return min(sum, 1000000000ULL);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_grow_model_fpr_ppb);

/*
 * The growing filter's entry in the table of filter types (filter_type.h).
 * Its table memory starts with the image state section (struct
 * memfilter_image_grow), as the window filter's does, so that an image's
 * payload loads in one copy; sub-filters made later are the owner's.
 */

static int mf_grow_params(const struct memfilter_create *c,
			  union memfilter_params *p)
{
	u32 i;
	int ret;

	if (c->fingerprint_bits || c->bits_per_key_q4 || !c->fpr_ppb)
		return -EINVAL;
	/* No layout named: LINE64 (for bits per key) until the rates say. */
	ret = memfilter_grow_params_init(&p->grow, c->capacity, c->fpr_ppb,
					 c->grow_max, c->grow_factor,
					 c->grow_ratio_pct, memfilter_create_layout(c, 0));
	if (ret || c->layout != MEMFILTER_LAYOUT_DEFAULT)
		return ret;
	/*
	 * The sub-filters share one layout, and their rates fall by the
	 * ratio: SPLIT32 only if it is the default at every one of them
	 * (with 1%, 50% and 16 sub-filters the later ones are below its
	 * band, the last below its reach), so that growth stops no sooner.
	 */
	for (i = 0; i < p->grow.max_subs; i++)
		if (memfilter_bloom_default_layout(mf_grow_sub_fpr(&p->grow, i)) !=
		    MEMFILTER_BLOOM_SPLIT32)
			return 0;
	return memfilter_grow_params_init(&p->grow, c->capacity, c->fpr_ppb,
					  c->grow_max, c->grow_factor,
					  c->grow_ratio_pct, MEMFILTER_BLOOM_SPLIT32);
}

static struct memfilter_hasher *mf_grow_hasher(union memfilter_params *p)
{
	return &p->grow.sub0.hasher;
}

static const union memfilter_params *
mf_grow_params_of(const union memfilter_state *s)
{
	return (const union memfilter_params *)&s->grow.p;
}

static u64 mf_grow_mem_bytes(const union memfilter_params *p)
{
	return memfilter_grow_bytes(&p->grow);
}

static void mf_grow_init(union memfilter_state *s,
			 const union memfilter_params *p, void *mem)
{
	memfilter_grow_init(&s->grow, &p->grow, mem);
}

static void mf_grow_contains(const union memfilter_state *s,
			     const u64 *hashes, u32 n, unsigned long *result)
{
	memfilter_grow_contains_hashes(&s->grow, hashes, n, result);
}

static int mf_grow_do_add(union memfilter_state *s, const u64 *hashes, u32 n,
			  unsigned long *result, u32 *done, bool exclusive)
{
	int ret = memfilter_grow_add_hashes(&s->grow, hashes, n, done,
					    exclusive);
	u32 i;

	for (i = 0; i < *done; i++)
		memfilter_result_set(result, i);
	return ret;
}

static int mf_grow_add(union memfilter_state *s, const u64 *hashes, u32 n,
		       unsigned long *result, u32 *done)
{
	return mf_grow_do_add(s, hashes, n, result, done, false);
}

static int mf_grow_add_exclusive(union memfilter_state *s, const u64 *hashes,
				 u32 n, unsigned long *result, u32 *done)
{
	return mf_grow_do_add(s, hashes, n, result, done, true);
}

static int mf_grow_test_and_add(union memfilter_state *s, const u64 *hashes,
				u32 n, unsigned long *result, u32 *done)
{
	return memfilter_grow_test_and_add_hashes(&s->grow, hashes, n, result,
						  done);
}

static bool mf_grow_contains_key(const union memfilter_state *s,
				 const void *key, size_t len)
{
	const struct memfilter_grow *g = &s->grow;

	return memfilter_grow_contains_hash(g,
			memfilter_hash_lean(&g->p.sub0.hasher, key, len));
}

static int mf_grow_test_and_add_key(union memfilter_state *s, const void *key,
				    u32 len)
{
	struct memfilter_grow *g = &s->grow;

	return memfilter_grow_test_and_add_hash(g,
			memfilter_hash_lean(&g->p.sub0.hasher, key, len));
}

static void mf_grow_clear(union memfilter_state *s)
{
	struct memfilter_grow *g = &s->grow;
	u32 i, nsubs;
	u64 j, words;

	/* Pairs with memfilter_grow_attach(): every sub-filter made. */
	nsubs = smp_load_acquire(&g->p.nsubs);
	/* Queries and inserts start over in the first sub-filter. */
	smp_store_release(&g->active, 1);
	for (i = 0; i < nsubs; i++) {
		words = memfilter_bloom_nwords(&g->sub[i].p);
		for (j = 0; j < words; j++) {
			WRITE_ONCE(g->sub[i].words[j], 0);
			if (!(j & 0xffff))
				memfilter_cond_resched();
		}
		WRITE_ONCE(g->keys[i], 0);
	}
}

static void mf_grow_info(const union memfilter_state *s, u64 added,
			 struct memfilter_info *info)
{
	const struct memfilter_grow *g = &s->grow;
	u32 a = memfilter_grow_active(g), i;
	u64 cap = 0, keys = 0, fill = 0, fill_max = 0;

	info->k = g->p.sub0.k;
	info->bits_per_key_q4 = g->p.sub0.bits_per_key_q4;
	info->layout = memfilter_info_layout(g->p.sub0.layout);
	for (i = 0; i < a; i++) {
		cap += g->sub[i].p.capacity;
		keys += READ_ONCE(g->keys[i]);
		fill += memfilter_bloom_popcount(&g->sub[i]);
		fill_max += memfilter_bloom_bytes(&g->sub[i].p) * 8;
	}
	info->capacity = cap;
	info->keys = keys;
	info->fill = fill;
	info->fill_max = fill_max;
	info->est_fpr_ppb = memfilter_grow_model_fpr_ppb(g);
	info->subfilters = a;
	info->grow_max = g->p.max_subs;
	info->grow_factor = g->p.factor;
	info->grow_ratio_pct = g->p.ratio_pct;
	info->fpr_ppb = g->p.fpr_ppb;
}

/*
 * The description and, with a @payload, the state section and a word by
 * word copy of every sub-filter made: every key added before the call is
 * in it. The owner keeps growth out meanwhile (p.nsubs holds still).
 */
static void mf_grow_image(const union memfilter_state *s, u64 added,
			  struct memfilter_image_desc *d, void *payload)
{
	const struct memfilter_grow *g = &s->grow;
	struct memfilter_image_grow *sec = payload;
	u64 keys[MEMFILTER_GROW_MAX_SUBS], j, words, *dst;
	u32 i, nsubs = g->p.nsubs;

	memset(d, 0, sizeof(*d));
	d->type = MEMFILTER_TYPE_GROW;
	for (i = 0; i < nsubs; i++) {
		keys[i] = READ_ONCE(g->keys[i]);
		d->keys += keys[i];
	}
	d->params.grow = g->p;
	d->payload_size = memfilter_grow_bytes(&g->p);
	if (!payload)
		return;
	BUILD_BUG_ON(sizeof(*sec) != MF_GROW_SEC);
	memset(sec, 0, sizeof(*sec));
	sec->subs = cpu_to_le32(nsubs);
	sec->active = cpu_to_le32(memfilter_grow_active(g));
	for (i = 0; i < nsubs; i++)
		sec->keys[i] = cpu_to_le64(keys[i]);
	dst = (u64 *)(sec + 1);
	for (i = 0; i < nsubs; i++) {
		words = memfilter_bloom_nwords(&g->sub[i].p);
		for (j = 0; j < words; j++) {
			*dst++ = READ_ONCE(g->sub[i].words[j]);
			if (!(j & 0xffff))
				memfilter_cond_resched();
		}
	}
}

static void mf_grow_image_encode(struct memfilter_image_header *h,
				 const struct memfilter_image_desc *d)
{
	const struct memfilter_grow_params *p = &d->params.grow;

	h->capacity = cpu_to_le64(p->sub0.capacity);
	h->geometry = cpu_to_le64(p->sub0.nblocks);
	h->k = cpu_to_le32(p->sub0.k);
	h->bits_per_key_q4 = cpu_to_le32(p->sub0.bits_per_key_q4);
	h->stash = cpu_to_le64((u64)p->nsubs | (u64)p->max_subs << 8 |
			       (u64)p->factor << 16 | (u64)p->ratio_pct << 24 |
			       p->fpr_ppb << 32);
	memfilter_image_encode_layout(h, p->sub0.layout);
}

/*
 * The header names the shape; every sub-filter's is computed from it, and
 * the first one's must be the header's geometry, k and bits per key.
 */
static int mf_grow_image_decode(const struct memfilter_image_header *h,
				struct memfilter_image_desc *d)
{
	struct memfilter_grow_params *p = &d->params.grow;
	u64 stash = le64_to_cpu(h->stash);
	u32 nsubs = stash & 0xff, max_subs = (stash >> 8) & 0xff;
	u32 factor = (stash >> 16) & 0xff, ratio = (stash >> 24) & 0xff;
	u32 layout = le32_to_cpu(h->flags) & MEMFILTER_IMAGE_SPLIT32 ?
		     MEMFILTER_BLOOM_SPLIT32 : MEMFILTER_BLOOM_LINE64;

	/* Zero would mean "the default" to params_init: not in an image. */
	if (!nsubs || !max_subs || nsubs > max_subs || !factor || !ratio ||
	    memfilter_grow_params_init(p, le64_to_cpu(h->capacity),
				       stash >> 32, max_subs, factor, ratio, layout))
		return -EBADMSG;
	if (p->sub0.nblocks != le64_to_cpu(h->geometry) ||
	    p->sub0.k != le32_to_cpu(h->k) ||
	    p->sub0.bits_per_key_q4 != le32_to_cpu(h->bits_per_key_q4))
		return -EBADMSG;
	p->nsubs = nsubs;
	if (!memfilter_grow_bytes(p))
		return -EBADMSG;
	return 0;
}

/*
 * Check the state section that came with the tables and restore from it:
 * the sub-filters in use and each one's key count, never past its
 * capacity, none in those made ahead.
 */
static int mf_grow_restore(union memfilter_state *s,
			   const struct memfilter_image_desc *d)
{
	struct memfilter_grow *g = &s->grow;
	const struct memfilter_image_grow *sec = g->sec;
	u32 i, nsubs = g->p.nsubs, active = le32_to_cpu(sec->active);
	u64 keys, sum = 0;

	if (le32_to_cpu(sec->subs) != nsubs || !active || active > nsubs ||
	    memchr_inv(sec->__reserved, 0, sizeof(sec->__reserved)))
		return -EBADMSG;
	for (i = 0; i < MEMFILTER_GROW_MAX_SUBS; i++) {
		keys = le64_to_cpu(sec->keys[i]);
		if (keys && (i >= active || keys > g->sub[i].p.capacity))
			return -EBADMSG;
		sum += keys;
	}
	if (sum != d->keys)
		return -EBADMSG;
	for (i = 0; i < nsubs; i++)
		g->keys[i] = le64_to_cpu(sec->keys[i]);
	smp_store_release(&g->active, active);	/* not shared yet */
	return 0;
}

static u64 mf_grow_next_bytes(const union memfilter_state *s)
{
	return memfilter_grow_next_bytes(&s->grow);
}

static bool mf_grow_wants_next(const union memfilter_state *s)
{
	return memfilter_grow_wants_next(&s->grow);
}

static void mf_grow_attach(union memfilter_state *s, void *mem)
{
	memfilter_grow_attach(&s->grow, mem);
}

/* Each sub-filter in use (age 0: they do not age). */
static u32 mf_grow_parts(const union memfilter_state *s,
			 struct memfilter_generation *g)
{
	const struct memfilter_grow *gr = &s->grow;
	u32 a = memfilter_grow_active(gr), i;

	for (i = 0; i < a; i++) {
		g[i].age_ms = 0;
		g[i].keys = READ_ONCE(gr->keys[i]);
		g[i].fill = memfilter_bloom_popcount(&gr->sub[i]);
	}
	return a;
}

const struct memfilter_type_ops memfilter_grow_ops = {
	.type = MEMFILTER_TYPE_GROW,
	.name = "grow",
	.locked_writers = false,
	.counts_keys = true,
	.create_fields = MEMFILTER_FIELDS_LAYOUT | MEMFILTER_FIELDS_GROW,
	.params = mf_grow_params,
	.hasher = mf_grow_hasher,
	.params_of = mf_grow_params_of,
	.mem_bytes = mf_grow_mem_bytes,
	.payload_bytes = mf_grow_mem_bytes,
	.init = mf_grow_init,
	.contains = mf_grow_contains,
	.contains_key = mf_grow_contains_key,
	.add = mf_grow_add,
	.add_exclusive = mf_grow_add_exclusive,
	.test_and_add = mf_grow_test_and_add,
	.test_and_add_key = mf_grow_test_and_add_key,
	.clear = mf_grow_clear,
	.info = mf_grow_info,
	.image = mf_grow_image,
	.image_encode = mf_grow_image_encode,
	.image_decode = mf_grow_image_decode,
	.restore = mf_grow_restore,
	.next_bytes = mf_grow_next_bytes,
	.wants_next = mf_grow_wants_next,
	.attach = mf_grow_attach,
	.parts = mf_grow_parts,
	.image_flags = MEMFILTER_IMAGE_SPLIT32,
};
