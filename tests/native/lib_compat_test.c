// SPDX-License-Identifier: GPL-2.0
/*
 * Native tests of libmemfilter against modules older than it: a fake
 * /dev/memfilter (this program's own ioctl(), which the library's calls
 * reach instead of libc's) answers as a module of before XXH3 became the
 * default would: MEMFILTER_IOC_API without MEMFILTER_FEAT_HASH_DEFAULT_XXH3
 * and a CREATE that carries MEMFILTER_CREATE_XXH64 (a flag it does not
 * know) refused with EOPNOTSUPP, as core/filter_type.c refuses any unknown
 * flag. XXH64 asked for by name must then be created without the flag
 * (such a module hashes with XXH64 when no hash is named), every other
 * field of the request unchanged; and nothing else may be retried: not on
 * a module that knows the flag (its EOPNOTSUPP has another cause), not for
 * XXH3 or the default (an old module cannot give XXH3), not for other
 * errors. The same for mf_create(), mf_create_window() and
 * mf_create_grow().
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>

#include "kselftest_harness.h"
#include "libmemfilter.h"
#include "native_utils.h"
#include <linux/memfilter.h>

/* The fd this fake device hands out for a created filter. */
#define MF_FAKE_FILTER_FD	4242
/* Any fd: the fake never reads it. */
#define MF_FAKE_DEV_FD		777
/* CREATE requests kept for the checks. */
#define MF_FAKE_MAX		4

/* What the fake module is and what it has been asked. */
static struct {
	__u64 features;			/* MEMFILTER_IOC_API's answer */
	int create_errno;		/* CREATE's errno when it refuses */
	bool knows_xxh64;		/* the flag is known (a new module) */
	unsigned int api_calls, creates;
	struct memfilter_create req[MF_FAKE_MAX];
} fake;

/* An old module: its features, without MEMFILTER_FEAT_HASH_DEFAULT_XXH3. */
#define MF_FAKE_OLD_FEATURES	(MEMFILTER_FEAT_HASH_XXH3)

static void fake_module(bool new_module, int create_errno)
{
	memset(&fake, 0, sizeof(fake));
	fake.features = MF_FAKE_OLD_FEATURES;
	if (new_module)
		fake.features |= MEMFILTER_FEAT_HASH_DEFAULT_XXH3;
	fake.knows_xxh64 = new_module;
	fake.create_errno = create_errno;
}

/*
 * libc's ioctl(), as libmemfilter's mf_ioctl() calls it: this definition
 * in the executable is the one the library's objects, linked in, reach.
 */
int ioctl(int fd, unsigned long cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd != MF_FAKE_DEV_FD) {
		errno = EBADF;
		return -1;
	}
	if (cmd == MEMFILTER_IOC_API) {
		struct memfilter_api *a = arg;

		fake.api_calls++;
		a->features = fake.features;
		return 0;
	}
	if (cmd == MEMFILTER_IOC_CREATE) {
		struct memfilter_create *c = arg;

		if (fake.creates < MF_FAKE_MAX)
			fake.req[fake.creates] = *c;
		fake.creates++;
		if (!fake.knows_xxh64 && (c->flags & MEMFILTER_CREATE_XXH64)) {
			errno = EOPNOTSUPP;
			return -1;
		}
		if (fake.create_errno) {
			errno = fake.create_errno;
			return -1;
		}
		c->out_fd = MF_FAKE_FILTER_FD;
		return 0;
	}
	errno = ENOTTY;
	return -1;
}

/* A filter of @type made by the create call for that type. */
static int create(int type, int hash_algo)
{
	struct mf_create_opts o = {
		.sz = sizeof(o),
		.type = type,
		.capacity = 1000,
		.fpr = 0.01,
		.fixed_seed = true,
		.seed = 7,
		.name = "compat",
		.hash_algo = hash_algo,
	};
	struct mf_window_opts w = {
		.sz = sizeof(w), .generations = 4, .rotate_by_count = true,
	};

	if (type == MF_TYPE_WINDOW)
		return mf_create_window(MF_FAKE_DEV_FD, &o, &w);
	if (type == MF_TYPE_GROW)
		return mf_create_grow(MF_FAKE_DEV_FD, &o, NULL);
	return mf_create(MF_FAKE_DEV_FD, &o);
}

FIXTURE(compat) {
	int unused;
};

MF_TYPE_VARIANTS(compat);

FIXTURE_SETUP(compat) {}
FIXTURE_TEARDOWN(compat) {}

/* XXH64 by name on an old module: asked once with the flag, then without. */
TEST_F(compat, xxh64_retried_without_the_flag_on_an_old_module)
{
	struct memfilter_create first, second;

	fake_module(false, 0);
	ASSERT_EQ(MF_FAKE_FILTER_FD, create(variant->type, MF_HASH_XXH64));
	ASSERT_EQ(2, fake.creates);
	ASSERT_EQ(1, fake.api_calls);
	first = fake.req[0];
	second = fake.req[1];
	EXPECT_TRUE(first.flags & MEMFILTER_CREATE_XXH64);
	EXPECT_FALSE(second.flags & MEMFILTER_CREATE_XXH64);
	EXPECT_FALSE(second.flags & MEMFILTER_CREATE_XXH3);
	EXPECT_TRUE(second.flags & MEMFILTER_CREATE_SEED);
	/* Every other byte of the request is the first one's. */
	second.flags |= MEMFILTER_CREATE_XXH64;
	EXPECT_EQ(0, memcmp(&first, &second, sizeof(first)));
}

/* A module that knows the flag: its EOPNOTSUPP is the answer. */
TEST_F(compat, xxh64_not_retried_on_a_new_module)
{
	fake_module(true, EOPNOTSUPP);
	EXPECT_EQ(-EOPNOTSUPP, create(variant->type, MF_HASH_XXH64));
	EXPECT_EQ(1, fake.creates);
}

/* Another error from an old module is not retried either. */
TEST_F(compat, other_errors_not_retried)
{
	fake_module(false, ENOMEM);
	/* The flagged try fails first, the retry with the module's ENOMEM. */
	EXPECT_EQ(-ENOMEM, create(variant->type, MF_HASH_XXH64));
	EXPECT_EQ(2, fake.creates);
	fake_module(false, EPERM);
	EXPECT_EQ(-EPERM, create(variant->type, 0));
	EXPECT_EQ(1, fake.creates);
	EXPECT_EQ(0, fake.api_calls);
}

/* XXH3 and the default carry no XXH64 flag: one request, its answer. */
TEST_F(compat, xxh3_and_default_sent_once)
{
	fake_module(false, 0);
	EXPECT_EQ(MF_FAKE_FILTER_FD, create(variant->type, 0));
	EXPECT_EQ(1, fake.creates);
	EXPECT_FALSE(fake.req[0].flags &
		     (MEMFILTER_CREATE_XXH64 | MEMFILTER_CREATE_XXH3));
	fake_module(false, EOPNOTSUPP);
	EXPECT_EQ(-EOPNOTSUPP, create(variant->type, MF_HASH_XXH3));
	EXPECT_EQ(1, fake.creates);
	EXPECT_TRUE(fake.req[0].flags & MEMFILTER_CREATE_XXH3);
	EXPECT_EQ(0, fake.api_calls);
}

TEST_HARNESS_MAIN
