// SPDX-License-Identifier: GPL-2.0
/*
 * Selftest of who may change a filter: read-only and read-write filter
 * fds (MEMFILTER_OPEN_WRITE), a read-only /dev/memfilter, privileges
 * checked against the credentials an fd was opened with (not whoever uses
 * it, both ways), uid 0 without capabilities, the owner's capabilities,
 * and the bound on argument sizes. The unprivileged cases run as a member
 * of the device's group, as the admin guide's udev rule sets it up; the
 * uid 0 cases drop capabilities with capset() and no user namespace. Runs
 * inside the guest as root.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/memfilter.h>

#include "kselftest_harness.h"
#include "memfilter_utils.h"

#define GROUP		4242	/* the device's group, as the udev rule sets */
#define OTHER_USER	65533

/* A filter of any @type for 1000 keys at 10 bits per key (cuckoo: 12-bit). */
static int filter(int dev, __u32 type, __u32 flags, const char *name)
{
	struct memfilter_create c = {
		.size = sizeof(c), .type = type, .capacity = 1000,
		.flags = flags,
	};
	int ret;

	if (type == MEMFILTER_TYPE_CUCKOO)
		c.fingerprint_bits = 12;
	else
		c.bits_per_key_q4 = 40;
	if (type == MEMFILTER_TYPE_WINDOW)
		c.generations = 4;
	if (name)
		strncpy(c.name, name, sizeof(c.name) - 1);
	ret = xioctl(dev, MEMFILTER_IOC_CREATE, &c);
	return ret ? ret : c.out_fd;
}

static int open_name(int dev, const char *name, __u32 flags)
{
	struct memfilter_open o = { .size = sizeof(o), .flags = flags };
	int ret;

	strncpy(o.name, name, sizeof(o.name) - 1);
	ret = xioctl(dev, MEMFILTER_IOC_OPEN, &o);
	return ret ? ret : o.out_fd;
}

/* One 8-byte key through a batch command. */
static int key_op(int fd, unsigned long cmd, __u64 key, __u32 *out_count)
{
	return keys_op(fd, cmd, &key, 1, NULL, out_count, NULL);
}

static int publish(int fd, const char *name)
{
	struct memfilter_name nm = { .size = sizeof(nm) };

	if (name)
		strncpy(nm.name, name, sizeof(nm.name) - 1);
	return xioctl(fd, name ? MEMFILTER_IOC_PUBLISH :
			  MEMFILTER_IOC_UNPUBLISH, &nm);
}

/* Become @uid, a member of the device's group, with no capabilities. */
static int drop_to(uid_t uid)
{
	gid_t g = GROUP;

	return setgroups(1, &g) || setgid(MF_NOBODY) || setuid(uid) ? -1 : 0;
}

/*
 * Stay uid 0 but keep only the capabilities in @keep (bits CAP_*), in the
 * initial user namespace: the bounding set loses the others, and the
 * effective and permitted sets are @keep alone.
 */
static int caps_only(__u64 keep)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2] = { { 0 } };
	int cap;

	for (cap = 0; cap < 64; cap++)
		if (!(keep >> cap & 1) && prctl(PR_CAPBSET_DROP, cap) &&
		    errno != EINVAL)
			return -1;
	d[0].effective = d[0].permitted = (__u32)keep;
	d[1].effective = d[1].permitted = (__u32)(keep >> 32);
	if (syscall(SYS_capset, &h, d))
		return -1;
	memset(d, 0xff, sizeof(d));
	if (syscall(SYS_capget, &h, d) || d[0].effective != (__u32)keep ||
	    d[1].effective != (__u32)(keep >> 32))
		return -1;
	return geteuid() == 0 ? 0 : -1;
}

#define CAP(c)	(1ULL << (c))

static int load_named(int dev, const char *name)
{
	char img[64] = { 0 };
	struct memfilter_load l = {
		.size = sizeof(l), .image = (__u64)(uintptr_t)img,
		.image_len = sizeof(img),
	};
	int ret;

	strncpy(l.name, name, sizeof(l.name) - 1);
	ret = xioctl(dev, MEMFILTER_IOC_LOAD, &l);
	return ret ? ret : l.out_fd;
}

static int clear(int fd)
{
	struct memfilter_clear c = { .size = sizeof(c) };

	return xioctl(fd, MEMFILTER_IOC_CLEAR, &c);
}

FIXTURE(perm) {
	int dev;
	struct stat st;
};

FIXTURE_SETUP(perm)
{
	SKIP_UNLESS_ROOT();
	self->dev = dev_open();
	ASSERT_LE(0, self->dev);
	/* The admin guide's udev rule: GROUP="memfilter", MODE="0660". */
	ASSERT_EQ(0, stat(MF_DEV, &self->st));
	ASSERT_EQ(0, chown(MF_DEV, 0, GROUP));
	ASSERT_EQ(0, chmod(MF_DEV, 0660));
}

FIXTURE_TEARDOWN(perm)
{
	if (geteuid() != 0)
		return;
	chown(MF_DEV, self->st.st_uid, self->st.st_gid);
	chmod(MF_DEV, self->st.st_mode & 07777);
	close(self->dev);
}

/*
 * A group member opens a root-published filter: it may query, read its
 * info and dump it, but every command that changes it fails with EBADF,
 * asking for a writable fd fails with EPERM, and nothing changes.
 */
static int unpriv_read_only(void *arg)
{
	struct memfilter_rotate rot = { .size = sizeof(rot) };
	struct memfilter_info i;
	char img[256];
	__u32 cnt = 0;
	int dev, fd;

	if (drop_to(MF_NOBODY))
		return 10;
	dev = dev_open();
	if (dev < 0)
		return 11;
	if (open_name(dev, "perm.root", MEMFILTER_OPEN_WRITE) != -EPERM)
		return 12;
	if (open_name(dev, "perm.root", 1U << 31) != -EOPNOTSUPP)
		return 13;
	fd = open_name(dev, "perm.root", 0);
	if (fd < 0)
		return 14;
	if (key_op(fd, MEMFILTER_IOC_QUERY, 42, &cnt) || cnt != 1)
		return 15;
	if (info(fd, &i) || strcmp(i.name, "perm.root"))
		return 16;
	if (key_op(fd, MEMFILTER_IOC_ADD, 7, NULL) != -EBADF)
		return 17;
	if (key_op(fd, MEMFILTER_IOC_DELETE, 42, NULL) != -EBADF)
		return 18;
	if (key_op(fd, MEMFILTER_IOC_ADD_UNIQUE, 7, NULL) != -EBADF)
		return 19;
	if (xioctl(fd, MEMFILTER_IOC_CLEAR,
		   &(struct memfilter_clear){ .size = 8 }) != -EBADF)
		return 20;
	if (publish(fd, NULL) != -EBADF || publish(fd, "perm.other") != -EBADF)
		return 21;
	/* An unkeyed filter's image is no more than its queries reveal. */
	if (pread(fd, img, sizeof(img), 0) != sizeof(img))
		return 22;
	close(fd);
	/* A keyed filter's image carries its secret: no dump. */
	fd = open_name(dev, "perm.keyed", 0);
	if (fd < 0)
		return 23;
	if (key_op(fd, MEMFILTER_IOC_QUERY, 42, &cnt) || cnt != 1)
		return 24;
	if (pread(fd, img, sizeof(img), 0) != -1 || errno != EPERM)
		return 25;
	if (key_op(fd, MEMFILTER_IOC_DELETE, 42, NULL) != -EBADF)
		return 26;
	close(fd);
	/* A window filter: no rotation, no test-and-add through it. */
	fd = open_name(dev, "perm.window", 0);
	if (fd < 0)
		return 27;
	if (xioctl(fd, MEMFILTER_IOC_ROTATE, &rot) != -EBADF)
		return 28;
	if (key_op(fd, MEMFILTER_IOC_TEST_AND_ADD, 7, NULL) != -EBADF)
		return 29;
	if (xioctl(fd, MEMFILTER_IOC_CLEAR,
		   &(struct memfilter_clear){ .size = 8 }) != -EBADF)
		return 30;
	if (key_op(fd, MEMFILTER_IOC_QUERY, 42, &cnt) || cnt != 1)
		return 31;
	return 0;
}

TEST_F(perm, group_member_gets_read_only_fds)
{
	struct memfilter_info before, after, wbefore, wafter;
	__u32 cnt;
	int bloom, keyed, window;

	bloom = filter(self->dev, MEMFILTER_TYPE_BLOOM, 0, "perm.root");
	ASSERT_LE(0, bloom);
	keyed = filter(self->dev, MEMFILTER_TYPE_CUCKOO, MEMFILTER_CREATE_KEYED,
		       "perm.keyed");
	ASSERT_LE(0, keyed);
	ASSERT_EQ(0, key_op(bloom, MEMFILTER_IOC_ADD, 42, NULL));
	ASSERT_EQ(0, key_op(keyed, MEMFILTER_IOC_ADD, 42, NULL));
	window = filter(self->dev, MEMFILTER_TYPE_WINDOW, 0, "perm.window");
	ASSERT_LE(0, window);
	ASSERT_EQ(0, key_op(window, MEMFILTER_IOC_ADD, 42, NULL));
	ASSERT_EQ(0, info(bloom, &before));
	ASSERT_EQ(0, info(window, &wbefore));

	EXPECT_EQ(0, run_child(unpriv_read_only, NULL));

	ASSERT_EQ(0, info(window, &wafter));
	EXPECT_EQ(wbefore.current_gen, wafter.current_gen);
	EXPECT_EQ(wbefore.keys, wafter.keys);
	EXPECT_EQ(wbefore.fill, wafter.fill);
	EXPECT_EQ(0, publish(window, NULL));
	close(window);
	ASSERT_EQ(0, info(bloom, &after));
	EXPECT_EQ(before.keys, after.keys);
	EXPECT_EQ(before.fill, after.fill);
	EXPECT_EQ(0, key_op(bloom, MEMFILTER_IOC_QUERY, 42, &cnt));
	EXPECT_EQ(1, cnt);
	EXPECT_EQ(0, key_op(keyed, MEMFILTER_IOC_QUERY, 42, &cnt));
	EXPECT_EQ(1, cnt);
	EXPECT_TRUE(after.status & MEMFILTER_STATUS_PUBLISHED);
	EXPECT_EQ(0, publish(bloom, NULL));
	EXPECT_EQ(0, publish(keyed, NULL));
	close(bloom);
	close(keyed);
}

/* Root may open a published filter for writing, and then write. */
TEST_F(perm, admin_opens_for_writing)
{
	__u32 cnt;
	int fd, rw, ro;

	fd = filter(self->dev, MEMFILTER_TYPE_CUCKOO, 0, "perm.admin");
	ASSERT_LE(0, fd);
	close(fd);
	rw = open_name(self->dev, "perm.admin", MEMFILTER_OPEN_WRITE);
	ASSERT_LE(0, rw);
	ro = open_name(self->dev, "perm.admin", 0);
	ASSERT_LE(0, ro);
	EXPECT_EQ(0, key_op(rw, MEMFILTER_IOC_ADD, 5, NULL));
	EXPECT_EQ(-EBADF, key_op(ro, MEMFILTER_IOC_ADD, 6, NULL));
	EXPECT_EQ(0, key_op(ro, MEMFILTER_IOC_QUERY, 5, &cnt));
	EXPECT_EQ(1, cnt);
	EXPECT_EQ(0, key_op(rw, MEMFILTER_IOC_DELETE, 5, NULL));
	EXPECT_EQ(-EBADF, publish(ro, NULL));
	EXPECT_EQ(0, publish(rw, NULL));
	close(ro);
	close(rw);
}

/* The owner (creator's euid) may write without a capability; others not. */
static int owner_writes(void *arg)
{
	int dev, fd;

	if (drop_to(*(uid_t *)arg))
		return 10;
	dev = dev_open();
	if (dev < 0)
		return 11;
	fd = open_name(dev, "perm.owned", MEMFILTER_OPEN_WRITE);
	if (*(uid_t *)arg != MF_NOBODY)
		return fd == -EPERM ? 0 : 12;
	if (fd < 0)
		return 13;
	if (key_op(fd, MEMFILTER_IOC_ADD, 9, NULL))
		return 14;
	/* Naming stays with CAP_SYS_ADMIN, owner or not. */
	return publish(fd, NULL) == -EPERM ? 0 : 15;
}

/* Remove a published filter as root: a writable fd of root's, unpublished. */
static int root_unpublish(int dev, const char *name)
{
	int fd = open_name(dev, name, MEMFILTER_OPEN_WRITE), ret;

	if (fd < 0)
		return fd;
	ret = publish(fd, NULL);
	close(fd);
	return ret;
}

TEST_F(perm, owner_may_write)
{
	uid_t user = MF_NOBODY, other = OTHER_USER;
	__u32 cnt;
	int fd;

	/*
	 * Create as the user (euid nobody, no capabilities) through root's
	 * /dev/memfilter fd, whose opener may name it: the user owns it.
	 */
	ASSERT_EQ(0, seteuid(MF_NOBODY));
	fd = filter(self->dev, MEMFILTER_TYPE_BLOOM, 0, "perm.owned");
	ASSERT_EQ(0, seteuid(0));
	ASSERT_LE(0, fd);

	EXPECT_EQ(0, run_child(owner_writes, &user));
	EXPECT_EQ(0, run_child(owner_writes, &other));
	EXPECT_EQ(0, key_op(fd, MEMFILTER_IOC_QUERY, 9, &cnt));
	EXPECT_EQ(1, cnt);
	/* The fd is the user's, whoever holds it: root cannot unpublish by it. */
	EXPECT_EQ(-EPERM, publish(fd, NULL));
	EXPECT_EQ(0, root_unpublish(self->dev, "perm.owned"));
	close(fd);
}

/*
 * uid 0 without capabilities (a container without a user namespace, a
 * service that dropped them) is not root: it reads root's published
 * filters but opens none for writing, names nothing, and every change
 * through a read-only fd fails.
 */
static int capless_root(void *arg)
{
	char img[256];
	__u32 cnt = 0;
	int dev, fd, own;

	if (caps_only(0))
		return 10;
	dev = dev_open();
	if (dev < 0)
		return 11;
	if (open_name(dev, "perm.croot", MEMFILTER_OPEN_WRITE) != -EPERM)
		return 12;
	if (open_name(dev, "perm.croot.c", MEMFILTER_OPEN_WRITE) != -EPERM)
		return 13;
	fd = open_name(dev, "perm.croot", 0);
	if (fd < 0)
		return 14;
	if (key_op(fd, MEMFILTER_IOC_QUERY, 42, &cnt) || cnt != 1)
		return 15;
	if (pread(fd, img, sizeof(img), 0) != sizeof(img))
		return 16;
	if (key_op(fd, MEMFILTER_IOC_ADD, 7, NULL) != -EBADF)
		return 17;
	if (clear(fd) != -EBADF)
		return 18;
	if (publish(fd, NULL) != -EBADF)
		return 19;
	close(fd);
	fd = open_name(dev, "perm.croot.c", 0);
	if (fd < 0)
		return 20;
	if (key_op(fd, MEMFILTER_IOC_DELETE, 42, NULL) != -EBADF)
		return 21;
	close(fd);
	/* Names are root's: not by create, not by load, not by publish. */
	if (load_named(dev, "perm.croot") != -EPERM)
		return 22;
	if (filter(dev, MEMFILTER_TYPE_BLOOM, 0, "perm.croot.2") != -EPERM)
		return 23;
	own = filter(dev, MEMFILTER_TYPE_BLOOM, 0, NULL);
	if (own < 0)
		return 24;
	if (publish(own, "perm.croot.3") != -EPERM)
		return 25;
	return 0;
}

TEST_F(perm, uid0_without_capabilities)
{
	struct memfilter_info before, after;
	__u32 cnt;
	int bloom, cuckoo;

	bloom = filter(self->dev, MEMFILTER_TYPE_BLOOM, 0, "perm.croot");
	ASSERT_LE(0, bloom);
	cuckoo = filter(self->dev, MEMFILTER_TYPE_CUCKOO, 0, "perm.croot.c");
	ASSERT_LE(0, cuckoo);
	ASSERT_EQ(0, key_op(bloom, MEMFILTER_IOC_ADD, 42, NULL));
	ASSERT_EQ(0, key_op(cuckoo, MEMFILTER_IOC_ADD, 42, NULL));
	ASSERT_EQ(0, info(bloom, &before));

	EXPECT_EQ(0, run_child(capless_root, NULL));

	ASSERT_EQ(0, info(bloom, &after));
	EXPECT_EQ(before.keys, after.keys);
	EXPECT_EQ(before.fill, after.fill);
	EXPECT_TRUE(after.status & MEMFILTER_STATUS_PUBLISHED);
	EXPECT_EQ(0, key_op(cuckoo, MEMFILTER_IOC_QUERY, 42, &cnt));
	EXPECT_EQ(1, cnt);
	EXPECT_EQ(-ENOENT, open_name(self->dev, "perm.croot.2", 0));
	EXPECT_EQ(0, publish(bloom, NULL));
	EXPECT_EQ(0, publish(cuckoo, NULL));
	close(bloom);
	close(cuckoo);
}

/* uid 0 with only @caps, acting on filter @name (through @dev if set). */
struct as_root {
	const char *name;
	__u64 caps;
	int dev;
};

/* Create @name through root's /dev/memfilter fd, which may name it. */
static int create_as(void *arg)
{
	const struct as_root *a = arg;

	if (caps_only(a->caps))
		return 10;
	return filter(a->dev, MEMFILTER_TYPE_BLOOM, 0, a->name) < 0 ? 11 : 0;
}

/* 0: opened @name for writing through its own fd and added; 1: EPERM. */
static int write_open_as(void *arg)
{
	const struct as_root *a = arg;
	int dev, fd;

	if (caps_only(a->caps))
		return 10;
	dev = dev_open();
	if (dev < 0)
		return 11;
	fd = open_name(dev, a->name, MEMFILTER_OPEN_WRITE);
	if (fd < 0)
		return fd == -EPERM ? 1 : 12;
	return key_op(fd, MEMFILTER_IOC_ADD, 3, NULL) ? 13 : 0;
}

/*
 * The owner's rule with capabilities: the same euid is not enough, the
 * opener must also hold the CAP_NET_ADMIN its creator held.
 */
TEST_F(perm, owner_needs_creator_capabilities)
{
	const __u64 net = CAP(CAP_NET_ADMIN);
	struct as_root a;

	a = (struct as_root){ "perm.cap.net", net, self->dev };
	ASSERT_EQ(0, run_child(create_as, &a));
	a = (struct as_root){ "perm.cap.none", 0, self->dev };
	ASSERT_EQ(0, run_child(create_as, &a));

	a = (struct as_root){ "perm.cap.net", 0 };
	EXPECT_EQ(1, run_child(write_open_as, &a));
	a = (struct as_root){ "perm.cap.net", net };
	EXPECT_EQ(0, run_child(write_open_as, &a));
	a = (struct as_root){ "perm.cap.none", 0 };
	EXPECT_EQ(0, run_child(write_open_as, &a));
	a = (struct as_root){ "perm.cap.none", net };
	EXPECT_EQ(0, run_child(write_open_as, &a));

	EXPECT_EQ(0, root_unpublish(self->dev, "perm.cap.net"));
	EXPECT_EQ(0, root_unpublish(self->dev, "perm.cap.none"));
}

/*
 * Fds keep their opener's rights in any hands: root's /dev/memfilter fd
 * and filter fd, inherited by a process that dropped to an unprivileged
 * user, still open root's filters for writing, name filters and unpublish;
 * the user's own /dev/memfilter fd does not.
 */
static int use_roots_fds(void *arg)
{
	int rootdev = ((int *)arg)[0], rootf = ((int *)arg)[1], dev, fd;

	if (drop_to(MF_NOBODY))
		return 10;
	fd = open_name(rootdev, "perm.pass", MEMFILTER_OPEN_WRITE);
	if (fd < 0)
		return 11;
	if (key_op(fd, MEMFILTER_IOC_ADD, 7, NULL))
		return 12;
	close(fd);
	fd = filter(rootdev, MEMFILTER_TYPE_BLOOM, 0, "perm.pass.2");
	if (fd < 0)
		return 13;
	if (publish(rootf, NULL) || publish(rootf, "perm.pass"))
		return 14;
	dev = dev_open();
	if (dev < 0)
		return 15;
	if (open_name(dev, "perm.pass", MEMFILTER_OPEN_WRITE) != -EPERM)
		return 16;
	if (filter(dev, MEMFILTER_TYPE_BLOOM, 0, "perm.pass.3") != -EPERM)
		return 17;
	return 0;
}

TEST_F(perm, passed_fds_keep_opener_rights)
{
	int fds[2];
	__u32 cnt;

	fds[0] = self->dev;
	fds[1] = filter(self->dev, MEMFILTER_TYPE_BLOOM, 0, "perm.pass");
	ASSERT_LE(0, fds[1]);

	EXPECT_EQ(0, run_child(use_roots_fds, fds));

	EXPECT_EQ(0, key_op(fds[1], MEMFILTER_IOC_QUERY, 7, &cnt));
	EXPECT_EQ(1, cnt);
	EXPECT_EQ(0, publish(fds[1], NULL));
	EXPECT_EQ(0, root_unpublish(self->dev, "perm.pass.2"));
	EXPECT_EQ(-ENOENT, open_name(self->dev, "perm.pass.3", 0));
	close(fds[1]);
}

/*
 * The reverse: root using fds an unprivileged user opened (handed over a
 * socket) gets the user's rights, not its own: no writable open of
 * root's filter, no name, no publish, through them.
 */
static int hand_over_fds(void *arg)
{
	int sock = *(int *)arg, dev, fd;

	if (drop_to(MF_NOBODY))
		return 10;
	dev = dev_open();
	if (dev < 0)
		return 11;
	fd = filter(dev, MEMFILTER_TYPE_BLOOM, 0, NULL);
	if (fd < 0)
		return 12;
	return send_fd(sock, dev) || send_fd(sock, fd) ? 13 : 0;
}

TEST_F(perm, handed_fds_do_not_escalate)
{
	int sv[2], dev, fd, pub, ro;

	pub = filter(self->dev, MEMFILTER_TYPE_BLOOM, 0, "perm.esc");
	ASSERT_LE(0, pub);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	ASSERT_EQ(0, run_child(hand_over_fds, &sv[1]));
	dev = recv_fd(sv[0]);
	ASSERT_LE(0, dev);
	fd = recv_fd(sv[0]);
	ASSERT_LE(0, fd);

	EXPECT_EQ(-EPERM, open_name(dev, "perm.esc", MEMFILTER_OPEN_WRITE));
	EXPECT_EQ(-EPERM, filter(dev, MEMFILTER_TYPE_BLOOM, 0, "perm.esc.2"));
	EXPECT_EQ(-EPERM, load_named(dev, "perm.esc.2"));
	EXPECT_EQ(-EPERM, publish(fd, "perm.esc.3"));
	/* What the user may do, root may do through them. */
	ro = open_name(dev, "perm.esc", 0);
	EXPECT_LE(0, ro);
	EXPECT_EQ(0, key_op(fd, MEMFILTER_IOC_ADD, 1, NULL));
	EXPECT_EQ(-ENOENT, open_name(self->dev, "perm.esc.2", 0));
	EXPECT_EQ(-ENOENT, open_name(self->dev, "perm.esc.3", 0));
	EXPECT_EQ(0, publish(pub, NULL));
	close(ro);
	close(fd);
	close(dev);
	close(pub);
	close(sv[0]);
	close(sv[1]);
}

/*
 * The keyed dump is checked against the credentials the fd was opened
 * with, not the reader's: a root process reading an fd that an
 * unprivileged owner handed it must not get the secret for them.
 */
static int hand_over_keyed(void *arg)
{
	int sock = *(int *)arg, dev, fd;

	if (drop_to(MF_NOBODY))
		return 10;
	dev = dev_open();
	if (dev < 0)
		return 11;
	fd = filter(dev, MEMFILTER_TYPE_CUCKOO, MEMFILTER_CREATE_KEYED, NULL);
	if (fd < 0)
		return 12;
	if (key_op(fd, MEMFILTER_IOC_ADD, 1, NULL))
		return 13;
	/* The owner itself lacks the capability a keyed dump needs. */
	if (pread(fd, &(char[8]){ 0 }, 8, 0) != -1 || errno != EPERM)
		return 14;
	return send_fd(sock, fd) ? 15 : 0;
}

TEST_F(perm, keyed_dump_uses_opener_credentials)
{
	char buf[MEMFILTER_IMAGE_HDR_SIZE];
	int sv[2], fd, own;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	ASSERT_EQ(0, run_child(hand_over_keyed, &sv[1]));
	fd = recv_fd(sv[0]);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, pread(fd, buf, sizeof(buf), 0));
	EXPECT_EQ(EPERM, errno);
	close(fd);
	/* Root's own keyed filter dumps. */
	own = filter(self->dev, MEMFILTER_TYPE_CUCKOO, MEMFILTER_CREATE_KEYED,
		     NULL);
	ASSERT_LE(0, own);
	EXPECT_EQ(sizeof(buf), pread(own, buf, sizeof(buf), 0));
	close(own);
	close(sv[0]);
	close(sv[1]);
}

/* A read-only /dev/memfilter opens read-only fds and creates nothing. */
TEST_F(perm, read_only_device)
{
	struct memfilter_api a = {
		.size = sizeof(a), .api_version = MEMFILTER_API_VERSION,
	};
	struct memfilter_load l = { .size = sizeof(l) };
	struct memfilter_list ls = { .size = sizeof(ls) };
	struct memfilter_nf_attach na = { .size = sizeof(na) };
	struct memfilter_nf_detach nd = { .size = sizeof(nd) };
	int ro, fd, pub;

	pub = filter(self->dev, MEMFILTER_TYPE_BLOOM, 0, "perm.rodev");
	ASSERT_LE(0, pub);
	ro = open(MF_DEV, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, ro);
	EXPECT_EQ(0, xioctl(ro, MEMFILTER_IOC_API, &a));
	EXPECT_EQ(0, xioctl(ro, MEMFILTER_IOC_LIST, &ls));
	EXPECT_EQ(-EBADF, filter(ro, MEMFILTER_TYPE_BLOOM, 0, NULL));
	EXPECT_EQ(-EBADF, xioctl(ro, MEMFILTER_IOC_LOAD, &l));
	/* Attaching to or detaching from a netfilter hook changes state. */
	EXPECT_EQ(-EBADF, xioctl(ro, MEMFILTER_IOC_NF_ATTACH, &na));
	EXPECT_EQ(-EBADF, xioctl(ro, MEMFILTER_IOC_NF_DETACH, &nd));
	EXPECT_EQ(-EBADF, open_name(ro, "perm.rodev", MEMFILTER_OPEN_WRITE));
	fd = open_name(ro, "perm.rodev", 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EBADF, key_op(fd, MEMFILTER_IOC_ADD, 1, NULL));
	close(fd);
	close(ro);
	EXPECT_EQ(0, publish(pub, NULL));
	close(pub);
}

/*
 * Argument sizes are bounded like openat2() and clone3(): past a page the
 * kernel refuses at once with E2BIG instead of scanning the tail for
 * zeros, even when the tail is all zero.
 */
TEST_F(perm, argument_size_bounded)
{
	long page = sysconf(_SC_PAGESIZE);
	struct memfilter_api *a = calloc(1, 2 * page);

	ASSERT_NE(NULL, a);
	a->api_version = MEMFILTER_API_VERSION;
	a->size = page;
	EXPECT_EQ(0, xioctl(self->dev, MEMFILTER_IOC_API, a));
	a->size = page + 1;
	EXPECT_EQ(-E2BIG, xioctl(self->dev, MEMFILTER_IOC_API, a));
	a->size = 2 * page;
	EXPECT_EQ(-E2BIG, xioctl(self->dev, MEMFILTER_IOC_API, a));
	a->size = 0xffffffffu;
	EXPECT_EQ(-E2BIG, xioctl(self->dev, MEMFILTER_IOC_API, a));
	free(a);
}

TEST_HARNESS_MAIN
