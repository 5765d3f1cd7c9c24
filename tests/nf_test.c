// SPDX-License-Identifier: GPL-2.0
/*
 * Selftest of memfilter's netfilter hook in the guest, over loopback only
 * (no veth, no ip tool): each test runs in a network namespace of its
 * own, sends one UDP datagram from each of many source addresses
 * (127.1.x.y, and fd00::1:x added to lo) and checks, per source, which
 * ones arrived. What the filter answers for each key is asked of the same
 * filter with QUERY, so false positives are predicted exactly and the
 * test passes only if the hook dropped precisely the packets it should.
 * The counters must match the traffic. Lifetime: detach under traffic, a
 * namespace that dies with attachments, an attached filter unpublished;
 * a blocklist and an allowlist replaced 100 times under traffic, and the
 * dedup action's need for test-and-add across replaces; the errno table
 * and privileges.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/memfilter.h>

#include "kselftest_harness.h"
#include "libmemfilter.h"
#include "memfilter_utils.h"
#include "nf_utils.h"
#include "prefix_list.h"

FIXTURE(nf) {
	int dev;
	struct pkt pkts[NSRC];
	struct pkt sentinel;
};

FIXTURE_SETUP(nf)
{
	unsigned int i;

	if (geteuid())
		SKIP(return, "needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN)");
	fresh_netns(_metadata);
	self->dev = mf_open_device();
	ASSERT_LE(0, self->dev);
	for (i = 0; i < NSRC; i++)
		src4(&self->pkts[i], i);
	sentinel4(&self->sentinel, 1);
}

FIXTURE_TEARDOWN(nf)
{
	struct mf_nf_entry e[MEMFILTER_NF_MAX];
	ssize_t i, n;

	if (self->dev < 0)
		return;
	n = mf_nf_list(self->dev, e, MEMFILTER_NF_MAX);
	for (i = 0; i < n && i < MEMFILTER_NF_MAX; i++)
		mf_nf_detach(self->dev, e[i].id);
	close(self->dev);
}

/*
 * Blocklist at input: exactly the sources the filter may hold (the
 * blocked ones and its false positives) are dropped.
 */
TEST_F(nf, blocklist_saddr_input_v4)
{
	unsigned int i, hits, got = 0;
	int fd = blocklist(_metadata, self->dev, "nf.block4", self->pkts, NSRC, NBLOCK);
	int64_t id;

	hits = predict(_metadata, fd, self->pkts, NSRC);
	sentinel_miss(_metadata, fd, &self->sentinel, false);
	ASSERT_LE(NBLOCK, hits);
	TH_LOG("%u sources, %u blocked, %u false positives", NSRC, NBLOCK,
	       hits - NBLOCK);
	id = attach(self->dev, "nf.block4", MF_NF_IPV4, MF_NF_INPUT,
		    MF_NF_KEY_SADDR, MF_NF_DROP_HIT);
	ASSERT_LT(0, id) TH_LOG("attach: %s", mf_strerror(id));

	run_traffic(_metadata, self->pkts, NSRC, &self->sentinel);
	for (i = 0; i < NSRC; i++) {
		EXPECT_EQ(!self->pkts[i].hit, self->pkts[i].got) TH_LOG("source %u", i);
		EXPECT_FALSE(self->pkts[i].refused);
		got += self->pkts[i].got;
	}
	EXPECT_EQ(NSRC - hits, got);
	expect_stats(_metadata, self->dev, id, NSRC + 1, hits, hits, 0);
	EXPECT_EQ(0, mf_nf_detach(self->dev, id));
	EXPECT_EQ(-ENOENT, mf_nf_detach(self->dev, id));
	EXPECT_EQ(0, mf_unpublish(fd));
	close(fd);
}

/* Allowlist at prerouting: only what the filter may hold passes. */
TEST_F(nf, allowlist_saddr_prerouting_v4)
{
	unsigned int i, hits;
	int fd = blocklist(_metadata, self->dev, "nf.allow4", self->pkts, NSRC, NBLOCK);
	int64_t id;

	/* The sentinel must pass: hold it too. */
	ASSERT_EQ(1, mf_add(fd, self->sentinel.key, 4, 1, NULL, NULL));
	hits = predict(_metadata, fd, self->pkts, NSRC);
	id = attach(self->dev, "nf.allow4", MF_NF_IPV4, MF_NF_PREROUTING,
		    MF_NF_KEY_SADDR, MF_NF_DROP_MISS);
	ASSERT_LT(0, id);
	run_traffic(_metadata, self->pkts, NSRC, &self->sentinel);
	for (i = 0; i < NSRC; i++)
		EXPECT_EQ(self->pkts[i].hit, self->pkts[i].got) TH_LOG("source %u", i);
	expect_stats(_metadata, self->dev, id, NSRC + 1, hits + 1, NSRC - hits, 0);
	EXPECT_EQ(0, mf_unpublish(fd));
	close(fd);
}

/* IPv6 sources on lo, an attachment for both families at input. */
TEST_F(nf, blocklist_saddr_input_v6)
{
	struct pkt *p = self->pkts;
	unsigned int i, hits, got = 0;
	int fd;
	int64_t id;

	for (i = 0; i < NSRC6; i++) {
		src6(&p[i], i);
		add_addr6(_metadata, &p[i]);
	}
	fd = blocklist(_metadata, self->dev, "nf.block6", p, NSRC6, NSRC6 / 4);
	hits = predict(_metadata, fd, p, NSRC6);
	/* An IPv4 sentinel reaches the dual-stack receiver in order too. */
	sentinel_miss(_metadata, fd, &self->sentinel, false);
	id = attach(self->dev, "nf.block6", MF_NF_IPV4 | MF_NF_IPV6,
		    MF_NF_INPUT, MF_NF_KEY_SADDR, MF_NF_DROP_HIT);
	ASSERT_LT(0, id);
	run_traffic(_metadata, p, NSRC6, &self->sentinel);
	for (i = 0; i < NSRC6; i++) {
		EXPECT_EQ(!p[i].hit, p[i].got) TH_LOG("source %u", i);
		got += p[i].got;
	}
	EXPECT_EQ(NSRC6 - hits, got);
	expect_stats(_metadata, self->dev, id, NSRC6 + 1, hits, hits, 0);
	EXPECT_EQ(0, mf_unpublish(fd));
	close(fd);
}

/*
 * The L4 payload as the key, dropped at output: sendto() itself fails
 * with EPERM for exactly the payloads the filter may hold.
 */
TEST_F(nf, blocklist_payload_output)
{
	struct pkt *p = self->pkts;
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_BLOOM, .capacity = NBLOCK,
		.fpr = FPR, .name = "nf.payload");
	unsigned int i, hits = 0;
	uint64_t res;
	int fd = mf_create(self->dev, &o);
	int64_t id;

	ASSERT_LE(0, fd);
	for (i = 0; i < NBLOCK; i++)
		ASSERT_EQ(1, mf_add(fd, p[i].payload, strlen(p[i].payload), 1,
				    NULL, NULL));
	for (i = 0; i < NSRC; i++) {
		res = 0;
		ASSERT_LE(0, mf_query(fd, p[i].payload, strlen(p[i].payload),
				      1, &res, NULL));
		p[i].hit = res & 1;
		hits += p[i].hit;
	}
	sentinel_miss(_metadata, fd, &self->sentinel, true);
	id = attach(self->dev, "nf.payload", MF_NF_IPV4, MF_NF_OUTPUT,
		    MF_NF_KEY_L4_PAYLOAD, MF_NF_DROP_HIT);
	ASSERT_LT(0, id);
	run_traffic(_metadata, p, NSRC, &self->sentinel);
	for (i = 0; i < NSRC; i++) {
		EXPECT_EQ(p[i].hit, p[i].refused) TH_LOG("payload %u", i);
		EXPECT_EQ(!p[i].hit, p[i].got) TH_LOG("payload %u", i);
	}
	expect_stats(_metadata, self->dev, id, NSRC + 1, hits, hits, 0);
	EXPECT_EQ(0, mf_unpublish(fd));
	close(fd);
}

/* The IPv4 5-tuple key: saddr, daddr, sport, dport, protocol. */
static void tuple4(const struct pkt *p, unsigned char key[13])
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)&p->src;
	__be32 daddr = htonl(INADDR_LOOPBACK);
	__be16 dport = htons(PORT);

	memcpy(key, &sin->sin_addr, 4);
	memcpy(key + 4, &daddr, 4);
	memcpy(key + 8, &sin->sin_port, 2);
	memcpy(key + 10, &dport, 2);
	key[12] = IPPROTO_UDP;
}

/* The 5-tuple, counted only at postrouting: nothing dropped. */
TEST_F(nf, count_tuple_postrouting)
{
	struct pkt *p = self->pkts;
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_BLOOM, .capacity = NBLOCK,
		.fpr = FPR, .name = "nf.tuple");
	unsigned char key[NSRC + 1][13];
	unsigned int i, hits;
	uint64_t res[(NSRC + 1 + 63) / 64] = { 0 };
	int fd = mf_create(self->dev, &o);
	int64_t id;

	ASSERT_LE(0, fd);
	for (i = 0; i < NSRC; i++)
		tuple4(&p[i], key[i]);
	tuple4(&self->sentinel, key[NSRC]);
	ASSERT_EQ(NBLOCK, mf_add(fd, key, 13, NBLOCK, NULL, NULL));
	hits = mf_query(fd, key, 13, NSRC + 1, res, NULL);
	ASSERT_LE(NBLOCK, hits);
	id = attach(self->dev, "nf.tuple", MF_NF_IPV4, MF_NF_POSTROUTING,
		    MF_NF_KEY_TUPLE, MF_NF_COUNT);
	ASSERT_LT(0, id);
	run_traffic(_metadata, p, NSRC, &self->sentinel);
	for (i = 0; i < NSRC; i++)
		EXPECT_TRUE(p[i].got);
	expect_stats(_metadata, self->dev, id, NSRC + 1, hits, 0, 0);
	EXPECT_EQ(0, mf_unpublish(fd));
	close(fd);
}

/*
 * Dedup on a growing filter that cannot grow (one sub-filter of GROW_CAP
 * keys): once full, test-and-add finds a new key absent and cannot add it
 * (-ENOSPC); its packet passes and is counted in misses and add_failed,
 * so the counters still add up to every packet sent. Each source sends
 * twice; a twin filter (same seed and shape) given the same keys in the
 * same order with TEST_AND_ADD predicts every verdict.
 */
#define GROW_SRC	48
#define GROW_CAP	16

TEST_F(nf, dedup_grow_full_counts)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_GROW, .capacity = GROW_CAP,
		.fpr = 0.01, .fixed_seed = true, .seed = 0x5eed,
		.name = "nf.grow");
	MF_OPTS(mf_grow_opts, g, .max_subs = 1);
	struct pkt *p = self->pkts;
	unsigned int i, s, hits = 0, added = 0, failed = 0, n = 2 * GROW_SRC;
	struct memfilter_nf_entry e;
	int fd, twin;
	uint64_t res;
	ssize_t ret;
	int64_t id;

	fd = mf_create_grow(self->dev, &o, &g);
	ASSERT_LE(0, fd) TH_LOG("create: %s", mf_strerror(fd));
	o.name = NULL;
	twin = mf_create_grow(self->dev, &o, &g);
	ASSERT_LE(0, twin);
	for (i = 0; i < n; i++) {
		src4(&p[i], i % GROW_SRC);
		snprintf(p[i].payload, sizeof(p[i].payload), "pkt-%06u", i);
	}
	/* What the hook will answer, packet by packet, sentinel last. */
	for (i = 0; i <= n; i++) {
		struct pkt *q = i < n ? &p[i] : &self->sentinel;

		/* A sentinel the full filter does not hold: it passes. */
		for (s = 1; i == n && s < 255; s++) {
			sentinel4(q, s);
			res = 0;
			ASSERT_LE(0, mf_query(twin, q->key, 4, 1, &res, NULL));
			if (!(res & 1))
				break;
		}
		res = 0;
		ret = mf_test_and_add(twin, q->key, 4, 1, &res, NULL);
		ASSERT_TRUE(ret >= 0 || ret == -ENOSPC) TH_LOG("%s", mf_strerror(ret));
		q->hit = ret > 0;
		hits += q->hit;
		added += ret == 0;
		failed += ret == -ENOSPC;
	}
	ASSERT_FALSE(self->sentinel.hit);
	ASSERT_LT(0, failed) TH_LOG("the filter never filled");
	TH_LOG("%u packets: %u repeats or false positives, %u added, %u not added (full)",
	       n + 1, hits, added, failed);
	id = attach(self->dev, "nf.grow", MF_NF_IPV4, MF_NF_INPUT,
		    MF_NF_KEY_SADDR, MF_NF_DEDUP);
	ASSERT_LT(0, id) TH_LOG("attach: %s", mf_strerror(id));
	run_traffic(_metadata, p, n, &self->sentinel);
	for (i = 0; i < n; i++)
		EXPECT_EQ(!p[i].hit, p[i].got) TH_LOG("packet %u", i);
	nf_entry(_metadata, self->dev, id, &e);
	EXPECT_EQ(n + 1, e.packets);
	EXPECT_EQ(hits, e.hits);
	EXPECT_EQ(hits, e.drops);
	EXPECT_EQ(added, e.added);
	EXPECT_EQ(failed, e.add_failed);
	EXPECT_EQ(added + failed, e.misses);
	EXPECT_EQ(0, e.skipped);
	expect_sum(_metadata, &e);
	EXPECT_EQ(0, mf_unpublish(fd));
	close(twin);
	close(fd);
}

/* Datagrams of BIG bytes are NFRAG fragments at an MTU of FRAG_MTU. */
#define FRAG_MTU	1280
#define BIG		2000
#define NFRAG		2

/* Set lo's MTU; the old one is returned. */
static int lo_mtu(struct __test_metadata *_metadata, int mtu)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), old;

	ASSERT_LE(0, s);
	ASSERT_EQ(0, ioctl(s, SIOCGIFMTU, &ifr));
	old = ifr.ifr_mtu;
	ifr.ifr_mtu = mtu;
	ASSERT_EQ(0, ioctl(s, SIOCSIFMTU, &ifr)) TH_LOG("%s", strerror(errno));
	close(s);
	return old;
}

/* A BIG datagram from @p's source, its payload starting "big-@tag". */
static void send_big(struct __test_metadata *_metadata, const struct pkt *p,
		     unsigned int tag, bool dstopts)
{
	static char buf[BIG];
	int ret;

	memset(buf, 'x', sizeof(buf));
	snprintf(buf, 16, "big-%u", tag);
	ret = send_buf(p, buf, sizeof(buf), dstopts);
	ASSERT_EQ(0, ret) TH_LOG("send big-%u: %s", tag, strerror(-ret));
}

/*
 * Read from @r until @sentinel's payload; bit i of the result set when
 * "big-i" arrived (whole: its fragments were reassembled).
 */
static unsigned int recv_big(struct __test_metadata *_metadata, int r,
			     const struct pkt *sentinel)
{
	static char buf[BIG + 64];
	unsigned int got = 0, tag;
	ssize_t len;

	for (;;) {
		len = recv(r, buf, sizeof(buf) - 1, 0);
		ASSERT_LT(0, len) TH_LOG("recv: %s", strerror(errno));
		buf[len] = 0;
		if (!strcmp(buf, sentinel->payload))
			return got;
		ASSERT_EQ(1, sscanf(buf, "big-%u", &tag)) TH_LOG("%.16s", buf);
		EXPECT_EQ(BIG, len);
		ASSERT_GT(32, tag);
		got |= 1u << tag;
	}
}

/* A source of pkts[from..) that the filter @fd certainly does not hold. */
static unsigned int absent_source(struct __test_metadata *_metadata, int fd,
				  const struct pkt *pkts, unsigned int from,
				  unsigned int n)
{
	uint64_t res;

	for (; from < n; from++) {
		res = 0;
		ASSERT_LE(0, mf_query(fd, pkts[from].key, pkts[from].keylen, 1,
				      &res, NULL));
		if (!(res & 1))
			return from;
	}
	ASSERT_TRUE(false) TH_LOG("every source is a false positive");
	return 0;
}

/*
 * An allowlist by source address at prerouting, where IPv4 fragments are
 * still apart: every fragment of a datagram from an allowed source
 * passes, and every fragment from another source is dropped; none is
 * skipped (the address is in each fragment's header).
 */
TEST_F(nf, allowlist_saddr_fragments_v4)
{
	struct pkt *p = self->pkts;
	unsigned int b, got;
	int fd, mtu, r;
	int64_t id;

	fd = blocklist(_metadata, self->dev, "nf.frag4", p, NSRC, 1);
	ASSERT_EQ(1, mf_add(fd, self->sentinel.key, 4, 1, NULL, NULL));
	b = absent_source(_metadata, fd, p, 1, NSRC);
	id = attach(self->dev, "nf.frag4", MF_NF_IPV4, MF_NF_PREROUTING,
		    MF_NF_KEY_SADDR, MF_NF_DROP_MISS);
	ASSERT_LT(0, id);
	mtu = lo_mtu(_metadata, FRAG_MTU);
	r = receiver(_metadata, AF_INET);
	send_big(_metadata, &p[0], 0, false);
	send_big(_metadata, &p[b], 1, false);
	ASSERT_EQ(0, send_from(&self->sentinel));
	got = recv_big(_metadata, r, &self->sentinel);
	close(r);
	lo_mtu(_metadata, mtu);
	EXPECT_EQ(1, got) TH_LOG("allowed 0, not allowed 1: got %#x", got);
	expect_counts(_metadata, self->dev, id, 2 * NFRAG + 1, NFRAG + 1,
		      NFRAG, NFRAG, 0);
	EXPECT_EQ(0, mf_unpublish(fd));
	close(fd);
}

/*
 * An allowlist by 5-tuple at prerouting: a later fragment has no ports,
 * so it is skipped, and an allowlist drops what it skips: the allowed
 * flow's datagram is lost too (documented: reassemble first), and no
 * fragment of another flow gets through.
 */
TEST_F(nf, allowlist_tuple_fragments_v4)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_BLOOM, .capacity = NBLOCK,
		.fpr = FPR, .name = "nf.fragt");
	struct pkt *p = self->pkts;
	unsigned char key[13];
	unsigned int b, got;
	int fd, mtu, r;
	uint64_t res;
	int64_t id;

	fd = mf_create(self->dev, &o);
	ASSERT_LE(0, fd);
	tuple4(&p[0], key);
	ASSERT_EQ(1, mf_add(fd, key, 13, 1, NULL, NULL));
	tuple4(&self->sentinel, key);
	ASSERT_EQ(1, mf_add(fd, key, 13, 1, NULL, NULL));
	for (b = 1; b < NSRC; b++) {
		tuple4(&p[b], key);
		res = 0;
		ASSERT_LE(0, mf_query(fd, key, 13, 1, &res, NULL));
		if (!(res & 1))
			break;
	}
	ASSERT_GT(NSRC, b);
	id = attach(self->dev, "nf.fragt", MF_NF_IPV4, MF_NF_PREROUTING,
		    MF_NF_KEY_TUPLE, MF_NF_DROP_MISS);
	ASSERT_LT(0, id);
	mtu = lo_mtu(_metadata, FRAG_MTU);
	r = receiver(_metadata, AF_INET);
	send_big(_metadata, &p[0], 0, false);
	send_big(_metadata, &p[b], 1, false);
	ASSERT_EQ(0, send_from(&self->sentinel));
	got = recv_big(_metadata, r, &self->sentinel);
	close(r);
	lo_mtu(_metadata, mtu);
	EXPECT_EQ(0, got) TH_LOG("got %#x", got);
	/* First fragments: a hit and a miss; the later ones skipped. */
	expect_counts(_metadata, self->dev, id, 2 * NFRAG + 1, 2, 1,
		      1 + 2 * (NFRAG - 1), 2 * (NFRAG - 1));
	EXPECT_EQ(0, mf_unpublish(fd));
	close(fd);
}

#ifndef IPV6_HDRINCL
#define IPV6_HDRINCL	36
#endif

/*
 * An IPv6 packet from @p's source whose Destination Options header says
 * it is 2048 bytes long in an 8-byte payload: no extension header parser
 * gets past it. Sent raw (IPV6_HDRINCL) to ::1; the stack drops it after
 * prerouting.
 */
static void send_bad_chain6(struct __test_metadata *_metadata,
			    const struct pkt *p)
{
	struct sockaddr_in6 dst = { .sin6_family = AF_INET6,
				    .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	unsigned char pkt[40 + 8] = { 0x60 };	/* version 6 */
	int s = socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW), one = 1;

	ASSERT_LE(0, s) TH_LOG("raw socket: %s", strerror(errno));
	ASSERT_EQ(0, setsockopt(s, IPPROTO_IPV6, IPV6_HDRINCL, &one, sizeof(one)));
	pkt[5] = 8;			/* payload length */
	pkt[6] = IPPROTO_DSTOPTS;	/* next header */
	pkt[7] = 64;			/* hop limit */
	memcpy(pkt + 8, p->key, 16);
	memcpy(pkt + 24, &dst.sin6_addr, 16);
	pkt[40] = IPPROTO_UDP;
	pkt[41] = 255;			/* (255 + 1) * 8 bytes */
	ASSERT_EQ(sizeof(pkt), sendto(s, pkt, sizeof(pkt), 0,
				      (struct sockaddr *)&dst, sizeof(dst)))
		TH_LOG("%s", strerror(errno));
	close(s);
}

/*
 * An IPv6 allowlist by source address at prerouting: fragments whose
 * later parts carry a Destination Options header after the Fragment
 * header (an extension header chain ipv6_find_hdr() does not follow in a
 * later fragment), and a packet whose chain is cut short. The address is
 * in the fixed header of each: from the allowed source they pass, from
 * another every one is dropped, none skipped.
 */
TEST_F(nf, allowlist_saddr_fragments_exthdr_v6)
{
	struct pkt *p = self->pkts;
	unsigned int i, b, got;
	int fd, mtu, r;
	int64_t id;

	for (i = 0; i < 16; i++)
		src6(&p[i], i);
	fd = blocklist(_metadata, self->dev, "nf.frag6", p, 16, 1);
	b = absent_source(_metadata, fd, p, 1, 16);
	add_addr6(_metadata, &p[0]);
	add_addr6(_metadata, &p[b]);
	id = attach(self->dev, "nf.frag6", MF_NF_IPV6, MF_NF_PREROUTING,
		    MF_NF_KEY_SADDR, MF_NF_DROP_MISS);
	ASSERT_LT(0, id);
	mtu = lo_mtu(_metadata, FRAG_MTU);
	/* Dual stack: the IPv4 sentinel, which the hook does not see. */
	r = receiver(_metadata, AF_INET6);
	send_big(_metadata, &p[0], 0, true);
	send_big(_metadata, &p[b], 1, true);
	send_bad_chain6(_metadata, &p[b]);
	ASSERT_EQ(0, send_from(&self->sentinel));
	got = recv_big(_metadata, r, &self->sentinel);
	close(r);
	lo_mtu(_metadata, mtu);
	EXPECT_EQ(1, got) TH_LOG("allowed 0, not allowed 1: got %#x", got);
	expect_counts(_metadata, self->dev, id, 2 * NFRAG + 1, NFRAG,
		      NFRAG + 1, NFRAG + 1, 0);
	EXPECT_EQ(0, mf_unpublish(fd));
	close(fd);
}

static atomic_bool stop;
static atomic_uint sent_ok, sent_eperm;

static void *sender(void *arg)
{
	const struct pkt *p = arg;

	while (!atomic_load(&stop)) {
		int ret = send_from(p);

		if (!ret)
			atomic_fetch_add(&sent_ok, 1);
		else if (ret == -EPERM)
			atomic_fetch_add(&sent_eperm, 1);
	}
	return NULL;
}

/* Detach while a thread sends from a blocked source through the hook. */
TEST_F(nf, detach_under_traffic)
{
	int fd = blocklist(_metadata, self->dev, "nf.detach", self->pkts, NSRC, 1);
	pthread_t t;
	int64_t id;
	int r = receiver(_metadata, AF_INET);

	id = attach(self->dev, "nf.detach", MF_NF_IPV4, MF_NF_OUTPUT,
		    MF_NF_KEY_SADDR, MF_NF_DROP_HIT);
	ASSERT_LT(0, id);
	atomic_store(&stop, false);
	ASSERT_EQ(0, pthread_create(&t, NULL, sender, &self->pkts[0]));
	while (atomic_load(&sent_eperm) < 200)
		sched_yield();
	EXPECT_EQ(0, atomic_load(&sent_ok));
	EXPECT_EQ(0, mf_nf_detach(self->dev, id));
	while (atomic_load(&sent_ok) < 200)
		sched_yield();
	atomic_store(&stop, true);
	pthread_join(t, NULL);
	EXPECT_EQ(-ENOENT, mf_nf_detach(self->dev, id));
	EXPECT_EQ(0, mf_nf_list(self->dev, NULL, 0));
	EXPECT_EQ(0, mf_unpublish(fd));
	close(r);
	close(fd);
}

/* Unpublishing an attached filter leaves the attachment working. */
TEST_F(nf, unpublish_keeps_attachment)
{
	unsigned int i, hits;
	int fd = blocklist(_metadata, self->dev, "nf.unpub", self->pkts, NSRC, NBLOCK);
	struct mf_nf_entry e;
	int64_t id;

	hits = predict(_metadata, fd, self->pkts, NSRC);
	sentinel_miss(_metadata, fd, &self->sentinel, false);
	id = attach(self->dev, "nf.unpub", MF_NF_IPV4, MF_NF_INPUT,
		    MF_NF_KEY_SADDR, MF_NF_DROP_HIT);
	ASSERT_LT(0, id);
	ASSERT_EQ(0, mf_unpublish(fd));
	close(fd);	/* the attachment holds the last reference */
	EXPECT_EQ(-ENOENT, attach(self->dev, "nf.unpub", MF_NF_IPV4,
				  MF_NF_INPUT, MF_NF_KEY_SADDR, MF_NF_DROP_HIT));
	run_traffic(_metadata, self->pkts, NSRC, &self->sentinel);
	for (i = 0; i < NSRC; i++)
		EXPECT_EQ(!self->pkts[i].hit, self->pkts[i].got);
	ASSERT_EQ(0, mf_nf_stats(self->dev, id, &e));
	EXPECT_STREQ("nf.unpub", e.name);
	EXPECT_EQ(hits, e.drops);
	EXPECT_EQ(0, mf_nf_detach(self->dev, id));
}

/* A namespace that exits with attachments takes them along. */
TEST_F(nf, netns_exit_detaches)
{
	int fd = blocklist(_metadata, self->dev, "nf.netns", self->pkts, NSRC, NBLOCK);
	char line[256];
	int status, tries, found;
	pid_t pid;
	FILE *f;

	if (no_netns) {
		mf_unpublish(fd);
		close(fd);
		SKIP(return, "no network namespaces (CONFIG_NET_NS)");
	}
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (unshare(CLONE_NEWNET))
			_exit(10);
		if (attach(self->dev, "nf.netns", MF_NF_IPV4 | MF_NF_IPV6,
			   MF_NF_INPUT, MF_NF_KEY_SADDR, MF_NF_DROP_HIT) <= 0)
			_exit(11);
		if (attach(self->dev, "nf.netns", MF_NF_IPV4, MF_NF_OUTPUT,
			   MF_NF_KEY_DADDR, MF_NF_COUNT) <= 0)
			_exit(12);
		if (mf_nf_list(self->dev, NULL, 0) != 2)
			_exit(13);
		/* debugfs shows both, with this namespace's inode number. */
		f = fopen("/sys/kernel/debug/memfilter/netfilter", "r");
		if (!f)
			_exit(0);
		found = 0;
		while (fgets(line, sizeof(line), f))
			found += !!strstr(line, " nf.netns ");
		_exit(found == 2 ? 0 : 14);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	/* Our own namespace never saw them. */
	EXPECT_EQ(0, mf_nf_list(self->dev, NULL, 0));
	/* The child's namespace is cleaned up by a worker: wait for it. */
	f = fopen("/sys/kernel/debug/memfilter/netfilter", "r");
	if (!f) {
		mf_unpublish(fd);
		close(fd);
		SKIP(return, "no debugfs");
	}
	fclose(f);
	for (tries = 0; tries < 3000; tries++) {
		found = 0;
		f = fopen("/sys/kernel/debug/memfilter/netfilter", "r");
		ASSERT_NE(NULL, f);
		while (fgets(line, sizeof(line), f))
			found += !!strstr(line, " nf.netns ");
		fclose(f);
		if (!found)
			break;
		usleep(10000);
	}
	EXPECT_EQ(0, found);
	EXPECT_EQ(0, mf_unpublish(fd));
	close(fd);
}

/* Replaces racing traffic: how many, and packets sent between two. */
#define REPLACES	100
#define REPLACE_PACE	6

/*
 * A sender thread's traffic: one datagram at a time from the sources
 * use[0..nuse), round after round, until told to stop; what it sent from
 * each source, and in all.
 */
struct flow {
	const struct pkt *pkts;
	const unsigned int *use;
	unsigned int nuse;
	unsigned int sent[NSRC];
	atomic_uint total;
	atomic_uint errors;
	atomic_bool stop;
};

static void *flow_sender(void *arg)
{
	struct flow *fl = arg;
	unsigned int i, s;

	for (i = 0; !atomic_load(&fl->stop); i++) {
		s = fl->use[i % fl->nuse];
		if (send_from(&fl->pkts[s])) {
			atomic_fetch_add(&fl->errors, 1);
			continue;
		}
		fl->sent[s]++;
		atomic_fetch_add(&fl->total, 1);
	}
	return NULL;
}

/* A sentinel from 127.0.0.n that both filters answer as @hit for. */
static void sentinel_both(struct __test_metadata *_metadata, int fa, int fb,
			  struct pkt *s, bool hit)
{
	unsigned int n;

	for (n = 1; n < 255; n++) {
		sentinel4(s, n);
		if (mf_query(fa, s->key, 4, 1, NULL, NULL) == hit &&
		    mf_query(fb, s->key, 4, 1, NULL, NULL) == hit)
			return;
	}
	ASSERT_TRUE(false) TH_LOG("no sentinel for both filters");
}

static uint64_t queries_of(int fd)
{
	struct mf_info i;

	return mf_info(fd, &i) ? 0 : i.queries;
}

/*
 * REPLACES replaces of @name between filters @f[0] (published) and @f[1]
 * (aside) while a thread sends through @action's attachment, at input
 * (drop-hit) or prerouting (drop-miss): every packet meets one of the two
 * filters. Only sources both filters answer alike are sent (the keys
 * they hold, and the absent ones neither takes for a false positive),
 * so each packet's verdict is known whichever filter it met: exactly
 * those pass, the attachment's counters go on across every replace and
 * add up, and the two filters' own query counters share the packets
 * between them (so the hook did follow the name).
 */
static void replace_under_traffic(struct __test_metadata *_metadata,
				  FIXTURE_DATA(nf) *self, const char *name,
				  const int f[2], int action)
{
	static unsigned int use[NSRC];
	static struct flow fl;
	bool hit[NSRC], allow = action == MF_NF_DROP_MISS;
	unsigned int i, nuse = 0, got[NSRC] = { 0 }, k;
	uint64_t q0[2], q1[2], hits = 0, total;
	struct memfilter_nf_entry e;
	struct mf_nf_entry st;
	int r, ret, id;
	char buf[64];
	ssize_t len;
	pthread_t t;

	for (i = 0; i < NSRC; i++) {
		int a = mf_query(f[0], self->pkts[i].key, 4, 1, NULL, NULL);
		int b = mf_query(f[1], self->pkts[i].key, 4, 1, NULL, NULL);

		ASSERT_LE(0, a);
		ASSERT_LE(0, b);
		if (i < NBLOCK)
			ASSERT_TRUE(a && b);	/* both hold the set */
		hit[i] = a;
		if (a == b)
			use[nuse++] = i;
	}
	sentinel_both(_metadata, f[0], f[1], &self->sentinel, allow);
	TH_LOG("%u of %u sources answered alike by both filters", nuse, NSRC);
	ASSERT_LT(NSRC / 2, nuse);
	id = attach(self->dev, name, MF_NF_IPV4,
		    allow ? MF_NF_PREROUTING : MF_NF_INPUT, MF_NF_KEY_SADDR,
		    action);
	ASSERT_LT(0, id) TH_LOG("attach: %s", mf_strerror(id));
	q0[0] = queries_of(f[0]);
	q0[1] = queries_of(f[1]);

	r = receiver(_metadata, AF_INET);
	memset(&fl, 0, sizeof(fl));
	fl.pkts = self->pkts;
	fl.use = use;
	fl.nuse = nuse;
	ASSERT_EQ(0, pthread_create(&t, NULL, flow_sender, &fl));
	for (k = 1; k <= REPLACES; k++) {
		while (atomic_load(&fl.total) < k * REPLACE_PACE &&
		       !atomic_load(&fl.errors))
			sched_yield();
		ret = mf_replace(self->dev, name, f[k & 1], 0);
		if (ret)
			break;
	}
	atomic_store(&fl.stop, true);
	pthread_join(t, NULL);
	ASSERT_EQ(0, ret) TH_LOG("replace %u: %s", k, mf_strerror(ret));
	ASSERT_EQ(0, atomic_load(&fl.errors));
	ASSERT_EQ(0, send_from(&self->sentinel));
	for (;;) {
		len = recv(r, buf, sizeof(buf) - 1, 0);
		ASSERT_LT(0, len) TH_LOG("recv: %s", strerror(errno));
		buf[len] = 0;
		if (!strcmp(buf, self->sentinel.payload))
			break;
		ASSERT_EQ(1, sscanf(buf, "pkt-%u", &i));
		ASSERT_GT(NSRC, i);
		got[i]++;
	}
	close(r);

	total = atomic_load(&fl.total);
	TH_LOG("%llu packets across %u replaces", (unsigned long long)total,
	       REPLACES);
	for (i = 0; i < NSRC; i++) {
		EXPECT_EQ(hit[i] == allow ? fl.sent[i] : 0, got[i])
			TH_LOG("source %u (%s, sent %u)", i,
			       hit[i] ? "held" : "absent", fl.sent[i]);
		if (hit[i])
			hits += fl.sent[i];
	}
	/* The sentinel: a hit for the allowlist, a miss for the blocklist. */
	hits += allow;
	nf_entry(_metadata, self->dev, id, &e);
	EXPECT_EQ(total + 1, e.packets);
	EXPECT_EQ(hits, e.hits);
	EXPECT_EQ(total + 1 - hits, e.misses);
	EXPECT_EQ(allow ? total + 1 - hits : hits, e.drops);
	EXPECT_EQ(0, e.skipped);
	expect_sum(_metadata, &e);
	ASSERT_EQ(0, mf_nf_stats(self->dev, id, &st));
	EXPECT_STREQ(name, st.name);
	/* Every packet asked one of the two, and each was asked. */
	q1[0] = queries_of(f[0]);
	q1[1] = queries_of(f[1]);
	EXPECT_EQ(total + 1, (q1[0] - q0[0]) + (q1[1] - q0[1]));
	EXPECT_LT(0, q1[0] - q0[0]);
	EXPECT_LT(0, q1[1] - q0[1]);
	/* The name ends where it started (an even number of replaces). */
	EXPECT_EQ(0, mf_pub_id(f[0], (uint32_t[]){ 0 }));
	EXPECT_EQ(-ENOENT, mf_pub_id(f[1], (uint32_t[]){ 0 }));
	EXPECT_EQ(0, mf_nf_detach(self->dev, id));
}

/*
 * A blocklist replaced 100 times under traffic between two filters that
 * both hold the blocked set (different seeds, so different false
 * positives): not one blocked packet passes.
 */
TEST_F(nf, replace_blocklist_under_traffic)
{
	int f[2];

	f[0] = blocklist(_metadata, self->dev, "nf.replace", self->pkts, NSRC, NBLOCK);
	f[1] = blocklist(_metadata, self->dev, NULL, self->pkts, NSRC, NBLOCK);
	ASSERT_LE(0, f[0]);
	ASSERT_LE(0, f[1]);
	replace_under_traffic(_metadata, self, "nf.replace", f, MF_NF_DROP_HIT);
	EXPECT_EQ(0, mf_unpublish(f[0]));
	close(f[1]);
	close(f[0]);
}

/* An allowlist replaced likewise never drops an allowed packet. */
TEST_F(nf, replace_allowlist_under_traffic)
{
	int f[2];

	f[0] = blocklist(_metadata, self->dev, "nf.replace.allow", self->pkts,
			 NSRC, NBLOCK);
	f[1] = blocklist(_metadata, self->dev, NULL, self->pkts, NSRC, NBLOCK);
	ASSERT_LE(0, f[0]);
	ASSERT_LE(0, f[1]);
	/* The sentinel must pass: both hold it too. */
	ASSERT_EQ(1, mf_add(f[0], self->sentinel.key, 4, 1, NULL, NULL));
	ASSERT_EQ(1, mf_add(f[1], self->sentinel.key, 4, 1, NULL, NULL));
	replace_under_traffic(_metadata, self, "nf.replace.allow", f,
			      MF_NF_DROP_MISS);
	EXPECT_EQ(0, mf_unpublish(f[0]));
	close(f[1]);
	close(f[0]);
}

/*
 * A dedup attachment test-and-adds: while one holds a name, a filter
 * without test-and-add (cuckoo) cannot take it, by replace or exchange,
 * nor can a prefix filter (Bloom, with test-and-add) while the keys added
 * are addresses; a Bloom filter of keys can, and after the detach the
 * cuckoo one can too. The attachment's counters continue across the
 * replace.
 */
TEST_F(nf, replace_dedup_needs_test_and_add)
{
	MF_OPTS(mf_create_opts, co, .type = MF_TYPE_CUCKOO, .capacity = 64,
		.fpr = 0.01, .fixed_seed = true, .seed = 3);
	MF_OPTS(mf_create_opts, po, .type = MF_TYPE_BLOOM, .capacity = 64,
		.fpr = 0.01, .fixed_seed = true, .seed = 4, .prefixes = true,
		.prefix_lengths = 8);
	int a = blocklist(_metadata, self->dev, "nf.rep.dedup", self->pkts, NSRC, 0);
	int b = blocklist(_metadata, self->dev, NULL, self->pkts, NSRC, 0);
	int c = mf_create(self->dev, &co);
	int p = mf_create(self->dev, &po);
	struct mf_nf_entry e;
	int64_t id;
	int r;

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_LE(0, c);
	ASSERT_LE(0, p) TH_LOG("create: %s", mf_strerror(p));
	/* Received: no ICMP port unreachable comes back through the hook. */
	r = receiver(_metadata, AF_INET);
	id = attach(self->dev, "nf.rep.dedup", MF_NF_IPV4, MF_NF_INPUT,
		    MF_NF_KEY_SADDR, MF_NF_DEDUP);
	ASSERT_LT(0, id);
	EXPECT_EQ(0, send_from(&self->pkts[1]));
	EXPECT_EQ(-EOPNOTSUPP, mf_replace(self->dev, "nf.rep.dedup", c, 0));
	ASSERT_EQ(0, mf_publish(c, "nf.rep.cuckoo"));
	EXPECT_EQ(-EOPNOTSUPP, mf_exchange(self->dev, "nf.rep.dedup",
					   "nf.rep.cuckoo"));
	EXPECT_EQ(0, mf_unpublish(c));
	/* A prefix filter's keys are prefixes: no address goes in as one. */
	EXPECT_EQ(-EOPNOTSUPP, mf_replace(self->dev, "nf.rep.dedup", p, 0));
	ASSERT_EQ(0, mf_publish(p, "nf.rep.prefixes"));
	EXPECT_EQ(-EOPNOTSUPP, mf_exchange(self->dev, "nf.rep.dedup",
					   "nf.rep.prefixes"));
	EXPECT_EQ(0, mf_unpublish(p));
	EXPECT_EQ(0, mf_pub_id(a, (uint32_t[]){ 0 }));
	/* A Bloom filter may: the key is new to it, added there. */
	ASSERT_EQ(0, mf_replace(self->dev, "nf.rep.dedup", b, 0));
	EXPECT_EQ(0, send_from(&self->pkts[1]));
	EXPECT_EQ(1, mf_query(b, self->pkts[1].key, 4, 1, NULL, NULL));
	ASSERT_EQ(0, mf_nf_stats(self->dev, id, &e));
	EXPECT_EQ(2, e.packets);
	EXPECT_EQ(2, e.added);
	EXPECT_EQ(0, e.drops);
	EXPECT_EQ(0, mf_nf_detach(self->dev, id));
	/* Detached: nothing needs test-and-add any more. */
	EXPECT_EQ(0, mf_replace(self->dev, "nf.rep.dedup", c, 0));
	EXPECT_EQ(0, mf_unpublish(c));
	close(r);
	close(p);
	close(c);
	close(b);
	close(a);
}

/* The errno table for bad arguments, and privileges. */
/*
 * NF_LIST with a stride over a page is E2BIG before anything is written
 * (else 64 entries 4 GiB apart would make the kernel clear 256 GiB of the
 * caller's memory); a stride of a page is fine, the tail past the entry
 * zeroed. @id: the namespace's one attachment.
 */
static void nf_list_stride(struct __test_metadata *_metadata, int dev,
			   __u32 id)
{
	size_t pg = sysconf(_SC_PAGESIZE), esz = sizeof(struct memfilter_nf_entry);
	struct memfilter_nf_list l = { .size = sizeof(l), .count = 2 };
	unsigned char *buf = malloc(2 * pg + 2);

	ASSERT_NE(NULL, buf);
	memset(buf, 0xa5, 2 * pg + 2);
	l.entries = (__u64)(uintptr_t)buf;
	l.entry_size = pg + 1;
	EXPECT_EQ(-1, ioctl(dev, MEMFILTER_IOC_NF_LIST, &l));
	EXPECT_EQ(E2BIG, errno);
	EXPECT_EQ(0xa5, buf[0]);
	EXPECT_EQ(0xa5, buf[pg + 1]);
	l.entry_size = pg;
	l.count = 1;
	EXPECT_EQ(0, ioctl(dev, MEMFILTER_IOC_NF_LIST, &l));
	EXPECT_EQ(1, l.count);
	EXPECT_EQ(id, ((struct memfilter_nf_entry *)buf)->id);
	EXPECT_EQ(0, buf[esz]);
	EXPECT_EQ(0, buf[pg - 1]);
	EXPECT_EQ(0xa5, buf[pg]);
	free(buf);
}

TEST_F(nf, bad_arguments)
{
	struct memfilter_nf_attach a;
	struct memfilter_nf_list l;
	int fd = blocklist(_metadata, self->dev, "nf.bad", self->pkts, NSRC, 1);
	unsigned char old[MEMFILTER_NF_ENTRY_SIZE_VER0 + 8];
	int64_t ids[MEMFILTER_NF_MAX];
	__u32 old_id;
	unsigned int i;
	pid_t pid;
	int status;

#define BAD(field, value, err) do {						\
		memset(&a, 0, sizeof(a));					\
		a.size = sizeof(a);						\
		strcpy(a.name, "nf.bad");					\
		a.family = MEMFILTER_NF_IPV4;					\
		a.hook = MEMFILTER_NF_LOCAL_IN;					\
		a.key = MEMFILTER_NF_KEY_SADDR;					\
		a.action = MEMFILTER_NF_COUNT;					\
		a.field = value;						\
		EXPECT_EQ(-1, ioctl(self->dev, MEMFILTER_IOC_NF_ATTACH, &a));	\
		EXPECT_EQ(err, errno) TH_LOG(#field " = " #value);		\
	} while (0)
	BAD(family, 0, EINVAL);
	BAD(family, 4, EINVAL);
	BAD(hook, 5, EINVAL);
	BAD(key, 0, EINVAL);
	BAD(key, 5, EINVAL);
	BAD(action, 0, EINVAL);
	BAD(action, 5, EINVAL);
	BAD(priority, -100, EINVAL);	/* without the flag */
	BAD(flags, MEMFILTER_NF_ATTACH_PRIORITY | 2, EOPNOTSUPP);
	BAD(__reserved, 1, EOPNOTSUPP);
	BAD(out_id, 1, EINVAL);
	BAD(name[0], 0, EINVAL);
	BAD(name[2], '/', EINVAL);
	BAD(name[3], 'x', ENOENT);	/* "nf.xad" */
	BAD(size, 8, EINVAL);
#undef BAD
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	strcpy(a.name, "nf.bad");
	a.family = MEMFILTER_NF_IPV4;
	a.key = MEMFILTER_NF_KEY_SADDR;
	a.action = MEMFILTER_NF_COUNT;
	a.flags = MEMFILTER_NF_ATTACH_PRIORITY;
	a.priority = INT_MIN;
	EXPECT_EQ(-1, ioctl(self->dev, MEMFILTER_IOC_NF_ATTACH, &a));
	EXPECT_EQ(EINVAL, errno);
	a.priority = INT_MAX;
	EXPECT_EQ(-1, ioctl(self->dev, MEMFILTER_IOC_NF_ATTACH, &a));
	EXPECT_EQ(EINVAL, errno);
	a.priority = -150;	/* after conntrack: allowed */
	ASSERT_EQ(0, ioctl(self->dev, MEMFILTER_IOC_NF_ATTACH, &a));
	EXPECT_LT(0, a.out_id);
	ids[0] = a.out_id;

	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	l.entry_size = MEMFILTER_NF_ENTRY_SIZE_VER0 - 8;
	EXPECT_EQ(-1, ioctl(self->dev, MEMFILTER_IOC_NF_LIST, &l));
	EXPECT_EQ(EINVAL, errno);
	/* A caller built before misses and add_failed: its entry, no more. */
	memset(old, 0xa5, sizeof(old));
	l.entry_size = MEMFILTER_NF_ENTRY_SIZE_VER0;
	l.count = 1;
	l.entries = (__u64)(uintptr_t)old;
	EXPECT_EQ(0, ioctl(self->dev, MEMFILTER_IOC_NF_LIST, &l));
	EXPECT_EQ(1, l.count);
	memcpy(&old_id, old, sizeof(old_id));	/* @id comes first */
	EXPECT_EQ(ids[0], old_id);
	EXPECT_EQ(0xa5, old[MEMFILTER_NF_ENTRY_SIZE_VER0]);
	l.entries = 0;
	l.entry_size = sizeof(struct memfilter_nf_entry);
	l.count = 1;
	EXPECT_EQ(-1, ioctl(self->dev, MEMFILTER_IOC_NF_LIST, &l));
	EXPECT_EQ(EFAULT, errno);

	nf_list_stride(_metadata, self->dev, ids[0]);

	/* The namespace's limit. */
	for (i = 1; i < MEMFILTER_NF_MAX; i++) {
		ids[i] = attach(self->dev, "nf.bad", MF_NF_IPV4, MF_NF_INPUT,
				MF_NF_KEY_SADDR, MF_NF_COUNT);
		ASSERT_LT(0, ids[i]);
	}
	EXPECT_EQ(-ENOSPC, attach(self->dev, "nf.bad", MF_NF_IPV4, MF_NF_INPUT,
				  MF_NF_KEY_SADDR, MF_NF_COUNT));
	EXPECT_EQ(MEMFILTER_NF_MAX, mf_nf_list(self->dev, NULL, 0));

	/* Listing needs no privilege (nobody, with root's fd). */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(10);
		_exit(mf_nf_list(self->dev, NULL, 0) == MEMFILTER_NF_MAX ? 0 : 13);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	for (i = 0; i < MEMFILTER_NF_MAX; i++)
		EXPECT_EQ(0, mf_nf_detach(self->dev, ids[i]));
	EXPECT_EQ(0, mf_unpublish(fd));
	close(fd);

	/* Dedup needs test-and-add: not on a cuckoo filter. */
	{
		MF_OPTS(mf_create_opts, o, .type = MF_TYPE_CUCKOO,
			.capacity = 64, .fpr = 0.01, .name = "nf.cuckoo");

		fd = mf_create(self->dev, &o);
		ASSERT_LE(0, fd);
		EXPECT_EQ(-EOPNOTSUPP, attach(self->dev, "nf.cuckoo", MF_NF_IPV4,
					      MF_NF_INPUT, MF_NF_KEY_SADDR,
					      MF_NF_DEDUP));
		EXPECT_EQ(0, mf_nf_list(self->dev, NULL, 0));
		EXPECT_EQ(0, mf_unpublish(fd));
		close(fd);
	}
}

/*
 * Attach and detach check the credentials the fd was opened with
 * (f_cred), not the caller's: nobody holding root's fd may attach; a fd
 * opened without CAP_NET_ADMIN may not, even when its holder has it back;
 * dedup (it writes to the filter) also needs the opener's CAP_SYS_ADMIN.
 */
TEST_F(nf, opener_credentials)
{
	int fd = blocklist(_metadata, self->dev, "nf.cred", self->pkts, NSRC, 1);
	int status;
	pid_t pid;

	/* nobody, no capabilities at all, with root's fd. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int64_t id;

		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(10);
		if (set_effective(~0ull) || geteuid() != 65534)
			_exit(11);
		id = attach(self->dev, "nf.cred", MF_NF_IPV4, MF_NF_INPUT,
			    MF_NF_KEY_SADDR, MF_NF_COUNT);
		if (id <= 0)
			_exit(12);
		if (mf_nf_detach(self->dev, id))
			_exit(13);
		id = attach(self->dev, "nf.cred", MF_NF_IPV4, MF_NF_INPUT,
			    MF_NF_KEY_SADDR, MF_NF_DEDUP);
		if (id <= 0)
			_exit(14);
		_exit(mf_nf_detach(self->dev, id) ? 15 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));

	/* Fds opened without a capability, used with it back. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		uint64_t all = CAP_BIT(CAP_NET_ADMIN) | CAP_BIT(CAP_SYS_ADMIN) |
			       CAP_BIT(CAP_DAC_OVERRIDE);
		int no_net, no_sys;
		int64_t id;

		if (set_effective(all & ~CAP_BIT(CAP_NET_ADMIN)))
			_exit(20);
		no_net = mf_open_device();
		if (set_effective(all & ~CAP_BIT(CAP_SYS_ADMIN)))
			_exit(21);
		no_sys = mf_open_device();
		if (no_net < 0 || no_sys < 0 || set_effective(all))
			_exit(22);
		if (attach(no_net, "nf.cred", MF_NF_IPV4, MF_NF_INPUT,
			   MF_NF_KEY_SADDR, MF_NF_COUNT) != -EPERM)
			_exit(23);
		if (attach(no_sys, "nf.cred", MF_NF_IPV4, MF_NF_INPUT,
			   MF_NF_KEY_SADDR, MF_NF_DEDUP) != -EPERM)
			_exit(24);
		id = attach(no_sys, "nf.cred", MF_NF_IPV4, MF_NF_INPUT,
			    MF_NF_KEY_SADDR, MF_NF_COUNT);
		if (id <= 0)
			_exit(25);
		if (mf_nf_detach(no_net, id) != -EPERM)
			_exit(26);
		_exit(mf_nf_detach(no_sys, id) ? 27 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, mf_nf_list(self->dev, NULL, 0));
	EXPECT_EQ(0, mf_unpublish(fd));
	close(fd);
}

#define CTL "/memfilter/bin/memfilterctl"

/* Run a memfilterctl command line; its first output line into @out. */
static int ctl(const char *args, char *out, size_t len)
{
	int status = run_cmd(out, len, CTL " %s", args);
	char *nl = strchr(out, '\n');

	if (nl)
		nl[1] = 0;
	return status;
}

/* memfilterctl nf: attach, list --json, stats, detach, and its errors. */
TEST_F(nf, cli)
{
	int fd = blocklist(_metadata, self->dev, "nf.cli", self->pkts, NSRC, 1);
	char out[1024], want[256], args[128];
	long id;

	if (access(CTL, X_OK)) {
		mf_unpublish(fd);
		close(fd);
		SKIP(return, "no " CTL);
	}
	ASSERT_EQ(0, ctl("nf attach nf.cli --hook output --key saddr --action drop-hit --family ipv4",
			 out, sizeof(out))) TH_LOG("%s", out);
	id = strtol(out, NULL, 10);
	ASSERT_LT(0, id);
	EXPECT_EQ(-EPERM, send_from(&self->pkts[0]));
	EXPECT_EQ(0, ctl("nf list --json", out, sizeof(out)));
	snprintf(want, sizeof(want),
		 "[{\"id\":%ld,\"filter\":\"nf.cli\",\"family\":\"ipv4\",\"hook\":\"output\",\"priority\":-350,\"key\":\"saddr\",\"action\":\"drop-hit\",\"packets\":1,\"hits\":1,\"drops\":1,\"added\":0,\"skipped\":0}]\n",
		 id);
	EXPECT_STREQ(want, out);
	snprintf(args, sizeof(args), "nf stats %ld", id);
	EXPECT_EQ(0, ctl(args, out, sizeof(out)));
	snprintf(want, sizeof(want), "%ld: nf.cli ipv4 output priority -350 key saddr action drop-hit\n", id);
	EXPECT_STREQ(want, out);
	/* dedup on a Bloom filter: attached, then detached. */
	ASSERT_EQ(0, ctl("nf attach nf.cli --hook output --key saddr --action dedup",
			 out, sizeof(out))) TH_LOG("%s", out);
	snprintf(args, sizeof(args), "nf detach %ld", strtol(out, NULL, 10));
	EXPECT_EQ(0, ctl(args, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_EQ(2, ctl("nf attach nf.nope --hook output --key saddr --action count",
			 out, sizeof(out)));
	snprintf(args, sizeof(args), "nf detach %ld", id);
	EXPECT_EQ(0, ctl(args, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_EQ(2, ctl(args, out, sizeof(out)));
	EXPECT_EQ(0, send_from(&self->pkts[0]));
	EXPECT_EQ(0, mf_unpublish(fd));
	close(fd);
}

#define IP_TOOL "/sbin/ip"

/*
 * Every address local, on lo (AnyIP: a local route of each family for
 * all of it): a datagram to any destination passes the output hook and
 * is delivered to the receiver, no forwarding, no ICMP error. Debian's
 * ip (vm.sh --tools); false without it.
 */
static bool every_address_local(struct __test_metadata *_metadata)
{
	if (access(IP_TOOL, X_OK) || no_netns)	/* not in the initial one */
		return false;
	EXPECT_EQ(0, system(IP_TOOL " route add local 0.0.0.0/0 dev lo"));
	EXPECT_EQ(0, system(IP_TOOL " -6 route add local ::/0 dev lo"));
	return true;
}

/* One datagram from the loopback address to @a: 0, or -errno. */
static int send_to_addr(const struct mf_prefix *a)
{
	struct sockaddr_in6 src6 = { .sin6_family = AF_INET6,
				     .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct sockaddr_in src = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_storage dst = {};
	bool v4 = a->family == MF_PREFIX_IPV4;
	int s = udp_socket(v4 ? AF_INET : AF_INET6), ret = 0;
	socklen_t len;

	if (s < 0)
		return -errno;
	if (v4) {
		struct sockaddr_in *d = (struct sockaddr_in *)&dst;

		d->sin_family = AF_INET;
		d->sin_port = htons(PORT);
		memcpy(&d->sin_addr, a->addr, 4);
		len = sizeof(*d);
		ret = bind(s, (struct sockaddr *)&src, sizeof(src));
	} else {
		struct sockaddr_in6 *d = (struct sockaddr_in6 *)&dst;

		d->sin6_family = AF_INET6;
		d->sin6_port = htons(PORT);
		memcpy(&d->sin6_addr, a->addr, 16);
		len = sizeof(*d);
		ret = bind(s, (struct sockaddr *)&src6, sizeof(src6));
	}
	if (!ret && sendto(s, "prefix", 6, 0, (struct sockaddr *)&dst, len) < 0)
		ret = -1;
	ret = ret ? -errno : 0;
	close(s);
	return ret;
}

/*
 * A published prefix filter of @n prefixes (the CLI's add --prefixes from
 * a list file when memfilterctl is there, FireHOL's and Spamhaus's lines
 * in it; else mf_add_prefixes()), and *@off, its dump offline.
 */
static int prefix_blocklist(struct __test_metadata *_metadata, int dev,
			    const char *name, const struct mf_prefix *list,
			    size_t n, struct mf_offline **off)
{
	/* A lookup rate of 25%: false positives outside the list, plenty. */
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_BLOOM, .capacity = n,
		.fpr = 0.25, .fixed_seed = true, .seed = 11, .name = name,
		.prefixes = true, .prefix_lengths = 24);
	char out[256], args[128], want[32];
	int fd = mf_create(dev, &o);
	size_t len;
	void *img;

	EXPECT_LE(0, fd) TH_LOG("create %s: %s", name, mf_strerror(fd));
	if (fd < 0)
		return fd;
	if (!access(CTL, X_OK)) {
		EXPECT_EQ(0, mf_plist_write("/tmp/nf.prefixes", list, n));
		snprintf(args, sizeof(args), "add %s --prefixes /tmp/nf.prefixes",
			 name);
		EXPECT_EQ(0, ctl(args, out, sizeof(out))) TH_LOG("%s", out);
		snprintf(want, sizeof(want), "%zu\n", n);
		EXPECT_STREQ(want, out);
		unlink("/tmp/nf.prefixes");
	} else {
		EXPECT_EQ(n, mf_add_prefixes(fd, list, n, NULL, NULL));
	}
	EXPECT_EQ(0, mf_dump(fd, &img, &len));
	EXPECT_EQ(0, mf_offline_from_image(img, len, off, NULL));
	free(img);
	return fd;
}

/*
 * A prefix blocklist shaped like a published one (tests/prefix_list.h)
 * on the output hook by destination address, IPv4 and IPv6 (every
 * address local on lo): sendto() fails with EPERM for exactly
 * the addresses a dump of the filter, looked up offline by the same rule
 * (mf_offline_query_addrs()), may cover: every address inside a listed
 * range, and the false positives outside. The counters and the filter's
 * queries (one per packet, whatever the prefix lengths) add up, and
 * every datagram that passed arrives.
 */
TEST_F(nf, prefix_daddr_output)
{
	struct mf_info before, after;
	struct plist_probes *pp;
	struct mf_offline *off;
	size_t i;
	unsigned int hits, got;
	int fd, ret, r;
	char buf[16];
	int64_t id;

	if (!every_address_local(_metadata))
		SKIP(return, "no " IP_TOOL " or no namespace of its own");
	pp = plist_probes_new();
	ASSERT_NE(NULL, pp);
	fd = prefix_blocklist(_metadata, self->dev, "nf.pfx", pp->list, pp->n,
			      &off);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, plist_probe(pp, 3, off));
	hits = pp->hits;
	TH_LOG("%u of %d destinations covered (%zu inside a listed range)",
	       hits, PLIST_PROBES, pp->inside);
	r = receiver(_metadata, AF_INET6);	/* both families */
	id = attach(self->dev, "nf.pfx", MF_NF_IPV4 | MF_NF_IPV6, MF_NF_OUTPUT,
		    MF_NF_KEY_DADDR, MF_NF_DROP_HIT);
	ASSERT_LT(0, id) TH_LOG("attach: %s", mf_strerror(id));
	ASSERT_EQ(0, mf_info(fd, &before));
	for (i = 0; i < PLIST_PROBES; i++) {
		bool hit = plist_hit(pp, i);

		ret = send_to_addr(&pp->a[i]);
		EXPECT_EQ(hit ? -EPERM : 0, ret) TH_LOG("destination %zu: %s", i,
							strerror(-ret));
		if (i % 3 == 0)
			EXPECT_TRUE(hit) TH_LOG("destination %zu is inside", i);
	}
	/* Every datagram that passed was delivered. */
	for (got = 0; got < PLIST_PROBES - hits; got++)
		ASSERT_LT(0, recv(r, buf, sizeof(buf), 0)) TH_LOG("%u received", got);
	EXPECT_EQ(-1, recv(r, buf, sizeof(buf), MSG_DONTWAIT));
	close(r);
	expect_stats(_metadata, self->dev, id, PLIST_PROBES, hits, hits, 0);
	ASSERT_EQ(0, mf_info(fd, &after));
	EXPECT_EQ(before.queries + PLIST_PROBES, after.queries);
	EXPECT_EQ(before.hits + hits, after.hits);
	EXPECT_EQ(0, mf_nf_detach(self->dev, id));
	/* Dedup adds keys: not addresses into a prefix filter. */
	EXPECT_EQ(-EOPNOTSUPP, attach(self->dev, "nf.pfx", MF_NF_IPV4,
				      MF_NF_OUTPUT, MF_NF_KEY_SADDR, MF_NF_DEDUP));
	mf_offline_free(off);
	plist_probes_free(pp);
	EXPECT_EQ(0, mf_unpublish(fd));
	close(fd);
}

/*
 * The input hook by source address: prefixes over the test's sources
 * (127.1.0.1 + i, fd00::1:1 + i) pass exactly what the offline lookup
 * says they do not cover.
 */
TEST_F(nf, prefix_saddr_input)
{
	static const char *const texts[] = {
		"127.1.0.0/26", "127.1.0.192/27", "127.1.1.0/25", "127.1.1.200",
		"127.1.1.201", "fd00::1:0/124", "fd00::1:20/123",
	};
	static struct pkt p[NSRC + NSRC6];
	struct mf_prefix list[ARRAY_SIZE(texts)], a;
	struct mf_offline *off;
	unsigned int i, hits = 0, got = 0, j;
	uint64_t res;
	int fd;
	int64_t id;

	for (i = 0; i < ARRAY_SIZE(texts); i++)
		ASSERT_EQ(0, mf_prefix_parse(texts[i], strlen(texts[i]), &list[i],
					     NULL));
	fd = prefix_blocklist(_metadata, self->dev, "nf.pfx.in", list,
			      ARRAY_SIZE(texts), &off);
	ASSERT_LE(0, fd);
	for (i = 0; i < NSRC + NSRC6; i++) {
		if (i < NSRC) {
			src4(&p[i], i);
		} else {
			src6(&p[i], i - NSRC);
			add_addr6(_metadata, &p[i]);
		}
		memset(&a, 0, sizeof(a));
		a.family = p[i].keylen == 4 ? MF_PREFIX_IPV4 : MF_PREFIX_IPV6;
		a.length = 8 * p[i].keylen;
		memcpy(a.addr, p[i].key, p[i].keylen);
		res = 0;
		ASSERT_LE(0, mf_offline_query_addrs(off, &a, 1, &res, NULL));
		p[i].hit = res & 1;
		hits += p[i].hit;
		for (j = 0; j < ARRAY_SIZE(texts); j++)
			if (mf_plist_covers(&list[j], &a))
				ASSERT_TRUE(p[i].hit) TH_LOG("source %u", i);
	}
	TH_LOG("%u of %u sources covered", hits, NSRC + NSRC6);
	/* A sentinel from 127.0.0.N that the filter certainly does not cover. */
	for (j = 1; j < 255; j++) {
		sentinel4(&self->sentinel, j);
		memset(&a, 0, sizeof(a));
		a.family = MF_PREFIX_IPV4;
		a.length = 32;
		memcpy(a.addr, self->sentinel.key, 4);
		if (!mf_offline_query_addrs(off, &a, 1, NULL, NULL))
			break;
	}
	ASSERT_GT(255, j);
	id = attach(self->dev, "nf.pfx.in", MF_NF_IPV4 | MF_NF_IPV6,
		    MF_NF_INPUT, MF_NF_KEY_SADDR, MF_NF_DROP_HIT);
	ASSERT_LT(0, id);
	run_traffic(_metadata, p, NSRC, &self->sentinel);
	run_traffic(_metadata, p + NSRC, NSRC6, &self->sentinel);
	for (i = 0; i < NSRC + NSRC6; i++) {
		EXPECT_EQ(!p[i].hit, p[i].got) TH_LOG("source %u", i);
		got += p[i].got;
	}
	EXPECT_EQ(NSRC + NSRC6 - hits, got);
	expect_stats(_metadata, self->dev, id, NSRC + NSRC6 + 2, hits, hits, 0);
	mf_offline_free(off);
	EXPECT_EQ(0, mf_unpublish(fd));
	close(fd);
}

#define MODULE_KO "/memfilter/memfilter.ko"

/*
 * Module unload with attachments: they do not pin the module (as
 * published names do not); unloading detaches them and traffic passes.
 * The module is loaded again for whatever runs next.
 */
TEST_F(nf, rmmod_with_attachments)
{
	int fd = blocklist(_metadata, self->dev, "nf.rmmod", self->pkts, NSRC, 1);
	int ko, ret;
	int64_t id;

	if (access(MODULE_KO, R_OK)) {
		mf_unpublish(fd);
		close(fd);
		SKIP(return, "no " MODULE_KO);
	}
	id = attach(self->dev, "nf.rmmod", MF_NF_IPV4, MF_NF_OUTPUT,
		    MF_NF_KEY_SADDR, MF_NF_DROP_HIT);
	ASSERT_LT(0, id);
	ASSERT_LT(0, attach(self->dev, "nf.rmmod", MF_NF_IPV4 | MF_NF_IPV6,
			    MF_NF_INPUT, MF_NF_KEY_TUPLE, MF_NF_COUNT));
	EXPECT_EQ(-EPERM, send_from(&self->pkts[0]));
	close(fd);
	close(self->dev);
	self->dev = -1;
	ret = syscall(SYS_delete_module, "memfilter", O_NONBLOCK);
	ASSERT_EQ(0, ret) TH_LOG("rmmod: %s", strerror(errno));
	EXPECT_EQ(0, send_from(&self->pkts[0]));
	ko = open(MODULE_KO, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, ko);
	ASSERT_EQ(0, syscall(SYS_finit_module, ko, "", 0))
		TH_LOG("insmod: %s", strerror(errno));
	close(ko);
	EXPECT_EQ(0, send_from(&self->pkts[0]));
}

TEST_HARNESS_MAIN
