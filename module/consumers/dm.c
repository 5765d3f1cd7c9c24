// SPDX-License-Identifier: GPL-2.0
/*
 * memfilter's device-mapper target "memfilter-dedup": a pass-through
 * target over one device that skips writes of 4 KiB blocks whose data is
 * already on the device at that address (ZFS calls it nopwrite). A
 * published memfilter decides which writes need no verification read:
 * key = (block number, XXH64 of the data); a write whose key the filter
 * certainly never saw is written at once, any other is read back from the
 * device and compared first. Correctness never depends on the filter: a
 * stale or false-positive key costs one read, never a skipped write.
 *
 * Conventions in this file: DM splits every bio into pieces that do not
 * cross a 4 KiB boundary of the target (dm_set_target_max_io_len()), so a
 * write touches one block. Only full, aligned REQ_OP_WRITE bios without
 * REQ_FUA ("candidates") consult the filter (DM core sends a PREFLUSH as
 * an empty flush before the data); reads, flushes, discards, write-zeroes,
 * FUA and partial writes are remapped untouched. map() never sleeps or
 * allocates: it hashes, asks the filter and either remaps the bio or
 * queues it to the target's workqueue, whose worker reads the block
 * (GFP_NOIO, a page from a mempool), compares, and ends the bio or
 * submits it. Every bio this target sends to the device that may change
 * data is counted in an in-flight slot of its block on the target
 * (hashed; wide bios share one extra slot) from map() or the worker
 * until its end_io; the worker elides a write only if no such write is
 * in flight, see mf_dm_verify().
 *
 * A read is trusted only for data this target wrote: the @written bitmap
 * has a bit per block, set when a full-block write of ours completed and
 * cleared when any discard, write-zeroes or other data-changing operation
 * that is not a plain write (a device may keep returning a deallocated
 * block's old contents for a while, then zeroes), or a failed write,
 * touches the block. Only a block whose bit is set may be elided, so
 * nothing written before the table was loaded, and nothing discarded
 * since, is ever taken as the device's contents. mf_dm_forget() and
 * mf_dm_wrote() order the bit against operations in flight.
 *
 * The table holds a reference to the filter its line named when it was
 * loaded, as it holds its device: a replace or an exchange of that name
 * (MEMFILTER_IOC_REPLACE, EXCHANGE) does not reach a live table, which
 * goes on asking and adding to the filter it has; a table reload
 * (dmsetup reload, resume) takes the filter the name refers to then.
 * Either way the filter only picks the writes worth a verify read: a
 * write is elided only after the read showed its data on the device and
 * @written vouches for the block, whatever filter answered.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <kunit/visibility.h>
#include <linux/bio.h>
#include <linux/device-mapper.h>
#include <linux/hash.h>
#include <linux/highmem.h>
#include <linux/mempool.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <linux/xxhash.h>
#include <linux/memfilter.h>

#include "dm.h"
/* For memfilter_contains_inline() alone (Documentation/internals.rst). */
#include "filter/filter.h"
#include "kernel_compat.h"

#define DM_MSG_PREFIX		"memfilter-dedup"

#define MF_DM_BLOCK		4096
#define MF_DM_SECTORS		(MF_DM_BLOCK >> SECTOR_SHIFT)
/* Pages reserved for verify reads: progress under memory pressure. */
#define MF_DM_MIN_PAGES		4
/*
 * The most blocks a target may have: the @written bitmap is one
 * kvmalloc() (at most INT_MAX bytes, whole words) and its bit numbers
 * are longs (set_bit()): 2^34 - 64 blocks (64 TiB) on 64-bit kernels,
 * 2^31 - 1 (8 TiB) on 32-bit ones.
 */
#define MF_DM_MAX_BLOCKS \
	min_t(u64, LONG_MAX, \
	      (u64)rounddown(INT_MAX, sizeof(long)) * BITS_PER_BYTE)
/* The table's filter name that means "no filter: verify every write". */
#define MF_DM_NO_FILTER		"*"

struct mf_dm_stats {
	u64_stats_t c[MF_DM_NR_COUNTERS];
	struct u64_stats_sync syncp;
};

/* What a bio sent to the device does to the @written bitmap at its end. */
enum mf_dm_io_kind {
	MF_DM_IO_OTHER,		/* reads, flushes: nothing */
	MF_DM_IO_BLOCK,		/* a full-block write: written if it succeeds */
	MF_DM_IO_PART,		/* a partial write: forgotten if it fails */
	MF_DM_IO_FORGET,	/* discard, write-zeroes, ...: forgotten */
};

/**
 * struct mf_dm_target - one memfilter-dedup target (ti->private)
 * @dev: the underlying device
 * @start: the target's first sector on @dev
 * @f: the filter, a reference held until the target is destroyed; NULL
 *	when the table says "*" (every candidate is verified)
 * @wq: runs verify work; WQ_MEM_RECLAIM, as it serves writeback
 * @pages: pages for verify reads
 * @inflight: MF_DM_SLOT_WIDE + 1 counters of data-changing bios sent to
 *	@dev and not yet ended, by hash of their block
 * @stats: per-CPU counters
 * @written: a bit per block of the target: its contents are this target's
 *	own completed write, untouched since by anything else it sent
 * @nr_blocks: bits in @written
 * @forgetting: forgetting bios (MF_DM_IO_FORGET) sent and not yet ended
 * @forget_seq: changes when a forgetting bio is sent and when it ends
 * @base_lock: protects @base
 * @base: the counters' values at the last "reset" message
 * @name: the filter's name as the table gave it
 */
struct mf_dm_target {
	struct dm_dev *dev;
	sector_t start;
	struct memfilter *f;
	struct workqueue_struct *wq;
	mempool_t *pages;
	atomic_t *inflight;
	struct mf_dm_stats __percpu *stats;
	unsigned long *written;
	sector_t nr_blocks;
	atomic_t forgetting;
	atomic_t forget_seq;
	spinlock_t base_lock;	/* @base */
	u64 base[MF_DM_NR_COUNTERS];
	char name[MEMFILTER_NAME_MAX];
};

/**
 * struct mf_dm_io - per-bio data
 * @work: the verify work of a candidate the filter may have seen
 * @ti: the target, for the worker
 * @first: the first block of the target it touches
 * @last: the last one
 * @slot: the in-flight slot counted for this bio, if @tracked
 * @seq: @forget_seq when it was sent (MF_DM_IO_BLOCK)
 * @kind: what its end does to @written (enum mf_dm_io_kind)
 * @tracked: this bio was counted in @slot when it was sent to the device
 */
struct mf_dm_io {
	struct work_struct work;
	struct dm_target *ti;
	sector_t first;
	sector_t last;
	unsigned int slot;
	int seq;
	u8 kind;
	bool tracked;
};

static void mf_dm_count(struct mf_dm_target *t, enum mf_dm_counter c)
{
	struct mf_dm_stats *s = get_cpu_ptr(t->stats);
	unsigned long flags;

	flags = u64_stats_update_begin_irqsave(&s->syncp);
	u64_stats_inc(&s->c[c]);
	u64_stats_update_end_irqrestore(&s->syncp, flags);
	put_cpu_ptr(t->stats);
}

static void mf_dm_stats_init(struct mf_dm_target *t)
{
	int cpu;

	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(t->stats, cpu)->syncp);
}

static void mf_dm_sum(struct mf_dm_target *t, u64 *sum)
{
	unsigned int start, i;
	int cpu;

	memset(sum, 0, sizeof(u64) * MF_DM_NR_COUNTERS);
	for_each_possible_cpu(cpu) {
		struct mf_dm_stats *s = per_cpu_ptr(t->stats, cpu);
		u64 v[MF_DM_NR_COUNTERS];

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			for (i = 0; i < MF_DM_NR_COUNTERS; i++)
				v[i] = u64_stats_read(&s->c[i]);
		} while (u64_stats_fetch_retry(&s->syncp, start));
		for (i = 0; i < MF_DM_NR_COUNTERS; i++)
			sum[i] += v[i];
	}
}

/**
 * memfilter_dm_candidate() - does a bio consult the filter?
 * @opf: its operation and flags
 * @offset: its first sector, relative to the target
 * @sectors: its length in sectors
 *
 * Context: any.
 * Return: true for a plain write of exactly one aligned 4 KiB block;
 * false for everything the target passes through untouched (other
 * operations, FUA writes, partial or unaligned writes; DM core never
 * sends a target a PREFLUSH with data, but one would pass through too).
 */
VISIBLE_IF_KUNIT bool memfilter_dm_candidate(blk_opf_t opf, sector_t offset,
					     unsigned int sectors)
{
	return (opf & REQ_OP_MASK) == REQ_OP_WRITE &&
	       !(opf & (REQ_FUA | REQ_PREFLUSH)) &&
	       sectors == MF_DM_SECTORS && !(offset & (MF_DM_SECTORS - 1));
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_dm_candidate);

/**
 * memfilter_dm_block_key() - the filter key of a candidate
 * @bio: a candidate (memfilter_dm_candidate()), its sector the target's
 * @key: out: its block number and the XXH64 of its data, whatever the
 *	bio's segments
 *
 * Context: any but hard interrupt (maps the data with kmap_local).
 */
VISIBLE_IF_KUNIT void memfilter_dm_block_key(struct bio *bio,
					     struct memfilter_dm_key *key)
{
	struct xxh64_state st;
	struct bvec_iter iter;
	struct bio_vec bv;

	xxh64_reset(&st, 0);
	bio_for_each_segment(bv, bio, iter) {
		void *p = bvec_kmap_local(&bv);

		xxh64_update(&st, p, bv.bv_len);
		kunmap_local(p);
	}
	key->block = cpu_to_le64(bio->bi_iter.bi_sector >> 3);
	key->hash = cpu_to_le64(xxh64_digest(&st));
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_dm_block_key);

/*
 * Ask the filter about a candidate and add its key. Cuckoo filters have
 * no test-and-add: contains, then add when absent (a full filter only
 * loses future elisions).
 */
static bool mf_dm_filter_maybe(struct mf_dm_target *t, struct bio *bio)
{
	struct memfilter_dm_key key;
	int ret;

	if (!t->f)
		return true;
	memfilter_dm_block_key(bio, &key);
	ret = memfilter_test_and_add(t->f, &key, sizeof(key));
	if (ret >= 0)
		return ret;
	if (memfilter_contains_inline(t->f, &key, sizeof(key)))
		return true;
	memfilter_add(t->f, &key, sizeof(key));
	return false;
}

/*
 * Clear the @written bits of blocks @first..@last: one atomic operation
 * per word, so a concurrent set of another bit is never undone and one of
 * these bits never comes back (mf_dm_wrote() clears its own again).
 */
static void mf_dm_clear(unsigned long *map, sector_t first, sector_t last)
{
	while (first <= last) {
		unsigned int bit = first % BITS_PER_LONG;
		unsigned int n = min_t(sector_t, last - first + 1,
				       BITS_PER_LONG - bit);

		atomic_long_andnot(GENMASK(bit + n - 1, bit),
				   (atomic_long_t *)&map[BIT_WORD(first)]);
		first += n;
	}
}

/*
 * A forgetting bio is about to be sent: from now until its end, no write
 * marks a block written (mf_dm_wrote() sees @forgetting or a new
 * @forget_seq), and the blocks it touches are forgotten before it can
 * reach the device.
 */
static void mf_dm_forget(struct mf_dm_target *t, struct mf_dm_io *io)
{
	atomic_inc(&t->forgetting);
	atomic_inc(&t->forget_seq);
	/* Pairs with the barrier in mf_dm_wrote(). */
	smp_mb__after_atomic();
	mf_dm_clear(t->written, io->first, io->last);
}

static void mf_dm_forget_end(struct mf_dm_target *t)
{
	atomic_inc(&t->forget_seq);
	/* A write that sees @forgetting drop sees the new @forget_seq. */
	smp_mb__before_atomic();
	atomic_dec(&t->forgetting);
}

/*
 * A full-block write of ours completed: its block holds our data, unless
 * a forgetting bio overlapped it in time, in which case the device may
 * have applied the two in either order. The bit is set first and checked
 * after: a forgetting bio sent after the check clears it itself.
 */
static void mf_dm_wrote(struct mf_dm_target *t, struct mf_dm_io *io)
{
	set_bit(io->first, t->written);
	/* Pairs with the barrier in mf_dm_forget(). */
	smp_mb__after_atomic();
	if (atomic_read(&t->forgetting) ||
	    atomic_read(&t->forget_seq) != io->seq)
		clear_bit(io->first, t->written);
}

/* May the block's contents, read back now, be trusted as ours? */
static bool mf_dm_trusted(struct mf_dm_target *t, sector_t block)
{
	/* Pairs with the barrier in mf_dm_forget(). */
	smp_mb();
	return test_bit(block, t->written);
}

/**
 * memfilter_dm_slot() - the in-flight slot a data-changing bio counts in
 * @bio: the bio, remapped to the device
 * @start: the target's first sector on the device
 *
 * Slots are the target's own blocks, whatever @start: with an offset that
 * is not a multiple of 8 sectors, a target block straddles two of the
 * device's, and a partial write of either half must count in the slot
 * that the block's verification checks.
 *
 * Context: any.
 * Return: the hash slot of its block if it lies within one 4 KiB block
 * of the target, else MF_DM_SLOT_WIDE (which every verification checks
 * too).
 */
VISIBLE_IF_KUNIT unsigned int memfilter_dm_slot(struct bio *bio,
						sector_t start)
{
	sector_t first = (bio->bi_iter.bi_sector - start) >> 3;
	sector_t last = (bio_end_sector(bio) - 1 - start) >> 3;

	return first == last ? hash_64(first, MF_DM_SLOT_BITS) :
			       MF_DM_SLOT_WIDE;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_dm_slot);

/*
 * Count a bio that may change data on the device until its end_io, and
 * record what its end does to @written (io->kind, io->first, io->last).
 */
static void mf_dm_track(struct mf_dm_target *t, struct mf_dm_io *io,
			struct bio *bio)
{
	io->slot = memfilter_dm_slot(bio, t->start);
	atomic_inc(&t->inflight[io->slot]);
	io->tracked = true;
	if (io->kind == MF_DM_IO_FORGET)
		mf_dm_forget(t, io);
	else if (io->kind == MF_DM_IO_BLOCK)
		io->seq = atomic_read(&t->forget_seq);
}

static bool mf_dm_busy(const atomic_t *inflight, unsigned int slot)
{
	/* Pairs with the atomic_inc() before the write was submitted. */
	smp_mb();
	return atomic_read(&inflight[slot]) ||
	       atomic_read(&inflight[MF_DM_SLOT_WIDE]);
}

/**
 * memfilter_dm_block_same() - does a candidate carry these bytes?
 * @bio: a candidate
 * @data: the 4096 bytes to compare its data with
 *
 * Context: any but hard interrupt (maps the data with kmap_local).
 * Return: true if the bio's segments, in order, equal @data.
 */
VISIBLE_IF_KUNIT bool memfilter_dm_block_same(struct bio *bio,
					      const void *data)
{
	struct bvec_iter iter;
	struct bio_vec bv;
	unsigned int off = 0;
	bool same = true;

	bio_for_each_segment(bv, bio, iter) {
		void *p = bvec_kmap_local(&bv);

		same = !memcmp(p, data + off, bv.bv_len);
		kunmap_local(p);
		if (!same)
			break;
		off += bv.bv_len;
	}
	return same;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_dm_block_same);

/**
 * memfilter_dm_decide() - what a verified candidate becomes
 * @inflight: the target's in-flight counters (MF_DM_SLOT_WIDE + 1)
 * @bio: the candidate, remapped to the device
 * @start: the target's first sector on the device
 * @disk: the 4096 bytes its verify read returned
 * @err: that read's error, or 0
 * @written: the block's @written bit, read after the read ended
 *
 * See mf_dm_verify(): the read failed, the data differ, a data-changing
 * bio to its slot (or a wide one) is in flight now or the block's
 * contents are no longer known to be this target's writing (a discard
 * since: both count as busy), or it is elided.
 *
 * Context: any but hard interrupt (maps the bio's data).
 * Return: MF_DM_VERIFY_ERRORS, MF_DM_MISMATCHES, MF_DM_BUSY or
 * MF_DM_ELIDED.
 */
VISIBLE_IF_KUNIT enum mf_dm_counter
memfilter_dm_decide(const atomic_t *inflight, struct bio *bio,
		    sector_t start, const void *disk, int err, bool written)
{
	if (err)
		return MF_DM_VERIFY_ERRORS;
	if (!memfilter_dm_block_same(bio, disk))
		return MF_DM_MISMATCHES;
	if (mf_dm_busy(inflight, memfilter_dm_slot(bio, start)) || !written)
		return MF_DM_BUSY;
	return MF_DM_ELIDED;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_dm_decide);

/**
 * mf_dm_verify() - read a candidate's block back and decide its fate
 * @t: the target
 * @bio: the candidate, remapped to the device
 * @block: its block on the target
 *
 * The write may be elided only if the device holds its data and that data
 * is already "completed": a later flush must make it durable, as it would
 * have made this write durable. The read may have seen a write still in
 * flight (two writers of the same data, or of different data whose mix
 * happens to match); so the decision is taken after the read, and it is
 * "written" whenever any data-changing bio to this block's slot is in
 * flight then. If one was in flight when the read ran but has ended now,
 * it completed before this write does: any flush after this write covers
 * it. Every outcome is a valid order of concurrent writers: elided means
 * this write took effect at the read (its data was there, and a writer of
 * other data still running orders after it); written means it took effect
 * when its own write lands, as without this target.
 *
 * Context: process context (the workqueue), may sleep; GFP_NOIO.
 * Return: the counter of the outcome: MF_DM_ELIDED or why it is written.
 */
static enum mf_dm_counter mf_dm_verify(struct mf_dm_target *t,
				       struct bio *bio, sector_t block)
{
	enum mf_dm_counter res;
	struct bio_vec rbv;
	struct page *page;
	struct bio rbio;
	void *disk;
	int err;

	page = mempool_alloc(t->pages, GFP_NOIO);
	bio_init(&rbio, t->dev->bdev, &rbv, 1, REQ_OP_READ);
	rbio.bi_iter.bi_sector = bio->bi_iter.bi_sector;
	__bio_add_page(&rbio, page, MF_DM_BLOCK, 0);
	mf_dm_count(t, MF_DM_VERIFY_READS);
	err = submit_bio_wait(&rbio);
	bio_uninit(&rbio);
	disk = kmap_local_page(page);
	res = memfilter_dm_decide(t->inflight, bio, t->start, disk, err,
				  mf_dm_trusted(t, block));
	kunmap_local(disk);
	mempool_free(page, t->pages);
	return res;
}

static void mf_dm_verify_work(struct work_struct *work)
{
	struct mf_dm_io *io = container_of(work, struct mf_dm_io, work);
	struct bio *bio = dm_bio_from_per_bio_data(io, sizeof(*io));
	struct mf_dm_target *t = io->ti->private;
	enum mf_dm_counter res = mf_dm_verify(t, bio, io->first);

	mf_dm_count(t, res);
	if (res == MF_DM_ELIDED) {
		bio_endio(bio);
		return;
	}
	mf_dm_track(t, io, bio);
	dm_submit_bio_remap(bio, NULL);
}

/* What a write's end does to @written (see the top of this file). */
static enum mf_dm_io_kind mf_dm_write_kind(struct bio *bio, sector_t sector,
					   unsigned int sectors)
{
	if (bio_op(bio) != REQ_OP_WRITE)
		return MF_DM_IO_FORGET;
	if (!(sector & (MF_DM_SECTORS - 1)) && sectors == MF_DM_SECTORS)
		return MF_DM_IO_BLOCK;
	return MF_DM_IO_PART;
}

/*
 * A candidate's fate in map(): written at once (the filter never saw its
 * key, or its block's contents are not known to be ours, so a read proves
 * nothing), or verified by the workqueue. The bio's sector is the
 * target's here (the key's block number).
 */
static enum mf_dm_counter mf_dm_route(struct mf_dm_target *t,
				      struct mf_dm_io *io, struct bio *bio)
{
	if (!mf_dm_filter_maybe(t, bio))
		return MF_DM_NEGATIVES;
	if (!mf_dm_trusted(t, io->first))
		return MF_DM_UNTRUSTED;
	return MF_DM_VERIFY_READS;
}

static int mf_dm_map(struct dm_target *ti, struct bio *bio)
{
	struct mf_dm_io *io = dm_per_bio_data(bio, sizeof(*io));
	struct mf_dm_target *t = ti->private;
	unsigned int sectors = bio_sectors(bio);
	enum mf_dm_counter route;
	sector_t sector;

	io->tracked = false;
	io->kind = MF_DM_IO_OTHER;
	bio_set_dev(bio, t->dev->bdev);
	if (!sectors)
		return DM_MAPIO_REMAPPED;
	sector = dm_target_offset(ti, bio->bi_iter.bi_sector);
	bio->bi_iter.bi_sector = t->start + sector;
	if (!op_is_write(bio_op(bio)))
		return DM_MAPIO_REMAPPED;
	io->first = sector >> 3;
	io->last = (sector + sectors - 1) >> 3;
	io->kind = mf_dm_write_kind(bio, sector, sectors);
	if (!memfilter_dm_candidate(bio->bi_opf, sector, sectors)) {
		mf_dm_count(t, MF_DM_PASSTHROUGH);
		mf_dm_track(t, io, bio);
		return DM_MAPIO_REMAPPED;
	}
	mf_dm_count(t, MF_DM_WRITES);
	bio->bi_iter.bi_sector = sector;
	route = mf_dm_route(t, io, bio);
	bio->bi_iter.bi_sector = t->start + sector;
	if (route != MF_DM_VERIFY_READS) {
		mf_dm_count(t, route);
		mf_dm_track(t, io, bio);
		return DM_MAPIO_REMAPPED;
	}
	io->ti = ti;
	INIT_WORK(&io->work, mf_dm_verify_work);
	queue_work(t->wq, &io->work);
	return DM_MAPIO_SUBMITTED;
}

static int mf_dm_end_io(struct dm_target *ti, struct bio *bio,
			blk_status_t *error)
{
	struct mf_dm_io *io = dm_per_bio_data(bio, sizeof(*io));
	struct mf_dm_target *t = ti->private;

	if (!io->tracked)
		return DM_ENDIO_DONE;
	switch (io->kind) {
	case MF_DM_IO_BLOCK:
		if (*error)
			clear_bit(io->first, t->written);
		else
			mf_dm_wrote(t, io);
		break;
	case MF_DM_IO_PART:
		if (*error)
			mf_dm_clear(t->written, io->first, io->last);
		break;
	case MF_DM_IO_FORGET:
		mf_dm_forget_end(t);
		break;
	}
	/* The write's data is on the device before the slot drops. */
	smp_mb__before_atomic();
	atomic_dec(&t->inflight[io->slot]);
	return DM_ENDIO_DONE;
}

static void mf_dm_free(struct mf_dm_target *t)
{
	if (t->wq)
		destroy_workqueue(t->wq);
	mempool_destroy(t->pages);
	free_percpu(t->stats);
	kvfree(t->written);
	kvfree(t->inflight);
	if (t->f)
		memfilter_put(t->f);
	kfree(t);
}

/*
 * Table line: <dev_path> [<offset>] <filter_name>, where <offset> is the
 * target's first sector on the device (0 when left out) and "*" as the
 * name means no filter (every candidate is verified: the baseline the
 * filter improves).
 */
static int mf_dm_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct mf_dm_target *t;
	unsigned long long start = 0;
	int ret;

	if (argc != 2 && argc != 3) {
		ti->error = "Expected <dev_path> [<offset>] <filter_name>";
		return -EINVAL;
	}
	if (argc == 3 && (kstrtoull(argv[1], 10, &start) ||
			  start != (sector_t)start)) {
		ti->error = "Invalid device offset";
		return -EINVAL;
	}
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t) {
		ti->error = "Cannot allocate the target";
		return -ENOMEM;
	}
	t->start = start;
	spin_lock_init(&t->base_lock);
	if (strscpy(t->name, argv[argc - 1], sizeof(t->name)) < 0) {
		ti->error = "Filter name too long";
		ret = -EINVAL;
		goto out_free;
	}
	if (strcmp(t->name, MF_DM_NO_FILTER)) {
		t->f = memfilter_get_by_name(t->name);
		if (!t->f) {
			ti->error = "No memfilter is published under that name";
			ret = -ENOENT;
			goto out_free;
		}
	}
	t->nr_blocks = DIV_ROUND_UP_SECTOR_T(ti->len, MF_DM_SECTORS);
	if (t->nr_blocks > MF_DM_MAX_BLOCKS) {
		ti->error = BITS_PER_LONG == 32 ?
			"Target too large: at most 2^31 - 1 blocks (8 TiB)" :
			"Target too large: at most 2^34 - 64 blocks (64 TiB)";
		ret = -EINVAL;
		goto out_free;
	}
	ret = -ENOMEM;
	t->written = kvcalloc(BITS_TO_LONGS(t->nr_blocks), sizeof(long),
			      GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	t->inflight = kvcalloc(MF_DM_SLOT_WIDE + 1, sizeof(*t->inflight),
			       GFP_KERNEL);
	t->stats = alloc_percpu(struct mf_dm_stats);
	t->pages = mempool_create_page_pool(MF_DM_MIN_PAGES, 0);
	t->wq = alloc_workqueue("memfilter-dedup",
				WQ_MEM_RECLAIM | WQ_PERCPU, 0);
	if (!t->written || !t->inflight || !t->stats || !t->pages || !t->wq) {
		ti->error = "Cannot allocate the target";
		goto out_free;
	}
	mf_dm_stats_init(t);
	ret = dm_set_target_max_io_len(ti, MF_DM_SECTORS);
	if (ret)
		goto out_free;
	ret = dm_get_device(ti, argv[0], dm_table_get_mode(ti->table), &t->dev);
	if (ret) {
		ti->error = "Device lookup failed";
		goto out_free;
	}
	if (bdev_logical_block_size(t->dev->bdev) > MF_DM_BLOCK) {
		ti->error = "Logical block size over 4096 bytes";
		ret = -EINVAL;
		goto out_put;
	}
	ti->num_flush_bios = 1;
	ti->num_discard_bios = 1;
	ti->num_write_zeroes_bios = 1;
	ti->per_io_data_size = sizeof(struct mf_dm_io);
	ti->private = t;
	return 0;

out_put:
	dm_put_device(ti, t->dev);
out_free:
	mf_dm_free(t);
	return ret;
}

/*
 * DM ends every bio before a table goes away (suspend or removal waits
 * for them); the workqueue is drained again by destroy_workqueue(), before
 * the device is let go.
 */
static void mf_dm_dtr(struct dm_target *ti)
{
	struct mf_dm_target *t = ti->private;
	struct dm_dev *dev = t->dev;

	mf_dm_free(t);
	dm_put_device(ti, dev);
}

/*
 * Suspend has waited until DM ended every bio of this target, queued
 * verify work included; this waits for the workers' last instructions
 * after bio_endio() or the submit, so nothing of ours runs while
 * suspended.
 */
static void mf_dm_postsuspend(struct dm_target *ti)
{
	struct mf_dm_target *t = ti->private;

	flush_workqueue(t->wq);
}

static void mf_dm_status(struct dm_target *ti, status_type_t type,
			 unsigned int status_flags, char *result,
			 unsigned int maxlen)
{
	struct mf_dm_target *t = ti->private;
	u64 c[MF_DM_NR_COUNTERS];
	unsigned int sz = 0, i;

	switch (type) {
	case STATUSTYPE_INFO:
		mf_dm_sum(t, c);
		spin_lock(&t->base_lock);
		for (i = 0; i < MF_DM_NR_COUNTERS; i++)
			DMEMIT("%s%llu", i ? " " : "", c[i] - t->base[i]);
		spin_unlock(&t->base_lock);
		break;
	case STATUSTYPE_TABLE:
		if (t->start)
			DMEMIT("%s %llu %s", t->dev->name,
			       (unsigned long long)t->start, t->name);
		else
			DMEMIT("%s %s", t->dev->name, t->name);
		break;
	case STATUSTYPE_IMA:
		DMEMIT_TARGET_NAME_VERSION(ti->type);
		DMEMIT(",device_name=%s,start=%llu,filter_name=%s;",
		       t->dev->name, (unsigned long long)t->start, t->name);
		break;
	}
}

/* "reset": the counters start again from zero. */
static int mf_dm_message(struct dm_target *ti, unsigned int argc,
			 char **argv, char *result, unsigned int maxlen)
{
	struct mf_dm_target *t = ti->private;
	u64 c[MF_DM_NR_COUNTERS];

	if (argc != 1 || strcasecmp(argv[0], "reset")) {
		DMWARN("unknown message; the target understands \"reset\"");
		return -EINVAL;
	}
	mf_dm_sum(t, c);
	spin_lock(&t->base_lock);
	memcpy(t->base, c, sizeof(c));
	spin_unlock(&t->base_lock);
	return 0;
}

static int mf_dm_iterate_devices(struct dm_target *ti,
				 iterate_devices_callout_fn fn, void *data)
{
	struct mf_dm_target *t = ti->private;

	return fn(ti, t->dev, t->start, ti->len, data);
}

static struct target_type mf_dm_target_type = {
	.name = "memfilter-dedup",
	.version = { 1, 1, 0 },
	.module = THIS_MODULE,
	.ctr = mf_dm_ctr,
	.dtr = mf_dm_dtr,
	.map = mf_dm_map,
	.end_io = mf_dm_end_io,
	.postsuspend = mf_dm_postsuspend,
	.status = mf_dm_status,
	.message = mf_dm_message,
	.iterate_devices = mf_dm_iterate_devices,
};

/**
 * memfilter_dm_init() - register the memfilter-dedup target
 *
 * Context: module init, may sleep.
 * Return: 0 or the errno of dm_register_target().
 */
int memfilter_dm_init(void)
{
	return dm_register_target(&mf_dm_target_type);
}

/**
 * memfilter_dm_exit() - unregister it (no table can use it: each pins us)
 *
 * Context: module exit, may sleep.
 */
void memfilter_dm_exit(void)
{
	dm_unregister_target(&mf_dm_target_type);
}
