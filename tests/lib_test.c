// SPDX-License-Identifier: GPL-2.0
/*
 * Selftest of libmemfilter against the real module: create/open/list,
 * publishing, fixed- and variable-size key batches, batches larger than
 * MEMFILTER_BATCH_MAX split by the library, partial failure reporting when
 * a cuckoo filter fills up, info, clear and argument checking. Runs inside
 * the guest (kselftest harness, TAP output, exit code decides). Published
 * names start with "libtest-" and are removed again.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/memfilter.h>

#include "kselftest_harness.h"
#include "libmemfilter.h"
#include "memfilter_utils.h"

FIXTURE(lib) {
	int dev;
};

FIXTURE_SETUP(lib)
{
	self->dev = mf_open_device();
	ASSERT_LE(0, self->dev) TH_LOG("mf_open_device: %s",
				       mf_strerror(self->dev));
}

FIXTURE_TEARDOWN(lib)
{
	close(self->dev);
}

static int bloom(int dev, uint64_t capacity, double fpr)
{
	struct mf_create_opts o = {
		.type = MF_TYPE_BLOOM,
		.capacity = capacity,
		.fpr = fpr,
		.fixed_seed = true,
		.seed = 1,
	};

	return mf_create(dev, &o);
}

static int cuckoo(int dev, uint64_t capacity, unsigned int fp_bits)
{
	struct mf_create_opts o = {
		.type = MF_TYPE_CUCKOO,
		.capacity = capacity,
		.fingerprint_bits = fp_bits,
		.fixed_seed = true,
		.seed = 2,
	};

	return mf_create(dev, &o);
}

static bool in_list(int dev, const char *name)
{
	char **names;
	ssize_t i, n = mf_list(dev, &names);
	bool found = false;

	for (i = 0; i < n; i++)
		found |= !strcmp(names[i], name);
	free(names);
	return found;
}

TEST_F(lib, api)
{
	struct mf_api_info a;

	ASSERT_EQ(0, mf_api(self->dev, &a));
	EXPECT_EQ(MEMFILTER_API_VERSION, a.api_version);
	EXPECT_TRUE(a.features & MEMFILTER_FEAT_BLOOM);
	EXPECT_TRUE(a.features & MEMFILTER_FEAT_CUCKOO);
}

TEST_F(lib, create_bloom_info)
{
	struct mf_create_opts o = {
		.type = MF_TYPE_BLOOM,
		.capacity = 1000,
		.bits_per_key = 10,
		.fixed_seed = true,
		.seed = 0x1234,
	};
	struct mf_info i;
	int fd = mf_create(self->dev, &o);

	ASSERT_LE(0, fd) TH_LOG("%s", mf_strerror(fd));
	ASSERT_EQ(0, mf_info(fd, &i));
	EXPECT_EQ(MF_TYPE_BLOOM, i.type);
	/* No hash named: XXH3, the default. */
	EXPECT_EQ(MF_HASH_XXH3, i.hash_algo);
	EXPECT_EQ(0x1234, i.seed);
	EXPECT_EQ(1000, i.capacity);
	EXPECT_TRUE(i.bits_per_key == 10.0);
	EXPECT_LT(0, i.k);
	EXPECT_LE(1000 * 10 / 8, i.bytes);
	EXPECT_EQ(0, i.keys);
	EXPECT_EQ(0, i.fill);
	EXPECT_FALSE(i.published);
	EXPECT_FALSE(i.keyed);
	EXPECT_FALSE(i.overfill);
	EXPECT_STREQ("", i.name);
	close(fd);
}

#define XXH3_LENS 14

/* Kernel filter @fd dumps to the bytes of offline filter @off; both freed. */
static void expect_dump_is_offline(struct __test_metadata *_metadata, int fd,
				   struct mf_offline *off)
{
	size_t len, dlen;
	void *img, *dump;

	ASSERT_EQ(0, mf_offline_image(off, &img, &len));
	ASSERT_EQ(0, mf_dump(fd, &dump, &dlen));
	ASSERT_EQ(len, dlen);
	EXPECT_EQ(0, memcmp(img, dump, len));
	free(img);
	free(dump);
	mf_offline_free(off);
	close(fd);
}

/*
 * MF_HASH_XXH3 reaches the kernel: INFO reports it with its seed, the
 * feature bit is set, the kernel's keys are the library's (a dump equals
 * the same filter built offline), and KEYED with it is refused.
 */
TEST_F(lib, create_xxh3)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_BLOOM, .capacity = 1000,
		.bits_per_key = 10, .fixed_seed = true, .seed = 0x1234,
		.hash_algo = MF_HASH_XXH3);
	static const uint32_t lens[XXH3_LENS] = { 1, 3, 4, 8, 9, 16, 17, 100, 129, 240,
					 241, 1024, 1025, 4096 };
	static uint8_t keys[4096 * 2];
	struct mf_offline *off;
	size_t total = 0;
	struct mf_api_info a;
	struct mf_info i;
	int fd;

	ASSERT_EQ(0, mf_api(self->dev, &a));
	EXPECT_TRUE(a.features & MEMFILTER_FEAT_HASH_XXH3);
	for (size_t j = 0; j < sizeof(keys); j++)
		keys[j] = j * 31 + 7;
	for (size_t j = 0; j < XXH3_LENS; j++)
		total += lens[j];
	ASSERT_GE(sizeof(keys), total);

	fd = mf_create(self->dev, &o);
	ASSERT_LE(0, fd) TH_LOG("%s", mf_strerror(fd));
	ASSERT_EQ(0, mf_info(fd, &i));
	EXPECT_EQ(MF_HASH_XXH3, i.hash_algo);
	EXPECT_EQ(0x1234, i.seed);
	EXPECT_FALSE(i.keyed);
	EXPECT_EQ(XXH3_LENS, mf_addv(fd, keys, lens, XXH3_LENS, NULL, NULL));
	EXPECT_EQ(XXH3_LENS, mf_queryv(fd, keys, lens, XXH3_LENS, NULL, NULL));

	ASSERT_EQ(0, mf_offline_create(&o, &off));
	EXPECT_EQ(XXH3_LENS, mf_offline_addv(off, keys, lens,
						  XXH3_LENS, NULL, NULL));
	expect_dump_is_offline(_metadata, fd, off);

	o.fixed_seed = false;
	o.seed = 0;
	o.keyed = true;
	EXPECT_EQ(-EINVAL, mf_create(self->dev, &o));
}

/*
 * Layouts through the library: each one reaches the kernel (mf_layout()
 * says it, a cuckoo filter has none) and fills the table the library's
 * offline filter of the same options does; the default is the one both
 * make; an unknown layout and one on a cuckoo filter are refused.
 */
TEST_F(lib, layouts)
{
	static const int types[] = { MF_TYPE_BLOOM, MF_TYPE_GROW };
	MF_OPTS(mf_create_opts, cuckoo, .type = MF_TYPE_CUCKOO, .capacity = 1000,
		.fingerprint_bits = 12);
	uint64_t keys[500];
	struct mf_offline *off;
	struct mf_api_info a;
	int fd, deflt = -1;

	ASSERT_EQ(0, mf_api(self->dev, &a));
	EXPECT_TRUE(a.features & MEMFILTER_FEAT_LAYOUTS);
	for (size_t j = 0; j < 500; j++)
		keys[j] = j * 0x9e3779b97f4a7c15ULL;
	for (size_t t = 0; t < 2; t++) {
		for (int l = MF_LAYOUT_DEFAULT; l <= MF_LAYOUT_SPLIT32; l++) {
			MF_OPTS(mf_create_opts, o, .type = types[t], .capacity = 1000,
				.fpr = 0.01, .fixed_seed = true, .seed = 7, .layout = l);

			fd = types[t] == MF_TYPE_GROW ? mf_create_grow(self->dev, &o, NULL) :
							 mf_create(self->dev, &o);
			ASSERT_LE(0, fd) TH_LOG("%s", mf_strerror(fd));
			ASSERT_EQ(0, types[t] == MF_TYPE_GROW ?
				     mf_offline_create_grow(&o, NULL, &off) :
				     mf_offline_create(&o, &off));
			EXPECT_EQ(mf_offline_layout(off), mf_layout(fd));
			if (l) {
				EXPECT_EQ(l, mf_layout(fd));
			} else {
				deflt = mf_layout(fd);
			}
			/* Under half: the module makes no second sub-filter ahead. */
			EXPECT_EQ(300, mf_add(fd, keys, 8, 300, NULL, NULL));
			EXPECT_EQ(300, mf_offline_add(off, keys, 8, 300, NULL, NULL));
			/* Closes @fd and frees @off. */
			expect_dump_is_offline(_metadata, fd, off);
		}
	}
	EXPECT_TRUE(deflt == MF_LAYOUT_LINE64 || deflt == MF_LAYOUT_SPLIT32);
	fd = mf_create(self->dev, &cuckoo);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, mf_layout(fd));
	close(fd);
	cuckoo.layout = MF_LAYOUT_SPLIT32;
	EXPECT_EQ(-EINVAL, mf_create(self->dev, &cuckoo));
	cuckoo.type = MF_TYPE_BLOOM;
	cuckoo.fingerprint_bits = 0;
	cuckoo.fpr = 0.01;
	cuckoo.layout = 3;
	EXPECT_EQ(-EINVAL, mf_create(self->dev, &cuckoo));
}

/*
 * The default hash is XXH3 (MEMFILTER_FEAT_HASH_DEFAULT_XXH3); XXH64 by
 * name reaches the kernel (MEMFILTER_CREATE_XXH64) and fills the table the
 * library's offline XXH64 filter does; the raw flags that contradict each
 * other are refused.
 */
TEST_F(lib, create_default_and_xxh64)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_BLOOM, .capacity = 1000,
		.bits_per_key = 10, .fixed_seed = true, .seed = 0x1234);
	struct memfilter_create c = {
		.size = sizeof(c), .type = MEMFILTER_TYPE_BLOOM,
		.capacity = 1000, .bits_per_key_q4 = 40,
	};
	uint64_t keys[500];
	struct mf_offline *off;
	struct mf_api_info a;
	struct mf_info i;
	int fd;

	ASSERT_EQ(0, mf_api(self->dev, &a));
	EXPECT_TRUE(a.features & MEMFILTER_FEAT_HASH_DEFAULT_XXH3);
	for (size_t j = 0; j < 500; j++)
		keys[j] = j * 0x9e3779b97f4a7c15ULL;
	fd = mf_create(self->dev, &o);
	ASSERT_LE(0, fd) TH_LOG("%s", mf_strerror(fd));
	ASSERT_EQ(0, mf_info(fd, &i));
	EXPECT_EQ(MF_HASH_XXH3, i.hash_algo);
	close(fd);

	o.hash_algo = MF_HASH_XXH64;
	fd = mf_create(self->dev, &o);
	ASSERT_LE(0, fd) TH_LOG("%s", mf_strerror(fd));
	ASSERT_EQ(0, mf_info(fd, &i));
	EXPECT_EQ(MF_HASH_XXH64, i.hash_algo);
	EXPECT_EQ(0x1234, i.seed);
	EXPECT_EQ(500, mf_add(fd, keys, 8, 500, NULL, NULL));
	ASSERT_EQ(0, mf_offline_create(&o, &off));
	EXPECT_EQ(500, mf_offline_add(off, keys, 8, 500, NULL, NULL));
	expect_dump_is_offline(_metadata, fd, off);

	c.flags = MEMFILTER_CREATE_XXH64 | MEMFILTER_CREATE_XXH3;
	EXPECT_EQ(-1, ioctl(self->dev, MEMFILTER_IOC_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.flags = MEMFILTER_CREATE_XXH64 | MEMFILTER_CREATE_KEYED;
	EXPECT_EQ(-1, ioctl(self->dev, MEMFILTER_IOC_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.flags = MEMFILTER_CREATE_XXH64 << 1;
	EXPECT_EQ(-1, ioctl(self->dev, MEMFILTER_IOC_CREATE, &c));
	EXPECT_EQ(EOPNOTSUPP, errno);
}

TEST_F(lib, create_cuckoo_from_fpr_and_keyed)
{
	struct mf_create_opts o = {
		.type = MF_TYPE_CUCKOO,
		.capacity = 1000,
		.fpr = 0.001,
		.keyed = true,
	};
	struct mf_info i;
	int fd = mf_create(self->dev, &o);

	ASSERT_LE(0, fd) TH_LOG("%s", mf_strerror(fd));
	ASSERT_EQ(0, mf_info(fd, &i));
	EXPECT_EQ(MF_TYPE_CUCKOO, i.type);
	EXPECT_EQ(MF_HASH_SIPHASH24, i.hash_algo);
	EXPECT_TRUE(i.keyed);
	EXPECT_EQ(0, i.seed);
	EXPECT_TRUE(i.fingerprint_bits == 12 || i.fingerprint_bits == 16);
	EXPECT_EQ(4, i.k);
	EXPECT_LE(1000, i.fill_max);
	close(fd);
}

TEST_F(lib, create_rejects_bad_parameters)
{
	struct mf_create_opts o = { .type = MF_TYPE_BLOOM, .capacity = 10 };
	char longname[MF_NAME_MAX + 1];

	o.fpr = 1.0;
	EXPECT_EQ(-EINVAL, mf_create(self->dev, &o));
	o.fpr = -0.1;
	EXPECT_EQ(-EINVAL, mf_create(self->dev, &o));
	o.fpr = 1e-12;		/* rounds to 0 ppb */
	EXPECT_EQ(-EINVAL, mf_create(self->dev, &o));
	o.fpr = 0.01;
	o.bits_per_key = 10;	/* both */
	EXPECT_EQ(-EINVAL, mf_create(self->dev, &o));
	o.fpr = 0;
	o.bits_per_key = 0.1;	/* not a quarter */
	EXPECT_EQ(-EINVAL, mf_create(self->dev, &o));
	o.bits_per_key = 10;
	o.capacity = 0;
	EXPECT_EQ(-EINVAL, mf_create(self->dev, &o));
	o.capacity = 10;
	o.keyed = o.fixed_seed = true;
	EXPECT_EQ(-EINVAL, mf_create(self->dev, &o));
	o.keyed = o.fixed_seed = false;
	o.type = 3;
	EXPECT_EQ(-EINVAL, mf_create(self->dev, &o));
	o.type = MF_TYPE_CUCKOO;
	o.bits_per_key = 0;
	o.fingerprint_bits = 9;
	EXPECT_EQ(-EINVAL, mf_create(self->dev, &o));
	o.fingerprint_bits = 8;
	memset(longname, 'a', MF_NAME_MAX);
	longname[MF_NAME_MAX] = '\0';
	o.name = longname;
	EXPECT_EQ(-ENAMETOOLONG, mf_create(self->dev, &o));
	o.name = "bad name";
	EXPECT_EQ(-EINVAL, mf_create(self->dev, &o));
	EXPECT_FALSE(in_list(self->dev, "bad name"));
	EXPECT_EQ(-ENOENT, mf_open(self->dev, "libtest-never"));
}

/*
 * Every field set is honoured or refused by the real module too:
 * hash_algo in zero-initialised options, a seed needs fixed_seed, bits
 * per key exact, the window and grow options as given.
 */
TEST_F(lib, create_honours_every_field)
{
	struct mf_create_opts o = { .type = MF_TYPE_BLOOM, .capacity = 100,
				    .fpr = 0.01, .hash_algo = MF_HASH_XXH64 };
	MF_OPTS(mf_window_opts, w, .generations = 3, .period_ms = 60000,
		.rotate_by_count = true);
	MF_OPTS(mf_grow_opts, g, .max_subs = 5, .factor = 3, .ratio = 0.25);
	MF_OPTS(mf_window_info, wi);
	MF_OPTS(mf_grow_info, gi);
	struct mf_info i;
	int fd;

	fd = mf_create(self->dev, &o);
	ASSERT_LE(0, fd) TH_LOG("%s", MF_CALL_STRERROR(mf_create, fd));
	ASSERT_EQ(0, mf_info(fd, &i));
	EXPECT_EQ(MF_HASH_XXH64, i.hash_algo);
	close(fd);
	o.hash_algo = 0;
	o.seed = 42;
	EXPECT_EQ(-EINVAL, mf_create(self->dev, &o));
	o.fixed_seed = true;
	fd = mf_create(self->dev, &o);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, mf_info(fd, &i));
	EXPECT_EQ(42, i.seed);
	close(fd);
	o = (struct mf_create_opts){ .type = MF_TYPE_BLOOM, .capacity = 100,
				     .bits_per_key = 10.1 };
	EXPECT_EQ(-EINVAL, mf_create(self->dev, &o));
	o.bits_per_key = 10.25;
	fd = mf_create(self->dev, &o);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, mf_info(fd, &i));
	EXPECT_EQ(10.25, i.bits_per_key);
	close(fd);
	o.type = MF_TYPE_WINDOW;
	fd = mf_create_window(self->dev, &o, &w);
	ASSERT_LE(0, fd) TH_LOG("%s", MF_CALL_STRERROR(mf_create_window, fd));
	ASSERT_EQ(0, mf_window_info(fd, &wi));
	EXPECT_EQ(3, wi.generations);
	EXPECT_EQ(60000, wi.period_ms);
	EXPECT_TRUE(wi.rotate_by_count);
	close(fd);
	o = (struct mf_create_opts){ .type = MF_TYPE_GROW, .capacity = 100,
				     .fpr = 0.01 };
	fd = mf_create_grow(self->dev, &o, &g);
	ASSERT_LE(0, fd) TH_LOG("%s", MF_CALL_STRERROR(mf_create_grow, fd));
	ASSERT_EQ(0, mf_grow_info(fd, &gi));
	EXPECT_EQ(5, gi.max_subs);
	EXPECT_EQ(3, gi.factor);
	EXPECT_EQ(0.25, gi.ratio);
	close(fd);
	g.ratio = 0.333;
	EXPECT_EQ(-EINVAL, mf_create_grow(self->dev, &o, &g));
}

TEST_F(lib, publish_open_list_unpublish)
{
	struct mf_create_opts o = {
		.type = MF_TYPE_CUCKOO,
		.capacity = 100,
		.fingerprint_bits = 16,
		.name = "libtest-named",
	};
	uint64_t key = 42, res = 0;
	struct mf_info i;
	int fd, fd2;

	fd = mf_create(self->dev, &o);
	ASSERT_LE(0, fd) TH_LOG("%s", mf_strerror(fd));
	EXPECT_EQ(-EEXIST, mf_create(self->dev, &o));
	EXPECT_TRUE(in_list(self->dev, "libtest-named"));
	ASSERT_EQ(1, mf_add(fd, &key, sizeof(key), 1, NULL, NULL));

	/* A second fd by name sees the same filter. */
	fd2 = mf_open(self->dev, "libtest-named");
	ASSERT_LE(0, fd2) TH_LOG("%s", mf_strerror(fd2));
	EXPECT_EQ(1, mf_query(fd2, &key, sizeof(key), 1, &res, NULL));
	EXPECT_EQ(1, res);
	ASSERT_EQ(0, mf_info(fd2, &i));
	EXPECT_TRUE(i.published);
	EXPECT_STREQ("libtest-named", i.name);
	EXPECT_EQ(-EBUSY, mf_publish(fd2, "libtest-other"));

	ASSERT_EQ(0, mf_unpublish(fd));
	EXPECT_FALSE(in_list(self->dev, "libtest-named"));
	EXPECT_EQ(-ENOENT, mf_open(self->dev, "libtest-named"));
	/* Still alive through the fds; publishable again under a new name. */
	EXPECT_EQ(1, mf_query(fd, &key, sizeof(key), 1, NULL, NULL));
	ASSERT_EQ(0, mf_publish(fd2, "libtest-renamed"));
	EXPECT_TRUE(in_list(self->dev, "libtest-renamed"));
	EXPECT_EQ(0, mf_unpublish(fd2));
	EXPECT_EQ(-EINVAL, mf_publish(fd2, ""));
	close(fd2);
	close(fd);
}

/*
 * mf_replace() and mf_exchange(): the name and its id go to the other
 * filter; the flag publishes a free name; bad arguments are -EINVAL or
 * -ENAMETOOLONG before any ioctl.
 */
TEST_F(lib, replace_and_exchange)
{
	char long_name[MF_NAME_MAX + 1];
	int a = bloom(self->dev, 100, 0.01), b = bloom(self->dev, 200, 0.01);
	uint32_t id, id2;
	struct mf_info i;

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	EXPECT_EQ(-ENOENT, mf_replace(self->dev, "libtest-rep", b, 0));
	ASSERT_EQ(0, mf_replace(self->dev, "libtest-rep", a, MF_REPLACE_PUBLISH));
	ASSERT_EQ(0, mf_pub_id(a, &id));
	ASSERT_EQ(0, mf_replace(self->dev, "libtest-rep", b, 0));
	ASSERT_EQ(0, mf_pub_id(b, &id2));
	EXPECT_EQ(id, id2);
	EXPECT_EQ(-ENOENT, mf_pub_id(a, &id2));
	EXPECT_EQ(-EBUSY, mf_replace(self->dev, "libtest-rep", b, 0));
	ASSERT_EQ(0, mf_publish(a, "libtest-rep.old"));
	ASSERT_EQ(0, mf_exchange(self->dev, "libtest-rep", "libtest-rep.old"));
	ASSERT_EQ(0, mf_info(a, &i));
	EXPECT_STREQ("libtest-rep", i.name);
	ASSERT_EQ(0, mf_pub_id(a, &id2));
	EXPECT_EQ(id, id2);
	EXPECT_EQ(-EINVAL, mf_exchange(self->dev, "libtest-rep", "libtest-rep"));
	EXPECT_EQ(-ENOENT, mf_exchange(self->dev, "libtest-rep", "libtest-none"));

	memset(long_name, 'n', MF_NAME_MAX);
	long_name[MF_NAME_MAX] = 0;
	EXPECT_EQ(-ENAMETOOLONG, mf_replace(self->dev, long_name, b, 0));
	EXPECT_EQ(-ENAMETOOLONG, mf_exchange(self->dev, "libtest-rep", long_name));
	EXPECT_EQ(-EINVAL, mf_replace(self->dev, NULL, b, 0));
	EXPECT_EQ(-EINVAL, mf_replace(self->dev, "", b, 0));
	EXPECT_EQ(-EINVAL, mf_replace(self->dev, "libtest-rep", b, 2));
	EXPECT_EQ(-EINVAL, mf_exchange(self->dev, NULL, "libtest-rep"));
	EXPECT_EQ(-EINVAL, mf_exchange(self->dev, "libtest-rep", ""));
	EXPECT_EQ(-EBADF, mf_replace(self->dev, "libtest-rep", self->dev, 0));
	EXPECT_EQ(-EBADF, mf_replace(-1, "libtest-rep", b, 0));
	EXPECT_EQ(0, mf_unpublish(a));
	EXPECT_EQ(0, mf_unpublish(b));
	close(a);
	close(b);
}

/* More names than mf_list()'s first guess: the library must grow. */
TEST_F(lib, list_grows_buffer)
{
	enum { N = 40 };
	int fds[N], i, found = 0;
	char name[MF_NAME_MAX], **names;
	ssize_t n, j;

	for (i = 0; i < N; i++) {
		fds[i] = bloom(self->dev, 10, 0.01);
		ASSERT_LE(0, fds[i]);
		snprintf(name, sizeof(name), "libtest-list-%02d", i);
		ASSERT_EQ(0, mf_publish(fds[i], name));
	}
	n = mf_list(self->dev, &names);
	ASSERT_LE(N, n) TH_LOG("%s", mf_strerror(n));
	ASSERT_EQ(NULL, names[n]);
	for (j = 0; j < n; j++)
		found += !strncmp(names[j], "libtest-list-", 13);
	EXPECT_EQ(N, found);
	free(names);
	for (i = 0; i < N; i++) {
		EXPECT_EQ(0, mf_unpublish(fds[i]));
		close(fds[i]);
	}
	EXPECT_FALSE(in_list(self->dev, "libtest-list-00"));
}

TEST_F(lib, fixed_keys_bitmap_and_counts)
{
	enum { N = 1000 };
	__u64 *keys = seq_keys(2 * N, 1);
	uint64_t bits[(2 * N + 63) / 64];
	size_t done = 0;
	ssize_t r;
	int fd = bloom(self->dev, N, 0.0001);

	ASSERT_LE(0, fd);
	ASSERT_NE(NULL, keys);
	memset(bits, 0xa5, sizeof(bits));
	r = mf_add(fd, keys, sizeof(*keys), N, bits, &done);
	EXPECT_EQ(N, r);
	EXPECT_EQ(N, done);
	EXPECT_EQ(N, popcount_bits(bits, N));

	/* First half present, second half absent (bar false positives). */
	memset(bits, 0xa5, sizeof(bits));
	r = mf_query(fd, keys, sizeof(*keys), 2 * N, bits, &done);
	EXPECT_EQ(2 * N, done);
	EXPECT_EQ(r, popcount_bits(bits, 2 * N));
	EXPECT_EQ(N, popcount_bits(bits, N));
	EXPECT_GE(N + 5, r);
	EXPECT_EQ(0, mf_query(fd, keys, sizeof(*keys), 0, NULL, &done));
	EXPECT_EQ(0, done);

	EXPECT_EQ(-EINVAL, mf_add(fd, keys, 0, N, NULL, &done));
	EXPECT_EQ(-EINVAL, mf_add(fd, keys, MF_KEY_MAX + 1, 1, NULL, NULL));
	EXPECT_EQ(-EOPNOTSUPP, mf_delete(fd, keys, sizeof(*keys), 1, NULL,
					 &done));
	EXPECT_EQ(0, done);
	EXPECT_EQ(-EOPNOTSUPP, mf_add_unique(fd, keys, sizeof(*keys), 1,
					     NULL, NULL));
	free(keys);
	close(fd);
}

TEST_F(lib, variable_keys)
{
	static const char data[] = "applebananacherry" "kiwi";
	static const uint32_t lens[] = { 5, 6, 6, 0, 4 };
	static const char absent[] = "applebananacherr";
	static const uint32_t alens[] = { 4, 7, 5 }; /* appl, ebanana, cherr */
	uint64_t bits = 0;
	struct mf_info i;
	int fd = cuckoo(self->dev, 100, 16);

	ASSERT_LE(0, fd);
	EXPECT_EQ(4, mf_addv(fd, data, lens, 4, NULL, NULL));
	EXPECT_EQ(4, mf_queryv(fd, data, lens, 4, &bits, NULL));
	EXPECT_EQ(0xf, bits);
	/* kiwi was not added; the other splits of the same bytes differ. */
	EXPECT_EQ(0, mf_queryv(fd, data + 17, lens + 4, 1, NULL, NULL));
	EXPECT_EQ(0, mf_queryv(fd, absent, alens, 3, &bits, NULL));
	EXPECT_EQ(0, bits);
	/* The same key as fixed-size and as variable-size is one key. */
	EXPECT_EQ(1, mf_query(fd, "banana", 6, 1, NULL, NULL));

	EXPECT_EQ(2, mf_deletev(fd, data, lens, 2, &bits, NULL));
	EXPECT_EQ(3, bits);
	EXPECT_EQ(2, mf_queryv(fd, data, lens, 4, &bits, NULL));
	EXPECT_EQ(0xc, bits);
	EXPECT_EQ(2, mf_add_uniquev(fd, data, lens, 3, &bits, NULL));
	EXPECT_EQ(3, bits);	/* cherry is already there */
	ASSERT_EQ(0, mf_info(fd, &i));
	EXPECT_EQ(4, i.keys);
	EXPECT_EQ(2, i.deletes);
	close(fd);
}

/*
 * One key without a lengths array, the empty key among them, against the
 * real module: each call answers as its lengths-array call of one key,
 * and an offline filter of the same seed answers alike.
 */
TEST_F(lib, single_keys_and_the_empty_key)
{
	int c = cuckoo(self->dev, 100, 16), b = bloom(self->dev, 100, 0.01);
	struct mf_create_opts o = { .type = MF_TYPE_BLOOM, .capacity = 100,
				    .fpr = 0.01, .fixed_seed = true, .seed = 1 };
	char big[MF_KEY_MAX + 1];
	struct mf_offline *off;

	ASSERT_LE(0, c);
	ASSERT_LE(0, b);
	memset(big, 'k', sizeof(big));
	EXPECT_EQ(0, mf_query_key(c, NULL, 0));
	EXPECT_EQ(1, mf_add_key(c, NULL, 0));
	EXPECT_EQ(1, mf_query_key(c, "", 0));
	EXPECT_EQ(1, mf_queryv(c, "x", &(uint32_t){ 0 }, 1, NULL, NULL));
	EXPECT_EQ(1, mf_count_key(c, NULL, 0));
	EXPECT_EQ(0, mf_add_unique_key(c, NULL, 0));
	EXPECT_EQ(1, mf_add_unique_key(c, "pear", 4));
	EXPECT_EQ(2, mf_count_key(c, NULL, 0) + mf_count_key(c, "pear", 4));
	EXPECT_EQ(1, mf_delete_key(c, NULL, 0));
	EXPECT_EQ(0, mf_query_key(c, NULL, 0));
	EXPECT_EQ(0, mf_delete_key(c, NULL, 0));
	EXPECT_EQ(-EOPNOTSUPP, mf_test_and_add_key(c, "pear", 4));
	EXPECT_EQ(1, mf_add_key(c, big, MF_KEY_MAX));
	EXPECT_EQ(1, mf_query_key(c, big, MF_KEY_MAX));
	EXPECT_EQ(-EINVAL, mf_add_key(c, big, MF_KEY_MAX + 1));
	EXPECT_EQ(-EINVAL, mf_query_key(c, NULL, 1));

	ASSERT_EQ(0, mf_offline_create(&o, &off));
	EXPECT_EQ(0, mf_test_and_add_key(b, NULL, 0));
	EXPECT_EQ(1, mf_test_and_add_key(b, NULL, 0));
	EXPECT_EQ(0, mf_offline_test_and_add_key(off, NULL, 0));
	EXPECT_EQ(1, mf_offline_test_and_add_key(off, NULL, 0));
	EXPECT_EQ(1, mf_add_key(b, "plum", 4));
	EXPECT_EQ(1, mf_offline_add_key(off, "plum", 4));
	EXPECT_EQ(mf_query_key(b, "fig", 3), mf_offline_query_key(off, "fig", 3));
	EXPECT_EQ(-EOPNOTSUPP, mf_delete_key(b, "plum", 4));
	expect_dump_is_offline(_metadata, b, off);	/* closes b */
	close(c);
}

TEST_F(lib, add_unique_and_delete_fixed)
{
	enum { N = 5000 };
	__u64 *keys = seq_keys(N, 1000);
	uint64_t bits[(N + 63) / 64];
	ssize_t r;
	int fd = cuckoo(self->dev, N, 16);

	ASSERT_LE(0, fd);
	ASSERT_NE(NULL, keys);
	r = mf_add_unique(fd, keys, sizeof(*keys), N, bits, NULL);
	/* Distinct keys: only a fingerprint collision stops one. */
	EXPECT_LE(N - 5, r);
	EXPECT_EQ(r, popcount_bits(bits, N));
	EXPECT_EQ(0, mf_add_unique(fd, keys, sizeof(*keys), N, bits, NULL));
	EXPECT_EQ(0, popcount_bits(bits, N));
	EXPECT_EQ(r, mf_delete(fd, keys, sizeof(*keys), N, NULL, NULL));
	EXPECT_GE(5, mf_query(fd, keys, sizeof(*keys), N, NULL, NULL));
	free(keys);
	close(fd);
}

/* One call with more keys than a kernel batch holds. */
TEST_F(lib, batch_split)
{
	const size_t n = MEMFILTER_BATCH_MAX + MEMFILTER_BATCH_MAX / 2 + 7;
	__u64 *keys = seq_keys(n, 1);
	uint64_t *bits;
	uint32_t *lens;
	struct mf_info i;
	size_t done = 0, odd;
	ssize_t r;
	int fd = bloom(self->dev, n, 0.01);

	ASSERT_LE(0, fd) TH_LOG("%s", mf_strerror(fd));
	ASSERT_NE(NULL, keys);
	bits = calloc((n + 63) / 64, sizeof(*bits));
	lens = malloc(n * sizeof(*lens));
	ASSERT_NE(NULL, bits);
	ASSERT_NE(NULL, lens);
	EXPECT_EQ(n, mf_add(fd, keys, sizeof(*keys), n, NULL, &done));
	EXPECT_EQ(n, done);
	EXPECT_EQ(n, mf_query(fd, keys, sizeof(*keys), n, bits, &done));
	EXPECT_EQ(n, done);
	EXPECT_EQ(n, popcount_bits(bits, n));
	ASSERT_EQ(0, mf_info(fd, &i));
	EXPECT_EQ(n, i.keys);
	EXPECT_EQ(n, i.queries);

	/*
	 * Variable-size keys across the split: empty keys and the added
	 * 8-byte keys alternate. A wrong byte offset after a batch boundary
	 * would misalign every later 8-byte key.
	 */
	for (done = 0; done < n; done++)
		lens[done] = done % 2 ? 8 : 0;
	memset(bits, 0, (n + 63) / 64 * sizeof(*bits));
	done = 0;
	r = mf_queryv(fd, keys, lens, n, bits, &done);
	EXPECT_LE(n / 2, r);
	EXPECT_EQ(n, done);
	for (done = 1, odd = 0; done < n; done += 2)
		odd += bits[done / 64] >> (done % 64) & 1;
	EXPECT_EQ(n / 2, odd);
	EXPECT_EQ(0, mf_clear(fd));
	ASSERT_EQ(0, mf_info(fd, &i));
	EXPECT_EQ(0, i.keys);
	EXPECT_EQ(0, i.fill);
	EXPECT_EQ(0, mf_query(fd, keys, sizeof(*keys), 1000, NULL, NULL));
	free(lens);
	free(bits);
	free(keys);
	close(fd);
}

/*
 * A cuckoo filter that fills up in the second kernel batch: the library
 * reports ENOSPC, how many keys went in (across batches), and exactly
 * those keys are present. About 1.6 million inserts up to full load: in
 * the debug guest (KASAN, lockdep, TCG, writer lock taken every 16 keys)
 * that is more than the harness's default 30 s.
 */
TEST_F_TIMEOUT(lib, partial_failure_reports_done, 300)
{
	const size_t n = 3 * (size_t)MEMFILTER_BATCH_MAX;
	__u64 *keys = seq_keys(n, 7);
	uint64_t *bits;
	struct mf_info i;
	size_t done = 0;
	ssize_t r;
	int fd = cuckoo(self->dev, MEMFILTER_BATCH_MAX + MEMFILTER_BATCH_MAX / 4, 8);

	ASSERT_LE(0, fd) TH_LOG("%s", mf_strerror(fd));
	ASSERT_NE(NULL, keys);
	bits = calloc(n / 64, sizeof(*bits));
	ASSERT_NE(NULL, bits);
	r = mf_add(fd, keys, sizeof(*keys), n, bits, &done);
	EXPECT_EQ(-ENOSPC, r);
	EXPECT_LT(MEMFILTER_BATCH_MAX, done);
	EXPECT_GT(n, done);
	EXPECT_EQ(done, popcount_bits(bits, n));
	EXPECT_EQ(done, popcount_bits(bits, done));
	ASSERT_EQ(0, mf_info(fd, &i));
	EXPECT_EQ(done, i.keys);
	EXPECT_LE(1, i.failed);
	/* Nothing already in it was lost. */
	EXPECT_EQ(done, mf_query(fd, keys, sizeof(*keys), done, NULL, NULL));

	/* Fixed-size and variable-size report the same way from the start. */
	r = mf_add(fd, keys + done, sizeof(*keys), 100000, NULL, &done);
	EXPECT_EQ(-ENOSPC, r);
	EXPECT_GT(100000, done);
	free(bits);
	free(keys);
	close(fd);
}

TEST_F(lib, bad_fds)
{
	struct mf_info i;
	uint64_t key = 1;

	EXPECT_EQ(-EBADF, mf_info(-1, &i));
	EXPECT_EQ(-EBADF, mf_add(-1, &key, sizeof(key), 1, NULL, NULL));
	/* The device fd is not a filter fd. */
	EXPECT_NE(0, mf_info(self->dev, &i));
	EXPECT_NE(0, mf_clear(self->dev));
}

TEST(strerror_covers_the_abi_errnos)
{
	static const int errs[] = {
		ENOTTY, EFAULT, EINVAL, E2BIG, EOPNOTSUPP, EACCES, EPERM,
		ENOENT, EEXIST, ENOSPC, EBADF, ENOMEM, EBUSY, ENAMETOOLONG,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(errs); i++) {
		const char *s = mf_strerror(-errs[i]);

		ASSERT_NE(NULL, s);
		EXPECT_LT(3, strlen(s));
	}
	EXPECT_STREQ("no such filter", mf_call_strerror("mf_open", -ENOENT));
	EXPECT_STREQ("the filter is full (nothing in it was lost)",
		     MF_CALL_STRERROR(mf_add, -ENOSPC));
}

/* The errnos of the real module read in the terms of the call. */
TEST_F(lib, strerror_of_real_calls)
{
	uint64_t key = 1;
	int fd = mf_open(self->dev, "lib-no-such-filter");
	int ro;

	ASSERT_EQ(-ENOENT, fd);
	EXPECT_STREQ("no such filter", MF_CALL_STRERROR(mf_open, fd));
	/* A filter command on the device fd. */
	fd = mf_add(self->dev, &key, sizeof(key), 1, NULL, NULL);
	ASSERT_EQ(-ENOTTY, fd);
	EXPECT_STREQ("not a memfilter filter fd", MF_CALL_STRERROR(mf_add, fd));
	/* A device command on a filter fd. */
	fd = mf_create(self->dev, &(struct mf_create_opts){
		.type = MF_TYPE_BLOOM, .capacity = 10, .fpr = 0.01 });
	ASSERT_LE(0, fd) TH_LOG("%s", MF_CALL_STRERROR(mf_create, fd));
	ro = mf_list(fd, &(char **){ NULL });
	EXPECT_EQ(-ENOTTY, ro);
	EXPECT_STREQ("not an fd of /dev/memfilter (see mf_open_device())",
		     MF_CALL_STRERROR(mf_list, ro));
	close(fd);
}

TEST_HARNESS_MAIN
