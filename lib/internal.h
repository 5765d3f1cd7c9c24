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
#include "types.h"

/*
 * Export @impl as @name of version node @node (lib/libmemfilter.map lists
 * @name in every node it has a version in): MF_SYMVER() for a version kept
 * for the programs linked against it, MF_SYMVER_DEFAULT() for the one
 * programs link against now (and static links resolve @name to).
 */
#define MF_SYMVER(impl, name, node) \
	__asm__(".symver " #impl ", " #name "@" #node)
#define MF_SYMVER_DEFAULT(impl, name, node) \
	__asm__(".symver " #impl ", " #name "@@" #node)

/* Set *@why (if @why) to @reason. Return: @err. */
int libmf_refuse(const char **why, const char *reason, int err);

/*
 * Turn mf_create_opts into the ABI's create request, as the kernel gets it
 * (fpr in ppb, bits per key in quarters); the name is copied too. @strict:
 * the rules of MEMFILTER_1.8 (a zero @o->sz reads the whole struct, a
 * seed needs fixed_seed, bits per key are exact quarters), else those of
 * the versions before. *@why (optional) gets the reason of a refusal.
 * Return: 0 or -EINVAL / -E2BIG / -ENAMETOOLONG.
 */
int libmf_encode_create(struct memfilter_create *c,
			const struct mf_create_opts *o, bool strict,
			const char **why);

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

/* One key of @len bytes: @key may be NULL only for the empty key. */
static inline bool libmf_key_ok(const void *key, size_t len)
{
	return (key || !len) && len <= MF_KEY_MAX;
}
/*
 * One key command over @n keys in kernel-sized batches (mf_keys()'s
 * engine): fixed-size keys when @key_size is non-zero, else @lens.
 * Return: the keys whose bit was set, or -errno (*@done as mf_add()).
 */
ssize_t libmf_keys_ioctl(int fd, unsigned long cmd, const void *keys,
			 size_t key_size, const uint32_t *lens, size_t n,
			 uint64_t *results, size_t *done);

/* MEMFILTER_IOC_INFO into @i (zeroed and sized here): 0 or -errno. */
int libmf_info(int fd, struct memfilter_info *i);

/*
 * A prefix filter's fields of INFO (or of an offline filter's) into
 * mf_prefix_info (prefix.c).
 */
int libmf_decode_prefix_info(const struct memfilter_info *i,
			     struct mf_prefix_info *pi);

/* Every address of a lookup batch is one (prefix.c): 0 or -EINVAL. */
int libmf_addrs_check(const struct mf_prefix *addrs, size_t n);

/* Check mf_keys()'s @op and @opts (and zero opts->done): 0 or -errno. */
int libmf_keys_opts_check(enum mf_keys_op op, struct mf_keys_opts *opts);

/*
 * Put a growing filter's options into a create request (@strict: the
 * ratio in whole percent, as MEMFILTER_1.8 takes it): 0 or -errno.
 */
int libmf_encode_grow(struct memfilter_create *c, const struct mf_grow_opts *g,
		      bool strict, const char **why);

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
			const struct mf_window_opts *w, const char **why);

/* A window filter's INFO and generations into mf_window_info. */
int libmf_decode_window_info(const struct memfilter_info *i,
			     const struct memfilter_generation *g,
			     struct mf_window_info *wi);

/*
 * Write @len bytes at @buf to @path by mf_offline_save()'s rules (lib/file.c);
 * @secret: mode 0600. Return: 0 or -errno.
 */
int libmf_write_file(const char *path, const void *buf, size_t len,
		     bool secret);

/* Whether mf_call_strerror() knows the function @name (tests). */
bool libmf_call_known(const char *name);

/* Turn the ABI's struct memfilter_info into the library's mf_info. */
void libmf_decode_info(const struct memfilter_info *i, struct mf_info *info);

/*
 * The versions of the functions that take mf_create_opts (and of
 * mf_nf_attach()): _1_8 is MEMFILTER_1.8's, the default, which honours or
 * refuses every field set; the others are their first nodes' (a zero sz
 * reads the 1.0.0 fields only, a seed without fixed_seed and a priority
 * without has_priority are ignored, bits per key and the grow ratio are
 * rounded), for programs linked against them.
 */
LIBMEMFILTER_API int libmf_create_1(int devfd, const struct mf_create_opts *opts);
LIBMEMFILTER_API int libmf_create_1_8(int devfd, const struct mf_create_opts *opts);
LIBMEMFILTER_API int libmf_create_window_1_2(int devfd, const struct mf_create_opts *opts,
					     const struct mf_window_opts *w);
LIBMEMFILTER_API int libmf_create_window_1_8(int devfd, const struct mf_create_opts *opts,
					     const struct mf_window_opts *w);
LIBMEMFILTER_API int libmf_create_grow_1_4(int devfd, const struct mf_create_opts *opts,
					   const struct mf_grow_opts *g);
LIBMEMFILTER_API int libmf_create_grow_1_8(int devfd, const struct mf_create_opts *opts,
					   const struct mf_grow_opts *g);
LIBMEMFILTER_API int libmf_offline_create_1(const struct mf_create_opts *opts,
					    struct mf_offline **out);
LIBMEMFILTER_API int libmf_offline_create_1_8(const struct mf_create_opts *opts,
					      struct mf_offline **out);
LIBMEMFILTER_API int libmf_offline_create_grow_1_4(const struct mf_create_opts *opts,
						   const struct mf_grow_opts *g,
						   struct mf_offline **out);
LIBMEMFILTER_API int libmf_offline_create_grow_1_8(const struct mf_create_opts *opts,
						   const struct mf_grow_opts *g,
						   struct mf_offline **out);
LIBMEMFILTER_API int libmf_offline_create_window_1_6(const struct mf_create_opts *opts,
						     const struct mf_window_opts *w,
						     struct mf_offline **out);
LIBMEMFILTER_API int libmf_offline_create_window_1_8(const struct mf_create_opts *opts,
						     const struct mf_window_opts *w,
						     struct mf_offline **out);
LIBMEMFILTER_API int64_t libmf_nf_attach_1_2(int devfd, const char *name,
					     const struct mf_nf_attach_opts *opts);
LIBMEMFILTER_API int64_t libmf_nf_attach_1_8(int devfd, const char *name,
					     const struct mf_nf_attach_opts *opts);

#endif /* _LIBMEMFILTER_INTERNAL_H */
