// SPDX-License-Identifier: GPL-2.0
/*
 * Packets per second through a veth pair with netfilter at the receiver's
 * prerouting hook (bench/bpf_pps.c's loop, pps_run(): namespaces pa and
 * pb, UDP from 10.0.0.1 to 10.0.0.2, one CPU, sendmmsg() of 64, the
 * configurations alternating round by round, medians): no hook,
 * memfilter's native hook in `count` and in `dedup` (window filter,
 * l4-payload key), what a user would write instead (an nftables dynamic
 * set with a timeout, Debian's nft), and the BPF twin (bpf/nf_dedup) where
 * the module has kfuncs. Two passes of the same traffic for every
 * configuration: every payload fresh (dedup passes them all: test, then
 * add), then every payload the same (dedup drops them: test only).
 * Writes a Markdown report on stdout. A benchmark: it asserts nothing but
 * that each configuration could be installed.
 *
 *   nf_pps   (in a guest: bench/nf-bench.sh, make bench-nf)
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/types.h>

#include "bpf_bench.h"
#include "nf_bench.h"

#define NF_DEDUP	"/memfilter/bin/nf_dedup"
#define NFT		"/sbin/nft"
#define NFT_FILE	"/tmp/nf_pps.nft"
#define PACKETS		20000
#define ROUNDS		15

enum { C_NONE, C_COUNT, C_DEDUP, C_NFT, C_BPF, NCONF };

static const char *const names[NCONF] = {
	"no hook (delivered to a UDP socket)",
	"memfilter count: l4-payload key, Bloom query",
	"memfilter dedup: l4-payload key, window test-and-add",
	"nftables dedup: set lookup + dynset add, timeout 10s",
	"BPF netfilter dedup (bpf/nf_dedup): kfunc test-and-add",
};

/*
 * The dedup rule a user would write: drop a datagram whose source, source
 * port and first 8 payload bytes (the sequence number) were seen in the
 * last 10 s, else remember them. Made afresh every round. A counter on
 * the drop (memfilter's hook counts too).
 */
static const char nft_rules[] =
	"table ip nf_pps {\n"
	"	set seen {\n"
	"		typeof ip saddr . udp sport . @th,64,64\n"
	"		size 1048576\n"
	"		flags dynamic,timeout\n"
	"		timeout 10s\n"
	"	}\n"
	"	chain pre {\n"
	"		type filter hook prerouting priority -350; policy accept;\n"
	"		udp dport 9999 ip saddr . udp sport . @th,64,64 @seen counter drop\n"
	"		udp dport 9999 add @seen { ip saddr . udp sport . @th,64,64 }\n"
	"	}\n"
	"}\n";

struct state {
	int cur;		/* installed configuration, -1: none */
	long long id;		/* native attachment */
	pid_t bpf;		/* the nf_dedup loader */
	FILE *bpf_out;
};

/* Attach filter @name with @action; its ID into @st. */
static int attach(struct state *st, const char *name, const char *action)
{
	return nf_bench_attach(&st->id,
			       "%s --hook prerouting --key l4-payload --action %s --family ipv4",
			       name, action);
}

/* The loader in this namespace; attached once it says so. */
static int bpf_start(struct state *st)
{
	char line[128];
	int fds[2];

	if (pipe(fds))
		return -1;
	st->bpf = fork();
	if (st->bpf < 0)
		return -1;
	if (!st->bpf) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execl(NF_DEDUP, NF_DEDUP, "nf.pps.bpf", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	st->bpf_out = fdopen(fds[0], "r");
	if (st->bpf_out && fgets(line, sizeof(line), st->bpf_out) &&
	    !strncmp(line, "attached", 8))
		return 0;
	kill(st->bpf, SIGTERM);
	waitpid(st->bpf, NULL, 0);
	if (st->bpf_out)
		fclose(st->bpf_out);
	st->bpf = 0;
	return -1;
}

static int remove_cur(struct state *st)
{
	int ret = 0, ch;
	FILE *f;

	/* The counters of each configuration's last round, for the report. */
	switch (st->cur) {
	case C_COUNT:
	case C_DEDUP:
		ret = nf_bench_detach(st->id, "nf_pps", st->cur);
		break;
	case C_NFT:
		ret = sh(NFT " list chain ip nf_pps pre >/tmp/nf_pps.3.stats && "
			 NFT " delete table ip nf_pps");
		break;
	case C_BPF:
		kill(st->bpf, SIGTERM);
		f = fopen("/tmp/nf_pps.4.stats", "w");	/* its counters */
		while ((ch = fgetc(st->bpf_out)) != EOF)
			if (f)
				fputc(ch, f);
		if (f)
			fclose(f);
		fclose(st->bpf_out);
		waitpid(st->bpf, NULL, 0);
		st->bpf = 0;
		break;
	}
	st->cur = -1;
	return ret;
}

static int apply(int c, void *arg)
{
	struct state *st = arg;
	int ret = 0;

	if (remove_cur(st))
		return -1;
	switch (c) {
	case C_COUNT:
		ret = attach(st, "nf.pps.count", "count");
		break;
	case C_DEDUP:
		ret = attach(st, "nf.pps.dedup", "dedup");
		break;
	case C_NFT:
		ret = sh(NFT " -f " NFT_FILE);
		break;
	case C_BPF:
		ret = bpf_start(st);
		break;
	}
	if (!ret)
		st->cur = c;
	return ret;
}

/* The counters of configuration @c's last round. */
static void counters(int c)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/nf_pps.%d.stats", c);
	f = fopen(path, "r");
	if (!f)
		return;
	printf("\n%s, last round:\n\n```\n", names[c]);
	while (fgets(line, sizeof(line), f))
		fputs(line, stdout);
	printf("```\n");
	fclose(f);
}

static void table(const char *what, int nconf, const struct pps_result *res)
{
	int c;

	printf("\n### %s\n\n", what);
	printf("| configuration | ns per packet, median | min .. max | kpps (median) | / no hook | delivered (last round) |\n|---|---|---|---|---|---|\n");
	for (c = 0; c < nconf; c++)
		printf("| %s | %.0f | %.0f .. %.0f | %.1f | %.3f | %lu |\n",
		       names[c], res[c].median, res[c].min, res[c].max,
		       1e6 / res[c].median, res[c].median / res[0].median,
		       res[c].delivered);
	printf("\nOver no hook (medians): count %+.0f ns, dedup %+.0f ns, nftables %+.0f ns",
	       res[C_COUNT].median - res[0].median,
	       res[C_DEDUP].median - res[0].median,
	       res[C_NFT].median - res[0].median);
	if (nconf > C_BPF)
		printf(", BPF %+.0f ns", res[C_BPF].median - res[0].median);
	printf(" per packet; nftables / memfilter dedup: %.3f.\n",
	       res[C_NFT].median / res[C_DEDUP].median);
	for (c = C_COUNT; c < nconf; c++)
		counters(c);
}

int main(void)
{
	struct pps_result fresh[NCONF], same[NCONF];
	struct state st = { .cur = -1 };
	struct utsname u;
	int nconf = NCONF;
	FILE *f;

	if (sh(CTL " create nf.pps.count --type bloom --capacity 1000 >/dev/null") ||
	    sh(CTL " create nf.pps.dedup --window 10s --capacity 500000 >/dev/null") ||
	    sh(CTL " create nf.pps.bpf --window 10s --capacity 500000 >/dev/null"))
		return 1;
	f = fopen(NFT_FILE, "w");
	if (!f || fputs(nft_rules, f) < 0 || fclose(f))
		return 1;
	/*
	 * The BPF twin needs kfuncs and netfilter programs (6.4+); pps_run()
	 * enters pb, so this check runs in the initial namespace: attach
	 * there once, and leave it out if that fails.
	 */
	if (apply(C_BPF, &st) || apply(-1, &st)) {
		fprintf(stderr, "nf_pps: no BPF netfilter dedup on this kernel\n");
		nconf = C_BPF;
	}
	uname(&u);
	printf("# netfilter: memfilter's hook vs nftables\n\n");
	printf("Kernel %s in QEMU TCG (emulated, one vCPU: read ratios, not absolute times).\n\n",
	       u.release);
	printf("UDP datagrams of 18 bytes (an 8-byte sequence number and a constant tail) from 10.0.0.1 in namespace pa to 10.0.0.2 in pb over veth, everything at pb's IPv4 prerouting hook at priority -350; %d datagrams per round (sendmmsg() of 64: the sender's system call runs the receive path too, so its time per datagram is the time per packet end to end), %d rounds, the configurations alternating round by round, each installed afresh before its round (outside the timing); ns per datagram.\n\n",
	       PACKETS, ROUNDS);
	printf("Filters: count on a blocked Bloom filter of capacity 1000 (empty: every query misses); dedup on a window filter (10 s, 4 generations, capacity 500000 per generation); the nftables rule set:\n\n```\n%s```\n",
	       nft_rules);
	fflush(stdout);
	if (pps_run(nconf, PACKETS, ROUNDS, PPS_UNIQUE, apply, &st, fresh))
		return 1;
	table("Every payload fresh (dedup passes every datagram: test, then add)",
	      nconf, fresh);
	fflush(stdout);
	if (pps_run(nconf, PACKETS, ROUNDS, 0, apply, &st, same))
		return 1;
	table("Every payload the same (dedup drops every datagram after the first: test only)",
	      nconf, same);
	if (nconf == C_BPF)
		printf("\nThe BPF twin did not attach on this kernel (no kfuncs or no netfilter programs): not measured.\n");
	return 0;
}
