// SPDX-License-Identifier: GPL-2.0
/*
 * The per-key work of bench/bpf_bench.c's race, natively (no emulation):
 * what bpf_map_peek_elem() on a BPF_MAP_TYPE_BLOOM_FILTER map does for a
 * 4-byte key (kernel/bpf/bloom_filter.c in 6.12: nr_hash_funcs rounds of
 * jhash2() with seed + i, one bit tested per round, out at the first clear
 * bit) against what memfilter's contains kfunc does (module/api.c's
 * single-key path: XXH64 of the key, then one block of the blocked Bloom
 * filter, scalar as in the kernel), and the batch kfunc's per-key work
 * (XXH64 of each key, then the block tests of 64 hashes, AVX2 and scalar).
 * Same filters as the guest race: 10000 IPv4 keys (10.0.0.0/8) in 131072
 * bits each, the map with 7 hash functions, memfilter with k=5; present
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

/* memfilter_contains() on a Bloom filter: hash, one block, scalar. */
static noinline int mf_peek(const struct memfilter_bloom *b, const void *key,
			    u32 len)
{
	u64 h = memfilter_hash(&b->p.hasher, key, len);

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

enum way { MAP, MF, MF_BATCH_AVX2, MF_BATCH_SCALAR, NWAY };

static volatile long sink;

/* Best of REPS passes of @way over @keys, ns per key; *@hits: may be present. */
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
			if (way == MAP)
				h += kb_peek(kb, &keys[i]) == 0;
			else if (way == MF)
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

int main(void)
{
	static const char *const names[NWAY] = {
		"Bloom map peek: 7 x jhash2 + bit test (kernel code)",
		"memfilter contains: XXH64 + one block, scalar",
		"memfilter batch of 64, per key: XXH64 each + AVX2 blocks",
		"memfilter batch of 64, per key: XXH64 each + scalar blocks",
	};
	static u32 present[NKEYS], absent[NKEYS];
	unsigned int hits[NWAY][2];
	double t[NWAY][2];
	struct memfilter_bloom b;
	struct kbloom kb = {
		.value_size = 4, .bitset_mask = BITS - 1, .nr_hash_funcs = 7,
	};
	u64 seed = 42;
	int i, w;

	/* 16384 keys x 8 bits (q4: 32) = 131072 bits, as bpf_bench makes it. */
	if (memfilter_bloom_params_from_bpk(&b.p, 16384, 8 * 4) ||
	    memfilter_hasher_init(&b.p.hasher, MEMFILTER_HASH_XXH64, 42, NULL))
		return 1;
	b.words = bench_zalloc(memfilter_bloom_bytes(&b.p));
	kb.bitset = bench_zalloc(BITS / 8);
	kb.hash_seed = (u32)bench_splitmix64(&seed);	/* random per map */
	for (i = 0; i < NKEYS; i++) {
		present[i] = htonl(0x0a000000 | i);
		absent[i] = htonl(0xac100000 | i);
		memfilter_bloom_add_hash(&b, memfilter_hash(&b.p.hasher,
							    &present[i], 4));
		kb_push(&kb, &present[i]);
	}
	for (w = 0; w < NWAY; w++) {
		t[w][0] = run(w, &kb, &b, present, &hits[w][0]);
		t[w][1] = run(w, &kb, &b, absent, &hits[w][1]);
	}

	printf("Native, this host (not the guest): the same hashing and probing per key as the guest race (bench/bpf_key_bench.c, gcc -O3 -march=native), %d IPv4 keys, filters of %d bits (memfilter k=%u), best of %d passes, ns per key:\n\n",
	       NKEYS, BITS, b.p.k, REPS);
	printf("| work per key | present keys | absent keys | may be present (of %d absent) |\n|---|---|---|---|\n",
	       NKEYS);
	for (w = 0; w < NWAY; w++)
		printf("| %s | %.2f | %.2f | %u |\n", names[w], t[w][0],
		       t[w][1], hits[w][1]);
	printf("\nmemfilter contains / map peek: %.2f (present), %.2f (absent); batch (AVX2) per key / map peek: %.2f, %.2f; batch (scalar) per key / map peek: %.2f, %.2f.\n",
	       t[MF][0] / t[MAP][0], t[MF][1] / t[MAP][1],
	       t[MF_BATCH_AVX2][0] / t[MAP][0], t[MF_BATCH_AVX2][1] / t[MAP][1],
	       t[MF_BATCH_SCALAR][0] / t[MAP][0],
	       t[MF_BATCH_SCALAR][1] / t[MAP][1]);
	return 0;
}
