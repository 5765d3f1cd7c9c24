// SPDX-License-Identifier: GPL-2.0
/*
 * Selftest of memfilter filters through the raw ABI: create, the batch
 * commands, info, clear, names, fd lifetime, limits, privileges, the size
 * matrix of every command, and many threads adding and querying at once.
 * Runs inside the guest against the real module.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "memfilter_utils.h"

static int bloom(int dev)
{
	return create_default(dev, MEMFILTER_TYPE_BLOOM, 100000, 0);
}

static int cuckoo(int dev, __u64 cap)
{
	return create_default(dev, MEMFILTER_TYPE_CUCKOO, cap, 0);
}

MF_DEV_FIXTURE(f)

TEST_F(f, bloom_add_query)
{
	const __u32 n = 100000;
	__u64 *keys = seq_keys(n, 0), *absent = seq_keys(n, 1ULL << 62);
	__u64 res[(100000 + 63) / 64];
	struct memfilter_info i;
	__u32 cnt, done;
	int fd = bloom(self->dev);

	ASSERT_LE(0, fd);
	ASSERT_EQ(FD_CLOEXEC, fcntl(fd, F_GETFD) & FD_CLOEXEC);
	ASSERT_EQ(0, keys_op(fd, MEMFILTER_IOC_ADD, keys, n, res, &cnt, &done));
	EXPECT_EQ(n, cnt);
	EXPECT_EQ(n, done);
	memset(res, 0, sizeof(res));
	ASSERT_EQ(0, keys_op(fd, MEMFILTER_IOC_QUERY, keys, n, res, &cnt, &done));
	EXPECT_EQ(n, cnt);
	for (__u32 j = 0; j < n / 64; j++)
		ASSERT_EQ(~0ULL, res[j]);
	ASSERT_EQ(0, keys_op(fd, MEMFILTER_IOC_QUERY, absent, n, NULL, &cnt, NULL));
	EXPECT_LT(cnt, n / 50);	/* 1% target, generous bound */

	ASSERT_EQ(0, info(fd, &i));
	EXPECT_EQ(MEMFILTER_TYPE_BLOOM, i.type);
	EXPECT_EQ(MEMFILTER_HASH_XXH3, i.hash_algo);	/* the default */
	EXPECT_EQ(100000, i.capacity);
	EXPECT_EQ(n, i.keys);
	EXPECT_EQ(n, i.adds);
	EXPECT_EQ(2 * n, i.queries);
	EXPECT_EQ(n + cnt, i.hits);
	EXPECT_EQ(40, i.bits_per_key_q4);
	EXPECT_LT(0, i.fill);
	EXPECT_LT(0, i.est_fpr_ppb);
	EXPECT_EQ(0, i.status & MEMFILTER_STATUS_OVERFILL);
	EXPECT_EQ(-EOPNOTSUPP, keys_op(fd, MEMFILTER_IOC_DELETE, keys, 1, NULL,
				       NULL, NULL));
	EXPECT_EQ(-EOPNOTSUPP, keys_op(fd, MEMFILTER_IOC_ADD_UNIQUE, keys, 1,
				       NULL, NULL, NULL));

	/* Clear empties it. */
	struct memfilter_clear c = { .size = sizeof(c) };

	ASSERT_EQ(0, xioctl(fd, MEMFILTER_IOC_CLEAR, &c));
	ASSERT_EQ(0, info(fd, &i));
	EXPECT_EQ(0, i.fill);
	EXPECT_EQ(0, i.keys);
	ASSERT_EQ(0, keys_op(fd, MEMFILTER_IOC_QUERY, keys, n, NULL, &cnt, NULL));
	EXPECT_EQ(0, cnt);
	close(fd);
	free(keys);
	free(absent);
}

TEST_F(f, variable_size_keys)
{
	char buf[] = "alphabetagammadelta";
	__u32 lens[] = { 5, 4, 5, 5, 0 };
	struct memfilter_keys k = {
		.size = sizeof(k), .count = 5, .key_size = 0,
		.keys = (__u64)(uintptr_t)buf, .lens = (__u64)(uintptr_t)lens,
	};
	int fd = bloom(self->dev);
	__u64 other = 12345, res = 0;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, xioctl(fd, MEMFILTER_IOC_ADD, &k));
	EXPECT_EQ(5, k.out_done);
	k.results = (__u64)(uintptr_t)&res;
	ASSERT_EQ(0, xioctl(fd, MEMFILTER_IOC_QUERY, &k));
	EXPECT_EQ(0x1f, res);
	/* The same bytes as a fixed-size key are another key. */
	ASSERT_EQ(0, keys_op(fd, MEMFILTER_IOC_QUERY, &other, 1, NULL, NULL, NULL));
	/* Bad lengths and pointers. */
	lens[2] = MEMFILTER_KEY_MAX + 1;
	EXPECT_EQ(-EINVAL, xioctl(fd, MEMFILTER_IOC_QUERY, &k));
	lens[2] = 1 << 20;	/* larger than the kernel's copy buffer */
	EXPECT_EQ(-EINVAL, xioctl(fd, MEMFILTER_IOC_QUERY, &k));
	lens[0] = 0xffffffffu;
	EXPECT_EQ(-EINVAL, xioctl(fd, MEMFILTER_IOC_ADD, &k));
	lens[0] = 5;
	lens[2] = 5;
	k.lens = 0;
	EXPECT_EQ(-EINVAL, xioctl(fd, MEMFILTER_IOC_QUERY, &k));
	k.lens = 8;
	EXPECT_EQ(-EFAULT, xioctl(fd, MEMFILTER_IOC_QUERY, &k));
	close(fd);
}

TEST_F(f, cuckoo_delete_and_full)
{
	const __u32 n = 4096;
	__u64 *keys = seq_keys(8 * n, 0);
	__u32 cnt, done, added;
	struct memfilter_info i;
	int fd = cuckoo(self->dev, n);
	int ret;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, keys_op(fd, MEMFILTER_IOC_ADD, keys, n, NULL, &cnt, &done));
	EXPECT_EQ(n, cnt);
	ASSERT_EQ(0, keys_op(fd, MEMFILTER_IOC_QUERY, keys, n, NULL, &cnt, NULL));
	EXPECT_EQ(n, cnt);
	/* ADD_UNIQUE of present keys adds nothing. */
	ASSERT_EQ(0, keys_op(fd, MEMFILTER_IOC_ADD_UNIQUE, keys, 100, NULL, &cnt,
			     NULL));
	EXPECT_EQ(0, cnt);
	/* Delete half, they are gone; the rest stay. */
	ASSERT_EQ(0, keys_op(fd, MEMFILTER_IOC_DELETE, keys, n / 2, NULL, &cnt,
			     NULL));
	EXPECT_EQ(n / 2, cnt);
	ASSERT_EQ(0, keys_op(fd, MEMFILTER_IOC_QUERY, keys + n / 2, n / 2, NULL,
			     &cnt, NULL));
	EXPECT_EQ(n / 2, cnt);
	ASSERT_EQ(0, keys_op(fd, MEMFILTER_IOC_QUERY, keys, n / 2, NULL, &cnt,
			     NULL));
	EXPECT_LT(cnt, n / 50);
	/* Fill to failure: ENOSPC, and nothing that was in is lost. */
	ret = keys_op(fd, MEMFILTER_IOC_ADD, keys + n, 7 * n, NULL, &added, &done);
	EXPECT_EQ(-ENOSPC, ret);
	EXPECT_EQ(added, done);
	EXPECT_LT(done, 7 * n);
	ASSERT_EQ(0, keys_op(fd, MEMFILTER_IOC_QUERY, keys + n / 2, n / 2 + done,
			     NULL, &cnt, NULL));
	EXPECT_EQ(n / 2 + done, cnt);
	ASSERT_EQ(0, info(fd, &i));
	EXPECT_EQ(MEMFILTER_TYPE_CUCKOO, i.type);
	EXPECT_EQ(12, i.fingerprint_bits);
	EXPECT_EQ(n / 2 + done, i.keys);
	EXPECT_LE(1, i.failed);
	EXPECT_EQ(n / 2, i.deletes);
	EXPECT_LE(i.fill_max * 95 / 100, i.fill);
	close(fd);
	free(keys);
}

TEST_F(f, create_rejects_bad_params)
{
	struct memfilter_create c;
	int fd;

#define CREATE_EXPECT(err, ...) do {					\
		memset(&c, 0, sizeof(c));				\
		c.size = sizeof(c);					\
		c.type = MEMFILTER_TYPE_BLOOM;				\
		c.capacity = 1000;					\
		c.bits_per_key_q4 = 40;					\
		__VA_ARGS__;						\
		EXPECT_EQ(err, xioctl(self->dev, MEMFILTER_IOC_CREATE, &c)); \
		if (!(err) && c.out_fd > 0)				\
			close(c.out_fd);				\
	} while (0)

	CREATE_EXPECT(0);
	CREATE_EXPECT(-EOPNOTSUPP, c.type = 0);
	CREATE_EXPECT(-EOPNOTSUPP, c.type = MEMFILTER_TYPE_GROW + 1);
	CREATE_EXPECT(-EOPNOTSUPP, c.flags = 1U << 31);
	CREATE_EXPECT(-EINVAL, c.capacity = 0);
	CREATE_EXPECT(-EINVAL, c.bits_per_key_q4 = 0);
	CREATE_EXPECT(-EINVAL, c.fpr_ppb = 1000);		/* both given */
	CREATE_EXPECT(-EINVAL, c.bits_per_key_q4 = 0; c.fpr_ppb = 1000000000);
	CREATE_EXPECT(-EINVAL, c.fingerprint_bits = 8);
	CREATE_EXPECT(-EINVAL, c.seed = 5);			/* without flag */
	CREATE_EXPECT(0, c.seed = 5; c.flags = MEMFILTER_CREATE_SEED);
	CREATE_EXPECT(-EINVAL, c.flags = MEMFILTER_CREATE_SEED | MEMFILTER_CREATE_KEYED);
	CREATE_EXPECT(-EINVAL, c.out_fd = 3);
	CREATE_EXPECT(-E2BIG, c.capacity = 1ULL << 62);
	CREATE_EXPECT(-E2BIG, c.capacity = ~0ULL);
	CREATE_EXPECT(-EINVAL, c.type = MEMFILTER_TYPE_CUCKOO; c.bits_per_key_q4 = 0;
		      c.fingerprint_bits = 9);
	CREATE_EXPECT(-EINVAL, c.type = MEMFILTER_TYPE_CUCKOO);	/* bpk given */
	CREATE_EXPECT(0, c.type = MEMFILTER_TYPE_CUCKOO; c.bits_per_key_q4 = 0;
		      c.fingerprint_bits = 16);
	CREATE_EXPECT(0, c.type = MEMFILTER_TYPE_CUCKOO; c.bits_per_key_q4 = 0;
		      c.fpr_ppb = 1000000);
	CREATE_EXPECT(-EINVAL, strcpy(c.name, "bad name"));
	CREATE_EXPECT(-EINVAL, memset(c.name, 'a', sizeof(c.name)));
	/* Keyed filters do not reveal a seed. */
	fd = create(self->dev, MEMFILTER_TYPE_BLOOM, 1000, 0, 40, 0,
		    MEMFILTER_CREATE_KEYED, NULL);
	ASSERT_LE(0, fd);
	struct memfilter_info i;

	ASSERT_EQ(0, info(fd, &i));
	EXPECT_EQ(MEMFILTER_HASH_SIPHASH24, i.hash_algo);
	EXPECT_EQ(0, i.seed);
	EXPECT_TRUE(i.status & MEMFILTER_STATUS_KEYED);
	close(fd);
}

TEST_F(f, memory_limit)
{
	/* Default max_filter_mb is 1024: 2^31 keys at 10 bits/key is 2.5 GiB. */
	EXPECT_EQ(-E2BIG, create(self->dev, MEMFILTER_TYPE_BLOOM, 1ULL << 31, 0,
				 40, 0, 0, NULL));
	/* A large but allowed filter works and gives its memory back. */
	for (int r = 0; r < 3; r++) {
		int fd = create(self->dev, MEMFILTER_TYPE_BLOOM, 64 << 20, 0, 40,
				0, 0, NULL);

		ASSERT_LE(0, fd);
		close(fd);
	}
}

TEST_F(f, names_and_lifetime)
{
	struct memfilter_open o = { .size = sizeof(o) };
	struct memfilter_name nm = { .size = sizeof(nm) };
	struct memfilter_info i;
	__u64 key = 42;
	__u32 cnt;
	int fd, fd2;

	fd = create(self->dev, MEMFILTER_TYPE_BLOOM, 1000, 0, 40, 0, 0,
		    "selftest.names");
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, keys_op(fd, MEMFILTER_IOC_ADD, &key, 1, NULL, NULL, NULL));
	/* Same name again: EEXIST; publishing twice: EBUSY. */
	EXPECT_EQ(-EEXIST, create(self->dev, MEMFILTER_TYPE_BLOOM, 1000, 0, 40, 0,
				  0, "selftest.names"));
	strcpy(nm.name, "selftest.other");
	EXPECT_EQ(-EBUSY, xioctl(fd, MEMFILTER_IOC_PUBLISH, &nm));
	/* The filter outlives its creator's fd while published. */
	close(fd);
	strcpy(o.name, "selftest.names");
	o.flags = MEMFILTER_OPEN_WRITE;
	ASSERT_EQ(0, xioctl(self->dev, MEMFILTER_IOC_OPEN, &o));
	fd2 = o.out_fd;
	ASSERT_EQ(0, keys_op(fd2, MEMFILTER_IOC_QUERY, &key, 1, NULL, &cnt, NULL));
	EXPECT_EQ(1, cnt);
	ASSERT_EQ(0, info(fd2, &i));
	EXPECT_STREQ("selftest.names", i.name);
	EXPECT_TRUE(i.status & MEMFILTER_STATUS_PUBLISHED);

	/* list sees it */
	char names[16][MEMFILTER_NAME_MAX];
	struct memfilter_list l = { .size = sizeof(l), .count = 16,
				    .names = (__u64)(uintptr_t)names };
	int found = 0;

	ASSERT_EQ(0, xioctl(self->dev, MEMFILTER_IOC_LIST, &l));
	for (__u32 j = 0; j < l.count && j < 16; j++)
		found += !strcmp(names[j], "selftest.names");
	EXPECT_EQ(1, found);
	l.count = 0;
	ASSERT_EQ(0, xioctl(self->dev, MEMFILTER_IOC_LIST, &l));
	EXPECT_LE(1, l.count);

	/* Unpublish: name gone, fd still works, and the name is free again. */
	memset(nm.name, 0, sizeof(nm.name));
	ASSERT_EQ(0, xioctl(fd2, MEMFILTER_IOC_UNPUBLISH, &nm));
	EXPECT_EQ(-ENOENT, xioctl(fd2, MEMFILTER_IOC_UNPUBLISH, &nm));
	o.out_fd = 0;
	EXPECT_EQ(-ENOENT, xioctl(self->dev, MEMFILTER_IOC_OPEN, &o));
	ASSERT_EQ(0, keys_op(fd2, MEMFILTER_IOC_QUERY, &key, 1, NULL, &cnt, NULL));
	EXPECT_EQ(1, cnt);
	strcpy(nm.name, "selftest.names");
	ASSERT_EQ(0, xioctl(fd2, MEMFILTER_IOC_PUBLISH, &nm));
	memset(nm.name, 0, sizeof(nm.name));
	ASSERT_EQ(0, xioctl(fd2, MEMFILTER_IOC_UNPUBLISH, &nm));
	close(fd2);
	/* Last reference gone: the filter is gone too. */
	EXPECT_EQ(-ENOENT, xioctl(self->dev, MEMFILTER_IOC_OPEN, &o));
}

struct unpriv {
	int dev;
	int fd;
};

/*
 * Naming goes by the credentials a filter fd was opened with, not the
 * caller's: a filter an unprivileged process made (through root's
 * inherited device fd, the grant to create) is not published through its
 * own fd, while root's inherited filter fd publishes.
 */
static int publish_by_opener(void *arg)
{
	struct memfilter_name nm = { .size = sizeof(nm) };
	const struct unpriv *u = arg;
	int own;

	own = create(u->dev, MEMFILTER_TYPE_BLOOM, 10, 0, 40, 0, 0, NULL);
	if (own < 0)
		return 11;
	strcpy(nm.name, "selftest.unpriv");
	if (xioctl(own, MEMFILTER_IOC_PUBLISH, &nm) != -EPERM)
		return 12;
	if (xioctl(u->fd, MEMFILTER_IOC_PUBLISH, &nm))
		return 13;
	return 0;
}

TEST_F(f, unprivileged_publish_refused)
{
	struct memfilter_name nm = { .size = sizeof(nm) };
	struct unpriv u = { .dev = self->dev };

	SKIP_UNLESS_ROOT();
	u.fd = bloom(self->dev);
	ASSERT_LE(0, u.fd);
	EXPECT_EQ(0, as_nobody(publish_by_opener, &u));
	EXPECT_EQ(0, xioctl(u.fd, MEMFILTER_IOC_UNPUBLISH, &nm));
	close(u.fd);
}

TEST_F(f, bad_pointers_and_flags)
{
	struct memfilter_keys k = { .size = sizeof(k), .count = 10, .key_size = 8 };
	struct memfilter_info i = { .size = sizeof(i) };
	int fd = bloom(self->dev);
	__u64 keys[10] = { 0 };

	ASSERT_LE(0, fd);
	EXPECT_EQ(-EFAULT, xioctl(fd, MEMFILTER_IOC_ADD, &k));	/* keys NULL */
	k.keys = 16;
	EXPECT_EQ(-EFAULT, xioctl(fd, MEMFILTER_IOC_ADD, &k));
	EXPECT_EQ(0, k.out_done);
	k.keys = (__u64)(uintptr_t)keys;
	k.results = 16;
	EXPECT_EQ(-EFAULT, xioctl(fd, MEMFILTER_IOC_QUERY, &k));
	k.results = 0;
	k.flags = 1;
	EXPECT_EQ(-EOPNOTSUPP, xioctl(fd, MEMFILTER_IOC_QUERY, &k));
	k.flags = 0;
	k.key_size = MEMFILTER_KEY_MAX + 1;
	EXPECT_EQ(-EINVAL, xioctl(fd, MEMFILTER_IOC_QUERY, &k));
	k.key_size = 8;
	k.count = MEMFILTER_BATCH_MAX + 1;
	EXPECT_EQ(-EINVAL, xioctl(fd, MEMFILTER_IOC_QUERY, &k));
	k.count = 0;
	EXPECT_EQ(0, xioctl(fd, MEMFILTER_IOC_QUERY, &k));
	i.flags = 2;
	EXPECT_EQ(-EOPNOTSUPP, xioctl(fd, MEMFILTER_IOC_INFO, &i));
	EXPECT_EQ(-EFAULT, ioctl(fd, MEMFILTER_IOC_INFO, NULL) ? -errno : 0);
	/* Device commands on a filter fd and vice versa. */
	EXPECT_EQ(-ENOTTY, xioctl(fd, MEMFILTER_IOC_API, &i));
	EXPECT_EQ(-ENOTTY, xioctl(self->dev, MEMFILTER_IOC_QUERY, &k));
	close(fd);
}

/*
 * first size - 1 -> EINVAL, size + 8 with junk -> E2BIG, size + 8 zero ->
 * ok. Structures that grew (create, info) accept any size from their
 * first version's on.
 */
#define FIRST(s, last)	(offsetof(struct s, last) + \
			 sizeof(((struct s *)0)->last))
TEST_F(f, size_matrix_every_command)
{
	static const struct {
		unsigned long cmd;
		size_t size, first;
		int on_dev;
	} cmds[] = {
		{ MEMFILTER_IOC_CREATE, sizeof(struct memfilter_create),
		  FIRST(memfilter_create, name), 1 },
		{ MEMFILTER_IOC_OPEN, sizeof(struct memfilter_open),
		  sizeof(struct memfilter_open), 1 },
		{ MEMFILTER_IOC_LIST, sizeof(struct memfilter_list),
		  sizeof(struct memfilter_list), 1 },
		{ MEMFILTER_IOC_ADD, sizeof(struct memfilter_keys),
		  sizeof(struct memfilter_keys), 0 },
		{ MEMFILTER_IOC_QUERY, sizeof(struct memfilter_keys),
		  sizeof(struct memfilter_keys), 0 },
		{ MEMFILTER_IOC_INFO, sizeof(struct memfilter_info),
		  FIRST(memfilter_info, name), 0 },
		{ MEMFILTER_IOC_CLEAR, sizeof(struct memfilter_clear),
		  sizeof(struct memfilter_clear), 0 },
		{ MEMFILTER_IOC_PUBLISH, sizeof(struct memfilter_name),
		  sizeof(struct memfilter_name), 0 },
		{ MEMFILTER_IOC_UNPUBLISH, sizeof(struct memfilter_name),
		  sizeof(struct memfilter_name), 0 },
		{ MEMFILTER_IOC_TEST_AND_ADD, sizeof(struct memfilter_keys),
		  sizeof(struct memfilter_keys), 0 },
		{ MEMFILTER_IOC_ADD_PREFIXES, sizeof(struct memfilter_keys),
		  sizeof(struct memfilter_keys), 0 },
		{ MEMFILTER_IOC_REPLACE, sizeof(struct memfilter_replace),
		  sizeof(struct memfilter_replace), 1 },
		{ MEMFILTER_IOC_EXCHANGE, sizeof(struct memfilter_exchange),
		  sizeof(struct memfilter_exchange), 1 },
	};
	unsigned char buf[512];
	int fd = bloom(self->dev);

	ASSERT_LE(0, fd);
	for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++) {
		int target = cmds[c].on_dev ? self->dev : fd;
		__u32 size;

		memset(buf, 0, sizeof(buf));
		size = cmds[c].first - 1;
		memcpy(buf, &size, 4);
		EXPECT_EQ(-EINVAL, xioctl(target, cmds[c].cmd, buf)) TH_LOG("cmd %zu", c);
		memset(buf, 0, sizeof(buf));
		size = cmds[c].size + 8;
		memcpy(buf, &size, 4);
		buf[cmds[c].size + 3] = 1;
		EXPECT_EQ(-E2BIG, xioctl(target, cmds[c].cmd, buf)) TH_LOG("cmd %zu", c);
		EXPECT_EQ(-EFAULT, xioctl(target, cmds[c].cmd, NULL)) TH_LOG("cmd %zu", c);
	}
	/* A zero tail is accepted: a query of no keys, an info, a list. */
	memset(buf, 0, sizeof(buf));
	((struct memfilter_keys *)buf)->size = sizeof(struct memfilter_keys) + 8;
	EXPECT_EQ(0, xioctl(fd, MEMFILTER_IOC_QUERY, buf));
	memset(buf, 0, sizeof(buf));
	((struct memfilter_info *)buf)->size = sizeof(struct memfilter_info) + 8;
	EXPECT_EQ(0, xioctl(fd, MEMFILTER_IOC_INFO, buf));
	EXPECT_EQ(0, buf[sizeof(struct memfilter_info) + 7]);
	memset(buf, 0, sizeof(buf));
	((struct memfilter_list *)buf)->size = sizeof(struct memfilter_list) + 8;
	EXPECT_EQ(0, xioctl(self->dev, MEMFILTER_IOC_LIST, buf));
	close(fd);
}

/* ADD_PREFIXES on @fd: @n prefixes; @key_size and @lens as given. */
static int add_prefixes(int fd, const struct memfilter_prefix *p, __u32 n,
			__u32 key_size, __u64 lens, __u64 *results,
			__u32 *out_count, __u32 *out_done)
{
	struct memfilter_keys k = {
		.size = sizeof(k), .count = n, .key_size = key_size,
		.keys = (__u64)(uintptr_t)p, .lens = lens,
		.results = (__u64)(uintptr_t)results,
		.out_count = 77, .out_done = 77,
	};
	int ret = xioctl(fd, MEMFILTER_IOC_ADD_PREFIXES, &k);

	if (out_count)
		*out_count = k.out_count;
	if (out_done)
		*out_done = k.out_done;
	return ret;
}

/*
 * An address lookup's false-positive rate from the key rate @p for @l
 * lengths, 1 - (1 - p)^l, rounded as memfilter_info reports it.
 */
static __u64 prefix_rate(__u64 p, unsigned int l)
{
	const __u64 one = 1000000000;
	__u64 miss = one;

	while (l--)
		miss = miss * (one - p) / one;
	return one - miss;
}

static void prefix(struct memfilter_prefix *p, __u8 family, __u8 length,
		   __u8 a0, __u8 a1)
{
	memset(p, 0, sizeof(*p));
	p->family = family;
	p->length = length;
	p->addr[0] = a0;
	p->addr[1] = a1;
}

/*
 * MEMFILTER_IOC_ADD_PREFIXES's errno table (uapi.rst, "Address
 * prefixes"): every refusal of a batch comes before anything changes
 * (out_done 0, no length recorded, no key added); the feature bit; INFO's
 * lengths and lookup rates; the size and the reserved field of the create
 * request.
 */
TEST_F(f, add_prefixes_errors)
{
	struct memfilter_create c = {
		.size = sizeof(c), .type = MEMFILTER_TYPE_BLOOM,
		.capacity = 1000, .fpr_ppb = 10000000, .prefix_lengths = 2,
	};
	struct memfilter_api api = { .size = sizeof(api),
				     .api_version = MEMFILTER_API_VERSION };
	struct memfilter_name nm = { .size = sizeof(nm) };
	struct memfilter_open o = { .size = sizeof(o) };
	struct memfilter_prefix p[4], more[510];
	struct memfilter_info i;
	__u32 cnt, done, j;
	__u64 res = 0;
	int fd, keys, ro;

	ASSERT_EQ(0, xioctl(self->dev, MEMFILTER_IOC_API, &api));
	EXPECT_TRUE(api.features & MEMFILTER_FEAT_PREFIXES);
	ASSERT_EQ(0, xioctl(self->dev, MEMFILTER_IOC_CREATE, &c));
	fd = c.out_fd;
	prefix(&p[0], MEMFILTER_PREFIX_IPV4, 8, 10, 0);
	prefix(&p[1], MEMFILTER_PREFIX_IPV4, 16, 10, 1);
	prefix(&p[2], MEMFILTER_PREFIX_IPV6, 16, 0x20, 0x01);
	prefix(&p[3], MEMFILTER_PREFIX_IPV4, 24, 10, 2);

	/* Layout and entries: EINVAL, nothing changed. */
	EXPECT_EQ(-EINVAL, add_prefixes(fd, p, 3, 16, 0, NULL, NULL, &done));
	EXPECT_EQ(-EINVAL, add_prefixes(fd, p, 3, sizeof(p[0]),
					(__u64)(uintptr_t)&cnt, NULL, NULL, &done));
	EXPECT_EQ(-EINVAL, add_prefixes(fd, p, 3, 0, 0, NULL, NULL, &done));
	p[1].addr[2] = 1;			/* a bit past /16 */
	EXPECT_EQ(-EINVAL, add_prefixes(fd, p, 3, sizeof(p[0]), 0, NULL,
					NULL, &done));
	EXPECT_EQ(0, done);
	p[1].addr[2] = 0;
	p[2].__reserved[0] = 1;
	EXPECT_EQ(-EINVAL, add_prefixes(fd, p, 3, sizeof(p[0]), 0, NULL,
					NULL, &done));
	p[2].__reserved[0] = 0;
	p[0].family = 5;
	EXPECT_EQ(-EINVAL, add_prefixes(fd, p, 3, sizeof(p[0]), 0, NULL,
					NULL, &done));
	p[0].family = MEMFILTER_PREFIX_IPV4;
	p[0].length = 33;
	EXPECT_EQ(-EINVAL, add_prefixes(fd, p, 3, sizeof(p[0]), 0, NULL,
					NULL, &done));
	p[0].length = 8;
	p[0].addr[7] = 1;			/* past an IPv4 address */
	EXPECT_EQ(-EINVAL, add_prefixes(fd, p, 3, sizeof(p[0]), 0, NULL,
					NULL, &done));
	p[0].addr[7] = 0;
	/* Three IPv4 lengths into a filter of two: ENOSPC, nothing added. */
	EXPECT_EQ(-ENOSPC, add_prefixes(fd, p, 4, sizeof(p[0]), 0, NULL,
					NULL, &done));
	EXPECT_EQ(0, done);
	ASSERT_EQ(0, info(fd, &i));
	EXPECT_EQ(2, i.prefix_lengths);
	EXPECT_EQ(0, i.prefixes[0] | i.prefixes[1] | i.prefixes[2] | i.prefixes[3]);
	EXPECT_EQ(0, i.keys);
	EXPECT_EQ(-EFAULT, add_prefixes(fd, (void *)8, 3, sizeof(p[0]), 0,
					NULL, NULL, NULL));
	EXPECT_EQ(-EFAULT, add_prefixes(fd, NULL, 3, sizeof(p[0]), 0, NULL,
					NULL, NULL));

	/* The batch: every prefix added, its bit set, the lengths in INFO. */
	ASSERT_EQ(0, add_prefixes(fd, p, 3, sizeof(p[0]), 0, &res, &cnt, &done));
	EXPECT_EQ(3, cnt);
	EXPECT_EQ(3, done);
	EXPECT_EQ(7, res);
	ASSERT_EQ(0, info(fd, &i));
	EXPECT_EQ(3, i.keys);
	EXPECT_EQ((1ULL << 8) | (1ULL << 16), i.prefixes[0]);
	EXPECT_EQ(1ULL << 16, i.prefixes[1]);
	EXPECT_EQ(0, i.prefixes[2] | i.prefixes[3]);
	EXPECT_EQ(prefix_rate(i.est_fpr_ppb, 2), i.prefix_fpr4_ppb);
	EXPECT_EQ(prefix_rate(i.est_fpr_ppb, 1), i.prefix_fpr6_ppb);
	/* 510 more of those lengths: a key rate above 0, the same rule. */
	for (j = 0; j < 255; j++) {
		prefix(&more[2 * j], MEMFILTER_PREFIX_IPV4, 8, j, 0);
		prefix(&more[2 * j + 1], MEMFILTER_PREFIX_IPV4, 16, 11, j);
	}
	ASSERT_EQ(0, add_prefixes(fd, more, 510, sizeof(more[0]), 0, NULL,
				  &cnt, &done));
	EXPECT_EQ(510, done);
	ASSERT_EQ(0, info(fd, &i));
	EXPECT_EQ(2, __builtin_popcountll(i.prefixes[0]));
	EXPECT_LT(0, i.est_fpr_ppb);
	EXPECT_EQ(prefix_rate(i.est_fpr_ppb, 2), i.prefix_fpr4_ppb);
	EXPECT_LT(i.est_fpr_ppb, i.prefix_fpr4_ppb);
	EXPECT_EQ(prefix_rate(i.est_fpr_ppb, 1), i.prefix_fpr6_ppb);
	/* An empty batch, and lengths already held: fine. */
	EXPECT_EQ(0, add_prefixes(fd, p, 0, sizeof(p[0]), 0, NULL, &cnt, &done));
	EXPECT_EQ(0, done);
	EXPECT_EQ(0, add_prefixes(fd, p, 1, sizeof(p[0]), 0, NULL, NULL, NULL));

	/* A read-only fd of it: EBADF. */
	strcpy(nm.name, "ft.prefixes");
	ASSERT_EQ(0, xioctl(fd, MEMFILTER_IOC_PUBLISH, &nm));
	strcpy(o.name, "ft.prefixes");
	ASSERT_EQ(0, xioctl(self->dev, MEMFILTER_IOC_OPEN, &o));
	ro = o.out_fd;
	EXPECT_EQ(-EBADF, add_prefixes(ro, p, 1, sizeof(p[0]), 0, NULL, NULL,
				       NULL));
	close(ro);
	memset(nm.name, 0, sizeof(nm.name));
	EXPECT_EQ(0, xioctl(fd, MEMFILTER_IOC_UNPUBLISH, &nm));

	/* A filter of keys: EOPNOTSUPP, even for no prefixes; no lengths. */
	keys = bloom(self->dev);
	ASSERT_LE(0, keys);
	EXPECT_EQ(-EOPNOTSUPP, add_prefixes(keys, p, 0, sizeof(p[0]), 0, NULL,
					    NULL, NULL));
	ASSERT_EQ(0, info(keys, &i));
	EXPECT_EQ(0, i.prefix_lengths);
	EXPECT_EQ(0, i.prefix_fpr4_ppb);
	close(keys);

	/* The create request: over 32 lengths EINVAL, its reserved field. */
	c.out_fd = 0;
	c.prefix_lengths = MEMFILTER_PREFIX_LENGTHS_MAX + 1;
	EXPECT_EQ(-EINVAL, xioctl(self->dev, MEMFILTER_IOC_CREATE, &c));
	c.prefix_lengths = 1;
	c.__reserved1 = 1;
	EXPECT_EQ(-EOPNOTSUPP, xioctl(self->dev, MEMFILTER_IOC_CREATE, &c));
	close(fd);
}

/* A filter fd pins the module: rmmod is refused, nothing breaks. */
TEST(rmmod_refused_while_filter_fd_open)
{
	int dev = dev_open(), fd, status;
	__u64 key = 7;
	__u32 cnt;

	ASSERT_LE(0, dev);
	fd = bloom(dev);
	ASSERT_LE(0, fd);
	close(dev);	/* only the filter fd holds the module now */
	ASSERT_EQ(0, keys_op(fd, MEMFILTER_IOC_ADD, &key, 1, NULL, NULL, NULL));
	status = system("rmmod memfilter 2>/dev/null");
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) != 0);
	EXPECT_EQ(0, access(MF_DEV, F_OK));
	ASSERT_EQ(0, keys_op(fd, MEMFILTER_IOC_QUERY, &key, 1, NULL, &cnt, NULL));
	EXPECT_EQ(1, cnt);
	close(fd);
}

struct thr {
	int fd;
	int id;
	atomic_uint *progress;
	atomic_int *fn;
	atomic_int *stop;
};

#define THR_KEYS 100000

static void *writer(void *arg)
{
	struct thr *t = arg;
	__u64 keys[256];

	for (__u32 i = 0; i < THR_KEYS; i += 256) {
		for (int j = 0; j < 256; j++)
			keys[j] = ((__u64)t->id << 40) + i + j;
		if (keys_op(t->fd, MEMFILTER_IOC_ADD, keys, 256, NULL, NULL, NULL))
			atomic_fetch_add(t->fn, 1000000);
		atomic_store_explicit(&t->progress[t->id], i + 256,
				      memory_order_release);
	}
	return NULL;
}

static void *reader(void *arg)
{
	struct thr *t = arg;
	unsigned int seed = t->id;
	__u64 keys[64];
	__u32 cnt;

	while (!atomic_load(t->stop)) {
		for (int w = 0; w < 4; w++) {
			__u32 p = atomic_load_explicit(&t->progress[w],
						       memory_order_acquire);

			if (!p)
				continue;
			for (int j = 0; j < 64; j++)
				keys[j] = ((__u64)w << 40) + rand_r(&seed) % p;
			if (keys_op(t->fd, MEMFILTER_IOC_QUERY, keys, 64, NULL,
				    &cnt, NULL) || cnt != 64)
				atomic_fetch_add(t->fn, 1);
			/*
			 * Keys never added: a lockless cuckoo read answers
			 * "absent" only from a consistent snapshot, so these
			 * retry when they meet a writer inside an update.
			 */
			for (int j = 0; j < 64; j++)
				keys[j] = (1ULL << 60) + rand_r(&seed);
			if (keys_op(t->fd, MEMFILTER_IOC_QUERY, keys, 64, NULL,
				    NULL, NULL))
				atomic_fetch_add(t->fn, 1);
		}
	}
	return NULL;
}

static void threads(struct __test_metadata *_metadata, int fd)
{
	atomic_uint progress[4] = { 0 };
	atomic_int fn = 0, stop = 0;
	pthread_t w[4], r[4];
	struct thr tw[4], tr[4];

	for (int i = 0; i < 4; i++) {
		tw[i] = (struct thr){ fd, i, progress, &fn, &stop };
		tr[i] = (struct thr){ fd, 100 + i, progress, &fn, &stop };
		ASSERT_EQ(0, pthread_create(&r[i], NULL, reader, &tr[i]));
	}
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(0, pthread_create(&w[i], NULL, writer, &tw[i]));
	for (int i = 0; i < 4; i++)
		pthread_join(w[i], NULL);
	atomic_store(&stop, 1);
	for (int i = 0; i < 4; i++)
		pthread_join(r[i], NULL);
	EXPECT_EQ(0, atomic_load(&fn));
}

TEST_F(f, threads_bloom)
{
	int fd = create(self->dev, MEMFILTER_TYPE_BLOOM, 4 * THR_KEYS, 0, 40, 0,
			0, NULL);

	ASSERT_LE(0, fd);
	threads(_metadata, fd);
	close(fd);
}

/*
 * The lockless-read counters of the live cuckoo filter of capacity @cap
 * (debugfs lists every filter; the capacity marks the test's own):
 * attempts that saw a writer mid-update, and reads that gave up.
 */
static int read_retries(__u64 cap, unsigned long long *retries,
			unsigned long long *busy)
{
	FILE *f = fopen("/sys/kernel/debug/memfilter/filters", "r");
	unsigned long long c;
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*u cuckoo %*s %*u %llu %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %*x %llu %llu",
			   &c, retries, busy) == 3 && c == cap)
			n++;
	fclose(f);
	return n;
}

TEST_F(f, threads_cuckoo)
{
	const __u64 cap = 4 * THR_KEYS * 10 / 9;
	unsigned long long retries, busy;
	int fd = cuckoo(self->dev, cap);

	ASSERT_LE(0, fd);
	threads(_metadata, fd);
	/* How often 4 readers met one of 4 writers inside an update. */
	ASSERT_EQ(1, read_retries(cap, &retries, &busy));
	TH_LOG("lockless read retries: %llu, reads that gave up: %llu",
	       retries, busy);
	close(fd);
}

TEST_HARNESS_MAIN
