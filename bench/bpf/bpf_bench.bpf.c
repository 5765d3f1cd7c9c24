// SPDX-License-Identifier: GPL-2.0
/*
 * XDP programs identical but for the per-packet filter call, timed by
 * bench/bpf_bench.c with BPF_PROG_TEST_RUN: the IPv4 source address (copied
 * to the stack) against nothing; the parts of a memfilter query one by one
 * (a reference taken and dropped, a filter borrowed by name or by id, one
 * more kfunc call); memfilter's contains kfunc with a referenced filter and
 * with a filter borrowed by name and by id;
 * the kernel's BPF_MAP_TYPE_BLOOM_FILTER; and memfilter's batch kfunc on
 * BENCH_BATCH keys.
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

SEC("xdp")
int get_release(struct xdp_md *ctx)
{
	struct memfilter *f;
	__u32 key;

	if (saddr(ctx, &key))
		return XDP_ABORTED;
	f = bpf_memfilter_get((const char *)filter_name);
	if (!f)
		return XDP_ABORTED;
	bpf_memfilter_release(f);
	return key & 1 ? XDP_DROP : XDP_PASS;
}

SEC("xdp")
int borrow(struct xdp_md *ctx)
{
	struct memfilter_borrowed *b;
	__u32 key;

	if (saddr(ctx, &key))
		return XDP_ABORTED;
	b = bpf_memfilter_borrow((const char *)filter_name);
	if (!b)
		return XDP_ABORTED;
	bpf_memfilter_unborrow(b);
	return key & 1 ? XDP_DROP : XDP_PASS;
}

SEC("xdp")
int borrow_id(struct xdp_md *ctx)
{
	struct memfilter_borrowed *b;
	__u32 key;

	if (saddr(ctx, &key))
		return XDP_ABORTED;
	b = bpf_memfilter_borrow_id(filter_id);
	if (!b)
		return XDP_ABORTED;
	bpf_memfilter_unborrow(b);
	return key & 1 ? XDP_DROP : XDP_PASS;
}

/* One more kfunc call that returns at once (-EINVAL: key_size 0). */
SEC("xdp")
int call(struct xdp_md *ctx)
{
	struct memfilter_borrowed *b;
	__u64 bits;
	__u32 key;
	int ret;

	if (saddr(ctx, &key))
		return XDP_ABORTED;
	b = bpf_memfilter_borrow((const char *)filter_name);
	if (!b)
		return XDP_ABORTED;
	ret = bpf_memfilter_contains_batch(&b->f, &key, sizeof(key), 0, &bits);
	bpf_memfilter_unborrow(b);
	return ret == -EINVAL ? XDP_DROP : XDP_PASS;
}

/* The contains kfunc with a referenced filter, taken per packet. */
SEC("xdp")
int kfunc_ref(struct xdp_md *ctx)
{
	struct memfilter *f;
	__u32 key;
	int ret;

	if (saddr(ctx, &key))
		return XDP_ABORTED;
	f = bpf_memfilter_get((const char *)filter_name);
	if (!f)
		return XDP_ABORTED;
	ret = bpf_memfilter_contains(f, &key, sizeof(key));
	bpf_memfilter_release(f);
	return ret == 0 ? XDP_DROP : XDP_PASS;
}

/* The contains kfunc with a borrowed filter: the per-packet hot path. */
SEC("xdp")
int kfunc(struct xdp_md *ctx)
{
	struct memfilter_borrowed *b;
	__u32 key;
	int ret;

	if (saddr(ctx, &key))
		return XDP_ABORTED;
	b = bpf_memfilter_borrow((const char *)filter_name);
	if (!b)
		return XDP_ABORTED;
	ret = bpf_memfilter_contains(&b->f, &key, sizeof(key));
	bpf_memfilter_unborrow(b);
	return ret == 0 ? XDP_DROP : XDP_PASS;
}

/* The same, the filter borrowed by its id: an xarray load, no name. */
SEC("xdp")
int kfunc_id(struct xdp_md *ctx)
{
	struct memfilter_borrowed *b;
	__u32 key;
	int ret;

	if (saddr(ctx, &key))
		return XDP_ABORTED;
	b = bpf_memfilter_borrow_id(filter_id);
	if (!b)
		return XDP_ABORTED;
	ret = bpf_memfilter_contains(&b->f, &key, sizeof(key));
	bpf_memfilter_unborrow(b);
	return ret == 0 ? XDP_DROP : XDP_PASS;
}

SEC("xdp")
int map_peek(struct xdp_md *ctx)
{
	__u32 key;

	if (saddr(ctx, &key))
		return XDP_ABORTED;
	return bpf_map_peek_elem(&bloom, &key) == 0 ? XDP_DROP : XDP_PASS;
}

SEC("xdp")
int batch(struct xdp_md *ctx)
{
	struct memfilter_borrowed *b;
	__u64 bits;
	__u32 key;
	int ret;

	if (saddr(ctx, &key))
		return XDP_ABORTED;
	b = bpf_memfilter_borrow((const char *)filter_name);
	if (!b)
		return XDP_ABORTED;
	ret = bpf_memfilter_contains_batch(&b->f, batch_keys,
					   sizeof(batch_keys), sizeof(__u32),
					   &bits);
	bpf_memfilter_unborrow(b);
	batch_hits = bits;
	return ret > 0 ? XDP_DROP : XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
