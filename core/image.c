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
			 MEMFILTER_IMAGE_SPLIT32 | MEMFILTER_IMAGE_PREFIXES)

/**
 * memfilter_image_payload_bytes() - size of a described filter's payload
 * @d: a description from memfilter_image_parse() or a type's image op
 *	(then memfilter_image_put_prefixes())
 *
 * What the parameters give, to check the header's payload size against.
 *
 * Context: any.
 * Return: the payload size in bytes: the table, and a prefix filter's
 * lengths.
 */
u64 memfilter_image_payload_bytes(const struct memfilter_image_desc *d)
{
	return memfilter_type_ops(d->type)->payload_bytes(&d->params) +
	       (d->prefixes ? MEMFILTER_IMAGE_PREFIXES_SIZE : 0);
}

/**
 * memfilter_image_table_bytes() - size of a described filter's table
 * @d: a description from memfilter_image_parse() (its parameters may have
 *	been wiped since), or a type's image op
 *
 * Context: any.
 * Return: the bytes of the payload that are the type's table: all of it
 * but a prefix filter's lengths at its end.
 */
u64 memfilter_image_table_bytes(const struct memfilter_image_desc *d)
{
	return d->payload_size - (d->prefixes ? MEMFILTER_IMAGE_PREFIXES_SIZE : 0);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_image_table_bytes);

/**
 * memfilter_image_put_prefixes() - a prefix filter's lengths into its image
 * @d: the description its type's image op just filled in (the table
 *	copied)
 * @px: the filter's lengths
 * @payload: the payload the table was copied to, with room for
 *	memfilter_image_prefix_bytes() more after it; NULL to describe only
 *
 * Reads the lengths after the table was copied (a read barrier between):
 * a writer records a length before it adds keys of that length, so
 * every key in the copy has its length in the image. Nothing for a
 * filter of keys.
 *
 * Context: any.
 */
void memfilter_image_put_prefixes(struct memfilter_image_desc *d,
				  const struct memfilter_prefixes *px,
				  void *payload)
{
	struct memfilter_image_prefixes t = {};
	u32 w;

	if (!px->max)
		return;
	/* The table copied, then its lengths: memfilter_prefixes_add()'s smp_mb(). */
	smp_rmb();
	memfilter_prefixes_init(&d->px, px->max, NULL);
	for (w = 0; w < MEMFILTER_PREFIX_WORDS; w++) {
		d->px.lengths[w] = READ_ONCE(px->lengths[w]);
		t.lengths[w] = cpu_to_le64(d->px.lengths[w]);
	}
	t.prefix_lengths = cpu_to_le32(px->max);
	BUILD_BUG_ON(sizeof(t) != MEMFILTER_IMAGE_PREFIXES_SIZE);
	if (payload)
		memcpy((u8 *)payload + d->payload_size, &t, sizeof(t));
	d->payload_size += sizeof(t);
	d->prefixes = true;
}

/**
 * memfilter_image_get_prefixes() - a prefix filter's lengths from its image
 * @d: a description from memfilter_image_parse(), its payload's checksum
 *	verified
 * @trailer: the payload's last MEMFILTER_IMAGE_PREFIXES_SIZE bytes; not
 *	read for an image without MEMFILTER_IMAGE_PREFIXES
 *
 * Context: any.
 * Return: 0 (@d->px filled in, empty for a filter of keys), or -EBADMSG
 * for lengths no filter could hold.
 */
int memfilter_image_get_prefixes(struct memfilter_image_desc *d,
				 const void *trailer)
{
	struct memfilter_image_prefixes t;
	u64 lengths[MEMFILTER_PREFIX_WORDS];
	u32 w, max;

	memfilter_prefixes_init(&d->px, 0, NULL);
	if (!d->prefixes)
		return 0;
	memcpy(&t, trailer, sizeof(t));
	max = le32_to_cpu(t.prefix_lengths);
	if (!max || t.__reserved0 || memchr_inv(t.__reserved, 0, sizeof(t.__reserved)))
		return -EBADMSG;
	for (w = 0; w < MEMFILTER_PREFIX_WORDS; w++)
		lengths[w] = le64_to_cpu(t.lengths[w]);
	return memfilter_prefixes_init(&d->px, max, lengths) ? -EBADMSG : 0;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_image_get_prefixes);

/*
 * XXH64 (seed 0) of a payload of any size, yielding between 512 KiB pieces
 * in the kernel: payloads reach gigabytes. The payload is @a's @alen bytes
 * followed by @b's @blen, at most MEMFILTER_IMAGE_PREFIXES_SIZE (a table
 * and the prefix lengths that end its payload, loaded into two places).
 */
static u64 mf_image_xxh64(const void *a, u64 alen, const void *b, u64 blen)
{
	const u64 piece = 512 * 1024 / 32;	/* stripes per piece */
	u8 tail[32 + MEMFILTER_IMAGE_PREFIXES_SIZE];
	u64 v[4], n, rest, stripes = alen / 32, len = alen + blen;
	const u8 *p = a;

	rest = alen % 32;
	if (blen)
		memcpy(tail + rest, b, blen);
	if (len < 32) {
		memcpy(tail, a, rest);
		return memfilter_xxh64(tail, len, 0);
	}
	memfilter_xxh64_lanes(v, 0);
	for (; stripes; stripes -= n) {
		n = min(stripes, piece);
		p = memfilter_xxh64_stripes(v, p, n);
		memfilter_cond_resched();
	}
	/* What is left of @a, then @b: a few more stripes and the end. */
	memcpy(tail, p, rest);
	p = memfilter_xxh64_stripes(v, tail, (rest + blen) / 32);
	return memfilter_xxh64_finish(memfilter_xxh64_converge(v), len, p,
				      tail + rest + blen);
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
	if (d->prefixes)
		h->flags |= cpu_to_le32(MEMFILTER_IMAGE_PREFIXES);
	if (hs->algo == MEMFILTER_HASH_SIPHASH24) {
		h->flags |= cpu_to_le32(MEMFILTER_IMAGE_SECRET);
		h->secret[0] = cpu_to_le64(hs->key[0]);
		h->secret[1] = cpu_to_le64(hs->key[1]);
	} else {
		h->seed = cpu_to_le64(hs->seed);
	}
	h->keys = cpu_to_le64(d->keys);
	h->payload_size = cpu_to_le64(d->payload_size);
	h->payload_xxh64 = cpu_to_le64(mf_image_xxh64(payload, d->payload_size,
						      NULL, 0));
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
	if (le32_to_cpu(h->flags) & MEMFILTER_IMAGE_TYPE_FLAGS &
	    ~ops->image_flags)
		return -EBADMSG;
	ret = ops->image_decode(h, d);
	if (!ret)
		ret = mf_image_hasher(h, ops->hasher(&d->params));
	if (ret)
		return ret;

	d->type = ops->type;
	d->prefixes = le32_to_cpu(h->flags) & MEMFILTER_IMAGE_PREFIXES;
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
	return mf_image_xxh64(payload, d->payload_size, NULL, 0) ==
	       d->payload_xxh64 ? 0 : -EBADMSG;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_image_check_payload);

/**
 * memfilter_image_check_parts() - verify the checksum of a payload in two
 *	places
 * @d: the parsed description
 * @table: the memfilter_image_table_bytes() bytes the payload starts with
 * @trailer: the rest (a prefix filter's lengths), or NULL when there is
 *	none
 *
 * Context: as memfilter_image_check_payload().
 * Return: 0, or -EBADMSG if the payload is not the one the header names.
 */
int memfilter_image_check_parts(const struct memfilter_image_desc *d,
				const void *table, const void *trailer)
{
	u64 tbytes = memfilter_image_table_bytes(d);

	return mf_image_xxh64(table, tbytes, trailer,
			      d->payload_size - tbytes) ==
	       d->payload_xxh64 ? 0 : -EBADMSG;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_image_check_parts);
