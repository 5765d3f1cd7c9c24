// SPDX-License-Identifier: GPL-2.0
/*
 * Prefix blocklists per packet, in one guest boot (bench/nf-bench.sh
 * --prefixes, make bench-nf-prefix): UDP datagrams through a veth pair
 * (bench/bpf_pps.c's pps_run(): 10.0.0.1 in namespace pa to 10.0.0.2 in
 * pb, one CPU, sendmmsg() of 64, the configurations alternating round by
 * round, medians), with each of bench/prefix_lists.h's three lists (4096
 * IPv4 prefixes of 1, 4 and 8 distinct lengths) at pb's prerouting hook
 * by source address three ways: memfilter's hook on a prefix filter (a
 * Bloom filter at 1% per lookup, memfilterctl add --prefixes), the same
 * list in an ipset hash:net set matched by iptables (legacy, raw table),
 * and in an nftables interval set. Every datagram passes: 10.0.0.1 is in
 * no list, so each lookup is a miss, which tests every length held (the
 * common case of a blocklist: most traffic is not on it). Writes a
 * Markdown report on stdout. A benchmark: it asserts nothing but that
 * each configuration could be installed and that every datagram passed.
 *
 *   nf_prefix_pps   (in a guest: bench/nf-bench.sh --prefixes)
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/types.h>

#include "bpf_bench.h"
#include "nf_bench.h"
#include "prefix_lists.h"

#define NFT		"/sbin/nft"
#define IPSET		"/sbin/ipset"
#define IPTABLES	"XTABLES_LIBDIR=/memfilter/bin/xtables /sbin/iptables-legacy"
#define PACKETS		20000
#define ROUNDS		11

/* No hook, then for each list: memfilter, ipset, nftables. */
#define NCONF		(1 + 3 * BENCH_PLISTS)
enum { W_MEMFILTER, W_IPSET, W_NFT, NWAYS };

static const char *const ways[NWAYS] = {
	"memfilter hook, prefix filter",
	"iptables + ipset hash:net",
	"nftables interval set",
};

struct state {
	int cur;		/* installed configuration, -1: none */
	long long id;		/* memfilter's attachment */
};

/* The three files of list @w: memfilterctl's, ipset restore's, nft's. */
static int write_list(unsigned int w)
{
	static struct mf_prefix p[BENCH_PLIST_N];
	char path[64], text[64];
	FILE *m, *i, *n;
	unsigned int k;

	bench_plist(w, p);
	snprintf(path, sizeof(path), "/tmp/pfx%u.txt", w);
	m = fopen(path, "w");
	snprintf(path, sizeof(path), "/tmp/pfx%u.ipset", w);
	i = fopen(path, "w");
	snprintf(path, sizeof(path), "/tmp/pfx%u.nft", w);
	n = fopen(path, "w");
	if (!m || !i || !n)
		return -1;
	fprintf(i, "create pfx%u hash:net family inet hashsize 4096 maxelem 65536\n", w);
	/* auto-merge: a /32 inside a listed /24 is no conflict. */
	fprintf(n, "table ip pfx {\n\tset blk {\n\t\ttype ipv4_addr\n\t\tflags interval\n\t\tauto-merge\n\t\telements = {\n");
	for (k = 0; k < BENCH_PLIST_N; k++) {
		mf_plist_text(&p[k], text, sizeof(text));
		fprintf(m, "%s\n", text);
		fprintf(i, "add pfx%u %s\n", w, text);
		fprintf(n, "\t\t\t%s%s\n", text, k + 1 < BENCH_PLIST_N ? "," : "");
	}
	fprintf(n, "\t\t}\n\t}\n\tchain pre {\n\t\ttype filter hook prerouting priority -350; policy accept;\n\t\tip saddr @blk counter drop\n\t}\n}\n");
	return fclose(m) | fclose(i) | fclose(n) ? -1 : 0;
}

/* The lists' files and filters, made once, outside the timing. */
static int setup(void)
{
	char cmd[256];
	unsigned int w;

	for (w = 0; w < BENCH_PLISTS; w++) {
		if (write_list(w))
			return -1;
		snprintf(cmd, sizeof(cmd),
			 CTL " create nf.pfx.%u --type bloom --capacity %d --fpr 0.01 --prefix-lengths %u && " CTL " add nf.pfx.%u --prefixes /tmp/pfx%u.txt >/dev/null",
			 w, BENCH_PLIST_N, bench_plists[w].nlen, w, w);
		if (sh(cmd))
			return -1;
		/* The traffic's source must pass: not a false positive. */
		snprintf(cmd, sizeof(cmd),
			 CTL " query nf.pfx.%u --prefixes --key 10.0.0.1 >/dev/null", w);
		if (sh(cmd) != 1) {
			fprintf(stderr, "nf_prefix_pps: 10.0.0.1 may be in nf.pfx.%u\n", w);
			return -1;
		}
	}
	return 0;
}

static int remove_cur(struct state *st)
{
	char cmd[320];
	int ret = 0;

	if (st->cur <= 0) {
		st->cur = -1;
		return 0;
	}
	switch ((st->cur - 1) % NWAYS) {
	case W_MEMFILTER:
		ret = nf_bench_detach(st->id, "nf_prefix", st->cur);
		break;
	case W_IPSET:
		snprintf(cmd, sizeof(cmd),
			 IPTABLES " -t raw -L PREROUTING -v -n -x >/tmp/nf_prefix.%d.stats && " IPTABLES " -t raw -F PREROUTING",
			 st->cur);
		ret = sh(cmd);
		break;
	case W_NFT:
		snprintf(cmd, sizeof(cmd),
			 NFT " list chain ip pfx pre >/tmp/nf_prefix.%d.stats && " NFT " delete table ip pfx",
			 st->cur);
		ret = sh(cmd);
		break;
	}
	st->cur = -1;
	return ret;
}

static int apply(int c, void *arg)
{
	struct state *st = arg;
	int w = (c - 1) / NWAYS, ret = 0;
	char cmd[320];

	if (remove_cur(st))
		return -1;
	if (c <= 0)
		return 0;
	switch ((c - 1) % NWAYS) {
	case W_MEMFILTER:
		ret = nf_bench_attach(&st->id,
				      "nf.pfx.%d --hook prerouting --key saddr --action drop-hit --family ipv4",
				      w);
		break;
	case W_IPSET:
		/* Sets are per namespace: made in pb's, once (-exist after). */
		snprintf(cmd, sizeof(cmd),
			 IPSET " -exist restore < /tmp/pfx%d.ipset && " IPTABLES " -t raw -A PREROUTING -m set --match-set pfx%d src -j DROP",
			 w, w);
		ret = sh(cmd);
		break;
	case W_NFT:
		snprintf(cmd, sizeof(cmd), NFT " -f /tmp/pfx%d.nft", w);
		ret = sh(cmd);
		break;
	}
	if (!ret)
		st->cur = c;
	return ret ? -1 : 0;
}

/*
 * Configuration @c dropped nothing in its last round, by its own counters
 * (the receiver's socket may drop datagrams that come too fast: its
 * count is only reported).
 */
static int dropped_none(int c)
{
	int way = (c - 1) % NWAYS;
	char path[64], line[256];
	unsigned long long pkts;
	int ok = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/nf_prefix.%d.stats", c);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (way == W_IPSET) {
			if (strstr(line, "match-set") &&
			    sscanf(line, "%llu", &pkts) == 1)
				ok = !pkts;
		} else if (strstr(line, way == W_NFT ? "counter packets 0 " :
					" drops 0 ")) {
			ok = 1;
		}
	}
	fclose(f);
	return ok;
}

static const char *conf_name(int c, char *buf, size_t len)
{
	if (!c)
		return "no hook (delivered to a UDP socket)";
	snprintf(buf, len, "%s, %u length%s", ways[(c - 1) % NWAYS],
		 bench_plists[(c - 1) / NWAYS].nlen,
		 bench_plists[(c - 1) / NWAYS].nlen == 1 ? "" : "s");
	return buf;
}

int main(void)
{
	struct pps_result res[NCONF];
	struct state st = { .cur = -1 };
	char name[96], path[64], line[256];
	struct utsname u;
	unsigned int w, l;
	int c;
	FILE *f;

	if (setup())
		return 1;
	uname(&u);
	printf("# netfilter: prefix blocklists, memfilter against ipset and nftables\n\n");
	printf("Kernel %s in QEMU TCG (emulated, one vCPU: read ratios, not absolute times).\n\n",
	       u.release);
	printf("UDP datagrams of 18 bytes from 10.0.0.1 in namespace pa to 10.0.0.2 in pb over veth; %d datagrams per round (sendmmsg() of 64: the sender's system call runs the receive path too), %d rounds, the configurations alternating round by round, each installed afresh before its round (outside the timing); ns per datagram. At pb's IPv4 prerouting hook, by source address, one of three lists of %d prefixes (bench/prefix_lists.h: global unicast, never 10/8), three ways: memfilter's hook (priority -350) on a Bloom prefix filter at 1%% per lookup; iptables-legacy's raw table (priority -300) matching an ipset hash:net set; an nftables chain (priority -350) matching an interval set (auto-merge). 10.0.0.1 is in none, so every datagram passes and each lookup is a miss: every length held is tried.\n\n",
	       PACKETS, ROUNDS, BENCH_PLIST_N);
	printf("| list | lengths (prefixes of each) |\n|---|---|\n");
	for (w = 0; w < BENCH_PLISTS; w++) {
		printf("| %u | ", w);
		for (l = 0; l < bench_plists[w].nlen; l++)
			printf("%s/%u (%u)", l ? ", " : "", bench_plists[w].len[l],
			       bench_plists[w].count[l]);
		printf(" |\n");
	}
	fflush(stdout);
	if (pps_run(NCONF, PACKETS, ROUNDS, 0, apply, &st, res))
		return 1;
	printf("\n| configuration | ns per packet, median | min .. max | over no hook, ns | delivered (last round) |\n|---|---|---|---|---|\n");
	for (c = 0; c < NCONF; c++) {
		printf("| %s | %.0f | %.0f .. %.0f | %+.0f | %lu |\n",
		       conf_name(c, name, sizeof(name)), res[c].median,
		       res[c].min, res[c].max, res[c].median - res[0].median,
		       res[c].delivered);
		if (c && !dropped_none(c)) {
			fprintf(stderr, "nf_prefix_pps: %s dropped packets\n",
				name);
			return 1;
		}
	}
	printf("\nPer packet over no hook, memfilter / ipset and memfilter / nftables (medians):\n\n| lengths | memfilter / ipset hash:net | memfilter / nftables interval set |\n|---|---|---|\n");
	for (w = 0; w < BENCH_PLISTS; w++) {
		double m = res[1 + NWAYS * w + W_MEMFILTER].median - res[0].median;
		double i = res[1 + NWAYS * w + W_IPSET].median - res[0].median;
		double n = res[1 + NWAYS * w + W_NFT].median - res[0].median;

		printf("| %u | %.2f | %.2f |\n", bench_plists[w].nlen, m / i, m / n);
	}
	printf("\nWhole packets (each configuration's median over no hook's, end to end):\n\n| lengths | memfilter | ipset | nftables |\n|---|---|---|---|\n");
	for (w = 0; w < BENCH_PLISTS; w++)
		printf("| %u | %.3f | %.3f | %.3f |\n", bench_plists[w].nlen,
		       res[1 + NWAYS * w + W_MEMFILTER].median / res[0].median,
		       res[1 + NWAYS * w + W_IPSET].median / res[0].median,
		       res[1 + NWAYS * w + W_NFT].median / res[0].median);
	for (c = 1; c < NCONF; c++) {
		snprintf(path, sizeof(path), "/tmp/nf_prefix.%d.stats", c);
		f = fopen(path, "r");
		if (!f)
			continue;
		printf("\n%s, last round:\n\n```\n", conf_name(c, name, sizeof(name)));
		while (fgets(line, sizeof(line), f))
			fputs(line, stdout);
		printf("```\n");
		fclose(f);
	}
	return 0;
}
