// SPDX-License-Identifier: GPL-2.0
/*
 * The offline half of the replay tests (tests/replay_test.sh, `make
 * realworld`): read a capture (pcap, Ethernet), take out of each frame the
 * key that memfilter's netfilter hook (module/consumers/netfilter.c), the XDP
 * blocklist (bpf/xdp_blocklist.bpf.c) or the TC dedup example
 * (bpf/tc_dedup.bpf.c) would take, and predict, by querying the same
 * filter image with libmemfilter's offline filters (the module's own
 * filter code), what each of them will count when tcpreplay sends the
 * capture: false positives included, since the image is the one the
 * kernel loads.
 *
 *   replay_predict keys PCAP KEY [EVERY]
 *	every EVERY-th distinct KEY (saddr, daddr, 5-tuple, l4-payload) of
 *	the capture's IP packets, in hex, one a line (memfilterctl --hex)
 *   replay_predict nf PCAP KEY ACTION IMAGE [OUT.img]
 *	the hook's counters, as its debugfs file names them:
 *	"packets P skipped S hits H misses M drops D added A add_failed F"
 *	(dedup: test-and-add in capture order; OUT.img: the filter after)
 *   replay_predict xdp PCAP IMAGE
 *	"dropped D passed P not_ip N no_filter 0"
 *   replay_predict tc PCAP IMAGE [OUT.img]
 *	"dropped D passed P not_udp N no_filter 0 errors 0"
 *
 * What the kernel does before the hook is mirrored too: an IPv4 packet is
 * trimmed to its total length, an IPv6 one to its payload length; a
 * non-IP frame (ARP) never reaches the IP hooks.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libmemfilter.h"

#define TC_DEDUP_KEY_MAX	32	/* bpf/tc_dedup.h */
#define FRAME_MAX		65536

enum key { K_SADDR, K_DADDR, K_TUPLE, K_PAYLOAD };
enum action { A_DROP_HIT, A_DROP_MISS, A_COUNT, A_DEDUP };

struct frame {
	const uint8_t *p;
	uint32_t len;
};

struct capture {
	uint8_t *buf;
	size_t len, off;
	bool swap;
};

static uint32_t rd32(const struct capture *c, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return c->swap ? __builtin_bswap32(v) : v;
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void die(const char *msg, const char *arg)
{
	fprintf(stderr, "replay_predict: %s%s%s\n", msg, arg ? ": " : "",
		arg ? arg : "");
	exit(2);
}

static void *read_file(const char *path, size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	uint8_t *buf = malloc(cap);
	int fd = open(path, O_RDONLY);
	ssize_t r;

	if (fd < 0 || !buf)
		die(strerror(errno), path);
	while ((r = read(fd, buf + n, cap - n)) > 0) {
		n += r;
		if (n == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			if (!buf)
				die("out of memory", NULL);
		}
	}
	if (r < 0)
		die(strerror(errno), path);
	close(fd);
	*len = n;
	return buf;
}

/* A classic pcap file of Ethernet frames, micro- or nanosecond stamps. */
static void capture_open(struct capture *c, const char *path)
{
	uint32_t magic;

	c->buf = read_file(path, &c->len);
	if (c->len < 24)
		die("not a pcap file", path);
	memcpy(&magic, c->buf, 4);
	if (magic == 0xa1b2c3d4 || magic == 0xa1b23c4d)
		c->swap = false;
	else if (magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1)
		c->swap = true;
	else
		die("not a pcap file", path);
	if (rd32(c, c->buf + 20) != 1)
		die("not an Ethernet capture", path);
	c->off = 24;
}

static bool capture_next(struct capture *c, struct frame *f)
{
	uint32_t incl;

	if (c->off + 16 > c->len)
		return false;
	incl = rd32(c, c->buf + c->off + 8);
	if (incl > FRAME_MAX || c->off + 16 + incl > c->len)
		die("truncated pcap record", NULL);
	f->p = c->buf + c->off + 16;
	f->len = incl;
	c->off += 16 + incl;
	return true;
}

/* The network packet as the IP hooks see it: trimmed, or NULL if not IP. */
static bool l3(const struct frame *f, struct frame *ip, int *family)
{
	uint16_t proto;
	uint32_t len;

	if (f->len < 14)
		return false;
	proto = be16(f->p + 12);
	ip->p = f->p + 14;
	len = f->len - 14;
	if (proto == 0x0800 && len >= 20 && ip->p[0] >> 4 == 4) {
		/* ip_rcv_core(): the IHL and total length are checked first. */
		if ((ip->p[0] & 15) < 5 || be16(ip->p + 2) > len ||
		    be16(ip->p + 2) < (ip->p[0] & 15) * 4)
			return false;
		ip->len = be16(ip->p + 2);
		*family = 4;
		return true;
	}
	if (proto == 0x86dd && len >= 40 && ip->p[0] >> 4 == 6) {
		if (40u + be16(ip->p + 4) > len)
			return false;
		ip->len = 40 + be16(ip->p + 4);
		*family = 6;
		return true;
	}
	return false;
}

static bool has_ports(int proto)
{
	return proto == 6 || proto == 17 || proto == 136 || proto == 132 ||
	       proto == 33;
}

static bool ipv6_ext_hdr(int nh)
{
	return nh == 0 || nh == 43 || nh == 44 || nh == 51 || nh == 59 ||
	       nh == 60;
}

/* ipv6_find_hdr(skb, &thoff, -1, &fragoff, &flags) of net/ipv6/exthdrs_core.c */
static int ipv6_find_hdr(const struct frame *ip, uint32_t *thoff,
			 uint16_t *fragoff, bool *frag)
{
	uint32_t start = 40, hdrlen;
	int nexthdr = ip->p[6];

	*fragoff = 0;
	for (;;) {
		if (!ipv6_ext_hdr(nexthdr) || nexthdr == 59)
			break;
		if (start + 2 > ip->len)
			return -1;
		if (nexthdr == 44) {
			uint16_t off;

			*frag = true;
			if (start + 4 > ip->len)
				return -1;
			off = be16(ip->p + start + 2) & ~7;
			if (off) {
				if (!ipv6_ext_hdr(ip->p[start]) ||
				    ip->p[start] == 59) {
					*fragoff = off;
					return ip->p[start];
				}
				return -1;	/* -ENOENT */
			}
			hdrlen = 8;
		} else if (nexthdr == 51) {
			hdrlen = (ip->p[start + 1] + 2) << 2;
		} else {
			hdrlen = (ip->p[start + 1] + 1) << 3;
		}
		if (ip->len - start < hdrlen)
			return -1;
		nexthdr = ip->p[start];
		start += hdrlen;
	}
	*thoff = start;
	return nexthdr;
}

/* mf_nf_payload(): the L4 payload of a whole TCP or UDP packet. */
static bool nf_payload(const struct frame *ip, uint32_t thoff, int proto,
		       struct frame *key)
{
	uint32_t off, end;

	if (proto == 6) {
		if (thoff + 20 > ip->len || (ip->p[thoff + 12] >> 4) * 4 < 20)
			return false;
		off = thoff + (ip->p[thoff + 12] >> 4) * 4;
		end = ip->len;
	} else if (proto == 17) {
		if (thoff + 8 > ip->len || be16(ip->p + thoff + 4) < 8)
			return false;
		off = thoff + 8;
		end = thoff + be16(ip->p + thoff + 4);
	} else {
		return false;
	}
	/* An empty payload (a bare SYN, ACK or FIN) has nothing to match. */
	if (off >= end || end > ip->len || end - off > MF_KEY_MAX)
		return false;
	key->p = ip->p + off;
	key->len = end - off;
	return true;
}

/* mf_nf_key_ipv4() / _ipv6(): the key, or false when the packet is skipped. */
static bool nf_key(const struct frame *ip, int family, enum key k,
		   uint8_t *buf, struct frame *key)
{
	uint32_t alen = family == 4 ? 4 : 16, thoff = 0;
	const uint8_t *saddr = ip->p + (family == 4 ? 12 : 8);
	bool fragment = false, later;
	uint16_t fragoff;
	int proto;

	if (k == K_SADDR || k == K_DADDR) {
		key->p = k == K_SADDR ? saddr : saddr + alen;
		key->len = alen;
		return true;
	}
	if (family == 4) {
		uint16_t frag = be16(ip->p + 6);

		thoff = (ip->p[0] & 15) * 4;
		proto = ip->p[9];
		fragment = frag & 0x3fff;
		later = frag & 0x1fff;
	} else {
		proto = ipv6_find_hdr(ip, &thoff, &fragoff, &fragment);
		if (proto < 0)
			return false;
		later = fragoff;
	}
	if (k == K_PAYLOAD)
		return !fragment && nf_payload(ip, thoff, proto, key);
	memcpy(buf, saddr, alen);
	memcpy(buf + alen, saddr + alen, alen);
	if (!has_ports(proto)) {
		memset(buf + 2 * alen, 0, 4);
	} else {
		if (later || thoff + 4 > ip->len)
			return false;
		memcpy(buf + 2 * alen, ip->p + thoff, 4);
	}
	buf[2 * alen + 4] = (uint8_t)proto;
	key->p = buf;
	key->len = 2 * alen + 5;
	return true;
}

static struct mf_offline *image_open(const char *path)
{
	struct mf_offline *f;
	const char *why = NULL;
	size_t len;
	void *img = read_file(path, &len);
	int ret = mf_offline_from_image(img, len, &f, &why);

	if (ret)
		die(why ? why : mf_strerror(ret), path);
	free(img);
	return f;
}

static void image_save(const struct mf_offline *f, const char *path)
{
	void *img;
	size_t len;
	FILE *out;

	if (mf_offline_image(f, &img, &len))
		die("cannot serialize the filter", NULL);
	out = fopen(path, "wb");
	if (!out || fwrite(img, 1, len, out) != len || fclose(out))
		die(strerror(errno), path);
	free(img);
}

static bool contains(const struct mf_offline *f, const struct frame *key)
{
	uint32_t len = key->len;
	ssize_t r = mf_offline_queryv(f, key->p, &len, 1, NULL, NULL);

	if (r < 0)
		die(mf_strerror((int)r), "query");
	return r == 1;
}

/*
 * memfilter_test_and_add() on a Bloom filter: 1 when every bit was set,
 * else the bits are set: 0. Return: the key may have been present.
 */
static bool test_and_add(struct mf_offline *f, const struct frame *key)
{
	uint32_t len = key->len;
	ssize_t r;

	if (contains(f, key))
		return true;
	r = mf_offline_addv(f, key->p, &len, 1, NULL, NULL);
	if (r != 1)
		die(r < 0 ? mf_strerror((int)r) : "not added", "add");
	return false;
}

static int parse(const char *s, const char *const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	die("unknown name", s);
	return -1;
}

static const char *const key_names[] = { "saddr", "daddr", "5-tuple",
					 "l4-payload" };
static const char *const action_names[] = { "drop-hit", "drop-miss",
					    "count", "dedup" };

static int cmd_keys(struct capture *c, enum key k, unsigned long every)
{
	struct mf_offline *seen;
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_BLOOM, .capacity = 100000,
		.fpr = 1e-6);
	unsigned long distinct = 0;
	uint8_t buf[64];
	struct frame f, ip, key;
	int family;
	uint32_t i;

	/* "Distinct" by an exact-enough Bloom filter: a test aid only. */
	if (mf_offline_create(&o, &seen))
		die("cannot create a filter", NULL);
	while (capture_next(c, &f)) {
		if (!l3(&f, &ip, &family) || !nf_key(&ip, family, k, buf, &key))
			continue;
		if (test_and_add(seen, &key) || distinct++ % every)
			continue;
		for (i = 0; i < key.len; i++)
			printf("%02x", key.p[i]);
		printf("\n");
	}
	mf_offline_free(seen);
	return 0;
}

static int cmd_nf(struct capture *c, enum key k, enum action a,
		  struct mf_offline *flt, const char *out)
{
	unsigned long packets = 0, skipped = 0, hits = 0, misses = 0;
	unsigned long drops = 0, added = 0;
	struct frame f, ip, key;
	uint8_t buf[64];
	int family;
	bool hit;

	while (capture_next(c, &f)) {
		if (!l3(&f, &ip, &family))
			continue;
		packets++;
		if (!nf_key(&ip, family, k, buf, &key)) {
			skipped++;
			drops += a == A_DROP_MISS;
			continue;
		}
		hit = a == A_DEDUP ? test_and_add(flt, &key) : contains(flt, &key);
		hits += hit;
		misses += !hit;
		added += a == A_DEDUP && !hit;
		drops += a == A_DROP_HIT || a == A_DEDUP ? hit :
			 a == A_DROP_MISS ? !hit : 0;
	}
	printf("packets %lu skipped %lu hits %lu misses %lu drops %lu added %lu add_failed 0\n",
	       packets, skipped, hits, misses, drops, added);
	if (out)
		image_save(flt, out);
	return 0;
}

static int cmd_xdp(struct capture *c, struct mf_offline *flt)
{
	unsigned long dropped = 0, passed = 0, not_ip = 0;
	struct frame f, key;
	uint16_t proto;

	while (capture_next(c, &f)) {
		proto = f.len >= 14 ? be16(f.p + 12) : 0;
		if (proto == 0x0800 && f.len >= 14 + 20) {
			key.p = f.p + 14 + 12;
			key.len = 4;
		} else if (proto == 0x86dd && f.len >= 14 + 40) {
			key.p = f.p + 14 + 8;
			key.len = 16;
		} else {
			not_ip++;
			continue;
		}
		if (contains(flt, &key))
			dropped++;
		else
			passed++;
	}
	printf("dropped %lu passed %lu not_ip %lu no_filter 0\n", dropped,
	       passed, not_ip);
	return 0;
}

/* tc_dedup.bpf.c's udp_offset(): 0 unless IPv4 unfragmented or IPv6 UDP. */
static uint32_t tc_udp_offset(const struct frame *f)
{
	uint16_t proto = be16(f->p + 12);
	const uint8_t *ip = f->p + 14;

	if (proto == 0x0800) {
		if (f->len < 14 + 20 || ip[9] != 17 || (be16(ip + 6) & 0x3fff))
			return 0;
		return 14 + (ip[0] & 15) * 4;
	}
	if (proto == 0x86dd) {
		if (f->len < 14 + 40 || ip[6] != 17)
			return 0;
		return 14 + 40;
	}
	return 0;
}

static int cmd_tc(struct capture *c, struct mf_offline *flt, const char *out)
{
	unsigned long dropped = 0, passed = 0, not_udp = 0;
	struct frame f, key;
	uint32_t off, len;

	while (capture_next(c, &f)) {
		off = f.len >= 14 ? tc_udp_offset(&f) : 0;
		if (!off || off + 8 > f.len || be16(f.p + off + 4) <= 8) {
			not_udp++;
			continue;
		}
		len = be16(f.p + off + 4) - 8;
		if (len > TC_DEDUP_KEY_MAX)
			len = TC_DEDUP_KEY_MAX;
		if (off + 8 + len > f.len) {
			not_udp++;
			continue;
		}
		key.p = f.p + off + 8;
		key.len = len;
		if (test_and_add(flt, &key))
			dropped++;
		else
			passed++;
	}
	printf("dropped %lu passed %lu not_udp %lu no_filter 0 errors 0\n",
	       dropped, passed, not_udp);
	if (out)
		image_save(flt, out);
	return 0;
}

int main(int argc, char **argv)
{
	struct capture c;
	struct mf_offline *flt;
	int ret;

	if (argc < 3)
		goto usage;
	capture_open(&c, argv[2]);
	if (!strcmp(argv[1], "keys") && (argc == 4 || argc == 5)) {
		unsigned long every = argc == 5 ? strtoul(argv[4], NULL, 10) : 1;

		return cmd_keys(&c, parse(argv[3], key_names, 4),
				every ? every : 1);
	}
	if (!strcmp(argv[1], "nf") && (argc == 6 || argc == 7)) {
		flt = image_open(argv[5]);
		ret = cmd_nf(&c, parse(argv[3], key_names, 4),
			     parse(argv[4], action_names, 4), flt,
			     argc == 7 ? argv[6] : NULL);
	} else if (!strcmp(argv[1], "xdp") && argc == 4) {
		flt = image_open(argv[3]);
		ret = cmd_xdp(&c, flt);
	} else if (!strcmp(argv[1], "tc") && (argc == 4 || argc == 5)) {
		flt = image_open(argv[3]);
		ret = cmd_tc(&c, flt, argc == 5 ? argv[4] : NULL);
	} else {
		goto usage;
	}
	mf_offline_free(flt);
	free(c.buf);
	return ret;
usage:
	fprintf(stderr, "usage: replay_predict keys PCAP KEY [EVERY]\n"
		"       replay_predict nf PCAP KEY ACTION IMAGE [OUT.img]\n"
		"       replay_predict xdp PCAP IMAGE\n"
		"       replay_predict tc PCAP IMAGE [OUT.img]\n");
	return 2;
}
