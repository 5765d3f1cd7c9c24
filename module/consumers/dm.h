/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memfilter's device-mapper target "memfilter-dedup" (module/consumers/dm.c):
 * what main.c calls to register and unregister it, and the pure functions its
 * KUnit suite tests. Kernels without device mapper get no-op stubs; Kbuild
 * then leaves dm.o out.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_DM_H
#define _MEMFILTER_DM_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/blk_types.h>

/**
 * struct memfilter_dm_key - what the target adds to and tests in the filter
 * @block: the 4 KiB block's number on the target (sector / 8), little endian
 * @hash: XXH64 (seed 0) of the block's 4096 bytes, little endian
 *
 * Userspace that predicts the filter's answers (tests/dedup_io.c) builds
 * the same 16 bytes.
 */
struct memfilter_dm_key {
	__le64 block;
	__le64 hash;
};

/* In-flight slots: 1024 per target, plus one for bios wider than a block. */
#define MF_DM_SLOT_BITS		10
#define MF_DM_SLOT_WIDE		BIT(MF_DM_SLOT_BITS)

/* The counters of STATUSTYPE_INFO, in that order. */
enum mf_dm_counter {
	MF_DM_WRITES,		/* candidates: full aligned 4 KiB writes */
	MF_DM_ELIDED,		/* verified equal and completed unwritten */
	MF_DM_VERIFY_READS,	/* blocks read back for a comparison */
	MF_DM_MISMATCHES,	/* verified different: written */
	MF_DM_NEGATIVES,	/* the filter said absent: written, no read */
	MF_DM_PASSTHROUGH,	/* other writes, discards, write-zeroes */
	MF_DM_BUSY,		/* equal, but written or discarded meanwhile */
	MF_DM_VERIFY_ERRORS,	/* the verify read failed: written */
	MF_DM_UNTRUSTED,	/* maybe seen, contents not ours: written */
	MF_DM_NR_COUNTERS
};

#if IS_REACHABLE(CONFIG_BLK_DEV_DM)
int memfilter_dm_init(void);
void memfilter_dm_exit(void);
#if IS_ENABLED(CONFIG_KUNIT)
/* Visible to KUnit only (kunit/memfilter_dm_kunit.c). */
bool memfilter_dm_candidate(blk_opf_t opf, sector_t offset,
			    unsigned int sectors);
void memfilter_dm_block_key(struct bio *bio, struct memfilter_dm_key *key);
bool memfilter_dm_block_same(struct bio *bio, const void *data);
unsigned int memfilter_dm_slot(struct bio *bio, sector_t start);
enum mf_dm_counter memfilter_dm_decide(const atomic_t *inflight,
				       struct bio *bio, sector_t start,
				       const void *disk, int err,
				       bool written);
#endif
#else
static inline int memfilter_dm_init(void)
{
	return 0;
}

static inline void memfilter_dm_exit(void)
{
}
#endif

#endif /* _MEMFILTER_DM_H */
