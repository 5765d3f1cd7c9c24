/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arguments of tests/bpf/kfunc_ops.bpf.c's syscall program (in its
 * .bss), shared with tests/bpf_test.c.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _KFUNC_OPS_H
#define _KFUNC_OPS_H

/* One byte over MEMFILTER_KEY_MAX: the kfuncs refuse such a key. */
#define KFUNC_OP_KEY_MAX	4097
#define KFUNC_OP_BATCH_KEYS	64

enum {
	KFUNC_OP_CONTAINS = 1,
	KFUNC_OP_ADD,
	KFUNC_OP_DELETE,
	KFUNC_OP_BATCH,		/* 64 keys of 4 bytes */
	KFUNC_OP_BATCH_BADSIZE,	/* key_size 3 does not divide 256 */
	KFUNC_OP_BATCH_TOOMANY,	/* 128 keys of 2 bytes */
	KFUNC_OP_TEST_AND_ADD,
	KFUNC_OP_BATCH_KEYSIZE,	/* one key of args.batch_key_size bytes */
	KFUNC_OP_CONTAINS_ADDR,	/* the address lookup, args.len bytes */
};

/* xdp_addr's counters (in .bss): its verdicts by the address lookup. */
struct addr_counts {
	__u32 dropped;		/* the source address may be covered */
	__u32 passed;		/* certainly not */
	__u32 not_ip;
	__u32 no_filter;	/* no filter by that id or name */
	__s32 last;		/* the last lookup's value */
};

struct kfunc_op_args {
	__u32 op;
	__u32 len;		/* key length, <= KFUNC_OP_KEY_MAX */
	__u8 keys[KFUNC_OP_BATCH_KEYS * 4];
	__s32 got;		/* out: bpf_memfilter_get() found the filter */
	__s32 ret;		/* out: the kfunc's return value */
	__u64 bitmap;		/* out: the batch's bitmap */
	__u32 id;		/* borrow_id_op: the published id */
	__u32 batch_key_size;	/* KFUNC_OP_BATCH_KEYSIZE: its key_size */
	__u8 key[KFUNC_OP_KEY_MAX];
};

/* wq_borrow_start's callback: what it found and did (in .bss). */
#define WQ_DONE_RAN		1
#define WQ_DONE_NOT_FOUND	2

struct wq_state {
	__u32 id;		/* the filter's published id */
	__u32 rounds;		/* queries the callback makes */
	__u32 started;		/* out: it borrowed the filter */
	__u32 done;		/* out: WQ_DONE_* once it ended */
	__s32 hits;		/* out: queries answered present */
};

#endif /* _KFUNC_OPS_H */
