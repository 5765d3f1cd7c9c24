// SPDX-License-Identifier: GPL-2.0
/*
 * TC (SCHED_CLS, attached to clsact or tcx, ingress or egress) dedup: drop
 * a UDP datagram whose payload (its first TC_DEDUP_KEY_MAX bytes) the
 * filter may have seen already, with one bpf_memfilter_test_and_add() per
 * packet. With a window filter a repeat is dropped within the window and
 * passes again after it: redundant-feed suppression (A/B feeds, replays).
 * The filter's name and, if it is published, its id in .rodata, set by
 * the loader before the program loads: by id, one
 * bpf_memfilter_test_and_add_id() per packet, bound to that publish of the
 * filter; by name (filter_id 0), a borrow per packet, following the name.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include "vmlinux.h"
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "memfilter.bpf.h"
#include "tc_dedup.h"
#include "dedup.bpf.h"

#define ETH_HLEN	14
#define ETH_P_IP	0x0800
#define ETH_P_IPV6	0x86DD
#define IPPROTO_UDP	17
#define IP_MF		0x2000
#define IP_OFFSET	0x1fff
#define TC_ACT_OK	0
#define TC_ACT_SHOT	2

const volatile char filter_name[64] = "tc.dedup";
/* Its published id, or 0: find it by name (set by the loader). */
const volatile __u32 filter_id;

struct tc_dedup_counts counts;

/* Offset of the UDP header, or 0 if the packet is not (first-fragment) UDP. */
static __always_inline __u32 udp_offset(struct __sk_buff *skb)
{
	if (skb->protocol == bpf_htons(ETH_P_IP)) {
		struct iphdr ip;

		if (bpf_skb_load_bytes(skb, ETH_HLEN, &ip, sizeof(ip)) ||
		    ip.protocol != IPPROTO_UDP ||
		    (ip.frag_off & bpf_htons(IP_MF | IP_OFFSET)))
			return 0;
		return ETH_HLEN + ip.ihl * 4;
	}
	if (skb->protocol == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr ip6;

		if (bpf_skb_load_bytes(skb, ETH_HLEN, &ip6, sizeof(ip6)) ||
		    ip6.nexthdr != IPPROTO_UDP)
			return 0;
		return ETH_HLEN + sizeof(ip6);
	}
	return 0;
}

SEC("tc")
int tc_dedup(struct __sk_buff *skb)
{
	__u8 key[TC_DEDUP_KEY_MAX] = {};
	struct udphdr udp;
	__u32 off, len;

	off = udp_offset(skb);
	if (!off || bpf_skb_load_bytes(skb, off, &udp, sizeof(udp)))
		goto not_udp;
	len = dedup_key_len(bpf_ntohs(udp.len));
	if (!len)
		goto not_udp;
	if (bpf_skb_load_bytes(skb, off + sizeof(udp), key, len))
		goto not_udp;

	if (dedup_seen((const char *)filter_name, filter_id, &counts, key, len))
		return TC_ACT_SHOT;
	return TC_ACT_OK;

not_udp:
	__sync_fetch_and_add(&counts.not_udp, 1);
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
