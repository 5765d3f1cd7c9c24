// SPDX-License-Identifier: GPL-2.0
/*
 * memfilterctl: the commands on filters in the kernel (create, add, query,
 * del, clear, info, list, rm, swap), through /dev/memfilter. query also
 * answers from an image file offline (--image).
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

static const struct option create_opts[] = {
	NEW_FILTER_OPTS,
	{ "replace", no_argument, NULL, OPT_REPLACE },
	{ "help", no_argument, NULL, 'h' },
	{}
};

static int cmd_create(int argc, char **argv)
{
	FILTER_ARGS(fa);
	bool replace = false;
	const char *name;
	int c, dev, fd, ret = 0;

	while ((c = cmd_opt(argc, argv)) != -1) {
		if (c == 'h')
			return print_help();
		if (c == OPT_REPLACE) {
			replace = true;
			continue;
		}
		if (filter_args_opt(c, &fa) != 1)
			return EXIT_ERR;
	}
	if (positional(argc, argv, 0, &name, NULL) || filter_args_finish(&fa))
		return EXIT_ERR;
	/* With --replace, the new filter is made aside and takes NAME after. */
	fa.o.name = replace ? NULL : name;

	dev = open_device();
	if (dev < 0)
		return EXIT_ERR;
	fd = fa.window ? mf_create_window(dev, &fa.o, fa.window) :
	     fa.growing ? mf_create_grow(dev, &fa.o, fa.growing) :
	     mf_create(dev, &fa.o);
	if (fd >= 0 && replace)
		ret = replace_name(dev, name, fd);
	close(dev);
	if (fd == -EEXIST) {
		cli_error("%s: a filter by that name already exists (--replace replaces it)",
			  name);
		return EXIT_ERR;
	}
	if (fd < 0)
		return fail(name, fd);
	close(fd);
	return ret;
}

enum key_cmd { KEY_ADD, KEY_QUERY, KEY_DEL, KEY_SEEN, KEY_COUNT };

/* seen on a cuckoo filter: offline and in the kernel, one message. */
#define SEEN_NEEDS "%s: seen needs a Bloom, window or growing filter (test-and-add); a cuckoo filter cannot tell a new key from a false positive"

/**
 * struct key_opts - what a key command was asked to do
 * @kc: add, query, del, seen or count
 * @hex: keys are hex digits
 * @count: query: print only how many keys answered
 * @invert: query: answer the keys that are certainly absent
 * @unique: add: only keys not already present (cuckoo)
 * @image: this image file instead of a filter (add and seen write it
 *	back, or to @output)
 * @output: add, seen with @image: -o, where the image goes instead
 * @keys: keys from --key, @nkeys of them
 * @prefixes: add: the lines are address prefixes; query: addresses,
 *	looked up by the prefix rule
 */
struct key_opts {
	enum key_cmd kc;
	bool hex, count, invert, unique, prefixes;
	const char *image, *output;
	char **keys;
	size_t nkeys;
};

/* Where key commands send their batches: a kernel filter or an image. */
struct target {
	int fd;
	struct mf_offline *off;
};

/* add --unique in an image (cuckoo): as mf_add_uniquev(). */
static ssize_t offline_add_unique(struct mf_offline *f,
				  const struct reader *r, size_t *done)
{
	MF_OPTS(mf_keys_opts, o, .lens = r->key_lens);
	ssize_t got = mf_offline_keys(f, MF_KEYS_ADD_UNIQUE, r->keys, r->n, &o);

	*done = o.done;
	return got;
}

static ssize_t run_batch(const struct key_opts *ko, const struct target *t,
			 struct reader *r, uint64_t *bits, uint8_t *counts,
			 size_t *done)
{
	if (ko->kc == KEY_COUNT)
		return t->off ? mf_offline_countv(t->off, r->keys, r->key_lens,
						  r->n, counts, done) :
				mf_countv(t->fd, r->keys, r->key_lens, r->n,
					  counts, done);
	if (t->off && ko->kc == KEY_SEEN)
		return mf_offline_test_and_addv(t->off, r->keys, r->key_lens,
						r->n, bits, done);
	if (t->off && ko->kc == KEY_ADD && ko->unique)
		return offline_add_unique(t->off, r, done);
	if (t->off && ko->kc == KEY_ADD)
		return mf_offline_addv(t->off, r->keys, r->key_lens, r->n, NULL,
				       done);
	if (t->off)
		return mf_offline_queryv(t->off, r->keys, r->key_lens, r->n,
					 bits, done);
	switch (ko->kc) {
	case KEY_SEEN:
		return mf_test_and_addv(t->fd, r->keys, r->key_lens, r->n, bits,
					done);
	case KEY_ADD:
		if (ko->unique)
			return mf_add_uniquev(t->fd, r->keys, r->key_lens,
					      r->n, NULL, done);
		return mf_addv(t->fd, r->keys, r->key_lens, r->n, NULL, done);
	case KEY_QUERY:
		return mf_queryv(t->fd, r->keys, r->key_lens, r->n, bits, done);
	default:
		return mf_deletev(t->fd, r->keys, r->key_lens, r->n, NULL, done);
	}
}

/* Print the lines of the batch whose bit is @want, as read. */
static void print_keys(const struct reader *r, const uint64_t *bits,
		       bool want)
{
	size_t i, off = 0;

	for (i = 0; i < r->n; off += r->text_lens[i], i++) {
		if ((bits[i / 64] >> (i % 64) & 1) != want)
			continue;
		fwrite(r->text + off, 1, r->text_lens[i], stdout);
		putchar('\n');
	}
}

/* count: each line of the batch after its count, as read. */
static void print_counts(const struct reader *r, const uint8_t *counts)
{
	size_t i, off = 0;

	for (i = 0; i < r->n; off += r->text_lens[i], i++) {
		printf("%u\t", counts[i]);
		fwrite(r->text + off, 1, r->text_lens[i], stdout);
		putchar('\n');
	}
}

/* The key commands' options: each takes what it uses (KEYS_HELP). */
#define KEY_OPTS \
	{ "hex", no_argument, NULL, 'x' }, \
	{ "key", required_argument, NULL, 'k' }, \
	{ "help", no_argument, NULL, 'h' }
#define KEY_SHORTOPTS ":xk:h"
#define ANSWER_OPTS \
	{ "count", no_argument, NULL, 'n' }, \
	{ "invert", no_argument, NULL, 'v' }
#define ANSWER_SHORTOPTS "nv"
#define IMAGE_OPT { "image", required_argument, NULL, 'i' }
#define PREFIXES_OPT { "prefixes", no_argument, NULL, OPT_PREFIXES }

static const struct option add_opts[] = {
	KEY_OPTS, { "unique", no_argument, NULL, 'u' }, IMAGE_OPT, OUTPUT_OPT,
	PREFIXES_OPT, {}
};

static const struct option query_opts[] = {
	KEY_OPTS, ANSWER_OPTS, IMAGE_OPT, PREFIXES_OPT, {}
};

static const struct option del_opts[] = { KEY_OPTS, {} };

static const struct option count_opts[] = { KEY_OPTS, IMAGE_OPT, {} };

static const struct option seen_opts[] = {
	KEY_OPTS, ANSWER_OPTS, IMAGE_OPT, OUTPUT_OPT, {}
};

static int key_opts_parse(struct key_opts *ko, int argc, char **argv)
{
	int c;

	ko->keys = calloc(argc, sizeof(*ko->keys));
	if (!ko->keys) {
		cli_error("%s", strerror(ENOMEM));
		return EXIT_ERR;
	}
	while ((c = cmd_opt(argc, argv)) != -1) {
		switch (c) {
		case 'x':
			ko->hex = true;
			break;
		case 'k':
			ko->keys[ko->nkeys++] = optarg;
			break;
		case 'n':
			ko->count = true;
			break;
		case 'v':
			ko->invert = true;
			break;
		case 'i':
			ko->image = optarg;
			break;
		case 'o':
			ko->output = optarg;
			break;
		case 'u':
			ko->unique = true;
			break;
		case OPT_PREFIXES:
			ko->prefixes = true;
			break;
		case 'h':
			return print_help();
		default:
			return EXIT_ERR;
		}
	}
	if (ko->prefixes && (ko->hex || ko->unique)) {
		usage_error("--prefixes lists are text, added as prefixes: not with %s",
			    ko->hex ? "--hex" : "--unique");
		return EXIT_ERR;
	}
	return -1;
}

/* The filter (or image) a key command works on, and where its keys are. */
static int key_target(const struct key_opts *ko, int argc, char **argv,
		      struct target *t, const char **name, const char **path)
{
	struct mf_info info;
	int ret;

	if (ko->image) {
		if (argc - optind > 1) {
			usage_error("unexpected argument '%s'", argv[optind + 1]);
			return -1;
		}
		*name = ko->image;
		*path = optind < argc ? argv[optind] : NULL;
	} else if (positional(argc, argv, 1, name, path)) {
		return -1;
	}
	if (*path && ko->nkeys) {
		usage_error("--key and a key FILE exclude each other");
		return -1;
	}
	/* Both on stdin, the image would swallow the keys. */
	if (ko->image && !strcmp(ko->image, "-") && !ko->nkeys &&
	    (!*path || !strcmp(*path, "-"))) {
		usage_error("--image - reads the image from stdin: give the keys as FILE or --key");
		return -1;
	}
	if (ko->image) {
		t->off = open_image(ko->image);
		if (!t->off)
			return -1;
	} else {
		t->fd = open_filter(*name);
		if (t->fd < 0)
			return -1;
	}
	if (ko->kc == KEY_QUERY || (ko->kc == KEY_SEEN && !t->off) ||
	    (ko->kc == KEY_ADD && !ko->unique))
		return 0;
	ret = t->off ? mf_offline_info(t->off, &info) : mf_info(t->fd, &info);
	if (ret) {
		fail(*name, ret);
		return -1;
	}
	if (ko->kc == KEY_SEEN) {
		if (!libmf_type_has(info.type, LIBMF_TYPE_SLOTS))
			return 0;
		cli_error(SEEN_NEEDS, *name);
		return -1;
	}
	if (!libmf_type_has(info.type, LIBMF_TYPE_SLOTS)) {
		cli_error("%s: %s needs a cuckoo filter; %s filters cannot %s",
			  *name, ko->kc == KEY_ADD ? "add --unique" : cur->name,
			  type_name(info.type),
			  ko->kc == KEY_DEL ? "delete" :
			  ko->kc == KEY_COUNT ? "count copies of a key" :
			  "tell a new key from a false positive");
		return -1;
	}
	return 0;
}

/* seen refused by the kernel: a cuckoo filter (not an older module)? */
static bool seen_cuckoo(const struct target *t)
{
	struct mf_info info;

	return !t->off && !mf_info(t->fd, &info) &&
	       libmf_type_has(info.type, LIBMF_TYPE_SLOTS);
}

/*
 * add --prefixes: the whole list read and checked, then added in one call
 * (which checks it whole again, and records its lengths first), to the
 * filter or the image.
 */
static int add_prefixes(const struct target *t, const char *name,
			struct reader *r)
{
	struct mf_prefix *p;
	size_t n, done = 0;
	ssize_t got;

	if (read_prefixes(r, &p, &n))
		return -1;
	got = t->off ? mf_offline_add_prefixes(t->off, p, n, NULL, &done) :
		       mf_add_prefixes(t->fd, p, n, NULL, &done);
	free(p);
	if (got == -EOPNOTSUPP) {
		cli_error("%s: not a prefix filter (create it with --prefixes)", name);
		return -1;
	}
	if (got == -ENOTTY) {
		cli_error("%s: this kernel module has no prefix filters", name);
		return -1;
	}
	if (got == -ENOSPC && !done) {
		cli_error("%s: the list has more prefix lengths of a family than the filter takes (see info; create it with a larger --prefix-lengths)",
			  name);
		return -1;
	}
	if (got == -ENOSPC) {
		cli_error("%s: filter is full after %zu prefixes were added", name,
			  done);
		return -1;
	}
	if (got < 0) {
		fail(name, got);
		return -1;
	}
	printf("%zd\n", got);
	return 0;
}

/* query --prefixes: the lines of the batch, as read, whose bit is @want. */
static void print_addrs(const struct reader *r, const uint64_t *bits, bool want)
{
	size_t i, off = 0;

	for (i = 0; i < r->n; off += r->text_lens[i], i++) {
		if ((bits[i / 64] >> (i % 64) & 1) != want ||
		    !query_prefix_line(r, i, off))
			continue;
		fwrite(r->text + off, 1, r->text_lens[i], stdout);
		putchar('\n');
	}
}

/* query --prefixes: addresses, looked up by the prefix rule. */
static int query_prefixes(const struct key_opts *ko, const struct target *t,
			  const char *name, struct reader *r, uint64_t *answered)
{
	uint64_t bits[(BATCH_LINES + 63) / 64], total = 0, entries = 0;
	size_t e;
	ssize_t n, got;

	while ((n = reader_next(r)) > 0) {
		got = query_prefix_batch(t->fd, t->off, r, bits, &e);
		if (got < 0) {
			progress_done(r);
			if (got != -EINVAL)
				fail(name, got);
			return -1;
		}
		total += got;
		entries += e;
		if (!ko->count)
			print_addrs(r, bits, !ko->invert);
	}
	progress_done(r);
	if (n < 0)
		return -1;
	*answered = ko->invert ? entries - total : total;
	return 0;
}

/* After add: say so when the filter now holds more keys than it is for. */
static int add_overfill_check(const struct target *t, const char *name)
{
	struct mf_info info;
	int ret = t->off ? mf_offline_info(t->off, &info) :
			   mf_info(t->fd, &info);

	if (ret)
		return fail(name, ret);
	if (info.overfill)
		overfill_report(name, &info, false);
	return 0;
}

/*
 * add and seen --image: where the changed image goes (-o, or back to the
 * image itself: only a regular file, replaced once complete), opened
 * before any work. Return: 0 (@out->path NULL when nothing is written),
 * or -1 after saying why.
 */
static int image_out_open(const struct key_opts *ko, struct output *out)
{
	const char *path = ko->output ? ko->output : ko->image;
	struct stat st;

	/* Said before it is taken for the path to write back to. */
	if (empty_path("IMAGE", ko->image))
		return -1;
	if (!ko->image || (ko->kc != KEY_ADD && ko->kc != KEY_SEEN)) {
		if (!ko->output)
			return 0;
		usage_error("-o writes the image that --image changes: only with --image");
		return -1;
	}
	if (!strcmp(path, "-")) {
		usage_error(ko->output ? "-o -: stdout is for %s's output: give -o FILE" :
			    "--image - reads the image from stdin: give -o FILE for the one %s makes",
			    cur->name);
		return -1;
	}
	if (!ko->output && lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		cli_error("%s: is not a regular file: %s --image writes back only to one (give -o FILE)",
			  path, cur->name);
		return -1;
	}
	if (output_open(out, path))
		return -1;
	/* A link to stdout's file (/dev/stdout) is stdout, as -o - is. */
	if (out->kind == OUTPUT_STDOUT) {
		output_abort(out);
		usage_error("-o %s: is stdout, which is for %s's output: give -o FILE",
			    path, cur->name);
		return -1;
	}
	return 0;
}

static int key_command(enum key_cmd kc, int argc, char **argv)
{
	uint64_t bits[(BATCH_LINES + 63) / 64];
	uint8_t counts[BATCH_LINES];
	struct key_opts ko = { .kc = kc };
	struct target t = { .fd = -1 };
	struct output out = { .fd = -1, .dirfd = -1 };
	const char *name, *path = NULL;
	uint64_t total = 0, answered = 0;
	struct reader r;
	int ret;
	ssize_t n, got;
	size_t done;

	ret = key_opts_parse(&ko, argc, argv);
	if (ret >= 0)
		goto out_keys;
	ret = EXIT_ERR;
	if (image_out_open(&ko, &out))
		goto out_keys;
	if (key_target(&ko, argc, argv, &t, &name, &path))
		goto out_close;
	if (ko.nkeys ? reader_open_args(&r, ko.keys, ko.nkeys, ko.hex) :
		       reader_open(&r, path, ko.hex))
		goto out_close;
	if (ko.prefixes && kc == KEY_ADD) {
		if (add_prefixes(&t, name, &r) ||
		    (out.path && (add_overfill_check(&t, name) ||
				  write_offline(cur->name, t.off, &out))) ||
		    stdout_flush() || (!t.off && add_overfill_check(&t, name)))
			goto out_reader;
		ret = 0;
		goto out_reader;
	}
	if (ko.prefixes) {
		if (query_prefixes(&ko, &t, name, &r, &answered))
			goto out_reader;
		if (ko.count)
			printf("%" PRIu64 "\n", answered);
		if (stdout_flush())
			goto out_reader;
		ret = answered ? 0 : EXIT_ABSENT;
		goto out_reader;
	}
	while ((n = reader_next(&r)) > 0) {
		got = run_batch(&ko, &t, &r, bits, counts, &done);
		if (got < 0) {
			progress_done(&r);
			if (got == -ENOSPC)
				reader_full(&r, name, total + done, done, t.fd,
					    t.off);
			else if (got == -EOPNOTSUPP && kc == KEY_SEEN &&
				 seen_cuckoo(&t))
				/* In the kernel: asked when it refuses. */
				cli_error(SEEN_NEEDS, name);
			else
				fail(name, got);
			goto out_reader;
		}
		total += got;
		if ((kc == KEY_QUERY || kc == KEY_SEEN) && !ko.count)
			print_keys(&r, bits, !ko.invert);
		if (kc == KEY_COUNT)
			print_counts(&r, counts);
	}
	progress_done(&r);
	if (n < 0)
		goto out_reader;
	/* The image changed only if every key was: written before the count. */
	if (out.path && (add_overfill_check(&t, name) ||
			 write_offline(cur->name, t.off, &out)))
		goto out_reader;
	/* query -v answers the keys that are certainly absent. */
	answered = ko.invert ? r.keys_read - total : total;
	if ((kc != KEY_QUERY && kc != KEY_SEEN && kc != KEY_COUNT) || ko.count)
		printf("%" PRIu64 "\n", answered);
	if (stdout_flush())
		goto out_reader;
	if (kc == KEY_ADD && !t.off && add_overfill_check(&t, name))
		goto out_reader;
	ret = (kc == KEY_QUERY || kc == KEY_SEEN || kc == KEY_COUNT) &&
	      !answered ? EXIT_ABSENT : 0;
out_reader:
	reader_free(&r);
out_close:
	if (t.fd >= 0)
		close(t.fd);
	mf_offline_free(t.off);
	if (ret && out.path)
		output_abort(&out);
out_keys:
	free(ko.keys);
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

static int cmd_seen(int argc, char **argv)
{
	return key_command(KEY_SEEN, argc, argv);
}

static int cmd_count(int argc, char **argv)
{
	return key_command(KEY_COUNT, argc, argv);
}

/* The filter named by the only argument: its fd, or -1 after saying why. */
static int named_filter(int argc, char **argv, const char **name)
{
	if (positional(argc, argv, 0, name, NULL))
		return -1;
	return open_filter(*name);
}

static void info_text(const struct mf_info *i, int layout, uint32_t pub_id)
{
	bool slots = libmf_type_has(i->type, LIBMF_TYPE_SLOTS);
	const char *unit = slots ? "slots" : "bits";
	double pct = i->fill_max ? 100.0 * i->fill / i->fill_max : 0;

#define ROW "%-18s"
	printf(ROW "%s\n", "name:", i->name[0] ? i->name : "-");
	if (pub_id)
		printf(ROW "%" PRIu32 "\n", "id:", pub_id);
	else
		printf(ROW "-\n", "id:");
	printf(ROW "%s\n", "type:", type_name(i->type));
	if (libmf_type_may_have(i->type, LIBMF_TYPE_LAYOUT))
		printf(ROW "%s\n", "layout:", layout_name(layout));
	if (i->keyed)
		printf(ROW "siphash24 (keyed, secret key)\n", "hash:");
	else
		printf(ROW "%s, seed 0x%016" PRIx64 "\n", "hash:",
		       hash_name(i->hash_algo), i->seed);
	printf(ROW "%" PRIu64 " keys\n", "capacity:", i->capacity);
	if (!libmf_type_has(i->type, LIBMF_TYPE_SLOTS)) {
		printf(ROW "%.2f\n", "bits per key:", i->bits_per_key);
		printf(ROW "%u\n", "probes per key:", i->k);
	} else {
		printf(ROW "%.2f\n", "bits per key:", bits_per_key(i));
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
	if (libmf_type_has(i->type, LIBMF_TYPE_SLOTS)) {
		printf(ROW "%" PRIu64 "\n", "deletes:", i->deletes);
		printf(ROW "%" PRIu64 "\n", "failed adds:", i->failed);
		printf(ROW "%u\n", "stash used:", i->stash_used);
	}
#undef ROW
}

static int cmd_info(int argc, char **argv)
{
	MF_OPTS(mf_window_info, wi);
	MF_OPTS(mf_grow_info, gi);
	MF_OPTS(mf_prefix_info, pi);
	struct json_writer *jw;
	struct mf_info info;
	const char *name;
	uint32_t pub_id;
	int fd, ret, layout = 0;

	ret = json_opt(argc, argv);
	if (ret >= 0)
		return ret;
	fd = named_filter(argc, argv, &name);
	if (fd < 0)
		return EXIT_ERR;
	ret = mf_info(fd, &info);
	if (!ret)
		ret = pub_id_of(fd, &info, &pub_id);
	if (!ret) {
		layout = mf_layout(fd);
		ret = layout < 0 ? layout : 0;
	}
	if (!ret && libmf_type_has(info.type, LIBMF_OPTS_WINDOW))
		ret = mf_window_info(fd, &wi);
	if (!ret && libmf_type_has(info.type, LIBMF_OPTS_GROW))
		ret = mf_grow_info(fd, &gi);
	if (!ret)
		ret = mf_prefix_info(fd, &pi);
	close(fd);
	if (ret)
		return fail(name, ret);
	if (info.overfill)
		overfill_report(name, &info, false);
	if (!json_output) {
		info_text(&info, layout, pub_id);
		prefix_text(&pi);
		if (libmf_type_has(info.type, LIBMF_OPTS_WINDOW))
			window_text(&wi);
		if (libmf_type_has(info.type, LIBMF_OPTS_GROW))
			grow_text(&gi);
		return stdout_flush();
	}
	jw = json_begin();
	if (!jw)
		return EXIT_ERR;
	json_info(jw, &info, layout, pub_id,
		  libmf_type_has(info.type, LIBMF_OPTS_WINDOW) ? &wi : NULL,
		  libmf_type_has(info.type, LIBMF_OPTS_GROW) ? &gi : NULL, &pi);
	return json_end(jw);
}

/*
 * list --json: an array of info objects. A filter unpublished between the
 * list and its open is left out.
 */
static int list_json(int dev, char **names, ssize_t n)
{
	struct json_writer *jw = json_begin();
	MF_OPTS(mf_prefix_info, pi);
	struct mf_info info;
	uint32_t pub_id;
	int fd, ret = 0, layout;
	ssize_t i;

	if (!jw)
		return EXIT_ERR;
	jsonw_start_array(jw);
	for (i = 0; i < n && !ret; i++) {
		fd = mf_open(dev, names[i]);
		if (fd == -ENOENT)
			continue;
		if (fd < 0) {
			ret = fail(names[i], fd);
			break;
		}
		ret = mf_info(fd, &info);
		if (!ret)
			ret = pub_id_of(fd, &info, &pub_id);
		layout = ret ? 0 : mf_layout(fd);
		if (layout < 0)
			ret = layout;
		if (!ret)
			ret = mf_prefix_info(fd, &pi);
		close(fd);
		if (ret)
			ret = fail(names[i], ret);
		else
			json_info(jw, &info, layout, pub_id, NULL, NULL, &pi);
	}
	jsonw_end_array(jw);
	return json_end(jw) ? EXIT_ERR : ret;
}

static int cmd_list(int argc, char **argv)
{
	char **names;
	ssize_t i, n;
	int dev, ret;

	ret = json_opt(argc, argv);
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
	if (n < 0) {
		close(dev);
		return fail("list", n);
	}
	if (json_output) {
		ret = list_json(dev, names, n);
	} else {
		for (i = 0; i < n; i++)
			printf("%s\n", names[i]);
		ret = stdout_flush();
	}
	close(dev);
	free(names);
	return ret;
}

/* @op on the filter named by the one argument left after the options. */
static int name_op(int argc, char **argv, int (*op)(int fd))
{
	const char *name;
	int fd, ret;

	fd = named_filter(argc, argv, &name);
	if (fd < 0)
		return EXIT_ERR;
	ret = op(fd);
	close(fd);
	return ret ? fail(name, ret) : 0;
}

/* A command whose only argument is NAME: @op on the filter's fd. */
static int name_command(int argc, char **argv, int (*op)(int fd))
{
	int ret = help_opt(argc, argv);

	return ret >= 0 ? ret : name_op(argc, argv, op);
}

static int cmd_rm(int argc, char **argv)
{
	return name_command(argc, argv, mf_unpublish);
}

/* swap NAME OTHER: the two published names exchange their filters. */
static int cmd_swap(int argc, char **argv)
{
	const char *name, *other, *missing;
	int dev, fd, ret = help_opt(argc, argv);

	if (ret >= 0)
		return ret;
	if (positional(argc, argv, 1, &name, &other))
		return EXIT_ERR;
	if (!other) {
		usage_error("missing the OTHER filter name");
		return EXIT_ERR;
	}
	if (check_name(other))
		return EXIT_ERR;
	if (!strcmp(name, other)) {
		usage_error("NAME and OTHER are the same name");
		return EXIT_ERR;
	}
	dev = open_device();
	if (dev < 0)
		return EXIT_ERR;
	ret = mf_exchange(dev, name, other);
	if (ret == -ENOENT) {
		/* Say which: the one that does not open now. */
		fd = mf_open(dev, name);
		missing = fd < 0 ? name : other;
		if (fd >= 0)
			close(fd);
		cli_error("%s: no such filter", missing);
	} else if (ret == -ENOTTY) {
		cli_error("this kernel's memfilter cannot swap names (no 'replace' in 'memfilterctl version')");
	} else if (ret == -EOPNOTSUPP) {
		cli_error("%s, %s: a netfilter dedup attachment holds one name, and the other's filter cannot test-and-add (cuckoo): detach it first",
			  name, other);
	} else if (ret) {
		fail(name, ret);
	}
	close(dev);
	return ret ? EXIT_ERR : 0;
}

static int cmd_clear(int argc, char **argv)
{
	return name_command(argc, argv, mf_clear);
}

/* rotate NAME, or rotate --image F.img [-o OUT.img] offline. */
static const struct option rotate_opts[] = {
	IMAGE_OPT,
	OUTPUT_OPT,
	{ "help", no_argument, NULL, 'h' },
	{}
};

static int cmd_rotate(int argc, char **argv)
{
	const char *image = NULL, *out = NULL;
	int c;

	while ((c = cmd_opt(argc, argv)) != -1) {
		if (c == 'h')
			return print_help();
		if (c == 'i')
			image = optarg;
		else if (c == 'o')
			out = optarg;
		else
			return EXIT_ERR;
	}
	if (image) {
		if (optind < argc) {
			usage_error("unexpected argument '%s'", argv[optind]);
			return EXIT_ERR;
		}
		return rotate_image(image, out);
	}
	if (out) {
		usage_error("-o writes a rotated image: only with --image");
		return EXIT_ERR;
	}
	return name_op(argc, argv, mf_rotate);
}

/* add and seen --image: the image changed offline and written back. */
#define IMAGE_WRITE_HELP(what) \
	"  -i, --image F.img  " what " an image file offline instead of a\n" \
	"                     filter, and write it back: F.img must be a regular\n" \
	"                     file, replaced once complete (a failed command\n" \
	"                     leaves it as it was)\n" \
	"  -o, --output FILE  with --image: write the new image to FILE instead\n" \
	"                     (as build -o does)\n"

#define KEYS_HELP \
	"  -k, --key K        the key K (repeatable) instead of reading FILE\n" \
	"  -x, --hex          keys are given as hex digits (binary keys)\n\n" \
	"A key is a line of FILE without its line end, 0 to 4096 bytes (an empty\n" \
	"line is the empty key): a CR before the newline (CRLF files) is not\n" \
	"part of the key. Use --hex for keys that end in CR.\n"

const struct command filter_commands[] = {
	{ .name = "create", .fn = cmd_create,
	  .opts = create_opts,
	  .shortopts = ":" NEW_FILTER_SHORTOPTS "h",
	  .usage = "NAME --type bloom|cuckoo --capacity N [OPTIONS]\n"
	  "       memfilterctl create NAME --window T [--generations G] --capacity N [OPTIONS]\n"
	  "       memfilterctl create NAME --grow --capacity N [--fpr P] [GROW OPTIONS]",
	  .help = "Create a filter and publish it as NAME (needs CAP_SYS_ADMIN).\n\n"
	  FILTER_OPTS_HELP
	  REPLACE_HELP
	  WINDOW_OPTS_HELP
	  GROW_OPTS_HELP },
	{ .name = "add", .fn = cmd_add,
	  .opts = add_opts, .shortopts = KEY_SHORTOPTS "ui:o:",
	  .repeatable = "k",
	  .usage = "NAME [FILE|-|--key K...] [--hex] [--unique] [--prefixes]\n"
	  "       memfilterctl add --image F.img [-o OUT.img] [FILE|-|--key K...] [OPTIONS]",
	  .help = "Add one key per line of FILE (default: standard input). Prints how\n"
	  "many keys were added, and a warning on stderr when the filter now\n"
	  "holds more keys than its capacity (its false-positive rate is then\n"
	  "above its target).\n\n"
	  "  -u, --unique       add only keys that are not already present, and\n"
	  "                     count only those (cuckoo filters)\n"
	  "      --prefixes     the lines are address prefixes (10.0.0.0/8,\n"
	  "                     2001:db8::/32) or addresses, for a filter made\n"
	  "                     with --prefixes; '#' and ';' start comments.\n"
	  "                     The whole list is checked first: a bad line\n"
	  "                     (an address bit set past its length, too many\n"
	  "                     lengths) adds nothing and names its line\n"
	  IMAGE_WRITE_HELP("add to")
	  KEYS_HELP },
	{ .name = "query", .fn = cmd_query,
	  .opts = query_opts,
	  .shortopts = KEY_SHORTOPTS ANSWER_SHORTOPTS "i:", .repeatable = "k",
	  .usage = "NAME [FILE|-|--key K...] [--hex] [--count] [--invert] [--prefixes]\n"
	  "       memfilterctl query --image F.img [FILE|-|--key K...] [OPTIONS]",
	  .help = "Print each key of FILE (one per line) that may be in the filter, in\n"
	  "input order. Exit status: 0 if any key was printed (or counted),\n"
	  "1 if none, 2 on error.\n\n"
	  "  -v, --invert       print the keys that are certainly absent instead\n"
	  "  -n, --count        print only the number of keys that would be printed\n"
	  "  -i, --image F.img  query an image file offline instead of a filter\n"
	  "      --prefixes     the lines are addresses, looked up by the prefix\n"
	  "                     rule: each prefix length the filter holds,\n"
	  "                     longest first (blank and comment lines skipped)\n"
	  KEYS_HELP },
	{ .name = "del", .fn = cmd_del,
	  .opts = del_opts, .shortopts = KEY_SHORTOPTS, .repeatable = "k",
	  .usage = "NAME [FILE|-|--key K...] [--hex]",
	  .help = "Delete one key per line from a cuckoo filter. Prints how many were\n"
	  "found and removed. Delete only keys that were added.\n\n"
	  KEYS_HELP },
	{ .name = "count", .fn = cmd_count,
	  .opts = count_opts, .shortopts = KEY_SHORTOPTS "i:",
	  .repeatable = "k",
	  .usage = "NAME [FILE|-|--key K...] [--hex]\n"
	  "       memfilterctl count --image F.img [FILE|-|--key K...] [--hex]",
	  .help = "For each key of FILE (one per line), in input order, print how many\n"
	  "times it may have been added to a cuckoo filter and not deleted, a\n"
	  "tab, and the key (RedisBloom's CF.COUNT): the copies of its\n"
	  "fingerprint in its two buckets and the stash, 0 to 9. 0 means\n"
	  "certainly absent; keys sharing the fingerprint and buckets add to\n"
	  "the count (false positives). Exit status: 0 if any key counted\n"
	  "more than 0, 1 if none, 2 on error.\n\n"
	  "  -i, --image F.img  count in an image file offline instead of a filter\n"
	  KEYS_HELP },
	{ .name = "clear", .fn = cmd_clear,
	  .usage = "NAME",
	  .help = "Remove every key from filter NAME; its parameters stay.\n" },
	{ .name = "seen", .fn = cmd_seen,
	  .opts = seen_opts,
	  .shortopts = KEY_SHORTOPTS ANSWER_SHORTOPTS "i:o:",
	  .repeatable = "k",
	  .usage = "NAME [FILE|-|--key K...] [--hex] [--count] [--invert]\n"
	  "       memfilterctl seen --image F.img [-o OUT.img] [FILE|-|--key K...] [OPTIONS]",
	  .help = "Test-and-add (Bloom, window and growing filters): print each key of\n"
	  "FILE that may have been present already, then add it. A key repeated\n"
	  "in the input is seen the second time. Exit status: 0 if any key was\n"
	  "printed (or counted), 1 if none, 2 on error.\n\n"
	  "  -v, --invert       print the keys that were new instead (dedup)\n"
	  "  -n, --count        print only the number of keys that would be printed\n"
	  IMAGE_WRITE_HELP("test and add in")
	  KEYS_HELP },
	{ .name = "rotate", .fn = cmd_rotate,
	  .opts = rotate_opts, .shortopts = ":i:o:h",
	  .usage = "NAME\n"
	  "       memfilterctl rotate --image F.img [-o OUT.img]",
	  .help = "Rotate window filter NAME now: its oldest generation is cleared and\n"
	  "becomes current; the period restarts.\n\n"
	  "  -i, --image F.img  rotate a window filter image offline instead and\n"
	  "                     write the rotated image (the other generations\n"
	  "                     keep their ages)\n"
	  "  -o, --output FILE  with --image: write it to FILE instead of stdout,\n"
	  "                     as build -o does (atomically; a device or FIFO\n"
	  "                     in place; a symbolic link refused)\n" },
	{ .name = "info", .fn = cmd_info,
	  .opts = json_opts, .shortopts = JSON_SHORTOPTS,
	  .usage = "NAME [--json|--pretty]",
	  .help = "Show a filter's parameters, fill, estimated false-positive rate and\n"
	  "counters; a warning on stderr when it holds more keys than its\n"
	  "capacity.\n\n",
	  .json = true },
	{ .name = "list", .fn = cmd_list,
	  .opts = json_opts, .shortopts = JSON_SHORTOPTS,
	  .usage = "[--json|--pretty]",
	  .help = "List the names of the published filters, one per line; as JSON, an\n"
	  "array of objects with the members of 'info --json'.\n\n",
	  .json = true },
	{ .name = "rm", .fn = cmd_rm,
	  .usage = "NAME",
	  .help = "Unpublish NAME (needs CAP_SYS_ADMIN). The filter is freed when its\n"
	  "last reference (an open fd, an in-kernel user) goes away.\n" },
	{ .name = "swap", .fn = cmd_swap,
	  .usage = "NAME OTHER",
	  .help = "Exchange the filters of two published names (needs CAP_SYS_ADMIN),\n"
	  "each name in one step: netfilter hooks and BPF programs using a\n"
	  "name or its id see its old filter until then and the other one\n"
	  "after, never neither; each name keeps its id. The refresh: load the\n"
	  "new list as NAME.new, 'swap NAME NAME.new', and 'rm NAME.new' once\n"
	  "the new list has proved itself ('swap' again rolls back).\n" },
};

const size_t filter_commands_n = ARRAY_SIZE(filter_commands);
