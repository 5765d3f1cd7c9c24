// SPDX-License-Identifier: GPL-2.0
/*
 * Setting up a filter's hasher (see hash.h), built into the module and into
 * libmemfilter from this one file. The hash functions themselves are inline
 * in hash.h, so the module exports no copy of XXH64 or SipHash.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include "hash.h"

/**
 * memfilter_hasher_init() - set up a filter's hasher
 * @h: the hasher to fill in
 * @algo: MEMFILTER_HASH_XXH64 or MEMFILTER_HASH_SIPHASH24
 * @seed: the XXH64 seed
 * @key: the SipHash secret; must not be all zero for MEMFILTER_HASH_SIPHASH24
 *
 * Context: any.
 * Return: 0, or -EOPNOTSUPP for an unknown @algo, or -EINVAL for a SipHash
 * hasher without a secret.
 */
int memfilter_hasher_init(struct memfilter_hasher *h, u32 algo, u64 seed,
			  const u64 key[2])
{
	memset(h, 0, sizeof(*h));
	switch (algo) {
	case MEMFILTER_HASH_XXH64:
		h->seed = seed;
		break;
	case MEMFILTER_HASH_SIPHASH24:
		if (!key || !(key[0] | key[1]))
			return -EINVAL;
		h->key[0] = key[0];
		h->key[1] = key[1];
		break;
	default:
		return -EOPNOTSUPP;
	}
	h->algo = algo;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_hasher_init);
