// SPDX-License-Identifier: GPL-2.0
/*
 * XDP programs identical but for the per-packet filter call, timed by
 * bench/bpf_bench.c with BPF_PROG_TEST_RUN: the IPv4 source address (copied
 * to the stack) against nothing; the parts of a memfilter query one by one
 * (a reference taken and dropped, a filter borrowed by name or by id, one
 * more kfunc call); memfilter's contains kfunc with a referenced filter and
 * with a filter borrowed by name and by id;
 * memfilter's contains by id in one kfunc (bpf_memfilter_contains_id());
 * the kernel's BPF_MAP_TYPE_BLOOM_FILTER; and memfilter's batch kfunc on
 * BENCH_BATCH keys and on fewer, scalar and AVX2. Then the race over many
 * keys (BENCH_NK of them, a new one each run, copied to the stack as a
 * parsed header field would be): bpf_memfilter_contains_id() and the Bloom
 * map's peek at k = 4, 5 and 7 hash functions, for 4-, 8- and 16-byte
 * keys, each beside a program that only takes the key (kempty_*).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include "vmlinux.h"
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "memfilter.bpf.h"
#include "bpf_bench.h"

#define ETH_P_IP	0x0800
#define EINVAL		22

const volatile char filter_name[64] = "bench.bpf";
/* The filter's published id (mf_pub_id()), set by the loader. */
const volatile __u32 filter_id;

struct {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__uint(max_entries, 1);		/* set by the loader */
	__uint(map_extra, 7);		/* hash functions */
	__type(value, __u32);
} bloom SEC(".maps");

/* BENCH_BATCH keys for the batch program, written by the loader. */
__u32 batch_keys[BENCH_BATCH];
__u64 batch_hits;

static __always_inline int saddr(struct xdp_md *ctx, __u32 *key)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);

	if ((void *)(ip + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
		return -1;
	*key = ip->saddr;
	return 0;
}

SEC("xdp")
int empty(struct xdp_md *ctx)
{
	__u32 key;

	if (saddr(ctx, &key))
		return XDP_ABORTED;
	return key & 1 ? XDP_DROP : XDP_PASS;
}

/* Drop every IPv4 packet: the packets-per-second baseline. */
SEC("xdp")
int drop_all(struct xdp_md *ctx)
{
	__u32 key;

	if (saddr(ctx, &key))
		return XDP_ABORTED;
	return key ? XDP_DROP : XDP_PASS;
}

/* An XDP program @name whose verdict is @verdict, an expression of ctx. */
#define XDP_PROG(name, verdict)				\
	SEC("xdp")					\
	int name(struct xdp_md *ctx)			\
	{						\
		return verdict;				\
	}

/*
 * The parts of a query, each program one step further: a filter taken by
 * name with a reference (get/release) or borrowed by name or by its id,
 * then nothing, one kfunc call that returns at once (-EINVAL: key_size
 * 0) or the contains kfunc on the packet's key. The verdict: DROP for the
 * key's low bit (nothing), for -EINVAL (call) or for "may be present".
 */
enum part { PART_NONE, PART_CALL, PART_CONTAINS };

static __always_inline int referenced(struct xdp_md *ctx, enum part part)
{
	struct memfilter *f;
	__u32 key;
	int drop;

	if (saddr(ctx, &key))
		return XDP_ABORTED;
	f = bpf_memfilter_get((const char *)filter_name);
	if (!f)
		return XDP_ABORTED;
	if (part == PART_CONTAINS)
		drop = bpf_memfilter_contains(f, &key, sizeof(key)) == 0;
	else
		drop = key & 1;
	bpf_memfilter_release(f);
	return drop ? XDP_DROP : XDP_PASS;
}

static __always_inline int borrowed(struct xdp_md *ctx, bool by_id,
				    enum part part)
{
	struct memfilter_borrowed *b;
	__u64 bits;
	__u32 key;
	int drop;

	if (saddr(ctx, &key))
		return XDP_ABORTED;
	b = by_id ? bpf_memfilter_borrow_id(filter_id) :
		    bpf_memfilter_borrow((const char *)filter_name);
	if (!b)
		return XDP_ABORTED;
	if (part == PART_CONTAINS)
		drop = bpf_memfilter_contains(&b->f, &key, sizeof(key)) == 0;
	else if (part == PART_CALL)
		drop = bpf_memfilter_contains_batch(&b->f, &key, sizeof(key),
						    0, &bits) == -EINVAL;
	else
		drop = key & 1;
	bpf_memfilter_unborrow(b);
	return drop ? XDP_DROP : XDP_PASS;
}

XDP_PROG(get_release, referenced(ctx, PART_NONE))
XDP_PROG(borrow, borrowed(ctx, false, PART_NONE))
XDP_PROG(borrow_id, borrowed(ctx, true, PART_NONE))
/* One more kfunc call that returns at once. */
XDP_PROG(call, borrowed(ctx, false, PART_CALL))
/* The contains kfunc with a referenced filter, taken per packet. */
XDP_PROG(kfunc_ref, referenced(ctx, PART_CONTAINS))
/* The contains kfunc with a borrowed filter: the per-packet hot path. */
XDP_PROG(kfunc, borrowed(ctx, false, PART_CONTAINS))
/* The same, the filter borrowed by its id: an xarray load, no name. */
XDP_PROG(kfunc_id, borrowed(ctx, true, PART_CONTAINS))

/* The one-call hot path: lookup by id and contains in one kfunc. */
SEC("xdp")
int contains_id(struct xdp_md *ctx)
{
	__u32 key;

	if (saddr(ctx, &key))
		return XDP_ABORTED;
	return bpf_memfilter_contains_id(filter_id, &key, sizeof(key)) == 0 ?
	       XDP_DROP : XDP_PASS;
}

SEC("xdp")
int map_peek(struct xdp_md *ctx)
{
	__u32 key;

	if (saddr(ctx, &key))
		return XDP_ABORTED;
	return bpf_map_peek_elem(&bloom, &key) == 0 ? XDP_DROP : XDP_PASS;
}

/*
 * contains_batch on @n of batch_keys from @off, once per packet. The
 * kernel's batch path stays scalar below MEMFILTER_SIMD_MIN_KEYS (32) keys
 * and enters an AVX2 section from 32 on, so batch_31 and batch_32 time the
 * two paths on nearly the same work, and batch_scalar the 64 keys of
 * batch in three scalar calls (31 + 31 + 2).
 */
static __always_inline int batch_part(struct memfilter *f, int off, int n,
				      __u64 *bits)
{
	return bpf_memfilter_contains_batch(f, batch_keys + off,
					    n * sizeof(__u32), sizeof(__u32),
					    bits);
}

static __always_inline int batch_run(struct xdp_md *ctx, int n)
{
	struct memfilter_borrowed *b;
	__u64 bits, b2 = 0, b3 = 0;
	__u32 key;
	int ret;

	if (saddr(ctx, &key))
		return XDP_ABORTED;
	b = bpf_memfilter_borrow((const char *)filter_name);
	if (!b)
		return XDP_ABORTED;
	if (n) {
		ret = batch_part(&b->f, 0, n, &bits);
	} else {
		ret = batch_part(&b->f, 0, 31, &bits);
		ret += batch_part(&b->f, 31, 31, &b2);
		ret += batch_part(&b->f, 62, 2, &b3);
		bits |= b2 << 31 | b3 << 62;
	}
	bpf_memfilter_unborrow(b);
	batch_hits = bits;
	return ret > 0 ? XDP_DROP : XDP_PASS;
}

#define BATCH_PROG(name, n) XDP_PROG(name, batch_run(ctx, n))

BATCH_PROG(batch, BENCH_BATCH)
BATCH_PROG(batch_1, 1)
BATCH_PROG(batch_31, 31)
BATCH_PROG(batch_32, 32)
/* The 64 keys of batch in three calls under 32 keys: all scalar. */
BATCH_PROG(batch_scalar, 0)

/*
 * The race over many keys: BENCH_NK keys of each size, present or absent
 * as the loader wrote them, one per run in turn; hits counts the runs
 * whose key may be present.
 */
__u32 keys4[BENCH_NK];
__u64 keys8[BENCH_NK];
struct key16 keys16[BENCH_NK];
__u32 key_next;
__u64 hits;

const volatile __u32 id4, id8, id16;

#define BLOOM_MAP(name, k, vtype)				\
	struct {						\
		__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);	\
		__uint(max_entries, 1);	/* set by the loader */	\
		__uint(map_extra, k);				\
		__type(value, vtype);				\
	} name SEC(".maps")

BLOOM_MAP(bloom4_k4, 4, __u32);
BLOOM_MAP(bloom4_k5, 5, __u32);
BLOOM_MAP(bloom4_k7, 7, __u32);
BLOOM_MAP(bloom8_k4, 4, __u64);
BLOOM_MAP(bloom8_k5, 5, __u64);
BLOOM_MAP(bloom8_k7, 7, __u64);
BLOOM_MAP(bloom16_k4, 4, struct key16);
BLOOM_MAP(bloom16_k5, 5, struct key16);
BLOOM_MAP(bloom16_k7, 7, struct key16);

/* This run's key, copied to the stack. */
#define NEXT_KEY(arr, key)					\
	__builtin_memcpy(&(key), &(arr)[key_next++ & (BENCH_NK - 1)], \
			 sizeof(key))

static __always_inline int counted(int may_be_present)
{
	if (may_be_present)
		hits++;
	return may_be_present ? XDP_DROP : XDP_PASS;
}

#define PEEK_PROG(sz, type, arr, k)					\
	SEC("xdp")							\
	int kpeek##k##_##sz(struct xdp_md *ctx)				\
	{								\
		type key;						\
									\
		NEXT_KEY(arr, key);					\
		return counted(bpf_map_peek_elem(&bloom##sz##_k##k, &key) == 0); \
	}

#define KEY_PROGS(sz, type, arr, id)					\
	SEC("xdp")							\
	int kempty_##sz(struct xdp_md *ctx)				\
	{								\
		type key;						\
									\
		NEXT_KEY(arr, key);					\
		return counted(*(__u8 *)&key & 1);			\
	}								\
									\
	SEC("xdp")							\
	int kid_##sz(struct xdp_md *ctx)				\
	{								\
		type key;						\
									\
		NEXT_KEY(arr, key);					\
		return counted(bpf_memfilter_contains_id(id, &key,	\
							 sizeof(key)) == 0); \
	}								\
									\
	PEEK_PROG(sz, type, arr, 4)					\
	PEEK_PROG(sz, type, arr, 5)					\
	PEEK_PROG(sz, type, arr, 7)

KEY_PROGS(4, __u32, keys4, id4)
KEY_PROGS(8, __u64, keys8, id8)
KEY_PROGS(16, struct key16, keys16, id16)

char LICENSE[] SEC("license") = "GPL";
