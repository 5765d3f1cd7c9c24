/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * xdp_saddr.bpf.h: the source address of the Ethernet frame an XDP program
 * sees, IPv4 or IPv6, in network byte order: the key of a blocklist by
 * address (bpf/xdp_blocklist.bpf.c) and the address of an address lookup
 * (bpf_memfilter_contains_addr(), tests/bpf/kfunc_ops.bpf.c); and its
 * lookup in a filter found by id or by name, either way. Include after
 * vmlinux.h, bpf/bpf_endian.h and memfilter.bpf.h.
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

#ifndef ESRCH
#define ESRCH		3
#endif

/* What memfilter_xdp_saddr_lookup() returns besides a kfunc's value. */
#define MEMFILTER_XDP_NOT_IP	1	/* not IPv4 or IPv6, or cut short */
#define MEMFILTER_XDP_NO_FILTER	2	/* no filter of that id or name */

/*
 * Look the frame's source address up in the filter published with id
 * @id, or, with @id 0, as @name (a borrow for this call): as a prefix
 * filter's address (bpf_memfilter_contains_addr*()) when @prefixes, else
 * as a key (bpf_memfilter_contains*()). No reference is taken, so no
 * atomic operation per packet: by id one kfunc call, by name a borrow.
 * With @id and @prefixes constant at load, the verifier keeps one path.
 * Returns the kfunc's value (0: may be present, -ENOENT: absent),
 * MEMFILTER_XDP_NOT_IP or MEMFILTER_XDP_NO_FILTER.
 */
static __always_inline int memfilter_xdp_saddr_lookup(struct xdp_md *ctx,
						      __u32 id,
						      const char *name,
						      bool prefixes)
{
	struct memfilter_borrowed *b;
	__u8 addr[16];
	__u32 len;
	int ret;

	len = memfilter_xdp_saddr(ctx, addr);
	if (!len)
		return MEMFILTER_XDP_NOT_IP;
	if (id) {
		ret = prefixes ? bpf_memfilter_contains_addr_id(id, addr, len) :
				 bpf_memfilter_contains_id(id, addr, len);
		return ret == -ESRCH ? MEMFILTER_XDP_NO_FILTER : ret;
	}
	b = bpf_memfilter_borrow(name);
	if (!b)
		return MEMFILTER_XDP_NO_FILTER;
	ret = prefixes ? bpf_memfilter_contains_addr(&b->f, addr, len) :
			 bpf_memfilter_contains(&b->f, addr, len);
	bpf_memfilter_unborrow(b);
	return ret;
}

#endif /* _MEMFILTER_XDP_SADDR_BPF_H_ */
