/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memfilter's pinned key hash (core/hash.h: XXH64, or XXH3; seed 1, as
 * the benches' memfilter rows) as a fastfilter_cpp hash family, inlined as
 * in memfilter's own loops. fastfilter's tables fed with it are reference
 * rows, not peers: they show how much of the gap to fastfilter is the hash
 * alone. Shared by bloom_bench.cc and cuckoo_bench_ff.cc.
 *
 * Include after the C++ and fastfilter headers: hash.h (through
 * core/userspace.h) defines min and max as macros, undone here. Also gives
 * u64.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_FF_MFHASH_H
#define _MEMFILTER_FF_MFHASH_H

#include <cstdlib>

extern "C" {
#include "hash.h"
}
#undef min
#undef max

struct MfHash {
	/* The algorithm of the MfHash objects constructed from now on. */
	static inline u32 algo = MEMFILTER_HASH_XXH64;

	struct memfilter_hasher h;

	MfHash()
	{
		if (memfilter_hasher_init(&h, algo, 1, NULL))
			abort();
	}
	u64 operator()(u64 key) const { return memfilter_hash(&h, &key, 8); }
	static const char *name() { return algo == MEMFILTER_HASH_XXH3 ? "XXH3" : "XXH64"; }
};

#endif /* _MEMFILTER_FF_MFHASH_H */
