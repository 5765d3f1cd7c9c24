/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memfilter's blocked Bloom filter: the split-block layout, its sizing from
 * the offline model table (bloom_model.h), and the insert and query entry
 * points shared by the module and userspace.
 *
 * Layout: the filter is nblocks 64-byte blocks of 8 x 64-bit words. A
 * key's 64-bit hash h picks its block by multiply-shift range reduction,
 * ((u128)h * nblocks) >> 64, so any block count works. The low 32 bits x
 * pick a window of k consecutive words (mod 8) starting at word
 * (x * 0x9e3779b9) >> 29, and in each word w of the window one bit,
 * (x * mf_bloom_salt[w]) >> 26. Every probe is in a different word, so a
 * key always sets exactly k distinct bits, whatever its hash (even 0): no
 * degenerate probes by construction. All probes of a key are in one cache
 * line, and the whole 512-bit pattern is two AVX2 registers.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_BLOOM_H
#define _MEMFILTER_BLOOM_H

#include "compat.h"
#include "hash.h"

#define MF_BLOOM_BLOCK_BYTES	64
#define MF_BLOOM_BLOCK_WORDS	8
#define MF_BLOOM_BLOCK_BITS	512
/* Largest filter the sizing functions accept: 1 TiB. */
#define MF_BLOOM_MAX_BYTES	BIT_ULL(40)
/* Most probes per key: one per word of a block. */
#define MF_BLOOM_MAX_K		8
/* Bits per key accepted by memfilter_bloom_params_from_bpk(), x 4. */
#define MF_BLOOM_MIN_BPK_Q4	4
#define MF_BLOOM_MAX_BPK_Q4	256
/*
 * Keys per SIMD section. 256 keys take about 2 us when every block misses
 * the cache (more with DRAM contention, far less when cached), in line with
 * the 4 KiB per kernel_fpu_begin() section of the crypto glue; and a
 * multiple of BITS_PER_LONG, so sections start on whole bitmap words.
 */
#define MF_SIMD_CHUNK		256
/* Keys hashed (and their blocks prefetched) ahead of probing. */
#define MF_BLOOM_BATCH		32

/**
 * struct mf_bloom_params - the shape of a Bloom filter
 * @capacity: keys it was sized for
 * @nblocks: 64-byte blocks, at least 1
 * @k: probes (bits set) per key, 1..MF_BLOOM_MAX_K
 * @bits_per_key_q4: bits per key it was sized for, times 4
 * @hasher: how keys are hashed; filled in by the caller with
 *	memfilter_hasher_init()
 */
struct mf_bloom_params {
	u64 capacity;
	u64 nblocks;
	u32 k;
	u32 bits_per_key_q4;
	struct memfilter_hasher hasher;
};

/**
 * struct mf_bloom - a Bloom filter
 * @p: its shape
 * @words: nblocks * 8 words, 64-byte aligned, zeroed, allocated and freed
 *	by the caller (kernel: kvzalloc(); userspace: aligned_alloc())
 */
struct mf_bloom {
	struct mf_bloom_params p;
	u64 *words;
};

/* Odd multipliers, one per word: the bit a key sets in word w. */
#define MF_BLOOM_SALTS { 0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU, \
			 0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U }
#define MF_BLOOM_START_MUL	0x9e3779b9U

/* The block a hash lives in. */
static __always_inline u64 mf_bloom_block(const struct mf_bloom *b, u64 hash)
{
	return mul_u64_u64_shr(hash, b->p.nblocks, 64);
}

/* The first of the 8 words of the block a hash lives in. */
static __always_inline u64 *
mf_bloom_block_ptr(const struct mf_bloom *b, u64 hash)
{
	return b->words + mf_bloom_block(b, hash) * MF_BLOOM_BLOCK_WORDS;
}

/* Prefetch the block of hashes[@i], if @i < @n. */
static __always_inline void mf_bloom_prefetch(const struct mf_bloom *b,
					      const u64 *hashes, size_t i,
					      size_t n)
{
	if (i < n)
		mf_prefetch(mf_bloom_block_ptr(b, hashes[i]));
}

/* The word that starts a hash's window of k words. */
static __always_inline unsigned int mf_bloom_start(u64 hash)
{
	return ((u32)hash * MF_BLOOM_START_MUL) >> 29;
}

/* The bit a hash sets in word @w of its block, if @w is in its window. */
static __always_inline unsigned int mf_bloom_bit(u64 hash, unsigned int w)
{
	static const u32 salt[MF_BLOOM_BLOCK_WORDS] = MF_BLOOM_SALTS;

	return ((u32)hash * salt[w]) >> 26;
}

/* The 8-word pattern a hash sets in its block (zero outside the window). */
static __always_inline void mf_bloom_pattern(u64 hash, u32 k,
					     u64 pat[MF_BLOOM_BLOCK_WORDS])
{
	unsigned int s = mf_bloom_start(hash);
	unsigned int w;

	for (w = 0; w < MF_BLOOM_BLOCK_WORDS; w++)
		pat[w] = ((w - s) & 7) < k ? 1ULL << mf_bloom_bit(hash, w) : 0;
}

int memfilter_bloom_params_from_fpr(struct mf_bloom_params *p, u64 capacity,
				    u64 fpr_ppb);
int memfilter_bloom_params_from_bpk(struct mf_bloom_params *p, u64 capacity,
				    u32 bits_per_key_q4);
u64 memfilter_bloom_bytes(const struct mf_bloom_params *p);

void memfilter_bloom_add_hash(struct mf_bloom *b, u64 hash);
bool memfilter_bloom_contains_hash(const struct mf_bloom *b, u64 hash);
void memfilter_bloom_add_hashes(struct mf_bloom *b, const u64 *hashes,
				size_t n);
void memfilter_bloom_contains_hashes(const struct mf_bloom *b,
				     const u64 *hashes, size_t n,
				     unsigned long *result_bitmap);

void memfilter_bloom_add_key(struct mf_bloom *b, const void *key, size_t len);
bool memfilter_bloom_contains_key(const struct mf_bloom *b, const void *key,
				  size_t len);
void memfilter_bloom_add_keys(struct mf_bloom *b, const void *keys,
			      size_t key_len, size_t n);
void memfilter_bloom_contains_keys(const struct mf_bloom *b, const void *keys,
				   size_t key_len, size_t n,
				   unsigned long *result_bitmap);

u64 memfilter_bloom_popcount(const struct mf_bloom *b);
u64 memfilter_bloom_est_fpr_ppb(const struct mf_bloom *b);
u64 memfilter_bloom_model_fpr_ppb(const struct mf_bloom_params *p, u64 nkeys);

/* The two implementations behind the batch calls, for tests. */
void memfilter_bloom_add_hashes_scalar(struct mf_bloom *b, const u64 *hashes,
				       size_t n);
void memfilter_bloom_contains_hashes_scalar(const struct mf_bloom *b,
					    const u64 *hashes, size_t n,
					    unsigned long *result_bitmap);
/* x86-64 only (bloom_avx2.c); callers hold mf_simd_begin(), n <= MF_SIMD_CHUNK. */
void memfilter_bloom_add_hashes_avx2(struct mf_bloom *b, const u64 *hashes,
				     size_t n);
void memfilter_bloom_contains_hashes_avx2(const struct mf_bloom *b,
					  const u64 *hashes, size_t n,
					  unsigned long *result_bitmap);

#endif /* _MEMFILTER_BLOOM_H */
