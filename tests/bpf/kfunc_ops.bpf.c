// SPDX-License-Identifier: GPL-2.0
/*
 * tests/bpf_test.c's programs: a syscall program that runs one memfilter
 * kfunc on a filter named in .rodata, and programs the verifier must refuse
 * (loaded one at a time; autoload is off for all of them).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "memfilter.bpf.h"
#include "kfunc_ops.h"

const volatile char filter_name[64] = "bpf.test";
const char rodata_key[4] = "key";

/* In .bss: keys in a writable map value may be passed to the kfuncs. */
struct kfunc_op_args args;

SEC("syscall")
int kfunc_op(void *ctx)
{
	struct kfunc_op_args *a = &args;
	struct memfilter *f;
	__u32 len = a->len;

	if (len > KFUNC_OP_KEY_MAX)
		return -1;
	f = bpf_memfilter_get((const char *)filter_name);
	if (!f) {
		a->got = 0;
		return 0;
	}
	a->got = 1;
	switch (a->op) {
	case KFUNC_OP_CONTAINS:
		a->ret = bpf_memfilter_contains(f, a->key, len);
		break;
	case KFUNC_OP_ADD:
		a->ret = bpf_memfilter_add(f, a->key, len);
		break;
	case KFUNC_OP_DELETE:
		a->ret = bpf_memfilter_delete(f, a->key, len);
		break;
	case KFUNC_OP_BATCH:
		a->ret = bpf_memfilter_contains_batch(f, a->keys,
						      sizeof(a->keys), 4,
						      &a->bitmap);
		break;
	case KFUNC_OP_BATCH_BADSIZE:
		/* 3 does not divide the 256 bytes of keys. */
		a->ret = bpf_memfilter_contains_batch(f, a->keys,
						      sizeof(a->keys), 3,
						      &a->bitmap);
		break;
	case KFUNC_OP_BATCH_TOOMANY:
		/* 128 keys of 2 bytes: more than 64. */
		a->ret = bpf_memfilter_contains_batch(f, a->keys,
						      sizeof(a->keys), 2,
						      &a->bitmap);
		break;
	default:
		a->ret = -1;
	}
	bpf_memfilter_release(f);
	return 0;
}

/* --- refused by the verifier --------------------------------------------- */

SEC("?xdp")
int neg_no_null_check(struct xdp_md *ctx)
{
	struct memfilter *f = bpf_memfilter_get((const char *)filter_name);
	__u32 key = ctx->ingress_ifindex;
	int ret;

	ret = bpf_memfilter_contains(f, &key, sizeof(key));
	bpf_memfilter_release(f);
	return ret ? XDP_PASS : XDP_DROP;
}

SEC("?xdp")
int neg_no_release(struct xdp_md *ctx)
{
	struct memfilter *f = bpf_memfilter_get((const char *)filter_name);
	__u32 key = ctx->ingress_ifindex;

	if (!f)
		return XDP_PASS;
	return bpf_memfilter_contains(f, &key, sizeof(key)) ? XDP_PASS : XDP_DROP;
}

SEC("?xdp")
int neg_past_end(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct memfilter *f;
	int ret;

	if (data + 14 > end)
		return XDP_PASS;
	f = bpf_memfilter_get((const char *)filter_name);
	if (!f)
		return XDP_PASS;
	/* Only 14 bytes were checked. */
	ret = bpf_memfilter_contains(f, data, 64);
	bpf_memfilter_release(f);
	return ret ? XDP_PASS : XDP_DROP;
}

SEC("?xdp")
int neg_rodata_key(struct xdp_md *ctx)
{
	struct memfilter *f = bpf_memfilter_get((const char *)filter_name);
	int ret;

	if (!f)
		return XDP_PASS;
	ret = bpf_memfilter_contains(f, rodata_key, sizeof(rodata_key));
	bpf_memfilter_release(f);
	return ret ? XDP_PASS : XDP_DROP;
}

SEC("?socket")
int neg_socket_filter(struct __sk_buff *skb)
{
	struct memfilter *f = bpf_memfilter_get((const char *)filter_name);

	if (f)
		bpf_memfilter_release(f);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
