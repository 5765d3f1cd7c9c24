// SPDX-License-Identifier: GPL-2.0
/*
 * memfilterctl: address prefixes. The lines of a prefix list (add
 * --prefixes, build --prefixes), the addresses of query --prefixes, and a
 * prefix filter's lengths in info and inspect.
 *
 * A line of a prefix list is a prefix (10.0.0.0/8, 2001:db8::/32) or an
 * address (its /32 or /128); what follows a '#' or ';' is a comment, and
 * blanks around the entry are ignored, so FireHOL's netsets and
 * Spamhaus's DROP lists ("1.2.3.0/24 ; SBL123") load as published. A
 * prefix with an address bit set past its length is refused with its
 * line number: the list is read whole and checked before anything is
 * added.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "memfilterctl.h"

/* The entry of a line: without its comment and surrounding blanks. */
static size_t prefix_entry(const char *line, size_t len, const char **start)
{
	const char *c = memchr(line, '#', len), *s = memchr(line, ';', len);

	if (c)
		len = c - line;
	if (s && (size_t)(s - line) < len)
		len = s - line;
	while (len && (*line == ' ' || *line == '\t')) {
		line++;
		len--;
	}
	while (len && (line[len - 1] == ' ' || line[len - 1] == '\t' ||
		       line[len - 1] == '\r'))
		len--;
	*start = line;
	return len;
}

/* "PATH:LINE: 'ENTRY': WHY". */
static void entry_error(const struct reader *r, uint64_t line, const char *e,
			size_t len, const char *why)
{
	cli_error("%s:%" PRIu64 ": '%.*s': %s", r->path, line, (int)len, e, why);
}

/*
 * The entries of the batch @r holds into @p (room for r->n), @lines[i]
 * the batch index of entry i; blank and comment lines give none.
 * @addrs: lookups, whose entries must be addresses. Return: the number of
 * entries, or -1 after saying which line is wrong.
 */
static ssize_t batch_entries(const struct reader *r, bool addrs,
			     struct mf_prefix *p, size_t *lines)
{
	const char *text = r->text, *e, *why;
	size_t i, len, n = 0;

	for (i = 0; i < r->n; text += r->text_lens[i], i++) {
		uint64_t line = r->lineno - r->n + i + 1;

		len = prefix_entry(text, r->text_lens[i], &e);
		if (!len)
			continue;
		if (mf_prefix_parse(e, len, &p[n], &why)) {
			entry_error(r, line, e, len, why);
			return -1;
		}
		if (addrs && p[n].length != (p[n].family == MF_PREFIX_IPV4 ? 32 : 128)) {
			entry_error(r, line, e, len, "an address, not a prefix, is looked up");
			return -1;
		}
		lines[n++] = i;
	}
	return n;
}

int read_prefixes(struct reader *r, struct mf_prefix **out, size_t *count)
{
	size_t lines[BATCH_LINES], cap = 0, n = 0;
	struct mf_prefix *p = NULL, *q;
	ssize_t got;

	*out = NULL;
	*count = 0;
	while ((got = reader_next(r)) > 0) {
		if (n + r->n > cap) {
			cap = cap ? 2 * cap : 4 * BATCH_LINES;
			while (cap < n + r->n)
				cap *= 2;
			q = realloc(p, cap * sizeof(*p));
			if (!q) {
				progress_done(r);
				cli_error("%s", strerror(ENOMEM));
				goto out_free;
			}
			p = q;
		}
		got = batch_entries(r, false, p + n, lines);
		if (got < 0) {
			progress_done(r);
			goto out_free;
		}
		n += got;
	}
	progress_done(r);
	if (got < 0)
		goto out_free;
	*out = p;
	*count = n;
	return 0;

out_free:
	free(p);
	return -1;
}

/*
 * query --prefixes, one batch: each address entry looked up by the prefix
 * rule, @bits bit i (of the batch's lines) set when line i's address may
 * be covered. *@entries: how many lines held an address. Return: how
 * many may be covered, or -errno (-EINVAL: said why).
 */
ssize_t query_prefix_batch(int fd, const struct mf_offline *off,
			   const struct reader *r, uint64_t *bits,
			   size_t *entries)
{
	struct mf_prefix a[BATCH_LINES];
	uint64_t res[(BATCH_LINES + 63) / 64];
	size_t lines[BATCH_LINES], i;
	ssize_t n, ret;

	memset(bits, 0, (r->n + 63) / 64 * sizeof(*bits));
	n = batch_entries(r, true, a, lines);
	if (n < 0)
		return -EINVAL;
	*entries = n;
	ret = off ? mf_offline_query_addrs(off, a, n, res, NULL) :
		    mf_query_addrs(fd, a, n, res, NULL);
	if (ret < 0)
		return ret;
	for (i = 0; i < (size_t)n; i++)
		if (res[i / 64] >> (i % 64) & 1)
			bits[lines[i] / 64] |= 1ULL << (lines[i] % 64);
	return ret;
}

/* The entries of a query batch that are not lines with an address. */
bool query_prefix_line(const struct reader *r, size_t i, size_t off)
{
	const char *e;

	return prefix_entry(r->text + off, r->text_lens[i], &e) != 0;
}

static void lengths_text(const char *what, unsigned int n, const uint8_t *len,
			 double fpr)
{
	unsigned int j;

	printf("%-18s", what);
	if (!n)
		printf("none");
	for (j = 0; j < n; j++)
		printf("%s/%u", j ? " " : "", len[j]);
	printf("\n");
	if (n)
		printf("%-18s%.6g (%u probe%s)\n", "  lookup fpr:", fpr, n,
		       n == 1 ? "" : "s");
}

void prefix_text(const struct mf_prefix_info *pi)
{
	if (!pi->prefix_lengths)
		return;
	printf("%-18sat most %u lengths per family\n", "prefixes:",
	       pi->prefix_lengths);
	lengths_text("ipv4 lengths:", pi->n4, pi->len4, pi->fpr4);
	lengths_text("ipv6 lengths:", pi->n6, pi->len6, pi->fpr6);
}

static void json_lengths(struct json_writer *jw, const char *name,
			 unsigned int n, const uint8_t *len)
{
	unsigned int j;

	jsonw_name(jw, name);
	jsonw_start_array(jw);
	for (j = 0; j < n; j++)
		jsonw_uint(jw, len[j]);
	jsonw_end_array(jw);
}

void json_prefixes(struct json_writer *jw, const struct mf_prefix_info *pi)
{
	jsonw_uint_field(jw, "prefix_lengths", pi->prefix_lengths);
	if (!pi->prefix_lengths)
		return;
	json_lengths(jw, "ipv4_lengths", pi->n4, pi->len4);
	jsonw_float_field(jw, "ipv4_lookup_fpr", "%.9g", pi->fpr4);
	json_lengths(jw, "ipv6_lengths", pi->n6, pi->len6);
	jsonw_float_field(jw, "ipv6_lookup_fpr", "%.9g", pi->fpr6);
}

int prefix_opt(int c, struct mf_create_opts *o)
{
	uint64_t n;

	o->prefixes = true;
	if (c == OPT_PREFIXES)
		return 1;
	if (parse_u64("--prefix-lengths", optarg, 10, &n))
		return -1;
	if (n < 1 || n > MF_PREFIX_LENGTHS_MAX) {
		usage_error("--prefix-lengths must be 1 to %d, not '%s'",
			    MF_PREFIX_LENGTHS_MAX, optarg);
		return -1;
	}
	o->prefix_lengths = n;
	return 1;
}
