/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The C half of the Bloom filter benchmark (bloom_bench_mf.c): memfilter's
 * filter and the memory-limit probe, timed in C because core/ is C, and
 * called from the C++ driver (bloom_bench.cc) that also runs RocksDB.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_BLOOM_BENCH_H
#define _MEMFILTER_BLOOM_BENCH_H

#include <stddef.h>
#include <stdint.h>

/*
 * ns per key (medians of 3), measured FPR and bits per key; -1: not run.
 * ins_x, ins_xb: the exclusive (single-writer) insert, one key at a time
 * and batched.
 */
struct mfb_row {
	double ins, ins_b, ins_x, ins_xb, qp, qa, qp_b, qa_b, fpr, bpk;
};

/* Filter and probe tables on madvise(MADV_HUGEPAGE) mappings if set. */
extern int mfb_huge;
/* Skip the one-key-at-a-time inserts (slow at 256 MiB). */
extern int mfb_quick;

double mfb_now_ns(void);
void *mfb_alloc(size_t bytes);
void mfb_free(void *p, size_t bytes);
void mfb_memfilter(const uint64_t *keys, size_t n, const uint64_t *absent,
		   size_t nq, int reps_ins, struct mfb_row *r);
void mfb_probe(const uint64_t *keys, size_t bytes, size_t nq,
	       struct mfb_row *r);

#endif /* _MEMFILTER_BLOOM_BENCH_H */
