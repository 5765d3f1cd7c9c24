// SPDX-License-Identifier: GPL-2.0
/*
 * Native tests of the cuckoo filter's lockless readers (core/cuckoo.c)
 * against a writer: a count never sees a fingerprint twice while it moves
 * out of the stash or along a cuckoo path, and a reader whose stripe a
 * writer left odd (interrupted inside an update) still returns, with a
 * "maybe" or MEMFILTER_CUCKOO_COUNT_BUSY, never a false negative.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "cuckoo.h"
#include "kselftest_harness.h"

struct filter {
	struct memfilter_cuckoo c;
	void *mem;
};

static void filter_new(struct filter *f, u64 nbuckets, u32 fp_bits,
		       u32 max_kicks)
{
	struct memfilter_cuckoo_params p;
	u64 bytes;

	if (memfilter_cuckoo_params_init(&p, 1, fp_bits))
		abort();
	p.nbuckets = nbuckets;
	p.capacity = nbuckets * MEMFILTER_CUCKOO_SLOTS;
	p.max_kicks = max_kicks;
	bytes = memfilter_cuckoo_mem_bytes(&p);
	f->mem = aligned_alloc(64, (bytes + 63) & ~63ULL);
	if (!bytes || !f->mem)
		abort();
	memset(f->mem, 0, bytes);
	memfilter_cuckoo_init(&f->c, &p, f->mem);
}

static u64 mix(u64 i)
{
	u64 z = i * 0x9e3779b97f4a7c15ULL + 0x7f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The fingerprint and first bucket of a hash, as cuckoo.h defines them. */
static u32 fp_of(const struct filter *f, u64 h)
{
	return (u32)(((h >> 40) * f->c.fp_range) >> 24) + 1;
}

static u64 alt_of(const struct filter *f, u64 i, u32 fp)
{
	return i ^ ((u32)(fp * 0x5bd1e995U) & f->c.mask);
}

struct race {
	struct filter f;
	u64 key;		/* counted by the stash race */
	u64 fillers[8];
	u64 cycles;		/* at least; more until MIN_INSIDE readers hit an update */
	u64 *stable;		/* the path race: keys added once */
	u32 *base;		/* their counts before the writer starts */
	u32 nstable, next;
	u64 *churn;
	u32 nchurn;
	atomic_int stop;
	atomic_ulong bad, reads, skipped, handled;
};

static struct race *the_race;

/*
 * Each race runs its cycles, then goes on (up to 10 times as many) until
 * MIN_READS readers counted and MIN_INSIDE of them interrupted the writer
 * inside a versioned update, whatever the machine's signal timing.
 */
#define MIN_INSIDE 1000
#define MIN_READS 50000

static bool race_more(struct race *r, u64 n)
{
	return n < r->cycles ||
	       ((atomic_load(&r->skipped) < MIN_INSIDE ||
		atomic_load(&r->reads) < MIN_READS) && n < 10 * r->cycles);
}

/*
 * The reader runs in a signal handler on the writer's own thread, as a
 * hard interrupt or NMI would on the writer's CPU: it sees the writer
 * stopped at any instruction. It counts only when the key's stripes are
 * even, i.e. when the writer is not inside a versioned window, where a
 * reader must never see a fingerprint twice.
 */
static u32 count_if_quiet(struct race *r, u64 h)
{
	const struct memfilter_cuckoo *c = &r->f.c;
	u64 i1 = h & c->mask, i2 = alt_of(&r->f, i1, fp_of(&r->f, h));

	if ((READ_ONCE(c->ver[i1 & c->stripe_mask]) |
	     READ_ONCE(c->ver[i2 & c->stripe_mask])) & 1) {
		atomic_fetch_add(&r->skipped, 1);
		return MEMFILTER_CUCKOO_COUNT_BUSY;
	}
	atomic_fetch_add(&r->reads, 1);
	return memfilter_cuckoo_count_hash(c, h);
}

/* The end of every reader: the sender may interrupt the writer again. */
static void reader_done(struct race *r)
{
	atomic_fetch_add(&r->handled, 1);
}

static void stash_reader(int sig)
{
	struct race *r = the_race;
	u32 n = count_if_quiet(r, r->key);

	if (n != MEMFILTER_CUCKOO_COUNT_BUSY && n > 1)
		atomic_fetch_add(&r->bad, 1);
	reader_done(r);
}

static void path_reader(int sig)
{
	struct race *r = the_race;
	u32 k = r->next++ % r->nstable;
	u32 n = count_if_quiet(r, r->stable[k]);

	if (n != MEMFILTER_CUCKOO_COUNT_BUSY && n != r->base[k])
		atomic_fetch_add(&r->bad, 1);
	reader_done(r);
}

struct writer {
	struct race *r;
	void (*run)(struct race *r);
	pthread_t self;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;

	w->run(w->r);
	atomic_store(&w->r->stop, 1);
	return NULL;
}

/*
 * Run @run in a thread, interrupted by @reader again and again: one signal
 * at a time, the next only after the last reader finished and a random
 * pause of up to 63 spins, so the writer always makes progress (an
 * unthrottled sender can starve it for minutes) and is caught at every
 * point of its code.
 */
static void race(struct race *r, void (*run)(struct race *r),
		 void (*reader)(int))
{
	struct sigaction sa = { .sa_handler = reader };
	struct writer w = { .r = r, .run = run };
	unsigned long sent = 0;
	unsigned int seed = 1;
	volatile unsigned int spin;

	the_race = r;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGUSR1, &sa, NULL) ||
	    pthread_create(&w.self, NULL, writer_main, &w))
		abort();
	while (!atomic_load(&r->stop)) {
		pthread_kill(w.self, SIGUSR1);
		sent++;
		for (spin = 0; atomic_load(&r->handled) < sent &&
			       !atomic_load(&r->stop); spin++)
			if (spin > 1000)
				sched_yield();
		for (spin = rand_r(&seed) % 64; spin; spin--)
			;
	}
	pthread_join(w.self, NULL);
	signal(SIGUSR1, SIG_DFL);
}

/*
 * Two buckets full of other keys' fingerprints: adding the counted key
 * puts it in the stash, deleting a filler lets it move into a bucket (out
 * of the stash: the move the version counters must cover), deleting it and
 * adding the filler back starts over. Its true count is 0 or 1 throughout.
 */
static void stash_writer(struct race *r)
{
	for (u64 n = 0; race_more(r, n); n++) {
		u64 x = r->fillers[n % 8];

		if (memfilter_cuckoo_add_hash(&r->f.c, r->key) ||
		    !r->f.c.stash ||
		    memfilter_cuckoo_delete_hash(&r->f.c, x) || r->f.c.stash ||
		    memfilter_cuckoo_delete_hash(&r->f.c, r->key) ||
		    memfilter_cuckoo_add_hash(&r->f.c, x))
			atomic_fetch_add(&r->bad, 1000000);
	}
}

TEST(count_sees_a_stashed_key_once)
{
	struct race r = { .cycles = 500000 };
	u32 kfp, used = 0;
	u64 i;

	filter_new(&r.f, 2, 16, 4);
	/* A key whose two buckets are the table's two buckets. */
	for (i = 1;; i++) {
		r.key = mix(i);
		kfp = fp_of(&r.f, r.key);
		if (alt_of(&r.f, r.key & 1, kfp) != (r.key & 1))
			break;
	}
	/* Eight fillers with other fingerprints fill both buckets. */
	for (i = 1000; used < 8; i++) {
		u64 h = mix(i);

		if (fp_of(&r.f, h) == kfp)
			continue;
		ASSERT_EQ(0, memfilter_cuckoo_add_hash(&r.f.c, h));
		r.fillers[used++] = h;
	}
	ASSERT_EQ(0, r.f.c.stash);
	ASSERT_EQ(0, memfilter_cuckoo_count_hash(&r.f.c, r.key));

	race(&r, stash_writer, stash_reader);
	TH_LOG("%lu counts from interrupts during at least %llu stash-in/unstash cycles (%lu inside updates)",
	       atomic_load(&r.reads), (unsigned long long)r.cycles,
	       atomic_load(&r.skipped));
	EXPECT_EQ(0, atomic_load(&r.bad));
	EXPECT_LT(0, atomic_load(&r.reads));
	free(r.f.mem);
}

/*
 * Keys added once, whose fingerprint no churning key shares, counted while
 * a writer fills a small table to 93% and empties it again (long cuckoo
 * paths): each count must be the key's count before the churn began.
 */
static void path_writer(struct race *r)
{
	for (u64 n = 0; race_more(r, n); n++) {
		for (u32 k = 0; k < r->nchurn; k++)
			memfilter_cuckoo_add_hash(&r->f.c, r->churn[k]);
		for (u32 k = 0; k < r->nchurn; k++)
			memfilter_cuckoo_delete_hash(&r->f.c, r->churn[k]);
	}
}

TEST(count_sees_a_moving_key_once)
{
	const u64 nb = 256, slots = nb * MEMFILTER_CUCKOO_SLOTS;
	struct race r = { .cycles = 5000 };
	static u8 stable_fp[1 << 16];
	struct memfilter_cuckoo_snapshot s;
	u64 i;

	filter_new(&r.f, nb, 16, MEMFILTER_CUCKOO_DEFAULT_KICKS);
	r.nstable = slots / 2;
	r.stable = calloc(r.nstable, sizeof(u64));
	r.base = calloc(r.nstable, sizeof(u32));
	r.churn = calloc(slots, sizeof(u64));
	ASSERT_NE(NULL, r.stable);
	ASSERT_NE(NULL, r.base);
	ASSERT_NE(NULL, r.churn);
	for (i = 0; i < r.nstable; i++) {
		r.stable[i] = mix(i);
		stable_fp[fp_of(&r.f, r.stable[i])] = 1;
		ASSERT_EQ(0, memfilter_cuckoo_add_hash(&r.f.c, r.stable[i]));
	}
	for (i = 0; i < r.nstable; i++)
		r.base[i] = memfilter_cuckoo_count_hash(&r.f.c, r.stable[i]);
	for (i = 1 << 20; r.nchurn < slots * 93 / 100 - r.nstable; i++)
		if (!stable_fp[fp_of(&r.f, mix(i))])
			r.churn[r.nchurn++] = mix(i);

	race(&r, path_writer, path_reader);
	memfilter_cuckoo_stats(&r.f.c, &s);
	TH_LOG("%lu counts from interrupts during at least %llu fill/empty rounds, %llu kicks (%lu inside updates)",
	       atomic_load(&r.reads), (unsigned long long)r.cycles,
	       (unsigned long long)s.kicks, atomic_load(&r.skipped));
	EXPECT_EQ(0, atomic_load(&r.bad));
	EXPECT_LT(0, atomic_load(&r.reads));
	free(r.stable);
	free(r.base);
	free(r.churn);
	free(r.f.mem);
}

/*
 * A writer interrupted inside an update leaves a stripe odd; a reader on
 * the same CPU (hard interrupt, NMI) must still return: "maybe" for a
 * lookup, COUNT_BUSY for a count, and the right answers once it is even.
 */
TEST(odd_stripe_does_not_hang_readers)
{
	struct memfilter_cuckoo_snapshot s;
	struct filter f;
	u64 present = mix(1), absent = mix(2), i1, i2;
	u64 both[2] = { absent, present };
	unsigned long bits;
	u32 *v, fp;

	filter_new(&f, 1024, 12, MEMFILTER_CUCKOO_DEFAULT_KICKS);
	ASSERT_EQ(0, memfilter_cuckoo_add_hash(&f.c, present));
	ASSERT_FALSE(memfilter_cuckoo_contains_hash(&f.c, absent));
	memfilter_cuckoo_locate(&f.c, absent, &i1, &i2, &fp);
	v = &f.c.ver[i1 & f.c.stripe_mask];
	/* An open window: its stripe and the table's version both odd. */
	(*v)++;
	(*f.c.gen)++;
	EXPECT_TRUE(memfilter_cuckoo_contains_hash(&f.c, absent));
	EXPECT_EQ(MEMFILTER_CUCKOO_COUNT_BUSY,
		  memfilter_cuckoo_count_hash(&f.c, absent));
	EXPECT_TRUE(memfilter_cuckoo_contains_hash(&f.c, present));
	/* A batch sees the odd version and asks the single-key protocol. */
	bits = 0;
	memfilter_cuckoo_contains_hashes(&f.c, both, 2, &bits);
	EXPECT_EQ(3, bits);
	/* Every read of @absent gave up, after every one of its attempts. */
	memfilter_cuckoo_stats(&f.c, &s);
	EXPECT_EQ(3, s.read_busy);
	EXPECT_EQ(3 * MEMFILTER_CUCKOO_READ_TRIES, s.read_retries);
	(*v)++;
	(*f.c.gen)++;
	EXPECT_FALSE(memfilter_cuckoo_contains_hash(&f.c, absent));
	EXPECT_EQ(0, memfilter_cuckoo_count_hash(&f.c, absent));
	memfilter_cuckoo_contains_hashes(&f.c, both, 2, &bits);
	EXPECT_EQ(2, bits);
	memfilter_cuckoo_stats(&f.c, &s);
	EXPECT_EQ(3, s.read_busy);
	EXPECT_EQ(3 * MEMFILTER_CUCKOO_READ_TRIES, s.read_retries);
	free(f.mem);
}

TEST_HARNESS_MAIN
