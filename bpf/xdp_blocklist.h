/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * What xdp_blocklist.bpf.c shares with its loader (and its skeleton's
 * users): the counters in its .bss.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _XDP_BLOCKLIST_H
#define _XDP_BLOCKLIST_H

/* Packets seen per outcome. */
struct xdp_blocklist_counts {
	__u64 dropped;		/* source may be in the filter */
	__u64 passed;		/* source definitely not in the filter */
	__u64 not_ip;		/* neither IPv4 nor IPv6, or truncated */
	__u64 no_filter;	/* no filter published under the name */
};

#endif /* _XDP_BLOCKLIST_H */
