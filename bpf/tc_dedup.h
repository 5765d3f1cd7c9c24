/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Counters of tc_dedup.bpf.c (in its .bss), shared with its users.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _TC_DEDUP_H
#define _TC_DEDUP_H

/* The key: the first TC_DEDUP_KEY_MAX bytes of the UDP payload. */
#define TC_DEDUP_KEY_MAX	32

struct tc_dedup_counts {
	__u64 passed;		/* first copies (test-and-add: absent) */
	__u64 dropped;		/* repeats (test-and-add: may have been present) */
	__u64 not_udp;		/* not IPv4/IPv6 UDP with a payload: passed */
	__u64 no_filter;	/* no filter of that name: passed */
	__u64 errors;		/* a kfunc error (a cuckoo filter): passed */
};

#endif /* _TC_DEDUP_H */
