// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * memfilter's cuckoo filter (layout in cuckoo.h), built into the module and
 * into userspace from this file, cuckoo_batch.c (the batch lookups and
 * adds) and cuckoo_internal.h (the inline helpers both use).
 *
 * Conventions in these files: one writer at a time, lockless readers.
 * Writers (add, add_unique, delete, clear) are serialized by the CALLER
 * (the module holds the filter's spinlock with bottom halves disabled);
 * readers (contains, count, stats) take no lock and may run on any number
 * of CPUs concurrently with the writer. Nothing here sleeps or allocates:
 * all memory, including the writer's path search queue, is the block the
 * caller handed to memfilter_cuckoo_init().
 *
 * Inserts never lose a key. An insert first tries the key's two buckets,
 * then searches breadth first (MemC3) for a cuckoo path: a chain of
 * fingerprints, each movable to its other bucket, ending at an empty slot,
 * visiting at most max_kicks buckets. Only when a path is found does
 * anything move. If none is found, the new fingerprint goes to the victim
 * stash when that is empty, otherwise the insert fails with -ENOSPC having
 * changed nothing. A breadth-first path is a shortest one, so it never
 * visits a bucket twice and its moves cannot overwrite each other.
 *
 * Reader protocol (MemC3's optimistic cuckoo hashing). Bucket i is covered
 * by version counter ver[i & stripe_mask]. Every change is a window over
 * the stripes of all the buckets it touches (each counted once):
 *
 *	gen++, ver++ for each (now odd); smp_wmb(); WRITE_ONCE() the slots
 *	and the stash; smp_wmb(); ver++ for each, gen++
 *
 * A window holds one slot update, or a whole cuckoo path (at most
 * MF_CUCKOO_PATH_MAX buckets), together with the stash word when the
 * change fills or empties it (the stash's two buckets join the window). A
 * reader does
 *
 *	v1 = READ_ONCE(ver(i1)); v2 = READ_ONCE(ver(i2));
 *	smp_rmb(); read both buckets and s = READ_ONCE(stash); smp_rmb();
 *	retry unless v1, v2 are even and both counters still read v1, v2
 *
 * so a negative answer or a count is only returned from a snapshot of both
 * buckets and the stash that no window overlapped, as for a seqcount: a
 * fingerprint in flight along a path, or between the stash and a bucket,
 * is never seen twice or not at all. A positive answer is returned at
 * once, consistent or not: at worst it is a false positive, which a filter
 * may give anyway. Within a window, moves along a path still run backwards
 * from the empty slot (each copy lands before its source is overwritten)
 * and the stash empties only after its fingerprint is in a bucket.
 * Together: a reader never misses a key whose add returned before the read
 * began and which was not deleted.
 *
 * Batch lookups validate 64 keys at once instead, with gen, the table's
 * own counter, which every window moves too (first when it opens, last
 * when it closes): a batch reads gen, smp_rmb(), the buckets of up to 64
 * keys and, only if some key was in neither bucket, the stash, smp_rmb()
 * and gen again. If gen was even and unchanged, no window overlapped the
 * chunk and its negative answers stand (the stash tested for them);
 * otherwise those keys take the single-key protocol above. A batch key
 * thus costs its two bucket loads, no version counter.
 *
 * Readers never wait unboundedly. A writer may be stopped inside a window
 * by the very reader that interrupted it (hard interrupt, NMI) or be
 * preempted there (PREEMPT_RT), so a reader tries at most
 * MEMFILTER_CUCKOO_READ_TRIES times: then a lookup answers "may be
 * present" (a false positive, never a false negative) and a count
 * reports MEMFILTER_CUCKOO_COUNT_BUSY.
 *
 * Writers bound their own work too, since the module runs them with bottom
 * halves disabled: an insert visits at most max_kicks + 2 buckets; a
 * delete tries the stash's two buckets and only every
 * MF_CUCKOO_UNSTASH_EVERY deletes runs a full path search for it; clear
 * and dump work a range of buckets at a time, so the caller can drop its
 * lock in between (memfilter_cuckoo_clear_buckets(),
 * memfilter_cuckoo_dump_begin()).
 *
 * Delete contract: a delete removes one copy of the key's fingerprint from
 * its buckets or the stash. A key that was never added may share its
 * fingerprint and buckets with one that was, and then deleting it removes
 * that other key's copy: a false negative. Callers must only delete keys
 * they added (like RedisBloom's CF.DEL); duplicates must be deleted as many
 * times as they were added.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include "cuckoo_internal.h"
#include "filter_type.h"
#include "image.h"

#define MF_CUCKOO_PPB		1000000000ULL
/*
 * Buckets in one writer window: a breadth-first path of at most
 * MEMFILTER_CUCKOO_MAX_KICKS + 2 queued buckets is at most 8 moves deep
 * (2 * (4^9 - 1) / 3 > 65538), so it touches at most 10 buckets, plus the
 * stash's two.
 */
#define MF_CUCKOO_PATH_MAX	16
/* Deletes between full path searches to empty an occupied stash. */
#define MF_CUCKOO_UNSTASH_EVERY	16

static bool mf_cuckoo_fp_bits_ok(u32 fp_bits)
{
	return fp_bits == 8 || fp_bits == 12 || fp_bits == 16;
}

/* A power of two: bucket i is covered by counter i & (stripes - 1). */
static u64 mf_cuckoo_stripes(u64 nbuckets)
{
	u64 n = nbuckets >> 6;

	if (n > MEMFILTER_CUCKOO_MAX_STRIPES)
		return MEMFILTER_CUCKOO_MAX_STRIPES;
	return n ? 1ULL << (fls64(n) - 1) : 1;
}

static u64 mf_cuckoo_round64(u64 x)
{
	return (x + 63) & ~63ULL;
}

/*
 * The caller's block: table (+ 8 bytes for whole-word loads of the last
 * bucket), version counters, writer state; each part 64-byte aligned.
 * Return: total bytes, or 0 for invalid parameters or overflow.
 */
static u64 mf_cuckoo_layout(const struct memfilter_cuckoo_params *p, u64 *ver_off,
			    u64 *w_off)
{
	u64 table, w;

	*ver_off = 0;
	*w_off = 0;
	if (!mf_cuckoo_fp_bits_ok(p->fp_bits) || !p->nbuckets ||
	    p->layout > MEMFILTER_CUCKOO_LAYOUT_MOD ||
	    (p->layout == MEMFILTER_CUCKOO_LAYOUT_POW2 &&
	     (p->nbuckets & (p->nbuckets - 1))) ||
	    p->nbuckets > (1ULL << 40) ||
	    p->max_kicks > MEMFILTER_CUCKOO_MAX_KICKS)
		return 0;
	table = mf_cuckoo_round64(p->nbuckets * (p->fp_bits / 2) + 8);
	*ver_off = table;
	/* The stripes' counters, then @gen on a line of its own. */
	*w_off = table + mf_cuckoo_round64(mf_cuckoo_stripes(p->nbuckets) *
					   sizeof(u32)) + 64;
	w = sizeof(struct memfilter_cuckoo_wstate) +
	    ((u64)p->max_kicks + 2) * sizeof(struct mf_cuckoo_node);
	return *w_off + mf_cuckoo_round64(w);
}

/**
 * memfilter_cuckoo_mem_bytes() - memory a cuckoo filter needs
 * @p: its parameters
 *
 * Context: any.
 * Return: the size of the zeroed block memfilter_cuckoo_init() needs (the
 * table, the version counters and the writer's scratch), or 0 if @p is
 * invalid. The block must be 64-byte aligned.
 */
u64 memfilter_cuckoo_mem_bytes(const struct memfilter_cuckoo_params *p)
{
	u64 ver_off, w_off;

	return mf_cuckoo_layout(p, &ver_off, &w_off);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_cuckoo_mem_bytes);

/**
 * memfilter_cuckoo_params_init() - size a cuckoo filter
 * @p: the parameters to fill in
 * @capacity: keys it must hold
 * @fp_bits: fingerprint width, 8, 12 or 16
 *
 * Picks MEMFILTER_CUCKOO_LAYOUT_MOD and the smallest bucket count that
 * holds @capacity keys at no more than MEMFILTER_CUCKOO_TARGET_LOAD percent
 * load, max_kicks MEMFILTER_CUCKOO_DEFAULT_KICKS and an XXH64 hasher with
 * seed 0.
 *
 * Context: any.
 * Return: 0; -EINVAL for a zero @capacity or a bad @fp_bits; -E2BIG when
 * the filter would exceed MEMFILTER_CUCKOO_MAX_BYTES.
 */
int memfilter_cuckoo_params_init(struct memfilter_cuckoo_params *p, u64 capacity,
				 u32 fp_bits)
{
	u64 nb, bytes;

	memset(p, 0, sizeof(*p));
	if (!capacity || !mf_cuckoo_fp_bits_ok(fp_bits))
		return -EINVAL;
	if (capacity > (1ULL << 42))
		return -E2BIG;
	nb = DIV_ROUND_UP_ULL(capacity * 100,
			      MEMFILTER_CUCKOO_SLOTS * MEMFILTER_CUCKOO_TARGET_LOAD);
	p->capacity = capacity;
	p->nbuckets = nb;
	p->layout = MEMFILTER_CUCKOO_LAYOUT_MOD;
	p->fp_bits = fp_bits;
	p->max_kicks = MEMFILTER_CUCKOO_DEFAULT_KICKS;
	p->hasher.algo = MEMFILTER_HASH_XXH64;
	bytes = memfilter_cuckoo_mem_bytes(p);
	if (!bytes || bytes > MEMFILTER_CUCKOO_MAX_BYTES) {
		memset(p, 0, sizeof(*p));
		return -E2BIG;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_cuckoo_params_init);

/**
 * memfilter_cuckoo_params_from_fpr() - size a cuckoo filter for an FPR
 * @p: the parameters to fill in
 * @capacity: keys it must hold
 * @fpr_ppb: largest acceptable false-positive rate, parts per billion
 *
 * Uses the narrowest fingerprint whose full-load bound 2b / 2^f (b = 4
 * slots) is at most @fpr_ppb: 8 bits down to 3.125%, 12 bits down to
 * 0.195%, 16 bits down to 0.0122%.
 *
 * Context: any.
 * Return: as memfilter_cuckoo_params_init(); also -EINVAL when @fpr_ppb is
 * outside 1 .. 10^9 - 1 (as for Bloom filters) or below what 16-bit
 * fingerprints give.
 */
int memfilter_cuckoo_params_from_fpr(struct memfilter_cuckoo_params *p, u64 capacity,
				     u64 fpr_ppb)
{
	u32 f;

	memset(p, 0, sizeof(*p));
	if (!fpr_ppb || fpr_ppb >= MF_CUCKOO_PPB)
		return -EINVAL;
	for (f = 8; f <= 16; f += 4) {
		if (2 * MEMFILTER_CUCKOO_SLOTS * MF_CUCKOO_PPB <= fpr_ppb << f)
			return memfilter_cuckoo_params_init(p, capacity, f);
	}
	return -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_cuckoo_params_from_fpr);

/**
 * memfilter_cuckoo_init() - set up a cuckoo filter over zeroed memory
 * @c: the filter
 * @p: parameters accepted by memfilter_cuckoo_mem_bytes()
 * @mem: memfilter_cuckoo_mem_bytes(@p) zeroed bytes, 64-byte aligned,
 *	owned by the caller and freed by it after the filter's last use
 *
 * Context: any; the filter must not be in use.
 */
void memfilter_cuckoo_init(struct memfilter_cuckoo *c,
			   const struct memfilter_cuckoo_params *p, void *mem)
{
	u64 ver_off, w_off;
	u32 f = p->fp_bits;

	mf_cuckoo_layout(p, &ver_off, &w_off);
	memset(c, 0, sizeof(*c));
	c->p = *p;
	c->table = mem;
	c->ver = (u32 *)((u8 *)mem + ver_off);
	c->w = (struct memfilter_cuckoo_wstate *)((u8 *)mem + w_off);
	c->gen = (u32 *)((u8 *)c->w - 64);
	c->w->nodes = (u64)p->max_kicks + 2;
	c->mask = p->nbuckets - 1;
	c->lane_ones = 1 | 1ULL << f | 1ULL << (2 * f) | 1ULL << (3 * f);
	c->lane_high = c->lane_ones << (f - 1);
	c->bucket_mask = f == 16 ? ~0ULL : (1ULL << (4 * f)) - 1;
	c->fp_range = (1U << f) - 1;
	c->stripe_mask = mf_cuckoo_stripes(p->nbuckets) - 1;
	c->bucket_bytes = f / 2;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_cuckoo_init);

/**
 * memfilter_cuckoo_clear() - remove every key
 * @c: the filter
 *
 * Readers running concurrently may see some keys and not others. Takes
 * time linear in the table: callers that must bound their time with the
 * writer lock held use memfilter_cuckoo_clear_buckets() instead.
 *
 * Context: caller holds the filter's writer lock.
 */
void memfilter_cuckoo_clear(struct memfilter_cuckoo *c)
{
	memfilter_cuckoo_clear_buckets(c, 0, c->p.nbuckets);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_cuckoo_clear);

/**
 * memfilter_cuckoo_restore() - adopt a table just loaded from an image
 * @c: a filter set up by memfilter_cuckoo_init() whose table bytes the
 *	caller has filled with an image's payload
 * @stash: the image's stash word, checked by memfilter_image_parse()
 * @items: the number of keys the image claims
 *
 * Any table contents are safe to use (every slot value is a fingerprint or
 * empty); this counts them, so that the statistics and the load stay true.
 *
 * Context: the filter is not shared yet, or the caller holds its writer
 * lock; may take a while on big tables (yields in the kernel).
 * Return: 0, or -EBADMSG if the table does not hold @items fingerprints.
 */
int memfilter_cuckoo_restore(struct memfilter_cuckoo *c, u64 stash, u64 items)
{
	u64 i, used = stash != 0;

	for (i = 0; i < c->p.nbuckets; i++) {
		used += MEMFILTER_CUCKOO_SLOTS -
			hweight64(mf_cuckoo_zero_slots(c, mf_cuckoo_bucket(c, i)));
		if (!(i & 0xfffff))
			memfilter_cond_resched();
	}
	if (used != items)
		return -EBADMSG;
	WRITE_ONCE(c->stash, stash);
	WRITE_ONCE(c->w->items, items);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_cuckoo_restore);

/* The stripes of one writer window (see the top of this file). */
struct mf_cuckoo_window {
	u32 n;
	u32 *ver[MF_CUCKOO_PATH_MAX];
};

static void mf_cuckoo_window_add(const struct memfilter_cuckoo *c,
				 struct mf_cuckoo_window *win, u64 bucket)
{
	u32 *v = &c->ver[bucket & c->stripe_mask];
	u32 i;

	for (i = 0; i < win->n; i++)
		if (win->ver[i] == v)
			return;
	if (win->n < MF_CUCKOO_PATH_MAX)	/* always: see MF_CUCKOO_PATH_MAX */
		win->ver[win->n++] = v;
}

static void mf_cuckoo_window_open(const struct memfilter_cuckoo *c,
				  struct mf_cuckoo_window *win)
{
	u32 i;

	WRITE_ONCE(*c->gen, *c->gen + 1);
	for (i = 0; i < win->n; i++)
		WRITE_ONCE(*win->ver[i], *win->ver[i] + 1);
	smp_wmb();	/* odd versions before the slots; pairs with readers' smp_rmb() */
}

static void mf_cuckoo_window_close(const struct memfilter_cuckoo *c,
				   struct mf_cuckoo_window *win)
{
	u32 i;

	smp_wmb();	/* the slots before the even versions and any later update */
	for (i = 0; i < win->n; i++)
		WRITE_ONCE(*win->ver[i], *win->ver[i] + 1);
	WRITE_ONCE(*c->gen, *c->gen + 1);
}

static void mf_cuckoo_dump_touch(struct memfilter_cuckoo *c, u64 off);

/*
 * Store @fp (0: empty) in slot @j of bucket @i of a table of @f-bit slots,
 * inside an open window.
 */
static __always_inline void mf_cuckoo_store_f(struct memfilter_cuckoo *c, u64 i,
					      u32 j, u32 fp, const u32 f)
{
	u64 bit = (i * MEMFILTER_CUCKOO_SLOTS + j) * f;

	if (unlikely(c->dump)) {
		mf_cuckoo_dump_touch(c, bit >> 3);
		mf_cuckoo_dump_touch(c, (bit >> 3) + 1);
	}
	mf_cuckoo_store_bit(c, bit, fp, f);
}

/* Store @fp (0: empty) in slot @j of bucket @i, inside an open window. */
static void mf_cuckoo_store(struct memfilter_cuckoo *c, u64 i, u32 j, u32 fp)
{
	switch (c->p.fp_bits) {
	case 8:
		mf_cuckoo_store_f(c, i, j, fp, 8);
		break;
	case 16:
		mf_cuckoo_store_f(c, i, j, fp, 16);
		break;
	default:
		mf_cuckoo_store_f(c, i, j, fp, 12);
		break;
	}
}

/* Store @fp in slot @j of bucket @i as a window of its own. */
static void mf_cuckoo_set(struct memfilter_cuckoo *c, u64 i, u32 j, u32 fp)
{
	struct mf_cuckoo_window win = {};

	mf_cuckoo_window_add(c, &win, i);
	mf_cuckoo_window_open(c, &win);
	mf_cuckoo_store(c, i, j, fp);
	mf_cuckoo_window_close(c, &win);
}

/* Set the stash word inside a window over the stash's two buckets. */
static void mf_cuckoo_set_stash(struct memfilter_cuckoo *c, u64 stash)
{
	u64 old = stash ? stash : c->stash;
	u64 i1 = old >> 16;
	struct mf_cuckoo_window win = {};

	mf_cuckoo_window_add(c, &win, i1);
	mf_cuckoo_window_add(c, &win, mf_cuckoo_alt(c, i1, old & 0xffff));
	mf_cuckoo_window_open(c, &win);
	WRITE_ONCE(c->stash, stash);
	mf_cuckoo_window_close(c, &win);
}

/*
 * Carry out a path found by mf_cuckoo_place(), in one window with @win
 * (which may already hold the stash's buckets): the fingerprint in slot @s
 * of queued bucket @idx moves to slot @dst_slot of bucket @dst, the one
 * that led to @idx moves into the slot it vacated, and so on back to a
 * root, whose slot finally receives @fp. Each copy lands before its source
 * is overwritten. With @unstash, the stash empties last, in the window.
 */
static __always_inline void mf_cuckoo_move_path(struct memfilter_cuckoo *c,
						struct mf_cuckoo_window *win,
						u32 idx, u32 s, u64 dst,
						u32 dst_slot, u32 fp, bool unstash,
						const u32 f)
{
	const struct mf_cuckoo_node *q = c->w->q;
	u64 kicks = c->w->kicks;
	u32 i;

	mf_cuckoo_window_add(c, win, dst);
	for (i = idx; ; i = q[i].parent) {
		mf_cuckoo_window_add(c, win, q[i].bucket);
		if (q[i].parent == MF_CUCKOO_ROOT)
			break;
	}
	mf_cuckoo_window_open(c, win);
	for (;;) {
		u64 src = q[idx].bucket;

		mf_cuckoo_store_f(c, dst, dst_slot,
				  mf_cuckoo_slot_f(mf_cuckoo_load(c->table, src, f), s, f),
				  f);
		kicks++;
		dst = src;
		dst_slot = s;
		if (q[idx].parent == MF_CUCKOO_ROOT)
			break;
		s = q[idx].slot;
		idx = q[idx].parent;
	}
	mf_cuckoo_store_f(c, dst, dst_slot, fp, f);
	if (unstash) {
		smp_wmb();	/* bucket copy before the stash empties */
		WRITE_ONCE(c->stash, 0);
	}
	mf_cuckoo_window_close(c, win);
	WRITE_ONCE(c->w->kicks, kicks);
}

/* Store @fp in a free slot of bucket @i (zero slots @z), as mf_cuckoo_place(). */
static __always_inline void mf_cuckoo_fill(struct memfilter_cuckoo *c,
					   struct mf_cuckoo_window *win, u64 i,
					   u64 z, u32 fp, bool unstash, const u32 f)
{
	mf_cuckoo_window_add(c, win, i);
	mf_cuckoo_window_open(c, win);
	mf_cuckoo_store_f(c, i, mf_cuckoo_slot_of_f(z, f), fp, f);
	if (unstash) {
		smp_wmb();	/* bucket copy before the stash empties */
		WRITE_ONCE(c->stash, 0);
	}
	mf_cuckoo_window_close(c, win);
}

/*
 * mf_cuckoo_place() for @f-bit fingerprints, @f a constant: the search
 * tests and expands every queued bucket with immediate masks and shifts.
 */
static __always_inline bool mf_cuckoo_place_f(struct memfilter_cuckoo *c, u64 i1,
					      u64 i2, u32 fp, bool unstash,
					      bool search, const u32 f)
{
	struct mf_cuckoo_node *q = c->w->q;
	u32 head, tail, s, nodes = c->w->nodes;
	u64 z, b, child, children[MEMFILTER_CUCKOO_SLOTS];
	/* Only win.ver[0 .. win.n) is ever read: no zeroing of the rest. */
	struct mf_cuckoo_window win __uninitialized;

	win.n = 0;
	if (unstash) {
		mf_cuckoo_window_add(c, &win, i1);
		mf_cuckoo_window_add(c, &win, i2);
	}
	z = mf_cuckoo_zero_f(mf_cuckoo_load(c->table, i1, f), f);
	if (z) {
		mf_cuckoo_fill(c, &win, i1, z, fp, unstash, f);
		return true;
	}
	z = mf_cuckoo_zero_f(mf_cuckoo_load(c->table, i2, f), f);
	if (z) {
		mf_cuckoo_fill(c, &win, i2, z, fp, unstash, f);
		return true;
	}
	if (!search)
		return false;

	q[0].bucket = i1;
	q[0].parent = MF_CUCKOO_ROOT;
	tail = 1;
	if (i2 != i1) {
		q[1].bucket = i2;
		q[1].parent = MF_CUCKOO_ROOT;
		tail = 2;
	}
	for (head = 0; head < tail; head++) {
		b = mf_cuckoo_load(c->table, q[head].bucket, f);
		for (s = 0; s < MEMFILTER_CUCKOO_SLOTS; s++) {
			children[s] = mf_cuckoo_alt(c, q[head].bucket,
						    mf_cuckoo_slot_f(b, s, f));
			mf_cuckoo_prefetch_bucket(c->table, children[s], f);
		}
		for (s = 0; s < MEMFILTER_CUCKOO_SLOTS; s++) {
			child = children[s];
			z = mf_cuckoo_zero_f(mf_cuckoo_load(c->table, child, f), f);
			if (z) {
				mf_cuckoo_move_path(c, &win, head, s, child,
						    mf_cuckoo_slot_of_f(z, f), fp,
						    unstash, f);
				return true;
			}
			if (tail < nodes) {
				q[tail].bucket = child;
				q[tail].parent = head;
				q[tail].slot = s;
				tail++;
			}
		}
	}
	return false;
}

/*
 * Store @fp in bucket @i1 or @i2, moving others if needed (only with
 * @search); false if there is no room. With @unstash, @fp is the stash's
 * fingerprint and the stash empties in the same window.
 */
static bool mf_cuckoo_place(struct memfilter_cuckoo *c, u64 i1, u64 i2, u32 fp,
			    bool unstash, bool search)
{
	switch (c->p.fp_bits) {
	case 12:
		return mf_cuckoo_place_f(c, i1, i2, fp, unstash, search, 12);
	case 8:
		return mf_cuckoo_place_f(c, i1, i2, fp, unstash, search, 8);
	default:
		return mf_cuckoo_place_f(c, i1, i2, fp, unstash, search, 16);
	}
}

/**
 * memfilter_cuckoo_locate() - where a key's fingerprint may be stored
 * @c: the filter
 * @hash: the key's hash
 * @i1: out: its first bucket
 * @i2: out: its other bucket (may equal @i1)
 * @fp: out: its fingerprint, 1 .. 2^fp_bits - 1
 *
 * The layout of cuckoo.h, for tests and tools that model the table.
 *
 * Context: any.
 */
void memfilter_cuckoo_locate(const struct memfilter_cuckoo *c, u64 hash,
			     u64 *i1, u64 *i2, u32 *fp)
{
	mf_cuckoo_locate(c, hash, i1, i2, fp);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_cuckoo_locate);

/* Copies of @fp in @i1, @i2 and the stash, as seen by the writer. */
static u32 mf_cuckoo_count_locked(const struct memfilter_cuckoo *c, u64 i1, u64 i2,
				  u32 fp)
{
	u64 pat = (u64)fp * c->lane_ones;
	u32 n;

	n = hweight64(mf_cuckoo_zero_slots(c, mf_cuckoo_bucket(c, i1) ^ pat));
	if (i2 != i1)
		n += hweight64(mf_cuckoo_zero_slots(c,
						    mf_cuckoo_bucket(c, i2) ^ pat));
	return n + mf_cuckoo_stash_has(c->stash, i1, i2, fp);
}

/*
 * The insert's slow path, out of line: both buckets are full, or a dump is
 * in progress (the chunk must be copied out first). Kept apart so that the
 * fast path (mf_cuckoo_add_f()) makes no call and needs no stack frame.
 */
noinline int memfilter_cuckoo_add_slow(struct memfilter_cuckoo *c, u64 i1, u64 i2,
				       u32 fp)
{
	struct memfilter_cuckoo_wstate *w = c->w;

	if (!mf_cuckoo_place(c, i1, i2, fp, false, true)) {
		if (c->stash) {
			WRITE_ONCE(w->failed_inserts, w->failed_inserts + 1);
			return -ENOSPC;
		}
		mf_cuckoo_set_stash(c, i1 << 16 | fp);
	}
	WRITE_ONCE(w->items, w->items + 1);
	return 0;
}

/* mf_cuckoo_add_at_f() of a key's hash. */
static __always_inline int mf_cuckoo_add_f(struct memfilter_cuckoo *c, u64 hash,
					   const u32 f)
{
	u64 i1, i2;
	u32 fp;

	mf_cuckoo_locate_f(c, hash, &i1, &i2, &fp, f);
	return mf_cuckoo_add_at_f(c, i1, i2, fp, f);
}

/**
 * memfilter_cuckoo_add_hash() - add a key by its hash
 * @c: the filter
 * @hash: the key's hash under @c->p.hasher
 *
 * Adding a key again stores another copy of its fingerprint; a key's two
 * buckets and the stash hold at most 2 * MEMFILTER_CUCKOO_SLOTS + 1 copies.
 *
 * Context: caller holds the filter's writer lock; does not sleep.
 * Return: 0, or -ENOSPC when no room could be made: the filter is then
 * unchanged and every key in it is still there.
 */
int memfilter_cuckoo_add_hash(struct memfilter_cuckoo *c, u64 hash)
{
	switch (c->p.fp_bits) {
	case 12:
		return mf_cuckoo_add_f(c, hash, 12);
	case 8:
		return mf_cuckoo_add_f(c, hash, 8);
	default:
		return mf_cuckoo_add_f(c, hash, 16);
	}
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_cuckoo_add_hash);

/**
 * memfilter_cuckoo_add_unique_hash() - add a key unless it may be present
 * @c: the filter
 * @hash: the key's hash
 *
 * Context: caller holds the filter's writer lock; does not sleep.
 * Return: 0 when added; -EEXIST when the filter already answers "maybe"
 * for the key (it was added, or a false positive); -ENOSPC as for
 * memfilter_cuckoo_add_hash().
 */
int memfilter_cuckoo_add_unique_hash(struct memfilter_cuckoo *c, u64 hash)
{
	u64 i1, i2;
	u32 fp;

	mf_cuckoo_locate(c, hash, &i1, &i2, &fp);
	if (mf_cuckoo_count_locked(c, i1, i2, fp))
		return -EEXIST;
	return memfilter_cuckoo_add_slow(c, i1, i2, fp);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_cuckoo_add_unique_hash);

/*
 * After a delete freed a slot, move the stash's fingerprint into a bucket:
 * its own two buckets every time, a full path search only every
 * MF_CUCKOO_UNSTASH_EVERY deletes (one freed slot is rarely within reach
 * of the search, and the search is the expensive part of a write).
 */
static void mf_cuckoo_unstash(struct memfilter_cuckoo *c)
{
	struct memfilter_cuckoo_wstate *w = c->w;
	u64 i1 = c->stash >> 16;
	u32 fp = c->stash & 0xffff;
	bool search = ++w->unstash_wait >= MF_CUCKOO_UNSTASH_EVERY;

	if (search)
		w->unstash_wait = 0;
	mf_cuckoo_place(c, i1, mf_cuckoo_alt(c, i1, fp), fp, true, search);
}

/**
 * memfilter_cuckoo_delete_hash() - delete one copy of a key
 * @c: the filter
 * @hash: the key's hash
 *
 * Only delete keys that were added: a key never added may match another
 * key's fingerprint, and deleting it removes that key (a false negative).
 *
 * Context: caller holds the filter's writer lock; does not sleep.
 * Return: 0 when one copy of the key's fingerprint was removed, -ENOENT
 * (and nothing changed) when there was none.
 */
int memfilter_cuckoo_delete_hash(struct memfilter_cuckoo *c, u64 hash)
{
	struct memfilter_cuckoo_wstate *w = c->w;
	u64 i1, i2, z, pat;
	u32 fp;

	mf_cuckoo_locate(c, hash, &i1, &i2, &fp);
	pat = (u64)fp * c->lane_ones;
	z = mf_cuckoo_zero_slots(c, mf_cuckoo_bucket(c, i1) ^ pat);
	if (z) {
		mf_cuckoo_set(c, i1, mf_cuckoo_slot_of(c, z), 0);
	} else {
		z = mf_cuckoo_zero_slots(c, mf_cuckoo_bucket(c, i2) ^ pat);
		if (z)
			mf_cuckoo_set(c, i2, mf_cuckoo_slot_of(c, z), 0);
		else if (mf_cuckoo_stash_has(c->stash, i1, i2, fp))
			mf_cuckoo_set_stash(c, 0);
		else
			return -ENOENT;
	}
	WRITE_ONCE(w->items, w->items - 1);
	if (c->stash)
		mf_cuckoo_unstash(c);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_cuckoo_delete_hash);

/**
 * memfilter_cuckoo_clear_buckets() - remove the keys of a range of buckets
 * @c: the filter
 * @first: the first bucket
 * @n: how many buckets from @first (clipped to the table)
 *
 * With @first 0 it also empties the stash and zeroes the insert and kick
 * counters. The item count stays equal to the fingerprints still stored,
 * so a clear done range by range, with writers running in between, leaves
 * a consistent filter; a fingerprint such a writer moves from a bucket not
 * yet cleared into one already cleared survives the clear (a false
 * positive, never a false negative).
 *
 * Context: caller holds the filter's writer lock; touches @n buckets.
 */
void memfilter_cuckoo_clear_buckets(struct memfilter_cuckoo *c, u64 first,
				    u64 n)
{
	struct memfilter_cuckoo_wstate *w = c->w;
	u64 i, end, off, used = 0;

	if (first >= c->p.nbuckets)
		return;
	end = n < c->p.nbuckets - first ? first + n : c->p.nbuckets;
	if (!first) {
		if (c->stash) {
			mf_cuckoo_set_stash(c, 0);
			used++;
		}
		WRITE_ONCE(w->failed_inserts, 0);
		WRITE_ONCE(w->kicks, 0);
	}
	for (i = first; i < end; i++)
		used += MEMFILTER_CUCKOO_SLOTS -
			hweight64(mf_cuckoo_zero_slots(c, mf_cuckoo_bucket(c, i)));
	if (unlikely(c->dump)) {
		for (off = first * c->bucket_bytes; off < end * c->bucket_bytes;
		     off += MEMFILTER_CUCKOO_DUMP_CHUNK)
			mf_cuckoo_dump_touch(c, off);
		mf_cuckoo_dump_touch(c, end * c->bucket_bytes - 1);
	}
	memset(c->table + first * c->bucket_bytes, 0,
	       (end - first) * c->bucket_bytes);
	WRITE_ONCE(w->items, w->items - used);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_cuckoo_clear_buckets);

/**
 * memfilter_cuckoo_dump_chunks() - steps of a copy of the table
 * @c: the filter
 *
 * Context: any.
 * Return: how many MEMFILTER_CUCKOO_DUMP_CHUNK pieces the table's
 * nbuckets * fp_bits / 2 bytes (an image's payload) make.
 */
u64 memfilter_cuckoo_dump_chunks(const struct memfilter_cuckoo *c)
{
	return DIV_ROUND_UP(c->p.nbuckets * c->bucket_bytes,
			    MEMFILTER_CUCKOO_DUMP_CHUNK);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_cuckoo_dump_chunks);

static void mf_cuckoo_dump_copy_chunk(struct memfilter_cuckoo *c,
				      struct memfilter_table_copy *d, u64 k)
{
	u64 off = k * MEMFILTER_CUCKOO_DUMP_CHUNK;
	u64 bytes = c->p.nbuckets * c->bucket_bytes - off;

	if (d->copied[k / 64] & BIT_ULL(k % 64))
		return;
	memcpy(d->dst + off, c->table + off,
	       min(bytes, (u64)MEMFILTER_CUCKOO_DUMP_CHUNK));
	d->copied[k / 64] |= BIT_ULL(k % 64);
}

/* A writer is about to change byte @off of the table: copy it out first. */
static void mf_cuckoo_dump_touch(struct memfilter_cuckoo *c, u64 off)
{
	if (off < c->p.nbuckets * c->bucket_bytes)
		mf_cuckoo_dump_copy_chunk(c, c->dump,
					  off / MEMFILTER_CUCKOO_DUMP_CHUNK);
}

/**
 * memfilter_cuckoo_dump_begin() - start a copy of the filter as it is now
 * @c: the filter
 * @d: @d->dst (memfilter_cuckoo_dump_chunks() chunks of room) and
 *	@d->copied (a zeroed bitmap of as many bits, in u64 words) set by
 *	the caller; @d->stash and @d->items are filled in
 *
 * The copy is of the table at this instant, whatever writers do before
 * memfilter_cuckoo_dump_end(): each writer first copies out the chunk it
 * is about to change (copy on write, at most MF_CUCKOO_PATH_MAX + 1
 * chunks per update), and the caller copies the others one at a time with
 * memfilter_cuckoo_dump_step(), so that no step holds the writer lock for
 * longer than one chunk takes. One copy at a time per filter.
 *
 * Context: caller holds the filter's writer lock.
 */
void memfilter_cuckoo_dump_begin(struct memfilter_cuckoo *c,
				 struct memfilter_table_copy *d)
{
	d->stash = c->stash;
	d->items = c->w->items;
	c->dump = d;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_cuckoo_dump_begin);

/**
 * memfilter_cuckoo_dump_step() - copy one chunk unless a writer did
 * @c: the filter, between memfilter_cuckoo_dump_begin() and _end()
 * @k: the chunk, below memfilter_cuckoo_dump_chunks()
 *
 * Context: caller holds the filter's writer lock; copies at most
 * MEMFILTER_CUCKOO_DUMP_CHUNK bytes.
 */
void memfilter_cuckoo_dump_step(struct memfilter_cuckoo *c, u64 k)
{
	mf_cuckoo_dump_copy_chunk(c, c->dump, k);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_cuckoo_dump_step);

/**
 * memfilter_cuckoo_dump_end() - finish a copy
 * @c: the filter; every chunk has been stepped
 *
 * Context: caller holds the filter's writer lock.
 */
void memfilter_cuckoo_dump_end(struct memfilter_cuckoo *c)
{
	c->dump = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_cuckoo_dump_end);

/*
 * A lockless read that had to try again: count the attempts whose
 * snapshot was inconsistent (and, if it stopped waiting, that too), once
 * per read, so that reads that never retry cost nothing.
 */
static void mf_cuckoo_retried(const struct memfilter_cuckoo *c, u32 tries,
			      bool busy)
{
	memfilter_atomic_add64(&c->w->read_retries, tries);
	if (busy)
		memfilter_atomic_add64(&c->w->read_busy, 1);
}

/*
 * The query's slow path, out of line: the first attempt (mf_cuckoo_query())
 * saw a writer inside a window, so try again, up to
 * MEMFILTER_CUCKOO_READ_TRIES attempts in all.
 */
noinline bool memfilter_cuckoo_lookup_retry(const struct memfilter_cuckoo *c,
					    u64 i1, u64 i2, u32 fp)
{
	const u32 *v1p = &c->ver[i1 & c->stripe_mask];
	const u32 *v2p = &c->ver[i2 & c->stripe_mask];
	u64 pat = (u64)fp * c->lane_ones, b1, b2;
	u32 v1, v2, tries;

	for (tries = 1; tries < MEMFILTER_CUCKOO_READ_TRIES; tries++) {
		cpu_relax();
		v1 = READ_ONCE(*v1p);
		v2 = READ_ONCE(*v2p);
		if (mf_cuckoo_stash_has(READ_ONCE(c->stash), i1, i2, fp))
			break;
		smp_rmb();	/* versions and stash before the buckets */
		/* Racy bucket reads: the versions' re-read below validates them. */
		b1 = data_race(mf_cuckoo_bucket(c, i1));
		/* Racy, as b1. */
		b2 = data_race(mf_cuckoo_bucket(c, i2));
		if (mf_cuckoo_haszero(c, b1 ^ pat) | mf_cuckoo_haszero(c, b2 ^ pat))
			break;
		smp_rmb();	/* buckets before the versions' re-read */
		if (!((v1 | v2) & 1) && v1 == READ_ONCE(*v1p) &&
		    v2 == READ_ONCE(*v2p)) {
			mf_cuckoo_retried(c, tries, false);
			return false;
		}
	}
	/*
	 * Found (consistent or not: at worst a false positive), or a writer
	 * is stuck in a window: "maybe" is always a safe answer.
	 */
	mf_cuckoo_retried(c, tries, tries == MEMFILTER_CUCKOO_READ_TRIES);
	return true;
}

/**
 * memfilter_cuckoo_contains_hash() - may a key be in the filter?
 * @c: the filter
 * @hash: the key's hash
 *
 * The fast single-key lookup: one switch on the fingerprint width, then
 * straight-line code (mf_cuckoo_query()).
 *
 * Context: any, including hard interrupt and NMI: lockless, safe
 * concurrently with the writer, and bounded (MEMFILTER_CUCKOO_READ_TRIES).
 * Return: false only if the key was not added (or was deleted); true for
 * added keys and for false positives.
 */
bool memfilter_cuckoo_contains_hash(const struct memfilter_cuckoo *c, u64 hash)
{
	return mf_cuckoo_contains(c, hash);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_cuckoo_contains_hash);

/**
 * memfilter_cuckoo_count_hash() - copies of a key's fingerprint
 * @c: the filter
 * @hash: the key's hash
 *
 * Context: any, including hard interrupt and NMI: lockless, safe
 * concurrently with the writer, and bounded (MEMFILTER_CUCKOO_READ_TRIES).
 * Return: how many times the key was added and not deleted, plus any
 * colliding keys' copies: 0..2 * MEMFILTER_CUCKOO_SLOTS + 1, counted from
 * one consistent snapshot (a fingerprint moving between buckets or out of
 * the stash is counted once); MEMFILTER_CUCKOO_COUNT_BUSY if no consistent
 * snapshot could be taken because a writer stayed inside an update (retry,
 * or count under the writer lock).
 */
u32 memfilter_cuckoo_count_hash(const struct memfilter_cuckoo *c, u64 hash)
{
	u64 i1, i2, pat, b;
	u32 fp, v1, v2, n, tries;
	const u32 *v1p, *v2p;

	mf_cuckoo_locate(c, hash, &i1, &i2, &fp);
	pat = (u64)fp * c->lane_ones;
	v1p = &c->ver[i1 & c->stripe_mask];
	v2p = &c->ver[i2 & c->stripe_mask];
	for (tries = 0; tries < MEMFILTER_CUCKOO_READ_TRIES; tries++) {
		v1 = READ_ONCE(*v1p);
		v2 = READ_ONCE(*v2p);
		n = mf_cuckoo_stash_has(READ_ONCE(c->stash), i1, i2, fp);
		smp_rmb();	/* versions and stash before the buckets */
		/* Racy bucket reads: the versions' re-read below validates them. */
		b = data_race(mf_cuckoo_bucket(c, i1));
		n += hweight64(mf_cuckoo_zero_slots(c, b ^ pat));
		if (i2 != i1) {
			/* Racy, as above. */
			b = data_race(mf_cuckoo_bucket(c, i2));
			n += hweight64(mf_cuckoo_zero_slots(c, b ^ pat));
		}
		smp_rmb();	/* buckets before the versions' re-read */
		if (!((v1 | v2) & 1) && v1 == READ_ONCE(*v1p) &&
		    v2 == READ_ONCE(*v2p)) {
			if (unlikely(tries))
				mf_cuckoo_retried(c, tries, false);
			return n;
		}
		cpu_relax();
	}
	mf_cuckoo_retried(c, tries, true);
	return MEMFILTER_CUCKOO_COUNT_BUSY;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_cuckoo_count_hash);

/**
 * memfilter_cuckoo_add_key() - add a key
 * @c: the filter
 * @key: the key's bytes
 * @len: its length
 *
 * Context: caller holds the filter's writer lock; does not sleep.
 * Return: as memfilter_cuckoo_add_hash().
 */
int memfilter_cuckoo_add_key(struct memfilter_cuckoo *c, const void *key, size_t len)
{
	return memfilter_cuckoo_add_hash(c, memfilter_hash_lean(&c->p.hasher, key, len));
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_cuckoo_add_key);

/**
 * memfilter_cuckoo_add_unique_key() - add a key unless it may be present
 * @c: the filter
 * @key: the key's bytes
 * @len: its length
 *
 * Context: caller holds the filter's writer lock; does not sleep.
 * Return: as memfilter_cuckoo_add_unique_hash().
 */
int memfilter_cuckoo_add_unique_key(struct memfilter_cuckoo *c, const void *key,
				    size_t len)
{
	return memfilter_cuckoo_add_unique_hash(c, memfilter_hash_lean(&c->p.hasher, key, len));
}

/**
 * memfilter_cuckoo_delete_key() - delete one copy of a key
 * @c: the filter
 * @key: the key's bytes, which must have been added
 * @len: its length
 *
 * Context: caller holds the filter's writer lock; does not sleep.
 * Return: as memfilter_cuckoo_delete_hash().
 */
int memfilter_cuckoo_delete_key(struct memfilter_cuckoo *c, const void *key,
				size_t len)
{
	return memfilter_cuckoo_delete_hash(c, memfilter_hash_lean(&c->p.hasher, key, len));
}

/**
 * memfilter_cuckoo_contains_key() - may a key be in the filter?
 * @c: the filter
 * @key: the key's bytes
 * @len: its length
 *
 * Context: any, lockless.
 * Return: as memfilter_cuckoo_contains_hash().
 */
bool memfilter_cuckoo_contains_key(const struct memfilter_cuckoo *c, const void *key,
				   size_t len)
{
	return mf_cuckoo_contains(c, memfilter_hash_lean(&c->p.hasher, key, len));
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_cuckoo_contains_key);

/**
 * memfilter_cuckoo_count_key() - copies of a key's fingerprint
 * @c: the filter
 * @key: the key's bytes
 * @len: its length
 *
 * Context: any, lockless.
 * Return: as memfilter_cuckoo_count_hash().
 */
u32 memfilter_cuckoo_count_key(const struct memfilter_cuckoo *c, const void *key,
			       size_t len)
{
	return memfilter_cuckoo_count_hash(c, memfilter_hash_lean(&c->p.hasher, key, len));
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_cuckoo_count_key);

/*
 * 1 - (1 - 1/r)^n ~= n/r - n(n-1)/(2r^2), n = 8 * used / slots occupied
 * slots in a key's two buckets, r fingerprint values; parts per billion.
 */
static u64 mf_cuckoo_est_fpr_ppb(u64 used, u64 slots, u32 range)
{
	u64 n, first;

	if (!used || !slots)
		return 0;
	n = 2 * MEMFILTER_CUCKOO_SLOTS *
	    mul_u64_u64_div_u64(min(used, slots), MF_CUCKOO_PPB, slots);
	first = div64_u64(n, range);
	if (n <= MF_CUCKOO_PPB)
		return first;
	return first - div64_u64(first * (n - MF_CUCKOO_PPB),
				 2 * (u64)range * MF_CUCKOO_PPB);
}

/**
 * memfilter_cuckoo_stats() - a snapshot of a filter's counters
 * @c: the filter
 * @s: filled in
 *
 * The counters are read one by one while the writer may update them, so
 * they need not be consistent with each other.
 *
 * Context: any, lockless.
 */
void memfilter_cuckoo_stats(const struct memfilter_cuckoo *c,
			    struct memfilter_cuckoo_snapshot *s)
{
	u32 stash_used = READ_ONCE(c->stash) != 0;
	u64 items = READ_ONCE(c->w->items);

	memset(s, 0, sizeof(*s));
	s->items = items;
	s->slots = c->p.nbuckets * MEMFILTER_CUCKOO_SLOTS;
	s->slots_used = items > stash_used ? items - stash_used : 0;
	s->failed_inserts = READ_ONCE(c->w->failed_inserts);
	s->kicks = READ_ONCE(c->w->kicks);
	s->read_retries = READ_ONCE(c->w->read_retries);
	s->read_busy = READ_ONCE(c->w->read_busy);
	s->stash_used = stash_used;
	s->est_fpr_ppb = mf_cuckoo_est_fpr_ppb(s->slots_used, s->slots,
					       c->fp_range);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_cuckoo_stats);

/* The cuckoo filter's entry in the table of filter types (filter_type.h). */

static int mf_cuckoo_create_params(const struct memfilter_create *c,
				   union memfilter_params *p)
{
	if (c->bits_per_key_q4 || !c->fpr_ppb == !c->fingerprint_bits)
		return -EINVAL;
	if (c->fingerprint_bits)
		return memfilter_cuckoo_params_init(&p->cuckoo, c->capacity,
						    c->fingerprint_bits);
	return memfilter_cuckoo_params_from_fpr(&p->cuckoo, c->capacity,
						c->fpr_ppb);
}

static struct memfilter_hasher *mf_cuckoo_hasher(union memfilter_params *p)
{
	return &p->cuckoo.hasher;
}

static const union memfilter_params *
mf_cuckoo_params_of(const union memfilter_state *s)
{
	return (const union memfilter_params *)&s->cuckoo.p;
}

static u64 mf_cuckoo_mem_bytes(const union memfilter_params *p)
{
	return memfilter_cuckoo_mem_bytes(&p->cuckoo);
}

static u64 mf_cuckoo_payload_bytes(const union memfilter_params *p)
{
	return p->cuckoo.nbuckets * (p->cuckoo.fp_bits / 2);
}

static void mf_cuckoo_init_state(union memfilter_state *s,
				 const union memfilter_params *p, void *mem)
{
	memfilter_cuckoo_init(&s->cuckoo, &p->cuckoo, mem);
}

static void mf_cuckoo_contains_batch(const union memfilter_state *s,
				     const u64 *hashes, u32 n, unsigned long *result)
{
	memfilter_cuckoo_contains_hashes(&s->cuckoo, hashes, n, result);
}

/*
 * The type's single-key query: memfilter_cuckoo_contains_key() inline,
 * the key hashed and both buckets probed in this one call.
 */
static bool mf_cuckoo_contains_key(const union memfilter_state *s,
				   const void *key, size_t len)
{
	const struct memfilter_cuckoo *c = &s->cuckoo;

	return mf_cuckoo_contains(c, memfilter_hash_lean(&c->p.hasher, key, len));
}

/*
 * Apply @one to each hash until one fails; @skip is the error that means
 * "nothing to do for this key" (no bit, no failure).
 */
static int mf_cuckoo_each(struct memfilter_cuckoo *c,
			  int (*one)(struct memfilter_cuckoo *c, u64 hash),
			  int skip, const u64 *hashes, u32 n,
			  unsigned long *result, u32 *done)
{
	int ret = 0;
	u32 i;

	for (i = 0; i < n; i++) {
		ret = one(c, hashes[i]);
		if (ret == skip && skip) {
			ret = 0;
			continue;
		}
		if (ret)
			break;
		memfilter_result_set(result, i);
	}
	*done = i;
	return ret;
}

static int mf_cuckoo_add_unique_batch(union memfilter_state *s, const u64 *hashes,
				      u32 n, unsigned long *result, u32 *done)
{
	return mf_cuckoo_each(&s->cuckoo, memfilter_cuckoo_add_unique_hash,
			      -EEXIST, hashes, n, result, done);
}

static int mf_cuckoo_delete_batch(union memfilter_state *s, const u64 *hashes,
				  u32 n, unsigned long *result, u32 *done)
{
	return mf_cuckoo_each(&s->cuckoo, memfilter_cuckoo_delete_hash,
			      -ENOENT, hashes, n, result, done);
}

static void mf_cuckoo_count_batch(const union memfilter_state *s,
				  const u64 *hashes, u32 n, u8 *counts)
{
	memfilter_cuckoo_count_hashes(&s->cuckoo, hashes, n, counts);
}

static void mf_cuckoo_clear_state(union memfilter_state *s)
{
	memfilter_cuckoo_clear(&s->cuckoo);
}

static void mf_cuckoo_info(const union memfilter_state *s, u64 added,
			   struct memfilter_info *info)
{
	struct memfilter_cuckoo_snapshot cs;

	memfilter_cuckoo_stats(&s->cuckoo, &cs);
	info->capacity = s->cuckoo.p.capacity;
	info->k = MEMFILTER_CUCKOO_SLOTS;
	info->fingerprint_bits = s->cuckoo.p.fp_bits;
	info->keys = cs.items;
	info->fill = cs.slots_used;
	info->fill_max = cs.slots;
	info->est_fpr_ppb = cs.est_fpr_ppb;
	info->stash_used = cs.stash_used;
}

/* Fingerprints move: the caller holds the writer lock. */
static void mf_cuckoo_image(const union memfilter_state *s, u64 added,
			    struct memfilter_image_desc *d, void *payload)
{
	struct memfilter_cuckoo_snapshot cs;

	memset(d, 0, sizeof(*d));
	d->type = MEMFILTER_TYPE_CUCKOO;
	d->params.cuckoo = s->cuckoo.p;
	d->payload_size = mf_cuckoo_payload_bytes(&d->params);
	if (!payload)
		return;
	memcpy(payload, s->cuckoo.table, d->payload_size);
	d->stash = s->cuckoo.stash;
	memfilter_cuckoo_stats(&s->cuckoo, &cs);
	d->keys = cs.items;
}

static void mf_cuckoo_image_encode(struct memfilter_image_header *h,
				   const struct memfilter_image_desc *d)
{
	h->capacity = cpu_to_le64(d->params.cuckoo.capacity);
	h->geometry = cpu_to_le64(d->params.cuckoo.nbuckets);
	h->k = cpu_to_le32(d->params.cuckoo.fp_bits);
	h->stash = cpu_to_le64(d->stash);
	if (d->params.cuckoo.layout == MEMFILTER_CUCKOO_LAYOUT_MOD)
		h->flags |= cpu_to_le32(MEMFILTER_IMAGE_CUCKOO_MOD);
}

static int mf_cuckoo_image_decode(const struct memfilter_image_header *h,
				  struct memfilter_image_desc *d)
{
	struct memfilter_cuckoo_params *p = &d->params.cuckoo;
	u64 nbuckets = le64_to_cpu(h->geometry), stash = le64_to_cpu(h->stash);
	u32 fp_bits = le32_to_cpu(h->k);
	bool mod = le32_to_cpu(h->flags) & MEMFILTER_IMAGE_CUCKOO_MOD;

	if (!mf_cuckoo_fp_bits_ok(fp_bits))
		return -EBADMSG;
	if (!nbuckets || (!mod && (nbuckets & (nbuckets - 1))) ||
	    nbuckets > div_u64(MEMFILTER_CUCKOO_MAX_BYTES, fp_bits / 2) ||
	    h->bits_per_key_q4)
		return -EBADMSG;
	if (stash && (!(stash & 0xffff) ||
		      (stash & 0xffff) > (1U << fp_bits) - 1 ||
		      (stash >> 16) >= nbuckets))
		return -EBADMSG;
	p->capacity = le64_to_cpu(h->capacity);
	p->nbuckets = nbuckets;
	p->fp_bits = fp_bits;
	p->max_kicks = MEMFILTER_CUCKOO_DEFAULT_KICKS;
	p->layout = mod ? MEMFILTER_CUCKOO_LAYOUT_MOD : MEMFILTER_CUCKOO_LAYOUT_POW2;
	if (!memfilter_cuckoo_mem_bytes(p))
		return -EBADMSG;
	d->stash = stash;
	return 0;
}

static int mf_cuckoo_restore_state(union memfilter_state *s,
				   const struct memfilter_image_desc *d)
{
	return memfilter_cuckoo_restore(&s->cuckoo, d->stash, d->keys);
}

static u64 mf_cuckoo_steps(const union memfilter_state *s)
{
	return memfilter_cuckoo_dump_chunks(&s->cuckoo);
}

/* The buckets that start in bytes [k, k + 1) * MEMFILTER_CUCKOO_DUMP_CHUNK. */
static void mf_cuckoo_clear_step(union memfilter_state *s, u64 k)
{
	const struct memfilter_cuckoo *c = &s->cuckoo;
	u64 first = DIV_ROUND_UP_ULL(k * MEMFILTER_CUCKOO_DUMP_CHUNK,
				     c->bucket_bytes);
	u64 end = DIV_ROUND_UP_ULL((k + 1) * MEMFILTER_CUCKOO_DUMP_CHUNK,
				   c->bucket_bytes);

	memfilter_cuckoo_clear_buckets(&s->cuckoo, first, end - first);
}

static void mf_cuckoo_copy_begin(union memfilter_state *s,
				 struct memfilter_table_copy *t,
				 struct memfilter_image_desc *d)
{
	mf_cuckoo_image(s, 0, d, NULL);
	memfilter_cuckoo_dump_begin(&s->cuckoo, t);
	d->stash = t->stash;
	d->keys = t->items;
}

static void mf_cuckoo_copy_step(union memfilter_state *s, u64 k)
{
	memfilter_cuckoo_dump_step(&s->cuckoo, k);
}

static void mf_cuckoo_copy_end(union memfilter_state *s)
{
	memfilter_cuckoo_dump_end(&s->cuckoo);
}

const struct memfilter_type_ops memfilter_cuckoo_ops = {
	.type = MEMFILTER_TYPE_CUCKOO,
	.name = "cuckoo",
	.locked_writers = true,
	.counts_keys = true,
	.params = mf_cuckoo_create_params,
	.hasher = mf_cuckoo_hasher,
	.params_of = mf_cuckoo_params_of,
	.mem_bytes = mf_cuckoo_mem_bytes,
	.payload_bytes = mf_cuckoo_payload_bytes,
	.init = mf_cuckoo_init_state,
	.contains = mf_cuckoo_contains_batch,
	.contains_key = mf_cuckoo_contains_key,
	.add = memfilter_cuckoo_add_batch,
	.add_unique = mf_cuckoo_add_unique_batch,
	.delete = mf_cuckoo_delete_batch,
	.count = mf_cuckoo_count_batch,
	.clear = mf_cuckoo_clear_state,
	.info = mf_cuckoo_info,
	.image = mf_cuckoo_image,
	.image_encode = mf_cuckoo_image_encode,
	.image_decode = mf_cuckoo_image_decode,
	.restore = mf_cuckoo_restore_state,
	.steps = mf_cuckoo_steps,
	.clear_step = mf_cuckoo_clear_step,
	.copy_begin = mf_cuckoo_copy_begin,
	.copy_step = mf_cuckoo_copy_step,
	.copy_end = mf_cuckoo_copy_end,
	.image_flags = MEMFILTER_IMAGE_CUCKOO_MOD,
};
EXPORT_SYMBOL_IF_KUNIT(memfilter_cuckoo_ops);
