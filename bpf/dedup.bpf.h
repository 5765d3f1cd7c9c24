/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verdict of the dedup examples (tc_dedup.bpf.c, nf_dedup.bpf.c), once
 * they have the key: include after memfilter.bpf.h and tc_dedup.h.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _DEDUP_BPF_H_
#define _DEDUP_BPF_H_

#define ESRCH		3
#define EEXIST		17

/*
 * The key's length for a datagram of @udp_len bytes (the UDP header's
 * length field, host order): 0 if it has no payload, else its first
 * TC_DEDUP_KEY_MAX bytes at most. The last step keeps the value and shows
 * the verifier the bounds on the register (1 .. TC_DEDUP_KEY_MAX): clang
 * folds a second range check into the ones before, and the verifier would
 * then see a length that may be 0 ("invalid zero-sized read").
 */
static __always_inline __u32 dedup_key_len(__u32 udp_len)
{
	if (udp_len <= sizeof(struct udphdr))
		return 0;
	udp_len -= sizeof(struct udphdr);
	if (udp_len > TC_DEDUP_KEY_MAX)
		udp_len = TC_DEDUP_KEY_MAX;
	return ((udp_len - 1) & (TC_DEDUP_KEY_MAX - 1)) + 1;
}

/*
 * Test-and-add @key on the filter with published id @id
 * (bpf_memfilter_test_and_add_id(): one kfunc call), or, when @id is 0, on
 * the filter named @name (a constant string in .rodata), borrowed; never
 * referenced: no atomic operation per packet. Counts into @c. Return:
 * true to drop (the key may have been seen).
 */
static __always_inline bool dedup_seen(const char *name, __u32 id,
				       struct tc_dedup_counts *c,
				       void *key, __u32 len)
{
	struct memfilter_borrowed *b;
	int ret;

	if (id) {
		ret = bpf_memfilter_test_and_add_id(id, key, len);
		if (ret == -ESRCH)
			goto no_filter;
	} else {
		b = bpf_memfilter_borrow(name);
		if (!b)
			goto no_filter;
		ret = bpf_memfilter_test_and_add(&b->f, key, len);
		bpf_memfilter_unborrow(b);
	}
	if (ret == -EEXIST) {
		__sync_fetch_and_add(&c->dropped, 1);
		return true;
	}
	if (ret)
		__sync_fetch_and_add(&c->errors, 1);
	else
		__sync_fetch_and_add(&c->passed, 1);
	return false;

no_filter:
	__sync_fetch_and_add(&c->no_filter, 1);
	return false;
}

#endif /* _DEDUP_BPF_H_ */
