// SPDX-License-Identifier: GPL-2.0
/*
 * The per-key work of bench/bpf_bench.c's race, natively (no emulation):
 * what bpf_map_peek_elem() on a BPF_MAP_TYPE_BLOOM_FILTER map does for a
 * 4-byte key (kernel/bpf/bloom_filter.c in 6.12: nr_hash_funcs rounds of
 * jhash2() with seed + i, one bit tested per round, out at the first clear
 * bit) against what memfilter's contains kfunc does (module/abi/api.c's
 * single-key path: the key's hash, then one block of the blocked Bloom
 * filter, scalar as in the kernel), and the batch kfunc's per-key work
 * (the hash of each key, then the block tests of 64 hashes, AVX2 and
 * scalar). memfilter hashes with XXH3, the default, and for reference
 * with XXH64. Same filters as the guest race: 10000 IPv4 keys
 * (10.0.0.0/8) in 131072 bits each, maps with 4 (the peer of equal FPR
 * and memory), 5 and 7 hash functions, memfilter with k=5; present
 * keys and absent ones (172.16.0.0/12). jhash2() is the kernel's own
 * include/linux/jhash.h (Debian's 6.12 headers, KERNEL_JHASH_H at build
 * time). One call per key through a function that is not inlined, as
 * the verifier's direct call to the map's peek and the kfunc call are.
 * Best of REPS passes over the keys, ns per key. Leaves out what only the
 * kernel has: the BPF call, RCU, the per-CPU counters of the kfunc,
 * kernel_fpu_begin() for the AVX2 batch. A benchmark: it asserts nothing.
 *
 *   make bench/bpf_key_bench && bench/bpf_key_bench
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>

#include "bloom.h"
#include "bench_util.h"

#include KERNEL_JHASH_H

#define NKEYS	10000
#define BITS	131072
#define REPS	21
#define BATCH	64

/* kernel/bpf/bloom_filter.c's struct bpf_bloom_filter, less the map. */
struct kbloom {
	u32 value_size;
	u32 bitset_mask;
	u32 hash_seed;
	u32 nr_hash_funcs;
	unsigned long *bitset;
};

/* bloom_filter.c's hash(), line for line. */
static u32 kb_hash(const struct kbloom *bloom, const void *value,
		   u32 value_size, u32 index)
{
	u32 h;

	if (likely(value_size % 4 == 0))
		h = jhash2(value, value_size / 4, bloom->hash_seed + index);
	else
		h = jhash(value, value_size, bloom->hash_seed + index);
	return h & bloom->bitset_mask;
}

static int kb_test_bit(u32 h, const unsigned long *bitset)
{
	return (bitset[h / BITS_PER_LONG] >> (h % BITS_PER_LONG)) & 1;
}

/* bloom_map_peek_elem(): 0 or -ENOENT. */
static noinline long kb_peek(const struct kbloom *bloom, const void *value)
{
	u32 i, h;

	for (i = 0; i < bloom->nr_hash_funcs; i++) {
		h = kb_hash(bloom, value, bloom->value_size, i);
		if (!kb_test_bit(h, bloom->bitset))
			return -ENOENT;
	}
	return 0;
}

/* bloom_map_push_elem() (not timed). */
static void kb_push(struct kbloom *bloom, const void *value)
{
	u32 i, h;

	for (i = 0; i < bloom->nr_hash_funcs; i++) {
		h = kb_hash(bloom, value, bloom->value_size, i);
		bloom->bitset[h / BITS_PER_LONG] |= 1UL << (h % BITS_PER_LONG);
	}
}

/*
 * memfilter_contains() on a Bloom filter, as the kernel runs it: the key
 * hashed straight-line (memfilter_bloom_contains_key()'s
 * memfilter_hash_fixed()), one block, scalar.
 */
static noinline int mf_peek(const struct memfilter_bloom *b, const void *key,
			    u32 len)
{
	u64 h = memfilter_hash_lean(&b->p.hasher, key, len);

	return memfilter_bloom_contains_hash_scalar(b, h) ? 0 : -ENOENT;
}

/*
 * memfilter_contains_batch() on @n keys of 4 bytes: hash each, then test
 * the block of each hash, AVX2 or scalar. Returns the keys that may be
 * present.
 */
static noinline u32 mf_batch(const struct memfilter_bloom *b, const u32 *keys,
			     size_t n, int avx2)
{
	unsigned long res[BATCH / BITS_PER_LONG];
	u64 h[BATCH];
	u32 hits = 0;
	size_t i;

	for (i = 0; i < n; i++)
		h[i] = memfilter_hash(&b->p.hasher, &keys[i], 4);
	if (avx2)
		memfilter_bloom_contains_hashes_avx2(b, h, n, res);
	else
		memfilter_bloom_contains_hashes_scalar(b, h, n, res);
	for (i = 0; i < n / BITS_PER_LONG; i++)
		hits += __builtin_popcountl(res[i]);
	return hits;
}

enum way { MAP4, MAP5, MAP7, MF, MF_XXH64, MF_BATCH_AVX2, MF_BATCH_SCALAR,
	   NWAY };
/* The maps' hash functions, by way. */
static const u32 map_k[] = { [MAP4] = 4, [MAP5] = 5, [MAP7] = 7 };

static volatile long sink;

/*
 * Best of REPS passes of @way over @keys, ns per key, on @kb (a map way)
 * or @b (memfilter's); *@hits: may be present.
 */
static double run(enum way way, const struct kbloom *kb,
		  const struct memfilter_bloom *b, const u32 *keys,
		  unsigned int *hits)
{
	double best = 1e30;
	long acc = 0;

	for (int r = 0; r < REPS; r++) {
		unsigned int h = 0;
		double t0 = bench_now_ns(), t;

		for (int i = 0; i < NKEYS; i += way >= MF_BATCH_AVX2 ? BATCH : 1) {
			if (way <= MAP7)
				h += kb_peek(kb, &keys[i]) == 0;
			else if (way <= MF_XXH64)
				h += mf_peek(b, &keys[i], 4) == 0;
			else if (i + BATCH <= NKEYS)
				h += mf_batch(b, &keys[i], BATCH,
					      way == MF_BATCH_AVX2);
		}
		t = (bench_now_ns() - t0) /
		    (way >= MF_BATCH_AVX2 ? NKEYS / BATCH * BATCH : NKEYS);
		if (t < best)
			best = t;
		acc += h;
		*hits = h;
	}
	sink = acc;
	return best;
}

/* @b: 131072 bits (16384 keys x 8 bits, q4 32, as bpf_bench makes it). */
static int mf_make(struct memfilter_bloom *b, u32 algo)
{
	if (memfilter_bloom_params_from_bpk(&b->p, 16384, 8 * 4, MEMFILTER_BLOOM_LINE64) ||
	    memfilter_hasher_init(&b->p.hasher, algo, 42, NULL))
		return -1;
	b->words = bench_zalloc(memfilter_bloom_bytes(&b->p));
	return 0;
}

int main(void)
{
	static const char *const names[NWAY] = {
		"Bloom map peek, k=4 (equal FPR): 4 x jhash2 + bit test (kernel code)",
		"Bloom map peek, k=5",
		"Bloom map peek, k=7 (the default for 10000 entries)",
		"memfilter contains: XXH3 (the default) + one block, scalar",
		"memfilter contains: XXH64 + one block, scalar",
		"memfilter batch of 64, per key: XXH3 each + AVX2 blocks",
		"memfilter batch of 64, per key: XXH3 each + scalar blocks",
	};
	static u32 present[NKEYS], absent[NKEYS];
	unsigned int hits[NWAY][2];
	double t[NWAY][2];
	struct memfilter_bloom b[2];	/* XXH3, XXH64 */
	struct kbloom kb[3];		/* k = 4, 5, 7 */
	u64 seed = 42;
	int i, w;

	if (mf_make(&b[0], MEMFILTER_HASH_XXH3) ||
	    mf_make(&b[1], MEMFILTER_HASH_XXH64))
		return 1;
	for (w = 0; w < 3; w++) {
		kb[w] = (struct kbloom){
			.value_size = 4, .bitset_mask = BITS - 1,
			.nr_hash_funcs = map_k[w],
			.bitset = bench_zalloc(BITS / 8),
			/* random per map */
			.hash_seed = (u32)bench_splitmix64(&seed),
		};
	}
	for (i = 0; i < NKEYS; i++) {
		present[i] = htonl(0x0a000000 | i);
		absent[i] = htonl(0xac100000 | i);
		for (w = 0; w < 2; w++)
			memfilter_bloom_add_hash(&b[w],
				memfilter_hash(&b[w].p.hasher, &present[i], 4));
		for (w = 0; w < 3; w++)
			kb_push(&kb[w], &present[i]);
	}
	for (w = 0; w < NWAY; w++) {
		const struct kbloom *k = &kb[w <= MAP7 ? w : 0];
		const struct memfilter_bloom *f = &b[w == MF_XXH64];

		t[w][0] = run(w, k, f, present, &hits[w][0]);
		t[w][1] = run(w, k, f, absent, &hits[w][1]);
	}

	printf("Native, this host (not the guest): the same hashing and probing per key as the guest race (bench/bpf_key_bench.c, gcc -O3 -march=native), %d IPv4 keys, filters of %d bits (memfilter k=%u), best of %d passes, ns per key:\n\n",
	       NKEYS, BITS, b[0].p.k, REPS);
	printf("| work per key | present keys | absent keys | may be present (of %d absent) |\n|---|---|---|---|\n",
	       NKEYS);
	for (w = 0; w < NWAY; w++)
		printf("| %s | %.2f | %.2f | %u |\n", names[w], t[w][0],
		       t[w][1], hits[w][1]);
	printf("\nOver the map of equal FPR (k=4), present / absent keys: memfilter contains %.2f / %.2f (XXH64: %.2f / %.2f); batch per key, AVX2 %.2f / %.2f, scalar %.2f / %.2f. Over the k=7 map: contains %.2f / %.2f.\n",
	       t[MF][0] / t[MAP4][0], t[MF][1] / t[MAP4][1],
	       t[MF_XXH64][0] / t[MAP4][0], t[MF_XXH64][1] / t[MAP4][1],
	       t[MF_BATCH_AVX2][0] / t[MAP4][0], t[MF_BATCH_AVX2][1] / t[MAP4][1],
	       t[MF_BATCH_SCALAR][0] / t[MAP4][0],
	       t[MF_BATCH_SCALAR][1] / t[MAP4][1],
	       t[MF][0] / t[MAP7][0], t[MF][1] / t[MAP7][1]);
	return 0;
}
