// SPDX-License-Identifier: GPL-2.0
/*
 * BPF race (run in a guest by bench/bpf-bench.sh): the per-packet cost of
 * memfilter's contains kfunc against bpf_map_peek_elem() on the kernel's
 * BPF_MAP_TYPE_BLOOM_FILTER, same keys and the same number of bits, plus
 * programs that stop after each part of a memfilter query (lookup,
 * reference, kfunc call; the lookup by name and by published id) so that
 * the differences break its cost down, the batch kfunc per key, an empty
 * baseline, and the query ioctl per key against the in-kernel per-key cost
 * in the same boot. BPF_PROG_TEST_RUN with repeat gives the mean ns per
 * run; programs alternate over ROUNDS rounds and the median is reported. Both filters' false-positive rates are measured too.
 * Then the race over many keys (keys_race()): bpf_memfilter_contains_id()
 * against the Bloom map's peek at k = 4, 5 and 7 on BENCH_NK present and
 * BENCH_NK absent keys of 4, 8 and 16 bytes, as ratios to the best peer.
 * With --keys, only that race (before/after a module change).
 * Prints markdown.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <linux/memfilter.h>

#include "libmemfilter.h"
#include "bpf_bench.h"
#include "bpf_bench.skel.h"

#define NKEYS	10000		/* keys in both filters */
#define CAP	16384		/* memfilter: 16384 x 8 bits = 131072 bits */
#define BPK	8
#define REPEAT	100000
#define ROUNDS	11

/* The programs, in the order of the table; each run alternates them. */
enum { EMPTY, GET_RELEASE, BORROW, BORROW_ID, CALL, KFUNC_REF, KFUNC,
       KFUNC_ID, CONTAINS_ID, MAP_PEEK, BATCH, BATCH_SCALAR, BATCH_1,
       BATCH_31, BATCH_32, NPROG };

static const char *const names[NPROG] = {
	[EMPTY] = "empty",
	[GET_RELEASE] = "get_release: by-name lookup + reference",
	[BORROW] = "borrow: by-name lookup, no reference",
	[BORROW_ID] = "borrow_id: by-id lookup, no reference",
	[CALL] = "call: borrow + one kfunc call returning at once",
	[KFUNC_REF] = "kfunc_ref: get + contains + release",
	[KFUNC] = "kfunc: borrow + contains + unborrow",
	[KFUNC_ID] = "kfunc_id: borrow_id + contains + unborrow",
	[CONTAINS_ID] = "contains_id: one kfunc, lookup by id + contains",
	[MAP_PEEK] = "map_peek",
	[BATCH] = "batch: borrow + contains_batch (64 keys, AVX2) + unborrow",
	[BATCH_SCALAR] = "batch_scalar: the same 64 keys in 3 calls of 31 + 31 + 2 (scalar)",
	[BATCH_1] = "batch_1: 1 key (scalar)",
	[BATCH_31] = "batch_31: 31 keys (scalar)",
	[BATCH_32] = "batch_32: 32 keys (AVX2)",
};

static void packet(uint8_t *p, uint32_t addr)
{
	memset(p, 0, 64);
	p[12] = 0x08;
	p[14] = 0x45;
	memcpy(p + 14 + 12, &addr, 4);
}

static uint32_t present(int i)
{
	return htonl(0x0a000000 | i);		/* 10.0.0.0/8 */
}

static uint32_t absent(int i)
{
	return htonl(0xac100000 | i);		/* 172.16.0.0/12 */
}

static int run(int prog, uint32_t addr, int repeat, __u32 *ns, __u32 *rv)
{
	uint8_t pkt[64];
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = 34,
		    .repeat = repeat);
	int ret;

	packet(pkt, addr);
	ret = bpf_prog_test_run_opts(prog, &o);
	*ns = o.duration;
	*rv = o.retval;
	return ret;
}

static int cmp_u32(const void *a, const void *b)
{
	return *(const __u32 *)a < *(const __u32 *)b ? -1 :
	       *(const __u32 *)a > *(const __u32 *)b;
}

static int fpr(int prog, unsigned int *hits)
{
	__u32 ns, rv;
	int i;

	*hits = 0;
	for (i = 0; i < NKEYS; i++) {
		if (run(prog, absent(i), 1, &ns, &rv))
			return -1;
		*hits += rv == 1;		/* XDP_DROP: may be present */
	}
	return 0;
}

/*
 * Packets per second through the veth pair: none, drop_all, kfunc,
 * map_peek, kfunc_id, contains_id.
 */
#define PPS_CONF	6
#define PPS_PACKETS	20000
#define PPS_ROUNDS	15

static const char *const pps_names[PPS_CONF] = {
	"no XDP program (delivered to a UDP socket)",
	"drop_all: XDP_DROP without a lookup",
	"kfunc: borrow + contains + unborrow, drops",
	"map_peek: Bloom map peek, drops",
	"kfunc_id: borrow_id + contains + unborrow, drops",
	"contains_id: one kfunc by id, drops",
};

static void print_pps(int ok, const struct pps_result *res)
{
	int c;

	printf("\n## Packets per second through a veth pair\n\n");
	if (!ok) {
		printf("Not measured: the veth pair could not be set up or used (see the guest log).\n");
		return;
	}
	printf("UDP datagrams from 10.0.0.1 (a key in both filters) sent from namespace pa to pb over veth, one CPU, XDP on the receiving veth; %d datagrams per round (sendmmsg() of 64), %d alternating rounds; ns per datagram end to end (the sender's system call runs the receive path too).\n\n",
	       PPS_PACKETS, PPS_ROUNDS);
	printf("| configuration | ns per packet, median | min .. max | kpps (median) | delivered (last round) |\n|---|---|---|---|---|\n");
	for (c = 0; c < PPS_CONF; c++)
		printf("| %s | %.0f | %.0f .. %.0f | %.1f | %lu |\n",
		       pps_names[c], res[c].median, res[c].min, res[c].max,
		       1e6 / res[c].median, res[c].delivered);
	printf("\nkfunc / map_peek (medians): %.3f; kfunc_id / map_peek: %.3f; contains_id / map_peek: %.3f; over drop_all: kfunc %+.0f ns, kfunc_id %+.0f ns, contains_id %+.0f ns, map_peek %+.0f ns per packet.\n",
	       res[2].median / res[3].median, res[4].median / res[3].median,
	       res[5].median / res[3].median,
	       res[2].median - res[1].median, res[4].median - res[1].median,
	       res[5].median - res[1].median, res[3].median - res[1].median);
}

/* One line of the breakdown: med[k][a] - med[k][b] for both keys. */
static void part(const char *what, __u32 med[2][NPROG], int a, int b)
{
	printf("- %s: %d / %d\n", what, (int)med[0][a] - (int)med[0][b],
	       (int)med[1][a] - (int)med[1][b]);
}

/* A batch program per key: its median over @n, as a table row. */
static void per_key(__u32 med[2][NPROG], int p, int n, const char *what)
{
	printf("| %s, per key (/%d) | %.1f | %.1f |\n", what, n,
	       (double)med[0][p] / n, (double)med[1][p] / n);
}

/* (med[k][a] - med[k][b]) / @n for both keys. */
static void slope(const char *what, __u32 med[2][NPROG], int a, int b, int n)
{
	printf("- %s: %.1f / %.1f\n", what,
	       ((double)med[0][a] - med[0][b]) / n,
	       ((double)med[1][a] - med[1][b]) / n);
}

/*
 * What the AVX2 path costs a call beyond the scalar path, apart from its
 * keys: kernel_fpu_begin()/end() and the vector code's setup, from the
 * two paths' per-key slopes (key @k).
 */
static double simd_fixed(__u32 med[2][NPROG], int k)
{
	double scalar = ((double)med[k][BATCH_31] - med[k][BATCH_1]) / 30;
	double avx2 = ((double)med[k][BATCH] - med[k][BATCH_32]) / 32;

	return (med[k][BATCH_32] - 32 * avx2) - (med[k][BATCH_31] - 31 * scalar);
}

/* Over the empty program: (a - empty) / @na over (b - empty) / @nb, key @k. */
static double net(__u32 med[2][NPROG], int k, int a, int na, int b, int nb)
{
	return (((double)med[k][a] - med[k][EMPTY]) / na) /
	       (((double)med[k][b] - med[k][EMPTY]) / nb);
}

/*
 * The query ioctl on the same filter in the same boot:
 * ns per call of IO_SIZES[i] 4-byte keys (half present), CALLS calls per
 * measurement, sizes alternating over ROUNDS rounds, medians in @ns.
 */
#define IO_NSIZES	4
#define IO_CALLS	2000
static const unsigned int io_sizes[IO_NSIZES] = { 0, 64, 256, 1024 };

static int ioctl_bench(int fd, double ns[IO_NSIZES])
{
	static uint32_t keys[1024];
	static uint64_t res[1024 / 64];
	double t[IO_NSIZES][ROUNDS], d;
	struct memfilter_keys q;
	struct timespec a, b;
	int i, r, c;

	for (i = 0; i < 1024; i++)
		keys[i] = i % 2 ? present(i) : absent(i);
	for (r = 0; r < ROUNDS; r++)
		for (i = 0; i < IO_NSIZES; i++) {
			memset(&q, 0, sizeof(q));
			q.size = sizeof(q);
			q.count = io_sizes[i];
			q.key_size = 4;
			q.keys = (uintptr_t)keys;
			q.results = (uintptr_t)res;
			clock_gettime(CLOCK_MONOTONIC, &a);
			for (c = 0; c < IO_CALLS; c++)
				if (ioctl(fd, MEMFILTER_IOC_QUERY, &q) < 0) {
					fprintf(stderr, "bpf_bench: query of %u keys: %s\n",
						io_sizes[i], strerror(errno));
					return -1;
				}
			clock_gettime(CLOCK_MONOTONIC, &b);
			d = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
			t[i][r] = d / IO_CALLS;
		}
	for (i = 0; i < IO_NSIZES; i++) {
		/* median by insertion sort: ROUNDS is small */
		for (r = 1; r < ROUNDS; r++)
			for (c = r; c > 0 && t[i][c - 1] > t[i][c]; c--) {
				d = t[i][c];
				t[i][c] = t[i][c - 1];
				t[i][c - 1] = d;
			}
		ns[i] = t[i][ROUNDS / 2];
	}
	return 0;
}

static void print_ioctl(const double ns[IO_NSIZES], __u32 med[2][NPROG])
{
	double avx2 = (((double)med[0][BATCH] - med[0][BATCH_32]) +
		       ((double)med[1][BATCH] - med[1][BATCH_32])) / 64;
	double scalar = (((double)med[0][BATCH_31] - med[0][BATCH_1]) +
			 ((double)med[1][BATCH_31] - med[1][BATCH_1])) / 60;
	double one = (((double)med[0][KFUNC] - med[0][CALL]) +
		      ((double)med[1][KFUNC] - med[1][CALL])) / 2;
	double slope = (ns[3] - ns[2]) / (io_sizes[3] - io_sizes[2]);
	int i;

	printf("\n## The query ioctl against the in-kernel cost (same boot)\n\n");
	printf("MEMFILTER_IOC_QUERY on the same filter from userspace, 4-byte keys (half present), %d calls per measurement, median of %d alternating rounds; clock_gettime() around the calls, so the syscall, the key copy-in, the hashing and probing of the windows, the bitmap copy-out and the loop are all in.\n\n",
	       IO_CALLS, ROUNDS);
	printf("| keys per call | ns per call | ns per key |\n|---|---|---|\n");
	for (i = 0; i < IO_NSIZES; i++)
		if (io_sizes[i])
			printf("| %u | %.0f | %.1f |\n", io_sizes[i], ns[i],
			       ns[i] / io_sizes[i]);
		else
			printf("| 0 | %.0f | - |\n", ns[i]);
	printf("\n- the system call and its fixed work (0 keys): %.0f ns per call\n",
	       ns[0]);
	printf("- each key past 256 ((1024 keys - 256 keys) / 768): %.1f ns\n",
	       slope);
	printf("- overhead per 256-key window (256 keys - 256 x that slope): %.0f ns\n",
	       ns[2] - 256 * slope);
	printf("- in-kernel per key, same boot (from the XDP programs above, mean of present and absent packets): AVX2 batch %.1f, scalar batch %.1f, one contains call (kfunc - call) %.1f ns\n",
	       avx2, scalar, one);
	printf("- ioctl per key at 256 keys over the in-kernel AVX2 batch per key: %.2f (goal: at most 1.5); over the scalar batch per key: %.2f; over one in-kernel contains: %.2f\n",
	       ns[2] / 256 / avx2, ns[2] / 256 / scalar, ns[2] / 256 / one);
	printf("- the same at 1024 keys: %.2f / %.2f / %.2f\n",
	       ns[3] / 1024 / avx2, ns[3] / 1024 / scalar, ns[3] / 1024 / one);
}

/*
 * The race over many keys. Per key size, a memfilter filter of the same
 * 131072 bits and k as above and three Bloom maps of 131072 bits at k = 4,
 * 5 and 7 hold the same NKEYS keys; each run of a program takes the next
 * of BENCH_NK keys from the program's array (present keys, then absent
 * ones, the loader rewriting the arrays between), so a median covers
 * every key of the set about REPEAT / BENCH_NK times. 131072 bits and
 * 10000 keys give the maps FPRs of about 0.5% (k=4), 0.3% (k=5) and 0.2%
 * (k=7); memfilter's blocked Bloom filter at k=5 about 0.45%: the map at
 * k=4 is the peer of equal FPR and memory.
 */
#define KSIZES	3
enum { K_EMPTY, K_ID, K_PEEK4, K_PEEK5, K_PEEK7, KPROGS };

static const unsigned int ksizes[KSIZES] = { 4, 8, 16 };
static const char *const kprog_names[KPROGS] = {
	[K_EMPTY] = "take the key only (kempty)",
	[K_ID] = "bpf_memfilter_contains_id()",
	[K_PEEK4] = "Bloom map peek, k=4",
	[K_PEEK5] = "Bloom map peek, k=5",
	[K_PEEK7] = "Bloom map peek, k=7",
};
/* Bloom maps: max_entries that give 131072 bits at each k (7/5 x n x k). */
static const unsigned int kpeek_k[3] = { 4, 5, 7 };
static const unsigned int kpeek_entries[3] = { 12000, NKEYS, NKEYS };

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Key @i of @size bytes, from the present (@absent 0) or absent set. */
static void race_key(unsigned int size, int absent, uint32_t i, void *out)
{
	uint64_t w[2], base = (uint64_t)size << 48 | (uint64_t)absent << 40 | i;

	w[0] = mix64(base);
	w[1] = mix64(base | 1ull << 32);
	memcpy(out, w, size);
}

struct race {
	int prog[KSIZES][KPROGS];
	int map[KSIZES][3];
	int fd[KSIZES];
	__u32 med[KSIZES][KPROGS][2];	/* ns per run: present, absent */
	double hit[KSIZES][KPROGS][2];	/* fraction of runs that hit */
};

static void *race_keys(struct bpf_bench_bpf *skel, int s)
{
	return s == 0 ? (void *)skel->bss->keys4 :
	       s == 1 ? (void *)skel->bss->keys8 : (void *)skel->bss->keys16;
}

/* Fill the key arrays with the present or absent set. */
static void race_set(struct bpf_bench_bpf *skel, int absent)
{
	int s, i;

	for (s = 0; s < KSIZES; s++)
		for (i = 0; i < BENCH_NK; i++)
			race_key(ksizes[s], absent, i,
				 (char *)race_keys(skel, s) + i * ksizes[s]);
	skel->bss->key_next = 0;
}

/* The filters and maps before load: sizes and published ids. */
static int race_setup(int dev, struct bpf_bench_bpf *skel, struct race *rc)
{
	static const char *const fnames[KSIZES] = {
		"bench.k4", "bench.k8", "bench.k16",
	};
	struct bpf_map *maps[KSIZES][3] = {
		{ skel->maps.bloom4_k4, skel->maps.bloom4_k5, skel->maps.bloom4_k7 },
		{ skel->maps.bloom8_k4, skel->maps.bloom8_k5, skel->maps.bloom8_k7 },
		{ skel->maps.bloom16_k4, skel->maps.bloom16_k5, skel->maps.bloom16_k7 },
	};
	__u32 id[KSIZES];
	int s, m;

	for (s = 0; s < KSIZES; s++) {
		struct mf_create_opts o = {
			.type = MF_TYPE_BLOOM, .capacity = CAP,
			.bits_per_key = BPK, .fixed_seed = true, .seed = 42,
			.name = fnames[s],
		};

		rc->fd[s] = mf_create(dev, &o);
		if (rc->fd[s] < 0 || mf_pub_id(rc->fd[s], &id[s])) {
			fprintf(stderr, "bpf_bench: filter %s\n", fnames[s]);
			return -1;
		}
		for (m = 0; m < 3; m++)
			if (bpf_map__set_max_entries(maps[s][m],
						     kpeek_entries[m]))
				return -1;
	}
	skel->rodata->id4 = id[0];
	skel->rodata->id8 = id[1];
	skel->rodata->id16 = id[2];
	return 0;
}

/* After load: the same NKEYS keys into every filter and map. */
static int race_fill(struct bpf_bench_bpf *skel, struct race *rc)
{
	struct bpf_program *progs[KSIZES][KPROGS] = {
		{ skel->progs.kempty_4, skel->progs.kid_4, skel->progs.kpeek4_4,
		  skel->progs.kpeek5_4, skel->progs.kpeek7_4 },
		{ skel->progs.kempty_8, skel->progs.kid_8, skel->progs.kpeek4_8,
		  skel->progs.kpeek5_8, skel->progs.kpeek7_8 },
		{ skel->progs.kempty_16, skel->progs.kid_16,
		  skel->progs.kpeek4_16, skel->progs.kpeek5_16,
		  skel->progs.kpeek7_16 },
	};
	struct bpf_map *maps[KSIZES][3] = {
		{ skel->maps.bloom4_k4, skel->maps.bloom4_k5, skel->maps.bloom4_k7 },
		{ skel->maps.bloom8_k4, skel->maps.bloom8_k5, skel->maps.bloom8_k7 },
		{ skel->maps.bloom16_k4, skel->maps.bloom16_k5, skel->maps.bloom16_k7 },
	};
	static unsigned char keys[NKEYS * 16];
	int s, m, p;
	uint32_t i;

	for (s = 0; s < KSIZES; s++) {
		for (p = 0; p < KPROGS; p++)
			rc->prog[s][p] = bpf_program__fd(progs[s][p]);
		for (m = 0; m < 3; m++)
			rc->map[s][m] = bpf_map__fd(maps[s][m]);
		for (i = 0; i < NKEYS; i++) {
			race_key(ksizes[s], 0, i, keys + i * ksizes[s]);
			for (m = 0; m < 3; m++)
				if (bpf_map_update_elem(rc->map[s][m], NULL,
							keys + i * ksizes[s],
							BPF_ANY))
					return -1;
		}
		if (mf_add(rc->fd[s], keys, ksizes[s], NKEYS, NULL, NULL) !=
		    NKEYS) {
			fprintf(stderr, "bpf_bench: adding %u-byte keys failed\n",
				ksizes[s]);
			return -1;
		}
	}
	return 0;
}

/* Rounds alternate programs and sets; medians and hit fractions. */
static int race_run(struct bpf_bench_bpf *skel, struct race *rc)
{
	static __u32 t[KSIZES][KPROGS][2][ROUNDS];
	__u32 ns, rv;
	__u64 h0;
	int r, a, s, p;

	for (r = 0; r < ROUNDS; r++)
		for (a = 0; a < 2; a++) {
			race_set(skel, a);
			for (s = 0; s < KSIZES; s++)
				for (p = 0; p < KPROGS; p++) {
					h0 = skel->bss->hits;
					if (run(rc->prog[s][p], present(0), REPEAT,
						&ns, &rv))
						return -1;
					t[s][p][a][r] = ns;
					if (!r)
						rc->hit[s][p][a] = (double)
							(skel->bss->hits - h0) / REPEAT;
				}
		}
	for (s = 0; s < KSIZES; s++)
		for (p = 0; p < KPROGS; p++)
			for (a = 0; a < 2; a++) {
				qsort(t[s][p][a], ROUNDS, sizeof(__u32), cmp_u32);
				rc->med[s][p][a] = t[s][p][a][ROUNDS / 2];
			}
	/* Every filter must find every present key. */
	for (s = 0; s < KSIZES; s++)
		for (p = K_ID; p < KPROGS; p++)
			if (rc->hit[s][p][0] != 1.0) {
				fprintf(stderr, "bpf_bench: %s, %u-byte keys: a present key missed (%.4f)\n",
					kprog_names[p], ksizes[s], rc->hit[s][p][0]);
				return -1;
			}
	return 0;
}

static double race_net(const struct race *rc, int s, int p, int a)
{
	return (double)rc->med[s][p][a] - rc->med[s][K_EMPTY][a];
}

static void race_print(const struct race *rc)
{
	const char *set[2] = { "present", "absent" };
	double best, n;
	int s, p, a, bp;

	printf("\n## The race over many keys: contains_id against the Bloom map at equal bits\n\n");
	printf("Per key size, one memfilter filter (131072 bits, k=5, published; bpf_memfilter_contains_id()) and three Bloom maps of 131072 bits (k=4: max_entries 12000; k=5 and k=7: %d) hold the same %d keys. Each run takes the next of %d keys (present keys, then %d absent ones) from a global array into a stack buffer; BPF_PROG_TEST_RUN repeat %d (each key about %d times), median of %d alternating rounds, ns per run; net: minus the program that only takes the key. Hit rate: the fraction of runs whose key may be present (absent set: the false-positive rate over its %d keys).\n\n",
	       NKEYS, NKEYS, BENCH_NK, BENCH_NK, REPEAT, REPEAT / BENCH_NK,
	       ROUNDS, BENCH_NK);
	printf("| key | program | present | absent | present net | absent net | hit rate, absent set |\n|---|---|---|---|---|---|---|\n");
	for (s = 0; s < KSIZES; s++)
		for (p = 0; p < KPROGS; p++)
			printf("| %u B | %s | %u | %u | %s%.0f | %s%.0f | %.4f |\n",
			       ksizes[s], kprog_names[p], rc->med[s][p][0],
			       rc->med[s][p][1], p == K_EMPTY ? "(" : "",
			       p == K_EMPTY ? (double)rc->med[s][p][0] :
			       race_net(rc, s, p, 0),
			       p == K_EMPTY ? "(" : "",
			       p == K_EMPTY ? (double)rc->med[s][p][1] :
			       race_net(rc, s, p, 1), rc->hit[s][p][1]);
	printf("\n(kempty's net columns are its whole cost, in parentheses.)\n\n");
	printf("Ratios, net, to the best peer (the cheapest map at any k) and to the map of equal FPR and memory (k=4); goal: contains_id <= 1 on present keys and <= 1.5 on absent keys against the equal-FPR peer:\n\n");
	printf("| key | set | contains_id net | best peer | best peer net | contains_id / best | contains_id / k=4 | contains_id / k=5 | contains_id / k=7 |\n|---|---|---|---|---|---|---|---|---|\n");
	for (s = 0; s < KSIZES; s++)
		for (a = 0; a < 2; a++) {
			bp = K_PEEK4;
			for (p = K_PEEK4; p < KPROGS; p++)
				if (race_net(rc, s, p, a) < race_net(rc, s, bp, a))
					bp = p;
			best = race_net(rc, s, bp, a);
			n = race_net(rc, s, K_ID, a);
			printf("| %u B | %s | %.0f | k=%u | %.0f | %.2f | %.2f | %.2f | %.2f |\n",
			       ksizes[s], set[a], n, kpeek_k[bp - K_PEEK4], best,
			       n / best, n / race_net(rc, s, K_PEEK4, a),
			       n / race_net(rc, s, K_PEEK5, a),
			       n / race_net(rc, s, K_PEEK7, a));
		}
}

static void race_close(struct race *rc)
{
	int s;

	for (s = 0; s < KSIZES; s++) {
		mf_unpublish(rc->fd[s]);
		close(rc->fd[s]);
	}
}

int main(int argc, char **argv)
{
	struct mf_create_opts o = {
		.type = MF_TYPE_BLOOM, .capacity = CAP, .bits_per_key = BPK,
		.fixed_seed = true, .seed = 42, .name = "bench.bpf",
	};
	int pps_fds[PPS_CONF] = { -1 }, pps_ok;
	struct pps_result pps[PPS_CONF];
	__u32 t[2][NPROG][ROUNDS], ns, rv, med[2][NPROG];
	double io_ns[IO_NSIZES];
	struct bpf_bench_bpf *skel;
	unsigned int fp_mf, fp_id, fp_one, fp_map;
	__u64 bits[BATCH_32 - BATCH + 1];
	struct mf_info info;
	struct utsname u;
	static struct race rc;
	int dev, fd, i, r, p, k, progs[NPROG], keys_only;
	uint32_t key, id;

	dev = mf_open_device();
	if (dev < 0) {
		fprintf(stderr, "bpf_bench: %s\n", mf_strerror(dev));
		return 1;
	}
	fd = mf_create(dev, &o);
	if (fd < 0) {
		fprintf(stderr, "bpf_bench: create: %s\n", mf_strerror(fd));
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "--ioctl")) {
		/* The ioctl rows alone (no BPF): before/after a module change. */
		for (i = 0; i < NKEYS; i++) {
			key = present(i);
			if (mf_add(fd, &key, 4, 1, NULL, NULL) != 1)
				return 1;
		}
		if (ioctl_bench(fd, io_ns))
			return 1;
		printf("| keys per call | ns per call |\n|---|---|\n");
		for (i = 0; i < IO_NSIZES; i++)
			printf("| %u | %.0f |\n", io_sizes[i], io_ns[i]);
		return 0;
	}
	i = mf_pub_id(fd, &id);
	if (i) {
		fprintf(stderr, "bpf_bench: published id: %s\n", mf_strerror(i));
		return 1;
	}
	keys_only = argc > 1 && !strcmp(argv[1], "--keys");
	skel = bpf_bench_bpf__open();
	if (!skel || bpf_map__set_max_entries(skel->maps.bloom, NKEYS) ||
	    race_setup(dev, skel, &rc))
		return 1;
	skel->rodata->filter_id = id;
	for (i = 0; i < BENCH_BATCH; i++)
		skel->bss->batch_keys[i] = i % 2 ? present(i) : absent(i);
	if (bpf_bench_bpf__load(skel)) {
		fprintf(stderr, "bpf_bench: load failed\n");
		return 1;
	}
	if (race_fill(skel, &rc))
		return 1;
	if (keys_only) {
		if (race_run(skel, &rc))
			return 1;
		uname(&u);
		printf("Kernel %s in QEMU TCG (read ratios, not absolute times).\n",
		       u.release);
		race_print(&rc);
		race_close(&rc);
		return 0;
	}
	for (i = 0; i < NKEYS; i++) {
		key = present(i);
		if (mf_add(fd, &key, 4, 1, NULL, NULL) != 1 ||
		    bpf_map_update_elem(bpf_map__fd(skel->maps.bloom), NULL,
					&key, BPF_ANY)) {
			fprintf(stderr, "bpf_bench: add %d failed\n", i);
			return 1;
		}
	}
	mf_info(fd, &info);
	progs[EMPTY] = bpf_program__fd(skel->progs.empty);
	progs[GET_RELEASE] = bpf_program__fd(skel->progs.get_release);
	progs[BORROW] = bpf_program__fd(skel->progs.borrow);
	progs[BORROW_ID] = bpf_program__fd(skel->progs.borrow_id);
	progs[CALL] = bpf_program__fd(skel->progs.call);
	progs[KFUNC_REF] = bpf_program__fd(skel->progs.kfunc_ref);
	progs[KFUNC] = bpf_program__fd(skel->progs.kfunc);
	progs[KFUNC_ID] = bpf_program__fd(skel->progs.kfunc_id);
	progs[CONTAINS_ID] = bpf_program__fd(skel->progs.contains_id);
	progs[MAP_PEEK] = bpf_program__fd(skel->progs.map_peek);
	progs[BATCH] = bpf_program__fd(skel->progs.batch);
	progs[BATCH_SCALAR] = bpf_program__fd(skel->progs.batch_scalar);
	progs[BATCH_1] = bpf_program__fd(skel->progs.batch_1);
	progs[BATCH_31] = bpf_program__fd(skel->progs.batch_31);
	progs[BATCH_32] = bpf_program__fd(skel->progs.batch_32);

	/* Rounds alternate the programs; in each, present then absent. */
	for (r = 0; r < ROUNDS; r++)
		for (p = 0; p < NPROG; p++)
			for (k = 0; k < 2; k++) {
				key = k ? absent(r) : present(r);
				/* The batch programs take ~100x longer a run. */
				if (run(progs[p], key, p >= BATCH ? REPEAT / 10 :
					REPEAT, &ns, &rv))
					return 1;
				t[k][p][r] = ns;
			}
	for (k = 0; k < 2; k++)
		for (p = 0; p < NPROG; p++) {
			qsort(t[k][p], ROUNDS, sizeof(__u32), cmp_u32);
			med[k][p] = t[k][p][ROUNDS / 2];
		}
	/* The AVX2 and scalar batches give one bitmap, as does one call each. */
	for (p = BATCH; p <= BATCH_32; p++) {
		if (run(progs[p], present(0), 1, &ns, &rv))
			return 1;
		bits[p - BATCH] = skel->bss->batch_hits;
	}
	if (bits[0] != bits[1] || bits[2] != (bits[0] & 1) ||
	    bits[3] != (bits[0] & ((1ull << 31) - 1)) ||
	    bits[4] != (bits[0] & ((1ull << 32) - 1))) {
		fprintf(stderr, "bpf_bench: batch bitmaps differ: %#llx %#llx %#llx %#llx %#llx\n",
			(unsigned long long)bits[0], (unsigned long long)bits[1],
			(unsigned long long)bits[2], (unsigned long long)bits[3],
			(unsigned long long)bits[4]);
		return 1;
	}
	if (fpr(progs[KFUNC], &fp_mf) || fpr(progs[KFUNC_ID], &fp_id) ||
	    fpr(progs[CONTAINS_ID], &fp_one) || fpr(progs[MAP_PEEK], &fp_map))
		return 1;
	/* The same filter by name and by id: the same answers. */
	if (fp_id != fp_mf || fp_one != fp_mf) {
		fprintf(stderr, "bpf_bench: false positives: kfunc_id %u, contains_id %u, kfunc %u\n",
			fp_id, fp_one, fp_mf);
		return 1;
	}
	if (ioctl_bench(fd, io_ns) || race_run(skel, &rc))
		return 1;
	pps_fds[1] = bpf_program__fd(skel->progs.drop_all);
	pps_fds[2] = progs[KFUNC];
	pps_fds[3] = progs[MAP_PEEK];
	pps_fds[4] = progs[KFUNC_ID];
	pps_fds[5] = progs[CONTAINS_ID];
	pps_ok = !bench_pps(pps_fds, PPS_CONF, PPS_PACKETS, PPS_ROUNDS, pps);

	uname(&u);
	printf("# BPF: memfilter kfunc vs BPF_MAP_TYPE_BLOOM_FILTER\n\n");
	printf("Kernel %s in QEMU TCG (emulated: no caches modelled, AVX2 emulated; read ratios, not absolute times). ",
	       u.release);
	printf("XDP programs identical but for the call, BPF_PROG_TEST_RUN repeat %d (the batch programs %d), median of %d alternating rounds, ns per packet.\n\n",
	       REPEAT, REPEAT / 10, ROUNDS);
	printf("%d IPv4 keys in both filters. memfilter: blocked Bloom, %llu bits, k=%u. Bloom map: max_entries %d, 7 hashes, 131072 bits (the kernel rounds %d x 7 / ln 2 up to a power of two).\n\n",
	       NKEYS, (unsigned long long)info.fill_max, info.k, NKEYS, NKEYS);
	printf("| program | present key | absent key |\n|---|---|---|\n");
	for (p = 0; p < NPROG; p++)
		printf("| %s | %u | %u |\n", names[p], med[0][p], med[1][p]);
	per_key(med, BATCH, BENCH_BATCH, "batch");
	per_key(med, BATCH_SCALAR, BENCH_BATCH, "batch_scalar");
	per_key(med, BATCH_31, 31, "batch_31");
	per_key(med, BATCH_32, 32, "batch_32");
	printf("\nPer-packet parts (differences of medians, ns; present / absent key):\n\n");
	part("by-name lookup (borrow - empty)", med, BORROW, EMPTY);
	part("by-id lookup (borrow_id - empty)", med, BORROW_ID, EMPTY);
	part("reference get + put (get_release - borrow)", med, GET_RELEASE,
	     BORROW);
	part("one more kfunc call (call - borrow)", med, CALL, BORROW);
	part("contains: hash + probe + statistics (kfunc - call)", med, KFUNC,
	     CALL);
	part("memfilter query, borrowed (kfunc - empty)", med, KFUNC, EMPTY);
	part("memfilter query, borrowed by id (kfunc_id - empty)", med,
	     KFUNC_ID, EMPTY);
	part("memfilter query, one call by id (contains_id - empty)", med,
	     CONTAINS_ID, EMPTY);
	part("memfilter query, referenced (kfunc_ref - empty)", med, KFUNC_REF,
	     EMPTY);
	part("Bloom map peek (map_peek - empty)", med, MAP_PEEK, EMPTY);
	printf("\nThe batch kfunc per key (ns; present / absent packet, the same 64 keys either way):\n\n");
	slope("scalar, each key past the first (batch_31 - batch_1) / 30", med,
	      BATCH_31, BATCH_1, 30);
	slope("AVX2, each key past the 32nd (batch - batch_32) / 32", med,
	      BATCH, BATCH_32, 32);
	printf("- the AVX2 path's fixed cost over the scalar one's (batch_32 - 32 x AVX2 per key) - (batch_31 - 31 x scalar per key): %.0f / %.0f\n",
	       simd_fixed(med, 0), simd_fixed(med, 1));
	slope("64 keys, AVX2 over scalar (batch - batch_scalar) / 64", med,
	      BATCH, BATCH_SCALAR, 64);
	printf("\nkfunc / map_peek, whole program: %.2f (present), %.2f (absent); kfunc_id / map_peek: %.2f, %.2f; kfunc_ref / map_peek: %.2f, %.2f; contains_id / map_peek: %.2f, %.2f.\n\n",
	       (double)med[0][KFUNC] / med[0][MAP_PEEK],
	       (double)med[1][KFUNC] / med[1][MAP_PEEK],
	       (double)med[0][KFUNC_ID] / med[0][MAP_PEEK],
	       (double)med[1][KFUNC_ID] / med[1][MAP_PEEK],
	       (double)med[0][KFUNC_REF] / med[0][MAP_PEEK],
	       (double)med[1][KFUNC_REF] / med[1][MAP_PEEK],
	       (double)med[0][CONTAINS_ID] / med[0][MAP_PEEK],
	       (double)med[1][CONTAINS_ID] / med[1][MAP_PEEK]);
	printf("Against the goals (net: minus empty, the packet parse both share; present / absent):\n\n");
	printf("- contains_id over map_peek, net: %.2f / %.2f (goal: below 1)\n",
	       net(med, 0, CONTAINS_ID, 1, MAP_PEEK, 1),
	       net(med, 1, CONTAINS_ID, 1, MAP_PEEK, 1));
	printf("- kfunc (borrow by name + contains) over map_peek, net: %.2f / %.2f\n",
	       net(med, 0, KFUNC, 1, MAP_PEEK, 1),
	       net(med, 1, KFUNC, 1, MAP_PEEK, 1));
	printf("- batch per key over map_peek, net: %.2f / %.2f (goal: below 0.5); batch_scalar: %.2f / %.2f\n\n",
	       net(med, 0, BATCH, BENCH_BATCH, MAP_PEEK, 1),
	       net(med, 1, BATCH, BENCH_BATCH, MAP_PEEK, 1),
	       net(med, 0, BATCH_SCALAR, BENCH_BATCH, MAP_PEEK, 1),
	       net(med, 1, BATCH_SCALAR, BENCH_BATCH, MAP_PEEK, 1));
	printf("False positives over %d absent keys: memfilter %u (%.4f), Bloom map %u (%.4f).\n",
	       NKEYS, fp_mf, (double)fp_mf / NKEYS, fp_map,
	       (double)fp_map / NKEYS);
	race_print(&rc);
	print_ioctl(io_ns, med);
	print_pps(pps_ok, pps);
	race_close(&rc);
	bpf_bench_bpf__destroy(skel);
	mf_unpublish(fd);
	close(fd);
	close(dev);
	return 0;
}
