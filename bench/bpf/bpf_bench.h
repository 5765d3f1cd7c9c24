/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by bench/bpf/bpf_bench.bpf.c, bench/bpf_bench.c and
 * bench/bpf_pps.c.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _BPF_BENCH_H
#define _BPF_BENCH_H

#define BENCH_BATCH	64	/* keys per bpf_memfilter_contains_batch() */
#define BENCH_NK	4096	/* keys per set in the race over many keys */

/* A 16-byte key of the race over many keys. */
struct key16 {
	__u64 lo, hi;
};

#define PPS_MAX_CONF	16
#define PPS_MAX_ROUNDS	15

#ifndef __bpf__
/* One configuration's result: ns per packet over the rounds. */
struct pps_result {
	double min, median, max;
	unsigned long delivered;	/* datagrams received, last round */
};

/*
 * bench/bpf_pps.c: send @packets datagrams through a veth pair per round
 * with each of @nconf XDP programs (fd, or -1 for none) on the receiving
 * end, into @res[@nconf]. Return: 0, or -1 if the pair could not be made
 * or used.
 */
int bench_pps(const int *prog_fds, int nconf, int packets, int rounds,
	      struct pps_result *res);

#define PPS_UNIQUE	1	/* every datagram's payload differs */

/*
 * The same loop for any configurations: @apply(@c, @arg) installs
 * configuration @c (0 .. @nconf - 1) in the receiver's namespace (the
 * caller's, when it runs) before each of its rounds, and removes every
 * configuration when @c is -1, at the end; nonzero fails the run. With
 * PPS_UNIQUE in @flags every datagram's payload is a fresh counter.
 */
int pps_run(int nconf, int packets, int rounds, unsigned int flags,
	    int (*apply)(int conf, void *arg), void *arg,
	    struct pps_result *res);
#endif

#endif /* _BPF_BENCH_H */
