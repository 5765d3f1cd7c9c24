// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * memfilter's window filter (layout in window.h): sizing, lockless insert,
 * query and test-and-add, the pieces of a lockless rotation, and the
 * statistics, built into the module and into libmemfilter from this one
 * file.
 *
 * Conventions in this file:
 * - Within a generation the rules of bloom.c hold: an insert sets bits
 *   with relaxed atomic ORs (skipping words a READ_ONCE() shows already
 *   set), a query reads each word once with READ_ONCE() and takes no
 *   lock, and the per-word coherence argument at the top of bloom.c says
 *   why a query never misses an insert that returned before it started.
 *   The only new event is the clear of a whole generation by a rotation,
 *   and the only new shared variable is @cur.
 * - Rotation is done by one rotator at a time (the caller serialises
 *   rotations) in three steps, each a function here:
 *     1. wait until no inserter can still be writing into the oldest
 *        generation, (@cur + 1) % G (the module: an RCU grace period since
 *        the previous publish; see below);
 *     2. memfilter_window_clear_gen() on it, in chunks (WRITE_ONCE(0) of
 *        every word; the caller may reschedule between chunks);
 *     3. memfilter_window_publish(): smp_store_release() of @cur = that
 *        generation.
 * - An inserter reads @cur once per call with smp_load_acquire()
 *   (memfilter_window_current()) and sets bits only in that generation's
 *   blocks. If it reads the value a publish stored, the release/acquire
 *   pair orders every zeroing store of step 2 before its own loads and
 *   ORs, so in each word's coherence order its OR comes after the zero:
 *   no key is lost into a generation being cleared. If it read an older
 *   @cur, it writes into a generation that is not the oldest (G >= 2),
 *   and step 1 of the next rotation waits for it before that generation
 *   can be cleared: the module runs every insert inside rcu_read_lock()
 *   and takes a polled RCU cookie (get_state_synchronize_rcu()) right
 *   after each publish; step 1 is cond_synchronize_rcu() on it, which
 *   returns at once when, as usual, the period was longer than a grace
 *   period. So a generation is cleared only when no insert into it is in
 *   flight, and only G rotations after it became current.
 * - A query ignores @cur: it reads all G blocks and answers "present" if
 *   any one holds the key's whole pattern. The only generation whose bits
 *   may vanish under it is the oldest one being cleared, whose keys were
 *   added before the rotation G - 1 rotations ago: past their guarantee.
 *   Hence the guarantee: a key whose add started while generation j was
 *   current (since the rotation that published j) is found by every query
 *   until the rotation G rotations later starts to clear j, i.e. for at
 *   least G - 1 whole periods after the add started; and it is gone, up
 *   to false positives, once that clear is done.
 * - test-and-add tests all G blocks and sets the missing bits of the
 *   current one in the same pass over the key's lines. "Was present" is
 *   the answer a query would have given just before: a key whose add (or
 *   test-and-add) returned before this one started, within its guarantee,
 *   is reported present. Two test-and-adds of one new key racing each
 *   other may both report it absent (each may test before the other sets
 *   its bits); the key is present after both. Plain Bloom filters give the
 *   same contract (memfilter_bloom_test_and_add_hashes()).
 * - A window that rotates by count (MEMFILTER_WINDOW_ROTATE_BY_COUNT)
 *   holds at most its capacity of keys in a generation. The type's add
 *   and test-and-add (memfilter_window_ops) claim room in the current
 *   generation with a compare-and-exchange on its key count before they
 *   set any bit, and stop with -ENOSPC at the first key that finds none:
 *   the owner rotates and goes on with the rest. So however many adds
 *   race, no generation's count passes the capacity, and the count is
 *   exactly the keys written into it: a claim on a generation that is no
 *   longer current (its claimant read @cur before a publish) is an insert
 *   into it, and step 1 waits for it before that generation is cleared
 *   and its count reset. (The direct memfilter_window_add_hashes() and
 *   friends count without a bound: for owners that rotate by period or
 *   by hand, and tests.)
 * - Nothing here sleeps or allocates: any context. Waiting (step 1) and
 *   rescheduling between chunks are the caller's.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include "image.h"
#include "window.h"

/* Does block @blk, of @nw words, hold all of pattern @pat? */
static __always_inline bool mf_window_block_has(const u64 *blk, const u64 *pat,
						unsigned int nw)
{
	u64 miss = 0;
	unsigned int w;

	for (w = 0; w < nw; w++)
		miss |= pat[w] & ~READ_ONCE(blk[w]);
	return !miss;
}

/*
 * Test (does the block hold the key?) and set its missing bits in one pass;
 * returns whether all were set before.
 */
static __always_inline bool mf_window_block_set(u64 *blk, const u64 *pat,
						unsigned int nw)
{
	bool had = true;
	unsigned int w;

	for (w = 0; w < nw; w++) {
		if (pat[w] & ~READ_ONCE(blk[w])) {
			had = false;
			memfilter_atomic_or64(&blk[w], pat[w]);
		}
	}
	return had;
}

/*
 * @op on one key's group; returns whether it was present before. @layout
 * and @gens are constants where the caller specialises for them.
 */
static __always_inline bool mf_window_do(u64 *grp, u64 hash, u32 k, u32 gens,
					 u32 cur, u32 layout, enum memfilter_window_op op)
{
	/*
	 * Written whole by the pattern's builder first: not zeroed at every
	 * call by the kernel's -ftrivial-auto-var-init=zero.
	 */
	u64 pat[MEMFILTER_BLOOM_BLOCK_WORDS] __uninitialized;
	unsigned int nw = memfilter_bloom_block_words(layout);
	bool hit = false;
	u32 j;

	if (layout == MEMFILTER_BLOOM_SPLIT32)
		memfilter_split32_pattern(hash, pat);
	else
		memfilter_bloom_pattern(hash, k, pat);
	if (op == MEMFILTER_WINDOW_OP_ADD)
		return mf_window_block_set(grp + cur * nw, pat, nw);
	for (j = 0; j < gens; j++) {
		u64 *blk = grp + j * nw;

		if (op == MEMFILTER_WINDOW_OP_TEST_AND_ADD && j == cur)
			hit |= mf_window_block_set(blk, pat, nw);
		else if (mf_window_block_has(blk, pat, nw))
			hit = true;
		if (hit && op == MEMFILTER_WINDOW_OP_CONTAINS)
			break;
	}
	return hit;
}

/*
 * The scalar batch loop: @op on @n hashes, prefetching MEMFILTER_BLOOM_AHEAD keys
 * ahead; with a @result_bitmap, bit i says key i was present before.
 * @layout is @w's, a constant.
 */
static __always_inline void mf_window_scalar(struct memfilter_window *w,
					     const u64 *hashes, size_t n,
					     unsigned long *result_bitmap,
					     u32 cur, u32 layout, enum memfilter_window_op op)
{
	u32 k = w->p.gen.k, gens = w->p.generations;
	unsigned long acc = 0;
	size_t i;

	for (i = 0; i < MEMFILTER_BLOOM_AHEAD && i < n; i++)
		memfilter_window_prefetch(w, hashes, i, n, cur, gens, layout, op);
	for (i = 0; i < n; i++) {
		bool hit;

		memfilter_window_prefetch(w, hashes, i + MEMFILTER_BLOOM_AHEAD, n,
					  cur, gens, layout, op);
		hit = mf_window_do(memfilter_window_group_ptr_of(w, hashes[i], layout),
				   hashes[i], k, gens, cur, layout, op);
		if (!result_bitmap)
			continue;
		acc |= (unsigned long)hit << (i % BITS_PER_LONG);
		if (i % BITS_PER_LONG == BITS_PER_LONG - 1 || i == n - 1) {
			result_bitmap[i / BITS_PER_LONG] = acc;
			acc = 0;
		}
	}
}

/* mf_window_scalar() with @op (and @layout) a constant in each call. */
static __always_inline void mf_window_scalar_op(struct memfilter_window *w,
						const u64 *hashes, size_t n,
						unsigned long *result_bitmap, u32 cur,
						u32 layout, enum memfilter_window_op op)
{
	if (op == MEMFILTER_WINDOW_OP_ADD)
		mf_window_scalar(w, hashes, n, NULL, cur, layout,
				 MEMFILTER_WINDOW_OP_ADD);
	else if (op == MEMFILTER_WINDOW_OP_CONTAINS)
		mf_window_scalar(w, hashes, n, result_bitmap, cur, layout,
				 MEMFILTER_WINDOW_OP_CONTAINS);
	else
		mf_window_scalar(w, hashes, n, result_bitmap, cur, layout,
				 MEMFILTER_WINDOW_OP_TEST_AND_ADD);
}

/**
 * memfilter_window_hashes_scalar() - a batch call, scalar code
 * @w: the filter (not written for MEMFILTER_WINDOW_OP_CONTAINS)
 * @hashes: the keys' hashes
 * @n: how many
 * @result_bitmap: DIV_ROUND_UP(@n, BITS_PER_LONG) words: bit i set if key
 *	i may have been present before (NULL for MEMFILTER_WINDOW_OP_ADD)
 * @cur: the generation to insert into, from memfilter_window_current()
 * @op: what to do with each key
 *
 * The portable path of the batch calls, exposed for tests.
 *
 * Context: as the batch call @op stands for.
 */
void memfilter_window_hashes_scalar(struct memfilter_window *w, const u64 *hashes,
				    size_t n, unsigned long *result_bitmap,
				    u32 cur, enum memfilter_window_op op)
{
	if (w->p.gen.layout == MEMFILTER_BLOOM_SPLIT32)
		mf_window_scalar_op(w, hashes, n, result_bitmap, cur,
				    MEMFILTER_BLOOM_SPLIT32, op);
	else
		mf_window_scalar_op(w, hashes, n, result_bitmap, cur,
				    MEMFILTER_BLOOM_LINE64, op);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_window_hashes_scalar);

/*
 * The batch calls: sections of MEMFILTER_SIMD_CHUNK keys that use AVX2 where the
 * CPU has it and the context allows; the same answers and bits either way.
 */
static void mf_window_hashes(struct memfilter_window *w, const u64 *hashes, size_t n,
			     unsigned long *result_bitmap, u32 cur,
			     enum memfilter_window_op op)
{
	unsigned long *out = NULL;
	size_t i, m;

	for (i = 0; i < n; i += m) {
		m = min(n - i, (size_t)MEMFILTER_SIMD_CHUNK);
		if (result_bitmap)
			out = result_bitmap + i / BITS_PER_LONG;
		if (MEMFILTER_HAVE_AVX2 && memfilter_simd_begin_batch(m)) {
			memfilter_window_hashes_avx2(w, hashes + i, m, out, cur,
						     op);
			memfilter_simd_end();
		} else {
			memfilter_window_hashes_scalar(w, hashes + i, m, out,
						       cur, op);
		}
	}
}

/**
 * memfilter_window_params_init() - size a window filter
 * @p: the parameters to fill in; @p->gen.hasher is left alone
 * @capacity: keys per generation (per rotation period), at least 1
 * @generations: G, MEMFILTER_WINDOW_MIN_GENS..MEMFILTER_WINDOW_MAX_GENS
 * @fpr_ppb: the false-positive rate wanted with every generation full, in
 *	parts per billion; each generation is sized for @fpr_ppb / G
 * @bits_per_key_q4: or: bits per key of each generation, times 4
 * @layout: the generations' Bloom layout, MEMFILTER_BLOOM_LINE64 or
 *	MEMFILTER_BLOOM_SPLIT32
 *
 * Exactly one of @fpr_ppb and @bits_per_key_q4 is non-zero. With all G
 * generations at @capacity keys, the rate is 1 - (1 - f)^G <= G * f for a
 * generation's rate f, so sizing each for @fpr_ppb / G meets @fpr_ppb.
 *
 * Context: any.
 * Return: 0; -EINVAL for inconsistent or out-of-range values; -E2BIG if the
 * filter would exceed MEMFILTER_BLOOM_MAX_BYTES.
 */
int memfilter_window_params_init(struct memfilter_window_params *p, u64 capacity,
				 u32 generations, u64 fpr_ppb,
				 u32 bits_per_key_q4, u32 layout)
{
	int ret;

	if (generations < MEMFILTER_WINDOW_MIN_GENS ||
	    generations > MEMFILTER_WINDOW_MAX_GENS || !fpr_ppb == !bits_per_key_q4 ||
	    fpr_ppb >= 1000000000ULL)
		return -EINVAL;
	if (fpr_ppb)
		ret = memfilter_bloom_params_from_fpr(&p->gen, capacity,
						      div_u64(fpr_ppb, generations), layout);
	else
		ret = memfilter_bloom_params_from_bpk(&p->gen, capacity,
						      bits_per_key_q4, layout);
	if (ret)
		return ret;
	if (p->gen.nblocks > div_u64(memfilter_bloom_max_blocks(layout), generations))
		return -E2BIG;
	p->generations = generations;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_window_params_init);

/**
 * memfilter_window_bytes() - size of a window filter's table
 * @p: its parameters
 *
 * Context: any.
 * Return: the bytes to allocate for &struct memfilter_window.words.
 */
u64 memfilter_window_bytes(const struct memfilter_window_params *p)
{
	return memfilter_bloom_bytes(&p->gen) * p->generations;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_window_bytes);

/**
 * memfilter_window_init() - set up a window filter over its table
 * @w: the filter
 * @p: its parameters
 * @words: memfilter_window_bytes() of zeroed, 64-byte aligned memory
 * @now: the time, in the caller's clock: generation 0 is current from now
 *
 * Context: any; before the filter is shared.
 */
void memfilter_window_init(struct memfilter_window *w,
			   const struct memfilter_window_params *p, u64 *words,
			   u64 now)
{
	u32 j;

	w->p = *p;
	w->words = words;
	w->cur = 0;
	for (j = 0; j < MEMFILTER_WINDOW_MAX_GENS; j++) {
		w->born[j] = now;
		w->gen_keys[j] = 0;
	}
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_window_init);

/**
 * memfilter_window_current() - the generation inserts go to
 * @w: the filter
 *
 * Context: any. An acquire load, paired with memfilter_window_publish():
 * an inserter that reads a newly published generation sees it cleared.
 * Return: the current generation, 0..G-1.
 */
u32 memfilter_window_current(const struct memfilter_window *w)
{
	/* Pairs with memfilter_window_publish(): see the clear first. */
	return smp_load_acquire(&w->cur);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_window_current);

/*
 * Claim room for up to @n keys in generation @gen: all @n unless @w
 * rotates by count, then what is left of the capacity (top of this file).
 * Return: how many keys the caller may now write into @gen.
 */
static u32 mf_window_claim(struct memfilter_window *w, u32 gen, u32 n)
{
	u64 cap = w->p.gen.capacity, k, take;

	if (!(w->p.flags & MEMFILTER_WINDOW_ROTATE_BY_COUNT)) {
		memfilter_atomic_add64(&w->gen_keys[gen], n);
		return n;
	}
	k = READ_ONCE(w->gen_keys[gen]);
	do {
		if (k >= cap)
			return 0;
		take = min((u64)n, cap - k);
	} while (!memfilter_atomic_try_cmpxchg64(&w->gen_keys[gen], &k,
						 k + take));
	return take;
}

/**
 * memfilter_window_add_hashes() - insert many keys by their hashes
 * @w: the filter
 * @hashes: the keys' hashes under @w->p.gen.hasher
 * @n: how many
 *
 * Reads the current generation once and inserts every key into it, and
 * counts them, even past the capacity of a window that rotates by count
 * (the type's add stops there instead: memfilter_window_ops).
 *
 * Context: any; safe against concurrent inserts, queries and rotations,
 * provided the rotator waits for this call as the top of this file says
 * (the module: call it inside rcu_read_lock()).
 * Return: the generation the keys went into, for the caller's counters.
 */
u32 memfilter_window_add_hashes(struct memfilter_window *w, const u64 *hashes,
				size_t n)
{
	u32 cur = memfilter_window_current(w);

	mf_window_hashes(w, hashes, n, NULL, cur, MEMFILTER_WINDOW_OP_ADD);
	memfilter_atomic_add64(&w->gen_keys[cur], n);
	return cur;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_window_add_hashes);

/**
 * memfilter_window_contains_hashes() - query many keys by their hashes
 * @w: the filter
 * @hashes: the keys' hashes under @w->p.gen.hasher
 * @n: how many
 * @result_bitmap: DIV_ROUND_UP(@n, BITS_PER_LONG) words; bit i is set if
 *	key i may be present in some generation, cleared if not; bits past @n
 *	are cleared
 *
 * Context: any; lockless, safe against concurrent inserts and rotations.
 */
void memfilter_window_contains_hashes(const struct memfilter_window *w,
				      const u64 *hashes, size_t n,
				      unsigned long *result_bitmap)
{
	/* Not written through: MEMFILTER_WINDOW_OP_CONTAINS only reads the filter. */
	mf_window_hashes((struct memfilter_window *)w, hashes, n, result_bitmap, 0,
			 MEMFILTER_WINDOW_OP_CONTAINS);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_window_contains_hashes);

/**
 * memfilter_window_test_and_add_hashes() - was each key present? add it
 * @w: the filter
 * @hashes: the keys' hashes under @w->p.gen.hasher
 * @n: how many
 * @result_bitmap: DIV_ROUND_UP(@n, BITS_PER_LONG) words; bit i is set if
 *	key i may have been present (in any generation) before its add
 *
 * For each key in order: the answer of a query, then an insert into the
 * current generation, in one pass over the key's G lines. A key that
 * appears twice in @hashes is reported present the second time.
 *
 * Context: as memfilter_window_add_hashes(); the concurrency contract is
 * at the top of this file.
 * Return: the generation the keys went into.
 */
u32 memfilter_window_test_and_add_hashes(struct memfilter_window *w,
					 const u64 *hashes, size_t n,
					 unsigned long *result_bitmap)
{
	u32 cur = memfilter_window_current(w);

	memfilter_atomic_add64(&w->gen_keys[cur], n);
	mf_window_hashes(w, hashes, n, result_bitmap, cur,
			 MEMFILTER_WINDOW_OP_TEST_AND_ADD);
	return cur;
}

/**
 * memfilter_window_add_key() - insert a key
 * @w: the filter
 * @key: the key
 * @len: its length in bytes
 *
 * Context: as memfilter_window_add_hashes().
 * Return: the generation the key went into.
 */
u32 memfilter_window_add_key(struct memfilter_window *w, const void *key, size_t len)
{
	u64 h = memfilter_hash(&w->p.gen.hasher, key, len);

	return memfilter_window_add_hashes(w, &h, 1);
}

/*
 * One key's query or test-and-add, the single-key path: the loads of all
 * G lines of the key's group are issued first (adjacent lines; out of
 * cache their misses overlap instead of following each other), then the
 * pattern is built once and tested against each, as the batch calls do
 * (AVX2 where entering a SIMD section is free, userspace): the same
 * answers and bits as a batch of one.
 */
static __always_inline bool mf_window_one_of(struct memfilter_window *w, u64 h,
					     u32 cur, u32 layout,
					     enum memfilter_window_op op)
{
	u64 *grp = memfilter_window_group_ptr_of(w, h, layout);
	u32 gens = w->p.generations;
	bool hit;

	if (gens == 4)	/* the common case: its prefetches, no loop */
		memfilter_window_prefetch_group(grp, 4, layout);
	else
		memfilter_window_prefetch_group(grp, gens, layout);
	if (MEMFILTER_SIMD_CHEAP && memfilter_simd_begin()) {
		hit = memfilter_window_one_avx2(w, grp, h, cur, op);
		memfilter_simd_end();
		return hit;
	}
	if (gens == 4)	/* the common case, unrolled */
		return mf_window_do(grp, h, w->p.gen.k, 4, cur, layout, op);
	return mf_window_do(grp, h, w->p.gen.k, gens, cur, layout, op);
}

/* mf_window_one_of() with @w's layout a constant. */
static __always_inline bool mf_window_one(struct memfilter_window *w, u64 h,
					  u32 cur, enum memfilter_window_op op)
{
	if (w->p.gen.layout == MEMFILTER_BLOOM_SPLIT32)
		return mf_window_one_of(w, h, cur, MEMFILTER_BLOOM_SPLIT32, op);
	return mf_window_one_of(w, h, cur, MEMFILTER_BLOOM_LINE64, op);
}

/**
 * memfilter_window_contains_key() - query a key
 * @w: the filter
 * @key: the key
 * @len: its length in bytes
 *
 * The single-key path (memfilter_window_ops' contains_key): the key hashed
 * inline, the loads of its G lines issued before any is tested, the
 * pattern built once; no batch machinery.
 *
 * Context: as memfilter_window_contains_hashes().
 * Return: false if @key is certainly in no generation, true if it may be.
 */
bool memfilter_window_contains_key(const struct memfilter_window *w, const void *key,
				   size_t len)
{
	/* Not written through: MEMFILTER_WINDOW_OP_CONTAINS only reads. */
	return mf_window_one((struct memfilter_window *)w,
			     memfilter_hash_lean(&w->p.gen.hasher, key, len), 0,
			     MEMFILTER_WINDOW_OP_CONTAINS);
}

/**
 * memfilter_window_test_and_add_key() - was a key present? add it
 * @w: the filter
 * @key: the key
 * @len: its length in bytes
 * @gen: out: the generation the key went into
 *
 * Counts the key without a bound, as memfilter_window_test_and_add_hashes()
 * does (the type's test_and_add_key stops at the capacity of a window that
 * rotates by count).
 *
 * Context: as memfilter_window_test_and_add_hashes().
 * Return: true if the key may have been present before, false if it was
 * certainly absent.
 */
bool memfilter_window_test_and_add_key(struct memfilter_window *w, const void *key,
				       size_t len, u32 *gen)
{
	u64 h = memfilter_hash_lean(&w->p.gen.hasher, key, len);

	*gen = memfilter_window_current(w);
	memfilter_atomic_add64(&w->gen_keys[*gen], 1);
	return mf_window_one(w, h, *gen, MEMFILTER_WINDOW_OP_TEST_AND_ADD);
}

/**
 * memfilter_window_oldest() - the generation the next rotation clears
 * @w: the filter
 *
 * Context: the rotator (rotations are serialised by the caller).
 * Return: (current + 1) % G.
 */
u32 memfilter_window_oldest(const struct memfilter_window *w)
{
	return (READ_ONCE(w->cur) + 1) % w->p.generations;
}

/**
 * memfilter_window_clear_gen() - clear part of a generation
 * @w: the filter
 * @gen: the generation, never the current one
 * @first: the first group to clear
 * @n: how many groups, from @first (clamped to the table)
 *
 * Step 2 of a rotation (top of this file): callers clear the oldest
 * generation in chunks of MEMFILTER_WINDOW_CLEAR_CHUNK groups and may reschedule
 * in between. Queries meanwhile may find some of its keys and not others.
 *
 * Context: any; only when no insert into @gen can be in flight.
 */
void memfilter_window_clear_gen(struct memfilter_window *w, u32 gen, u64 first,
				u64 n)
{
	u64 g, end = min(first + n, w->p.gen.nblocks);
	u32 i, nw = memfilter_bloom_block_words(w->p.gen.layout);

	for (g = first; g < end; g++) {
		u64 *blk = w->words + (g * w->p.generations + gen) * nw;

		for (i = 0; i < nw; i++)
			WRITE_ONCE(blk[i], 0);
	}
}

/**
 * memfilter_window_publish() - make a cleared generation current
 * @w: the filter
 * @gen: the generation, just cleared by memfilter_window_clear_gen()
 * @now: the time, in the caller's clock, recorded as @gen's birth
 *
 * Step 3 of a rotation: a release store, so that an inserter that reads
 * @gen as current (memfilter_window_current()) sees every clearing store.
 *
 * Context: the rotator.
 */
void memfilter_window_publish(struct memfilter_window *w, u32 gen, u64 now)
{
	WRITE_ONCE(w->born[gen], now);
	WRITE_ONCE(w->gen_keys[gen], 0);
	/* Orders the clear before @gen is seen current: see the top. */
	smp_store_release(&w->cur, gen);
}

/**
 * memfilter_window_rotate_exclusive() - a whole rotation, no waiting
 * @w: the filter
 * @now: the time, in the caller's clock
 *
 * Clears the oldest generation at once and makes it current, for callers
 * with no insert in flight (offline filters, single-threaded tests) or
 * that have already waited (step 1 at the top of this file).
 *
 * Context: any; takes time linear in a generation's size.
 */
void memfilter_window_rotate_exclusive(struct memfilter_window *w, u64 now)
{
	u32 gen = memfilter_window_oldest(w);

	memfilter_window_clear_gen(w, gen, 0, w->p.gen.nblocks);
	memfilter_window_publish(w, gen, now);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_window_rotate_exclusive);

/**
 * memfilter_window_gen_popcount() - bits set in one generation
 * @w: the filter
 * @gen: the generation
 *
 * Context: process context in the kernel: lockless, a snapshot; takes
 * time linear in the generation's size and yields every 8192 blocks
 * (512 KiB of the generation), as memfilter_bloom_popcount() does.
 * Return: the number of set bits.
 */
u64 memfilter_window_gen_popcount(const struct memfilter_window *w, u32 gen)
{
	u32 i, nw = memfilter_bloom_block_words(w->p.gen.layout);
	u64 g, sum = 0;

	for (g = 0; g < w->p.gen.nblocks; g++) {
		const u64 *blk = w->words + (g * w->p.generations + gen) * nw;

		for (i = 0; i < nw; i++)
			sum += hweight64(READ_ONCE(blk[i]));
		if (!((g + 1) & 0x1fff))
			memfilter_cond_resched();
	}
	return sum;
}

/**
 * memfilter_window_model_fpr_ppb() - modelled false-positive rate
 * @p: the filter's parameters
 * @gen_keys: distinct keys in each of the @p->generations generations
 *
 * An absent key is a false positive if any generation reports it, each
 * independently at the model rate of a Bloom filter of the generation's
 * shape and fill (memfilter_bloom_model_fpr_ppb()): 1 - prod(1 - f_j).
 *
 * Context: any.
 * Return: the expected rate for a random absent key, in parts per billion.
 */
u64 memfilter_window_model_fpr_ppb(const struct memfilter_window_params *p,
				   const u64 *gen_keys)
{
	const u64 one = 1000000000ULL;
	u64 miss = one;
	u32 j;

	for (j = 0; j < p->generations; j++) {
		u64 f = memfilter_bloom_model_fpr_ppb(&p->gen, gen_keys[j]);

		miss = div64_u64(miss * (one - f) + one / 2, one);
	}
	return one - miss;
}

/**
 * memfilter_window_gen_info() - each generation's age, keys and fill
 * @w: the filter
 * @now: the time, in @w's clock
 * @g: out: @w->p.generations entries
 *
 * Context: process context in the kernel (the popcounts yield); lockless,
 * a snapshot. Takes time linear in the table.
 */
void memfilter_window_gen_info(const struct memfilter_window *w, u64 now,
			       struct memfilter_generation *g)
{
	u32 j;

	for (j = 0; j < w->p.generations; j++) {
		/* Modulo 2^64: a loaded generation may predate the clock. */
		g[j].age_ms = now - READ_ONCE(w->born[j]);
		g[j].keys = READ_ONCE(w->gen_keys[j]);
		g[j].fill = memfilter_window_gen_popcount(w, j);
	}
}

/*
 * The window filter's entry in the table of filter types (filter_type.h).
 * Its table memory is the image's state section (struct
 * memfilter_image_window, MEMFILTER_IMAGE_WINDOW_SIZE bytes) followed by
 * the generations, so that an image's payload loads into it in one copy;
 * the section is only read and written by image() and restore().
 */

static int mf_window_params(const struct memfilter_create *c,
			    union memfilter_params *p)
{
	int ret;

	if (c->fingerprint_bits)
		return -EINVAL;
	if (c->window_flags & ~MEMFILTER_WINDOW_FLAGS)
		return -EOPNOTSUPP;
	/* Each generation is sized for fpr_ppb / G (params_init checks G). */
	ret = memfilter_window_params_init(&p->window, c->capacity,
					   c->generations, c->fpr_ppb,
					   c->bits_per_key_q4,
					   memfilter_create_layout(c, c->generations ?
						div_u64(c->fpr_ppb, c->generations) : 0));
	p->window.flags = c->window_flags;
	p->window.period_ms = c->period_ms;
	return ret;
}

static struct memfilter_hasher *mf_window_hasher(union memfilter_params *p)
{
	return &p->window.gen.hasher;
}

static const union memfilter_params *
mf_window_params_of(const union memfilter_state *s)
{
	return (const union memfilter_params *)&s->window.p;
}

static u64 mf_window_mem_bytes(const union memfilter_params *p)
{
	return MEMFILTER_IMAGE_WINDOW_SIZE + memfilter_window_bytes(&p->window);
}

static void mf_window_init(union memfilter_state *s,
			   const union memfilter_params *p, void *mem)
{
	memfilter_window_init(&s->window, &p->window,
			      (u64 *)((u8 *)mem + MEMFILTER_IMAGE_WINDOW_SIZE),
			      memfilter_now_ms());
}

static void mf_window_contains(const union memfilter_state *s,
			       const u64 *hashes, u32 n, unsigned long *result)
{
	memfilter_window_contains_hashes(&s->window, hashes, n, result);
}

/*
 * The type's add and test-and-add: the keys that fit in the current
 * generation (all, unless the window rotates by count and it fills up),
 * then -ENOSPC if some did not: the owner rotates and retries the rest.
 */
static int mf_window_write(union memfilter_state *s, const u64 *hashes,
			   u32 n, unsigned long *result, u32 *done,
			   enum memfilter_window_op op)
{
	struct memfilter_window *w = &s->window;
	u32 cur = memfilter_window_current(w);
	u32 m = mf_window_claim(w, cur, n), i;

	if (op == MEMFILTER_WINDOW_OP_ADD) {
		mf_window_hashes(w, hashes, m, NULL, cur, op);
		for (i = 0; i < m; i++)
			memfilter_result_set(result, i);
	} else {
		mf_window_hashes(w, hashes, m, result, cur, op);
	}
	*done = m;
	return m < n ? -ENOSPC : 0;
}

/**
 * memfilter_window_state_test_and_add_key() - the type's test_and_add_key
 * @s: a window filter
 * @key: the key
 * @len: its length in bytes
 *
 * A batch of one (mf_window_write()), in one pass over the key's G lines:
 * test all, set in the current one. Called directly by
 * memfilter_state_test_and_add_key().
 *
 * Context: as memfilter_window_test_and_add_hashes().
 * Return: 1 if the key may have been present, 0 if not (it is now),
 * -ENOSPC if a window that rotates by count has no room left.
 */
int memfilter_window_state_test_and_add_key(union memfilter_state *s,
					    const void *key, u32 len)
{
	struct memfilter_window *w = &s->window;
	u64 h = memfilter_hash_lean(&w->p.gen.hasher, key, len);
	u32 cur = memfilter_window_current(w);

	if (!mf_window_claim(w, cur, 1))
		return -ENOSPC;
	return mf_window_one(w, h, cur, MEMFILTER_WINDOW_OP_TEST_AND_ADD);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_window_state_test_and_add_key);

static bool mf_window_contains_key(const union memfilter_state *s,
				   const void *key, size_t len)
{
	return memfilter_window_contains_key(&s->window, key, len);
}

static int mf_window_add(union memfilter_state *s, const u64 *hashes, u32 n,
			 unsigned long *result, u32 *done)
{
	return mf_window_write(s, hashes, n, result, done,
			       MEMFILTER_WINDOW_OP_ADD);
}

static int mf_window_test_and_add(union memfilter_state *s, const u64 *hashes,
				  u32 n, unsigned long *result, u32 *done)
{
	return mf_window_write(s, hashes, n, result, done,
			       MEMFILTER_WINDOW_OP_TEST_AND_ADD);
}

static void mf_window_clear(union memfilter_state *s)
{
	struct memfilter_window *w = &s->window;
	u64 g;
	u32 j;

	for (j = 0; j < w->p.generations; j++) {
		for (g = 0; g < w->p.gen.nblocks;
		     g += MEMFILTER_WINDOW_CLEAR_CHUNK) {
			memfilter_window_clear_gen(w, j, g,
						   MEMFILTER_WINDOW_CLEAR_CHUNK);
			memfilter_cond_resched();
		}
		WRITE_ONCE(w->gen_keys[j], 0);
	}
}

/* The keys of every generation and of the current one. */
static u64 mf_window_keys(const struct memfilter_window *w, u64 *cur_keys)
{
	u64 sum = 0, keys;
	u32 j, cur = memfilter_window_current(w);

	for (j = 0; j < w->p.generations; j++) {
		keys = READ_ONCE(w->gen_keys[j]);
		sum += keys;
		if (j == cur)
			*cur_keys = keys;
	}
	return sum;
}

static void mf_window_info(const union memfilter_state *s, u64 added,
			   struct memfilter_info *info)
{
	const struct memfilter_window *w = &s->window;
	u64 keys[MEMFILTER_WINDOW_MAX_GENS], fill = 0, cur_keys = 0;
	u32 j;

	info->capacity = w->p.gen.capacity;
	info->k = w->p.gen.k;
	info->bits_per_key_q4 = w->p.gen.bits_per_key_q4;
	info->layout = memfilter_info_layout(w->p.gen.layout);
	info->fill_max = memfilter_window_bytes(&w->p) * 8;
	info->generations = w->p.generations;
	info->current_gen = memfilter_window_current(w);
	info->period_ms = w->p.period_ms;
	info->window_flags = w->p.flags;
	info->keys = mf_window_keys(w, &cur_keys);
	for (j = 0; j < w->p.generations; j++) {
		keys[j] = READ_ONCE(w->gen_keys[j]);
		fill += memfilter_window_gen_popcount(w, j);
	}
	info->fill = fill;
	info->est_fpr_ppb = memfilter_window_model_fpr_ppb(&w->p, keys);
	if (cur_keys > w->p.gen.capacity)
		info->status |= MEMFILTER_STATUS_OVERFILL;
}

/*
 * The description and, with a @payload, the state section and a word by
 * word copy of the table: every key added before the call is in it. The
 * owner keeps rotations out meanwhile, so the section and the table agree.
 */
static void mf_window_image(const union memfilter_state *s, u64 added,
			    struct memfilter_image_desc *d, void *payload)
{
	const struct memfilter_window *w = &s->window;
	struct memfilter_image_window *sec = payload;
	u64 i, cur_keys, now = memfilter_now_ms(), *dst;
	u32 j;

	memset(d, 0, sizeof(*d));
	d->type = MEMFILTER_TYPE_WINDOW;
	d->keys = mf_window_keys(w, &cur_keys);
	d->params.window = w->p;
	d->payload_size = mf_window_mem_bytes(&d->params);
	if (!payload)
		return;
	BUILD_BUG_ON(sizeof(*sec) != MEMFILTER_IMAGE_WINDOW_SIZE);
	memset(sec, 0, sizeof(*sec));
	sec->generations = cpu_to_le32(w->p.generations);
	sec->current_gen = cpu_to_le32(memfilter_window_current(w));
	sec->flags = cpu_to_le32(w->p.flags);
	sec->period_ms = cpu_to_le64(w->p.period_ms);
	for (j = 0; j < w->p.generations; j++) {
		sec->age_ms[j] = cpu_to_le64(now - READ_ONCE(w->born[j]));
		sec->keys[j] = cpu_to_le64(READ_ONCE(w->gen_keys[j]));
	}
	dst = (u64 *)(sec + 1);
	for (i = 0; i < memfilter_window_bytes(&w->p) / sizeof(u64); i++) {
		dst[i] = READ_ONCE(w->words[i]);
		if (!(i & 0xffff))
			memfilter_cond_resched();
	}
}

static void mf_window_image_encode(struct memfilter_image_header *h,
				   const struct memfilter_image_desc *d)
{
	const struct memfilter_window_params *p = &d->params.window;

	h->capacity = cpu_to_le64(p->gen.capacity);
	h->geometry = cpu_to_le64(p->gen.nblocks);
	h->k = cpu_to_le32(p->gen.k);
	h->bits_per_key_q4 = cpu_to_le32(p->gen.bits_per_key_q4);
	h->stash = cpu_to_le64(p->generations);
	memfilter_image_encode_layout(h, p->gen.layout);
}

static int mf_window_image_decode(const struct memfilter_image_header *h,
				  struct memfilter_image_desc *d)
{
	struct memfilter_window_params *p = &d->params.window;
	u64 gens = le64_to_cpu(h->stash);

	if (gens < MEMFILTER_WINDOW_MIN_GENS || gens > MEMFILTER_WINDOW_MAX_GENS)
		return -EBADMSG;
	p->generations = gens;
	p->gen.capacity = le64_to_cpu(h->capacity);
	return memfilter_image_decode_shape(h, &p->gen, gens);
}

/*
 * Check the state section that came with the table and restore from it:
 * the current generation, each generation's age (relative to now) and key
 * count, the period and flags.
 */
static int mf_window_restore(union memfilter_state *s,
			     const struct memfilter_image_desc *d)
{
	struct memfilter_window *w = &s->window;
	const struct memfilter_image_window *sec =
		(const void *)((u8 *)w->words - MEMFILTER_IMAGE_WINDOW_SIZE);
	u32 j, gens = w->p.generations, cur = le32_to_cpu(sec->current_gen);
	u64 keys = 0, now = memfilter_now_ms();

	if (le32_to_cpu(sec->generations) != gens || cur >= gens ||
	    sec->__reserved0 ||
	    memchr_inv(sec->__reserved, 0, sizeof(sec->__reserved)))
		return -EBADMSG;
	for (j = gens; j < MEMFILTER_WINDOW_MAX_GENS; j++)
		if (sec->age_ms[j] || sec->keys[j])
			return -EBADMSG;
	if (le32_to_cpu(sec->flags) & ~MEMFILTER_WINDOW_FLAGS)
		return -EOPNOTSUPP;
	for (j = 0; j < gens; j++) {
		keys += le64_to_cpu(sec->keys[j]);
		/* Modulo 2^64, as memfilter_window_gen_info() reads it. */
		w->born[j] = now - le64_to_cpu(sec->age_ms[j]);
		w->gen_keys[j] = le64_to_cpu(sec->keys[j]);
	}
	if (keys != d->keys)
		return -EBADMSG;
	w->p.flags = le32_to_cpu(sec->flags);
	w->p.period_ms = le64_to_cpu(sec->period_ms);
	smp_store_release(&w->cur, cur);	/* not shared yet: plain order */
	return 0;
}

const struct memfilter_type_ops memfilter_window_ops = {
	.type = MEMFILTER_TYPE_WINDOW,
	.name = "window",
	.locked_writers = false,
	.counts_keys = true,
	.create_fields = MEMFILTER_FIELDS_LAYOUT | MEMFILTER_FIELDS_WINDOW,
	.params = mf_window_params,
	.hasher = mf_window_hasher,
	.params_of = mf_window_params_of,
	.mem_bytes = mf_window_mem_bytes,
	.payload_bytes = mf_window_mem_bytes,
	.init = mf_window_init,
	.contains = mf_window_contains,
	.contains_key = mf_window_contains_key,
	.add = mf_window_add,
	.test_and_add = mf_window_test_and_add,
	.test_and_add_key = memfilter_window_state_test_and_add_key,
	.clear = mf_window_clear,
	.info = mf_window_info,
	.image = mf_window_image,
	.image_encode = mf_window_image_encode,
	.image_decode = mf_window_image_decode,
	.restore = mf_window_restore,
	.image_flags = MEMFILTER_IMAGE_SPLIT32,
};
EXPORT_SYMBOL_IF_KUNIT(memfilter_window_ops);
