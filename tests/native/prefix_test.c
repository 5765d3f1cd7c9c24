// SPDX-License-Identifier: GPL-2.0
/*
 * Native tests of address prefixes (core/prefix.[ch], core/image.c's
 * prefix lengths, libmemfilter's prefix calls), with ASan and UBSan: the
 * key of a prefix, the checks of a prefix and of a set of lengths, the
 * lookup rule (probed through a type that records what it is asked), the
 * rate of an address lookup, sizing, images of prefix filters (round
 * trip, corruption, a payload checked in two places), the text parser,
 * and a list shaped like a published one (tests/prefix_list.h) in an
 * offline filter of every type: every address inside a listed range a
 * hit, every answer the per-key queries' and the reloaded image's.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>

#include "image.h"
#include "kselftest_harness.h"
#include "libmemfilter.h"
#include "native_utils.h"
#include "prefix.h"

#include "../prefix_list.h"

static struct memfilter_prefix pfx(const char *text)
{
	struct memfilter_prefix p;
	struct mf_prefix m;
	const char *why;

	if (mf_prefix_parse(text, strlen(text), &m, &why)) {
		fprintf(stderr, "%s: %s\n", text, why);
		abort();
	}
	memcpy(&p, &m, sizeof(p));
	return p;
}

TEST(key_encoding)
{
	static const u8 a4[4] = { 192, 0, 2, 129 };
	static const u8 a6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0xab, 0xcd, 0xef, 0xff,
				   1, 2, 3, 4, 5, 6, 7, 8 };
	u8 key[MEMFILTER_PREFIX_KEY_MAX];

	ASSERT_EQ(5, memfilter_prefix_key(key, a4, 4, 25));
	EXPECT_EQ(25, key[0]);
	EXPECT_EQ(0, memcmp(key + 1, (u8[]){ 192, 0, 2, 128 }, 4));
	ASSERT_EQ(5, memfilter_prefix_key(key, a4, 4, 32));
	EXPECT_EQ(0, memcmp(key + 1, a4, 4));
	ASSERT_EQ(5, memfilter_prefix_key(key, a4, 4, 0));
	EXPECT_EQ(0, key[0]);
	EXPECT_EQ(0, memcmp(key + 1, (u8[]){ 0, 0, 0, 0 }, 4));
	ASSERT_EQ(17, memfilter_prefix_key(key, a6, 16, 36));
	EXPECT_EQ(36, key[0]);
	EXPECT_EQ(0, memcmp(key + 1, (u8[]){ 0x20, 0x01, 0x0d, 0xb8, 0xa0 }, 5));
	EXPECT_EQ(NULL, memchr_inv(key + 6, 0, 11));
	ASSERT_EQ(17, memfilter_prefix_key(key, a6, 16, 128));
	EXPECT_EQ(0, memcmp(key + 1, a6, 16));
	/* Every length: exactly the first L bits survive. */
	for (u32 l = 0; l <= 128; l++) {
		memfilter_prefix_key(key, a6, 16, l);
		for (u32 b = 0; b < 128; b++) {
			bool bit = key[1 + b / 8] >> (7 - b % 8) & 1;
			bool want = b < l && (a6[b / 8] >> (7 - b % 8) & 1);

			ASSERT_EQ(want, bit) TH_LOG("length %u bit %u", l, b);
		}
	}
}

TEST(prefix_check)
{
	struct memfilter_prefix p = pfx("10.0.0.0/8");

	EXPECT_EQ(0, memfilter_prefix_check(&p));
	p.addr[1] = 1;		/* a bit past /8 */
	EXPECT_EQ(-EINVAL, memfilter_prefix_check(&p));
	p = pfx("10.0.0.0/8");
	p.addr[4] = 1;		/* past an IPv4 address */
	EXPECT_EQ(-EINVAL, memfilter_prefix_check(&p));
	p = pfx("10.0.0.0/8");
	p.__reserved[1] = 1;
	EXPECT_EQ(-EINVAL, memfilter_prefix_check(&p));
	p = pfx("10.0.0.0/8");
	p.length = 33;
	EXPECT_EQ(-EINVAL, memfilter_prefix_check(&p));
	p.family = 5;
	p.length = 8;
	EXPECT_EQ(-EINVAL, memfilter_prefix_check(&p));
	p = pfx("2001:db8::/32");
	EXPECT_EQ(0, memfilter_prefix_check(&p));
	p.length = 129;
	EXPECT_EQ(-EINVAL, memfilter_prefix_check(&p));
	p = pfx("::/0");
	EXPECT_EQ(0, memfilter_prefix_check(&p));
	p = pfx("0.0.0.0/0");
	EXPECT_EQ(0, memfilter_prefix_check(&p));
}

TEST(parse)
{
	static const struct {
		const char *text;
		int family, length;
	} good[] = {
		{ "10.0.0.0/8", 4, 8 }, { "192.0.2.1", 4, 32 },
		{ "192.0.2.1/32", 4, 32 }, { "0.0.0.0/0", 4, 0 },
		{ "2001:db8::/32", 6, 32 }, { "2001:db8::1", 6, 128 },
		{ "::/0", 6, 0 }, { "10.0.0.0/08", 4, 8 },
		{ "::ffff:192.0.2.0/120", 6, 120 },
	};
	static const char *const bad[] = {
		"", "10.0.0.0/", "10.0.0.0/33", "10.0.0.1/8", "10.0.0.0/-1",
		"10.0.0.0/8x", "10.0.0.0/0008", "2001:db8::/129",
		"2001:db8::1/32", "10.0.0", "10.0.0.0 /8", " 10.0.0.0/8",
		"10.0.0.0/8 ", "host.example", "10.0.0.0/8/8", "1.2.3.4.5",
	};
	struct mf_prefix p;
	const char *why;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		ASSERT_EQ(0, mf_prefix_parse(good[i].text, strlen(good[i].text),
					     &p, &why)) TH_LOG("%s", good[i].text);
		EXPECT_EQ(NULL, why);
		EXPECT_EQ(good[i].family, p.family);
		EXPECT_EQ(good[i].length, p.length);
		EXPECT_EQ(0, memfilter_prefix_check((struct memfilter_prefix *)&p));
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, mf_prefix_parse(bad[i], strlen(bad[i]), &p,
						   &why)) TH_LOG("%s", bad[i]);
		EXPECT_NE(NULL, why);
	}
	EXPECT_EQ(-EINVAL, mf_prefix_parse("10.0.0.1/8", 10, &p, &why));
	EXPECT_STREQ("an address bit is set past the prefix length", why);
	EXPECT_EQ(-EINVAL, mf_prefix_parse("10.0.0.0/33", 11, &p, &why));
	EXPECT_STREQ("the prefix length is over 32", why);
	/* Not NUL-terminated: only @len bytes are read. */
	EXPECT_EQ(0, mf_prefix_parse("10.0.0.0/8garbage", 10, &p, NULL));
	EXPECT_EQ(8, p.length);
	EXPECT_EQ(-EINVAL, mf_prefix_parse(NULL, 0, &p, NULL));
	EXPECT_EQ(-EINVAL, mf_prefix_parse("10.0.0.0/8", 10, NULL, NULL));
}

TEST(lengths_set)
{
	struct memfilter_prefixes px;
	u64 want[MEMFILTER_PREFIX_WORDS] = {};
	struct memfilter_prefix p;
	u8 lens[MEMFILTER_PREFIX_LENGTHS_MAX];
	u32 l;

	ASSERT_EQ(0, memfilter_prefixes_init(&px, 3, NULL));
	p = pfx("10.0.0.0/8");
	memfilter_prefix_mark(want, &p);
	p = pfx("192.0.2.0/24");
	memfilter_prefix_mark(want, &p);
	p = pfx("2001:db8::/32");
	memfilter_prefix_mark(want, &p);
	p = pfx("2001:db8::1");
	memfilter_prefix_mark(want, &p);
	p = pfx("2001:db8::/64");
	memfilter_prefix_mark(want, &p);
	ASSERT_EQ(0, memfilter_prefixes_check_add(&px, want));
	memfilter_prefixes_add(&px, want);
	EXPECT_EQ(2, memfilter_prefixes_count(px.lengths, 4));
	EXPECT_EQ(3, memfilter_prefixes_count(px.lengths, 16));
	EXPECT_EQ(2, memfilter_prefixes_lengths(&px, 4, lens));
	EXPECT_EQ(24, lens[0]);
	EXPECT_EQ(8, lens[1]);
	EXPECT_EQ(3, memfilter_prefixes_lengths(&px, 16, lens));
	EXPECT_EQ(128, lens[0]);
	EXPECT_EQ(64, lens[1]);
	EXPECT_EQ(32, lens[2]);
	EXPECT_TRUE(memfilter_prefix_marked(px.lengths, &p));
	p = pfx("2001:db8::/48");
	EXPECT_FALSE(memfilter_prefix_marked(px.lengths, &p));
	/* A fourth IPv6 length is one too many; a lengths already held is not. */
	memset(want, 0, sizeof(want));
	memfilter_prefix_mark(want, &p);
	EXPECT_EQ(-ENOSPC, memfilter_prefixes_check_add(&px, want));
	memset(want, 0, sizeof(want));
	p = pfx("10.0.0.0/16");
	memfilter_prefix_mark(want, &p);
	EXPECT_EQ(0, memfilter_prefixes_check_add(&px, want));
	p = pfx("2001:db8::/32");
	memfilter_prefix_mark(want, &p);
	EXPECT_EQ(0, memfilter_prefixes_check_add(&px, want));
	/* A filter of keys takes none. */
	ASSERT_EQ(0, memfilter_prefixes_init(&px, 0, NULL));
	EXPECT_EQ(-EOPNOTSUPP, memfilter_prefixes_check_add(&px, want));
	EXPECT_EQ(0, memfilter_prefixes_lengths(&px, 4, lens));
	/* All 129 IPv6 lengths walk in order (no check_add: a test of the walk). */
	ASSERT_EQ(0, memfilter_prefixes_init(&px, MEMFILTER_PREFIX_LENGTHS_MAX,
					     NULL));
	memset(px.lengths + 1, 0xff, 2 * sizeof(u64));
	px.lengths[3] = 1;
	EXPECT_EQ(MEMFILTER_PREFIX_LENGTHS_MAX,
		  memfilter_prefixes_lengths(&px, 16, lens));
	for (l = 0; l < MEMFILTER_PREFIX_LENGTHS_MAX; l++)
		EXPECT_EQ(128 - l, lens[l]);
	EXPECT_EQ(0, memfilter_prefixes_lengths(&px, 5, lens));
}

TEST(lengths_from_image)
{
	u64 l[MEMFILTER_PREFIX_WORDS] = { 1ULL << 32 | 1, 1, 0, 1 };
	struct memfilter_prefixes px;

	EXPECT_EQ(0, memfilter_prefixes_init(&px, 2, l));
	EXPECT_EQ(2, memfilter_prefixes_count(px.lengths, 4));
	EXPECT_EQ(2, memfilter_prefixes_count(px.lengths, 16));
	EXPECT_EQ(-EINVAL, memfilter_prefixes_init(&px, 1, l));	/* too many */
	EXPECT_EQ(0, px.max);
	l[0] = 1ULL << 33;	/* no IPv4 /33 */
	EXPECT_EQ(-EINVAL, memfilter_prefixes_init(&px, 2, l));
	l[0] = 0;
	l[3] = 2;		/* no IPv6 /129 */
	EXPECT_EQ(-EINVAL, memfilter_prefixes_init(&px, 2, l));
	l[3] = 0;
	EXPECT_EQ(-EINVAL, memfilter_prefixes_init(&px, 0, l));	/* keys */
	EXPECT_EQ(-EINVAL, memfilter_prefixes_init(&px, 33, NULL));
	EXPECT_EQ(0, memfilter_prefixes_init(&px, 32, NULL));
}

TEST(lookup_fpr)
{
	const double p = 0.01;
	u32 l;

	EXPECT_EQ(0, memfilter_prefix_fpr_ppb(10000000, 0));
	EXPECT_EQ(10000000, memfilter_prefix_fpr_ppb(10000000, 1));
	EXPECT_EQ(1000000000, memfilter_prefix_fpr_ppb(1000000000, 3));
	EXPECT_EQ(0, memfilter_prefix_fpr_ppb(0, 32));
	double miss = 1;

	for (l = 1; l <= 32; l++) {
		double want = 1 - (miss *= 1 - p);
		u64 got = memfilter_prefix_fpr_ppb(p * 1e9, l);

		EXPECT_GE(got, (u64)(want * 1e9));
		EXPECT_LE(got, (u64)(want * 1e9) + l + 1) TH_LOG("L %u", l);
	}
}

/*
 * A filter type that records the keys it is asked for and answers present
 * for one: the lookup rule's order and stop, without false positives.
 */
static u8 probed[64][MEMFILTER_PREFIX_KEY_MAX + 1];
static u32 nprobed;
static u8 present[MEMFILTER_PREFIX_KEY_MAX + 1];

static bool rec_contains_key(const union memfilter_state *s, const void *key,
			     size_t len)
{
	if (nprobed < 64) {
		probed[nprobed][0] = len;
		memcpy(probed[nprobed] + 1, key, len);
	}
	nprobed++;
	return present[0] == len && !memcmp(present + 1, key, len);
}

static const struct memfilter_type_ops rec_ops = {
	.type = 99,
	.contains_key = rec_contains_key,
};

static void expect_probe(struct __test_metadata *_metadata, u32 i,
			 const char *text, const char *addr)
{
	struct memfilter_prefix p = pfx(text), a = pfx(addr);
	u32 alen = memfilter_prefix_addr_len(p.family);
	u8 key[MEMFILTER_PREFIX_KEY_MAX];

	ASSERT_LT(i, nprobed);
	memfilter_prefix_key(key, a.addr, alen, p.length);
	EXPECT_EQ(alen + 1, probed[i][0]) TH_LOG("probe %u", i);
	EXPECT_EQ(0, memcmp(probed[i] + 1, key, alen + 1)) TH_LOG("probe %u: %s", i, text);
}

TEST(lookup_rule)
{
	static const char *const held[] = {
		"10.0.0.0/8", "10.1.0.0/16", "10.1.2.0/24", "10.1.2.3",
		"2001:db8::/32", "2001:db8::/48",
	};
	struct memfilter_prefixes px;
	u64 want[MEMFILTER_PREFIX_WORDS] = {};
	union memfilter_state s = {};
	struct memfilter_prefix a, p;
	size_t i;

	ASSERT_EQ(0, memfilter_prefixes_init(&px, 4, NULL));
	for (i = 0; i < ARRAY_SIZE(held); i++) {
		p = pfx(held[i]);
		memfilter_prefix_mark(want, &p);
	}
	ASSERT_EQ(0, memfilter_prefixes_check_add(&px, want));
	memfilter_prefixes_add(&px, want);

	/* Nothing present: every IPv4 length probed, longest first. */
	a = pfx("10.1.2.99");
	present[0] = 0;
	nprobed = 0;
	EXPECT_FALSE(memfilter_prefix_contains(&rec_ops, &s, &px, a.addr, 4));
	ASSERT_EQ(4, nprobed);
	expect_probe(_metadata, 0, "10.1.2.99/32", "10.1.2.99");
	expect_probe(_metadata, 1, "10.1.2.0/24", "10.1.2.99");
	expect_probe(_metadata, 2, "10.1.0.0/16", "10.1.2.99");
	expect_probe(_metadata, 3, "10.0.0.0/8", "10.1.2.99");

	/* The /16 present: the lookup stops there. */
	p = pfx("10.1.0.0/16");
	present[0] = 5;
	memfilter_prefix_key(present + 1, p.addr, 4, 16);
	nprobed = 0;
	EXPECT_TRUE(memfilter_prefix_contains(&rec_ops, &s, &px, a.addr, 4));
	EXPECT_EQ(3, nprobed);

	/* IPv6 probes its own two lengths only. */
	a = pfx("2001:db8:0:1::5");
	nprobed = 0;
	EXPECT_FALSE(memfilter_prefix_contains(&rec_ops, &s, &px, a.addr, 16));
	ASSERT_EQ(2, nprobed);
	expect_probe(_metadata, 0, "2001:db8::/48", "2001:db8:0:1::5");
	expect_probe(_metadata, 1, "2001:db8::/32", "2001:db8:0:1::5");

	/* Other address lengths: nothing to probe. */
	nprobed = 0;
	EXPECT_FALSE(memfilter_prefix_contains(&rec_ops, &s, &px, a.addr, 8));
	EXPECT_EQ(0, nprobed);

	/* A filter of keys: the address itself, one probe. */
	ASSERT_EQ(0, memfilter_prefixes_init(&px, 0, NULL));
	a = pfx("10.1.2.99");
	present[0] = 4;
	memcpy(present + 1, a.addr, 4);
	nprobed = 0;
	EXPECT_TRUE(memfilter_prefix_contains(&rec_ops, &s, &px, a.addr, 4));
	EXPECT_EQ(1, nprobed);
}

/* Sizing: fpr_ppb / prefix_lengths per key. */
TEST(sizing)
{
	struct memfilter_create c = {
		.size = sizeof(c), .type = MEMFILTER_TYPE_BLOOM,
		.capacity = 100000, .fpr_ppb = 10000000,
		.flags = MEMFILTER_CREATE_SEED,
	};
	const struct memfilter_type_ops *ops;
	union memfilter_params p, q;

	ASSERT_EQ(0, memfilter_create_params(&c, &ops, &p));
	c.prefix_lengths = 8;
	ASSERT_EQ(0, memfilter_create_params(&c, &ops, &q));
	c.prefix_lengths = 0;
	c.fpr_ppb = 10000000 / 8;
	ASSERT_EQ(0, memfilter_create_params(&c, &ops, &p));
	EXPECT_EQ(p.bloom.nblocks, q.bloom.nblocks);
	EXPECT_EQ(p.bloom.k, q.bloom.k);
	c.prefix_lengths = MEMFILTER_PREFIX_LENGTHS_MAX + 1;
	EXPECT_EQ(-EINVAL, memfilter_create_params(&c, &ops, &p));
	c.prefix_lengths = 1;
	c.__reserved1 = 1;
	EXPECT_EQ(-EOPNOTSUPP, memfilter_create_params(&c, &ops, &p));
}

static struct mf_offline *prefix_filter(struct __test_metadata *_metadata,
					int type, uint64_t capacity,
					unsigned int lengths)
{
	MF_OPTS(mf_create_opts, o, .type = type, .capacity = capacity,
		.fpr = 0.01, .fixed_seed = true, .seed = 7,
		.prefixes = true, .prefix_lengths = lengths);
	MF_OPTS(mf_window_opts, w, .generations = 4);
	struct mf_offline *f = NULL;
	int ret = mf_test_offline(&o, &w, NULL, &f);

	EXPECT_EQ(0, ret) TH_LOG("type %d: %s", type, mf_strerror(ret));
	return f;
}

static struct mf_offline *reload(struct __test_metadata *_metadata,
				 const struct mf_offline *f, void **img,
				 size_t *len)
{
	struct mf_offline *g = NULL;
	const char *why;

	EXPECT_EQ(0, mf_offline_image(f, img, len));
	EXPECT_EQ(0, mf_offline_from_image(*img, *len, &g, &why)) TH_LOG("%s", why);
	return g;
}

TEST(add_errors)
{
	struct mf_offline *f = prefix_filter(_metadata, MF_TYPE_BLOOM, 1000, 2);
	struct mf_offline *keys;
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_BLOOM, .capacity = 1000,
		.fpr = 0.01);
	struct mf_prefix p[3];
	MF_OPTS(mf_prefix_info, pi);
	size_t done = 99;

	ASSERT_NE(NULL, f);
	mf_prefix_parse("10.0.0.0/8", 10, &p[0], NULL);
	mf_prefix_parse("10.0.0.0/16", 11, &p[1], NULL);
	mf_prefix_parse("10.0.0.0/24", 11, &p[2], NULL);
	/* Three IPv4 lengths into a filter of two: nothing changes. */
	EXPECT_EQ(-ENOSPC, mf_offline_add_prefixes(f, p, 3, NULL, &done));
	EXPECT_EQ(0, done);
	ASSERT_EQ(0, mf_offline_prefix_info(f, &pi));
	EXPECT_EQ(2, pi.prefix_lengths);
	EXPECT_EQ(0, pi.n4);
	/* An invalid entry anywhere: nothing changes. */
	p[2].addr[3] = 1;
	EXPECT_EQ(-EINVAL, mf_offline_add_prefixes(f, p, 3, NULL, &done));
	EXPECT_EQ(0, done);
	ASSERT_EQ(0, mf_offline_prefix_info(f, &pi));
	EXPECT_EQ(0, pi.n4);
	EXPECT_EQ(2, mf_offline_add_prefixes(f, p, 2, NULL, &done));
	EXPECT_EQ(2, done);
	ASSERT_EQ(0, mf_offline_prefix_info(f, &pi));
	EXPECT_EQ(2, pi.n4);
	EXPECT_EQ(16, pi.len4[0]);
	EXPECT_EQ(8, pi.len4[1]);
	EXPECT_EQ(-EINVAL, mf_offline_query_addrs(f, p, 1, NULL, NULL));
	/* A filter of keys takes no prefixes, and looks addresses up as keys. */
	ASSERT_EQ(0, mf_offline_create(&o, &keys));
	EXPECT_EQ(-EOPNOTSUPP, mf_offline_add_prefixes(keys, p, 1, NULL, NULL));
	mf_prefix_parse("192.0.2.1", 9, &p[0], NULL);
	EXPECT_EQ(0, mf_offline_query_addrs(keys, p, 1, NULL, NULL));
	EXPECT_EQ(1, mf_offline_add(keys, p[0].addr, 4, 1, NULL, NULL));
	EXPECT_EQ(1, mf_offline_query_addrs(keys, p, 1, NULL, NULL));
	ASSERT_EQ(0, mf_offline_prefix_info(keys, &pi));
	EXPECT_EQ(0, pi.prefix_lengths);
	/* Options the library refuses. */
	o.prefix_lengths = 4;
	EXPECT_EQ(-EINVAL, mf_offline_create(&o, &keys));
	o.prefixes = true;
	o.prefix_lengths = 33;
	EXPECT_EQ(-EINVAL, mf_offline_create(&o, &keys));
	mf_offline_free(keys);
	mf_offline_free(f);
}

/* A 1.1.0 caller's mf_create_opts (through hash_algo): no prefixes read. */
TEST(create_opts_v2)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_BLOOM, .capacity = 1000,
		.fpr = 0.01);
	struct mf_offline *f;
	MF_OPTS(mf_prefix_info, pi);

	o.sz = offsetof(struct mf_create_opts, prefixes);
	o.prefix_lengths = 7;	/* the old struct's padding: ignored */
	ASSERT_EQ(0, mf_offline_create(&o, &f));
	ASSERT_EQ(0, mf_offline_prefix_info(f, &pi));
	EXPECT_EQ(0, pi.prefix_lengths);
	mf_offline_free(f);
	o.sz = offsetof(struct mf_create_opts, prefixes) + 1;
	EXPECT_EQ(-EINVAL, mf_offline_create(&o, &f));
}

/* The image of a prefix filter: its lengths after the table, checked. */
TEST(image)
{
	struct mf_offline *f = prefix_filter(_metadata, MF_TYPE_BLOOM, 1000, 5);
	const struct memfilter_image_header *h;
	struct memfilter_image_prefixes *t;
	struct memfilter_image_desc d;
	struct mf_offline *g;
	struct mf_prefix p[2];
	void *img, *img2, *copy;
	const char *why;
	size_t len, len2;
	u64 tbytes;

	ASSERT_NE(NULL, f);
	mf_prefix_parse("198.51.100.0/24", 15, &p[0], NULL);
	mf_prefix_parse("2001:db8::/32", 13, &p[1], NULL);
	ASSERT_EQ(2, mf_offline_add_prefixes(f, p, 2, NULL, NULL));
	g = reload(_metadata, f, &img, &len);
	ASSERT_NE(NULL, g);
	h = img;
	EXPECT_TRUE(le32toh(h->flags) & MEMFILTER_IMAGE_PREFIXES);
	ASSERT_EQ(0, memfilter_image_parse(img, len, &d));
	tbytes = memfilter_image_table_bytes(&d);
	EXPECT_EQ(tbytes + MEMFILTER_IMAGE_PREFIXES_SIZE, d.payload_size);
	t = (void *)((u8 *)img + MEMFILTER_IMAGE_HDR_SIZE + tbytes);
	EXPECT_EQ(5, le32toh(t->prefix_lengths));
	EXPECT_EQ(1ULL << 24, le64toh(t->lengths[0]));
	EXPECT_EQ(1ULL << 32, le64toh(t->lengths[1]));
	/* The same bytes again, and the same answers. */
	ASSERT_EQ(0, mf_offline_image(g, &img2, &len2));
	ASSERT_EQ(len, len2);
	EXPECT_EQ(0, memcmp(img, img2, len));
	free(img2);
	mf_prefix_parse("198.51.100.77", 13, &p[0], NULL);
	mf_prefix_parse("2001:db8:1234::1", 16, &p[1], NULL);
	EXPECT_EQ(2, mf_offline_query_addrs(g, p, 2, NULL, NULL));
	mf_offline_free(g);

	/* The payload in two places (the kernel's load): one checksum. */
	copy = malloc(tbytes + 1);
	ASSERT_NE(NULL, copy);
	memcpy(copy, (u8 *)img + MEMFILTER_IMAGE_HDR_SIZE, tbytes);
	struct memfilter_image_prefixes tcopy = *t;
	EXPECT_EQ(0, memfilter_image_check_parts(&d, copy, &tcopy));
	tcopy.lengths[0] ^= htole64(2);
	EXPECT_EQ(-EBADMSG, memfilter_image_check_parts(&d, copy, &tcopy));
	tcopy = *t;
	((u8 *)copy)[tbytes - 1] ^= 1;
	EXPECT_EQ(-EBADMSG, memfilter_image_check_parts(&d, copy, &tcopy));
	free(copy);

	/* Lengths no filter holds, each with a good checksum: refused. */
#define BAD_TRAILER(edit) do {						\
	u8 *b = malloc(len);						\
	struct memfilter_image_header *bh = (void *)b;			\
	struct memfilter_image_prefixes *bt;				\
	memcpy(b, img, len);						\
	bt = (void *)(b + MEMFILTER_IMAGE_HDR_SIZE + tbytes);		\
	edit;								\
	bh->payload_xxh64 = htole64(memfilter_xxh64(b + MEMFILTER_IMAGE_HDR_SIZE, \
						    d.payload_size, 0)); \
	bh->header_xxh64 = htole64(memfilter_xxh64(bh,			\
		offsetof(struct memfilter_image_header, header_xxh64), 0)); \
	EXPECT_EQ(-EBADMSG, mf_offline_from_image(b, len, &g, &why)) TH_LOG(#edit); \
	EXPECT_STREQ("prefix lengths no filter can hold", why);	\
	free(b);							\
} while (0)
	BAD_TRAILER(bt->prefix_lengths = 0);
	BAD_TRAILER(bt->prefix_lengths = htole32(33));
	BAD_TRAILER(bt->prefix_lengths = htole32(1); bt->lengths[0] |= htole64(1));
	BAD_TRAILER(bt->lengths[0] |= htole64(1ULL << 33));
	BAD_TRAILER(bt->lengths[3] = htole64(2));
	BAD_TRAILER(bt->__reserved0 = 1);
	BAD_TRAILER(bt->__reserved[23] = 1);
	/* The flag off: the trailer is trailing bytes. */
	{
		u8 *b = malloc(len);
		struct memfilter_image_header *bh = (void *)b;

		memcpy(b, img, len);
		bh->flags &= ~htole32(MEMFILTER_IMAGE_PREFIXES);
		bh->header_xxh64 = htole64(memfilter_xxh64(bh,
			offsetof(struct memfilter_image_header, header_xxh64), 0));
		EXPECT_EQ(-EBADMSG, mf_offline_from_image(b, len, &g, &why));
		free(b);
	}
	free(img);
	mf_offline_free(f);
}

/* Two prefix filters merge their lengths; a filter of keys does not merge in. */
TEST(merge)
{
	struct mf_offline *a = prefix_filter(_metadata, MF_TYPE_BLOOM, 1000, 2);
	struct mf_offline *b = prefix_filter(_metadata, MF_TYPE_BLOOM, 1000, 2);
	struct mf_offline *m, *k;
	/* The size the prefix filters have: 1% over 2 lengths. */
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_BLOOM, .capacity = 1000,
		.fpr = 0.005, .fixed_seed = true, .seed = 7);
	struct mf_prefix p[3];
	MF_OPTS(mf_prefix_info, pi);
	void *ia, *ib, *ik, *out;
	size_t la, lb, lk, lo;
	const char *why;

	mf_prefix_parse("10.0.0.0/8", 10, &p[0], NULL);
	mf_prefix_parse("192.0.2.0/24", 12, &p[1], NULL);
	mf_prefix_parse("203.0.113.7", 11, &p[2], NULL);
	ASSERT_EQ(1, mf_offline_add_prefixes(a, &p[0], 1, NULL, NULL));
	ASSERT_EQ(1, mf_offline_add_prefixes(b, &p[1], 1, NULL, NULL));
	ASSERT_EQ(0, mf_offline_image(a, &ia, &la));
	ASSERT_EQ(0, mf_offline_image(b, &ib, &lb));
	ASSERT_EQ(0, mf_image_merge(ia, la, ib, lb, &out, &lo, &why)) TH_LOG("%s", why);
	ASSERT_EQ(0, mf_offline_from_image(out, lo, &m, &why));
	ASSERT_EQ(0, mf_offline_prefix_info(m, &pi));
	EXPECT_EQ(2, pi.n4);
	mf_prefix_parse("10.9.9.9", 8, &p[0], NULL);
	mf_prefix_parse("192.0.2.200", 11, &p[1], NULL);
	EXPECT_EQ(2, mf_offline_query_addrs(m, p, 2, NULL, NULL));
	free(out);
	/* A third length: more than the filters take. */
	EXPECT_EQ(-ENOSPC, mf_offline_add_prefixes(m, &p[2], 1, NULL, NULL));
	mf_offline_free(m);
	ASSERT_EQ(1, mf_offline_add_prefixes(b, &p[2], 1, NULL, NULL));
	free(ib);
	ASSERT_EQ(0, mf_offline_image(b, &ib, &lb));
	EXPECT_EQ(-EINVAL, mf_image_merge(ia, la, ib, lb, &out, &lo, &why));
	EXPECT_STREQ("more prefix lengths together than the filters take", why);
	ASSERT_EQ(0, mf_offline_create(&o, &k));
	ASSERT_EQ(0, mf_offline_image(k, &ik, &lk));
	EXPECT_EQ(-EINVAL, mf_image_merge(ia, la, ik, lk, &out, &lo, &why));
	EXPECT_STREQ("a prefix filter and a filter of keys", why);
	free(ia);
	free(ib);
	free(ik);
	mf_offline_free(k);
	mf_offline_free(a);
	mf_offline_free(b);
}

FIXTURE(plist) {
	struct mf_prefix *list;
	size_t n;
};

MF_TYPE_VARIANTS(plist);

FIXTURE_SETUP(plist)
{
	self->list = calloc(mf_plist_size(), sizeof(*self->list));
	ASSERT_NE(NULL, self->list);
	self->n = mf_plist_make(44, self->list);
}

FIXTURE_TEARDOWN(plist)
{
	free(self->list);
}

/*
 * The whole list in an offline filter: every address inside a listed
 * range a hit (every address of the short ranges, both ends and random
 * ones of the long), the answers outside those of the key-by-key queries
 * (the rule, done another way) and of the filter reloaded from its image,
 * their rate near the model's.
 */
TEST_F(plist, published_shape)
{
	const size_t nprobe = 6000;
	struct mf_offline *f, *g;
	struct mf_prefix *a;
	MF_OPTS(mf_prefix_info, pi);
	uint64_t seed = 1, *r1, *r2;
	size_t i, j, inside, fp = 0, out = 0;
	void *img;
	size_t len;
	u8 key[MEMFILTER_PREFIX_KEY_MAX];

	f = prefix_filter(_metadata, variant->type, self->n, 24);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(self->n, mf_offline_add_prefixes(f, self->list, self->n,
						   NULL, NULL));
	ASSERT_EQ(0, mf_offline_prefix_info(f, &pi));
	EXPECT_EQ(MF_PLIST_LENGTHS4, pi.n4);
	EXPECT_EQ(MF_PLIST_LENGTHS6, pi.n6);

	/* Inside: all of every range of 256 addresses or fewer. */
	for (i = 0; i < self->n; i++) {
		struct mf_prefix *p = &self->list[i], x;
		unsigned int bits = p->family == MF_PREFIX_IPV4 ? 32 : 128;
		unsigned int host = bits - p->length;

		for (j = 0; j < (host <= 8 ? 1u << host : 64); j++) {
			if (host <= 8) {
				x = *p;
				x.length = bits;
				x.addr[bits / 8 - 1] |= j;
			} else {
				mf_plist_inside(&seed, p, &x, j % 3);
			}
			ASSERT_EQ(1, mf_offline_query_addrs(f, &x, 1, NULL, NULL))
				TH_LOG("entry %zu /%u probe %zu", i, p->length, j);
		}
	}

	/* Probes inside and outside: three ways, one answer. */
	a = calloc(nprobe, sizeof(*a));
	r1 = calloc((nprobe + 63) / 64, 8);
	r2 = calloc((nprobe + 63) / 64, 8);
	ASSERT_TRUE(a && r1 && r2);
	mf_plist_probes(99, self->list, self->n, a, nprobe, &inside);
	EXPECT_LE(inside, mf_offline_query_addrs(f, a, nprobe, r1, NULL));
	g = reload(_metadata, f, &img, &len);
	ASSERT_NE(NULL, g);
	EXPECT_LE(inside, mf_offline_query_addrs(g, a, nprobe, r2, NULL));
	EXPECT_EQ(0, memcmp(r1, r2, (nprobe + 63) / 64 * 8));
	for (i = 0; i < nprobe; i++) {
		u32 alen = memfilter_prefix_addr_len(a[i].family);
		const u8 *lens = alen == 4 ? pi.len4 : pi.len6;
		u32 n = alen == 4 ? pi.n4 : pi.n6, k, l;
		bool hit = false, bit = r1[i / 64] >> (i % 64) & 1;
		uint64_t res;

		for (k = 0; k < n; k++) {
			l = memfilter_prefix_key(key, a[i].addr, alen, lens[k]);
			res = 0;
			ASSERT_LE(0, mf_offline_queryv(f, key, &l, 1, &res, NULL));
			hit |= res & 1;
		}
		ASSERT_EQ(hit, bit) TH_LOG("probe %zu", i);
		if (i % 3 == 0) {
			ASSERT_TRUE(bit) TH_LOG("probe %zu inside", i);
		} else {
			out++;
			fp += bit;
		}
	}
	/* The lookups' rate: at most twice the 1% asked for (the list's seed). */
	TH_LOG("%zu of %zu outside hit (%.3f%%); model %.3f%% / %.3f%%", fp, out,
	       100.0 * fp / out, 100 * pi.fpr4, 100 * pi.fpr6);
	EXPECT_LE(fp, out * 2 / 100);
	free(img);
	free(a);
	free(r1);
	free(r2);
	mf_offline_free(g);
	mf_offline_free(f);
}

TEST_HARNESS_MAIN
