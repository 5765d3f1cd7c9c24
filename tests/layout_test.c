// SPDX-License-Identifier: GPL-2.0
/*
 * Selftest of the Bloom layouts (memfilter_create.layout) through the raw
 * ABI, inside the guest against the real module: the feature bit, the
 * requests refused, and for Bloom, window and growing filters of each
 * layout a filter whose table, false positives and image are exactly
 * those of its twin built by the shared core in this process (the same
 * request, seed and keys), and whose image loads back answering alike.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include "filter_type.h"
#include "image.h"

#include "kselftest_harness.h"
#include "memfilter_utils.h"

#define NKEYS	20000
#define NABSENT	200000

MF_DEV_FIXTURE(l)

/* A request for a filter of @type and @layout, seed 7, 1% at 30000 keys. */
static struct memfilter_create req(__u32 type, __u32 layout)
{
	struct memfilter_create c = {
		.size = sizeof(c), .type = type, .capacity = 30000,
		.fpr_ppb = 10000000, .flags = MEMFILTER_CREATE_SEED,
		.seed = 7, .layout = layout,
	};

	if (type == MEMFILTER_TYPE_WINDOW)
		c.generations = 3;
	/* Growing: NKEYS under half the first sub-filter, which grows none. */
	if (type == MEMFILTER_TYPE_GROW)
		c.capacity = 50000;
	return c;
}

TEST_F(l, feature_and_refusals)
{
	struct memfilter_api api = { .size = sizeof(api), .api_version = MEMFILTER_API_VERSION };
	struct memfilter_create c;
	struct memfilter_info i;

	ASSERT_EQ(0, xioctl(self->dev, MEMFILTER_IOC_API, &api));
	EXPECT_TRUE(api.features & MEMFILTER_FEAT_LAYOUTS);
	c = req(MEMFILTER_TYPE_BLOOM, MEMFILTER_LAYOUT_SPLIT32 + 1);
	EXPECT_EQ(-EOPNOTSUPP, xioctl(self->dev, MEMFILTER_IOC_CREATE, &c));
	c = req(MEMFILTER_TYPE_BLOOM, ~0U);
	EXPECT_EQ(-EOPNOTSUPP, xioctl(self->dev, MEMFILTER_IOC_CREATE, &c));
	c = req(MEMFILTER_TYPE_CUCKOO, MEMFILTER_LAYOUT_LINE64);
	EXPECT_EQ(-EINVAL, xioctl(self->dev, MEMFILTER_IOC_CREATE, &c));
	/* No layout: the default, which INFO reports: SPLIT32 at 1%. */
	c = req(MEMFILTER_TYPE_BLOOM, MEMFILTER_LAYOUT_DEFAULT);
	ASSERT_EQ(0, xioctl(self->dev, MEMFILTER_IOC_CREATE, &c));
	ASSERT_EQ(0, info(c.out_fd, &i));
	EXPECT_EQ(MEMFILTER_LAYOUT_SPLIT32, i.layout);
	close(c.out_fd);
	/* A cuckoo filter has none; INFO's reserved input stays refused. */
	c = req(MEMFILTER_TYPE_CUCKOO, 0);
	c.fpr_ppb = 0;
	c.fingerprint_bits = 12;
	ASSERT_EQ(0, xioctl(self->dev, MEMFILTER_IOC_CREATE, &c));
	ASSERT_EQ(0, info(c.out_fd, &i));
	EXPECT_EQ(0, i.layout);
	memset(&i, 0, sizeof(i));
	i.size = sizeof(i);
	i.__reserved2 = 1;
	EXPECT_EQ(-EOPNOTSUPP, xioctl(c.out_fd, MEMFILTER_IOC_INFO, &i));
	close(c.out_fd);
}

/*
 * @type at @layout: the kernel's filter and the core's twin get the same
 * keys; the kernel's image has the twin's table byte for byte and the
 * layout's header; the false positives among NABSENT absent keys are
 * exactly the twin's; the image loads back and answers alike.
 */
static void twin(struct __test_metadata *_metadata, int dev, __u32 type,
		 __u32 layout)
{
	struct memfilter_create c = req(type, layout);
	const struct memfilter_type_ops *ops;
	__u64 *keys = seq_keys(NKEYS, 0), *absent = seq_keys(NABSENT, 1ULL << 40);
	__u64 *res = calloc(NABSENT / 64 + 1, 8), *res2 = calloc(NABSENT / 64 + 1, 8);
	const struct memfilter_image_header *h;
	union memfilter_params p;
	union memfilter_state s;
	struct memfilter_info i;
	__u32 cnt, twin_hits = 0, sec, done;
	unsigned long one[1];
	size_t len;
	u8 *img;
	void *mem;
	int err, fd, fd2;

	ASSERT_EQ(0, xioctl(dev, MEMFILTER_IOC_CREATE, &c));
	fd = c.out_fd;
	ASSERT_EQ(0, memfilter_create_params(&c, &ops, &p));
	mem = aligned_alloc(64, ops->mem_bytes(&p));
	memset(mem, 0, ops->mem_bytes(&p));
	memset(&s, 0, sizeof(s));
	ops->init(&s, &p, mem);
	ASSERT_EQ(0, keys_op(fd, MEMFILTER_IOC_ADD, keys, NKEYS, NULL, &cnt, NULL));
	EXPECT_EQ(NKEYS, cnt);
	for (__u32 j = 0; j < NKEYS; j++) {
		u64 hh = memfilter_key_hash(ops, &s, &keys[j], 8);

		ASSERT_EQ(0, ops->add(&s, &hh, 1, one, &done));
	}
	ASSERT_EQ(0, info(fd, &i));
	EXPECT_EQ(layout, i.layout);
	if (layout == MEMFILTER_LAYOUT_SPLIT32)
		EXPECT_EQ(8, i.k);
	EXPECT_EQ(0, i.bytes % 64);
	img = dump(fd, 4096, &len, &err);
	ASSERT_EQ(0, err);
	h = (const void *)img;
	EXPECT_EQ(layout == MEMFILTER_LAYOUT_SPLIT32, !!(le32toh(h->flags) & MEMFILTER_IMAGE_SPLIT32));
	/* The tables, after a window's or growing filter's state section. */
	sec = type == MEMFILTER_TYPE_BLOOM ? 0 :
	      type == MEMFILTER_TYPE_WINDOW ? MEMFILTER_IMAGE_WINDOW_SIZE :
	      MEMFILTER_IMAGE_GROW_SIZE;
	ASSERT_EQ(MEMFILTER_IMAGE_HDR_SIZE + ops->mem_bytes(&p), len);
	EXPECT_EQ(0, memcmp(img + MEMFILTER_IMAGE_HDR_SIZE + sec, (u8 *)mem + sec,
			    ops->mem_bytes(&p) - sec))
		TH_LOG("type %u layout %u: the kernel's table is not the core's", type, layout);
	ASSERT_EQ(0, keys_op(fd, MEMFILTER_IOC_QUERY, absent, NABSENT, res, &cnt, NULL));
	for (__u32 j = 0; j < NABSENT; j++)
		twin_hits += memfilter_state_contains_key(ops, &s, &absent[j], 8);
	TH_LOG("type %u layout %u: %u false positives in %u", type, layout, cnt, NABSENT);
	EXPECT_EQ(twin_hits, cnt);
	EXPECT_LT(cnt, NABSENT / 100);
	EXPECT_GT(cnt, 0);
	fd2 = load(dev, img, len);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, info(fd2, &i));
	EXPECT_EQ(layout, i.layout);
	ASSERT_EQ(0, keys_op(fd2, MEMFILTER_IOC_QUERY, absent, NABSENT, res2, &cnt, NULL));
	EXPECT_EQ(twin_hits, cnt);
	EXPECT_EQ(0, memcmp(res, res2, NABSENT / 8));
	ASSERT_EQ(0, keys_op(fd2, MEMFILTER_IOC_QUERY, keys, NKEYS, NULL, &cnt, NULL));
	EXPECT_EQ(NKEYS, cnt);
	close(fd2);
	close(fd);
	free(img);
	free(mem);
	free(res2);
	free(res);
	free(absent);
	free(keys);
}

TEST_F(l, bloom_line64)
{
	twin(_metadata, self->dev, MEMFILTER_TYPE_BLOOM, MEMFILTER_LAYOUT_LINE64);
}

TEST_F(l, bloom_split32)
{
	twin(_metadata, self->dev, MEMFILTER_TYPE_BLOOM, MEMFILTER_LAYOUT_SPLIT32);
}

TEST_F(l, window_split32)
{
	twin(_metadata, self->dev, MEMFILTER_TYPE_WINDOW, MEMFILTER_LAYOUT_SPLIT32);
}

TEST_F(l, grow_split32)
{
	twin(_metadata, self->dev, MEMFILTER_TYPE_GROW, MEMFILTER_LAYOUT_SPLIT32);
}

TEST_HARNESS_MAIN
