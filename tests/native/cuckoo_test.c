// SPDX-License-Identifier: GPL-2.0
/*
 * Native tests of the cuckoo filter (core/cuckoo.c), built with ASan and
 * UBSan from the module's own source: no false negatives, delete and
 * duplicate semantics, failed inserts that lose nothing, load reached
 * before the first failure, measured false-positive rates against the
 * model, parameter errors, and lockless readers racing one writer.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuckoo.h"
#include "filter_type.h"
#include "image.h"
#include "kselftest_harness.h"

static const u32 widths[] = { 8, 12, 16 };

/* Distinct 64-bit hashes: splitmix64 is a bijection of its counter. */
static u64 hash_of(u64 i)
{
	u64 z = i * 0x9e3779b97f4a7c15ULL + 0x1234567ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Absent keys: a disjoint range of the same bijection. */
#define ABSENT	(1ULL << 60)

struct filter {
	struct memfilter_cuckoo c;
	void *mem;
	u64 bytes;
};

/*
 * A power of two of buckets gets the first layout (power of two, XOR),
 * any other count the second (any count, (t - i) mod n): the tests that
 * take a list of bucket counts cover both.
 */
static void filter_new(struct filter *f, u64 nbuckets, u32 fp_bits)
{
	struct memfilter_cuckoo_params p;

	if (memfilter_cuckoo_params_init(&p, 1, fp_bits))
		abort();
	p.nbuckets = nbuckets;
	p.layout = nbuckets & (nbuckets - 1) ? MEMFILTER_CUCKOO_LAYOUT_MOD :
		   MEMFILTER_CUCKOO_LAYOUT_POW2;
	p.capacity = nbuckets * MEMFILTER_CUCKOO_SLOTS;
	f->bytes = memfilter_cuckoo_mem_bytes(&p);
	if (!f->bytes)
		abort();
	f->mem = aligned_alloc(64, f->bytes);
	if (!f->mem)
		abort();
	memset(f->mem, 0, f->bytes);
	memfilter_cuckoo_init(&f->c, &p, f->mem);
}

/* Keys of @hashes a batch lookup says are absent. */
static u64 batch_misses(struct filter *f, const u64 *hashes, u64 n)
{
	unsigned long *bits = calloc(n / 64 + 1, sizeof(*bits));
	u64 misses = 0;

	if (!bits)
		abort();
	memfilter_cuckoo_contains_hashes(&f->c, hashes, n, bits);
	for (u64 i = 0; i < n; i++)
		misses += !(bits[i / 64] >> (i % 64) & 1);
	free(bits);
	return misses;
}

static void filter_free(struct filter *f)
{
	free(f->mem);
}

static u64 table_bytes(const struct filter *f)
{
	return f->c.p.nbuckets * f->c.bucket_bytes;
}

/* 1 - (1 - 1/r)^n without libm: exp(n * log(1 - 1/r)) by series. */
static double model_fpr(double n, double r)
{
	double p = 1 / r, l = 0, term = p, e = 1, t = 1;

	for (int k = 1; k < 30; k++, term *= p)
		l -= term / k;
	for (int k = 1; k < 40; k++) {
		t *= n * l / k;
		e += t;
	}
	return 1 - e;
}

TEST(params_errors)
{
	struct memfilter_cuckoo_params p;

	EXPECT_EQ(-EINVAL, memfilter_cuckoo_params_init(&p, 0, 8));
	EXPECT_EQ(-EINVAL, memfilter_cuckoo_params_init(&p, 100, 0));
	EXPECT_EQ(-EINVAL, memfilter_cuckoo_params_init(&p, 100, 7));
	EXPECT_EQ(-EINVAL, memfilter_cuckoo_params_init(&p, 100, 10));
	EXPECT_EQ(-EINVAL, memfilter_cuckoo_params_init(&p, 100, 32));
	EXPECT_EQ(-E2BIG, memfilter_cuckoo_params_init(&p, ~0ULL, 8));
	EXPECT_EQ(-E2BIG, memfilter_cuckoo_params_init(&p, 1ULL << 42, 16));
	/* 2^39 keys at 16 bits: 2^38 buckets of 8 bytes, 2 TiB. */
	EXPECT_EQ(-E2BIG, memfilter_cuckoo_params_init(&p, 1ULL << 39, 16));
	ASSERT_EQ(0, memfilter_cuckoo_params_init(&p, 1ULL << 37, 8));
	EXPECT_GE(MEMFILTER_CUCKOO_MAX_BYTES, memfilter_cuckoo_mem_bytes(&p));

	EXPECT_EQ(-EINVAL, memfilter_cuckoo_params_from_fpr(&p, 100, 0));
	EXPECT_EQ(-EINVAL, memfilter_cuckoo_params_from_fpr(&p, 100,
							    1000000001));
	EXPECT_EQ(-EINVAL, memfilter_cuckoo_params_from_fpr(&p, 100, 122070));
	EXPECT_EQ(-EINVAL, memfilter_cuckoo_params_from_fpr(&p, 0, 1000000));

	/* mem_bytes() refuses what init() cannot take. */
	ASSERT_EQ(0, memfilter_cuckoo_params_init(&p, 1000, 12));
	p.nbuckets = 1000;
	EXPECT_NE(0, memfilter_cuckoo_mem_bytes(&p));
	p.layout = MEMFILTER_CUCKOO_LAYOUT_POW2;
	EXPECT_EQ(0, memfilter_cuckoo_mem_bytes(&p));
	p.nbuckets = 1024;
	EXPECT_NE(0, memfilter_cuckoo_mem_bytes(&p));
	p.layout = MEMFILTER_CUCKOO_LAYOUT_MOD + 1;
	EXPECT_EQ(0, memfilter_cuckoo_mem_bytes(&p));
	p.layout = MEMFILTER_CUCKOO_LAYOUT_MOD;
	p.nbuckets = 0;
	EXPECT_EQ(0, memfilter_cuckoo_mem_bytes(&p));
	p.nbuckets = 256;
	p.fp_bits = 4;
	EXPECT_EQ(0, memfilter_cuckoo_mem_bytes(&p));
	p.fp_bits = 12;
	p.max_kicks = MEMFILTER_CUCKOO_MAX_KICKS + 1;
	EXPECT_EQ(0, memfilter_cuckoo_mem_bytes(&p));
}

TEST(params_sizing)
{
	static const u64 caps[] = { 1, 3, 4, 5, 95, 96, 97, 1000, 65536,
				    999999, 1000000, 123456789 };
	struct memfilter_cuckoo_params p;

	for (unsigned int w = 0; w < ARRAY_SIZE(widths); w++) {
		for (unsigned int i = 0; i < ARRAY_SIZE(caps); i++) {
			u64 c = caps[i], nb;

			ASSERT_EQ(0, memfilter_cuckoo_params_init(&p, c,
								  widths[w]));
			nb = p.nbuckets;
			EXPECT_EQ(MEMFILTER_CUCKOO_LAYOUT_MOD, p.layout);
			EXPECT_EQ(c, p.capacity);
			EXPECT_EQ(widths[w], p.fp_bits);
			EXPECT_EQ(MEMFILTER_CUCKOO_DEFAULT_KICKS, p.max_kicks);
			EXPECT_EQ(MEMFILTER_HASH_XXH64, p.hasher.algo);
			/*
			 * Load at capacity <= 95%, and one bucket less would
			 * not do: the table is f / 0.95 bits per key, rounded
			 * up to a whole bucket (within 5% of that from 80 keys).
			 */
			EXPECT_LE(c * 100, nb * 4 * MEMFILTER_CUCKOO_TARGET_LOAD);
			EXPECT_GT(c * 100, (nb - 1) * 4 *
				  MEMFILTER_CUCKOO_TARGET_LOAD);
			if (c >= 80)
				EXPECT_LE(nb * 4 * widths[w] * 95 * 100,
					  c * widths[w] * 100 * 105);
			/* Table, stripes and scratch, and not much more. */
			EXPECT_GE(memfilter_cuckoo_mem_bytes(&p),
				  nb * widths[w] / 2);
			EXPECT_LE(memfilter_cuckoo_mem_bytes(&p),
				  nb * widths[w] / 2 * 103 / 100 + 16384);
		}
	}

	/* Narrowest width whose 2b/2^f is within the target. */
	EXPECT_EQ(-EINVAL, memfilter_cuckoo_params_from_fpr(&p, 1000, 1000000000));
	ASSERT_EQ(0, memfilter_cuckoo_params_from_fpr(&p, 1000, 999999999));
	EXPECT_EQ(8, p.fp_bits);
	ASSERT_EQ(0, memfilter_cuckoo_params_from_fpr(&p, 1000, 31250000));
	EXPECT_EQ(8, p.fp_bits);
	ASSERT_EQ(0, memfilter_cuckoo_params_from_fpr(&p, 1000, 31249999));
	EXPECT_EQ(12, p.fp_bits);
	ASSERT_EQ(0, memfilter_cuckoo_params_from_fpr(&p, 1000, 1953125));
	EXPECT_EQ(12, p.fp_bits);
	ASSERT_EQ(0, memfilter_cuckoo_params_from_fpr(&p, 1000, 1953124));
	EXPECT_EQ(16, p.fp_bits);
	ASSERT_EQ(0, memfilter_cuckoo_params_from_fpr(&p, 1000, 122071));
	EXPECT_EQ(16, p.fp_bits);
}

/* Capacity-sized filters: 1 M keys, never a false negative. */
TEST(no_false_negatives_1m)
{
	const u64 n = 1000000;
	static u64 hashes[1000000];
	static unsigned long bits[1000000 / 64 + 1];

	for (u64 i = 0; i < n; i++)
		hashes[i] = hash_of(i);
	for (unsigned int w = 0; w < ARRAY_SIZE(widths); w++) {
		struct memfilter_cuckoo_params p;
		struct memfilter_cuckoo_snapshot s;
		struct filter f;

		ASSERT_EQ(0, memfilter_cuckoo_params_init(&p, n, widths[w]));
		f.bytes = memfilter_cuckoo_mem_bytes(&p);
		f.mem = aligned_alloc(64, f.bytes);
		ASSERT_NE(NULL, f.mem);
		memset(f.mem, 0, f.bytes);
		memfilter_cuckoo_init(&f.c, &p, f.mem);
		for (u64 i = 0; i < n; i++)
			ASSERT_EQ(0, memfilter_cuckoo_add_hash(&f.c, hashes[i]));
		for (u64 i = 0; i < n; i++) {
			ASSERT_TRUE(memfilter_cuckoo_contains_hash(&f.c,
								   hashes[i]));
			ASSERT_LE(1, memfilter_cuckoo_count_hash(&f.c,
								 hashes[i]));
		}
		memset(bits, 0, sizeof(bits));
		memfilter_cuckoo_contains_hashes(&f.c, hashes, n, bits);
		for (u64 i = 0; i < n; i++)
			ASSERT_TRUE(bits[i / 64] >> (i % 64) & 1);
		memfilter_cuckoo_stats(&f.c, &s);
		EXPECT_EQ(n, s.items);
		EXPECT_EQ(n, s.slots_used + s.stash_used);
		EXPECT_EQ(p.nbuckets * 4, s.slots);
		EXPECT_EQ(0, s.failed_inserts);
		filter_free(&f);
	}
}

/*
 * Measured FPR on 1 M keys at 95.4% load (2^18 buckets) against the model
 * 1 - (1 - 1/(2^f - 1))^(2b * load): fingerprints are uniform over 2^f - 1
 * non-zero values, and an absent key is compared with the 2b * load
 * occupied slots of its two buckets on average. Within 10% of that model,
 * within 15% of the bound 2b / 2^f, and the filter's own estimate within
 * 2% of the model.
 */
TEST(fpr_1m)
{
	/* 95.4% load in 2^18 buckets, 95.0% in 263157 (the second layout). */
	static const u64 nbs[] = { 1 << 18, 263157 };
	const u64 n = 1000000;

	for (unsigned int w = 0; w < ARRAY_SIZE(widths); w++) {
		u32 fbits = widths[w];
		u64 queries = fbits == 16 ? 8000000 : 2000000, fp = 0;
		struct memfilter_cuckoo_snapshot s;
		double load, model, bound, measured;
		struct filter f;

		filter_new(&f, nbs[w % 2], fbits);
		for (u64 i = 0; i < n; i++)
			ASSERT_EQ(0, memfilter_cuckoo_add_hash(&f.c, hash_of(i)));
		for (u64 i = 0; i < queries; i++)
			fp += memfilter_cuckoo_contains_hash(&f.c,
							     hash_of(ABSENT + i));
		memfilter_cuckoo_stats(&f.c, &s);
		load = (double)s.slots_used / s.slots;
		model = model_fpr(2 * 4 * load, (1 << fbits) - 1);
		bound = 8.0 / (1 << fbits);
		measured = (double)fp / queries;
		TH_LOG("f=%u load %.4f measured %.6f model %.6f 2b/2^f %.6f est %.6f",
		       fbits, load, measured, model, bound,
		       s.est_fpr_ppb / 1e9);
		EXPECT_GE(load, 0.95);
		EXPECT_LT(measured, model * 1.10);
		EXPECT_GT(measured, model * 0.90);
		EXPECT_LT(measured, bound * 1.15);
		EXPECT_GT(measured, bound * 0.85);
		EXPECT_LT(s.est_fpr_ppb / 1e9, model * 1.02);
		EXPECT_GT(s.est_fpr_ppb / 1e9, model * 0.98);
		filter_free(&f);
	}
}

/*
 * Fill until the first -ENOSPC: at least 95% of the slots are used by
 * then, the failed insert changed not one byte, and every key added is
 * still there; further adds keep that true.
 */
TEST(fill_to_failure_loses_nothing)
{
	static const u64 sizes[] = { 1 << 10, 1000, 1 << 14, 16411, 1 << 16,
				     65521 };

	for (unsigned int w = 0; w < ARRAY_SIZE(widths); w++) {
		for (unsigned int z = 0; z < ARRAY_SIZE(sizes); z++) {
			u64 nb = sizes[z], added = 0, i, failed = 0, first_fail;
			struct memfilter_cuckoo_snapshot s;
			struct filter f;
			u8 *copy;
			u64 *keys, stash;
			int ret;

			filter_new(&f, nb, widths[w]);
			keys = calloc(nb * 4 + 1, sizeof(*keys));
			copy = malloc(table_bytes(&f));
			ASSERT_NE(NULL, keys);
			ASSERT_NE(NULL, copy);
			/*
			 * Find the first key that fails, then replay up to it
			 * on a new filter (adds are deterministic) and keep a
			 * copy of the table just before it: one copy instead
			 * of one per add.
			 */
			for (i = 0; !memfilter_cuckoo_add_hash(&f.c, hash_of(i));
			     i++)
				;
			first_fail = i;
			filter_free(&f);
			filter_new(&f, nb, widths[w]);
			for (i = 0; i < first_fail; i++) {
				ASSERT_EQ(0, memfilter_cuckoo_add_hash(&f.c,
								       hash_of(i)));
				keys[added++] = hash_of(i);
			}
			memcpy(copy, f.c.table, table_bytes(&f));
			stash = f.c.stash;
			ret = memfilter_cuckoo_add_hash(&f.c, hash_of(i));
			ASSERT_EQ(-ENOSPC, ret);
			ASSERT_EQ(0, memcmp(copy, f.c.table, table_bytes(&f)));
			ASSERT_EQ(stash, f.c.stash);
			memfilter_cuckoo_stats(&f.c, &s);
			TH_LOG("f=%u buckets %llu: first failure at load %.4f, %llu kicks",
			       widths[w], (unsigned long long)nb,
			       (double)s.slots_used / s.slots,
			       (unsigned long long)s.kicks);
			EXPECT_GE(s.slots_used * 100, s.slots * 95);
			EXPECT_EQ(1, s.stash_used);
			EXPECT_EQ(added, s.items);
			EXPECT_EQ(1, s.failed_inserts);
			for (u64 k = 0; k < added; k++)
				ASSERT_TRUE(memfilter_cuckoo_contains_hash(&f.c,
									   keys[k]));
			/* A batch finds them all too, the stashed key included. */
			ASSERT_EQ(0, batch_misses(&f, keys, added));
			/* Keep hammering the full filter. */
			for (u64 k = 0; k < 2000; k++) {
				ret = memfilter_cuckoo_add_hash(&f.c,
								hash_of(++i));
				if (ret == -ENOSPC) {
					failed++;
					continue;
				}
				ASSERT_EQ(0, ret);
				keys[added++] = hash_of(i);
				ASSERT_LE(added, nb * 4 + 1);
			}
			memfilter_cuckoo_stats(&f.c, &s);
			EXPECT_EQ(1 + failed, s.failed_inserts);
			EXPECT_EQ(added, s.items);
			for (u64 k = 0; k < added; k++)
				ASSERT_TRUE(memfilter_cuckoo_contains_hash(&f.c,
									   keys[k]));
			/* Delete everything: the filter ends up empty. */
			for (u64 k = 0; k < added; k++)
				ASSERT_EQ(0, memfilter_cuckoo_delete_hash(&f.c,
									  keys[k]));
			memfilter_cuckoo_stats(&f.c, &s);
			EXPECT_EQ(0, s.items);
			EXPECT_EQ(0, s.stash_used);
			for (u64 k = 0; k < table_bytes(&f); k++)
				ASSERT_EQ(0, f.c.table[k]);
			free(copy);
			free(keys);
			filter_free(&f);
		}
	}
}

/* Find a key whose two buckets differ; start the search at @from. */
static u64 key_with_two_buckets(const struct filter *f, u64 from)
{
	for (;; from++) {
		u64 h = hash_of(from), i1, i2;
		u32 fp;

		memfilter_cuckoo_locate(&f->c, h, &i1, &i2, &fp);
		if (i1 != i2)
			return h;
	}
}

TEST(duplicates_up_to_2b_plus_stash)
{
	for (unsigned int w = 0; w < ARRAY_SIZE(widths); w++) {
		struct filter f;
		u8 *copy;
		u64 h;

		filter_new(&f, w == 1 ? 61 : 64, widths[w]);
		h = key_with_two_buckets(&f, 7);
		/* 4 + 4 slots of its two buckets, then the stash. */
		for (u32 k = 1; k <= 2 * MEMFILTER_CUCKOO_SLOTS + 1; k++) {
			ASSERT_EQ(0, memfilter_cuckoo_add_hash(&f.c, h));
			ASSERT_EQ(k, memfilter_cuckoo_count_hash(&f.c, h));
		}
		/* Past the limit: refused, and nothing changes. */
		copy = malloc(table_bytes(&f));
		ASSERT_NE(NULL, copy);
		memcpy(copy, f.c.table, table_bytes(&f));
		EXPECT_EQ(-ENOSPC, memfilter_cuckoo_add_hash(&f.c, h));
		EXPECT_EQ(-EEXIST, memfilter_cuckoo_add_unique_hash(&f.c, h));
		EXPECT_EQ(0, memcmp(copy, f.c.table, table_bytes(&f)));
		EXPECT_EQ(9, memfilter_cuckoo_count_hash(&f.c, h));
		/* Other keys still go in (their buckets are elsewhere). */
		EXPECT_EQ(0, memfilter_cuckoo_add_hash(&f.c, hash_of(1000)));
		EXPECT_EQ(0, memfilter_cuckoo_delete_hash(&f.c, hash_of(1000)));
		for (u32 k = 2 * MEMFILTER_CUCKOO_SLOTS + 1; k > 0; k--) {
			ASSERT_TRUE(memfilter_cuckoo_contains_hash(&f.c, h));
			ASSERT_EQ(0, memfilter_cuckoo_delete_hash(&f.c, h));
			ASSERT_EQ(k - 1, memfilter_cuckoo_count_hash(&f.c, h));
		}
		EXPECT_FALSE(memfilter_cuckoo_contains_hash(&f.c, h));
		EXPECT_EQ(-ENOENT, memfilter_cuckoo_delete_hash(&f.c, h));
		EXPECT_EQ(0, f.c.stash);
		free(copy);
		filter_free(&f);
	}
}

TEST(delete_semantics)
{
	const u64 n = 20000;

	for (unsigned int w = 0; w < ARRAY_SIZE(widths); w++) {
		struct memfilter_cuckoo_snapshot s;
		struct filter f;
		u64 i, absent_deleted = 0;
		u8 *copy;

		filter_new(&f, w == 1 ? 8000 : 8192, widths[w]);
		for (i = 0; i < n; i++)
			ASSERT_EQ(0, memfilter_cuckoo_add_hash(&f.c, hash_of(i)));
		/* Deleting keys never added: -ENOENT changes nothing. */
		copy = malloc(table_bytes(&f));
		ASSERT_NE(NULL, copy);
		memcpy(copy, f.c.table, table_bytes(&f));
		for (i = 0; i < 20000; i++) {
			u64 h = hash_of(ABSENT + i);

			if (memfilter_cuckoo_contains_hash(&f.c, h))
				continue;	/* a false positive would delete */
			ASSERT_EQ(-ENOENT, memfilter_cuckoo_delete_hash(&f.c, h));
			absent_deleted++;
		}
		EXPECT_EQ(0, memcmp(copy, f.c.table, table_bytes(&f)));
		EXPECT_LT(19000, absent_deleted);
		/* Delete the even keys: each count drops by one. */
		for (i = 0; i < n; i += 2) {
			u32 before = memfilter_cuckoo_count_hash(&f.c, hash_of(i));

			ASSERT_EQ(0, memfilter_cuckoo_delete_hash(&f.c, hash_of(i)));
			ASSERT_EQ(before - 1,
				  memfilter_cuckoo_count_hash(&f.c, hash_of(i)));
		}
		for (i = 1; i < n; i += 2)
			ASSERT_TRUE(memfilter_cuckoo_contains_hash(&f.c, hash_of(i)));
		memfilter_cuckoo_stats(&f.c, &s);
		EXPECT_EQ(n / 2, s.items);
		free(copy);
		filter_free(&f);
	}
}

/*
 * The delete contract: only delete keys you added. A key never added that
 * has the same fingerprint and buckets as an added one is indistinguishable
 * from it, so deleting it removes the added key: a false negative.
 */
TEST(delete_of_never_added_key_can_remove_another)
{
	struct filter f;
	u64 a, b = 0, i;

	filter_new(&f, 16, 8);
	a = hash_of(1);
	ASSERT_EQ(0, memfilter_cuckoo_add_hash(&f.c, a));
	for (i = 2; i < 10000000; i++) {
		b = hash_of(i);
		if (memfilter_cuckoo_contains_hash(&f.c, b))
			break;
	}
	ASSERT_LT(i, 10000000);
	ASSERT_EQ(0, memfilter_cuckoo_delete_hash(&f.c, b));
	EXPECT_FALSE(memfilter_cuckoo_contains_hash(&f.c, a));
	filter_free(&f);
}

TEST(add_unique)
{
	struct filter f;
	u64 h;

	filter_new(&f, 1024, 16);
	h = hash_of(42);
	EXPECT_EQ(0, memfilter_cuckoo_add_unique_hash(&f.c, h));
	EXPECT_EQ(-EEXIST, memfilter_cuckoo_add_unique_hash(&f.c, h));
	EXPECT_EQ(1, memfilter_cuckoo_count_hash(&f.c, h));
	EXPECT_EQ(0, memfilter_cuckoo_add_hash(&f.c, h));
	EXPECT_EQ(2, memfilter_cuckoo_count_hash(&f.c, h));
	EXPECT_EQ(0, memfilter_cuckoo_delete_hash(&f.c, h));
	EXPECT_EQ(0, memfilter_cuckoo_delete_hash(&f.c, h));
	EXPECT_EQ(0, memfilter_cuckoo_add_unique_hash(&f.c, h));
	/* Many distinct keys: each goes in once. */
	for (u64 i = 100; i < 3000; i++) {
		int ret = memfilter_cuckoo_add_unique_hash(&f.c, hash_of(i));

		ASSERT_TRUE(ret == 0 || ret == -EEXIST);
		ASSERT_EQ(-EEXIST,
			  memfilter_cuckoo_add_unique_hash(&f.c, hash_of(i)));
	}
	filter_free(&f);
}

TEST(key_api_and_clear)
{
	static const u64 sipkey[2] = { 0x0706050403020100ULL,
				       0x0f0e0d0c0b0a0908ULL };
	struct memfilter_cuckoo_params p;
	struct memfilter_cuckoo_snapshot s;
	char key[32];
	void *mem;
	struct memfilter_cuckoo c;

	ASSERT_EQ(0, memfilter_cuckoo_params_from_fpr(&p, 5000, 1000000));
	ASSERT_EQ(16, p.fp_bits);
	ASSERT_EQ(0, memfilter_hasher_init(&p.hasher, MEMFILTER_HASH_SIPHASH24, 0,
					   sipkey));
	mem = aligned_alloc(64, memfilter_cuckoo_mem_bytes(&p));
	ASSERT_NE(NULL, mem);
	memset(mem, 0, memfilter_cuckoo_mem_bytes(&p));
	memfilter_cuckoo_init(&c, &p, mem);
	for (int i = 0; i < 5000; i++) {
		int len = snprintf(key, sizeof(key), "key-%d", i);

		ASSERT_EQ(0, memfilter_cuckoo_add_key(&c, key, len));
		ASSERT_EQ(memfilter_hash(&p.hasher, key, len) & c.mask,
			  memfilter_hash(&c.p.hasher, key, len) & c.mask);
	}
	for (int i = 0; i < 5000; i++) {
		int len = snprintf(key, sizeof(key), "key-%d", i);

		ASSERT_TRUE(memfilter_cuckoo_contains_key(&c, key, len));
		ASSERT_TRUE(memfilter_cuckoo_contains_hash(&c,
							   memfilter_hash(&p.hasher, key, len)));
		ASSERT_LE(1, memfilter_cuckoo_count_key(&c, key, len));
		ASSERT_EQ(-EEXIST,
			  memfilter_cuckoo_add_unique_key(&c, key, len));
	}
	ASSERT_EQ(0, memfilter_cuckoo_delete_key(&c, "key-7", 5));
	EXPECT_EQ(0, memfilter_cuckoo_add_unique_key(&c, "key-7", 5));
	memfilter_cuckoo_clear(&c);
	memfilter_cuckoo_stats(&c, &s);
	EXPECT_EQ(0, s.items);
	EXPECT_EQ(0, s.slots_used);
	EXPECT_EQ(0, s.est_fpr_ppb);
	for (int i = 0; i < 5000; i++) {
		int len = snprintf(key, sizeof(key), "key-%d", i);

		ASSERT_FALSE(memfilter_cuckoo_contains_key(&c, key, len));
	}
	free(mem);
}

/*
 * The key API hashes 8-byte keys under XXH64 and XXH3 inline and the rest
 * (SipHash, other lengths) out of line: each gives memfilter_hash()'s
 * value, so it answers as the hash API, key for key, under every hasher,
 * width and layout.
 */
/* Key @i as 8 bytes (@k8) and as 2..23 bytes (@key); returns the latter's length. */
static size_t key_of(u64 v, u64 i, u64 *k8, u8 key[24])
{
	*k8 = v;
	memcpy(key, &v, 8);
	memcpy(key + 8, &v, 8);
	memcpy(key + 16, &v, 8);
	return 2 + i % 22;
}

static void check_key_api(struct __test_metadata *_metadata, u32 algo,
			  u32 fp_bits, u64 nb)
{
	static const u64 sipkey[2] = { 0x0706050403020100ULL,
				       0x0f0e0d0c0b0a0908ULL };
	u64 k8, positives_key = 0, positives_hash = 0;
	struct filter f;
	u8 key[24];
	size_t len;

	filter_new(&f, nb, fp_bits);
	ASSERT_EQ(0, memfilter_hasher_init(&f.c.p.hasher, algo, 5, sipkey));
	for (u64 i = 0; i < 3000; i++) {
		len = key_of(hash_of(i), i, &k8, key);
		ASSERT_EQ(0, i % 2 ? memfilter_cuckoo_add_key(&f.c, &k8, 8) :
			  memfilter_cuckoo_add_key(&f.c, key, len));
	}
	for (u64 i = 0; i < 3000; i++) {
		len = key_of(hash_of(i), i, &k8, key);
		ASSERT_TRUE(i % 2 ? memfilter_cuckoo_contains_key(&f.c, &k8, 8) :
			    memfilter_cuckoo_contains_key(&f.c, key, len));
		ASSERT_TRUE(memfilter_cuckoo_contains_hash(&f.c,
				i % 2 ? memfilter_hash(&f.c.p.hasher, &k8, 8) :
				memfilter_hash(&f.c.p.hasher, key, len)));
	}
	for (u64 i = 0; i < 20000; i++) {
		len = key_of(hash_of(ABSENT + i), i, &k8, key);
		ASSERT_EQ(memfilter_cuckoo_contains_hash(&f.c,
				memfilter_hash(&f.c.p.hasher, &k8, 8)),
			  memfilter_cuckoo_contains_key(&f.c, &k8, 8));
		ASSERT_EQ(memfilter_cuckoo_count_hash(&f.c,
				memfilter_hash(&f.c.p.hasher, key, len)),
			  memfilter_cuckoo_count_key(&f.c, key, len));
		positives_key += memfilter_cuckoo_contains_key(&f.c, key, len);
		positives_hash += memfilter_cuckoo_contains_hash(&f.c,
				memfilter_hash(&f.c.p.hasher, key, len));
	}
	EXPECT_EQ(positives_hash, positives_key);
	filter_free(&f);
}

TEST(key_api_matches_hash_api_every_hasher)
{
	static const u32 algos[] = { MEMFILTER_HASH_XXH64, MEMFILTER_HASH_XXH3,
				     MEMFILTER_HASH_SIPHASH24 };

	for (int a = 0; a < 3; a++)
		for (int w = 0; w < 3; w++) {
			check_key_api(_metadata, algos[a], widths[w], 1024);
			check_key_api(_metadata, algos[a], widths[w], 1000);
		}
}

/* Batch lookups agree with single ones, for any length and offset. */
static void check_batch_matches_single(struct __test_metadata *_metadata, u64 nb)
{
	static u64 hashes[3000];
	unsigned long bits[3000 / 64 + 2];
	struct filter f;

	filter_new(&f, nb, 12);
	for (u64 i = 0; i < 1500; i++)
		ASSERT_EQ(0, memfilter_cuckoo_add_hash(&f.c, hash_of(i)));
	for (u64 i = 0; i < 3000; i++)
		hashes[i] = hash_of(i % 2 ? i / 2 : ABSENT + i);
	for (size_t n = 0; n < 200; n += 7) {
		memset(bits, 0xa5, sizeof(bits));
		memfilter_cuckoo_contains_hashes(&f.c, hashes + n, 3000 - n,
						 bits);
		for (size_t i = 0; i < 3000 - n; i++)
			ASSERT_EQ(memfilter_cuckoo_contains_hash(&f.c,
								 hashes[n + i]),
				  !!(bits[i / 64] >> (i % 64) & 1));
	}
	filter_free(&f);
}

TEST(batch_matches_single)
{
	check_batch_matches_single(_metadata, 512);
	check_batch_matches_single(_metadata, 500);
}

/* --- lockless readers against one writer ------------------------------ */

#define STABLE		1500

struct race {
	struct filter f;
	bool batch_only;	/* readers run batch lookups alone */
	atomic_bool done;
	atomic_ulong misses;
	atomic_ulong reads;
};

static void *reader(void *arg)
{
	struct race *r = arg;
	static _Thread_local u64 hashes[STABLE];
	unsigned long bits[STABLE / 64 + 1];
	unsigned long misses = 0, reads = 0;

	for (u64 i = 0; i < STABLE; i++)
		hashes[i] = hash_of(i);
	while (!atomic_load(&r->done)) {
		for (u64 i = 0; i < STABLE && !r->batch_only; i++) {
			misses += !memfilter_cuckoo_contains_hash(&r->f.c,
								  hashes[i]);
			misses += !memfilter_cuckoo_count_hash(&r->f.c,
							       hashes[i]);
		}
		memfilter_cuckoo_contains_hashes(&r->f.c, hashes, STABLE, bits);
		for (u64 i = 0; i < STABLE; i++)
			misses += !(bits[i / 64] >> (i % 64) & 1);
		reads += (r->batch_only ? 1 : 3) * STABLE;
	}
	atomic_fetch_add(&r->misses, misses);
	atomic_fetch_add(&r->reads, reads);
	return NULL;
}

/*
 * A stable 37% of the table never changes while the writer fills the rest
 * to the first -ENOSPC (long cuckoo paths, the stash), then deletes what
 * it added (re-homing the stash), over and over. Readers check the stable
 * keys all the while: not one may be missing, ever.
 */
static void race_readers_writer(struct __test_metadata *_metadata, u64 nb,
				bool batch_only)
{
	static u64 churn[1024 * 4];
	struct memfilter_cuckoo_snapshot s;
	pthread_t th[2];
	struct race r = { .batch_only = batch_only };
	u64 next = 1 << 20, nchurn;

	ASSERT_GE(1024, nb);
	filter_new(&r.f, nb, 12);
	for (u64 i = 0; i < STABLE; i++)
		ASSERT_EQ(0, memfilter_cuckoo_add_hash(&r.f.c, hash_of(i)));
	for (int t = 0; t < 2; t++)
		ASSERT_EQ(0, pthread_create(&th[t], NULL, reader, &r));
	for (int round = 0; round < 150; round++) {
		nchurn = 0;
		for (;;) {
			u64 h = hash_of(next++);
			int ret = memfilter_cuckoo_add_hash(&r.f.c, h);

			if (ret == -ENOSPC)
				break;
			ASSERT_EQ(0, ret);
			churn[nchurn++] = h;
		}
		/* Delete in an order unlike the inserts. */
		for (u64 k = 0; k < nchurn; k++) {
			u64 j = (k * 7919) % nchurn;

			if (!churn[j]) {
				for (j = 0; !churn[j]; j++)
					;
			}
			ASSERT_EQ(0, memfilter_cuckoo_delete_hash(&r.f.c,
								  churn[j]));
			churn[j] = 0;
		}
	}
	atomic_store(&r.done, true);
	for (int t = 0; t < 2; t++)
		pthread_join(th[t], NULL);
	memfilter_cuckoo_stats(&r.f.c, &s);
	TH_LOG("%lu reads, %llu kicks, %llu failed inserts, %llu read retries, %llu reads gave up",
	       atomic_load(&r.reads), (unsigned long long)s.kicks,
	       (unsigned long long)s.failed_inserts,
	       (unsigned long long)s.read_retries,
	       (unsigned long long)s.read_busy);
	EXPECT_EQ(0, atomic_load(&r.misses));
	EXPECT_LT(0, atomic_load(&r.reads));
	EXPECT_LT(10000, s.kicks);
	EXPECT_EQ(STABLE, s.items);
	filter_free(&r.f);
}

/* Both layouts: a power of two of buckets, and not. */
TEST(readers_race_writer)
{
	race_readers_writer(_metadata, 1024, false);
}

TEST(readers_race_writer_any_size)
{
	race_readers_writer(_metadata, 1000, false);
}

/*
 * Batch lookups alone, whose chunks of 64 keys are validated by the
 * table's version rather than per key.
 */
TEST(batch_readers_race_writer)
{
	race_readers_writer(_metadata, 1024, true);
	race_readers_writer(_metadata, 1000, true);
}

/* --- images of both layouts ------------------------------------------- */

/*
 * An image written by the first layout's code (main at fdab15f, before the
 * second layout existed): memfilter_cuckoo_params_init(40, 8), XXH64 seed
 * 0, the 8-byte keys 0..39 added: 16 buckets, no layout flag.
 */
static const u8 old_image[] = {
	0x4d, 0x46, 0x4c, 0x54, 0x49, 0x4d, 0x47, 0x31, 0x01, 0x00, 0x80, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x28, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x51, 0xb9, 0x5d, 0x08, 0xf7, 0x5c, 0x5c, 0xa2, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x92, 0xbd, 0xfd, 0xf4, 0x37, 0x53, 0x5f, 0x7a, 0xea, 0x00, 0x00, 0x00,
	0x88, 0xfc, 0x00, 0x00, 0x19, 0x4d, 0x94, 0xa8, 0x9b, 0x05, 0x72, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x9f, 0x09, 0xd4, 0x00, 0x1f, 0x95, 0xca, 0x00,
	0x18, 0x00, 0x00, 0x00, 0x92, 0xa6, 0xe6, 0x3b, 0xa8, 0x70, 0x00, 0x00,
	0x31, 0x62, 0x00, 0x00, 0x35, 0x2c, 0xe7, 0xa7, 0xb1, 0x3d, 0x23, 0x00,
	0x8a, 0x1f, 0x00, 0x00, 0xf2, 0x3b, 0x00, 0x00, 0x7f, 0xb9, 0xc0, 0x1e
};

/* Its answers for the absent keys 1000..1255 (bit k - 1000), from that code. */
static const u64 old_answers[4] = { 0x0000004000000000ULL, 0, 0, 0 };

/*
 * The batch insert (the type's add operation: the ADD ioctl, kfuncs, dm)
 * stores exactly what one add_hash() per key stores, window after window,
 * up to and including the failure that stops it: same table bytes, stash
 * and count, the added keys' result bits set and no others, and done at
 * the failing key. Windows of 1, 17 (not a multiple of the ring) and 256
 * keys, every width, both layouts.
 */
TEST(batch_add_is_single_adds)
{
	static const u64 nbs[2] = { 1024, 1000 };
	static const u32 wins[3] = { 1, 17, 256 };

	/* Every (width, layout, window): t = (w * 2 + l) * 3 + x. */
	for (size_t t = 0; t < ARRAY_SIZE(widths) * 2 * 3; t++) {
		size_t w = t / 6, l = t / 3 % 2, x = t % 3;
		u64 slots = nbs[l] * MEMFILTER_CUCKOO_SLOTS, i = 0, n, h[256];
		struct memfilter_cuckoo_snapshot sa, sb;
		unsigned long bm[256 / 64];
		struct filter a, b;
		int ra = 0, rb = 0;
		u32 done, k;

		filter_new(&a, nbs[l], widths[w]);
		filter_new(&b, nbs[l], widths[w]);
		while (!rb) {
			n = wins[x];
			for (k = 0; k < n; k++)
				h[k] = hash_of(i + k);
			memset(bm, 0xa5, sizeof(bm));
			rb = memfilter_cuckoo_ops.add((union memfilter_state *)&b.c, h,
						      n, bm, &done);
			for (k = 0; k < n && !ra; k++) {
				ra = memfilter_cuckoo_add_hash(&a.c, h[k]);
				if (ra)
					break;
				ASSERT_TRUE(bm[k / 64] >> (k % 64) & 1);
			}
			ASSERT_EQ(ra, rb);
			ASSERT_EQ(k, done);
			/* Result bits of keys not added are left alone. */
			for (; k < n; k++)
				ASSERT_EQ(0xa5a5a5a5a5a5a5a5UL >> (k % 64) & 1,
					  bm[k / 64] >> (k % 64) & 1);
			i += n;
			ASSERT_LT(i, 2 * slots);
		}
		EXPECT_EQ(-ENOSPC, rb);
		EXPECT_EQ(0, memcmp(a.c.table, b.c.table, table_bytes(&a)));
		EXPECT_EQ(a.c.stash, b.c.stash);
		memfilter_cuckoo_stats(&a.c, &sa);
		memfilter_cuckoo_stats(&b.c, &sb);
		EXPECT_EQ(sa.items, sb.items);
		/* The failure came late: the table was nearly full. */
		EXPECT_GT(sb.items * 100, slots * 95);
		filter_free(&a);
		filter_free(&b);
	}
}

/*
 * A stepwise copy (dump_begin, steps, dump_end) is the table of the instant
 * it began, byte for byte, whatever the writer did meanwhile: adds that
 * find a free slot in a key's own buckets (the fast path), adds that kick
 * (path moves), deletes, and steps taken between them. Both layouts, every
 * width.
 */
TEST(dump_is_the_table_when_it_began)
{
	static const u64 nbs[] = { 1024, 1000 };

	for (size_t w = 0; w < ARRAY_SIZE(widths); w++) {
		for (size_t l = 0; l < ARRAY_SIZE(nbs); l++) {
			struct memfilter_table_copy d = {};
			struct filter f;
			u64 chunks, bytes, added, i, k = 0, stash;
			u8 *before;

			filter_new(&f, nbs[l], widths[w]);
			bytes = table_bytes(&f);
			chunks = memfilter_cuckoo_dump_chunks(&f.c);
			d.dst = calloc(chunks, MEMFILTER_CUCKOO_DUMP_CHUNK);
			d.copied = calloc(chunks / 64 + 1, sizeof(u64));
			before = malloc(bytes);
			ASSERT_TRUE(d.dst && d.copied && before);
			/* Half full: later adds mostly take the fast path. */
			added = nbs[l] * MEMFILTER_CUCKOO_SLOTS / 2;
			for (i = 0; i < added; i++)
				ASSERT_EQ(0, memfilter_cuckoo_add_hash(&f.c, hash_of(i)));
			memcpy(before, f.c.table, bytes);
			stash = f.c.stash;
			memfilter_cuckoo_dump_begin(&f.c, &d);
			/* To 90%: the last adds kick; deletes in between; steps too. */
			for (; i < nbs[l] * MEMFILTER_CUCKOO_SLOTS * 9 / 10; i++) {
				ASSERT_EQ(0, memfilter_cuckoo_add_hash(&f.c, hash_of(i)));
				if (!(i % 7))
					ASSERT_EQ(0, memfilter_cuckoo_delete_hash(&f.c,
										  hash_of(i / 2)));
				if (!(i % 97) && k < chunks)
					memfilter_cuckoo_dump_step(&f.c, k++);
			}
			for (k = 0; k < chunks; k++)
				memfilter_cuckoo_dump_step(&f.c, k);
			memfilter_cuckoo_dump_end(&f.c);
			EXPECT_EQ(0, memcmp(before, d.dst, bytes)) {
				TH_LOG("width %u, %llu buckets: the copy saw later writes",
				       widths[w], (unsigned long long)nbs[l]);
			}
			EXPECT_EQ(stash, d.stash);
			EXPECT_EQ(added, d.items);
			/* The writes did happen: the live table moved on. */
			EXPECT_NE(0, memcmp(before, f.c.table, bytes));
			free(before);
			free(d.dst);
			free(d.copied);
			filter_free(&f);
		}
	}
}

static void image_of(const union memfilter_state *st, u8 *img, size_t *len)
{
	const struct memfilter_type_ops *ops = memfilter_type_ops(MEMFILTER_TYPE_CUCKOO);
	struct memfilter_image_header h;
	struct memfilter_image_desc d;

	ops->image(st, 0, &d, img + MEMFILTER_IMAGE_HDR_SIZE);
	memfilter_image_header(&h, &d, img + MEMFILTER_IMAGE_HDR_SIZE);
	memcpy(img, &h, sizeof(h));
	*len = MEMFILTER_IMAGE_HDR_SIZE + d.payload_size;
}

/* Load an image into @st (memory in @mem, freed by the caller). */
static int image_load(const u8 *img, size_t len, union memfilter_state *st,
		      void **mem)
{
	struct memfilter_image_desc d;
	u64 bytes;
	int ret;

	ret = memfilter_image_parse(img, len, &d);
	if (ret)
		return ret;
	ret = memfilter_image_check_payload(&d, img + MEMFILTER_IMAGE_HDR_SIZE);
	if (ret)
		return ret;
	bytes = memfilter_cuckoo_mem_bytes(&d.params.cuckoo);
	*mem = aligned_alloc(64, (bytes + 63) & ~63ULL);
	if (!*mem)
		return -ENOMEM;
	memset(*mem, 0, bytes);
	memfilter_cuckoo_init(&st->cuckoo, &d.params.cuckoo, *mem);
	memcpy(st->cuckoo.table, img + MEMFILTER_IMAGE_HDR_SIZE, d.payload_size);
	return memfilter_cuckoo_restore(&st->cuckoo, d.stash, d.keys);
}

TEST(old_layout_image_loads_and_answers_the_same)
{
	unsigned long bits[256 / 64];
	union memfilter_state st;
	u8 img[sizeof(old_image)];
	u64 h[256], k;
	size_t len;
	void *mem;

	ASSERT_EQ(0, image_load(old_image, sizeof(old_image), &st, &mem));
	EXPECT_EQ(MEMFILTER_CUCKOO_LAYOUT_POW2, st.cuckoo.p.layout);
	EXPECT_EQ(16, st.cuckoo.p.nbuckets);
	EXPECT_EQ(8, st.cuckoo.p.fp_bits);
	for (k = 0; k < 40; k++)
		ASSERT_TRUE(memfilter_cuckoo_contains_key(&st.cuckoo, &k, 8));
	for (k = 1000; k < 1256; k++) {
		bool want = old_answers[(k - 1000) / 64] >> ((k - 1000) % 64) & 1;

		ASSERT_EQ(want, memfilter_cuckoo_contains_key(&st.cuckoo, &k, 8));
		h[k - 1000] = memfilter_hash(&st.cuckoo.p.hasher, &k, 8);
	}
	memfilter_cuckoo_contains_hashes(&st.cuckoo, h, 256, bits);
	for (k = 0; k < 4; k++)
		ASSERT_EQ(old_answers[k], (u64)bits[k]);
	/* Imaged again: the same bytes, still the first layout. */
	image_of(&st, img, &len);
	ASSERT_EQ(sizeof(old_image), len);
	EXPECT_EQ(0, memcmp(old_image, img, len));
	/* It still takes inserts and deletes in its own layout. */
	for (k = 0; k < 40; k++)
		ASSERT_EQ(0, memfilter_cuckoo_delete_key(&st.cuckoo, &k, 8));
	for (k = 0; k < (u64)st.cuckoo.p.nbuckets * 4; k++)
		ASSERT_EQ(0, st.cuckoo.table[k]);
	free(mem);
}

/*
 * New filters take the second layout, any bucket count, recorded in the
 * image; a round trip answers every key as before and keeps the bytes.
 */
TEST(new_layout_image_round_trip)
{
	static const u64 caps[] = { 40, 1000, 12345 };

	for (unsigned int w = 0; w < ARRAY_SIZE(widths); w++) {
		for (unsigned int i = 0; i < ARRAY_SIZE(caps); i++) {
			struct memfilter_cuckoo_params p;
			union memfilter_state a, b;
			u64 cap = caps[i], bytes, k;
			size_t len, len2;
			u8 *img, *img2;
			void *mem, *mem2;

			ASSERT_EQ(0, memfilter_cuckoo_params_init(&p, cap, widths[w]));
			ASSERT_EQ(MEMFILTER_CUCKOO_LAYOUT_MOD, p.layout);
			bytes = memfilter_cuckoo_mem_bytes(&p);
			mem = aligned_alloc(64, (bytes + 63) & ~63ULL);
			ASSERT_NE(NULL, mem);
			memset(mem, 0, bytes);
			memfilter_cuckoo_init(&a.cuckoo, &p, mem);
			for (k = 0; k < cap; k++)
				ASSERT_EQ(0, memfilter_cuckoo_add_key(&a.cuckoo, &k, 8));
			img = malloc(MEMFILTER_IMAGE_HDR_SIZE + bytes);
			img2 = malloc(MEMFILTER_IMAGE_HDR_SIZE + bytes);
			ASSERT_NE(NULL, img);
			ASSERT_NE(NULL, img2);
			image_of(&a, img, &len);
			EXPECT_TRUE(le32toh(((struct memfilter_image_header *)img)->flags) &
				    MEMFILTER_IMAGE_CUCKOO_MOD);
			ASSERT_EQ(0, image_load(img, len, &b, &mem2));
			EXPECT_EQ(MEMFILTER_CUCKOO_LAYOUT_MOD, b.cuckoo.p.layout);
			EXPECT_EQ(p.nbuckets, b.cuckoo.p.nbuckets);
			for (k = 0; k < cap + 5000; k++)
				ASSERT_EQ(memfilter_cuckoo_contains_key(&a.cuckoo, &k, 8),
					  memfilter_cuckoo_contains_key(&b.cuckoo, &k, 8));
			image_of(&b, img2, &len2);
			ASSERT_EQ(len, len2);
			EXPECT_EQ(0, memcmp(img, img2, len));
			free(img);
			free(img2);
			free(mem);
			free(mem2);
		}
	}
}

TEST_HARNESS_MAIN
