// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * libmemfilter's error messages: mf_strerror(), which says what an errno
 * means for any function of the library, and mf_call_strerror(), which
 * says it in the terms of the function that returned it (-ENOENT from
 * mf_open_device() is a missing module, from mf_open() a missing filter).
 *
 * Conventions in this file: every message is a string literal, so both
 * functions return static, read-only strings that no later call changes
 * (thread-safe, unlike strerror()'s buffer). Each call family's table
 * lists only the errnos whose meaning it narrows; the rest fall through to
 * the next family of the call and then to mf_strerror(). Every exported
 * function is named in calls[] (tests/native/strerror_test.c checks it
 * against the version script).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "libmemfilter.h"

struct mf_msg {
	int err;
	const char *msg;
};

/* What each errno means for any call of the library. */
static const struct mf_msg mf_any[] = {
	{ 0, "success" },
	{ EPERM, "operation not permitted: a privilege is missing (CAP_SYS_ADMIN; CAP_NET_ADMIN for netfilter)" },
	{ ENOENT, "not found: no /dev/memfilter (the memfilter module is not loaded), or no filter, attachment or file by that name or id" },
	{ EBADF, "bad file descriptor, or one not open for writing" },
	{ ENOTTY, "not a memfilter fd, or a command this memfilter module does not know" },
	{ EEXIST, "name already taken" },
	{ EBUSY, "the filter already has a name" },
	{ ENOSPC, "no room left: a full filter, too many attachments or a full disk" },
	{ E2BIG, "too large for the module's or the format's limits, or options with fields this library does not know" },
	{ EOPNOTSUPP, "not supported by this filter type, kernel module or library" },
	{ ENAMETOOLONG, "name too long (a filter name has at most 63 characters)" },
	{ EBADMSG, "corrupt or inconsistent filter image" },
	{ ENOMEM, "out of memory (or the module's memory limit)" },
	{ EACCES, "permission denied" },
	{ EINVAL, "invalid argument" },
	{ EFAULT, "bad address" },
};

/* mf_open_device(), mf_api(): /dev/memfilter itself. */
static const struct mf_msg mf_device[] = {
	{ ENOENT, "no /dev/memfilter: the memfilter module is not loaded" },
	{ ENXIO, "/dev/memfilter has no driver: the memfilter module is not loaded" },
	{ ENODEV, "/dev/memfilter has no driver: the memfilter module is not loaded" },
	{ EACCES, "permission denied on /dev/memfilter (mode 0600 unless a udev rule says otherwise)" },
	{ EPERM, "not permitted to open /dev/memfilter" },
	{ EOPNOTSUPP, "the memfilter module speaks another ABI version than this library" },
	{ ENOTTY, "not /dev/memfilter: the fd is another file" },
	{ EBADF, "bad file descriptor" },
};

/* Commands on the device fd: a new filter, a name, an attachment. */
static const struct mf_msg mf_devcmd[] = {
	{ ENOTTY, "not an fd of /dev/memfilter (see mf_open_device())" },
	{ EBADF, "bad file descriptor, or /dev/memfilter opened read-only" },
	{ EEXIST, "a filter of that name exists" },
	{ EPERM, "naming a filter needs CAP_SYS_ADMIN" },
	{ E2BIG, "too large: beyond the module's limit for one filter (max_filter_mb)" },
	{ ENOMEM, "out of memory, or the module's memory limit (max_total_mb)" },
};

/* mf_create*(), in the library and in the kernel. */
static const struct mf_msg mf_create_msgs[] = {
	{ EINVAL, "invalid or inconsistent filter parameters" },
	{ E2BIG, "too large: beyond the module's limit for one filter (max_filter_mb), or options with fields this library does not know" },
	{ EOPNOTSUPP, "not supported by this kernel module (filter type, hash or flag)" },
};

/* mf_load(): an image into the kernel. */
static const struct mf_msg mf_load_msgs[] = {
	{ EINVAL, "invalid argument (image or name)" },
	{ EOPNOTSUPP, "image of a format version, type or hash this kernel module does not know" },
};

/* mf_open(), mf_publish(): a filter by name. */
static const struct mf_msg mf_name[] = {
	{ ENOENT, "no such filter" },
	{ EINVAL, "invalid name (1 to 63 of A-Z a-z 0-9 . _ -)" },
};

/* mf_replace(), mf_exchange(): a name changes filters. */
static const struct mf_msg mf_replace_msgs[] = {
	{ ENOENT, "no filter has that name (mf_replace() with MF_REPLACE_PUBLISH publishes it)" },
	{ EBUSY, "the new filter already has a name (build it aside, unnamed)" },
	{ EBADF, "bad file descriptor: /dev/memfilter or the filter fd not open for writing" },
	{ EOPNOTSUPP, "a dedup attachment holds the name and the filter has no test-and-add (cuckoo)" },
	{ ENOTTY, "not an fd of /dev/memfilter, or a module without replace (MEMFILTER_FEAT_REPLACE)" },
	{ EPERM, "replacing a published filter needs CAP_SYS_ADMIN" },
	{ EINVAL, "invalid name or flags, or the same name twice" },
};

/* Commands on a filter fd. */
static const struct mf_msg mf_filter[] = {
	{ ENOTTY, "not a memfilter filter fd" },
	{ EBADF, "bad file descriptor, or a read-only filter fd (opened without write access)" },
	{ EOPNOTSUPP, "not supported by this filter's type" },
	{ ENOSPC, "the filter is full (nothing in it was lost)" },
	{ EPERM, "naming filters needs CAP_SYS_ADMIN" },
	{ ENOMEM, "out of memory, or the module's memory limit (max_total_mb)" },
};

/* Key batches, on an fd or offline. */
static const struct mf_msg mf_keys_msgs[] = {
	{ EINVAL, "invalid key layout (key size, lengths or options)" },
	{ E2BIG, "options with fields this library does not know" },
};

/* mf_dump(). */
static const struct mf_msg mf_dump_msgs[] = {
	{ EPERM, "dumping a keyed filter needs CAP_SYS_ADMIN and a writable fd" },
	{ EBADMSG, "what the fd gave is not a filter image" },
};

/* mf_pub_id(). */
static const struct mf_msg mf_pub_id_msgs[] = {
	{ ENOENT, "the filter is not published" },
	{ EOPNOTSUPP, "the kernel module predates filter ids" },
};

/* Offline filters: process memory, no module. */
static const struct mf_msg mf_offline_msgs[] = {
	{ EOPNOTSUPP, "not supported by this filter's type" },
	{ ENOSPC, "the filter is full (nothing in it was lost)" },
	{ ENOMEM, "out of memory" },
	{ E2BIG, "too large: beyond the filters' size limit" },
};

/* mf_offline_create*(). */
static const struct mf_msg mf_ocreate_msgs[] = {
	{ EINVAL, "invalid or inconsistent filter parameters" },
	{ E2BIG, "too large: beyond the filters' size limit, or options with fields this library does not know" },
	{ EOPNOTSUPP, "not supported by this library (filter type, hash or flag)" },
};

/* Images in memory or read from an fd. */
static const struct mf_msg mf_image_msgs[] = {
	{ EBADMSG, "corrupt or inconsistent filter image" },
	{ EOPNOTSUPP, "image of a format version, type, hash or flag this library does not know" },
	{ ENOMEM, "out of memory" },
	{ EBADF, "bad file descriptor" },
	{ EISDIR, "is a directory" },
};

/* mf_image_merge(). */
static const struct mf_msg mf_merge_msgs[] = {
	{ EINVAL, "the images cannot be merged (different types, shapes or hashing)" },
};

/* mf_offline_merge(). */
static const struct mf_msg mf_omerge_msgs[] = {
	{ EINVAL, "the filters cannot be merged (different types, shapes or hashing)" },
};

/* mf_nf_attach(). */
static const struct mf_msg mf_nf_attach_msgs[] = {
	{ ENOENT, "no such filter" },
	{ EPERM, "attaching needs CAP_NET_ADMIN (dedup also CAP_SYS_ADMIN)" },
	{ ENOSPC, "this network namespace has the most attachments it may have" },
	{ EOPNOTSUPP, "not supported: dedup on a cuckoo filter, or IPv6 without IPv6" },
	{ EINVAL, "invalid family, hook, key, action or priority" },
};

/* mf_nf_detach(), mf_nf_stats(), mf_nf_list(). */
static const struct mf_msg mf_nf_msgs[] = {
	{ ENOENT, "no attachment with that id in this network namespace" },
	{ EPERM, "detaching needs CAP_NET_ADMIN" },
	{ ENOTTY, "not an fd of /dev/memfilter, or a module without netfilter" },
};

/* mf_offline_map(): an image file open as an fd. */
static const struct mf_msg mf_map_msgs[] = {
	{ ENODEV, "not a regular file (a pipe or device: read it with mf_image_read())" },
};

/* mf_offline_save(): a path, written by memfilterctl's -o rules. */
static const struct mf_msg mf_save_msgs[] = {
	{ ELOOP, "is a symbolic link: not written through (give the file it should write)" },
	{ EISDIR, "is a directory" },
	{ ENXIO, "is a socket" },
	{ EAGAIN, "changed into something else while the image was written: left alone" },
	{ ENOENT, "no such directory" },
	{ ENOSPC, "no space left on the device" },
	{ ENOMEM, "out of memory" },
};

/* mf_offline_load(): an image file. */
static const struct mf_msg mf_load_file_msgs[] = {
	{ ENOENT, "no such file" },
};

/* mf_add_prefixes(), mf_offline_add_prefixes(): a batch of prefixes. */
static const struct mf_msg mf_prefix_msgs[] = {
	{ EINVAL, "invalid prefix: family, length, an address bit set past the length, or a reserved byte" },
	{ EOPNOTSUPP, "not a prefix filter (created without prefixes)" },
	{ ENOSPC, "more prefix lengths of a family than the filter takes, or the filter is full (nothing in it was lost)" },
	{ ENOTTY, "not a memfilter filter fd, or a memfilter module without prefix filters" },
};

/* mf_query_addrs(), mf_offline_query_addrs(): address lookups. */
static const struct mf_msg mf_addrs_msgs[] = {
	{ EINVAL, "invalid address: an IPv4 /32 or IPv6 /128 struct mf_prefix, reserved bytes 0" },
};

/* mf_prefix_parse(). */
static const struct mf_msg mf_parse_msgs[] = {
	{ EINVAL, "not an IPv4 or IPv6 address or prefix, or an address bit set past its length" },
};

struct mf_table {
	const struct mf_msg *m;
	unsigned int n;
};

#define T(a) { a, sizeof(a) / sizeof((a)[0]) }
#define MF_CALL_TABLES 3

/* A function and its families, narrowest first. */
struct mf_call {
	const char *name;
	struct mf_table t[MF_CALL_TABLES];
};

#define KEYS_FD { T(mf_keys_msgs), T(mf_filter) }
#define KEYS_OFF { T(mf_keys_msgs), T(mf_offline_msgs) }
#define ON_FD { T(mf_filter) }
#define CREATE_FD { T(mf_create_msgs), T(mf_devcmd) }
#define CREATE_OFF { T(mf_ocreate_msgs), T(mf_offline_msgs) }
#define OFFLINE { T(mf_offline_msgs) }
#define IMAGE { T(mf_image_msgs) }
#define NONE { { 0 } }

/* Every exported function, sorted by name (bsearch). */
static const struct mf_call calls[] = {
	{ "mf_add", KEYS_FD },
	{ "mf_add_key", KEYS_FD },
	{ "mf_add_prefixes", { T(mf_prefix_msgs), T(mf_filter) } },
	{ "mf_add_unique", KEYS_FD },
	{ "mf_add_unique_key", KEYS_FD },
	{ "mf_add_uniquev", KEYS_FD },
	{ "mf_addv", KEYS_FD },
	{ "mf_api", { T(mf_device) } },
	{ "mf_call_strerror", NONE },
	{ "mf_clear", ON_FD },
	{ "mf_count", KEYS_FD },
	{ "mf_count_key", KEYS_FD },
	{ "mf_countv", KEYS_FD },
	{ "mf_create", CREATE_FD },
	{ "mf_create_check", CREATE_OFF },
	{ "mf_create_grow", CREATE_FD },
	{ "mf_create_window", CREATE_FD },
	{ "mf_delete", KEYS_FD },
	{ "mf_delete_key", KEYS_FD },
	{ "mf_deletev", KEYS_FD },
	{ "mf_dump", { T(mf_dump_msgs), T(mf_filter) } },
	{ "mf_exchange", { T(mf_replace_msgs), T(mf_devcmd) } },
	{ "mf_grow_info", ON_FD },
	{ "mf_image_merge", { T(mf_merge_msgs), T(mf_image_msgs) } },
	{ "mf_image_read", IMAGE },
	{ "mf_info", ON_FD },
	{ "mf_keys", KEYS_FD },
	{ "mf_layout", ON_FD },
	{ "mf_list", { T(mf_devcmd) } },
	{ "mf_load", { T(mf_load_msgs), T(mf_image_msgs), T(mf_devcmd) } },
	{ "mf_nf_attach", { T(mf_nf_attach_msgs), T(mf_devcmd) } },
	{ "mf_nf_detach", { T(mf_nf_msgs), T(mf_devcmd) } },
	{ "mf_nf_list", { T(mf_nf_msgs), T(mf_devcmd) } },
	{ "mf_nf_stats", { T(mf_nf_msgs), T(mf_devcmd) } },
	{ "mf_offline_add", KEYS_OFF },
	{ "mf_offline_add_key", KEYS_OFF },
	{ "mf_offline_add_prefixes", { T(mf_prefix_msgs), T(mf_offline_msgs) } },
	{ "mf_offline_add_unique_key", KEYS_OFF },
	{ "mf_offline_addv", KEYS_OFF },
	{ "mf_offline_count", KEYS_OFF },
	{ "mf_offline_count_key", KEYS_OFF },
	{ "mf_offline_countv", KEYS_OFF },
	{ "mf_offline_create", CREATE_OFF },
	{ "mf_offline_create_grow", CREATE_OFF },
	{ "mf_offline_create_window", CREATE_OFF },
	{ "mf_offline_delete", KEYS_OFF },
	{ "mf_offline_delete_key", KEYS_OFF },
	{ "mf_offline_deletev", KEYS_OFF },
	{ "mf_offline_free", NONE },
	{ "mf_offline_from_image", IMAGE },
	{ "mf_offline_grow_info", OFFLINE },
	{ "mf_offline_image", OFFLINE },
	{ "mf_offline_image_view", OFFLINE },
	{ "mf_offline_info", OFFLINE },
	{ "mf_offline_keys", KEYS_OFF },
	{ "mf_offline_layout", OFFLINE },
	{ "mf_offline_load", { T(mf_load_file_msgs), T(mf_image_msgs) } },
	{ "mf_offline_map", { T(mf_map_msgs), T(mf_image_msgs) } },
	{ "mf_offline_merge", { T(mf_omerge_msgs) } },
	{ "mf_offline_prefix_info", OFFLINE },
	{ "mf_offline_query", KEYS_OFF },
	{ "mf_offline_query_addrs", { T(mf_addrs_msgs), T(mf_offline_msgs) } },
	{ "mf_offline_query_key", KEYS_OFF },
	{ "mf_offline_queryv", KEYS_OFF },
	{ "mf_offline_rotate", OFFLINE },
	{ "mf_offline_save", { T(mf_save_msgs) } },
	{ "mf_offline_size", CREATE_OFF },
	{ "mf_offline_test_and_add", KEYS_OFF },
	{ "mf_offline_test_and_add_key", KEYS_OFF },
	{ "mf_offline_test_and_addv", KEYS_OFF },
	{ "mf_offline_window_info", OFFLINE },
	{ "mf_open", { T(mf_name), T(mf_devcmd) } },
	{ "mf_open_device", { T(mf_device) } },
	{ "mf_prefix_info", ON_FD },
	{ "mf_prefix_parse", { T(mf_parse_msgs) } },
	{ "mf_pub_id", { T(mf_pub_id_msgs), T(mf_filter) } },
	{ "mf_publish", { T(mf_name), T(mf_filter) } },
	{ "mf_query", KEYS_FD },
	{ "mf_query_addrs", { T(mf_addrs_msgs), T(mf_filter) } },
	{ "mf_query_key", KEYS_FD },
	{ "mf_queryv", KEYS_FD },
	{ "mf_replace", { T(mf_replace_msgs), T(mf_devcmd) } },
	{ "mf_rotate", ON_FD },
	{ "mf_strerror", NONE },
	{ "mf_test_and_add", KEYS_FD },
	{ "mf_test_and_add_key", KEYS_FD },
	{ "mf_test_and_addv", KEYS_FD },
	{ "mf_unpublish", ON_FD },
	{ "mf_version", NONE },
	{ "mf_window_info", ON_FD },
};

static const char *mf_msg_find(const struct mf_msg *m, unsigned int n, int e)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (m[i].err == e)
			return m[i].msg;
	return NULL;
}

/* @err as a positive errno: -5 and 5 are EIO; INT_MIN is none (-1). */
static int mf_errno_of(int err)
{
	if (err == INT_MIN)
		return -1;
	return err < 0 ? -err : err;
}

const char *mf_strerror(int err)
{
	int e = mf_errno_of(err);
	const char *s = mf_msg_find(mf_any, sizeof(mf_any) / sizeof(mf_any[0]), e);

	if (s)
		return s;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)
	/* A pointer into the C library's constant table, or NULL. */
	s = e > 0 ? strerrordesc_np(e) : NULL;
	if (s)
		return s;
#endif
	return "unknown error";
}

static int mf_call_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct mf_call *)elem)->name);
}

static const struct mf_call *mf_call_find(const char *name)
{
	return name ? bsearch(name, calls, sizeof(calls) / sizeof(calls[0]),
			      sizeof(calls[0]), mf_call_cmp) : NULL;
}

bool libmf_call_known(const char *name)
{
	return mf_call_find(name);
}

const char *mf_call_strerror(const char *call, int err)
{
	const struct mf_call *c = mf_call_find(call);
	int e = mf_errno_of(err), i;
	const char *s;

	for (i = 0; c && e > 0 && i < MF_CALL_TABLES && c->t[i].m; i++) {
		s = mf_msg_find(c->t[i].m, c->t[i].n, e);
		if (s)
			return s;
	}
	return mf_strerror(err);
}
