// SPDX-License-Identifier: GPL-2.0
/*
 * XDP blocklist: drop packets whose IPv4 or IPv6 source address may be in a
 * published memfilter (the key is the address, 4 or 16 bytes in network
 * order), pass the rest. Counters in .bss; the filter's name and its
 * published id in .rodata, set by the loader before the program loads.
 *
 * With filter_id set (the loader reads it with mf_pub_id()), the filter is
 * found by id, one array load per packet, inside the one kfunc call that
 * also queries it (bpf_memfilter_contains_id()); the id stays with the
 * name when memfilterctl swap or load --replace puts another filter under
 * it (MEMFILTER_IOC_REPLACE, EXCHANGE), so the program answers with the
 * new filter from the next packet on. Once the name is unpublished, even
 * if published again (a new id), packets pass and count as no_filter
 * until the program is reloaded. With filter_id 0 (no published
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
	/* The source address as a key; filter_id is constant at load. */
	int ret = memfilter_xdp_saddr_lookup(ctx, filter_id,
					     (const char *)filter_name, false);

	if (ret == MEMFILTER_XDP_NOT_IP) {
		__sync_fetch_and_add(&counts.not_ip, 1);
		return XDP_PASS;
	}
	if (ret == MEMFILTER_XDP_NO_FILTER) {
		__sync_fetch_and_add(&counts.no_filter, 1);
		return XDP_PASS;
	}
	return verdict(ret);
}

char LICENSE[] SEC("license") = "GPL";
