// SPDX-License-Identifier: GPL-2.0
/*
 * Selftest of growing filters through the raw ABI and libmemfilter,
 * inside the guest against the real module: the feature bit, create
 * parameters and their errors, growth to exact sub-filter and key counts
 * with no false negative, false positives counted exactly against the
 * offline library's filter of the same seed, ENOSPC at max_subs with
 * nothing lost, growth again at once when max_total_mb lifts,
 * test-and-add, clear, and images both ways (a kernel dump
 * loads and answers alike and grows on; an offline image loads into the
 * kernel and answers as the offline filter does).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/memfilter.h>

#include "libmemfilter.h"
#include "kselftest_harness.h"
#include "memfilter_utils.h"

#define SEED	0x5eed
#define ABSENT	(1ULL << 40)

static uint64_t *keys_from(uint64_t first, size_t n)
{
	uint64_t *k = malloc(n * sizeof(*k));

	for (size_t i = 0; i < n; i++)
		k[i] = first + i;
	return k;
}

static int grow_filter(int dev, __u64 cap, __u32 max_subs)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_GROW, .capacity = cap,
		.fpr = 0.01, .fixed_seed = true, .seed = SEED);
	MF_OPTS(mf_grow_opts, g, .max_subs = max_subs);

	return mf_create_grow(dev, &o, &g);
}

MF_DEV_FIXTURE(g)

TEST_F(g, create_errors)
{
	struct mf_api_info api;
	struct memfilter_create c;
	int fd;

	ASSERT_EQ(0, mf_api(self->dev, &api));
	EXPECT_TRUE(api.features & MEMFILTER_FEAT_GROW);
#define CREATE(err, ...) do {						\
		memset(&c, 0, sizeof(c));				\
		c.size = sizeof(c);					\
		c.type = MEMFILTER_TYPE_GROW;				\
		c.capacity = 1000;					\
		c.fpr_ppb = 10000000;					\
		__VA_ARGS__;						\
		fd = xioctl(self->dev, MEMFILTER_IOC_CREATE, &c);	\
		EXPECT_EQ(err, fd);					\
		if (!fd)						\
			close(c.out_fd);				\
	} while (0)
	CREATE(0);
	CREATE(0, c.grow_max = 16; c.grow_factor = 16; c.grow_ratio_pct = 99);
	CREATE(-EINVAL, c.fpr_ppb = 0; c.bits_per_key_q4 = 40);
	CREATE(-EINVAL, c.bits_per_key_q4 = 40);
	CREATE(-EINVAL, c.fingerprint_bits = 8);
	CREATE(-EINVAL, c.grow_max = 17);
	CREATE(-EINVAL, c.grow_factor = 17);
	CREATE(-EINVAL, c.grow_ratio_pct = 100);
	CREATE(-EINVAL, c.generations = 4);
	CREATE(-EINVAL, c.type = MEMFILTER_TYPE_BLOOM; c.grow_max = 2);
	CREATE(-EINVAL, c.type = MEMFILTER_TYPE_CUCKOO; c.grow_factor = 2);
	CREATE(-EOPNOTSUPP, c.layout = MEMFILTER_LAYOUT_SPLIT32 + 1);
	/* A first sub-filter rate the layout cannot reach. */
	CREATE(-EINVAL, c.fpr_ppb = 100);
#undef CREATE
}

/*
 * 10,000 keys: sub-filters of 1,000, 2,000, 4,000 and 8,000 keys hold
 * them in four; a million absent keys give exactly the false positives
 * the offline library's filter of the same seed gives.
 */
TEST_F(g, grows_exactly)
{
	const size_t n = 10000, nabsent = 1000000;
	static const __u64 want[] = { 1000, 2000, 4000, 3000 };
	struct memfilter_generation gens[MEMFILTER_GROW_MAX_SUBS];
	struct memfilter_info info = {
		.size = sizeof(info), .gens = (__u64)(uintptr_t)gens,
		.gens_count = MEMFILTER_GROW_MAX_SUBS,
	};
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_GROW, .capacity = 1000,
		.fpr = 0.01, .fixed_seed = true, .seed = SEED);
	uint64_t *keys = keys_from(0, n), *absent = keys_from(ABSENT, nabsent);
	uint64_t *r1 = calloc((nabsent + 63) / 64, 8);
	uint64_t *r2 = calloc((nabsent + 63) / 64, 8);
	struct mf_offline *off;
	int fd = grow_filter(self->dev, 1000, 0);
	ssize_t hits;
	size_t done;

	ASSERT_LE(0, fd);
	EXPECT_EQ(n, mf_add(fd, keys, 8, n, NULL, &done));
	EXPECT_EQ(n, done);
	ASSERT_EQ(0, xioctl(fd, MEMFILTER_IOC_INFO, &info));
	EXPECT_EQ(MEMFILTER_TYPE_GROW, info.type);
	EXPECT_EQ(4, info.subfilters);
	EXPECT_EQ(4, info.gens_count);
	EXPECT_EQ(15000, info.capacity);
	EXPECT_EQ(n, info.keys);
	EXPECT_EQ(n, info.adds);
	EXPECT_EQ(0, info.failed);
	EXPECT_EQ(10000000, info.fpr_ppb);
	EXPECT_EQ(2, info.grow_factor);
	EXPECT_EQ(50, info.grow_ratio_pct);
	EXPECT_EQ(16, info.grow_max);
	EXPECT_EQ(0, info.status & MEMFILTER_STATUS_OVERFILL);
	for (int i = 0; i < 4; i++) {
		EXPECT_EQ(want[i], gens[i].keys);
		EXPECT_LT(0, gens[i].fill);
	}
	EXPECT_EQ(n, mf_query(fd, keys, 8, n, NULL, NULL));

	ASSERT_EQ(0, mf_offline_create_grow(&o, NULL, &off));
	ASSERT_EQ(n, mf_offline_add(off, keys, 8, n, NULL, NULL));
	hits = mf_query(fd, absent, 8, nabsent, r1, NULL);
	EXPECT_EQ(mf_offline_query(off, absent, 8, nabsent, r2, NULL), hits);
	EXPECT_EQ(0, memcmp(r1, r2, (nabsent + 63) / 64 * 8));
	EXPECT_LT(hits, nabsent / 100);
	TH_LOG("%zd false positives in %zu (bound 1%%)", hits, nabsent);
	mf_offline_free(off);
	close(fd);
	free(r1);
	free(r2);
	free(absent);
	free(keys);
}

/* Past max_subs: ENOSPC at the first key that does not fit, none lost. */
TEST_F(g, enospc_at_max)
{
	uint64_t *keys = keys_from(0, 400), res[7] = { 0 };
	struct mf_info info;
	int fd = grow_filter(self->dev, 100, 2);
	size_t done = 0;

	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENOSPC, mf_add(fd, keys, 8, 400, res, &done));
	EXPECT_EQ(300, done);
	for (int i = 0; i < 400; i++)
		EXPECT_EQ(i < 300, (res[i / 64] >> (i % 64)) & 1);
	EXPECT_EQ(300, mf_query(fd, keys, 8, 300, NULL, NULL));
	ASSERT_EQ(0, mf_info(fd, &info));
	EXPECT_EQ(300, info.keys);
	EXPECT_EQ(300, info.capacity);
	EXPECT_EQ(1, info.failed);
	EXPECT_FALSE(info.overfill);
	/* Test-and-add: a present key says so and takes no room. */
	memset(res, 0, sizeof(res));
	EXPECT_EQ(-ENOSPC, mf_test_and_add(fd, keys + 299, 8, 2, res, &done));
	EXPECT_EQ(1, done);
	EXPECT_EQ(1, res[0]);
	/* A clear starts over in the first sub-filter, keeping the others. */
	ASSERT_EQ(0, mf_clear(fd));
	EXPECT_EQ(0, mf_query(fd, keys, 8, 300, NULL, NULL));
	EXPECT_EQ(300, mf_add(fd, keys + 100, 8, 300, NULL, &done));
	EXPECT_EQ(300, mf_query(fd, keys + 100, 8, 300, NULL, NULL));
	close(fd);
	free(keys);
}

/*
 * max_total_mb is the one limit that lifts by itself (other filters go
 * away, or the limit is raised): an ioctl's add that found the filter
 * full for it grows again at once, not after the second that adds from
 * softirq context back off for.
 */
TEST_F(g, total_limit_lifts)
{
	unsigned long saved = param_get("max_total_mb");
	uint64_t *keys = keys_from(0, 101), res[2] = { 0 };
	int fd = grow_filter(self->dev, 100, 0);
	struct memfilter_info mi;
	size_t done = 0;

	if (geteuid() != 0)
		SKIP(return, "needs root for module parameters");
	ASSERT_LE(0, fd);
	ASSERT_NE(0, saved);
	/* At the limit: the first sub-filter's 100 keys, then ENOSPC. */
	ASSERT_EQ(0, param_set("max_total_mb", 0));
	EXPECT_EQ(-ENOSPC, mf_add(fd, keys, 8, 101, res, &done));
	EXPECT_EQ(100, done);
	EXPECT_EQ(0, param_set("max_total_mb", saved));
	/* Memory is back: the next add grows the filter. */
	EXPECT_EQ(1, mf_add(fd, keys + 100, 8, 1, NULL, &done));
	EXPECT_EQ(1, done);
	ASSERT_EQ(0, info(fd, &mi));
	EXPECT_EQ(101, mi.keys);
	EXPECT_EQ(2, mi.subfilters);
	EXPECT_EQ(1, mi.failed);
	EXPECT_EQ(101, mf_query(fd, keys, 8, 101, NULL, NULL));
	close(fd);
	free(keys);
}

TEST_F(g, test_and_add)
{
	uint64_t *keys = keys_from(0, 3000), res[47] = { 0 };
	int fd = grow_filter(self->dev, 500, 0);
	size_t done;

	ASSERT_LE(0, fd);
	struct mf_info info;
	ssize_t was;

	ASSERT_EQ(1000, mf_add(fd, keys, 8, 1000, NULL, NULL));
	/* 1,000 present (they answer present), 2,000 new (false positives aside). */
	was = mf_test_and_add(fd, keys, 8, 3000, res, &done);
	EXPECT_EQ(3000, done);
	for (int i = 0; i < 1000; i++)
		EXPECT_EQ(1, (res[i / 64] >> (i % 64)) & 1);
	EXPECT_GE(was, 1000);
	EXPECT_LT(was, 1000 + 2000 / 50);
	EXPECT_EQ(3000, mf_query(fd, keys, 8, 3000, NULL, NULL));
	/* Only the keys that were absent took room. */
	ASSERT_EQ(0, mf_info(fd, &info));
	EXPECT_EQ(1000 + 3000 - was, info.keys);
	close(fd);
	free(keys);
}

/* Images both ways: kernel dump -> load; offline image -> kernel. */
TEST_F(g, images)
{
	const size_t n = 5000, nabsent = 200000;
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_GROW, .capacity = 300,
		.fpr = 0.01, .fixed_seed = true, .seed = SEED);
	uint64_t *keys = keys_from(0, n + 20000), *absent = keys_from(ABSENT, nabsent);
	uint64_t *r1 = calloc((nabsent + 63) / 64, 8);
	uint64_t *r2 = calloc((nabsent + 63) / 64, 8);
	int fd = grow_filter(self->dev, 300, 0), fd2;
	struct mf_offline *off;
	struct mf_info i1, i2;
	void *img;
	size_t len;

	ASSERT_LE(0, fd);
	ASSERT_EQ(n, mf_add(fd, keys, 8, n, NULL, NULL));
	ASSERT_EQ(0, mf_dump(fd, &img, &len));
	fd2 = mf_load(self->dev, img, len, NULL);
	ASSERT_LE(0, fd2);
	free(img);
	EXPECT_EQ(n, mf_query(fd2, keys, 8, n, NULL, NULL));
	EXPECT_EQ(mf_query(fd, absent, 8, nabsent, r1, NULL),
		  mf_query(fd2, absent, 8, nabsent, r2, NULL));
	EXPECT_EQ(0, memcmp(r1, r2, (nabsent + 63) / 64 * 8));
	ASSERT_EQ(0, mf_info(fd, &i1));
	ASSERT_EQ(0, mf_info(fd2, &i2));
	EXPECT_EQ(i1.capacity, i2.capacity);
	EXPECT_EQ(i1.keys, i2.keys);
	EXPECT_EQ(i1.fill, i2.fill);
	/* The loaded filter grows on. */
	EXPECT_EQ(20000, mf_add(fd2, keys + n, 8, 20000, NULL, NULL));
	EXPECT_EQ(n + 20000, mf_query(fd2, keys, 8, n + 20000, NULL, NULL));
	close(fd2);

	/* The offline library's image answers in the kernel as offline. */
	ASSERT_EQ(0, mf_offline_create_grow(&o, NULL, &off));
	ASSERT_EQ(n, mf_offline_add(off, keys, 8, n, NULL, NULL));
	ASSERT_EQ(0, mf_offline_image(off, &img, &len));
	fd2 = mf_load(self->dev, img, len, NULL);
	ASSERT_LE(0, fd2);
	free(img);
	memset(r1, 0, (nabsent + 63) / 64 * 8);
	memset(r2, 0, (nabsent + 63) / 64 * 8);
	EXPECT_EQ(mf_offline_query(off, absent, 8, nabsent, r1, NULL),
		  mf_query(fd2, absent, 8, nabsent, r2, NULL));
	EXPECT_EQ(0, memcmp(r1, r2, (nabsent + 63) / 64 * 8));
	/* And the kernel's filter of the same seed answers the same too. */
	EXPECT_EQ(mf_query(fd, absent, 8, nabsent, r1, NULL),
		  mf_query(fd2, absent, 8, nabsent, r2, NULL));
	mf_offline_free(off);
	close(fd2);
	close(fd);
	free(r1);
	free(r2);
	free(absent);
	free(keys);
}

/* memfilterctl info @name has a line that matches @pattern: 0, else 1. */
static int ctl_info_has(const char *name, const char *pattern)
{
	return run_cmd(NULL, 0, MF_CTL " info %s | grep -q '%s'", name,
		       pattern);
}

TEST(memfilterctl)
{
	if (!have_ctl())
		SKIP(return, "no memfilterctl here");
	ASSERT_EQ(0, system("seq 1 700 | sed 's/^/k/' >/tmp/grow-keys"));
	ASSERT_EQ(0, ctl_status("create selftest.grow --grow -c 100 --grow-max 3 --seed 1"));
	EXPECT_EQ(2, ctl_status("create selftest.bad --grow -c 100 -b 10"));
	EXPECT_EQ(2, ctl_status("create selftest.bad --grow -c 100 --grow-ratio 1"));
	EXPECT_EQ(2, ctl_status("create selftest.bad --grow --window 1h -c 100"));
	/* 100 + 200 + 400 keys: all fit, in three sub-filters. */
	EXPECT_EQ(0, ctl_status("add selftest.grow /tmp/grow-keys"));
	EXPECT_EQ(0, ctl_info_has("selftest.grow", "^type: *grow"));
	EXPECT_EQ(0, ctl_info_has("selftest.grow", "^sub-filters: *3 of at most 3"));
	EXPECT_EQ(0, ctl_info_has("selftest.grow", "sub-filter 2 *400 / 400 keys"));
	EXPECT_EQ(0, ctl_status("query selftest.grow /tmp/grow-keys"));
	/* The 701st does not fit: an error, and nothing lost. */
	EXPECT_NE(0, ctl_status("add selftest.grow --key one-more"));
	EXPECT_EQ(0, ctl_status("query selftest.grow /tmp/grow-keys"));
	EXPECT_EQ(0, ctl_status("rm selftest.grow"));
	unlink("/tmp/grow-keys");
}

TEST_HARNESS_MAIN
