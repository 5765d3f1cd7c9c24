/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A blocklist of address prefixes shaped like the published ones (FireHOL
 * level1, Spamhaus DROP and DROPv6): a few /8 to /12 ranges, many /13 to
 * /24 (most of them /22 to /24), thousands of single IPv4 addresses, and
 * IPv6 /19 to /64 ranges with single /128 addresses; generated from a
 * seed, the same list on every run. Addresses are global unicast
 * (1.0.0.0 to 223.255.255.255 but 10/8 and 127/8; 2000::/3), so a guest
 * can send packets to every one of them. Also: probe addresses inside
 * the listed ranges and outside every one, and the list as a text file
 * of both published formats (FireHOL's "# comment" lines, Spamhaus's
 * "prefix ; SBL id"). Shared by tests/native/prefix_test.c,
 * tests/nf_test.c and tests/bpf_test.c.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MF_PREFIX_LIST_H
#define _MF_PREFIX_LIST_H

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libmemfilter.h"

/* How many prefixes of each family and length the list holds. */
static const struct {
	uint8_t family, length;
	unsigned int count;
} mf_plist_shape[] = {
	{ MF_PREFIX_IPV4, 8, 2 }, { MF_PREFIX_IPV4, 10, 2 },
	{ MF_PREFIX_IPV4, 11, 3 }, { MF_PREFIX_IPV4, 12, 4 },
	{ MF_PREFIX_IPV4, 13, 6 }, { MF_PREFIX_IPV4, 14, 10 },
	{ MF_PREFIX_IPV4, 15, 16 }, { MF_PREFIX_IPV4, 16, 40 },
	{ MF_PREFIX_IPV4, 17, 30 }, { MF_PREFIX_IPV4, 18, 45 },
	{ MF_PREFIX_IPV4, 19, 70 }, { MF_PREFIX_IPV4, 20, 90 },
	{ MF_PREFIX_IPV4, 21, 80 }, { MF_PREFIX_IPV4, 22, 160 },
	{ MF_PREFIX_IPV4, 23, 120 }, { MF_PREFIX_IPV4, 24, 400 },
	{ MF_PREFIX_IPV4, 32, 3000 },
	{ MF_PREFIX_IPV6, 19, 1 }, { MF_PREFIX_IPV6, 24, 2 },
	{ MF_PREFIX_IPV6, 29, 8 }, { MF_PREFIX_IPV6, 32, 40 },
	{ MF_PREFIX_IPV6, 36, 6 }, { MF_PREFIX_IPV6, 40, 8 },
	{ MF_PREFIX_IPV6, 44, 6 }, { MF_PREFIX_IPV6, 48, 60 },
	{ MF_PREFIX_IPV6, 56, 8 }, { MF_PREFIX_IPV6, 64, 20 },
	{ MF_PREFIX_IPV6, 128, 200 },
};

/* Distinct lengths of each family in the list. */
#define MF_PLIST_LENGTHS4	17
#define MF_PLIST_LENGTHS6	11

/* The next number of a reproducible stream (splitmix64) of state @s. */
static inline uint64_t mf_plist_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A random global unicast address of @family at @a. */
static inline void mf_plist_addr(uint64_t *s, uint8_t family, uint8_t *a)
{
	uint64_t r;

	memset(a, 0, 16);
	if (family == MF_PREFIX_IPV4) {
		do {
			r = mf_plist_rand(s);
			a[0] = 1 + r % 223;
		} while (a[0] == 10 || a[0] == 127);
		a[1] = r >> 8;
		a[2] = r >> 16;
		a[3] = r >> 24;
		return;
	}
	r = mf_plist_rand(s);
	memcpy(a, &r, 8);
	r = mf_plist_rand(s);
	memcpy(a + 8, &r, 8);
	a[0] = 0x20 | (a[0] & 0x1f);	/* 2000::/3 */
}

/* Clear the bits of @a past @length (of @bytes bytes). */
static inline void mf_plist_mask(uint8_t *a, unsigned int bytes,
				 unsigned int length)
{
	unsigned int i;

	for (i = 0; i < bytes; i++) {
		if (8 * i >= length)
			a[i] = 0;
		else if (8 * (i + 1) > length)
			a[i] &= 0xff << (8 - length % 8);
	}
}

/* Entries of the list. */
static inline size_t mf_plist_size(void)
{
	size_t i, n = 0;

	for (i = 0; i < sizeof(mf_plist_shape) / sizeof(mf_plist_shape[0]); i++)
		n += mf_plist_shape[i].count;
	return n;
}

/* The list from @seed into @p (mf_plist_size() entries), shuffled. */
static inline size_t mf_plist_make(uint64_t seed, struct mf_prefix *p)
{
	size_t i, j, n = 0;
	unsigned int c;

	for (i = 0; i < sizeof(mf_plist_shape) / sizeof(mf_plist_shape[0]); i++) {
		for (c = 0; c < mf_plist_shape[i].count; c++, n++) {
			memset(&p[n], 0, sizeof(p[n]));
			p[n].family = mf_plist_shape[i].family;
			p[n].length = mf_plist_shape[i].length;
			mf_plist_addr(&seed, p[n].family, p[n].addr);
			mf_plist_mask(p[n].addr, 16, p[n].length);
		}
	}
	for (i = n; i > 1; i--) {
		struct mf_prefix t;

		j = mf_plist_rand(&seed) % i;
		t = p[i - 1];
		p[i - 1] = p[j];
		p[j] = t;
	}
	return n;
}

/* Does prefix @p cover address @a (of its family)? */
static inline bool mf_plist_covers(const struct mf_prefix *p,
				   const struct mf_prefix *a)
{
	uint8_t m[16];

	if (p->family != a->family)
		return false;
	memcpy(m, a->addr, 16);
	mf_plist_mask(m, 16, p->length);
	return !memcmp(m, p->addr, 16);
}

static inline bool mf_plist_covered(const struct mf_prefix *p, size_t n,
				    const struct mf_prefix *a)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (mf_plist_covers(&p[i], a))
			return true;
	return false;
}

/* An address inside @p: its first, its last, or a random one. */
static inline void mf_plist_inside(uint64_t *s, const struct mf_prefix *p,
				   struct mf_prefix *a, int which)
{
	unsigned int bytes = p->family == MF_PREFIX_IPV4 ? 4 : 16, i;
	uint8_t r[16];

	*a = *p;
	a->length = 8 * bytes;
	mf_plist_addr(s, p->family, r);
	if (which == 0)
		memset(r, 0, sizeof(r));
	else if (which == 1)
		memset(r, 0xff, sizeof(r));
	for (i = 0; i < bytes; i++) {
		unsigned int keep = p->length > 8 * i ? p->length - 8 * i : 0;
		uint8_t mask = keep >= 8 ? 0xff : (uint8_t)(0xff << (8 - keep));

		a->addr[i] = (p->addr[i] & mask) | (r[i] & ~mask);
	}
}

/*
 * @n probes into @a: every third one inside a listed range (its first or
 * last address, or a random one), the others random addresses outside
 * every listed range; each family in turn. *@inside counts the former.
 */
static inline void mf_plist_probes(uint64_t seed, const struct mf_prefix *p,
				   size_t np, struct mf_prefix *a, size_t n,
				   size_t *inside)
{
	size_t i;

	*inside = 0;
	for (i = 0; i < n; i++) {
		uint8_t family = i % 2 ? MF_PREFIX_IPV6 : MF_PREFIX_IPV4;

		memset(&a[i], 0, sizeof(a[i]));
		if (i % 3 == 0) {
			size_t k;

			do {
				k = mf_plist_rand(&seed) % np;
			} while (p[k].family != family);
			mf_plist_inside(&seed, &p[k], &a[i], (int)(i / 3 % 3));
			(*inside)++;
			continue;
		}
		a[i].family = family;
		a[i].length = family == MF_PREFIX_IPV4 ? 32 : 128;
		do {
			mf_plist_addr(&seed, family, a[i].addr);
		} while (mf_plist_covered(p, np, &a[i]));
	}
}

/* @p's text: "1.2.3.0/24", a plain address for a /32 or /128. */
static inline void mf_plist_text(const struct mf_prefix *p, char *buf,
				 size_t len)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(p->family == MF_PREFIX_IPV4 ? AF_INET : AF_INET6, p->addr,
		  a, sizeof(a));
	if (p->length == (p->family == MF_PREFIX_IPV4 ? 32 : 128))
		snprintf(buf, len, "%s", a);
	else
		snprintf(buf, len, "%s/%u", a, p->length);
}

/*
 * The list as a file: FireHOL's header of "#" lines, then every entry,
 * the odd ones in Spamhaus's "prefix ; SBLnnnn" form, some with
 * surrounding blanks and CRLF ends. Return: 0, or -1 (errno set).
 */
static inline int mf_plist_write(const char *path, const struct mf_prefix *p,
				 size_t n)
{
	FILE *f = fopen(path, "w");
	char buf[64];
	size_t i;

	if (!f)
		return -1;
	fprintf(f, "#\n# firehol_level1-shaped test list\n#\n# Entries : %zu\n#\n",
		n);
	for (i = 0; i < n; i++) {
		mf_plist_text(&p[i], buf, sizeof(buf));
		if (i % 2)
			fprintf(f, "%s ; SBL%06zu\n", buf, i);
		else if (i % 5 == 0)
			fprintf(f, "  %s\t\r\n", buf);
		else
			fprintf(f, "%s\n", buf);
		if (i % 100 == 0)
			fprintf(f, "\n; a comment line\n");
	}
	return fclose(f) ? -1 : 0;
}

#endif /* _MF_PREFIX_LIST_H */
