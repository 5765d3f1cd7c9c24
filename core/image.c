// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Filter images: the header of Documentation/image-format.rst, written
 * and checked by this one file in the kernel (dump, load), libmemfilter
 * (offline builds, inspect, merge) and the image fuzzer.
 *
 * Conventions in this file: memfilter_image_parse() trusts nothing. It
 * checks the magic, the header's own checksum, then every field against
 * what this code can answer exactly, so that a parsed description can
 * size an allocation and drive a filter without further checks. Only the
 * payload is left to memfilter_image_check_payload() (its checksum) and,
 * for cuckoo filters, memfilter_cuckoo_restore() (its contents).
 * Corruption is -EBADMSG; a well-formed image this code does not know
 * (newer version, unknown type, hash or flag) is -EOPNOTSUPP.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include "image.h"

#define MF_IMAGE_FLAGS	(MEMFILTER_IMAGE_SECRET | MEMFILTER_IMAGE_CUCKOO_MOD | \
			 MEMFILTER_IMAGE_SPLIT32)

/**
 * memfilter_image_payload_bytes() - size of a described filter's table
 * @d: a description from memfilter_image_parse() or a type's image op
 *
 * Context: any.
 * Return: the payload size in bytes.
 */
u64 memfilter_image_payload_bytes(const struct memfilter_image_desc *d)
{
	return memfilter_type_ops(d->type)->payload_bytes(&d->params);
}

/*
 * XXH64 (seed 0) of a payload of any size, yielding between 512 KiB pieces
 * in the kernel: payloads reach gigabytes.
 */
static u64 mf_image_xxh64(const void *data, u64 len)
{
	const u64 piece = 512 * 1024 / 32;	/* stripes per piece */
	const u8 *p = data;
	u64 v[4], n, stripes = len / 32;

	if (len < 32)
		return memfilter_xxh64(data, len, 0);
	memfilter_xxh64_lanes(v, 0);
	for (; stripes; stripes -= n) {
		n = min(stripes, piece);
		p = memfilter_xxh64_stripes(v, p, n);
		memfilter_cond_resched();
	}
	return memfilter_xxh64_finish(memfilter_xxh64_converge(v), len, p,
				      (const u8 *)data + len);
}

/**
 * memfilter_image_header() - write an image header
 * @h: the 128-byte header to fill in
 * @d: the filter's description
 * @payload: the table bytes that will follow, for the checksum
 *
 * Context: process context in the kernel: hashes the whole payload,
 * yielding every 512 KiB.
 */
void memfilter_image_header(struct memfilter_image_header *h,
			    const struct memfilter_image_desc *d, const void *payload)
{
	const struct memfilter_type_ops *ops = memfilter_type_ops(d->type);
	const struct memfilter_hasher *hs;

	BUILD_BUG_ON(sizeof(*h) != MEMFILTER_IMAGE_HDR_SIZE);
	memset(h, 0, sizeof(*h));
	h->magic = cpu_to_le64(MEMFILTER_IMAGE_MAGIC);
	h->version = cpu_to_le16(MEMFILTER_IMAGE_VERSION);
	h->header_size = cpu_to_le16(MEMFILTER_IMAGE_HDR_SIZE);
	h->type = cpu_to_le32(d->type);
	ops->image_encode(h, d);
	hs = ops->hasher((union memfilter_params *)&d->params);
	h->hash_algo = cpu_to_le32(hs->algo);
	if (hs->algo == MEMFILTER_HASH_SIPHASH24) {
		h->flags |= cpu_to_le32(MEMFILTER_IMAGE_SECRET);
		h->secret[0] = cpu_to_le64(hs->key[0]);
		h->secret[1] = cpu_to_le64(hs->key[1]);
	} else {
		h->seed = cpu_to_le64(hs->seed);
	}
	h->keys = cpu_to_le64(d->keys);
	h->payload_size = cpu_to_le64(d->payload_size);
	h->payload_xxh64 = cpu_to_le64(mf_image_xxh64(payload, d->payload_size));
	h->header_xxh64 = cpu_to_le64(memfilter_xxh64(h, offsetof(typeof(*h),
								  header_xxh64), 0));
}

static int mf_image_hasher(const struct memfilter_image_header *h,
			   struct memfilter_hasher *hs)
{
	u32 algo = le32_to_cpu(h->hash_algo);
	bool secret = le32_to_cpu(h->flags) & MEMFILTER_IMAGE_SECRET;
	u64 key[2] = { le64_to_cpu(h->secret[0]), le64_to_cpu(h->secret[1]) };

	switch (algo) {
	case MEMFILTER_HASH_XXH64:
	case MEMFILTER_HASH_XXH3:
		if (secret || key[0] || key[1])
			return -EBADMSG;
		break;
	case MEMFILTER_HASH_SIPHASH24:
		if (!secret || h->seed || !(key[0] | key[1]))
			return -EBADMSG;
		break;
	default:
		return -EOPNOTSUPP;
	}
	return memfilter_hasher_init(hs, algo, le64_to_cpu(h->seed), key);
}

/**
 * memfilter_image_parse() - validate an image header
 * @hdr: the image's first MEMFILTER_IMAGE_HDR_SIZE bytes (or all of
 *	@image_len if less)
 * @image_len: the whole image's length
 * @d: out: the description, valid only when 0 is returned
 *
 * Context: any.
 * Return: 0; -EBADMSG for a corrupt, truncated, padded or inconsistent
 * image; -EOPNOTSUPP for a well-formed image of an unknown version, type,
 * hash or flag.
 */
int memfilter_image_parse(const void *hdr, u64 image_len,
			  struct memfilter_image_desc *d)
{
	const struct memfilter_image_header *h = hdr;
	const struct memfilter_type_ops *ops;
	int ret;

	memset(d, 0, sizeof(*d));
	if (image_len < MEMFILTER_IMAGE_HDR_SIZE ||
	    le64_to_cpu(h->magic) != MEMFILTER_IMAGE_MAGIC)
		return -EBADMSG;
	if (le16_to_cpu(h->header_size) != MEMFILTER_IMAGE_HDR_SIZE ||
	    le64_to_cpu(h->header_xxh64) !=
	    memfilter_xxh64(h, offsetof(typeof(*h), header_xxh64), 0)) {
		/* A newer version may have a longer header: say so. */
		if (le16_to_cpu(h->version) > MEMFILTER_IMAGE_VERSION &&
		    le16_to_cpu(h->header_size) >= MEMFILTER_IMAGE_HDR_SIZE &&
		    le16_to_cpu(h->header_size) <= MEMFILTER_IMAGE_HDR_MAX)
			return -EOPNOTSUPP;
		return -EBADMSG;
	}
	if (le16_to_cpu(h->version) != MEMFILTER_IMAGE_VERSION)
		return -EOPNOTSUPP;
	if (memchr_inv(h->__reserved, 0, sizeof(h->__reserved)))
		return -EBADMSG;
	if (le32_to_cpu(h->flags) & ~MF_IMAGE_FLAGS)
		return -EOPNOTSUPP;
	if (!le64_to_cpu(h->capacity))
		return -EBADMSG;

	ops = memfilter_type_ops(le32_to_cpu(h->type));
	if (!ops)
		return -EOPNOTSUPP;
	if ((le32_to_cpu(h->flags) & MEMFILTER_IMAGE_CUCKOO_MOD) &&
	    ops->type != MEMFILTER_TYPE_CUCKOO)
		return -EBADMSG;
	if ((le32_to_cpu(h->flags) & MEMFILTER_IMAGE_SPLIT32) &&
	    ops->type == MEMFILTER_TYPE_CUCKOO)
		return -EBADMSG;
	ret = ops->image_decode(h, d);
	if (!ret)
		ret = mf_image_hasher(h, ops->hasher(&d->params));
	if (ret)
		return ret;

	d->type = ops->type;
	d->keys = le64_to_cpu(h->keys);
	d->payload_size = le64_to_cpu(h->payload_size);
	d->payload_xxh64 = le64_to_cpu(h->payload_xxh64);
	if (d->payload_size != memfilter_image_payload_bytes(d) ||
	    image_len - MEMFILTER_IMAGE_HDR_SIZE != d->payload_size)
		return -EBADMSG;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_image_parse);

/**
 * memfilter_image_check_payload() - verify the payload's checksum
 * @d: the parsed description
 * @payload: the @d->payload_size bytes after the header
 *
 * Context: process context in the kernel: hashes the whole payload,
 * yielding every 512 KiB.
 * Return: 0, or -EBADMSG if the payload is not the one the header names.
 */
int memfilter_image_check_payload(const struct memfilter_image_desc *d,
				  const void *payload)
{
	return mf_image_xxh64(payload, d->payload_size) == d->payload_xxh64 ?
	       0 : -EBADMSG;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_image_check_payload);
