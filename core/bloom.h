/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * memfilter's blocked Bloom filter: its two layouts, their sizing from
 * the offline model tables (bloom_model.h), and the insert and query entry
 * points shared by the module and userspace.
 *
 * Layouts, fixed per filter (struct memfilter_bloom_params.layout). A
 * key's 64-bit hash h picks its block by multiply-shift range reduction,
 * ((u128)h * nblocks) >> 64, so any block count works, and its bits from
 * the low 32 bits x, one multiply per word by an odd salt.
 *
 * - MEMFILTER_BLOOM_LINE64: nblocks 64-byte blocks of 8 x 64-bit words.
 *   x picks a window of k consecutive words (mod 8) starting at word
 *   (x * 0x9e3779b9) >> 29, and in each word w of the window one bit,
 *   (x * memfilter_bloom_salt[w]) >> 26. Every probe is in a different
 *   word, so a key always sets exactly k distinct bits, whatever its hash
 *   (even 0): no degenerate probes by construction. All probes of a key
 *   are in one cache line, and the whole 512-bit pattern is two AVX2
 *   registers.
 * - MEMFILTER_BLOOM_SPLIT32: nblocks 32-byte blocks of 8 x 32-bit words,
 *   the split-block layout of Impala, Kudu, Parquet's SBBF and
 *   fastfilter_cpp's SimdBlockFilter: one bit in every word, bit
 *   (x * salt[i]) >> 27 of word i (the same salts), so k is always 8 and
 *   the pattern is one AVX2 register. Word i is the low (i even) or high
 *   (i odd) half of the block's little-endian 64-bit word i / 2, which is
 *   how the scalar code holds it: bit for bit the same table on x86. A
 *   little worse FPR per bit than LINE64 (7.5% more memory at 1%),
 *   one vector operation per key. nblocks is even, so that tables stay
 *   whole 64-byte lines.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_BLOOM_H
#define _MEMFILTER_BLOOM_H

#include "compat.h"
#include "hash.h"

/* Layouts (struct memfilter_bloom_params.layout): 0, a zeroed one, is LINE64. */
#define MEMFILTER_BLOOM_LINE64		0
#define MEMFILTER_BLOOM_SPLIT32		1
#define MEMFILTER_BLOOM_NLAYOUTS	2
/*
 * The layout of a new filter whose request names none is
 * memfilter_bloom_default_layout()'s for its rate: SPLIT32 at 1% and 0.1%.
 */

/* LINE64's block; every table is 64-byte aligned and whole 64-byte lines. */
#define MEMFILTER_BLOOM_BLOCK_BYTES	64
#define MEMFILTER_BLOOM_BLOCK_WORDS	8
#define MEMFILTER_BLOOM_BLOCK_BITS	512
/* SPLIT32's block: 8 x 32 bits, held as 4 x 64. */
#define MEMFILTER_BLOOM_SPLIT32_BYTES	32
#define MEMFILTER_BLOOM_SPLIT32_WORDS	4
#define MEMFILTER_BLOOM_SPLIT32_BITS	256
#define MEMFILTER_BLOOM_SPLIT32_K	8
/* Largest filter the sizing functions accept: 1 TiB. */
#define MEMFILTER_BLOOM_MAX_BYTES	BIT_ULL(40)
/* Most probes per key: one per word of a block. */
#define MEMFILTER_BLOOM_MAX_K		8
/* Bits per key accepted by memfilter_bloom_params_from_bpk(), x 4. */
#define MEMFILTER_BLOOM_MIN_BPK_Q4	4
#define MEMFILTER_BLOOM_MAX_BPK_Q4	256
/*
 * Keys per SIMD section. 256 keys take about 2 us when every block misses
 * the cache (more with DRAM contention, far less when cached), in line with
 * the 4 KiB per kernel_fpu_begin() section of the crypto glue; and a
 * multiple of BITS_PER_LONG, so sections start on whole bitmap words.
 */
#define MEMFILTER_SIMD_CHUNK		256
/*
 * The batch loops hash (where they get keys) and prefetch the block of the
 * key MEMFILTER_BLOOM_AHEAD positions ahead of the one they insert or test, so
 * about that many cache misses are in flight at once; tuned on a 256 MiB
 * filter (bench/results/bloom.md at 0ce7f39). The hashes in between wait
 * in a ring of MEMFILTER_BLOOM_RING slots, key i in slot
 * i % MEMFILTER_BLOOM_RING.
 */
#ifndef MEMFILTER_BLOOM_AHEAD
#define MEMFILTER_BLOOM_AHEAD		48
#endif
#define MEMFILTER_BLOOM_RING		64

/**
 * struct memfilter_bloom_params - the shape of a Bloom filter
 * @capacity: keys it was sized for
 * @nblocks: blocks of the layout (64 or 32 bytes), at least 1; even for
 *	MEMFILTER_BLOOM_SPLIT32
 * @k: probes (bits set) per key, 1..MEMFILTER_BLOOM_MAX_K; always 8 for
 *	MEMFILTER_BLOOM_SPLIT32
 * @bits_per_key_q4: bits per key it was sized for, times 4
 * @layout: MEMFILTER_BLOOM_LINE64 or MEMFILTER_BLOOM_SPLIT32
 * @hasher: how keys are hashed; filled in by the caller with
 *	memfilter_hasher_init()
 */
struct memfilter_bloom_params {
	u64 capacity;
	u64 nblocks;
	u32 k;
	u32 bits_per_key_q4;
	u32 layout;
	struct memfilter_hasher hasher;
};

/*
 * Writers' stripe locks (the top of core/bloom.c): block i belongs to
 * stripe i % MEMFILTER_BLOOM_STRIPES, each stripe's lock on its own cache
 * line. A batch writer sorts each MEMFILTER_SIMD_CHUNK keys by stripe and
 * holds a lock for at most MEMFILTER_BLOOM_LOCK_KEYS keys at a time;
 * batches of fewer than MEMFILTER_BLOOM_SORT_MIN keys lock key by key.
 */
#define MEMFILTER_BLOOM_STRIPES		64
#define MEMFILTER_BLOOM_LOCK_KEYS	64
#define MEMFILTER_BLOOM_SORT_MIN	32

/**
 * struct memfilter_bloom_stripe - one stripe's writer lock
 * @lock: held around the plain read-modify-writes of its blocks
 */
struct memfilter_bloom_stripe {
	struct memfilter_lock lock;
} __aligned(MEMFILTER_BLOOM_BLOCK_BYTES);

/* Bytes memfilter_bloom_attach_stripes() takes, a multiple of 64. */
#define MEMFILTER_BLOOM_STRIPES_BYTES \
	(MEMFILTER_BLOOM_STRIPES * sizeof(struct memfilter_bloom_stripe))

/**
 * struct memfilter_bloom - a Bloom filter
 * @p: its shape
 * @words: memfilter_bloom_bytes() of table, 64-byte aligned, zeroed,
 *	allocated and freed by the caller (kernel: kvzalloc(); userspace:
 *	aligned_alloc())
 * @stripes: MEMFILTER_BLOOM_STRIPES writer locks, attached by the owner
 *	(memfilter_bloom_attach_stripes()) and used by the _locked inserts;
 *	NULL (after the type's init) for a filter written with atomic ORs.
 *	Read only by the _locked calls and the type's ops, so callers of
 *	the others may leave it unset.
 */
struct memfilter_bloom {
	struct memfilter_bloom_params p;
	u64 *words;
	struct memfilter_bloom_stripe *stripes;
};

/*
 * A chunk of at most MEMFILTER_SIMD_CHUNK keys sorted by stripe: @ord
 * lists the keys' positions stripe after stripe (keys of one stripe in
 * their order in the chunk), stripe t's at @ord[@end[t - 1]] to
 * @ord[@end[t] - 1] (from @ord[0] for t = 0). 386 bytes of stack.
 */
struct memfilter_bloom_sort {
	u16 end[MEMFILTER_BLOOM_STRIPES + 1];
	u8 ord[MEMFILTER_SIMD_CHUNK];
};

/* Odd multipliers, one per word: the bit a key sets in word w. */
#define MEMFILTER_BLOOM_SALTS { 0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU, \
			 0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U }
#define MEMFILTER_BLOOM_START_MUL	0x9e3779b9U

/* 64-bit words per block of @layout: 8 (LINE64) or 4 (SPLIT32). */
static __always_inline unsigned int memfilter_bloom_block_words(u32 layout)
{
	return layout == MEMFILTER_BLOOM_SPLIT32 ? MEMFILTER_BLOOM_SPLIT32_WORDS :
						   MEMFILTER_BLOOM_BLOCK_WORDS;
}

/* Bytes per block of @layout. */
static __always_inline unsigned int memfilter_bloom_block_bytes(u32 layout)
{
	return memfilter_bloom_block_words(layout) * sizeof(u64);
}

/* log2 of memfilter_bloom_block_bytes(@layout): no divisions (32-bit). */
static __always_inline unsigned int memfilter_bloom_block_shift(u32 layout)
{
	return layout == MEMFILTER_BLOOM_SPLIT32 ? 5 : 6;
}

/* The most blocks of @layout a filter (or a window generation) may have. */
static __always_inline u64 memfilter_bloom_max_blocks(u32 layout)
{
	return MEMFILTER_BLOOM_MAX_BYTES >> memfilter_bloom_block_shift(layout);
}

/* Is @nblocks a valid block count for @layout (images, sizing)? */
static __always_inline bool memfilter_bloom_nblocks_ok(u32 layout, u64 nblocks)
{
	return nblocks && nblocks <= memfilter_bloom_max_blocks(layout) &&
	       (layout != MEMFILTER_BLOOM_SPLIT32 || !(nblocks & 1));
}

/* 64-bit words of a filter's table. */
static __always_inline u64 memfilter_bloom_nwords(const struct memfilter_bloom_params *p)
{
	return p->nblocks * memfilter_bloom_block_words(p->layout);
}

/* The block a hash lives in. */
static __always_inline u64 memfilter_bloom_block(const struct memfilter_bloom *b, u64 hash)
{
	return memfilter_mulhi64(hash, b->p.nblocks);
}

/*
 * The first word of the block a hash lives in, @layout a constant where
 * the caller has one (the layout's own loops), else @b's.
 */
static __always_inline u64 *
memfilter_bloom_block_ptr_of(const struct memfilter_bloom *b, u64 hash, u32 layout)
{
	return b->words + memfilter_bloom_block(b, hash) *
			  memfilter_bloom_block_words(layout);
}

/* The first word of the block a hash lives in. */
static __always_inline u64 *
memfilter_bloom_block_ptr(const struct memfilter_bloom *b, u64 hash)
{
	return memfilter_bloom_block_ptr_of(b, hash, b->p.layout);
}

/* Prefetch the block of hashes[@i], if @i < @n; @layout is @b's. */
static __always_inline void memfilter_bloom_prefetch(const struct memfilter_bloom *b,
						     const u64 *hashes, size_t i,
						     size_t n, u32 layout)
{
	if (i < n)
		memfilter_prefetch(memfilter_bloom_block_ptr_of(b, hashes[i], layout));
}

/*
 * What a key batch call does with each key: memfilter_bloom_add_keys(),
 * memfilter_bloom_add_keys_exclusive(), memfilter_bloom_contains_keys().
 * memfilter_bloom_keys_scalar() is their portable path, for tests;
 * memfilter_bloom_keys_avx2() runs one MEMFILTER_SIMD_CHUNK section of them (internal).
 */
enum memfilter_bloom_op {
	MEMFILTER_BLOOM_OP_ADD,
	MEMFILTER_BLOOM_OP_ADD_EXCLUSIVE,
	MEMFILTER_BLOOM_OP_CONTAINS,
};

/*
 * The batch key loops' ring (see MEMFILTER_BLOOM_AHEAD): keys are hashed
 * MEMFILTER_BLOOM_GROUP at a time (memfilter_hash_keys(): the algorithm and
 * length tested once per group, straight-line loops for 4-, 8- and 16-byte
 * keys) into the slots of their positions, and their blocks prefetched;
 * on entry to a section of keys [@start, @start + m), slots hold the hashes
 * of keys [@start, min(@start + MEMFILTER_BLOOM_AHEAD, n)) and their blocks
 * are being fetched. Groups start at multiples of MEMFILTER_BLOOM_GROUP, so
 * one never wraps around the ring.
 */
#define MEMFILTER_BLOOM_GROUP		16

struct memfilter_bloom_ring {
	u64 h[MEMFILTER_BLOOM_RING];
};

/*
 * Hash the group of keys from @i (a multiple of MEMFILTER_BLOOM_GROUP), as
 * many as there are before @n, into the ring and prefetch their blocks
 * (@layout is @b's).
 */
static __always_inline void memfilter_bloom_ring_fill(const struct memfilter_bloom *b,
						      struct memfilter_bloom_ring *r,
						      const u8 *keys, size_t key_len,
						      size_t i, size_t n, u32 layout)
{
	u64 *h = &r->h[i % MEMFILTER_BLOOM_RING];
	size_t j, m;

	if (i >= n)
		return;
	m = min(n - i, (size_t)MEMFILTER_BLOOM_GROUP);
	memfilter_hash_keys(&b->p.hasher, keys + i * key_len, key_len, m, h);
	for (j = 0; j < m; j++)
		memfilter_prefetch(memfilter_bloom_block_ptr_of(b, h[j], layout));
}

/*
 * One section of a key batch call, keys [@start, @start + @m) of @n, for
 * the AVX2 and scalar paths alike: each group's keys go to @one (inlined,
 * with @op a constant: set the key's bits, or test them and return
 * whether all were set) after the group MEMFILTER_BLOOM_AHEAD keys later
 * is hashed into the ring, so that the block each tests was fetched
 * meanwhile; @acc gathers a result word from the groups of each
 * BITS_PER_LONG keys. @f is the caller's local copy of the filter, so
 * that the per-key work need not assume the stores through @r and
 * @result_bitmap change its fields (its hasher is handed out of line, to
 * memfilter_hash_keys(), once per group). @layout is @f's, a constant.
 */
static __always_inline void
memfilter_bloom_keys_section(const struct memfilter_bloom *f, struct memfilter_bloom_ring *r,
			     const void *keys, size_t key_len, size_t start, size_t m,
			     size_t n, unsigned long *result_bitmap, enum memfilter_bloom_op op,
			     u32 layout,
			     bool (*one)(const void *ctx, u64 *blk, u64 hash, u32 layout,
					 enum memfilter_bloom_op op),
			     const void *ctx)
{
	size_t i, j, g, end = start + m;
	unsigned long acc = 0;

	for (i = start; i < end; i += g) {
		const u64 *h = &r->h[i % MEMFILTER_BLOOM_RING];

		g = min(end - i, (size_t)MEMFILTER_BLOOM_GROUP);
		memfilter_bloom_ring_fill(f, r, keys, key_len,
					  i + MEMFILTER_BLOOM_AHEAD, n, layout);
		for (j = 0; j < g; j++) {
			bool hit = one(ctx, memfilter_bloom_block_ptr_of(f, h[j], layout),
				       h[j], layout, op);

			if (op == MEMFILTER_BLOOM_OP_CONTAINS)
				acc |= (unsigned long)hit << (i % BITS_PER_LONG + j);
		}
		if (op == MEMFILTER_BLOOM_OP_CONTAINS &&
		    ((i + g) % BITS_PER_LONG == 0 || i + g == end)) {
			result_bitmap[i / BITS_PER_LONG] = acc;
			acc = 0;
		}
	}
}

/* memfilter_bloom_keys_section() with @op a constant in each call. */
static __always_inline void
memfilter_bloom_keys_section_of(const struct memfilter_bloom *f, struct memfilter_bloom_ring *r,
				const void *keys, size_t key_len, size_t start,
				size_t m, size_t n, unsigned long *result_bitmap,
				enum memfilter_bloom_op op, u32 layout,
				bool (*one)(const void *ctx, u64 *blk, u64 hash,
					    u32 layout, enum memfilter_bloom_op op),
				const void *ctx)
{
	if (op == MEMFILTER_BLOOM_OP_ADD)
		memfilter_bloom_keys_section(f, r, keys, key_len, start, m, n, NULL,
					     MEMFILTER_BLOOM_OP_ADD, layout, one, ctx);
	else if (op == MEMFILTER_BLOOM_OP_ADD_EXCLUSIVE)
		memfilter_bloom_keys_section(f, r, keys, key_len, start, m, n, NULL,
					     MEMFILTER_BLOOM_OP_ADD_EXCLUSIVE, layout, one,
					     ctx);
	else
		memfilter_bloom_keys_section(f, r, keys, key_len, start, m, n,
					     result_bitmap, MEMFILTER_BLOOM_OP_CONTAINS,
					     layout, one, ctx);
}

/* memfilter_bloom_keys_section() with @op and @f's layout constants. */
static __always_inline void
memfilter_bloom_keys_section_op(const struct memfilter_bloom *f, struct memfilter_bloom_ring *r,
				const void *keys, size_t key_len, size_t start,
				size_t m, size_t n, unsigned long *result_bitmap,
				enum memfilter_bloom_op op,
				bool (*one)(const void *ctx, u64 *blk, u64 hash,
					    u32 layout, enum memfilter_bloom_op op),
				const void *ctx)
{
	if (f->p.layout == MEMFILTER_BLOOM_SPLIT32)
		memfilter_bloom_keys_section_of(f, r, keys, key_len, start, m, n,
						result_bitmap, op, MEMFILTER_BLOOM_SPLIT32,
						one, ctx);
	else
		memfilter_bloom_keys_section_of(f, r, keys, key_len, start, m, n,
						result_bitmap, op, MEMFILTER_BLOOM_LINE64,
						one, ctx);
}

/*
 * Sort the @m (1..MEMFILTER_SIMD_CHUNK) keys of @hashes by stripe into
 * @s (a counting sort, stable), prefetching each key's block meanwhile.
 */
static __always_inline void memfilter_bloom_sort(const struct memfilter_bloom *b,
						 const u64 *hashes, size_t m,
						 struct memfilter_bloom_sort *s)
{
	unsigned int t;
	size_t j;
	u64 blk;

	memset(s->end, 0, sizeof(s->end));
	for (j = 0; j < m; j++) {
		blk = memfilter_bloom_block(b, hashes[j]);
		memfilter_prefetch(b->words + blk * memfilter_bloom_block_words(b->p.layout));
		s->end[blk % MEMFILTER_BLOOM_STRIPES + 1]++;
	}
	for (t = 0; t < MEMFILTER_BLOOM_STRIPES; t++)
		s->end[t + 1] += s->end[t];
	/* end[t] starts as stripe t's start and ends as its end. */
	for (j = 0; j < m; j++) {
		t = memfilter_bloom_block(b, hashes[j]) % MEMFILTER_BLOOM_STRIPES;
		s->ord[s->end[t]++] = j;
	}
}

/*
 * Walk a sorted chunk (memfilter_bloom_sort()) of @hashes: stripe after
 * stripe, its keys in order under its lock, retaken every
 * MEMFILTER_BLOOM_LOCK_KEYS keys; @one(@ctx, block, hash) test-and-sets a
 * key and says whether it was present, which sets its bit of @out (words
 * cleared by the caller; NULL: not wanted). Inlined into the scalar and
 * the AVX2 walks, each with its own @one for each @layout (@b's, a
 * constant). The caller has bottom halves off.
 */
static __always_inline void
memfilter_bloom_walk(struct memfilter_bloom *b, const u64 *hashes,
		     const struct memfilter_bloom_sort *s, unsigned long *out,
		     u32 layout, bool (*one)(const void *ctx, u64 *blk, u64 hash, u32 layout),
		     const void *ctx)
{
	unsigned int t, held;
	struct memfilter_lock *l;
	size_t pos = 0;
	u64 h;
	u8 j;

	for (t = 0; t < MEMFILTER_BLOOM_STRIPES; t++) {
		if (pos == s->end[t])
			continue;
		l = &b->stripes[t].lock;
		memfilter_lock(l);
		for (held = 0; pos < s->end[t]; pos++, held++) {
			if (held == MEMFILTER_BLOOM_LOCK_KEYS) {
				memfilter_unlock(l);
				memfilter_lock(l);
				held = 0;
			}
			j = s->ord[pos];
			h = hashes[j];
			if (one(ctx, memfilter_bloom_block_ptr_of(b, h, layout), h, layout) && out)
				out[j / BITS_PER_LONG] |= 1UL << (j % BITS_PER_LONG);
		}
		memfilter_unlock(l);
	}
}

/* The word that starts a hash's window of k words. */
static __always_inline unsigned int memfilter_bloom_start(u64 hash)
{
	return ((u32)hash * MEMFILTER_BLOOM_START_MUL) >> 29;
}

/* The bit a hash sets in word @w of its block, if @w is in its window. */
static __always_inline unsigned int memfilter_bloom_bit(u64 hash, unsigned int w)
{
	static const u32 salt[MEMFILTER_BLOOM_BLOCK_WORDS] = MEMFILTER_BLOOM_SALTS;

	return ((u32)hash * salt[w]) >> 26;
}

/*
 * The words of a hash's window as a bitmask, bit w for word w: k ones
 * rotated left by the start word. No branches, k = 1..8.
 */
static __always_inline unsigned int memfilter_bloom_window(u64 hash, u32 k)
{
	unsigned int ones = (1U << k) - 1, s = memfilter_bloom_start(hash);

	return ((ones << s) | (ones >> (MEMFILTER_BLOOM_BLOCK_WORDS - s))) & 0xff;
}

/* The 8-word pattern a hash sets in its block (zero outside the window). */
static __always_inline void memfilter_bloom_pattern(u64 hash, u32 k,
						    u64 pat[MEMFILTER_BLOOM_BLOCK_WORDS])
{
	unsigned int win = memfilter_bloom_window(hash, k);
	unsigned int w;

	for (w = 0; w < MEMFILTER_BLOOM_BLOCK_WORDS; w++)
		pat[w] = (u64)((win >> w) & 1) << memfilter_bloom_bit(hash, w);
}

/*
 * SPLIT32: the bit a hash sets in 32-bit word @i (0..7) of its block, the
 * same salts as LINE64's, five bits of each product.
 */
static __always_inline unsigned int memfilter_split32_bit(u64 hash, unsigned int i)
{
	static const u32 salt[MEMFILTER_BLOOM_BLOCK_WORDS] = MEMFILTER_BLOOM_SALTS;

	return ((u32)hash * salt[i]) >> 27;
}

/*
 * SPLIT32: the 64-bit word @w (0..3) of a hash's pattern: the bits of
 * 32-bit words 2w (low half) and 2w + 1 (high half).
 */
static __always_inline u64 memfilter_split32_word(u64 hash, unsigned int w)
{
	return (1ULL << memfilter_split32_bit(hash, 2 * w)) |
	       (1ULL << (32 + memfilter_split32_bit(hash, 2 * w + 1)));
}

/* SPLIT32: the 4-word pattern a hash sets in its block. */
static __always_inline void memfilter_split32_pattern(u64 hash,
						      u64 pat[MEMFILTER_BLOOM_SPLIT32_WORDS])
{
	unsigned int w;

	for (w = 0; w < MEMFILTER_BLOOM_SPLIT32_WORDS; w++)
		pat[w] = memfilter_split32_word(hash, w);
}

int memfilter_bloom_params_from_fpr(struct memfilter_bloom_params *p, u64 capacity,
				    u64 fpr_ppb, u32 layout);
u32 memfilter_bloom_default_layout(u64 fpr_ppb);
int memfilter_bloom_params_from_bpk(struct memfilter_bloom_params *p, u64 capacity,
				    u32 bits_per_key_q4, u32 layout);
u64 memfilter_bloom_bytes(const struct memfilter_bloom_params *p);

void memfilter_bloom_add_hash(struct memfilter_bloom *b, u64 hash);
bool memfilter_bloom_contains_hash(const struct memfilter_bloom *b, u64 hash);
void memfilter_bloom_add_hashes(struct memfilter_bloom *b, const u64 *hashes,
				size_t n);
void memfilter_bloom_contains_hashes(const struct memfilter_bloom *b,
				     const u64 *hashes, size_t n,
				     unsigned long *result_bitmap);

void memfilter_bloom_add_hash_exclusive(struct memfilter_bloom *b, u64 hash);
void memfilter_bloom_add_hashes_exclusive(struct memfilter_bloom *b,
					  const u64 *hashes, size_t n);

void memfilter_bloom_add_key(struct memfilter_bloom *b, const void *key, size_t len);
bool memfilter_bloom_contains_key(const struct memfilter_bloom *b, const void *key,
				  size_t len);
void memfilter_bloom_add_keys(struct memfilter_bloom *b, const void *keys,
			      size_t key_len, size_t n);
void memfilter_bloom_contains_keys(const struct memfilter_bloom *b, const void *keys,
				   size_t key_len, size_t n,
				   unsigned long *result_bitmap);

void memfilter_bloom_add_key_exclusive(struct memfilter_bloom *b, const void *key,
				       size_t len);
void memfilter_bloom_add_keys_exclusive(struct memfilter_bloom *b, const void *keys,
					size_t key_len, size_t n);

bool memfilter_bloom_test_and_add_hash(struct memfilter_bloom *b, u64 hash);
bool memfilter_bloom_test_and_add_key(struct memfilter_bloom *b, const void *key,
				      size_t len);
void memfilter_bloom_test_and_add_hashes(struct memfilter_bloom *b,
					 const u64 *hashes, size_t n,
					 unsigned long *result_bitmap);
void memfilter_bloom_test_and_add_hashes_scalar(struct memfilter_bloom *b,
						const u64 *hashes, size_t n,
						unsigned long *result_bitmap);
/* x86-64 only; callers hold memfilter_simd_begin(), n <= MEMFILTER_SIMD_CHUNK. */
void memfilter_bloom_test_and_add_hashes_avx2(struct memfilter_bloom *b,
					      const u64 *hashes, size_t n,
					      unsigned long *result_bitmap);

void memfilter_bloom_attach_stripes(struct memfilter_bloom *b, void *mem);
void memfilter_bloom_add_hash_locked(struct memfilter_bloom *b, u64 hash);
void memfilter_bloom_add_hashes_locked(struct memfilter_bloom *b,
				       const u64 *hashes, size_t n);
void memfilter_bloom_test_and_add_hashes_locked(struct memfilter_bloom *b,
						const u64 *hashes, size_t n,
						unsigned long *result_bitmap);
/* The two walks behind the batch calls: tests only, and bloom_avx2.c's. */
void memfilter_bloom_locked_scalar(struct memfilter_bloom *b, const u64 *hashes,
				   size_t n, unsigned long *result_bitmap);
/* x86-64 only; callers hold memfilter_simd_begin() and bottom halves off. */
void memfilter_bloom_walk_avx2(struct memfilter_bloom *b, const u64 *hashes,
			       const struct memfilter_bloom_sort *s,
			       unsigned long *result_bitmap);

u64 memfilter_bloom_popcount(const struct memfilter_bloom *b);
u64 memfilter_bloom_est_fpr_ppb(const struct memfilter_bloom *b);
u64 memfilter_bloom_model_fpr_ppb(const struct memfilter_bloom_params *p, u64 nkeys);

/* The two implementations behind the batch calls, for tests. */
void memfilter_bloom_add_hashes_scalar(struct memfilter_bloom *b, const u64 *hashes,
				       size_t n);
void memfilter_bloom_contains_hashes_scalar(const struct memfilter_bloom *b,
					    const u64 *hashes, size_t n,
					    unsigned long *result_bitmap);
void memfilter_bloom_add_hashes_exclusive_scalar(struct memfilter_bloom *b,
						 const u64 *hashes, size_t n);
/* x86-64 only (bloom_avx2.c); callers hold memfilter_simd_begin(), n <= MEMFILTER_SIMD_CHUNK. */
void memfilter_bloom_add_hashes_avx2(struct memfilter_bloom *b, const u64 *hashes,
				     size_t n);
void memfilter_bloom_add_hashes_exclusive_avx2(struct memfilter_bloom *b,
					       const u64 *hashes, size_t n);
void memfilter_bloom_contains_hashes_avx2(const struct memfilter_bloom *b,
					  const u64 *hashes, size_t n,
					  unsigned long *result_bitmap);

void memfilter_bloom_keys_scalar(struct memfilter_bloom *b, const void *keys,
				 size_t key_len, size_t n,
				 unsigned long *result_bitmap, enum memfilter_bloom_op op);
void memfilter_bloom_keys_avx2(struct memfilter_bloom *b, struct memfilter_bloom_ring *r,
			       const void *keys, size_t key_len, size_t start,
			       size_t m, size_t n, unsigned long *result_bitmap,
			       enum memfilter_bloom_op op);

/*
 * Single-key calls in a SIMD section where entering one is cheap
 * (MEMFILTER_SIMD_CHEAP: userspace, where memfilter_simd_begin() only tests the
 * CPU; in the kernel it is kernel_fpu_begin(), dearer than a key), and
 * their scalar twins, for tests; all give the same answers and bits.
 */
bool memfilter_bloom_contains_hash_avx2(const struct memfilter_bloom *b, u64 hash);
void memfilter_bloom_add_hash_avx2(struct memfilter_bloom *b, u64 hash);
void memfilter_bloom_add_hash_exclusive_avx2(struct memfilter_bloom *b, u64 hash);
bool memfilter_bloom_contains_hash_scalar(const struct memfilter_bloom *b, u64 hash);
void memfilter_bloom_add_hash_scalar(struct memfilter_bloom *b, u64 hash);
void memfilter_bloom_add_hash_exclusive_scalar(struct memfilter_bloom *b, u64 hash);

#endif /* _MEMFILTER_BLOOM_H */
