/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Filter images (struct memfilter_image_header in the uapi header, then
 * the table): building headers and validating images, shared by the
 * kernel's dump and load, libmemfilter's offline builds and the fuzzer.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_IMAGE_H
#define _MEMFILTER_IMAGE_H

#include <linux/memfilter.h>

#include "compat.h"
#include "filter_type.h"
#include "prefix.h"

/* Largest header a future version may have; ours is 128 bytes. */
#define MEMFILTER_IMAGE_HDR_MAX	4096

/**
 * struct memfilter_image_desc - what an image holds, in host terms
 * @type: MEMFILTER_TYPE_*
 * @keys: keys in the filter when imaged
 * @stash: cuckoo victim stash word
 * @payload_size: bytes of table after the header
 * @payload_xxh64: the payload's checksum from the header
 * @params: the filter's parameters, hasher included
 * @prefixes: a prefix filter: the payload ends with struct
 *	memfilter_image_prefixes (MEMFILTER_IMAGE_PREFIXES)
 * @px: its prefix lengths, once memfilter_image_put_prefixes() or
 *	memfilter_image_get_prefixes() filled them in
 */
struct memfilter_image_desc {
	u32 type;
	u64 keys;
	u64 stash;
	u64 payload_size;
	u64 payload_xxh64;
	union memfilter_params params;
	bool prefixes;
	struct memfilter_prefixes px;
};

/* Bytes of the prefix lengths at the end of a filter's payload. */
static inline u64 memfilter_image_prefix_bytes(const struct memfilter_prefixes *px)
{
	return px->max ? MEMFILTER_IMAGE_PREFIXES_SIZE : 0;
}

u64 memfilter_image_payload_bytes(const struct memfilter_image_desc *d);
u64 memfilter_image_table_bytes(const struct memfilter_image_desc *d);
void memfilter_image_put_prefixes(struct memfilter_image_desc *d,
				  const struct memfilter_prefixes *px,
				  void *payload);
int memfilter_image_get_prefixes(struct memfilter_image_desc *d,
				 const void *trailer);
void memfilter_image_header(struct memfilter_image_header *h,
			    const struct memfilter_image_desc *d, const void *payload);
int memfilter_image_parse(const void *hdr, u64 image_len,
			  struct memfilter_image_desc *d);
int memfilter_image_check_payload(const struct memfilter_image_desc *d,
				  const void *payload);
void memfilter_image_encode_layout(struct memfilter_image_header *h, u32 layout);
int memfilter_image_decode_shape(const struct memfilter_image_header *h,
				 struct memfilter_bloom_params *p, u32 gens);
int memfilter_image_check_parts(const struct memfilter_image_desc *d,
				const void *table, const void *trailer);

#endif /* _MEMFILTER_IMAGE_H */
