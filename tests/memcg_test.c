// SPDX-License-Identifier: GPL-2.0
/*
 * Selftest of memory cgroup accounting: a growing filter's sub-filters
 * are charged to the cgroup the filter was created in, like its first
 * table, whoever adds the keys that make it grow and whether its work
 * item (a kernel thread, which no cgroup pays for unless told) or the add
 * itself makes them. cgroup2 is mounted on /sys/fs/cgroup unless it is
 * there already. Runs inside the guest as root.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/memfilter.h>

#include "kselftest_harness.h"
#include "memfilter_utils.h"

#define CGROOT		"/sys/fs/cgroup"
#define CREATOR		CGROOT "/mf.creator"
#define ADDER		CGROOT "/mf.adder"
/*
 * memory.current counts per-CPU charge batches (64 pages a CPU) that
 * other cgroups' charges may give back: far less than this.
 */
#define SLACK		(1 << 20)
#define CAPACITY	65536
#define BATCH		4096

static long long read_ll(const char *path)
{
	char buf[64] = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atoll(buf) : -1;
}

static long long current_of(const char *cg)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/memory.current", cg);
	return read_ll(path);
}

static int join(const char *cg)
{
	char path[128], pid[32];

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	snprintf(pid, sizeof(pid), "%d", getpid());
	return write_file(path, pid);
}

/*
 * In the creator's cgroup: a growing filter whose second sub-filter holds
 * 16 times the keys of the first, handed to the parent.
 */
static int create_in_cgroup(void *arg)
{
	struct memfilter_create c = {
		.size = sizeof(c), .type = MEMFILTER_TYPE_GROW,
		.capacity = CAPACITY, .fpr_ppb = 100000, .grow_max = 2,
		.grow_factor = 16,
	};
	int dev;

	if (join(CREATOR))
		return 10;
	dev = dev_open();
	if (dev < 0)
		return 11;
	if (xioctl(dev, MEMFILTER_IOC_CREATE, &c))
		return 12;
	return send_fd(*(int *)arg, c.out_fd) ? 13 : 0;
}

/* In the adder's cgroup: one key more than the first sub-filter holds. */
static int add_in_cgroup(void *arg)
{
	static uint64_t keys[BATCH];
	struct memfilter_keys k = {
		.size = sizeof(k), .key_size = 8,
		.keys = (__u64)(uintptr_t)keys,
	};
	uint64_t next = 0;
	int fd = *(int *)arg;

	if (join(ADDER))
		return 10;
	while (next <= CAPACITY) {
		k.count = 0;
		while (k.count < BATCH && next <= CAPACITY)
			keys[k.count++] = next++;
		if (xioctl(fd, MEMFILTER_IOC_ADD, &k) || k.out_done != k.count)
			return 11;
	}
	return 0;
}

FIXTURE(memcg) {
	bool mounted;
};

FIXTURE_SETUP(memcg)
{
	char ctrl[256] = { 0 };
	int fd;

	if (geteuid() != 0)
		SKIP(return, "needs root for cgroups");
	if (access(CGROOT "/cgroup.controllers", F_OK)) {
		if (mount("none", CGROOT, "cgroup2", 0, NULL))
			SKIP(return, "no cgroup2: %s", strerror(errno));
		self->mounted = true;
	}
	fd = open(CGROOT "/cgroup.controllers", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_LT(0, read(fd, ctrl, sizeof(ctrl) - 1));
	close(fd);
	if (!strstr(ctrl, "memory"))
		SKIP(return, "no memory controller");
	ASSERT_EQ(0, write_file(CGROOT "/cgroup.subtree_control", "+memory"));
	ASSERT_EQ(0, mkdir(CREATOR, 0755));
	ASSERT_EQ(0, mkdir(ADDER, 0755));
}

FIXTURE_TEARDOWN(memcg)
{
	rmdir(CREATOR);
	rmdir(ADDER);
	if (self->mounted)
		umount(CGROOT);
}

/*
 * A process in another cgroup adds the keys that make the filter grow;
 * the second sub-filter is made either by the work item the add queued
 * at half the first one's capacity or by the add that found the first
 * full, and either way the creator's cgroup pays for it, not the
 * adder's and not nobody.
 */
TEST_F(memcg, growth_charged_to_creator)
{
	long long c0, c1, a0, a1;
	struct memfilter_info i0, i1;
	int sv[2], fd;
	__u64 sub;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	ASSERT_EQ(0, run_child(create_in_cgroup, &sv[1]));
	fd = recv_fd(sv[0]);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, info(fd, &i0));
	ASSERT_EQ(1, i0.subfilters);

	c0 = current_of(CREATOR);
	a0 = current_of(ADDER);
	ASSERT_LE(0, c0);
	ASSERT_LE(0, a0);
	/* The creator's cgroup paid for the first table already. */
	EXPECT_LE(i0.bytes, c0);

	ASSERT_EQ(0, run_child(add_in_cgroup, &fd));
	ASSERT_EQ(0, info(fd, &i1));
	ASSERT_EQ(2, i1.subfilters);
	ASSERT_EQ(CAPACITY + 1, i1.keys);
	sub = i1.bytes - i0.bytes;
	ASSERT_LE(2 * SLACK, sub);

	c1 = current_of(CREATOR);
	a1 = current_of(ADDER);
	TH_LOG("second sub-filter %llu bytes; creator's cgroup %+lld, adder's %+lld",
	       (unsigned long long)sub, c1 - c0, a1 - a0);
	EXPECT_LE((long long)sub - SLACK, c1 - c0);
	EXPECT_GT(SLACK, a1 - a0);

	close(fd);
	close(sv[0]);
	close(sv[1]);
}

TEST_HARNESS_MAIN
