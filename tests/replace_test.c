// SPDX-License-Identifier: GPL-2.0
/*
 * Selftest of MEMFILTER_IOC_REPLACE and MEMFILTER_IOC_EXCHANGE through the
 * raw ABI, in the guest against the real module: a replace moves a
 * published name and its id to another filter in one call, the old filter
 * lives on through its fds with no name; exchange swaps two names' filters
 * (each name keeps its id); the errno table of the uapi header, error by
 * error, with nothing changed on error; privilege by the credentials the
 * device fd was opened with; and unloading the module right after many
 * replaces (their deferred puts still pending) frees everything. The
 * netfilter, BPF and device-mapper consumers are tested where their
 * traffic is (nf_test, bpf_test, dm_test.sh).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <stddef.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "memfilter_utils.h"

#define MODULE_KO "/memfilter/memfilter.ko"

FIXTURE(r) {
	int dev;
};

FIXTURE_SETUP(r)
{
	self->dev = dev_open();
	ASSERT_LE(0, self->dev);
}

FIXTURE_TEARDOWN(r)
{
	close(self->dev);
}

/* A Bloom filter of @cap keys (capacity tells filters apart), maybe named. */
static int bloom_cap(int dev, __u64 cap, const char *name)
{
	return create(dev, MEMFILTER_TYPE_BLOOM, cap, 0, 40, 0, 0, name);
}

static int unpublish(int fd)
{
	struct memfilter_name nm = { .size = sizeof(nm) };

	return xioctl(fd, MEMFILTER_IOC_UNPUBLISH, &nm);
}

/* What INFO says of @fd: its capacity, published id and name. */
static __u64 cap_of(int fd)
{
	struct memfilter_info i;

	return info(fd, &i) ? 0 : i.capacity;
}

static __u64 id_of(int fd)
{
	struct memfilter_info i;

	return info(fd, &i) ? ~0ull : i.pub_id;
}

static const char *name_of(int fd)
{
	static struct memfilter_info i;

	return info(fd, &i) ? "?" : i.name;
}

/* A read-write fd of the filter @name refers to now, or -errno. */
static int open_name(int dev, const char *name)
{
	struct memfilter_open o = {
		.size = sizeof(o), .flags = MEMFILTER_OPEN_WRITE,
	};

	strncpy(o.name, name, sizeof(o.name) - 1);
	return xioctl(dev, MEMFILTER_IOC_OPEN, &o) ?: o.out_fd;
}

/* The capacity of the filter @name refers to now, or -errno. */
static long long cap_by_name(int dev, const char *name)
{
	int fd = open_name(dev, name);
	long long cap;

	if (fd < 0)
		return fd;
	cap = cap_of(fd);
	close(fd);
	return cap;
}

TEST_F(r, feature_bit)
{
	struct memfilter_api a = {
		.size = sizeof(a), .api_version = MEMFILTER_API_VERSION,
	};

	ASSERT_EQ(0, xioctl(self->dev, MEMFILTER_IOC_API, &a));
	EXPECT_TRUE(a.features & MEMFILTER_FEAT_REPLACE);
}

/*
 * The name and its id move to the new filter; the old one keeps working
 * through its fd, unnamed, and may take a name again (a new id).
 */
TEST_F(r, replace_moves_name_and_id)
{
	int a = bloom_cap(self->dev, 1001, "rt.move");
	int b = bloom_cap(self->dev, 1002, NULL);
	__u64 key = 42, id;
	__u32 cnt;

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_EQ(0, keys_op(a, MEMFILTER_IOC_ADD, &key, 1, NULL, NULL, NULL));
	id = id_of(a);
	ASSERT_LT(0, id);
	EXPECT_EQ(0, id_of(b));

	ASSERT_EQ(0, name_replace(self->dev, "rt.move", b, 0));
	EXPECT_EQ(1002, cap_by_name(self->dev, "rt.move"));
	EXPECT_EQ(id, id_of(b));
	EXPECT_STREQ("rt.move", name_of(b));
	EXPECT_EQ(0, id_of(a));
	EXPECT_STREQ("", name_of(a));
	/* The old filter answers as before through its fd. */
	ASSERT_EQ(0, keys_op(a, MEMFILTER_IOC_QUERY, &key, 1, NULL, &cnt, NULL));
	EXPECT_EQ(1, cnt);
	/* Its own name was taken away: nothing to unpublish. */
	EXPECT_EQ(-ENOENT, unpublish(a));

	/* Rollback: the old one takes the name and the id back. */
	ASSERT_EQ(0, name_replace(self->dev, "rt.move", a, 0));
	EXPECT_EQ(1001, cap_by_name(self->dev, "rt.move"));
	EXPECT_EQ(id, id_of(a));
	EXPECT_EQ(0, id_of(b));

	/* Published again in the ordinary way: a new id. */
	EXPECT_EQ(0, unpublish(a));
	EXPECT_EQ(-ENOENT, cap_by_name(self->dev, "rt.move"));
	ASSERT_EQ(0, name_replace(self->dev, "rt.move", b,
				  MEMFILTER_REPLACE_PUBLISH));
	EXPECT_EQ(1002, cap_by_name(self->dev, "rt.move"));
	EXPECT_LT(0, id_of(b));
	EXPECT_NE(id, id_of(b));
	EXPECT_EQ(0, unpublish(b));
	close(a);
	close(b);
}

/* A filter whose name went to another lives while its fds do. */
TEST_F(r, replaced_filter_freed_with_its_fd)
{
	int a = bloom_cap(self->dev, 1003, "rt.free");
	int b = bloom_cap(self->dev, 1004, NULL);

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_EQ(0, name_replace(self->dev, "rt.free", b, 0));
	close(b);	/* the name holds b */
	EXPECT_EQ(1004, cap_by_name(self->dev, "rt.free"));
	EXPECT_EQ(1003, cap_of(a));
	close(a);	/* a's last reference: gone */
	EXPECT_EQ(1004, cap_by_name(self->dev, "rt.free"));
	b = open_name(self->dev, "rt.free");
	ASSERT_LE(0, b);
	EXPECT_EQ(0, unpublish(b));
	close(b);
	EXPECT_EQ(-ENOENT, cap_by_name(self->dev, "rt.free"));
}

/* Every errno of the table; nothing changes on error. */
TEST_F(r, replace_errnos)
{
	struct memfilter_replace rp = { .size = sizeof(rp) };
	struct memfilter_open o = { .size = sizeof(o) };
	int a = bloom_cap(self->dev, 1011, "rt.err");
	int b = bloom_cap(self->dev, 1012, NULL);
	int c = bloom_cap(self->dev, 1013, "rt.err.c");
	int ro_dev, ro;
	__u64 id;

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_LE(0, c);
	id = id_of(a);
	EXPECT_EQ(-ENOENT, name_replace(self->dev, "rt.err.none", b, 0));
	/* Published filters, under another name or this one: EBUSY. */
	EXPECT_EQ(-EBUSY, name_replace(self->dev, "rt.err", c, 0));
	EXPECT_EQ(-EBUSY, name_replace(self->dev, "rt.err", a, 0));
	EXPECT_EQ(-EBUSY, name_replace(self->dev, "rt.err.none", c,
				       MEMFILTER_REPLACE_PUBLISH));
	/* Not a filter fd: the device, a closed number, -1, a pipe. */
	EXPECT_EQ(-EBADF, name_replace(self->dev, "rt.err", self->dev, 0));
	EXPECT_EQ(-EBADF, name_replace(self->dev, "rt.err", 1000, 0));
	EXPECT_EQ(-EBADF, name_replace(self->dev, "rt.err", -1, 0));
	EXPECT_EQ(-EBADF, name_replace(self->dev, "rt.err", 0, 0));
	/* A read-only fd of an unpublished filter. */
	strcpy(o.name, "rt.err.c");
	ASSERT_EQ(0, xioctl(self->dev, MEMFILTER_IOC_OPEN, &o));
	ro = o.out_fd;
	ASSERT_EQ(0, unpublish(c));
	EXPECT_EQ(-EBADF, name_replace(self->dev, "rt.err", ro, 0));
	EXPECT_EQ(0, id_of(c));
	/* The device opened read-only. */
	ro_dev = open(MF_DEV, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, ro_dev);
	EXPECT_EQ(-EBADF, name_replace(ro_dev, "rt.err", b, 0));
	EXPECT_EQ(-EBADF, name_exchange(ro_dev, "rt.err", "rt.err"));
	close(ro_dev);
	/* Names: invalid characters, unterminated, junk after the NUL. */
	EXPECT_EQ(-EINVAL, name_replace(self->dev, "rt err", b, 0));
	EXPECT_EQ(-EINVAL, name_replace(self->dev, "", b, 0));
	rp.fd = b;
	memset(rp.name, 'x', sizeof(rp.name));
	EXPECT_EQ(-EINVAL, xioctl(self->dev, MEMFILTER_IOC_REPLACE, &rp));
	memset(rp.name, 0, sizeof(rp.name));
	strcpy(rp.name, "rt.err");
	rp.name[40] = 'x';
	EXPECT_EQ(-EINVAL, xioctl(self->dev, MEMFILTER_IOC_REPLACE, &rp));
	rp.name[40] = 0;
	/* Unknown flags, __reserved. */
	rp.flags = 2;
	EXPECT_EQ(-EOPNOTSUPP, xioctl(self->dev, MEMFILTER_IOC_REPLACE, &rp));
	rp.flags = 1u << 31;
	EXPECT_EQ(-EOPNOTSUPP, xioctl(self->dev, MEMFILTER_IOC_REPLACE, &rp));
	rp.flags = 0;
	rp.__reserved = 1;
	EXPECT_EQ(-EOPNOTSUPP, xioctl(self->dev, MEMFILTER_IOC_REPLACE, &rp));
	EXPECT_EQ(-EFAULT, xioctl(self->dev, MEMFILTER_IOC_REPLACE, NULL));
	/* A filter command, not a device one. */
	EXPECT_EQ(-ENOTTY, xioctl(b, MEMFILTER_IOC_REPLACE, &rp));
	EXPECT_EQ(-ENOTTY, xioctl(b, MEMFILTER_IOC_EXCHANGE, &rp));

	/* Nothing changed. */
	EXPECT_EQ(1011, cap_by_name(self->dev, "rt.err"));
	EXPECT_EQ(id, id_of(a));
	EXPECT_EQ(0, id_of(b));
	EXPECT_EQ(-ENOENT, cap_by_name(self->dev, "rt.err.none"));
	rp.__reserved = 0;
	EXPECT_EQ(0, xioctl(self->dev, MEMFILTER_IOC_REPLACE, &rp));
	EXPECT_EQ(1012, cap_by_name(self->dev, "rt.err"));
	EXPECT_EQ(0, unpublish(b));
	close(ro);
	close(a);
	close(b);
	close(c);
}

/* Exchange: each name keeps its id, the filters swap. */
TEST_F(r, exchange_swaps)
{
	int a = bloom_cap(self->dev, 1021, "rt.x.a");
	int b = create_default(self->dev, MEMFILTER_TYPE_CUCKOO, 1022, 0);
	struct memfilter_exchange x = {
		.size = sizeof(x), .name = "rt.x.a", .other = "rt.x.b",
	};
	__u64 ida, idb;

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_EQ(0, name_replace(self->dev, "rt.x.b", b,
				  MEMFILTER_REPLACE_PUBLISH));
	ida = id_of(a);
	idb = id_of(b);
	ASSERT_EQ(0, name_exchange(self->dev, "rt.x.a", "rt.x.b"));
	EXPECT_EQ(1022, cap_by_name(self->dev, "rt.x.a"));
	EXPECT_EQ(1021, cap_by_name(self->dev, "rt.x.b"));
	EXPECT_EQ(ida, id_of(b));
	EXPECT_EQ(idb, id_of(a));
	EXPECT_STREQ("rt.x.b", name_of(a));
	EXPECT_STREQ("rt.x.a", name_of(b));
	/* Back, in the other order of the names. */
	ASSERT_EQ(0, name_exchange(self->dev, "rt.x.b", "rt.x.a"));
	EXPECT_EQ(1021, cap_by_name(self->dev, "rt.x.a"));
	EXPECT_EQ(ida, id_of(a));

	EXPECT_EQ(-EINVAL, name_exchange(self->dev, "rt.x.a", "rt.x.a"));
	EXPECT_EQ(-ENOENT, name_exchange(self->dev, "rt.x.a", "rt.x.none"));
	EXPECT_EQ(-ENOENT, name_exchange(self->dev, "rt.x.none", "rt.x.a"));
	EXPECT_EQ(-EINVAL, name_exchange(self->dev, "rt.x.a", "rt/x"));
	EXPECT_EQ(-EINVAL, name_exchange(self->dev, "", "rt.x.a"));
	x.flags = 1;
	EXPECT_EQ(-EOPNOTSUPP, xioctl(self->dev, MEMFILTER_IOC_EXCHANGE, &x));
	x.flags = 0;
	x.other[60] = 'j';
	EXPECT_EQ(-EINVAL, xioctl(self->dev, MEMFILTER_IOC_EXCHANGE, &x));
	EXPECT_EQ(ida, id_of(a));
	EXPECT_EQ(idb, id_of(b));
	EXPECT_EQ(0, unpublish(a));
	EXPECT_EQ(0, unpublish(b));
	close(a);
	close(b);
}

/* The size matrix of both commands (filter_test checks the others). */
TEST_F(r, size_matrix)
{
	static const struct {
		unsigned long cmd;
		size_t size;
	} cmds[] = {
		{ MEMFILTER_IOC_REPLACE, sizeof(struct memfilter_replace) },
		{ MEMFILTER_IOC_EXCHANGE, sizeof(struct memfilter_exchange) },
	};
	unsigned char buf[512];

	for (size_t c = 0; c < 2; c++) {
		__u32 size = cmds[c].size - 1;

		memset(buf, 0, sizeof(buf));
		memcpy(buf, &size, 4);
		EXPECT_EQ(-EINVAL, xioctl(self->dev, cmds[c].cmd, buf));
		size = cmds[c].size + 1;
		memcpy(buf, &size, 4);
		buf[cmds[c].size] = 1;
		EXPECT_EQ(-E2BIG, xioctl(self->dev, cmds[c].cmd, buf));
		/* A zero tail is accepted: the request goes on to its names. */
		buf[cmds[c].size] = 0;
		EXPECT_EQ(-EINVAL, xioctl(self->dev, cmds[c].cmd, buf));
	}
}

struct cred_args {
	int dev;
	int fd;
};

/* nobody, holding root's device fd: root's right to name. */
static int replace_with_roots_fd(void *arg)
{
	const struct cred_args *c = arg;

	if (name_replace(c->dev, "rt.cred", c->fd, 0))
		return 11;
	return name_exchange(c->dev, "rt.cred", "rt.cred.other") ? 12 : 0;
}

/*
 * The credentials the device fd was opened with decide, not the caller's:
 * nobody may replace and exchange through root's fd; a fd opened without
 * CAP_SYS_ADMIN may not, even in the hands of a process that has it.
 */
TEST_F(r, opener_credentials)
{
	int a = bloom_cap(self->dev, 1031, "rt.cred");
	int b = bloom_cap(self->dev, 1032, NULL);
	int o = bloom_cap(self->dev, 1033, "rt.cred.other");
	struct cred_args c = { .dev = self->dev, .fd = b };
	int status;
	pid_t pid;

	SKIP_UNLESS_ROOT();
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_LE(0, o);
	EXPECT_EQ(0, as_nobody(replace_with_roots_fd, &c));
	EXPECT_EQ(1033, cap_by_name(self->dev, "rt.cred"));
	EXPECT_EQ(1032, cap_by_name(self->dev, "rt.cred.other"));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		uint64_t all = CAP_BIT(CAP_SYS_ADMIN) | CAP_BIT(CAP_DAC_OVERRIDE);
		int no_sys;

		if (set_effective(all & ~CAP_BIT(CAP_SYS_ADMIN)))
			_exit(20);
		no_sys = dev_open();
		if (no_sys < 0 || set_effective(all))
			_exit(21);
		if (name_replace(no_sys, "rt.cred", a, 0) != -EPERM)
			_exit(22);
		if (name_exchange(no_sys, "rt.cred", "rt.cred.other") != -EPERM)
			_exit(23);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(1033, cap_by_name(self->dev, "rt.cred"));
	EXPECT_EQ(0, unpublish(o));
	EXPECT_EQ(0, unpublish(b));
	close(a);
	close(b);
	close(o);
}

/*
 * Unloading right after many replaces: the names' references to the
 * filters they left are dropped after a grace period, by callbacks the
 * unload must wait for (a callback run after the module's text is gone
 * would crash the guest). The module is loaded again afterwards.
 */
TEST(rmmod_after_replaces)
{
	int dev = dev_open(), fd[2], ko, i;

	ASSERT_LE(0, dev);
	if (access(MODULE_KO, R_OK)) {
		close(dev);
		SKIP(return, "no " MODULE_KO);
	}
	fd[0] = bloom_cap(dev, 1041, "rt.rmmod");
	fd[1] = bloom_cap(dev, 1042, NULL);
	ASSERT_LE(0, fd[0]);
	ASSERT_LE(0, fd[1]);
	for (i = 1; i <= 200; i++)
		ASSERT_EQ(0, name_replace(dev, "rt.rmmod", fd[i & 1], 0));
	close(fd[0]);
	close(fd[1]);
	close(dev);
	ASSERT_EQ(0, syscall(SYS_delete_module, "memfilter", O_NONBLOCK))
		TH_LOG("rmmod: %s", strerror(errno));
	ko = open(MODULE_KO, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, ko);
	ASSERT_EQ(0, syscall(SYS_finit_module, ko, "", 0))
		TH_LOG("insmod: %s", strerror(errno));
	close(ko);
	dev = dev_open();
	ASSERT_LE(0, dev);
	EXPECT_EQ(-ENOENT, name_exchange(dev, "rt.rmmod", "rt.rmmod.x"));
	close(dev);
}

TEST_HARNESS_MAIN
