// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * libmemfilter's address prefixes: reading "10.0.0.0/8", adding prefixes
 * to a filter in the kernel (MEMFILTER_IOC_ADD_PREFIXES) and looking
 * addresses up in it by the kernel's rule (core/prefix.h), and the
 * prefix lengths a filter reports. The offline twins are in offline.c.
 *
 * Conventions in this file: a live lookup reads the filter's lengths
 * once (INFO) and queries, for each address, its key at every length of
 * its family, through core/prefix.h's walk and key, the very code the
 * kernel's lookup runs; an address is covered when any of its keys may
 * be present, which is the kernel's answer (it only stops at the first).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "prefix.h"

_Static_assert(sizeof(struct mf_prefix) == sizeof(struct memfilter_prefix),
	       "struct mf_prefix is struct memfilter_prefix");
_Static_assert(offsetof(struct mf_prefix, addr) ==
	       offsetof(struct memfilter_prefix, addr), "address offset");
_Static_assert(MF_PREFIX_IPV4 == MEMFILTER_PREFIX_IPV4 &&
	       MF_PREFIX_IPV6 == MEMFILTER_PREFIX_IPV6, "families");
_Static_assert(MF_PREFIX_LENGTHS_MAX == MEMFILTER_PREFIX_LENGTHS_MAX &&
	       MF_PREFIX_LENGTHS_DEFAULT == MEMFILTER_PREFIX_LENGTHS_DEFAULT,
	       "most lengths");

/* Addresses looked up per QUERY: each gives up to 32 keys. */
#define MF_ADDRS_CHUNK 256

static int mf_refuse(const char **why, const char *w)
{
	if (why)
		*why = w;
	return -EINVAL;
}

int mf_prefix_parse(const char *text, size_t len, struct mf_prefix *p,
		    const char **why)
{
	char buf[MF_PREFIX_TEXT_MAX + 1], *slash;
	unsigned long length;
	const char *c;
	u32 alen;

	if (why)
		*why = NULL;
	if (!p)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	if (!text || len > MF_PREFIX_TEXT_MAX)
		return mf_refuse(why, "not an IPv4 or IPv6 address or prefix");
	memcpy(buf, text, len);
	buf[len] = '\0';
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	if (inet_pton(AF_INET, buf, p->addr) == 1)
		p->family = MF_PREFIX_IPV4;
	else if (inet_pton(AF_INET6, buf, p->addr) == 1)
		p->family = MF_PREFIX_IPV6;
	else
		return mf_refuse(why, "not an IPv4 or IPv6 address or prefix");
	alen = memfilter_prefix_addr_len(p->family);
	length = 8 * alen;
	if (slash) {
		c = slash + 1;
		if (!*c || strlen(c) > 3)
			return mf_refuse(why, "the prefix length is not a number");
		for (length = 0; *c; c++) {
			if (*c < '0' || *c > '9')
				return mf_refuse(why, "the prefix length is not a number");
			length = length * 10 + (unsigned long)(*c - '0');
		}
		if (length > 8 * alen)
			return mf_refuse(why, alen == 4 ?
					 "the prefix length is over 32" :
					 "the prefix length is over 128");
	}
	p->length = length;
	if (memfilter_prefix_check((const struct memfilter_prefix *)p))
		return mf_refuse(why, "an address bit is set past the prefix length");
	return 0;
}

ssize_t mf_add_prefixes(int fd, const struct mf_prefix *p, size_t n,
			uint64_t *results, size_t *done)
{
	return libmf_keys_ioctl(fd, MEMFILTER_IOC_ADD_PREFIXES, p,
				sizeof(*p), NULL, n, results, done);
}

int libmf_addrs_check(const struct mf_prefix *addrs, size_t n)
{
	const struct memfilter_prefix *a = (const void *)addrs;
	size_t i;

	if (n && !addrs)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (memfilter_prefix_check(&a[i]) ||
		    a[i].length != 8 * memfilter_prefix_addr_len(a[i].family))
			return -EINVAL;
	return 0;
}

/*
 * The keys a lookup of @a tests, in its order, appended at @keys + *@off
 * with their lengths at @lens + *@nk: the address itself in a filter of
 * keys, else its key at each length @px holds of its family.
 */
static void mf_addr_keys(const struct memfilter_prefixes *px,
			 const struct mf_prefix *a, u8 *keys, size_t *off,
			 uint32_t *lens, size_t *nk)
{
	u32 alen = memfilter_prefix_addr_len(a->family);
	struct memfilter_prefix_iter it;
	int length;

	if (!px->max) {
		memcpy(keys + *off, a->addr, alen);
		*off += alen;
		lens[(*nk)++] = alen;
		return;
	}
	if (!memfilter_prefix_iter_init(&it, px, alen))
		return;		/* not an address: libmf_addrs_check() said so */
	while ((length = memfilter_prefix_next(&it, px)) >= 0) {
		lens[*nk] = memfilter_prefix_key(keys + *off, a->addr, alen,
						 length);
		*off += lens[(*nk)++];
	}
}

/* One chunk of a live lookup: @n addresses' keys in one query. */
static ssize_t mf_query_chunk(int fd, const struct memfilter_prefixes *px,
			      const struct mf_prefix *addrs, size_t n,
			      u8 *keys, uint32_t *lens, uint64_t *bits,
			      uint64_t *results, size_t base)
{
	u8 per[MF_ADDRS_CHUNK];
	size_t i, j, off = 0, nk = 0, before;
	ssize_t ret, hits = 0;
	bool hit;

	for (i = 0; i < n; i++) {
		before = nk;
		mf_addr_keys(px, &addrs[i], keys, &off, lens, &nk);
		per[i] = nk - before;
	}
	ret = mf_queryv(fd, keys, lens, nk, bits, NULL);
	if (ret < 0)
		return ret;
	for (i = 0, j = 0; i < n; i++) {
		for (hit = false, before = j; j < before + per[i]; j++)
			hit |= bits[j / 64] >> (j % 64) & 1;
		hits += hit;
		if (hit && results)
			results[(base + i) / 64] |= 1ULL << ((base + i) % 64);
	}
	return hits;
}

/* A filter's lengths, as INFO reports them. */
static int mf_prefixes_of(const struct memfilter_info *i,
			  struct memfilter_prefixes *px)
{
	u64 set[MEMFILTER_PREFIX_WORDS];
	u32 w;

	for (w = 0; w < MEMFILTER_PREFIX_WORDS; w++)
		set[w] = i->prefixes[w];
	return memfilter_prefixes_init(px, i->prefix_lengths, set) ? -EIO : 0;
}

ssize_t mf_query_addrs(int fd, const struct mf_prefix *addrs, size_t n,
		       uint64_t *results, size_t *done)
{
	const size_t maxk = MF_ADDRS_CHUNK * MF_PREFIX_LENGTHS_MAX;
	struct memfilter_prefixes px;
	struct memfilter_info i;
	uint64_t *bits = NULL;
	uint32_t *lens = NULL;
	size_t off = 0, m;
	ssize_t ret, hits = 0;
	u8 *keys = NULL;

	ret = libmf_addrs_check(addrs, n);
	if (ret || !n)
		goto out;
	ret = libmf_info(fd, &i);
	if (!ret)
		ret = mf_prefixes_of(&i, &px);
	if (ret)
		goto out;
	if (results)
		memset(results, 0, (n + 63) / 64 * sizeof(*results));
	keys = malloc(maxk * MEMFILTER_PREFIX_KEY_MAX);
	lens = malloc(maxk * sizeof(*lens));
	bits = malloc((maxk + 63) / 64 * sizeof(*bits));
	if (!keys || !lens || !bits) {
		ret = -ENOMEM;
		goto out;
	}
	for (; off < n; off += m) {
		m = n - off < MF_ADDRS_CHUNK ? n - off : MF_ADDRS_CHUNK;
		ret = mf_query_chunk(fd, &px, addrs + off, m, keys, lens, bits,
				     results, off);
		if (ret < 0)
			goto out;
		hits += ret;
	}
	ret = hits;
out:
	free(keys);
	free(lens);
	free(bits);
	if (done)
		*done = ret < 0 ? off : n;
	return ret;
}

int libmf_decode_prefix_info(const struct memfilter_info *i,
			     struct mf_prefix_info *pi)
{
	struct memfilter_prefixes px;
	int ret = mf_prefixes_of(i, &px);

	if (ret)
		return ret;
	memset((char *)pi + sizeof(pi->sz), 0, sizeof(*pi) - sizeof(pi->sz));
	pi->prefix_lengths = px.max;
	pi->n4 = memfilter_prefixes_lengths(&px, 4, pi->len4);
	pi->n6 = memfilter_prefixes_lengths(&px, 16, pi->len6);
	pi->fpr4 = i->prefix_fpr4_ppb / 1e9;
	pi->fpr6 = i->prefix_fpr6_ppb / 1e9;
	return 0;
}

int mf_prefix_info(int fd, struct mf_prefix_info *pi)
{
	struct memfilter_info i;
	int ret = pi ? libmf_opts_check(pi, pi->sz, sizeof(*pi)) : -EINVAL;

	if (!ret)
		ret = libmf_info(fd, &i);
	return ret ? ret : libmf_decode_prefix_info(&i, pi);
}
