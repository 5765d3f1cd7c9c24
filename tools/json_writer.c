// SPDX-License-Identifier: GPL-2.0
/*
 * memfilterctl's JSON writer (json_writer.h), after iproute2's
 * lib/json_writer.c: a stack depth and a "first member" flag per level are
 * all the state there is. Strings are written as JSON wants them:
 * '"', '\\' and control characters escaped, valid UTF-8 passed through, and
 * each byte that is not part of valid UTF-8 (a file name in another
 * encoding, a binary key) written as a lone surrogate \udc80..\udcff, as
 * Python's "surrogateescape" does (PEP 383): the original bytes can be
 * recovered, and tools that want text (jq) show U+FFFD.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json_writer.h"

#define JSONW_INDENT 2

struct json_writer {
	FILE *f;
	bool pretty;
	bool first;		/* no member or element yet at this depth */
	bool named;		/* a member name was just written */
	unsigned int depth;
};

struct json_writer *jsonw_new(FILE *f, bool pretty)
{
	struct json_writer *jw = calloc(1, sizeof(*jw));

	if (!jw)
		return NULL;
	jw->f = f;
	jw->pretty = pretty;
	jw->first = true;
	return jw;
}

int jsonw_destroy(struct json_writer *jw)
{
	int ret;

	putc('\n', jw->f);
	ret = fflush(jw->f) || ferror(jw->f) ? -1 : 0;
	free(jw);
	return ret;
}

static void jsonw_eol(struct json_writer *jw)
{
	if (!jw->pretty)
		return;
	fprintf(jw->f, "\n%*s", jw->depth * JSONW_INDENT, "");
}

/* Before a value or a member name: the separator and the line break. */
static void jsonw_sep(struct json_writer *jw)
{
	if (jw->named) {
		jw->named = false;
		return;
	}
	if (!jw->first)
		putc(',', jw->f);
	if (jw->depth)
		jsonw_eol(jw);
	jw->first = false;
}

static void jsonw_open(struct json_writer *jw, int c)
{
	jsonw_sep(jw);
	putc(c, jw->f);
	jw->depth++;
	jw->first = true;
}

static void jsonw_close(struct json_writer *jw, int c)
{
	bool empty = jw->first;

	jw->depth--;
	if (!empty)
		jsonw_eol(jw);
	putc(c, jw->f);
	jw->first = false;
}

void jsonw_start_object(struct json_writer *jw)
{
	jsonw_open(jw, '{');
}

void jsonw_end_object(struct json_writer *jw)
{
	jsonw_close(jw, '}');
}

void jsonw_start_array(struct json_writer *jw)
{
	jsonw_open(jw, '[');
}

void jsonw_end_array(struct json_writer *jw)
{
	jsonw_close(jw, ']');
}

/* Length of the valid UTF-8 sequence at @s (at most @len bytes), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t len)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	/* No overlong forms, no surrogates, nothing above U+10FFFF. */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (len < n || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

static void jsonw_quoted(struct json_writer *jw, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, n;

	putc('"', jw->f);
	while (i < len) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\') {
			fprintf(jw->f, "\\%c", c);
		} else if (c == '\n') {
			fputs("\\n", jw->f);
		} else if (c == '\t') {
			fputs("\\t", jw->f);
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(jw->f, "\\u%04x", c);
		} else if (c >= 0x80) {
			n = utf8_seq(s + i, len - i);
			if (!n) {
				fprintf(jw->f, "\\udc%02x", c);
				i++;
				continue;
			}
			fwrite(s + i, 1, n, jw->f);
			i += n;
			continue;
		} else {
			putc(c, jw->f);
		}
		i++;
	}
	putc('"', jw->f);
}

void jsonw_name(struct json_writer *jw, const char *name)
{
	jsonw_sep(jw);
	jsonw_quoted(jw, name, strlen(name));
	putc(':', jw->f);
	if (jw->pretty)
		putc(' ', jw->f);
	jw->named = true;
}

void jsonw_string_len(struct json_writer *jw, const char *s, size_t len)
{
	jsonw_sep(jw);
	jsonw_quoted(jw, s, len);
}

void jsonw_string(struct json_writer *jw, const char *s)
{
	jsonw_string_len(jw, s, strlen(s));
}

void jsonw_uint(struct json_writer *jw, uint64_t v)
{
	jsonw_sep(jw);
	fprintf(jw->f, "%" PRIu64, v);
}

/*
 * 64-bit values that must survive exactly (seeds, checksums): JSON numbers
 * are doubles to most readers, exact only up to 2^53.
 */
void jsonw_hex_u64(struct json_writer *jw, uint64_t v)
{
	jsonw_sep(jw);
	fprintf(jw->f, "\"0x%016" PRIx64 "\"", v);
}

/* JSON has no NaN or infinity: they are written as null. */
void jsonw_float(struct json_writer *jw, const char *fmt, double v)
{
	jsonw_sep(jw);
	if (isfinite(v))
		fprintf(jw->f, fmt, v);
	else
		fputs("null", jw->f);
}

void jsonw_bool(struct json_writer *jw, bool v)
{
	jsonw_sep(jw);
	fputs(v ? "true" : "false", jw->f);
}

void jsonw_string_field(struct json_writer *jw, const char *name,
			const char *s)
{
	jsonw_name(jw, name);
	jsonw_string(jw, s);
}

void jsonw_uint_field(struct json_writer *jw, const char *name, uint64_t v)
{
	jsonw_name(jw, name);
	jsonw_uint(jw, v);
}

void jsonw_hex_u64_field(struct json_writer *jw, const char *name,
			 uint64_t v)
{
	jsonw_name(jw, name);
	jsonw_hex_u64(jw, v);
}

void jsonw_float_field(struct json_writer *jw, const char *name,
		       const char *fmt, double v)
{
	jsonw_name(jw, name);
	jsonw_float(jw, fmt, v);
}

void jsonw_bool_field(struct json_writer *jw, const char *name, bool v)
{
	jsonw_name(jw, name);
	jsonw_bool(jw, v);
}
