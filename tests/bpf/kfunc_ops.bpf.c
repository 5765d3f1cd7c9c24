// SPDX-License-Identifier: GPL-2.0
/*
 * tests/bpf_test.c's programs: a syscall program that runs one memfilter
 * kfunc on a filter named in .rodata, two that keep a filter reference in a
 * map, and programs the verifier must refuse (autoload off: the test loads
 * them one at a time).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include "vmlinux.h"
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "memfilter.bpf.h"
#include "kfunc_ops.h"
#include "xdp_saddr.bpf.h"

#define TC_ACT_OK	0
#define TC_ACT_SHOT	2
#define EBUSY		16

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
	case KFUNC_OP_TEST_AND_ADD:
		a->ret = bpf_memfilter_test_and_add(f, a->key, len);
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
	case KFUNC_OP_BATCH_KEYSIZE:
		a->ret = bpf_memfilter_contains_batch(f, a->key, len,
						      a->batch_key_size,
						      &a->bitmap);
		break;
	case KFUNC_OP_CONTAINS_ADDR:
		a->ret = bpf_memfilter_contains_addr(f, a->key, len);
		break;
	default:
		a->ret = -1;
	}
	bpf_memfilter_release(f);
	return 0;
}

/*
 * bpf_memfilter_borrow_id(args.id), then contains on args.key: got says
 * whether the id found a filter, ret is the contains answer.
 */
SEC("xdp")
int borrow_id_op(struct xdp_md *ctx)
{
	struct kfunc_op_args *a = &args;
	struct memfilter_borrowed *b;
	__u32 len = a->len;

	if (len > KFUNC_OP_KEY_MAX)
		return XDP_ABORTED;
	b = bpf_memfilter_borrow_id(a->id);
	if (!b) {
		a->got = 0;
		return XDP_PASS;
	}
	a->got = 1;
	a->ret = bpf_memfilter_contains(&b->f, a->key, len);
	bpf_memfilter_unborrow(b);
	return XDP_PASS;
}

/*
 * bpf_memfilter_contains_id(args.id, args.key) (args.op
 * KFUNC_OP_CONTAINS) or bpf_memfilter_test_and_add_id() (args.op
 * KFUNC_OP_TEST_AND_ADD); ret is its value.
 */
SEC("xdp")
int by_id_op(struct xdp_md *ctx)
{
	struct kfunc_op_args *a = &args;
	__u32 len = a->len;

	if (len > KFUNC_OP_KEY_MAX)
		return XDP_ABORTED;
	if (a->op == KFUNC_OP_CONTAINS)
		a->ret = bpf_memfilter_contains_id(a->id, a->key, len);
	else if (a->op == KFUNC_OP_TEST_AND_ADD)
		a->ret = bpf_memfilter_test_and_add_id(a->id, a->key, len);
	else if (a->op == KFUNC_OP_CONTAINS_ADDR)
		a->ret = bpf_memfilter_contains_addr_id(a->id, a->key, len);
	else
		return XDP_ABORTED;
	return XDP_PASS;
}

struct addr_counts addr_counts;

/*
 * A prefix blocklist: drop a packet whose IPv4 or IPv6 source address the
 * filter may cover, by the address lookup of bpf_memfilter_contains_addr_id()
 * (args.id set) or of a borrow by name and bpf_memfilter_contains_addr().
 */
SEC("xdp")
int xdp_addr(struct xdp_md *ctx)
{
	struct addr_counts *c = &addr_counts;
	int ret = memfilter_xdp_saddr_lookup(ctx, args.id,
					     (const char *)filter_name, true);

	if (ret == MEMFILTER_XDP_NOT_IP) {
		__sync_fetch_and_add(&c->not_ip, 1);
		return XDP_PASS;
	}
	if (ret == MEMFILTER_XDP_NO_FILTER) {
		__sync_fetch_and_add(&c->no_filter, 1);
		return XDP_PASS;
	}
	c->last = ret;
	if (ret == 0) {
		__sync_fetch_and_add(&c->dropped, 1);
		return XDP_DROP;
	}
	__sync_fetch_and_add(&c->passed, 1);
	return XDP_PASS;
}

/* A filter reference held by a map (its destructor drops it). */
struct stash_value {
	struct memfilter __kptr *f;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stash_value);
} stash SEC(".maps");

/* Move a reference to the named filter into the map. */
SEC("syscall")
int kptr_stash(void *ctx)
{
	struct stash_value *v;
	struct memfilter *f;
	__u32 zero = 0;

	v = bpf_map_lookup_elem(&stash, &zero);
	if (!v)
		return -1;
	f = bpf_memfilter_get((const char *)filter_name);
	if (!f)
		return -2;
	f = bpf_kptr_xchg(&v->f, f);
	if (f)
		bpf_memfilter_release(f);
	return 0;
}

/* Query args.key in the map's filter, whatever its name now. */
SEC("syscall")
int kptr_contains(void *ctx)
{
	struct kfunc_op_args *a = &args;
	struct stash_value *v;
	struct memfilter *f;
	__u32 zero = 0, len = a->len;

	if (len > KFUNC_OP_KEY_MAX)
		return -1;
	v = bpf_map_lookup_elem(&stash, &zero);
	if (!v)
		return -1;
	f = bpf_kptr_xchg(&v->f, NULL);
	if (!f) {
		a->got = 0;
		return 0;
	}
	a->got = 1;
	a->ret = bpf_memfilter_contains(f, a->key, len);
	f = bpf_kptr_xchg(&v->f, f);
	if (f)
		bpf_memfilter_release(f);
	return 0;
}

/* TC: shoot IPv4 packets whose source may be in the filter. */
static __always_inline int tc_verdict(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct memfilter *f;
	__u32 saddr;
	int ret;

	if ((void *)(ip + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
		return TC_ACT_OK;
	saddr = ip->saddr;
	f = bpf_memfilter_get((const char *)filter_name);
	if (!f)
		return TC_ACT_OK;
	ret = bpf_memfilter_contains(f, &saddr, sizeof(saddr));
	bpf_memfilter_release(f);
	return ret == 0 ? TC_ACT_SHOT : TC_ACT_OK;
}

SEC("tc")
int tc_blocklist(struct __sk_buff *skb)
{
	return tc_verdict(skb);
}

SEC("action")
int act_blocklist(struct __sk_buff *skb)
{
	return tc_verdict(skb);
}

/* TC by published id (args.id): one kfunc call per packet, no handle. */
SEC("tc")
int tc_blocklist_id(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	__u32 saddr;

	if ((void *)(ip + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
		return TC_ACT_OK;
	saddr = ip->saddr;
	return bpf_memfilter_contains_id(args.id, &saddr, sizeof(saddr)) == 0 ?
	       TC_ACT_SHOT : TC_ACT_OK;
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

/* A kptr read in place is untrusted: the kfuncs refuse it. */
SEC("?syscall")
int neg_kptr_untrusted(void *ctx)
{
	struct stash_value *v;
	__u32 zero = 0, key = 1;
	struct memfilter *f;

	v = bpf_map_lookup_elem(&stash, &zero);
	if (!v)
		return 0;
	f = v->f;
	if (!f)
		return 0;
	return bpf_memfilter_contains(f, &key, sizeof(key));
}

/* A borrowed filter holds no reference: releasing it is refused... */
SEC("?xdp")
int neg_borrow_release(struct xdp_md *ctx)
{
	struct memfilter_borrowed *b;

	b = bpf_memfilter_borrow((const char *)filter_name);
	if (b)
		bpf_memfilter_release(&b->f);
	return XDP_PASS;
}

/* ... and so is storing it in a map, where it would outlive the run... */
SEC("?xdp")
int neg_borrow_stash(struct xdp_md *ctx)
{
	struct memfilter_borrowed *b;
	struct stash_value *v;
	__u32 zero = 0;

	v = bpf_map_lookup_elem(&stash, &zero);
	if (!v)
		return XDP_PASS;
	b = bpf_memfilter_borrow((const char *)filter_name);
	if (!b)
		return XDP_PASS;
	b = (void *)bpf_kptr_xchg(&v->f, &b->f);
	if (b)
		bpf_memfilter_unborrow(b);
	return XDP_PASS;
}

/* ... and forgetting to end the borrow. */
SEC("?xdp")
int neg_borrow_no_unborrow(struct xdp_md *ctx)
{
	struct memfilter_borrowed *b;
	__u32 key = ctx->ingress_ifindex;

	b = bpf_memfilter_borrow((const char *)filter_name);
	if (!b)
		return XDP_PASS;
	return bpf_memfilter_contains(&b->f, &key, sizeof(key)) ? XDP_PASS :
								   XDP_DROP;
}

/* Syscall programs are sleepable: no borrowing there. */
SEC("?syscall")
int neg_borrow_syscall(void *ctx)
{
	struct memfilter_borrowed *b;

	b = bpf_memfilter_borrow((const char *)filter_name);
	if (b)
		bpf_memfilter_unborrow(b);
	return 0;
}

/* Nor by id. */
SEC("?syscall")
int neg_borrow_id_syscall(void *ctx)
{
	struct memfilter_borrowed *b;

	b = bpf_memfilter_borrow_id(args.id);
	if (b)
		bpf_memfilter_unborrow(b);
	return 0;
}

/* Nor the lookups by id inside the kfunc. */
SEC("?syscall")
int neg_contains_id_syscall(void *ctx)
{
	__u32 key = 1;

	return bpf_memfilter_contains_id(args.id, &key, sizeof(key));
}

SEC("?syscall")
int neg_test_and_add_id_syscall(void *ctx)
{
	__u32 key = 1;

	return bpf_memfilter_test_and_add_id(args.id, &key, sizeof(key));
}

SEC("?syscall")
int neg_contains_addr_id_syscall(void *ctx)
{
	__u32 addr = 1;

	return bpf_memfilter_contains_addr_id(args.id, &addr, sizeof(addr));
}

/* A key in .rodata: kfunc memory arguments must be writable. */
SEC("?xdp")
int neg_contains_id_rodata_key(struct xdp_md *ctx)
{
	return bpf_memfilter_contains_id(args.id, rodata_key,
					 sizeof(rodata_key)) ? XDP_PASS :
							      XDP_DROP;
}

/* Not registered for socket filters. */
SEC("?socket")
int neg_contains_id_socket(struct __sk_buff *skb)
{
	__u32 key = 1;

	return bpf_memfilter_contains_id(args.id, &key, sizeof(key));
}

SEC("?socket")
int neg_socket_filter(struct __sk_buff *skb)
{
	struct memfilter *f = bpf_memfilter_get((const char *)filter_name);

	if (f)
		bpf_memfilter_release(f);
	return 0;
}

/*
 * Each kfunc's key, refused three ways: possibly NULL (an unchecked map
 * lookup), shorter than the size passed, past the packet's checked end;
 * and the batch's bitmap possibly NULL. CALL uses f (a referenced
 * filter), k, n and bm.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[8]);
} keybuf SEC(".maps");

#define NEG_KEY_BODY(call) do {						\
	struct memfilter *f = bpf_memfilter_get((const char *)filter_name); \
	__u64 bm = 0, *bmp = &bm;					\
	int ret;							\
									\
	(void)bmp;							\
	if (!f)								\
		return XDP_PASS;					\
	ret = call;							\
	bpf_memfilter_release(f);					\
	return ret || bm ? XDP_PASS : XDP_DROP;				\
} while (0)

#define NEG_KEY(name, call)						\
SEC("?xdp")								\
int neg_##name##_null_key(struct xdp_md *ctx)				\
{									\
	__u32 zero = 0;							\
	void *k = bpf_map_lookup_elem(&keybuf, &zero);			\
	__u32 n = 4;							\
									\
	NEG_KEY_BODY(call);						\
}									\
SEC("?xdp")								\
int neg_##name##_short_key(struct xdp_md *ctx)				\
{									\
	__u32 key = ctx->ingress_ifindex;				\
	void *k = &key;							\
	__u32 n = 8;							\
									\
	NEG_KEY_BODY(call);						\
}									\
SEC("?xdp")								\
int neg_##name##_past_end(struct xdp_md *ctx)				\
{									\
	void *k = (void *)(long)ctx->data;				\
	__u32 n = 64;							\
									\
	if (k + 14 > (void *)(long)ctx->data_end)			\
		return XDP_PASS;					\
	NEG_KEY_BODY(call);						\
}

NEG_KEY(contains, bpf_memfilter_contains(f, k, n))
NEG_KEY(add, bpf_memfilter_add(f, k, n))
NEG_KEY(delete, bpf_memfilter_delete(f, k, n))
NEG_KEY(test_and_add, bpf_memfilter_test_and_add(f, k, n))
NEG_KEY(contains_batch, bpf_memfilter_contains_batch(f, k, n, 4, bmp))
NEG_KEY(contains_id, bpf_memfilter_contains_id(args.id, k, n))
NEG_KEY(test_and_add_id, bpf_memfilter_test_and_add_id(args.id, k, n))
NEG_KEY(contains_addr, bpf_memfilter_contains_addr(f, k, n))
NEG_KEY(contains_addr_id, bpf_memfilter_contains_addr_id(args.id, k, n))

SEC("?xdp")
int neg_contains_batch_null_bitmap(struct xdp_md *ctx)
{
	__u32 keys[2] = { ctx->ingress_ifindex, 1 }, zero = 0;
	__u64 *nbm = bpf_map_lookup_elem(&keybuf, &zero);

	NEG_KEY_BODY(bpf_memfilter_contains_batch(f, keys, sizeof(keys), 4,
						  nbm));
}

/*
 * A bpf_wq callback of an XDP program borrows a filter by id and queries
 * it wq_state.rounds times (keys i % 1000) while the test unpublishes and
 * closes the filter. The callback is verified as sleepable but filtered
 * as its XDP program, and runs in a kworker under rcu_read_lock_trace()
 * only: the filter must outlive it (tests/bpf_test.c, wq_borrow_*).
 */
extern int bpf_wq_init(struct bpf_wq *wq, void *p__map,
		       unsigned int flags) __weak __ksym;
extern int bpf_wq_start(struct bpf_wq *wq, unsigned int flags) __weak __ksym;
extern int bpf_wq_set_callback_impl(struct bpf_wq *wq,
		int (callback_fn)(void *map, int *key, void *value),
		unsigned int flags, void *aux__ign) __weak __ksym;
extern int bpf_iter_num_new(struct bpf_iter_num *it, int start,
			    int end) __weak __ksym;
extern int *bpf_iter_num_next(struct bpf_iter_num *it) __weak __ksym;
extern void bpf_iter_num_destroy(struct bpf_iter_num *it) __weak __ksym;

struct wq_elem {
	struct bpf_wq w;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct wq_elem);
} wqs SEC(".maps");

struct wq_state wq_state;

static int wq_borrow_cb(void *map, int *key, void *value)
{
	struct wq_state *st = &wq_state;
	struct memfilter_borrowed *b;
	struct bpf_iter_num it;
	int *i, hits = 0;
	__u32 k;

	b = bpf_memfilter_borrow_id(st->id);
	if (!b) {
		st->done = WQ_DONE_NOT_FOUND;
		return 0;
	}
	__sync_fetch_and_add(&st->started, 1);
	bpf_iter_num_new(&it, 0, st->rounds);
	while ((i = bpf_iter_num_next(&it))) {
		k = (__u32)*i % 1000;
		hits += !bpf_memfilter_contains(&b->f, &k, sizeof(k));
	}
	bpf_iter_num_destroy(&it);
	bpf_memfilter_unborrow(b);
	st->hits = hits;
	__sync_fetch_and_add(&st->done, WQ_DONE_RAN);
	return 0;
}

SEC("?xdp")
int wq_borrow_start(struct xdp_md *ctx)
{
	struct wq_elem *e;
	int zero = 0, err;

	e = bpf_map_lookup_elem(&wqs, &zero);
	if (!e)
		return XDP_ABORTED;
	err = bpf_wq_init(&e->w, &wqs, 0);
	if (err && err != -EBUSY)
		return XDP_ABORTED;
	if (bpf_wq_set_callback_impl(&e->w, wq_borrow_cb, 0, NULL) ||
	    bpf_wq_start(&e->w, 0))
		return XDP_ABORTED;
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
