/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The C half of the filter benchmark (bloom_bench_mf.c): memfilter's Bloom
 * and cuckoo filters, built from the same core/ sources as the module, and
 * the memory-limit probe, each operation one loop over a key array. Timed
 * and reported by the C++ driver (bloom_bench.cc), which also runs
 * fastfilter_cpp and RocksDB over the same keys.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_BLOOM_BENCH_H
#define _MEMFILTER_BLOOM_BENCH_H

#include <stddef.h>
#include <stdint.h>

/* Tables on madvise(MADV_HUGEPAGE) mappings if set, MADV_NOHUGEPAGE if not. */
extern int mfb_huge;
/* memfilter's Bloom filters hash with XXH3 if set, XXH64 if not. */
extern int mfb_xxh3;
/* Prefetch distance of memfilter's batch loops, for the probe and peers. */
extern const size_t mfb_ahead;

void *mfb_alloc(size_t bytes);
void mfb_free(void *p, size_t bytes);

/*
 * How mfb_bloom_new() sizes memfilter's Bloom filters: @mfb_fpr 0 for 10
 * bits/key, else for that rate (memfilter_bloom_params_from_fpr()); in
 * @mfb_layout (0 LINE64, 1 SPLIT32, core/bloom.h).
 */
extern double mfb_fpr;
extern int mfb_layout;

/* memfilter's blocked Bloom filter, 10 bits/key, XXH3 (--xxh64: XXH64). */
struct mfb_bloom;
struct mfb_bloom *mfb_bloom_new(size_t n, size_t *bytes);
void mfb_bloom_clear(struct mfb_bloom *b);
void mfb_bloom_free(struct mfb_bloom *b);
void mfb_bloom_add(struct mfb_bloom *b, const uint64_t *k, size_t n);
void mfb_bloom_add_batch(struct mfb_bloom *b, const uint64_t *k, size_t n);
void mfb_bloom_add_x(struct mfb_bloom *b, const uint64_t *k, size_t n);
void mfb_bloom_add_x_batch(struct mfb_bloom *b, const uint64_t *k, size_t n);
uint64_t mfb_bloom_query(const struct mfb_bloom *b, const uint64_t *k,
			 size_t n);
/* Keys of @len bytes back to back, one single-key call each. */
void mfb_bloom_add_len(struct mfb_bloom *b, const uint8_t *k, size_t len,
		       size_t n);
uint64_t mfb_bloom_query_len(const struct mfb_bloom *b, const uint8_t *k,
			     size_t len, size_t n);
uint64_t mfb_bloom_tadd_len(struct mfb_bloom *b, const uint8_t *k, size_t len,
			    size_t n);
uint64_t mfb_bloom_query_batch(const struct mfb_bloom *b, const uint64_t *k,
			       size_t n);
/* The module's paths: ops hash + ops->contains, per key and per 256. */
uint64_t mfb_bloom_query_ops(const struct mfb_bloom *b, const uint64_t *k,
			     size_t n);
uint64_t mfb_bloom_query_ops_batch(const struct mfb_bloom *b,
				   const uint64_t *k, size_t n);
/* The module's windows through the scalar code (no SIMD section). */
uint64_t mfb_bloom_query_scalar_batch(const struct mfb_bloom *b,
				      const uint64_t *k, size_t n);

/*
 * The module's single-key path as the kernel builds it (scalar, -O2 for
 * generic x86-64: bloom_bench_kpath.c).
 */
uint64_t mfb_bloom_query_kpath(const struct mfb_bloom *b, const uint64_t *k,
			       size_t n);

/* The core's inline single-key pieces in the caller's loop (AVX2). */
uint64_t mfb_bloom_query_inline(const struct mfb_bloom *b, const uint64_t *k,
				size_t n);

/* memfilter's cuckoo filter, 12-bit fingerprints, sized for n keys. */
struct mfb_cuckoo;
struct mfb_cuckoo *mfb_cuckoo_new(size_t n, size_t *bytes);
void mfb_cuckoo_clear(struct mfb_cuckoo *c);
void mfb_cuckoo_free(struct mfb_cuckoo *c);
size_t mfb_cuckoo_add(struct mfb_cuckoo *c, const uint64_t *k, size_t n);
uint64_t mfb_cuckoo_query(const struct mfb_cuckoo *c, const uint64_t *k,
			  size_t n);
uint64_t mfb_cuckoo_query_batch(const struct mfb_cuckoo *c, const uint64_t *k,
				size_t n);

/* The memory-limit probe: one random 64-byte line per key (see .c). */
struct mfb_probe;
struct mfb_probe *mfb_probe_new(size_t bytes);
void mfb_probe_free(struct mfb_probe *p);
uint64_t mfb_probe_batch(const struct mfb_probe *p, const uint64_t *k,
			 size_t n);
uint64_t mfb_probe_single(const struct mfb_probe *p, const uint64_t *k,
			  size_t n);

/* Writer-lock designs for concurrent inserts (prototypes, not in core/). */
void mfb_proto_add_stripe(struct mfb_bloom *b, const uint64_t *k, size_t n,
			  unsigned int stripes);
void mfb_proto_add_batch_stripe(struct mfb_bloom *b, const uint64_t *k,
				size_t n, unsigned int stripes);
extern int mfb_proto_avx2;
/* The core's stripe-locked inserts; stripes attached (1) or not (0). */
void mfb_bloom_stripes(struct mfb_bloom *b, int on);
void mfb_bloom_add_locked(struct mfb_bloom *b, const uint64_t *k, size_t n);
void mfb_bloom_add_scalar1(struct mfb_bloom *b, const uint64_t *k, size_t n);
/* Chunks hashed first, then memfilter_bloom_add_hashes[_locked](). */
void mfb_bloom_add_hashed(struct mfb_bloom *b, const uint64_t *k, size_t n,
			  int locked);
/* The probe storing: 0 lock-prefixed OR, 1 plain RMW, 2 hot lock + RMW. */
void mfb_probe_store(struct mfb_probe *p, const uint64_t *k, size_t n,
		     int how);

#endif /* _MEMFILTER_BLOOM_BENCH_H */
