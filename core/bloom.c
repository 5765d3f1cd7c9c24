// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * memfilter's blocked Bloom filter (layout in bloom.h): sizing from the
 * model table, concurrent insert, lockless query, and the statistics,
 * built into the module and into libmemfilter. The batch calls are in
 * bloom_batch.c, the AVX2 paths they pick at run time in bloom_avx2.c,
 * the scalar per-key operations both inline in bloom_internal.h.
 *
 * Conventions in these files:
 * - Bits are only ever set, never cleared, while a filter is shared. A
 *   query reads each word once with READ_ONCE() and takes no lock.
 * - Writers follow one of two disciplines, fixed per filter when it is
 *   made, and never mixed on one filter:
 *   - lock-free (no stripes attached: libmemfilter, offline images,
 *     growing filters' sub-filters): an insert sets each word of its
 *     pattern with one relaxed atomic OR, and skips a word whose bits a
 *     READ_ONCE() load already shows set;
 *   - stripe-locked (memfilter_bloom_attach_stripes(): the module's Bloom
 *     filters): block i belongs to stripe i % MEMFILTER_BLOOM_STRIPES, and
 *     every writer of a block holds its stripe's lock, with bottom halves
 *     disabled (process and softirq writers meet; no writer runs in hard
 *     interrupt or NMI context), around plain READ_ONCE() / WRITE_ONCE()
 *     read-modify-writes of the words missing their bit. A single key
 *     takes its lock once; a batch sorts each MEMFILTER_SIMD_CHUNK keys by
 *     stripe (memfilter_bloom_sort()) and takes each stripe's lock once,
 *     for at most MEMFILTER_BLOOM_LOCK_KEYS keys per hold. A test-and-add
 *     of one key that a lockless test finds present takes no lock. Why
 *     not mixed: a plain read-modify-write (read w, another writer's
 *     atomic OR lands, write w | a) would undo the OR's bit.
 * - No lost bits: atomic ORs are atomic; under the stripe discipline the
 *   only writers of a word are the holders of its block's stripe lock, so
 *   the read-modify-writes of one word are serialised, each reads the
 *   value the previous holder wrote (the lock's release/acquire), and
 *   ORs commute: the final word is the OR of every pattern, in any order.
 *   A lock holder may rewrite words it does not change (the AVX2 path
 *   stores half a block back) with the values it read, which no one else
 *   could change meanwhile.
 * - No false negatives: a query tests every word on its own, so only
 *   per-word coherence is needed. If an insert returned before a query
 *   started (the insert happens before the query, e.g. through the
 *   caller's syscall return and the next syscall), then for every word of
 *   the key's pattern the insert either wrote it (OR or WRITE_ONCE() of a
 *   value with the bit) or read a value with the bit set; either way that
 *   value precedes, in the word's coherence order, anything the query can
 *   read (coherence of read-after-write and read-after-read under
 *   happens-before), and every later value has the bit too (bits are only
 *   added). Every store is a whole aligned word (WRITE_ONCE(), or a
 *   32-byte aligned vector store that writes each word whole), so readers
 *   never see a torn word. So a completed insert is never missed.
 * - A clear (memfilter_filter_clear()) takes no lock: a locked writer
 *   racing it can store back bits it read before the clear zeroed its
 *   word: false positives only, which the clear's contract allows for
 *   keys added concurrently.
 * - The _exclusive inserts are for a caller that guarantees no other
 *   insert runs at the same time (a filter filled before it is published,
 *   an image built offline): the same bits, set with plain READ_ONCE() /
 *   WRITE_ONCE() read-modify-writes of whole words and no lock. Queries
 *   running meanwhile stay correct: see
 *   memfilter_bloom_add_hash_exclusive().
 * - Queries and lock-free inserts neither sleep nor allocate: any context.
 *   Locked inserts spin on a stripe lock: any context but hard interrupt
 *   and NMI.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include "bloom_internal.h"
#include "bloom_model.h"
#include "filter_type.h"
#include "image.h"

/* The model's rate of @layout at @q4 quarter bits per key and @k probes. */
static u32 mf_bloom_model_at(u32 layout, u32 q4, u32 k)
{
	if (layout == MEMFILTER_BLOOM_SPLIT32)
		return memfilter_bloom_model_split32_ppb[q4];
	return memfilter_bloom_model_ppb[q4][k - 1];
}

/**
 * memfilter_bloom_params_from_bpk() - size a filter from bits per key
 * @p: the parameters to fill in; @p->hasher is left alone
 * @capacity: how many keys the filter is for, at least 1
 * @bits_per_key_q4: bits per key times 4, MEMFILTER_BLOOM_MIN_BPK_Q4 (1 bit/key)
 *	to MEMFILTER_BLOOM_MAX_BPK_Q4 (64 bits/key)
 * @layout: MEMFILTER_BLOOM_LINE64 or MEMFILTER_BLOOM_SPLIT32
 *
 * Picks the probe count from the model table (bloom_model.h; SPLIT32
 * always sets 8 bits) and rounds the size up to whole blocks (SPLIT32: to
 * an even number of them, whole 64-byte lines).
 *
 * Context: any.
 * Return: 0; -EINVAL for a zero @capacity, @bits_per_key_q4 out of range
 * or an unknown @layout; -E2BIG if the filter would exceed
 * MEMFILTER_BLOOM_MAX_BYTES.
 */
int memfilter_bloom_params_from_bpk(struct memfilter_bloom_params *p, u64 capacity,
				    u32 bits_per_key_q4, u32 layout)
{
	u64 bits_q4, nblocks;
	unsigned int shift;

	if (!capacity || bits_per_key_q4 < MEMFILTER_BLOOM_MIN_BPK_Q4 ||
	    bits_per_key_q4 > MEMFILTER_BLOOM_MAX_BPK_Q4 ||
	    layout >= MEMFILTER_BLOOM_NLAYOUTS)
		return -EINVAL;
	if (check_mul_overflow(capacity, (u64)bits_per_key_q4, &bits_q4))
		return -E2BIG;
	/* Quarter bits per block: 2^(block shift + 5), a power of two. */
	shift = memfilter_bloom_block_shift(layout) + 5;
	nblocks = (bits_q4 >> shift) + !!(bits_q4 & (BIT_ULL(shift) - 1));
	if (layout == MEMFILTER_BLOOM_SPLIT32)
		nblocks += nblocks & 1;
	if (nblocks > memfilter_bloom_max_blocks(layout))
		return -E2BIG;
	p->capacity = capacity;
	p->nblocks = nblocks;
	p->k = layout == MEMFILTER_BLOOM_SPLIT32 ? MEMFILTER_BLOOM_SPLIT32_K :
		memfilter_bloom_model_best_k[bits_per_key_q4];
	p->bits_per_key_q4 = bits_per_key_q4;
	p->layout = layout;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_params_from_bpk);

/* The fewest quarter bits per key at which @layout's model meets @fpr_ppb, or 0. */
static u32 mf_bloom_q4_for(u64 fpr_ppb, u32 layout)
{
	u32 q4;

	for (q4 = MEMFILTER_BLOOM_MIN_BPK_Q4; q4 <= MEMFILTER_BLOOM_MAX_BPK_Q4; q4++)
		if (mf_bloom_model_at(layout, q4, memfilter_bloom_model_best_k[q4]) <=
		    fpr_ppb)
			return q4;
	return 0;
}

/**
 * memfilter_bloom_params_from_fpr() - size a filter for a false-positive rate
 * @p: the parameters to fill in; @p->hasher is left alone
 * @capacity: how many keys the filter is for, at least 1
 * @fpr_ppb: the false-positive rate wanted at @capacity keys, in parts per
 *	billion, 1 to 999999999
 * @layout: MEMFILTER_BLOOM_LINE64 or MEMFILTER_BLOOM_SPLIT32
 *
 * Takes the fewest quarter bits per key whose modelled rate for @layout
 * (bloom_model.h) is at most @fpr_ppb. At 64 bits/key LINE64 reaches
 * about 300 ppb, SPLIT32 about 1100 ppb; lower targets are refused.
 *
 * Context: any.
 * Return: 0; -EINVAL for a zero @capacity, @fpr_ppb out of range or below
 * what 64 bits/key reaches, or an unknown @layout; -E2BIG if the filter
 * would exceed MEMFILTER_BLOOM_MAX_BYTES.
 */
int memfilter_bloom_params_from_fpr(struct memfilter_bloom_params *p, u64 capacity,
				    u64 fpr_ppb, u32 layout)
{
	u32 q4;

	if (!capacity || !fpr_ppb || fpr_ppb >= 1000000000ULL ||
	    layout >= MEMFILTER_BLOOM_NLAYOUTS)
		return -EINVAL;
	q4 = mf_bloom_q4_for(fpr_ppb, layout);
	if (!q4)
		return -EINVAL;
	return memfilter_bloom_params_from_bpk(p, capacity, q4, layout);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_params_from_fpr);

/**
 * memfilter_bloom_default_layout() - the layout of a filter that names none
 * @fpr_ppb: the rate its Bloom table (each one, for a window or growing
 *	filter) is sized for, in parts per billion; 0 for a filter sized
 *	by bits per key
 *
 * SPLIT32 answers single keys faster than LINE64 at the same rate
 * (Documentation/filters.rst has the measurement), so it is the default
 * where it needs at most 8% more bits per key than LINE64 for @fpr_ppb:
 * every rate from 0.143% to 1.33% and islands from 0.0347% to 2.92% (at
 * 1% +7.5%, at 0.1% +7.9%). Elsewhere, and for bits per key (the memory
 * is then fixed, and LINE64 has the lower rate in it), LINE64.
 *
 * Context: any.
 * Return: MEMFILTER_BLOOM_SPLIT32 or MEMFILTER_BLOOM_LINE64.
 */
u32 memfilter_bloom_default_layout(u64 fpr_ppb)
{
	u32 line, split;

	if (!fpr_ppb || fpr_ppb >= 1000000000ULL)
		return MEMFILTER_BLOOM_LINE64;
	line = mf_bloom_q4_for(fpr_ppb, MEMFILTER_BLOOM_LINE64);
	split = mf_bloom_q4_for(fpr_ppb, MEMFILTER_BLOOM_SPLIT32);
	/* 27 / 25 = 1.08 */
	return line && split && split * 25 <= line * 27 ?
	       MEMFILTER_BLOOM_SPLIT32 : MEMFILTER_BLOOM_LINE64;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_default_layout);

/**
 * memfilter_bloom_bytes() - size of a filter's bit array
 * @p: its parameters
 *
 * Context: any.
 * Return: @p->nblocks times the layout's block size, a multiple of 64: the
 * bytes to allocate for &struct memfilter_bloom.words.
 */
u64 memfilter_bloom_bytes(const struct memfilter_bloom_params *p)
{
	return p->nblocks * memfilter_bloom_block_bytes(p->layout);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_bytes);

/**
 * memfilter_bloom_add_hash_scalar() - insert a key by its hash, scalar code
 * @b: the filter
 * @hash: the key's hash under @b->p.hasher
 *
 * The portable path of memfilter_bloom_add_hash(), exposed for tests.
 *
 * Context: as memfilter_bloom_add_hash().
 */
void memfilter_bloom_add_hash_scalar(struct memfilter_bloom *b, u64 hash)
{
	mf_bloom_key_op(b, hash, MF_BLOOM_SET);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_add_hash_scalar);

/**
 * memfilter_bloom_add_hash() - insert a key by its hash
 * @b: the filter
 * @hash: the key's hash under @b->p.hasher
 *
 * Context: any; safe against concurrent inserts and queries. Once it has
 * returned, every query that starts afterwards finds the key.
 */
void memfilter_bloom_add_hash(struct memfilter_bloom *b, u64 hash)
{
	if (MEMFILTER_SIMD_CHEAP && memfilter_simd_begin()) {
		memfilter_bloom_add_hash_avx2(b, hash);
		memfilter_simd_end();
		return;
	}
	memfilter_bloom_add_hash_scalar(b, hash);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_add_hash);

/**
 * memfilter_bloom_add_hash_exclusive_scalar() - insert, only writer, scalar
 * @b: the filter
 * @hash: the key's hash under @b->p.hasher
 *
 * The portable path of memfilter_bloom_add_hash_exclusive(), for tests.
 *
 * Context: as memfilter_bloom_add_hash_exclusive().
 */
void memfilter_bloom_add_hash_exclusive_scalar(struct memfilter_bloom *b, u64 hash)
{
	mf_bloom_key_op(b, hash, MF_BLOOM_SET_EXCLUSIVE);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_add_hash_exclusive_scalar);

/**
 * memfilter_bloom_add_hash_exclusive() - insert a key by its hash, only writer
 * @b: the filter
 * @hash: the key's hash under @b->p.hasher
 *
 * The same bits as memfilter_bloom_add_hash(), set with plain loads and
 * stores instead of atomic ORs: for a caller that guarantees no other
 * insert into @b runs at the same time (a filter filled before it is
 * published, an image built offline). Concurrent queries stay correct:
 * every word is read and written whole (READ_ONCE(), WRITE_ONCE()), the
 * value written is the old one with bits added, and with a single writer
 * nothing else changes the word in between; so a reader sees each word
 * either before or after the insert, never torn and never with a bit
 * cleared, and the coherence argument at the top of this file holds as
 * for the atomic OR. Two inserters at once, though, could lose each
 * other's bits: false negatives.
 *
 * Context: any; callers serialise all inserts into @b.
 */
void memfilter_bloom_add_hash_exclusive(struct memfilter_bloom *b, u64 hash)
{
	if (MEMFILTER_SIMD_CHEAP && memfilter_simd_begin()) {
		memfilter_bloom_add_hash_exclusive_avx2(b, hash);
		memfilter_simd_end();
		return;
	}
	memfilter_bloom_add_hash_exclusive_scalar(b, hash);
}

/*
 * One key's query by its hash, memfilter_bloom_contains_hash()'s: AVX2
 * where entering a SIMD section is free (userspace), else the scalar walk
 * of the window, k a constant, out of line (a tail call), so that the
 * caller saves no registers for the walk. (memfilter_bloom_contains_key()
 * tests a SPLIT32 block in place: bloom_probe.h.)
 */
static __always_inline bool mf_bloom_contains_one(const struct memfilter_bloom *b,
						  u64 hash)
{
	bool hit;

	if (MEMFILTER_SIMD_CHEAP && memfilter_simd_begin()) {
		hit = memfilter_bloom_contains_hash_avx2(b, hash);
		memfilter_simd_end();
		return hit;
	}
	return memfilter_bloom_contains_hash_scalar(b, hash);
}

/**
 * memfilter_bloom_contains_hash_scalar() - query a key by its hash, scalar
 * @b: the filter
 * @hash: the key's hash under @b->p.hasher
 *
 * The portable path of memfilter_bloom_contains_hash() and
 * memfilter_bloom_contains_key(), the kernel's for every single key;
 * exposed for tests.
 *
 * Context: as memfilter_bloom_contains_hash().
 * Return: as memfilter_bloom_contains_hash().
 */
noinline bool memfilter_bloom_contains_hash_scalar(const struct memfilter_bloom *b,
						   u64 hash)
{
	return mf_bloom_key_op(b, hash, MF_BLOOM_TEST);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_contains_hash_scalar);

/**
 * memfilter_bloom_contains_hash() - query a key by its hash
 * @b: the filter
 * @hash: the key's hash under @b->p.hasher
 *
 * In userspace on an AVX2 CPU the key's pattern is built and tested in
 * two YMM registers (MEMFILTER_SIMD_CHEAP); in the kernel the scalar walk
 * of the k-word window runs. Nothing in either depends on an earlier
 * query, so calls in a loop keep several cache misses in flight.
 *
 * Context: any; lockless, safe against concurrent inserts.
 * Return: false if the key was certainly never inserted, true if it may
 * have been.
 */
bool memfilter_bloom_contains_hash(const struct memfilter_bloom *b, u64 hash)
{
	return mf_bloom_contains_one(b, hash);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_contains_hash);

/*
 * A single-key insert whose key is not 4, 8 or 16 bytes long, or is
 * hashed with SipHash: hashed by the general code out of line, which keeps
 * the common path free of its register pressure (no callee-saved registers
 * to push). 4-, 8- and 16-byte XXH3 and XXH64 keys are hashed in the call
 * itself, straight-line (memfilter_hash_fixed()).
 */
static noinline void mf_bloom_key_general(struct memfilter_bloom *b,
					  const void *key, size_t len,
					  enum memfilter_bloom_op op)
{
	u64 h = memfilter_hash(&b->p.hasher, key, len);

	if (op == MEMFILTER_BLOOM_OP_ADD)
		memfilter_bloom_add_hash(b, h);
	else
		memfilter_bloom_add_hash_exclusive(b, h);
}

/**
 * memfilter_bloom_add_key() - insert a key
 * @b: the filter
 * @key: the key
 * @len: its length in bytes
 *
 * Context: any, as memfilter_bloom_add_hash().
 */
void memfilter_bloom_add_key(struct memfilter_bloom *b, const void *key, size_t len)
{
	u64 h;

	if (unlikely(!memfilter_hash_fixed(&b->p.hasher, key, len, &h))) {
		mf_bloom_key_general(b, key, len, MEMFILTER_BLOOM_OP_ADD);
		return;
	}
	memfilter_bloom_add_hash(b, h);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_add_key);

/*
 * memfilter_bloom_contains_key() for a key memfilter_hash_fixed() does not
 * hash: apart, so that the fast path makes no call that needs a frame (a
 * saved register and, for the AVX2 pattern, a stack aligned to 32 bytes:
 * 7 instructions a key).
 */
static noinline bool mf_bloom_contains_key_outline(const struct memfilter_bloom *b,
						   const void *key, size_t len)
{
	u64 h = memfilter_hash_outline(&b->p.hasher, key, len);

	return memfilter_bloom_contains_hash_inline(b, h);
}

/**
 * memfilter_bloom_contains_key() - query a key
 * @b: the filter
 * @key: the key
 * @len: its length in bytes
 *
 * 4-, 8- and 16-byte XXH3 and XXH64 keys are hashed straight-line
 * (memfilter_hash_fixed()) and tested in the same call, with no batch
 * machinery; a SPLIT32 block is tested in the call too
 * (memfilter_bloom_contains_key_inline(), bloom_probe.h). Nothing in it
 * depends on an earlier query, so calls in a loop keep several cache
 * misses in flight.
 *
 * Context: any, as memfilter_bloom_contains_hash().
 * Return: false if @key was certainly never inserted, true if it may have
 * been.
 */
bool memfilter_bloom_contains_key(const struct memfilter_bloom *b, const void *key,
				  size_t len)
{
	u64 h;

	if (unlikely(!memfilter_hash_fixed(&b->p.hasher, key, len, &h)))
		return mf_bloom_contains_key_outline(b, key, len);
	return memfilter_bloom_contains_hash_inline(b, h);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_contains_key);

/**
 * memfilter_bloom_add_key_exclusive() - insert a key, only writer
 * @b: the filter
 * @key: the key
 * @len: its length in bytes
 *
 * Context: any, as memfilter_bloom_add_hash_exclusive().
 */
void memfilter_bloom_add_key_exclusive(struct memfilter_bloom *b, const void *key,
				       size_t len)
{
	u64 h;

	if (unlikely(!memfilter_hash_fixed(&b->p.hasher, key, len, &h))) {
		mf_bloom_key_general(b, key, len,
				     MEMFILTER_BLOOM_OP_ADD_EXCLUSIVE);
		return;
	}
	memfilter_bloom_add_hash_exclusive(b, h);
}

/**
 * memfilter_bloom_popcount() - how many bits of a filter are set
 * @b: the filter
 *
 * Context: process context in the kernel: lockless, a snapshot under
 * concurrent inserts; takes time linear in the filter's size and yields
 * every 512 KiB.
 * Return: the number of set bits.
 */
u64 memfilter_bloom_popcount(const struct memfilter_bloom *b)
{
	u64 i, n = memfilter_bloom_nwords(&b->p), sum = 0;

	for (i = 0; i < n; i++) {
		sum += hweight64(READ_ONCE(b->words[i]));
		if (!((i + 1) & 0xffff))
			memfilter_cond_resched();
	}
	return sum;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_popcount);

/*
 * SPLIT32's estimate: per block, the product over its 8 32-bit words of
 * the fraction of their bits set, c_0 ... c_7 / 32^8 = 2^-40, summed in
 * units of 2^-28 (up to 2^35 blocks of at most 2^28 fit in 64 bits).
 */
static u64 mf_split32_est_fpr_ppb(const struct memfilter_bloom *b)
{
	u64 blk, sum = 0;
	unsigned int w;

	for (blk = 0; blk < b->p.nblocks; blk++) {
		const u64 *words = b->words + blk * MEMFILTER_BLOOM_SPLIT32_WORDS;
		u64 num = 1;

		for (w = 0; w < MEMFILTER_BLOOM_SPLIT32_WORDS; w++) {
			u64 v = READ_ONCE(words[w]);

			num *= (u64)hweight64(v & 0xffffffffULL) * hweight64(v >> 32);
		}
		sum += (num + (1ULL << 11)) >> 12;
		if (!((blk + 1) & 0x3fff))
			memfilter_cond_resched();
	}
	return (div64_u64(sum, b->p.nblocks) * 1000000000ULL + (1ULL << 27)) >> 28;
}

/**
 * memfilter_bloom_est_fpr_ppb() - false-positive rate of a filter as it is
 * @b: the filter
 *
 * The chance that a random absent key is reported present, given the bits
 * actually set: the average over blocks (and, for LINE64, window starts)
 * of the product, over the key's words, of the fraction of the word's
 * bits that are set. Fixed point throughout (2^-29 per block for LINE64,
 * 2^-28 for SPLIT32, rounded), no floating point.
 *
 * Context: process context in the kernel: lockless, a snapshot under
 * concurrent inserts; takes time linear in the filter's size and yields
 * every 512 KiB.
 * Return: the estimated rate in parts per billion.
 */
u64 memfilter_bloom_est_fpr_ppb(const struct memfilter_bloom *b)
{
	unsigned int k = b->p.k, s, i, w;
	u64 blk, sum = 0;

	if (b->p.layout == MEMFILTER_BLOOM_SPLIT32)
		return mf_split32_est_fpr_ppb(b);
	for (blk = 0; blk < b->p.nblocks; blk++) {
		const u64 *words = b->words + blk * MEMFILTER_BLOOM_BLOCK_WORDS;
		u64 c[MEMFILTER_BLOOM_BLOCK_WORDS], num = 0;

		for (w = 0; w < MEMFILTER_BLOOM_BLOCK_WORDS; w++)
			c[w] = hweight64(READ_ONCE(words[w]));
		for (s = 0; s < MEMFILTER_BLOOM_BLOCK_WORDS; s++) {
			u64 prod = 1;

			for (i = 0; i < k; i++)
				prod *= c[(s + i) & 7];
			num += prod;
		}
		/*
		 * num / (8 * 64^k) is the block's rate; 8 * 64^8 = 2^51, so
		 * the sum of up to 2^34 blocks of at most 2^29 fits.
		 */
		num <<= 6 * (MEMFILTER_BLOOM_MAX_K - k);
		sum += (num + (1ULL << 21)) >> 22;
		if (!((blk + 1) & 0x1fff))
			memfilter_cond_resched();
	}
	return (div64_u64(sum, b->p.nblocks) * 1000000000ULL + (1ULL << 28)) >> 29;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_est_fpr_ppb);

/**
 * memfilter_bloom_model_fpr_ppb() - modelled false-positive rate
 * @p: the filter's parameters
 * @nkeys: how many distinct keys it holds
 *
 * Looks up @p->k at the filter's real bits per key (its table's bits /
 * @nkeys) in its layout's model table, interpolating between quarter
 * bits; below 1/4 bit/key and above 64 bits/key the table's ends are
 * returned.
 *
 * Context: any.
 * Return: the expected rate for a random absent key, in parts per billion.
 */
u64 memfilter_bloom_model_fpr_ppb(const struct memfilter_bloom_params *p, u64 nkeys)
{
	u64 num = memfilter_bloom_bytes(p) * 4 * 8, q, rem, frac, f0, f1;
	unsigned int k = clamp(p->k, 1U, (u32)MEMFILTER_BLOOM_MAX_K);
	u32 layout = p->layout;

	if (!nkeys)
		return 0;
	while (nkeys >> 32) {
		nkeys >>= 1;
		num >>= 1;
	}
	q = div64_u64(num, nkeys);
	rem = num - q * nkeys;
	if (q < 1)
		return mf_bloom_model_at(layout, 1, k);
	if (q >= MEMFILTER_BLOOM_MODEL_Q4_MAX)
		return mf_bloom_model_at(layout, MEMFILTER_BLOOM_MODEL_Q4_MAX, k);
	f0 = mf_bloom_model_at(layout, q, k);
	f1 = mf_bloom_model_at(layout, q + 1, k);
	frac = div64_u64(rem << 16, nkeys);
	return f0 - (((f0 - f1) * frac) >> 16);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_model_fpr_ppb);

/**
 * memfilter_bloom_attach_stripes() - give a filter its writers' locks
 * @b: the filter, not yet shared
 * @mem: MEMFILTER_BLOOM_STRIPES_BYTES bytes, 64-byte aligned, that outlive
 *	@b (the module keeps them after the table, in the same allocation)
 *
 * From then on every insert into @b must be a _locked call (the type's
 * ops make them): a plain read-modify-write under a stripe lock can undo
 * another writer's atomic OR, so the two disciplines must never mix on
 * one filter. The _exclusive calls stay for a caller that is the only
 * writer.
 *
 * Context: any; does not sleep.
 */
void memfilter_bloom_attach_stripes(struct memfilter_bloom *b, void *mem)
{
	struct memfilter_bloom_stripe *st = mem;
	unsigned int t;

	for (t = 0; t < MEMFILTER_BLOOM_STRIPES; t++)
		memfilter_lock_init(&st[t].lock);
	b->stripes = st;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_attach_stripes);

/* The lock of the stripe of a hash's block. */
static __always_inline struct memfilter_lock *
mf_bloom_lock_of(const struct memfilter_bloom *b, u64 hash)
{
	return &b->stripes[memfilter_bloom_block(b, hash) %
			   MEMFILTER_BLOOM_STRIPES].lock;
}

/*
 * One key under its stripe's lock; whether it was present before. With
 * @test_first (test-and-add: deduplication, where most keys are usually
 * present), a key whose bits a lockless test already finds set takes no
 * lock and writes nothing (bits are only ever set while a filter is
 * shared), so CPUs testing the same keys share the lines instead of
 * passing a lock between them. A plain add takes the lock first: the
 * block's loads then overlap the lock's locked exchange, where a test
 * before it has to finish its miss first (measured 1.5x slower per new
 * key when the stripe locks were written, 2026-12-01, in a run that
 * bench/results/bloom.md does not hold; bloom_bench --locks times the
 * order kept, not the other).
 */
bool memfilter_bloom_one_locked(struct memfilter_bloom *b, u64 hash,
				bool test_first)
{
	struct memfilter_lock *l = mf_bloom_lock_of(b, hash);
	bool had;

	if (test_first && mf_bloom_key_op(b, hash, MF_BLOOM_TEST))
		return true;
	memfilter_bh_disable();
	memfilter_lock(l);
	had = mf_bloom_key_op(b, hash, MF_BLOOM_TEST_AND_SET_LOCKED);
	memfilter_unlock(l);
	memfilter_bh_enable();
	return had;
}

/**
 * memfilter_bloom_add_hash_locked() - insert a key, stripe-locked
 * @b: the filter, with stripes attached
 * @hash: the key's hash under @b->p.hasher
 *
 * memfilter_bloom_add_hash() for a filter with stripes attached: one lock
 * (the stripe of the key's block) around plain read-modify-writes of the
 * words missing their bit, instead of one atomic OR per such word. Once
 * it has returned, every query that starts afterwards finds the key.
 *
 * Context: any but hard interrupt or NMI; takes the stripe lock with
 * bottom halves disabled for one key.
 */
void memfilter_bloom_add_hash_locked(struct memfilter_bloom *b, u64 hash)
{
	memfilter_bloom_one_locked(b, hash, false);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_add_hash_locked);

/**
 * memfilter_bloom_test_and_add_hash() - was one key present? add it
 * @b: the filter, with or without stripes attached
 * @hash: the key's hash under @b->p.hasher
 *
 * One key of memfilter_bloom_test_and_add_hashes() (no stripes) or
 * memfilter_bloom_test_and_add_hashes_locked() (stripes), without their
 * batch machinery: the same answer and the same bits. With stripes, a key
 * whose bits a lockless test finds set takes no lock.
 *
 * Context: as the batch call for @b's writers.
 * Return: true if the key may have been present before, false if not.
 */
bool memfilter_bloom_test_and_add_hash(struct memfilter_bloom *b, u64 hash)
{
	if (b->stripes)
		return memfilter_bloom_one_locked(b, hash, true);
	return mf_bloom_key_op(b, hash, MF_BLOOM_TEST_AND_SET);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_test_and_add_hash);

/**
 * memfilter_bloom_test_and_add_key() - was a key present? add it
 * @b: the filter, with or without stripes attached
 * @key: the key
 * @len: its length in bytes
 *
 * memfilter_bloom_test_and_add_hash() of the key's hash, 4-, 8- and
 * 16-byte XXH3 and XXH64 keys hashed straight-line in the call.
 *
 * Context: as memfilter_bloom_test_and_add_hash().
 * Return: as memfilter_bloom_test_and_add_hash().
 */
bool memfilter_bloom_test_and_add_key(struct memfilter_bloom *b, const void *key,
				      size_t len)
{
	u64 h;

	if (unlikely(!memfilter_hash_fixed(&b->p.hasher, key, len, &h)))
		h = memfilter_hash_outline(&b->p.hasher, key, len);
	return memfilter_bloom_test_and_add_hash(b, h);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_test_and_add_key);

/**
 * memfilter_image_encode_layout() - a Bloom table's layout in a header
 * @h: the header a Bloom, window or growing filter's image_encode fills
 * @layout: the table's MEMFILTER_BLOOM_* layout
 *
 * Context: any.
 */
void memfilter_image_encode_layout(struct memfilter_image_header *h, u32 layout)
{
	if (layout == MEMFILTER_BLOOM_SPLIT32)
		h->flags |= cpu_to_le32(MEMFILTER_IMAGE_SPLIT32);
}

/**
 * memfilter_image_decode_shape() - read and check a Bloom table's shape
 * @h: a Bloom or window image's header
 * @p: out: its layout (from @h's flags), nblocks (@h's geometry), k and
 *	bits per key
 * @gens: tables of that shape in the payload (window generations), >= 1
 *
 * Images made before layouts have no MEMFILTER_IMAGE_SPLIT32: LINE64, as
 * they always were.
 *
 * Context: any.
 * Return: 0, or -EBADMSG for a shape the layout cannot have (no blocks,
 * more than MEMFILTER_BLOOM_MAX_BYTES in all, an odd SPLIT32 count, k
 * outside 1..8 or not 8 for SPLIT32, bits per key out of range).
 */
int memfilter_image_decode_shape(const struct memfilter_image_header *h,
				 struct memfilter_bloom_params *p, u32 gens)
{
	bool split = le32_to_cpu(h->flags) & MEMFILTER_IMAGE_SPLIT32;
	u32 layout = split ? MEMFILTER_BLOOM_SPLIT32 : MEMFILTER_BLOOM_LINE64;
	u64 nblocks = le64_to_cpu(h->geometry);

	if (!memfilter_bloom_nblocks_ok(layout, nblocks) ||
	    nblocks > div_u64(memfilter_bloom_max_blocks(layout), gens))
		return -EBADMSG;
	p->layout = layout;
	p->nblocks = nblocks;
	p->k = le32_to_cpu(h->k);
	p->bits_per_key_q4 = le32_to_cpu(h->bits_per_key_q4);
	if (!p->k || p->k > MEMFILTER_BLOOM_MAX_K ||
	    (split && p->k != MEMFILTER_BLOOM_SPLIT32_K) ||
	    p->bits_per_key_q4 < MEMFILTER_BLOOM_MIN_BPK_Q4 ||
	    p->bits_per_key_q4 > MEMFILTER_BLOOM_MAX_BPK_Q4)
		return -EBADMSG;
	return 0;
}

/* The Bloom filter's entry in the table of filter types (filter_type.h). */

static int mf_bloom_create_params(const struct memfilter_create *c,
				  union memfilter_params *p)
{
	if (c->fingerprint_bits || !c->fpr_ppb == !c->bits_per_key_q4)
		return -EINVAL;
	if (c->fpr_ppb)
		return memfilter_bloom_params_from_fpr(&p->bloom, c->capacity, c->fpr_ppb,
						       memfilter_create_layout(c, c->fpr_ppb));
	return memfilter_bloom_params_from_bpk(&p->bloom, c->capacity, c->bits_per_key_q4,
					       memfilter_create_layout(c, 0));
}

static struct memfilter_hasher *mf_bloom_hasher(union memfilter_params *p)
{
	return &p->bloom.hasher;
}

static const union memfilter_params *
mf_bloom_params_of(const union memfilter_state *s)
{
	return (const union memfilter_params *)&s->bloom.p;
}

static u64 mf_bloom_mem_bytes(const union memfilter_params *p)
{
	return memfilter_bloom_bytes(&p->bloom);
}

static void mf_bloom_init(union memfilter_state *s,
			  const union memfilter_params *p, void *mem)
{
	s->bloom.p = p->bloom;
	s->bloom.words = mem;
	s->bloom.stripes = NULL;
}

static void mf_bloom_contains(const union memfilter_state *s,
			      const u64 *hashes, u32 n, unsigned long *result)
{
	memfilter_bloom_contains_hashes(&s->bloom, hashes, n, result);
}

static bool mf_bloom_contains_key(const union memfilter_state *s,
				  const void *key, size_t len)
{
	return memfilter_bloom_contains_key(&s->bloom, key, len);
}

static void mf_bloom_all_done(u32 n, unsigned long *result, u32 *done)
{
	u32 i;

	for (i = 0; i < n; i++)
		memfilter_result_set(result, i);
	*done = n;
}

static int mf_bloom_add(union memfilter_state *s, const u64 *hashes, u32 n,
			unsigned long *result, u32 *done)
{
	if (s->bloom.stripes)
		memfilter_bloom_add_hashes_locked(&s->bloom, hashes, n);
	else
		memfilter_bloom_add_hashes(&s->bloom, hashes, n);
	mf_bloom_all_done(n, result, done);
	return 0;
}

static int mf_bloom_add_exclusive(union memfilter_state *s, const u64 *hashes,
				  u32 n, unsigned long *result, u32 *done)
{
	memfilter_bloom_add_hashes_exclusive(&s->bloom, hashes, n);
	mf_bloom_all_done(n, result, done);
	return 0;
}

static int mf_bloom_test_and_add(union memfilter_state *s, const u64 *hashes,
				 u32 n, unsigned long *result, u32 *done)
{
	if (s->bloom.stripes)
		memfilter_bloom_test_and_add_hashes_locked(&s->bloom, hashes, n,
							   result);
	else
		memfilter_bloom_test_and_add_hashes(&s->bloom, hashes, n, result);
	*done = n;
	return 0;
}

static int mf_bloom_test_and_add_key(union memfilter_state *s, const void *key,
				     u32 len)
{
	return memfilter_bloom_test_and_add_key(&s->bloom, key, len);
}

static void mf_bloom_clear(union memfilter_state *s)
{
	u64 i, n = memfilter_bloom_nwords(&s->bloom.p);

	for (i = 0; i < n; i++) {
		WRITE_ONCE(s->bloom.words[i], 0);
		if (!(i & 0xffff))
			memfilter_cond_resched();
	}
}

static void mf_bloom_info(const union memfilter_state *s, u64 added,
			  struct memfilter_info *info)
{
	const struct memfilter_bloom *b = &s->bloom;

	info->capacity = b->p.capacity;
	info->k = b->p.k;
	info->bits_per_key_q4 = b->p.bits_per_key_q4;
	info->keys = added;
	info->fill = memfilter_bloom_popcount(b);
	info->fill_max = memfilter_bloom_bytes(&b->p) * 8;
	info->est_fpr_ppb = memfilter_bloom_est_fpr_ppb(b);
	info->layout = memfilter_info_layout(b->p.layout);
}

/* Lockless: every key added before the call is in the copy. */
static void mf_bloom_image(const union memfilter_state *s, u64 added,
			   struct memfilter_image_desc *d, void *payload)
{
	u64 i, *dst = payload;

	memset(d, 0, sizeof(*d));
	d->type = MEMFILTER_TYPE_BLOOM;
	d->keys = added;
	d->params.bloom = s->bloom.p;
	d->payload_size = memfilter_bloom_bytes(&s->bloom.p);
	if (!payload)
		return;
	for (i = 0; i < d->payload_size / sizeof(u64); i++) {
		dst[i] = READ_ONCE(s->bloom.words[i]);
		if (!(i & 0xffff))
			memfilter_cond_resched();
	}
}

static void mf_bloom_image_encode(struct memfilter_image_header *h,
				  const struct memfilter_image_desc *d)
{
	h->capacity = cpu_to_le64(d->params.bloom.capacity);
	h->geometry = cpu_to_le64(d->params.bloom.nblocks);
	h->k = cpu_to_le32(d->params.bloom.k);
	h->bits_per_key_q4 = cpu_to_le32(d->params.bloom.bits_per_key_q4);
	memfilter_image_encode_layout(h, d->params.bloom.layout);
}

static int mf_bloom_image_decode(const struct memfilter_image_header *h,
				 struct memfilter_image_desc *d)
{
	struct memfilter_bloom_params *p = &d->params.bloom;

	if (h->stash)
		return -EBADMSG;
	p->capacity = le64_to_cpu(h->capacity);
	return memfilter_image_decode_shape(h, p, 1);
}

static int mf_bloom_restore(union memfilter_state *s,
			    const struct memfilter_image_desc *d)
{
	return 0;
}

static void mf_bloom_attach_locks(union memfilter_state *s, void *mem)
{
	memfilter_bloom_attach_stripes(&s->bloom, mem);
}

const struct memfilter_type_ops memfilter_bloom_ops = {
	.type = MEMFILTER_TYPE_BLOOM,
	.name = "bloom",
	.locked_writers = false,
	.counts_keys = false,
	.create_fields = MEMFILTER_FIELDS_LAYOUT,
	.params = mf_bloom_create_params,
	.hasher = mf_bloom_hasher,
	.params_of = mf_bloom_params_of,
	.mem_bytes = mf_bloom_mem_bytes,
	.payload_bytes = mf_bloom_mem_bytes,
	.init = mf_bloom_init,
	.contains = mf_bloom_contains,
	.contains_key = mf_bloom_contains_key,
	.add = mf_bloom_add,
	.add_exclusive = mf_bloom_add_exclusive,
	.test_and_add = mf_bloom_test_and_add,
	.test_and_add_key = mf_bloom_test_and_add_key,
	.clear = mf_bloom_clear,
	.info = mf_bloom_info,
	.image = mf_bloom_image,
	.image_encode = mf_bloom_image_encode,
	.image_decode = mf_bloom_image_decode,
	.restore = mf_bloom_restore,
	.lock_bytes = MEMFILTER_BLOOM_STRIPES_BYTES,
	.attach_locks = mf_bloom_attach_locks,
	.image_flags = MEMFILTER_IMAGE_SPLIT32,
};
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_ops);
