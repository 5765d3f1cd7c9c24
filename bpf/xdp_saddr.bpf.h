/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * xdp_saddr.bpf.h: the source address of the Ethernet frame an XDP program
 * sees, IPv4 or IPv6, in network byte order: the key of a blocklist by
 * address (bpf/xdp_blocklist.bpf.c) and the address of an address lookup
 * (bpf_memfilter_contains_addr(), tests/bpf/kfunc_ops.bpf.c). Include
 * after vmlinux.h and bpf/bpf_endian.h.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_XDP_SADDR_BPF_H_
#define _MEMFILTER_XDP_SADDR_BPF_H_

#ifndef ETH_P_IP
#define ETH_P_IP	0x0800
#endif
#ifndef ETH_P_IPV6
#define ETH_P_IPV6	0x86DD
#endif

/*
 * Copy the frame's source address to @addr (16 bytes of room): returns its
 * length, 4 or 16, or 0 for a frame that is not IPv4 or IPv6 or is cut
 * short.
 */
static __always_inline __u32 memfilter_xdp_saddr(struct xdp_md *ctx,
						 __u8 *addr)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > end)
		return 0;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = (void *)(eth + 1);

		if ((void *)(ip + 1) > end)
			return 0;
		__builtin_memcpy(addr, &ip->saddr, 4);
		return 4;
	}
	if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);

		if ((void *)(ip6 + 1) > end)
			return 0;
		__builtin_memcpy(addr, &ip6->saddr, 16);
		return 16;
	}
	return 0;
}

#endif /* _MEMFILTER_XDP_SADDR_BPF_H_ */
