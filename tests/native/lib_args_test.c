// SPDX-License-Identifier: GPL-2.0
/*
 * Native tests of libmemfilter's argument rule, with ASan and UBSan:
 * every function exported by lib/libmemfilter.map, called with each
 * required pointer NULL and with zero or out-of-range sizes, returns
 * -EINVAL (and clears what it would have returned) instead of crashing;
 * optional pointers may be NULL; calls that need the device answer
 * sanely on a host without the module (mf_open_device(): -ENOENT; a
 * bad fd: -EBADF; an fd that is not memfilter's: -ENOTTY).
 *
 * The table of cases is checked against the version script at run time:
 * a symbol added to the map without a case here (or a case left for a
 * symbol that is gone) fails "map_and_cases_match". Each case runs in a
 * child process of its own, so a crash names its function and the other
 * cases still run.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libmemfilter.h"
#include "native_utils.h"

/* An fd that is not open: calls reach the system and get EBADF. */
#define BAD_FD (-1)

/* Failed checks of the case being run. */
static int fails;

#define WANT(call, want)						\
	do {								\
		long long r_ = (long long)(call);			\
		if (r_ != (long long)(want)) {				\
			fprintf(stderr, "#   line %d: %s = %lld, want %lld\n", \
				__LINE__, #call, r_, (long long)(want)); \
			fails++;					\
		}							\
	} while (0)

#define WANT_TRUE(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "#   line %d: %s is false\n",	\
				__LINE__, #cond);			\
			fails++;					\
		}							\
	} while (0)

static const uint64_t key8 = 42;
static const uint32_t len1[1] = { 1 };
static const uint32_t len_long[1] = { MF_KEY_MAX + 1 };

static struct mf_create_opts bloom_opts(void)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_BLOOM, .capacity = 100,
		.fpr = 0.01);
	return o;
}

static struct mf_offline *offline(int type)
{
	MF_OPTS(mf_create_opts, o, .type = type, .capacity = 100, .fpr = 0.01);
	MF_OPTS(mf_window_opts, w, .generations = 2);
	struct mf_offline *f = NULL;
	int ret = mf_test_offline(&o, &w, NULL, &f);

	if (ret) {
		fprintf(stderr, "#   cannot create a type %d filter: %d\n", type,
			ret);
		exit(2);
	}
	return f;
}

/* A valid image of an empty Bloom filter; free() it. */
static void *image(size_t *len)
{
	struct mf_offline *f = offline(MF_TYPE_BLOOM);
	void *img = NULL;

	if (mf_offline_image(f, &img, len))
		exit(2);
	mf_offline_free(f);
	return img;
}

/*
 * A name field of MF_NAME_MAX bytes without its NUL, on the heap so that
 * ASan sees a read past it: too long, never read beyond.
 */
static char *unterminated(void)
{
	char *n = malloc(MF_NAME_MAX);

	if (!n)
		exit(2);
	memset(n, 'a', MF_NAME_MAX);
	return n;
}

typedef ssize_t (*fixed_fn)(int, const void *, size_t, size_t, uint64_t *,
			    size_t *);
typedef ssize_t (*var_fn)(int, const void *, const uint32_t *, size_t,
			  uint64_t *, size_t *);

/* A fixed-size key call on an fd: NULL keys, key sizes 0 and too large. */
static void fixed_cases(fixed_fn fn)
{
	uint64_t res = ~0ULL;
	size_t done = 7;

	WANT(fn(BAD_FD, NULL, 8, 1, NULL, NULL), -EINVAL);
	WANT(fn(BAD_FD, &key8, 0, 1, &res, &done), -EINVAL);
	WANT(done, 0);
	WANT(fn(BAD_FD, &key8, MF_KEY_MAX + 1, 1, NULL, NULL), -EINVAL);
	WANT(fn(BAD_FD, NULL, 8, 0, NULL, NULL), 0);
	WANT(fn(BAD_FD, &key8, 8, 1, NULL, NULL), -EBADF);
	WANT(fn(BAD_FD, &key8, 8, 1, &res, &done), -EBADF);
	WANT(done, 0);
}

/* A variable-size key call on an fd: NULL keys, NULL lengths. */
static void var_cases(var_fn fn)
{
	size_t done = 7;

	WANT(fn(BAD_FD, NULL, len1, 1, NULL, NULL), -EINVAL);
	WANT(fn(BAD_FD, &key8, NULL, 1, NULL, &done), -EINVAL);
	WANT(done, 0);
	WANT(fn(BAD_FD, NULL, NULL, 0, NULL, NULL), 0);
	WANT(fn(BAD_FD, &key8, len1, 1, NULL, &done), -EBADF);
	WANT(done, 0);
}

static void c_mf_add(void) { fixed_cases(mf_add); }
static void c_mf_query(void) { fixed_cases(mf_query); }
static void c_mf_delete(void) { fixed_cases(mf_delete); }
static void c_mf_add_unique(void) { fixed_cases(mf_add_unique); }
static void c_mf_test_and_add(void) { fixed_cases(mf_test_and_add); }
static void c_mf_addv(void) { var_cases(mf_addv); }
static void c_mf_queryv(void) { var_cases(mf_queryv); }
static void c_mf_deletev(void) { var_cases(mf_deletev); }
static void c_mf_add_uniquev(void) { var_cases(mf_add_uniquev); }
static void c_mf_test_and_addv(void) { var_cases(mf_test_and_addv); }

static void c_mf_count(void)
{
	uint8_t counts[1] = { 9 };
	size_t done = 7;

	WANT(mf_count(BAD_FD, NULL, 8, 1, NULL, NULL), -EINVAL);
	WANT(mf_count(BAD_FD, &key8, 0, 1, counts, &done), -EINVAL);
	WANT(done, 0);
	WANT(mf_count(BAD_FD, &key8, MF_KEY_MAX + 1, 1, NULL, NULL), -EINVAL);
	WANT(mf_count(BAD_FD, NULL, 8, 0, NULL, NULL), 0);
	WANT(mf_count(BAD_FD, &key8, 8, 1, counts, &done), -EBADF);
}

static void c_mf_countv(void)
{
	WANT(mf_countv(BAD_FD, NULL, len1, 1, NULL, NULL), -EINVAL);
	WANT(mf_countv(BAD_FD, &key8, NULL, 1, NULL, NULL), -EINVAL);
	WANT(mf_countv(BAD_FD, NULL, NULL, 0, NULL, NULL), 0);
	WANT(mf_countv(BAD_FD, &key8, len1, 1, NULL, NULL), -EBADF);
}

static void c_mf_keys(void)
{
	MF_OPTS(mf_keys_opts, o, .key_size = 8);
	struct mf_keys_opts zero = { 0 };

	WANT(mf_keys(BAD_FD, MF_KEYS_ADD, &key8, 1, NULL), -EINVAL);
	WANT(mf_keys(BAD_FD, MF_KEYS_ADD, &key8, 1, &zero), -EINVAL);
	WANT(mf_keys(BAD_FD, MF_KEYS_ADD, NULL, 1, &o), -EINVAL);
	WANT(mf_keys(BAD_FD, (enum mf_keys_op)99, &key8, 1, &o), -EINVAL);
	o.lens = len1;
	WANT(mf_keys(BAD_FD, MF_KEYS_ADD, &key8, 1, &o), -EINVAL);
	o.lens = NULL;
	o.key_size = 0;
	WANT(mf_keys(BAD_FD, MF_KEYS_QUERY, &key8, 1, &o), -EINVAL);
	o.key_size = 8;
	WANT(mf_keys(BAD_FD, MF_KEYS_QUERY, &key8, 1, &o), -EBADF);
}

static void c_mf_open_device(void)
{
	int fd;

	if (!access(MF_DEVICE_PATH, F_OK) || errno != ENOENT) {
		fprintf(stderr, "#   %s exists here: not checked\n",
			MF_DEVICE_PATH);
		return;
	}
	fd = mf_open_device();
	WANT(fd, -ENOENT);
}

static void c_mf_version(void)
{
	WANT_TRUE(mf_version() && !strcmp(mf_version(), MEMFILTER_VERSION));
}

static void c_mf_strerror(void)
{
	WANT_TRUE(mf_strerror(0) && *mf_strerror(0));
	WANT_TRUE(mf_strerror(-EINVAL) && *mf_strerror(-EINVAL));
	WANT_TRUE(mf_strerror(EINVAL) && *mf_strerror(EINVAL));
}

static void c_mf_call_strerror(void)
{
	WANT_TRUE(mf_call_strerror(NULL, 0) && *mf_call_strerror(NULL, 0));
	WANT_TRUE(mf_call_strerror("", -EINVAL) == mf_strerror(-EINVAL));
	WANT_TRUE(mf_call_strerror("mf_open", 0) == mf_strerror(0));
}

static void c_mf_api(void)
{
	struct mf_api_info a;

	WANT(mf_api(BAD_FD, NULL), -EBADF);
	WANT(mf_api(BAD_FD, &a), -EBADF);
}

static void c_mf_create(void)
{
	struct mf_create_opts o = bloom_opts(), zero = { 0 };

	WANT(mf_create(BAD_FD, NULL), -EINVAL);
	WANT(mf_create(BAD_FD, &zero), -EINVAL);
	WANT(mf_create(BAD_FD, &o), -EBADF);
	o.name = unterminated();
	WANT(mf_create(BAD_FD, &o), -ENAMETOOLONG);
	free((char *)o.name);
}

static void c_mf_create_check(void)
{
	struct mf_create_opts o = bloom_opts(), zero = { 0 };
	const char *why = "unset";

	WANT(mf_create_check(NULL, NULL, NULL, &why), -EINVAL);
	WANT_TRUE(why && strcmp(why, "unset"));
	WANT(mf_create_check(&zero, NULL, NULL, NULL), -EINVAL);
	WANT(mf_create_check(&o, NULL, NULL, NULL), 0);
	o.type = MF_TYPE_WINDOW;
	WANT(mf_create_check(&o, NULL, NULL, NULL), -EINVAL);
	o.type = MF_TYPE_GROW;
	WANT(mf_create_check(&o, NULL, NULL, NULL), 0);
}

static void c_mf_create_window(void)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_WINDOW, .capacity = 10,
		.fpr = 0.01);
	MF_OPTS(mf_window_opts, w, .generations = 2);
	struct mf_window_opts wzero = { 0 };

	WANT(mf_create_window(BAD_FD, NULL, &w), -EINVAL);
	WANT(mf_create_window(BAD_FD, &o, NULL), -EINVAL);
	WANT(mf_create_window(BAD_FD, &o, &wzero), -EINVAL);
	WANT(mf_create_window(BAD_FD, &o, &w), -EBADF);
}

static void c_mf_create_grow(void)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_GROW, .capacity = 10,
		.fpr = 0.01);
	struct mf_grow_opts gzero = { 0 };

	WANT(mf_create_grow(BAD_FD, NULL, NULL), -EINVAL);
	WANT(mf_create_grow(BAD_FD, &o, &gzero), -EINVAL);
	WANT(mf_create_grow(BAD_FD, &o, NULL), -EBADF);
}

static void c_mf_open(void)
{
	char *n = unterminated();

	WANT(mf_open(BAD_FD, NULL), -EINVAL);
	WANT(mf_open(BAD_FD, ""), -EINVAL);
	WANT(mf_open(BAD_FD, "x"), -EBADF);
	WANT(mf_open(BAD_FD, n), -ENAMETOOLONG);
	free(n);
}

static void c_mf_list(void)
{
	char **names = (char **)&names;

	WANT(mf_list(BAD_FD, NULL), -EINVAL);
	WANT(mf_list(BAD_FD, &names), -EBADF);
	WANT_TRUE(!names);
}

static void c_mf_info(void)
{
	struct mf_info i;

	WANT(mf_info(BAD_FD, NULL), -EINVAL);
	WANT(mf_info(BAD_FD, &i), -EBADF);
}

static void c_mf_clear(void) { WANT(mf_clear(BAD_FD), -EBADF); }
static void c_mf_rotate(void) { WANT(mf_rotate(BAD_FD), -EBADF); }
static void c_mf_unpublish(void) { WANT(mf_unpublish(BAD_FD), -EBADF); }

static void c_mf_publish(void)
{
	char *n = unterminated();

	WANT(mf_publish(BAD_FD, NULL), -EINVAL);
	WANT(mf_publish(BAD_FD, ""), -EINVAL);
	WANT(mf_publish(BAD_FD, "x"), -EBADF);
	WANT(mf_publish(BAD_FD, n), -ENAMETOOLONG);
	free(n);
}

static void c_mf_replace(void)
{
	char *n = unterminated();

	WANT(mf_replace(BAD_FD, NULL, BAD_FD, 0), -EINVAL);
	WANT(mf_replace(BAD_FD, "", BAD_FD, 0), -EINVAL);
	WANT(mf_replace(BAD_FD, "x", BAD_FD, ~MF_REPLACE_PUBLISH), -EINVAL);
	WANT(mf_replace(BAD_FD, "x", BAD_FD, 0), -EBADF);
	WANT(mf_replace(BAD_FD, "x", BAD_FD, MF_REPLACE_PUBLISH), -EBADF);
	WANT(mf_replace(BAD_FD, n, BAD_FD, 0), -ENAMETOOLONG);
	free(n);
}

static void c_mf_exchange(void)
{
	char *n = unterminated();

	WANT(mf_exchange(BAD_FD, NULL, "y"), -EINVAL);
	WANT(mf_exchange(BAD_FD, "x", NULL), -EINVAL);
	WANT(mf_exchange(BAD_FD, "", "y"), -EINVAL);
	WANT(mf_exchange(BAD_FD, "x", ""), -EINVAL);
	WANT(mf_exchange(BAD_FD, "x", "y"), -EBADF);
	WANT(mf_exchange(BAD_FD, n, "y"), -ENAMETOOLONG);
	WANT(mf_exchange(BAD_FD, "x", n), -ENAMETOOLONG);
	free(n);
}

static void c_mf_dump(void)
{
	void *img = &img;
	size_t len = 7;

	WANT(mf_dump(BAD_FD, NULL, NULL), -EINVAL);
	WANT(mf_dump(BAD_FD, &img, NULL), -EINVAL);
	WANT_TRUE(!img);
	WANT(mf_dump(BAD_FD, NULL, &len), -EINVAL);
	WANT(len, 0);
	img = &img;
	len = 7;
	WANT(mf_dump(BAD_FD, &img, &len), -EBADF);
	WANT_TRUE(!img && !len);
}

static void c_mf_load(void)
{
	size_t len;
	void *img = image(&len);
	char *name;

	WANT(mf_load(BAD_FD, NULL, 0, NULL), -EINVAL);
	WANT(mf_load(BAD_FD, NULL, len, NULL), -EINVAL);
	WANT(mf_load(BAD_FD, img, len, NULL), -EBADF);
	name = unterminated();
	WANT(mf_load(BAD_FD, img, len, name), -ENAMETOOLONG);
	free(name);
	free(img);
}

static void c_mf_window_info(void)
{
	MF_OPTS(mf_window_info, wi);
	struct mf_window_info zero = { 0 };

	WANT(mf_window_info(BAD_FD, NULL), -EINVAL);
	WANT(mf_window_info(BAD_FD, &zero), -EINVAL);
	WANT(mf_window_info(BAD_FD, &wi), -EBADF);
}

static void c_mf_grow_info(void)
{
	MF_OPTS(mf_grow_info, gi);
	struct mf_grow_info zero = { 0 };

	WANT(mf_grow_info(BAD_FD, NULL), -EINVAL);
	WANT(mf_grow_info(BAD_FD, &zero), -EINVAL);
	WANT(mf_grow_info(BAD_FD, &gi), -EBADF);
}

static void c_mf_pub_id(void)
{
	uint32_t id;

	WANT(mf_pub_id(BAD_FD, NULL), -EINVAL);
	WANT(mf_pub_id(BAD_FD, &id), -EBADF);
}

static void c_mf_layout(void)
{
	WANT(mf_layout(BAD_FD), -EBADF);
}

static void c_mf_offline_layout(void)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_BLOOM, .capacity = 1000,
		.bits_per_key = 8, .layout = MF_LAYOUT_SPLIT32);
	struct mf_offline *f;

	WANT(mf_offline_layout(NULL), -EINVAL);
	WANT(mf_offline_create(&o, &f), 0);
	WANT(mf_offline_layout(f), MF_LAYOUT_SPLIT32);
	mf_offline_free(f);
}

static void c_mf_nf_attach(void)
{
	MF_OPTS(mf_nf_attach_opts, o, .family = MF_NF_IPV4,
		.hook = MF_NF_INPUT, .key = MF_NF_KEY_SADDR,
		.action = MF_NF_COUNT);
	char *n;

	WANT(mf_nf_attach(BAD_FD, NULL, &o), -EINVAL);
	WANT(mf_nf_attach(BAD_FD, "", &o), -EINVAL);
	WANT(mf_nf_attach(BAD_FD, "x", NULL), -EINVAL);
	WANT(mf_nf_attach(BAD_FD, "x", &o), -EBADF);
	n = unterminated();
	WANT(mf_nf_attach(BAD_FD, n, &o), -ENAMETOOLONG);
	free(n);
}

static void c_mf_nf_detach(void) { WANT(mf_nf_detach(BAD_FD, 1), -EBADF); }

static void c_mf_nf_list(void)
{
	struct mf_nf_entry e[2];

	WANT(mf_nf_list(BAD_FD, NULL, 1), -EINVAL);
	WANT(mf_nf_list(BAD_FD, NULL, 0), -EBADF);
	WANT(mf_nf_list(BAD_FD, e, 2), -EBADF);
}

static void c_mf_nf_stats(void)
{
	struct mf_nf_entry e;

	WANT(mf_nf_stats(BAD_FD, 1, NULL), -EINVAL);
	WANT(mf_nf_stats(BAD_FD, 1, &e), -EBADF);
}

/* mf_offline_create*(): NULL options or out pointer, zero options. */
static void c_mf_offline_create(void)
{
	struct mf_create_opts o = bloom_opts(), zero = { 0 };
	struct mf_offline *f = (struct mf_offline *)&f;

	WANT(mf_offline_create(NULL, &f), -EINVAL);
	WANT_TRUE(!f);
	WANT(mf_offline_create(&o, NULL), -EINVAL);
	WANT(mf_offline_create(&zero, &f), -EINVAL);
	WANT(mf_offline_create(&o, &f), 0);
	mf_offline_free(f);
}

static void c_mf_offline_create_window(void)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_WINDOW, .capacity = 10,
		.fpr = 0.01);
	MF_OPTS(mf_window_opts, w, .generations = 2);
	struct mf_window_opts wzero = { 0 };
	struct mf_offline *f = (struct mf_offline *)&f;

	WANT(mf_offline_create_window(NULL, &w, &f), -EINVAL);
	WANT_TRUE(!f);
	WANT(mf_offline_create_window(&o, NULL, &f), -EINVAL);
	WANT(mf_offline_create_window(&o, &wzero, &f), -EINVAL);
	WANT(mf_offline_create_window(&o, &w, NULL), -EINVAL);
	WANT(mf_offline_create_window(&o, &w, &f), 0);
	mf_offline_free(f);
}

static void c_mf_offline_create_grow(void)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_GROW, .capacity = 10,
		.fpr = 0.01);
	struct mf_grow_opts gzero = { 0 };
	struct mf_offline *f = (struct mf_offline *)&f;

	WANT(mf_offline_create_grow(NULL, NULL, &f), -EINVAL);
	WANT_TRUE(!f);
	WANT(mf_offline_create_grow(&o, &gzero, &f), -EINVAL);
	WANT(mf_offline_create_grow(&o, NULL, NULL), -EINVAL);
	WANT(mf_offline_create_grow(&o, NULL, &f), 0);
	mf_offline_free(f);
}

static void c_mf_offline_free(void)
{
	mf_offline_free(NULL);
}

static void c_mf_offline_rotate(void)
{
	struct mf_offline *b = offline(MF_TYPE_BLOOM);
	struct mf_offline *w = offline(MF_TYPE_WINDOW);

	WANT(mf_offline_rotate(NULL), -EINVAL);
	WANT(mf_offline_rotate(b), -EOPNOTSUPP);
	WANT(mf_offline_rotate(w), 0);
	mf_offline_free(b);
	mf_offline_free(w);
}

static void c_mf_offline_window_info(void)
{
	struct mf_offline *w = offline(MF_TYPE_WINDOW);
	MF_OPTS(mf_window_info, wi);
	struct mf_window_info zero = { 0 };

	WANT(mf_offline_window_info(NULL, &wi), -EINVAL);
	WANT(mf_offline_window_info(w, NULL), -EINVAL);
	WANT(mf_offline_window_info(w, &zero), -EINVAL);
	WANT(mf_offline_window_info(w, &wi), 0);
	mf_offline_free(w);
}

static void c_mf_offline_grow_info(void)
{
	struct mf_offline *g = offline(MF_TYPE_GROW);
	MF_OPTS(mf_grow_info, gi);
	struct mf_grow_info zero = { 0 };

	WANT(mf_offline_grow_info(NULL, &gi), -EINVAL);
	WANT(mf_offline_grow_info(g, NULL), -EINVAL);
	WANT(mf_offline_grow_info(g, &zero), -EINVAL);
	WANT(mf_offline_grow_info(g, &gi), 0);
	mf_offline_free(g);
}

static void c_mf_offline_from_image(void)
{
	struct mf_offline *f = (struct mf_offline *)&f;
	const char *why = "unset";
	size_t len;
	void *img = image(&len);

	WANT(mf_offline_from_image(NULL, 0, &f, &why), -EINVAL);
	WANT_TRUE(!f && !why);
	WANT(mf_offline_from_image(NULL, len, &f, NULL), -EINVAL);
	WANT(mf_offline_from_image(img, len, NULL, &why), -EINVAL);
	WANT(mf_offline_from_image(img, 0, &f, &why), -EBADMSG);
	WANT_TRUE(!f && why);
	WANT(mf_offline_from_image(img, len, &f, NULL), 0);
	mf_offline_free(f);
	free(img);
}

static void c_mf_image_read(void)
{
	const char *why = "unset";
	void *img = &img;
	size_t len = 7;

	WANT(mf_image_read(BAD_FD, NULL, NULL, NULL), -EINVAL);
	WANT(mf_image_read(BAD_FD, &img, NULL, &why), -EINVAL);
	WANT_TRUE(!img && !why);
	WANT(mf_image_read(BAD_FD, NULL, &len, NULL), -EINVAL);
	WANT(len, 0);
	WANT(mf_image_read(BAD_FD, &img, &len, &why), -EBADF);
	WANT_TRUE(!img && !len && !why);
}

static void c_mf_offline_image(void)
{
	struct mf_offline *f = offline(MF_TYPE_BLOOM);
	void *img = &img;
	size_t len = 7;

	WANT(mf_offline_image(NULL, &img, &len), -EINVAL);
	WANT_TRUE(!img && !len);
	WANT(mf_offline_image(f, NULL, &len), -EINVAL);
	WANT(mf_offline_image(f, &img, NULL), -EINVAL);
	WANT(mf_offline_image(f, &img, &len), 0);
	free(img);
	mf_offline_free(f);
}

static void c_mf_offline_image_view(void)
{
	struct mf_offline *f = offline(MF_TYPE_BLOOM);
	unsigned char hdr[MF_IMAGE_HDR_SIZE];
	const void *payload = &payload;
	size_t len = 7;

	WANT(mf_offline_image_view(NULL, hdr, &payload, &len), -EINVAL);
	WANT_TRUE(!payload && !len);
	WANT(mf_offline_image_view(f, NULL, &payload, &len), -EINVAL);
	WANT(mf_offline_image_view(f, hdr, NULL, &len), -EINVAL);
	WANT(mf_offline_image_view(f, hdr, &payload, NULL), -EINVAL);
	WANT(mf_offline_image_view(f, hdr, &payload, &len), 0);
	WANT_TRUE(payload && len);
	mf_offline_free(f);
}

static void c_mf_offline_map(void)
{
	struct mf_offline *f = (void *)&f;
	char path[] = "/tmp/mf_args_map.XXXXXX";
	const char *why = "x";
	size_t len;
	void *img = image(&len);
	int p[2], fd;

	WANT(mf_offline_map(BAD_FD, NULL, NULL), -EINVAL);
	WANT(mf_offline_map(BAD_FD, &f, &why), -EBADF);
	WANT_TRUE(!f);
	WANT_TRUE(!pipe(p));
	WANT(mf_offline_map(p[0], &f, NULL), -ENODEV);
	close(p[0]);
	close(p[1]);
	/* An image file open write-only or O_PATH: unreadable, not corrupt. */
	fd = mkstemp(path);
	WANT_TRUE(fd >= 0 && write(fd, img, len) == (ssize_t)len);
	close(fd);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	why = "x";
	WANT(mf_offline_map(fd, &f, &why), -EBADF);
	WANT_TRUE(!f && !why);
	close(fd);
	fd = open(path, O_PATH | O_CLOEXEC);
	WANT(mf_offline_map(fd, &f, &why), -EBADF);
	close(fd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	WANT(mf_offline_map(fd, &f, &why), 0);
	mf_offline_free(f);
	close(fd);
	unlink(path);
	free(img);
}

static void c_mf_offline_size(void)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_BLOOM, .capacity = 1000,
		.bits_per_key = 8);
	uint64_t bytes = 7;

	WANT(mf_offline_size(NULL, NULL, NULL, &bytes), -EINVAL);
	WANT(bytes, 0);
	WANT(mf_offline_size(&o, NULL, NULL, NULL), -EINVAL);
	WANT(mf_offline_size(&o, NULL, NULL, &bytes), 0);
	WANT_TRUE(bytes >= 1000);
}

static void c_mf_offline_info(void)
{
	struct mf_offline *f = offline(MF_TYPE_BLOOM);
	struct mf_info i;

	WANT(mf_offline_info(NULL, &i), -EINVAL);
	WANT(mf_offline_info(f, NULL), -EINVAL);
	WANT(mf_offline_info(f, &i), 0);
	mf_offline_free(f);
}

static void c_mf_offline_keys(void)
{
	struct mf_offline *f = offline(MF_TYPE_BLOOM);
	MF_OPTS(mf_keys_opts, o, .key_size = 8);
	struct mf_keys_opts zero = { 0 };

	WANT(mf_offline_keys(NULL, MF_KEYS_ADD, &key8, 1, &o), -EINVAL);
	WANT(mf_offline_keys(f, MF_KEYS_ADD, &key8, 1, NULL), -EINVAL);
	WANT(mf_offline_keys(f, MF_KEYS_ADD, &key8, 1, &zero), -EINVAL);
	WANT(mf_offline_keys(f, MF_KEYS_ADD, NULL, 1, &o), -EINVAL);
	WANT(mf_offline_keys(f, (enum mf_keys_op)99, &key8, 1, &o), -EINVAL);
	WANT(mf_offline_keys(f, MF_KEYS_ADD, &key8, 1, &o), 1);
	mf_offline_free(f);
}

typedef ssize_t (*ofixed_fn)(struct mf_offline *, const void *, size_t,
			     size_t, uint64_t *, size_t *);
typedef ssize_t (*ovar_fn)(struct mf_offline *, const void *,
			   const uint32_t *, size_t, uint64_t *, size_t *);

/* An offline fixed-size key call on a filter of @type, which has it. */
static void ofixed_cases(ofixed_fn fn, int type)
{
	struct mf_offline *f = offline(type);
	uint64_t res = ~0ULL;
	size_t done = 7;

	WANT(fn(NULL, &key8, 8, 1, NULL, &done), -EINVAL);
	WANT(done, 0);
	WANT(fn(f, NULL, 8, 1, NULL, NULL), -EINVAL);
	WANT(fn(f, &key8, 0, 1, &res, &done), -EINVAL);
	WANT(fn(f, &key8, MF_KEY_MAX + 1, 1, NULL, NULL), -EINVAL);
	WANT(fn(f, NULL, 8, 0, NULL, NULL), 0);
	WANT_TRUE(fn(f, &key8, 8, 1, NULL, NULL) >= 0);
	mf_offline_free(f);
}

static void ovar_cases(ovar_fn fn, int type)
{
	struct mf_offline *f = offline(type);
	size_t done = 7;

	WANT(fn(NULL, &key8, len1, 1, NULL, &done), -EINVAL);
	WANT(done, 0);
	WANT(fn(f, NULL, len1, 1, NULL, NULL), -EINVAL);
	WANT(fn(f, &key8, NULL, 1, NULL, NULL), -EINVAL);
	WANT(fn(f, &key8, len_long, 1, NULL, NULL), -EINVAL);
	WANT(fn(f, NULL, NULL, 0, NULL, NULL), 0);
	WANT_TRUE(fn(f, &key8, len1, 1, NULL, NULL) >= 0);
	mf_offline_free(f);
}

static ssize_t oquery(struct mf_offline *f, const void *k, size_t ks,
		      size_t n, uint64_t *r, size_t *d)
{
	return mf_offline_query(f, k, ks, n, r, d);
}

static ssize_t oqueryv(struct mf_offline *f, const void *k,
		       const uint32_t *l, size_t n, uint64_t *r, size_t *d)
{
	return mf_offline_queryv(f, k, l, n, r, d);
}

static ssize_t ocount(struct mf_offline *f, const void *k, size_t ks,
		      size_t n, uint64_t *r, size_t *d)
{
	return mf_offline_count(f, k, ks, n, NULL, d);
}

static ssize_t ocountv(struct mf_offline *f, const void *k,
		       const uint32_t *l, size_t n, uint64_t *r, size_t *d)
{
	return mf_offline_countv(f, k, l, n, NULL, d);
}

#define C MF_TYPE_CUCKOO
#define B MF_TYPE_BLOOM
static void c_mf_offline_add(void) { ofixed_cases(mf_offline_add, C); }
static void c_mf_offline_query(void) { ofixed_cases(oquery, C); }
static void c_mf_offline_delete(void) { ofixed_cases(mf_offline_delete, C); }
static void c_mf_offline_count(void) { ofixed_cases(ocount, C); }
static void c_mf_offline_test_and_add(void) { ofixed_cases(mf_offline_test_and_add, B); }
static void c_mf_offline_addv(void) { ovar_cases(mf_offline_addv, C); }
static void c_mf_offline_queryv(void) { ovar_cases(oqueryv, C); }
static void c_mf_offline_deletev(void) { ovar_cases(mf_offline_deletev, C); }
static void c_mf_offline_countv(void) { ovar_cases(ocountv, C); }
static void c_mf_offline_test_and_addv(void) { ovar_cases(mf_offline_test_and_addv, B); }

typedef int (*key_fn)(int, const void *, size_t);
typedef int (*okey_fn)(struct mf_offline *, const void *, size_t);

/* A single-key call on an fd: a NULL key with a length, too long. */
static void key_cases(key_fn fn)
{
	WANT(fn(BAD_FD, NULL, 1), -EINVAL);
	WANT(fn(BAD_FD, &key8, MF_KEY_MAX + 1), -EINVAL);
	WANT(fn(BAD_FD, NULL, 0), -EBADF);
	WANT(fn(BAD_FD, &key8, 8), -EBADF);
}

static void okey_cases(okey_fn fn, int type)
{
	struct mf_offline *f = offline(type);

	WANT(fn(NULL, &key8, 8), -EINVAL);
	WANT(fn(f, NULL, 1), -EINVAL);
	WANT(fn(f, &key8, MF_KEY_MAX + 1), -EINVAL);
	WANT_TRUE(fn(f, NULL, 0) >= 0);
	WANT_TRUE(fn(f, &key8, 8) >= 0);
	mf_offline_free(f);
}

static int oquery_key(struct mf_offline *f, const void *k, size_t l)
{
	return mf_offline_query_key(f, k, l);
}

static int ocount_key(struct mf_offline *f, const void *k, size_t l)
{
	return mf_offline_count_key(f, k, l);
}

static void c_mf_add_key(void) { key_cases(mf_add_key); }
static void c_mf_query_key(void) { key_cases(mf_query_key); }
static void c_mf_delete_key(void) { key_cases(mf_delete_key); }
static void c_mf_add_unique_key(void) { key_cases(mf_add_unique_key); }
static void c_mf_test_and_add_key(void) { key_cases(mf_test_and_add_key); }
static void c_mf_count_key(void) { key_cases(mf_count_key); }
static void c_mf_offline_add_key(void) { okey_cases(mf_offline_add_key, C); }
static void c_mf_offline_query_key(void) { okey_cases(oquery_key, C); }
static void c_mf_offline_delete_key(void) { okey_cases(mf_offline_delete_key, C); }
static void c_mf_offline_add_unique_key(void) { okey_cases(mf_offline_add_unique_key, C); }
static void c_mf_offline_test_and_add_key(void) { okey_cases(mf_offline_test_and_add_key, B); }
static void c_mf_offline_count_key(void) { okey_cases(ocount_key, C); }

static void c_mf_offline_save(void)
{
	struct mf_offline *f = offline(MF_TYPE_BLOOM);

	WANT(mf_offline_save(NULL, "/nonexistent/x"), -EINVAL);
	WANT(mf_offline_save(f, NULL), -EINVAL);
	WANT(mf_offline_save(f, ""), -ENOENT);
	WANT(mf_offline_save(f, "/nonexistent/x"), -ENOENT);
	mf_offline_free(f);
}

static void c_mf_offline_load(void)
{
	struct mf_offline *f = (struct mf_offline *)&f;
	const char *why = "unset";

	WANT(mf_offline_load(NULL, &f, &why), -EINVAL);
	WANT_TRUE(!f && !why);
	WANT(mf_offline_load("/nonexistent", NULL, NULL), -EINVAL);
	WANT(mf_offline_load("/nonexistent", &f, &why), -ENOENT);
	WANT_TRUE(!f && !why);
	WANT(mf_offline_load("", &f, NULL), -ENOENT);
	WANT(mf_offline_load("/", &f, NULL), -EISDIR);
}

static void c_mf_image_merge(void)
{
	const char *why = "unset";
	void *out = &out;
	size_t len, out_len = 7;
	void *img = image(&len);

	WANT(mf_image_merge(NULL, 0, NULL, 0, NULL, NULL, NULL), -EINVAL);
	WANT(mf_image_merge(img, len, img, len, NULL, &out_len, &why), -EINVAL);
	WANT_TRUE(!out_len && !why);
	WANT(mf_image_merge(img, len, img, len, &out, NULL, NULL), -EINVAL);
	WANT_TRUE(!out);
	WANT(mf_image_merge(NULL, 0, img, len, &out, &out_len, NULL), -EINVAL);
	WANT(mf_image_merge(img, len, NULL, len, &out, &out_len, NULL), -EINVAL);
	WANT(mf_image_merge(img, len, img, len, &out, &out_len, NULL), 0);
	free(out);
	free(img);
}

static void c_mf_offline_merge(void)
{
	struct mf_offline *f = offline(MF_TYPE_BLOOM);
	struct mf_offline *c = offline(MF_TYPE_CUCKOO);
	const char *why = "unset";

	WANT(mf_offline_merge(NULL, NULL, NULL), -EINVAL);
	WANT(mf_offline_merge(NULL, f, &why), -EINVAL);
	WANT_TRUE(!why);
	WANT(mf_offline_merge(f, NULL, &why), -EINVAL);
	WANT(mf_offline_merge(f, c, &why), -EINVAL);
	WANT_TRUE(why != NULL);
	WANT(mf_offline_merge(f, f, &why), 0);
	WANT_TRUE(!why);
	mf_offline_free(f);
	mf_offline_free(c);
}

/* A prefix: 10.0.0.0/8. */
static struct mf_prefix prefix8(void)
{
	struct mf_prefix p = { .family = MF_PREFIX_IPV4, .length = 8,
			       .addr = { 10 } };

	return p;
}

/* An address: 192.0.2.1. */
static struct mf_prefix addr32(void)
{
	struct mf_prefix a = { .family = MF_PREFIX_IPV4, .length = 32,
			       .addr = { 192, 0, 2, 1 } };

	return a;
}

/* An offline prefix filter of Bloom type. */
static struct mf_offline *offline_prefixes(void)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_BLOOM, .capacity = 100,
		.fpr = 0.01, .prefixes = true);
	struct mf_offline *f = NULL;

	if (mf_offline_create(&o, &f))
		exit(2);
	return f;
}

static void c_mf_prefix_parse(void)
{
	const char *why = "unset";
	struct mf_prefix p;

	WANT(mf_prefix_parse(NULL, 0, &p, &why), -EINVAL);
	WANT_TRUE(why != NULL);
	WANT(mf_prefix_parse("10.0.0.0/8", 10, NULL, &why), -EINVAL);
	WANT(mf_prefix_parse("10.0.0.0/8", 10, &p, NULL), 0);
	WANT(mf_prefix_parse("10.0.0.0/8", 10, &p, &why), 0);
	WANT_TRUE(why == NULL);
}

static void c_mf_add_prefixes(void)
{
	struct mf_prefix p = prefix8();
	uint64_t res = ~0ULL;
	size_t done = 7;

	WANT(mf_add_prefixes(BAD_FD, NULL, 1, NULL, &done), -EINVAL);
	WANT(done, 0);
	WANT(mf_add_prefixes(BAD_FD, NULL, 0, NULL, NULL), 0);
	WANT(mf_add_prefixes(BAD_FD, &p, 1, &res, &done), -EBADF);
	WANT(done, 0);
}

static void c_mf_query_addrs(void)
{
	struct mf_prefix a = addr32(), p = prefix8();
	size_t done = 7;

	WANT(mf_query_addrs(BAD_FD, NULL, 1, NULL, &done), -EINVAL);
	WANT(done, 0);
	WANT(mf_query_addrs(BAD_FD, &p, 1, NULL, NULL), -EINVAL);
	WANT(mf_query_addrs(BAD_FD, NULL, 0, NULL, NULL), 0);
	WANT(mf_query_addrs(BAD_FD, &a, 1, NULL, &done), -EBADF);
	WANT(done, 0);
}

static void c_mf_prefix_info(void)
{
	MF_OPTS(mf_prefix_info, pi);
	struct mf_prefix_info zero = { 0 };

	WANT(mf_prefix_info(BAD_FD, NULL), -EINVAL);
	WANT(mf_prefix_info(BAD_FD, &zero), -EINVAL);
	WANT(mf_prefix_info(BAD_FD, &pi), -EBADF);
}

static void c_mf_offline_add_prefixes(void)
{
	struct mf_offline *f = offline_prefixes();
	struct mf_prefix p = prefix8();
	size_t done = 7;

	WANT(mf_offline_add_prefixes(NULL, &p, 1, NULL, &done), -EINVAL);
	WANT(done, 0);
	WANT(mf_offline_add_prefixes(f, NULL, 1, NULL, NULL), -EINVAL);
	WANT(mf_offline_add_prefixes(f, NULL, 0, NULL, NULL), 0);
	WANT(mf_offline_add_prefixes(f, &p, 1, NULL, &done), 1);
	WANT(done, 1);
	mf_offline_free(f);
}

static void c_mf_offline_query_addrs(void)
{
	struct mf_offline *f = offline_prefixes();
	struct mf_prefix a = addr32();
	size_t done = 7;

	WANT(mf_offline_query_addrs(NULL, &a, 1, NULL, &done), -EINVAL);
	WANT(done, 0);
	WANT(mf_offline_query_addrs(f, NULL, 1, NULL, NULL), -EINVAL);
	WANT(mf_offline_query_addrs(f, NULL, 0, NULL, NULL), 0);
	WANT(mf_offline_query_addrs(f, &a, 1, NULL, &done), 0);
	WANT(done, 1);
	mf_offline_free(f);
}

static void c_mf_offline_prefix_info(void)
{
	struct mf_offline *f = offline_prefixes();
	MF_OPTS(mf_prefix_info, pi);
	struct mf_prefix_info zero = { 0 };

	WANT(mf_offline_prefix_info(NULL, &pi), -EINVAL);
	WANT(mf_offline_prefix_info(f, NULL), -EINVAL);
	WANT(mf_offline_prefix_info(f, &zero), -EINVAL);
	WANT(mf_offline_prefix_info(f, &pi), 0);
	WANT(pi.prefix_lengths, MF_PREFIX_LENGTHS_DEFAULT);
	mf_offline_free(f);
}

struct args_case {
	const char *name;
	void (*run)(void);
};

#define CASE(fn) { #fn, c_##fn }

/* One case per symbol of lib/libmemfilter.map. */
static const struct args_case cases[] = {
	CASE(mf_add_key), CASE(mf_query_key), CASE(mf_delete_key),
	CASE(mf_add_unique_key), CASE(mf_test_and_add_key), CASE(mf_count_key),
	CASE(mf_offline_add_key), CASE(mf_offline_query_key),
	CASE(mf_offline_delete_key), CASE(mf_offline_add_unique_key),
	CASE(mf_offline_test_and_add_key), CASE(mf_offline_count_key),
	CASE(mf_offline_test_and_add), CASE(mf_offline_test_and_addv),
	CASE(mf_offline_save), CASE(mf_offline_load),
	CASE(mf_add), CASE(mf_add_prefixes), CASE(mf_add_unique),
	CASE(mf_add_uniquev),
	CASE(mf_addv), CASE(mf_api), CASE(mf_call_strerror), CASE(mf_clear),
	CASE(mf_count), CASE(mf_countv), CASE(mf_create), CASE(mf_create_check),
	CASE(mf_create_grow),
	CASE(mf_create_window), CASE(mf_delete), CASE(mf_deletev),
	CASE(mf_dump), CASE(mf_exchange), CASE(mf_grow_info),
	CASE(mf_image_merge), CASE(mf_image_read), CASE(mf_info),
	CASE(mf_keys), CASE(mf_layout), CASE(mf_list),
	CASE(mf_load), CASE(mf_nf_attach), CASE(mf_nf_detach),
	CASE(mf_nf_list), CASE(mf_nf_stats), CASE(mf_offline_add),
	CASE(mf_offline_add_prefixes), CASE(mf_offline_addv),
	CASE(mf_offline_count),
	CASE(mf_offline_countv), CASE(mf_offline_create),
	CASE(mf_offline_create_grow), CASE(mf_offline_create_window),
	CASE(mf_offline_delete), CASE(mf_offline_deletev),
	CASE(mf_offline_free), CASE(mf_offline_from_image),
	CASE(mf_offline_grow_info), CASE(mf_offline_image),
	CASE(mf_offline_image_view), CASE(mf_offline_layout), CASE(mf_offline_map),
	CASE(mf_offline_merge), CASE(mf_offline_size),
	CASE(mf_offline_info), CASE(mf_offline_keys),
	CASE(mf_offline_prefix_info), CASE(mf_offline_query),
	CASE(mf_offline_query_addrs), CASE(mf_offline_queryv),
	CASE(mf_offline_rotate), CASE(mf_offline_window_info),
	CASE(mf_open), CASE(mf_open_device), CASE(mf_prefix_info),
	CASE(mf_prefix_parse), CASE(mf_pub_id), CASE(mf_publish),
	CASE(mf_query), CASE(mf_query_addrs), CASE(mf_queryv), CASE(mf_replace),
	CASE(mf_rotate),
	CASE(mf_strerror), CASE(mf_test_and_add), CASE(mf_test_and_addv),
	CASE(mf_unpublish), CASE(mf_version), CASE(mf_window_info),
};

#define NCASES (sizeof(cases) / sizeof(cases[0]))

TEST(map_and_cases_match)
{
	static char names[MF_MAP_MAX][MF_MAP_NAME];
	int n = mf_test_map_symbols(MF_MAP_PATH, names, MF_MAP_MAX), i;
	size_t c;
	bool ok = true;

	ASSERT_LT(0, n) TH_LOG("cannot read %s", MF_MAP_PATH);
	ASSERT_LT(n, MF_MAP_MAX);
	for (i = 0; i < n; i++) {
		for (c = 0; c < NCASES && strcmp(cases[c].name, names[i]); c++)
			;
		if (c == NCASES) {
			TH_LOG("%s is exported but has no case here", names[i]);
			ok = false;
		}
	}
	for (c = 0; c < NCASES; c++) {
		for (i = 0; i < n && strcmp(cases[c].name, names[i]); i++)
			;
		if (i == n) {
			TH_LOG("case %s: no such symbol in the map", cases[c].name);
			ok = false;
		}
	}
	EXPECT_TRUE(ok);
}

TEST(null_and_zero_arguments)
{
	int failed = 0, status;
	size_t c;
	pid_t pid;

	for (c = 0; c < NCASES; c++) {
		fflush(NULL);
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			fails = 0;
			cases[c].run();
			exit(fails ? 1 : 0);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		if (WIFSIGNALED(status)) {
			TH_LOG("%s: killed by signal %d", cases[c].name,
			       WTERMSIG(status));
			failed++;
		} else if (WEXITSTATUS(status)) {
			TH_LOG("%s: failed (a check above, or a sanitizer: exit status %d)",
			       cases[c].name, WEXITSTATUS(status));
			failed++;
		}
	}
	EXPECT_EQ(0, failed);
}

/* The device calls on an fd that is a file but not memfilter's. */
TEST(device_calls_on_a_foreign_fd)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_BLOOM, .capacity = 10,
		.fpr = 0.01);
	struct mf_info i;
	size_t len = 7;
	void *img;

	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENOTTY, mf_api(fd, NULL));
	EXPECT_EQ(-ENOTTY, mf_create(fd, &o));
	EXPECT_EQ(-ENOTTY, mf_info(fd, &i));
	EXPECT_EQ(-ENOTTY, mf_add(fd, &key8, 8, 1, NULL, NULL));
	EXPECT_EQ(-EBADMSG, mf_dump(fd, &img, &len));
	EXPECT_EQ(NULL, img);
	EXPECT_EQ(0, len);
	close(fd);
}

TEST_HARNESS_MAIN
