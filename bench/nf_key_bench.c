// SPDX-License-Identifier: GPL-2.0
/*
 * The netfilter hook's per-packet filter work on the shared core, natively
 * (no emulation): for the 18-byte payloads bench/nf_pps.c sends, copy the
 * key into a scratch buffer (what skb_header_pointer() does for a key that
 * is not linear; a linear one is not copied), then count's Bloom query
 * (memfilter_bloom_contains_key(): XXH64 of the key + one block) or
 * dedup's window test-and-add (memfilter_window_test_and_add_key(): XXH64
 * + G blocks, one written), on the filters bench/nf_pps.c attaches. Fresh
 * payloads (every key new: dedup adds) and one payload repeated (dedup
 * finds it). Best of REPS runs, ns per packet. It leaves out what only the
 * kernel has (the hook call, the IP and UDP header parse, the per-CPU
 * counters, RCU): no in-kernel loop such as BPF_PROG_TEST_RUN exists for
 * a native netfilter hook. A benchmark: it asserts nothing.
 *
 *   make bench/nf_key_bench && bench/nf_key_bench
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bloom.h"
#include "window.h"
#include "bench_util.h"

#define REPS	11
#define N	(1 << 19)	/* packets per run: about a generation */
#define LEN	18

enum op { HASH, COUNT, DEDUP };

static volatile u64 sink;

/* Best of REPS runs of @op over N payloads (fresh: sequence numbers). */
static double run(enum op op, struct memfilter_bloom *b,
		  struct memfilter_window *w, int fresh)
{
	static unsigned long long seq;
	unsigned char pkt[LEN] = { 0 }, scratch[LEN];
	double best = 1e30;
	u64 acc = 0;
	u32 gen;

	memcpy(pkt + 8, "memfilter", 10);
	for (int r = 0; r < REPS; r++) {
		double t0, t;

		memfilter_window_rotate_exclusive(w, r + 1);	/* not timed */
		t0 = bench_now_ns();
		for (int i = 0; i < N; i++) {
			if (fresh) {
				seq++;
				memcpy(pkt, &seq, 8);
			}
			memcpy(scratch, pkt, LEN);
			/* A new packet: no hash hoisted out of the loop. */
			asm volatile("" : : "r"(scratch) : "memory");
			if (op == HASH)
				acc += memfilter_hash(&w->p.gen.hasher, scratch,
						      LEN);
			else if (op == COUNT)
				acc += memfilter_bloom_contains_key(b, scratch,
								    LEN);
			else
				acc += memfilter_window_test_and_add_key(w, scratch,
									 LEN,
									 &gen);
		}
		t = (bench_now_ns() - t0) / N;
		if (t < best)
			best = t;
	}
	sink = acc;
	return best;
}

int main(void)
{
	struct memfilter_window_params wp;
	struct memfilter_window w;
	struct memfilter_bloom b;
	double r[3][2];

	/* As nf_pps creates them: Bloom of 1000, window 4 x 500000, 1%. */
	if (memfilter_bloom_params_from_fpr(&b.p, 1000, 10000000ULL) ||
	    memfilter_window_params_init(&wp, 500000, 4, 10000000ULL, 0))
		return 1;
	b.words = bench_zalloc(memfilter_bloom_bytes(&b.p));
	memfilter_window_init(&w, &wp, bench_zalloc(memfilter_window_bytes(&wp)), 0);
	for (int op = HASH; op <= DEDUP; op++)
		for (int fresh = 1; fresh >= 0; fresh--)
			r[op][!fresh] = run(op, &b, &w, fresh);

	printf("Native, this host (not the guest): the hook's filter work per packet on the shared core (bench/nf_key_bench.c), %d packets of %d bytes per run, best of %d runs, ns per packet: copy of the key into a scratch buffer, then:\n\n",
	       N, LEN, REPS);
	printf("| work | fresh payloads | one payload repeated |\n|---|---|---|\n");
	printf("| XXH64 of the key alone | %.2f | %.2f |\n", r[0][0], r[0][1]);
	printf("| count: Bloom query (%llu bits) | %.2f | %.2f |\n",
	       (unsigned long long)memfilter_bloom_bytes(&b.p) * 8, r[1][0],
	       r[1][1]);
	printf("| dedup: window test-and-add (%.1f MiB) | %.2f | %.2f |\n",
	       memfilter_window_bytes(&wp) / 1048576.0, r[2][0], r[2][1]);
	return 0;
}
