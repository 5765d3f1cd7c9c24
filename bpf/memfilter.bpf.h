/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * memfilter.bpf.h: the memfilter kfuncs, for BPF programs (clang -target
 * bpf). Include after vmlinux.h (or linux/bpf.h) and bpf/bpf_helpers.h.
 * Documentation/bpf.rst describes each kfunc and where it may be called.
 *
 * The declarations are __weak, for libbpf versions that let a program test
 * bpf_ksym_exists(bpf_memfilter_get) and still load where the kfuncs are
 * absent. Debian 12's libbpf 1.1 has no bpf_ksym_exists() and emits such a
 * kfunc address load in a form the 6.12 kernel refuses ("ldimm64 insn
 * specifies invalid btf_id"; seen in the stock 6.12 guest). With it,
 * loaders check MEMFILTER_FEAT_BPF_KFUNCS in the MEMFILTER_IOC_API answer
 * (mf_api()) before loading, as bpf/xdp_blocklist.c does.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_BPF_H_
#define _MEMFILTER_BPF_H_

/* A filter; opaque to programs, which only pass it back to the kfuncs. */
struct memfilter {
};

/*
 * A filter borrowed for one run of an XDP, TC or netfilter program: pass
 * &b->f to the kfuncs below.
 */
struct memfilter_borrowed {
	struct memfilter f;
};

/* Returns a referenced filter, or NULL: pair with bpf_memfilter_release(). */
extern struct memfilter *bpf_memfilter_get(const char *name__str) __weak __ksym;
extern void bpf_memfilter_release(struct memfilter *f) __weak __ksym;

/*
 * The per-packet handle: the same lookup without the reference count (no
 * atomic operation), valid until the program returns; pair with
 * bpf_memfilter_unborrow(). XDP, TC and netfilter programs only.
 */
extern struct memfilter_borrowed *
bpf_memfilter_borrow(const char *name__str) __weak __ksym;
extern void bpf_memfilter_unborrow(struct memfilter_borrowed *b) __weak __ksym;
/*
 * bpf_memfilter_borrow() by the filter's published id (mf_pub_id(), the
 * MEMFILTER_IOC_INFO pub_id), a map-like array load instead of a name
 * lookup; NULL once the filter is unpublished. Pair with
 * bpf_memfilter_unborrow().
 */
extern struct memfilter_borrowed *
bpf_memfilter_borrow_id(__u32 id) __weak __ksym;

/* 0: may be present; -ENOENT: definitely absent. */
extern int bpf_memfilter_contains(struct memfilter *f, const void *key,
				  __u32 key__sz) __weak __ksym;
/*
 * 0, or -ENOSPC: a full cuckoo filter, or a growing filter at its limits;
 * -EAGAIN: a growing filter's newest sub-filter is full and its worker is
 * making the next (the key was not added: count it as a miss or retry on
 * a later packet).
 */
extern int bpf_memfilter_add(struct memfilter *f, const void *key,
			     __u32 key__sz) __weak __ksym;
/* 0, -ENOENT: not present, -EOPNOTSUPP: a Bloom filter. */
extern int bpf_memfilter_delete(struct memfilter *f, const void *key,
				__u32 key__sz) __weak __ksym;
/*
 * 0: the key was absent and is now added; -EEXIST: it may have been
 * present; -EOPNOTSUPP: a cuckoo filter; -EAGAIN, -ENOSPC: as for
 * bpf_memfilter_add() on a growing filter (not added, not known present).
 */
extern int bpf_memfilter_test_and_add(struct memfilter *f, const void *key,
				      __u32 key__sz) __weak __ksym;
/*
 * The hot path in one call, by the filter's published id: the lookup of
 * bpf_memfilter_borrow_id() and the query, no handle to check or end.
 * 0: may be present; -ENOENT: definitely absent; -ESRCH: no published
 * filter has that id. XDP, TC and netfilter programs only.
 */
extern int bpf_memfilter_contains_id(__u32 id, const void *key,
				     __u32 key__sz) __weak __ksym;
/*
 * bpf_memfilter_test_and_add() by id, likewise: its return values, or
 * -ESRCH.
 */
extern int bpf_memfilter_test_and_add_id(__u32 id, const void *key,
					 __u32 key__sz) __weak __ksym;
/*
 * Address lookups (a 4-byte IPv4 or 16-byte IPv6 address, network byte
 * order): on a prefix filter, the address's key at each prefix length its
 * family holds, longest first (Documentation/filters.rst, "Address
 * prefixes"); on a filter of keys, the address as a key. 0: may be
 * covered; -ENOENT: certainly not; -EINVAL: addr__sz is not 4 or 16; the
 * _id variant also -ESRCH (no published filter has that id) and is for
 * XDP, TC and netfilter programs only.
 */
extern int bpf_memfilter_contains_addr(struct memfilter *f, const void *addr,
				       __u32 addr__sz) __weak __ksym;
extern int bpf_memfilter_contains_addr_id(__u32 id, const void *addr,
					  __u32 addr__sz) __weak __ksym;
/*
 * How many of keys__sz / key_size keys (at most 64) may be present, their
 * bits set in *bitmap; or -EINVAL.
 */
extern int bpf_memfilter_contains_batch(struct memfilter *f, const void *keys,
					__u32 keys__sz, __u32 key_size,
					__u64 *bitmap) __weak __ksym;

#endif /* _MEMFILTER_BPF_H_ */
