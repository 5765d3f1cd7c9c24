// SPDX-License-Identifier: LGPL-2.1 OR GPL-2.0
/*
 * libmemfilter's offline filters: the module's own Bloom and cuckoo code
 * (core/) running in the caller's memory, so that filter images can be
 * built, inspected, queried and merged without /dev/memfilter.
 *
 * Conventions in this file: a filter is sized, seeded and filled exactly
 * as the kernel would (the same core/ functions from the same create
 * request), so an image made here loads into the kernel and answers
 * identically, and the reverse. Images are parsed only through
 * core/image.c, the kernel loader's own checks. Tables are 64-byte
 * aligned and zeroed, as core/ requires.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <stdlib.h>
#include <sys/random.h>

#include "image.h"
#include "internal.h"

#define MF_PPB 1000000000.0

/**
 * struct mf_offline - an in-memory filter
 * @type: MEMFILTER_TYPE_BLOOM or MEMFILTER_TYPE_CUCKOO
 * @bloom: the Bloom filter (@type BLOOM)
 * @cuckoo: the cuckoo filter (@type CUCKOO)
 * @mem: the table (Bloom) or the cuckoo filter's whole block
 * @mem_bytes: its size
 * @keys: Bloom: keys added (duplicates included), as the kernel counts
 * @adds: keys added
 * @deletes: keys deleted
 * @failed: adds refused because the filter was full
 */
struct mf_offline {
	u32 type;
	union {
		struct memfilter_bloom bloom;
		struct memfilter_cuckoo cuckoo;
	};
	void *mem;
	size_t mem_bytes;
	u64 keys;
	u64 adds;
	u64 deletes;
	u64 failed;
};

enum mf_op { MF_OP_ADD, MF_OP_QUERY, MF_OP_DELETE };

static int mf_random(void *buf, size_t len)
{
	u8 *p = buf;

	while (len) {
		ssize_t n = getrandom(p, len, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= n;
	}
	return 0;
}

/* Zeroed, 64-byte aligned, with 64 bytes of slack for whole-word loads. */
static void *mf_table_alloc(u64 bytes, size_t *out)
{
	size_t sz;
	void *p;

	if (bytes > SIZE_MAX - 2 * 64)
		return NULL;
	sz = (bytes + 64 + 63) & ~(size_t)63;
	p = aligned_alloc(64, sz);
	if (p)
		memset(p, 0, sz);
	*out = sz;
	return p;
}

static struct mf_offline *mf_offline_alloc(u32 type, u64 bytes)
{
	struct mf_offline *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->type = type;
	f->mem = mf_table_alloc(bytes, &f->mem_bytes);
	if (!f->mem) {
		free(f);
		return NULL;
	}
	return f;
}

void mf_offline_free(struct mf_offline *f)
{
	if (!f)
		return;
	free(f->mem);
	explicit_bzero(f, sizeof(*f));
	free(f);
}

/* The kernel's mf_params_bloom(), mf_params_cuckoo() and mf_hasher(). */
static int mf_offline_params(const struct memfilter_create *c,
			     struct memfilter_image_desc *d)
{
	struct memfilter_hasher *h;
	u64 key[2] = { 0, 0 }, seed = c->seed;
	int ret;

	d->type = c->type;
	if (c->type == MEMFILTER_TYPE_BLOOM) {
		if (c->fingerprint_bits || !c->fpr_ppb == !c->bits_per_key_q4)
			return -EINVAL;
		if (c->fpr_ppb)
			ret = memfilter_bloom_params_from_fpr(&d->bloom,
							      c->capacity,
							      c->fpr_ppb);
		else
			ret = memfilter_bloom_params_from_bpk(&d->bloom,
							      c->capacity,
							      c->bits_per_key_q4);
		h = &d->bloom.hasher;
	} else {
		if (c->bits_per_key_q4 || !c->fpr_ppb == !c->fingerprint_bits)
			return -EINVAL;
		if (c->fingerprint_bits)
			ret = memfilter_cuckoo_params_init(&d->cuckoo, c->capacity,
							   c->fingerprint_bits);
		else
			ret = memfilter_cuckoo_params_from_fpr(&d->cuckoo,
							       c->capacity,
							       c->fpr_ppb);
		h = &d->cuckoo.hasher;
	}
	if (ret)
		return ret;

	if (c->flags & MEMFILTER_CREATE_KEYED) {
		do {
			ret = mf_random(key, sizeof(key));
			if (ret)
				return ret;
		} while (!(key[0] | key[1]));
		ret = memfilter_hasher_init(h, MF_HASH_SIPHASH24, 0, key);
		explicit_bzero(key, sizeof(key));
		return ret;
	}
	if (!(c->flags & MEMFILTER_CREATE_SEED)) {
		ret = mf_random(&seed, sizeof(seed));
		if (ret)
			return ret;
	}
	return memfilter_hasher_init(h, MF_HASH_XXH64, seed, NULL);
}

/* A filter of the described shape with an empty (zeroed) table. */
static int mf_offline_new(const struct memfilter_image_desc *d,
			  struct mf_offline **out)
{
	struct mf_offline *f;
	u64 bytes;

	if (d->type == MEMFILTER_TYPE_BLOOM)
		bytes = memfilter_bloom_bytes(&d->bloom);
	else
		bytes = memfilter_cuckoo_mem_bytes(&d->cuckoo);
	if (!bytes)
		return -EINVAL;
	f = mf_offline_alloc(d->type, bytes);
	if (!f)
		return -ENOMEM;
	if (d->type == MEMFILTER_TYPE_BLOOM) {
		f->bloom.p = d->bloom;
		f->bloom.words = f->mem;
	} else {
		memfilter_cuckoo_init(&f->cuckoo, &d->cuckoo, f->mem);
	}
	*out = f;
	return 0;
}

int mf_offline_create(const struct mf_create_opts *opts,
		      struct mf_offline **out)
{
	struct memfilter_create c = { .size = sizeof(c) };
	struct memfilter_image_desc d = { 0 };
	int ret;

	*out = NULL;
	if (!opts || (opts->name && *opts->name))
		return -EINVAL;
	ret = libmf_encode_create(&c, opts);
	if (!ret)
		ret = mf_offline_params(&c, &d);
	if (!ret)
		ret = mf_offline_new(&d, out);
	explicit_bzero(&d, sizeof(d));
	return ret;
}

static const void *mf_offline_table(const struct mf_offline *f)
{
	return f->type == MEMFILTER_TYPE_BLOOM ? (const void *)f->bloom.words :
						 (const void *)f->cuckoo.table;
}

int mf_offline_image(const struct mf_offline *f, void **image, size_t *len)
{
	struct memfilter_cuckoo_snapshot s;
	struct memfilter_image_desc d;
	u8 *img;

	*image = NULL;
	*len = 0;
	if (f->type == MEMFILTER_TYPE_BLOOM) {
		memfilter_image_desc_bloom(&d, &f->bloom, f->keys);
	} else {
		memfilter_cuckoo_stats(&f->cuckoo, &s);
		memfilter_image_desc_cuckoo(&d, &f->cuckoo, s.items,
					    f->cuckoo.stash);
	}
	if (d.payload_size > SIZE_MAX - MEMFILTER_IMAGE_HDR_SIZE)
		return -ENOMEM;
	img = malloc(MEMFILTER_IMAGE_HDR_SIZE + d.payload_size);
	if (!img)
		return -ENOMEM;
	memcpy(img + MEMFILTER_IMAGE_HDR_SIZE, mf_offline_table(f),
	       d.payload_size);
	memfilter_image_header((struct memfilter_image_header *)img, &d,
			       img + MEMFILTER_IMAGE_HDR_SIZE);
	*image = img;
	*len = MEMFILTER_IMAGE_HDR_SIZE + d.payload_size;
	explicit_bzero(&d, sizeof(d));
	return 0;
}

/* Why memfilter_image_parse() refused @image (it says only the errno). */
static const char *mf_image_why(const u8 *image, size_t len, int err)
{
	const struct memfilter_image_header *h = (const void *)image;
	u64 want;

	if (len < MEMFILTER_IMAGE_HDR_SIZE)
		return "truncated: shorter than the 128-byte header";
	if (le64_to_cpu(h->magic) != MEMFILTER_IMAGE_MAGIC)
		return "not a memfilter filter image (bad magic)";
	if (le16_to_cpu(h->version) != MEMFILTER_IMAGE_VERSION &&
	    err == -EOPNOTSUPP)
		return "image format version not supported (this code reads version 1)";
	if (le64_to_cpu(h->header_xxh64) !=
	    memfilter_xxh64(h, offsetof(struct memfilter_image_header, header_xxh64), 0))
		return "header checksum mismatch (corrupt header)";
	if (err == -EOPNOTSUPP)
		return "unknown filter type, hash algorithm or flag";
	if (!check_add_overflow((u64)MEMFILTER_IMAGE_HDR_SIZE,
				(u64)le64_to_cpu(h->payload_size), &want) &&
	    want != len)
		return len < want ? "truncated: shorter than header + payload" :
				    "trailing bytes after the payload";
	return "inconsistent header fields (geometry, sizes or hash parameters)";
}

int libmf_image_check_header(const void *image, size_t len)
{
	struct memfilter_image_desc d;
	int ret = memfilter_image_parse(image, len, &d);

	explicit_bzero(&d, sizeof(d));
	return ret;
}

int mf_offline_from_image(const void *image, size_t len,
			  struct mf_offline **out, const char **why)
{
	const u8 *payload = (const u8 *)image + MEMFILTER_IMAGE_HDR_SIZE;
	struct memfilter_image_desc d;
	struct mf_offline *f;
	const char *w = NULL;
	int ret;

	*out = NULL;
	ret = memfilter_image_parse(image, len, &d);
	if (ret) {
		w = mf_image_why(image, len, ret);
		goto out;
	}
	ret = memfilter_image_check_payload(&d, payload);
	if (ret) {
		w = "payload checksum mismatch (corrupt table)";
		goto out;
	}
	ret = mf_offline_new(&d, &f);
	if (ret) {
		w = "out of memory";
		goto out;
	}
	memcpy(f->mem, payload, d.payload_size);
	if (d.type == MEMFILTER_TYPE_CUCKOO) {
		ret = memfilter_cuckoo_restore(&f->cuckoo, d.stash, d.keys);
		if (ret) {
			w = "cuckoo table does not hold the header's key count";
			mf_offline_free(f);
			goto out;
		}
		f->adds = d.keys;
	} else {
		f->keys = d.keys;
		f->adds = d.keys;
	}
	*out = f;
out:
	explicit_bzero(&d, sizeof(d));
	if (why)
		*why = w;
	return ret;
}

int mf_offline_info(const struct mf_offline *f, struct mf_info *info)
{
	const struct memfilter_hasher *h;
	struct memfilter_cuckoo_snapshot s;

	memset(info, 0, sizeof(*info));
	info->type = f->type;
	if (f->type == MEMFILTER_TYPE_BLOOM) {
		const struct memfilter_bloom *b = &f->bloom;

		h = &b->p.hasher;
		info->capacity = b->p.capacity;
		info->bytes = memfilter_bloom_bytes(&b->p);
		info->keys = f->keys;
		info->fill = memfilter_bloom_popcount(b);
		info->fill_max = b->p.nblocks * MEMFILTER_BLOOM_BLOCK_BITS;
		info->est_fpr = memfilter_bloom_est_fpr_ppb(b) / MF_PPB;
		info->k = b->p.k;
		info->bits_per_key = b->p.bits_per_key_q4 / 4.0;
	} else {
		const struct memfilter_cuckoo *c = &f->cuckoo;

		h = &c->p.hasher;
		memfilter_cuckoo_stats(c, &s);
		info->capacity = c->p.capacity;
		info->bytes = memfilter_cuckoo_mem_bytes(&c->p);
		info->keys = s.items;
		info->fill = s.slots_used;
		info->fill_max = s.slots;
		info->est_fpr = s.est_fpr_ppb / MF_PPB;
		info->k = MEMFILTER_CUCKOO_SLOTS;
		info->fingerprint_bits = c->p.fp_bits;
		info->stash_used = s.stash_used;
	}
	info->hash_algo = h->algo;
	info->keyed = h->algo == MF_HASH_SIPHASH24;
	info->seed = info->keyed ? 0 : h->seed;
	info->overfill = info->keys > info->capacity;
	info->adds = f->adds;
	info->deletes = f->deletes;
	info->failed = f->failed;
	return 0;
}

/* One key: 1 when it was added / may be present / was deleted, or -errno. */
static int mf_offline_key(struct mf_offline *f, enum mf_op op,
			  const void *key, size_t len)
{
	int ret;

	if (f->type == MEMFILTER_TYPE_BLOOM) {
		switch (op) {
		case MF_OP_ADD:
			/* An offline filter has one owner: no atomics needed. */
			memfilter_bloom_add_key_exclusive(&f->bloom, key, len);
			f->keys++;
			f->adds++;
			return 1;
		case MF_OP_QUERY:
			return memfilter_bloom_contains_key(&f->bloom, key, len);
		default:
			return -EOPNOTSUPP;
		}
	}
	switch (op) {
	case MF_OP_ADD:
		ret = memfilter_cuckoo_add_key(&f->cuckoo, key, len);
		if (ret == -ENOSPC)
			f->failed++;
		if (ret)
			return ret;
		f->adds++;
		return 1;
	case MF_OP_QUERY:
		return memfilter_cuckoo_contains_key(&f->cuckoo, key, len);
	default:
		ret = memfilter_cuckoo_delete_key(&f->cuckoo, key, len);
		if (ret == -ENOENT)
			return 0;
		if (ret)
			return ret;
		f->deletes++;
		return 1;
	}
}

/* The offline mf_keys(): fixed-size keys if @key_size, else @lens. */
static ssize_t mf_offline_keys(struct mf_offline *f, enum mf_op op,
			       const void *keys, size_t key_size,
			       const uint32_t *lens, size_t n,
			       uint64_t *results, size_t *done)
{
	const u8 *p = keys;
	size_t i = 0, count = 0, len;
	int ret = 0;

	if ((key_size && lens) || (!key_size && !lens && n) ||
	    key_size > MF_KEY_MAX || (n && !keys)) {
		ret = -EINVAL;
		goto out;
	}
	if (f->type == MEMFILTER_TYPE_BLOOM && op == MF_OP_DELETE) {
		ret = -EOPNOTSUPP;
		goto out;
	}
	if (!key_size) {
		for (i = 0; i < n; i++) {
			if (lens[i] > MF_KEY_MAX) {
				ret = -EINVAL;
				i = 0;
				goto out;
			}
		}
	}
	if (results)
		memset(results, 0, (n + 63) / 64 * sizeof(*results));
	for (i = 0; i < n; i++) {
		len = key_size ? key_size : lens[i];
		ret = mf_offline_key(f, op, p, len);
		if (ret < 0)
			goto out;
		if (ret) {
			count++;
			if (results)
				results[i / 64] |= 1ULL << (i % 64);
		}
		p += len;
	}
	ret = 0;
out:
	if (done)
		*done = i;
	return ret ? ret : (ssize_t)count;
}

ssize_t mf_offline_add(struct mf_offline *f, const void *keys,
		       size_t key_size, size_t n, uint64_t *results,
		       size_t *done)
{
	if (!key_size) {
		if (done)
			*done = 0;
		return -EINVAL;
	}
	return mf_offline_keys(f, MF_OP_ADD, keys, key_size, NULL, n,
			       results, done);
}

ssize_t mf_offline_query(const struct mf_offline *f, const void *keys,
			 size_t key_size, size_t n, uint64_t *results,
			 size_t *done)
{
	if (!key_size) {
		if (done)
			*done = 0;
		return -EINVAL;
	}
	/* Queries do not modify the filter. */
	return mf_offline_keys((struct mf_offline *)f, MF_OP_QUERY, keys,
			       key_size, NULL, n, results, done);
}

ssize_t mf_offline_delete(struct mf_offline *f, const void *keys,
			  size_t key_size, size_t n, uint64_t *results,
			  size_t *done)
{
	if (!key_size) {
		if (done)
			*done = 0;
		return -EINVAL;
	}
	return mf_offline_keys(f, MF_OP_DELETE, keys, key_size, NULL, n,
			       results, done);
}

ssize_t mf_offline_addv(struct mf_offline *f, const void *keys,
			const uint32_t *lens, size_t n, uint64_t *results,
			size_t *done)
{
	return mf_offline_keys(f, MF_OP_ADD, keys, 0, lens, n, results, done);
}

ssize_t mf_offline_queryv(const struct mf_offline *f, const void *keys,
			  const uint32_t *lens, size_t n, uint64_t *results,
			  size_t *done)
{
	return mf_offline_keys((struct mf_offline *)f, MF_OP_QUERY, keys, 0,
			       lens, n, results, done);
}

ssize_t mf_offline_deletev(struct mf_offline *f, const void *keys,
			   const uint32_t *lens, size_t n, uint64_t *results,
			   size_t *done)
{
	return mf_offline_keys(f, MF_OP_DELETE, keys, 0, lens, n, results,
			       done);
}

/* Why two parsed Bloom filters cannot be ORed, or NULL if they can. */
static const char *mf_merge_mismatch(const struct mf_offline *a,
				     const struct mf_offline *b)
{
	const struct memfilter_bloom_params *pa = &a->bloom.p, *pb = &b->bloom.p;

	if (a->type != MEMFILTER_TYPE_BLOOM || b->type != MEMFILTER_TYPE_BLOOM)
		return "only Bloom filters can be merged (cuckoo tables cannot be ORed)";
	if (pa->nblocks != pb->nblocks)
		return "different table sizes (block counts)";
	if (pa->k != pb->k)
		return "different probes per key (k)";
	if (pa->hasher.algo != pb->hasher.algo)
		return "different hash algorithms";
	if (pa->hasher.algo == MF_HASH_XXH64 && pa->hasher.seed != pb->hasher.seed)
		return "different hash seeds";
	if (pa->hasher.algo == MF_HASH_SIPHASH24 &&
	    (pa->hasher.key[0] != pb->hasher.key[0] ||
	     pa->hasher.key[1] != pb->hasher.key[1]))
		return "different secret keys";
	return NULL;
}

int mf_image_merge(const void *a, size_t a_len, const void *b, size_t b_len,
		   void **out, size_t *out_len, const char **why)
{
	struct mf_offline *fa, *fb;
	const char *w = NULL;
	u64 i, n;
	int ret;

	*out = NULL;
	*out_len = 0;
	ret = mf_offline_from_image(a, a_len, &fa, &w);
	if (ret)
		goto out;
	ret = mf_offline_from_image(b, b_len, &fb, &w);
	if (ret)
		goto out_free_a;
	w = mf_merge_mismatch(fa, fb);
	if (w) {
		ret = -EINVAL;
		goto out_free_b;
	}
	n = fa->bloom.p.nblocks * MEMFILTER_BLOOM_BLOCK_WORDS;
	for (i = 0; i < n; i++)
		fa->bloom.words[i] |= fb->bloom.words[i];
	if (check_add_overflow(fa->keys, fb->keys, &fa->keys))
		fa->keys = ~0ULL;
	ret = mf_offline_image(fa, out, out_len);
	if (ret)
		w = "out of memory";
out_free_b:
	mf_offline_free(fb);
out_free_a:
	mf_offline_free(fa);
out:
	if (why)
		*why = w;
	return ret;
}
