// SPDX-License-Identifier: GPL-2.0
/*
 * Selftest of memfilter's memory limits and of the places where the
 * module once contradicted its documentation: dump snapshots counted
 * against max_total_mb, tables over 2 GiB, ASCII-only names, the cuckoo
 * fpr_ppb range, whole-batch validation of variable key lengths (also
 * against a caller that rewrites them during the call), the
 * cuckoo-only commands on Bloom filters with no keys, and INFO's reserved
 * field. Runs inside the guest as root against the real module.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <linux/memfilter.h>
#include <linux/userfaultfd.h>

#include "kselftest_harness.h"
#include "memfilter_utils.h"

FIXTURE(lim) {
	int dev;
	unsigned long max_filter_mb, max_total_mb;
};

FIXTURE_SETUP(lim)
{
	self->dev = dev_open();
	ASSERT_LE(0, self->dev);
	self->max_filter_mb = param_get("max_filter_mb");
	self->max_total_mb = param_get("max_total_mb");
	ASSERT_NE(0, self->max_filter_mb);
	ASSERT_NE(0, self->max_total_mb);
}

FIXTURE_TEARDOWN(lim)
{
	param_set("max_filter_mb", self->max_filter_mb);
	param_set("max_total_mb", self->max_total_mb);
	close(self->dev);
}

/*
 * A dump snapshot is memory like any filter's: N readers of a big filter
 * may not pin N copies past max_total_mb. A 16 MiB filter under a 56 MiB
 * total leaves room for exactly two snapshots; a third read fails with
 * ENOMEM until one snapshot is given back (fd closed or read to its end).
 */
TEST_F(lim, dump_snapshots_count_against_total)
{
	struct memfilter_name nm = { .size = sizeof(nm) };
	struct memfilter_info i;
	int fd, r[3];
	char b;

	if (geteuid() != 0)
		SKIP(return, "needs root for module parameters");
	fd = create(self->dev, MEMFILTER_TYPE_BLOOM, 16 << 20, 0, 32, 0, 0,
		    "limits.snap");
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, info(fd, &i));
	ASSERT_EQ(16 << 20, i.bytes);
	ASSERT_EQ(0, param_set("max_total_mb", 56));
	/* Each open file of the filter keeps its own snapshot. */
	for (int n = 0; n < 3; n++) {
		struct memfilter_open o = { .size = sizeof(o) };

		strcpy(o.name, "limits.snap");
		ASSERT_EQ(0, xioctl(self->dev, MEMFILTER_IOC_OPEN, &o));
		r[n] = o.out_fd;
	}
	EXPECT_EQ(1, pread(r[0], &b, 1, 0));
	EXPECT_EQ(1, pread(r[1], &b, 1, 0));
	EXPECT_EQ(-1, pread(r[2], &b, 1, 0));
	EXPECT_EQ(ENOMEM, errno);
	close(r[0]);
	EXPECT_EQ(1, pread(r[2], &b, 1, 0));
	close(r[1]);
	close(r[2]);
	EXPECT_EQ(0, xioctl(fd, MEMFILTER_IOC_UNPUBLISH, &nm));
	close(fd);
}

/*
 * A table over 2 GiB (kvmalloc()'s INT_MAX limit) is allocated and works:
 * keys at both ends of a 3 GiB Bloom filter. Needs a guest with memory to
 * spare (make check's stock 6.12 guest has 5 GiB: 20 to 40 s there under
 * TCG); skipped otherwise.
 */
TEST_F_TIMEOUT(lim, filter_over_2_gib, 600)
{
	const __u64 cap = 3ULL << 30;	/* 8 bits/key: 3 GiB */
	__u64 keys[4] = { 1, 2, 0xfffffffffffULL, 0x123456789abcULL };
	struct memfilter_info i;
	struct sysinfo si;
	__u32 cnt;
	int fd;

	if (geteuid() != 0)
		SKIP(return, "needs root for module parameters");
	ASSERT_EQ(0, sysinfo(&si));
	if ((__u64)si.freeram * si.mem_unit < (3ULL << 30) + (512ULL << 20))
		SKIP(return, "guest has %llu MiB free, needs 3.5 GiB",
		     (unsigned long long)si.freeram * si.mem_unit >> 20);
	ASSERT_EQ(0, param_set("max_filter_mb", 3072));
	ASSERT_EQ(0, param_set("max_total_mb", 4096));
	fd = create(self->dev, MEMFILTER_TYPE_BLOOM, cap, 0, 32, 0, 0, NULL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, info(fd, &i));
	EXPECT_EQ(3ULL << 30, i.bytes);
	ASSERT_EQ(0, keys_op(fd, MEMFILTER_IOC_ADD, keys, 4, NULL, NULL, NULL));
	ASSERT_EQ(0,
		  keys_op(fd, MEMFILTER_IOC_QUERY, keys, 4, NULL, &cnt, NULL));
	EXPECT_EQ(4, cnt);
	close(fd);
}

/* Names are ASCII [A-Za-z0-9._-]: Latin-1 letters are refused everywhere. */
TEST_F(lim, names_are_ascii)
{
	struct memfilter_open o = { .size = sizeof(o) };

	EXPECT_EQ(-EINVAL, create(self->dev, MEMFILTER_TYPE_BLOOM, 100, 0, 40,
				  0, 0, "caf\xe9"));
	EXPECT_EQ(-EINVAL, create(self->dev, MEMFILTER_TYPE_BLOOM, 100, 0, 40,
				  0, 0, "\xc0\xff"));
	memcpy(o.name, "caf\xe9", 4);
	EXPECT_EQ(-EINVAL, xioctl(self->dev, MEMFILTER_IOC_OPEN, &o));
	memcpy(o.name, "no.such.filter", 14);
	EXPECT_EQ(-ENOENT, xioctl(self->dev, MEMFILTER_IOC_OPEN, &o));
}

/* fpr_ppb is 1 .. 10^9 - 1 for both types. */
TEST_F(lim, fpr_ppb_range)
{
	int fd;

	EXPECT_EQ(-EINVAL, create(self->dev, MEMFILTER_TYPE_CUCKOO, 100,
				  1000000000, 0, 0, 0, NULL));
	EXPECT_EQ(-EINVAL, create(self->dev, MEMFILTER_TYPE_BLOOM, 100,
				  1000000000, 0, 0, 0, NULL));
	fd = create(self->dev, MEMFILTER_TYPE_CUCKOO, 100, 999999999, 0, 0, 0,
		    NULL);
	EXPECT_LE(0, fd);
	close(fd);
}

/*
 * A bad key length anywhere in a variable-size batch fails the whole call
 * with EINVAL before any key takes effect, even past the first window.
 */
TEST_F(lim, variable_batch_validated_first)
{
	const __u32 n = 364;
	__u32 lens[364];
	char *keys = calloc(n, 8 + 5000);
	__u64 res[6];
	struct memfilter_keys k = {
		.size = sizeof(k), .count = n,
		.keys = (__u64)(uintptr_t)keys,
		.lens = (__u64)(uintptr_t)lens,
		.results = (__u64)(uintptr_t)res,
	};
	struct memfilter_info i;
	int fd = create(self->dev, MEMFILTER_TYPE_CUCKOO, 10000, 0, 0, 12, 0,
			NULL);

	ASSERT_LE(0, fd);
	ASSERT_NE(NULL, keys);
	for (__u32 j = 0; j < n; j++) {
		lens[j] = 8;
		memcpy(keys + 8 * j, &j, sizeof(j));
	}
	lens[300] = MEMFILTER_KEY_MAX + 1;
	memset(res, 0xa5, sizeof(res));
	EXPECT_EQ(-EINVAL, xioctl(fd, MEMFILTER_IOC_ADD, &k));
	EXPECT_EQ(0, k.out_done);
	EXPECT_EQ(0, k.out_count);
	ASSERT_EQ(0, info(fd, &i));
	EXPECT_EQ(0, i.keys);
	EXPECT_EQ(0, i.adds);
	lens[300] = 8;
	EXPECT_EQ(0, xioctl(fd, MEMFILTER_IOC_ADD, &k));
	EXPECT_EQ(n, k.out_done);
	EXPECT_EQ(n, k.out_count);
	free(keys);
	close(fd);
}

/* The userfaultfd handler of lengths_rewritten_during_call. */
struct lens_race {
	int uffd;
	__u32 *lens;
	void *page;		/* where the keys are to appear */
	const void *src;	/* what they are */
	long page_size;
	int faults;
};

static void *lens_race_handler(void *arg)
{
	struct lens_race *r = arg;
	struct uffd_msg msg;
	struct uffdio_copy copy = {
		.dst = (__u64)(uintptr_t)r->page, .src = (__u64)(uintptr_t)r->src,
		.len = r->page_size,
	};

	if (read(r->uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT)
		return NULL;
	r->faults++;
	/* The kernel has checked every length and is copying keys in. */
	r->lens[300] = MEMFILTER_KEY_MAX + 1;
	ioctl(r->uffd, UFFDIO_COPY, &copy);
	return NULL;
}

/*
 * A caller that rewrites its lengths while the call runs cannot make a
 * later window fail after earlier ones took effect: the kernel copies the
 * lengths once, checks them, and uses that copy. Deterministic: the keys
 * sit on a page that is missing until a userfaultfd handler supplies it,
 * and the handler makes length 300 invalid first, while the kernel is
 * copying the first window's keys. The kernel that re-read each window's
 * lengths failed here with EINVAL and out_done 256.
 */
TEST_F(lim, lengths_rewritten_during_call)
{
	const __u32 n = 364;
	long page_size = sysconf(_SC_PAGESIZE);
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct lens_race r = { .page_size = page_size };
	__u32 lens[364];
	__u64 src[512];
	struct memfilter_keys k = {
		.size = sizeof(k), .count = n,
		.lens = (__u64)(uintptr_t)lens,
	};
	struct memfilter_info i;
	pthread_t thread;
	int fd, ret;

	ASSERT_LE(n * 8, page_size);
	r.uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	if (r.uffd < 0)
		SKIP(return, "no userfaultfd in this kernel (errno %d)", errno);
	ASSERT_EQ(0, ioctl(r.uffd, UFFDIO_API, &api));
	r.page = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, r.page);
	reg.range.start = (__u64)(uintptr_t)r.page;
	reg.range.len = page_size;
	ASSERT_EQ(0, ioctl(r.uffd, UFFDIO_REGISTER, &reg));
	memset(src, 0, sizeof(src));
	for (__u32 j = 0; j < n; j++) {
		lens[j] = 8;
		src[j] = 0x9e3779b97f4a7c15ull * (j + 1);
	}
	r.lens = lens;
	r.src = src;
	k.keys = (__u64)(uintptr_t)r.page;
	fd = create(self->dev, MEMFILTER_TYPE_CUCKOO, 10000, 0, 0, 12, 0, NULL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pthread_create(&thread, NULL, lens_race_handler, &r));
	ret = xioctl(fd, MEMFILTER_IOC_ADD, &k);
	pthread_join(thread, NULL);
	EXPECT_EQ(1, r.faults);
	EXPECT_EQ(MEMFILTER_KEY_MAX + 1, lens[300]);
	EXPECT_EQ(0, ret);
	EXPECT_EQ(n, k.out_done);
	EXPECT_EQ(n, k.out_count);
	ASSERT_EQ(0, info(fd, &i));
	EXPECT_EQ(n, i.keys);
	/* Every key went in as the 8 bytes the checked lengths said. */
	lens[300] = 8;
	k.out_count = 0;
	ASSERT_EQ(0, xioctl(fd, MEMFILTER_IOC_QUERY, &k));
	EXPECT_EQ(n, k.out_count);
	close(fd);
	munmap(r.page, page_size);
	close(r.uffd);
}

/* DELETE and ADD_UNIQUE are cuckoo commands, with or without keys. */
TEST_F(lim, cuckoo_commands_on_bloom)
{
	int fd = create(self->dev, MEMFILTER_TYPE_BLOOM, 100, 0, 40, 0, 0,
			NULL);
	__u64 key = 1;

	ASSERT_LE(0, fd);
	EXPECT_EQ(-EOPNOTSUPP, keys_op(fd, MEMFILTER_IOC_DELETE, &key, 0, NULL,
					NULL, NULL));
	EXPECT_EQ(-EOPNOTSUPP, keys_op(fd, MEMFILTER_IOC_ADD_UNIQUE, &key, 0,
					NULL, NULL, NULL));
	EXPECT_EQ(0, keys_op(fd, MEMFILTER_IOC_ADD, &key, 0, NULL, NULL, NULL));
	close(fd);
}

/* INFO's input __reserved must be zero, as every command's. */
TEST_F(lim, info_reserved_must_be_zero)
{
	struct memfilter_info i = { .size = sizeof(i), .__reserved = 1 };
	int fd = create(self->dev, MEMFILTER_TYPE_BLOOM, 100, 0, 40, 0, 0,
			NULL);

	ASSERT_LE(0, fd);
	EXPECT_EQ(-EOPNOTSUPP, xioctl(fd, MEMFILTER_IOC_INFO, &i));
	i.__reserved = 0;
	EXPECT_EQ(0, xioctl(fd, MEMFILTER_IOC_INFO, &i));
	close(fd);
}

TEST_HARNESS_MAIN
