// SPDX-License-Identifier: GPL-2.0
/*
 * Out-of-line entry points for memfilter's key hashing (see hash.h), built
 * into the module and into libmemfilter from this one file.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include "hash.h"

/**
 * memfilter_xxh64() - XXH64 of a buffer
 * @data: the bytes to hash, any alignment
 * @len: how many
 * @seed: the seed
 *
 * Context: any.
 * Return: the XXH64 hash, identical to the reference implementation.
 */
u64 memfilter_xxh64(const void *data, size_t len, u64 seed)
{
	return mf_xxh64(data, len, seed);
}
EXPORT_SYMBOL_GPL(memfilter_xxh64);

/**
 * memfilter_siphash24() - SipHash-2-4 of a buffer
 * @data: the bytes to hash, any alignment
 * @len: how many
 * @key: the 128-bit secret as two 64-bit words
 *
 * Context: any.
 * Return: the SipHash-2-4 hash, identical to the reference implementation.
 */
u64 memfilter_siphash24(const void *data, size_t len, const u64 key[2])
{
	return mf_siphash24(data, len, key);
}
EXPORT_SYMBOL_GPL(memfilter_siphash24);

/**
 * memfilter_hasher_init() - set up a filter's hasher
 * @h: the hasher to fill in
 * @algo: MF_HASH_XXH64 or MF_HASH_SIPHASH24
 * @seed: the XXH64 seed
 * @key: the SipHash secret; must not be all zero for MF_HASH_SIPHASH24
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
	case MF_HASH_XXH64:
		h->seed = seed;
		break;
	case MF_HASH_SIPHASH24:
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
EXPORT_SYMBOL_GPL(memfilter_hasher_init);

/**
 * memfilter_hash() - a key's 64-bit hash under a filter's hasher
 * @h: a hasher set up by memfilter_hasher_init()
 * @data: the key
 * @len: its length
 *
 * Context: any.
 * Return: the key's hash.
 */
u64 memfilter_hash(const struct memfilter_hasher *h, const void *data,
		   size_t len)
{
	return mf_hash(h, data, len);
}
EXPORT_SYMBOL_GPL(memfilter_hash);
