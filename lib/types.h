/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The userspace table of filter types: what libmemfilter and memfilterctl
 * know of each type beyond its operations (core/filter_type.h): its name,
 * the options and info structs of its own, the info rows that apply, and
 * why its images do not merge. Code outside a type's own functions asks
 * this table instead of comparing type numbers; a new type is one entry
 * here, which core_test holds to the core's table. Not installed: lib/
 * and tools/ include it.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _LIBMEMFILTER_TYPES_H
#define _LIBMEMFILTER_TYPES_H

#include <stddef.h>
#include <string.h>

#include "libmemfilter.h"

/* memfilterctl's --type takes the type's name. */
#define LIBMF_TYPE_CLI		(1U << 0)
/* Created with a struct mf_window_opts, described by a struct mf_window_info. */
#define LIBMF_OPTS_WINDOW	(1U << 1)
/* Created with a struct mf_grow_opts, described by a struct mf_grow_info. */
#define LIBMF_OPTS_GROW		(1U << 2)
/*
 * Its table is slots of fingerprints (mf_info's k is slots per bucket,
 * fill counts slots); it deletes, counts copies and tells a new key from
 * a false positive (add --unique, seen).
 */
#define LIBMF_TYPE_SLOTS	(1U << 3)
/* It has a Bloom layout (mf_create_opts.layout, mf_layout(), info's row). */
#define LIBMF_TYPE_LAYOUT	(1U << 4)

/**
 * struct libmf_type - what userspace knows of one filter type
 * @type: its MF_TYPE_*
 * @name: its name (memfilterctl's info, --json, --type)
 * @noun: as in "a %s filter"
 * @flags: LIBMF_TYPE_*
 * @no_merge: why two images of it cannot be ORed into one; NULL if they can
 * @merge_refusal: the library's whole refusal, @no_merge in it (one text:
 *	LIBMF_NO_MERGE())
 * @wrong_opts: the refusal of its own options struct (LIBMF_OPTS_*) for
 *	another type; NULL for a type without one
 */
struct libmf_type {
	int type;
	const char *name;
	const char *noun;
	unsigned int flags;
	const char *no_merge;
	const char *merge_refusal;
	const char *wrong_opts;
};

/* @no_merge and @merge_refusal of struct libmf_type, from one text. */
#define LIBMF_NO_MERGE(why) \
	why, "only Bloom filters can be merged (" why ")"

static const struct libmf_type libmf_types[] = {
	{ MF_TYPE_BLOOM, "bloom", "Bloom", LIBMF_TYPE_CLI | LIBMF_TYPE_LAYOUT,
	  NULL, NULL, NULL },
	{ MF_TYPE_CUCKOO, "cuckoo", "cuckoo", LIBMF_TYPE_CLI | LIBMF_TYPE_SLOTS,
	  LIBMF_NO_MERGE("a cuckoo table's slots cannot be ORed"), NULL },
	{ MF_TYPE_WINDOW, "window", "window", LIBMF_OPTS_WINDOW | LIBMF_TYPE_LAYOUT,
	  LIBMF_NO_MERGE("a window filter's generations have ages of their own"),
	  "struct mf_window_opts is for type MF_TYPE_WINDOW" },
	{ MF_TYPE_GROW, "grow", "growing",
	  LIBMF_TYPE_CLI | LIBMF_OPTS_GROW | LIBMF_TYPE_LAYOUT,
	  LIBMF_NO_MERGE("a growing filter's sub-filters differ in number and size"),
	  "struct mf_grow_opts is for type MF_TYPE_GROW" },
};

/* libmemfilter's refusal of any other type: every entry's constant (core_test). */
#define LIBMF_TYPES_WHY \
	"type must be MF_TYPE_BLOOM, MF_TYPE_CUCKOO, MF_TYPE_WINDOW or MF_TYPE_GROW"

#define LIBMF_TYPES_N (sizeof(libmf_types) / sizeof(libmf_types[0]))

/* The entry of MF_TYPE_* @type, or NULL for a type this library lacks. */
static inline const struct libmf_type *libmf_type_of(int type)
{
	size_t i;

	for (i = 0; i < LIBMF_TYPES_N; i++)
		if (libmf_types[i].type == type)
			return &libmf_types[i];
	return NULL;
}

/* Does MF_TYPE_* @type have every flag of @flags? Unknown types have none. */
static inline int libmf_type_has(int type, unsigned int flags)
{
	const struct libmf_type *t = libmf_type_of(type);

	return t && (t->flags & flags) == flags;
}

/*
 * May MF_TYPE_* @type have every flag of @flags? A type this library
 * lacks (a newer module's) may: its info says.
 */
static inline int libmf_type_may_have(int type, unsigned int flags)
{
	const struct libmf_type *t = libmf_type_of(type);

	return !t || (t->flags & flags) == flags;
}

/* The entry named @name, or NULL. */
static inline const struct libmf_type *libmf_type_named(const char *name)
{
	size_t i;

	for (i = 0; i < LIBMF_TYPES_N; i++)
		if (!strcmp(libmf_types[i].name, name))
			return &libmf_types[i];
	return NULL;
}

/* The first entry with every flag of @flags (the type an option makes). */
static inline const struct libmf_type *libmf_type_with(unsigned int flags)
{
	size_t i;

	for (i = 0; i < LIBMF_TYPES_N; i++)
		if ((libmf_types[i].flags & flags) == flags)
			return &libmf_types[i];
	return NULL;
}

#endif /* _LIBMEMFILTER_TYPES_H */
