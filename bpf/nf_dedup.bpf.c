// SPDX-License-Identifier: GPL-2.0
/*
 * Netfilter (BPF_PROG_TYPE_NETFILTER, Linux 6.4+, attached with a netfilter
 * BPF link to one hook of one network namespace) dedup: drop a UDP
 * datagram whose payload (its first TC_DEDUP_KEY_MAX bytes) the filter may
 * have seen already, with one bpf_memfilter_test_and_add() per packet. The
 * BPF twin of memfilter's own hook with `--key l4-payload --action dedup`
 * (Documentation/netfilter.rst), and of tc_dedup.bpf.c.
 *
 * The packet is read through an skb dynptr into stack buffers: the kfuncs
 * take writable memory only, so a read-only dynptr slice cannot be the key.
 * At the IP layer's hooks skb->data is the network header. The filter's
 * name and, if published, its id in .rodata, set by the loader before the
 * program loads (by id: one bpf_memfilter_test_and_add_id() per packet;
 * by name: a borrow, as tc_dedup.bpf.c).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include "vmlinux.h"
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "memfilter.bpf.h"
#include "nf_dedup.h"
#include "dedup.bpf.h"

#define IPPROTO_UDP	17
#define IP_MF		0x2000
#define IP_OFFSET	0x1fff
#define NF_DROP		0
#define NF_ACCEPT	1

extern int bpf_dynptr_from_skb(struct sk_buff *skb, __u64 flags,
			       struct bpf_dynptr *ptr__uninit) __ksym;

const volatile char filter_name[64] = "nf.dedup";
/* Its published id, or 0: find it by name (set by the loader). */
const volatile __u32 filter_id;

struct tc_dedup_counts counts;

/* Offset of the UDP header, or 0 if not first-fragment IPv4/IPv6 UDP. */
static __always_inline __u32 udp_offset(struct bpf_dynptr *pkt)
{
	struct ipv6hdr ip6;
	struct iphdr ip;

	if (bpf_dynptr_read(&ip, sizeof(ip), pkt, 0, 0))
		return 0;
	if (ip.version == 4) {
		if (ip.protocol != IPPROTO_UDP ||
		    (ip.frag_off & bpf_htons(IP_MF | IP_OFFSET)))
			return 0;
		return ip.ihl * 4;
	}
	if (ip.version == 6 && !bpf_dynptr_read(&ip6, sizeof(ip6), pkt, 0, 0) &&
	    ip6.nexthdr == IPPROTO_UDP)
		return sizeof(ip6);
	return 0;
}

SEC("netfilter")
int nf_dedup(struct bpf_nf_ctx *ctx)
{
	__u8 key[TC_DEDUP_KEY_MAX] = {};
	struct bpf_dynptr pkt;
	struct udphdr udp;
	__u32 off, len;

	if (bpf_dynptr_from_skb(ctx->skb, 0, &pkt))
		goto not_udp;
	off = udp_offset(&pkt);
	if (!off || bpf_dynptr_read(&udp, sizeof(udp), &pkt, off, 0))
		goto not_udp;
	len = dedup_key_len(bpf_ntohs(udp.len));
	if (!len)
		goto not_udp;
	if (bpf_dynptr_read(key, len, &pkt, off + sizeof(udp), 0))
		goto not_udp;

	if (dedup_seen((const char *)filter_name, filter_id, &counts, key, len))
		return NF_DROP;
	return NF_ACCEPT;

not_udp:
	__sync_fetch_and_add(&counts.not_udp, 1);
	return NF_ACCEPT;
}

char LICENSE[] SEC("license") = "GPL";
