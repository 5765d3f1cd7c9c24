// SPDX-License-Identifier: GPL-2.0
/*
 * Selftest of filter images through the raw ABI, in the guest: dumps by
 * read() round-trip through MEMFILTER_IOC_LOAD with identical answers for
 * both filter types, keyed and not; a dump taken while other threads insert
 * holds every key inserted before it; corrupt, truncated and padded images
 * are refused with nothing created; keyed dumps need privilege.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "kselftest_harness.h"
#include "memfilter_utils.h"

MF_DEV_FIXTURE(img)

FIXTURE_VARIANT(img) {
	__u32 type;
	__u32 flags;
};

FIXTURE_VARIANT_ADD(img, bloom) { .type = MEMFILTER_TYPE_BLOOM };
FIXTURE_VARIANT_ADD(img, bloom_keyed) {
	.type = MEMFILTER_TYPE_BLOOM, .flags = MEMFILTER_CREATE_KEYED,
};
FIXTURE_VARIANT_ADD(img, cuckoo) { .type = MEMFILTER_TYPE_CUCKOO };
FIXTURE_VARIANT_ADD(img, cuckoo_keyed) {
	.type = MEMFILTER_TYPE_CUCKOO, .flags = MEMFILTER_CREATE_KEYED,
};

#define N 20000

TEST_F(img, round_trip)
{
	__u64 *present = spread_keys(N, 1);
	__u64 *absent = spread_keys(N, 1ULL << 60);
	__u64 r1[N / 64 + 1], r2[N / 64 + 1];
	struct memfilter_info i1 = { .size = sizeof(i1) };
	struct memfilter_info i2 = { .size = sizeof(i2) };
	const struct memfilter_image_header *h;
	unsigned char *img, *img2;
	size_t len, len2;
	int fd, fd2, err;
	__u32 cnt;

	fd = create_default(self->dev, variant->type, N, variant->flags);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, keys_op(fd, MEMFILTER_IOC_ADD, present, N, NULL, NULL, NULL));
	if (variant->type == MEMFILTER_TYPE_CUCKOO)	/* deletes survive too */
		ASSERT_EQ(0, keys_op(fd, MEMFILTER_IOC_DELETE, present, 100,
				     NULL, NULL, NULL));

	img = dump(fd, 4096, &len, &err);
	ASSERT_EQ(0, err);
	h = (const void *)img;
	ASSERT_LE(sizeof(*h), len);
	EXPECT_EQ(MEMFILTER_IMAGE_MAGIC, h->magic);
	EXPECT_EQ(MEMFILTER_IMAGE_VERSION, h->version);
	EXPECT_EQ(len - sizeof(*h), h->payload_size);
	EXPECT_EQ(variant->type, h->type);
	EXPECT_EQ(!!variant->flags, !!(h->flags & MEMFILTER_IMAGE_SECRET));

	/* Odd read sizes give the same bytes (a fresh snapshot each time). */
	img2 = dump(fd, 1000, &len2, &err);
	ASSERT_EQ(0, err);
	ASSERT_EQ(len, len2);
	EXPECT_EQ(0, memcmp(img, img2, len));
	free(img2);

	fd2 = load(self->dev, img, len);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, keys_op(fd, MEMFILTER_IOC_QUERY, present, N, r1, NULL, NULL));
	ASSERT_EQ(0, keys_op(fd2, MEMFILTER_IOC_QUERY, present, N, r2, &cnt, NULL));
	EXPECT_EQ(0, memcmp(r1, r2, sizeof(r1)));
	ASSERT_EQ(0, keys_op(fd, MEMFILTER_IOC_QUERY, absent, N, r1, NULL, NULL));
	ASSERT_EQ(0, keys_op(fd2, MEMFILTER_IOC_QUERY, absent, N, r2, NULL, NULL));
	EXPECT_EQ(0, memcmp(r1, r2, sizeof(r1)));
	ASSERT_EQ(0, xioctl(fd, MEMFILTER_IOC_INFO, &i1));
	ASSERT_EQ(0, xioctl(fd2, MEMFILTER_IOC_INFO, &i2));
	EXPECT_EQ(i1.keys, i2.keys);
	EXPECT_EQ(i1.fill, i2.fill);
	EXPECT_EQ(i1.seed, i2.seed);
	EXPECT_EQ(i1.hash_algo, i2.hash_algo);
	EXPECT_EQ(i1.capacity, i2.capacity);

	/* The loaded filter dumps to the very same image. */
	img2 = dump(fd2, 65536, &len2, &err);
	ASSERT_EQ(0, err);
	ASSERT_EQ(len, len2);
	EXPECT_EQ(0, memcmp(img, img2, len));
	free(img2);
	close(fd2);
	close(fd);
	free(img);
	free(present);
	free(absent);
}

TEST_F(img, corruption_refused)
{
	__u64 *keys = spread_keys(500, 5);
	unsigned char *img;
	size_t len, bit;
	int fd, fd2, err;

	fd = create_default(self->dev, variant->type, 500, variant->flags);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, keys_op(fd, MEMFILTER_IOC_ADD, keys, 500, NULL, NULL, NULL));
	img = dump(fd, 1 << 16, &len, &err);
	ASSERT_EQ(0, err);

	/* Every single-bit flip of the header. */
	for (bit = 0; bit < 128 * 8; bit++) {
		img[bit / 8] ^= 1 << (bit % 8);
		fd2 = load(self->dev, img, len);
		img[bit / 8] ^= 1 << (bit % 8);
		EXPECT_TRUE(fd2 == -EBADMSG || fd2 == -EOPNOTSUPP)
			TH_LOG("header bit %zu: %d", bit, fd2);
		if (fd2 >= 0)
			close(fd2);
	}
	/* A sample of payload flips. */
	for (bit = 128 * 8; bit < len * 8; bit += 8 * len / 64 + 7) {
		img[bit / 8] ^= 1 << (bit % 8);
		fd2 = load(self->dev, img, len);
		img[bit / 8] ^= 1 << (bit % 8);
		EXPECT_EQ(-EBADMSG, fd2) TH_LOG("payload bit %zu", bit);
		if (fd2 >= 0)
			close(fd2);
	}
	/* Every truncation, and one byte too many. */
	for (size_t l = 0; l < len; l++) {
		fd2 = load(self->dev, img, l);
		EXPECT_EQ(-EBADMSG, fd2) TH_LOG("length %zu", l);
		if (fd2 >= 0)
			close(fd2);
	}
	img = realloc(img, len + 1);
	img[len] = 0;
	EXPECT_EQ(-EBADMSG, load(self->dev, img, len + 1));
	/* Intact, it loads. */
	fd2 = load(self->dev, img, len);
	EXPECT_LE(0, fd2);
	close(fd2);
	close(fd);
	free(img);
	free(keys);
}

TEST_F(img, load_abi)
{
	struct memfilter_load l = { .size = sizeof(l) };
	unsigned char buf[sizeof(l) + 8] = { 0 };

	EXPECT_EQ(-EBADMSG, xioctl(self->dev, MEMFILTER_IOC_LOAD, &l));
	l.image = 8;
	l.image_len = 4096;
	EXPECT_EQ(-EFAULT, xioctl(self->dev, MEMFILTER_IOC_LOAD, &l));
	l.flags = 1;
	EXPECT_EQ(-EOPNOTSUPP, xioctl(self->dev, MEMFILTER_IOC_LOAD, &l));
	l.flags = 0;
	l.out_fd = 5;
	EXPECT_EQ(-EINVAL, xioctl(self->dev, MEMFILTER_IOC_LOAD, &l));
	*(__u32 *)buf = sizeof(l) - 1;
	EXPECT_EQ(-EINVAL, xioctl(self->dev, MEMFILTER_IOC_LOAD, buf));
	*(__u32 *)buf = sizeof(l) + 8;
	buf[sizeof(l) + 2] = 1;
	EXPECT_EQ(-E2BIG, xioctl(self->dev, MEMFILTER_IOC_LOAD, buf));
	EXPECT_EQ(-EFAULT, xioctl(self->dev, MEMFILTER_IOC_LOAD, NULL));
}

TEST_F(img, read_must_start_at_zero)
{
	int fd = create_default(self->dev, variant->type, 100, variant->flags);
	char b[16];

	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, pread(fd, b, sizeof(b), 64));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(16, pread(fd, b, sizeof(b), 0));
	EXPECT_EQ(0, memcmp(b, "MFLTIMG1", 8));
	close(fd);
}

/*
 * The right is the opener's (f_cred), not the reader's: an fd root opened
 * stays dumpable after setuid, as a file opened for writing stays
 * writable. perm_test covers the refusals.
 */
static int dump_allowed(void *arg)
{
	char b[128];

	return pread(*(int *)arg, b, sizeof(b), 0) == sizeof(b) ? 0 : 11;
}

TEST_F(img, keyed_dump_follows_the_opener)
{
	int fd;

	if (!variant->flags)
		SKIP(return, "unkeyed filters dump freely");
	SKIP_UNLESS_ROOT();
	fd = create_default(self->dev, variant->type, 100, variant->flags);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, as_nobody(dump_allowed, &fd));
	close(fd);
}

struct ins {
	int fd;
	atomic_uint done;	/* keys [0, done) have been added */
	atomic_int stop;
	int err;
};

static void *inserter(void *arg)
{
	struct ins *s = arg;
	__u64 keys[64];

	for (__u32 i = 0; !atomic_load(&s->stop) && i + 64 <= 8 * N; i += 64) {
		for (int j = 0; j < 64; j++)
			keys[j] = 0x5000000000ULL + i + j;
		if (keys_op(s->fd, MEMFILTER_IOC_ADD, keys, 64, NULL, NULL, NULL))
			s->err = 1;
		atomic_store_explicit(&s->done, i + 64, memory_order_release);
	}
	return NULL;
}

TEST_F(img, dump_under_concurrent_inserts)
{
	struct ins s = { 0 };
	pthread_t t;
	unsigned char *img;
	__u32 before, cnt;
	size_t len;
	int fd2, err;
	__u64 *keys;

	s.fd = create_default(self->dev, variant->type, 9 * N, variant->flags);
	ASSERT_LE(0, s.fd);
	ASSERT_EQ(0, pthread_create(&t, NULL, inserter, &s));
	while (atomic_load(&s.done) < N)
		usleep(1000);
	before = atomic_load_explicit(&s.done, memory_order_acquire);
	img = dump(s.fd, 1 << 16, &len, &err);
	atomic_store(&s.stop, 1);
	pthread_join(t, NULL);
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, s.err);

	fd2 = load(self->dev, img, len);
	ASSERT_LE(0, fd2);
	keys = malloc(before * sizeof(*keys));
	for (__u32 i = 0; i < before; i++)
		keys[i] = 0x5000000000ULL + i;
	ASSERT_EQ(0, keys_op(fd2, MEMFILTER_IOC_QUERY, keys, before, NULL, &cnt,
			     NULL));
	EXPECT_EQ(before, cnt);
	close(fd2);
	close(s.fd);
	free(keys);
	free(img);
}

TEST_HARNESS_MAIN
