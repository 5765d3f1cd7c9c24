/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf_test's helpers, on top of memfilter_utils.h: the sources
 * (127.1.x.y, fd00::1:x), the network namespace with lo up, the filter
 * that blocks some of them, the prediction of what it answers, sending
 * and receiving the datagrams, and the checks of an attachment's
 * counters. Included by tests/nf_test.c only, after kselftest_harness.h
 * (the ASSERTs take its _metadata).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MF_NF_UTILS_H
#define _MF_NF_UTILS_H

#include "kselftest_harness.h"
#include "libmemfilter.h"
#include "memfilter_utils.h"

#define PORT		9999
#define NSRC		512	/* sources per run */
#define NBLOCK		64	/* of which the filter holds these */
#define FPR		0.05	/* high on purpose: false positives happen */
#define NSRC6		48

/* struct in6_ifreq of <linux/ipv6.h>, which clashes with netinet/in.h. */
struct mf_in6_ifreq {
	struct in6_addr addr;
	__u32 prefixlen;
	int ifindex;
};

struct pkt {
	struct sockaddr_storage src;
	socklen_t srclen;
	unsigned char key[16];	/* the source address bytes */
	unsigned int keylen;
	char payload[16];
	bool hit;		/* the filter may hold the key (QUERY) */
	bool got;		/* arrived */
	bool refused;		/* sendto() said EPERM (dropped at output) */
};

static void lo_up(struct __test_metadata *_metadata)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	ASSERT_LE(0, s);
	ASSERT_EQ(0, ioctl(s, SIOCGIFFLAGS, &ifr));
	ifr.ifr_flags |= IFF_UP;
	ASSERT_EQ(0, ioctl(s, SIOCSIFFLAGS, &ifr));
	close(s);
}

/* The kernel has no network namespaces (CONFIG_NET_NS=n). */
static bool no_netns;

/*
 * A network namespace of our own, lo up, on one CPU (ordered delivery).
 * Without CONFIG_NET_NS the tests share the initial namespace, and the
 * teardown detaches whatever a test left attached.
 */
static void fresh_netns(struct __test_metadata *_metadata)
{
	cpu_set_t set;

	if (unshare(CLONE_NEWNET)) {
		ASSERT_EQ(EINVAL, errno) TH_LOG("unshare: %s", strerror(errno));
		no_netns = true;
	}
	lo_up(_metadata);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
}

static void src4(struct pkt *p, unsigned int i)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&p->src;

	memset(p, 0, sizeof(*p));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(0x7f010001 + i);	/* 127.1.0.1 + i */
	sin->sin_port = htons(20000 + i);
	p->srclen = sizeof(*sin);
	memcpy(p->key, &sin->sin_addr, 4);
	p->keylen = 4;
	snprintf(p->payload, sizeof(p->payload), "pkt-%06u", i);
}

static void src6(struct pkt *p, unsigned int i)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&p->src;

	memset(p, 0, sizeof(*p));
	sin6->sin6_family = AF_INET6;
	inet_pton(AF_INET6, "fd00::1:0", &sin6->sin6_addr);
	sin6->sin6_addr.s6_addr[14] = (i + 1) >> 8;	/* fd00::1:1 + i */
	sin6->sin6_addr.s6_addr[15] = (i + 1) & 0xff;
	sin6->sin6_port = htons(20000 + i);
	p->srclen = sizeof(*sin6);
	memcpy(p->key, &sin6->sin6_addr, 16);
	p->keylen = 16;
	snprintf(p->payload, sizeof(p->payload), "pkt-%06u", i);
}

static void add_addr6(struct __test_metadata *_metadata, const struct pkt *p)
{
	struct mf_in6_ifreq r = { .prefixlen = 128 };
	int s = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	ASSERT_LE(0, s);
	r.ifindex = if_nametoindex("lo");
	ASSERT_LT(0, r.ifindex);
	r.addr = ((const struct sockaddr_in6 *)&p->src)->sin6_addr;
	ASSERT_EQ(0, ioctl(s, SIOCSIFADDR, &r)) TH_LOG("%s", strerror(errno));
	close(s);
}

/* A published Bloom filter holding the keys of pkts[0..nblock). */
static int blocklist(struct __test_metadata *_metadata, int dev,
		     const char *name, struct pkt *pkts, unsigned int n,
		     unsigned int nblock)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_BLOOM, .capacity = NBLOCK,
		.fpr = FPR, .name = name);
	int fd = mf_create(dev, &o);
	unsigned int i;

	EXPECT_LE(0, fd) TH_LOG("create %s: %s", name, mf_strerror(fd));
	for (i = 0; i < nblock; i++)
		EXPECT_EQ(1, mf_add(fd, pkts[i].key, pkts[i].keylen, 1, NULL, NULL));
	return fd;
}

/* Ask the filter about every key: what the hook will see. */
static unsigned int predict(struct __test_metadata *_metadata, int fd,
			    struct pkt *pkts, unsigned int n)
{
	unsigned int i, hits = 0;
	uint64_t res;

	for (i = 0; i < n; i++) {
		res = 0;
		EXPECT_LE(0, mf_query(fd, pkts[i].key, pkts[i].keylen, 1, &res,
				      NULL));
		pkts[i].hit = res & 1;
		hits += pkts[i].hit;
	}
	return hits;
}

static int udp_socket(int family)
{
	int s = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int one = 1;

	if (s >= 0)
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	return s;
}

static int receiver(struct __test_metadata *_metadata, int family)
{
	struct sockaddr_storage ss = { .ss_family = family };
	struct timeval tv = { .tv_sec = 20 };	/* a safety net, not a measure */
	int s = udp_socket(family), big = 8 << 20;

	EXPECT_LE(0, s);
	if (family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port = htons(PORT);
	else
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(PORT);
	EXPECT_EQ(0, bind(s, (struct sockaddr *)&ss, sizeof(ss)));
	EXPECT_EQ(0, setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)));
	EXPECT_EQ(0, setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	return s;
}

/*
 * Send @len bytes from @p's source to the loopback address, fragmented
 * locally if they do not fit the MTU; IPv6 with a Destination Options
 * header after the Fragment header when @dstopts.
 */
static int send_buf(const struct pkt *p, const void *buf, size_t len,
		    bool dstopts)
{
	/* 8 bytes: next header, length 0, a PadN option of 4 zero bytes. */
	static const unsigned char opts[8] = { 0, 0, 1, 4 };
	struct sockaddr_storage dst = { .ss_family = p->src.ss_family };
	int s = udp_socket(p->src.ss_family), ret = 0, tries;
	int dont = IP_PMTUDISC_DONT, dont6 = IPV6_PMTUDISC_DONT;

	if (s < 0)
		return -errno;
	if (dst.ss_family == AF_INET)
		ret = setsockopt(s, IPPROTO_IP, IP_MTU_DISCOVER, &dont,
				 sizeof(dont));
	else
		ret = setsockopt(s, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &dont6,
				 sizeof(dont6));
	if (!ret && dstopts)
		ret = setsockopt(s, IPPROTO_IPV6, IPV6_DSTOPTS, opts,
				 sizeof(opts));
	if (ret) {
		ret = -errno;
		goto out;
	}
	if (dst.ss_family == AF_INET) {
		struct sockaddr_in *d = (struct sockaddr_in *)&dst;

		d->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		d->sin_port = htons(PORT);
	} else {
		struct sockaddr_in6 *d = (struct sockaddr_in6 *)&dst;

		d->sin6_addr = in6addr_loopback;
		d->sin6_port = htons(PORT);
	}
	/* A new IPv6 address may be tentative for a moment. */
	for (tries = 0; bind(s, (const struct sockaddr *)&p->src, p->srclen); tries++) {
		if (errno != EADDRNOTAVAIL || tries > 200) {
			ret = -errno;
			goto out;
		}
		usleep(10000);
	}
	if (sendto(s, buf, len, 0, (struct sockaddr *)&dst, p->srclen) < 0)
		ret = -errno;
out:
	close(s);
	return ret;
}

/* Send one datagram from @p's source to the loopback address. */
static int send_from(const struct pkt *p)
{
	return send_buf(p, p->payload, strlen(p->payload), false);
}

/*
 * Send every packet, then @sentinel (which must pass), and read until the
 * sentinel arrives: on one CPU over loopback, everything sent before it
 * has been through the hooks by then. Marks got/refused.
 */
static void run_traffic(struct __test_metadata *_metadata, struct pkt *pkts,
			unsigned int n, const struct pkt *sentinel)
{
	int r = receiver(_metadata, pkts[0].src.ss_family);
	char buf[64];
	unsigned int i;
	ssize_t len;
	int ret;

	for (i = 0; i < n; i++) {
		ret = send_from(&pkts[i]);
		pkts[i].got = false;
		pkts[i].refused = ret == -EPERM;
		EXPECT_TRUE(!ret || ret == -EPERM) TH_LOG("send %u: %s", i,
							  strerror(-ret));
	}
	ASSERT_EQ(0, send_from(sentinel));
	for (;;) {
		len = recv(r, buf, sizeof(buf) - 1, 0);
		ASSERT_LT(0, len) TH_LOG("recv: %s", strerror(errno));
		buf[len] = 0;
		if (!strcmp(buf, sentinel->payload))
			break;
		ASSERT_EQ(1, sscanf(buf, "pkt-%u", &i));
		ASSERT_GT(n, i);
		EXPECT_FALSE(pkts[i].got);
		pkts[i].got = true;
	}
	close(r);
}

/* The sentinel: from 127.0.0.@n (not a test source), port 20000. */
static void sentinel4(struct pkt *s, unsigned int n)
{
	src4(s, 0);
	((struct sockaddr_in *)&s->src)->sin_addr.s_addr =
		htonl(INADDR_LOOPBACK - 1 + n);
	memcpy(s->key, &((struct sockaddr_in *)&s->src)->sin_addr, 4);
	snprintf(s->payload, sizeof(s->payload), "sentinel-%u", n);
}

/*
 * A sentinel the filter @fd certainly does not hold, by source address
 * (@by_payload false) or by payload: it passes a drop-hit hook.
 */
static void sentinel_miss(struct __test_metadata *_metadata, int fd,
			  struct pkt *s, bool by_payload)
{
	unsigned int n;
	uint64_t res;

	for (n = 1; n < 255; n++) {
		sentinel4(s, n);
		res = 0;
		if (by_payload) {
			ASSERT_LE(0, mf_query(fd, s->payload, strlen(s->payload),
					      1, &res, NULL));
		} else {
			ASSERT_LE(0, mf_query(fd, s->key, 4, 1, &res, NULL));
		}
		if (!(res & 1))
			return;
	}
	ASSERT_TRUE(false) TH_LOG("no sentinel passes");
}

static int64_t attach(int dev, const char *name, unsigned int family, int hook,
		      int key, int action)
{
	MF_OPTS(mf_nf_attach_opts, o, .family = family, .hook = hook,
		.key = key, .action = action);

	return mf_nf_attach(dev, name, &o);
}

/* Attachment @id's entry as the kernel gives it, every counter included. */
static void nf_entry(struct __test_metadata *_metadata, int dev, int64_t id,
		     struct memfilter_nf_entry *out)
{
	struct memfilter_nf_entry e[MEMFILTER_NF_MAX];
	struct memfilter_nf_list l = {
		.size = sizeof(l), .count = MEMFILTER_NF_MAX,
		.entry_size = sizeof(e[0]), .entries = (__u64)(uintptr_t)e,
	};
	unsigned int i;

	memset(e, 0, sizeof(e));
	ASSERT_EQ(0, ioctl(dev, MEMFILTER_IOC_NF_LIST, &l)) TH_LOG("%s", strerror(errno));
	for (i = 0; i < l.count && i < MEMFILTER_NF_MAX; i++) {
		if (e[i].id == id) {
			*out = e[i];
			return;
		}
	}
	ASSERT_TRUE(false) TH_LOG("no attachment %lld", (long long)id);
}

/*
 * The counters add up: every packet in exactly one of skipped, hits and
 * misses; dedup's misses are added or add_failed, the others' neither.
 */
static void expect_sum(struct __test_metadata *_metadata,
		       const struct memfilter_nf_entry *e)
{
	EXPECT_EQ(e->packets, e->skipped + e->hits + e->misses)
		TH_LOG("packets %llu skipped %llu hits %llu misses %llu",
		       (unsigned long long)e->packets,
		       (unsigned long long)e->skipped,
		       (unsigned long long)e->hits,
		       (unsigned long long)e->misses);
	if (e->action == MEMFILTER_NF_DEDUP) {
		EXPECT_EQ(e->misses, e->added + e->add_failed);
	} else {
		EXPECT_EQ(0, e->added);
		EXPECT_EQ(0, e->add_failed);
	}
}

static void expect_counts(struct __test_metadata *_metadata, int dev,
			  int64_t id, uint64_t packets, uint64_t hits,
			  uint64_t misses, uint64_t drops, uint64_t skipped)
{
	struct memfilter_nf_entry e;

	nf_entry(_metadata, dev, id, &e);
	EXPECT_EQ(packets, e.packets);
	EXPECT_EQ(hits, e.hits);
	EXPECT_EQ(misses, e.misses);
	EXPECT_EQ(drops, e.drops);
	EXPECT_EQ(skipped, e.skipped);
	expect_sum(_metadata, &e);
}

static void expect_stats(struct __test_metadata *_metadata, int dev,
			 int64_t id, uint64_t packets, uint64_t hits,
			 uint64_t drops, uint64_t skipped)
{
	struct mf_nf_entry e;

	ASSERT_EQ(0, mf_nf_stats(dev, id, &e));
	EXPECT_EQ(packets, e.packets);
	EXPECT_EQ(hits, e.hits);
	EXPECT_EQ(drops, e.drops);
	EXPECT_EQ(skipped, e.skipped);
	EXPECT_EQ(0, e.added);
	expect_counts(_metadata, dev, id, packets, hits,
		      packets - hits - skipped, drops, skipped);
}

#endif /* _MF_NF_UTILS_H */
