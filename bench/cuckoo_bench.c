// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark of the cuckoo filter (core/cuckoo.c, the module's own source
 * at -O3 -march=native) against fastfilter_cpp's Cuckoo12 (the cuckoo
 * filter paper's reference code, bench/cuckoo_bench_ff.cc, built when
 * FASTFILTER_DIR names a checkout; never vendored) and memfilter's blocked
 * Bloom filter sized for the cuckoo filter's measured false-positive rate,
 * in one process over the same splitmix64 8-byte keys as bloom_bench.
 *
 *   bench/cuckoo_bench [--big] [--sizes=1M,10M,...] [--fill=18,22] [--wall] [--instr]
 *
 * Each filter is sized by its own code for n keys (memfilter: MEMFILTER_
 * CUCKOO_TARGET_LOAD; fastfilter: a power of two of buckets up to 96%
 * load, doubled above 94%: twice memfilter's slots at 1M keys). A second
 * table fills both to 94% of the same number of slots, and, with
 * fastfilter, a third times single queries there: the module path against
 * Cuckoo12 at equal slots and load.
 * ns per key, median of REPS runs, the thread's CPU time (--wall: the wall
 * clock); FPR on absent keys; bits/key = bytes allocated * 8 / keys
 * (memfilter: table, version counters and writer scratch; fastfilter: its
 * table). Ratios: memfilter / fastfilter (insert, single queries) and
 * cuckoo / Bloom (batch). A second memfilter row hashes with the opt-in
 * XXH3 (MEMFILTER_HASH_XXH3) instead of the default XXH64. A reference row
 * (not a peer) runs fastfilter's Cuckoo12 fed memfilter's XXH64 (seed 1,
 * bench/ff_mfhash.h): how much of the gap is the pinned hash. The
 * memory-limit probe (bench/line_probe.h: cheapest hash, 1 or 2 random
 * 64-byte lines per key over a table of the cuckoo table's bytes, single
 * in the query columns, prefetched in the batch columns) gives the floor
 * of cuckoo batch / Bloom batch: its 2-line / 1-line ratio. --instr: one
 * repetition per loop, each dumped as its own callgrind profile named
 * "size|filter|column|keys", and of the fill tables only 2^18 buckets, for
 *   valgrind --tool=callgrind bench/cuckoo_bench_v3 --instr --sizes=1M
 *   bench/instr.py callgrind.out.*
 * (instructions per key; cuckoo_bench_v3 is this file at -march=x86-64-v3,
 * which valgrind decodes). Not a test: nothing here passes or fails but
 * a present key not found at equal slots.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

#include "bloom.h"
#include "cuckoo.h"
#include "filter_type.h"
#include "bench_util.h"
#include "line_probe.h"
#ifdef FASTFILTER
#include "cuckoo_bench_ff.h"
#endif

#define REPS		3
#define FILL_REPS	9	/* rounds of the fill table (and measure_n()'s most) */
#define MAXQ		(10u << 20)
#define CHUNK		1024

enum { INS, BINS, QP, QA, BP, BA, FPR, BPK, LOAD, NCOL };
static const char *col_name[NCOL] = {
	"insert", "batch insert", "query present", "query absent", "batch query present",
	"batch query absent", "FPR", "bits/key", "load",
};

struct row {
	const char *name;
	double v[NCOL];
};

static bool wall, instr;
/* The loop measure() times next, as "size|filter|column" (--instr). */
static char loop_label[192];
static volatile u64 sink;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(wall ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* bloom_bench's keys: splitmix64 of 0, 1, ... (absent: of 2^40 + i). */
static u64 splitmix(u64 x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * One timed loop: @prep (untimed, may be NULL) then @run over @n keys,
 * REPS times; the median ns per key, and @run's result of the last run.
 */
typedef u64 (*loop_fn)(void *ctx, const u64 *k, size_t n);

static double measure_n(void (*prep)(void *ctx), loop_fn run, void *ctx,
			const u64 *k, size_t n, u64 *result, int reps)
{
	double t[FILL_REPS], t0;
	char dump[256];
	u64 r = 0;

	for (int i = 0; i < reps; i++) {
		if (prep)
			prep(ctx);
		CALLGRIND_ZERO_STATS;
		t0 = now_ns();
		r = run(ctx, k, n);
		t[i] = (now_ns() - t0) / n;
		snprintf(dump, sizeof(dump), "%s|%zu", loop_label, n);
		CALLGRIND_DUMP_STATS_AT(dump);
	}
	sink += r;
	if (result)
		*result = r;
	qsort(t, reps, sizeof(t[0]), cmp_double);
	return t[reps / 2];
}

static double measure(void (*prep)(void *ctx), loop_fn run, void *ctx,
		      const u64 *k, size_t n, u64 *result)
{
	return measure_n(prep, run, ctx, k, n, result, instr ? 1 : REPS);
}

static void row_init(struct row *r, const char *name)
{
	r->name = name;
	for (int c = 0; c < NCOL; c++)
		r->v[c] = -1;
}

/* measure() for cell @col of row @r at size @size; the result goes in the cell. */
static double cell(struct row *r, int col, const char *size,
		   void (*prep)(void *ctx), loop_fn run, void *ctx, const u64 *k,
		   size_t n, u64 *result)
{
	snprintf(loop_label, sizeof(loop_label), "%s|%s|%s", size, r->name,
		 col_name[col]);
	r->v[col] = measure(prep, run, ctx, k, n, result);
	return r->v[col];
}

static u64 popcount_bits(const unsigned long *bm, size_t n)
{
	u64 c = 0;

	for (size_t k = 0; k < n / 64; k++)
		c += __builtin_popcountl(bm[k]);
	if (n % 64)
		c += __builtin_popcountl(bm[n / 64] & ((1UL << (n % 64)) - 1));
	return c;
}

/*
 * The module's batch path over @n keys: hash a chunk of them into an
 * array, then one batch call (@many on @f) per chunk.
 */
typedef void (*many_fn)(const void *f, const u64 *h, size_t n,
			unsigned long *bm);

static u64 batch_keys(const struct memfilter_hasher *hs, many_fn many,
		      const void *f, const u64 *k, size_t n)
{
	unsigned long bm[CHUNK / 64];
	u64 h[CHUNK], hits = 0;

	for (size_t i = 0; i < n; i += CHUNK) {
		size_t cnt = n - i < CHUNK ? n - i : CHUNK;

		for (size_t j = 0; j < cnt; j++)
			h[j] = memfilter_hash(hs, &k[i + j], 8);
		many(f, h, cnt, bm);
		hits += popcount_bits(bm, cnt);
	}
	return hits;
}

/* ---- memfilter cuckoo ----------------------------------------------------- */

struct mfc {
	struct memfilter_cuckoo c;
	struct memfilter_cuckoo_params p;
	void *mem;
	u64 bytes;
	const u64 *hashes;	/* the keys' hashes, for the hash-API rows */
};

static void mfc_reset(void *ctx)
{
	struct mfc *m = ctx;

	memset(m->mem, 0, m->bytes);
	memfilter_cuckoo_init(&m->c, &m->p, m->mem);
}

/*
 * Sized for @n keys; @nbuckets buckets instead when not 0; keys hashed by
 * @algo (MEMFILTER_HASH_XXH64 or _XXH3) with seed 1.
 */
static void mfc_new(struct mfc *m, u64 n, u64 nbuckets, u32 algo)
{
	memset(m, 0, sizeof(*m));
	if (memfilter_cuckoo_params_init(&m->p, n, 12) ||
	    memfilter_hasher_init(&m->p.hasher, algo, 1, NULL))
		abort();
	if (nbuckets)
		m->p.nbuckets = nbuckets;
	m->bytes = memfilter_cuckoo_mem_bytes(&m->p);
	m->mem = aligned_alloc(64, (m->bytes + 63) & ~63ULL);
	if (!m->mem)
		abort();
	mfc_reset(m);
}

static u64 mfc_add(void *ctx, const u64 *k, size_t n)
{
	struct mfc *m = ctx;
	u64 fail = 0;

	for (size_t i = 0; i < n; i++)
		fail += memfilter_cuckoo_add_key(&m->c, &k[i], 8) != 0;
	return fail;
}

static u64 mfc_query(void *ctx, const u64 *k, size_t n)
{
	struct mfc *m = ctx;
	u64 hits = 0;

	for (size_t i = 0; i < n; i++)
		hits += memfilter_cuckoo_contains_key(&m->c, &k[i], 8);
	return hits;
}

static void mfc_many(const void *f, const u64 *h, size_t n, unsigned long *bm)
{
	memfilter_cuckoo_contains_hashes(f, h, n, bm);
}

static u64 mfc_batch(void *ctx, const u64 *k, size_t n)
{
	struct mfc *m = ctx;

	return batch_keys(&m->c.p.hasher, mfc_many, &m->c, k, n);
}

/*
 * The module's path (memfilter_contains() without its counters): the
 * type's contains_key through the type table.
 */
static u64 mfc_ops_query(void *ctx, const u64 *k, size_t n)
{
	struct mfc *m = ctx;
	const union memfilter_state *s = (const void *)&m->c;
	u64 hits = 0;

	for (size_t i = 0; i < n; i++)
		hits += memfilter_cuckoo_ops.contains_key(s, &k[i], 8);
	return hits;
}

/* Hash API: @k are the keys' hashes, computed before timing. */
static u64 mfc_hash_query(void *ctx, const u64 *k, size_t n)
{
	struct mfc *m = ctx;
	u64 hits = 0;

	for (size_t i = 0; i < n; i++)
		hits += memfilter_cuckoo_contains_hash(&m->c, k[i]);
	return hits;
}

static u64 mfc_hash_batch(void *ctx, const u64 *k, size_t n)
{
	struct mfc *m = ctx;
	unsigned long bm[CHUNK / 64];
	u64 hits = 0;

	for (size_t i = 0; i < n; i += CHUNK) {
		size_t cnt = n - i < CHUNK ? n - i : CHUNK;

		memfilter_cuckoo_contains_hashes(&m->c, k + i, cnt, bm);
		hits += popcount_bits(bm, cnt);
	}
	return hits;
}

static u64 mfc_hash_add(void *ctx, const u64 *k, size_t n)
{
	struct mfc *m = ctx;
	u64 fail = 0;

	for (size_t i = 0; i < n; i++)
		fail += memfilter_cuckoo_add_hash(&m->c, k[i]) != 0;
	return fail;
}

/*
 * The module's batch insert (the ADD ioctl's, per 256-key window): the
 * cuckoo type's add operation, which stops at the first failure.
 */
static u64 mfc_hash_add_batch(void *ctx, const u64 *k, size_t n)
{
	struct mfc *m = ctx;
	unsigned long bm[256 / 64];
	u64 fail = 0;
	u32 done;

	for (size_t i = 0; i < n; i += 256) {
		u32 cnt = n - i < 256 ? n - i : 256;

		if (memfilter_cuckoo_ops.add((union memfilter_state *)&m->c, k + i,
					     cnt, bm, &done))
			fail += cnt - done;
	}
	return fail;
}

/*
 * Row @r, @name, of filter @m through the key API: insert @in (@n keys),
 * query @in and @out (@nq keys each) one by one and in batches.
 */
static void mfc_key_row(struct row *r, const char *name, struct mfc *m,
			const char *size, const u64 *in, u64 n, const u64 *out,
			u64 nq)
{
	u64 hits;

	row_init(r, name);
	cell(r, INS, size, mfc_reset, mfc_add, m, in, n, &hits);
	if (hits)
		fprintf(stderr, "%s: %llu inserts failed\n", name,
			(unsigned long long)hits);
	cell(r, QP, size, NULL, mfc_query, m, in, nq, &hits);
	if (hits != nq)
		fprintf(stderr, "%s: FALSE NEGATIVES\n", name);
	cell(r, QA, size, NULL, mfc_query, m, out, nq, &hits);
	r->v[FPR] = 100.0 * hits / nq;
	cell(r, BP, size, NULL, mfc_batch, m, in, nq, &hits);
	if (hits != nq)
		fprintf(stderr, "%s batch: FALSE NEGATIVES\n", name);
	cell(r, BA, size, NULL, mfc_batch, m, out, nq, NULL);
	r->v[BPK] = 8.0 * m->bytes / n;
	r->v[LOAD] = 100.0 * n / (m->p.nbuckets * MEMFILTER_CUCKOO_SLOTS);
}

/* ---- memfilter Bloom ------------------------------------------------------- */

struct mfb {
	struct memfilter_bloom b;
	u64 bytes;
};

static void mfb_reset(void *ctx)
{
	struct mfb *m = ctx;

	memset(m->b.words, 0, m->bytes);
}

static u64 mfb_add(void *ctx, const u64 *k, size_t n)
{
	struct mfb *m = ctx;

	for (size_t i = 0; i < n; i++)
		memfilter_bloom_add_key(&m->b, &k[i], 8);
	return 0;
}

static u64 mfb_query(void *ctx, const u64 *k, size_t n)
{
	struct mfb *m = ctx;
	u64 hits = 0;

	for (size_t i = 0; i < n; i++)
		hits += memfilter_bloom_contains_key(&m->b, &k[i], 8);
	return hits;
}

static void mfb_many(const void *f, const u64 *h, size_t n, unsigned long *bm)
{
	memfilter_bloom_contains_hashes(f, h, n, bm);
}

static u64 mfb_batch(void *ctx, const u64 *k, size_t n)
{
	struct mfb *m = ctx;

	return batch_keys(&m->b.p.hasher, mfb_many, &m->b, k, n);
}

/* ---- fastfilter_cpp Cuckoo12 ----------------------------------------------- */

#ifdef FASTFILTER
struct ffw {
	struct ffc *f;
	size_t n;
	int hash;	/* FFC_OWN_HASH or memfilter's MEMFILTER_HASH_XXH64 */
};

static void ffw_reset(void *ctx)
{
	struct ffw *w = ctx;

	ffc_free(w->f);
	w->f = ffc_new(w->n, w->hash);
}

static u64 ffw_add(void *ctx, const u64 *k, size_t n)
{
	return ffc_add(((struct ffw *)ctx)->f, k, n);
}

static u64 ffw_query(void *ctx, const u64 *k, size_t n)
{
	return ffc_query(((struct ffw *)ctx)->f, k, n);
}

/* The two Cuckoo12 rows: as published (the peer) and fed memfilter's XXH64. */
static const int ffc_hash[2] = { FFC_OWN_HASH, MEMFILTER_HASH_XXH64 };
static const char *const ffc_name[2] = {
	"fastfilter_cpp Cuckoo12",
	"fastfilter_cpp Cuckoo12, hashing with memfilter's XXH64 (reference, not a peer)",
};

/*
 * Row @r: Cuckoo12 #@which of ffc_hash[], sized by its own constructor
 * for @n keys; insert @in, query @in and @out (@nq keys each) one by one.
 */
static void ffc_row(struct row *r, int which, const char *size, const u64 *in,
		    u64 n, const u64 *out, u64 nq)
{
	struct ffw w = { ffc_new(n, ffc_hash[which]), n, ffc_hash[which] };
	u64 hits;

	row_init(r, ffc_name[which]);
	cell(r, INS, size, ffw_reset, ffw_add, &w, in, n, &hits);
	if (hits)
		fprintf(stderr, "%s: %llu inserts failed\n", r->name,
			(unsigned long long)hits);
	cell(r, QP, size, NULL, ffw_query, &w, in, nq, &hits);
	if (hits != nq)
		fprintf(stderr, "%s: FALSE NEGATIVES\n", r->name);
	cell(r, QA, size, NULL, ffw_query, &w, out, nq, &hits);
	r->v[FPR] = 100.0 * hits / nq;
	r->v[BPK] = 8.0 * ffc_bytes(w.f) / n;
	r->v[LOAD] = 100.0 * n / (ffc_bytes(w.f) * 8 / 12);
	ffc_free(w.f);
}
#endif

/* ---- memory-limit probe (line_probe.h) ----------------------------------- */

struct probe {
	u64 *t;
	u64 nlines;
	int lines;	/* per key: 1 or 2 */
};

static u64 probe_single(void *ctx, const u64 *k, size_t n)
{
	struct probe *p = ctx;

	return p->lines == 2 ? line_probe_single(p->t, p->nlines, k, n, 2) :
			       line_probe_single(p->t, p->nlines, k, n, 1);
}

static u64 probe_batch(void *ctx, const u64 *k, size_t n)
{
	struct probe *p = ctx;

	return p->lines == 2 ? line_probe_batch(p->t, p->nlines, k, n, 2) :
			       line_probe_batch(p->t, p->nlines, k, n, 1);
}

/*
 * Rows @r[0] and @r[1]: the probe with 1 and 2 random lines per key over
 * a table of @bytes, single (the query columns) and batched (the batch
 * columns), over @in and @out (@nq keys each); bits/key for @n keys.
 */
static void probe_rows(struct row *r, u64 bytes, const char *size,
		       const u64 *in, const u64 *out, u64 n, u64 nq)
{
	static const char *const name[2] = {
		"memory-limit probe: 1 random 64 B line/key (a Bloom lookup), cuckoo table size",
		"memory-limit probe: 2 random 64 B lines/key (a cuckoo lookup), cuckoo table size",
	};
	struct probe p;

	p.nlines = bytes / 64 ? bytes / 64 : 1;
	p.t = bench_zalloc(p.nlines * 64);
	memset(p.t, 1, p.nlines * 64);
	for (int w = 0; w < 2; w++) {
		p.lines = w + 1;
		row_init(&r[w], name[w]);
		cell(&r[w], QP, size, NULL, probe_single, &p, in, nq, NULL);
		cell(&r[w], QA, size, NULL, probe_single, &p, out, nq, NULL);
		cell(&r[w], BP, size, NULL, probe_batch, &p, in, nq, NULL);
		cell(&r[w], BA, size, NULL, probe_batch, &p, out, nq, NULL);
		r[w].v[BPK] = 8.0 * p.nlines * 64 / n;
	}
	free(p.t);
}

/* ---- report ------------------------------------------------------------------ */

static void print_cell(double v, int c)
{
	if (v < 0)
		printf(" - |");
	else if (c == FPR)
		printf(" %.3f%% |", v);
	else if (c == BPK)
		printf(" %.2f |", v);
	else if (c == LOAD)
		printf(" %.1f%% |", v);
	else
		printf(" %.1f |", v);
}

static void print_ratio(const char *name, const struct row *a,
			const struct row *b, const int *cols, int ncols)
{
	printf("| %s |", name);
	for (int c = 0; c < NCOL; c++) {
		bool in = false;

		for (int j = 0; j < ncols; j++)
			in |= cols[j] == c;
		if (in && a->v[c] > 0 && b->v[c] > 0)
			printf(" %.2f |", a->v[c] / b->v[c]);
		else
			printf(" - |");
	}
	printf("\n");
}

static void bench_size(const char *label, u64 n)
{
	u64 nq = n < MAXQ ? n : MAXQ, hits, *in, *out, *hin, *hout, table;
	struct row rows[10];
	struct mfc m;
	struct mfb bl;
	struct memfilter_bloom_params bp;
	int nrows = 0, ff = -1, bloom, probe;

	in = malloc(n * sizeof(*in));
	out = malloc(nq * sizeof(*out));
	hin = malloc(nq * sizeof(*hin));
	hout = malloc(nq * sizeof(*hout));
	if (!in || !out || !hin || !hout)
		abort();
	for (u64 i = 0; i < n; i++)
		in[i] = splitmix(i);
	for (u64 i = 0; i < nq; i++)
		out[i] = splitmix(i + (1ULL << 40));

	/* memfilter cuckoo-12, key API (hashing included, as fastfilter's). */
	mfc_new(&m, n, 0, MEMFILTER_HASH_XXH64);
	mfc_key_row(&rows[0], "memfilter cuckoo-12 (key API: XXH64 + lookup)", &m,
		    label, in, n, out, nq);
	/* The probe's table: the cuckoo table's bytes (12-bit slots). */
	table = m.p.nbuckets * MEMFILTER_CUCKOO_SLOTS * 12 / 8;

	/* The same filter through the hash API: hashes computed untimed. */
	for (u64 i = 0; i < nq; i++) {
		hin[i] = memfilter_hash(&m.c.p.hasher, &in[i], 8);
		hout[i] = memfilter_hash(&m.c.p.hasher, &out[i], 8);
	}
	row_init(&rows[1], "memfilter cuckoo-12 (hash API: lookup only)");
	cell(&rows[1], QP, label, NULL, mfc_hash_query, &m, hin, nq, NULL);
	cell(&rows[1], QA, label, NULL, mfc_hash_query, &m, hout, nq, NULL);
	cell(&rows[1], BP, label, NULL, mfc_hash_batch, &m, hin, nq, NULL);
	cell(&rows[1], BA, label, NULL, mfc_hash_batch, &m, hout, nq, NULL);
	/* Last: these leave the filter holding @nq keys, not @n. */
	cell(&rows[1], INS, label, mfc_reset, mfc_hash_add, &m, hin, nq, NULL);
	cell(&rows[1], BINS, label, mfc_reset, mfc_hash_add_batch, &m, hin, nq, NULL);
	free(m.mem);

	/* The same filter shape and loops, keys hashed by the opt-in XXH3. */
	mfc_new(&m, n, 0, MEMFILTER_HASH_XXH3);
	mfc_key_row(&rows[2], "memfilter cuckoo-12 (key API: XXH3 + lookup)", &m,
		    label, in, n, out, nq);
	/* The same filter through the type table, as the module queries. */
	row_init(&rows[3], "memfilter cuckoo-12 (module path: ops->contains_key, XXH3)");
	cell(&rows[3], QP, label, NULL, mfc_ops_query, &m, in, nq, NULL);
	cell(&rows[3], QA, label, NULL, mfc_ops_query, &m, out, nq, NULL);
	free(m.mem);
	nrows = 4;

#ifdef FASTFILTER
	/* fastfilter's Cuckoo12 (the peer), then fed memfilter's XXH64. */
	ff = nrows;
	for (int w = 0; w < 2; w++)
		ffc_row(&rows[nrows++], w, label, in, n, out, nq);
#endif

	/* memfilter's blocked Bloom filter at the cuckoo filter's FPR. */
	bloom = nrows++;
	row_init(&rows[bloom], "memfilter Bloom at the cuckoo-12 FPR");
	/* params_from_fpr() leaves the hasher alone: XXH64, seed 1, as the cuckoo's. */
	if (!memfilter_bloom_params_from_fpr(&bp, n,
					     (u64)(rows[0].v[FPR] * 1e7) + 1, MEMFILTER_BLOOM_LINE64) &&
	    !memfilter_hasher_init(&bp.hasher, MEMFILTER_HASH_XXH64, 1, NULL)) {
		bl.b.p = bp;
		bl.bytes = memfilter_bloom_bytes(&bp);
		bl.b.words = aligned_alloc(64, (bl.bytes + 63) & ~63ULL);
		if (!bl.b.words)
			abort();
		cell(&rows[bloom], INS, label, mfb_reset, mfb_add, &bl, in, n, NULL);
		cell(&rows[bloom], QP, label, NULL, mfb_query, &bl, in, nq, NULL);
		cell(&rows[bloom], QA, label, NULL, mfb_query, &bl, out, nq, &hits);
		rows[bloom].v[FPR] = 100.0 * hits / nq;
		cell(&rows[bloom], BP, label, NULL, mfb_batch, &bl, in, nq, NULL);
		cell(&rows[bloom], BA, label, NULL, mfb_batch, &bl, out, nq, NULL);
		rows[bloom].v[BPK] = 8.0 * bl.bytes / n;
		free(bl.b.words);
	}

	/* The floor of a one-line and of a two-line lookup, same table size. */
	probe = nrows;
	probe_rows(&rows[probe], table, label, in, out, n, nq);
	nrows += 2;

	printf("\n### Cuckoo, 12-bit fingerprints, %s keys, %llu queries (median of %d)\n\n",
	       label, (unsigned long long)nq, REPS);
	bench_table_header(col_name, NCOL);
	for (int r = 0; r < nrows; r++) {
		printf("| %s |", rows[r].name);
		for (int c = 0; c < NCOL; c++)
			print_cell(rows[r].v[c], c);
		printf("\n");
	}
	if (ff >= 0) {
		static const int cols[] = { INS, QP, QA };

		print_ratio("ratio: memfilter key API / fastfilter Cuckoo12 (goal: queries <= 1.2)",
			    &rows[0], &rows[ff], cols, 3);
		print_ratio("ratio: memfilter XXH3 key API / fastfilter Cuckoo12",
			    &rows[2], &rows[ff], cols, 3);
		print_ratio("ratio: module path (XXH3) / fastfilter Cuckoo12 (goal: single queries <= 1.3)",
			    &rows[3], &rows[ff], cols + 1, 2);
		print_ratio("ratio: memfilter key API / Cuckoo12 with memfilter's hash",
			    &rows[0], &rows[ff + 1], cols, 3);
	}
	{
		static const int cols[] = { BP, BA };
		static const int pcols[] = { QP, QA, BP, BA };

		print_ratio("ratio: memfilter cuckoo / Bloom at its FPR (goal: batch <= 1.3)",
			    &rows[0], &rows[bloom], cols, 2);
		print_ratio("ratio: memfilter cuckoo XXH3 / Bloom (XXH64) at its FPR",
			    &rows[2], &rows[bloom], cols, 2);
		print_ratio("ratio: probe 2 lines / 1 line (the floor of cuckoo / Bloom)",
			    &rows[probe + 1], &rows[probe], pcols, 4);
	}
	free(in);
	free(out);
	free(hin);
	free(hout);
}

/* The median of @n values (reordered). */
static double median(double *v, int n)
{
	qsort(v, n, sizeof(v[0]), cmp_double);
	return v[n / 2];
}

#ifdef FASTFILTER
/*
 * Single queries at the same slots: the module path (ops->contains_key,
 * XXH3, the default hash) on a memfilter cuckoo-12 of 2^@lg buckets and
 * fastfilter's Cuckoo12 (which picks 2^@lg buckets for these keys), both
 * holding bench_fill()'s keys (94% load), present keys and as many
 * absent ones; the two take turns, FILL_REPS
 * rounds, each cell the median of its rounds and the ratio the median of
 * the rounds' own ratios. The single-key table above compares with
 * Cuckoo12 as it sizes itself for the keys, which may be twice the
 * slots (fewer keys per bucket, more memory): this is the comparison at
 * equal memory per slot and equal load.
 */
static void fill_queries(int lg)
{
	u64 n = (4ULL << lg) * 94 / 100, *in, *out, hit[2][2];
	int reps = instr ? 1 : FILL_REPS;
	double t[2][2][FILL_REPS], r[2][FILL_REPS];
	struct ffw fw = { ffc_new(n, FFC_OWN_HASH), n, FFC_OWN_HASH };
	struct mfc m;

	in = malloc(n * sizeof(*in));
	out = malloc(n * sizeof(*out));
	if (!in || !out)
		abort();
	for (u64 i = 0; i < n; i++) {
		in[i] = splitmix(i);
		out[i] = splitmix((1ULL << 40) + i);
	}
	mfc_new(&m, n, 1ULL << lg, MEMFILTER_HASH_XXH3);
	if (mfc_add(&m, in, n) || ffw_add(&fw, in, n))
		abort();
	for (int i = 0; i < reps; i++) {
		for (int a = 0; a < 2; a++) {
			snprintf(loop_label, sizeof(loop_label), "fill|module path|%s",
				 a ? "absent" : "present");
			t[0][a][i] = measure_n(NULL, mfc_ops_query, &m, a ? out : in,
					       n, &hit[0][a], 1);
			snprintf(loop_label, sizeof(loop_label), "fill|Cuckoo12|%s",
				 a ? "absent" : "present");
			t[1][a][i] = measure_n(NULL, ffw_query, &fw, a ? out : in, n,
					       &hit[1][a], 1);
			r[a][i] = t[0][a][i] / t[1][a][i];
		}
	}
	if (hit[0][0] != n || hit[1][0] != n)
		abort();	/* a false negative */
	printf("| %llu | memfilter cuckoo-12 (module path: ops->contains_key, XXH3) | %.1f | %.1f | %.3f%% |\n",
	       (unsigned long long)n, median(t[0][0], reps), median(t[0][1], reps),
	       100.0 * hit[0][1] / n);
	printf("| %llu | fastfilter_cpp Cuckoo12 | %.1f | %.1f | %.3f%% |\n",
	       (unsigned long long)n, median(t[1][0], reps), median(t[1][1], reps),
	       100.0 * hit[1][1] / n);
	printf("| %llu | ratio module path / Cuckoo12 (goal <= 1.5), median of %d rounds' | %.2f | %.2f | |\n",
	       (unsigned long long)n, reps, median(r[0], reps), median(r[1], reps));
	free(m.mem);
	ffc_free(fw.f);
	free(in);
	free(out);
}
#endif

/*
 * Inserts to 94% of the same number of slots: 2^@lg buckets of 4 slots
 * for both filters (fastfilter picks that bucket count for these keys;
 * memfilter is given it, in its any-count layout). The filters take
 * turns, one fill each per round, FILL_REPS rounds, so that the host's
 * slow and fast phases fall on all of them alike; each ratio is the
 * median of the rounds' own ratios, each time the median of its fills.
 */
static void bench_fill(int lg)
{
	u64 n = (4ULL << lg) * 94 / 100, fail = 0, *in;
	int reps = instr ? 1 : FILL_REPS, nf = 1;
	double t[3][FILL_REPS], r[3][FILL_REPS];
	const char *name[3] = { "memfilter cuckoo-12" };
	u64 failed[3] = { 0 }, buckets[3];
	struct mfc m;
#ifdef FASTFILTER
	struct ffw w[2];
#endif

	in = malloc(n * sizeof(*in));
	if (!in)
		abort();
	for (u64 i = 0; i < n; i++)
		in[i] = splitmix(i);
	mfc_new(&m, n, 1ULL << lg, MEMFILTER_HASH_XXH64);
	buckets[0] = m.p.nbuckets;
#ifdef FASTFILTER
	for (int which = 0; which < 2; which++) {
		w[which] = (struct ffw){ ffc_new(n, ffc_hash[which]), n, ffc_hash[which] };
		name[1 + which] = ffc_name[which];
		buckets[1 + which] = ffc_bytes(w[which].f) * 8 / 48;
	}
	nf = 3;
#endif
	for (int i = 0; i < reps; i++) {
		for (int f = 0; f < nf; f++) {
			snprintf(loop_label, sizeof(loop_label), "fill|%s|insert", name[f]);
			if (!f)
				t[f][i] = measure_n(mfc_reset, mfc_add, &m, in, n, &fail, 1);
#ifdef FASTFILTER
			else
				t[f][i] = measure_n(ffw_reset, ffw_add, &w[f - 1], in, n,
						    &fail, 1);
#endif
			failed[f] += fail;
		}
		for (int f = 1; f < nf; f++)
			r[f][i] = t[0][i] / t[f][i];
	}
	for (int f = 0; f < nf; f++)
		printf("| %llu | %s | %llu | %.1f%% | %.1f | %llu |\n",
		       (unsigned long long)n, name[f], (unsigned long long)buckets[f],
		       100.0 * n / (buckets[f] * 4), median(t[f], reps),
		       (unsigned long long)failed[f]);
	for (int f = 1; f < nf; f++) {
		double mid = median(r[f], reps);	/* sorts: min and max after */

		printf("| %llu | ratio memfilter / %s, median of %d rounds' (min-max) | | | %.2f (%.2f-%.2f) | |\n",
		       (unsigned long long)n, f == 2 ? "Cuckoo12 with memfilter's hash" :
		       "fastfilter (goal <= 1.0)", reps, mid, r[f][0], r[f][reps - 1]);
	}
	free(m.mem);
#ifdef FASTFILTER
	for (int which = 0; which < 2; which++)
		ffc_free(w[which].f);
#endif
	free(in);
}

int main(int argc, char **argv)
{
	const char *sizes[8] = { "1M", "10M" };
	int nsizes = 2;
	char *list = NULL, *fills = NULL, fillbuf[64];

	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--big")) {
			sizes[nsizes++] = "100M";
		} else if (!strcmp(argv[a], "--instr")) {
			instr = true;
		} else if (!strncmp(argv[a], "--fill=", 7)) {
			fills = argv[a] + 7;
		} else if (!strcmp(argv[a], "--wall")) {
			wall = true;
		} else if (!strncmp(argv[a], "--sizes=", 8)) {
			list = argv[a] + 8;
			nsizes = 0;
			for (char *t = strtok(list, ","); t && nsizes < 8;
			     t = strtok(NULL, ","))
				sizes[nsizes++] = t;
		} else {
			fprintf(stderr, "usage: %s [--big] [--sizes=1M,10M,...] [--fill=18,22] [--wall] [--instr]\n",
				argv[0]);
			return 2;
		}
	}
	printf("## Cuckoo filter benchmark (bench/cuckoo_bench)\n\n");
#ifndef FASTFILTER
	printf("fastfilter_cpp rows skipped: build with FASTFILTER_DIR=<a checkout of "
	       "github.com/FastFilter/fastfilter_cpp>\n");
#endif
	for (int i = 0; i < nsizes; i++)
		bench_size(sizes[i], bench_parse_size(sizes[i]));

	printf("\n### Insert to 94%% load of the same slots (median of %d rounds)\n\n",
	       instr ? 1 : FILL_REPS);
	printf("| keys | filter | buckets | load | insert ns/key | failed |\n");
	printf("|---|---|---|---|---|---|\n");
	/* Under callgrind the 2^18 fill alone by default: 2^22 costs minutes there. */
	snprintf(fillbuf, sizeof(fillbuf), "%s", fills ? fills : instr ? "18" : "18,22");
	for (char *t = strtok(fillbuf, ","); t; t = strtok(NULL, ",")) {
		int lg = atoi(t);

		if (lg < 4 || lg > 30) {
			fprintf(stderr, "--fill: log2 bucket counts from 4 to 30\n");
			return 2;
		}
		bench_fill(lg);
	}
#ifdef FASTFILTER
	printf("\n### Single queries at the same slots, 94%% load (median of %d rounds)\n\n",
	       instr ? 1 : FILL_REPS);
	printf("| keys | filter | query present | query absent | FPR |\n");
	printf("|---|---|---|---|---|\n");
	snprintf(fillbuf, sizeof(fillbuf), "%s", fills ? fills : instr ? "18" : "18,22");
	for (char *t = strtok(fillbuf, ","); t; t = strtok(NULL, ","))
		fill_queries(atoi(t));
#endif
	return 0;
}
