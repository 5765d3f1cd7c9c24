// SPDX-License-Identifier: GPL-2.0
/*
 * Packets per second through a veth pair, for bench/bpf_bench.c in the
 * same boot, with the same filters and XDP programs: namespaces pa and pb
 * made with Debian's ip (vm.sh --tools), va (10.0.0.1) in pa sends UDP
 * datagrams to vb (10.0.0.2) in pb, where an XDP program on vb drops those
 * whose source address may be in a filter (10.0.0.1 is in both), or none
 * is attached. One CPU: the sender's sendmmsg() (PPS_BATCH datagrams a
 * call, to keep the system call's share small) runs the receive path too
 * (softirq on the way out), so its time per datagram is the time per
 * packet end to end. Configurations alternate over
 * PPS_ROUNDS rounds; the median is reported. pps_run() is the same loop
 * for any configurations (bench/nf_pps.c: netfilter hooks and nftables).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bpf_bench.h"

#define IP		"/sbin/ip"
#define PORT		9999
#define PPS_BATCH	64	/* datagrams per sendmmsg() */

static int sh(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int enter(const char *ns)
{
	char path[64];
	int fd, ret;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = setns(fd, CLONE_NEWNET);
	close(fd);
	return ret;
}

/* The pair, its addresses, and a permanent neighbour entry: no ARP. Once. */
static int setup(void)
{
	static int done;
	static const char *const cmds[] = {
		IP " netns add pa",
		IP " netns add pb",
		IP " link add va address 02:00:00:00:00:0a netns pa type veth peer name vb address 02:00:00:00:00:0b netns pb",
		IP " -n pa addr add 10.0.0.1/24 dev va",
		IP " -n pb addr add 10.0.0.2/24 dev vb",
		IP " -n pa link set va up",
		IP " -n pb link set vb up",
		IP " -n pa neigh add 10.0.0.2 lladdr 02:00:00:00:00:0b dev va nud permanent",
	};
	unsigned int i;

	if (done)
		return 0;
	if (mkdir("/run", 0755) && errno != EEXIST)
		return -1;
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (sh(cmds[i])) {
			fprintf(stderr, "bpf_pps: failed: %s\n", cmds[i]);
			return -1;
		}
	done = 1;
	return 0;
}

/* A UDP socket in namespace @ns bound to @addr:@port (0: any port). */
static int udp_socket(const char *ns, const char *addr, int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(port) };
	int s, big = 8 << 20;

	if (enter(ns))
		return -1;
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	inet_pton(AF_INET, addr, &sin.sin_addr);
	if (s < 0 || bind(s, (struct sockaddr *)&sin, sizeof(sin)))
		return -1;
	setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
	return s;
}

static unsigned long drain(int r)
{
	char buf[64];
	unsigned long n = 0;

	while (recv(r, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		n++;
	return n;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * Each datagram's payload, PPS_LEN bytes: a sequence number (host order,
 * 8 bytes, fresh for every datagram of the run when PPS_UNIQUE, else 0)
 * and a constant tail.
 */
#define PPS_LEN		18

int pps_run(int nconf, int packets, int rounds, unsigned int flags,
	    int (*apply)(int conf, void *arg), void *arg,
	    struct pps_result *res)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(PORT) };
	static char data[PPS_BATCH][PPS_LEN];
	struct iovec iov[PPS_BATCH];
	double t[PPS_MAX_CONF][PPS_MAX_ROUNDS], t0, x;
	struct mmsghdr msgs[PPS_BATCH];
	unsigned long long seq = 0, zero = 0;
	int s, r, c, i, j, k, tries;

	if (nconf > PPS_MAX_CONF || rounds > PPS_MAX_ROUNDS || setup())
		return -1;
	memset(msgs, 0, sizeof(msgs));
	for (j = 0; j < PPS_BATCH; j++) {
		memcpy(data[j] + 8, "memfilter", 10);
		iov[j].iov_base = data[j];
		iov[j].iov_len = PPS_LEN;
		msgs[j].msg_hdr.msg_iov = &iov[j];
		msgs[j].msg_hdr.msg_iovlen = 1;
	}
	s = udp_socket("pa", "10.0.0.1", 0);
	r = udp_socket("pb", "10.0.0.2", PORT);	/* in pb from here on */
	if (s < 0 || r < 0)
		return -1;
	inet_pton(AF_INET, "10.0.0.2", &to.sin_addr);
	if (connect(s, (struct sockaddr *)&to, sizeof(to)))
		return -1;
	/* The link is up when a datagram crosses (the qdisc comes up later). */
	for (tries = 0; tries < 200 && !drain(r); tries++) {
		seq = ~0ULL - tries;	/* never a round's */
		memcpy(data[0], &seq, 8);
		if (send(s, data[0], PPS_LEN, 0) < 0)
			return -1;
		usleep(10000);
	}
	if (tries == 200) {
		fprintf(stderr, "pps: no datagram crossed the pair\n");
		return -1;
	}

	seq = 0;
	for (i = 0; i < rounds; i++)
		for (c = 0; c < nconf; c++) {
			if (apply(c, arg)) {
				fprintf(stderr, "pps: configuration %d failed\n",
					c);
				return -1;
			}
			drain(r);
			t0 = now_ns();
			for (j = 0; j < packets; j += PPS_BATCH) {
				for (k = 0; k < PPS_BATCH; k++, seq++)
					memcpy(data[k], flags & PPS_UNIQUE ?
					       &seq : &zero, 8);
				if (sendmmsg(s, msgs, PPS_BATCH, 0) != PPS_BATCH)
					return -1;
			}
			t[c][i] = (now_ns() - t0) / j;
			res[c].delivered = drain(r);
		}
	if (apply(-1, arg))
		return -1;
	/* Medians (insertion sort: a handful of rounds). */
	for (c = 0; c < nconf; c++) {
		for (i = 1; i < rounds; i++)
			for (j = i; j > 0 && t[c][j - 1] > t[c][j]; j--) {
				x = t[c][j];
				t[c][j] = t[c][j - 1];
				t[c][j - 1] = x;
			}
		res[c].min = t[c][0];
		res[c].median = t[c][rounds / 2];
		res[c].max = t[c][rounds - 1];
	}
	close(s);
	close(r);
	return 0;
}

/* XDP program @conf's (-1: none) on vb; -1 at the end: none. */
static int xdp_apply(int conf, void *arg)
{
	const int *prog_fds = arg;
	int ifindex = if_nametoindex("vb");

	if (!ifindex)
		return -1;
	if (conf < 0 || prog_fds[conf] < 0)
		return bpf_xdp_detach(ifindex, 0, NULL);
	return bpf_xdp_attach(ifindex, prog_fds[conf], 0, NULL);
}

int bench_pps(const int *prog_fds, int nconf, int packets, int rounds,
	      struct pps_result *res)
{
	return pps_run(nconf, packets, rounds, 0, xdp_apply, (void *)prog_fds,
		       res);
}
