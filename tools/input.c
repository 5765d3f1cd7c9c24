// SPDX-License-Identifier: GPL-2.0
/*
 * memfilterctl: streaming key input. Keys are read one per line from a
 * file or stdin (or taken from --key arguments), a few thousand at a time,
 * sent to the filter as one batch, and the buffers are reused, so files of
 * any size are handled in constant memory. A line's key is the line
 * without its newline; a CR before the newline (a CRLF file) is stripped
 * too. With --hex a line is the key's bytes as hex digits.
 *
 * Lines are read through one 64 KiB buffer and never further than the
 * key limit (MF_KEY_MAX bytes, twice that in hex digits, and the CR): a
 * longer line is an error as soon as that much of it has been read,
 * whatever its length. So is every read error and failed allocation:
 * each stops the command with exit status 2 and names the line, never
 * ends the input early.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memfilterctl.h"

/* The read buffer: larger than the longest line taken (reader_line()). */
#define READ_BYTES 65536

/* Progress bar: regular files above this size, pipes after this many keys. */
#define PROGRESS_FILE_BYTES (1024 * 1024)
#define PROGRESS_PIPE_KEYS 100000
#define PROGRESS_INTERVAL_NS 100000000LL

void reader_free(struct reader *r)
{
	if (r->f && r->f != stdin)
		fclose(r->f);
	free(r->buf);
	free(r->text);
	free(r->text_lens);
	if (r->hex) {
		free(r->keys);
		free(r->key_lens);
	}
	memset(r, 0, sizeof(*r));
}

static int reader_alloc(struct reader *r, bool hex)
{
	r->hex = hex;
	r->text_lens = malloc(BATCH_LINES * sizeof(*r->text_lens));
	r->key_lens = hex ? malloc(BATCH_LINES * sizeof(*r->key_lens)) :
			    r->text_lens;
	if (r->f)
		r->buf = malloc(READ_BYTES);
	if (r->text_lens && r->key_lens && (r->buf || !r->f))
		return 0;
	cli_error("%s", strerror(ENOMEM));
	reader_free(r);
	return -1;
}

/* Keys from the file @path ("-" or NULL: stdin). */
int reader_open(struct reader *r, const char *path, bool hex)
{
	struct stat st;

	memset(r, 0, sizeof(*r));
	if (empty_path("FILE", path))
		return -1;
	if (!path || !strcmp(path, "-")) {
		r->f = stdin;
		r->path = "<stdin>";
	} else {
		r->f = fopen(path, "r");
		r->path = path;
		if (!r->f) {
			cli_error("%s: %s", path, strerror(errno));
			return -1;
		}
		if (!fstat(fileno(r->f), &st) && S_ISDIR(st.st_mode)) {
			cli_error("%s: %s", path, strerror(EISDIR));
			fclose(r->f);
			r->f = NULL;
			return -1;
		}
	}
	if (reader_alloc(r, hex))
		return -1;
	r->prog.tty = isatty(STDERR_FILENO);
	if (r->prog.tty && !fstat(fileno(r->f), &st) && S_ISREG(st.st_mode))
		r->prog.total = st.st_size;
	return 0;
}

/* Keys given as arguments (--key K ...), one key each. */
int reader_open_args(struct reader *r, char **args, size_t n, bool hex)
{
	memset(r, 0, sizeof(*r));
	r->path = "--key";
	r->args = args;
	r->nargs = n;
	return reader_alloc(r, hex);
}

static int grow(void *bufp, size_t *cap, size_t need)
{
	void **buf = bufp;
	size_t c = *cap ? *cap : 65536;
	void *p;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	p = realloc(*buf, c);
	if (!p)
		return -1;
	*buf = p;
	*cap = c;
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* "PATH:LINE: MSG" for line (or --key argument) @line. */
static int reader_error_at(struct reader *r, uint64_t line, const char *msg)
{
	progress_done(r);
	cli_error("%s:%" PRIu64 ": %s", r->path, line, msg);
	return -1;
}

static int reader_error(struct reader *r, const char *msg)
{
	return reader_error_at(r, r->lineno, msg);
}

/* Append one line (without its line end) to the batch. */
static int reader_push(struct reader *r, const char *line, size_t len)
{
	size_t klen = r->hex ? len / 2 : len, i;
	unsigned char *k;

	if (klen > MF_KEY_MAX)
		return reader_error(r, "key longer than 4096 bytes");
	if (grow(&r->text, &r->text_cap, r->text_len + len + 1))
		return reader_error(r, strerror(ENOMEM));
	memcpy(r->text + r->text_len, line, len);
	r->text_len += len;
	r->text_lens[r->n] = len;
	if (r->hex) {
		/* What is not a digit first: "ab cd" has a space, not 5 digits. */
		for (i = 0; i < len && hexval(line[i]) >= 0; i++)
			;
		if (i < len) {
			char msg[64];
			unsigned char c = line[i];

			snprintf(msg, sizeof(msg), c >= ' ' && c < 0x7f ?
				 "invalid hex digit '%c' at column %zu" :
				 "invalid hex digit (byte 0x%02x) at column %zu",
				 c, i + 1);
			return reader_error(r, msg);
		}
		if (len % 2)
			return reader_error(r, "odd number of hex digits");
		if (grow(&r->keys, &r->keys_cap, r->keys_len + klen + 1))
			return reader_error(r, strerror(ENOMEM));
		k = r->keys + r->keys_len;
		for (i = 0; i < klen; i++) {
			int hi = hexval(line[2 * i]), lo = hexval(line[2 * i + 1]);

			k[i] = hi << 4 | lo;
		}
		r->keys_len += klen;
		r->key_lens[r->n] = klen;
	}
	r->n++;
	return 0;
}

static long long ns_since(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000000000LL + (b->tv_nsec - a->tv_nsec);
}

static void progress_update(struct reader *r)
{
	struct progress *p = &r->prog;
	struct timespec now;
	off_t pos;

	if (!p->tty)
		return;
	if (p->total <= PROGRESS_FILE_BYTES && r->keys_read < PROGRESS_PIPE_KEYS)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (p->shown && ns_since(&p->last, &now) < PROGRESS_INTERVAL_NS)
		return;
	p->last = now;
	p->shown = true;
	pos = p->total ? ftello(r->f) : -1;
	if (pos >= 0 && p->total > 0) {
		int pct = (int)(pos * 100 / p->total), w = 40, fillw = pct * w / 100;

		fprintf(stderr, "\r[%.*s%*s] %3d%%  %" PRIu64 " keys",
			fillw, "########################################",
			w - fillw, "", pct, r->keys_read);
	} else {
		fprintf(stderr, "\r%" PRIu64 " keys", r->keys_read);
	}
}

void progress_done(struct reader *r)
{
	if (r->prog.shown)
		fputs("\r\033[K", stderr);
	r->prog.shown = false;
}

/*
 * More input after the unread bytes, moved to the buffer's start.
 * Return: bytes read, 0 at the end of input, -1 on a read error.
 */
static ssize_t reader_fill(struct reader *r)
{
	size_t left = r->end - r->pos, got;

	memmove(r->buf, r->buf + r->pos, left);
	r->pos = 0;
	r->end = left;
	errno = 0;
	got = fread(r->buf + left, 1, READ_BYTES - left, r->f);
	r->end += got;
	if (!got && ferror(r->f))
		return -1;
	return got;
}

/*
 * The next line of the stream into the batch, read no further than a key
 * can be long (the buffer holds more than that).
 * Return: 1, 0 at EOF, -1.
 */
static int reader_line(struct reader *r)
{
	size_t max = (r->hex ? 2 * MF_KEY_MAX : MF_KEY_MAX) + 1;
	char *line, *nl;
	size_t len;
	ssize_t got;

	while (!(nl = memchr(r->buf + r->pos, '\n', r->end - r->pos))) {
		if (r->end - r->pos > max)
			return reader_error_at(r, r->lineno + 1,
					       "key longer than 4096 bytes");
		if (r->eof)
			break;
		got = reader_fill(r);
		if (got < 0)
			return reader_error_at(r, r->lineno + 1,
					       strerror(errno ? errno : EIO));
		r->eof = !got;
	}
	if (!nl && r->pos == r->end)
		return 0;
	r->lineno++;
	line = r->buf + r->pos;
	len = nl ? (size_t)(nl - line) : r->end - r->pos;
	r->pos += len + !!nl;
	if (len && line[len - 1] == '\r')
		len--;
	return reader_push(r, line, len) ? -1 : 1;
}

/* The next --key argument into the batch. Return: 1, 0 at the end, -1. */
static int reader_arg(struct reader *r)
{
	const char *k;

	if (r->lineno == r->nargs)
		return 0;
	k = r->args[r->lineno++];
	return reader_push(r, k, strlen(k)) ? -1 : 1;
}

/* Read the next batch. Return: keys in it (0 at the end), or -1. */
ssize_t reader_next(struct reader *r)
{
	int ret = 1;

	r->n = 0;
	r->text_len = 0;
	r->keys_len = 0;
	while (r->n < BATCH_LINES) {
		ret = r->f ? reader_line(r) : reader_arg(r);
		if (ret <= 0)
			break;
	}
	if (ret < 0)
		return -1;
	if (!r->hex)
		r->keys = (unsigned char *)r->text;
	r->keys_read += r->n;
	if (r->f)
		progress_update(r);
	return r->n;
}

/*
 * An add that stopped at key @done of the batch, the filter full, with
 * @added keys added in all. When the key is a cuckoo filter's that
 * already holds as many copies as it can (2 buckets of 4 slots and the
 * stash), say so: the filter is full for that key only.
 */
/*
 * A full growing filter: which limit it reached, and what to change.
 * Return: false if it is not a growing filter (nothing said).
 */
static bool grow_full(const char *what, uint64_t added, const char *path,
		      uint64_t line, int fd, const struct mf_offline *off)
{
	MF_OPTS(mf_grow_info, g);
	uint64_t cap = 0, next;
	double rate;
	unsigned int i;

	if (off ? mf_offline_grow_info(off, &g) : mf_grow_info(fd, &g))
		return false;
	for (i = 0; i < g.subfilters && i < 16; i++)
		cap += g.capacity[i];
	if (g.subfilters >= g.max_subs) {
		cli_error("%s: the growing filter is full: its %u sub-filter%s, the most --grow-max allows, hold%s %" PRIu64 " keys; %" PRIu64 " keys were added (%s:%" PRIu64 " not added): raise --grow-max or --grow-factor",
			  what, g.subfilters, g.subfilters == 1 ? "" : "s",
			  g.subfilters == 1 ? "s" : "", cap, added, path, line);
		return true;
	}
	/* Sub-filter i's rate: fpr (1 - ratio) ratio^i (core/grow.c). */
	rate = g.fpr * (1 - g.ratio);
	for (i = 0; i < g.subfilters; i++)
		rate *= g.ratio;
	next = g.subfilters ? g.capacity[g.subfilters - 1] * g.factor : 0;
	if (rate * 1e9 < CLI_BLOOM_FPR_MIN_PPB)
		cli_error("%s: the growing filter is full at %u of at most %u sub-filters, %" PRIu64 " keys: the next would need a false-positive rate of %.3g, below what a Bloom filter reaches (%g); %" PRIu64 " keys were added (%s:%" PRIu64 " not added): raise --fpr or --grow-ratio (rates that fall slower), or --capacity or --grow-factor (more keys in each sub-filter)",
			  what, g.subfilters, g.max_subs, cap, rate,
			  CLI_BLOOM_FPR_MIN_PPB / 1e9, added, path, line);
	else
		cli_error("%s: the growing filter is full at %u of at most %u sub-filters, %" PRIu64 " keys: the next (%" PRIu64 " keys at a rate of %.3g) could not be made (too large, beyond the module's memory limits, or a rate its layout cannot reach); %" PRIu64 " keys were added (%s:%" PRIu64 " not added)",
			  what, g.subfilters, g.max_subs, cap, next, rate,
			  added, path, line);
	return true;
}

void reader_full(const struct reader *r, const char *what, uint64_t added,
		 size_t done, int fd, const struct mf_offline *off)
{
	const unsigned char *key = r->keys;
	uint64_t line = r->lineno - r->n + done + 1;
	uint8_t count = 0;
	ssize_t got;
	size_t i;

	if (grow_full(what, added, r->path, line, fd, off))
		return;
	for (i = 0; i < done; i++)
		key += r->key_lens[i];
	got = off ? mf_offline_countv(off, key, &r->key_lens[done], 1, &count,
				      NULL) :
		    mf_countv(fd, key, &r->key_lens[done], 1, &count, NULL);
	/* A key's copies fill its two buckets (or its one) and the stash. */
	if (got < 0 || count < MF_COUNT_MAX_ONE_BUCKET) {
		cli_error("%s: filter is full after %" PRIu64
			  " keys were added (%s:%" PRIu64 " not added)", what,
			  added, r->path, line);
		return;
	}
	cli_error("%s: the key of %s:%" PRIu64 " is in the filter %u times already: a cuckoo filter stores one key at most %d times (2 buckets of 4 slots, and the stash; %d if its two buckets are one); %" PRIu64 " keys were added%s",
		  what, r->path, line, count, MF_COUNT_MAX,
		  MF_COUNT_MAX_ONE_BUCKET, added,
		  strcmp(cur->name, "add") ? " (give each key once: sort -u)" :
		  " (add --unique adds only keys not yet present)");
}
