/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the native tests: a reproducible stream of numbers,
 * runs of 8-byte keys, the symbols of libmemfilter's version script,
 * tests run once per Bloom layout, fixtures run once per filter type and
 * an offline filter of any type. Everything is static inline so that
 * each test takes only what it uses.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MF_NATIVE_UTILS_H
#define _MF_NATIVE_UTILS_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libmemfilter.h"

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

/* The source tree (the Makefile passes it to tests that read its files). */
#ifndef MF_SRCDIR
#define MF_SRCDIR "."
#endif
#define MF_MAP_PATH MF_SRCDIR "/lib/libmemfilter.map"
#define MF_MAP_MAX 512
#define MF_MAP_NAME 64

/*
 * The names the version script @path exports: the identifiers followed by
 * ';' in a "global:" part of a node, each once. Return: how many (at most
 * @max), or -1 if @path cannot be read.
 */
static inline int mf_test_map_symbols(const char *path,
				      char names[][MF_MAP_NAME], int max)
{
	char line[256], name[MF_MAP_NAME];
	bool global = false;
	int n = 0, i;
	FILE *fp = fopen(path, "r");

	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		if (strstr(line, "global:")) {
			global = true;
		} else if (strstr(line, "local:") || strchr(line, '}')) {
			global = false;
		} else if (global && strchr(line, ';') &&
			   sscanf(line, " %63[A-Za-z0-9_] ;", name) == 1) {
			for (i = 0; i < n && strcmp(names[i], name); i++)
				;
			if (i == n && n < max)
				strcpy(names[n++], name);
		}
	}
	fclose(fp);
	return n;
}

/*
 * The Bloom layout (MEMFILTER_BLOOM_LINE64 or _SPLIT32) a test's helpers
 * give the filters they make, set by MF_LAYOUT_TEST().
 */
static uint32_t mf_test_layout __attribute__((unused));

/*
 * A test run on LINE64 filters (NAME) and again on SPLIT32 ones
 * (NAME_split32): its body sees the layout in mf_test_layout.
 */
#define MF_LAYOUT_TEST(name)						\
	static void name##_body(struct __test_metadata *_metadata);	\
	TEST(name)							\
	{								\
		mf_test_layout = MEMFILTER_BLOOM_LINE64;		\
		name##_body(_metadata);					\
	}								\
	TEST(name##_split32)						\
	{								\
		mf_test_layout = MEMFILTER_BLOOM_SPLIT32;		\
		name##_body(_metadata);					\
	}								\
	static void name##_body(struct __test_metadata *_metadata)

/*
 * The variants of FIXTURE @f, one per filter type (bloom, cuckoo, window,
 * grow): its tests see the type in variant->type.
 */
#define MF_TYPE_VARIANTS(f)						\
	FIXTURE_VARIANT(f) {						\
		int type;						\
	};								\
	FIXTURE_VARIANT_ADD(f, bloom) { .type = MF_TYPE_BLOOM };	\
	FIXTURE_VARIANT_ADD(f, cuckoo) { .type = MF_TYPE_CUCKOO };	\
	FIXTURE_VARIANT_ADD(f, window) { .type = MF_TYPE_WINDOW };	\
	FIXTURE_VARIANT_ADD(f, grow) { .type = MF_TYPE_GROW }

/*
 * An empty offline filter of type @o->type in *@f: a window filter takes
 * @w, a growing one @g (NULL for the library's defaults); the other types
 * ignore both. Return: as mf_offline_create*().
 */
static inline int mf_test_offline(const struct mf_create_opts *o,
				  const struct mf_window_opts *w,
				  const struct mf_grow_opts *g,
				  struct mf_offline **f)
{
	if (o->type == MF_TYPE_WINDOW)
		return mf_offline_create_window(o, w, f);
	if (o->type == MF_TYPE_GROW)
		return mf_offline_create_grow(o, g, f);
	return mf_offline_create(o, f);
}

#endif /* _MF_NATIVE_UTILS_H */
