// SPDX-License-Identifier: GPL-2.0
/*
 * Selftest of /dev/memfilter's handshake and the ioctl conventions every
 * later command shares: the size matrix, unknown commands, bad pointers,
 * flags, and who may open the device. Runs inside the guest against the
 * real module (kselftest harness, TAP output, exit code decides).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "kselftest_harness.h"
#include "memfilter_utils.h"

FIXTURE(dev) {
	int fd;
	long page;
};

FIXTURE_SETUP(dev)
{
	self->fd = dev_open();
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", MF_DEV, strerror(errno));
	self->page = sysconf(_SC_PAGESIZE);
}

FIXTURE_TEARDOWN(dev)
{
	close(self->fd);
}

static int api(int fd, void *arg)
{
	return xioctl(fd, MEMFILTER_IOC_API, arg);
}

TEST_F(dev, handshake)
{
	struct memfilter_api a = {
		.size = sizeof(a),
		.api_version = MEMFILTER_API_VERSION,
	};

	ASSERT_EQ(0, api(self->fd, &a));
	EXPECT_EQ(MEMFILTER_API_VERSION, a.api_version);
	EXPECT_EQ(sizeof(a), a.size);
	EXPECT_TRUE(a.features & MEMFILTER_FEAT_HASH_XXH64);
	EXPECT_TRUE(a.features & MEMFILTER_FEAT_HASH_SIPHASH);
	EXPECT_EQ(0, a.__reserved);
}

TEST_F(dev, wrong_version)
{
	struct memfilter_api a = { .size = sizeof(a), .api_version = 999 };

	EXPECT_EQ(-EOPNOTSUPP, api(self->fd, &a));
	EXPECT_EQ(MEMFILTER_API_VERSION, a.api_version);
	a.api_version = 0;
	EXPECT_EQ(-EOPNOTSUPP, api(self->fd, &a));
}

TEST_F(dev, flags_and_reserved_must_be_zero)
{
	struct memfilter_api a = {
		.size = sizeof(a),
		.api_version = MEMFILTER_API_VERSION,
		.flags = 1,
	};

	EXPECT_EQ(-EOPNOTSUPP, api(self->fd, &a));
	EXPECT_EQ(0, a.features);
	a.flags = 0x80000000u;
	EXPECT_EQ(-EOPNOTSUPP, api(self->fd, &a));
	a.flags = 0;
	a.__reserved = 1;
	EXPECT_EQ(-EOPNOTSUPP, api(self->fd, &a));
}

/*
 * The size matrix of the ABI rules: too small is EINVAL, larger with a
 * non-zero tail is E2BIG, larger with a zero tail is accepted and the tail
 * is left alone.
 */
TEST_F(dev, size_matrix)
{
	const size_t sz = sizeof(struct memfilter_api);
	unsigned char buf[sizeof(struct memfilter_api) + 64];
	struct memfilter_api *a = (void *)buf;
	size_t extra;

	for (size_t s = 0; s < sz; s++) {
		memset(buf, 0, sizeof(buf));
		a->size = s;
		a->api_version = MEMFILTER_API_VERSION;
		EXPECT_EQ(-EINVAL, api(self->fd, buf)) TH_LOG("size %zu", s);
	}
	for (extra = 1; extra <= 64; extra *= 2) {
		memset(buf, 0, sizeof(buf));
		a->size = sz + extra;
		a->api_version = MEMFILTER_API_VERSION;
		EXPECT_EQ(0, api(self->fd, buf)) TH_LOG("size %zu", sz + extra);
		for (size_t i = sz; i < sz + extra; i++)
			EXPECT_EQ(0, buf[i]);

		buf[sz + extra - 1] = 0x5a;
		EXPECT_EQ(-E2BIG, api(self->fd, buf)) TH_LOG("size %zu", sz + extra);
	}
}

TEST_F(dev, huge_size_reaches_unmapped_memory)
{
	struct memfilter_api *a;
	char *map;

	/* Two pages, the second unmapped: a size crossing into it faults. */
	map = mmap(NULL, 2 * self->page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, munmap(map + self->page, self->page));
	a = (void *)(map + self->page - sizeof(*a));
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a) + 8;
	a->api_version = MEMFILTER_API_VERSION;
	EXPECT_EQ(-EFAULT, api(self->fd, a));
	a->size = 0xffffffffu;	/* over a page: refused before any read */
	EXPECT_EQ(-E2BIG, api(self->fd, a));
	a->size = sizeof(*a);
	EXPECT_EQ(0, api(self->fd, a));
	munmap(map, self->page);
}

TEST_F(dev, bad_pointers)
{
	EXPECT_EQ(-1, ioctl(self->fd, MEMFILTER_IOC_API, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, MEMFILTER_IOC_API, (void *)16));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, MEMFILTER_IOC_API, (void *)-4096L));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(dev, unknown_commands)
{
	struct memfilter_api a = {
		.size = sizeof(a),
		.api_version = MEMFILTER_API_VERSION,
	};
	unsigned int nr;

	/* Numbers below the base, past the table, and another type. */
	EXPECT_EQ(-1, ioctl(self->fd, _IOWR(MEMFILTER_IOCTL_TYPE, 0, struct memfilter_api), &a));
	EXPECT_EQ(ENOTTY, errno);
	for (nr = MEMFILTER_CMD_BASE + 0x40; nr < 0x100; nr += 0x1f) {
		EXPECT_EQ(-1, ioctl(self->fd, _IOWR(MEMFILTER_IOCTL_TYPE, nr,
						     struct memfilter_api), &a));
		EXPECT_EQ(ENOTTY, errno);
	}
	EXPECT_EQ(-1, ioctl(self->fd, _IOWR('x', MEMFILTER_CMD_API,
					     struct memfilter_api), &a));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->fd, FIONREAD, &nr));
	EXPECT_EQ(ENOTTY, errno);
}

TEST_F(dev, size_bits_of_command_are_ignored)
{
	struct memfilter_api a = {
		.size = sizeof(a),
		.api_version = MEMFILTER_API_VERSION,
	};

	/* A newer header's larger struct changes _IOC_SIZE, not the command. */
	EXPECT_EQ(0, ioctl(self->fd, _IOC(_IOC_READ | _IOC_WRITE,
					  MEMFILTER_IOCTL_TYPE,
					  MEMFILTER_CMD_API, 64), &a));
}

TEST(device_node)
{
	struct stat st;

	ASSERT_EQ(0, stat(MF_DEV, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0600, st.st_mode & 07777);
	EXPECT_EQ(10, major(st.st_rdev));
}

static int open_refused(void *arg)
{
	int fd = open(MF_DEV, O_RDWR);

	if (fd >= 0)
		return 11;
	return errno == EACCES || errno == EPERM ? 0 : 12;
}

TEST(unprivileged_open_refused)
{
	SKIP_UNLESS_ROOT();
	EXPECT_EQ(0, as_nobody(open_refused, NULL));
}

TEST_HARNESS_MAIN
