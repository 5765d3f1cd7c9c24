// SPDX-License-Identifier: GPL-2.0
/*
 * The netfilter hook's per-packet filter work on the shared core, natively
 * (no emulation): for the 18-byte payloads bench/nf_pps.c sends, copy the
 * key into a scratch buffer (what skb_header_pointer() does for a key that
 * is not linear; a linear one is not copied), then the filter's work as
 * the in-kernel API does it, through the type table on the filters
 * bench/nf_pps.c attaches: count's Bloom query and dedup's window
 * test-and-add, each two ways. "Batch of one" is the path the hook took
 * through memfilter_test_and_add() and memfilter_contains() before the
 * types had single-key operations: the key's hash under the filter's
 * hasher, then the type's batch operation on one hash with its result
 * bitmap cleared and counted. "Single-key op through the table" is the
 * type's contains_key or test_and_add_key (the key hashed inline) reached
 * by an indirect call, as until 6d00d11; "called directly" is today's:
 * memfilter_state_contains_key() and memfilter_state_test_and_add_key(),
 * which compare the ops and call the common types' ops directly, on the
 * filter the hook reads per packet from its name's entry (one more
 * dependent load than the attachment's own pointer it had before names
 * could be replaced: both rows are measured). Built
 * as bench/nf_key_bench_retpoline, this file's indirect calls go through
 * retpolines (-mindirect-branch=thunk), as the stock kernels' do on CPUs
 * without eIBRS (the core's own code is built as for the other benches).
 * Filters hash with XXH3, the default. Fresh payloads
 * (every key new: dedup adds) and one payload repeated (dedup finds it).
 * Best of REPS short runs (the machine may be shared), ns per packet. It leaves out what only the kernel has
 * (the hook call, the IP and UDP header parse, the per-CPU counters, RCU,
 * and vector registers: the kernel's single-key paths are scalar): no
 * in-kernel loop such as BPF_PROG_TEST_RUN exists for a native netfilter
 * hook. Then the prefix rule of saddr/daddr keys on a prefix filter of
 * 1, 4 and 8 lengths against one exact key (prefix_table()). A
 * benchmark: it asserts nothing but that both ways agree and that every
 * address inside a listed prefix is found.
 *
 *   make bench/nf_key_bench && bench/nf_key_bench
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter_type.h"
#include "bench_util.h"
#include "prefix.h"
#include "prefix_lists.h"

#ifndef NF_KEY_BENCH_RETPOLINE
#define NF_KEY_BENCH_RETPOLINE 0
#endif

#define REPS	301
/* Packets per run: short runs, so that the best of them is one time slice. */
#define N	(1 << 14)
#define LEN	18

enum op { HASH, COUNT_BATCH, COUNT_KEY, COUNT_DIRECT, COUNT_ENTRY, DEDUP_BATCH,
	  DEDUP_KEY, DEDUP_DIRECT, DEDUP_ENTRY, NOPS };

static const char *const op_names[NOPS] = {
	[HASH] = "the key's hash alone",
	[COUNT_BATCH] = "count: Bloom query, batch of one (before)",
	[COUNT_KEY] = "count: Bloom query, single-key op through the table (contains_key, until 6d00d11)",
	[COUNT_DIRECT] = "count: Bloom query, single-key op called directly (memfilter_state_contains_key), the filter the attachment's own (until replace)",
	[COUNT_ENTRY] = "count: the same, the filter read per packet from its name's entry (memfilter_name_filter(), today)",
	[DEDUP_BATCH] = "dedup: window test-and-add, batch of one (before)",
	[DEDUP_KEY] = "dedup: window test-and-add, single-key op through the table (test_and_add_key, until 6d00d11)",
	[DEDUP_DIRECT] = "dedup: window test-and-add, single-key op called directly (memfilter_state_test_and_add_key), the filter the attachment's own (until replace)",
	[DEDUP_ENTRY] = "dedup: the same, the filter read per packet from its name's entry (today)",
};

struct nf_filter {
	const struct memfilter_type_ops *ops;
	union memfilter_state s;
};

static volatile u64 sink;

/* The type table as the kernel reaches it: through a pointer it reloads. */
static const struct memfilter_type_ops *volatile opsp;

/*
 * A published name's entry as the hook reads it since replace: the filter
 * pointer loaded once per packet (rcu_dereference(), a READ_ONCE()).
 */
struct nf_entry {
	struct nf_filter *volatile f;
};
static struct nf_entry *volatile entry_b, *volatile entry_w;

static u64 key_hash(struct nf_filter *f, const void *key)
{
	return memfilter_key_hash(opsp, &f->s, key, LEN);
}

/* memfilter_filter_contains() on one hash, as memfilter_contains() did. */
static u64 count_batch(struct nf_filter *f, const void *key)
{
	unsigned long res[1];
	u64 h = key_hash(f, key);

	res[0] = 0;
	opsp->contains(&f->s, &h, 1, res);
	return __builtin_popcountl(res[0]);
}

/* memfilter_filter_test_and_add() on one hash, as the hook's call did. */
static u64 dedup_batch(struct nf_filter *f, const void *key)
{
	unsigned long res[1];
	u64 h = key_hash(f, key);
	u32 done;
	int ret;

	res[0] = 0;
	ret = opsp->test_and_add(&f->s, &h, 1, res, &done);
	return ret ? ret : (int)__builtin_popcountl(res[0]);
}

/* Best of REPS runs of @op over N payloads (fresh: sequence numbers). */
static double run(enum op op, struct nf_filter *b, struct nf_filter *w,
		  int fresh, u64 *answers)
{
	unsigned long long seq;
	unsigned char pkt[LEN] = { 0 }, scratch[LEN];
	double best = 1e30;
	u64 acc = 0;

	memcpy(pkt + 8, "memfilter", 10);
	for (int r = 0; r < REPS; r++) {
		double t0, t;

		/*
		 * Every way starts from empty generations and sees the same
		 * keys and rotations (one a run, so each holds N keys).
		 */
		for (u32 g = 0; g < (r ? 1 : w->s.window.p.generations); g++)
			memfilter_window_rotate_exclusive(&w->s.window, r + 1);
		seq = (unsigned long long)r * N;
		acc = 0;
		t0 = bench_now_ns();
		for (int i = 0; i < N; i++) {
			if (fresh) {
				seq++;
				memcpy(pkt, &seq, 8);
			}
			memcpy(scratch, pkt, LEN);
			/* A new packet: no hash hoisted out of the loop. */
			asm volatile("" : : "r"(scratch) : "memory");
			switch (op) {
			case HASH:
				acc += key_hash(w, scratch);
				break;
			case COUNT_BATCH:
				acc += count_batch(b, scratch);
				break;
			case COUNT_KEY:
				opsp = b->ops;
				acc += opsp->contains_key(&b->s, scratch, LEN);
				break;
			case COUNT_DIRECT:
				acc += memfilter_state_contains_key(opsp, &b->s,
								    scratch, LEN);
				break;
			case COUNT_ENTRY: {
				struct nf_filter *f = entry_b->f;

				acc += memfilter_state_contains_key(f->ops, &f->s,
								    scratch, LEN);
				break;
			}
			case DEDUP_BATCH:
				acc += dedup_batch(w, scratch);
				break;
			case DEDUP_DIRECT:
				acc += memfilter_state_test_and_add_key(opsp,
						&w->s, scratch, LEN);
				break;
			case DEDUP_ENTRY: {
				struct nf_filter *f = entry_w->f;

				acc += memfilter_state_test_and_add_key(f->ops,
						&f->s, scratch, LEN);
				break;
			}
			default:
				acc += opsp->test_and_add_key(&w->s, scratch,
							      LEN);
				break;
			}
		}
		t = (bench_now_ns() - t0) / N;
		if (t < best)
			best = t;
	}
	*answers = acc;
	sink = acc;
	return best;
}

static int make(struct nf_filter *f, const struct memfilter_create *c)
{
	union memfilter_params p;
	u64 bytes;
	void *mem;

	if (memfilter_create_params(c, &f->ops, &p))
		return -1;
	memfilter_hasher_init(f->ops->hasher(&p), MEMFILTER_HASH_XXH3, 42, NULL);
	bytes = f->ops->mem_bytes(&p);
	mem = bench_zalloc(bytes);
	f->ops->init(&f->s, &p, mem);
	return 0;
}

/* Addresses looked up per run of the prefix table. */
#define NADDR	16384

/*
 * A prefix filter (a Bloom filter, 1%, XXH3) of bench/prefix_lists.h's
 * list @which, as ADD_PREFIXES makes it; @which -1: a filter of keys
 * holding list 0's addresses as 4-byte keys (the exact lookup).
 */
static int make_prefixes(struct nf_filter *f, struct memfilter_prefixes *px,
			 int which, struct mf_prefix *list)
{
	struct memfilter_create c = {
		.size = sizeof(c), .type = MEMFILTER_TYPE_BLOOM,
		.capacity = BENCH_PLIST_N, .fpr_ppb = 10000000,
		.prefix_lengths = which < 0 ? 0 : bench_plists[which].nlen,
	};
	u64 want[MEMFILTER_PREFIX_WORDS] = {}, h;
	const struct memfilter_hasher *hs;
	u8 key[MEMFILTER_PREFIX_KEY_MAX];
	unsigned long res;
	u32 i, len, done;

	if (make(f, &c) || memfilter_prefixes_init(px, c.prefix_lengths, NULL))
		return -1;
	bench_plist(which < 0 ? 0 : which, list);
	hs = memfilter_state_hasher(f->ops, &f->s);
	for (i = 0; which >= 0 && i < BENCH_PLIST_N; i++)
		memfilter_prefix_mark(want, (struct memfilter_prefix *)&list[i]);
	if (which >= 0 && memfilter_prefixes_check_add(px, want))
		return -1;
	memfilter_prefixes_add(px, want);
	for (i = 0; i < BENCH_PLIST_N; i++) {
		len = which < 0 ? 4 : memfilter_prefix_key(key, list[i].addr, 4,
							    list[i].length);
		h = memfilter_hash(hs, which < 0 ? list[i].addr : key, len);
		res = 0;
		f->ops->add(&f->s, &h, 1, &res, &done);
	}
	return 0;
}

/*
 * memfilter_contains_addr() as the module builds it: out of line, the
 * address's length a variable (4 or 16 from the packet's family).
 */
static noinline bool contains_addr(struct nf_filter *f,
				   const struct memfilter_prefixes *px,
				   const u8 *addr, u32 len)
{
	return memfilter_prefix_contains(f->ops, &f->s, px, addr, len);
}

static volatile u32 addr_len = 4;

/* Best of REPS runs of NADDR address lookups: ns per lookup. */
static double addr_run(struct nf_filter *f, const struct memfilter_prefixes *px,
		       u8 (*addrs)[4], u64 *hits)
{
	double best = 1e30, t0, t;
	u8 scratch[4];
	u64 acc = 0;

	for (int r = 0; r < REPS; r++) {
		acc = 0;
		t0 = bench_now_ns();
		for (int i = 0; i < NADDR; i++) {
			memcpy(scratch, addrs[i], 4);
			asm volatile("" : : "r"(scratch) : "memory");
			acc += contains_addr(f, px, scratch, addr_len);
		}
		t = (bench_now_ns() - t0) / NADDR;
		if (t < best)
			best = t;
	}
	*hits = acc;
	sink = acc;
	return best;
}

/*
 * The prefix rule's cost per packet, as the hook pays it for an IPv4
 * saddr or daddr key (memfilter_contains_addr(), core/prefix.h): lists of
 * 1, 4 and 8 lengths against the address as one exact key; random global
 * unicast addresses (almost all misses: every length probed) and
 * addresses inside a listed prefix (hits: the walk stops at the first).
 */
static int prefix_table(void)
{
	static u8 miss[NADDR][4], hit[NADDR][4];
	static struct mf_prefix list[BENCH_PLIST_N];
	struct memfilter_prefixes px;
	double t[BENCH_PLISTS + 1][2];
	u64 n[BENCH_PLISTS + 1][2], seed = 99;
	struct nf_filter f;
	struct mf_prefix a;

	for (int w = -1; w < BENCH_PLISTS; w++) {
		if (make_prefixes(&f, &px, w, list))
			return -1;
		for (int i = 0; w < 0 && i < NADDR; i++) {
			mf_plist_addr(&seed, MF_PREFIX_IPV4, a.addr);
			memcpy(miss[i], a.addr, 4);
		}
		/* Hits: inside a listed prefix; for the keys, a key itself. */
		for (int i = 0; i < NADDR; i++) {
			a = list[mf_plist_rand(&seed) % BENCH_PLIST_N];
			if (w >= 0)
				mf_plist_inside(&seed, &list[mf_plist_rand(&seed) %
							     BENCH_PLIST_N], &a, 2);
			memcpy(hit[i], a.addr, 4);
		}
		t[w + 1][0] = addr_run(&f, &px, miss, &n[w + 1][0]);
		t[w + 1][1] = addr_run(&f, &px, hit, &n[w + 1][1]);
		if (n[w + 1][1] != NADDR) {
			fprintf(stderr, "nf_key_bench: %llu of %d addresses inside list %d found\n",
				(unsigned long long)n[w + 1][1], NADDR, w);
			return -1;
		}
	}
	printf("\nAddress lookups (memfilter_contains_addr()'s rule, core/prefix.h), natively: a Bloom filter of %d IPv4 prefixes at 1%% per lookup (bench/prefix_lists.h), XXH3, %d addresses per run, best of %d runs, ns per lookup. Random addresses miss (every length held is probed); addresses inside a listed prefix hit (the walk stops at the first hit, longest first).\n\n",
	       BENCH_PLIST_N, NADDR, REPS);
	printf("| lookup | random addresses (hits) | inside a listed prefix (an exact key: a listed one) | random / exact key |\n|---|---|---|---|\n");
	printf("| the address as one exact key (a filter of keys) | %.2f (%llu) | %.2f | 1.00 |\n",
	       t[0][0], (unsigned long long)n[0][0], t[0][1]);
	for (int w = 0; w < BENCH_PLISTS; w++)
		printf("| prefix filter, %u length%s | %.2f (%llu) | %.2f | %.2f |\n",
		       bench_plists[w].nlen, bench_plists[w].nlen == 1 ? "" : "s",
		       t[w + 1][0], (unsigned long long)n[w + 1][0], t[w + 1][1],
		       t[w + 1][0] / t[0][0]);
	return 0;
}

int main(void)
{
	/* As nf_pps creates them: Bloom of 1000, window 4 x 500000, 1%. */
	struct memfilter_create cb = {
		.size = sizeof(cb), .type = MEMFILTER_TYPE_BLOOM,
		.capacity = 1000, .fpr_ppb = 10000000,
	};
	struct memfilter_create cw = {
		.size = sizeof(cw), .type = MEMFILTER_TYPE_WINDOW,
		.capacity = 500000, .generations = 4, .fpr_ppb = 10000000,
		.period_ms = 1000,
	};
	struct nf_filter b, w;
	struct nf_entry eb = { .f = &b }, ew = { .f = &w };
	double r[NOPS][2];
	u64 ans[NOPS][2];

	if (make(&b, &cb) || make(&w, &cw)) {
		fprintf(stderr, "nf_key_bench: filter parameters refused\n");
		return 1;
	}
	entry_b = &eb;
	entry_w = &ew;
	for (int op = HASH; op < NOPS; op++) {
		opsp = op >= COUNT_BATCH && op <= COUNT_ENTRY ? b.ops : w.ops;
		for (int fresh = 1; fresh >= 0; fresh--)
			r[op][!fresh] = run(op, &b, &w, fresh, &ans[op][!fresh]);
	}
	/* The last run of each way saw the same keys: the same answers. */
	if (memcmp(ans[COUNT_BATCH], ans[COUNT_KEY], sizeof(ans[0])) ||
	    memcmp(ans[COUNT_BATCH], ans[COUNT_DIRECT], sizeof(ans[0])) ||
	    memcmp(ans[COUNT_BATCH], ans[COUNT_ENTRY], sizeof(ans[0])) ||
	    memcmp(ans[DEDUP_BATCH], ans[DEDUP_KEY], sizeof(ans[0])) ||
	    memcmp(ans[DEDUP_BATCH], ans[DEDUP_DIRECT], sizeof(ans[0])) ||
	    memcmp(ans[DEDUP_BATCH], ans[DEDUP_ENTRY], sizeof(ans[0]))) {
		fprintf(stderr, "nf_key_bench: the two ways answered differently\n");
		return 1;
	}

	printf("Native, this host (not the guest): the hook's filter work per packet on the shared core (bench/nf_key_bench.c%s), %d packets of %d bytes per run, XXH3, best of %d runs, ns per packet: copy of the key into a scratch buffer, then:\n\n",
	       NF_KEY_BENCH_RETPOLINE ? ", indirect calls through retpolines" : "",
	       N, LEN, REPS);
	printf("| work | fresh payloads | one payload repeated |\n|---|---|---|\n");
	for (int op = HASH; op < NOPS; op++)
		printf("| %s | %.2f | %.2f |\n", op_names[op], r[op][0], r[op][1]);
	printf("\nSingle-key op through the table over batch of one: count %.2f / %.2f, dedup %.2f / %.2f; called directly over batch of one: count %.2f / %.2f, dedup %.2f / %.2f (goal for dedup: at most 0.5).\n",
	       r[COUNT_KEY][0] / r[COUNT_BATCH][0],
	       r[COUNT_KEY][1] / r[COUNT_BATCH][1],
	       r[DEDUP_KEY][0] / r[DEDUP_BATCH][0],
	       r[DEDUP_KEY][1] / r[DEDUP_BATCH][1],
	       r[COUNT_DIRECT][0] / r[COUNT_BATCH][0],
	       r[COUNT_DIRECT][1] / r[COUNT_BATCH][1],
	       r[DEDUP_DIRECT][0] / r[DEDUP_BATCH][0],
	       r[DEDUP_DIRECT][1] / r[DEDUP_BATCH][1]);
	printf("The filter through its name's entry over the attachment's own: count %.2f / %.2f, dedup %.2f / %.2f.\n",
	       r[COUNT_ENTRY][0] / r[COUNT_DIRECT][0],
	       r[COUNT_ENTRY][1] / r[COUNT_DIRECT][1],
	       r[DEDUP_ENTRY][0] / r[DEDUP_DIRECT][0],
	       r[DEDUP_ENTRY][1] / r[DEDUP_DIRECT][1]);
	return prefix_table() ? 1 : 0;
}
