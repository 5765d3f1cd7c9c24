// SPDX-License-Identifier: GPL-2.0-only OR MIT
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
 * aligned and zeroed, as core/ requires. Every operation goes through the
 * filter type's table (core/filter_type.h), as in the kernel: nothing
 * here knows which types exist.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "filter_type.h"
#include "image.h"
#include "internal.h"

/**
 * struct mf_offline - an in-memory filter
 * @ops: its type's operations
 * @s: the filter itself, as its type defines it
 * @mem: its table memory
 * @mem_bytes: its size
 * @keys: keys added (duplicates included), as the kernel counts them for
 *	types that cannot count their own (&memfilter_type_ops.counts_keys)
 * @adds: keys added
 * @deletes: keys deleted
 * @failed: adds refused because the filter was full
 * @parts: memory attached later, for types that grow
 *	(&memfilter_type_ops.next_bytes)
 * @nparts: how many
 * @map: a table read from a file: the anonymous mapping @mem is
 *	(mf_table_map()), @map_bytes long; NULL when @mem is allocated
 * @px: the prefix lengths it holds (core/prefix.h); @px.max 0 for a
 *	filter of keys
 */
struct mf_offline {
	const struct memfilter_type_ops *ops;
	union memfilter_state s;
	struct memfilter_prefixes px;
	void *mem;
	size_t mem_bytes;
	void *map;
	size_t map_bytes;
	void *parts[MEMFILTER_MAX_PARTS];
	u32 nparts;
	u64 keys;
	u64 adds;
	u64 deletes;
	u64 failed;
};

/* Keys hashed and handed to the type at a time. */
#define MF_OFFLINE_WINDOW	256

/*
 * Tables read from a file from this size on are mappings of their own
 * (mf_table_map()); smaller ones are the allocator's, so that a program
 * holding many small filters does not spend a mapping on each.
 */
#define MF_TABLE_MAP_MIN	(1U << 20)

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

void mf_offline_free(struct mf_offline *f)
{
	u32 i;

	if (!f)
		return;
	for (i = 0; i < f->nparts; i++)
		free(f->parts[i]);
	if (f->map)
		munmap(f->map, f->map_bytes);
	else
		free(f->mem);
	explicit_bzero(f, sizeof(*f));
	free(f);
}

/*
 * mf_table_alloc() as fresh anonymous pages, which the system zeroes when
 * first touched: for a table about to be read from a file, so that each
 * page is touched once (by the read), not twice (a memset, then the
 * read): reading a 1 GiB image takes about a third less CPU time.
 */
static void *mf_table_map(u64 bytes, size_t *out)
{
	size_t page = sysconf(_SC_PAGESIZE);
	void *p;

	if (bytes > SIZE_MAX - 64 - page)
		return NULL;
	*out = (bytes + 64 + page - 1) & ~(page - 1);
	p = mmap(NULL, *out, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/*
 * A filter of the given type and shape with an empty (zeroed) table;
 * @anon: for one read from a file, by mf_table_map() if it is large.
 */
static int mf_offline_new(const struct memfilter_type_ops *ops,
			  const union memfilter_params *p, bool anon,
			  struct mf_offline **out)
{
	u64 bytes = ops->mem_bytes(p);
	struct mf_offline *f;

	if (!bytes)
		return -EINVAL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->ops = ops;
	if (anon && bytes >= MF_TABLE_MAP_MIN) {
		f->mem = f->map = mf_table_map(bytes, &f->map_bytes);
		f->mem_bytes = f->map_bytes;
	} else {
		f->mem = mf_table_alloc(bytes, &f->mem_bytes);
	}
	if (!f->mem) {
		free(f);
		return -ENOMEM;
	}
	ops->init(&f->s, p, f->mem);
	*out = f;
	return 0;
}

/* Check @opts for an offline filter (no name) and encode them into @c. */
static int mf_offline_encode(struct memfilter_create *c,
			     const struct mf_create_opts *opts, bool strict,
			     struct mf_offline **out)
{
	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!opts || (opts->name && *opts->name))
		return -EINVAL;
	return libmf_encode_create(c, opts, strict, NULL);
}

/* The filter the kernel's CREATE would make of @c, in memory. */
static int mf_offline_create_req(const struct memfilter_create *c,
				 struct mf_offline **out)
{
	const struct memfilter_type_ops *ops;
	union memfilter_params p;
	int ret;

	ret = memfilter_create_params(c, &ops, &p);
	if (!ret)
		ret = mf_offline_new(ops, &p, false, out);
	explicit_bzero(&p, sizeof(p));
	/* Checked by memfilter_create_params(): cannot fail. */
	if (!ret)
		memfilter_prefixes_init(&(*out)->px, c->prefix_lengths, NULL);
	return ret;
}

/*
 * mf_offline_create*(): a type without options of its own (@opts_of 0),
 * or with a struct mf_window_opts (LIBMF_OPTS_WINDOW, @w) or a
 * struct mf_grow_opts (LIBMF_OPTS_GROW, @g), by 1.8's rules
 * (@strict) or those before.
 */
static int mf_offline_create_typed(const struct mf_create_opts *opts,
				   unsigned int opts_of,
				   const struct mf_window_opts *w,
				   const struct mf_grow_opts *g, bool strict,
				   struct mf_offline **out)
{
	struct memfilter_create c = { .size = sizeof(c) };
	int ret = mf_offline_encode(&c, opts, strict, out);

	if (!ret && opts_of == LIBMF_OPTS_WINDOW)
		ret = libmf_encode_window(&c, w, NULL);
	else if (!ret && opts_of == LIBMF_OPTS_GROW)
		ret = libmf_encode_grow(&c, g, strict, NULL);
	return ret ? ret : mf_offline_create_req(&c, out);
}

int libmf_offline_create_1_8(const struct mf_create_opts *opts,
			     struct mf_offline **out)
{
	return mf_offline_create_typed(opts, 0, NULL, NULL, true, out);
}
MF_SYMVER_DEFAULT(libmf_offline_create_1_8, mf_offline_create, MEMFILTER_1.8);

int libmf_offline_create_1(const struct mf_create_opts *opts,
			   struct mf_offline **out)
{
	return mf_offline_create_typed(opts, 0, NULL, NULL, false, out);
}
MF_SYMVER(libmf_offline_create_1, mf_offline_create, MEMFILTER_1);

int libmf_offline_create_grow_1_8(const struct mf_create_opts *opts,
				  const struct mf_grow_opts *g,
				  struct mf_offline **out)
{
	return mf_offline_create_typed(opts, LIBMF_OPTS_GROW, NULL, g, true,
				       out);
}
MF_SYMVER_DEFAULT(libmf_offline_create_grow_1_8, mf_offline_create_grow,
		  MEMFILTER_1.8);

int libmf_offline_create_grow_1_4(const struct mf_create_opts *opts,
				  const struct mf_grow_opts *g,
				  struct mf_offline **out)
{
	return mf_offline_create_typed(opts, LIBMF_OPTS_GROW, NULL, g, false,
				       out);
}
MF_SYMVER(libmf_offline_create_grow_1_4, mf_offline_create_grow, MEMFILTER_1.4);

int libmf_offline_create_window_1_8(const struct mf_create_opts *opts,
				    const struct mf_window_opts *w,
				    struct mf_offline **out)
{
	return mf_offline_create_typed(opts, LIBMF_OPTS_WINDOW, w, NULL, true,
				       out);
}
MF_SYMVER_DEFAULT(libmf_offline_create_window_1_8, mf_offline_create_window,
		  MEMFILTER_1.8);

int libmf_offline_create_window_1_6(const struct mf_create_opts *opts,
				    const struct mf_window_opts *w,
				    struct mf_offline **out)
{
	return mf_offline_create_typed(opts, LIBMF_OPTS_WINDOW, w, NULL, false,
				       out);
}
MF_SYMVER(libmf_offline_create_window_1_6, mf_offline_create_window,
	  MEMFILTER_1.6);

/*
 * Why the core refused request @c with @err, for mf_create_check(): the
 * rules of each type's params() (core/bloom.c, cuckoo.c, window.c, grow.c)
 * in the order they apply, told apart by what the type table says of
 * them (slots, window or growing options; else Bloom's rules).
 */
static const char *mf_create_why(const struct memfilter_create *c, int err)
{
	bool cuckoo = libmf_type_has(c->type, LIBMF_TYPE_SLOTS);
	bool window = libmf_type_has(c->type, LIBMF_OPTS_WINDOW);
	bool grow = libmf_type_has(c->type, LIBMF_OPTS_GROW);

	if (err == -EOPNOTSUPP)
		return "not supported by this library (filter type, hash or flag)";
	if (err == -E2BIG)
		return "too large: beyond the filters' size limit";
	if (!cuckoo && c->fingerprint_bits)
		return "fingerprint_bits is for cuckoo filters";
	if ((cuckoo || grow) && c->bits_per_key_q4)
		return cuckoo ? "bits_per_key is for Bloom and window filters" :
				"a growing filter is sized by fpr, not bits_per_key";
	if (cuckoo) {
		if (!c->fpr_ppb && !c->fingerprint_bits)
			return "a cuckoo filter needs fpr or fingerprint_bits";
		if (c->fpr_ppb && c->fingerprint_bits)
			return "a cuckoo filter takes fpr or fingerprint_bits, not both";
		if (c->fingerprint_bits)
			return "fingerprint_bits must be 8, 12 or 16";
		return "fpr is below what 16-bit fingerprints reach";
	}
	if (grow) {
		if (!c->fpr_ppb)
			return "a growing filter needs fpr (the bound on the whole filter)";
		if (c->grow_max > MEMFILTER_GROW_MAX_SUBS)
			return "max_subs must be 0 to 16";
		if (c->grow_factor > MEMFILTER_GROW_MAX_FACTOR)
			return "factor must be 0 to 16";
		return "fpr is below what the sub-filters reach";
	}
	if (!libmf_type_of(c->type))
		return "inconsistent parameters";
	/* Bloom filters, and window filters' generations of them. */
	if (window &&
	    (c->generations < MEMFILTER_WINDOW_MIN_GENERATIONS ||
	     c->generations > MEMFILTER_WINDOW_MAX_GENERATIONS))
		return "generations must be 2 to 16";
	if (!c->fpr_ppb && !c->bits_per_key_q4)
		return "a Bloom or window filter needs fpr or bits_per_key";
	return "fpr is below what 64 bits per key reach";
}

int mf_create_check(const struct mf_create_opts *opts,
		    const struct mf_window_opts *w,
		    const struct mf_grow_opts *g, const char **why)
{
	struct memfilter_create c = { .size = sizeof(c) };
	const struct memfilter_type_ops *ops;
	union memfilter_params p;
	int ret;

	if (why)
		*why = NULL;
	ret = libmf_encode_create(&c, opts, true, why);
	if (!ret && (libmf_type_has(opts->type, LIBMF_OPTS_WINDOW) || w))
		ret = libmf_encode_window(&c, w, why);
	if (!ret && (libmf_type_has(opts->type, LIBMF_OPTS_GROW) || g))
		ret = libmf_encode_grow(&c, g, true, why);
	if (ret)
		return ret;
	ret = memfilter_create_params(&c, &ops, &p);
	explicit_bzero(&p, sizeof(p));
	return ret ? libmf_refuse(why, mf_create_why(&c, ret), ret) : 0;
}

int mf_offline_size(const struct mf_create_opts *opts,
		    const struct mf_window_opts *w, const struct mf_grow_opts *g,
		    uint64_t *bytes)
{
	struct memfilter_create c = { .size = sizeof(c) };
	const struct memfilter_type_ops *ops;
	union memfilter_params p;
	struct mf_offline *unused;
	u64 n;
	int ret;

	if (!bytes || (w && g))
		return -EINVAL;
	*bytes = 0;
	ret = mf_offline_encode(&c, opts, true, &unused);
	if (!ret && w)
		ret = libmf_encode_window(&c, w, NULL);
	if (!ret && g)
		ret = libmf_encode_grow(&c, g, true, NULL);
	if (!ret)
		ret = memfilter_create_params(&c, &ops, &p);
	if (ret)
		return ret;
	n = ops->mem_bytes(&p);
	explicit_bzero(&p, sizeof(p));
	if (!n)
		return -EINVAL;
	/* What mf_table_alloc() takes: 64 bytes of slack, whole lines. */
	*bytes = (n + 64 + 63) & ~(u64)63;
	return 0;
}

/*
 * The kernel's ROTATE (module/filter/window_kops.c), with no inserter to wait
 * for: the oldest generation cleared and published, born now (an offline
 * filter's clock is 0: core/userspace.h).
 */
int mf_offline_rotate(struct mf_offline *f)
{
	if (!f)
		return -EINVAL;
	if (f->ops != &memfilter_window_ops)
		return -EOPNOTSUPP;
	memfilter_window_rotate_exclusive(&f->s.window, memfilter_now_ms());
	return 0;
}

int mf_offline_window_info(const struct mf_offline *f,
			   struct mf_window_info *wi)
{
	struct memfilter_generation g[MEMFILTER_WINDOW_MAX_GENS] = {};
	struct memfilter_info i = { .size = sizeof(i) };
	int ret = f && wi ? libmf_opts_check(wi, wi->sz, sizeof(*wi)) : -EINVAL;

	if (ret)
		return ret;
	if (f->ops != &memfilter_window_ops)
		return -EOPNOTSUPP;
	memfilter_state_info(f->ops, &f->s, f->keys, &i);
	memfilter_window_gen_info(&f->s.window, memfilter_now_ms(), g);
	return libmf_decode_window_info(&i, g, wi);
}

void libmf_grow_shapes(const struct memfilter_info *i,
		       struct mf_grow_info *gi)
{
	struct memfilter_bloom_params sub;
	struct memfilter_grow_params p;
	u64 units = 0, pw = 1;
	u32 j, n = i->subfilters < MEMFILTER_GROW_MAX_SUBS ?
		    i->subfilters : MEMFILTER_GROW_MAX_SUBS;

	/* Sub-filter j holds first * factor^j: INFO has their sum. */
	for (j = 0; j < n; j++) {
		units += pw;
		pw *= i->grow_factor;
	}
	if (!units || i->capacity % units ||
	    memfilter_grow_params_init(&p, i->capacity / units, i->fpr_ppb,
				       i->grow_max, i->grow_factor, i->grow_ratio_pct,
				       /* Kernels before layouts report 0: line64. */
				       i->layout == MEMFILTER_LAYOUT_SPLIT32 ?
				       MEMFILTER_BLOOM_SPLIT32 : MEMFILTER_BLOOM_LINE64))
		return;
	for (j = 0; j < n; j++) {
		if (memfilter_grow_sub_params(&p, j, &sub))
			return;
		gi->capacity[j] = sub.capacity;
		gi->fill_max[j] = memfilter_bloom_bytes(&sub) * 8;
		gi->est_fpr[j] = memfilter_bloom_model_fpr_ppb(&sub,
							      gi->keys[j]) /
				 1e9;
	}
}

int mf_offline_grow_info(const struct mf_offline *f, struct mf_grow_info *gi)
{
	struct memfilter_generation g[MEMFILTER_MAX_PARTS] = {};
	struct memfilter_info i = { .size = sizeof(i) };
	int ret = f && gi ? libmf_opts_check(gi, gi->sz, sizeof(*gi)) : -EINVAL;

	if (ret)
		return ret;
	if (!f->ops->parts)
		return -EOPNOTSUPP;
	memfilter_state_info(f->ops, &f->s, f->keys, &i);
	f->ops->parts(&f->s, g);
	return libmf_decode_grow_info(&i, g, gi);
}

int mf_offline_image(const struct mf_offline *f, void **image, size_t *len)
{
	struct memfilter_image_desc d;
	u8 *img;

	if (!f || !image || !len)
		return libmf_clear_image_out(image, len);
	*image = NULL;
	*len = 0;
	f->ops->image(&f->s, f->keys, &d, NULL);
	memfilter_image_put_prefixes(&d, &f->px, NULL);
	if (d.payload_size > SIZE_MAX - MEMFILTER_IMAGE_HDR_SIZE)
		return -ENOMEM;
	img = malloc(MEMFILTER_IMAGE_HDR_SIZE + d.payload_size);
	if (!img)
		return -ENOMEM;
	f->ops->image(&f->s, f->keys, &d, img + MEMFILTER_IMAGE_HDR_SIZE);
	memfilter_image_put_prefixes(&d, &f->px, img + MEMFILTER_IMAGE_HDR_SIZE);
	memfilter_image_header((struct memfilter_image_header *)img, &d,
			       img + MEMFILTER_IMAGE_HDR_SIZE);
	*image = img;
	*len = MEMFILTER_IMAGE_HDR_SIZE + d.payload_size;
	explicit_bzero(&d, sizeof(d));
	return 0;
}

/*
 * The table memory holds the payload as an image has it (from_image and
 * the file readers below put a payload there as it is): the type's image op can write
 * its payload onto the table itself, where it copies each word onto
 * itself and writes only its state section (window, growing filters),
 * which is the section's own room. Not once a growing filter has grown:
 * its later sub-filters are parts of their own.
 */
int mf_offline_image_view(struct mf_offline *f, void *header,
			  const void **payload, size_t *len)
{
	struct memfilter_image_desc d;

	if (payload)
		*payload = NULL;
	if (len)
		*len = 0;
	if (!f || !header || !payload || !len)
		return -EINVAL;
	/* A prefix filter's lengths follow the table: not in its memory. */
	if (f->nparts || f->px.max)
		return -EOPNOTSUPP;
	f->ops->image(&f->s, f->keys, &d, NULL);
	if (d.payload_size > f->mem_bytes)
		return -EOPNOTSUPP;
	f->ops->image(&f->s, f->keys, &d, f->mem);
	memfilter_image_header(header, &d, f->mem);
	*payload = f->mem;
	*len = d.payload_size;
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

	if (why)
		*why = NULL;
	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!image)
		return -EINVAL;
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
	ret = memfilter_image_get_prefixes(&d, payload +
					   memfilter_image_table_bytes(&d));
	if (ret) {
		w = "prefix lengths no filter can hold";
		goto out;
	}
	ret = mf_offline_new(memfilter_type_ops(d.type), &d.params, false, &f);
	if (ret) {
		w = "out of memory";
		goto out;
	}
	memcpy(f->mem, payload, memfilter_image_table_bytes(&d));
	ret = f->ops->restore(&f->s, &d);
	if (ret) {
		w = "cuckoo table does not hold the header's key count";
		mf_offline_free(f);
		goto out;
	}
	f->px = d.px;
	f->keys = d.keys;
	f->adds = d.keys;
	*out = f;
out:
	explicit_bzero(&d, sizeof(d));
	if (why)
		*why = w;
	return ret;
}

/*
 * A prefix filter's lengths, at @trailer (an image's payload's end), into
 * @f, the bytes there zeroed (they lie in @f's table memory, where
 * nothing but zeroes may follow the table). *@why: a refusal's reason.
 */
static int mf_offline_take_prefixes(struct mf_offline *f,
				    struct memfilter_image_desc *d,
				    void *trailer, const char **why)
{
	int ret = memfilter_image_get_prefixes(d, trailer);

	if (ret) {
		*why = "prefix lengths no filter can hold";
		return ret;
	}
	f->px = d->px;
	if (d->prefixes)
		memset(trailer, 0, MEMFILTER_IMAGE_PREFIXES_SIZE);
	return 0;
}

/*
 * read() (@pos NULL), or pread() from *@pos on (moved past what was
 * read), until @len bytes or the end of input. Return: bytes or -errno.
 */
static ssize_t mf_read_full(int fd, void *buf, size_t len, off_t *pos)
{
	size_t off = 0;
	ssize_t n;

	while (off < len) {
		n = pos ? pread(fd, (u8 *)buf + off, len - off, *pos + off) :
			  read(fd, (u8 *)buf + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		off += n;
	}
	if (pos)
		*pos += off;
	return off;
}

/*
 * The image length the header @hdr (@n bytes read: all of it unless the
 * input ended) declares, once memfilter_image_parse() has checked it.
 */
static int mf_image_declared(const u8 *hdr, size_t n, size_t *total,
			     const char **why)
{
	const struct memfilter_image_header *h = (const void *)hdr;
	struct memfilter_image_desc d;
	u64 len;
	int ret;

	if (n < MEMFILTER_IMAGE_HDR_SIZE) {
		*why = mf_image_why(hdr, n, -EBADMSG);
		return -EBADMSG;
	}
	/* No image is that long: parse refuses a header with no payload. */
	if (check_add_overflow((u64)MEMFILTER_IMAGE_HDR_SIZE,
			       (u64)le64_to_cpu(h->payload_size), &len))
		len = MEMFILTER_IMAGE_HDR_SIZE;
	ret = memfilter_image_parse(hdr, len, &d);
	explicit_bzero(&d, sizeof(d));
	if (ret) {
		*why = mf_image_why(hdr, len, ret);
		return ret;
	}
	if (len > SIZE_MAX)
		return -ENOMEM;
	*total = len;
	return 0;
}

/* The image buffer's next size: doubled from 64 KiB, at most @total. */
static size_t mf_image_grow(size_t cap, size_t total)
{
	const size_t first = 64 * 1024;

	if (cap >= total / 2)
		return total;
	return cap < first ? min(first, total) : 2 * cap;
}

int mf_image_read(int fd, void **image, size_t *len, const char **why)
{
	size_t total, cap = MEMFILTER_IMAGE_HDR_SIZE, off;
	const char *w = NULL;
	u8 *buf, *p, extra;
	ssize_t n;
	int ret;

	if (why)
		*why = NULL;
	if (!image || !len)
		return libmf_clear_image_out(image, len);
	*image = NULL;
	*len = 0;
	buf = malloc(cap);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	n = mf_read_full(fd, buf, cap, NULL);
	if (n < 0) {
		ret = n;
		goto out_free;
	}
	ret = mf_image_declared(buf, n, &total, &w);
	if (ret)
		goto out_free;
	for (off = n; off < total; off += n) {
		if (off == cap) {
			p = realloc(buf, mf_image_grow(cap, total));
			if (!p) {
				ret = -ENOMEM;
				goto out_free;
			}
			buf = p;
			cap = mf_image_grow(cap, total);
		}
		n = mf_read_full(fd, buf + off, cap - off, NULL);
		if (n < 0) {
			ret = n;
			goto out_free;
		}
		if (!n)
			break;
	}
	if (off < total) {
		ret = -EBADMSG;
		w = "truncated: shorter than header + payload";
		goto out_free;
	}
	n = mf_read_full(fd, &extra, 1, NULL);
	if (n) {
		ret = n < 0 ? n : -EBADMSG;
		w = n < 0 ? NULL : "trailing bytes after the payload";
		goto out_free;
	}
	*image = buf;
	*len = total;
	goto out;
out_free:
	explicit_bzero(buf, cap);
	free(buf);
out:
	if (why)
		*why = w;
	return ret;
}

int mf_offline_layout(const struct mf_offline *f)
{
	if (!f)
		return -EINVAL;
	return memfilter_params_layout(f->ops, f->ops->params_of(&f->s));
}

int mf_offline_info(const struct mf_offline *f, struct mf_info *info)
{
	struct memfilter_info i = { .size = sizeof(i) };

	if (!f || !info)
		return -EINVAL;
	memfilter_state_info(f->ops, &f->s, f->keys, &i);
	memfilter_prefixes_info(&f->px, &i);
	i.bytes = f->ops->mem_bytes(f->ops->params_of(&f->s));
	i.adds = f->adds;
	i.deletes = f->deletes;
	i.failed = f->failed;
	libmf_decode_info(&i, info);
	explicit_bzero(&i, sizeof(i));
	return 0;
}

typedef int (*mf_offline_op)(struct mf_offline *f, const u64 *hashes, u32 n,
			     unsigned long *result, u32 *done);
typedef int (*mf_offline_op_fn)(union memfilter_state *s, const u64 *hashes,
				u32 n, unsigned long *result, u32 *done);

static bool mf_result_bit(const unsigned long *result, u32 i)
{
	return (result[i / BITS_PER_LONG] >> (i % BITS_PER_LONG)) & 1;
}

static u32 mf_result_weight(const unsigned long *result, u32 n)
{
	u32 i, w = 0;

	for (i = 0; i < n; i++)
		w += mf_result_bit(result, i);
	return w;
}

/* Count what an add of either kind did. */
static int mf_offline_added(struct mf_offline *f, int ret,
			    const unsigned long *result, u32 done)
{
	u32 added = mf_result_weight(result, done);

	f->keys += added;
	f->adds += added;
	if (ret == -ENOSPC)
		f->failed++;
	return ret;
}

/* A type that grows: attach its next part, as the module's worker would. */
static int mf_offline_grow(struct mf_offline *f)
{
	u64 bytes = f->ops->next_bytes ? f->ops->next_bytes(&f->s) : 0;
	size_t sz;
	void *p;

	if (!bytes || f->nparts == MEMFILTER_MAX_PARTS)
		return -ENOSPC;
	p = mf_table_alloc(bytes, &sz);
	if (!p)
		return -ENOMEM;
	f->parts[f->nparts++] = p;
	f->ops->attach(&f->s, p);
	return 0;
}

/* @add of the @m keys at @hashes[@d], their results at bit @d of @result. */
static int mf_offline_add_at(struct mf_offline *f, mf_offline_op_fn add,
			     const u64 *hashes, u32 d, u32 m,
			     unsigned long *result, u32 *got)
{
	unsigned long part[MF_OFFLINE_WINDOW / BITS_PER_LONG] = {};
	int ret = add(&f->s, hashes + d, m, part, got);
	u32 j;

	for (j = 0; j < *got; j++)
		if (mf_result_bit(part, j))
			memfilter_result_set(result, d + j);
	return ret;
}

/*
 * A window filter that rotates by count: rotated as soon as its current
 * generation holds its capacity of keys, as the kernel's rotation does
 * after the add that filled it (memfilter_rotate_tick()); offline, the
 * batch is split there, so every generation takes exactly its capacity.
 */
static int mf_offline_add_by_count(struct mf_offline *f, mf_offline_op_fn add,
				   const u64 *hashes, u32 n,
				   unsigned long *result, u32 *done)
{
	struct memfilter_window *w = &f->s.window;
	u64 cap = w->p.gen.capacity, cur_keys;
	u32 d = 0, got;
	int ret = 0;

	for (;;) {
		cur_keys = w->gen_keys[memfilter_window_current(w)];
		if (cur_keys >= cap) {
			mf_offline_rotate(f);
			continue;
		}
		if (d == n || ret)
			break;
		ret = mf_offline_add_at(f, add, hashes, d,
					(u32)min((u64)(n - d), cap - cur_keys),
					result, &got);
		d += got;
	}
	*done = d;
	return ret;
}

static bool mf_offline_rotates_by_count(const struct mf_offline *f)
{
	return f->ops == &memfilter_window_ops &&
	       (f->s.window.p.flags & MEMFILTER_WINDOW_ROTATE_BY_COUNT);
}

/*
 * The type's adding @op (add or test-and-add) on @n hashes, as the kernel
 * runs it: a window that rotates by count rotated when its generation is
 * full, a growing filter given its next part when its newest is.
 */
static int mf_offline_write(struct mf_offline *f, mf_offline_op_fn op,
			    const u64 *hashes, u32 n, unsigned long *result,
			    u32 *done)
{
	u32 d, got;
	int ret;

	if (mf_offline_rotates_by_count(f))
		return mf_offline_add_by_count(f, op, hashes, n, result, done);
	ret = op(&f->s, hashes, n, result, done);
	d = *done;
	while (ret == -ENOSPC && d < n && f->ops->next_bytes) {
		ret = mf_offline_grow(f);
		if (ret)
			break;
		ret = mf_offline_add_at(f, op, hashes, d, n - d, result, &got);
		d += got;
	}
	*done = d;
	return ret;
}

static int mf_offline_do_add(struct mf_offline *f, const u64 *hashes, u32 n,
			     unsigned long *result, u32 *done)
{
	/* An offline filter has one owner: no atomics needed. */
	mf_offline_op_fn add = mf_offline_rotates_by_count(f) ? f->ops->add :
			       f->ops->add_exclusive ?: f->ops->add;
	int ret = mf_offline_write(f, add, hashes, n, result, done);

	return mf_offline_added(f, ret, result, *done);
}

/*
 * The bits say which keys may have been present; those are not added
 * again (a Bloom filter's bits were set), so only the others count, as
 * the kernel counts them.
 */
static int mf_offline_do_test_and_add(struct mf_offline *f, const u64 *hashes,
				      u32 n, unsigned long *result, u32 *done)
{
	int ret = mf_offline_write(f, f->ops->test_and_add, hashes, n, result,
				   done);
	u32 added = *done - mf_result_weight(result, *done);

	f->keys += added;
	f->adds += added;
	if (ret == -ENOSPC)
		f->failed++;
	return ret;
}

static int mf_offline_do_query(struct mf_offline *f, const u64 *hashes, u32 n,
			       unsigned long *result, u32 *done)
{
	f->ops->contains(&f->s, hashes, n, result);
	*done = n;
	return 0;
}

static int mf_offline_do_add_unique(struct mf_offline *f, const u64 *hashes,
				    u32 n, unsigned long *result, u32 *done)
{
	int ret = f->ops->add_unique(&f->s, hashes, n, result, done);

	return mf_offline_added(f, ret, result, *done);
}

static int mf_offline_do_delete(struct mf_offline *f, const u64 *hashes,
				u32 n, unsigned long *result, u32 *done)
{
	int ret = f->ops->delete(&f->s, hashes, n, result, done);

	f->deletes += mf_result_weight(result, *done);
	return ret;
}

/* A batch the filter can take: layout, every length, the operation. */
static int mf_offline_check(const struct mf_offline *f, mf_offline_op op,
			    const void *keys, size_t key_size,
			    const uint32_t *lens, size_t n)
{
	size_t i;

	if (!f || !libmf_keys_layout_ok(keys, key_size, lens, n))
		return -EINVAL;
	if ((op == mf_offline_do_delete && !f->ops->delete) ||
	    (op == mf_offline_do_add_unique && !f->ops->add_unique) ||
	    (op == mf_offline_do_test_and_add && !f->ops->test_and_add))
		return -EOPNOTSUPP;
	for (i = 0; !key_size && i < n; i++)
		if (lens[i] > MF_KEY_MAX)
			return -EINVAL;
	return 0;
}

/* Hash the @m keys at *@p (of @key_size bytes, else @lens) into @hashes. */
static void mf_offline_hash(const struct mf_offline *f, const u8 **p,
			    size_t key_size, const uint32_t *lens, u32 m,
			    u64 *hashes)
{
	const struct memfilter_hasher *h = memfilter_state_hasher(f->ops, &f->s);
	u32 j;

	if (key_size) {
		memfilter_hash_keys(h, *p, key_size, m, hashes);
		*p += (size_t)m * key_size;
		return;
	}
	for (j = 0; j < m; j++) {
		hashes[j] = memfilter_hash_lean(h, *p, lens[j]);
		*p += lens[j];
	}
}

/*
 * The offline mf_keys_ioctl(): fixed-size keys if @key_size, else @lens; hashed
 * a window at a time and handed to @op, as the kernel does.
 */
static ssize_t mf_offline_run(struct mf_offline *f, mf_offline_op op,
			      const void *keys, size_t key_size,
			      const uint32_t *lens, size_t n,
			      uint64_t *results, size_t *done)
{
	unsigned long res[MF_OFFLINE_WINDOW / BITS_PER_LONG];
	u64 hashes[MF_OFFLINE_WINDOW];
	const u8 *p = keys;
	size_t i = 0, count = 0;
	u32 j, m, d;
	int ret = 0;

	ret = mf_offline_check(f, op, keys, key_size, lens, n);
	if (ret)
		goto out;
	if (results)
		memset(results, 0, (n + 63) / 64 * sizeof(*results));
	for (i = 0; i < n; i += d) {
		m = min(n - i, (size_t)MF_OFFLINE_WINDOW);
		mf_offline_hash(f, &p, key_size, lens ? lens + i : NULL, m,
				hashes);
		memset(res, 0, sizeof(res));
		ret = op(f, hashes, m, res, &d);
		for (j = 0; j < d; j++) {
			if (!mf_result_bit(res, j))
				continue;
			count++;
			if (results)
				results[(i + j) / 64] |= 1ULL << ((i + j) % 64);
		}
		if (ret) {
			i += d;
			goto out;
		}
	}
out:
	if (done)
		*done = i;
	return ret ? ret : (ssize_t)count;
}

ssize_t mf_offline_keys(struct mf_offline *f, enum mf_keys_op op,
			const void *keys, size_t n, struct mf_keys_opts *opts)
{
	static const mf_offline_op ops[] = {
		[MF_KEYS_ADD] = mf_offline_do_add,
		[MF_KEYS_QUERY] = mf_offline_do_query,
		[MF_KEYS_DELETE] = mf_offline_do_delete,
		[MF_KEYS_ADD_UNIQUE] = mf_offline_do_add_unique,
	};
	int ret = libmf_keys_opts_check(op, opts);

	if (ret)
		return ret;
	return mf_offline_run(f, ops[op], keys, opts->key_size, opts->lens, n,
			      opts->results, &opts->done);
}

/* The wrappers' common body, as mf_keys_args() for fds. */
static ssize_t mf_offline_args(struct mf_offline *f, enum mf_keys_op op,
			       bool fixed, const void *keys, size_t key_size,
			       const uint32_t *lens, size_t n,
			       uint64_t *results, size_t *done)
{
	MF_OPTS(mf_keys_opts, o, .key_size = key_size, .lens = lens,
		.results = results);
	ssize_t ret = fixed && !key_size ? -EINVAL :
		      mf_offline_keys(f, op, keys, n, &o);

	if (done)
		*done = o.done;
	return ret;
}

ssize_t mf_offline_add(struct mf_offline *f, const void *keys,
		       size_t key_size, size_t n, uint64_t *results,
		       size_t *done)
{
	return mf_offline_args(f, MF_KEYS_ADD, true, keys, key_size, NULL, n,
			       results, done);
}

/* Queries do not modify the filter. */
ssize_t mf_offline_query(const struct mf_offline *f, const void *keys,
			 size_t key_size, size_t n, uint64_t *results,
			 size_t *done)
{
	return mf_offline_args((struct mf_offline *)f, MF_KEYS_QUERY, true,
			       keys, key_size, NULL, n, results, done);
}

ssize_t mf_offline_delete(struct mf_offline *f, const void *keys,
			  size_t key_size, size_t n, uint64_t *results,
			  size_t *done)
{
	return mf_offline_args(f, MF_KEYS_DELETE, true, keys, key_size, NULL, n,
			       results, done);
}

ssize_t mf_offline_addv(struct mf_offline *f, const void *keys,
			const uint32_t *lens, size_t n, uint64_t *results,
			size_t *done)
{
	return mf_offline_args(f, MF_KEYS_ADD, false, keys, 0, lens, n, results,
			       done);
}

ssize_t mf_offline_queryv(const struct mf_offline *f, const void *keys,
			  const uint32_t *lens, size_t n, uint64_t *results,
			  size_t *done)
{
	return mf_offline_args((struct mf_offline *)f, MF_KEYS_QUERY, false,
			       keys, 0, lens, n, results, done);
}

ssize_t mf_offline_deletev(struct mf_offline *f, const void *keys,
			   const uint32_t *lens, size_t n, uint64_t *results,
			   size_t *done)
{
	return mf_offline_args(f, MF_KEYS_DELETE, false, keys, 0, lens, n,
			       results, done);
}

ssize_t mf_offline_test_and_add(struct mf_offline *f, const void *keys,
				size_t key_size, size_t n, uint64_t *results,
				size_t *done)
{
	if (!key_size) {
		if (done)
			*done = 0;
		return -EINVAL;
	}
	return mf_offline_run(f, mf_offline_do_test_and_add, keys, key_size,
			      NULL, n, results, done);
}

ssize_t mf_offline_test_and_addv(struct mf_offline *f, const void *keys,
				 const uint32_t *lens, size_t n,
				 uint64_t *results, size_t *done)
{
	return mf_offline_run(f, mf_offline_do_test_and_add, keys, 0, lens, n,
			      results, done);
}

/* mf_offline_run() for COUNT: a byte per key into @counts (optional). */
static ssize_t mf_offline_count_run(const struct mf_offline *f,
				    const void *keys, size_t key_size,
				    const uint32_t *lens, size_t n,
				    uint8_t *counts, size_t *done)
{
	u64 hashes[MF_OFFLINE_WINDOW];
	u8 c[MF_OFFLINE_WINDOW];
	const u8 *p = keys;
	size_t i = 0, hits = 0;
	u32 j, m;
	int ret;

	ret = mf_offline_check(f, NULL, keys, key_size, lens, n);
	if (!ret && !f->ops->count)
		ret = -EOPNOTSUPP;
	for (; !ret && i < n; i += m) {
		m = min(n - i, (size_t)MF_OFFLINE_WINDOW);
		mf_offline_hash(f, &p, key_size, lens ? lens + i : NULL, m,
				hashes);
		f->ops->count(&f->s, hashes, m, c);
		for (j = 0; j < m; j++)
			hits += c[j] != 0;
		if (counts)
			memcpy(counts + i, c, m);
	}
	if (done)
		*done = i;
	return ret ? ret : (ssize_t)hits;
}

ssize_t mf_offline_count(const struct mf_offline *f, const void *keys,
			 size_t key_size, size_t n, uint8_t *counts,
			 size_t *done)
{
	if (!key_size) {
		if (done)
			*done = 0;
		return -EINVAL;
	}
	return mf_offline_count_run(f, keys, key_size, NULL, n, counts, done);
}

ssize_t mf_offline_countv(const struct mf_offline *f, const void *keys,
			  const uint32_t *lens, size_t n, uint8_t *counts,
			  size_t *done)
{
	return mf_offline_count_run(f, keys, 0, lens, n, counts, done);
}

/* Why two parsed Bloom filters cannot be ORed, or NULL if they can. */
static const char *mf_merge_mismatch(const struct mf_offline *a,
				     const struct mf_offline *b)
{
	const struct memfilter_bloom_params *pa = &a->s.bloom.p;
	const struct memfilter_bloom_params *pb = &b->s.bloom.p;

	const struct memfilter_type_ops *other =
		a->ops != &memfilter_bloom_ops ? a->ops : b->ops;

	if (other != &memfilter_bloom_ops) {
		const struct libmf_type *t = libmf_type_of(other->type);

		return t && t->merge_refusal ? t->merge_refusal :
		       "only Bloom filters can be merged";
	}
	if (pa->layout != pb->layout)
		return "different layouts (line64, split32)";
	if (pa->nblocks != pb->nblocks)
		return "different table sizes (block counts)";
	if (pa->k != pb->k)
		return "different probes per key (k)";
	if (pa->hasher.algo != pb->hasher.algo)
		return "different hash algorithms";
	if (pa->hasher.algo != MF_HASH_SIPHASH24 && pa->hasher.seed != pb->hasher.seed)
		return "different hash seeds";
	if (pa->hasher.algo == MF_HASH_SIPHASH24 &&
	    (pa->hasher.key[0] != pb->hasher.key[0] ||
	     pa->hasher.key[1] != pb->hasher.key[1]))
		return "different secret keys";
	if (a->px.max != b->px.max)
		return a->px.max && b->px.max ?
		       "different most prefix lengths per family" :
		       "a prefix filter and a filter of keys";
	if (memfilter_prefixes_check_add(&a->px, b->px.lengths) == -ENOSPC)
		return "more prefix lengths together than the filters take";
	return NULL;
}

int mf_offline_merge(struct mf_offline *f, const struct mf_offline *other,
		     const char **why)
{
	const char *w;
	u64 i, n;

	if (why)
		*why = NULL;
	if (!f || !other)
		return -EINVAL;
	w = mf_merge_mismatch(f, other);
	if (w) {
		if (why)
			*why = w;
		return -EINVAL;
	}
	n = memfilter_bloom_nwords(&f->s.bloom.p);
	for (i = 0; i < n; i++)
		f->s.bloom.words[i] |= other->s.bloom.words[i];
	if (f->px.max)
		memfilter_prefixes_add(&f->px, other->px.lengths);
	if (check_add_overflow(f->keys, other->keys, &f->keys))
		f->keys = ~0ULL;
	if (check_add_overflow(f->adds, other->adds, &f->adds))
		f->adds = ~0ULL;
	return 0;
}

int mf_image_merge(const void *a, size_t a_len, const void *b, size_t b_len,
		   void **out, size_t *out_len, const char **why)
{
	struct mf_offline *fa, *fb;
	const char *w = NULL;
	int ret;

	if (why)
		*why = NULL;
	if (!out || !out_len)
		return libmf_clear_image_out(out, out_len);
	*out = NULL;
	*out_len = 0;
	ret = mf_offline_from_image(a, a_len, &fa, &w);
	if (ret)
		goto out;
	ret = mf_offline_from_image(b, b_len, &fb, &w);
	if (!ret) {
		ret = mf_offline_merge(fa, fb, &w);
		mf_offline_free(fb);
	}
	if (!ret) {
		ret = mf_offline_image(fa, out, out_len);
		if (ret)
			w = "out of memory";
	}
	mf_offline_free(fa);
out:
	if (why)
		*why = w;
	return ret;
}

/* One key of @len bytes as a batch of one; @key may be NULL if @len is 0. */
static int mf_offline_key(struct mf_offline *f, mf_offline_op op,
			  const void *key, size_t len)
{
	uint32_t l = (uint32_t)len;

	if (!libmf_key_ok(key, len))
		return -EINVAL;
	return (int)mf_offline_run(f, op, key ? key : "", 0, &l, 1, NULL, NULL);
}

int mf_offline_add_key(struct mf_offline *f, const void *key, size_t len)
{
	return mf_offline_key(f, mf_offline_do_add, key, len);
}

int mf_offline_query_key(const struct mf_offline *f, const void *key,
			 size_t len)
{
	return mf_offline_key((struct mf_offline *)f, mf_offline_do_query, key,
			      len);
}

int mf_offline_delete_key(struct mf_offline *f, const void *key, size_t len)
{
	return mf_offline_key(f, mf_offline_do_delete, key, len);
}

int mf_offline_add_unique_key(struct mf_offline *f, const void *key,
			      size_t len)
{
	return mf_offline_key(f, mf_offline_do_add_unique, key, len);
}

int mf_offline_test_and_add_key(struct mf_offline *f, const void *key,
				size_t len)
{
	return mf_offline_key(f, mf_offline_do_test_and_add, key, len);
}

int mf_offline_count_key(const struct mf_offline *f, const void *key,
			 size_t len)
{
	uint32_t l = (uint32_t)len;
	u8 count = 0;
	ssize_t ret;

	if (!libmf_key_ok(key, len))
		return -EINVAL;
	ret = mf_offline_count_run(f, key ? key : "", 0, &l, 1, &count, NULL);
	return ret < 0 ? (int)ret : count;
}

/*
 * The image in regular file @fd of @size bytes (from its start, whatever
 * the fd's offset) into a new filter, its payload read straight into the
 * filter's table: the table is the only memory it takes, and none before
 * the header, checked, declares exactly @size bytes. *@why: the reason
 * of a refusal.
 */
static int mf_offline_read_regular(int fd, u64 size, struct mf_offline **out,
				   const char **why)
{
	u8 hdr[MEMFILTER_IMAGE_HDR_SIZE], extra;
	struct memfilter_image_desc d;
	struct mf_offline *f = NULL;
	off_t pos = 0;
	size_t total;
	ssize_t n;
	int ret;

	n = mf_read_full(fd, hdr, sizeof(hdr), &pos);
	if (n < 0)
		return n;
	ret = mf_image_declared(hdr, n, &total, why);
	if (ret)
		return ret;
	if (size != total) {
		*why = size < total ? "truncated: shorter than header + payload" :
				      "trailing bytes after the payload";
		return -EBADMSG;
	}
	ret = memfilter_image_parse(hdr, total, &d);
	if (ret) {
		*why = mf_image_why(hdr, total, ret);
		goto out;
	}
	ret = mf_offline_new(memfilter_type_ops(d.type), &d.params, true, &f);
	if (ret) {
		*why = "out of memory";
		goto out;
	}
	/* Short or long: the file changed since its size was read. */
	n = mf_read_full(fd, f->mem, d.payload_size, &pos);
	if (n >= 0 && (u64)n < d.payload_size) {
		*why = "truncated: shorter than header + payload";
		n = -EBADMSG;
	} else if (n >= 0) {
		n = mf_read_full(fd, &extra, 1, &pos);
		if (n > 0) {
			*why = "trailing bytes after the payload";
			n = -EBADMSG;
		}
	}
	if (n < 0) {
		ret = n;
		goto out;
	}
	ret = memfilter_image_check_payload(&d, f->mem);
	if (ret) {
		*why = "payload checksum mismatch (corrupt table)";
		goto out;
	}
	ret = mf_offline_take_prefixes(f, &d, (u8 *)f->mem +
				       memfilter_image_table_bytes(&d), why);
	if (ret)
		goto out;
	ret = f->ops->restore(&f->s, &d);
	if (ret) {
		*why = "cuckoo table does not hold the header's key count";
		goto out;
	}
	f->keys = d.keys;
	f->adds = d.keys;
	*out = f;
	f = NULL;
out:
	mf_offline_free(f);
	explicit_bzero(&d, sizeof(d));
	return ret;
}

/*
 * The image in the regular file @fd (or the system's error for a
 * directory, -ENODEV for a pipe or device), read into the filter's own
 * memory, never mapped: no later change to the file (a truncation by
 * another program) can reach the filter, so a caller never takes SIGBUS
 * for a file it opened, and a library installs no handler for it.
 */
int mf_offline_map(int fd, struct mf_offline **out, const char **why)
{
	const char *w = NULL;
	struct stat st;
	int ret;

	if (why)
		*why = NULL;
	if (!out)
		return -EINVAL;
	*out = NULL;
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? -EISDIR : -ENODEV;
	ret = mf_offline_read_regular(fd, st.st_size, out, &w);
	if (why)
		*why = w;
	return ret;
}

int mf_offline_load(const char *path, struct mf_offline **out,
		    const char **why)
{
	const char *w = NULL;
	size_t len;
	void *img;
	int fd, ret;

	if (why)
		*why = NULL;
	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!path)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = mf_offline_map(fd, out, &w);
	if (ret == -ENODEV) {
		/* A pipe or device: read as a stream, in bounded memory. */
		ret = mf_image_read(fd, &img, &len, &w);
		if (!ret) {
			ret = mf_offline_from_image(img, len, out, &w);
			explicit_bzero(img, len);
			free(img);
		}
	}
	close(fd);
	if (why)
		*why = w;
	return ret;
}

int mf_offline_save(const struct mf_offline *f, const char *path)
{
	void *img;
	size_t len;
	int ret;

	if (!f || !path)
		return -EINVAL;
	ret = mf_offline_image(f, &img, &len);
	if (ret)
		return ret;
	ret = libmf_write_file(path, img, len,
			       memfilter_state_hasher(f->ops, &f->s)->algo ==
			       MEMFILTER_HASH_SIPHASH24);
	explicit_bzero(img, len);
	free(img);
	return ret;
}

ssize_t mf_offline_add_prefixes(struct mf_offline *f, const struct mf_prefix *p,
				size_t n, uint64_t *results, size_t *done)
{
	const struct memfilter_prefix *e = (const void *)p;
	u64 want[MEMFILTER_PREFIX_WORDS] = {};
	uint32_t *lens = NULL;
	size_t i, off = 0;
	u8 *keys = NULL;
	ssize_t ret;

	if (done)
		*done = 0;
	if (!f || (n && !p) || n > SIZE_MAX / MEMFILTER_PREFIX_KEY_MAX)
		return -EINVAL;
	/* As the kernel: every prefix checked, the lengths first. */
	for (i = 0; i < n; i++) {
		if (memfilter_prefix_check(&e[i]))
			return -EINVAL;
		memfilter_prefix_mark(want, &e[i]);
	}
	ret = memfilter_prefixes_check_add(&f->px, want);
	if (ret)
		return ret;
	keys = malloc(n * MEMFILTER_PREFIX_KEY_MAX + 1);
	lens = malloc(n * sizeof(*lens) + 1);
	if (!keys || !lens) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		lens[i] = memfilter_prefix_key(keys + off, e[i].addr,
					       memfilter_prefix_addr_len(e[i].family),
					       e[i].length);
		off += lens[i];
	}
	memfilter_prefixes_add(&f->px, want);
	ret = mf_offline_run(f, mf_offline_do_add, keys, 0, lens, n, results,
			     done);
out:
	free(keys);
	free(lens);
	return ret;
}

ssize_t mf_offline_query_addrs(const struct mf_offline *f,
			       const struct mf_prefix *addrs, size_t n,
			       uint64_t *results, size_t *done)
{
	size_t i, hits = 0;
	int ret = f ? libmf_addrs_check(addrs, n) : -EINVAL;

	if (done)
		*done = 0;
	if (ret)
		return ret;
	if (results)
		memset(results, 0, (n + 63) / 64 * sizeof(*results));
	for (i = 0; i < n; i++) {
		if (!memfilter_prefix_contains(f->ops, &f->s, &f->px,
					       addrs[i].addr,
					       memfilter_prefix_addr_len(addrs[i].family)))
			continue;
		hits++;
		if (results)
			results[i / 64] |= 1ULL << (i % 64);
	}
	if (done)
		*done = n;
	return (ssize_t)hits;
}

int mf_offline_prefix_info(const struct mf_offline *f, struct mf_prefix_info *pi)
{
	struct memfilter_info i = { .size = sizeof(i) };
	int ret = f && pi ? libmf_opts_check(pi, pi->sz, sizeof(*pi)) : -EINVAL;

	if (ret)
		return ret;
	memfilter_state_info(f->ops, &f->s, f->keys, &i);
	memfilter_prefixes_info(&f->px, &i);
	return libmf_decode_prefix_info(&i, pi);
}
