/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Counters of tc_dedup.bpf.c and nf_dedup.bpf.c (in their .bss), shared
 * with their users.
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

#ifndef __bpf__
#include <stdio.h>

/* The counters as the loaders print them. */
static inline void tc_dedup_print(const struct tc_dedup_counts *c)
{
	printf("passed %llu dropped %llu not_udp %llu no_filter %llu errors %llu\n",
	       (unsigned long long)c->passed, (unsigned long long)c->dropped,
	       (unsigned long long)c->not_udp,
	       (unsigned long long)c->no_filter,
	       (unsigned long long)c->errors);
}
#endif

#endif /* _TC_DEDUP_H */
