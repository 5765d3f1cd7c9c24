/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small JSON writer for memfilterctl, modelled on iproute2's and
 * bpftool's json_writer: callers say what comes next (object, array,
 * member name, value) and the writer places the separators, escapes
 * strings and indents. Compact ({"a":1,"b":2}) unless pretty.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTERCTL_JSON_WRITER_H
#define _MEMFILTERCTL_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct json_writer;

struct json_writer *jsonw_new(FILE *f, bool pretty);
/* Ends the output with a newline; returns 0, or -1 if a write failed. */
int jsonw_destroy(struct json_writer *jw);

void jsonw_start_object(struct json_writer *jw);
void jsonw_end_object(struct json_writer *jw);
void jsonw_start_array(struct json_writer *jw);
void jsonw_end_array(struct json_writer *jw);
void jsonw_name(struct json_writer *jw, const char *name);

void jsonw_string(struct json_writer *jw, const char *s);
void jsonw_string_len(struct json_writer *jw, const char *s, size_t len);
void jsonw_uint(struct json_writer *jw, uint64_t v);
void jsonw_hex_u64(struct json_writer *jw, uint64_t v);
void jsonw_float(struct json_writer *jw, const char *fmt, double v);
void jsonw_bool(struct json_writer *jw, bool v);

void jsonw_string_field(struct json_writer *jw, const char *name,
			const char *s);
void jsonw_uint_field(struct json_writer *jw, const char *name, uint64_t v);
void jsonw_hex_u64_field(struct json_writer *jw, const char *name,
			 uint64_t v);
void jsonw_float_field(struct json_writer *jw, const char *name,
		       const char *fmt, double v);
void jsonw_bool_field(struct json_writer *jw, const char *name, bool v);

#endif /* _MEMFILTERCTL_JSON_WRITER_H */
