/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * memfilter's cuckoo filter: partial-key cuckoo hashing of 8, 12 or 16 bit
 * fingerprints in 4-slot buckets, with delete, count, add-if-absent, a
 * one-entry victim stash, inserts that fail with -ENOSPC without losing
 * anything, and lockless readers (MemC3-style striped version counters).
 * Shared by the module and userspace; see cuckoo.c for the protocol.
 *
 * Table: nbuckets buckets of 4 slots of fp_bits bits, packed
 * little-endian, bucket i at byte i * fp_bits / 2 (4, 6 or 8 bytes per
 * bucket), slot j at bits [j * fp_bits, (j + 1) * fp_bits) of it; an
 * empty slot is 0. A key's 64-bit hash h gives its fingerprint from the
 * top 24 bits, fp = 1 + (((h >> 40) * (2^fp_bits - 1)) >> 24), never 0,
 * and its two buckets by one of two layouts (@layout, recorded in images):
 *
 * MEMFILTER_CUCKOO_LAYOUT_POW2 (the first; images without the
 * MEMFILTER_IMAGE_CUCKOO_MOD flag): nbuckets a power of two, i1 = h &
 * (nbuckets - 1), i2 = i1 ^ ((u32)(fp * 0x5bd1e995) & (nbuckets - 1)), the
 * reference implementation's tag hash. Sizing rounds the bucket count up
 * to a power of two: up to twice the memory.
 *
 * MEMFILTER_CUCKOO_LAYOUT_MOD (new filters): any nbuckets n; i1 =
 * ((h mod 2^40) * n) >> 40 (computed as the high half of (h << 24) * n),
 * t = ((fp * 0x9e3779b97f4a7c15 mod 2^64) * n) >> 64, and i2 = (t - i1)
 * mod n. x -> (t - x) mod n is an involution for any n, so either bucket
 * gives the other from the fingerprint alone (Lang et al., VLDB 2019, with
 * the sign the other way). i1 == i2 happens, as in the first layout.
 *
 * In both, bucket and fingerprint use disjoint bits of h up to 2^40
 * buckets.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_CUCKOO_H
#define _MEMFILTER_CUCKOO_H

#include "compat.h"
#include "hash.h"

#define MEMFILTER_CUCKOO_SLOTS		4
#define MEMFILTER_CUCKOO_DEFAULT_KICKS	500
#define MEMFILTER_CUCKOO_MAX_KICKS	65536
/* struct memfilter_cuckoo_params @layout (see the top of this file). */
#define MEMFILTER_CUCKOO_LAYOUT_POW2	0
#define MEMFILTER_CUCKOO_LAYOUT_MOD	1
/* Largest filter the sizing functions accept (table + stripes + scratch). */
#define MEMFILTER_CUCKOO_MAX_BYTES	BIT_ULL(40)
/* Sizing aims at most this load (percent) at @capacity keys. */
#define MEMFILTER_CUCKOO_TARGET_LOAD	95
/* Version counters: one per 64 buckets, at most this many. */
#define MEMFILTER_CUCKOO_MAX_STRIPES	8192
/* Keys per step of a batch insert (and of a batch count's prefetch). */
#define MEMFILTER_CUCKOO_BATCH		16
/*
 * Batch lookups locate the key this many places ahead and prefetch its two
 * buckets while testing the current one; a power of two (the ring's index
 * is a mask). The ring keeps each key's two buckets as 32-bit indexes (64
 * keys, 512 bytes) in tables of up to 2^32 buckets, which is any table
 * under 16 GiB, and as 64-bit ones, half as many keys in the same bytes,
 * in larger ones. The lookup derives the fingerprint again from the hash.
 * At 16M keys 64 ahead ran about 1.1x faster than 32 and 1.6-1.8x faster
 * than 16; at 1M keys within a few percent of 32 and 10-15% slower than
 * 16; at 100M the same as 32 (bench/results/cuckoo.md). Frame: 624 bytes
 * in the stock 6.12 build, 904 with KASAN (the test kernels warn at
 * 1024). -DMEMFILTER_CUCKOO_AHEAD=N to try others.
 */
#ifndef MEMFILTER_CUCKOO_AHEAD
#define MEMFILTER_CUCKOO_AHEAD		64
#endif
/*
 * Attempts of a lockless read before it stops waiting for a writer that
 * stays inside an update: a lookup then answers "may be present", a count
 * MEMFILTER_CUCKOO_COUNT_BUSY.
 */
#define MEMFILTER_CUCKOO_READ_TRIES	128
#define MEMFILTER_CUCKOO_COUNT_BUSY	0xffffffffU
/* memfilter_cuckoo_count_hashes()'s byte for it (real counts are <= 9). */
#define MEMFILTER_CUCKOO_COUNT_BUSY8	0xff
/* Bytes of table one step of a stepwise clear or copy takes. */
#define MEMFILTER_CUCKOO_DUMP_CHUNK	16384

/**
 * struct memfilter_cuckoo_params - the shape of a cuckoo filter
 * @capacity: keys it was sized for
 * @nbuckets: buckets: any count up to 2^40 (a power of two with
 *	MEMFILTER_CUCKOO_LAYOUT_POW2)
 * @fp_bits: fingerprint width: 8, 12 or 16
 * @max_kicks: bound on the cuckoo path search of one insert: how many
 *	buckets (besides the key's own two) it may visit before the insert
 *	falls back to the stash or fails; 0..MEMFILTER_CUCKOO_MAX_KICKS
 * @hasher: how keys are hashed; XXH64 with seed 0 after the params_init
 *	functions, which the caller may replace (memfilter_hasher_init())
 * @layout: MEMFILTER_CUCKOO_LAYOUT_*: how a key's buckets follow from its
 *	hash; LAYOUT_MOD after the params_init functions
 */
struct memfilter_cuckoo_params {
	u64 capacity;
	u64 nbuckets;
	u32 fp_bits;
	u32 max_kicks;
	struct memfilter_hasher hasher;
	u32 layout;
};

struct memfilter_cuckoo_wstate;

/**
 * struct memfilter_cuckoo - a cuckoo filter over caller-provided memory
 * @p: its parameters
 * @table: the buckets (plus 8 bytes of padding for whole-word loads)
 * @ver: the version counters (a power of two of them); bucket i is
 *	covered by @ver[i & @stripe_mask]
 * @gen: the version counter of the whole table (on a line of its own):
 *	every writer window moves it with its stripes, so that batch
 *	lookups validate 64 keys at once (see the top of cuckoo.c)
 * @w: writer-only state (counters, path search queue), in the same memory
 * @mask: nbuckets - 1 (used by MEMFILTER_CUCKOO_LAYOUT_POW2 only)
 * @lane_ones: 1 in the lowest bit of each of the 4 slots of a bucket word
 * @lane_high: 1 in the highest bit of each slot
 * @bucket_mask: the 4 * fp_bits bits of a bucket word
 * @fp_range: 2^fp_bits - 1, the number of fingerprint values
 * @stripe_mask: number of version counters - 1
 * @bucket_bytes: fp_bits / 2
 * @stash: the victim stash: (bucket << 16) | fp, or 0 when empty; bucket
 *	is either of the fingerprint's two buckets
 * @dump: the copy in progress, if any (writer lock; readers never look)
 */
struct memfilter_cuckoo {
	struct memfilter_cuckoo_params p;
	u8 *table;
	u32 *ver;
	u32 *gen;
	struct memfilter_cuckoo_wstate *w;
	u64 mask;
	u64 lane_ones;
	u64 lane_high;
	u64 bucket_mask;
	u32 fp_range;
	u32 stripe_mask;
	u32 bucket_bytes;
	u64 stash;
	struct memfilter_table_copy *dump;
};

/**
 * struct memfilter_table_copy - a copy of a table taken in steps, for types
 *	whose writers lock (struct memfilter_type_ops @copy_begin)
 * @dst: room for the table (an image's payload)
 * @copied: a zeroed bitmap, one bit per MEMFILTER_CUCKOO_DUMP_CHUNK bytes
 *	of table, in u64 words
 * @stash: out: the stash when the copy began
 * @items: out: the fingerprints stored when the copy began
 */
struct memfilter_table_copy {
	u8 *dst;
	u64 *copied;
	u64 stash;
	u64 items;
};

/**
 * struct memfilter_cuckoo_snapshot - a snapshot of a cuckoo filter's state
 * @items: fingerprints stored (adds minus deletes), stash included
 * @slots: slots in the table, nbuckets * 4
 * @slots_used: slots holding a fingerprint
 * @failed_inserts: adds refused with -ENOSPC
 * @kicks: fingerprints moved to make room, over the filter's life
 * @stash_used: 1 when the victim stash holds a fingerprint
 * @est_fpr_ppb: false-positive rate expected at the current load, parts
 *	per billion: 1 - (1 - 1/(2^f - 1))^(8 * load), to second order
 * @read_retries: lockless reads' attempts that saw a writer mid-update and
 *	tried again (or gave up), since the filter was created
 * @read_busy: lockless reads that gave up after MEMFILTER_CUCKOO_READ_TRIES
 *	attempts ("may be present", or MEMFILTER_CUCKOO_COUNT_BUSY)
 */
struct memfilter_cuckoo_snapshot {
	u64 items;
	u64 slots;
	u64 slots_used;
	u64 failed_inserts;
	u64 kicks;
	u32 stash_used;
	u64 est_fpr_ppb;
	u64 read_retries;
	u64 read_busy;
};

int memfilter_cuckoo_params_init(struct memfilter_cuckoo_params *p, u64 capacity,
				 u32 fp_bits);
int memfilter_cuckoo_params_from_fpr(struct memfilter_cuckoo_params *p, u64 capacity,
				     u64 fpr_ppb);
u64 memfilter_cuckoo_mem_bytes(const struct memfilter_cuckoo_params *p);
void memfilter_cuckoo_init(struct memfilter_cuckoo *c,
			   const struct memfilter_cuckoo_params *p, void *mem);
void memfilter_cuckoo_clear(struct memfilter_cuckoo *c);
void memfilter_cuckoo_clear_buckets(struct memfilter_cuckoo *c, u64 first,
				    u64 n);
u64 memfilter_cuckoo_dump_chunks(const struct memfilter_cuckoo *c);
void memfilter_cuckoo_dump_begin(struct memfilter_cuckoo *c,
				 struct memfilter_table_copy *d);
void memfilter_cuckoo_dump_step(struct memfilter_cuckoo *c, u64 k);
void memfilter_cuckoo_dump_end(struct memfilter_cuckoo *c);
int memfilter_cuckoo_restore(struct memfilter_cuckoo *c, u64 stash, u64 items);

void memfilter_cuckoo_locate(const struct memfilter_cuckoo *c, u64 hash,
			     u64 *i1, u64 *i2, u32 *fp);
int memfilter_cuckoo_add_hash(struct memfilter_cuckoo *c, u64 hash);
int memfilter_cuckoo_add_unique_hash(struct memfilter_cuckoo *c, u64 hash);
int memfilter_cuckoo_delete_hash(struct memfilter_cuckoo *c, u64 hash);
bool memfilter_cuckoo_contains_hash(const struct memfilter_cuckoo *c, u64 hash);
u32 memfilter_cuckoo_count_hash(const struct memfilter_cuckoo *c, u64 hash);
void memfilter_cuckoo_contains_hashes(const struct memfilter_cuckoo *c,
				      const u64 *hashes, size_t n,
				      unsigned long *result);
void memfilter_cuckoo_count_hashes(const struct memfilter_cuckoo *c,
				   const u64 *hashes, size_t n, u8 *counts);

int memfilter_cuckoo_add_key(struct memfilter_cuckoo *c, const void *key,
			     size_t len);
int memfilter_cuckoo_add_unique_key(struct memfilter_cuckoo *c, const void *key,
				    size_t len);
int memfilter_cuckoo_delete_key(struct memfilter_cuckoo *c, const void *key,
				size_t len);
bool memfilter_cuckoo_contains_key(const struct memfilter_cuckoo *c, const void *key,
				   size_t len);
u32 memfilter_cuckoo_count_key(const struct memfilter_cuckoo *c, const void *key,
			       size_t len);

void memfilter_cuckoo_stats(const struct memfilter_cuckoo *c,
			    struct memfilter_cuckoo_snapshot *s);

#endif /* _MEMFILTER_CUCKOO_H */
