/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * libmemfilter: the userspace helper library for /dev/memfilter, installed
 * as <libmemfilter.h> (its ABI is <linux/memfilter.h>, which programs
 * need not include).
 *
 * Callers never see the ABI's size fields, ioctl numbers or fixed-point
 * encodings: the library fills them in, splits key batches to the kernel's
 * limits and converts the kernel's statistics into plain C types. Every
 * function returns 0 (or a count) on success and a negative errno on
 * failure; mf_strerror() turns that into a message. The library keeps no
 * global state and allocates only in mf_list(), the image functions and
 * offline filters (each caller-owned), so it is safe to use from any
 * number of threads on any number of file descriptors; one offline filter
 * must not be modified by two threads at once.
 *
 * Offline filters (mf_offline_*) run the module's own filter code (core/),
 * compiled into the library, in process memory: images can be built,
 * inspected, queried and merged without /dev/memfilter, and an image built
 * offline loads into the kernel and answers exactly as the offline filter
 * did, and the reverse (Documentation/image-format.rst).
 *
 * Arguments follow one rule, as libbpf's do. A pointer is required unless
 * its description says "optional" (NULL: not wanted) or that it may be NULL
 * (key arrays may be NULL when there are no keys). A required pointer that
 * is NULL, an options struct whose @sz is too small, or a size outside its
 * documented range (a key size of 0 or over MF_KEY_MAX, an entry count
 * without its array) makes the function return -EINVAL before it makes any
 * system call or changes anything; the out-parameters it was given are
 * cleared (NULL, 0). No function dereferences a NULL pointer, whatever the
 * other arguments. Key lengths in a lengths array over MF_KEY_MAX are
 * -EINVAL too (from the kernel, for filter fds). A batch of 0 keys does
 * nothing and returns 0. What no library can check is the caller's:
 * buffers must be as large as their sizes say.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _LIBMEMFILTER_H
#define _LIBMEMFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "memfilter_version.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The library's public functions: the only symbols libmemfilter.so exports
 * (it is built with -fvisibility=hidden, and lib/libmemfilter.map lists
 * them per version).
 */
#ifndef LIBMEMFILTER_API
#define LIBMEMFILTER_API __attribute__((visibility("default")))
#endif

/*
 * Declare an options struct with its size set, the rest zero or as given:
 * MF_OPTS(mf_keys_opts, o, .key_size = 8);
 */
#define MF_OPTS(type, name, ...)					\
	struct type name = { .sz = sizeof(struct type), __VA_ARGS__ }

#define MF_DEVICE_PATH "/dev/memfilter"

/* Longest name including its NUL; names are made of [A-Za-z0-9._-]. */
#define MF_NAME_MAX 64
/*
 * Longest key in bytes: keys are 0 .. MF_KEY_MAX bytes (the empty key is a
 * key); fixed-size keys 1 .. MF_KEY_MAX, a key size of 0 meaning lengths.
 */
#define MF_KEY_MAX 4096

/* Filter types (the ABI's MEMFILTER_TYPE_* values). */
#define MF_TYPE_BLOOM 1
#define MF_TYPE_CUCKOO 2
#define MF_TYPE_WINDOW 3
#define MF_TYPE_GROW 4

/* Key hash algorithms (the ABI's MEMFILTER_HASH_* values). */
#define MF_HASH_XXH64 1
#define MF_HASH_SIPHASH24 2
#define MF_HASH_XXH3 3

/*
 * Bloom layouts (the ABI's MEMFILTER_LAYOUT_* values): MF_LAYOUT_LINE64,
 * 64-byte blocks, k of 8 64-bit words probed; MF_LAYOUT_SPLIT32, 32-byte
 * split blocks of 8 32-bit words, one bit in each (Parquet's). 0 asks for
 * the default.
 */
#define MF_LAYOUT_DEFAULT 0
#define MF_LAYOUT_LINE64 1
#define MF_LAYOUT_SPLIT32 2

/**
 * struct mf_api_info - what the kernel module speaks
 * @api_version: the kernel's ABI version
 * @features: the ABI's MEMFILTER_FEAT_* bits
 */
struct mf_api_info {
	uint32_t api_version;
	uint64_t features;
};

/**
 * struct mf_create_opts - parameters of a new filter
 * @sz: sizeof(struct mf_create_opts), so that the struct can grow (see
 *	MF_OPTS()); 0 stands for the whole struct of this header
 * @type: MF_TYPE_BLOOM, MF_TYPE_CUCKOO, MF_TYPE_WINDOW (mf_create_window())
 *	or MF_TYPE_GROW
 * @capacity: number of keys the filter is designed for (>= 1)
 * @fpr: target false-positive rate, 0 < @fpr < 1, kept in parts per
 *	billion; 0 for none
 * @bits_per_key: Bloom and window: bits of table per key of capacity, 1 to
 *	64 in steps of 0.25 (other values are refused, not rounded); 0 for
 *	none. At most one of @fpr and @bits_per_key; a Bloom filter needs one
 *	of them.
 * @fingerprint_bits: cuckoo: 8, 12 or 16; 0 derives it from @fpr.
 *	A cuckoo filter needs @fpr or @fingerprint_bits; 0 for Bloom.
 * @keyed: hash with SipHash-2-4 under a secret key from the kernel's RNG
 *	(for keys an adversary chooses)
 * @fixed_seed: use @seed as the XXH3 (XXH64) seed instead of a random one
 *	(reproducible tables); not with @keyed
 * @seed: the seed, with @fixed_seed (a seed without it is refused)
 * @name: publish under this name at once (needs CAP_SYS_ADMIN); NULL or
 *	"" for an anonymous filter
 * @hash_algo: 0 for the default: XXH3-64 (SipHash-2-4 with @keyed), or XXH64 in a
 *	module without MEMFILTER_FEAT_HASH_DEFAULT_XXH3 (mf_info() tells
 *	which); MF_HASH_XXH3 for XXH3-64, faster than XXH64 on keys of up
 *	to 16 bytes (an 8-byte key hashes in about 2/3 of XXH64's time),
 *	not with @keyed, and in the kernel only where it reports
 *	MEMFILTER_FEAT_HASH_XXH3 (older modules: -EOPNOTSUPP);
 *	MF_HASH_XXH64 for XXH64 (the default before XXH3), not with @keyed;
 *	MF_HASH_SIPHASH24 is the same as @keyed
 * @prefix_lengths: (added after 1.1.0, with @prefixes) with @prefixes:
 *	the most distinct prefix lengths per address family, 1 ..
 *	MF_PREFIX_LENGTHS_MAX, 0 for MF_PREFIX_LENGTHS_DEFAULT; 0 without
 * @prefixes: an address prefix filter (mf_add_prefixes()), whose
 *	address lookups (mf_query_addrs(), the netfilter hook, the BPF
 *	address kfuncs) test one key per length held: @fpr is then the rate
 *	of such a lookup, the filter sized for @fpr / @prefix_lengths per
 *	key. The kernel needs MEMFILTER_FEAT_PREFIXES
 * @layout: (added after 1.1.0) Bloom, window and growing filters:
 *	MF_LAYOUT_LINE64 or MF_LAYOUT_SPLIT32; 0 for the default (the kernel
 *	module's, or the library's offline: SPLIT32 where it needs at most
 *	8% more memory than LINE64 for the rate, as at 1% and 0.1%, LINE64
 *	elsewhere and for @bits_per_key; mf_layout() tells which was
 *	made), which a module without MEMFILTER_FEAT_LAYOUTS also gives
 *	(every such module's filters are line64; it refuses the others with
 *	-EOPNOTSUPP). 0 for cuckoo filters. Sizing from @fpr follows the
 *	layout's model.
 *
 * Zero-initialise and set what you need (MF_OPTS() sets @sz). Every field
 * that is set is honoured or the call fails: -EINVAL for a value out of
 * range or a field the filter type does not take, -EOPNOTSUPP for what
 * the kernel module lacks; mf_create_check() says which field, without
 * creating anything.
 *
 * These are the rules of symbol version MEMFILTER_1.8, which every program
 * built with this header links against. A program linked against an
 * earlier version keeps the rules it was built for: a zero @sz reads only
 * the 1.0.0 fields (up to @name; @hash_algo is ignored), a @seed without
 * @fixed_seed is ignored, and @bits_per_key is rounded to a quarter.
 */
struct mf_create_opts {
	size_t sz;
	int type;
	uint64_t capacity;
	double fpr;
	double bits_per_key;
	unsigned int fingerprint_bits;
	bool keyed;
	bool fixed_seed;
	uint64_t seed;
	const char *name;
	int hash_algo;
	unsigned int prefix_lengths;
	bool prefixes;
	int layout;
};

/**
 * struct mf_info - a filter's parameters and statistics
 * @type: MF_TYPE_BLOOM or MF_TYPE_CUCKOO
 * @hash_algo: MF_HASH_XXH64, MF_HASH_XXH3 or MF_HASH_SIPHASH24
 * @seed: the XXH64 or XXH3 seed; 0 for keyed filters (the secret never
 *	leaves)
 * @capacity: design capacity in keys
 * @bytes: memory of the filter's table
 * @keys: keys in the filter (Bloom: successful adds, duplicates included,
 *	but not a key test-and-add found present; cuckoo: fingerprints
 *	stored)
 * @fill: Bloom: bits set; cuckoo: slots used
 * @fill_max: Bloom: bits; cuckoo: slots
 * @est_fpr: false-positive rate estimated from the actual fill (0 .. 1)
 * @k: Bloom: probes per key; cuckoo: slots per bucket
 * @fingerprint_bits: cuckoo fingerprint width; 0 for Bloom
 * @bits_per_key: Bloom: bits per key of capacity; 0 for cuckoo
 * @overfill: more keys than @capacity: @est_fpr exceeds the target
 * @published: the filter has a name
 * @keyed: keys are hashed with SipHash-2-4 under a secret key
 * @adds: add calls that inserted a key (test-and-add: the keys it
 *	reported new)
 * @queries: keys queried
 * @hits: queried keys answered "may be present"
 * @deletes: keys deleted
 * @failed: adds refused because the filter was full (cuckoo)
 * @stash_used: cuckoo victim stash entries in use
 * @name: published name, or ""
 */
struct mf_info {
	int type;
	int hash_algo;
	uint64_t seed;
	uint64_t capacity;
	uint64_t bytes;
	uint64_t keys;
	uint64_t fill;
	uint64_t fill_max;
	double est_fpr;
	unsigned int k;
	unsigned int fingerprint_bits;
	double bits_per_key;
	bool overfill;
	bool published;
	bool keyed;
	uint64_t adds;
	uint64_t queries;
	uint64_t hits;
	uint64_t deletes;
	uint64_t failed;
	unsigned int stash_used;
	char name[MF_NAME_MAX];
};

/**
 * enum mf_keys_op - what to do with a batch of keys
 * @MF_KEYS_ADD: add them
 * @MF_KEYS_QUERY: ask whether they may be present
 * @MF_KEYS_DELETE: delete one copy of each (cuckoo)
 * @MF_KEYS_ADD_UNIQUE: add those that are not present yet (cuckoo)
 */
enum mf_keys_op {
	MF_KEYS_ADD,
	MF_KEYS_QUERY,
	MF_KEYS_DELETE,
	MF_KEYS_ADD_UNIQUE,
};

/**
 * struct mf_keys_opts - how a batch of keys is laid out, and the answers
 * @sz: sizeof(struct mf_keys_opts) (MF_OPTS()); required
 * @key_size: bytes per key for fixed-size keys, 1 .. MF_KEY_MAX; 0 when
 *	@lens gives each key's length
 * @lens: variable-size keys: @n lengths, each 0 .. MF_KEY_MAX, the keys
 *	back to back; NULL for fixed-size keys
 * @results: optional bitmap of (@n + 63) / 64 words; bit i is set when the
 *	operation took effect for key i (added, may be present, deleted)
 * @done: out: the number of keys processed, @n on success. On failure the
 *	keys before it took effect and the rest did not.
 */
struct mf_keys_opts {
	size_t sz;
	size_t key_size;
	const uint32_t *lens;
	uint64_t *results;
	size_t done;
};

/**
 * mf_open_device() - open /dev/memfilter and check the ABI version
 *
 * The fd is opened O_RDWR | O_CLOEXEC; close it with close().
 *
 * Return: a file descriptor, or -errno (-ENOENT when the module is not
 * loaded, -EACCES without permission, -EOPNOTSUPP when the kernel speaks
 * another ABI version).
 */
LIBMEMFILTER_API int mf_open_device(void);

/**
 * mf_version() - this library's version
 *
 * The library a program runs with may be newer than the header it was
 * built with (MEMFILTER_VERSION in <memfilter_version.h>).
 *
 * Return: the version, "x.y.z", a static string.
 */
LIBMEMFILTER_API const char *mf_version(void);

/**
 * mf_api() - the kernel's ABI version and features
 * @devfd: from mf_open_device()
 * @info: filled in; may be NULL
 *
 * Return: 0 or -errno.
 */
LIBMEMFILTER_API int mf_api(int devfd, struct mf_api_info *info);

/**
 * mf_create() - create a filter
 * @devfd: from mf_open_device()
 * @opts: the filter's parameters
 *
 * Converts @opts->fpr to parts per billion and @opts->bits_per_key to
 * quarter bits, rejects what cannot be encoded, and creates the filter
 * (published at once when @opts->name is set; nothing is left behind if
 * that fails).
 *
 * Return: the new filter's fd (O_CLOEXEC), or -errno: -EINVAL for
 * inconsistent or out-of-range parameters, -ENAMETOOLONG for a name longer
 * than MF_NAME_MAX - 1, -E2BIG beyond the module's per-filter size limit,
 * -ENOMEM, -EEXIST when the name is taken, -EPERM when publishing without
 * CAP_SYS_ADMIN.
 */
LIBMEMFILTER_API int mf_create(int devfd, const struct mf_create_opts *opts);

struct mf_window_opts;
struct mf_grow_opts;

/**
 * mf_create_check() - would these options make a filter?
 * @opts: as for mf_create() and mf_offline_create()
 * @w: a window filter's options (MF_TYPE_WINDOW: required); NULL otherwise
 * @g: a growing filter's options (MF_TYPE_GROW: optional); NULL otherwise
 * @why: optional: on failure, a static one-line reason naming the field
 *	("bits_per_key must be 1 to 64 in steps of 0.25"); NULL otherwise
 *
 * Checks @opts, @w and @g exactly as mf_create*() and mf_offline_create*()
 * do, with the filter code's own checks (the kernel module's), and
 * creates nothing: a program can refuse a bad parameter when it reads it
 * (memfilterctl does), with the library's rule. A kernel module may still
 * refuse what its own limits (max_filter_mb), age or memory do not allow;
 * the characters of @opts->name are the kernel's to check.
 *
 * Return: 0, or -errno as mf_offline_create() (-EINVAL, -E2BIG,
 * -ENAMETOOLONG, -EOPNOTSUPP).
 */
LIBMEMFILTER_API int mf_create_check(const struct mf_create_opts *opts,
				     const struct mf_window_opts *w,
				     const struct mf_grow_opts *g,
				     const char **why);

/**
 * mf_open() - open a published filter by name
 * @devfd: from mf_open_device()
 * @name: the published name
 *
 * The fd is read-write when the caller may write the filter (its creator,
 * or CAP_SYS_ADMIN: MEMFILTER_OPEN_WRITE), read-only otherwise; changing
 * a filter through a read-only fd fails with -EBADF.
 *
 * Return: a new fd for the filter (O_CLOEXEC), or -errno (-ENOENT when no
 * filter has that name).
 */
LIBMEMFILTER_API int mf_open(int devfd, const char *name);

/**
 * mf_list() - the names of all published filters
 * @devfd: from mf_open_device()
 * @names: out: an array of the names, sorted as the kernel returns them,
 *	followed by a NULL pointer; one allocation, release it with free()
 *
 * Asks the kernel again with a larger buffer until every name fits, so the
 * list is a consistent snapshot even while filters come and go.
 *
 * Return: the number of names, or -errno (*@names is then NULL).
 */
LIBMEMFILTER_API ssize_t mf_list(int devfd, char ***names);

/**
 * mf_keys() - one operation on a batch of keys of a filter fd
 * @fd: a filter fd
 * @op: the operation
 * @keys: the keys, back to back
 * @n: number of keys, any number (split into batches the kernel accepts)
 * @opts: their layout and the answers; required
 *
 * mf_add() .. mf_add_uniquev() below are this call with the layout spelled
 * out in arguments.
 *
 * Return: the number of keys for which the operation took effect, or
 * -errno: -EINVAL for a bad layout or @opts->sz, -E2BIG for a larger
 * @opts with non-zero unknown fields, -ENOSPC when a cuckoo filter is full
 * (nothing already in it is lost; see @opts->done), -EOPNOTSUPP for an
 * operation the filter's type lacks.
 */
LIBMEMFILTER_API ssize_t mf_keys(int fd, enum mf_keys_op op, const void *keys, size_t n,
				 struct mf_keys_opts *opts);

/**
 * mf_add() - add a batch of fixed-size keys
 * @fd: a filter fd
 * @keys: @n keys of @key_size bytes each, back to back
 * @key_size: bytes per key, 1 .. MF_KEY_MAX
 * @n: number of keys, any number (split into batches the kernel accepts)
 * @results: optional bitmap of (@n + 63) / 64 words; bit i is set when key
 *	i was added. NULL for none.
 * @done: optional: set to the number of keys processed, @n on success.
 *	On failure the keys before *@done took effect and the rest did not.
 *
 * Return: the number of keys added, or -errno: -ENOSPC when a cuckoo
 * filter is full (nothing already in it is lost; see @done), -EINVAL for a
 * bad @key_size.
 */
LIBMEMFILTER_API ssize_t mf_add(int fd, const void *keys, size_t key_size, size_t n,
				uint64_t *results, size_t *done);

/**
 * mf_query() - query a batch of fixed-size keys
 * @fd: a filter fd
 * @keys: @n keys of @key_size bytes each, back to back
 * @key_size: bytes per key, 1 .. MF_KEY_MAX
 * @n: number of keys
 * @results: optional bitmap; bit i is set when key i may be present
 * @done: optional: keys processed (see mf_add())
 *
 * Return: the number of keys that may be present, or -errno.
 */
LIBMEMFILTER_API ssize_t mf_query(int fd, const void *keys, size_t key_size, size_t n,
				  uint64_t *results, size_t *done);

/**
 * mf_delete() - delete a batch of fixed-size keys from a cuckoo filter
 * @fd: a cuckoo filter fd
 * @keys: @n keys of @key_size bytes each, back to back
 * @key_size: bytes per key, 1 .. MF_KEY_MAX
 * @n: number of keys
 * @results: optional bitmap; bit i is set when key i was found and removed
 * @done: optional: keys processed (see mf_add())
 *
 * Deleting a key that was never added may remove another key sharing its
 * fingerprint: delete only what you added.
 *
 * Return: the number of keys found and removed, or -errno (-EOPNOTSUPP on
 * a Bloom filter).
 */
LIBMEMFILTER_API ssize_t mf_delete(int fd, const void *keys, size_t key_size, size_t n,
				   uint64_t *results, size_t *done);

/**
 * mf_test_and_add() - was each key present? add it
 * @fd: a Bloom or window filter fd
 * @keys: @n keys of @key_size bytes each, back to back
 * @key_size: bytes per key, 1 .. MF_KEY_MAX
 * @n: number of keys
 * @results: optional bitmap; bit i is set when key i may have been present
 *	(in any generation) before it was added
 * @done: optional: keys processed (see mf_add())
 *
 * The dedup primitive (MEMFILTER_IOC_TEST_AND_ADD); its contract is in
 * Documentation/filters.rst.
 *
 * Return: the number of keys that may have been present, or -errno
 * (-EOPNOTSUPP on a cuckoo filter).
 */
LIBMEMFILTER_API ssize_t mf_test_and_add(int fd, const void *keys, size_t key_size, size_t n,
			uint64_t *results, size_t *done);

/**
 * mf_test_and_addv() - mf_test_and_add() for variable-size keys
 * @fd: a Bloom or window filter fd
 * @keys: the keys, back to back
 * @lens: @n key lengths, each 0 .. MF_KEY_MAX
 * @n: number of keys
 * @results: optional bitmap, as for mf_test_and_add()
 * @done: optional: keys processed, as for mf_add()
 *
 * Return: as mf_test_and_add().
 */
LIBMEMFILTER_API ssize_t mf_test_and_addv(int fd, const void *keys, const uint32_t *lens,
			 size_t n, uint64_t *results, size_t *done);

/* The largest count mf_count() gives: 2 buckets of 4 slots, the stash. */
#define MF_COUNT_MAX 9
/*
 * The largest count of a key whose two buckets are one bucket (about one
 * key in nbuckets / 2): its 4 slots and the stash.
 */
#define MF_COUNT_MAX_ONE_BUCKET 5

/**
 * mf_count() - how many times each fixed-size key may have been added
 * @fd: a cuckoo filter fd
 * @keys: @n keys of @key_size bytes each, back to back
 * @key_size: bytes per key, 1 .. MF_KEY_MAX
 * @n: number of keys
 * @counts: optional: @n bytes, byte i the count of key i, 0 ..
 *	MF_COUNT_MAX. NULL for none.
 * @done: optional: keys processed (see mf_add())
 *
 * RedisBloom's CF.COUNT (MEMFILTER_IOC_COUNT): the copies of each key's
 * fingerprint in its two buckets and the victim stash. A key added 3
 * times and deleted once counts 2 (or more, if keys sharing its
 * fingerprint and buckets were added: a false positive); 0 means certainly
 * absent. A lockless reader like mf_query(): its contract under concurrent
 * writers is in Documentation/uapi.rst.
 *
 * Return: the number of keys with a non-zero count, or -errno
 * (-EOPNOTSUPP on Bloom and window filters, -EINVAL for a bad @key_size).
 */
LIBMEMFILTER_API ssize_t mf_count(int fd, const void *keys, size_t key_size, size_t n,
				  uint8_t *counts, size_t *done);

/**
 * mf_countv() - mf_count() for variable-size keys
 * @fd: a cuckoo filter fd
 * @keys: the keys, back to back
 * @lens: @n key lengths, each 0 .. MF_KEY_MAX
 * @n: number of keys
 * @counts: optional: @n bytes of counts, as for mf_count()
 * @done: optional: keys processed, as for mf_add()
 *
 * Return: as mf_count().
 */
LIBMEMFILTER_API ssize_t mf_countv(int fd, const void *keys, const uint32_t *lens, size_t n,
				   uint8_t *counts, size_t *done);

/**
 * mf_query_key() - one key, without a lengths array
 * @fd: a filter fd
 * @key: the key's bytes; may be NULL when @len is 0 (the empty key)
 * @len: its length, 0 .. MF_KEY_MAX
 *
 * mf_queryv() of one key. mf_add_key(), mf_delete_key(),
 * mf_add_unique_key(), mf_test_and_add_key() and mf_count_key() are the
 * same for mf_addv() and the others, with their filter types and errors.
 *
 * Return: 1 if the key may be present, 0 if it is certainly absent, or
 * -errno (-EINVAL for a NULL @key with a length, or @len over MF_KEY_MAX).
 */
LIBMEMFILTER_API int mf_query_key(int fd, const void *key, size_t len);

/**
 * mf_add_key() - add one key
 * @fd: a filter fd
 * @key: as for mf_query_key()
 * @len: as for mf_query_key()
 *
 * Return: 1 (added), or -errno (-ENOSPC when a cuckoo filter is full).
 */
LIBMEMFILTER_API int mf_add_key(int fd, const void *key, size_t len);

/**
 * mf_delete_key() - delete one copy of a key from a cuckoo filter
 * @fd: a cuckoo filter fd
 * @key: as for mf_query_key(); delete only what you added
 * @len: as for mf_query_key()
 *
 * Return: 1 if a copy was found and removed, 0 if none, or -errno.
 */
LIBMEMFILTER_API int mf_delete_key(int fd, const void *key, size_t len);

/**
 * mf_add_unique_key() - add one key unless present (cuckoo)
 * @fd: a cuckoo filter fd
 * @key: as for mf_query_key()
 * @len: as for mf_query_key()
 *
 * Return: 1 if added, 0 if it may already have been present, or -errno.
 */
LIBMEMFILTER_API int mf_add_unique_key(int fd, const void *key, size_t len);

/**
 * mf_test_and_add_key() - was one key present? add it
 * @fd: a Bloom, window or growing filter fd
 * @key: as for mf_query_key()
 * @len: as for mf_query_key()
 *
 * Return: 1 if it may have been present before it was added, 0 if not
 * (it is added either way), or -errno.
 */
LIBMEMFILTER_API int mf_test_and_add_key(int fd, const void *key, size_t len);

/**
 * mf_count_key() - how many times one key may have been added (cuckoo)
 * @fd: a cuckoo filter fd
 * @key: as for mf_query_key()
 * @len: as for mf_query_key()
 *
 * Return: the count, 0 .. MF_COUNT_MAX (as mf_count()), or -errno.
 */
LIBMEMFILTER_API int mf_count_key(int fd, const void *key, size_t len);

/**
 * struct mf_window_opts - what makes a window filter
 * @sz: sizeof(struct mf_window_opts) (MF_OPTS()); required
 * @generations: G, 2 .. 16
 * @period_ms: rotate every @period_ms milliseconds (a kernel timer); 0 for
 *	none
 * @rotate_by_count: also rotate when the current generation holds
 *	capacity keys
 */
struct mf_window_opts {
	size_t sz;
	unsigned int generations;
	uint64_t period_ms;
	bool rotate_by_count;
};

/**
 * mf_create_window() - create a window filter
 * @devfd: from mf_open_device()
 * @opts: as for mf_create(); @opts->type MF_TYPE_WINDOW, @opts->capacity is
 *	per generation, @opts->fpr (or bits_per_key) with every generation
 *	full
 * @w: generations, period, count rotation
 *
 * Return: the new filter fd, or -errno as mf_create().
 */
LIBMEMFILTER_API int mf_create_window(int devfd, const struct mf_create_opts *opts,
		     const struct mf_window_opts *w);

/**
 * mf_rotate() - rotate a window filter now
 * @fd: a window filter fd
 *
 * Return: 0, or -errno (-EOPNOTSUPP on other filters).
 */
LIBMEMFILTER_API int mf_rotate(int fd);

/**
 * struct mf_window_info - a window filter's generations
 * @sz: sizeof(struct mf_window_info) (MF_OPTS()); required
 * @generations: G
 * @current_gen: the generation adds go to
 * @period_ms: rotation period, 0 for none
 * @rotate_by_count: rotates when a generation is full
 * @age_ms: each generation's age
 * @keys: keys added to each generation since it was cleared
 * @fill: bits set in each generation
 */
struct mf_window_info {
	size_t sz;
	unsigned int generations;
	unsigned int current_gen;
	uint64_t period_ms;
	bool rotate_by_count;
	uint64_t age_ms[16];
	uint64_t keys[16];
	uint64_t fill[16];
};

/**
 * mf_pub_id() - a published filter's id, for BPF programs
 * @fd: a filter fd
 * @id: out: the id bpf_memfilter_borrow_id() takes (1 .. 2^31 - 1)
 *
 * A filter gets a new id each time it is published; an id is issued again
 * only after about 2^31 later publishes (Documentation/bpf.rst).
 *
 * Return: 0, -ENOENT if the filter is not published, -EOPNOTSUPP if the
 * kernel module predates ids (MEMFILTER_FEAT_PUB_ID clear), or -errno.
 */
LIBMEMFILTER_API int mf_pub_id(int fd, uint32_t *id);

/**
 * mf_layout() - a filter's Bloom layout
 * @fd: a filter fd
 *
 * Return: MF_LAYOUT_LINE64 or MF_LAYOUT_SPLIT32 for Bloom, window and
 * growing filters (line64 from modules without MEMFILTER_FEAT_LAYOUTS),
 * 0 for cuckoo filters, or -errno.
 */
LIBMEMFILTER_API int mf_layout(int fd);

/**
 * mf_window_info() - a window filter's generations
 * @fd: a window filter fd
 * @wi: filled in
 *
 * Return: 0, or -errno (-EOPNOTSUPP on other filters).
 */
LIBMEMFILTER_API int mf_window_info(int fd, struct mf_window_info *wi);

/**
 * struct mf_grow_opts - what makes a growing filter grow
 * @sz: sizeof(struct mf_grow_opts) (MF_OPTS()); required
 * @max_subs: the most sub-filters, 1 .. 16; 0 for 16
 * @factor: each new sub-filter holds this many times the keys of the one
 *	before, 1 .. 16; 0 for 2
 * @ratio: each new sub-filter's false-positive rate over the one
 *	before's, 0.01 .. 0.99 in steps of 0.01 (others are refused, not
 *	rounded); 0 for 0.5
 */
struct mf_grow_opts {
	size_t sz;
	unsigned int max_subs;
	unsigned int factor;
	double ratio;
};

/**
 * mf_create_grow() - create a growing Bloom filter
 * @devfd: from mf_open_device()
 * @opts: as for mf_create(); @opts->type MF_TYPE_GROW, @opts->capacity
 *	the first sub-filter's, @opts->fpr (required) the bound on the
 *	whole filter's rate however many sub-filters it grows
 * @g: how it grows; NULL for the defaults (mf_create() does the same)
 *
 * Adds never fail for being full until the filter reaches @g->max_subs,
 * the rates the layout reaches, or the module's memory limits: then
 * -ENOSPC, with nothing already in it lost.
 *
 * Return: the new filter fd, or -errno as mf_create().
 */
LIBMEMFILTER_API int mf_create_grow(int devfd, const struct mf_create_opts *opts,
				    const struct mf_grow_opts *g);

/**
 * struct mf_grow_info - a growing filter's sub-filters
 * @sz: sizeof(struct mf_grow_info) (MF_OPTS()); required
 * @subfilters: sub-filters in use; adds go to the last
 * @max_subs: the most sub-filters
 * @factor: capacity factor between sub-filters
 * @ratio: rate ratio between sub-filters
 * @fpr: the bound on the whole filter's rate
 * @keys: keys in each sub-filter
 * @fill: bits set in each sub-filter
 * @capacity: keys each sub-filter holds before the next takes over
 * @fill_max: bits of each sub-filter
 * @est_fpr: each sub-filter's modelled false-positive rate at its key
 *	count (their sum is mf_info's est_fpr, at most @fpr)
 */
struct mf_grow_info {
	size_t sz;
	unsigned int subfilters;
	unsigned int max_subs;
	unsigned int factor;
	double ratio;
	double fpr;
	uint64_t keys[16];
	uint64_t fill[16];
	uint64_t capacity[16];
	uint64_t fill_max[16];
	double est_fpr[16];
};

/**
 * mf_grow_info() - a growing filter's sub-filters
 * @fd: a growing filter fd
 * @gi: filled in
 *
 * Return: 0, or -errno (-EOPNOTSUPP on other filters).
 */
LIBMEMFILTER_API int mf_grow_info(int fd, struct mf_grow_info *gi);

/**
 * mf_add_unique() - add fixed-size keys that are not already present
 * @fd: a cuckoo filter fd
 * @keys: @n keys of @key_size bytes each, back to back
 * @key_size: bytes per key, 1 .. MF_KEY_MAX
 * @n: number of keys
 * @results: optional bitmap; bit i is set when key i was added, clear when
 *	it may already have been present
 * @done: optional: keys processed (see mf_add())
 *
 * Return: the number of keys added, or -errno (-EOPNOTSUPP on a Bloom
 * filter, -ENOSPC when full).
 */
LIBMEMFILTER_API ssize_t mf_add_unique(int fd, const void *keys, size_t key_size, size_t n,
				       uint64_t *results, size_t *done);

/**
 * mf_addv() - add a batch of variable-size keys
 * @fd: a filter fd
 * @keys: the keys' bytes, back to back
 * @lens: @n key lengths, each 0 .. MF_KEY_MAX
 * @n: number of keys (split into kernel batches as needed)
 * @results: optional bitmap, as for mf_add()
 * @done: optional: keys processed, as for mf_add()
 *
 * Return: as mf_add().
 */
LIBMEMFILTER_API ssize_t mf_addv(int fd, const void *keys, const uint32_t *lens, size_t n,
				 uint64_t *results, size_t *done);

/**
 * mf_queryv() - query a batch of variable-size keys
 * @fd: a filter fd
 * @keys: the keys' bytes, back to back
 * @lens: @n key lengths, each 0 .. MF_KEY_MAX
 * @n: number of keys
 * @results: optional bitmap, as for mf_query()
 * @done: optional: keys processed, as for mf_add()
 *
 * Return: as mf_query().
 */
LIBMEMFILTER_API ssize_t mf_queryv(int fd, const void *keys, const uint32_t *lens, size_t n,
				   uint64_t *results, size_t *done);

/**
 * mf_deletev() - delete a batch of variable-size keys from a cuckoo filter
 * @fd: a cuckoo filter fd
 * @keys: the keys' bytes, back to back
 * @lens: @n key lengths, each 0 .. MF_KEY_MAX
 * @n: number of keys
 * @results: optional bitmap, as for mf_delete()
 * @done: optional: keys processed, as for mf_add()
 *
 * Return: as mf_delete().
 */
LIBMEMFILTER_API ssize_t mf_deletev(int fd, const void *keys, const uint32_t *lens, size_t n,
				    uint64_t *results, size_t *done);

/**
 * mf_add_uniquev() - add variable-size keys that are not already present
 * @fd: a cuckoo filter fd
 * @keys: the keys' bytes, back to back
 * @lens: @n key lengths, each 0 .. MF_KEY_MAX
 * @n: number of keys
 * @results: optional bitmap, as for mf_add_unique()
 * @done: optional: keys processed, as for mf_add()
 *
 * Return: as mf_add_unique().
 */
LIBMEMFILTER_API ssize_t mf_add_uniquev(int fd, const void *keys, const uint32_t *lens,
					size_t n, uint64_t *results, size_t *done);

/**
 * mf_info() - a filter's parameters and statistics
 * @fd: a filter fd
 * @info: filled in
 *
 * Return: 0 or -errno.
 */
LIBMEMFILTER_API int mf_info(int fd, struct mf_info *info);

/**
 * mf_clear() - remove every key from a filter
 * @fd: a filter fd
 *
 * Return: 0 or -errno.
 */
LIBMEMFILTER_API int mf_clear(int fd);

/**
 * mf_publish() - give a filter a system-wide name
 * @fd: a filter fd
 * @name: the name ([A-Za-z0-9._-], at most MF_NAME_MAX - 1 characters)
 *
 * A published filter can be opened by name and stays alive without any fd.
 * Needs CAP_SYS_ADMIN.
 *
 * Return: 0 or -errno (-EEXIST when the name is taken, -EBUSY when the
 * filter already has a name, -EPERM without CAP_SYS_ADMIN).
 */
LIBMEMFILTER_API int mf_publish(int fd, const char *name);

/**
 * mf_unpublish() - take a filter's name away
 * @fd: a filter fd
 *
 * The filter lives on while any fd or in-kernel reference holds it.
 * Needs CAP_SYS_ADMIN.
 *
 * Return: 0 or -errno.
 */
LIBMEMFILTER_API int mf_unpublish(int fd);

/* mf_replace() flags: a name no filter has is published instead. */
#define MF_REPLACE_PUBLISH 1u

/**
 * mf_replace() - make a published name refer to another filter, in one step
 * @devfd: from mf_open_device()
 * @name: the published name
 * @fd: a read-write fd of a filter that has no name (from mf_create(),
 *	mf_load() or their variants): it takes over @name and its id
 * @flags: 0, or MF_REPLACE_PUBLISH to publish @fd's filter under @name
 *	when no filter has it (a first refresh)
 *
 * Every netfilter attachment of @name, every BPF program that looks it
 * (or its id) up and every later open finds the old filter until the call
 * and the new one after it, never neither. The old filter loses its name
 * and lives on while an fd or a reference holds it. Needs CAP_SYS_ADMIN
 * (of the process that opened @devfd).
 *
 * Return: 0 or -errno: -ENOENT (no filter has @name, without
 * MF_REPLACE_PUBLISH), -EBUSY (@fd's filter has a name), -EBADF (@fd is
 * not a read-write filter fd), -EOPNOTSUPP (a dedup attachment holds
 * @name and the filter has no test-and-add), -ENOTTY (a module without
 * MEMFILTER_FEAT_REPLACE), -EPERM, -EINVAL, -ENAMETOOLONG.
 */
LIBMEMFILTER_API int mf_replace(int devfd, const char *name, int fd,
				unsigned int flags);

/**
 * mf_exchange() - swap the filters of two published names
 * @devfd: from mf_open_device()
 * @name: a published name
 * @other: another one
 *
 * Each name keeps its id and changes in one step, as in mf_replace(); a
 * rollback is one more exchange. Needs CAP_SYS_ADMIN.
 *
 * Return: 0 or -errno: -ENOENT (either name is not published), -EINVAL
 * (the same name twice, or an invalid one), -EOPNOTSUPP and -ENOTTY (as
 * for mf_replace()), -EPERM, -ENAMETOOLONG.
 */
LIBMEMFILTER_API int mf_exchange(int devfd, const char *name,
				 const char *other);

/**
 * mf_dump() - a filter's image, read from its fd
 * @fd: a filter fd (dumping a keyed filter needs CAP_SYS_ADMIN)
 * @image: out: the image (header and table), one allocation; free() it
 * @len: out: its length in bytes
 *
 * Seeks @fd to 0 and reads it to end of file: the kernel returns the
 * whole image of one consistent snapshot. The header is checked before
 * the image is handed back.
 *
 * Return: 0 or -errno (-EBADMSG when what was read is not an image,
 * -EPERM for a keyed filter without CAP_SYS_ADMIN, -ENOMEM).
 */
LIBMEMFILTER_API int mf_dump(int fd, void **image, size_t *len);

/**
 * mf_load() - a new filter from an image
 * @devfd: from mf_open_device()
 * @image: the whole image, as mf_dump() or mf_offline_image() made it
 * @len: its length in bytes
 * @name: publish under this name at once (needs CAP_SYS_ADMIN); NULL or
 *	"" for an anonymous filter
 *
 * The new filter answers every query as the imaged one did.
 *
 * Return: the new filter's fd (O_CLOEXEC), or -errno: -EBADMSG for a
 * corrupt or inconsistent image, -EOPNOTSUPP for an image of a version,
 * type or hash the kernel does not know, -E2BIG / -ENOMEM beyond the
 * module's limits, -EEXIST when @name is taken. Nothing is created on
 * error.
 */
LIBMEMFILTER_API int mf_load(int devfd, const void *image, size_t len, const char *name);

/* Offline filters: see the top of this file. */
struct mf_offline;

/**
 * mf_offline_create() - an empty in-memory filter
 * @opts: as for mf_create(); @opts->name must be NULL or "". A keyed
 *	filter's secret and a random seed come from getrandom().
 * @out: out: the filter; release it with mf_offline_free()
 *
 * Sized exactly as the kernel sizes a filter created with @opts.
 *
 * Return: 0 or -errno: -EINVAL for inconsistent parameters, -E2BIG
 * beyond the filters' size limits, -ENOMEM.
 */
LIBMEMFILTER_API int mf_offline_create(const struct mf_create_opts *opts,
				       struct mf_offline **out);

/**
 * mf_offline_create_grow() - an empty in-memory growing filter
 * @opts: as for mf_create_grow()
 * @g: as for mf_create_grow()
 * @out: out: the filter; release it with mf_offline_free()
 *
 * Grows as the kernel's does (the same sub-filters at the same fill), so
 * its images load into the kernel and answer identically.
 *
 * Return: as mf_offline_create().
 */
LIBMEMFILTER_API int mf_offline_create_grow(const struct mf_create_opts *opts,
					    const struct mf_grow_opts *g,
					    struct mf_offline **out);

/**
 * mf_offline_grow_info() - an offline growing filter's sub-filters
 * @f: the filter
 * @gi: filled in
 *
 * Return: 0, or -errno (-EOPNOTSUPP on other filters).
 */
LIBMEMFILTER_API int mf_offline_grow_info(const struct mf_offline *f,
					  struct mf_grow_info *gi);

/**
 * mf_offline_create_window() - an empty in-memory window filter
 * @opts: as for mf_create_window(); @opts->name must be NULL or ""
 * @w: as for mf_create_window(). @w->period_ms is kept (an image carries
 *	it to the kernel, which rotates by it) but an offline filter never
 *	rotates by time: only mf_offline_rotate() and, with
 *	@w->rotate_by_count, adds rotate it.
 * @out: out: the filter; release it with mf_offline_free()
 *
 * Sized exactly as the kernel sizes it. With @w->rotate_by_count, an add
 * rotates the filter as soon as its current generation holds
 * @opts->capacity keys (the kernel rotates right after the add batch that
 * filled it): every generation takes exactly @opts->capacity keys.
 *
 * Return: as mf_offline_create() (-EINVAL also for a NULL @w, a type other
 * than MF_TYPE_WINDOW or generations outside 2 .. 16).
 */
LIBMEMFILTER_API int mf_offline_create_window(const struct mf_create_opts *opts,
					      const struct mf_window_opts *w,
					      struct mf_offline **out);

/**
 * mf_offline_rotate() - rotate an offline window filter
 * @f: the filter
 *
 * What the kernel's mf_rotate() does: the oldest generation is cleared
 * and becomes current, with no keys and age 0 (an offline filter's clock
 * stays at 0, so loaded generations keep their image's ages).
 *
 * Return: 0, -EOPNOTSUPP on other filters, -EINVAL for NULL.
 */
LIBMEMFILTER_API int mf_offline_rotate(struct mf_offline *f);

/**
 * mf_offline_window_info() - an offline window filter's generations
 * @f: the filter
 * @wi: filled in, as mf_window_info() fills it
 *
 * Return: 0, or -errno (-EOPNOTSUPP on other filters).
 */
LIBMEMFILTER_API int mf_offline_window_info(const struct mf_offline *f,
					    struct mf_window_info *wi);

/**
 * mf_offline_from_image() - an in-memory filter from an image
 * @image: the whole image
 * @len: its length in bytes
 * @out: out: the filter; release it with mf_offline_free()
 * @why: optional: on -EBADMSG, -EOPNOTSUPP or -ENOMEM, a static one-line
 *	reason ("header checksum mismatch", ...); NULL otherwise
 *
 * Validates the image exactly as the kernel's loader does.
 *
 * Return: 0 or -errno: -EBADMSG for a corrupt, truncated, padded or
 * inconsistent image, -EOPNOTSUPP for an unknown version, type, hash or
 * flag, -ENOMEM.
 */
LIBMEMFILTER_API int mf_offline_from_image(const void *image, size_t len,
					   struct mf_offline **out, const char **why);

/**
 * mf_image_read() - read one image from a file descriptor, in bounded memory
 * @fd: a file, pipe or socket, read from where it stands
 * @image: out: the image, one allocation; free() it (a keyed filter's
 *	image holds its secret)
 * @len: out: its length in bytes
 * @why: optional: on -EBADMSG or -EOPNOTSUPP, a static one-line reason
 *	(as mf_offline_from_image() gives); NULL otherwise
 *
 * Reads the 128-byte header and checks it (magic, checksum, every field,
 * as the kernel's loader does) before it reads any payload, then exactly
 * the payload size the header declares, and then one byte more to make
 * sure the input ends there. Until the header is checked it holds 128
 * bytes; after that, at most the declared size, which the header's own
 * fields bound, and never more than twice what arrived (64 KiB at least),
 * so an endless or short input (/dev/zero, a truncated pipe) costs
 * little. The payload's checksum is left to mf_offline_from_image() or
 * mf_load().
 *
 * Return: 0 or -errno: -EBADMSG for a bad magic, a corrupt or
 * inconsistent header, an input that ends before the payload does or
 * goes on after it; -EOPNOTSUPP for an unknown version, type, hash or
 * flag; -ENOMEM; read()'s errno (-EISDIR for a directory).
 */
LIBMEMFILTER_API int mf_image_read(int fd, void **image, size_t *len, const char **why);

/**
 * mf_offline_free() - release an offline filter
 * @f: the filter, or NULL
 *
 * A keyed filter's secret is wiped.
 */
LIBMEMFILTER_API void mf_offline_free(struct mf_offline *f);

/**
 * mf_offline_image() - serialize an offline filter
 * @f: the filter
 * @image: out: header and table, one allocation; free() it (a keyed
 *	filter's image holds its secret: store it like a key)
 * @len: out: its length in bytes
 *
 * Return: 0 or -ENOMEM.
 */
LIBMEMFILTER_API int mf_offline_image(const struct mf_offline *f, void **image, size_t *len);

/* The bytes of an image header (mf_offline_image_view()). */
#define MF_IMAGE_HDR_SIZE 128

/**
 * mf_offline_image_view() - an offline filter's image, its table not copied
 * @f: the filter
 * @header: out: the image's MF_IMAGE_HDR_SIZE-byte header
 * @payload: out: the payload, in the filter's own memory: valid, and
 *	unchanged, until @f is next changed or freed
 * @len: out: its length in bytes
 *
 * The image mf_offline_image() makes, the header followed by the
 * payload, without its copy of the table: write @header, then @payload,
 * to save a filter of any size in about its own memory. The filter is
 * unchanged.
 *
 * Return: 0; -EINVAL for a NULL argument; -EOPNOTSUPP for a growing
 * filter that has grown (its sub-filters are apart: use
 * mf_offline_image()).
 */
LIBMEMFILTER_API int mf_offline_image_view(struct mf_offline *f, void *header,
					   const void **payload, size_t *len);

/**
 * mf_offline_map() - an offline filter of an image file open as @fd
 * @fd: an image file (a regular file), open for reading
 * @out: out: the filter; release it with mf_offline_free()
 * @why: optional: on failure, a static one-line reason, as
 *	mf_offline_from_image() gives; NULL otherwise
 *
 * What mf_offline_from_image() makes of the file's contents (from the
 * file's start, whatever @fd's offset), checked the same way: the header
 * first (nothing is allocated for a header that declares more than the
 * file holds), then the payload's checksum. Despite its name, the
 * payload is read straight into the filter's own memory, as
 * mf_offline_load() reads it, never mapped: the table is the
 * only memory it takes, and the filter owes nothing to the file after
 * the call. Another program truncating the file or rewriting it in place
 * meanwhile makes the call fail (-EBADMSG: truncated, trailing bytes or
 * a checksum mismatch) or succeed with the image as it was; after the
 * call, the filter answers as the image did whatever becomes of the
 * file. No access can fail with SIGBUS, and the library installs no
 * signal handler. @fd may be closed after the call; its offset is
 * unchanged.
 *
 * Return: 0 or -errno: as mf_offline_from_image(); -ENODEV for a file
 * that is not regular (a pipe, a device: read it with mf_image_read()),
 * -EISDIR for a directory, the system's for an fd that cannot be read
 * (-EBADF: not open for reading).
 */
LIBMEMFILTER_API int mf_offline_map(int fd, struct mf_offline **out, const char **why);

/**
 * mf_offline_layout() - an offline filter's Bloom layout
 * @f: the filter
 *
 * Return: as mf_layout(): MF_LAYOUT_LINE64, MF_LAYOUT_SPLIT32, 0 for a
 * cuckoo filter, or -EINVAL for a NULL @f.
 */
LIBMEMFILTER_API int mf_offline_layout(const struct mf_offline *f);

/**
 * mf_offline_size() - the memory an offline filter would take
 * @opts: as for mf_offline_create()
 * @w: a window filter's options (as for mf_offline_create_window()), or
 *	NULL
 * @g: a growing filter's options (as for mf_offline_create_grow()), or
 *	NULL; its size is its first sub-filter's: each it grows to takes
 *	more
 * @bytes: out: the bytes of table memory mf_offline_create*() would
 *	allocate for these options
 *
 * Allocates nothing: a program can check a size against the memory it
 * has before it asks for it.
 *
 * Return: 0, or what mf_offline_create*() would return (-EINVAL,
 * -E2BIG), -ENOMEM excepted.
 */
LIBMEMFILTER_API int mf_offline_size(const struct mf_create_opts *opts,
				     const struct mf_window_opts *w,
				     const struct mf_grow_opts *g, uint64_t *bytes);

/**
 * mf_offline_save() - write an offline filter's image to a file
 * @f: the filter
 * @path: where; what it names decides how (memfilterctl's -o rules):
 *	nothing or a regular file: a new file in the same directory, put in
 *	@path's place once complete and on disk, so that no reader sees it
 *	half written and a failure leaves the old file as it was; a
 *	character or block device or a FIFO: written in place, never
 *	created, replaced or truncated; a symbolic link, a directory or a
 *	socket: refused, nothing written
 *
 * A new file is the caller's, mode 0666 less the umask; one that replaces
 * a regular file takes its mode and, as far as the caller may give them,
 * its owner and group (as '>' keeps them); a keyed filter's (its image
 * holds the secret) is never more than 0600. An entry that changes into
 * something else while the image is written is left alone (-EAGAIN).
 * The umask is applied by the kernel, never read or set: safe from any
 * number of threads.
 *
 * Return: 0 or -errno: -ELOOP for a symbolic link, -EISDIR for a
 * directory, -ENXIO for a socket, -EAGAIN (above), -ENOMEM, or the
 * system's (-ENOENT for a missing directory, -EACCES, -ENOSPC, ...).
 */
LIBMEMFILTER_API int mf_offline_save(const struct mf_offline *f, const char *path);

/**
 * mf_offline_load() - an offline filter from an image file
 * @path: the file (a link is followed: reading destroys nothing)
 * @out: out: the filter; release it with mf_offline_free()
 * @why: optional: on -EBADMSG or -EOPNOTSUPP, a static one-line reason
 *	(as mf_offline_from_image() gives); NULL otherwise
 *
 * A regular file is read with read(), its header checked against the
 * file's size before anything is allocated and its payload read straight
 * into the filter's table: the table is the only memory it takes. A pipe
 * or device is read as mf_image_read() reads it. Validated exactly as
 * the kernel's loader validates an image.
 *
 * Return: 0 or -errno: -EBADMSG, -EOPNOTSUPP and -ENOMEM as for
 * mf_offline_from_image(), -EISDIR, or open()'s and read()'s errno.
 */
LIBMEMFILTER_API int mf_offline_load(const char *path, struct mf_offline **out,
				     const char **why);

/**
 * mf_offline_info() - an offline filter's parameters and fill
 * @f: the filter
 * @info: filled in as mf_info() would for the same filter in the kernel;
 *	@info->seed is 0 for keyed filters, @info->queries and @info->hits
 *	are 0, @info->name is ""
 *
 * Return: 0, or -EINVAL for a NULL argument.
 */
LIBMEMFILTER_API int mf_offline_info(const struct mf_offline *f, struct mf_info *info);

/**
 * mf_offline_keys() - one operation on a batch of keys of an offline filter
 * @f: the filter
 * @op: the operation
 * @keys: the keys, back to back
 * @n: number of keys
 * @opts: their layout and the answers, as for mf_keys()
 *
 * Return: as mf_keys().
 */
LIBMEMFILTER_API ssize_t mf_offline_keys(struct mf_offline *f, enum mf_keys_op op,
					 const void *keys, size_t n, struct mf_keys_opts *opts);

/**
 * mf_offline_add() - add fixed-size keys to an offline filter
 * @f: the filter
 * @keys: @n keys of @key_size bytes each, back to back
 * @key_size: bytes per key, 1 .. MF_KEY_MAX
 * @n: number of keys
 * @results: optional bitmap, as for mf_add()
 * @done: optional: keys processed, as for mf_add()
 *
 * Return: as mf_add().
 */
LIBMEMFILTER_API ssize_t mf_offline_add(struct mf_offline *f, const void *keys,
					size_t key_size, size_t n, uint64_t *results,
					size_t *done);

/**
 * mf_offline_query() - query fixed-size keys of an offline filter
 * @f: the filter
 * @keys: @n keys of @key_size bytes each, back to back
 * @key_size: bytes per key, 1 .. MF_KEY_MAX
 * @n: number of keys
 * @results: optional bitmap, as for mf_query()
 * @done: optional: keys processed, as for mf_add()
 *
 * Return: as mf_query().
 */
LIBMEMFILTER_API ssize_t mf_offline_query(const struct mf_offline *f, const void *keys,
					  size_t key_size, size_t n, uint64_t *results,
					  size_t *done);

/**
 * mf_offline_delete() - delete fixed-size keys from an offline cuckoo filter
 * @f: the filter
 * @keys: @n keys of @key_size bytes each, back to back
 * @key_size: bytes per key, 1 .. MF_KEY_MAX
 * @n: number of keys
 * @results: optional bitmap, as for mf_delete()
 * @done: optional: keys processed, as for mf_add()
 *
 * Return: as mf_delete().
 */
LIBMEMFILTER_API ssize_t mf_offline_delete(struct mf_offline *f, const void *keys,
					   size_t key_size, size_t n, uint64_t *results,
					   size_t *done);

/**
 * mf_offline_addv() - add variable-size keys to an offline filter
 * @f: the filter
 * @keys: the keys' bytes, back to back
 * @lens: @n key lengths, each 0 .. MF_KEY_MAX
 * @n: number of keys
 * @results: optional bitmap, as for mf_add()
 * @done: optional: keys processed, as for mf_add()
 *
 * Return: as mf_add().
 */
LIBMEMFILTER_API ssize_t mf_offline_addv(struct mf_offline *f, const void *keys,
					 const uint32_t *lens, size_t n, uint64_t *results,
					 size_t *done);

/**
 * mf_offline_queryv() - query variable-size keys of an offline filter
 * @f: the filter
 * @keys: the keys' bytes, back to back
 * @lens: @n key lengths, each 0 .. MF_KEY_MAX
 * @n: number of keys
 * @results: optional bitmap, as for mf_query()
 * @done: optional: keys processed, as for mf_add()
 *
 * Return: as mf_query().
 */
LIBMEMFILTER_API ssize_t mf_offline_queryv(const struct mf_offline *f, const void *keys,
					   const uint32_t *lens, size_t n, uint64_t *results,
					   size_t *done);

/**
 * mf_offline_deletev() - mf_offline_delete() for variable-size keys
 * @f: the filter
 * @keys: the keys' bytes, back to back
 * @lens: @n key lengths, each 0 .. MF_KEY_MAX
 * @n: number of keys
 * @results: optional bitmap, as for mf_delete()
 * @done: optional: keys processed, as for mf_add()
 *
 * Return: as mf_delete().
 */
LIBMEMFILTER_API ssize_t mf_offline_deletev(struct mf_offline *f, const void *keys,
					    const uint32_t *lens, size_t n, uint64_t *results,
					    size_t *done);

/**
 * mf_offline_count() - count fixed-size keys of an offline cuckoo filter
 * @f: the filter
 * @keys: @n keys of @key_size bytes each, back to back
 * @key_size: bytes per key, 1 .. MF_KEY_MAX
 * @n: number of keys
 * @counts: optional: @n bytes of counts, as for mf_count()
 * @done: optional: keys processed, as for mf_add()
 *
 * Return: as mf_count().
 */
LIBMEMFILTER_API ssize_t mf_offline_count(const struct mf_offline *f, const void *keys,
					  size_t key_size, size_t n, uint8_t *counts,
					  size_t *done);

/**
 * mf_offline_countv() - count variable-size keys of an offline cuckoo filter
 * @f: the filter
 * @keys: the keys' bytes, back to back
 * @lens: @n key lengths, each 0 .. MF_KEY_MAX
 * @n: number of keys
 * @counts: optional: @n bytes of counts, as for mf_count()
 * @done: optional: keys processed, as for mf_add()
 *
 * Return: as mf_count().
 */
LIBMEMFILTER_API ssize_t mf_offline_countv(const struct mf_offline *f, const void *keys,
					   const uint32_t *lens, size_t n, uint8_t *counts,
					   size_t *done);

/**
 * mf_offline_test_and_add() - mf_test_and_add() on an offline filter
 * @f: a Bloom, window or growing filter
 * @keys: @n keys of @key_size bytes each, back to back
 * @key_size: bytes per key, 1 .. MF_KEY_MAX
 * @n: number of keys
 * @results: optional bitmap, as for mf_test_and_add()
 * @done: optional: keys processed, as for mf_add()
 *
 * As the kernel's: a window that rotates by count rotates when its
 * generation is full, a growing filter grows; the table ends as
 * mf_offline_add() of the same keys leaves it.
 *
 * Return: as mf_test_and_add().
 */
LIBMEMFILTER_API ssize_t mf_offline_test_and_add(struct mf_offline *f, const void *keys,
						 size_t key_size, size_t n,
						 uint64_t *results, size_t *done);

/**
 * mf_offline_test_and_addv() - mf_offline_test_and_add(), variable-size keys
 * @f: a Bloom, window or growing filter
 * @keys: the keys' bytes, back to back
 * @lens: @n key lengths, each 0 .. MF_KEY_MAX
 * @n: number of keys
 * @results: optional bitmap, as for mf_test_and_add()
 * @done: optional: keys processed, as for mf_add()
 *
 * Return: as mf_test_and_add().
 */
LIBMEMFILTER_API ssize_t mf_offline_test_and_addv(struct mf_offline *f, const void *keys,
						  const uint32_t *lens, size_t n,
						  uint64_t *results, size_t *done);

/**
 * mf_offline_query_key() - one key of an offline filter, no lengths array
 * @f: the filter
 * @key: the key's bytes; may be NULL when @len is 0 (the empty key)
 * @len: its length, 0 .. MF_KEY_MAX
 *
 * mf_offline_queryv() of one key. mf_offline_add_key(),
 * mf_offline_delete_key(), mf_offline_add_unique_key(),
 * mf_offline_test_and_add_key() and mf_offline_count_key() are the same
 * for the other operations, and return what mf_add_key() and the others
 * return for a filter fd.
 *
 * Return: 1 if the key may be present, 0 if it is certainly absent, or
 * -EINVAL (a NULL @f, a NULL @key with a length, @len over MF_KEY_MAX).
 */
LIBMEMFILTER_API int mf_offline_query_key(const struct mf_offline *f, const void *key,
					  size_t len);

/**
 * mf_offline_add_key() - add one key to an offline filter
 * @f: the filter
 * @key: as for mf_offline_query_key()
 * @len: as for mf_offline_query_key()
 *
 * Return: as mf_add_key().
 */
LIBMEMFILTER_API int mf_offline_add_key(struct mf_offline *f, const void *key, size_t len);

/**
 * mf_offline_delete_key() - delete one copy of a key (cuckoo)
 * @f: the filter
 * @key: as for mf_offline_query_key()
 * @len: as for mf_offline_query_key()
 *
 * Return: as mf_delete_key().
 */
LIBMEMFILTER_API int mf_offline_delete_key(struct mf_offline *f, const void *key,
					   size_t len);

/**
 * mf_offline_add_unique_key() - add one key unless present (cuckoo)
 * @f: the filter
 * @key: as for mf_offline_query_key()
 * @len: as for mf_offline_query_key()
 *
 * Return: as mf_add_unique_key().
 */
LIBMEMFILTER_API int mf_offline_add_unique_key(struct mf_offline *f, const void *key,
					       size_t len);

/**
 * mf_offline_test_and_add_key() - was one key present? add it
 * @f: a Bloom, window or growing filter
 * @key: as for mf_offline_query_key()
 * @len: as for mf_offline_query_key()
 *
 * Return: as mf_test_and_add_key().
 */
LIBMEMFILTER_API int mf_offline_test_and_add_key(struct mf_offline *f, const void *key,
						 size_t len);

/**
 * mf_offline_count_key() - one key's count (cuckoo)
 * @f: the filter
 * @key: as for mf_offline_query_key()
 * @len: as for mf_offline_query_key()
 *
 * Return: as mf_count_key().
 */
LIBMEMFILTER_API int mf_offline_count_key(const struct mf_offline *f, const void *key,
					  size_t len);

/**
 * mf_image_merge() - the union of two Bloom filter images
 * @a: the first image
 * @a_len: its length
 * @b: the second image
 * @b_len: its length
 * @out: out: the merged image, one allocation; free() it
 * @out_len: out: its length
 * @why: optional: on failure, a static one-line reason
 *
 * ORs the tables of two Bloom filters that hash keys identically: same
 * type, block count, probes per key, hash algorithm and seed or secret.
 * Anything else would place a key's bits differently in the two tables,
 * and the merged filter would answer "absent" for keys of either input:
 * false negatives. Capacity and bits per key are taken from @a; the key
 * count is the sum (an upper bound: keys in both count twice).
 *
 * Return: 0 or -errno: -EINVAL when the images cannot be merged (cuckoo
 * filters, mismatched shape or hashing; see @why), -EBADMSG /
 * -EOPNOTSUPP when either image is invalid, -ENOMEM.
 */
LIBMEMFILTER_API int mf_image_merge(const void *a, size_t a_len, const void *b, size_t b_len,
				    void **out, size_t *out_len, const char **why);

/**
 * mf_offline_merge() - OR one offline Bloom filter into another
 * @f: the filter that takes the union
 * @other: the filter ORed into it, unchanged (may be @f)
 * @why: optional: on -EINVAL for filters that cannot be merged, a static
 *	one-line reason; NULL otherwise
 *
 * mf_image_merge() on filters already in memory, with no image copied:
 * @f's table becomes the union of both (the rules and the key count as
 * there). A program that merges image files holds the two tables and
 * nothing more: load both (mf_offline_load() or mf_offline_map()), merge,
 * free @other, and write @f with mf_offline_image_view().
 *
 * Return: 0; -EINVAL for a NULL filter or filters that cannot be merged
 * (@f is then unchanged).
 */
LIBMEMFILTER_API int mf_offline_merge(struct mf_offline *f,
				      const struct mf_offline *other,
				      const char **why);

/**
 * mf_strerror() - what an error of this library means
 * @err: a negative errno, as the functions return it; a positive errno
 *	(errno itself) gives the same message, 0 gives "success"
 *
 * The message holds for every function that can return @err: -ENOENT
 * reads "not found: no /dev/memfilter (the memfilter module is not
 * loaded), or no filter, attachment or file by that name or id".
 * mf_call_strerror()
 * says it in the terms of the one call that returned it. Errnos with no
 * meaning of memfilter's own get the C library's description
 * (strerrordesc_np(), never strerror()'s buffer), unknown ones (INT_MIN
 * among them) "unknown error".
 *
 * Return: a static, read-only string, never NULL; the same pointer for the
 * same @err, which no later call changes (thread-safe).
 */
LIBMEMFILTER_API const char *mf_strerror(int err);

/**
 * mf_call_strerror() - what an error means for the call that returned it
 * @call: the name of the libmemfilter function that returned @err, as in
 *	C ("mf_open_device"); NULL or a name this library does not know
 *	gives mf_strerror(@err)
 * @err: its return value, as for mf_strerror()
 *
 * One errno can mean different things in different calls; this says which
 * (compare mf_strerror()). -ENOENT: "no /dev/memfilter: the memfilter
 * module is not loaded" from mf_open_device(), "no such filter" from
 * mf_open(), "no attachment with that id in this network namespace" from
 * mf_nf_detach(), "the filter is not published" from mf_pub_id(). -EBADF:
 * "bad file descriptor" from mf_image_read(), "bad file descriptor, or a
 * read-only filter fd (opened without write access)" from mf_add() and
 * the other calls on a filter fd, where -ENOTTY is "not a memfilter
 * filter fd" and -ENOSPC "the filter is full (nothing in it was lost)".
 *
 * Every exported function is known to it, and an errno it has nothing
 * narrower for gets mf_strerror()'s message. MF_CALL_STRERROR() names the
 * function as a symbol, so that a misspelt name does not compile.
 *
 * Return: a static, read-only string, never NULL (thread-safe).
 */
LIBMEMFILTER_API const char *mf_call_strerror(const char *call, int err);

/* mf_call_strerror() for @fn, a libmemfilter function (not a string). */
#define MF_CALL_STRERROR(fn, err) \
	((void)sizeof(&(fn)), mf_call_strerror(#fn, (err)))

/*
 * Netfilter attachments (Documentation/netfilter.rst): a published filter
 * on an IPv4 and/or IPv6 hook of the caller's network namespace. The
 * numbers are the ABI's MEMFILTER_NF_* values.
 */
#define MF_NF_IPV4 1		/* family bits */
#define MF_NF_IPV6 2

enum mf_nf_hook {
	MF_NF_PREROUTING = 0,
	MF_NF_INPUT = 1,
	MF_NF_FORWARD = 2,
	MF_NF_OUTPUT = 3,
	MF_NF_POSTROUTING = 4,
};

enum mf_nf_key {
	MF_NF_KEY_SADDR = 1,	/* 4 or 16 address bytes */
	MF_NF_KEY_DADDR = 2,
	MF_NF_KEY_TUPLE = 3,	/* saddr, daddr, sport, dport, protocol */
	MF_NF_KEY_L4_PAYLOAD = 4, /* the bytes after the TCP/UDP header */
};

enum mf_nf_action {
	MF_NF_DROP_HIT = 1,	/* blocklist */
	MF_NF_DROP_MISS = 2,	/* allowlist */
	MF_NF_COUNT = 3,	/* observe */
	MF_NF_DEDUP = 4,	/* test-and-add: drop repeats (Bloom, window) */
};

/* The hook priority when none is given: after defrag, before raw. */
#define MF_NF_PRIORITY_DEFAULT (-350)

/**
 * struct mf_nf_attach_opts - where and how to attach
 * @sz: sizeof(struct mf_nf_attach_opts) (MF_OPTS()); 0 for this version
 * @family: MF_NF_IPV4, MF_NF_IPV6 or both
 * @hook: enum mf_nf_hook
 * @key: enum mf_nf_key
 * @action: enum mf_nf_action
 * @has_priority: use @priority, else MF_NF_PRIORITY_DEFAULT
 * @priority: the hook priority (INT_MIN + 1 .. INT_MAX - 1), with
 *	@has_priority; a non-zero @priority without it is refused (-EINVAL;
 *	programs linked against the library before MEMFILTER_1.8 get the
 *	default priority)
 */
struct mf_nf_attach_opts {
	size_t sz;
	unsigned int family;
	int hook;
	int key;
	int action;
	bool has_priority;
	int priority;
};

/**
 * struct mf_nf_entry - one attachment and its counters
 * @id: what mf_nf_attach() returned
 * @family: as attached (struct mf_nf_attach_opts)
 * @hook: as attached
 * @priority: as attached
 * @key: as attached
 * @action: as attached
 * @name: the filter's name when attached
 * @packets: packets seen
 * @hits: packets whose key the filter may hold
 * @drops: packets dropped
 * @added: keys added (dedup)
 * @skipped: packets without a key of the attachment's kind (a 5-tuple of
 *	a non-first fragment, no payload of the kind asked for, unparseable):
 *	dropped by MF_NF_DROP_MISS, passed otherwise. packets - hits -
 *	skipped is the misses (the kernel's struct memfilter_nf_entry also
 *	has them, and dedup's add_failed)
 */
struct mf_nf_entry {
	uint32_t id;
	unsigned int family;
	int hook;
	int priority;
	int key;
	int action;
	char name[MF_NAME_MAX];
	uint64_t packets;
	uint64_t hits;
	uint64_t drops;
	uint64_t added;
	uint64_t skipped;
};

/**
 * mf_nf_attach() - attach a published filter to a netfilter hook
 * @devfd: from mf_open_device()
 * @name: the filter's published name
 * @opts: where and how
 *
 * Needs CAP_NET_ADMIN in the caller's network namespace (dedup: and
 * CAP_SYS_ADMIN), held when @devfd was opened.
 *
 * Return: the attachment's id (> 0), or -errno: -ENOENT (no such filter),
 * -EPERM, -EINVAL (bad family, hook, key, action or priority), -ENOSPC
 * (too many attachments), -EOPNOTSUPP (dedup on a cuckoo filter).
 */
LIBMEMFILTER_API int64_t mf_nf_attach(int devfd, const char *name,
				      const struct mf_nf_attach_opts *opts);

/**
 * mf_nf_detach() - remove an attachment of the caller's namespace
 * @devfd: from mf_open_device()
 * @id: what mf_nf_attach() returned
 *
 * Return: 0 or -errno: -ENOENT (no such id here), -EPERM.
 */
LIBMEMFILTER_API int mf_nf_detach(int devfd, uint32_t id);

/**
 * mf_nf_list() - the attachments of the caller's namespace
 * @devfd: from mf_open_device()
 * @entries: out: room for @max entries, or NULL with @max 0
 * @max: how many fit
 *
 * Return: how many attachments there are (may exceed @max: then only the
 * first @max were written), or -errno.
 */
LIBMEMFILTER_API ssize_t mf_nf_list(int devfd, struct mf_nf_entry *entries,
				    size_t max);

/**
 * mf_nf_stats() - one attachment's counters
 * @devfd: from mf_open_device()
 * @id: the attachment
 * @entry: out: it
 *
 * Return: 0, -ENOENT (no such id in this namespace), or -errno.
 */
LIBMEMFILTER_API int mf_nf_stats(int devfd, uint32_t id,
				 struct mf_nf_entry *entry);

/*
 * Address prefixes (Documentation/filters.rst, "Address prefixes"): a
 * filter created with mf_create_opts.prefixes holds CIDR prefixes, each
 * stored as one key, and answers address lookups by testing the
 * address's key at each prefix length it holds, longest first.
 */
#define MF_PREFIX_IPV4 4
#define MF_PREFIX_IPV6 6
/* The most lengths per family, and the default (the ABI's). */
#define MF_PREFIX_LENGTHS_MAX 32
#define MF_PREFIX_LENGTHS_DEFAULT 16
/* The longest text of a prefix mf_prefix_parse() reads, NUL excluded. */
#define MF_PREFIX_TEXT_MAX 63

/**
 * struct mf_prefix - an address prefix, or (lookups) an address
 * @family: MF_PREFIX_IPV4 or MF_PREFIX_IPV6
 * @length: prefix bits: 0 .. 32 (IPv4), 0 .. 128 (IPv6); an address is
 *	its full length
 * @reserved: must be 0
 * @addr: network byte order; IPv4 in the first 4 bytes, the rest 0;
 *	every bit past @length 0 when adding
 *
 * The layout of the ABI's struct memfilter_prefix.
 */
struct mf_prefix {
	uint8_t family;
	uint8_t length;
	uint8_t reserved[2];
	uint8_t addr[16];
};

/**
 * mf_prefix_parse() - read a prefix or an address
 * @text: "10.0.0.0/8", "2001:db8::/32", or an address ("192.0.2.1",
 *	"2001:db8::1", its /32 or /128); not NUL-terminated
 * @len: its length, at most MF_PREFIX_TEXT_MAX
 * @p: out: the prefix
 * @why: optional out: why it was refused (a static string), else NULL
 *
 * Refuses a prefix with a bit set past its length (10.0.0.1/8): a list
 * holding one is more likely mistyped than meant (10.0.0.0/8 or
 * 10.0.0.1/32).
 *
 * Return: 0, or -EINVAL.
 */
LIBMEMFILTER_API int mf_prefix_parse(const char *text, size_t len,
				     struct mf_prefix *p, const char **why);

/**
 * mf_add_prefixes() - add address prefixes to a prefix filter
 * @fd: a filter fd of a filter created with mf_create_opts.prefixes
 * @p: @n prefixes
 * @n: how many
 * @results: optional bitmap, as for mf_add()
 * @done: optional: prefixes processed, as for mf_add()
 *
 * Each kernel batch (MEMFILTER_BATCH_MAX prefixes) is checked whole first
 * and its lengths recorded before any of its prefixes is added.
 *
 * Return: the number of prefixes added, or -errno: -EOPNOTSUPP (a filter
 * of keys, or a kernel without MEMFILTER_FEAT_PREFIXES: -ENOTTY),
 * -EINVAL (an invalid prefix), -ENOSPC (a family would hold more than its
 * most lengths, or the filter is full as for mf_add()).
 */
LIBMEMFILTER_API ssize_t mf_add_prefixes(int fd, const struct mf_prefix *p,
					 size_t n, uint64_t *results,
					 size_t *done);

/**
 * mf_query_addrs() - look addresses up by the prefix rule
 * @fd: a filter fd
 * @addrs: @n addresses (@length 32 or 128; the rest of struct mf_prefix
 *	as for mf_add_prefixes())
 * @n: how many
 * @results: optional bitmap; bit i set when address i may be covered
 * @done: optional: addresses processed
 *
 * The kernel's rule (the netfilter hook, the BPF address kfuncs): the
 * prefix lengths the filter holds are read once, then each address's key
 * at each of its family's lengths is queried; on a filter of keys the
 * address itself. The filter counts one query per key.
 *
 * Return: how many may be covered, or -errno (-EINVAL for an invalid
 * address).
 */
LIBMEMFILTER_API ssize_t mf_query_addrs(int fd, const struct mf_prefix *addrs,
					size_t n, uint64_t *results,
					size_t *done);

/**
 * struct mf_prefix_info - a prefix filter's lengths
 * @sz: sizeof(struct mf_prefix_info) (MF_OPTS()); required
 * @prefix_lengths: the most lengths per family; 0 for a filter of keys
 * @n4: IPv4 lengths held
 * @len4: them, longest first
 * @fpr4: the false-positive rate of an IPv4 address lookup, 1 - (1 -
 *	est_fpr)^@n4 (mf_info()'s est_fpr); 0 with no IPv4 length
 * @n6: IPv6 lengths held
 * @len6: them, longest first
 * @fpr6: the same for IPv6
 */
struct mf_prefix_info {
	size_t sz;
	unsigned int prefix_lengths;
	unsigned int n4;
	uint8_t len4[MF_PREFIX_LENGTHS_MAX];
	double fpr4;
	unsigned int n6;
	uint8_t len6[MF_PREFIX_LENGTHS_MAX];
	double fpr6;
};

/**
 * mf_prefix_info() - the prefix lengths a filter holds
 * @fd: a filter fd
 * @pi: filled in (all 0 for a filter of keys)
 *
 * Return: 0, or -errno.
 */
LIBMEMFILTER_API int mf_prefix_info(int fd, struct mf_prefix_info *pi);

/**
 * mf_offline_add_prefixes() - mf_add_prefixes() on an offline filter
 * @f: an offline prefix filter (mf_create_opts.prefixes)
 * @p: @n prefixes
 * @n: how many
 * @results: optional bitmap, as for mf_add()
 * @done: optional: prefixes processed
 *
 * Return: as mf_add_prefixes() (the whole batch is checked first).
 */
LIBMEMFILTER_API ssize_t mf_offline_add_prefixes(struct mf_offline *f,
						 const struct mf_prefix *p,
						 size_t n, uint64_t *results,
						 size_t *done);

/**
 * mf_offline_query_addrs() - mf_query_addrs() on an offline filter
 * @f: an offline filter
 * @addrs: @n addresses
 * @n: how many
 * @results: optional bitmap
 * @done: optional: addresses processed
 *
 * The kernel's own lookup code (core/prefix.h): an image's answers are
 * the loaded filter's.
 *
 * Return: as mf_query_addrs().
 */
LIBMEMFILTER_API ssize_t mf_offline_query_addrs(const struct mf_offline *f,
						const struct mf_prefix *addrs,
						size_t n, uint64_t *results,
						size_t *done);

/**
 * mf_offline_prefix_info() - mf_prefix_info() of an offline filter
 * @f: an offline filter
 * @pi: filled in
 *
 * Return: 0, or -EINVAL.
 */
LIBMEMFILTER_API int mf_offline_prefix_info(const struct mf_offline *f,
					    struct mf_prefix_info *pi);

#ifdef __cplusplus
}
#endif

#endif /* _LIBMEMFILTER_H */
