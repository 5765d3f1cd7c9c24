// SPDX-License-Identifier: GPL-2.0
/*
 * fastfilter_cpp's Cuckoo12 (github.com/FastFilter/fastfilter_cpp, the
 * cuckoo filter paper's reference code), behind a C interface for
 * bench/cuckoo_bench.c. Built only with FASTFILTER_DIR=<a checkout>
 * (never vendored): without it the benchmark prints that its rows are
 * skipped.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <cstddef>
#include <cstdint>

#include "cuckoofilter.h"

extern "C" {
#include "cuckoo_bench_ff.h"
}

typedef cuckoofilter::CuckooFilter<uint64_t, 12, cuckoofilter::SingleTable,
				   hashing::SimpleMixSplit> FFCuckoo;

struct ffc {
	FFCuckoo f;
	explicit ffc(size_t n) : f(n) {}
};

struct ffc *ffc_new(size_t n)
{
	return new ffc(n);
}

void ffc_free(struct ffc *c)
{
	delete c;
}

size_t ffc_add(struct ffc *c, const uint64_t *k, size_t n)
{
	size_t fail = 0;

	for (size_t i = 0; i < n; i++)
		fail += c->f.Add(k[i]) != cuckoofilter::Ok;
	return fail;
}

uint64_t ffc_query(const struct ffc *c, const uint64_t *k, size_t n)
{
	uint64_t hits = 0;

	for (size_t i = 0; i < n; i++)
		hits += c->f.Contain(k[i]) == cuckoofilter::Ok;
	return hits;
}

size_t ffc_bytes(const struct ffc *c)
{
	return c->f.SizeInBytes();
}
