/* SPDX-License-Identifier: LGPL-2.1 OR GPL-2.0 */
/*
 * libmemfilter internals shared by its source files: not installed, not
 * exported (the version script exports mf_* only).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _LIBMEMFILTER_INTERNAL_H
#define _LIBMEMFILTER_INTERNAL_H

#include <linux/memfilter.h>

#include "memfilter.h"

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

/* Turn the ABI's struct memfilter_info into the library's mf_info. */
void libmf_decode_info(const struct memfilter_info *i, struct mf_info *info);

#endif /* _LIBMEMFILTER_INTERNAL_H */
