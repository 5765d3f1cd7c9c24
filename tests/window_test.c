// SPDX-License-Identifier: GPL-2.0
/*
 * Selftest of window filters and test-and-add through the raw ABI, inside
 * the guest against the real module: create parameters and their errors,
 * explicit rotations (a key survives G - 1 of them and is gone after G),
 * test-and-add on window and Bloom filters (result bits = was present),
 * rotation by count (exact per-generation counts, a batch split where a
 * generation fills), the period timer, info and its per-generation array,
 * dump and load (the generations, which one is current, their ages and
 * the timer come back), and the size rule of the new ROTATE command.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/memfilter.h>

#include "libmemfilter.h"
#include "kselftest_harness.h"
#include "memfilter_utils.h"

#define NKEYS	1000

static int window(int dev, __u32 gens, __u64 cap, __u64 period_ms,
		  __u32 wflags)
{
	struct memfilter_create c = {
		.size = sizeof(c), .type = MEMFILTER_TYPE_WINDOW,
		.capacity = cap, .bits_per_key_q4 = 64,
		.generations = gens, .period_ms = period_ms,
		.window_flags = wflags,
	};
	int ret = xioctl(dev, MEMFILTER_IOC_CREATE, &c);

	return ret ? ret : c.out_fd;
}

/* A batch command over keys base..base+n-1 (8 bytes each). */
static int range_op(int fd, unsigned long cmd, __u64 base, __u32 n,
		    __u64 *results, __u32 *out_count)
{
	__u64 *keys = malloc(n * sizeof(*keys));
	struct memfilter_keys k = {
		.size = sizeof(k), .count = n, .key_size = 8,
		.keys = (__u64)(uintptr_t)keys,
		.results = (__u64)(uintptr_t)results,
	};
	int ret;

	for (__u32 i = 0; i < n; i++)
		keys[i] = base + i;
	ret = xioctl(fd, cmd, &k);
	if (out_count)
		*out_count = k.out_count;
	free(keys);
	return ret;
}

static __u32 present(int fd, __u64 base, __u32 n)
{
	__u32 count = ~0U;

	if (range_op(fd, MEMFILTER_IOC_QUERY, base, n, NULL, &count))
		return ~0U;
	return count;
}

static int create_plain_bloom(int dev)
{
	struct memfilter_create c = {
		.size = sizeof(c), .type = MEMFILTER_TYPE_BLOOM,
		.capacity = 100, .bits_per_key_q4 = 40,
	};
	int ret = xioctl(dev, MEMFILTER_IOC_CREATE, &c);

	return ret ? ret : c.out_fd;
}

static int rotate(int fd)
{
	struct memfilter_rotate r = { .size = sizeof(r) };

	return xioctl(fd, MEMFILTER_IOC_ROTATE, &r);
}

MF_DEV_FIXTURE(dev)

TEST_F(dev, create_errors)
{
	struct memfilter_create c = {
		.size = sizeof(c), .type = MEMFILTER_TYPE_BLOOM,
		.capacity = 100, .bits_per_key_q4 = 40, .generations = 4,
	};

	EXPECT_EQ(-EINVAL, window(self->dev, 1, 100, 0, 0));
	EXPECT_EQ(-EINVAL, window(self->dev, 17, 100, 0, 0));
	EXPECT_EQ(-EINVAL, window(self->dev, 0, 100, 0, 0));
	EXPECT_EQ(-EINVAL, window(self->dev, 4, 0, 0, 0));
	EXPECT_EQ(-EOPNOTSUPP, window(self->dev, 4, 100, 0, 1U << 7));
	/* Window fields on other types. */
	EXPECT_EQ(-EINVAL, xioctl(self->dev, MEMFILTER_IOC_CREATE, &c));
	c.generations = 0;
	c.period_ms = 1000;
	EXPECT_EQ(-EINVAL, xioctl(self->dev, MEMFILTER_IOC_CREATE, &c));
	c.period_ms = 0;
	c.window_flags = MEMFILTER_WINDOW_ROTATE_BY_COUNT;
	EXPECT_EQ(-EINVAL, xioctl(self->dev, MEMFILTER_IOC_CREATE, &c));
}

/* A key survives G - 1 explicit rotations and is gone after G. */
TEST_F(dev, explicit_rotations)
{
	for (__u32 gens = 2; gens <= 5; gens++) {
		int fd = window(self->dev, gens, NKEYS, 0, 0);

		ASSERT_LE(0, fd);
		ASSERT_EQ(0, range_op(fd, MEMFILTER_IOC_ADD, 0, NKEYS, NULL,
				      NULL));
		for (__u32 r = 1; r < gens; r++) {
			ASSERT_EQ(0, rotate(fd));
			ASSERT_EQ(NKEYS, present(fd, 0, NKEYS));
		}
		ASSERT_EQ(0, rotate(fd));
		/* 16 bits/key: a few false positives at most. */
		EXPECT_GE(5, present(fd, 0, NKEYS));
		close(fd);
	}
}

static void check_test_and_add(struct __test_metadata *_metadata, int fd)
{
	__u64 res[(2 * NKEYS + 63) / 64];
	__u32 count, absent = 0;

	/* Keys 0..NKEYS-1 new, then NKEYS..2*NKEYS-1 ... */
	ASSERT_EQ(0, range_op(fd, MEMFILTER_IOC_TEST_AND_ADD, 0, NKEYS, res,
			      &count));
	for (__u32 i = 0; i < NKEYS; i++)
		absent += !((res[i / 64] >> (i % 64)) & 1);
	EXPECT_EQ(NKEYS - count, absent);
	EXPECT_GE(absent, NKEYS - 10);
	/* ... half of them again, with NKEYS / 2 new ones. */
	ASSERT_EQ(0, range_op(fd, MEMFILTER_IOC_TEST_AND_ADD, NKEYS / 2, NKEYS,
			      res, &count));
	for (__u32 i = 0; i < NKEYS / 2; i++)
		ASSERT_TRUE((res[i / 64] >> (i % 64)) & 1);
	EXPECT_LE(NKEYS / 2, count);
	EXPECT_GE(NKEYS / 2 + 10, count);
	ASSERT_EQ(3 * NKEYS / 2, present(fd, 0, 3 * NKEYS / 2));
}

TEST_F(dev, test_and_add)
{
	struct memfilter_create c = {
		.size = sizeof(c), .type = MEMFILTER_TYPE_BLOOM,
		.capacity = 10 * NKEYS, .bits_per_key_q4 = 64,
	};
	int fd = window(self->dev, 3, 10 * NKEYS, 0, 0);

	ASSERT_LE(0, fd);
	check_test_and_add(_metadata, fd);
	close(fd);

	ASSERT_EQ(0, xioctl(self->dev, MEMFILTER_IOC_CREATE, &c));
	check_test_and_add(_metadata, c.out_fd);
	EXPECT_EQ(-EOPNOTSUPP, rotate(c.out_fd));
	close(c.out_fd);

	c.type = MEMFILTER_TYPE_CUCKOO;
	c.bits_per_key_q4 = 0;
	c.fingerprint_bits = 12;
	c.out_fd = 0;
	ASSERT_EQ(0, xioctl(self->dev, MEMFILTER_IOC_CREATE, &c));
	EXPECT_EQ(-EOPNOTSUPP, range_op(c.out_fd, MEMFILTER_IOC_TEST_AND_ADD, 0,
					10, NULL, NULL));
	close(c.out_fd);
}

static int info_gens(int fd, struct memfilter_info *in,
		     struct memfilter_generation *gens, __u32 ngens)
{
	memset(in, 0, sizeof(*in));
	in->size = sizeof(*in);
	in->gens = (__u64)(uintptr_t)gens;
	in->gens_count = ngens;
	return xioctl(fd, MEMFILTER_IOC_INFO, in);
}

TEST_F(dev, info_and_rotate_by_count)
{
	struct memfilter_generation g[16];
	struct memfilter_info in;
	int fd = window(self->dev, 4, NKEYS, 0,
			MEMFILTER_WINDOW_ROTATE_BY_COUNT);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, info_gens(fd, &in, g, 16));
	EXPECT_EQ(MEMFILTER_TYPE_WINDOW, in.type);
	EXPECT_EQ(4, in.generations);
	EXPECT_EQ(4, in.gens_count);
	EXPECT_EQ(0, in.current_gen);
	EXPECT_EQ(MEMFILTER_WINDOW_ROTATE_BY_COUNT, in.window_flags);
	EXPECT_EQ(NKEYS, in.capacity);

	ASSERT_EQ(0, range_op(fd, MEMFILTER_IOC_ADD, 0, NKEYS - 1, NULL, NULL));
	ASSERT_EQ(0, info_gens(fd, &in, g, 2));
	EXPECT_EQ(0, in.current_gen);
	EXPECT_EQ(NKEYS - 1, g[0].keys);
	EXPECT_LT(0, g[0].fill);
	EXPECT_EQ(0, g[1].keys);
	EXPECT_EQ(0, g[1].fill);
	/*
	 * The capacity-th key queues a rotation: wait for it. The bound
	 * (60 s) only ends a broken run; a loaded host delays the work
	 * item by seconds, so a tight bound would make the test flaky.
	 */
	ASSERT_EQ(0, range_op(fd, MEMFILTER_IOC_ADD, NKEYS, 1, NULL, NULL));
	for (int i = 0; i < 6000; i++) {
		ASSERT_EQ(0, info_gens(fd, &in, NULL, 0));
		if (in.current_gen == 1)
			break;
		usleep(10000);
	}
	EXPECT_EQ(1, in.current_gen);
	EXPECT_EQ(NKEYS, in.keys);
	EXPECT_EQ(0, rotate(fd));
	ASSERT_EQ(0, info_gens(fd, &in, g, 16));
	EXPECT_EQ(2, in.current_gen);
	EXPECT_EQ(NKEYS, g[0].keys);
	EXPECT_GE(g[0].age_ms, g[2].age_ms);
	close(fd);
}

/*
 * By count, an add rotates exactly where the current generation fills,
 * inside one batch too: 2,500 keys into capacity 1,000 leave 1,000, 1,000
 * and 500 (generation 2 current), two adds of 600 leave 1,000 and 200
 * (generation 1 current); test-and-add the same. No waiting: the ioctl
 * rotates itself, and the rotation the filling add queued finds nothing
 * to do.
 */
static void check_count_exact(struct __test_metadata *_metadata, int dev,
			      unsigned long cmd, const __u32 *adds,
			      __u32 nadds, const __u64 *want, __u32 cur)
{
	struct memfilter_generation g[4];
	struct memfilter_info in;
	__u64 res[(2500 + 63) / 64], base = 0;
	int fd = window(dev, 4, NKEYS, 0, MEMFILTER_WINDOW_ROTATE_BY_COUNT);

	ASSERT_LE(0, fd);
	for (__u32 i = 0; i < nadds; i++) {
		ASSERT_EQ(0, range_op(fd, cmd, base, adds[i], res, NULL));
		base += adds[i];
	}
	ASSERT_EQ(0, info_gens(fd, &in, g, 4));
	EXPECT_EQ(cur, in.current_gen);
	EXPECT_EQ(base, in.keys);
	EXPECT_EQ(0, in.status & MEMFILTER_STATUS_OVERFILL);
	for (__u32 j = 0; j < 4; j++)
		EXPECT_EQ(want[j], g[j].keys);
	EXPECT_EQ(base, present(fd, 0, base));
	close(fd);
}

TEST_F(dev, rotate_by_count_exact)
{
	static const __u32 one[] = { 2500 }, two[] = { 600, 600 };
	static const __u64 want_one[] = { 1000, 1000, 500, 0 };
	static const __u64 want_two[] = { 1000, 200, 0, 0 };
	static const unsigned long cmds[] = { MEMFILTER_IOC_ADD,
					      MEMFILTER_IOC_TEST_AND_ADD };

	for (int c = 0; c < 2; c++) {
		check_count_exact(_metadata, self->dev, cmds[c], one, 1,
				  want_one, 2);
		check_count_exact(_metadata, self->dev, cmds[c], two, 2,
				  want_two, 1);
	}
}

/* The period timer rotates without help. */
TEST_F(dev, period_timer)
{
	struct memfilter_info in;
	int fd = window(self->dev, 2, NKEYS, 50, 0);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, range_op(fd, MEMFILTER_IOC_ADD, 0, NKEYS, NULL, NULL));
	/*
	 * Two periods at least; the bound (60 s of sleeps) only ends a
	 * broken run, as above.
	 */
	for (int i = 0; i < 6000 && present(fd, 0, NKEYS) > 5; i++)
		usleep(10000);
	EXPECT_GE(5, present(fd, 0, NKEYS));
	ASSERT_EQ(0, info_gens(fd, &in, NULL, 0));
	EXPECT_EQ(50, in.period_ms);
	close(fd);
}

/* The whole image of a filter, read() from offset 0. */
static unsigned char *dump_all(int fd, size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	unsigned char *buf = malloc(cap);
	ssize_t r;

	if (lseek(fd, 0, SEEK_SET))
		return NULL;
	while ((r = read(fd, buf + n, cap - n)) > 0) {
		n += r;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	*len = n;
	return r < 0 ? NULL : buf;
}

TEST_F(dev, dump_and_load)
{
	struct memfilter_generation g[4], g2[4];
	struct memfilter_info in, in2;
	struct memfilter_load l = { .size = sizeof(l) };
	int fd = window(self->dev, 4, NKEYS, 3600000, 0), fd2;
	unsigned char *img;
	size_t len;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, range_op(fd, MEMFILTER_IOC_ADD, 0, NKEYS, NULL, NULL));
	ASSERT_EQ(0, rotate(fd));
	ASSERT_EQ(0, range_op(fd, MEMFILTER_IOC_ADD, NKEYS, NKEYS, NULL, NULL));
	ASSERT_EQ(0, rotate(fd));
	img = dump_all(fd, &len);
	ASSERT_NE(NULL, img);
	l.image = (__u64)(uintptr_t)img;
	l.image_len = len;
	ASSERT_EQ(0, xioctl(self->dev, MEMFILTER_IOC_LOAD, &l));
	fd2 = l.out_fd;
	ASSERT_EQ(0, info_gens(fd, &in, g, 4));
	ASSERT_EQ(0, info_gens(fd2, &in2, g2, 4));
	/* The table memory holds the state section and the generations. */
	EXPECT_EQ(MEMFILTER_IMAGE_HDR_SIZE + in.bytes, len);
	EXPECT_LT(MEMFILTER_IMAGE_WINDOW_SIZE, in.bytes);
	EXPECT_EQ(MEMFILTER_TYPE_WINDOW, in2.type);
	EXPECT_EQ(4, in2.generations);
	EXPECT_EQ(in.current_gen, in2.current_gen);
	EXPECT_EQ(2, in2.current_gen);
	EXPECT_EQ(3600000, in2.period_ms);
	EXPECT_EQ(2 * NKEYS, in2.keys);
	for (int j = 0; j < 4; j++) {
		EXPECT_EQ(g[j].keys, g2[j].keys);
		EXPECT_EQ(g[j].fill, g2[j].fill);
		/* Ages carry over (the dump took a moment). */
		EXPECT_LE(g[j].age_ms, g2[j].age_ms + 1000);
		EXPECT_GE(g[j].age_ms + 1000, g2[j].age_ms);
	}
	EXPECT_EQ(2 * NKEYS, present(fd2, 0, 2 * NKEYS));
	/* The loaded filter rotates on: the first keys go after 2 more. */
	ASSERT_EQ(0, rotate(fd2));
	EXPECT_EQ(2 * NKEYS, present(fd2, 0, 2 * NKEYS));
	ASSERT_EQ(0, rotate(fd2));
	EXPECT_GE(5, present(fd2, 0, NKEYS));
	EXPECT_EQ(NKEYS, present(fd2, NKEYS, NKEYS));
	/* A corrupt image loads nothing. */
	img[len - 1] ^= 1;
	l.out_fd = 0;
	EXPECT_EQ(-EBADMSG, xioctl(self->dev, MEMFILTER_IOC_LOAD, &l));
	free(img);
	close(fd2);
	close(fd);
}

/* libmemfilter's window calls, over the same ABI. */
TEST_F(dev, libmemfilter)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_WINDOW, .capacity = 10 * NKEYS,
		.bits_per_key = 16);
	MF_OPTS(mf_window_opts, w, .generations = 3, .rotate_by_count = true);
	MF_OPTS(mf_window_info, wi);
	uint64_t keys[NKEYS], res[(NKEYS + 63) / 64];
	size_t done;
	int fd;

	for (int i = 0; i < NKEYS; i++)
		keys[i] = 7000000 + i;
	w.generations = 1;
	EXPECT_EQ(-EINVAL, mf_create_window(self->dev, &o, &w));
	w.generations = 3;
	fd = mf_create_window(self->dev, &o, &w);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, mf_window_info(fd, &wi));
	EXPECT_EQ(3, wi.generations);
	EXPECT_EQ(0, wi.current_gen);
	EXPECT_TRUE(wi.rotate_by_count);
	EXPECT_GE(10, mf_test_and_add(fd, keys, 8, NKEYS / 2, res, &done));
	EXPECT_EQ(NKEYS / 2, done);
	EXPECT_EQ(NKEYS / 2, mf_test_and_add(fd, keys, 8, NKEYS / 2, res,
					     &done));
	ASSERT_EQ(0, mf_rotate(fd));
	ASSERT_EQ(0, mf_window_info(fd, &wi));
	EXPECT_EQ(1, wi.current_gen);
	EXPECT_EQ(NKEYS, wi.keys[0]);
	EXPECT_EQ(0, wi.keys[1]);
	EXPECT_LT(0, wi.fill[0]);
	EXPECT_EQ(0, wi.fill[1]);
	close(fd);
	fd = create_plain_bloom(self->dev);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EOPNOTSUPP, mf_rotate(fd));
	EXPECT_EQ(-EOPNOTSUPP, mf_window_info(fd, &wi));
	close(fd);
}

TEST(memfilterctl)
{
	if (!have_ctl())
		SKIP(return, "no memfilterctl here");
	ASSERT_EQ(0, ctl_status("create selftest.win --window 1h --generations 3 -c 1000 -b 16"));
	EXPECT_EQ(2, ctl_status("create selftest.bad --window 1h --generations 17 -c 10"));
	/* seen: exit 1 when no key was seen before, 0 when one was. */
	EXPECT_EQ(1, ctl_status("seen selftest.win --key alpha --key beta"));
	EXPECT_EQ(0, ctl_status("seen selftest.win --key alpha --key gamma"));
	EXPECT_EQ(0, ctl_status("query selftest.win --key gamma"));
	ASSERT_EQ(0, ctl_status("rotate selftest.win"));
	ASSERT_EQ(0, ctl_status("rotate selftest.win"));
	EXPECT_EQ(0, ctl_status("query selftest.win --key alpha"));
	ASSERT_EQ(0, ctl_status("rotate selftest.win"));
	EXPECT_EQ(1, ctl_status("query selftest.win --key alpha --key beta --key gamma"));
	EXPECT_EQ(0, system(MF_CTL " info selftest.win | grep -q '^generations: *3 (current 0)'"));
	/* info --json: the generations, all cleared by the three rotations. */
	EXPECT_EQ(0, system(MF_CTL " info --json selftest.win | grep -q '\"generations\":3,\"current_gen\":0,\"period_ms\":1800000,\"rotate_by_count\":false,\"gens\":\\[{\"age_ms\":[0-9]*,\"keys\":0,\"fill\":0},{'"));
	EXPECT_EQ(0, ctl_status("rm selftest.win"));
}

TEST_F(dev, rotate_sizes)
{
	int fd = window(self->dev, 2, 100, 0, 0);
	struct {
		struct memfilter_rotate r;
		__u64 tail;
	} big = { .r = { .size = sizeof(big) } };
	struct memfilter_rotate r = { .size = sizeof(r) - 1 };

	ASSERT_LE(0, fd);
	EXPECT_EQ(-EINVAL, xioctl(fd, MEMFILTER_IOC_ROTATE, &r));
	r.size = sizeof(r);
	r.flags = 1;
	EXPECT_EQ(-EOPNOTSUPP, xioctl(fd, MEMFILTER_IOC_ROTATE, &r));
	EXPECT_EQ(0, xioctl(fd, MEMFILTER_IOC_ROTATE, &big));
	big.tail = 1;
	EXPECT_EQ(-E2BIG, xioctl(fd, MEMFILTER_IOC_ROTATE, &big));
	close(fd);
}

TEST_HARNESS_MAIN
