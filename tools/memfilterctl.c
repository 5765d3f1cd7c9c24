// SPDX-License-Identifier: GPL-2.0
/*
 * memfilterctl: command-line front end to /dev/memfilter.
 *
 * Creates, fills, queries, describes and removes published filters through
 * libmemfilter. Key input is streamed: a few thousand lines are read, sent
 * to the kernel as one batch, and the buffer is reused, so files of any
 * size are handled in constant memory. Exit status: 0 on success, 1 when
 * a query finds nothing, 2 on any error (usage errors included); every
 * error is one line on stderr.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/memfilter.h>

#include "memfilter.h"

#define EXIT_ERR 2
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* Lines per kernel batch: a few thousand keeps memory small and calls few. */
#define BATCH_LINES 8192
/* Progress bar: regular files above this size, pipes after this many keys. */
#define PROGRESS_FILE_BYTES (1024 * 1024)
#define PROGRESS_PIPE_KEYS 100000
#define PROGRESS_INTERVAL_NS 100000000LL

static const char *prog = "memfilterctl";

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
	const char *help;
};

static const struct command *cur;

static void usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2))); /* no __printf() in userspace */

static void usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s %s: ", prog, cur->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (try '%s %s --help')\n", prog, cur->name);
}

/* "memfilterctl: WHAT: message"; returns the error exit status. */
static int fail(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, mf_strerror(err));
	return EXIT_ERR;
}

static void print_help(void)
{
	printf("usage: %s %s %s\n\n%s", prog, cur->name, cur->usage,
	       cur->help);
}

/*
 * getopt_long() over one command's arguments. Returns the option, -1 at
 * the end, or 0 after reporting a usage error (the caller returns 2).
 */
static int next_opt(int argc, char **argv, const char *shortopts,
		    const struct option *longopts)
{
	int c = getopt_long(argc, argv, shortopts, longopts, NULL);

	if (c == '?') {
		if (optopt)
			usage_error("unknown option '-%c'", optopt);
		else
			usage_error("unknown option '%s'", argv[optind - 1]);
		return 0;
	}
	if (c == ':') {
		usage_error("option '%s' needs an argument", argv[optind - 1]);
		return 0;
	}
	return c;
}

static int parse_u64(const char *opt, const char *s, int base, uint64_t *v)
{
	unsigned long long x;
	char *end;

	errno = 0;
	if (!*s || *s == '-' || *s == '+')
		goto bad;
	x = strtoull(s, &end, base);
	if (errno || *end)
		goto bad;
	*v = x;
	return 0;
bad:
	usage_error("%s: '%s' is not a valid unsigned integer", opt, s);
	return -1;
}

static int parse_double(const char *opt, const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (!*s || errno || *end || !isfinite(*v)) {
		usage_error("%s: '%s' is not a number", opt, s);
		return -1;
	}
	return 0;
}

static bool valid_name(const char *name)
{
	size_t len = strlen(name);

	if (!len || len >= MF_NAME_MAX)
		return false;
	return strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789._-") == len;
}

/* Exactly one NAME and at most @max_files more positional arguments. */
static int positional(int argc, char **argv, int max_extra, const char **name,
		      const char **extra)
{
	int n = argc - optind;

	if (n < 1) {
		usage_error("missing filter NAME");
		return -1;
	}
	if (n > 1 + max_extra) {
		usage_error("unexpected argument '%s'", argv[optind + 1 + max_extra]);
		return -1;
	}
	*name = argv[optind];
	if (extra)
		*extra = n > 1 ? argv[optind + 1] : NULL;
	if (!valid_name(*name)) {
		usage_error("invalid filter name '%s' (1-%d characters of "
			    "A-Z a-z 0-9 . _ -)", *name, MF_NAME_MAX - 1);
		return -1;
	}
	return 0;
}

static int open_device(void)
{
	int fd = mf_open_device();

	if (fd == -ENOENT || fd == -ENXIO || fd == -ENODEV)
		fprintf(stderr, "%s: %s: no such device (is memfilter.ko loaded?)\n",
			prog, MF_DEVICE_PATH);
	else if (fd < 0)
		fail(MF_DEVICE_PATH, fd);
	return fd;
}

/* A published filter's fd, or a negative value after reporting why. */
static int open_filter(const char *name)
{
	int dev = open_device(), fd;

	if (dev < 0)
		return dev;
	fd = mf_open(dev, name);
	close(dev);
	if (fd < 0)
		fail(name, fd);
	return fd;
}

/* ---- streaming key input ------------------------------------------------ */

struct progress {
	bool tty;		/* stderr is a terminal */
	bool shown;		/* something is drawn */
	off_t total;		/* bytes of a regular file, 0 for a stream */
	struct timespec last;
};

/*
 * One batch of keys read from a file or stdin. @text holds the lines as
 * read (printed back by query), @keys what is sent to the kernel: the
 * lines themselves, or their decoded bytes with --hex.
 */
struct reader {
	FILE *f;
	const char *path;
	bool hex;
	uint64_t lineno;
	uint64_t keys_read;
	char *line;
	size_t line_cap;

	size_t n;
	char *text;
	size_t text_len, text_cap;
	uint32_t *text_lens;
	unsigned char *keys;	/* == text unless hex */
	size_t keys_len, keys_cap;
	uint32_t *key_lens;	/* == text_lens unless hex */

	struct progress prog;
};

static void reader_free(struct reader *r)
{
	if (r->f && r->f != stdin)
		fclose(r->f);
	free(r->line);
	free(r->text);
	free(r->text_lens);
	if (r->hex) {
		free(r->keys);
		free(r->key_lens);
	}
	memset(r, 0, sizeof(*r));
}

static int reader_open(struct reader *r, const char *path, bool hex)
{
	struct stat st;

	memset(r, 0, sizeof(*r));
	r->hex = hex;
	if (!path || !strcmp(path, "-")) {
		r->f = stdin;
		r->path = "<stdin>";
	} else {
		r->f = fopen(path, "r");
		r->path = path;
		if (!r->f) {
			fprintf(stderr, "%s: %s: %s\n", prog, path,
				strerror(errno));
			return -1;
		}
	}
	r->text_lens = malloc(BATCH_LINES * sizeof(*r->text_lens));
	r->key_lens = hex ? malloc(BATCH_LINES * sizeof(*r->key_lens)) :
			    r->text_lens;
	if (!r->text_lens || !r->key_lens)
		goto out_nomem;
	r->prog.tty = isatty(STDERR_FILENO);
	if (r->prog.tty && !fstat(fileno(r->f), &st) && S_ISREG(st.st_mode))
		r->prog.total = st.st_size;
	return 0;
out_nomem:
	fprintf(stderr, "%s: %s\n", prog, strerror(ENOMEM));
	reader_free(r);
	return -1;
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

static int reader_error(struct reader *r, const char *msg)
{
	fprintf(stderr, "%s: %s:%" PRIu64 ": %s\n", prog, r->path, r->lineno,
		msg);
	return -1;
}

/* Append one line (without its newline) to the batch. */
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
		if (len % 2)
			return reader_error(r, "odd number of hex digits");
		if (grow(&r->keys, &r->keys_cap, r->keys_len + klen + 1))
			return reader_error(r, strerror(ENOMEM));
		k = r->keys + r->keys_len;
		for (i = 0; i < klen; i++) {
			int hi = hexval(line[2 * i]), lo = hexval(line[2 * i + 1]);

			if (hi < 0 || lo < 0)
				return reader_error(r, "invalid hex digit");
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

static void progress_done(struct reader *r)
{
	if (r->prog.shown)
		fputs("\r\033[K", stderr);
	r->prog.shown = false;
}

/* Read the next batch. Return: keys in it (0 at the end), or -1. */
static ssize_t reader_next(struct reader *r)
{
	ssize_t len;

	r->n = 0;
	r->text_len = 0;
	r->keys_len = 0;
	while (r->n < BATCH_LINES) {
		errno = 0;
		len = getline(&r->line, &r->line_cap, r->f);
		if (len < 0)
			break;
		r->lineno++;
		if (len && r->line[len - 1] == '\n')
			len--;
		if (reader_push(r, r->line, len))
			return -1;
	}
	if (ferror(r->f)) {
		fprintf(stderr, "%s: %s: %s\n", prog, r->path,
			strerror(errno ? errno : EIO));
		return -1;
	}
	if (!r->hex)
		r->keys = (unsigned char *)r->text;
	r->keys_read += r->n;
	progress_update(r);
	return r->n;
}

/* ---- images ------------------------------------------------------------- */

/* All of @path ("-" or NULL: stdin) into one allocation. */
static int read_all(const char *path, unsigned char **buf, size_t *len)
{
	FILE *f = stdin;
	size_t cap = 65536, n = 0, got;
	unsigned char *b = malloc(cap), *nb;

	*buf = NULL;
	if (path && strcmp(path, "-")) {
		f = fopen(path, "rb");
		if (!f) {
			fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
			free(b);
			return -1;
		}
	}
	if (!b)
		goto out_nomem;
	for (;;) {
		if (n == cap) {
			nb = realloc(b, cap * 2);
			if (!nb)
				goto out_nomem;
			b = nb;
			cap *= 2;
		}
		got = fread(b + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "%s: %s: %s\n", prog, path ? path : "<stdin>",
			strerror(errno ? errno : EIO));
		goto out_free;
	}
	if (f != stdin)
		fclose(f);
	*buf = b;
	*len = n;
	return 0;
out_nomem:
	fprintf(stderr, "%s: %s\n", prog, strerror(ENOMEM));
out_free:
	free(b);
	if (f != stdin)
		fclose(f);
	return -1;
}

static const char *image_path(const char *path)
{
	return !path || !strcmp(path, "-") ? "<stdin>" : path;
}

/* "memfilterctl: PATH: corrupt filter image: WHY" for a refused image. */
static int image_error(const char *path, int err, const char *why)
{
	if (err == -EBADMSG)
		fprintf(stderr, "%s: %s: corrupt filter image: %s\n", prog,
			image_path(path), why ? why : "invalid");
	else if (err == -EOPNOTSUPP)
		fprintf(stderr, "%s: %s: unsupported filter image: %s\n", prog,
			image_path(path), why ? why : "unknown format");
	else
		fail(image_path(path), err);
	return EXIT_ERR;
}

/* Parse the image in file @path (checked) into an offline filter. */
static struct mf_offline *open_image(const char *path)
{
	struct mf_offline *f;
	unsigned char *img;
	const char *why;
	size_t len;
	int ret;

	if (read_all(path, &img, &len))
		return NULL;
	ret = mf_offline_from_image(img, len, &f, &why);
	explicit_bzero(img, len);
	free(img);
	if (ret) {
		image_error(path, ret, why);
		return NULL;
	}
	return f;
}

static bool image_keyed(const unsigned char *img, size_t len)
{
	const struct memfilter_image_header *h = (const void *)img;

	return len >= sizeof(*h) &&
	       (le32toh(h->flags) & MEMFILTER_IMAGE_SECRET);
}

/*
 * Write an image to stdout, never to a terminal. A keyed image holds the
 * filter's secret: warn when stdout is a file others may read.
 */
static int write_image(const void *img, size_t len)
{
	struct stat st;

	if (isatty(STDOUT_FILENO)) {
		fprintf(stderr,
			"%s: refusing to write a binary image to a terminal (redirect stdout to a file)\n",
			prog);
		return EXIT_ERR;
	}
	if (image_keyed(img, len) && !fstat(STDOUT_FILENO, &st) &&
	    S_ISREG(st.st_mode) && (st.st_mode & 077))
		fprintf(stderr,
			"%s: warning: the image holds the filter's secret key, but stdout is a file of mode %04o: make it 0600 (umask 077)\n",
			prog, (unsigned int)(st.st_mode & 07777));
	if (fwrite(img, 1, len, stdout) != len || fflush(stdout)) {
		fprintf(stderr, "%s: stdout: %s\n", prog, strerror(errno));
		return EXIT_ERR;
	}
	return 0;
}

/* ---- commands ----------------------------------------------------------- */

static const char *type_name(int type)
{
	switch (type) {
	case MF_TYPE_BLOOM:
		return "bloom";
	case MF_TYPE_CUCKOO:
		return "cuckoo";
	default:
		return "unknown";
	}
}

/* Options shared by create and build: the filter's parameters. */
#define FILTER_OPTS \
	{ "type", required_argument, NULL, 't' }, \
	{ "capacity", required_argument, NULL, 'c' }, \
	{ "fpr", required_argument, NULL, 'p' }, \
	{ "bits-per-key", required_argument, NULL, 'b' }, \
	{ "fingerprint-bits", required_argument, NULL, 'f' }, \
	{ "keyed", no_argument, NULL, 'k' }, \
	{ "seed", required_argument, NULL, 's' }
#define FILTER_SHORTOPTS "t:c:p:b:f:ks:"

/* One filter option into @o. Return: 1 taken, 0 not ours, -1 bad. */
static int filter_opt(int c, struct mf_create_opts *o)
{
	uint64_t fp = 0;

	switch (c) {
	case 't':
		if (!strcmp(optarg, "bloom")) {
			o->type = MF_TYPE_BLOOM;
		} else if (!strcmp(optarg, "cuckoo")) {
			o->type = MF_TYPE_CUCKOO;
		} else {
			usage_error("--type must be bloom or cuckoo, not '%s'",
				    optarg);
			return -1;
		}
		return 1;
	case 'c':
		return parse_u64("--capacity", optarg, 10, &o->capacity) ? -1 : 1;
	case 'p':
		if (parse_double("--fpr", optarg, &o->fpr))
			return -1;
		if (!(o->fpr > 0 && o->fpr < 1)) {
			usage_error("--fpr must be a fraction between 0 and 1 "
				    "(0.01 for 1%%), not '%s'", optarg);
			return -1;
		}
		return 1;
	case 'b':
		if (parse_double("--bits-per-key", optarg, &o->bits_per_key))
			return -1;
		if (!(o->bits_per_key >= 0.25)) {
			usage_error("--bits-per-key must be at least 0.25, not '%s'",
				    optarg);
			return -1;
		}
		return 1;
	case 'f':
		if (parse_u64("--fingerprint-bits", optarg, 10, &fp))
			return -1;
		if (fp != 8 && fp != 12 && fp != 16) {
			usage_error("--fingerprint-bits must be 8, 12 or 16");
			return -1;
		}
		o->fingerprint_bits = fp;
		return 1;
	case 'k':
		o->keyed = true;
		return 1;
	case 's':
		if (parse_u64("--seed", optarg, 0, &o->seed))
			return -1;
		o->fixed_seed = true;
		return 1;
	default:
		return 0;
	}
}

/* Check the filter options as a whole and fill in the defaults. */
static int filter_opts_finish(struct mf_create_opts *o)
{
	if (!o->type) {
		usage_error("--type bloom|cuckoo is required");
		return -1;
	}
	if (!o->capacity) {
		usage_error("--capacity N (N >= 1) is required");
		return -1;
	}
	if (o->fpr != 0 && o->bits_per_key != 0) {
		usage_error("--fpr and --bits-per-key exclude each other");
		return -1;
	}
	if (o->keyed && o->fixed_seed) {
		usage_error("--keyed and --seed exclude each other");
		return -1;
	}
	if (o->type == MF_TYPE_BLOOM) {
		if (o->fingerprint_bits) {
			usage_error("--fingerprint-bits is for cuckoo filters");
			return -1;
		}
		if (o->fpr == 0 && o->bits_per_key == 0)
			o->fpr = 0.01;
	} else {
		if (o->bits_per_key != 0) {
			usage_error("--bits-per-key is for Bloom filters");
			return -1;
		}
		if (o->fpr == 0 && !o->fingerprint_bits)
			o->fingerprint_bits = 12;
	}
	return 0;
}

static int cmd_create(int argc, char **argv)
{
	static const struct option opts[] = {
		FILTER_OPTS,
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct mf_create_opts o = { 0 };
	const char *name;
	int c, dev, fd;

	while ((c = next_opt(argc, argv, ":" FILTER_SHORTOPTS "h", opts)) != -1) {
		if (c == 'h') {
			print_help();
			return 0;
		}
		if (filter_opt(c, &o) != 1)
			return EXIT_ERR;
	}
	if (positional(argc, argv, 0, &name, NULL))
		return EXIT_ERR;
	if (filter_opts_finish(&o))
		return EXIT_ERR;
	o.name = name;

	dev = open_device();
	if (dev < 0)
		return EXIT_ERR;
	fd = mf_create(dev, &o);
	close(dev);
	if (fd == -EEXIST) {
		fprintf(stderr, "%s: %s: a filter by that name already exists\n",
			prog, name);
		return EXIT_ERR;
	}
	if (fd < 0)
		return fail(name, fd);
	close(fd);
	return 0;
}

enum key_cmd { KEY_ADD, KEY_QUERY, KEY_DEL };

/* Where key commands send their batches: a kernel filter or an image. */
struct target {
	int fd;
	struct mf_offline *off;
};

static ssize_t run_batch(enum key_cmd kc, const struct target *t,
			 struct reader *r, uint64_t *bits, size_t *done)
{
	if (t->off) {
		switch (kc) {
		case KEY_ADD:
			return mf_offline_addv(t->off, r->keys, r->key_lens,
					       r->n, NULL, done);
		case KEY_QUERY:
			return mf_offline_queryv(t->off, r->keys, r->key_lens,
						 r->n, bits, done);
		default:
			return mf_offline_deletev(t->off, r->keys, r->key_lens,
						  r->n, NULL, done);
		}
	}
	switch (kc) {
	case KEY_ADD:
		return mf_addv(t->fd, r->keys, r->key_lens, r->n, NULL, done);
	case KEY_QUERY:
		return mf_queryv(t->fd, r->keys, r->key_lens, r->n, bits, done);
	default:
		return mf_deletev(t->fd, r->keys, r->key_lens, r->n, NULL, done);
	}
}

/* Print the lines of the batch whose bit is set, as read. */
static void print_hits(const struct reader *r, const uint64_t *bits)
{
	size_t i, off = 0;

	for (i = 0; i < r->n; off += r->text_lens[i], i++) {
		if (!(bits[i / 64] >> (i % 64) & 1))
			continue;
		fwrite(r->text + off, 1, r->text_lens[i], stdout);
		putchar('\n');
	}
}

static int key_command(enum key_cmd kc, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "hex", no_argument, NULL, 'x' },
		{ "count", no_argument, NULL, 'c' },
		{ "image", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *shortopts = kc == KEY_QUERY ? ":xci:h" : ":xh";
	uint64_t bits[(BATCH_LINES + 63) / 64];
	bool hex = false, count_only = false;
	const char *name, *path, *image = NULL;
	struct target t = { .fd = -1 };
	struct mf_info info;
	struct reader r;
	uint64_t total = 0;
	int c, ret = EXIT_ERR;
	ssize_t n, got;
	size_t done;

	while ((c = next_opt(argc, argv, shortopts, opts)) != -1) {
		switch (c) {
		case 'x':
			hex = true;
			break;
		case 'c':
			if (kc != KEY_QUERY) {
				usage_error("unknown option '--count'");
				return EXIT_ERR;
			}
			count_only = true;
			break;
		case 'i':
			image = optarg;
			break;
		case 'h':
			print_help();
			return 0;
		default:
			return EXIT_ERR;
		}
	}
	if (image) {
		if (argc - optind > 1) {
			usage_error("unexpected argument '%s'", argv[optind + 1]);
			return EXIT_ERR;
		}
		name = image;
		path = optind < argc ? argv[optind] : NULL;
		t.off = open_image(image);
		if (!t.off)
			return EXIT_ERR;
	} else {
		if (positional(argc, argv, 1, &name, &path))
			return EXIT_ERR;
		t.fd = open_filter(name);
		if (t.fd < 0)
			return EXIT_ERR;
	}
	if (kc == KEY_DEL) {
		got = mf_info(t.fd, &info);
		if (got) {
			fail(name, got);
			goto out_close;
		}
		if (info.type != MF_TYPE_CUCKOO) {
			fprintf(stderr,
				"%s: %s: del needs a cuckoo filter; %s filters cannot delete\n",
				prog, name, type_name(info.type));
			goto out_close;
		}
	}
	if (reader_open(&r, path, hex))
		goto out_close;
	while ((n = reader_next(&r)) > 0) {
		got = run_batch(kc, &t, &r, bits, &done);
		if (got < 0) {
			progress_done(&r);
			if (got == -ENOSPC)
				fprintf(stderr, "%s: %s: filter is full after %" PRIu64
					" keys were added (%s:%" PRIu64 " not added)\n",
					prog, name, total + done, r.path,
					r.lineno - r.n + done + 1);
			else
				fail(name, got);
			goto out_reader;
		}
		total += got;
		if (kc == KEY_QUERY && !count_only)
			print_hits(&r, bits);
	}
	progress_done(&r);
	if (n < 0)
		goto out_reader;
	if (kc != KEY_QUERY || count_only)
		printf("%" PRIu64 "\n", total);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: stdout: %s\n", prog, strerror(errno));
		goto out_reader;
	}
	ret = kc == KEY_QUERY && !total ? 1 : 0;
out_reader:
	reader_free(&r);
out_close:
	if (t.fd >= 0)
		close(t.fd);
	mf_offline_free(t.off);
	return ret;
}

static int cmd_add(int argc, char **argv)
{
	return key_command(KEY_ADD, argc, argv);
}

static int cmd_query(int argc, char **argv)
{
	return key_command(KEY_QUERY, argc, argv);
}

static int cmd_del(int argc, char **argv)
{
	return key_command(KEY_DEL, argc, argv);
}

/* Parse the options of a command whose only option is --json. */
static int json_opt(int argc, char **argv, bool *json)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c;

	while ((c = next_opt(argc, argv, ":jh", opts)) != -1) {
		switch (c) {
		case 'j':
			*json = true;
			break;
		case 'h':
			print_help();
			return 0;
		default:
			return EXIT_ERR;
		}
	}
	return -1;
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

/* The JSON members info and inspect share, in the same order. */
static void json_params(const struct mf_info *i)
{
	printf("  \"type\": \"%s\",\n", type_name(i->type));
	printf("  \"hash\": \"%s\",\n",
	       i->hash_algo == MF_HASH_SIPHASH24 ? "siphash24" : "xxh64");
	printf("  \"keyed\": %s,\n", i->keyed ? "true" : "false");
	printf("  \"seed\": %" PRIu64 ",\n", i->seed);
	printf("  \"capacity\": %" PRIu64 ",\n", i->capacity);
	printf("  \"bits_per_key\": %.2f,\n", i->bits_per_key);
	printf("  \"k\": %u,\n", i->k);
	printf("  \"fingerprint_bits\": %u,\n", i->fingerprint_bits);
}

static void json_fill(const struct mf_info *i)
{
	printf("  \"keys\": %" PRIu64 ",\n", i->keys);
	printf("  \"fill\": %" PRIu64 ",\n", i->fill);
	printf("  \"fill_max\": %" PRIu64 ",\n", i->fill_max);
	printf("  \"est_fpr\": %.9g,\n", i->est_fpr);
	printf("  \"overfill\": %s,\n", i->overfill ? "true" : "false");
}

static void info_json(const struct mf_info *i)
{
	printf("{\n  \"name\": ");
	json_string(i->name);
	printf(",\n");
	json_params(i);
	printf("  \"bytes\": %" PRIu64 ",\n", i->bytes);
	json_fill(i);
	printf("  \"published\": %s,\n", i->published ? "true" : "false");
	printf("  \"adds\": %" PRIu64 ",\n", i->adds);
	printf("  \"queries\": %" PRIu64 ",\n", i->queries);
	printf("  \"hits\": %" PRIu64 ",\n", i->hits);
	printf("  \"deletes\": %" PRIu64 ",\n", i->deletes);
	printf("  \"failed\": %" PRIu64 ",\n", i->failed);
	printf("  \"stash_used\": %u\n}\n", i->stash_used);
}

static void info_text(const struct mf_info *i)
{
	const char *unit = i->type == MF_TYPE_BLOOM ? "bits" : "slots";
	double pct = i->fill_max ? 100.0 * i->fill / i->fill_max : 0;

#define ROW "%-18s"
	printf(ROW "%s\n", "name:", i->name[0] ? i->name : "-");
	printf(ROW "%s\n", "type:", type_name(i->type));
	if (i->keyed)
		printf(ROW "siphash-2-4 (keyed, secret key)\n", "hash:");
	else
		printf(ROW "xxh64, seed 0x%016" PRIx64 "\n", "hash:", i->seed);
	printf(ROW "%" PRIu64 " keys\n", "capacity:", i->capacity);
	if (i->type == MF_TYPE_BLOOM) {
		printf(ROW "%.2f\n", "bits per key:", i->bits_per_key);
		printf(ROW "%u\n", "probes per key:", i->k);
	} else {
		printf(ROW "%u\n", "fingerprint bits:", i->fingerprint_bits);
		printf(ROW "%u\n", "slots per bucket:", i->k);
	}
	printf(ROW "%" PRIu64 "\n", "bytes:", i->bytes);
	printf(ROW "%" PRIu64 "\n", "keys:", i->keys);
	printf(ROW "%" PRIu64 " / %" PRIu64 " %s (%.2f%%)\n", "fill:", i->fill,
	       i->fill_max, unit, pct);
	printf(ROW "%.6g\n", "estimated fpr:", i->est_fpr);
	printf(ROW "%s\n", "overfill:",
	       i->overfill ? "yes (more keys than capacity)" : "no");
	printf(ROW "%" PRIu64 "\n", "adds:", i->adds);
	printf(ROW "%" PRIu64 "\n", "queries:", i->queries);
	printf(ROW "%" PRIu64 "\n", "hits:", i->hits);
	if (i->type == MF_TYPE_CUCKOO) {
		printf(ROW "%" PRIu64 "\n", "deletes:", i->deletes);
		printf(ROW "%" PRIu64 "\n", "failed adds:", i->failed);
		printf(ROW "%u\n", "stash used:", i->stash_used);
	}
#undef ROW
}

static int cmd_info(int argc, char **argv)
{
	struct mf_info info;
	const char *name;
	bool json = false;
	int fd, ret;

	ret = json_opt(argc, argv, &json);
	if (ret >= 0)
		return ret;
	if (positional(argc, argv, 0, &name, NULL))
		return EXIT_ERR;
	fd = open_filter(name);
	if (fd < 0)
		return EXIT_ERR;
	ret = mf_info(fd, &info);
	close(fd);
	if (ret)
		return fail(name, ret);
	if (json)
		info_json(&info);
	else
		info_text(&info);
	return 0;
}

static int cmd_list(int argc, char **argv)
{
	bool json = false;
	char **names;
	ssize_t i, n;
	int dev, ret;

	ret = json_opt(argc, argv, &json);
	if (ret >= 0)
		return ret;
	if (optind < argc) {
		usage_error("unexpected argument '%s'", argv[optind]);
		return EXIT_ERR;
	}
	dev = open_device();
	if (dev < 0)
		return EXIT_ERR;
	n = mf_list(dev, &names);
	close(dev);
	if (n < 0)
		return fail("list", n);
	if (json)
		putchar('[');
	for (i = 0; i < n; i++) {
		if (json) {
			printf(i ? ", " : "");
			json_string(names[i]);
		} else {
			printf("%s\n", names[i]);
		}
	}
	if (json)
		printf("]\n");
	free(names);
	return 0;
}

static int cmd_rm(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *name;
	int c, fd, ret;

	while ((c = next_opt(argc, argv, ":h", opts)) != -1) {
		if (c != 'h')
			return EXIT_ERR;
		print_help();
		return 0;
	}
	if (positional(argc, argv, 0, &name, NULL))
		return EXIT_ERR;
	fd = open_filter(name);
	if (fd < 0)
		return EXIT_ERR;
	ret = mf_unpublish(fd);
	close(fd);
	return ret ? fail(name, ret) : 0;
}

static int cmd_version(int argc, char **argv)
{
	static const struct {
		uint64_t bit;
		const char *name;
	} feats[] = {
		{ MEMFILTER_FEAT_HASH_XXH64, "hash-xxh64" },
		{ MEMFILTER_FEAT_HASH_SIPHASH, "hash-siphash24" },
		{ MEMFILTER_FEAT_BLOOM, "bloom" },
		{ MEMFILTER_FEAT_CUCKOO, "cuckoo" },
		{ MEMFILTER_FEAT_NAMES, "names" },
		{ MEMFILTER_FEAT_IMAGES, "images" },
	};
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct mf_api_info info;
	int c, fd, ret;
	size_t i;

	while ((c = next_opt(argc, argv, ":h", opts)) != -1) {
		if (c != 'h')
			return EXIT_ERR;
		print_help();
		return 0;
	}
	if (optind < argc) {
		usage_error("unexpected argument '%s'", argv[optind]);
		return EXIT_ERR;
	}
	printf("memfilterctl ABI version %u\n", MEMFILTER_API_VERSION);
	fd = open_device();
	if (fd < 0)
		return EXIT_ERR;
	ret = mf_api(fd, &info);
	close(fd);
	if (ret)
		return fail("handshake", ret);
	printf("kernel ABI version %u\nfeatures:", info.api_version);
	for (i = 0; i < ARRAY_SIZE(feats); i++)
		if (info.features & feats[i].bit)
			printf(" %s", feats[i].name);
	printf("\n");
	return 0;
}

static int cmd_build(int argc, char **argv)
{
	static const struct option opts[] = {
		FILTER_OPTS,
		{ "hex", no_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct mf_create_opts o = { 0 };
	struct mf_offline *f = NULL;
	const char *path = NULL;
	int c, ret = EXIT_ERR;
	bool hex = false;
	uint64_t total = 0;
	struct reader r;
	size_t len, done;
	void *img;
	ssize_t n, got;

	while ((c = next_opt(argc, argv, ":" FILTER_SHORTOPTS "xh", opts)) != -1) {
		if (c == 'h') {
			print_help();
			return 0;
		}
		if (c == 'x') {
			hex = true;
			continue;
		}
		if (filter_opt(c, &o) != 1)
			return EXIT_ERR;
	}
	if (argc - optind > 1) {
		usage_error("unexpected argument '%s'", argv[optind + 1]);
		return EXIT_ERR;
	}
	if (optind < argc)
		path = argv[optind];
	if (filter_opts_finish(&o))
		return EXIT_ERR;
	if (isatty(STDOUT_FILENO)) {
		usage_error("the image goes to stdout: redirect it to a file");
		return EXIT_ERR;
	}
	got = mf_offline_create(&o, &f);
	if (got)
		return fail("build", got);
	if (reader_open(&r, path, hex))
		goto out_free;
	while ((n = reader_next(&r)) > 0) {
		got = mf_offline_addv(f, r.keys, r.key_lens, r.n, NULL, &done);
		if (got < 0) {
			progress_done(&r);
			if (got == -ENOSPC)
				fprintf(stderr, "%s: build: filter is full after %" PRIu64
					" keys were added (%s:%" PRIu64 " not added)\n",
					prog, total + done, r.path,
					r.lineno - r.n + done + 1);
			else
				fail("build", got);
			goto out_reader;
		}
		total += got;
	}
	progress_done(&r);
	if (n < 0)
		goto out_reader;
	got = mf_offline_image(f, &img, &len);
	if (got) {
		fail("build", got);
		goto out_reader;
	}
	ret = write_image(img, len);
	explicit_bzero(img, len);
	free(img);
out_reader:
	reader_free(&r);
out_free:
	mf_offline_free(f);
	return ret;
}

/* Parse a command whose only option is --help. */
static int help_opt(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c;

	while ((c = next_opt(argc, argv, ":h", opts)) != -1) {
		if (c != 'h')
			return EXIT_ERR;
		print_help();
		return 0;
	}
	return -1;
}

static int cmd_dump(int argc, char **argv)
{
	const char *name;
	size_t len;
	void *img;
	int fd, ret;

	ret = help_opt(argc, argv);
	if (ret >= 0)
		return ret;
	if (positional(argc, argv, 0, &name, NULL))
		return EXIT_ERR;
	if (isatty(STDOUT_FILENO)) {
		usage_error("the image goes to stdout: redirect it to a file");
		return EXIT_ERR;
	}
	fd = open_filter(name);
	if (fd < 0)
		return EXIT_ERR;
	ret = mf_dump(fd, &img, &len);
	close(fd);
	if (ret == -EPERM) {
		fprintf(stderr,
			"%s: %s: dumping a keyed filter (its secret key) needs CAP_SYS_ADMIN\n",
			prog, name);
		return EXIT_ERR;
	}
	if (ret)
		return fail(name, ret);
	ret = write_image(img, len);
	explicit_bzero(img, len);
	free(img);
	return ret;
}

static int cmd_load(int argc, char **argv)
{
	struct mf_offline *f;
	unsigned char *img;
	const char *name, *why = NULL;
	int dev, fd, ret;
	size_t len;

	ret = help_opt(argc, argv);
	if (ret >= 0)
		return ret;
	if (positional(argc, argv, 0, &name, NULL))
		return EXIT_ERR;
	if (isatty(STDIN_FILENO)) {
		usage_error("the image is read from stdin: redirect it from a file");
		return EXIT_ERR;
	}
	if (read_all(NULL, &img, &len))
		return EXIT_ERR;
	dev = open_device();
	if (dev < 0) {
		ret = EXIT_ERR;
		goto out_free;
	}
	fd = mf_load(dev, img, len, name);
	close(dev);
	if (fd >= 0) {
		close(fd);
		ret = 0;
	} else if (fd == -EBADMSG || fd == -EOPNOTSUPP) {
		/* The kernel says only the errno; the same checks here say why. */
		if (mf_offline_from_image(img, len, &f, &why) == 0) {
			mf_offline_free(f);
			why = NULL;
		}
		ret = image_error(NULL, fd, why);
	} else if (fd == -EEXIST) {
		fprintf(stderr, "%s: %s: a filter by that name already exists\n",
			prog, name);
		ret = EXIT_ERR;
	} else {
		ret = fail(name, fd);
	}
out_free:
	explicit_bzero(img, len);
	free(img);
	return ret;
}

static void inspect_text(const char *path, const struct mf_info *i,
			 const struct memfilter_image_header *h)
{
	bool bloom = i->type == MF_TYPE_BLOOM;
	double pct = i->fill_max ? 100.0 * i->fill / i->fill_max : 0;

#define ROW "%-18s"
	printf(ROW "%s\n", "image:", path);
	printf(ROW "memfilter image version %u, %u-byte header\n", "format:",
	       le16toh(h->version), le16toh(h->header_size));
	printf(ROW "%s\n", "type:", type_name(i->type));
	if (i->keyed)
		printf(ROW "siphash-2-4 (keyed: the image holds the secret key)\n",
		       "hash:");
	else
		printf(ROW "xxh64, seed 0x%016" PRIx64 "\n", "hash:", i->seed);
	printf(ROW "%" PRIu64 " keys\n", "capacity:", i->capacity);
	if (bloom) {
		printf(ROW "%.2f\n", "bits per key:", i->bits_per_key);
		printf(ROW "%u\n", "probes per key:", i->k);
		printf(ROW "%" PRIu64 " blocks of 64 bytes\n", "geometry:",
		       (uint64_t)le64toh(h->geometry));
	} else {
		printf(ROW "%u\n", "fingerprint bits:", i->fingerprint_bits);
		printf(ROW "%u\n", "slots per bucket:", i->k);
		printf(ROW "%" PRIu64 " buckets\n", "geometry:",
		       (uint64_t)le64toh(h->geometry));
	}
	printf(ROW "%" PRIu64 "\n", "payload bytes:",
	       (uint64_t)le64toh(h->payload_size));
	printf(ROW "%" PRIu64 "\n", "keys:", i->keys);
	printf(ROW "%" PRIu64 " / %" PRIu64 " %s (%.2f%%)\n", "fill:", i->fill,
	       i->fill_max, bloom ? "bits" : "slots", pct);
	printf(ROW "%.6g\n", "estimated fpr:", i->est_fpr);
	printf(ROW "%s\n", "overfill:",
	       i->overfill ? "yes (more keys than capacity)" : "no");
	if (!bloom)
		printf(ROW "%u\n", "stash used:", i->stash_used);
	printf(ROW "ok (header 0x%016" PRIx64 ", payload 0x%016" PRIx64 ")\n",
	       "checksums:", (uint64_t)le64toh(h->header_xxh64),
	       (uint64_t)le64toh(h->payload_xxh64));
#undef ROW
}

static void inspect_json(const char *path, const struct mf_info *i,
			 const struct memfilter_image_header *h)
{
	printf("{\n  \"image\": ");
	json_string(path);
	printf(",\n  \"version\": %u,\n", le16toh(h->version));
	json_params(i);
	printf("  \"geometry\": %" PRIu64 ",\n", (uint64_t)le64toh(h->geometry));
	printf("  \"payload_bytes\": %" PRIu64 ",\n",
	       (uint64_t)le64toh(h->payload_size));
	json_fill(i);
	printf("  \"stash_used\": %u,\n", i->stash_used);
	printf("  \"header_xxh64\": \"0x%016" PRIx64 "\",\n",
	       (uint64_t)le64toh(h->header_xxh64));
	printf("  \"payload_xxh64\": \"0x%016" PRIx64 "\",\n",
	       (uint64_t)le64toh(h->payload_xxh64));
	printf("  \"checksums\": \"ok\"\n}\n");
}

static int cmd_inspect(int argc, char **argv)
{
	struct memfilter_image_header h;
	struct mf_offline *f;
	const char *path, *why;
	unsigned char *img;
	struct mf_info info;
	bool json = false;
	size_t len;
	int ret;

	ret = json_opt(argc, argv, &json);
	if (ret >= 0)
		return ret;
	if (argc - optind != 1) {
		usage_error(argc - optind ? "unexpected argument '%s'" :
			    "missing image FILE%s", argc - optind ?
			    argv[optind + 1] : "");
		return EXIT_ERR;
	}
	path = argv[optind];
	if (read_all(path, &img, &len))
		return EXIT_ERR;
	ret = mf_offline_from_image(img, len, &f, &why);
	if (ret) {
		ret = image_error(path, ret, why);
		goto out_free;
	}
	memcpy(&h, img, sizeof(h));
	mf_offline_info(f, &info);
	mf_offline_free(f);
	if (json)
		inspect_json(image_path(path), &info, &h);
	else
		inspect_text(image_path(path), &info, &h);
	explicit_bzero(&h, sizeof(h));
	ret = 0;
out_free:
	explicit_bzero(img, len);
	free(img);
	return ret;
}

static int cmd_merge(int argc, char **argv)
{
	unsigned char *img[2] = { NULL, NULL };
	size_t len[2], out_len;
	struct mf_offline *f;
	const char *why;
	void *out;
	int i, ret = EXIT_ERR;

	ret = help_opt(argc, argv);
	if (ret >= 0)
		return ret;
	ret = EXIT_ERR;
	if (argc - optind != 2) {
		usage_error("want two image files A.img B.img");
		return EXIT_ERR;
	}
	if (isatty(STDOUT_FILENO)) {
		usage_error("the image goes to stdout: redirect it to a file");
		return EXIT_ERR;
	}
	for (i = 0; i < 2; i++) {
		if (read_all(argv[optind + i], &img[i], &len[i]))
			goto out_free;
		/* Check each alone first, to name the one that is bad. */
		ret = mf_offline_from_image(img[i], len[i], &f, &why);
		if (ret) {
			ret = image_error(argv[optind + i], ret, why);
			goto out_free;
		}
		mf_offline_free(f);
	}
	ret = mf_image_merge(img[0], len[0], img[1], len[1], &out, &out_len,
			     &why);
	if (ret == -EINVAL) {
		fprintf(stderr, "%s: merge: cannot merge %s and %s: %s\n", prog,
			argv[optind], argv[optind + 1], why);
		ret = EXIT_ERR;
		goto out_free;
	}
	if (ret) {
		ret = fail("merge", ret);
		goto out_free;
	}
	ret = write_image(out, out_len);
	explicit_bzero(out, out_len);
	free(out);
out_free:
	for (i = 0; i < 2; i++) {
		if (img[i])
			explicit_bzero(img[i], len[i]);
		free(img[i]);
	}
	return ret;
}

static const struct command commands[] = {
	{ "create", cmd_create,
	  "NAME --type bloom|cuckoo --capacity N [OPTIONS]",
	  "Create a filter and publish it as NAME (needs CAP_SYS_ADMIN).\n\n"
	  "  -t, --type T              bloom or cuckoo (required)\n"
	  "  -c, --capacity N          number of keys it is designed for (required)\n"
	  "  -p, --fpr P               target false-positive rate as a fraction\n"
	  "                            (0.01 = 1%; Bloom default 0.01)\n"
	  "  -b, --bits-per-key B      Bloom: table bits per key instead of --fpr\n"
	  "  -f, --fingerprint-bits F  cuckoo: 8, 12 or 16 (default 12 without --fpr)\n"
	  "  -k, --keyed               hash with SipHash-2-4 under a secret key\n"
	  "                            (keys chosen by an adversary)\n"
	  "  -s, --seed S              fixed XXH64 seed (reproducible tables)\n" },
	{ "add", cmd_add, "NAME [FILE|-] [--hex]",
	  "Add one key per line of FILE (default: standard input); the line\n"
	  "without its newline is the key. Prints how many keys were added.\n\n"
	  "  -x, --hex    keys are given as hex digits (binary keys)\n" },
	{ "query", cmd_query,
	  "NAME [FILE|-] [--hex] [--count]\n       memfilterctl query --image F.img [FILE|-] [--hex] [--count]",
	  "Print each key of FILE (one per line) that may be in the filter.\n"
	  "Exit status: 0 if any may be present, 1 if none, 2 on error.\n\n"
	  "  -x, --hex          keys are given as hex digits\n"
	  "  -c, --count        print only the number of keys that may be present\n"
	  "  -i, --image F.img  query an image file offline instead of a filter\n" },
	{ "del", cmd_del, "NAME [FILE|-] [--hex]",
	  "Delete one key per line from a cuckoo filter. Prints how many were\n"
	  "found and removed. Delete only keys that were added.\n\n"
	  "  -x, --hex    keys are given as hex digits\n" },
	{ "info", cmd_info, "NAME [--json]",
	  "Show a filter's parameters, fill, estimated false-positive rate and\n"
	  "counters.\n\n"
	  "  -j, --json   as a JSON object\n" },
	{ "list", cmd_list, "[--json]",
	  "List the names of the published filters, one per line.\n\n"
	  "  -j, --json   as a JSON array of strings\n" },
	{ "rm", cmd_rm, "NAME",
	  "Unpublish NAME (needs CAP_SYS_ADMIN). The filter is freed when its\n"
	  "last reference (an open fd, an in-kernel user) goes away.\n" },
	{ "build", cmd_build,
	  "--type bloom|cuckoo --capacity N [OPTIONS] [FILE|-] > F.img",
	  "Build a filter offline (no device needed) from one key per line of\n"
	  "FILE (default: standard input) and write its image to stdout. The\n"
	  "image loads with 'load' and answers exactly as the filter built here.\n"
	  "A --keyed image holds the filter's secret key: write it only to a\n"
	  "file of mode 0600 (a warning says when stdout is readable by others).\n\n"
	  "  -t, --type T              bloom or cuckoo (required)\n"
	  "  -c, --capacity N          number of keys it is designed for (required)\n"
	  "  -p, --fpr P               target false-positive rate (Bloom default 0.01)\n"
	  "  -b, --bits-per-key B      Bloom: table bits per key instead of --fpr\n"
	  "  -f, --fingerprint-bits F  cuckoo: 8, 12 or 16 (default 12 without --fpr)\n"
	  "  -k, --keyed               SipHash-2-4 under a secret key from getrandom()\n"
	  "  -s, --seed S              fixed XXH64 seed (reproducible images)\n"
	  "  -x, --hex                 keys are given as hex digits\n" },
	{ "dump", cmd_dump, "NAME > F.img",
	  "Write the image of filter NAME (a consistent snapshot) to stdout.\n"
	  "Dumping a keyed filter needs CAP_SYS_ADMIN; its image holds the\n"
	  "secret key (see build).\n" },
	{ "load", cmd_load, "NAME < F.img",
	  "Read an image from stdin, make a filter of it in the kernel and\n"
	  "publish it as NAME (needs CAP_SYS_ADMIN). A corrupt or unsupported\n"
	  "image is refused and nothing is created.\n" },
	{ "inspect", cmd_inspect, "F.img [--json]",
	  "Check an image (header and payload checksums, every field) and show\n"
	  "its parameters, fill and estimated false-positive rate. Exit status\n"
	  "2 with the reason when the image is corrupt or unsupported.\n\n"
	  "  -j, --json   as a JSON object\n" },
	{ "merge", cmd_merge, "A.img B.img > C.img",
	  "Write the union of two Bloom filter images: a filter that holds the\n"
	  "keys of both. Only images of the same table size, probes per key,\n"
	  "hash algorithm and seed or secret key can be merged (anything else\n"
	  "would place a key's bits differently and lose keys); the key count\n"
	  "of C is the sum of A's and B's.\n" },
	{ "version", cmd_version, "",
	  "Open " MF_DEVICE_PATH ", do the ABI handshake, print this tool's and\n"
	  "the kernel's ABI version and the kernel's features.\n" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: %s COMMAND [ARGS]\n\ncommands:\n", prog);
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].usage);
	fprintf(f, "  help     this text\n\n"
		"'%s COMMAND --help' describes a command. Exit status: 0 on\n"
		"success, 1 when query finds no key, 2 on error.\n", prog);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return EXIT_ERR;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		cur = &commands[i];
		opterr = 0;
		optind = 1;
		return cur->fn(argc - 1, argv + 1);
	}
	fprintf(stderr, "%s: unknown command '%s' (try '%s help')\n", prog,
		argv[1], prog);
	return EXIT_ERR;
}
