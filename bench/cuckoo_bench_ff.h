/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fastfilter_cpp's Cuckoo12 for bench/cuckoo_bench.c (cuckoo_bench_ff.cc):
 * a filter sized by its own constructor for n keys, hashing with its own
 * hash family (FFC_OWN_HASH) or with memfilter's key hash (a
 * MEMFILTER_HASH_* algorithm, seed 1: ff_mfhash.h); add and query return
 * the failed inserts and the hits.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_CUCKOO_BENCH_FF_H
#define _MEMFILTER_CUCKOO_BENCH_FF_H

#include <stddef.h>
#include <stdint.h>

/* ffc_new()'s @hash for fastfilter as published (hashing::SimpleMixSplit). */
#define FFC_OWN_HASH	(-1)

struct ffc;
struct ffc *ffc_new(size_t n, int hash);
void ffc_free(struct ffc *c);
size_t ffc_add(struct ffc *c, const uint64_t *k, size_t n);
uint64_t ffc_query(const struct ffc *c, const uint64_t *k, size_t n);
size_t ffc_bytes(const struct ffc *c);

#endif /* _MEMFILTER_CUCKOO_BENCH_FF_H */
