// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * libmemfilter: thin, safe wrappers over the /dev/memfilter ioctls.
 *
 * Conventions in this file: every public function returns a negative errno
 * on failure and never sets errno as its result; ABI structures live on the
 * stack, are zero-initialised and have their size set here and nowhere
 * else; key batches larger than the kernel's MEMFILTER_BATCH_MAX are split
 * at multiples of 64 keys, so each kernel call owns whole words of the
 * caller's result bitmap.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/memfilter.h>

#include "bloom.h"
#include "internal.h"
#include "libmemfilter.h"

_Static_assert(MF_NAME_MAX == MEMFILTER_NAME_MAX, "name length");
_Static_assert(MF_KEY_MAX == MEMFILTER_KEY_MAX, "key length");
_Static_assert(MF_HASH_XXH64 == MEMFILTER_HASH_XXH64, "xxh64");
_Static_assert(MF_HASH_SIPHASH24 == MEMFILTER_HASH_SIPHASH24, "siphash");
_Static_assert(MF_HASH_XXH3 == MEMFILTER_HASH_XXH3, "xxh3");
_Static_assert(MEMFILTER_BATCH_MAX % 64 == 0, "batches own whole words");
_Static_assert(MF_COUNT_MAX == MEMFILTER_COUNT_MAX, "largest count");

#define MF_PPB 1000000000.0
/* First guess of how many names mf_list() will find. */
#define MF_LIST_FIRST 16

static int mf_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

/*
 * Copy @name into an ABI name field; "" and NULL give an all-zero field.
 * No more than MEMFILTER_NAME_MAX bytes of @name are read: a name field
 * of that size without its NUL is too long, not read past.
 */
static int mf_copy_name(char dst[MEMFILTER_NAME_MAX], const char *name)
{
	size_t len = name ? strnlen(name, MEMFILTER_NAME_MAX) : 0;

	if (len >= MEMFILTER_NAME_MAX)
		return -ENAMETOOLONG;
	memset(dst, 0, MEMFILTER_NAME_MAX);
	if (len)
		memcpy(dst, name, len);
	return 0;
}

const char *mf_version(void)
{
	return MEMFILTER_VERSION;
}

int mf_api(int devfd, struct mf_api_info *info)
{
	struct memfilter_api a = {
		.size = sizeof(a),
		.api_version = MEMFILTER_API_VERSION,
	};
	int ret = mf_ioctl(devfd, MEMFILTER_IOC_API, &a);

	if (info) {
		info->api_version = a.api_version;
		info->features = a.features;
	}
	return ret;
}

int mf_open_device(void)
{
	int fd = open(MF_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = mf_api(fd, NULL);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

/* struct mf_create_opts as first released, before @hash_algo. */
#define MF_CREATE_OPTS_V1	(offsetof(struct mf_create_opts, name) + \
				 sizeof(const char *))
/*
 * As released in 1.1.0, up to @hash_algo (@prefix_lengths took its
 * padding: read only from larger structs).
 */
#define MF_CREATE_OPTS_V2	offsetof(struct mf_create_opts, prefixes)
_Static_assert(MF_CREATE_OPTS_V2 == offsetof(struct mf_create_opts, hash_algo) +
	       sizeof(int) + sizeof(unsigned int), "1.1.0's size");

int libmf_refuse(const char **why, const char *reason, int err)
{
	if (why)
		*why = reason;
	return err;
}

/* @o's hash choice into @c's flags: 0 or -EINVAL. */
static int libmf_encode_hash(struct memfilter_create *c,
			     const struct mf_create_opts *o, size_t sz,
			     const char **why)
{
	int algo = sz > MF_CREATE_OPTS_V1 ? o->hash_algo : 0;

	switch (algo) {
	case 0:		/* the kernel's default: XXH3, XXH64 on old modules */
		break;
	case MF_HASH_XXH64:
		c->flags |= MEMFILTER_CREATE_XXH64;
		break;
	case MF_HASH_XXH3:
		c->flags |= MEMFILTER_CREATE_XXH3;
		break;
	case MF_HASH_SIPHASH24:
		c->flags |= MEMFILTER_CREATE_KEYED;
		break;
	default:
		return libmf_refuse(why, "hash_algo must be 0, MF_HASH_XXH64, MF_HASH_XXH3 or MF_HASH_SIPHASH24",
				    -EINVAL);
	}
	if (o->keyed && (algo == MF_HASH_XXH64 || algo == MF_HASH_XXH3))
		return libmf_refuse(why, "keyed filters hash with SipHash-2-4, not with hash_algo XXH64 or XXH3",
				    -EINVAL);
	if (o->keyed)
		c->flags |= MEMFILTER_CREATE_KEYED;
	return 0;
}

/*
 * @o's layout into @c: 0 or -EINVAL. Only the 1.8 versions (@strict) read
 * it, and only from a struct larger than 1.1.0's: the field came after
 * 1.1.0, like @prefixes.
 */
static int libmf_encode_layout(struct memfilter_create *c,
			       const struct mf_create_opts *o, size_t sz,
			       bool strict, const char **why)
{
	int layout = strict && sz > MF_CREATE_OPTS_V2 ? o->layout :
		     MF_LAYOUT_DEFAULT;

	if (layout != MF_LAYOUT_DEFAULT && layout != MF_LAYOUT_LINE64 &&
	    layout != MF_LAYOUT_SPLIT32)
		return libmf_refuse(why, "layout must be 0, MF_LAYOUT_LINE64 or MF_LAYOUT_SPLIT32",
				    -EINVAL);
	if (layout && !libmf_type_may_have(o->type, LIBMF_TYPE_LAYOUT))
		return libmf_refuse(why, "layout is for Bloom, window and growing filters, not cuckoo",
				    -EINVAL);
	c->layout = layout;
	return 0;
}

/* Bits per key in quarters, as 1.0 (rounded) or 1.8 (exact) encodes them. */
static int libmf_encode_bpk(struct memfilter_create *c, double bpk,
			    bool strict, const char **why)
{
	if (!strict) {
		if (!(bpk > 0 && bpk * 4 + 0.5 < 4294967296.0))
			return -EINVAL;
		c->bits_per_key_q4 = (__u32)(bpk * 4 + 0.5);
		return c->bits_per_key_q4 ? 0 : -EINVAL;
	}
	/* Written so that NaN fails too; nothing is rounded. */
	if (!(bpk >= MEMFILTER_BLOOM_MIN_BPK_Q4 / 4.0 &&
	      bpk <= MEMFILTER_BLOOM_MAX_BPK_Q4 / 4.0) ||
	    (__u32)(bpk * 4) != bpk * 4)
		return libmf_refuse(why, "bits_per_key must be 1 to 64 in steps of 0.25",
				    -EINVAL);
	c->bits_per_key_q4 = (__u32)(bpk * 4);
	return 0;
}

int libmf_encode_create(struct memfilter_create *c,
			const struct mf_create_opts *o, bool strict,
			const char **why)
{
	size_t sz;
	int ret;

	if (!o)
		return libmf_refuse(why, "no options (NULL)", -EINVAL);
	/*
	 * 1.8 reads every field of its header; 1.0, the fields it had. A
	 * field added later is for the 1.8 versions (@strict) only, while
	 * the node is unreleased: the earlier versions' callers were built
	 * against a struct that ends at name (1.0.0) or hash_algo (1.1.0),
	 * and a field in 1.1.0's tail padding has no sz of its own (those
	 * bytes are the caller's padding, not necessarily zero). Once 1.8
	 * is released, a new field means new versions of these functions.
	 */
	sz = o->sz ? o->sz : strict ? sizeof(*o) : MF_CREATE_OPTS_V1;
	/* One of the released sizes, or larger with the excess zero. */
	if (sz != MF_CREATE_OPTS_V1 && sz != MF_CREATE_OPTS_V2 &&
	    sz < sizeof(*o))
		return libmf_refuse(why, "sz is not a size of struct mf_create_opts (use MF_OPTS())",
				    -EINVAL);
	ret = libmf_opts_check(o, sz, sz <= MF_CREATE_OPTS_V2 ? sz : sizeof(*o));
	if (ret)
		return libmf_refuse(why, "options set fields this library does not know (it is older than the header)",
				    ret);
	if (sz > MF_CREATE_OPTS_V2) {
		if (!o->prefixes && o->prefix_lengths)
			return libmf_refuse(why, "prefix_lengths is set but prefixes is not",
					    -EINVAL);
		if (o->prefix_lengths > MF_PREFIX_LENGTHS_MAX)
			return libmf_refuse(why, "prefix_lengths must be 1 to MF_PREFIX_LENGTHS_MAX (32), or 0 for 16",
					    -EINVAL);
		if (o->prefixes)
			c->prefix_lengths = o->prefix_lengths ?:
					    MF_PREFIX_LENGTHS_DEFAULT;
	}
	ret = libmf_encode_hash(c, o, sz, why);
	if (ret)
		return ret;
	if (!libmf_type_of(o->type))
		return libmf_refuse(why, LIBMF_TYPES_WHY, -EINVAL);
	if (!o->capacity)
		return libmf_refuse(why, "capacity must be at least 1", -EINVAL);
	if ((c->flags & MEMFILTER_CREATE_KEYED) && o->fixed_seed)
		return libmf_refuse(why, "keyed filters have a secret, not a seed: not with fixed_seed",
				    -EINVAL);
	if (strict && o->seed && !o->fixed_seed)
		return libmf_refuse(why, "seed is set but fixed_seed is not",
				    -EINVAL);
	if (o->fpr != 0 && o->bits_per_key != 0)
		return libmf_refuse(why, "fpr and bits_per_key exclude each other",
				    -EINVAL);
	c->type = o->type;
	c->capacity = o->capacity;
	c->fingerprint_bits = o->fingerprint_bits;
	if (o->fpr != 0) {
		/* Written so that NaN fails too. */
		if (!(o->fpr > 0 && o->fpr < 1))
			return libmf_refuse(why, "fpr must be above 0 and below 1",
					    -EINVAL);
		c->fpr_ppb = (__u64)(o->fpr * MF_PPB + 0.5);
		if (c->fpr_ppb < 1 || c->fpr_ppb >= (__u64)MF_PPB)
			return libmf_refuse(why, "fpr must be 1e-9 to 1 - 1e-9 (it is kept in parts per billion)",
					    -EINVAL);
	}
	if (o->bits_per_key != 0) {
		ret = libmf_encode_bpk(c, o->bits_per_key, strict, why);
		if (ret)
			return ret;
	}
	if (o->fixed_seed) {
		c->flags |= MEMFILTER_CREATE_SEED;
		c->seed = o->seed;
	}
	ret = libmf_encode_layout(c, o, sz, strict, why);
	if (ret)
		return ret;
	ret = mf_copy_name(c->name, o->name);
	return ret ? libmf_refuse(why, "name longer than MF_NAME_MAX - 1 characters", ret) : 0;
}

/*
 * CREATE with @c, which mf_create*() encoded from their options: the new
 * filter's fd, or @ret if encoding failed, or the ioctl's negative errno.
 * XXH64 asked for by name of a module older than the flag: again without
 * it, as such a module hashes with XXH64 when no hash is named.
 */
static int mf_create_req(int devfd, struct memfilter_create *c, int ret)
{
	struct mf_api_info api;

	if (ret)
		return ret;
	ret = mf_ioctl(devfd, MEMFILTER_IOC_CREATE, c);
	if (ret == -EOPNOTSUPP && (c->flags & MEMFILTER_CREATE_XXH64) &&
	    !mf_api(devfd, &api) &&
	    !(api.features & MEMFILTER_FEAT_HASH_DEFAULT_XXH3)) {
		c->flags &= ~MEMFILTER_CREATE_XXH64;
		ret = mf_ioctl(devfd, MEMFILTER_IOC_CREATE, c);
	}
	return ret ? ret : c->out_fd;
}

static int mf_create_impl(int devfd, const struct mf_create_opts *opts,
			  bool strict)
{
	struct memfilter_create c = { .size = sizeof(c) };

	return mf_create_req(devfd, &c,
			     libmf_encode_create(&c, opts, strict, NULL));
}

int libmf_create_1_8(int devfd, const struct mf_create_opts *opts)
{
	return mf_create_impl(devfd, opts, true);
}
MF_SYMVER_DEFAULT(libmf_create_1_8, mf_create, MEMFILTER_1.8);

int libmf_create_1(int devfd, const struct mf_create_opts *opts)
{
	return mf_create_impl(devfd, opts, false);
}
MF_SYMVER(libmf_create_1, mf_create, MEMFILTER_1);

int mf_open(int devfd, const char *name)
{
	struct memfilter_open o = { .size = sizeof(o) };
	int ret;

	if (!name || !*name)
		return -EINVAL;
	ret = mf_copy_name(o.name, name);
	if (ret)
		return ret;
	/* Read-write if this caller may write it, else read-only. */
	o.flags = MEMFILTER_OPEN_WRITE;
	ret = mf_ioctl(devfd, MEMFILTER_IOC_OPEN, &o);
	if (ret == -EPERM || ret == -EBADF) {
		o.flags = 0;
		ret = mf_ioctl(devfd, MEMFILTER_IOC_OPEN, &o);
	}
	return ret ? ret : o.out_fd;
}

/* One allocation: @n pointers, a NULL, then the @n strings they point at. */
static char **mf_pack_names(const char (*raw)[MEMFILTER_NAME_MAX], size_t n)
{
	char **v = malloc((n + 1) * sizeof(*v) + n * MEMFILTER_NAME_MAX);
	char *s;
	size_t i;

	if (!v)
		return NULL;
	s = (char *)(v + n + 1);
	for (i = 0; i < n; i++, s += MEMFILTER_NAME_MAX) {
		memcpy(s, raw[i], MEMFILTER_NAME_MAX);
		s[MEMFILTER_NAME_MAX - 1] = '\0';
		v[i] = s;
	}
	v[n] = NULL;
	return v;
}

ssize_t mf_list(int devfd, char ***names)
{
	char (*raw)[MEMFILTER_NAME_MAX] = NULL;
	size_t cap = MF_LIST_FIRST;
	struct memfilter_list l;
	int ret;

	if (!names)
		return -EINVAL;
	*names = NULL;
	for (;;) {
		free(raw);
		raw = calloc(cap, MEMFILTER_NAME_MAX);
		if (!raw)
			return -ENOMEM;
		memset(&l, 0, sizeof(l));
		l.size = sizeof(l);
		l.count = cap;
		l.names = (__u64)(uintptr_t)raw;
		ret = mf_ioctl(devfd, MEMFILTER_IOC_LIST, &l);
		if (ret)
			goto out_free_raw;
		if (l.count <= cap)
			break;
		/* Filters appeared meanwhile: ask again with room to spare. */
		cap = (size_t)l.count + l.count / 4 + 1;
	}
	*names = mf_pack_names((const char (*)[MEMFILTER_NAME_MAX])raw,
			       l.count);
	ret = *names ? (int)l.count : -ENOMEM;
out_free_raw:
	free(raw);
	return ret;
}

/*
 * Run one key command over @n keys in kernel-sized batches. Fixed-size keys
 * when @key_size is non-zero, else variable-size keys with lengths @lens.
 * The answers go to the bitmap @results, or (COUNT) a byte per key to
 * @counts.
 */
static ssize_t mf_keys_ioctl(int fd, unsigned long cmd, const void *keys,
			     size_t key_size, const uint32_t *lens, size_t n,
			     uint64_t *results, uint8_t *counts, size_t *done)
{
	const unsigned char *p = keys;
	size_t off = 0, count = 0;
	int ret = 0;

	if (!libmf_keys_layout_ok(keys, key_size, lens, n)) {
		ret = -EINVAL;
		goto out;
	}
	while (off < n) {
		size_t c = n - off < MEMFILTER_BATCH_MAX ?
			   n - off : MEMFILTER_BATCH_MAX;
		struct memfilter_keys k = {
			.size = sizeof(k),
			.count = c,
			.key_size = key_size,
			.keys = (__u64)(uintptr_t)p,
			.lens = (__u64)(uintptr_t)(lens ? lens + off : NULL),
		};
		size_t i, bytes = 0;

		if (results) {
			memset(results + off / 64, 0,
			       (c + 63) / 64 * sizeof(*results));
			k.results = (__u64)(uintptr_t)(results + off / 64);
		}
		if (counts)
			k.results = (__u64)(uintptr_t)(counts + off);
		ret = mf_ioctl(fd, cmd, &k);
		if (ret) {
			/* out_done is meaningful only if the kernel got far. */
			if (k.out_done <= c)
				off += k.out_done;
			goto out;
		}
		count += k.out_count;
		if (key_size) {
			bytes = c * key_size;
		} else {
			for (i = 0; i < c; i++)
				bytes += lens[off + i];
		}
		p += bytes;
		off += c;
	}
out:
	if (done)
		*done = off;
	return ret ? ret : (ssize_t)count;
}

ssize_t libmf_keys_ioctl(int fd, unsigned long cmd, const void *keys,
			 size_t key_size, const uint32_t *lens, size_t n,
			 uint64_t *results, size_t *done)
{
	return mf_keys_ioctl(fd, cmd, keys, key_size, lens, n, results, NULL,
			     done);
}

int libmf_info(int fd, struct memfilter_info *i)
{
	memset(i, 0, sizeof(*i));
	i->size = sizeof(*i);
	return mf_ioctl(fd, MEMFILTER_IOC_INFO, i);
}

bool libmf_keys_layout_ok(const void *keys, size_t key_size,
			  const uint32_t *lens, size_t n)
{
	return !((key_size && lens) || (!key_size && !lens && n) ||
		 key_size > MEMFILTER_KEY_MAX || (n && !keys));
}

int libmf_clear_image_out(void **image, size_t *len)
{
	if (image)
		*image = NULL;
	if (len)
		*len = 0;
	return -EINVAL;
}

int libmf_opts_check(const void *opts, size_t sz, size_t known)
{
	const unsigned char *p = opts;
	size_t i;

	if (!opts || sz < known)
		return -EINVAL;
	for (i = known; i < sz; i++)
		if (p[i])
			return -E2BIG;
	return 0;
}

int libmf_keys_opts_check(enum mf_keys_op op, struct mf_keys_opts *opts)
{
	int ret;

	if (!opts)
		return -EINVAL;
	ret = libmf_opts_check(opts, opts->sz,
			       offsetof(struct mf_keys_opts, done) +
			       sizeof(opts->done));
	if (ret)
		return ret;
	opts->done = 0;
	return op <= MF_KEYS_ADD_UNIQUE ? 0 : -EINVAL;
}

ssize_t mf_keys(int fd, enum mf_keys_op op, const void *keys, size_t n,
		struct mf_keys_opts *opts)
{
	static const unsigned long cmds[] = {
		[MF_KEYS_ADD] = MEMFILTER_IOC_ADD,
		[MF_KEYS_QUERY] = MEMFILTER_IOC_QUERY,
		[MF_KEYS_DELETE] = MEMFILTER_IOC_DELETE,
		[MF_KEYS_ADD_UNIQUE] = MEMFILTER_IOC_ADD_UNIQUE,
	};
	int ret = libmf_keys_opts_check(op, opts);

	if (ret)
		return ret;
	return mf_keys_ioctl(fd, cmds[op], keys, opts->key_size, opts->lens, n,
			     opts->results, NULL, &opts->done);
}

/*
 * The wrappers' common body; @fixed: a key size of 0 is an error, not
 * "variable-size keys".
 */
static ssize_t mf_keys_args(int fd, enum mf_keys_op op, bool fixed,
			    const void *keys, size_t key_size,
			    const uint32_t *lens, size_t n, uint64_t *results,
			    size_t *done)
{
	MF_OPTS(mf_keys_opts, o, .key_size = key_size, .lens = lens,
		.results = results);
	ssize_t ret = fixed && !key_size ? -EINVAL : mf_keys(fd, op, keys, n, &o);

	if (done)
		*done = o.done;
	return ret;
}

ssize_t mf_add(int fd, const void *keys, size_t key_size, size_t n,
	       uint64_t *results, size_t *done)
{
	return mf_keys_args(fd, MF_KEYS_ADD, true, keys, key_size, NULL, n,
			    results, done);
}

ssize_t mf_query(int fd, const void *keys, size_t key_size, size_t n,
		 uint64_t *results, size_t *done)
{
	return mf_keys_args(fd, MF_KEYS_QUERY, true, keys, key_size, NULL, n,
			    results, done);
}

ssize_t mf_delete(int fd, const void *keys, size_t key_size, size_t n,
		  uint64_t *results, size_t *done)
{
	return mf_keys_args(fd, MF_KEYS_DELETE, true, keys, key_size, NULL, n,
			    results, done);
}

ssize_t mf_add_unique(int fd, const void *keys, size_t key_size, size_t n,
		      uint64_t *results, size_t *done)
{
	return mf_keys_args(fd, MF_KEYS_ADD_UNIQUE, true, keys, key_size, NULL,
			    n, results, done);
}

ssize_t mf_addv(int fd, const void *keys, const uint32_t *lens, size_t n,
		uint64_t *results, size_t *done)
{
	return mf_keys_args(fd, MF_KEYS_ADD, false, keys, 0, lens, n, results,
			    done);
}

ssize_t mf_queryv(int fd, const void *keys, const uint32_t *lens, size_t n,
		  uint64_t *results, size_t *done)
{
	return mf_keys_args(fd, MF_KEYS_QUERY, false, keys, 0, lens, n,
			    results, done);
}

ssize_t mf_deletev(int fd, const void *keys, const uint32_t *lens, size_t n,
		   uint64_t *results, size_t *done)
{
	return mf_keys_args(fd, MF_KEYS_DELETE, false, keys, 0, lens, n,
			    results, done);
}

ssize_t mf_add_uniquev(int fd, const void *keys, const uint32_t *lens,
		       size_t n, uint64_t *results, size_t *done)
{
	return mf_keys_args(fd, MF_KEYS_ADD_UNIQUE, false, keys, 0, lens, n,
			    results, done);
}

ssize_t mf_test_and_add(int fd, const void *keys, size_t key_size, size_t n,
			uint64_t *results, size_t *done)
{
	size_t d = 0;
	ssize_t ret = key_size ? mf_keys_ioctl(fd, MEMFILTER_IOC_TEST_AND_ADD,
					       keys, key_size, NULL, n,
					       results, NULL, &d) : -EINVAL;

	if (done)
		*done = d;
	return ret;
}

ssize_t mf_test_and_addv(int fd, const void *keys, const uint32_t *lens,
			 size_t n, uint64_t *results, size_t *done)
{
	size_t d = 0;
	ssize_t ret = mf_keys_ioctl(fd, MEMFILTER_IOC_TEST_AND_ADD, keys, 0,
				    lens, n, results, NULL, &d);

	if (done)
		*done = d;
	return ret;
}

ssize_t mf_count(int fd, const void *keys, size_t key_size, size_t n,
		 uint8_t *counts, size_t *done)
{
	if (done)
		*done = 0;
	if (!key_size)
		return -EINVAL;
	return mf_keys_ioctl(fd, MEMFILTER_IOC_COUNT, keys, key_size, NULL, n,
			     NULL, counts, done);
}

ssize_t mf_countv(int fd, const void *keys, const uint32_t *lens, size_t n,
		  uint8_t *counts, size_t *done)
{
	return mf_keys_ioctl(fd, MEMFILTER_IOC_COUNT, keys, 0, lens, n, NULL,
			     counts, done);
}

/*
 * One key of @len bytes as a batch of one (@key may be NULL if @len is
 * 0): the count of keys it took effect for (0 or 1), or its COUNT.
 */
static int mf_key_ioctl(int fd, unsigned long cmd, const void *key, size_t len)
{
	uint32_t l = (uint32_t)len;
	uint8_t count = 0;
	ssize_t ret;

	if (!libmf_key_ok(key, len))
		return -EINVAL;
	ret = mf_keys_ioctl(fd, cmd, key ? key : "", 0, &l, 1, NULL,
			    cmd == MEMFILTER_IOC_COUNT ? &count : NULL, NULL);
	if (ret < 0)
		return (int)ret;
	return cmd == MEMFILTER_IOC_COUNT ? count : (int)ret;
}

int mf_add_key(int fd, const void *key, size_t len)
{
	return mf_key_ioctl(fd, MEMFILTER_IOC_ADD, key, len);
}

int mf_query_key(int fd, const void *key, size_t len)
{
	return mf_key_ioctl(fd, MEMFILTER_IOC_QUERY, key, len);
}

int mf_delete_key(int fd, const void *key, size_t len)
{
	return mf_key_ioctl(fd, MEMFILTER_IOC_DELETE, key, len);
}

int mf_add_unique_key(int fd, const void *key, size_t len)
{
	return mf_key_ioctl(fd, MEMFILTER_IOC_ADD_UNIQUE, key, len);
}

int mf_test_and_add_key(int fd, const void *key, size_t len)
{
	return mf_key_ioctl(fd, MEMFILTER_IOC_TEST_AND_ADD, key, len);
}

int mf_count_key(int fd, const void *key, size_t len)
{
	return mf_key_ioctl(fd, MEMFILTER_IOC_COUNT, key, len);
}

/*
 * mf_create_window() (@opts_of LIBMF_OPTS_WINDOW, with @w) and
 * mf_create_grow() (LIBMF_OPTS_GROW, with @g): @opts and the type's
 * own options encoded into one CREATE, by the rules of 1.8 (@strict) or
 * of the versions before.
 */
static int mf_create_typed(int devfd, const struct mf_create_opts *opts,
			   unsigned int opts_of, const struct mf_window_opts *w,
			   const struct mf_grow_opts *g, bool strict)
{
	struct memfilter_create c = { .size = sizeof(c) };
	int ret;

	ret = libmf_encode_create(&c, opts, strict, NULL);
	if (!ret)
		ret = opts_of == LIBMF_OPTS_WINDOW ?
		      libmf_encode_window(&c, w, NULL) :
		      libmf_encode_grow(&c, g, strict, NULL);
	return mf_create_req(devfd, &c, ret);
}

int libmf_create_window_1_8(int devfd, const struct mf_create_opts *opts,
			    const struct mf_window_opts *w)
{
	return mf_create_typed(devfd, opts, LIBMF_OPTS_WINDOW, w, NULL, true);
}
MF_SYMVER_DEFAULT(libmf_create_window_1_8, mf_create_window, MEMFILTER_1.8);

int libmf_create_window_1_2(int devfd, const struct mf_create_opts *opts,
			    const struct mf_window_opts *w)
{
	return mf_create_typed(devfd, opts, LIBMF_OPTS_WINDOW, w, NULL, false);
}
MF_SYMVER(libmf_create_window_1_2, mf_create_window, MEMFILTER_1.2);

int libmf_encode_window(struct memfilter_create *c,
			const struct mf_window_opts *w, const char **why)
{
	int ret;

	if (!w)
		return libmf_refuse(why, "a window filter needs its struct mf_window_opts",
				    -EINVAL);
	if (!libmf_type_has(c->type, LIBMF_OPTS_WINDOW))
		return libmf_refuse(why, libmf_type_with(LIBMF_OPTS_WINDOW)->wrong_opts,
				    -EINVAL);
	ret = libmf_opts_check(w, w->sz, sizeof(*w));
	if (ret)
		return libmf_refuse(why, ret == -E2BIG ?
				    "window options set fields this library does not know" :
				    "mf_window_opts.sz is too small (use MF_OPTS())", ret);
	c->generations = w->generations;
	c->period_ms = w->period_ms;
	if (w->rotate_by_count)
		c->window_flags |= MEMFILTER_WINDOW_ROTATE_BY_COUNT;
	return 0;
}

int libmf_encode_grow(struct memfilter_create *c, const struct mf_grow_opts *g,
		      bool strict, const char **why)
{
	const char *range = "ratio must be 0.01 to 0.99 in steps of 0.01";
	double pct;
	int ret;

	if (!libmf_type_has(c->type, LIBMF_OPTS_GROW))
		return libmf_refuse(why, libmf_type_with(LIBMF_OPTS_GROW)->wrong_opts,
				    -EINVAL);
	if (!g)
		return 0;
	ret = libmf_opts_check(g, g->sz, sizeof(*g));
	if (ret)
		return libmf_refuse(why, ret == -E2BIG ?
				    "grow options set fields this library does not know" :
				    "mf_grow_opts.sz is too small (use MF_OPTS())", ret);
	c->grow_max = g->max_subs;
	c->grow_factor = g->factor;
	if (g->ratio != 0) {
		/* Written so that NaN fails too. */
		if (!(g->ratio > 0 && g->ratio < 1))
			return libmf_refuse(why, range, -EINVAL);
		pct = g->ratio * 100;
		c->grow_ratio_pct = (__u32)(pct + 0.5);
		if (c->grow_ratio_pct < 1 || c->grow_ratio_pct > 99)
			return libmf_refuse(why, range, -EINVAL);
		/* 1.8 takes whole percent (up to a double's rounding) only. */
		if (strict && (pct - c->grow_ratio_pct > 1e-6 ||
			       c->grow_ratio_pct - pct > 1e-6))
			return libmf_refuse(why, range, -EINVAL);
	}
	return 0;
}

int libmf_create_grow_1_8(int devfd, const struct mf_create_opts *opts,
			  const struct mf_grow_opts *g)
{
	return mf_create_typed(devfd, opts, LIBMF_OPTS_GROW, NULL, g, true);
}
MF_SYMVER_DEFAULT(libmf_create_grow_1_8, mf_create_grow, MEMFILTER_1.8);

int libmf_create_grow_1_4(int devfd, const struct mf_create_opts *opts,
			  const struct mf_grow_opts *g)
{
	return mf_create_typed(devfd, opts, LIBMF_OPTS_GROW, NULL, g, false);
}
MF_SYMVER(libmf_create_grow_1_4, mf_create_grow, MEMFILTER_1.4);

int libmf_decode_grow_info(const struct memfilter_info *i,
			   const struct memfilter_generation *g,
			   struct mf_grow_info *gi)
{
	unsigned int j;

	if (!libmf_type_has(i->type, LIBMF_OPTS_GROW))
		return -EOPNOTSUPP;
	memset((char *)gi + sizeof(gi->sz), 0, sizeof(*gi) - sizeof(gi->sz));
	gi->subfilters = i->subfilters;
	gi->max_subs = i->grow_max;
	gi->factor = i->grow_factor;
	gi->ratio = i->grow_ratio_pct / 100.0;
	gi->fpr = (double)i->fpr_ppb / MF_PPB;
	for (j = 0; j < i->subfilters && j < MEMFILTER_GROW_MAX_SUBS; j++) {
		gi->keys[j] = g[j].keys;
		gi->fill[j] = g[j].fill;
	}
	libmf_grow_shapes(i, gi);
	return 0;
}

int mf_grow_info(int fd, struct mf_grow_info *gi)
{
	struct memfilter_generation g[MEMFILTER_GROW_MAX_SUBS];
	struct memfilter_info i = {
		.size = sizeof(i), .gens = (__u64)(uintptr_t)g,
		.gens_count = MEMFILTER_GROW_MAX_SUBS,
	};
	int ret = gi ? libmf_opts_check(gi, gi->sz, sizeof(*gi)) : -EINVAL;

	if (!ret)
		ret = mf_ioctl(fd, MEMFILTER_IOC_INFO, &i);
	return ret ? ret : libmf_decode_grow_info(&i, g, gi);
}

int mf_rotate(int fd)
{
	struct memfilter_rotate r = { .size = sizeof(r) };

	return mf_ioctl(fd, MEMFILTER_IOC_ROTATE, &r);
}

int mf_pub_id(int fd, uint32_t *id)
{
	struct memfilter_info i = { .size = sizeof(i) };
	int ret = id ? mf_ioctl(fd, MEMFILTER_IOC_INFO, &i) : -EINVAL;

	if (ret)
		return ret;
	if (!(i.status & MEMFILTER_STATUS_PUBLISHED))
		return -ENOENT;
	/* A published filter's id is never 0: the kernel has no ids. */
	if (!i.pub_id)
		return -EOPNOTSUPP;
	*id = (uint32_t)i.pub_id;
	return 0;
}

int libmf_decode_window_info(const struct memfilter_info *i,
			     const struct memfilter_generation *g,
			     struct mf_window_info *wi)
{
	unsigned int j;

	if (!libmf_type_has(i->type, LIBMF_OPTS_WINDOW))
		return -EOPNOTSUPP;
	memset((char *)wi + sizeof(wi->sz), 0, sizeof(*wi) - sizeof(wi->sz));
	wi->generations = i->generations;
	wi->current_gen = i->current_gen;
	wi->period_ms = i->period_ms;
	wi->rotate_by_count = i->window_flags & MEMFILTER_WINDOW_ROTATE_BY_COUNT;
	for (j = 0; j < i->generations && j < MEMFILTER_WINDOW_MAX_GENERATIONS;
	     j++) {
		wi->age_ms[j] = g[j].age_ms;
		wi->keys[j] = g[j].keys;
		wi->fill[j] = g[j].fill;
	}
	return 0;
}

int mf_window_info(int fd, struct mf_window_info *wi)
{
	struct memfilter_generation g[MEMFILTER_WINDOW_MAX_GENERATIONS];
	struct memfilter_info i = {
		.size = sizeof(i), .gens = (__u64)(uintptr_t)g,
		.gens_count = MEMFILTER_WINDOW_MAX_GENERATIONS,
	};
	int ret = wi ? libmf_opts_check(wi, wi->sz, sizeof(*wi)) : -EINVAL;

	if (!ret)
		ret = mf_ioctl(fd, MEMFILTER_IOC_INFO, &i);
	return ret ? ret : libmf_decode_window_info(&i, g, wi);
}

int mf_info(int fd, struct mf_info *info)
{
	struct memfilter_info i = { .size = sizeof(i) };
	int ret = info ? mf_ioctl(fd, MEMFILTER_IOC_INFO, &i) : -EINVAL;

	if (ret)
		return ret;
	libmf_decode_info(&i, info);
	return 0;
}

void libmf_decode_info(const struct memfilter_info *i, struct mf_info *info)
{
	memset(info, 0, sizeof(*info));
	info->type = i->type;
	info->hash_algo = i->hash_algo;
	info->seed = i->seed;
	info->capacity = i->capacity;
	info->bytes = i->bytes;
	info->keys = i->keys;
	info->fill = i->fill;
	info->fill_max = i->fill_max;
	info->est_fpr = i->est_fpr_ppb / MF_PPB;
	info->k = i->k;
	info->fingerprint_bits = i->fingerprint_bits;
	info->bits_per_key = i->bits_per_key_q4 / 4.0;
	info->overfill = i->status & MEMFILTER_STATUS_OVERFILL;
	info->published = i->status & MEMFILTER_STATUS_PUBLISHED;
	info->keyed = i->status & MEMFILTER_STATUS_KEYED;
	info->adds = i->adds;
	info->queries = i->queries;
	info->hits = i->hits;
	info->deletes = i->deletes;
	info->failed = i->failed;
	info->stash_used = i->stash_used;
	memcpy(info->name, i->name, sizeof(info->name));
	info->name[sizeof(info->name) - 1] = '\0';
}

/* An INFO's layout as the library reports it (0 from old modules: line64). */
static int libmf_layout_of(const struct memfilter_info *i)
{
	if (!libmf_type_may_have(i->type, LIBMF_TYPE_LAYOUT))
		return 0;
	return i->layout ? (int)i->layout : MF_LAYOUT_LINE64;
}

int mf_layout(int fd)
{
	struct memfilter_info i = { .size = sizeof(i) };
	int ret = mf_ioctl(fd, MEMFILTER_IOC_INFO, &i);

	return ret ? ret : libmf_layout_of(&i);
}

int mf_clear(int fd)
{
	struct memfilter_clear c = { .size = sizeof(c) };

	return mf_ioctl(fd, MEMFILTER_IOC_CLEAR, &c);
}

int mf_publish(int fd, const char *name)
{
	struct memfilter_name n = { .size = sizeof(n) };
	int ret;

	if (!name || !*name)
		return -EINVAL;
	ret = mf_copy_name(n.name, name);
	if (ret)
		return ret;
	return mf_ioctl(fd, MEMFILTER_IOC_PUBLISH, &n);
}

int mf_unpublish(int fd)
{
	struct memfilter_name n = { .size = sizeof(n) };

	return mf_ioctl(fd, MEMFILTER_IOC_UNPUBLISH, &n);
}

int mf_replace(int devfd, const char *name, int fd, unsigned int flags)
{
	struct memfilter_replace r = { .size = sizeof(r), .fd = fd };
	int ret;

	if (!name || !*name)
		return -EINVAL;
	if (flags & ~MF_REPLACE_PUBLISH)
		return -EINVAL;
	if (flags & MF_REPLACE_PUBLISH)
		r.flags |= MEMFILTER_REPLACE_PUBLISH;
	ret = mf_copy_name(r.name, name);
	if (ret)
		return ret;
	return mf_ioctl(devfd, MEMFILTER_IOC_REPLACE, &r);
}

int mf_exchange(int devfd, const char *name, const char *other)
{
	struct memfilter_exchange x = { .size = sizeof(x) };
	int ret;

	if (!name || !*name || !other || !*other)
		return -EINVAL;
	ret = mf_copy_name(x.name, name);
	if (!ret)
		ret = mf_copy_name(x.other, other);
	if (ret)
		return ret;
	return mf_ioctl(devfd, MEMFILTER_IOC_EXCHANGE, &x);
}

int mf_dump(int fd, void **image, size_t *len)
{
	size_t cap = 1 << 16, off = 0;
	unsigned char *buf, *p;
	ssize_t n;
	int ret;

	if (!image || !len)
		return libmf_clear_image_out(image, len);
	*image = NULL;
	*len = 0;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (off == cap) {
			if (cap > SIZE_MAX / 2) {
				ret = -ENOMEM;
				goto out_free_buf;
			}
			p = realloc(buf, cap * 2);
			if (!p) {
				ret = -ENOMEM;
				goto out_free_buf;
			}
			buf = p;
			cap *= 2;
		}
		n = read(fd, buf + off, cap - off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			goto out_free_buf;
		}
		if (!n)
			break;
		off += n;
	}
	ret = libmf_image_check_header(buf, off);
	if (ret)
		goto out_free_buf;
	*image = buf;
	*len = off;
	return 0;
out_free_buf:
	free(buf);
	return ret;
}

int mf_load(int devfd, const void *image, size_t len, const char *name)
{
	struct memfilter_load l = {
		.size = sizeof(l),
		.image = (__u64)(uintptr_t)image,
		.image_len = len,
	};
	int ret;

	if (!image)
		return -EINVAL;
	ret = mf_copy_name(l.name, name);
	if (ret)
		return ret;
	ret = mf_ioctl(devfd, MEMFILTER_IOC_LOAD, &l);
	return ret ? ret : l.out_fd;
}
