// SPDX-License-Identifier: GPL-2.0
/*
 * Selftest of MEMFILTER_IOC_COUNT (RedisBloom's CF.COUNT) against the real
 * module, in the guests: exact counts of keys added and deleted, fixed-
 * and variable-size, across windows of the batch; every count of a filter
 * full of duplicates and 8-bit false positives equal to what libmemfilter's
 * offline code answers from the filter's own dump (whose model
 * tests/native/count_test checks); the statistics COUNT moves; the errnos
 * and the size matrix; and the lockless-reader contract: while a writer
 * fills the filter to the kicks and the stash and empties it again,
 * counts of keys it does not touch never drop below their true value and
 * exceed it by at most the one copy in flight; once it stops they are
 * exact again. Runs inside the guest (kselftest harness, TAP).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "kselftest_harness.h"
#include "libmemfilter.h"
#include "memfilter_utils.h"

#define SEED	0x0c0c0c0c5eed5eedULL

MF_DEV_FIXTURE(count)

static int cuckoo(int dev, __u64 capacity, __u32 fp_bits)
{
	struct memfilter_create c = {
		.size = sizeof(c), .type = MEMFILTER_TYPE_CUCKOO,
		.capacity = capacity, .fingerprint_bits = fp_bits,
		.flags = MEMFILTER_CREATE_SEED, .seed = SEED,
	};

	return xioctl(dev, MEMFILTER_IOC_CREATE, &c) ?: c.out_fd;
}

/* COUNT over @n 8-byte keys: 0 or -errno; out_count into *@hits. */
static int count_keys(int fd, const __u64 *keys, __u32 n, __u8 *counts,
		      __u32 *hits)
{
	__u32 done = 0;
	/* keys_op() passes the results pointer on: here, a byte per key. */
	int ret = keys_op(fd, MEMFILTER_IOC_COUNT, keys, n,
			  (__u64 *)(void *)counts, hits, &done);

	return ret ?: done == n ? 0 : -EPROTO;
}

static int op1(int fd, unsigned long cmd, __u64 key)
{
	__u32 done = 0;
	int ret = keys_op(fd, cmd, &key, 1, NULL, NULL, &done);

	return ret ?: (int)done;
}

TEST_F(count, feature_bit)
{
	struct memfilter_api a = {
		.size = sizeof(a), .api_version = MEMFILTER_API_VERSION,
	};

	ASSERT_EQ(0, xioctl(self->dev, MEMFILTER_IOC_API, &a));
	EXPECT_TRUE(a.features & MEMFILTER_FEAT_COUNT);
}

TEST_F(count, add_three_delete_one)
{
	int fd = cuckoo(self->dev, 1000, 12);
	__u64 key = 42, other = 4242;
	__u32 hits = 99, len = 8;
	__u8 c = 0xff;

	ASSERT_LE(0, fd);
	EXPECT_EQ(0, count_keys(fd, &key, 1, &c, &hits));
	EXPECT_EQ(0, c);
	EXPECT_EQ(0, hits);
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(1, op1(fd, MEMFILTER_IOC_ADD, key));
	ASSERT_EQ(1, op1(fd, MEMFILTER_IOC_ADD, other));
	EXPECT_EQ(0, count_keys(fd, &key, 1, &c, &hits));
	EXPECT_EQ(3, c);
	EXPECT_EQ(1, hits);

	/* The same key as a variable-size key: the same hash, the same count. */
	struct memfilter_keys k = {
		.size = sizeof(k), .count = 1, .keys = (__u64)(uintptr_t)&key,
		.lens = (__u64)(uintptr_t)&len, .results = (__u64)(uintptr_t)&c,
	};
	c = 0;
	ASSERT_EQ(0, xioctl(fd, MEMFILTER_IOC_COUNT, &k));
	EXPECT_EQ(3, c);
	EXPECT_EQ(1, k.out_count);
	EXPECT_EQ(1, k.out_done);

	ASSERT_EQ(1, op1(fd, MEMFILTER_IOC_DELETE, key));
	EXPECT_EQ(0, count_keys(fd, &key, 1, &c, NULL));
	EXPECT_EQ(2, c);
	ASSERT_EQ(1, op1(fd, MEMFILTER_IOC_DELETE, key));
	ASSERT_EQ(1, op1(fd, MEMFILTER_IOC_DELETE, key));
	EXPECT_EQ(0, count_keys(fd, &key, 1, &c, &hits));
	EXPECT_EQ(0, c);
	EXPECT_EQ(0, hits);
	/* No counts wanted: out_count alone. */
	EXPECT_EQ(0, count_keys(fd, &other, 1, NULL, &hits));
	EXPECT_EQ(1, hits);
	close(fd);
}

/* Nine copies: both buckets and the stash; CLEAR brings the count to 0. */
TEST_F(count, nine_copies_and_clear)
{
	struct memfilter_clear cl = { .size = sizeof(cl) };
	int fd = cuckoo(self->dev, 1000, 16);
	__u64 key = 7;
	__u8 c;

	ASSERT_LE(0, fd);
	for (int i = 1; i <= MEMFILTER_COUNT_MAX; i++) {
		ASSERT_EQ(1, op1(fd, MEMFILTER_IOC_ADD, key));
		ASSERT_EQ(0, count_keys(fd, &key, 1, &c, NULL));
		EXPECT_EQ(i, c);
	}
	EXPECT_EQ(-ENOSPC, op1(fd, MEMFILTER_IOC_ADD, key));
	ASSERT_EQ(0, count_keys(fd, &key, 1, &c, NULL));
	EXPECT_EQ(MEMFILTER_COUNT_MAX, c);
	ASSERT_EQ(0, xioctl(fd, MEMFILTER_IOC_CLEAR, &cl));
	ASSERT_EQ(0, count_keys(fd, &key, 1, &c, NULL));
	EXPECT_EQ(0, c);
	close(fd);
}

/* Key i of the model test is added 1 + (i % 5 == 0) + (i % 11 == 0) times. */
static int copies(__u64 i)
{
	return 1 + (i % 5 == 0) + (i % 11 == 0);
}

/*
 * 8-bit fingerprints, keys with duplicates, 100k absent keys in batches
 * of many windows: every kernel count equals the offline count of the
 * kernel's own dump, and the counts of added keys are at least their
 * copies; INFO's queries and hits move by exactly the batch.
 */
TEST_F(count, counts_match_dump)
{
	const __u32 present = 20000, n = 120000;
	int fd = cuckoo(self->dev, 30000, 8), err;
	__u64 *keys = spread_keys(n, 1), *dup;
	__u8 *kc = malloc(n), *oc = malloc(n);
	struct memfilter_info before, after;
	struct mf_offline *off;
	size_t len, m = 0, fps = 0;
	unsigned char *img;
	__u32 hits;
	ssize_t ohits;

	ASSERT_LE(0, fd);
	ASSERT_NE(NULL, keys);
	dup = malloc(3 * present * sizeof(*dup));
	ASSERT_NE(NULL, dup);
	for (__u32 i = 0; i < present; i++)
		for (int c = 0; c < copies(i); c++)
			dup[m++] = keys[i];
	ASSERT_EQ(0, keys_op(fd, MEMFILTER_IOC_ADD, dup, m, NULL, NULL, NULL));

	ASSERT_EQ(0, info(fd, &before));
	ASSERT_EQ(0, count_keys(fd, keys, n, kc, &hits));
	ASSERT_EQ(0, info(fd, &after));
	EXPECT_EQ(before.queries + n, after.queries);
	EXPECT_EQ(before.hits + hits, after.hits);
	EXPECT_EQ(before.adds, after.adds);

	img = dump(fd, 1 << 16, &len, &err);
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, mf_offline_from_image(img, len, &off, NULL));
	ohits = mf_offline_count(off, keys, 8, n, oc, NULL);
	EXPECT_EQ(hits, ohits);
	for (__u32 i = 0; i < n; i++) {
		ASSERT_EQ(oc[i], kc[i]) TH_LOG("key %u", i);
		if (i < present) {
			ASSERT_LE(copies(i), kc[i]) TH_LOG("key %u", i);
		} else {
			fps += kc[i] != 0;
		}
	}
	TH_LOG("%zu of %u absent keys count > 0 (false positives)", fps,
	       n - present);
	EXPECT_LT((n - present) / 200, fps);
	mf_offline_free(off);
	free(img);
	free(dup);
	free(oc);
	free(kc);
	free(keys);
	close(fd);
}

TEST_F(count, errors)
{
	int bloom = create_default(self->dev, MEMFILTER_TYPE_BLOOM, 100, 0);
	int fd = cuckoo(self->dev, 100, 12);
	struct memfilter_keys k = { .size = sizeof(k) };
	unsigned char buf[512];
	__u64 key = 1;
	__u8 c;
	__u32 size;

	ASSERT_LE(0, bloom);
	ASSERT_LE(0, fd);
	/* Bloom filters cannot count, even an empty batch. */
	EXPECT_EQ(-EOPNOTSUPP, count_keys(bloom, &key, 1, &c, NULL));
	EXPECT_EQ(-EOPNOTSUPP, xioctl(bloom, MEMFILTER_IOC_COUNT, &k));
	EXPECT_EQ(0, xioctl(fd, MEMFILTER_IOC_COUNT, &k));

	k.flags = 1;
	EXPECT_EQ(-EOPNOTSUPP, xioctl(fd, MEMFILTER_IOC_COUNT, &k));
	k.flags = 0;
	k.count = MEMFILTER_BATCH_MAX + 1;
	k.key_size = 8;
	k.keys = (__u64)(uintptr_t)&key;
	EXPECT_EQ(-EINVAL, xioctl(fd, MEMFILTER_IOC_COUNT, &k));
	k.count = 1;
	k.key_size = MEMFILTER_KEY_MAX + 1;
	EXPECT_EQ(-EINVAL, xioctl(fd, MEMFILTER_IOC_COUNT, &k));
	k.key_size = 8;
	k.results = 16;		/* unmapped */
	EXPECT_EQ(-EFAULT, xioctl(fd, MEMFILTER_IOC_COUNT, &k));
	EXPECT_EQ(1, k.out_done);	/* as QUERY: the window was processed */
	k.results = 0;
	k.keys = 16;
	EXPECT_EQ(-EFAULT, xioctl(fd, MEMFILTER_IOC_COUNT, &k));

	/* The size matrix of the command. */
	memset(buf, 0, sizeof(buf));
	size = sizeof(struct memfilter_keys) - 1;
	memcpy(buf, &size, 4);
	EXPECT_EQ(-EINVAL, xioctl(fd, MEMFILTER_IOC_COUNT, buf));
	size = sizeof(struct memfilter_keys) + 8;
	memcpy(buf, &size, 4);
	buf[sizeof(struct memfilter_keys) + 3] = 1;
	EXPECT_EQ(-E2BIG, xioctl(fd, MEMFILTER_IOC_COUNT, buf));
	buf[sizeof(struct memfilter_keys) + 3] = 0;
	EXPECT_EQ(0, xioctl(fd, MEMFILTER_IOC_COUNT, buf));
	EXPECT_EQ(-EFAULT, xioctl(fd, MEMFILTER_IOC_COUNT, NULL));
	close(fd);
	close(bloom);
}

/* --- lockless readers ------------------------------------------------------ */

#define STABLE		1000	/* keys counted throughout, 1-3 copies each */
#define CHURN_MAX	8192	/* candidates the writer adds and deletes */
#define ROUNDS		12	/* fill-to-full and empty cycles */

struct race {
	int fd;
	__u64 stable[STABLE];
	__u8 base[STABLE];
	__u64 churn[CHURN_MAX];
	__u32 nchurn;
	atomic_int started, stop;
	/* reader's findings */
	unsigned long counts, low, high, over;
};

/*
 * The writer: add every churn key in batches until the filter is full
 * (kicks, then the stash, then ENOSPC), delete exactly the ones that went
 * in, repeat.
 */
static void *writer(void *arg)
{
	struct race *r = arg;
	__u64 added[CHURN_MAX / 64], del[CHURN_MAX];

	while (!atomic_load(&r->started))
		;
	for (int round = 0; round < ROUNDS; round++) {
		__u32 i, n, done, m = 0;

		memset(added, 0, sizeof(added));
		for (i = 0; i < r->nchurn; i += done) {
			n = r->nchurn - i < 256 ? r->nchurn - i : 256;
			keys_op(r->fd, MEMFILTER_IOC_ADD, r->churn + i, n,
				added + i / 64, NULL, &done);
			if (done < n)
				break;	/* full */
		}
		for (i = 0; i < r->nchurn; i++)
			if (added[i / 64] >> (i % 64) & 1)
				del[m++] = r->churn[i];
		keys_op(r->fd, MEMFILTER_IOC_DELETE, del, m, NULL, NULL, NULL);
	}
	atomic_store(&r->stop, 1);
	return NULL;
}

static void *reader(void *arg)
{
	struct race *r = arg;
	__u8 c[STABLE];
	__u32 hits;

	while (!atomic_load(&r->stop)) {
		int ret = count_keys(r->fd, r->stable, STABLE, c, &hits);

		atomic_store(&r->started, 1);
		if (ret || hits != STABLE) {
			r->low++;
			continue;
		}
		r->counts++;
		for (int i = 0; i < STABLE; i++) {
			if (c[i] < r->base[i])
				r->low++;
			else if (c[i] > r->base[i] + 1)
				r->high++;
			else
				r->over += c[i] > r->base[i];
		}
	}
	return NULL;
}

TEST_F(count, lockless_readers)
{
	static struct race r;
	__u64 cand[CHURN_MAX];
	__u8 cc[CHURN_MAX], c[STABLE];
	struct memfilter_info i0, i1;
	pthread_t w, rd;
	__u64 k = 1ULL << 50;

	/* 2048 buckets, 8192 slots: 1000 keys, ~2000 copies, then churn. */
	memset(&r, 0, sizeof(r));
	r.fd = cuckoo(self->dev, 4096, 12);
	ASSERT_LE(0, r.fd);
	for (int i = 0; i < STABLE; i++) {
		r.stable[i] = (i + 1) * 0x9e3779b97f4a7c15ULL;
		for (int j = 0; j < 1 + i % 3; j++)
			ASSERT_EQ(1, op1(r.fd, MEMFILTER_IOC_ADD, r.stable[i]));
	}
	ASSERT_EQ(0, count_keys(r.fd, r.stable, STABLE, r.base, NULL));
	for (int i = 0; i < STABLE; i++)
		ASSERT_LE(1 + i % 3, r.base[i]);
	/*
	 * Churn keys that count 0 now share no fingerprint and bucket pair
	 * with any stable key, so they never change a stable key's count.
	 */
	for (int i = 0; i < CHURN_MAX; i++)
		cand[i] = k + i;
	ASSERT_EQ(0, count_keys(r.fd, cand, CHURN_MAX, cc, NULL));
	for (int i = 0; i < CHURN_MAX; i++)
		if (!cc[i])
			r.churn[r.nchurn++] = cand[i];
	ASSERT_LT(6000, r.nchurn);
	ASSERT_EQ(0, info(r.fd, &i0));

	ASSERT_EQ(0, pthread_create(&rd, NULL, reader, &r));
	ASSERT_EQ(0, pthread_create(&w, NULL, writer, &r));
	pthread_join(w, NULL);
	pthread_join(rd, NULL);
	ASSERT_EQ(0, info(r.fd, &i1));

	TH_LOG("%lu counts of %d keys during %d rounds, %llu failed adds; %lu counts one over (a copy in flight)",
	       r.counts, STABLE, ROUNDS,
	       (unsigned long long)(i1.failed - i0.failed), r.over);
	EXPECT_LT(1, r.counts);
	EXPECT_LT(0, i1.failed - i0.failed);	/* the writer reached full */
	EXPECT_EQ(0, r.low);
	EXPECT_EQ(0, r.high);
	/* Quiet again: exact. */
	ASSERT_EQ(0, count_keys(r.fd, r.stable, STABLE, c, NULL));
	EXPECT_EQ(0, memcmp(c, r.base, STABLE));
	EXPECT_EQ(i0.keys, i1.keys);
	close(r.fd);
}

TEST_HARNESS_MAIN
