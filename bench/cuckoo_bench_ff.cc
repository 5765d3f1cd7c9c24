// SPDX-License-Identifier: GPL-2.0
/*
 * fastfilter_cpp's Cuckoo12 (github.com/FastFilter/fastfilter_cpp, the
 * cuckoo filter paper's reference code), behind a C interface for
 * bench/cuckoo_bench.c: as published, or fed memfilter's key hash
 * (MfHash, a reference row, not a peer). Built only with
 * FASTFILTER_DIR=<a checkout> (never vendored): without it the benchmark
 * prints that its rows are skipped.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <cstddef>
#include <cstdint>

#include "cuckoofilter.h"

#include "ff_mfhash.h"

extern "C" {
#include "cuckoo_bench_ff.h"
}

/* One loop per call; the filter's Add and Contain inline into it. */
struct ffc {
	virtual ~ffc() {}
	virtual size_t add(const uint64_t *k, size_t n) = 0;
	virtual uint64_t query(const uint64_t *k, size_t n) const = 0;
	virtual size_t bytes() const = 0;
};

template <class H>
struct ffc_of : ffc {
	cuckoofilter::CuckooFilter<uint64_t, 12, cuckoofilter::SingleTable, H> f;

	explicit ffc_of(size_t n) : f(n) {}

	size_t add(const uint64_t *k, size_t n) override
	{
		size_t fail = 0;

		for (size_t i = 0; i < n; i++)
			fail += f.Add(k[i]) != cuckoofilter::Ok;
		return fail;
	}

	uint64_t query(const uint64_t *k, size_t n) const override
	{
		uint64_t hits = 0;

		for (size_t i = 0; i < n; i++)
			hits += f.Contain(k[i]) == cuckoofilter::Ok;
		return hits;
	}

	size_t bytes() const override { return f.SizeInBytes(); }
};

struct ffc *ffc_new(size_t n, int hash)
{
	if (hash == FFC_OWN_HASH)
		return new ffc_of<hashing::SimpleMixSplit>(n);
	MfHash::algo = hash;
	return new ffc_of<MfHash>(n);
}

void ffc_free(struct ffc *c)
{
	delete c;
}

size_t ffc_add(struct ffc *c, const uint64_t *k, size_t n)
{
	return c->add(k, n);
}

uint64_t ffc_query(const struct ffc *c, const uint64_t *k, size_t n)
{
	return c->query(k, n);
}

size_t ffc_bytes(const struct ffc *c)
{
	return c->bytes();
}
