// SPDX-License-Identifier: GPL-2.0
/*
 * Native tests of libmemfilter's messages, mf_strerror() and
 * mf_call_strerror(): every code from -4200 to 4200 and INT_MIN/INT_MAX
 * gets a static string that no later call changes, from any thread;
 * positive codes read as their negative; errnos memfilter gives no meaning
 * of its own read as the C library describes them; each call's errnos
 * read in its terms (-EBADF from mf_image_read(-1, ...) is a bad file
 * descriptor, not a filter; mf_open_device() on a host without the module
 * says so); every function of the version script is known to
 * mf_call_strerror().
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "kselftest_harness.h"
#include "libmemfilter.h"
#include "native_utils.h"

#define LO (-4200)
#define HI 4200
#define NCODES (HI - LO + 1)

/* Every code's message and a copy of its text, taken first. */
static const char *msg[NCODES];
static char *text[NCODES];

static void take_all(void)
{
	int e;

	for (e = LO; e <= HI; e++) {
		msg[e - LO] = mf_strerror(e);
		text[e - LO] = strdup(msg[e - LO]);
	}
}

TEST(static_strings_no_call_changes)
{
	int e;

	take_all();
	/* Every message again, in another order, then the first ones. */
	for (e = HI; e >= LO; e--)
		ASSERT_NE(NULL, mf_strerror(e));
	ASSERT_NE(NULL, mf_strerror(INT_MIN));
	ASSERT_NE(NULL, mf_strerror(INT_MAX));
	for (e = LO; e <= HI; e++) {
		ASSERT_STREQ(text[e - LO], msg[e - LO]) TH_LOG("code %d", e);
		ASSERT_EQ(msg[e - LO], mf_strerror(e)) TH_LOG("code %d", e);
		ASSERT_NE(0, strlen(msg[e - LO]));
	}
}

TEST(positive_is_negative)
{
	int e;

	for (e = 1; e <= HI; e++) {
		ASSERT_EQ(mf_strerror(-e), mf_strerror(e)) TH_LOG("code %d", e);
		ASSERT_EQ(NULL, strstr(mf_strerror(e), "Unknown error"));
	}
	EXPECT_STREQ("success", mf_strerror(0));
	EXPECT_STREQ("unknown error", mf_strerror(INT_MIN));
	EXPECT_STREQ("unknown error", mf_strerror(INT_MAX));
	EXPECT_STREQ("unknown error", mf_strerror(-4095));
}

/* Errnos with no memfilter meaning: the C library's text, not its buffer. */
TEST(plain_errnos_read_as_libc)
{
	EXPECT_STREQ(strerrordesc_np(EIO), mf_strerror(-EIO));
	EXPECT_STREQ(strerrordesc_np(EROFS), mf_strerror(-EROFS));
	EXPECT_STREQ(strerrordesc_np(ELOOP), mf_strerror(ELOOP));
	EXPECT_STREQ("bad file descriptor, or one not open for writing",
		     mf_strerror(-EBADF));
}

static void *from_thread(void *arg)
{
	long bad = 0;
	int round, e;

	for (round = 0; round < 20; round++)
		for (e = LO; e <= HI; e++)
			bad += mf_strerror(e) != msg[e - LO] ||
			       strcmp(mf_strerror(e), text[e - LO]) ||
			       mf_call_strerror("mf_add", e) !=
			       mf_call_strerror("mf_add", e);
	return (void *)bad;
}

TEST(threads_see_the_same_strings)
{
	pthread_t t[4];
	void *bad;
	int i;

	take_all();
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, from_thread, NULL));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, pthread_join(t[i], &bad));
		EXPECT_EQ(NULL, bad);
	}
}

TEST(image_read_of_a_bad_fd)
{
	void *img;
	size_t len;
	int ret = mf_image_read(-1, &img, &len, NULL);

	ASSERT_EQ(-EBADF, ret);
	EXPECT_STREQ("bad file descriptor", MF_CALL_STRERROR(mf_image_read, ret));
	EXPECT_EQ(NULL, strstr(mf_strerror(ret), "filter"));
}

TEST(open_device_without_the_module)
{
	int ret;

	if (!access(MF_DEVICE_PATH, F_OK) || errno != ENOENT)
		SKIP(return, "%s exists here", MF_DEVICE_PATH);
	ret = mf_open_device();
	ASSERT_EQ(-ENOENT, ret);
	EXPECT_STREQ("no /dev/memfilter: the memfilter module is not loaded",
		     MF_CALL_STRERROR(mf_open_device, ret));
	EXPECT_NE(NULL, strstr(mf_strerror(ret), "module is not loaded"));
	EXPECT_EQ(NULL, strstr(mf_strerror(ret), "no such filter"));
}

/* What some errnos say, call by call. */
TEST(calls_in_their_terms)
{
	EXPECT_STREQ("no such filter", mf_call_strerror("mf_open", -ENOENT));
	EXPECT_STREQ("no such filter", mf_call_strerror("mf_nf_attach", -ENOENT));
	EXPECT_STREQ("no attachment with that id in this network namespace",
		     mf_call_strerror("mf_nf_detach", -ENOENT));
	EXPECT_STREQ("the filter is not published",
		     mf_call_strerror("mf_pub_id", -ENOENT));
	EXPECT_STREQ("the filter is full (nothing in it was lost)",
		     mf_call_strerror("mf_add", -ENOSPC));
	EXPECT_STREQ("the filter is full (nothing in it was lost)",
		     mf_call_strerror("mf_offline_addv", ENOSPC));
	EXPECT_STREQ("not a memfilter filter fd",
		     mf_call_strerror("mf_info", -ENOTTY));
	EXPECT_STREQ("not an fd of /dev/memfilter (see mf_open_device())",
		     mf_call_strerror("mf_create", -ENOTTY));
	EXPECT_STREQ("bad file descriptor, or a read-only filter fd (opened without write access)",
		     mf_call_strerror("mf_clear", -EBADF));
	EXPECT_STREQ("the images cannot be merged (different types, shapes or hashing)",
		     mf_call_strerror("mf_image_merge", -EINVAL));
	EXPECT_STREQ("out of memory", mf_call_strerror("mf_offline_create", -ENOMEM));
	/* Nothing narrower: mf_strerror()'s. */
	EXPECT_EQ(mf_strerror(-EIO), mf_call_strerror("mf_add", -EIO));
	EXPECT_EQ(mf_strerror(-EINVAL), mf_call_strerror("mf_version", -EINVAL));
	EXPECT_EQ(mf_strerror(-ENOENT), mf_call_strerror("no_such_call", -ENOENT));
	EXPECT_EQ(mf_strerror(-ENOENT), mf_call_strerror(NULL, -ENOENT));
	EXPECT_EQ(mf_strerror(0), mf_call_strerror("mf_open", 0));
	EXPECT_EQ(mf_strerror(INT_MIN), mf_call_strerror("mf_open", INT_MIN));
}

TEST(every_exported_function_is_known)
{
	static char names[MF_MAP_MAX][MF_MAP_NAME];
	int n = mf_test_map_symbols(MF_MAP_PATH, names, MF_MAP_MAX), i;
	bool ok = true;

	ASSERT_LT(0, n) TH_LOG("cannot read %s", MF_MAP_PATH);
	for (i = 0; i < n; i++) {
		if (libmf_call_known(names[i]))
			continue;
		TH_LOG("mf_call_strerror() does not know %s", names[i]);
		ok = false;
	}
	EXPECT_TRUE(ok);
	EXPECT_FALSE(libmf_call_known("mf_nothing"));
	EXPECT_FALSE(libmf_call_known(NULL));
}

TEST_HARNESS_MAIN
