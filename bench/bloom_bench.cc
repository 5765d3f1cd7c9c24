// SPDX-License-Identifier: GPL-2.0
/*
 * Filter benchmark: memfilter's blocked Bloom and cuckoo filters (the same
 * core/ sources as the module, bloom_bench_mf.c) against the fastest public
 * implementations, in one process, over the same splitmix64 8-byte keys,
 * 10 bits/key for the Bloom filters, 12-bit fingerprints for the cuckoo
 * filters:
 *
 *  - fastfilter_cpp's SIMD blocked Bloom (SimdBlockFilterFixed, the
 *    "BlockedBloom" of its benchmarks) and Cuckoo12, included from a
 *    checkout named at build time (FASTFILTER_DIR, never vendored; without
 *    it those rows are left out with a message). It has no batch query:
 *    its "batch" row is a plain hash + prefetch loop over its table, at
 *    memfilter's prefetch distance.
 *  - RocksDB's FastLocalBloom (Debian's librocksdb, format_version 5),
 *    driven through its FilterBitsBuilder/Reader as its table builder does.
 *  - the memory-limit probe: cheapest hash, one random 64-byte line per key
 *    (bloom_bench_mf.c), single (no prefetch) and batched.
 *
 * Prints markdown tables, ns per key (median of REPS), FPR on absent keys,
 * bits per key, and "memfilter / best peer" ratios. Not a test: nothing
 * here passes or fails.
 *
 *   bloom_bench [--big] [--sizes=1M,10M,...] [--huge] [--wall] [--instr] [--bloom] [--layouts]
 *               [--queries=N] [--xxh64] [--locks]
 * Sizes default to 1M and 10M keys; --big adds 100M; memfilter's Bloom
 * filters hash with XXH3, the default (--xxh64: XXH64; --xxh3 is kept
 * for old scripts); fastfilter's are also sized to memfilter's measured
 * FPR (equal-FPR peers, 32- and 64-byte blocks), and memfilter's
 * single-key calls run on 4-, 8- and 16-byte keys; --bloom leaves the
 * cuckoo tables out; --layouts runs only the tables of both Bloom
 * layouts sized for 1% and 0.1% against fastfilter's at equal FPR (the
 * layout default's and the speed goals' measurement, run first in any
 * case); --locks runs only the concurrent-safe insert designs
 * (writer-lock prototypes) against fastfilter's inserts. --huge: memfilter's
 * and the probe's tables on huge pages. --queries=N: at most N queries
 * per measurement (default 10M; make bench-table takes 2M at 10M keys, a
 * fifth of the time). Times are the thread's CPU time
 * unless --wall. --instr: one small run for
 * callgrind (bench/bloom-bench.sh), each timed loop dumped as its own
 * callgrind profile, so bench/instr.py prints instructions per key.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>
#include <x86intrin.h>

#include <valgrind/callgrind.h>

#include <rocksdb/filter_policy.h>
#include <rocksdb/slice.h>
#include <rocksdb/status.h>
#include <rocksdb/table.h>

extern "C" {
#include "bloom_bench.h"
}

#ifdef FASTFILTER
using namespace std;
/*
 * The "batch" loop over fastfilter's table needs its table, hasher and
 * bucket count, which it keeps private: open them for this bench only.
 */
#define private public
#include "simd-block-fixed-fpp.h"
#include "cuckoofilter.h"
#undef private
#endif

/* memfilter's key hash, inline, and MfHash (after the C++ headers). */
#include "ff_mfhash.h"

#include "bench_util.h"

/*
 * The thread's CPU time by default: on a shared machine the wall clock
 * also counts the time other jobs hold the CPU, which swings 2x from run
 * to run; --wall for the wall clock (an idle machine, or to see the
 * difference).
 */
static bool wall;

static double now_ns()
{
	struct timespec ts;

	if (wall)
		return std::chrono::duration<double, std::nano>(
			       std::chrono::steady_clock::now().time_since_epoch())
			.count();
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static u64 splitmix(u64 x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

enum { INS, INS_B, INS_X, INS_XB, QP, QA, QP_B, QA_B, FPR, BPK, NCOL };
static const char *col_name[NCOL] = {
	"insert", "batch insert", "excl. insert", "excl. batch insert",
	"query present", "query absent", "batch query present",
	"batch query absent", "FPR", "bits/key",
};

struct Row {
	std::string name;
	bool peer;
	double v[NCOL];
	Row(const std::string &n, bool p) : name(n), peer(p)
	{
		std::fill(v, v + NCOL, -1.0);
	}
};

static int reps = 3;
static bool instr;
/* --queries=N: at most N queries per measurement (default 10M). */
static size_t max_queries = 10000000;
static bool bloom_only;
static bool locks_only;
static bool layouts_only;
static std::string size_label;
static volatile u64 sink;

/*
 * Time @run over @n keys @reps times (@prep before each, untimed), return
 * the median ns per key. Under callgrind each run is also dumped as a
 * profile named "size|row|column|keys" (zeroed just before @run).
 */
template <typename P, typename F>
static double measure(const Row &r, int col, size_t n, int nrep, P prep, F run)
{
	std::vector<double> t;
	std::string label = size_label + "|" + r.name + "|" + col_name[col] +
			    "|" + std::to_string(n);

	for (int i = 0; i < nrep; i++) {
		prep();
		CALLGRIND_ZERO_STATS;
		double t0 = now_ns();
		run();
		double t1 = now_ns();
		CALLGRIND_DUMP_STATS_AT(label.c_str());
		t.push_back((t1 - t0) / n);
	}
	std::sort(t.begin(), t.end());
	return t[t.size() / 2];
}

static void nop() {}

struct Keys {
	std::vector<u64> in, out;
	size_t n, nq;
	int reps_ins;
};

/* ---- memfilter ----------------------------------------------------------- */

static Row bench_mf_bloom(const Keys &k)
{
	Row r("memfilter Bloom", false);
	size_t bytes, n = k.n, nq = k.nq;
	mfb_bloom *b = mfb_bloom_new(n, &bytes);
	auto clr = [&] { mfb_bloom_clear(b); };
	u64 hits = 0;

	r.v[INS] = measure(r, INS, n, k.reps_ins, clr,
			   [&] { mfb_bloom_add(b, k.in.data(), n); });
	r.v[INS_X] = measure(r, INS_X, n, k.reps_ins, clr,
			     [&] { mfb_bloom_add_x(b, k.in.data(), n); });
	r.v[INS_XB] = measure(r, INS_XB, n, k.reps_ins, clr,
			      [&] { mfb_bloom_add_x_batch(b, k.in.data(), n); });
	r.v[INS_B] = measure(r, INS_B, n, k.reps_ins, clr,
			     [&] { mfb_bloom_add_batch(b, k.in.data(), n); });
	r.v[QP] = measure(r, QP, nq, reps, nop,
			  [&] { sink = mfb_bloom_query(b, k.in.data(), nq); });
	r.v[QA] = measure(r, QA, nq, reps, nop,
			  [&] { hits = mfb_bloom_query(b, k.out.data(), nq); });
	r.v[QP_B] = measure(r, QP_B, nq, reps, nop, [&] {
		sink = mfb_bloom_query_batch(b, k.in.data(), nq);
	});
	r.v[QA_B] = measure(r, QA_B, nq, reps, nop, [&] {
		sink = mfb_bloom_query_batch(b, k.out.data(), nq);
	});
	r.v[FPR] = 100.0 * hits / nq;
	r.v[BPK] = 8.0 * bytes / n;
	if (mfb_bloom_query(b, k.in.data(), nq) != nq)
		fprintf(stderr, "memfilter Bloom: FALSE NEGATIVES\n");
	mfb_bloom_free(b);
	return r;
}

/*
 * The paths the module runs (bloom_bench_mf.c): ops->contains_key on one
 * key (memfilter_contains(): BPF kfuncs, netfilter, dm), or the keys'
 * hashes through the ops table and ops->contains() on a 256-key window
 * (the query ioctl); and the same through the scalar code, what the
 * kernel runs for single keys and without a SIMD section.
 */
enum mf_path { MF_OPS, MF_SCALAR, MF_INLINE };

static Row bench_mf_bloom_path(const Keys &k, mf_path path)
{
	static const char *const names[] = {
		"memfilter Bloom, module path (ops->contains_key; windows: memfilter_hash_keys + ops->contains)",
		"memfilter Bloom, in-module path as the kernel builds it (single: memfilter_state_contains_key, scalar, -O2 x86-64; windows: the scalar batch)",
		"memfilter Bloom, inline in the caller's loop (memfilter_hash + bloom_avx2.h test)",
	};
	Row r(names[path], false);
	size_t bytes, n = k.n, nq = k.nq;
	mfb_bloom *b = mfb_bloom_new(n, &bytes);
	auto one = path == MF_SCALAR ? mfb_bloom_query_kpath :
		   path == MF_OPS ? mfb_bloom_query_ops : mfb_bloom_query_inline;
	auto batch = path == MF_SCALAR ? mfb_bloom_query_scalar_batch :
				       mfb_bloom_query_ops_batch;

	mfb_bloom_add_x_batch(b, k.in.data(), n);
	r.v[QP] = measure(r, QP, nq, reps, nop,
			  [&] { sink = one(b, k.in.data(), nq); });
	r.v[QA] = measure(r, QA, nq, reps, nop,
			  [&] { sink = one(b, k.out.data(), nq); });
	if (path != MF_INLINE) {
		r.v[QP_B] = measure(r, QP_B, nq, reps, nop,
				    [&] { sink = batch(b, k.in.data(), nq); });
		r.v[QA_B] = measure(r, QA_B, nq, reps, nop,
				    [&] { sink = batch(b, k.out.data(), nq); });
	}
	r.v[BPK] = 8.0 * bytes / n;
	if (one(b, k.in.data(), nq) != nq || batch(b, k.in.data(), nq) != nq)
		fprintf(stderr, "%s: FALSE NEGATIVES\n", r.name.c_str());
	mfb_bloom_free(b);
	return r;
}

/*
 * Single-key calls on keys of @len bytes (4: IPv4 addresses, 16: IPv6;
 * hashed straight-line in the call): insert = memfilter_bloom_add_key(),
 * excl. insert = test_and_add_key (ops table, as memfilter_test_and_add()),
 * queries = memfilter_bloom_contains_key(). Present keys are distinct
 * (4 bytes: a bijection of the index), absent ones disjoint from them.
 */
static Row bench_mf_bloom_len(const Keys &k, size_t len)
{
	Row r("memfilter Bloom, " + std::to_string(len) +
	      "-byte keys (single-key calls; excl. insert column: test_and_add_key)",
	      false);
	size_t bytes, n = k.n, nq = k.nq;
	std::vector<u8> in(n * len), out(nq * len);
	mfb_bloom *b = mfb_bloom_new(n, &bytes);
	auto clr = [&] { mfb_bloom_clear(b); };
	u64 hits = 0;

	auto key = [&](u8 *dst, u64 i, bool absent) {
		if (len == 4) {
			u32 v = (u32)((i + (absent ? 0x80000000ULL : 0)) * 0x9e3779b1U);

			memcpy(dst, &v, 4);
			return;
		}
		for (size_t j = 0; j < len; j += 8) {
			u64 v = splitmix(i * 4 + j / 8 + (absent ? 1ULL << 40 : 0));

			memcpy(dst + j, &v, std::min((size_t)8, len - j));
		}
	};
	for (size_t i = 0; i < n; i++)
		key(&in[i * len], i, false);
	for (size_t i = 0; i < nq; i++)
		key(&out[i * len], i, true);
	r.v[INS] = measure(r, INS, n, k.reps_ins, clr,
			   [&] { mfb_bloom_add_len(b, in.data(), len, n); });
	r.v[INS_X] = measure(r, INS_X, n, k.reps_ins, clr,
			     [&] { sink = mfb_bloom_tadd_len(b, in.data(), len, n); });
	r.v[QP] = measure(r, QP, nq, reps, nop,
			  [&] { sink = mfb_bloom_query_len(b, in.data(), len, nq); });
	r.v[QA] = measure(r, QA, nq, reps, nop,
			  [&] { hits = mfb_bloom_query_len(b, out.data(), len, nq); });
	r.v[FPR] = 100.0 * hits / nq;
	r.v[BPK] = 8.0 * bytes / n;
	if (mfb_bloom_query_len(b, in.data(), len, nq) != nq)
		fprintf(stderr, "%s: FALSE NEGATIVES\n", r.name.c_str());
	mfb_bloom_free(b);
	return r;
}

static Row bench_mf_cuckoo(const Keys &k)
{
	Row r("memfilter cuckoo-12", false);
	size_t bytes, n = k.n, nq = k.nq, fail = 0;
	mfb_cuckoo *c = mfb_cuckoo_new(n, &bytes);
	u64 hits = 0;

	r.v[INS] = measure(r, INS, n, k.reps_ins,
			   [&] { mfb_cuckoo_clear(c); },
			   [&] { fail = mfb_cuckoo_add(c, k.in.data(), n); });
	if (fail)
		fprintf(stderr, "memfilter cuckoo: %zu inserts failed\n", fail);
	r.v[QP] = measure(r, QP, nq, reps, nop,
			  [&] { sink = mfb_cuckoo_query(c, k.in.data(), nq); });
	r.v[QA] = measure(r, QA, nq, reps, nop,
			  [&] { hits = mfb_cuckoo_query(c, k.out.data(), nq); });
	r.v[QP_B] = measure(r, QP_B, nq, reps, nop, [&] {
		sink = mfb_cuckoo_query_batch(c, k.in.data(), nq);
	});
	r.v[QA_B] = measure(r, QA_B, nq, reps, nop, [&] {
		sink = mfb_cuckoo_query_batch(c, k.out.data(), nq);
	});
	r.v[FPR] = 100.0 * hits / nq;
	r.v[BPK] = 8.0 * bytes / n;
	mfb_cuckoo_free(c);
	return r;
}

static Row bench_probe(const Keys &k, size_t bytes)
{
	Row r("memory-limit probe (1 random 64 B line/key)", false);
	mfb_probe *p = mfb_probe_new(bytes);

	r.v[QP] = measure(r, QP, k.nq, reps, nop, [&] {
		sink = mfb_probe_single(p, k.in.data(), k.nq);
	});
	r.v[QA] = measure(r, QA, k.nq, reps, nop, [&] {
		sink = mfb_probe_single(p, k.out.data(), k.nq);
	});
	r.v[QP_B] = measure(r, QP_B, k.nq, reps, nop, [&] {
		sink = mfb_probe_batch(p, k.in.data(), k.nq);
	});
	r.v[QA_B] = measure(r, QA_B, k.nq, reps, nop, [&] {
		sink = mfb_probe_batch(p, k.out.data(), k.nq);
	});
	r.v[BPK] = 8.0 * bytes / k.n;
	mfb_probe_free(p);
	return r;
}

/* ---- RocksDB FastLocalBloom ------------------------------------------------ */

/*
 * RocksDB 7.8 keeps FilterBitsBuilder/Reader internal; their (stable)
 * virtual interfaces, to drive FastLocalBloom through
 * NewBloomFilterPolicy(10) exactly as its table builder does.
 */
namespace rocksdb {
class FilterBitsBuilder {
public:
	virtual ~FilterBitsBuilder() {}
	virtual void AddKey(const Slice &key) = 0;
	virtual size_t EstimateEntriesAdded() = 0;
	virtual Slice Finish(std::unique_ptr<const char[]> *buf) = 0;
};
class FilterBitsReader {
public:
	virtual ~FilterBitsReader() {}
	virtual bool MayMatch(const Slice &entry) = 0;
	virtual void MayMatch(int num_keys, Slice **keys, bool *may_match) = 0;
};
} // namespace rocksdb

static Row bench_rocksdb(const Keys &k)
{
	Row r("RocksDB 7.8 FastLocalBloom", true);
	size_t n = k.n, nq = k.nq;
	std::unique_ptr<const rocksdb::FilterPolicy> pol(
		rocksdb::NewBloomFilterPolicy(10));
	rocksdb::BlockBasedTableOptions topt;
	topt.format_version = 5;
	topt.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
	rocksdb::FilterBuildingContext ctx(topt);
	std::unique_ptr<const char[]> buf;
	rocksdb::Slice fs;
	u64 hits = 0;

	/* Its builder buffers the hashes and fills the filter in Finish(). */
	r.v[INS_B] = measure(r, INS_B, n, k.reps_ins, nop, [&] {
		std::unique_ptr<rocksdb::FilterBitsBuilder> bld(
			pol->GetBuilderWithContext(ctx));
		for (size_t i = 0; i < n; i++)
			bld->AddKey(rocksdb::Slice((const char *)&k.in[i], 8));
		fs = bld->Finish(&buf);
	});
	std::unique_ptr<rocksdb::FilterBitsReader> rd(pol->GetFilterBitsReader(fs));
	auto one = [&](const std::vector<u64> &v) {
		u64 c = 0;
		for (size_t i = 0; i < nq; i++)
			c += rd->MayMatch(rocksdb::Slice((const char *)&v[i], 8));
		return c;
	};
	auto batch = [&](const std::vector<u64> &v) {
		rocksdb::Slice sl[32], *sp[32];
		bool mm[32];
		u64 c = 0;
		for (size_t i = 0; i < nq; i += 32) {
			int m = (int)std::min(nq - i, (size_t)32);
			for (int j = 0; j < m; j++) {
				sl[j] = rocksdb::Slice((const char *)&v[i + j], 8);
				sp[j] = &sl[j];
			}
			rd->MayMatch(m, sp, mm);
			for (int j = 0; j < m; j++)
				c += mm[j];
		}
		return c;
	};
	r.v[QP] = measure(r, QP, nq, reps, nop, [&] { sink = one(k.in); });
	r.v[QA] = measure(r, QA, nq, reps, nop, [&] { hits = one(k.out); });
	r.v[QP_B] = measure(r, QP_B, nq, reps, nop, [&] { sink = batch(k.in); });
	r.v[QA_B] = measure(r, QA_B, nq, reps, nop, [&] { sink = batch(k.out); });
	r.v[FPR] = 100.0 * hits / nq;
	r.v[BPK] = (double)(fs.size() - 5) * 8 / n;
	return r;
}

/* ---- fastfilter_cpp ------------------------------------------------------- */

#ifdef FASTFILTER
typedef SimdBlockFilterFixed<hashing::SimpleMixSplit> FFBloom;
typedef SimdBlockFilterFixed64<hashing::SimpleMixSplit> FFBloom64;
typedef SimdBlockFilterFixed64<MfHash> FFBloom64Mf;
typedef SimdBlockFilterFixed<MfHash> FFBloomMf;
typedef cuckoofilter::CuckooFilter<uint64_t, 12, cuckoofilter::SingleTable,
				   hashing::SimpleMixSplit> FFCuckoo;
typedef cuckoofilter::CuckooFilter<uint64_t, 12, cuckoofilter::SingleTable,
				   MfHash> FFCuckooMf;

/*
 * A plain batch query over fastfilter's table: its hash, bucket and mask,
 * each bucket prefetched mfb_ahead keys before it is tested.
 */
template <class F>
static u64 ff_bloom_batch(const F &f, const u64 *k, size_t n)
{
	struct { u64 h; const __m256i *b; } ring[64];
	const size_t a = mfb_ahead;
	u64 c = 0;

	auto fill = [&](size_t i) {
		u64 h = f.hasher_(k[i]);
		const __m256i *b = reinterpret_cast<const __m256i *>(f.directory_) +
				   reduce(rotl64(h, 32), f.bucketCount);
		_mm_prefetch((const char *)b, _MM_HINT_T0);
		ring[i % 64].h = h;
		ring[i % 64].b = b;
	};
	for (size_t i = 0; i < a && i < n; i++)
		fill(i);
	for (size_t i = 0; i < n; i++) {
		if (i + a < n)
			fill(i + a);
		c += _mm256_testc_si256(*ring[i % 64].b,
					F::MakeMask(ring[i % 64].h));
	}
	return c;
}

/*
 * The constructor argument that sizes fastfilter's filter @F to memfilter's
 * measured rate @fpr (percent) on these keys: the smallest of a 1% grid
 * from 0.7 n whose rate on the first million absent keys is at most @fpr.
 */
template <class F>
static int ff_equal_fpr_arg(const Keys &k, double fpr)
{
	size_t m = std::min(k.nq, (size_t)1000000);

	for (double s = 0.7; s < 3; s *= 1.01) {
		F f((int)(k.n * s));
		u64 hits = 0;

		for (size_t i = 0; i < k.n; i++)
			f.Add(k.in[i]);
		for (size_t i = 0; i < m; i++)
			hits += f.Find(k.out[i]);
		if (100.0 * hits / m <= fpr)
			return (int)(k.n * s);
	}
	return (int)(3 * k.n);
}

/*
 * @peer: fastfilter as published; else fed memfilter's hash (MfHash).
 * @arg: its constructor's argument (0: n, as published); @name: the row's
 * (NULL: the default); @batch: F has the 32-byte mask ff_bloom_batch() uses.
 */
template <class F>
static Row bench_ff_bloom(const Keys &k, bool peer, int arg = 0,
			  const char *name = NULL, bool batch = true)
{
	Row r(name ? std::string(name) : peer ? "fastfilter_cpp SIMD blocked Bloom" :
	      std::string("fastfilter_cpp SIMD blocked Bloom, hashing with memfilter's ") +
	      MfHash::name() + " (reference, not a peer)", peer);
	size_t n = k.n, nq = k.nq;
	std::unique_ptr<F> f;
	auto fresh = [&] { f.reset(); f.reset(new F(arg ? arg : (int)n)); };
	u64 hits = 0;

	r.v[INS] = measure(r, INS, n, k.reps_ins, fresh, [&] {
		for (size_t i = 0; i < n; i++)
			f->Add(k.in[i]);
	});
	if constexpr (!std::is_same<F, FFBloom64>::value &&
		      !std::is_same<F, FFBloom64Mf>::value)
		r.v[INS_B] = measure(r, INS_B, n, k.reps_ins, fresh,
				     [&] { f->AddAll(k.in.data(), 0, n); });
	auto one = [&](const std::vector<u64> &v) {
		u64 c = 0;
		for (size_t i = 0; i < nq; i++)
			c += f->Find(v[i]);
		return c;
	};
	r.v[QP] = measure(r, QP, nq, reps, nop, [&] { sink = one(k.in); });
	r.v[QA] = measure(r, QA, nq, reps, nop, [&] { hits = one(k.out); });
	if constexpr (std::is_same<F, FFBloom>::value || std::is_same<F, FFBloomMf>::value) {
		if (batch) {
			r.v[QP_B] = measure(r, QP_B, nq, reps, nop,
					    [&] { sink = ff_bloom_batch(*f, k.in.data(), nq); });
			r.v[QA_B] = measure(r, QA_B, nq, reps, nop,
					    [&] { sink = ff_bloom_batch(*f, k.out.data(), nq); });
		}
	}
	r.v[FPR] = 100.0 * hits / nq;
	r.v[BPK] = 8.0 * f->SizeInBytes() / n;
	return r;
}

template <class F>
static Row bench_ff_cuckoo(const Keys &k, bool peer)
{
	Row r(peer ? "fastfilter_cpp Cuckoo12" :
	      std::string("fastfilter_cpp Cuckoo12, hashing with memfilter's ") +
	      MfHash::name() + " (reference, not a peer)", peer);
	size_t n = k.n, nq = k.nq, fail = 0;
	std::unique_ptr<F> f;
	auto fresh = [&] { f.reset(); f.reset(new F(n)); };
	u64 hits = 0;

	r.v[INS] = measure(r, INS, n, k.reps_ins, fresh, [&] {
		fail = 0;
		for (size_t i = 0; i < n; i++)
			fail += f->Add(k.in[i]) != cuckoofilter::Ok;
	});
	if (fail)
		fprintf(stderr, "%s: %zu inserts failed\n", r.name.c_str(), fail);
	auto one = [&](const std::vector<u64> &v) {
		u64 c = 0;
		for (size_t i = 0; i < nq; i++)
			c += f->Contain(v[i]) == cuckoofilter::Ok;
		return c;
	};
	r.v[QP] = measure(r, QP, nq, reps, nop, [&] { sink = one(k.in); });
	r.v[QA] = measure(r, QA, nq, reps, nop, [&] { hits = one(k.out); });
	r.v[FPR] = 100.0 * hits / nq;
	r.v[BPK] = 8.0 * f->SizeInBytes() / n;
	return r;
}
#endif

#ifdef FASTFILTER
static void ff_insert_rows(const Keys &k, std::vector<Row> &rows)
{
	Row r("fastfilter_cpp SIMD blocked Bloom", true);
	std::unique_ptr<FFBloom> f;
	auto fresh = [&] { f.reset(); f.reset(new FFBloom((int)k.n)); };

	r.v[INS] = measure(r, INS, k.n, k.reps_ins, fresh, [&] {
		for (size_t i = 0; i < k.n; i++)
			f->Add(k.in[i]);
	});
	r.v[INS_B] = measure(r, INS_B, k.n, k.reps_ins, fresh,
			     [&] { f->AddAll(k.in.data(), 0, k.n); });
	r.v[BPK] = 8.0 * f->SizeInBytes() / k.n;
	rows.push_back(r);
}
#endif

/* ---- the two layouts at a requested rate ---------------------------------- */

/*
 * memfilter's rows at @fpr in @layout (mfb_fpr, mfb_layout): the public
 * single-key API and key batch (bench_mf_bloom()'s row, inserts left out),
 * the module's paths and the scalar one (bench_mf_bloom_path()), and the
 * measured rate of the first.
 */
static void mf_layout_rows(const Keys &k, double fpr, int layout, std::vector<Row> &rows)
{
	const char *ln = layout ? "split32" : "line64";
	char tag[64];

	snprintf(tag, sizeof(tag), "memfilter %s, --fpr %g", ln, fpr);
	mfb_fpr = fpr;
	mfb_layout = layout;
	Row pub(std::string(tag) + ": public API (single: memfilter_bloom_contains_key; batch: _contains_keys)",
		false);
	size_t bytes, n = k.n, nq = k.nq;
	mfb_bloom *b = mfb_bloom_new(n, &bytes);
	u64 hits = 0;

	mfb_bloom_add_x_batch(b, k.in.data(), n);
	pub.v[QP] = measure(pub, QP, nq, reps, nop,
			    [&] { sink = mfb_bloom_query(b, k.in.data(), nq); });
	pub.v[QA] = measure(pub, QA, nq, reps, nop,
			    [&] { hits = mfb_bloom_query(b, k.out.data(), nq); });
	pub.v[QP_B] = measure(pub, QP_B, nq, reps, nop,
			      [&] { sink = mfb_bloom_query_batch(b, k.in.data(), nq); });
	pub.v[QA_B] = measure(pub, QA_B, nq, reps, nop,
			      [&] { sink = mfb_bloom_query_batch(b, k.out.data(), nq); });
	pub.v[FPR] = 100.0 * hits / nq;
	pub.v[BPK] = 8.0 * bytes / n;
	if (mfb_bloom_query(b, k.in.data(), nq) != nq)
		fprintf(stderr, "%s: FALSE NEGATIVES\n", pub.name.c_str());
	mfb_bloom_free(b);
	rows.push_back(pub);
	for (mf_path p : { MF_OPS, MF_SCALAR, MF_INLINE }) {
		Row r = bench_mf_bloom_path(k, p);

		r.name = std::string(tag) + ": " + r.name.substr(r.name.find(", ") + 2);
		rows.push_back(r);
	}
	mfb_fpr = 0;
	mfb_layout = 0;
}

/* "ratio: A / B" rows for each time column both have. */
static Row ratio_row(const std::string &name, const Row &a, const Row &b)
{
	Row r("ratio: " + name, false);

	for (int c = 0; c < FPR; c++)
		if (a.v[c] > 0 && b.v[c] > 0)
			r.v[c] = a.v[c] / b.v[c];
	r.v[BPK] = a.v[BPK] > 0 && b.v[BPK] > 0 ? a.v[BPK] / b.v[BPK] : -1;
	return r;
}

static void layout_table(const Keys &k, double fpr, std::vector<Row> &rows);

/*
 * Both layouts sized by memfilter_bloom_params_from_fpr() for @fpr, as
 * filters are made (--fpr), against fastfilter's 32-byte SimdBlock sized
 * to split32's measured rate and its 64-byte SimdBlockFilterFixed64 sized
 * to line64's, fed its own hash and memfilter's (XXH3): the goals' rows.
 * The ratio rows divide in each run; bits/key in a ratio row is the
 * memory ratio.
 */
static void bench_layouts(const Keys &k, double fpr)
{
	std::vector<Row> rows;

	mf_layout_rows(k, fpr, 0, rows);
	mf_layout_rows(k, fpr, 1, rows);
	/*
	 * The physical limit, on the same keys: one random 64-byte line per
	 * key in a table of split32's size (single: no prefetch; batch: the
	 * prefetch loop, memfilter's distance).
	 */
	rows.push_back(bench_probe(k, (size_t)(rows[4].v[BPK] * k.n / 8)));
	rows.back().name += ", split32's table size";
	const Row probe = rows.back();

	rows.push_back(ratio_row("split32 public API / memory-limit probe", rows[4], probe));
	rows.push_back(ratio_row("split32 in-module path / memory-limit probe", rows[6], probe));
	rows.push_back(ratio_row("split32 inline / memory-limit probe", rows[7], probe));
	rows.push_back(ratio_row("line64 public API / memory-limit probe", rows[0], probe));
#ifdef FASTFILTER
	double f64 = rows[0].v[FPR], f32 = rows[4].v[FPR];
	const size_t ff = rows.size();

	rows.push_back(bench_ff_bloom<FFBloom>(k, true, ff_equal_fpr_arg<FFBloom>(k, f32),
		"fastfilter_cpp SimdBlockFilter (32 B), sized to split32's FPR"));
	rows.push_back(bench_ff_bloom<FFBloom64>(k, true, ff_equal_fpr_arg<FFBloom64>(k, f64),
		"fastfilter_cpp SimdBlockFilterFixed64 (64 B), sized to line64's FPR", false));
	rows.push_back(bench_ff_bloom<FFBloom64Mf>(k, false, ff_equal_fpr_arg<FFBloom64Mf>(k, f64),
		"fastfilter_cpp SimdBlockFilterFixed64 (64 B), sized to line64's FPR, fed memfilter's hash",
		false));
	const Row ff32 = rows[ff], ff64 = rows[ff + 1], ff64mf = rows[ff + 2];

	rows.push_back(ratio_row("SimdBlockFilter (batch: its prefetch loop) / memory-limit probe",
				 ff32, probe));

	rows.push_back(ratio_row("split32 public API / SimdBlockFilter", rows[4], ff32));
	rows.push_back(ratio_row("split32 module path / SimdBlockFilter", rows[5], ff32));
	rows.push_back(ratio_row("split32 in-module path / SimdBlockFilter", rows[6], ff32));
	rows.push_back(ratio_row("split32 inline / SimdBlockFilter", rows[7], ff32));
	rows.push_back(ratio_row("line64 public API / Fixed64 fed memfilter's hash", rows[0], ff64mf));
	rows.push_back(ratio_row("line64 module path / Fixed64 fed memfilter's hash", rows[1], ff64mf));
	rows.push_back(ratio_row("line64 in-module path / Fixed64 fed memfilter's hash", rows[2], ff64mf));
	rows.push_back(ratio_row("line64 inline / Fixed64 fed memfilter's hash", rows[3], ff64mf));
	rows.push_back(ratio_row("line64 public API / Fixed64", rows[0], ff64));
#endif
	rows.push_back(ratio_row("split32 / line64, public API", rows[4], rows[0]));
	rows.push_back(ratio_row("split32 / line64, module path", rows[5], rows[1]));
	rows.push_back(ratio_row("split32 / line64, in-module path", rows[6], rows[2]));
	layout_table(k, fpr, rows);
}

/* ---- report -------------------------------------------------------------- */

static std::string fmt(double v, int col)
{
	char b[32];

	if (v < 0)
		return "-";
	if (col == FPR)
		snprintf(b, sizeof(b), "%.3f%%", v);
	else if (col == BPK)
		snprintf(b, sizeof(b), "%.2f", v);
	else
		snprintf(b, sizeof(b), "%.1f", v);
	return b;
}

/*
 * The peer value a memfilter column is held against: peers only insert
 * from one writer, so both memfilter inserts (concurrent-safe and
 * exclusive) face the peers' plain insert, and the batch ones their bulk.
 */
static double best_peer(const std::vector<Row> &rows, int col)
{
	static const int peer_col[NCOL] = { INS, INS_B, INS, INS_B, QP, QA,
					    QP_B, QA_B, -1, -1 };
	double best = -1;

	if (peer_col[col] < 0)
		return -1;
	for (auto &r : rows) {
		double v = r.v[peer_col[col]];
		if (r.peer && v > 0 && (best < 0 || v < best))
			best = v;
	}
	return best;
}

static void table(const char *title, const Keys &k, std::vector<Row> &rows)
{
	printf("\n### %s, %s keys, %zu queries%s%s\n\n", title, size_label.c_str(),
	       k.nq, mfb_huge ? ", huge pages (memfilter, probe)" : "",
	       mfb_xxh3 ? ", memfilter Bloom with XXH3 (the default)" :
	       ", memfilter Bloom with XXH64");
	bench_table_header(col_name, NCOL);
	for (auto &r : rows) {
		printf("| %s |", r.name.c_str());
		for (int c = 0; c < NCOL; c++)
			printf(" %s |", fmt(r.v[c], c).c_str());
		printf("\n");
	}
	/* Ratios of the first (memfilter) row, to the best peer per column. */
	printf("| ratio: %s / best peer |", rows[0].name.c_str());
	for (int c = 0; c < NCOL; c++) {
		double p = best_peer(rows, c);
		if (p > 0 && rows[0].v[c] > 0)
			printf(" %.2f |", rows[0].v[c] / p);
		else
			printf(" - |");
	}
	printf("\n");
	fflush(stdout);
}

/* The layouts' table: no ratio row of its own (bench_layouts() has them). */
static void layout_table(const Keys &k, double fpr, std::vector<Row> &rows)
{
	printf("\n### Bloom layouts at --fpr %g, %s keys, %zu queries%s\n\n", fpr,
	       size_label.c_str(), k.nq,
	       mfb_xxh3 ? ", memfilter with XXH3 (the default)" : ", memfilter with XXH64");
	bench_table_header(col_name, NCOL);
	for (auto &r : rows) {
		printf("| %s |", r.name.c_str());
		for (int c = 0; c < NCOL; c++) {
			if (r.name.rfind("ratio:", 0) == 0 && r.v[c] > 0)
				printf(" %.2f |", r.v[c]);
			else
				printf(" %s |", fmt(r.v[c], c).c_str());
		}
		printf("\n");
	}
	fflush(stdout);
}

/*
 * --locks: concurrent-safe insert designs (writer-lock prototypes), one writer,
 * single keys and batches, against fastfilter's Add and AddAll and the
 * lock probe (one random line per key: a lock-prefixed OR on it, a plain
 * read-modify-write of it, or a hot lock line taken around the plain one).
 */
static void bench_locks(const Keys &k)
{
	struct L { std::string name; double one, batch; };
	std::vector<L> rows;
	size_t bytes, n = k.n;
	mfb_bloom *b = mfb_bloom_new(n, &bytes);
	auto clr = [&] { mfb_bloom_clear(b); };
	Row d("locks", false);
	double ff_one = -1, ff_batch = -1;

	rows.push_back({ "atomic OR per changed word (libmemfilter: memfilter_bloom_add_key, AVX2 / _add_keys)",
			 measure(d, INS, n, k.reps_ins, clr, [&] { mfb_bloom_add(b, k.in.data(), n); }),
			 measure(d, INS_B, n, k.reps_ins, clr, [&] { mfb_bloom_add_batch(b, k.in.data(), n); }) });
	rows.push_back({ "atomic OR per changed word, scalar single key / hashed chunks (the module's paths before)",
			 measure(d, INS, n, k.reps_ins, clr, [&] { mfb_bloom_add_scalar1(b, k.in.data(), n); }),
			 measure(d, INS_B, n, k.reps_ins, clr, [&] { mfb_bloom_add_hashed(b, k.in.data(), n, 0); }) });
	mfb_bloom_stripes(b, 1);
	rows.push_back({ "stripe locks, S = 64 (memfilter_bloom_add_hash_locked / _add_hashes_locked on hashed chunks: the module's paths now)",
			 measure(d, INS, n, k.reps_ins, clr, [&] { mfb_bloom_add_locked(b, k.in.data(), n); }),
			 measure(d, INS_B, n, k.reps_ins, clr, [&] { mfb_bloom_add_hashed(b, k.in.data(), n, 1); }) });
	if (mfb_bloom_query(b, k.in.data(), k.nq) != k.nq)
		fprintf(stderr, "locks: FALSE NEGATIVES\n");
	mfb_bloom_stripes(b, 0);
	for (unsigned int s : { 16u, 64u, 256u, 1016u, 1064u })
		rows.push_back({ "prototype stripe lock, S = " + std::to_string(s % 1000) + (s > 1000 ? ", AVX2 set" : "") +
				 " (single: lock per key; batch: per stripe per 256 keys)",
				 measure(d, INS, n, k.reps_ins, clr, [&] { mfb_proto_add_stripe(b, k.in.data(), n, s % 1000); }),
				 measure(d, INS_B, n, k.reps_ins, clr, [&] { mfb_proto_avx2 = s > 1000; mfb_proto_add_batch_stripe(b, k.in.data(), n, s % 1000); mfb_proto_avx2 = 0; }) });
	rows.push_back({ "exclusive (plain stores, one writer)",
			 measure(d, INS, n, k.reps_ins, clr, [&] { mfb_bloom_add_x(b, k.in.data(), n); }),
			 measure(d, INS_B, n, k.reps_ins, clr, [&] { mfb_bloom_add_x_batch(b, k.in.data(), n); }) });
	if (mfb_bloom_query(b, k.in.data(), k.nq) != k.nq)
		fprintf(stderr, "locks: FALSE NEGATIVES\n");
	mfb_bloom_free(b);
#ifdef FASTFILTER
	std::vector<Row> ff;
	ff_insert_rows(k, ff);
	ff_one = ff[0].v[INS];
	ff_batch = ff[0].v[INS_B];
	rows.push_back({ "fastfilter_cpp SIMD blocked Bloom (Add / AddAll)", ff_one, ff_batch });
#endif
	mfb_probe *p = mfb_probe_new(bytes);
	const char *how[] = { "probe: lock-prefixed OR on the line",
			      "probe: plain load-OR-store of the line",
			      "probe: hot lock line + plain RMW of the line" };
	for (int h = 0; h < 3; h++)
		rows.push_back({ how[h], measure(d, INS, n, k.reps_ins, nop,
						 [&] { mfb_probe_store(p, k.in.data(), n, h); }), -1 });
	mfb_probe_free(p);

	printf("\n### Concurrent-safe insert designs, %s keys, ns/key (median of %d)\n\n",
	       size_label.c_str(), k.reps_ins);
	printf("| filter / design | insert (single) | batch insert | single / ff Add | batch / ff AddAll |\n");
	printf("|---|---|---|---|---|\n");
	for (auto &r : rows) {
		printf("| %s | %s | %s |", r.name.c_str(), fmt(r.one, INS).c_str(),
		       fmt(r.batch, INS_B).c_str());
		if (ff_one > 0 && r.one > 0)
			printf(" %.2f |", r.one / ff_one);
		else
			printf(" - |");
		if (ff_batch > 0 && r.batch > 0)
			printf(" %.2f |\n", r.batch / ff_batch);
		else
			printf(" - |\n");
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	std::vector<std::string> sizes = { "1M", "10M" };

	for (int a = 1; a < argc; a++) {
		std::string s = argv[a];
		if (s == "--big") {
			sizes.push_back("100M");
		} else if (s == "--wall") {
			wall = true;
		} else if (s == "--locks") {
			locks_only = true;
		} else if (s == "--bloom") {
			bloom_only = true;
		} else if (s == "--layouts") {
			layouts_only = true;
		} else if (s == "--huge") {
			mfb_huge = 1;
		} else if (s == "--xxh3") {
			mfb_xxh3 = 1;
		} else if (s == "--xxh64") {
			mfb_xxh3 = 0;
		} else if (s == "--instr") {
			instr = true;
			reps = 1;
			sizes = { "1M" };
		} else if (s.rfind("--queries=", 0) == 0) {
			max_queries = bench_parse_size(s.c_str() + 10);
			if (!max_queries) {
				fprintf(stderr, "%s: --queries needs at least 1\n", argv[0]);
				return 2;
			}
		} else if (s.rfind("--sizes=", 0) == 0) {
			std::stringstream ss(s.substr(8));
			std::string t;
			sizes.clear();
			while (std::getline(ss, t, ','))
				sizes.push_back(t);
		} else {
			fprintf(stderr, "usage: %s [--big] [--sizes=1M,10M,...] [--huge] [--wall] [--instr] [--bloom] [--layouts] [--queries=N] [--xxh64] [--locks]\n",
				argv[0]);
			return 2;
		}
	}
#ifndef FASTFILTER
	printf("\nfastfilter_cpp rows skipped: build with FASTFILTER_DIR=<a checkout of "
	       "github.com/FastFilter/fastfilter_cpp>\n");
#endif
	MfHash::algo = mfb_xxh3 ? MEMFILTER_HASH_XXH3 : MEMFILTER_HASH_XXH64;
	for (auto &sz : sizes) {
		Keys k;
		size_label = sz;
		k.n = bench_parse_size(sz.c_str());
		k.nq = std::min(k.n, instr ? (size_t)200000 : max_queries);
		k.reps_ins = instr || k.n > 20000000 ? 1 : reps;
		k.in.resize(k.n);
		k.out.resize(k.nq);
		for (size_t i = 0; i < k.n; i++)
			k.in[i] = splitmix(i);
		for (size_t i = 0; i < k.nq; i++)
			k.out[i] = splitmix(i + (1ULL << 40));

		if (locks_only) {
			bench_locks(k);
			continue;
		}
		bench_layouts(k, 0.01);
		bench_layouts(k, 0.001);
		if (layouts_only)
			continue;
		std::vector<Row> bloom;
		bloom.push_back(bench_mf_bloom(k));
		bloom.push_back(bench_mf_bloom_path(k, MF_OPS));
		bloom.push_back(bench_mf_bloom_path(k, MF_SCALAR));
		bloom.push_back(bench_mf_bloom_path(k, MF_INLINE));
#ifdef FASTFILTER
		bloom.push_back(bench_ff_bloom<FFBloom>(k, true));
		/* The same rate as memfilter's row 0: the equal-FPR peers. */
		bloom.push_back(bench_ff_bloom<FFBloom>(k, true,
			ff_equal_fpr_arg<FFBloom>(k, bloom[0].v[FPR]),
			"fastfilter_cpp SIMD blocked Bloom (32 B), sized to memfilter's FPR"));
		bloom.push_back(bench_ff_bloom<FFBloom64>(k, true,
			ff_equal_fpr_arg<FFBloom64>(k, bloom[0].v[FPR]),
			"fastfilter_cpp SimdBlockFilterFixed64 (64 B, one bit per word), sized to memfilter's FPR",
			false));
		bloom.push_back(bench_ff_bloom<FFBloomMf>(k, false));
#endif
		bloom.push_back(bench_mf_bloom_len(k, 4));
		bloom.push_back(bench_mf_bloom_len(k, 8));
		bloom.push_back(bench_mf_bloom_len(k, 16));
		bloom.push_back(bench_rocksdb(k));
		bloom.push_back(bench_probe(k, (size_t)(bloom[0].v[BPK] * k.n / 8)));
		table("Bloom, 10 bits/key", k, bloom);

		if (bloom_only)
			continue;
		std::vector<Row> cuckoo;
		cuckoo.push_back(bench_mf_cuckoo(k));
#ifdef FASTFILTER
		cuckoo.push_back(bench_ff_cuckoo<FFCuckoo>(k, true));
		cuckoo.push_back(bench_ff_cuckoo<FFCuckooMf>(k, false));
#endif
		table("Cuckoo, 12-bit fingerprints", k, cuckoo);
	}
	return 0;
}
