/* SPDX-License-Identifier: GPL-2.0 */
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

#include "bloom.h"
#include "compat.h"
#include "cuckoo.h"

/* Largest header a future version may have; ours is 128 bytes. */
#define MEMFILTER_IMAGE_HDR_MAX	4096

/**
 * struct memfilter_image_desc - what an image holds, in host terms
 * @type: MEMFILTER_TYPE_BLOOM or MEMFILTER_TYPE_CUCKOO
 * @keys: keys in the filter when imaged
 * @stash: cuckoo victim stash word
 * @payload_size: bytes of table after the header
 * @payload_xxh64: the payload's checksum from the header
 * @bloom: Bloom parameters, hasher included (@type BLOOM)
 * @cuckoo: cuckoo parameters, hasher included (@type CUCKOO)
 */
struct memfilter_image_desc {
	u32 type;
	u64 keys;
	u64 stash;
	u64 payload_size;
	u64 payload_xxh64;
	union {
		struct memfilter_bloom_params bloom;
		struct memfilter_cuckoo_params cuckoo;
	};
};

u64 memfilter_image_payload_bytes(const struct memfilter_image_desc *d);
void memfilter_image_desc_bloom(struct memfilter_image_desc *d,
				const struct memfilter_bloom *b, u64 keys);
void memfilter_image_desc_cuckoo(struct memfilter_image_desc *d,
				 const struct memfilter_cuckoo *c, u64 keys,
				 u64 stash);
void memfilter_image_header(struct memfilter_image_header *h,
			    const struct memfilter_image_desc *d, const void *payload);
int memfilter_image_parse(const void *hdr, u64 image_len,
			  struct memfilter_image_desc *d);
int memfilter_image_check_payload(const struct memfilter_image_desc *d,
				  const void *payload);

#endif /* _MEMFILTER_IMAGE_H */
