// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark of libmemfilter's offline filters (lib/offline.c), the path
 * of memfilterctl build, query --image and count --image: build a filter
 * of N keys and query N present and N absent keys, through the public
 * API only (mf_offline_create(), mf_offline_add*(), mf_offline_query*()),
 * so that the same source builds against any version of the library and
 * before/after comparisons run the same keys through the same calls.
 *
 *   offline_bench [N]	(default 10000000)
 *
 * Two key layouts: 8-byte keys (mf_offline_add/query) and text lines
 * "key-<i>" (mf_offline_addv/queryv, memfilterctl's path), handed over in
 * batches of 8192 keys as memfilterctl does. Filters: Bloom at 1% FPR and
 * cuckoo with 12-bit fingerprints, both sized for N keys with fixed
 * seeds. Time is the thread's CPU time (CLOCK_THREAD_CPUTIME_ID) per key;
 * pin it with taskset. Prints one tab-separated line per measurement:
 * type, layout, phase, ns/key, answers (keys added, or keys that may be
 * present), so that a mistake in any version shows as a wrong answer.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * The library's header; before/after runs build this file against
 * revisions from before its rename from memfilter.h too.
 */
#if __has_include("libmemfilter.h")
#include "libmemfilter.h"
#else
#include "memfilter.h"
#endif

#define BATCH 8192

static uint64_t mix(uint64_t i)
{
	uint64_t z = i * 0x9e3779b97f4a7c15ULL + 0x1234567ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Keys [0, n) of a layout: 8 bytes each, or text lines with lengths. */
struct keyset {
	size_t n;
	uint64_t *fixed;	/* n keys */
	char *text;		/* the lines back to back */
	uint32_t *lens;		/* n lengths */
	size_t *off;		/* offset of every BATCH-th key in text */
};

static void keyset_make(struct keyset *k, size_t n, uint64_t first)
{
	size_t i, pos = 0;

	k->n = n;
	k->fixed = malloc(n * sizeof(*k->fixed));
	k->text = malloc(n * 24);
	k->lens = malloc(n * sizeof(*k->lens));
	k->off = malloc((n / BATCH + 1) * sizeof(*k->off));
	if (!k->fixed || !k->text || !k->lens || !k->off) {
		perror("malloc");
		exit(1);
	}
	for (i = 0; i < n; i++) {
		k->fixed[i] = mix(first + i);
		if (i % BATCH == 0)
			k->off[i / BATCH] = pos;
		k->lens[i] = sprintf(k->text + pos, "key-%llu",
				     (unsigned long long)(first + i));
		pos += k->lens[i];
	}
}

static void keyset_free(struct keyset *k)
{
	free(k->fixed);
	free(k->text);
	free(k->lens);
	free(k->off);
}

enum phase { ADD, QUERY };

/* One pass over @k in batches; returns the answers, *@ns the CPU time. */
static size_t pass(struct mf_offline *f, const struct keyset *k, bool text,
		   enum phase ph, uint64_t *bits, double *ns)
{
	size_t i, m, answers = 0;
	ssize_t r;
	double t0 = cpu_ns();

	for (i = 0; i < k->n; i += m) {
		m = k->n - i < BATCH ? k->n - i : BATCH;
		if (text && ph == ADD)
			r = mf_offline_addv(f, k->text + k->off[i / BATCH],
					    k->lens + i, m, NULL, NULL);
		else if (text)
			r = mf_offline_queryv(f, k->text + k->off[i / BATCH],
					      k->lens + i, m, bits, NULL);
		else if (ph == ADD)
			r = mf_offline_add(f, k->fixed + i, 8, m, NULL, NULL);
		else
			r = mf_offline_query(f, k->fixed + i, 8, m, bits, NULL);
		if (r < 0) {
			fprintf(stderr, "offline_bench: %s\n", mf_strerror(r));
			exit(1);
		}
		answers += r;
	}
	*ns = (cpu_ns() - t0) / k->n;
	return answers;
}

static void run(int type, bool text, const struct keyset *present,
		const struct keyset *absent)
{
	static const char *const phase[] = { "build", "query-present",
					     "query-absent" };
	struct mf_create_opts o = {
		.type = type, .capacity = present->n, .fixed_seed = true,
		.seed = 42,
	};
	uint64_t bits[BATCH / 64];
	struct mf_offline *f;
	size_t answers[3];
	double ns[3];
	int ret;

	if (type == MF_TYPE_BLOOM)
		o.fpr = 0.01;
	else
		o.fingerprint_bits = 12;
	ret = mf_offline_create(&o, &f);
	if (ret) {
		fprintf(stderr, "offline_bench: create: %s\n", mf_strerror(ret));
		exit(1);
	}
	answers[0] = pass(f, present, text, ADD, NULL, &ns[0]);
	answers[1] = pass(f, present, text, QUERY, bits, &ns[1]);
	answers[2] = pass(f, absent, text, QUERY, bits, &ns[2]);
	for (int p = 0; p < 3; p++)
		printf("%s\t%s\t%s\t%.1f\t%zu\n",
		       type == MF_TYPE_BLOOM ? "bloom" : "cuckoo",
		       text ? "text" : "u64", phase[p], ns[p], answers[p]);
	fflush(stdout);
	mf_offline_free(f);
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 10000000;
	struct keyset present, absent;

	if (!n) {
		fprintf(stderr, "usage: offline_bench [N]\n");
		return 2;
	}
	keyset_make(&present, n, 0);
	keyset_make(&absent, n, 1ULL << 40);
	printf("# type\tkeys\tphase\tns/key\tanswers\n");
	for (int type = MF_TYPE_BLOOM; type <= MF_TYPE_CUCKOO; type++) {
		run(type, false, &present, &absent);
		run(type, true, &present, &absent);
	}
	keyset_free(&present);
	keyset_free(&absent);
	return 0;
}
