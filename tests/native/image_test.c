// SPDX-License-Identifier: GPL-2.0
/*
 * Native tests of filter images (core/image.c) through libmemfilter's
 * offline filters (lib/offline.c), built with ASan and UBSan: round trips
 * of Bloom and cuckoo filters, keyed and not, that answer every key as
 * before and re-serialize to the same bytes; corrupt images refused with
 * the errno the uapi header promises (every header bit flip, payload bit
 * flips, every truncation, wrong version, magic, type, hash, flag,
 * geometry, sizes, trailing bytes, cuckoo key counts); images read from
 * a pipe no further than their header until it is checked
 * (mf_image_read()); Bloom merges of
 * matching images and refusal of mismatched ones.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "image.h"
#include "kselftest_harness.h"
#include "libmemfilter.h"

#define HDR	MEMFILTER_IMAGE_HDR_SIZE

/* The source tree, whose fuzz/corpus/image/ holds images made long ago. */
#ifndef MF_SRCDIR
#define MF_SRCDIR "."
#endif

/* Key i: 8 bytes; present keys are 0..n-1, absent ones from 1 << 40. */
#define ABSENT	(1ULL << 40)

static uint64_t *keys_range(uint64_t first, size_t n)
{
	uint64_t *k = malloc(n * sizeof(*k));
	size_t i;

	for (i = 0; i < n; i++)
		k[i] = first + i;
	return k;
}

static struct mf_offline *build(int type, bool keyed, uint64_t capacity,
				size_t nkeys, uint64_t seed)
{
	struct mf_create_opts o = {
		.type = type,
		.capacity = capacity,
		.keyed = keyed,
		.fixed_seed = !keyed,
		.seed = keyed ? 0 : seed,
	};
	struct mf_offline *f;
	uint64_t *k;

	if (type == MF_TYPE_BLOOM)
		o.fpr = 0.01;
	else
		o.fingerprint_bits = 12;
	if (mf_offline_create(&o, &f))
		return NULL;
	k = keys_range(0, nkeys);
	if (mf_offline_add(f, k, 8, nkeys, NULL, NULL) != (ssize_t)nkeys) {
		mf_offline_free(f);
		f = NULL;
	}
	free(k);
	return f;
}

/* Recompute the header checksum after editing a field. */
static void rehash(void *img)
{
	struct memfilter_image_header *h = img;

	h->header_xxh64 = htole64(memfilter_xxh64(h,
						  offsetof(struct memfilter_image_header,
							   header_xxh64), 0));
}

/* Recompute the payload checksum, then the header's. */
static void rehash_all(void *img, size_t len)
{
	struct memfilter_image_header *h = img;

	h->payload_xxh64 = htole64(memfilter_xxh64((uint8_t *)img + HDR,
						   len - HDR, 0));
	rehash(img);
}

/* The full offline load path; returns 0 or -errno. */
static int load(const void *img, size_t len)
{
	struct mf_offline *f;
	int ret = mf_offline_from_image(img, len, &f, NULL);

	mf_offline_free(f);
	return ret;
}

static void *copy(const void *img, size_t len)
{
	void *c = malloc(len);

	memcpy(c, img, len);
	return c;
}

FIXTURE(roundtrip) {
	struct mf_offline *f;
	void *img;
	size_t len;
};

FIXTURE_VARIANT(roundtrip) {
	int type;
	bool keyed;
};

FIXTURE_VARIANT_ADD(roundtrip, bloom) { .type = MF_TYPE_BLOOM };
FIXTURE_VARIANT_ADD(roundtrip, bloom_keyed) {
	.type = MF_TYPE_BLOOM, .keyed = true
};
FIXTURE_VARIANT_ADD(roundtrip, cuckoo) { .type = MF_TYPE_CUCKOO };
FIXTURE_VARIANT_ADD(roundtrip, cuckoo_keyed) {
	.type = MF_TYPE_CUCKOO, .keyed = true
};

#define RT_KEYS		20000
#define RT_ABSENT	100000

FIXTURE_SETUP(roundtrip)
{
	self->f = build(variant->type, variant->keyed, RT_KEYS, RT_KEYS, 42);
	ASSERT_NE(NULL, self->f);
	ASSERT_EQ(0, mf_offline_image(self->f, &self->img, &self->len));
}

FIXTURE_TEARDOWN(roundtrip)
{
	mf_offline_free(self->f);
	free(self->img);
}

TEST_F(roundtrip, answers_and_bytes)
{
	const struct memfilter_image_header *h = self->img;
	uint64_t *present = keys_range(0, RT_KEYS);
	uint64_t *absent = keys_range(ABSENT, RT_ABSENT);
	uint64_t *r1 = calloc(RT_ABSENT / 64 + 1, 8);
	uint64_t *r2 = calloc(RT_ABSENT / 64 + 1, 8);
	struct mf_info i1, i2;
	struct mf_offline *g;
	size_t len2;
	void *img2;
	ssize_t hits;

	EXPECT_EQ(variant->keyed,
		  !!(le32toh(h->flags) & MEMFILTER_IMAGE_SECRET));
	EXPECT_EQ(variant->keyed ? MEMFILTER_HASH_SIPHASH24 :
		  MEMFILTER_HASH_XXH3, le32toh(h->hash_algo));
	EXPECT_EQ(variant->keyed ? 0 : 42, le64toh(h->seed));
	EXPECT_EQ(RT_KEYS, le64toh(h->keys));

	ASSERT_EQ(0, mf_offline_from_image(self->img, self->len, &g, NULL));
	EXPECT_EQ(RT_KEYS, mf_offline_query(g, present, 8, RT_KEYS, NULL,
					    NULL));
	hits = mf_offline_query(self->f, absent, 8, RT_ABSENT, r1, NULL);
	EXPECT_EQ(hits, mf_offline_query(g, absent, 8, RT_ABSENT, r2, NULL));
	EXPECT_EQ(0, memcmp(r1, r2, (RT_ABSENT + 63) / 64 * 8));
	/* Some false positives, but not many: it is the same filter. */
	EXPECT_GT(hits, 0);
	EXPECT_LT(hits, RT_ABSENT / 20);

	ASSERT_EQ(0, mf_offline_info(self->f, &i1));
	ASSERT_EQ(0, mf_offline_info(g, &i2));
	EXPECT_EQ(i1.keys, i2.keys);
	EXPECT_EQ(i1.fill, i2.fill);
	EXPECT_EQ(i1.capacity, i2.capacity);
	EXPECT_EQ(i1.est_fpr, i2.est_fpr);
	EXPECT_EQ(variant->keyed, i2.keyed);

	ASSERT_EQ(0, mf_offline_image(g, &img2, &len2));
	ASSERT_EQ(self->len, len2);
	EXPECT_EQ(0, memcmp(self->img, img2, len2));
	free(img2);
	mf_offline_free(g);
	free(present);
	free(absent);
	free(r1);
	free(r2);
}

/* Two filters made with the same options but no seed hash differently. */
TEST_F(roundtrip, fresh_secret_or_seed)
{
	struct mf_create_opts o = {
		.type = variant->type, .capacity = 100, .keyed = variant->keyed,
	};
	struct mf_offline *a, *b;
	void *ia, *ib;
	size_t la, lb;

	if (variant->type == MF_TYPE_BLOOM)
		o.fpr = 0.01;
	else
		o.fingerprint_bits = 8;
	ASSERT_EQ(0, mf_offline_create(&o, &a));
	ASSERT_EQ(0, mf_offline_create(&o, &b));
	ASSERT_EQ(0, mf_offline_image(a, &ia, &la));
	ASSERT_EQ(0, mf_offline_image(b, &ib, &lb));
	/* seed (offset 24) or secret (offsets 32..47) differ. */
	EXPECT_NE(0, memcmp((uint8_t *)ia + 24, (uint8_t *)ib + 24, 24));
	free(ia);
	free(ib);
	mf_offline_free(a);
	mf_offline_free(b);
}

/* A cuckoo image after deletes and near-full load (stash in use or not). */
TEST(cuckoo_full_roundtrip)
{
	struct mf_create_opts o = {
		.type = MF_TYPE_CUCKOO, .capacity = 64, .fingerprint_bits = 8,
		.fixed_seed = true, .seed = 3,
	};
	uint64_t *k = keys_range(0, 4096);
	struct mf_info i1, i2;
	struct mf_offline *f, *g;
	size_t done, len, len2;
	void *img, *img2;
	ssize_t n;

	ASSERT_EQ(0, mf_offline_create(&o, &f));
	n = mf_offline_add(f, k, 8, 4096, NULL, &done);
	ASSERT_EQ(-ENOSPC, n);
	ASSERT_GT(done, 60);
	EXPECT_EQ(10, mf_offline_delete(f, k, 8, 10, NULL, NULL));
	ASSERT_EQ(0, mf_offline_image(f, &img, &len));
	ASSERT_EQ(0, mf_offline_from_image(img, len, &g, NULL));
	EXPECT_EQ(done - 10, mf_offline_query(g, k + 10, 8, done - 10, NULL,
					      NULL));
	ASSERT_EQ(0, mf_offline_info(f, &i1));
	ASSERT_EQ(0, mf_offline_info(g, &i2));
	EXPECT_EQ(i1.keys, i2.keys);
	EXPECT_EQ(i1.stash_used, i2.stash_used);
	EXPECT_EQ(i1.fill, i2.fill);
	ASSERT_EQ(0, mf_offline_image(g, &img2, &len2));
	ASSERT_EQ(len, len2);
	EXPECT_EQ(0, memcmp(img, img2, len));
	free(img);
	free(img2);
	free(k);
	mf_offline_free(f);
	mf_offline_free(g);
}

/* Small images for the corruption tests. */
FIXTURE(corrupt) {
	void *img;
	size_t len;
};

FIXTURE_VARIANT(corrupt) {
	int type;
	bool keyed;
};

FIXTURE_VARIANT_ADD(corrupt, bloom) { .type = MF_TYPE_BLOOM };
FIXTURE_VARIANT_ADD(corrupt, bloom_keyed) {
	.type = MF_TYPE_BLOOM, .keyed = true
};
FIXTURE_VARIANT_ADD(corrupt, cuckoo) { .type = MF_TYPE_CUCKOO };
FIXTURE_VARIANT_ADD(corrupt, cuckoo_keyed) {
	.type = MF_TYPE_CUCKOO, .keyed = true
};

FIXTURE_SETUP(corrupt)
{
	struct mf_offline *f = build(variant->type, variant->keyed, 40, 30, 9);

	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, mf_offline_image(f, &self->img, &self->len));
	mf_offline_free(f);
	ASSERT_EQ(0, load(self->img, self->len));
}

FIXTURE_TEARDOWN(corrupt)
{
	free(self->img);
}

/*
 * Every single-bit flip of the header is refused: EOPNOTSUPP when the flip
 * turns version 1 into a higher version (a newer format's header may be
 * checksummed differently: "not supported" is the honest answer), EBADMSG
 * for every other bit (the header checksum no longer matches).
 */
TEST_F(corrupt, every_header_bit)
{
	struct memfilter_image_desc d;
	int bit, ret, badmsg = 0, notsupp = 0;

	for (bit = 0; bit < HDR * 8; bit++) {
		uint8_t *c = copy(self->img, self->len);
		int off = bit / 8;
		uint16_t version;

		c[off] ^= 1 << (bit % 8);
		version = c[8] | c[9] << 8;
		ret = memfilter_image_parse(c, self->len, &d);
		EXPECT_EQ(ret, load(c, self->len));
		if (off >= 8 && off < 10 && version > MEMFILTER_IMAGE_VERSION) {
			EXPECT_EQ(-EOPNOTSUPP, ret) TH_LOG("bit %d", bit);
		} else {
			EXPECT_EQ(-EBADMSG, ret) TH_LOG("bit %d", bit);
		}
		badmsg += ret == -EBADMSG;
		notsupp += ret == -EOPNOTSUPP;
		free(c);
	}
	EXPECT_EQ(HDR * 8, badmsg + notsupp);
	TH_LOG("%d header bit flips: %d EBADMSG, %d EOPNOTSUPP", HDR * 8,
	       badmsg, notsupp);
}

/* Payload bit flips (every 3rd bit, all of a small table): EBADMSG. */
TEST_F(corrupt, payload_bits)
{
	size_t bit, n = 0;

	for (bit = HDR * 8; bit < self->len * 8; bit += 3, n++) {
		uint8_t *c = copy(self->img, self->len);

		c[bit / 8] ^= 1 << (bit % 8);
		EXPECT_EQ(-EBADMSG, load(c, self->len)) TH_LOG("bit %zu", bit);
		free(c);
	}
	EXPECT_GT(n, 100);
}

TEST_F(corrupt, every_truncation)
{
	const char *why;
	struct mf_offline *f;
	size_t len;

	for (len = 0; len < self->len; len++) {
		uint8_t *c = copy(self->img, len ? len : 1);

		EXPECT_EQ(-EBADMSG, mf_offline_from_image(c, len, &f, &why))
			TH_LOG("length %zu", len);
		EXPECT_NE(NULL, why);
		EXPECT_EQ(NULL, f);
		free(c);
	}
}

TEST_F(corrupt, trailing_bytes)
{
	uint8_t *c = calloc(1, self->len + 64);
	size_t extra;

	memcpy(c, self->img, self->len);
	for (extra = 1; extra <= 64; extra++)
		EXPECT_EQ(-EBADMSG, load(c, self->len + extra));
	free(c);
}

/*
 * mf_image_read() of @len bytes of @data from a pipe whose write end stays
 * open unless @eof: a read past what was written would block (and the
 * harness's timeout fail the test). @left: bytes it left unread.
 */
static int read_pipe(const void *data, size_t len, bool eof, size_t *left,
		     void **img, size_t *img_len, const char **why)
{
	int p[2], ret, n;

	if (pipe(p))
		return -errno;
	if (write(p[1], data, len) != (ssize_t)len)
		return -EIO;
	if (eof)
		close(p[1]);
	ret = mf_image_read(p[0], img, img_len, why);
	n = -1;
	ioctl(p[0], FIONREAD, &n);
	*left = n;
	close(p[0]);
	if (!eof)
		close(p[1]);
	return ret;
}

#define READ_EXTRA	60000	/* bytes after the header: less than a pipe */

/*
 * mf_image_read() reads the header, checks it, then exactly the payload
 * it declares and one byte more: a header declaring more than the format
 * allows, or a bad magic, costs the header only, whatever follows.
 */
TEST_F(corrupt, read_bounded)
{
	uint8_t *buf = calloc(1, self->len + READ_EXTRA);
	struct memfilter_image_header *h = (void *)buf;
	const char *why;
	size_t left, len;
	void *img;
	int fd;

	memcpy(buf, self->img, self->len);
	ASSERT_EQ(0, read_pipe(buf, self->len, true, &left, &img, &len, &why));
	EXPECT_EQ(NULL, why);
	ASSERT_EQ(self->len, len);
	EXPECT_EQ(0, memcmp(img, self->img, len));
	EXPECT_EQ(0, left);
	free(img);

	EXPECT_EQ(-EBADMSG, read_pipe(buf, self->len + 1000, false, &left,
				      &img, &len, &why));
	EXPECT_STREQ("trailing bytes after the payload", why);
	EXPECT_EQ(NULL, img);
	EXPECT_EQ(999, left);

	EXPECT_EQ(-EBADMSG, read_pipe(buf, self->len - 1, true, &left, &img,
				      &len, &why));
	EXPECT_STREQ("truncated: shorter than header + payload", why);
	EXPECT_EQ(-EBADMSG, read_pipe(buf, HDR - 1, true, &left, &img, &len,
				      &why));
	EXPECT_STREQ("truncated: shorter than the 128-byte header", why);

	/* Payload sizes the header cannot declare, checksum and all. */
	h->payload_size = htole64(1ULL << 62);
	rehash(h);
	memset(buf + HDR, 0, READ_EXTRA);
	EXPECT_EQ(-EBADMSG, read_pipe(buf, HDR + READ_EXTRA, false, &left,
				      &img, &len, &why));
	EXPECT_STREQ("inconsistent header fields (geometry, sizes or hash parameters)",
		     why);
	EXPECT_EQ(READ_EXTRA, left);
	h->payload_size = htole64(UINT64_MAX - 64);
	rehash(h);
	EXPECT_EQ(-EBADMSG, read_pipe(buf, HDR + READ_EXTRA, false, &left,
				      &img, &len, &why));
	EXPECT_STREQ("inconsistent header fields (geometry, sizes or hash parameters)",
		     why);
	EXPECT_EQ(READ_EXTRA, left);

	memset(buf, 0, HDR);
	EXPECT_EQ(-EBADMSG, read_pipe(buf, HDR + READ_EXTRA, false, &left,
				      &img, &len, &why));
	EXPECT_STREQ("not a memfilter filter image (bad magic)", why);
	EXPECT_EQ(READ_EXTRA, left);

	fd = open(".", O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EISDIR, mf_image_read(fd, &img, &len, &why));
	EXPECT_EQ(NULL, why);
	close(fd);
	free(buf);
}

/* Edit a header field, recompute the checksum, expect @err. */
#define EDIT(field, value, err) do {					\
	struct memfilter_image_header *h = copy(self->img, self->len);	\
	h->field = (value);						\
	rehash(h);							\
	EXPECT_EQ(err, load(h, self->len)) TH_LOG(#field " = " #value);	\
	free(h);							\
} while (0)

TEST_F(corrupt, fields)
{
	const struct memfilter_image_header *o = self->img;
	bool bloom = variant->type == MF_TYPE_BLOOM;
	uint64_t geo = le64toh(o->geometry);

	EDIT(version, htole16(2), -EOPNOTSUPP);
	EDIT(version, htole16(0), -EOPNOTSUPP);
	EDIT(magic, htole64(MEMFILTER_IMAGE_MAGIC + 1), -EBADMSG);
	EDIT(header_size, htole16(256), -EBADMSG);
	EDIT(type, htole32(MEMFILTER_TYPE_GROW + 1), -EOPNOTSUPP);
	EDIT(type, htole32(0), -EOPNOTSUPP);
	EDIT(hash_algo, htole32(MEMFILTER_HASH_XXH3 + 1), -EOPNOTSUPP);
	/* XXH3 takes a seed like XXH64: a secret with it is corrupt. */
	EDIT(hash_algo, htole32(MEMFILTER_HASH_XXH3), variant->keyed ? -EBADMSG : 0);
	EDIT(flags, o->flags | htole32(16), -EOPNOTSUPP);
	EDIT(flags, o->flags | htole32(1u << 31), -EOPNOTSUPP);
	/*
	 * The split-block flag flipped: a SPLIT32 Bloom image (the default
	 * at 1%) read as LINE64 has half the table it names, a LINE64 one's
	 * geometry and k are not a SPLIT32 table's; on a cuckoo image:
	 * Bloom types only.
	 */
	EDIT(flags, o->flags ^ htole32(MEMFILTER_IMAGE_SPLIT32), -EBADMSG);
	/* A prefix filter's image has its lengths after the table. */
	EDIT(flags, o->flags | htole32(MEMFILTER_IMAGE_PREFIXES), -EBADMSG);
	/* The cuckoo layout flag: cuckoo images only, and it is the layout. */
	if (variant->type != MF_TYPE_CUCKOO)
		EDIT(flags, o->flags | htole32(MEMFILTER_IMAGE_CUCKOO_MOD),
		     -EBADMSG);
	else if (geo & (geo - 1))
		EDIT(flags, o->flags & ~htole32(MEMFILTER_IMAGE_CUCKOO_MOD),
		     -EBADMSG);
	EDIT(flags, o->flags ^ htole32(MEMFILTER_IMAGE_SECRET), -EBADMSG);
	EDIT(__reserved[5], 1, -EBADMSG);
	EDIT(capacity, 0, -EBADMSG);
	EDIT(payload_size, htole64(le64toh(o->payload_size) + 1), -EBADMSG);
	EDIT(payload_size, 0, -EBADMSG);
	/* Geometry that disagrees with the payload size. */
	EDIT(geometry, htole64(geo * 2), -EBADMSG);
	EDIT(geometry, 0, -EBADMSG);
	EDIT(k, 0, -EBADMSG);
	if (bloom) {
		EDIT(k, htole32(9), -EBADMSG);
		EDIT(stash, htole64(1), -EBADMSG);
		EDIT(bits_per_key_q4, 0, -EBADMSG);
		EDIT(bits_per_key_q4, htole32(1000), -EBADMSG);
	} else {
		EDIT(k, htole32(10), -EBADMSG);
		EDIT(geometry, htole64(geo + 1), -EBADMSG);
		EDIT(bits_per_key_q4, htole32(40), -EBADMSG);
		/* Stash: empty fingerprint, fingerprint too wide, bucket out. */
		EDIT(stash, htole64(5ULL << 16), -EBADMSG);
		EDIT(stash, htole64(1 << 12), -EBADMSG);
		EDIT(stash, htole64(geo << 16 | 1), -EBADMSG);
	}
	if (variant->keyed) {
		EDIT(seed, htole64(1), -EBADMSG);
		/* One zero key word is still a key. */
		EDIT(secret[0], 0, 0);
		{
			struct memfilter_image_header *h = copy(self->img,
								self->len);

			h->secret[0] = 0;
			h->secret[1] = 0;
			rehash(h);
			EXPECT_EQ(-EBADMSG, load(h, self->len));
			free(h);
		}
	} else {
		EDIT(secret[1], htole64(7), -EBADMSG);
	}
}

/* Changing a key count of a cuckoo image: the table disagrees. */
TEST_F(corrupt, cuckoo_key_count)
{
	struct memfilter_image_header *h;
	uint8_t *p;
	size_t i;

	if (variant->type != MF_TYPE_CUCKOO)
		SKIP(return, "cuckoo only");
	h = copy(self->img, self->len);
	h->keys = htole64(le64toh(h->keys) + 1);
	rehash(h);
	EXPECT_EQ(-EBADMSG, load(h, self->len));
	h->keys = htole64(le64toh(h->keys) - 2);
	rehash(h);
	EXPECT_EQ(-EBADMSG, load(h, self->len));
	free(h);

	/*
	 * A fingerprint put into an empty 12-bit slot (slots 2j and 2j + 1
	 * share byte 3j + 1: a zero byte alone need not be an empty slot),
	 * checksums made consistent.
	 */
	h = copy(self->img, self->len);
	p = (uint8_t *)h + HDR;
	for (i = 0; i < (self->len - HDR) * 2 / 3; i++) {
		uint8_t *b = p + i / 2 * 3;

		if (i % 2 ? !(b[1] >> 4) && !b[2] : !b[0] && !(b[1] & 0x0f))
			break;
	}
	ASSERT_LT(i, (self->len - HDR) * 2 / 3);
	p[i / 2 * 3 + (i % 2 ? 2 : 0)] = 0x11;
	rehash_all(h, self->len);
	EXPECT_EQ(-EBADMSG, load(h, self->len));
	/* With the key count raised to match, the image is valid again. */
	h->keys = htole64(le64toh(h->keys) + 1);
	rehash(h);
	EXPECT_EQ(0, load(h, self->len));
	free(h);
}

/* ---- merge --------------------------------------------------------------- */

static void *image_of(struct mf_offline *f, size_t *len)
{
	void *img;

	if (mf_offline_image(f, &img, len))
		return NULL;
	mf_offline_free(f);
	return img;
}

/* A filter of keys [first, first + n). */
/* An offline Bloom filter of keys [@first, @first + @n): its image. */
static void *bloom_image_hash(int hash_algo, bool keyed, uint64_t capacity,
			      uint64_t seed, uint64_t first, size_t n, size_t *len)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_BLOOM, .capacity = capacity,
		.fpr = 0.01, .keyed = keyed, .fixed_seed = !keyed,
		.seed = keyed ? 0 : seed,
		.hash_algo = hash_algo);
	struct mf_offline *f;
	uint64_t *k = keys_range(first, n);

	if (mf_offline_create(&o, &f))
		return NULL;
	mf_offline_add(f, k, 8, n, NULL, NULL);
	free(k);
	return image_of(f, len);
}

static void *bloom_image(bool keyed, uint64_t capacity, uint64_t seed,
			 uint64_t first, size_t n, size_t *len)
{
	return bloom_image_hash(0, keyed, capacity, seed, first, n, len);
}

TEST(merge_matching)
{
	size_t la, lb, lc;
	void *a = bloom_image(false, 4000, 5, 0, 1500, &la);
	void *b = bloom_image(false, 4000, 5, 1500, 1500, &lb);
	uint64_t *k = keys_range(0, 3000);
	const struct memfilter_image_header *h;
	struct mf_offline *f;
	const char *why;
	void *c;

	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	ASSERT_EQ(0, mf_image_merge(a, la, b, lb, &c, &lc, &why));
	ASSERT_EQ(la, lc);
	h = c;
	EXPECT_EQ(3000, le64toh(h->keys));
	ASSERT_EQ(0, mf_offline_from_image(c, lc, &f, NULL));
	EXPECT_EQ(3000, mf_offline_query(f, k, 8, 3000, NULL, NULL));
	mf_offline_free(f);
	free(a);
	free(b);
	free(c);
	free(k);
}

/* @f's image, @f kept; free() it. */
static void *image_kept(const struct mf_offline *f, size_t *len)
{
	void *img;

	return mf_offline_image(f, &img, len) ? NULL : img;
}

/*
 * mf_offline_merge(): the filters mf_image_merge() would image, byte for
 * byte; @other unchanged; a filter that cannot take the other (another
 * seed) left as it was.
 */
TEST(merge_in_memory)
{
	size_t la, lb, lc, ls, lo, lx;
	void *a = bloom_image(false, 4000, 5, 0, 1500, &la);
	void *b = bloom_image(false, 4000, 5, 1500, 1500, &lb);
	void *s6 = bloom_image(false, 4000, 6, 0, 100, &ls);
	uint64_t *k = keys_range(0, 3000);
	struct mf_offline *fa, *fb, *f6;
	void *c, *got, *other;
	const char *why;

	ASSERT_EQ(0, mf_image_merge(a, la, b, lb, &c, &lc, &why));
	ASSERT_EQ(0, mf_offline_from_image(a, la, &fa, NULL));
	ASSERT_EQ(0, mf_offline_from_image(b, lb, &fb, NULL));
	ASSERT_EQ(0, mf_offline_from_image(s6, ls, &f6, NULL));
	why = "unset";
	EXPECT_EQ(-EINVAL, mf_offline_merge(fa, f6, &why));
	EXPECT_NE(NULL, strstr(why, "seed")) TH_LOG("why: %s", why);
	got = image_kept(fa, &lx);
	EXPECT_TRUE(lx == la && !memcmp(got, a, la));
	free(got);
	EXPECT_EQ(0, mf_offline_merge(fa, fb, &why));
	EXPECT_EQ(NULL, why);
	got = image_kept(fa, &lx);
	EXPECT_TRUE(lx == lc && !memcmp(got, c, lc));
	other = image_kept(fb, &lo);
	EXPECT_TRUE(lo == lb && !memcmp(other, b, lb));
	EXPECT_EQ(3000, mf_offline_query(fa, k, 8, 3000, NULL, NULL));
	mf_offline_free(fa);
	mf_offline_free(fb);
	mf_offline_free(f6);
	free(got);
	free(other);
	free(a);
	free(b);
	free(s6);
	free(c);
	free(k);
}

/* The library's refusals of the types whose images cannot be ORed. */
#define CUCKOO_WHY \
	"only Bloom filters can be merged (a cuckoo table's slots cannot be ORed)"
#define WINDOW_WHY \
	"only Bloom filters can be merged (a window filter's generations have ages of their own)"
#define GROW_WHY \
	"only Bloom filters can be merged (a growing filter's sub-filters differ in number and size)"

static void expect_mismatch(struct __test_metadata *_metadata,
			    const void *a, size_t la, const void *b,
			    size_t lb, const char *want)
{
	const char *why = NULL;
	size_t lc = 1;
	void *c = (void *)1;

	EXPECT_EQ(-EINVAL, mf_image_merge(a, la, b, lb, &c, &lc, &why));
	EXPECT_EQ(NULL, c);
	EXPECT_EQ(0, lc);
	ASSERT_NE(NULL, why);
	EXPECT_NE(NULL, strstr(why, want)) TH_LOG("why: %s", why);
}

TEST(merge_mismatched)
{
	size_t la, lb, lk1, lk2, lbig, lcu;
	void *a = bloom_image(false, 4000, 5, 0, 100, &la);
	void *b = bloom_image(false, 4000, 6, 0, 100, &lb);
	void *k1 = bloom_image(true, 4000, 0, 0, 100, &lk1);
	void *k2 = bloom_image(true, 4000, 0, 0, 100, &lk2);
	void *big = bloom_image(false, 40000, 5, 0, 100, &lbig);
	struct mf_offline *cu = build(MF_TYPE_CUCKOO, false, 100, 10, 5);
	void *cimg = image_of(cu, &lcu);
	const char *why;
	size_t lc;
	void *c;

	expect_mismatch(_metadata, a, la, b, lb, "seed");
	expect_mismatch(_metadata, k1, lk1, k2, lk2, "secret");
	expect_mismatch(_metadata, a, la, k1, lk1, "hash algorithm");
	expect_mismatch(_metadata, a, la, big, lbig, "table size");
	expect_mismatch(_metadata, cimg, lcu, cimg, lcu, CUCKOO_WHY);
	expect_mismatch(_metadata, a, la, cimg, lcu, CUCKOO_WHY);
	/* Same key: merging a keyed image with itself is fine. */
	EXPECT_EQ(0, mf_image_merge(k1, lk1, k1, lk1, &c, &lc, &why));
	free(c);
	/* A corrupt input is reported as such, not as a mismatch. */
	((uint8_t *)b)[HDR] ^= 1;
	EXPECT_EQ(-EBADMSG, mf_image_merge(a, la, b, lb, &c, &lc, &why));
	EXPECT_NE(NULL, strstr(why, "payload checksum"));
	free(a);
	free(b);
	free(k1);
	free(k2);
	free(big);
	free(cimg);
}

/* Window and growing images are named as such, not as cuckoo tables. */
TEST(merge_other_types)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_WINDOW, .capacity = 100,
		.fpr = 0.01, .fixed_seed = true, .seed = 5);
	MF_OPTS(mf_window_opts, w, .generations = 2);
	size_t la, lw, lg;
	void *a = bloom_image(false, 100, 5, 0, 10, &la), *wimg, *gimg;
	struct mf_offline *f;

	ASSERT_EQ(0, mf_offline_create_window(&o, &w, &f));
	wimg = image_of(f, &lw);
	o.type = MF_TYPE_GROW;
	ASSERT_EQ(0, mf_offline_create_grow(&o, NULL, &f));
	gimg = image_of(f, &lg);
	ASSERT_NE(NULL, wimg);
	ASSERT_NE(NULL, gimg);
	expect_mismatch(_metadata, wimg, lw, wimg, lw, WINDOW_WHY);
	expect_mismatch(_metadata, a, la, wimg, lw, WINDOW_WHY);
	expect_mismatch(_metadata, gimg, lg, a, la, GROW_WHY);
	free(a);
	free(wimg);
	free(gimg);
}

/*
 * XXH3 filters (MF_HASH_XXH3) and XXH64 ones (MF_HASH_XXH64): the choice
 * reaches the hasher, the info, the image header, a reload and merges;
 * the options that exclude it are refused; no hash named, or a caller of
 * the first mf_create_opts size, gets XXH3.
 */
TEST(offline_xxh3)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_BLOOM, .capacity = 4000,
		.fpr = 0.01, .fixed_seed = true, .seed = 42,
		.hash_algo = MF_HASH_XXH3);
	size_t v1 = offsetof(struct mf_create_opts, name) + sizeof(o.name);
	size_t la, lb, l64, ld, lc;
	void *a = bloom_image_hash(MF_HASH_XXH3, false, 4000, 42, 0, 1500, &la);
	void *b = bloom_image_hash(MF_HASH_XXH3, false, 4000, 43, 0, 1500, &lb);
	void *x64 = bloom_image_hash(MF_HASH_XXH64, false, 4000, 42, 0, 1500,
				     &l64);
	void *dflt = bloom_image(false, 4000, 42, 0, 1500, &ld);
	const struct memfilter_image_header *h = a;
	uint64_t *k = keys_range(0, 1500);
	struct mf_offline *f, *g;
	struct mf_info i;
	const char *why;
	void *c;

	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	ASSERT_NE(NULL, x64);
	EXPECT_EQ(MEMFILTER_HASH_XXH3, le32toh(h->hash_algo));
	EXPECT_EQ(42, le64toh(h->seed));
	/* No flag but the layout: SPLIT32, the default at 1%. */
	EXPECT_EQ(MEMFILTER_IMAGE_SPLIT32, le32toh(h->flags));
	/* Same keys, seed and shape, another hash: another table. */
	ASSERT_EQ(la, l64);
	EXPECT_NE(0, memcmp((uint8_t *)a + HDR, (uint8_t *)x64 + HDR, la - HDR));
	EXPECT_EQ(MEMFILTER_HASH_XXH64,
		  le32toh(((const struct memfilter_image_header *)x64)->hash_algo));
	/* No hash named: the same filter as XXH3 by name, byte for byte. */
	ASSERT_EQ(la, ld);
	EXPECT_EQ(0, memcmp(a, dflt, la));

	ASSERT_EQ(0, mf_offline_from_image(a, la, &g, NULL));
	ASSERT_EQ(0, mf_offline_info(g, &i));
	EXPECT_EQ(MF_HASH_XXH3, i.hash_algo);
	EXPECT_EQ(42, i.seed);
	EXPECT_FALSE(i.keyed);
	EXPECT_EQ(1500, mf_offline_query(g, k, 8, 1500, NULL, NULL));
	/* The table is the one the core's XXH3 hasher fills. */
	ASSERT_EQ(0, mf_offline_create(&o, &f));
	EXPECT_EQ(1500, mf_offline_add(f, k, 8, 1500, NULL, NULL));
	ASSERT_EQ(0, mf_offline_image(f, &c, &lc));
	ASSERT_EQ(la, lc);
	EXPECT_EQ(0, memcmp(a, c, la));
	free(c);
	mf_offline_free(f);
	mf_offline_free(g);

	expect_mismatch(_metadata, a, la, b, lb, "seed");
	expect_mismatch(_metadata, a, la, x64, l64, "hash algorithm");
	EXPECT_EQ(0, mf_image_merge(a, la, a, la, &c, &lc, &why));
	free(c);

	o.keyed = true;
	EXPECT_EQ(-EINVAL, mf_offline_create(&o, &f));
	o.fixed_seed = false;
	o.seed = 0;
	EXPECT_EQ(-EINVAL, mf_offline_create(&o, &f));
	o.keyed = false;
	o.hash_algo = MF_HASH_XXH3 + 1;
	EXPECT_EQ(-EINVAL, mf_offline_create(&o, &f));
	o.hash_algo = 0;
	o.keyed = true;
	ASSERT_EQ(0, mf_offline_create(&o, &f));
	ASSERT_EQ(0, mf_offline_info(f, &i));
	EXPECT_EQ(MF_HASH_SIPHASH24, i.hash_algo);
	mf_offline_free(f);
	o.hash_algo = MF_HASH_XXH64;
	EXPECT_EQ(-EINVAL, mf_offline_create(&o, &f));
	o.keyed = false;
	o.fixed_seed = true;
	ASSERT_EQ(0, mf_offline_create(&o, &f));
	ASSERT_EQ(0, mf_offline_info(f, &i));
	EXPECT_EQ(MF_HASH_XXH64, i.hash_algo);
	mf_offline_free(f);
	o.fixed_seed = false;
	o.hash_algo = MF_HASH_SIPHASH24;
	o.keyed = false;
	ASSERT_EQ(0, mf_offline_create(&o, &f));
	ASSERT_EQ(0, mf_offline_info(f, &i));
	EXPECT_EQ(MF_HASH_SIPHASH24, i.hash_algo);
	EXPECT_TRUE(i.keyed);
	mf_offline_free(f);

	/* The first released size: @hash_algo is beyond it and not read. */
	o.hash_algo = MF_HASH_XXH64;
	o.keyed = false;
	o.sz = v1;
	ASSERT_EQ(0, mf_offline_create(&o, &f));
	ASSERT_EQ(0, mf_offline_info(f, &i));
	EXPECT_EQ(MF_HASH_XXH3, i.hash_algo);
	mf_offline_free(f);
	o.sz = v1 + 1;
	EXPECT_EQ(-EINVAL, mf_offline_create(&o, &f));
	free(k);
	free(a);
	free(b);
	free(x64);
	free(dflt);
}

TEST(offline_arguments)
{
	struct mf_create_opts o = { .type = MF_TYPE_BLOOM, .capacity = 10 };
	struct mf_offline *f;
	uint64_t key = 1;
	uint32_t len = 4097;

	EXPECT_EQ(-EINVAL, mf_offline_create(&o, &f));	/* no fpr or bpk */
	o.fpr = 0.01;
	o.name = "x";
	EXPECT_EQ(-EINVAL, mf_offline_create(&o, &f));
	o.name = NULL;
	o.keyed = o.fixed_seed = true;
	EXPECT_EQ(-EINVAL, mf_offline_create(&o, &f));
	o.fixed_seed = false;
	o.fingerprint_bits = 8;
	EXPECT_EQ(-EINVAL, mf_offline_create(&o, &f));
	o.fingerprint_bits = 0;
	ASSERT_EQ(0, mf_offline_create(&o, &f));
	EXPECT_EQ(-EOPNOTSUPP, mf_offline_delete(f, &key, 8, 1, NULL, NULL));
	EXPECT_EQ(-EINVAL, mf_offline_add(f, &key, 0, 1, NULL, NULL));
	EXPECT_EQ(-EINVAL, mf_offline_addv(f, &key, &len, 1, NULL, NULL));
	EXPECT_EQ(1, mf_offline_add(f, &key, 8, 1, NULL, NULL));
	EXPECT_EQ(1, mf_offline_query(f, &key, 8, 1, NULL, NULL));
	mf_offline_free(f);
}

/*
 * The operation-driven call and its options struct: sizes are checked the
 * libbpf way, and every operation of a type is reachable through it.
 */
TEST(offline_keys_opts)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_CUCKOO, .capacity = 100,
		.fingerprint_bits = 12);
	struct {
		struct mf_keys_opts k;
		uint64_t more;
	} big = { .k.sz = sizeof(big), .k.key_size = 8 };
	MF_OPTS(mf_keys_opts, k, .key_size = 8);
	uint64_t keys[3] = { 1, 2, 1 }, res = 0;
	struct mf_offline *f;

	o.sz = sizeof(o) - 1;
	EXPECT_EQ(-EINVAL, mf_offline_create(&o, &f));
	o.sz = sizeof(o);
	ASSERT_EQ(0, mf_offline_create(&o, &f));

	EXPECT_EQ(-EINVAL, mf_offline_keys(f, MF_KEYS_ADD, keys, 3, NULL));
	k.sz = offsetof(struct mf_keys_opts, done);
	EXPECT_EQ(-EINVAL, mf_offline_keys(f, MF_KEYS_ADD, keys, 3, &k));
	k.sz = sizeof(k);
	EXPECT_EQ(-EINVAL, mf_offline_keys(f, 4, keys, 3, &k));
	big.more = 1;
	EXPECT_EQ(-E2BIG, mf_offline_keys(f, MF_KEYS_ADD, keys, 3, &big.k));
	big.more = 0;
	EXPECT_EQ(3, mf_offline_keys(f, MF_KEYS_ADD, keys, 3, &big.k));
	EXPECT_EQ(3, big.k.done);

	k.results = &res;
	EXPECT_EQ(3, mf_offline_keys(f, MF_KEYS_QUERY, keys, 3, &k));
	EXPECT_EQ(7, res);
	EXPECT_EQ(3, k.done);
	/* 1 is in twice, 2 once: only the 1 stays after two deletes. */
	EXPECT_EQ(2, mf_offline_keys(f, MF_KEYS_DELETE, keys + 1, 2, &k));
	EXPECT_EQ(3, res);
	EXPECT_EQ(1, mf_offline_keys(f, MF_KEYS_ADD_UNIQUE, keys, 2, &k));
	EXPECT_EQ(2, res);
	EXPECT_EQ(2, k.done);
	mf_offline_free(f);

	o.type = MF_TYPE_BLOOM;
	o.fingerprint_bits = 0;
	o.fpr = 0.01;
	ASSERT_EQ(0, mf_offline_create(&o, &f));
	EXPECT_EQ(-EOPNOTSUPP,
		  mf_offline_keys(f, MF_KEYS_ADD_UNIQUE, keys, 3, &k));
	EXPECT_EQ(0, k.done);
	EXPECT_EQ(-EOPNOTSUPP,
		  mf_offline_keys(f, MF_KEYS_DELETE, keys, 3, &k));
	mf_offline_free(f);
}

/* A filter made through the type table, as the module and lib make them. */
struct tt_filter {
	const struct memfilter_type_ops *ops;
	union memfilter_state s;
	void *mem;
};

static int tt_init(struct tt_filter *f, const struct memfilter_type_ops *ops,
		   const union memfilter_params *p)
{
	u64 bytes = ops->mem_bytes(p);

	f->ops = ops;
	f->mem = aligned_alloc(64, bytes);
	if (!f->mem)
		return -ENOMEM;
	memset(f->mem, 0, bytes);
	memset(&f->s, 0, sizeof(f->s));
	ops->init(&f->s, p, f->mem);
	return 0;
}

/* @f's image, as the module's dump makes it. */
static u8 *tt_image(const struct tt_filter *f, u64 keys, size_t *len)
{
	struct memfilter_image_desc d;
	u8 *img;

	f->ops->image(&f->s, keys, &d, NULL);
	*len = HDR + d.payload_size;
	img = malloc(*len);
	f->ops->image(&f->s, keys, &d, img + HDR);
	memfilter_image_header((void *)img, &d, img + HDR);
	return img;
}

/* Load an image as the module does: parse, check, copy, restore. */
static int tt_load(const u8 *img, size_t len, struct tt_filter *out)
{
	struct memfilter_image_desc d;
	int ret = memfilter_image_parse(img, len, &d);

	if (!ret)
		ret = memfilter_image_check_payload(&d, img + HDR);
	if (!ret)
		ret = tt_init(out, memfilter_type_ops(d.type), &d.params);
	if (ret)
		return ret;
	memcpy(out->mem, img + HDR, d.payload_size);
	ret = out->ops->restore(&out->s, &d);
	if (ret)
		free(out->mem);
	return ret;
}

/*
 * SPLIT32 Bloom, window and growing filters (memfilter_create.layout)
 * through the type table: the request's layout is the filter's and its
 * image's (MEMFILTER_IMAGE_SPLIT32, 32-byte blocks, k 8), the image loads
 * into a filter with the same table that answers every key the same and
 * re-images to the same bytes; a SPLIT32 image without its flag, with k
 * other than 8 or an odd block count, and a cuckoo image with the flag,
 * are corrupt; an unknown layout is refused, as a layout on a cuckoo
 * filter is.
 */
TEST(split32_images)
{
	static const u32 types[] = { MEMFILTER_TYPE_BLOOM, MEMFILTER_TYPE_WINDOW,
				     MEMFILTER_TYPE_GROW };
	uint64_t *k = keys_range(0, 20000);
	const struct memfilter_type_ops *ops;
	union memfilter_params p;

	for (size_t t = 0; t < ARRAY_SIZE(types); t++) {
		struct memfilter_create c = {
			.size = sizeof(c), .type = types[t], .capacity = 3000,
			.fpr_ppb = 10000000, .layout = MEMFILTER_LAYOUT_SPLIT32,
			.flags = MEMFILTER_CREATE_SEED, .seed = 5,
		};
		struct memfilter_image_header *h;
		const struct memfilter_bloom_params *bp;
		struct tt_filter f, g;
		unsigned long res[1];
		size_t len, len2, sec;
		u8 *img, *img2;
		u32 done, hits = 0;

		if (types[t] == MEMFILTER_TYPE_WINDOW) {
			c.generations = 3;
			c.period_ms = 1000;
		}
		ASSERT_EQ(0, memfilter_create_params(&c, &ops, &p));
		bp = types[t] == MEMFILTER_TYPE_BLOOM ? &p.bloom :
		     types[t] == MEMFILTER_TYPE_WINDOW ? &p.window.gen : &p.grow.sub0;
		EXPECT_EQ(MEMFILTER_BLOOM_SPLIT32, bp->layout);
		EXPECT_EQ(8, bp->k);
		EXPECT_EQ(0, bp->nblocks % 2);
		ASSERT_EQ(0, tt_init(&f, ops, &p));
		for (u32 i = 0; i < 3000; i++) {
			u64 hh = memfilter_key_hash(ops, &f.s, &k[i], 8);

			ASSERT_EQ(0, ops->add(&f.s, &hh, 1, res, &done));
		}
		img = tt_image(&f, 3000, &len);
		h = (void *)img;
		EXPECT_TRUE(le32toh(h->flags) & MEMFILTER_IMAGE_SPLIT32);
		EXPECT_EQ(8, le32toh(h->k));
		EXPECT_EQ(bp->nblocks, le64toh(h->geometry));
		ASSERT_EQ(0, tt_load(img, len, &g)) TH_LOG("type %u", types[t]);
		/* The tables, after the window's or growing filter's state section. */
		sec = types[t] == MEMFILTER_TYPE_BLOOM ? 0 :
		      types[t] == MEMFILTER_TYPE_WINDOW ? MEMFILTER_IMAGE_WINDOW_SIZE :
		      MEMFILTER_IMAGE_GROW_SIZE;
		EXPECT_EQ(0, memcmp((u8 *)f.mem + sec, (u8 *)g.mem + sec,
				    ops->mem_bytes(&p) - sec));
		for (u32 i = 0; i < 20000; i++) {
			bool a = memfilter_state_contains_key(ops, &f.s, &k[i], 8);

			ASSERT_EQ(a, memfilter_state_contains_key(ops, &g.s, &k[i], 8));
			if (i < 3000) {
				ASSERT_TRUE(a);
			} else {
				hits += a;
			}
		}
		/* About 1% of the absent keys: sized for the layout's model. */
		EXPECT_LT(hits, 17000 / 50);
		EXPECT_GT(hits, 0);
		img2 = tt_image(&g, 3000, &len2);
		ASSERT_EQ(len, len2);
		/* Window images carry ages, which move: the header is equal. */
		EXPECT_EQ(0, memcmp(img, img2, types[t] == MEMFILTER_TYPE_WINDOW ?
				    HDR : len));
		free(img2);
		/* Without its flag, or with another k or block count: corrupt. */
		h->flags &= ~htole32(MEMFILTER_IMAGE_SPLIT32);
		rehash(h);
		EXPECT_EQ(-EBADMSG, tt_load(img, len, &g));
		h->flags |= htole32(MEMFILTER_IMAGE_SPLIT32);
		h->k = htole32(7);
		rehash(h);
		EXPECT_EQ(-EBADMSG, tt_load(img, len, &g));
		h->k = htole32(8);
		h->geometry = htole64(bp->nblocks + 1);
		rehash(h);
		EXPECT_EQ(-EBADMSG, tt_load(img, len, &g));
		h->geometry = htole64(bp->nblocks);
		rehash(h);
		ASSERT_EQ(0, tt_load(img, len, &g));
		free(g.mem);
		free(img);
		free(f.mem);
	}
	/* Cuckoo: no layout, and no image flag. */
	{
		struct memfilter_create c = {
			.size = sizeof(c), .type = MEMFILTER_TYPE_CUCKOO,
			.capacity = 100, .fingerprint_bits = 12,
			.layout = MEMFILTER_LAYOUT_LINE64,
		};
		struct tt_filter f, g;
		size_t len;
		u8 *img;

		EXPECT_EQ(-EINVAL, memfilter_create_params(&c, &ops, &p));
		c.layout = 0;
		ASSERT_EQ(0, memfilter_create_params(&c, &ops, &p));
		ASSERT_EQ(0, tt_init(&f, ops, &p));
		img = tt_image(&f, 0, &len);
		ASSERT_EQ(0, tt_load(img, len, &g));
		free(g.mem);
		((struct memfilter_image_header *)img)->flags |= htole32(MEMFILTER_IMAGE_SPLIT32);
		rehash(img);
		EXPECT_EQ(-EBADMSG, tt_load(img, len, &g));
		free(img);
		free(f.mem);
	}
	{
		struct memfilter_create c = {
			.size = sizeof(c), .type = MEMFILTER_TYPE_BLOOM,
			.capacity = 100, .bits_per_key_q4 = 40,
			.layout = MEMFILTER_LAYOUT_SPLIT32 + 1,
		};

		EXPECT_EQ(-EOPNOTSUPP, memfilter_create_params(&c, &ops, &p));
		c.layout = MEMFILTER_LAYOUT_LINE64;
		ASSERT_EQ(0, memfilter_create_params(&c, &ops, &p));
		EXPECT_EQ(MEMFILTER_BLOOM_LINE64, p.bloom.layout);
		/* No layout: LINE64 for bits per key, SPLIT32 at 1%. */
		c.layout = MEMFILTER_LAYOUT_DEFAULT;
		ASSERT_EQ(0, memfilter_create_params(&c, &ops, &p));
		EXPECT_EQ(MEMFILTER_BLOOM_LINE64, p.bloom.layout);
		c.bits_per_key_q4 = 0;
		c.fpr_ppb = 10000000;
		ASSERT_EQ(0, memfilter_create_params(&c, &ops, &p));
		EXPECT_EQ(MEMFILTER_BLOOM_SPLIT32, p.bloom.layout);
	}
	free(k);
}

/* The bytes of file @path, or NULL. */
static void *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	void *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET)) {
		buf = malloc(n);
		if (fread(buf, 1, n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = n;
	}
	fclose(f);
	return buf;
}

/*
 * Images made before layouts existed (the fuzzer's seed corpus, written by
 * memfilterctl build): every Bloom, window and growing one parses as the
 * 64-byte layout, loads, re-images to the same bytes, and answers as it
 * did: the hits among 8-byte keys 0 .. 199999 and among "key-1" ..
 * "key-300" and "key-R-I" (R < 20, I < 50: the keys the corpus was built
 * from, and more) are the ones
 * the code before layouts gave (pinned here; the same test on that code,
 * 1ee914d, prints them).
 */
TEST(old_images_answer_as_before)
{
	static const struct {
		const char *name;
		ssize_t hits8, hits_text;
	} imgs[] = {
		{ "bloom-1block", 0, 5 },
		{ "bloom-bpk2", 66503, 566 },
		{ "bloom-empty", 0, 0 },
		{ "bloom-fpr", 34, 100 },
		{ "bloom-keyed", 1921, 62 },
		{ "bloom-xxh3", 1862, 64 },
		{ "grow-1sub", 0, 5 },
		{ "grow-3subs", 13, 60 },
		{ "grow-keyed", 0, 30 },
		{ "window-empty", 0, 0 },
		{ "window-g16", 0, 32 },
		{ "window-g2", 0, 10 },
		{ "window-g3-bycount", 0, 24 },
		{ "window-g4-period", 1, 40 },
		{ "window-keyed", 0, 18 },
	};
	uint64_t *k8 = keys_range(0, 200000);
	char text[1300 * 12];
	uint32_t lens[1300];
	size_t at = 0;

	for (int i = 0; i < 1300; i++) {
		lens[i] = i < 300 ? sprintf(text + at, "key-%d", i + 1) :
			  sprintf(text + at, "key-%d-%d", (i - 300) / 50, (i - 300) % 50);
		at += lens[i];
	}
	for (size_t i = 0; i < ARRAY_SIZE(imgs); i++) {
		struct memfilter_image_desc d;
		struct mf_offline *f;
		char path[128];
		size_t len, len2;
		void *img, *img2;
		u32 layout;

		snprintf(path, sizeof(path), MF_SRCDIR "/fuzz/corpus/image/%s.img", imgs[i].name);
		img = read_file(path, &len);
		ASSERT_NE(NULL, img) TH_LOG("%s (run from the source tree)", path);
		ASSERT_EQ(0, memfilter_image_parse(img, len, &d)) TH_LOG("%s", path);
		layout = d.type == MEMFILTER_TYPE_BLOOM ? d.params.bloom.layout :
			 d.type == MEMFILTER_TYPE_WINDOW ? d.params.window.gen.layout :
			 d.params.grow.sub0.layout;
		EXPECT_EQ(MEMFILTER_BLOOM_LINE64, layout);
		ASSERT_EQ(0, mf_offline_from_image(img, len, &f, NULL)) TH_LOG("%s", path);
		ASSERT_EQ(0, mf_offline_image(f, &img2, &len2));
		/* Window images carry ages, which move: compare the rest. */
		if (d.type != MEMFILTER_TYPE_WINDOW) {
			ASSERT_EQ(len, len2);
			EXPECT_EQ(0, memcmp(img, img2, len)) TH_LOG("%s", path);
		}
		EXPECT_EQ(imgs[i].hits8, mf_offline_query(f, k8, 8, 200000, NULL, NULL))
			TH_LOG("%s", path);
		EXPECT_EQ(imgs[i].hits_text, mf_offline_queryv(f, text, lens, 1300, NULL, NULL))
			TH_LOG("%s", path);
		mf_offline_free(f);
		free(img2);
		free(img);
	}
	free(k8);
}

TEST_HARNESS_MAIN
