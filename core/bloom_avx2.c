// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * AVX2 batch insert and query for memfilter's blocked Bloom filter
 * (bloom.h), x86-64 only. The whole 512-bit pattern of a key is built in
 * two YMM registers: one 32-bit multiply per word gives the bit, the key's
 * window (a row of memfilter_bloom_avx2_win) sends the words outside it to
 * 64, and a variable shift turns the bit numbers into masks. A query is
 * then two 32-byte loads, two VPANDNs, a VPOR and one VPTEST; an insert
 * ORs, atomically, only the words still missing bits; an exclusive insert
 * (single writer) is two VPORs and two 32-byte stores. Answers and
 * filters are bit for bit those of the scalar code.
 *
 * Only the functions marked MF_AVX2 (here and in bloom_avx2.h) are
 * compiled for AVX2, each by its own __attribute__((target("avx2"))); in
 * the kernel the file itself is built with the usual flags (-mno-sse
 * -mno-avx ...), so no other code, in this file or inlined into it from
 * headers, can use a vector register. The entry points (names ending in
 * _avx2) are called only between memfilter_simd_begin() and
 * memfilter_simd_end(), which in the kernel bracket kernel_fpu_begin() and
 * kernel_fpu_end(). scripts/check-simd.sh checks both rules on the built
 * module's machine code.
 *
 * The vector loads of a block are not READ_ONCE(), but each aligned 8-byte
 * lane is read whole, which is all the scalar code relies on; likewise the
 * 32-byte stores (memfilter_bloom_avx2_store()) write each 8-byte word
 * whole, as WRITE_ONCE() would.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include "bloom_avx2.h"

/*
 * The windows of memfilter_bloom_avx2_pattern(): row k - 1 holds, twice,
 * 64 in the 32-bit lane of each word outside the k-word window starting
 * at word 0, else 0 (VPSLLVQ gives 0 for a count of 64). The 8 lanes from
 * lane 8 - s are that window rotated by s words, the window starting at
 * word s: loaded instead of computed from k and s for every key. Rows are
 * 64-byte aligned, so no load crosses a cache line.
 */
const u32 memfilter_bloom_avx2_win[MEMFILTER_BLOOM_MAX_K][2 * MEMFILTER_BLOOM_BLOCK_WORDS]
	__aligned(64) = {
	{ 0, 64, 64, 64, 64, 64, 64, 64, 0, 64, 64, 64, 64, 64, 64, 64 },
	{ 0, 0, 64, 64, 64, 64, 64, 64, 0, 0, 64, 64, 64, 64, 64, 64 },
	{ 0, 0, 0, 64, 64, 64, 64, 64, 0, 0, 0, 64, 64, 64, 64, 64 },
	{ 0, 0, 0, 0, 64, 64, 64, 64, 0, 0, 0, 0, 64, 64, 64, 64 },
	{ 0, 0, 0, 0, 0, 64, 64, 64, 0, 0, 0, 0, 0, 64, 64, 64 },
	{ 0, 0, 0, 0, 0, 0, 64, 64, 0, 0, 0, 0, 0, 0, 64, 64 },
	{ 0, 0, 0, 0, 0, 0, 0, 64, 0, 0, 0, 0, 0, 0, 0, 64 },
	{ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
};

/**
 * memfilter_bloom_contains_hash_avx2() - query one hash with AVX2
 * @b: the filter
 * @hash: the key's hash
 *
 * Context: between memfilter_simd_begin() (true) and memfilter_simd_end(); otherwise as
 * memfilter_bloom_contains_hash().
 * Return: as memfilter_bloom_contains_hash().
 */
MF_AVX2 bool memfilter_bloom_contains_hash_avx2(const struct memfilter_bloom *b, u64 hash)
{
	__m256i lo, hi;

	memfilter_bloom_avx2_pattern_table(hash, b->p.k, &lo, &hi);
	return memfilter_bloom_avx2_has_pattern(memfilter_bloom_block_ptr(b, hash), lo, hi);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_contains_hash_avx2);

/**
 * memfilter_bloom_add_hash_avx2() - insert one hash with AVX2
 * @b: the filter
 * @hash: the key's hash
 *
 * Context: between memfilter_simd_begin() (true) and memfilter_simd_end(); otherwise as
 * memfilter_bloom_add_hash().
 */
MF_AVX2 void memfilter_bloom_add_hash_avx2(struct memfilter_bloom *b, u64 hash)
{
	struct memfilter_bloom_avx2 c;

	memfilter_bloom_avx2_init(&c, b->p.k);
	memfilter_bloom_avx2_set(&c, memfilter_bloom_block_ptr(b, hash), hash);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_add_hash_avx2);

/**
 * memfilter_bloom_add_hash_exclusive_avx2() - insert one hash, AVX2, only writer
 * @b: the filter
 * @hash: the key's hash
 *
 * Context: between memfilter_simd_begin() (true) and memfilter_simd_end(); otherwise as
 * memfilter_bloom_add_hash_exclusive().
 */
MF_AVX2 void memfilter_bloom_add_hash_exclusive_avx2(struct memfilter_bloom *b, u64 hash)
{
	struct memfilter_bloom_avx2 c;

	memfilter_bloom_avx2_init(&c, b->p.k);
	memfilter_bloom_avx2_set_exclusive(&c, memfilter_bloom_block_ptr(b, hash), hash);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_add_hash_exclusive_avx2);

/**
 * memfilter_bloom_add_hashes_avx2() - insert many hashes with AVX2
 * @b: the filter
 * @hashes: the keys' hashes
 * @n: how many, at most MEMFILTER_SIMD_CHUNK
 *
 * Context: between memfilter_simd_begin() (true) and memfilter_simd_end(); otherwise as
 * memfilter_bloom_add_hash().
 */
MF_AVX2 void memfilter_bloom_add_hashes_avx2(struct memfilter_bloom *b, const u64 *hashes, size_t n)
{
	struct memfilter_bloom_avx2 c;
	size_t i;

	memfilter_bloom_avx2_init(&c, b->p.k);
	for (i = 0; i < MEMFILTER_BLOOM_AHEAD && i < n; i++)
		memfilter_bloom_prefetch(b, hashes, i, n);
	for (i = 0; i < n; i++) {
		memfilter_bloom_prefetch(b, hashes, i + MEMFILTER_BLOOM_AHEAD, n);
		memfilter_bloom_avx2_set(&c, memfilter_bloom_block_ptr(b, hashes[i]),
					 hashes[i]);
	}
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_add_hashes_avx2);

/**
 * memfilter_bloom_test_and_add_hashes_avx2() - test-and-add with AVX2
 * @b: the filter
 * @hashes: the keys' hashes
 * @n: how many, at most MEMFILTER_SIMD_CHUNK
 * @result_bitmap: as memfilter_bloom_test_and_add_hashes()
 *
 * Context: between memfilter_simd_begin() (true) and memfilter_simd_end();
 * otherwise as memfilter_bloom_add_hash().
 */
MF_AVX2 void
memfilter_bloom_test_and_add_hashes_avx2(struct memfilter_bloom *b, const u64 *hashes, size_t n,
					 unsigned long *result_bitmap)
{
	struct memfilter_bloom_avx2 c;
	unsigned long acc = 0, had;
	__m256i lo, hi;
	u64 *blk;
	size_t i;

	memfilter_bloom_avx2_init(&c, b->p.k);
	for (i = 0; i < MEMFILTER_BLOOM_AHEAD && i < n; i++)
		memfilter_bloom_prefetch(b, hashes, i, n);
	for (i = 0; i < n; i++) {
		memfilter_bloom_prefetch(b, hashes, i + MEMFILTER_BLOOM_AHEAD, n);
		blk = memfilter_bloom_block_ptr(b, hashes[i]);
		memfilter_bloom_avx2_pattern(&c, hashes[i], &lo, &hi);
		had = memfilter_bloom_avx2_set_pattern(blk, lo, hi);
		acc |= had << (i % BITS_PER_LONG);
		if (i % BITS_PER_LONG == BITS_PER_LONG - 1 || i == n - 1) {
			result_bitmap[i / BITS_PER_LONG] = acc;
			acc = 0;
		}
	}
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_test_and_add_hashes_avx2);

/**
 * memfilter_bloom_add_hashes_exclusive_avx2() - insert many, AVX2, only writer
 * @b: the filter
 * @hashes: the keys' hashes
 * @n: how many, at most MEMFILTER_SIMD_CHUNK
 *
 * Context: between memfilter_simd_begin() (true) and memfilter_simd_end(); otherwise as
 * memfilter_bloom_add_hash_exclusive().
 */
MF_AVX2 void
memfilter_bloom_add_hashes_exclusive_avx2(struct memfilter_bloom *b, const u64 *hashes, size_t n)
{
	struct memfilter_bloom_avx2 c;
	size_t i;

	memfilter_bloom_avx2_init(&c, b->p.k);
	for (i = 0; i < MEMFILTER_BLOOM_AHEAD && i < n; i++)
		memfilter_bloom_prefetch(b, hashes, i, n);
	for (i = 0; i < n; i++) {
		memfilter_bloom_prefetch(b, hashes, i + MEMFILTER_BLOOM_AHEAD, n);
		memfilter_bloom_avx2_set_exclusive(&c,
						   memfilter_bloom_block_ptr(b, hashes[i]),
					    hashes[i]);
	}
}

/**
 * memfilter_bloom_contains_hashes_avx2() - query many hashes with AVX2
 * @b: the filter
 * @hashes: the keys' hashes
 * @n: how many, at most MEMFILTER_SIMD_CHUNK
 * @result_bitmap: DIV_ROUND_UP(@n, BITS_PER_LONG) words; bit i is set if
 *	key i may be present, cleared if not; bits past @n are cleared
 *
 * Context: between memfilter_simd_begin() (true) and memfilter_simd_end(); otherwise as
 * memfilter_bloom_contains_hash().
 */
MF_AVX2 void
memfilter_bloom_contains_hashes_avx2(const struct memfilter_bloom *b, const u64 *hashes, size_t n,
				     unsigned long *result_bitmap)
{
	/* A copy the result stores cannot alias: no reloads per key. */
	const struct memfilter_bloom f = *b;
	struct memfilter_bloom_avx2 c;
	size_t i, j, run;

	memfilter_bloom_avx2_init(&c, f.p.k);
	for (i = 0; i < MEMFILTER_BLOOM_AHEAD && i < n; i++)
		memfilter_bloom_prefetch(&f, hashes, i, n);
	/* Runs of up to BITS_PER_LONG keys, one result word each. */
	for (i = 0; i < n; i += run) {
		unsigned long acc = 0;

		run = min(n - i, (size_t)BITS_PER_LONG);
		for (j = 0; j < run; j++) {
			u64 h = hashes[i + j];
			const u64 *blk = memfilter_bloom_block_ptr(&f, h);

			memfilter_bloom_prefetch(&f, hashes,
						 i + j + MEMFILTER_BLOOM_AHEAD, n);
			acc |= (unsigned long)memfilter_bloom_avx2_test(&c, blk, h) << j;
		}
		result_bitmap[i / BITS_PER_LONG] = acc;
	}
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_contains_hashes_avx2);

/* A key batch call's key, AVX2; @ctx is the pattern's constants. */
static __always_inline MF_AVX2 bool mf_bloom_avx2_keys_one(const void *ctx, u64 *blk,
							   u64 hash,
							   enum memfilter_bloom_op op)
{
	if (op == MEMFILTER_BLOOM_OP_ADD)
		memfilter_bloom_avx2_set(ctx, blk, hash);
	else if (op == MEMFILTER_BLOOM_OP_ADD_EXCLUSIVE)
		memfilter_bloom_avx2_set_exclusive(ctx, blk, hash);
	else
		return memfilter_bloom_avx2_test(ctx, blk, hash);
	return false;
}

/**
 * memfilter_bloom_keys_avx2() - one section of a key batch call, AVX2
 * @b: the filter (not written for MEMFILTER_BLOOM_OP_CONTAINS)
 * @r: the ring of hashes ahead, as &struct memfilter_bloom_ring says
 * @keys: all @n keys, @key_len bytes each
 * @key_len: the size of each key
 * @start: the first key of the section, a multiple of BITS_PER_LONG
 * @m: keys in the section, at most MEMFILTER_SIMD_CHUNK
 * @n: keys in the whole call
 * @result_bitmap: the whole call's result bitmap (MEMFILTER_BLOOM_OP_CONTAINS)
 * @op: what to do with each key
 *
 * Context: between memfilter_simd_begin() (true) and memfilter_simd_end().
 */
MF_AVX2 void
memfilter_bloom_keys_avx2(struct memfilter_bloom *b, struct memfilter_bloom_ring *r,
			  const void *keys, size_t key_len, size_t start, size_t m, size_t n,
			  unsigned long *result_bitmap, enum memfilter_bloom_op op)
{
	/* A local copy, as memfilter_bloom_keys_section() says. */
	const struct memfilter_bloom f = *b;
	struct memfilter_bloom_avx2 c;

	memfilter_bloom_avx2_init(&c, f.p.k);
	memfilter_bloom_keys_section_op(&f, r, keys, key_len, start, m, n,
					result_bitmap, op, mf_bloom_avx2_keys_one, &c);
}

/* The AVX2 walk's key (memfilter_bloom_walk()); @ctx its constants. */
static __always_inline MF_AVX2 bool mf_bloom_avx2_walk_one(const void *ctx, u64 *blk,
							   u64 hash)
{
	__m256i lo, hi;

	memfilter_bloom_avx2_pattern(ctx, hash, &lo, &hi);
	return memfilter_bloom_avx2_set_locked(blk, lo, hi);
}

/**
 * memfilter_bloom_walk_avx2() - one sorted chunk under its stripe locks, AVX2
 * @b: the filter, with stripes attached
 * @hashes: the chunk's hashes
 * @s: them sorted by stripe (memfilter_bloom_sort())
 * @result_bitmap: cleared words for the chunk's keys, or NULL (add)
 *
 * memfilter_bloom_walk() with the key's pattern in two YMM registers: the
 * same bits and answers as the scalar walk.
 *
 * Context: between memfilter_simd_begin() (true) and memfilter_simd_end(),
 * bottom halves disabled; otherwise as memfilter_bloom_add_hashes_locked().
 */
MF_AVX2 void memfilter_bloom_walk_avx2(struct memfilter_bloom *b, const u64 *hashes,
				       const struct memfilter_bloom_sort *s,
				       unsigned long *result_bitmap)
{
	struct memfilter_bloom_avx2 c;

	memfilter_bloom_avx2_init(&c, b->p.k);
	memfilter_bloom_walk(b, hashes, s, result_bitmap, mf_bloom_avx2_walk_one, &c);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_bloom_walk_avx2);
