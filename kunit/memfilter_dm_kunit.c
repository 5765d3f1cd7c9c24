// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite memfilter_dm: the pure parts of the memfilter-dedup target
 * (module/consumers/dm.c). Which bios consult the filter (only plain, full,
 * aligned 4 KiB writes; never FUA or PREFLUSH); and that a candidate's key and
 * its comparison with the device's data do not depend on how the bio's
 * data is cut into segments, which the guest test's page-aligned O_DIRECT
 * buffers never exercise; and the verdict after a verify read, the busy
 * path included, with the in-flight counters set by hand: dm_test's
 * concurrent writers reach "busy" only when the scheduler lets them.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <kunit/test.h>
#include <linux/bio.h>
#include <linux/hash.h>
#include <linux/highmem.h>
#include <linux/xxhash.h>

#include "consumers/dm.h"

static void mf_dm_kunit_candidate(struct kunit *test)
{
	static const struct {
		blk_opf_t opf;
		sector_t offset;
		unsigned int sectors;
		bool want;
	} c[] = {
		{ REQ_OP_WRITE, 0, 8, true },
		{ REQ_OP_WRITE | REQ_SYNC | REQ_IDLE, 8000, 8, true },
		{ REQ_OP_WRITE | REQ_FUA, 0, 8, false },
		{ REQ_OP_WRITE | REQ_PREFLUSH, 0, 8, false },
		{ REQ_OP_WRITE | REQ_FUA | REQ_PREFLUSH, 16, 8, false },
		{ REQ_OP_WRITE, 4, 8, false },
		{ REQ_OP_WRITE, 0, 7, false },
		{ REQ_OP_WRITE, 0, 1, false },
		{ REQ_OP_WRITE, 0, 16, false },
		{ REQ_OP_WRITE, 0, 0, false },
		{ REQ_OP_READ, 0, 8, false },
		{ REQ_OP_DISCARD, 0, 8, false },
		{ REQ_OP_WRITE_ZEROES, 0, 8, false },
		{ REQ_OP_SECURE_ERASE, 0, 8, false },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c); i++)
		KUNIT_EXPECT_EQ_MSG(test, memfilter_dm_candidate(c[i].opf,
								 c[i].offset,
								 c[i].sectors),
				    c[i].want, "case %zu", i);
}

static void mf_dm_kunit_free_page(void *p)
{
	__free_page(p);
}

static struct page *mf_dm_kunit_page(struct kunit *test)
{
	struct page *p = alloc_page(GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							mf_dm_kunit_free_page,
							p), 0);
	return p;
}

/* Copy @len bytes of @data to @page at @off and add that as a segment. */
static void mf_dm_kunit_segment(struct bio *bio, struct page *page,
				unsigned int off, const u8 *data,
				unsigned int len)
{
	memcpy_to_page(page, off, data, len);
	__bio_add_page(bio, page, len, off);
}

static void mf_dm_kunit_segments(struct kunit *test)
{
	struct page *p0 = mf_dm_kunit_page(test), *p1 = mf_dm_kunit_page(test);
	struct page *whole = mf_dm_kunit_page(test);
	static const unsigned int flip[] = { 0, 2500, 4095 };
	u8 *data = kunit_kmalloc(test, 4096, GFP_KERNEL);
	struct memfilter_dm_key k3, k1;
	struct bio_vec bv3[3], bv1;
	struct bio b3, b1;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, data);
	for (i = 0; i < 4096; i++)
		data[i] = i * 7 + (i >> 8);

	/* The block as three segments out of order in two pages ... */
	bio_init(&b3, NULL, bv3, ARRAY_SIZE(bv3), REQ_OP_WRITE);
	b3.bi_iter.bi_sector = 24;
	mf_dm_kunit_segment(&b3, p0, 3000, data, 1000);
	mf_dm_kunit_segment(&b3, p1, 0, data + 1000, 3000);
	mf_dm_kunit_segment(&b3, p0, 100, data + 4000, 96);
	KUNIT_ASSERT_EQ(test, b3.bi_iter.bi_size, 4096U);
	/* ... and as one. */
	bio_init(&b1, NULL, &bv1, 1, REQ_OP_WRITE);
	b1.bi_iter.bi_sector = 24;
	mf_dm_kunit_segment(&b1, whole, 0, data, 4096);

	memfilter_dm_block_key(&b3, &k3);
	memfilter_dm_block_key(&b1, &k1);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(k3.block), 3ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(k3.hash), xxh64(data, 4096, 0));
	KUNIT_EXPECT_EQ(test, le64_to_cpu(k1.block), le64_to_cpu(k3.block));
	KUNIT_EXPECT_EQ(test, le64_to_cpu(k1.hash), le64_to_cpu(k3.hash));

	KUNIT_EXPECT_TRUE(test, memfilter_dm_block_same(&b3, data));
	KUNIT_EXPECT_TRUE(test, memfilter_dm_block_same(&b1, data));
	/* A difference in the first, a middle and the last segment. */
	for (i = 0; i < ARRAY_SIZE(flip); i++) {
		unsigned int at = flip[i];

		data[at] ^= 0x10;
		KUNIT_EXPECT_FALSE_MSG(test, memfilter_dm_block_same(&b3, data),
				       "byte %u", at);
		KUNIT_EXPECT_FALSE_MSG(test, memfilter_dm_block_same(&b1, data),
				       "byte %u", at);
		data[at] ^= 0x10;
	}
	bio_uninit(&b3);
	bio_uninit(&b1);
}

/* A 4 KiB write of @data at @block, in @page, as one segment. */
static void mf_dm_kunit_write(struct bio *bio, struct bio_vec *bv,
			      struct page *page, u64 block, const u8 *data)
{
	bio_init(bio, NULL, bv, 1, REQ_OP_WRITE);
	bio->bi_iter.bi_sector = block * 8;
	mf_dm_kunit_segment(bio, page, 0, data, 4096);
}

/*
 * The verdict after a verify read that returned the candidate's own data:
 * elided while no data-changing bio to its slot (nor a wide one) is in
 * flight, busy while one is: one to the same block, one to another block
 * hashing to the same slot, one spanning blocks. A failed read or
 * different data is never elided, busy or not; slots are freed as the
 * end_io does.
 */
static void mf_dm_kunit_busy(struct kunit *test)
{
	atomic_t *inflight = kunit_kcalloc(test, MF_DM_SLOT_WIDE + 1,
					   sizeof(*inflight), GFP_KERNEL);
	struct page *pc = mf_dm_kunit_page(test), *po = mf_dm_kunit_page(test);
	u8 *data = kunit_kmalloc(test, 4096, GFP_KERNEL), *other;
	struct bio cand, b, wide;
	struct bio_vec bvc, bv, bvw[2];
	unsigned int slot, i;
	u64 block = 1000, twin, next;

	KUNIT_ASSERT_NOT_NULL(test, inflight);
	KUNIT_ASSERT_NOT_NULL(test, data);
	other = kunit_kmalloc(test, 4096, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, other);
	for (i = 0; i < 4096; i++) {
		data[i] = i * 13 + 1;
		other[i] = data[i] ^ (i == 4000 ? 1 : 0);
	}
	mf_dm_kunit_write(&cand, &bvc, pc, block, data);
	slot = memfilter_dm_slot(&cand, 0);
	KUNIT_EXPECT_EQ(test, slot, (unsigned int)hash_64(block, MF_DM_SLOT_BITS));
	/* another block in the same slot, and one in another */
	for (twin = block + 1; hash_64(twin, MF_DM_SLOT_BITS) != slot; twin++)
		;
	for (next = block + 1; hash_64(next, MF_DM_SLOT_BITS) == slot; next++)
		;

	KUNIT_EXPECT_EQ(test, memfilter_dm_decide(inflight, &cand, 0, data, 0, true),
			MF_DM_ELIDED);
	KUNIT_EXPECT_EQ(test, memfilter_dm_decide(inflight, &cand, 0, data, -EIO, true),
			MF_DM_VERIFY_ERRORS);
	KUNIT_EXPECT_EQ(test, memfilter_dm_decide(inflight, &cand, 0, other, 0, true),
			MF_DM_MISMATCHES);
	/*
	 * Equal, but the block's contents are not this target's own write
	 * (never written since the table was loaded, or discarded since):
	 * never elided.
	 */
	KUNIT_EXPECT_EQ(test, memfilter_dm_decide(inflight, &cand, 0, data, 0, false),
			MF_DM_BUSY);
	KUNIT_EXPECT_EQ(test, memfilter_dm_decide(inflight, &cand, 0, other, 0, false),
			MF_DM_MISMATCHES);
	KUNIT_EXPECT_EQ(test, memfilter_dm_decide(inflight, &cand, 0, data, -EIO, false),
			MF_DM_VERIFY_ERRORS);

	/* A write to another block, in another slot: still elided. */
	mf_dm_kunit_write(&b, &bv, po, next, other);
	atomic_inc(&inflight[memfilter_dm_slot(&b, 0)]);
	KUNIT_EXPECT_EQ(test, memfilter_dm_decide(inflight, &cand, 0, data, 0, true),
			MF_DM_ELIDED);
	atomic_dec(&inflight[memfilter_dm_slot(&b, 0)]);
	bio_uninit(&b);

	/* A write to the same block, then to its slot's twin: busy. */
	mf_dm_kunit_write(&b, &bv, po, block, other);
	KUNIT_EXPECT_EQ(test, memfilter_dm_slot(&b, 0), slot);
	atomic_inc(&inflight[memfilter_dm_slot(&b, 0)]);
	KUNIT_EXPECT_EQ(test, memfilter_dm_decide(inflight, &cand, 0, data, 0, true),
			MF_DM_BUSY);
	KUNIT_EXPECT_EQ(test, memfilter_dm_decide(inflight, &cand, 0, other, 0, true),
			MF_DM_MISMATCHES);
	KUNIT_EXPECT_EQ(test, memfilter_dm_decide(inflight, &cand, 0, data, -EIO, true),
			MF_DM_VERIFY_ERRORS);
	atomic_dec(&inflight[memfilter_dm_slot(&b, 0)]);
	bio_uninit(&b);
	mf_dm_kunit_write(&b, &bv, po, twin, other);
	atomic_inc(&inflight[memfilter_dm_slot(&b, 0)]);
	KUNIT_EXPECT_EQ(test, memfilter_dm_decide(inflight, &cand, 0, data, 0, true),
			MF_DM_BUSY);
	atomic_dec(&inflight[memfilter_dm_slot(&b, 0)]);
	bio_uninit(&b);
	KUNIT_EXPECT_EQ(test, memfilter_dm_decide(inflight, &cand, 0, data, 0, true),
			MF_DM_ELIDED);

	/* 8 KiB not aligned to a block, elsewhere: the wide slot, busy. */
	bio_init(&wide, NULL, bvw, 2, REQ_OP_WRITE);
	wide.bi_iter.bi_sector = next * 8 + 4;
	__bio_add_page(&wide, po, 4096, 0);
	__bio_add_page(&wide, po, 4096, 0);
	KUNIT_EXPECT_EQ(test, memfilter_dm_slot(&wide, 0), MF_DM_SLOT_WIDE);
	atomic_inc(&inflight[MF_DM_SLOT_WIDE]);
	KUNIT_EXPECT_EQ(test, memfilter_dm_decide(inflight, &cand, 0, data, 0, true),
			MF_DM_BUSY);
	atomic_dec(&inflight[MF_DM_SLOT_WIDE]);
	KUNIT_EXPECT_EQ(test, memfilter_dm_decide(inflight, &cand, 0, data, 0, true),
			MF_DM_ELIDED);
	bio_uninit(&wide);
	bio_uninit(&cand);
}

/*
 * A target whose <offset> is 4 sectors: its block b is device sectors
 * [8b + 4, 8b + 12), across two of the device's 4 KiB blocks. Slots are
 * the target's blocks: a candidate is not "wide", and a partial write of
 * either half of its block is in its slot, so equal data read back while
 * one is in flight is busy, never elided (the partial write may still be
 * in the device's volatile cache: a flush after the elided write need
 * not cover it). Writes of the blocks before and after are not in its
 * slot, candidates or not.
 */
static void mf_dm_kunit_unaligned(struct kunit *test)
{
	static const struct {
		int at;			/* device sector - 8b */
		unsigned int sectors;
		enum mf_dm_counter want;
	} c[] = {
		{ 8, 4, MF_DM_BUSY },	/* P: the block's second half */
		{ 4, 4, MF_DM_BUSY },	/* its first half */
		{ 4, 8, MF_DM_BUSY },	/* the whole block */
		{ 12, 4, MF_DM_ELIDED },	/* the next block's first half */
		{ 0, 4, MF_DM_ELIDED },	/* the block before's second half */
		{ 12, 8, MF_DM_ELIDED },	/* the next block */
		{ -4, 8, MF_DM_ELIDED },	/* the block before */
	};
	atomic_t *inflight = kunit_kcalloc(test, MF_DM_SLOT_WIDE + 1,
					   sizeof(*inflight), GFP_KERNEL);
	struct page *pc = mf_dm_kunit_page(test), *po = mf_dm_kunit_page(test);
	u8 *data = kunit_kmalloc(test, 4096, GFP_KERNEL);
	const sector_t start = 4;
	struct bio_vec bvc, bv;
	struct bio cand, p;
	unsigned int slot, s, i;
	u64 b;

	KUNIT_ASSERT_NOT_NULL(test, inflight);
	KUNIT_ASSERT_NOT_NULL(test, data);
	/* a block whose neighbours hash to other slots */
	for (b = 1000; hash_64(b, MF_DM_SLOT_BITS) ==
		       hash_64(b + 1, MF_DM_SLOT_BITS) ||
		       hash_64(b, MF_DM_SLOT_BITS) ==
		       hash_64(b - 1, MF_DM_SLOT_BITS); b++)
		;
	slot = hash_64(b, MF_DM_SLOT_BITS);
	for (i = 0; i < 4096; i++)
		data[i] = i * 29 + 3;
	bio_init(&cand, NULL, &bvc, 1, REQ_OP_WRITE);
	cand.bi_iter.bi_sector = 8 * b + start;
	mf_dm_kunit_segment(&cand, pc, 0, data, 4096);
	KUNIT_EXPECT_EQ(test, memfilter_dm_slot(&cand, start), slot);
	KUNIT_EXPECT_EQ(test, memfilter_dm_decide(inflight, &cand, start, data,
						  0, true), MF_DM_ELIDED);
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		bio_init(&p, NULL, &bv, 1, REQ_OP_WRITE);
		p.bi_iter.bi_sector = 8 * b + c[i].at;
		__bio_add_page(&p, po, c[i].sectors << SECTOR_SHIFT, 0);
		s = memfilter_dm_slot(&p, start);
		KUNIT_EXPECT_NE_MSG(test, s, MF_DM_SLOT_WIDE, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, s == slot, c[i].want == MF_DM_BUSY,
				    "case %u", i);
		atomic_inc(&inflight[s]);
		KUNIT_EXPECT_EQ_MSG(test, memfilter_dm_decide(inflight, &cand,
							      start, data, 0,
							      true),
				    c[i].want, "case %u", i);
		atomic_dec(&inflight[s]);
		bio_uninit(&p);
	}
	bio_uninit(&cand);
}

static struct kunit_case memfilter_dm_cases[] = {
	KUNIT_CASE(mf_dm_kunit_candidate),
	KUNIT_CASE(mf_dm_kunit_segments),
	KUNIT_CASE(mf_dm_kunit_busy),
	KUNIT_CASE(mf_dm_kunit_unaligned),
	{}
};

static struct kunit_suite memfilter_dm_suite = {
	.name = "memfilter_dm",
	.test_cases = memfilter_dm_cases,
};

kunit_test_suite(memfilter_dm_suite);
