/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Single-key rows the window, growing and cuckoo benchmarks share: a
 * filter of any type made through the type table (struct
 * memfilter_type_ops, as the module makes it), 8-byte keys through
 * ops->contains_key and ops->test_and_add_key (memfilter_contains() and
 * memfilter_test_and_add() without their counters), and, for the same
 * run, the path they replaced: the key's hash, then the batch op on a
 * batch of one. Contenders are timed in turn, run after run, and each
 * gets the median of its runs (the host is shared and noisy).
 * Include after filter_type.h and bench_util.h.
 */
#ifndef _MEMFILTER_BENCH_SINGLE_H
#define _MEMFILTER_BENCH_SINGLE_H

/* A filter made through the type table, on its own table memory. */
struct bs_filter {
	const struct memfilter_type_ops *ops;
	union memfilter_state s;
	void *mem;
	void *parts[MEMFILTER_MAX_PARTS];
	u32 nparts;
};

/* @c's filter, XXH3 (the default hash) with a fixed seed. */
static inline void bs_make(struct bs_filter *f, struct memfilter_create *c)
{
	union memfilter_params p;

	memset(f, 0, sizeof(*f));
	c->size = sizeof(*c);
	if (memfilter_create_params(c, &f->ops, &p))
		abort();
	memfilter_hasher_init(f->ops->hasher(&p), MEMFILTER_HASH_XXH3, 42, NULL);
	f->mem = bench_zalloc(f->ops->mem_bytes(&p));
	f->ops->init(&f->s, &p, f->mem);
}

/*
 * Add @n 8-byte keys (exclusively where the type can), attaching growing
 * filters' next sub-filters as the owner would.
 */
static inline void bs_fill(struct bs_filter *f, const u64 *keys, size_t n)
{
	unsigned long res[1];
	u32 done;

	for (size_t i = 0; i < n; i++) {
		u64 h = memfilter_key_hash(f->ops, &f->s, &keys[i], 8);
		int ret;

		for (;;) {
			ret = (f->ops->add_exclusive ?: f->ops->add)(&f->s, &h, 1,
								  res, &done);
			if (ret != -ENOSPC || !f->ops->next_bytes)
				break;
			f->parts[f->nparts] = bench_zalloc(f->ops->next_bytes(&f->s));
			f->ops->attach(&f->s, f->parts[f->nparts++]);
		}
	}
}

static inline void bs_free(struct bs_filter *f)
{
	for (u32 i = 0; i < f->nparts; i++)
		free(f->parts[i]);
	free(f->mem);
}

/* What a timed loop does with each key. */
enum bs_op {
	BS_QUERY,	/* ops->contains_key */
	BS_QUERY_OLD,	/* hash, ops->contains of one */
	BS_TAS,		/* ops->test_and_add_key */
	BS_TAS_OLD,	/* hash, ops->test_and_add of one */
};

static u64 bs_sink;

/* ns per key of @op over @n keys. */
static inline double bs_time(struct bs_filter *f, enum bs_op op,
			     const u64 *keys, size_t n)
{
	const struct memfilter_type_ops *ops = f->ops;
	u64 hits = 0;
	double t0;
	u32 done;

	t0 = bench_now_ns();
	for (size_t i = 0; i < n; i++) {
		unsigned long res = 0;
		u64 h;

		switch (op) {
		case BS_QUERY:
			hits += ops->contains_key(&f->s, &keys[i], 8);
			break;
		case BS_QUERY_OLD:
			h = memfilter_key_hash(ops, &f->s, &keys[i], 8);
			ops->contains(&f->s, &h, 1, &res);
			hits += res;
			break;
		case BS_TAS:
			hits += ops->test_and_add_key(&f->s, &keys[i], 8);
			break;
		case BS_TAS_OLD:
			h = memfilter_key_hash(ops, &f->s, &keys[i], 8);
			ops->test_and_add(&f->s, &h, 1, &res, &done);
			hits += res;
			break;
		}
	}
	bs_sink += hits;
	return (bench_now_ns() - t0) / n;
}

static inline int bs_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static inline double bs_median(double *v, int n)
{
	qsort(v, n, sizeof(*v), bs_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One contender of a row: a filter, an op, its keys; out: the median. */
struct bs_cell {
	struct bs_filter *f;
	enum bs_op op;
	const u64 *keys;	/* @n keys, or @reps * @n for test-and-add */
	double t[32];
	double median;
};

/*
 * A row's keys: @nfill to fill with, @nq present (the caller picks them)
 * and absent ones, and @reps * @nq fresh ones for each test-and-add.
 */
struct bs_keys {
	u64 *fill, *present, *absent, *fresh, *fresh_old;
};

static inline void bs_keys_make(struct bs_keys *k, size_t nfill, size_t nq,
				int reps)
{
	k->fill = bench_hashes(nfill, 0);
	k->present = bench_hashes(nq, 1);
	k->absent = bench_hashes(nq, 2);
	k->fresh = bench_hashes(nq * reps, 3);
	k->fresh_old = bench_hashes(nq * reps, 4);
}

static inline void bs_keys_free(struct bs_keys *k)
{
	free(k->fill);
	free(k->present);
	free(k->absent);
	free(k->fresh);
	free(k->fresh_old);
}

/* The cells of a row, in this order: BS_CELLS of them. */
enum { BS_REF_ABSENT, BS_ABSENT, BS_ABSENT_OLD, BS_REF_PRESENT, BS_PRESENT,
       BS_PRESENT_OLD, BS_TAS_FRESH, BS_TAS_FRESH_OLD, BS_CELLS };

/*
 * A row's cells: the reference filter @ref's query, then @f's query, new
 * and old, of @k's absent keys, the same of its present keys, and @f's
 * test-and-add, new and old, of its fresh keys.
 */
static inline void bs_cells(struct bs_cell *c, struct bs_filter *ref,
			    struct bs_filter *f, const struct bs_keys *k)
{
	const struct bs_cell row[BS_CELLS] = {
		{ ref, BS_QUERY, k->absent }, { f, BS_QUERY, k->absent },
		{ f, BS_QUERY_OLD, k->absent },
		{ ref, BS_QUERY, k->present }, { f, BS_QUERY, k->present },
		{ f, BS_QUERY_OLD, k->present },
		{ f, BS_TAS, k->fresh }, { f, BS_TAS_OLD, k->fresh_old },
	};

	memcpy(c, row, sizeof(row));
}

/*
 * @reps runs of every cell, in turn (cell 0, 1, ..., then again), so that
 * a noisy moment hits them all alike; each cell's median. Test-and-add
 * cells take fresh keys every run.
 */
static inline void bs_run(struct bs_cell *c, int ncells, size_t n, int reps)
{
	for (int r = 0; r < reps; r++) {
		for (int i = 0; i < ncells; i++) {
			const u64 *k = c[i].keys;

			if (c[i].op == BS_TAS || c[i].op == BS_TAS_OLD)
				k += r * n;
			c[i].t[r] = bs_time(c[i].f, c[i].op, k, n);
		}
	}
	for (int i = 0; i < ncells; i++)
		c[i].median = bs_median(c[i].t, reps);
}

#endif /* _MEMFILTER_BENCH_SINGLE_H */
