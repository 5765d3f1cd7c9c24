// SPDX-License-Identifier: GPL-2.0
/*
 * memfilter on real traffic: two network namespaces joined by a veth pair,
 * built with Debian's ip (/sbin/ip, vm.sh --tools), UDP datagrams from
 * many source addresses in namespace A to a receiver in namespace B,
 * filtered on the way in:
 *
 *  - XDP: bpf/xdp_blocklist.bpf.o attached by `ip link set dev vb xdp obj`,
 *    its filter created and filled with memfilterctl, the program checked
 *    with bpftool (loaded, its kfunc calls in the translated code, attached
 *    to vb);
 *  - TC: bpf/tc_dedup.bpf.o (bpf_memfilter_test_and_add) on vb's tcx
 *    ingress (BPF_LINK_CREATE, 6.6+), repeats dropped;
 *  - netfilter BPF: bpf/nf_dedup.bpf.o, the same dedup, on a netfilter
 *    BPF link at B's prerouting (6.4+);
 *  - netfilter: memfilter's own hook attached in namespace B, blocklist by
 *    source address (memfilterctl nf attach) and dedup by payload on a
 *    window filter, with explicit ROTATEs ending the window.
 *
 * Every expected verdict is predicted before the traffic, exactly: a
 * blocklist's false positives by QUERY on the same filter, a dedup's by
 * test-and-add on a twin filter (same type, size and seed) fed the same
 * keys in the same order. The receiver counts every datagram by its
 * payload; a final sentinel that must pass marks the end (one CPU: veth
 * delivers in order). The programs' and hook's counters must match too.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <netpacket/packet.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/memfilter.h>

#include "kselftest_harness.h"
#include "libmemfilter.h"
#include "memfilter_utils.h"
#include "loader.h"
#include "nf_dedup.h"
#include "nf_dedup.skel.h"
#include "tc_dedup.h"
#include "tc_dedup.skel.h"
#include "xdp_blocklist.h"

#define IP		"/sbin/ip"
#define BPFTOOL		"/sbin/bpftool"
#define CTL		"/memfilter/bin/memfilterctl"
#define XDP_OBJ		"/memfilter/bin/xdp_blocklist.bpf.o"
#define PORT		9999
#define NSRC		256	/* source addresses in namespace A */
#define NBLOCK		32	/* of which a blocklist holds these */
#define FPR		0.05	/* high on purpose: false positives happen */
#define SEED		0x7665746874657374ull
#define MAXSEQ		(3 * NSRC)

/*
 * The harness's per-test timeout (a safety net, not a measure): in the
 * debug guest (KASAN, TCG) a case takes far longer than the default 30 s.
 */
#define VETH_TIMEOUT	900

/* BPF_TCX_INGRESS of 6.6+ (Debian 12's uapi headers are 6.1's). */
#define MF_BPF_TCX_INGRESS	46

enum { NS_ROOT, NS_A, NS_B };

struct pkt {
	unsigned int src;	/* source address 10.1.0.0 + 1 + src */
	unsigned int id;	/* the payload: "pkt-%06u" */
	bool pass;		/* predicted */
};

static int nsfd[3] = { -1, -1, -1 };

static void enter(struct __test_metadata *_metadata, int ns)
{
	ASSERT_EQ(0, setns(nsfd[ns], CLONE_NEWNET)) TH_LOG("setns: %s",
							    strerror(errno));
}

/*
 * Start "ip [-force] [-n NS] -batch -" and return the pipe to write its
 * commands to, for ip_batch_end(): a whole configuration in one process,
 * since every exec of ip costs about a second in the debug guest (its
 * shared libraries under KASAN). @quiet: -force (go on after a failed
 * line) and no stderr.
 */
static FILE *ip_batch(const char *ns, bool quiet, pid_t *pid)
{
	const char *argv[8];
	int p[2], i = 0, null;

	argv[i++] = "ip";
	if (quiet)
		argv[i++] = "-force";
	if (ns) {
		argv[i++] = "-n";
		argv[i++] = ns;
	}
	argv[i++] = "-batch";
	argv[i++] = "-";
	argv[i] = NULL;
	if (pipe2(p, O_CLOEXEC))
		return NULL;
	fflush(NULL);
	*pid = fork();
	if (*pid == 0) {
		dup2(p[0], STDIN_FILENO);
		null = quiet ? open("/dev/null", O_WRONLY) : -1;
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		execv(IP, (char **)argv);
		_exit(127);
	}
	close(p[0]);
	if (*pid < 0) {
		close(p[1]);
		return NULL;
	}
	return fdopen(p[1], "w");
}

/* End the commands of ip_batch(); ip's exit status, -1 if it did not exit. */
static int ip_batch_end(FILE *f, pid_t pid)
{
	int status;

	fclose(f);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* ip_batch() with commands @cmds; ip's exit status. */
static int ip_cmds(const char *ns, bool quiet, const char *cmds)
{
	pid_t pid;
	FILE *f = ip_batch(ns, quiet, &pid);

	if (!f)
		return -1;
	fputs(cmds, f);
	return ip_batch_end(f, pid);
}

/* Delete mfA and mfB, if there. */
static void del_netns(void)
{
	if (!access("/run/netns/mfA", F_OK) || !access("/run/netns/mfB", F_OK))
		ip_cmds(NULL, true, "netns del mfA\nnetns del mfB\n");
}

static __be32 src_addr(unsigned int src)
{
	return htonl(0x0a010001 + src);		/* 10.1.0.1 + src */
}

static void payload(char *buf, size_t len, unsigned int id)
{
	snprintf(buf, len, "pkt-%06u", id);
}

/*
 * A: va 10.0.0.1/24 and the NSRC sources 10.1.x.y/32; B: vb 10.0.0.2/24.
 * Fixed MAC addresses and a permanent neighbour entry: no ARP. IPv6 off in
 * both: no neighbour discovery or MLD in the counts.
 */
static void make_netns(struct __test_metadata *_metadata)
{
	char buf[64];
	unsigned int i;
	pid_t pid;
	FILE *p;

	/* ip netns keeps its namespaces in /run/netns (a bare initramfs has no /run). */
	if (mkdir("/run", 0755))
		ASSERT_EQ(EEXIST, errno);
	del_netns();
	ASSERT_EQ(0, ip_cmds(NULL, false, "netns add mfA\nnetns add mfB\n"));
	nsfd[NS_A] = open("/run/netns/mfA", O_RDONLY | O_CLOEXEC);
	nsfd[NS_B] = open("/run/netns/mfB", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, nsfd[NS_A]);
	ASSERT_LE(0, nsfd[NS_B]);
	for (i = NS_A; i <= NS_B; i++) {
		enter(_metadata, i);
		write_file("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1");
		write_file("/proc/sys/net/ipv6/conf/all/disable_ipv6", "1");
	}
	enter(_metadata, NS_ROOT);
	/* The pair made from B: vb there, its peer va in A. */
	ASSERT_EQ(0, ip_cmds("mfB", false,
			     "link add vb address 02:00:00:00:00:0b type veth peer name va address 02:00:00:00:00:0a netns mfA\n"
			     "addr add 10.0.0.2/24 dev vb\nlink set lo up\nlink set vb up\n"));
	p = ip_batch("mfA", false, &pid);
	ASSERT_NE(NULL, p);
	fprintf(p, "addr add 10.0.0.1/24 dev va\nlink set lo up\nlink set va up\n");
	fprintf(p, "neigh add 10.0.0.2 lladdr 02:00:00:00:00:0b dev va nud permanent\n");
	for (i = 0; i < NSRC; i++) {
		__be32 a = src_addr(i);

		fprintf(p, "addr add %s/32 dev va\n",
			inet_ntop(AF_INET, &a, buf, sizeof(buf)));
	}
	ASSERT_EQ(0, ip_batch_end(p, pid));
}

/* The traffic's family: IPv4 unless a test enabled IPv6 on the pair. */
static bool v6;

/* fd00:1::1 + @src, or fd00::1 (the sentinel's) if @src < 0. */
static void src_addr6(int src, struct in6_addr *a)
{
	inet_pton(AF_INET6, src < 0 ? "fd00::1" : "fd00:1::", a);
	if (src >= 0) {
		a->s6_addr[14] = (src + 1) >> 8;
		a->s6_addr[15] = (src + 1) & 0xff;
	}
}

static int udp_socket(void)
{
	int s = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int one = 1;

	if (s >= 0)
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	return s;
}

/* The receiver, in B. */
static int receiver(struct __test_metadata *_metadata, int timeout_ms)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(PORT) };
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6,
				     .sin6_port = htons(PORT) };
	struct timeval tv = { .tv_sec = timeout_ms / 1000,
			      .tv_usec = timeout_ms % 1000 * 1000 };
	int s, big = 8 << 20;

	enter(_metadata, NS_B);
	s = udp_socket();
	EXPECT_LE(0, s);
	if (v6) {
		EXPECT_EQ(0, bind(s, (struct sockaddr *)&sin6, sizeof(sin6)));
	} else {
		EXPECT_EQ(0, bind(s, (struct sockaddr *)&sin, sizeof(sin)));
	}
	EXPECT_EQ(0, setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)));
	EXPECT_EQ(0, setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	enter(_metadata, NS_ROOT);
	return s;
}

/*
 * From A: one datagram from @src (or 10.0.0.1, fd00::1 if @src < 0) to B
 * (10.0.0.2, fd00::2).
 */
static int send_one(int src, const char *data)
{
	struct sockaddr_storage from = { 0 }, to = { 0 };
	struct sockaddr_in *f4 = (struct sockaddr_in *)&from;
	struct sockaddr_in *t4 = (struct sockaddr_in *)&to;
	struct sockaddr_in6 *f6 = (struct sockaddr_in6 *)&from;
	struct sockaddr_in6 *t6 = (struct sockaddr_in6 *)&to;
	socklen_t len = v6 ? sizeof(*f6) : sizeof(*f4);
	int s = udp_socket(), ret = 0;

	if (s < 0)
		return -errno;
	if (v6) {
		f6->sin6_family = t6->sin6_family = AF_INET6;
		src_addr6(src, &f6->sin6_addr);
		inet_pton(AF_INET6, "fd00::2", &t6->sin6_addr);
		t6->sin6_port = htons(PORT);
	} else {
		f4->sin_family = t4->sin_family = AF_INET;
		f4->sin_addr.s_addr = src < 0 ? htonl(0x0a000001) : src_addr(src);
		t4->sin_addr.s_addr = htonl(0x0a000002);
		t4->sin_port = htons(PORT);
	}
	if (bind(s, (struct sockaddr *)&from, len) ||
	    sendto(s, data, strlen(data), 0, (struct sockaddr *)&to, len) < 0)
		ret = -errno;
	close(s);
	return ret;
}

/*
 * The link is up when a datagram gets through (the qdisc is activated
 * by the link watcher, asynchronously). Before anything is attached.
 */
static void wait_link(struct __test_metadata *_metadata)
{
	char buf[64];
	int r = receiver(_metadata, 100), tries;

	enter(_metadata, NS_A);
	for (tries = 0; tries < 100; tries++) {
		ASSERT_EQ(0, send_one(-1, "warmup"));
		if (recv(r, buf, sizeof(buf), 0) > 0)
			break;
	}
	enter(_metadata, NS_ROOT);
	ASSERT_GT(100, tries) TH_LOG("no datagram crossed the veth pair");
	while (recv(r, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
	close(r);
}

/*
 * Send @seq from A, then the sentinel (from 10.0.0.1, payload @sentinel,
 * which must pass), and count what B receives per payload id until the
 * sentinel arrives; every count must be what @seq predicts.
 */
static void run_traffic(struct __test_metadata *_metadata,
			const struct pkt *seq, unsigned int n,
			const char *sentinel, unsigned int *received)
{
	static unsigned int got[MAXSEQ], want[MAXSEQ];
	unsigned int i, id, total = 0;
	int r = receiver(_metadata, 20000);	/* a safety net, not a measure */
	char buf[64];
	ssize_t len;

	memset(got, 0, sizeof(got));
	memset(want, 0, sizeof(want));
	enter(_metadata, NS_A);
	for (i = 0; i < n; i++) {
		payload(buf, sizeof(buf), seq[i].id);
		ASSERT_EQ(0, send_one(seq[i].src, buf));
		want[seq[i].id] += seq[i].pass;
	}
	ASSERT_EQ(0, send_one(-1, sentinel));
	enter(_metadata, NS_ROOT);
	for (;;) {
		len = recv(r, buf, sizeof(buf) - 1, 0);
		ASSERT_LT(0, len) TH_LOG("recv: %s (sentinel lost?)",
					 strerror(errno));
		buf[len] = 0;
		if (!strcmp(buf, sentinel))
			break;
		ASSERT_EQ(1, sscanf(buf, "pkt-%u", &id)) TH_LOG("'%s'", buf);
		ASSERT_GT(MAXSEQ, id);
		got[id]++;
		total++;
	}
	close(r);
	for (i = 0; i < MAXSEQ; i++)
		EXPECT_EQ(want[i], got[i]) TH_LOG("payload %u", i);
	*received = total;
}

/* memfilter's kfuncs are there (6.12 with module BTF). */
static bool have_kfuncs(int dev)
{
	struct mf_api_info api;

	return !mf_api(dev, &api) && (api.features & MEMFILTER_FEAT_BPF_KFUNCS);
}

FIXTURE(veth) {
	int dev;
};

FIXTURE_SETUP(veth)
{
	cpu_set_t set;

	self->dev = -1;
	if (geteuid())
		SKIP(return, "needs root");
	if (access(IP, X_OK))
		SKIP(return, "no " IP " (vm.sh --tools ip)");
	if (unshare(0) || access("/proc/self/ns/net", F_OK))
		SKIP(return, "no network namespaces");
	/* One CPU: what A sends, B receives in order. */
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
	nsfd[NS_ROOT] = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, nsfd[NS_ROOT]);
	make_netns(_metadata);
	wait_link(_metadata);
	self->dev = mf_open_device();
	ASSERT_LE(0, self->dev) TH_LOG("%s", mf_strerror(self->dev));
}

FIXTURE_TEARDOWN(veth)
{
	int i;

	if (nsfd[NS_ROOT] >= 0)
		setns(nsfd[NS_ROOT], CLONE_NEWNET);
	for (i = 0; i < 3; i++) {
		if (nsfd[i] >= 0)
			close(nsfd[i]);
		nsfd[i] = -1;
	}
	/* The namespaces go, and the veth pair and attachments with them. */
	del_netns();
	if (self->dev >= 0)
		close(self->dev);
	v6 = false;
}

/* Every source once, in order. */
static unsigned int all_sources(struct pkt *seq)
{
	unsigned int i;

	for (i = 0; i < NSRC; i++)
		seq[i] = (struct pkt){ .src = i, .id = i };
	return NSRC;
}

/* A blocklist predicted by QUERY: a packet passes iff its source misses. */
static unsigned int predict_saddr(struct __test_metadata *_metadata, int fd,
				  struct pkt *seq, unsigned int n)
{
	unsigned int i, hits = 0;
	uint64_t res;
	__be32 a;

	for (i = 0; i < n; i++) {
		a = src_addr(seq[i].src);
		res = 0;
		EXPECT_LE(0, mf_query(fd, &a, 4, 1, &res, NULL));
		seq[i].pass = !(res & 1);
		hits += res & 1;
	}
	a = htonl(0x0a000001);		/* the sentinel's source must pass */
	EXPECT_EQ(0, mf_query(fd, &a, 4, 1, NULL, NULL));
	return hits;
}

/*
 * The .bss of a program loaded by a tool, dumped with bpftool once into
 * @out (-1 if bpftool failed), for bss_counter() to read every counter of.
 */
static int bss_dump(char *out, size_t len, const char *map)
{
	return run_cmd(out, len, BPFTOOL " -j map dump name %s", map) ? -1 : 0;
}

/* One counter of a bss_dump() (-2 if it is not there). */
static long long bss_counter(const char *out, const char *field)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", field);
	p = strstr(out, pat);
	return p ? strtoll(p + strlen(pat), NULL, 10) : -2;
}

/*
 * XDP with the real tools: memfilterctl creates and fills the blocklist,
 * ip attaches the program from its object file, bpftool finds it.
 */
TEST_F_TIMEOUT(veth, xdp_blocklist_ip_bpftool, VETH_TIMEOUT)
{
	static struct pkt seq[MAXSEQ];
	static char out[16384];
	unsigned int n, i, hits, received;
	int fd, prog_id, ifindex_b;
	char want[64];
	__be32 a;
	FILE *p;

	if (!have_kfuncs(self->dev))
		SKIP(return, "no memfilter kfuncs (MEMFILTER_FEAT_BPF_KFUNCS clear: Debian 6.1)");
	if (access(BPFTOOL, X_OK) || access(XDP_OBJ, R_OK) || access(CTL, X_OK))
		SKIP(return, "needs " BPFTOOL ", " XDP_OBJ " and " CTL);
	n = all_sources(seq);
	ASSERT_EQ(0, run_cmd(NULL, 0, CTL " create xdp.blocklist --type bloom --capacity %d --fpr %g --seed %llu >/dev/null",
			     NBLOCK, FPR, (unsigned long long)SEED));
	p = popen(CTL " add xdp.blocklist --hex >/dev/null", "w");
	ASSERT_NE(NULL, p);
	for (i = 0; i < NBLOCK; i++) {
		a = src_addr(i * (NSRC / NBLOCK));
		fprintf(p, "%08x\n", ntohl(a));
	}
	ASSERT_EQ(0, pclose(p));
	fd = mf_open(self->dev, "xdp.blocklist");
	ASSERT_LE(0, fd) TH_LOG("%s", mf_strerror(fd));
	hits = predict_saddr(_metadata, fd, seq, n);
	for (i = 0; i < NBLOCK; i++)
		EXPECT_FALSE(seq[i * (NSRC / NBLOCK)].pass);
	TH_LOG("%u sources, %u blocked, %u false positives", n, NBLOCK,
	       hits - NBLOCK);

	enter(_metadata, NS_B);
	ifindex_b = if_nametoindex("vb");
	enter(_metadata, NS_ROOT);
	ASSERT_EQ(0, run_cmd(out, sizeof(out), IP " -n mfB link set dev vb xdp obj "
			     XDP_OBJ " sec xdp")) TH_LOG("%s", out);
	/* bpftool: loaded, the kfunc calls resolved, attached to vb. */
	ASSERT_EQ(0, run_cmd(out, sizeof(out), BPFTOOL " prog show name xdp_blocklist"))
		TH_LOG("%s", out);
	ASSERT_EQ(1, sscanf(out, "%d: xdp ", &prog_id)) TH_LOG("%s", out);
	snprintf(want, sizeof(want), "vb(%d) driver id %d", ifindex_b, prog_id);
	ASSERT_EQ(0, run_cmd(out, sizeof(out),
			     BPFTOOL " prog dump xlated name xdp_blocklist"));
	EXPECT_NE(NULL, strstr(out, "bpf_memfilter_borrow")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "bpf_memfilter_contains"));
	enter(_metadata, NS_B);
	EXPECT_EQ(0, run_cmd(out, sizeof(out), BPFTOOL " net show dev vb"));
	enter(_metadata, NS_ROOT);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("want '%s' in: %s", want, out);

	run_traffic(_metadata, seq, n, "sentinel", &received);
	EXPECT_EQ(n - hits, received);
	ASSERT_EQ(0, bss_dump(out, sizeof(out), "xdp_bloc.bss")) TH_LOG("%s", out);
	EXPECT_EQ(hits, bss_counter(out, "dropped")) TH_LOG("%s", out);
	EXPECT_EQ(n - hits + 1, bss_counter(out, "passed"));
	EXPECT_EQ(0, bss_counter(out, "not_ip"));

	ASSERT_EQ(0, run_cmd(NULL, 0, IP " -n mfB link set dev vb xdp off"));
	EXPECT_EQ(0, mf_unpublish(fd));
	close(fd);
}

/* A dedup sequence: every source once, then the first @rep again. */
static unsigned int repeats(struct pkt *seq, unsigned int rep)
{
	unsigned int i, n = all_sources(seq);

	for (i = 0; i < rep; i++)
		seq[n + i] = seq[i];
	return n + rep;
}

/*
 * Predict a payload dedup with a twin filter: test-and-add of each
 * payload in order; a packet passes iff its payload was absent. Then a
 * sentinel payload the twin certainly lacked into @sentinel (test-and-
 * added too, as the program or hook will).
 */
static unsigned int predict_dedup(struct __test_metadata *_metadata, int twin,
				  struct pkt *seq, unsigned int n,
				  char *sentinel, size_t len)
{
	static unsigned int sentinels;
	unsigned int i, drops = 0;
	char buf[32];
	uint64_t was;

	for (i = 0; i < n; i++) {
		payload(buf, sizeof(buf), seq[i].id);
		was = 0;
		EXPECT_LE(0, mf_test_and_add(twin, buf, strlen(buf), 1, &was,
					     NULL));
		seq[i].pass = !(was & 1);
		drops += was & 1;
	}
	/* The sentinel goes through the same test-and-add after them. */
	for (i = 0; i < 1000; i++) {
		snprintf(sentinel, len, "sentinel-%u-%u", sentinels, i);
		if (!mf_test_and_add(twin, sentinel, strlen(sentinel), 1, NULL,
				     NULL)) {
			sentinels++;
			return drops;
		}
	}
	EXPECT_TRUE(false) TH_LOG("no sentinel passes");
	return drops;
}

/* A Bloom filter of FPR with the test's seed, published as @name (or not). */
static int seeded(int dev, const char *name, uint64_t capacity)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_BLOOM, .capacity = capacity,
		.fpr = FPR, .fixed_seed = true, .seed = SEED, .name = name);

	return mf_create(dev, &o);
}

/*
 * A dedup test's filters, @name (published) and an unpublished twin, into
 * *@fd and *@twin, and its traffic: NSRC / 4 repeats into @seq (*@n
 * packets). The twin predicts the dedup (predict_dedup(), the sentinel
 * into @sentinel); returns the drops.
 */
static unsigned int dedup_setup(struct __test_metadata *_metadata, int dev,
				const char *name, struct pkt *seq,
				unsigned int *n, int *fd, int *twin,
				char *sentinel, size_t len)
{
	unsigned int drops;

	*n = repeats(seq, NSRC / 4);
	*fd = seeded(dev, name, NSRC);
	ASSERT_LE(0, *fd) TH_LOG("%s", mf_strerror(*fd));
	*twin = seeded(dev, NULL, NSRC);
	ASSERT_LE(0, *twin);
	drops = predict_dedup(_metadata, *twin, seq, *n, sentinel, len);
	TH_LOG("%u packets, %u repeats, %u false positives", *n, NSRC / 4,
	       drops - NSRC / 4);
	return drops;
}

/*
 * bpftool lists @prog's link, its type by name (@type) or, where Debian
 * 12's bpftool (7.1) predates the type, by number (@num: "type 11").
 */
static void expect_link_listed(struct __test_metadata *_metadata,
			       struct bpf_program *prog, const char *type,
			       const char *num)
{
	struct bpf_prog_info info = {};
	__u32 info_len = sizeof(info);
	char out[4096], want[32];

	ASSERT_EQ(0, bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info,
					    &info_len));
	EXPECT_EQ(0, run_cmd(out, sizeof(out), BPFTOOL " link show"));
	snprintf(want, sizeof(want), "prog %u", info.id);
	EXPECT_TRUE(strstr(out, want) && (strstr(out, type) || strstr(out, num)))
		TH_LOG("want '%s' in: %s", want, out);
}

/* A dedup program's counters: @drops of @n packets, and the sentinel. */
static void expect_dedup_counts(struct __test_metadata *_metadata,
				const struct tc_dedup_counts *c,
				unsigned int n, unsigned int drops)
{
	EXPECT_EQ(drops, c->dropped);
	EXPECT_EQ(n - drops + 1, c->passed);
	EXPECT_EQ(0, c->errors);
	EXPECT_EQ(0, c->no_filter);
	EXPECT_EQ(0, c->not_udp);
}

/*
 * TC dedup: the program on vb's tcx ingress drops every payload it may
 * have seen (bpf_memfilter_test_and_add()).
 */
TEST_F_TIMEOUT(veth, tc_dedup_tcx, VETH_TIMEOUT)
{
	static struct pkt seq[MAXSEQ];
	struct tc_dedup_bpf *skel;
	unsigned int n, drops, received;
	char sentinel[32];
	int fd, twin, link, ifindex;
	struct utsname u;
	int major = 0, minor = 0;

	if (!have_kfuncs(self->dev))
		SKIP(return, "no memfilter kfuncs (MEMFILTER_FEAT_BPF_KFUNCS clear: Debian 6.1)");
	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2 ||
	    major < 6 || (major == 6 && minor < 6))
		SKIP(return, "no tcx before 6.6");
	drops = dedup_setup(_metadata, self->dev, "tc.dedup", seq, &n, &fd,
			    &twin, sentinel, sizeof(sentinel));

	skel = tc_dedup_bpf__open();
	ASSERT_NE(NULL, skel);
	snprintf((char *)skel->rodata->filter_name,
		 sizeof(skel->rodata->filter_name), "tc.dedup");
	ASSERT_EQ(0, tc_dedup_bpf__load(skel));
	enter(_metadata, NS_B);
	ifindex = if_nametoindex("vb");
	link = bpf_link_create(bpf_program__fd(skel->progs.tc_dedup), ifindex,
			       MF_BPF_TCX_INGRESS, NULL);
	enter(_metadata, NS_ROOT);
	ASSERT_LE(0, link) TH_LOG("tcx attach: %s", strerror(errno));
	/* BPF_LINK_TYPE_TCX is 11. */
	expect_link_listed(_metadata, skel->progs.tc_dedup, "tcx", "type 11");

	run_traffic(_metadata, seq, n, sentinel, &received);
	EXPECT_EQ(n - drops, received);
	expect_dedup_counts(_metadata, &skel->bss->counts, n, drops);

	close(link);
	tc_dedup_bpf__destroy(skel);
	EXPECT_EQ(0, mf_unpublish(fd));
	close(fd);
	close(twin);
}

/*
 * The netfilter BPF twin of the hook's dedup action: bpf/nf_dedup.bpf.c on
 * a netfilter BPF link at B's IPv4 prerouting (attached from inside B: the
 * link belongs to the caller's namespace) drops every payload it may have
 * seen (bpf_memfilter_test_and_add()); the same traffic and prediction as
 * tc_dedup_tcx. Its counters match, and no other packet reaches the hook.
 */
TEST_F_TIMEOUT(veth, nf_bpf_dedup, VETH_TIMEOUT)
{
	static struct pkt seq[MAXSEQ];
	struct nf_dedup_bpf *skel;
	unsigned int n, drops, received, i;
	char sentinel[32];
	int fd, twin, link;

	if (!have_kfuncs(self->dev))
		SKIP(return, "no memfilter kfuncs (MEMFILTER_FEAT_BPF_KFUNCS clear: Debian 6.1, which also predates netfilter programs, 6.4)");
	drops = dedup_setup(_metadata, self->dev, "nf.bpf.dedup", seq, &n, &fd,
			    &twin, sentinel, sizeof(sentinel));

	skel = nf_dedup_bpf__open();
	ASSERT_NE(NULL, skel);
	snprintf((char *)skel->rodata->filter_name,
		 sizeof(skel->rodata->filter_name), "nf.bpf.dedup");
	loader_nf_prog(skel->progs.nf_dedup);
	ASSERT_EQ(0, nf_dedup_bpf__load(skel));
	enter(_metadata, NS_B);
	link = loader_nf_link(bpf_program__fd(skel->progs.nf_dedup),
			      LOADER_NFPROTO_IPV4, 0 /* NF_INET_PRE_ROUTING */,
			      MEMFILTER_NF_PRIORITY_DEFAULT);
	enter(_metadata, NS_ROOT);
	ASSERT_LE(0, link) TH_LOG("netfilter link: %s", strerror(errno));
	/* BPF_LINK_TYPE_NETFILTER is 10. */
	expect_link_listed(_metadata, skel->progs.nf_dedup, "netfilter",
			   "type 10");

	run_traffic(_metadata, seq, n, sentinel, &received);
	EXPECT_EQ(n - drops, received);
	expect_dedup_counts(_metadata, &skel->bss->counts, n, drops);

	/* Detached: every copy of the same traffic passes, none is counted. */
	close(link);
	for (i = 0; i < n; i++)
		seq[i].pass = true;
	run_traffic(_metadata, seq, n, "sentinel", &received);
	EXPECT_EQ(n, received);
	EXPECT_EQ(drops, skel->bss->counts.dropped);
	EXPECT_EQ(n - drops + 1, skel->bss->counts.passed);

	nf_dedup_bpf__destroy(skel);
	EXPECT_EQ(0, mf_unpublish(fd));
	close(fd);
	close(twin);
}

/*
 * The netfilter hook at B's prerouting, attached with memfilterctl in
 * namespace B: blocked sources and exactly the predicted false
 * positives are dropped; the counters match the traffic.
 */
TEST_F_TIMEOUT(veth, nf_blocklist_prerouting, VETH_TIMEOUT)
{
	static struct pkt seq[MAXSEQ];
	unsigned int n, i, hits, received;
	struct mf_nf_entry e;
	char out[256];
	__be32 a;
	long id;
	int fd;

	n = all_sources(seq);
	fd = seeded(self->dev, "nf.veth", NBLOCK);
	ASSERT_LE(0, fd);
	for (i = 0; i < NBLOCK; i++) {
		a = src_addr(i * 3);
		ASSERT_EQ(1, mf_add(fd, &a, 4, 1, NULL, NULL));
	}
	hits = predict_saddr(_metadata, fd, seq, n);
	TH_LOG("%u sources, %u blocked, %u false positives", n, NBLOCK,
	       hits - NBLOCK);
	enter(_metadata, NS_B);
	ASSERT_EQ(0, run_cmd(out, sizeof(out), CTL " nf attach nf.veth --hook prerouting --key saddr --action drop-hit --family ipv4"))
		TH_LOG("%s", out);
	id = strtol(out, NULL, 10);
	enter(_metadata, NS_ROOT);
	ASSERT_LT(0, id) TH_LOG("%s", out);
	/* Attached in B only. */
	EXPECT_EQ(0, mf_nf_list(self->dev, NULL, 0));

	run_traffic(_metadata, seq, n, "sentinel", &received);
	EXPECT_EQ(n - hits, received);
	enter(_metadata, NS_B);
	ASSERT_EQ(0, mf_nf_stats(self->dev, id, &e));
	EXPECT_EQ(n + 1, e.packets);
	EXPECT_EQ(hits, e.hits);
	EXPECT_EQ(hits, e.drops);
	EXPECT_EQ(0, e.skipped);
	EXPECT_EQ(0, mf_nf_detach(self->dev, id));
	enter(_metadata, NS_ROOT);
	EXPECT_EQ(0, mf_unpublish(fd));
	close(fd);
}

/*
 * The netfilter hook's dedup action by payload on a window filter (G = 2,
 * rotated only on request), attached in B at prerouting: every first copy
 * arrives, every repeat within the window is dropped; after two ROTATEs
 * the window has passed and the same payloads arrive again. A twin
 * window filter (same seed and size) predicts every verdict, false
 * positives included, and the hook's counters.
 */
TEST_F_TIMEOUT(veth, nf_dedup_window, VETH_TIMEOUT)
{
	static struct pkt seq[MAXSEQ];
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_WINDOW, .capacity = 2 * NSRC,
		.fpr = FPR, .fixed_seed = true, .seed = SEED, .name = "nf.dedup");
	MF_OPTS(mf_window_opts, w, .generations = 2);
	unsigned int n, rep = NSRC / 4, drops, drops2, received, i;
	uint64_t packets = 0, hits = 0, added = 0;
	struct mf_nf_entry e;
	char sentinel[32];
	int fd, twin;
	int64_t id;

	fd = mf_create_window(self->dev, &o, &w);
	ASSERT_LE(0, fd) TH_LOG("%s", mf_strerror(fd));
	o.name = NULL;
	twin = mf_create_window(self->dev, &o, &w);
	ASSERT_LE(0, twin);
	enter(_metadata, NS_B);
	{
		MF_OPTS(mf_nf_attach_opts, a, .family = MF_NF_IPV4,
			.hook = MF_NF_PREROUTING, .key = MF_NF_KEY_L4_PAYLOAD,
			.action = MF_NF_DEDUP);

		id = mf_nf_attach(self->dev, "nf.dedup", &a);
	}
	enter(_metadata, NS_ROOT);
	ASSERT_LT(0, id) TH_LOG("attach: %s", mf_strerror(id));

	/* Within the window: the repeats are dropped. */
	n = repeats(seq, rep);
	drops = predict_dedup(_metadata, twin, seq, n, sentinel, sizeof(sentinel));
	for (i = NSRC; i < n; i++)
		EXPECT_FALSE(seq[i].pass);
	TH_LOG("%u packets, %u repeats, %u false positives", n, rep,
	       drops - rep);
	run_traffic(_metadata, seq, n, sentinel, &received);
	EXPECT_EQ(n - drops, received);
	packets += n + 1;
	hits += drops;
	added += n - drops + 1;

	/* The window passes (G = 2: two rotations): the same payloads pass. */
	ASSERT_EQ(0, mf_rotate(fd));
	ASSERT_EQ(0, mf_rotate(fd));
	ASSERT_EQ(0, mf_rotate(twin));
	ASSERT_EQ(0, mf_rotate(twin));
	n = repeats(seq, rep) - NSRC;
	memmove(seq, seq + NSRC, n * sizeof(*seq));
	drops2 = predict_dedup(_metadata, twin, seq, n, sentinel, sizeof(sentinel));
	TH_LOG("after the window: %u packets again, %u false positives", n,
	       drops2);
	run_traffic(_metadata, seq, n, sentinel, &received);
	EXPECT_EQ(n - drops2, received);
	packets += n + 1;
	hits += drops2;
	added += n - drops2 + 1;

	enter(_metadata, NS_B);
	ASSERT_EQ(0, mf_nf_stats(self->dev, id, &e));
	EXPECT_EQ(packets, e.packets);
	EXPECT_EQ(hits, e.hits);
	EXPECT_EQ(hits, e.drops);
	EXPECT_EQ(added, e.added);
	EXPECT_EQ(0, e.skipped);
	EXPECT_EQ(0, mf_nf_detach(self->dev, id));
	enter(_metadata, NS_ROOT);
	EXPECT_EQ(0, mf_unpublish(fd));
	close(fd);
	close(twin);
}

#define TC_LOADER	"/memfilter/bin/tc_dedup"
#define RAW_N		8	/* payloads sent twice each through AF_PACKET */

/*
 * Send one UDP datagram with @payload from A (10.0.0.1) to 10.0.0.2
 * through an AF_PACKET socket on va: packet_snd() calls dev_queue_xmit()
 * outside any rcu_read_lock(), so an egress program runs in
 * __dev_queue_xmit()'s rcu_read_lock_bh() section alone, where lockdep
 * does not see an RCU reader (the xa_load() branch of the id lookup). To
 * a MAC address that is not vb's: B drops it as another host's and sends
 * nothing back (an ICMP error would need an ARP reply from A, one more
 * packet on va's egress). A frame the egress program drops fails the
 * send with ENOBUFS (NET_XMIT_DROP): @pass says which is expected.
 */
static void raw_send(struct __test_metadata *_metadata, const char *payload,
		     bool pass)
{
	static const uint8_t mac_a[6] = { 2, 0, 0, 0, 0, 0x0a };
	static const uint8_t mac_b[6] = { 2, 0, 0, 0, 0, 0x0c };
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(0x0800),
				   .sll_halen = 6 };
	uint8_t f[128] = { 0 };
	struct iphdr *ip = (void *)(f + 14);
	struct udphdr *udp = (void *)(ip + 1);
	size_t plen = strlen(payload);
	size_t len = 14 + sizeof(*ip) + sizeof(*udp) + plen;
	uint16_t w[10];
	uint32_t sum = 0;
	int s, i;

	ASSERT_GE(sizeof(f), len);
	memcpy(f, mac_b, 6);
	memcpy(f + 6, mac_a, 6);
	f[12] = 0x08;					/* ETH_P_IP */
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->tot_len = htons(len - 14);
	ip->saddr = htonl(0x0a000001);
	ip->daddr = htonl(0x0a000002);
	memcpy(w, ip, sizeof(w));
	for (i = 0; i < 10; i++)
		sum += w[i];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	ip->check = ~sum;
	udp->source = htons(PORT + 1);
	udp->dest = htons(PORT);
	udp->len = htons(sizeof(*udp) + plen);	/* checksum 0: none */
	memcpy(udp + 1, payload, plen);
	sll.sll_ifindex = if_nametoindex("va");
	ASSERT_NE(0, sll.sll_ifindex);
	memcpy(sll.sll_addr, mac_b, 6);
	s = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, s) TH_LOG("AF_PACKET: %s", strerror(errno));
	errno = 0;
	EXPECT_EQ(pass ? (ssize_t)len : -1,
		  sendto(s, f, len, 0, (struct sockaddr *)&sll, sizeof(sll)))
		TH_LOG("%s: sendto: %s", payload, strerror(errno));
	if (!pass)
		EXPECT_EQ(ENOBUFS, errno);
	close(s);
}

/*
 * The example loader, run in A on va's tcx egress: it names the filter's
 * published id (the program then finds it by id) and says when it is
 * attached, the test sends (UDP sockets, then AF_PACKET), SIGTERM makes it
 * detach and print its counts, which must be the predicted ones. On 6.1
 * it exits 2 naming the bit.
 */
TEST_F_TIMEOUT(veth, tc_dedup_loader_egress, VETH_TIMEOUT)
{
	static struct pkt seq[MAXSEQ];
	unsigned long long passed, dropped, not_udp, no_filter, errors;
	unsigned int n, drops, received, i, raw_drops = 0;
	char sentinel[32], line[256], want[64];
	uint64_t was;
	int fd, twin, pipefd[2], status;
	uint32_t id = 0;
	FILE *out;
	pid_t pid;

	if (access(TC_LOADER, X_OK))
		SKIP(return, "no " TC_LOADER);
	fd = seeded(self->dev, "tc.loader", NSRC);
	ASSERT_LE(0, fd);
	if (have_kfuncs(self->dev))
		ASSERT_EQ(0, mf_pub_id(fd, &id));
	twin = seeded(self->dev, NULL, NSRC);
	ASSERT_LE(0, twin);
	ASSERT_EQ(0, pipe(pipefd));
	enter(_metadata, NS_A);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		execl(TC_LOADER, "tc_dedup", "va", "tc.loader", "600", "egress",
		      (char *)NULL);
		_exit(127);
	}
	enter(_metadata, NS_ROOT);
	close(pipefd[1]);
	out = fdopen(pipefd[0], "r");
	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, fgets(line, sizeof(line), out));
	if (!have_kfuncs(self->dev)) {
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_EQ(2, WEXITSTATUS(status)) TH_LOG("%s", line);
		EXPECT_NE(NULL, strstr(line, "no BPF kfuncs")) TH_LOG("%s", line);
		fclose(out);
		goto out;
	}
	/*
	 * The filter is published: the loader gives the program its id, so
	 * every packet is one bpf_memfilter_test_and_add_id() call, here on
	 * egress (__dev_queue_xmit(): rcu_read_lock_bh(), inside
	 * ip_finish_output2()'s rcu_read_lock()).
	 */
	snprintf(want, sizeof(want), "tc_dedup: tc.loader: published id %u\n",
		 id);
	ASSERT_STREQ(want, line) {
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
	}
	ASSERT_NE(NULL, fgets(line, sizeof(line), out));
	ASSERT_STREQ("attached to va tcx egress\n", line) {
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
	}

	n = repeats(seq, NSRC / 8);
	drops = predict_dedup(_metadata, twin, seq, n, sentinel, sizeof(sentinel));
	run_traffic(_metadata, seq, n, sentinel, &received);
	EXPECT_EQ(n - drops, received);
	/*
	 * Then RAW_N payloads twice each through AF_PACKET (raw_send()): the
	 * program's verdicts, each one sendto()'s result (the egress hook
	 * runs inside it) and together its counts, predicted by the twin as
	 * before.
	 */
	enter(_metadata, NS_A);
	for (i = 0; i < 2 * RAW_N; i++) {
		snprintf(line, sizeof(line), "raw-%u", i / 2);
		was = 0;
		EXPECT_LE(0, mf_test_and_add(twin, line, strlen(line), 1, &was,
					     NULL));
		raw_drops += was & 1;
		raw_send(_metadata, line, !(was & 1));
	}
	enter(_metadata, NS_ROOT);
	EXPECT_LE(RAW_N, raw_drops);		/* every second copy at least */
	kill(pid, SIGTERM);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_NE(NULL, fgets(line, sizeof(line), out));
	fclose(out);
	ASSERT_EQ(5, sscanf(line, "passed %llu dropped %llu not_udp %llu no_filter %llu errors %llu",
			    &passed, &dropped, &not_udp, &no_filter, &errors))
		TH_LOG("%s", line);
	EXPECT_EQ(n - drops + 1 + 2 * RAW_N - raw_drops, passed);
	EXPECT_EQ(drops + raw_drops, dropped);
	EXPECT_EQ(0, not_udp);
	EXPECT_EQ(0, no_filter);
	EXPECT_EQ(0, errors);
out:
	EXPECT_EQ(0, mf_unpublish(fd));
	close(fd);
	close(twin);
}

#define NSRC6	64

/*
 * IPv6 on the pair: no link-local addresses (addrgenmode none), no DAD
 * (nodad), a permanent neighbour entry; fd00::1/64 and NSRC6 sources
 * fd00:1::x/128 in A, fd00::2/64 in B. The pair still carries MLD
 * reports (from ::): keys by payload skip them (not TCP or UDP).
 */
static void enable_v6(struct __test_metadata *_metadata)
{
	struct in6_addr a;
	char buf[64];
	unsigned int i;
	pid_t pid;
	FILE *p;

	ASSERT_EQ(0, ip_cmds("mfA", false, "link set va addrgenmode none\n"));
	ASSERT_EQ(0, ip_cmds("mfB", false, "link set vb addrgenmode none\n"));
	enter(_metadata, NS_A);
	write_file("/proc/sys/net/ipv6/conf/va/disable_ipv6", "0");
	enter(_metadata, NS_B);
	write_file("/proc/sys/net/ipv6/conf/vb/disable_ipv6", "0");
	enter(_metadata, NS_ROOT);
	ASSERT_EQ(0, ip_cmds("mfB", false, "addr add fd00::2/64 dev vb nodad\n"));
	p = ip_batch("mfA", false, &pid);
	ASSERT_NE(NULL, p);
	fprintf(p, "addr add fd00::1/64 dev va nodad\n");
	fprintf(p, "neigh add fd00::2 lladdr 02:00:00:00:00:0b dev va nud permanent\n");
	for (i = 0; i < NSRC6; i++) {
		src_addr6(i, &a);
		fprintf(p, "addr add %s/128 dev va nodad\n",
			inet_ntop(AF_INET6, &a, buf, sizeof(buf)));
	}
	ASSERT_EQ(0, ip_batch_end(p, pid));
	v6 = true;
	wait_link(_metadata);
}

/*
 * IPv6 across the pair: the hook at B's input, keyed by payload,
 * blocklist; exactly the predicted payloads are dropped.
 */
TEST_F_TIMEOUT(veth, nf_blocklist_payload_v6, VETH_TIMEOUT)
{
	static struct pkt seq[MAXSEQ];
	MF_OPTS(mf_nf_attach_opts, at, .family = MF_NF_IPV6, .hook = MF_NF_INPUT,
		.key = MF_NF_KEY_L4_PAYLOAD, .action = MF_NF_DROP_HIT);
	unsigned int i, hits = 0, received;
	char buf[32], sentinel[32];
	struct mf_nf_entry e;
	uint64_t res;
	int64_t id;
	int fd;

	enable_v6(_metadata);
	fd = seeded(self->dev, "nf.veth6", NSRC6 / 4);
	ASSERT_LE(0, fd);
	for (i = 0; i < NSRC6; i++) {
		seq[i] = (struct pkt){ .src = i, .id = i };
		payload(buf, sizeof(buf), i);
		if (i % 4 == 0)
			ASSERT_EQ(1, mf_add(fd, buf, strlen(buf), 1, NULL, NULL));
		res = 0;
		ASSERT_LE(0, mf_query(fd, buf, strlen(buf), 1, &res, NULL));
		seq[i].pass = !(res & 1);
		hits += res & 1;
	}
	for (i = 0; i < 1000; i++) {
		snprintf(sentinel, sizeof(sentinel), "sentinel-%u", i);
		if (!mf_query(fd, sentinel, strlen(sentinel), 1, NULL, NULL))
			break;
	}
	TH_LOG("%u IPv6 sources, %u blocked, %u false positives", NSRC6,
	       NSRC6 / 4, hits - NSRC6 / 4);
	enter(_metadata, NS_B);
	id = mf_nf_attach(self->dev, "nf.veth6", &at);
	enter(_metadata, NS_ROOT);
	ASSERT_LT(0, id) TH_LOG("attach: %s", mf_strerror(id));

	run_traffic(_metadata, seq, NSRC6, sentinel, &received);
	EXPECT_EQ(NSRC6 - hits, received);
	enter(_metadata, NS_B);
	ASSERT_EQ(0, mf_nf_stats(self->dev, id, &e));
	EXPECT_EQ(NSRC6 + 1, e.packets - e.skipped);
	EXPECT_EQ(hits, e.hits);
	EXPECT_EQ(hits, e.drops);
	EXPECT_EQ(0, mf_nf_detach(self->dev, id));
	enter(_metadata, NS_ROOT);
	EXPECT_EQ(0, mf_unpublish(fd));
	close(fd);
}

TEST_HARNESS_MAIN
