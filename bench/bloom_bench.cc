// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark of memfilter's blocked Bloom filter (the same core/ sources as
 * the module) against libbloom, RocksDB's FastLocalBloom and a memory-limit
 * probe, at three filter sizes, same 8-byte keys and 10 bits/key for every
 * peer. Prints a markdown table: ns/key (median of 3), FPR, bits/key.
 * Not a test: nothing here passes or fails.
 *
 *   bloom_bench [SIZE [huge] [quick]]
 * SIZE 0, 1, 2 (64 KiB, 16 MiB, 256 MiB; default all); "huge": memfilter's
 * and the probe's tables on huge pages (RocksDB and libbloom allocate their
 * own, 4 KiB pages either way); "quick": memfilter and the probe only,
 * batch inserts only. Every single-key query (memfilter, RocksDB,
 * libbloom) is the same loop over the same key array.
 *
 * RocksDB 7.8 keeps FilterBitsBuilder/Reader internal; their (stable)
 * virtual interfaces are declared below to drive FastLocalBloom through
 * NewBloomFilterPolicy(10) exactly as its table builder does.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <rocksdb/filter_policy.h>
#include <rocksdb/slice.h>
#include <rocksdb/status.h>
#include <rocksdb/table.h>

extern "C" {
#include <bloom.h>	/* libbloom */
#include "bloom_bench.h"
}

typedef uint64_t u64;

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

static double now_ns()
{
	return std::chrono::duration<double, std::nano>(
		       std::chrono::steady_clock::now().time_since_epoch())
		.count();
}

static u64 splitmix(u64 x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

struct Row : mfb_row {
	std::string name;
	Row()
	{
		ins = ins_b = ins_x = ins_xb = qp = qa = qp_b = qa_b = fpr =
			bpk = -1;
	}
};

static double median3(double a, double b, double c)
{
	double v[3] = { a, b, c };
	std::sort(v, v + 3);
	return v[1];
}

#define REPS 3
template <typename F> static double time_med(size_t n, F f)
{
	double t[REPS];
	for (int r = 0; r < REPS; r++) {
		double t0 = now_ns();
		f();
		t[r] = (now_ns() - t0) / n;
	}
	return median3(t[0], t[1], t[2]);
}

static volatile u64 sink;

static Row bench_rocksdb(const std::vector<u64> &keys,
			 const std::vector<u64> &absent, size_t nq, int reps_ins)
{
	size_t n = keys.size();
	Row r;
	r.name = "RocksDB 7.8 FastLocalBloom (librocksdb)";
	std::unique_ptr<const rocksdb::FilterPolicy> pol(
		rocksdb::NewBloomFilterPolicy(10));
	rocksdb::BlockBasedTableOptions topt;
	topt.format_version = 5;
	topt.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
	rocksdb::FilterBuildingContext ctx(topt);
	std::unique_ptr<const char[]> buf;
	rocksdb::Slice fs;
	double t[REPS] = { 0 };
	for (int rep = 0; rep < reps_ins; rep++) {
		std::unique_ptr<rocksdb::FilterBitsBuilder> bld(
			pol->GetBuilderWithContext(ctx));
		double t0 = now_ns();
		for (size_t i = 0; i < n; i++)
			bld->AddKey(rocksdb::Slice((const char *)&keys[i], 8));
		fs = bld->Finish(&buf);
		t[rep] = (now_ns() - t0) / n;
	}
	r.ins = reps_ins == 3 ? median3(t[0], t[1], t[2]) : t[0];
	std::unique_ptr<rocksdb::FilterBitsReader> rd(pol->GetFilterBitsReader(fs));
	u64 hits = 0;
	r.qp = time_med(nq, [&] {
		u64 c = 0;
		for (size_t i = 0; i < nq; i++)
			c += rd->MayMatch(rocksdb::Slice((const char *)&keys[i], 8));
		sink = c;
	});
	r.qa = time_med(nq, [&] {
		u64 c = 0;
		for (size_t i = 0; i < nq; i++)
			c += rd->MayMatch(rocksdb::Slice((const char *)&absent[i], 8));
		hits = c;
	});
	auto batch = [&](const std::vector<u64> &k) {
		rocksdb::Slice sl[32], *sp[32];
		bool mm[32];
		u64 c = 0;
		for (size_t i = 0; i < nq; i += 32) {
			int m = (int)std::min(nq - i, (size_t)32);
			for (int j = 0; j < m; j++) {
				sl[j] = rocksdb::Slice((const char *)&k[i + j], 8);
				sp[j] = &sl[j];
			}
			rd->MayMatch(m, sp, mm);
			for (int j = 0; j < m; j++)
				c += mm[j];
		}
		return c;
	};
	r.qp_b = time_med(nq, [&] { sink = batch(keys); });
	r.qa_b = time_med(nq, [&] { sink = batch(absent); });
	r.fpr = (double)hits / nq;
	r.bpk = (double)(fs.size() - 5) * 8 / n;
	return r;
}

static Row bench_libbloom(const std::vector<u64> &keys,
			  const std::vector<u64> &absent, size_t nq, int reps_ins)
{
	size_t n = keys.size();
	Row r;
	struct bloom bl;
	r.name = "libbloom (Debian)";
	/* error for 10 bits/key: exp(-10 ln(2)^2) */
	double err = 0.0081940;
	double t[REPS] = { 0 };
	for (int rep = 0; rep < reps_ins; rep++) {
		if (bloom_init(&bl, (int)n, err) || bl.bits <= 0) {
			r.name += " (cannot size: int overflow)";
			return r;
		}
		double t0 = now_ns();
		for (size_t i = 0; i < n; i++)
			bloom_add(&bl, &keys[i], 8);
		t[rep] = (now_ns() - t0) / n;
		if (rep + 1 < reps_ins)
			bloom_free(&bl);
	}
	r.ins = reps_ins == 3 ? median3(t[0], t[1], t[2]) : t[0];
	u64 hits = 0;
	r.qp = time_med(nq, [&] {
		u64 c = 0;
		for (size_t i = 0; i < nq; i++)
			c += bloom_check(&bl, &keys[i], 8);
		sink = c;
	});
	r.qa = time_med(nq, [&] {
		u64 c = 0;
		for (size_t i = 0; i < nq; i++)
			c += bloom_check(&bl, &absent[i], 8);
		hits = c;
	});
	r.fpr = (double)hits / nq;
	r.bpk = (double)bl.bytes * 8 / n;
	bloom_free(&bl);
	return r;
}

static std::string fmt(double v)
{
	char b[32];
	if (v < 0)
		return "-";
	snprintf(b, sizeof(b), "%.1f", v);
	return b;
}

int main(int argc, char **argv)
{
	static const struct { const char *name; size_t bytes; } sizes[] = {
		{ "64 KiB (L2-resident)", 64 << 10 },
		{ "16 MiB", 16 << 20 },
		{ "256 MiB", 256 << 20 },
	};
	size_t only = argc > 1 ? (size_t)atoi(argv[1]) : 99;

	for (int a = 2; a < argc; a++) {
		if (!strcmp(argv[a], "huge"))
			mfb_huge = 1;
		else if (!strcmp(argv[a], "quick"))
			mfb_quick = 1;
	}
	for (size_t s = 0; s < 3; s++) {
		if (only != 99 && only != s)
			continue;
		/* 10 bits/key; libbloom's int bit count caps 256 MiB just under. */
		size_t n = std::min(sizes[s].bytes * 8 / 10, (size_t)(INT32_MAX / 10) - 1000);
		size_t nq = std::max(std::min(n, (size_t)10000000), (size_t)2000000);
		int reps_ins = n > 50000000 ? 1 : 3;
		std::vector<u64> keys(n), absent(nq), qkeys;
		for (size_t i = 0; i < n; i++)
			keys[i] = splitmix(i);
		for (size_t i = 0; i < nq; i++)
			absent[i] = splitmix(i + (1ULL << 40));
		/* Present-key queries: nq of the inserted keys, cycling. */
		std::vector<Row> rows;
		Row ours, probe;
		ours.name = "memfilter split-block (AVX2 batch)";
		mfb_memfilter(keys.data(), n, absent.data(), std::min(nq, n),
			      reps_ins, &ours);
		rows.push_back(ours);
		if (!mfb_quick) {
			rows.push_back(bench_rocksdb(keys, absent, std::min(nq, n), reps_ins));
			rows.push_back(bench_libbloom(keys, absent, std::min(nq, n), reps_ins));
		}
		probe.name = "memory-limit probe (same pipeline, 1 random 64 B line/key)";
		mfb_probe(keys.data(), (size_t)(ours.bpk * n / 8), std::min(nq, n),
			  &probe);
		rows.push_back(probe);
		printf("\n### %s, %s pages: %zu keys, %zu queries%s\n\n",
		       sizes[s].name, mfb_huge ? "2 MiB (memfilter, probe)" : "4 KiB",
		       n, std::min(nq, n), reps_ins == 1 ? " (inserts: one run)" : "");
		printf("| filter | insert | batch insert | excl. insert | excl. batch insert | query present | query absent | batch query present | batch query absent | FPR | bits/key |\n");
		printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
		for (auto &r : rows)
			printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			       r.name.c_str(), fmt(r.ins).c_str(), fmt(r.ins_b).c_str(),
			       fmt(r.ins_x).c_str(), fmt(r.ins_xb).c_str(),
			       fmt(r.qp).c_str(), fmt(r.qa).c_str(), fmt(r.qp_b).c_str(),
			       fmt(r.qa_b).c_str(),
			       r.fpr < 0 ? "-" : (std::to_string(r.fpr * 100).substr(0, 5) + "%").c_str(),
			       r.bpk < 0 ? "-" : std::to_string(r.bpk).substr(0, 5).c_str());
		fflush(stdout);
	}
	return 0;
}
