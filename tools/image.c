// SPDX-License-Identifier: GPL-2.0
/*
 * memfilterctl: the commands on filter images (build, dump, load,
 * inspect, merge). build, inspect and merge run offline, in this process,
 * with the module's own filter code (libmemfilter's mf_offline_*): they
 * need no device. Images are written to stdout or, with -o FILE, as
 * output.c says: a regular FILE is replaced only once the image is
 * complete, so a failed command never leaves FILE truncated or half
 * written, and nothing but a regular file is ever replaced.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/memfilter.h>

#include "memfilterctl.h"

static const char *image_path(const char *path)
{
	return !path || !strcmp(path, "-") ? "<stdin>" : path;
}

/* "memfilterctl: PATH: corrupt filter image: WHY" for a refused image. */
static int image_error(const char *path, int err, const char *why)
{
	if (err == -EBADMSG)
		cli_error("%s: corrupt filter image: %s", image_path(path),
			  why ? why : "invalid");
	else if (err == -EOPNOTSUPP)
		cli_error("%s: unsupported filter image: %s", image_path(path),
			  why ? why : "unknown format");
	else
		fail_offline(image_path(path), err);
	return EXIT_ERR;
}

/*
 * The image in @path ("-" or NULL: stdin), its header checked before its
 * payload is read (mf_image_read()): memory stays bounded by what the
 * header declares, whatever the input.
 */
static int read_image(const char *path, unsigned char **img, size_t *len)
{
	int fd = STDIN_FILENO, ret;
	const char *why;
	void *buf;

	if (empty_path("IMAGE", path))
		return -1;
	if (path && strcmp(path, "-")) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			cli_error("%s: %s", path, strerror(errno));
			return -1;
		}
	}
	ret = mf_image_read(fd, &buf, len, &why);
	if (fd != STDIN_FILENO)
		close(fd);
	if (ret == -EBADMSG || ret == -EOPNOTSUPP)
		image_error(path, ret, why);
	else if (ret)
		cli_error("%s: %s", image_path(path), strerror(-ret));
	*img = buf;
	return ret ? -1 : 0;
}

/*
 * The image in @path ("-" or NULL: stdin) as an offline filter, checked,
 * and its header into @h if not NULL. A regular file is read straight
 * into the filter's table (mf_offline_map(): the table is the only
 * memory it takes, and the filter owes nothing to the file after it);
 * anything else is read as read_image() reads it and parsed.
 */
struct mf_offline *open_image_header(const char *path,
				     struct memfilter_image_header *h)
{
	struct mf_offline *f = NULL;
	unsigned char *img;
	const char *why;
	size_t len;
	int fd, ret;

	if (empty_path("IMAGE", path))
		return NULL;
	if (path && strcmp(path, "-")) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			cli_error("%s: %s", path, strerror(errno));
			return NULL;
		}
		ret = mf_offline_map(fd, &f, &why);
		if (!ret && h && pread(fd, h, sizeof(*h), 0) != sizeof(*h))
			ret = -EIO;
		close(fd);
		if (ret && ret != -ENODEV) {
			mf_offline_free(f);
			image_error(path, ret, why);
			return NULL;
		}
		if (!ret)
			return f;
	}
	if (read_image(path, &img, &len))
		return NULL;
	ret = mf_offline_from_image(img, len, &f, &why);
	if (!ret && h)
		memcpy(h, img, sizeof(*h));
	explicit_bzero(img, len);
	free(img);
	if (ret) {
		image_error(path, ret, why);
		return NULL;
	}
	return f;
}

struct mf_offline *open_image(const char *path)
{
	return open_image_header(path, NULL);
}

static bool image_keyed(const unsigned char *img, size_t len)
{
	const struct memfilter_image_header *h = (const void *)img;

	return len >= sizeof(*h) &&
	       (le32toh(h->flags) & MEMFILTER_IMAGE_SECRET);
}

/*
 * A keyed image holds the filter's secret: warn when stdout is a file
 * others may read.
 */
static void stdout_secret_check(const void *img, size_t len)
{
	struct stat st;

	if (image_keyed(img, len) && !fstat(STDOUT_FILENO, &st) &&
	    S_ISREG(st.st_mode) && (st.st_mode & 077))
		cli_warn("the image holds the filter's secret key, but stdout is a file of mode %04o: make it 0600 (umask 077)",
			 (unsigned int)(st.st_mode & 07777));
}

/*
 * The whole image, @hdr (@hdr_len bytes: all of a copied image, or its
 * header) then @payload (@len bytes, or none), to @o, opened by
 * output_open(), and @o finished.
 */
static int write_image_parts(struct output *o, const void *hdr,
			     size_t hdr_len, const void *payload, size_t len)
{
	if (o->kind == OUTPUT_STDOUT) {
		stdout_secret_check(hdr, hdr_len);
		if (stdout_flush())
			goto out_abort;
	}
	output_progress(o, hdr_len + len);
	if (output_write(o, hdr, hdr_len) || output_write(o, payload, len) ||
	    output_commit(o, image_keyed(hdr, hdr_len)))
		goto out_abort;
	return 0;
out_abort:
	output_abort(o);
	return EXIT_ERR;
}

/* The whole image to @o, opened by output_open(), and @o finished. */
static int write_image(struct output *o, const void *img, size_t len)
{
	return write_image_parts(o, img, len, NULL, 0);
}

/* Overfill of an image about to be written: a warning, an error if strict. */
static int image_overfill(const char *what, const struct mf_info *i,
			  bool strict)
{
	if (!i->overfill)
		return 0;
	overfill_report(what, i, strict);
	return strict ? -1 : 0;
}

/*
 * The image of @f to @out, as write_image(); @what names the command. The
 * table goes straight from the filter's memory (mf_offline_image_view()),
 * copied only for a growing filter that grew.
 */
int write_offline(const char *what, struct mf_offline *f, struct output *out)
{
	unsigned char hdr[MF_IMAGE_HDR_SIZE];
	const void *payload;
	size_t len;
	void *img;
	int ret;

	ret = mf_offline_image_view(f, hdr, &payload, &len);
	if (!ret) {
		ret = write_image_parts(out, hdr, sizeof(hdr), payload, len);
		explicit_bzero(hdr, sizeof(hdr));
		return ret;
	}
	if (mf_offline_image(f, &img, &len)) {
		output_abort(out);
		return fail_offline(what, -ENOMEM);
	}
	ret = write_image(out, img, len);
	explicit_bzero(img, len);
	free(img);
	return ret;
}

/* build --prefixes: the whole list checked, then added. */
static int build_prefixes(struct mf_offline *f, struct reader *r)
{
	struct mf_prefix *p;
	size_t n, done;
	ssize_t got;

	if (read_prefixes(r, &p, &n))
		return -1;
	got = mf_offline_add_prefixes(f, p, n, NULL, &done);
	free(p);
	if (got == -ENOSPC && !done)
		cli_error("build: the list has more prefix lengths of a family than --prefix-lengths");
	else if (got == -ENOSPC)
		cli_error("build: filter is full after %zu prefixes were added",
			  done);
	else if (got < 0)
		fail_offline("build", got);
	return got < 0 ? -1 : 0;
}

static int build_fill(struct mf_offline *f, const char *path, bool hex,
		      bool prefixes)
{
	uint64_t total = 0;
	struct reader r;
	ssize_t n, got;
	size_t done;
	int ret = -1;

	if (reader_open(&r, path, hex))
		return -1;
	if (prefixes) {
		ret = build_prefixes(f, &r);
		goto out;
	}
	while ((n = reader_next(&r)) > 0) {
		got = mf_offline_addv(f, r.keys, r.key_lens, r.n, NULL, &done);
		if (got < 0) {
			progress_done(&r);
			if (got == -ENOSPC)
				reader_full(&r, "build", total + done, done, -1,
					    f);
			else
				fail_offline("build", got);
			goto out;
		}
		total += got;
	}
	progress_done(&r);
	if (n == 0)
		ret = 0;
out:
	reader_free(&r);
	return ret;
}

#define STRICT_OPT { "strict", no_argument, NULL, OPT_STRICT }

static const struct option build_opts[] = {
	NEW_FILTER_OPTS,
	{ "hex", no_argument, NULL, 'x' },
	OUTPUT_OPT,
	STRICT_OPT,
	{ "help", no_argument, NULL, 'h' },
	{}
};

static int cmd_build(int argc, char **argv)
{
	FILTER_ARGS(fa);
	const char *path = NULL, *out_path = NULL;
	struct mf_offline *f = NULL;
	bool hex = false, strict = false;
	struct output out;
	struct mf_info info;
	int c, ret = EXIT_ERR;

	while ((c = cmd_opt(argc, argv)) != -1) {
		switch (c) {
		case 'h':
			return print_help();
		case 'x':
			hex = true;
			continue;
		case 'o':
			out_path = optarg;
			continue;
		case OPT_STRICT:
			strict = true;
			continue;
		}
		if (filter_args_opt(c, &fa) != 1)
			return EXIT_ERR;
	}
	if (argc - optind > 1) {
		usage_error("unexpected argument '%s'", argv[optind + 1]);
		return EXIT_ERR;
	}
	if (optind < argc)
		path = argv[optind];
	if (filter_args_finish(&fa) || output_open(&out, out_path))
		return EXIT_ERR;
	if (memory_check("build", &fa.o, fa.window, fa.growing)) {
		output_abort(&out);
		return EXIT_ERR;
	}
	ret = fa.window ? mf_offline_create_window(&fa.o, fa.window, &f) :
	      fa.growing ? mf_offline_create_grow(&fa.o, fa.growing, &f) :
	      mf_offline_create(&fa.o, &f);
	if (ret) {
		output_abort(&out);
		return fail_offline("build", ret);
	}
	ret = EXIT_ERR;
	if (fa.o.prefixes && hex) {
		usage_error("--prefixes lists are text: not with --hex");
		goto out_free;
	}
	if (build_fill(f, path, hex, fa.o.prefixes))
		goto out_free;
	mf_offline_info(f, &info);
	if (image_overfill("build", &info, strict))
		goto out_free;
	ret = write_offline("build", f, &out);
out_free:
	if (ret)
		output_abort(&out);
	mf_offline_free(f);
	return ret;
}

/* rotate --image: the window filter image @path, rotated once, to @out. */
int rotate_image(const char *path, const char *out_path)
{
	struct mf_offline *f;
	struct output out;
	int ret = EXIT_ERR;

	if (output_open(&out, out_path))
		return EXIT_ERR;
	f = open_image(path);
	if (!f)
		goto out_abort;
	if (mf_offline_rotate(f)) {
		cli_error("%s: not a window filter image (only window filters rotate)",
			  image_path(path));
		goto out_free;
	}
	ret = write_offline("rotate", f, &out);
out_free:
	mf_offline_free(f);
out_abort:
	if (ret)
		output_abort(&out);
	return ret;
}

static const struct option dump_opts[] = {
	OUTPUT_OPT,
	{ "help", no_argument, NULL, 'h' },
	{}
};

/* Options of dump: -o FILE and --help. Return: exit status or -1. */
static int output_opt(int argc, char **argv, const char **out)
{
	int c;

	while ((c = cmd_opt(argc, argv)) != -1) {
		switch (c) {
		case 'o':
			*out = optarg;
			break;
		case 'h':
			return print_help();
		default:
			return EXIT_ERR;
		}
	}
	return -1;
}

static int cmd_dump(int argc, char **argv)
{
	const char *name, *out_path = NULL;
	struct output out;
	size_t len;
	void *img;
	int fd, ret;

	ret = output_opt(argc, argv, &out_path);
	if (ret >= 0)
		return ret;
	if (positional(argc, argv, 0, &name, NULL) ||
	    output_open(&out, out_path))
		return EXIT_ERR;
	fd = open_filter(name);
	if (fd < 0) {
		output_abort(&out);
		return EXIT_ERR;
	}
	ret = mf_dump(fd, &img, &len);
	close(fd);
	if (ret) {
		output_abort(&out);
		if (ret != -EPERM)
			return fail(name, ret);
		cli_error("%s: dumping a keyed filter (its secret key) needs CAP_SYS_ADMIN",
			  name);
		return EXIT_ERR;
	}
	ret = write_image(&out, img, len);
	explicit_bzero(img, len);
	free(img);
	return ret;
}

static const struct option load_opts[] = {
	{ "replace", no_argument, NULL, OPT_REPLACE },
	{ "help", no_argument, NULL, 'h' },
	{}
};

static int cmd_load(int argc, char **argv)
{
	struct mf_offline *f;
	unsigned char *img;
	const char *name, *why = NULL;
	bool replace = false;
	int c, dev, fd, ret;
	size_t len;

	while ((c = cmd_opt(argc, argv)) != -1) {
		if (c == 'h')
			return print_help();
		if (c != OPT_REPLACE)
			return EXIT_ERR;
		replace = true;
	}
	if (positional(argc, argv, 0, &name, NULL))
		return EXIT_ERR;
	if (isatty(STDIN_FILENO)) {
		usage_error("the image is read from stdin: redirect it from a file");
		return EXIT_ERR;
	}
	if (read_image(NULL, &img, &len))
		return EXIT_ERR;
	dev = open_device();
	if (dev < 0) {
		ret = EXIT_ERR;
		goto out_free;
	}
	/* With --replace, the new filter is made aside and takes NAME after. */
	fd = mf_load(dev, img, len, replace ? NULL : name);
	ret = fd >= 0 && replace ? replace_name(dev, name, fd) : 0;
	close(dev);
	if (fd >= 0) {
		close(fd);
	} else if (fd == -EBADMSG || fd == -EOPNOTSUPP) {
		/* The kernel says only the errno; the same checks here say why. */
		if (mf_offline_from_image(img, len, &f, &why) == 0) {
			mf_offline_free(f);
			why = NULL;
		}
		ret = image_error(NULL, fd, why);
	} else if (fd == -EEXIST) {
		cli_error("%s: a filter by that name already exists (--replace replaces it)",
			  name);
		ret = EXIT_ERR;
	} else {
		ret = fail(name, fd);
	}
out_free:
	explicit_bzero(img, len);
	free(img);
	return ret;
}

/* The Bloom layout an image's header names (its flag). */
static int image_layout(const struct memfilter_image_header *h)
{
	return le32toh(h->flags) & MEMFILTER_IMAGE_SPLIT32 ? MF_LAYOUT_SPLIT32 :
							    MF_LAYOUT_LINE64;
}

static void inspect_text(const char *path, const struct mf_info *i,
			 const struct memfilter_image_header *h)
{
	bool bloom = !libmf_type_has(i->type, LIBMF_TYPE_SLOTS);
	double pct = i->fill_max ? 100.0 * i->fill / i->fill_max : 0;

#define ROW "%-18s"
	printf(ROW "%s\n", "image:", path);
	printf(ROW "memfilter image version %u, %u-byte header\n", "format:",
	       le16toh(h->version), le16toh(h->header_size));
	printf(ROW "%s\n", "type:", type_name(i->type));
	if (bloom)
		printf(ROW "%s\n", "layout:", layout_name(image_layout(h)));
	if (i->keyed)
		printf(ROW "siphash24 (keyed: the image holds the secret key)\n",
		       "hash:");
	else
		printf(ROW "%s, seed 0x%016" PRIx64 "\n", "hash:",
		       hash_name(i->hash_algo), i->seed);
	printf(ROW "%" PRIu64 " keys\n", "capacity:", i->capacity);
	if (bloom) {
		printf(ROW "%.2f\n", "bits per key:", i->bits_per_key);
		printf(ROW "%u\n", "probes per key:", i->k);
		printf(ROW "%" PRIu64 " blocks of %d bytes\n", "geometry:",
		       (uint64_t)le64toh(h->geometry),
		       image_layout(h) == MF_LAYOUT_SPLIT32 ? 32 : 64);
	} else {
		printf(ROW "%.2f\n", "bits per key:", bits_per_key(i));
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

static int inspect_json(const char *path, const struct mf_info *i,
			const struct memfilter_image_header *h,
			const struct mf_window_info *wi,
			const struct mf_grow_info *gi,
			const struct mf_prefix_info *pi)
{
	struct json_writer *jw = json_begin();

	if (!jw)
		return EXIT_ERR;
	jsonw_start_object(jw);
	jsonw_string_field(jw, "image", path);
	jsonw_uint_field(jw, "version", le16toh(h->version));
	json_params(jw, i, image_layout(h));
	jsonw_uint_field(jw, "geometry", le64toh(h->geometry));
	jsonw_uint_field(jw, "payload_bytes", le64toh(h->payload_size));
	json_fill(jw, i);
	jsonw_uint_field(jw, "stash_used", i->stash_used);
	if (wi)
		json_window(jw, wi);
	if (gi)
		json_grow(jw, gi);
	json_prefixes(jw, pi);
	jsonw_hex_u64_field(jw, "header_xxh64", le64toh(h->header_xxh64));
	jsonw_hex_u64_field(jw, "payload_xxh64", le64toh(h->payload_xxh64));
	jsonw_string_field(jw, "checksums", "ok");
	jsonw_end_object(jw);
	return json_end(jw);
}

static int cmd_inspect(int argc, char **argv)
{
	MF_OPTS(mf_window_info, wi);
	MF_OPTS(mf_grow_info, gi);
	MF_OPTS(mf_prefix_info, pi);
	struct memfilter_image_header h;
	struct mf_offline *f;
	struct mf_info info;
	const char *path;
	int ret;

	ret = json_opt(argc, argv);
	if (ret >= 0)
		return ret;
	if (argc - optind != 1) {
		if (argc - optind)
			usage_error("unexpected argument '%s'", argv[optind + 1]);
		else
			usage_error("missing image FILE");
		return EXIT_ERR;
	}
	path = argv[optind];
	f = open_image_header(path, &h);
	if (!f)
		return EXIT_ERR;
	mf_offline_info(f, &info);
	if (libmf_type_has(info.type, LIBMF_OPTS_WINDOW))
		mf_offline_window_info(f, &wi);
	if (libmf_type_has(info.type, LIBMF_OPTS_GROW))
		mf_offline_grow_info(f, &gi);
	mf_offline_prefix_info(f, &pi);
	mf_offline_free(f);
	if (info.overfill)
		overfill_report(image_path(path), &info, false);
	if (json_output) {
		ret = inspect_json(image_path(path), &info, &h,
				   libmf_type_has(info.type, LIBMF_OPTS_WINDOW) ?
				   &wi : NULL,
				   libmf_type_has(info.type, LIBMF_OPTS_GROW) ?
				   &gi : NULL, &pi);
	} else {
		inspect_text(image_path(path), &info, &h);
		prefix_text(&pi);
		if (libmf_type_has(info.type, LIBMF_OPTS_WINDOW))
			window_text(&wi);
		if (libmf_type_has(info.type, LIBMF_OPTS_GROW))
			grow_text(&gi);
		ret = stdout_flush();
	}
	explicit_bzero(&h, sizeof(h));
	return ret;
}

/*
 * Open and check the two images, their tables read straight into two
 * filters (open_image()); the names say which one is bad.
 */
static int merge_inputs(char **paths, struct mf_offline **f,
			struct mf_info *info)
{
	int i;

	for (i = 0; i < 2; i++) {
		f[i] = open_image(paths[i]);
		if (!f[i])
			return -1;
		mf_offline_info(f[i], &info[i]);
	}
	return 0;
}

/* How to build images that merge: the same shape, hash and seed. */
#define MERGE_HOW "build both with the same --capacity, --fpr or --bits-per-key, --layout, --hash and --seed S"

/*
 * Why the two images cannot be merged, with what to do about it; the
 * library's reason where it is none of these (a keyed filter's secret).
 * Return: 0 if they can be, as far as can be told here.
 */
static int merge_mismatch(char **paths, const struct mf_info *i)
{
	const struct libmf_type *t;
	int j;

	for (j = 0; j < 2; j++) {
		t = libmf_type_of(i[j].type);
		if (!t || !t->no_merge)
			continue;
		cli_error("merge: %s is a %s filter image: only Bloom filter images can be merged (%s)",
			  paths[j], t->noun, t->no_merge);
		return -1;
	}
	if (i[0].keyed != i[1].keyed || i[0].hash_algo != i[1].hash_algo) {
		cli_error("merge: cannot merge %s and %s: different hashes (%s, %s): %s",
			  paths[0], paths[1],
			  i[0].keyed ? "keyed" : hash_name(i[0].hash_algo),
			  i[1].keyed ? "keyed" : hash_name(i[1].hash_algo),
			  MERGE_HOW);
		return -1;
	}
	if (i[0].fill_max != i[1].fill_max || i[0].k != i[1].k) {
		cli_error("merge: cannot merge %s and %s: different table sizes or probes per key (%" PRIu64 " bits, k %u; %" PRIu64 " bits, k %u): %s",
			  paths[0], paths[1], i[0].fill_max, i[0].k,
			  i[1].fill_max, i[1].k, MERGE_HOW);
		return -1;
	}
	if (!i[0].keyed && i[0].seed != i[1].seed) {
		cli_error("merge: cannot merge %s and %s: different hash seeds (0x%016" PRIx64 ", 0x%016" PRIx64 "): images built without --seed get random ones; %s",
			  paths[0], paths[1], i[0].seed, i[1].seed, MERGE_HOW);
		return -1;
	}
	return 0;
}

static const struct option merge_opts[] = {
	OUTPUT_OPT,
	STRICT_OPT,
	{ "help", no_argument, NULL, 'h' },
	{}
};

/*
 * merge A B: B's table ORed into A's (mf_offline_merge()), B's freed and
 * A's written from where it is, so the command holds two tables at most,
 * no image copy.
 */
static int cmd_merge(int argc, char **argv)
{
	struct mf_offline *f[2] = { NULL, NULL };
	const char *why, *out_path = NULL;
	struct mf_info info[2], merged;
	bool strict = false;
	struct output out;
	int c, ret;

	while ((c = cmd_opt(argc, argv)) != -1) {
		switch (c) {
		case 'o':
			out_path = optarg;
			break;
		case OPT_STRICT:
			strict = true;
			break;
		case 'h':
			return print_help();
		default:
			return EXIT_ERR;
		}
	}
	if (argc - optind != 2) {
		usage_error("want two image files A.img B.img");
		return EXIT_ERR;
	}
	if (output_open(&out, out_path))
		return EXIT_ERR;
	ret = EXIT_ERR;
	if (merge_inputs(argv + optind, f, info) ||
	    merge_mismatch(argv + optind, info))
		goto out_free;
	ret = mf_offline_merge(f[0], f[1], &why);
	if (ret == -EINVAL) {
		cli_error("merge: cannot merge %s and %s: %s (keyed images merge only when they are images of one filter)",
			  argv[optind], argv[optind + 1], why);
		ret = EXIT_ERR;
		goto out_free;
	}
	if (ret) {
		ret = fail_offline("merge", ret);
		goto out_free;
	}
	mf_offline_free(f[1]);
	f[1] = NULL;
	mf_offline_info(f[0], &merged);
	ret = image_overfill("merge", &merged, strict) ? EXIT_ERR :
	      write_offline("merge", f[0], &out);
out_free:
	if (ret)
		output_abort(&out);
	mf_offline_free(f[0]);
	mf_offline_free(f[1]);
	return ret;
}

#define OUTPUT_HELP \
	"  -o, --output FILE         write the image to FILE instead of stdout,\n" \
	"                            atomically: a failed command leaves FILE\n" \
	"                            as it was; a device or FIFO is written in\n" \
	"                            place, a symbolic link refused (but one to\n" \
	"                            stdout's file, as /dev/stdout)\n"

const struct command image_commands[] = {
	{ .name = "build", .fn = cmd_build,
	  .opts = build_opts,
	  .shortopts = ":" NEW_FILTER_SHORTOPTS "xo:h",
	  .usage = "--type bloom|cuckoo --capacity N [OPTIONS] [FILE|-] [-o F.img]\n"
	  "       memfilterctl build --window T [--generations G] --capacity N [OPTIONS] [FILE|-] [-o F.img]\n"
	  "       memfilterctl build --grow --capacity N [OPTIONS] [FILE|-] [-o F.img]",
	  .help = "Build a filter offline (no device needed) from one key per line of\n"
	  "FILE (default: standard input; a CR before the newline is not part\n"
	  "of the key) and write its image. The image loads with 'load' and\n"
	  "answers exactly as the filter built here. More keys than --capacity\n"
	  "is a warning on stderr (its false-positive rate is then above the\n"
	  "target), an error with --strict.\n"
	  "A --keyed image holds the filter's secret key: -o writes it with\n"
	  "mode 0600; on stdout, a warning says when the file is readable by\n"
	  "others.\n"
	  "A window filter is built with its keys in the current generation\n"
	  "and no rotation (with --rotate-by-count, one each --capacity keys);\n"
	  "its period (--window T / (G - 1)) goes into the image: loaded, the\n"
	  "kernel rotates it. Use --generations alone for no period.\n"
	  "With --prefixes the lines are address prefixes, as for add --prefixes.\n\n"
	  FILTER_OPTS_HELP
	  "  -x, --hex                 keys are given as hex digits\n"
	  "      --strict              more keys than --capacity is an error\n"
	  WINDOW_OPTS_HELP
	  GROW_OPTS_HELP
	  OUTPUT_HELP },
	{ .name = "dump", .fn = cmd_dump,
	  .opts = dump_opts, .shortopts = ":o:h",
	  .usage = "NAME [-o F.img]",
	  .help = "Write the image of filter NAME (a consistent snapshot).\n"
	  "Dumping a keyed filter needs CAP_SYS_ADMIN; its image holds the\n"
	  "secret key (see build).\n\n"
	  OUTPUT_HELP },
	{ .name = "load", .fn = cmd_load,
	  .opts = load_opts, .shortopts = HELP_SHORTOPTS,
	  .usage = "NAME [--replace] < F.img",
	  .help = "Read an image from stdin, make a filter of it in the kernel and\n"
	  "publish it as NAME (needs CAP_SYS_ADMIN). A corrupt or unsupported\n"
	  "image is refused and nothing is created (with --replace, NAME keeps\n"
	  "its filter).\n\n"
	  REPLACE_HELP },
	{ .name = "inspect", .fn = cmd_inspect,
	  .opts = json_opts, .shortopts = JSON_SHORTOPTS,
	  .usage = "F.img [--json|--pretty]",
	  .help = "Check an image (header and payload checksums, every field) and show\n"
	  "its parameters, fill and estimated false-positive rate, with a\n"
	  "warning on stderr when it holds more keys than its capacity. Exit\n"
	  "status 2 with the reason when the image is corrupt or unsupported.\n"
	  "64-bit seeds and checksums are JSON strings (\"0x...\").\n\n",
	  .json = true },
	{ .name = "merge", .fn = cmd_merge,
	  .opts = merge_opts, .shortopts = ":o:h",
	  .usage = "A.img B.img [-o C.img] [--strict]",
	  .help = "Write the union of two Bloom filter images: a filter that holds the\n"
	  "keys of both. Only images of the same table size, probes per key,\n"
	  "hash algorithm and seed or secret key can be merged (anything else\n"
	  "would place a key's bits differently and lose keys); the key count\n"
	  "of C is the sum of A's and B's, and more than A's capacity is a\n"
	  "warning (an error with --strict).\n\n"
	  "      --strict              more keys than the capacity is an error\n"
	  OUTPUT_HELP },
};

const size_t image_commands_n = ARRAY_SIZE(image_commands);
