/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the native tests: a reproducible stream of numbers
 * and runs of 8-byte keys. Everything is static inline so that each test
 * takes only what it uses.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MF_NATIVE_UTILS_H
#define _MF_NATIVE_UTILS_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* The next number of a reproducible stream (splitmix64) of state @s. */
static inline uint64_t mf_test_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Keys @base .. @base + @n - 1 as 8-byte little-endian integers; free() them. */
static inline uint64_t *mf_test_keys(size_t n, uint64_t base)
{
	uint64_t *keys = malloc(n * sizeof(*keys));

	for (size_t i = 0; i < n; i++)
		keys[i] = htole64(base + i);
	return keys;
}

#endif /* _MF_NATIVE_UTILS_H */
