/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * libmemfilter internals shared by its source files: not installed, not
 * exported (the version script exports mf_* only).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _LIBMEMFILTER_INTERNAL_H
#define _LIBMEMFILTER_INTERNAL_H

#include <linux/memfilter.h>

#include "libmemfilter.h"

/*
 * Turn mf_create_opts into the ABI's create request, as the kernel gets it
 * (fpr in ppb, bits per key in quarters); the name is copied too.
 * Return: 0 or -EINVAL / -ENAMETOOLONG.
 */
int libmf_encode_create(struct memfilter_create *c,
			const struct mf_create_opts *o);

/*
 * Check an image's header (memfilter_image_parse(): magic, checksum,
 * fields, length), not its payload.
 * Return: 0, -EBADMSG or -EOPNOTSUPP.
 */
int libmf_image_check_header(const void *image, size_t len);

/*
 * Check a caller's options struct of @sz bytes against the @known bytes
 * this library understands: -EINVAL if shorter, -E2BIG if a field it does
 * not know is set, else 0 (libbpf's OPTS_VALID()).
 */
int libmf_opts_check(const void *opts, size_t sz, size_t known);

/*
 * A batch's layout is consistent: fixed-size keys (@key_size, no @lens) or
 * lengths (@lens, @key_size 0), @keys present when @n is not 0.
 */
bool libmf_keys_layout_ok(const void *keys, size_t key_size,
			  const uint32_t *lens, size_t n);

/*
 * An image-returning call's out-parameters when one of them is NULL:
 * the other cleared. Return: -EINVAL.
 */
int libmf_clear_image_out(void **image, size_t *len);

/* Check mf_keys()'s @op and @opts (and zero opts->done): 0 or -errno. */
int libmf_keys_opts_check(enum mf_keys_op op, struct mf_keys_opts *opts);

/* Put a growing filter's options into a create request: 0 or -errno. */
int libmf_encode_grow(struct memfilter_create *c, const struct mf_grow_opts *g);

/* A growing filter's INFO and sub-filters into the library's mf_grow_info. */
int libmf_decode_grow_info(const struct memfilter_info *i,
			   const struct memfilter_generation *g,
			   struct mf_grow_info *gi);

/*
 * Each sub-filter's capacity, bits and modelled rate at its key count
 * (gi->keys), from INFO's totals: the core's own sizing (offline.c).
 */
void libmf_grow_shapes(const struct memfilter_info *i,
		       struct mf_grow_info *gi);

/* Put a window filter's options into a create request: 0 or -errno. */
int libmf_encode_window(struct memfilter_create *c,
			const struct mf_window_opts *w);

/* A window filter's INFO and generations into mf_window_info. */
int libmf_decode_window_info(const struct memfilter_info *i,
			     const struct memfilter_generation *g,
			     struct mf_window_info *wi);

/* Whether mf_call_strerror() knows the function @name (tests). */
bool libmf_call_known(const char *name);

/* Turn the ABI's struct memfilter_info into the library's mf_info. */
void libmf_decode_info(const struct memfilter_info *i, struct mf_info *info);

#endif /* _LIBMEMFILTER_INTERNAL_H */
