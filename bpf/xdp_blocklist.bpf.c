// SPDX-License-Identifier: GPL-2.0
/*
 * XDP blocklist: drop packets whose IPv4 or IPv6 source address may be in a
 * published memfilter (the key is the address, 4 or 16 bytes in network
 * order), pass the rest. Counters in .bss; the filter's name and its
 * published id in .rodata, set by the loader before the program loads.
 *
 * With filter_id set (the loader reads it with mf_pub_id()), the filter is
 * found by id, one array load per packet, inside the one kfunc call that
 * also queries it (bpf_memfilter_contains_id()); the program then follows
 * that publish of the filter only: once it is unpublished, even if
 * republished under the same name (a new id), packets pass and count as
 * no_filter until the program is reloaded. With filter_id 0 (no published
 * filter when the loader ran, or the object attached by `ip link ... xdp
 * obj`) it is found by name on each packet (bpf_memfilter_borrow()), and
 * follows the name.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include "vmlinux.h"
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "memfilter.bpf.h"
#include "xdp_blocklist.h"
#include "xdp_saddr.bpf.h"

#define ESRCH		3

const volatile char filter_name[64] = "xdp.blocklist";
const volatile __u32 filter_id;

struct xdp_blocklist_counts counts;

/* @ret: the contains kfunc's value, 0 when the key may be present. */
static __always_inline int verdict(int ret)
{
	if (ret == 0) {
		__sync_fetch_and_add(&counts.dropped, 1);
		return XDP_DROP;
	}
	__sync_fetch_and_add(&counts.passed, 1);
	return XDP_PASS;
}

SEC("xdp")
int xdp_blocklist(struct xdp_md *ctx)
{
	struct memfilter_borrowed *b;
	__u8 key[16];
	__u32 len;
	int ret;

	len = memfilter_xdp_saddr(ctx, key);
	if (!len)
		goto not_ip;

	/*
	 * No reference, so no atomic operation per packet: by id, one kfunc
	 * call; by name, a borrow. filter_id is constant at load: the
	 * verifier keeps one branch.
	 */
	if (filter_id) {
		ret = bpf_memfilter_contains_id(filter_id, key, len);
		if (ret == -ESRCH)
			goto no_filter;
		return verdict(ret);
	}
	b = bpf_memfilter_borrow((const char *)filter_name);
	if (!b)
		goto no_filter;
	ret = verdict(bpf_memfilter_contains(&b->f, key, len));
	bpf_memfilter_unborrow(b);
	return ret;

no_filter:
	__sync_fetch_and_add(&counts.no_filter, 1);
	return XDP_PASS;
not_ip:
	__sync_fetch_and_add(&counts.not_ip, 1);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
