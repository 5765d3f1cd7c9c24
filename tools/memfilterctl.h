/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memfilterctl: what its files share. main.c parses the global options and
 * dispatches to the command tables of filter.c (filters in the kernel) and
 * image.c (image files, offline); common.c holds the option parsing and
 * error reporting every command uses, input.c the streaming key reader,
 * json_writer.c the JSON output.
 *
 * Exit status of every command: 0 on success (query: some key answered),
 * 1 when a query answers no key, 2 on any error (usage errors included);
 * every error is one line on stderr.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTERCTL_H
#define _MEMFILTERCTL_H

#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "libmemfilter.h"
#include "types.h"

#include "json_writer.h"
#include "version.h"

#define EXIT_ABSENT 1
#define EXIT_ERR 2
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/*
 * The smallest false-positive rates the filters reach, in parts per
 * billion (create and build check them to print the range): a Bloom filter
 * at 64 bits per key (core/bloom_model.h, q4 256: line64 with k 8, and
 * split32), a cuckoo filter with 16-bit fingerprints (core/cuckoo.c:
 * 2 * 4 slots / 2^16).
 */
#define CLI_BLOOM_FPR_MIN_PPB 299
#define CLI_SPLIT32_FPR_MIN_PPB 1052
#define CLI_CUCKOO_FPR_MIN_PPB 122071
/* Bloom bits per key: core/bloom.h's MF_BLOOM_{MIN,MAX}_BPK_Q4 / 4. */
#define CLI_BPK_MIN 1
#define CLI_BPK_MAX 64

/**
 * struct command - one subcommand
 * @name: what the user types
 * @fn: runs it on argv[0] == @name; returns the exit status
 * @usage: the synopsis after "memfilterctl NAME"
 * @help: the rest of "NAME --help"
 * @json: accepts -j/--json and -p/--pretty
 * @opts: its long options: the table cmd_opt() parses it with (NULL:
 *	help_opts, --help alone). A letter means one option in every
 *	command: tests/native/cli_options_test checks the tables.
 * @shortopts: their letters, as getopt_long() takes them (NULL: ":h")
 * @repeatable: the letters of its options that may be given more than
 *	once (--key); any other option given twice is an error
 * @subs: its subcommands (nf), @nsubs of them: they parse their own
 *	@opts, and messages and help are @name's
 */
struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
	const char *help;
	bool json;
	const struct option *opts;
	const char *shortopts;
	const char *repeatable;
	const struct command *subs;
	size_t nsubs;
};

/* The command tables, in the order "help" lists them. */
extern const struct command filter_commands[];
extern const size_t filter_commands_n;
extern const struct command image_commands[];
extern const size_t image_commands_n;
extern const struct command nf_commands[];
extern const size_t nf_commands_n;

/* main.c: all of them, and the options before the command. */
struct command_table {
	const struct command *cmds;
	const size_t *n;
};
extern const struct command_table command_tables[];
extern const size_t command_tables_n;
extern const struct command global_command;

/* -o FILE, of every command that writes an image. */
#define OUTPUT_OPT { "output", required_argument, NULL, 'o' }

/* Tables of the commands that take only --help, or JSON and --help. */
extern const struct option help_opts[];
extern const struct option json_opts[];
#define HELP_SHORTOPTS ":h"
#define JSON_SHORTOPTS ":jph"
/* Long-only options: values above any letter. */
enum { OPT_STRICT = 0x1a0 };

/* common.c */
extern const char *prog;
extern const struct command *cur;
extern bool json_output;
extern bool pretty_output;

void usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2))); /* no __printf() in userspace */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int fail(const char *what, int err);
int fail_offline(const char *what, int err);
int print_help(void);
void parse_begin(const struct command *c);
int cmd_opt(int argc, char **argv);
bool empty_path(const char *what, const char *path);
int help_opt(int argc, char **argv);
bool json_flag(int c);
int json_opt(int argc, char **argv);
/* parse_u64()'s flags: "0x" and hex digits too; past 2^64 - 1 as 2^64 - 1. */
#define U64_HEX		0x1
#define U64_SATURATE	0x2
int parse_u64(const char *opt, const char *s, unsigned int flags, uint64_t *v);
int parse_double(const char *opt, const char *s, double *v);
int positional(int argc, char **argv, int max_extra, const char **name,
	       const char **extra);
int check_name(const char *name);
int open_device(void);
int open_filter(const char *name);
int image_hint(const char *name);
int replace_name(int dev, const char *name, int fd);
const char *type_name(int type);
const char *type_words(const char *sep, const char *last);
const char *hash_name(int algo);
void overfill_report(const char *what, const struct mf_info *i, bool strict);
struct json_writer *json_begin(void);
int json_end(struct json_writer *jw);
double bits_per_key(const struct mf_info *i);
void json_params(struct json_writer *jw, const struct mf_info *i, int layout);
const char *layout_name(int layout);
void json_fill(struct json_writer *jw, const struct mf_info *i);
void json_info(struct json_writer *jw, const struct mf_info *i, int layout,
	       uint32_t pub_id, const struct mf_window_info *wi,
	       const struct mf_grow_info *gi, const struct mf_prefix_info *pi);
int pub_id_of(int fd, const struct mf_info *i, uint32_t *pub_id);
int stdout_flush(void);
int memory_check(const char *what, const struct mf_create_opts *o,
		 const struct mf_window_opts *w, const struct mf_grow_opts *g);

/* Options shared by create and build: the filter's parameters. */
#define FILTER_OPTS \
	{ "type", required_argument, NULL, 't' }, \
	{ "capacity", required_argument, NULL, 'c' }, \
	{ "fpr", required_argument, NULL, 'e' }, \
	{ "bits-per-key", required_argument, NULL, 'b' }, \
	{ "fingerprint-bits", required_argument, NULL, 'f' }, \
	{ "keyed", no_argument, NULL, OPT_KEYED }, \
	{ "seed", required_argument, NULL, 's' }, \
	{ "hash", required_argument, NULL, OPT_HASH }, \
	{ "prefixes", no_argument, NULL, OPT_PREFIXES }, \
	{ "prefix-lengths", required_argument, NULL, OPT_PREFIX_LENGTHS }, \
	{ "layout", required_argument, NULL, OPT_LAYOUT }
/* -k is --key (add, query, ...) everywhere: --keyed has no letter. */
#define FILTER_SHORTOPTS "t:c:e:b:f:s:"
/* Long-only options of every filter (create, build): --hash, --keyed, --layout. */
enum { OPT_HASH = 0x180, OPT_KEYED, OPT_LAYOUT };
/*
 * Long-only options of prefix filters: create and build take both, add
 * and query --prefixes.
 */
enum { OPT_PREFIXES = 0x190, OPT_PREFIX_LENGTHS };
/* create --replace, load --replace (long only). */
enum { OPT_REPLACE = 0x1b0 };
#define REPLACE_HELP \
	"      --replace             build the new filter aside, then make NAME\n" \
	"                            refer to it in one step: netfilter hooks and\n" \
	"                            BPF programs using NAME or its id see the old\n" \
	"                            filter until then and the new one after,\n" \
	"                            never neither (NAME keeps its id). NAME is\n" \
	"                            published if it is not; the old filter is\n" \
	"                            freed once nothing holds it\n"
/* A growing filter's options (create, build): -G and long-only ones. */
enum { OPT_GROW_FACTOR = 0x100, OPT_GROW_RATIO, OPT_GROW_MAX };
#define GROW_OPTS \
	{ "grow", no_argument, NULL, 'G' }, \
	{ "grow-factor", required_argument, NULL, OPT_GROW_FACTOR }, \
	{ "grow-ratio", required_argument, NULL, OPT_GROW_RATIO }, \
	{ "grow-max", required_argument, NULL, OPT_GROW_MAX }
#define GROW_SHORTOPTS "G"
#define GROW_OPTS_HELP \
	"  -G, --grow                a growing Bloom filter (--type grow): when\n" \
	"                            the newest sub-filter holds its keys, a new\n" \
	"                            one takes over; --capacity is the first\n" \
	"                            one's, --fpr bounds the whole filter's rate;\n" \
	"                            the options below need it\n" \
	"      --grow-factor S       each sub-filter holds S times the keys of\n" \
	"                            the one before (1 to 16, default 2)\n" \
	"      --grow-ratio R        each sub-filter's rate is R times the one\n" \
	"                            before's (0.01 to 0.99, default 0.5)\n" \
	"      --grow-max M          at most M sub-filters (1 to 16, default 16)\n"
/* The longest window, 365 days in ms. */
#define CLI_WINDOW_MAX_MS (365ULL * 24 * 3600 * 1000)
void window_text(const struct mf_window_info *w);
void json_window(struct json_writer *jw, const struct mf_window_info *w);
void grow_text(const struct mf_grow_info *g);
void json_grow(struct json_writer *jw, const struct mf_grow_info *g);
/* A window filter's options (create, build): 'w', 'g', 'R'. */
#define WINDOW_OPTS \
	{ "window", required_argument, NULL, 'w' }, \
	{ "generations", required_argument, NULL, 'g' }, \
	{ "rotate-by-count", no_argument, NULL, 'R' }
#define WINDOW_SHORTOPTS "w:g:R"
#define WINDOW_OPTS_HELP \
	"  -w, --window T            a window filter: every key is kept at least T\n" \
	"                            and at most G / (G - 1) T (T: N, Nms, Ns, Nm,\n" \
	"                            Nh; at most 365 days); --capacity is then\n" \
	"                            keys per T / (G - 1)\n" \
	"  -g, --generations G       window filter: 2 to 16 generations (default 4)\n" \
	"  -R, --rotate-by-count     window filter: also rotate when a generation\n" \
	"                            holds --capacity keys\n"
/*
 * struct window_args - a window filter's options as given
 * @window_ms: --window, 0 if not given
 * @gens: --generations, 0 if not given
 * @w: the library's options, filled by window_opts_check()
 * @window: set by window_opts_check(): a window filter was asked for
 */
struct window_args {
	uint64_t window_ms;
	uint64_t gens;
	struct mf_window_opts w;
	bool window;
};

/* Their --help lines. */
#define FILTER_OPTS_HELP \
	"  -t, --type T              bloom, cuckoo or grow (required, unless\n" \
	"                            --window or --grow)\n" \
	"  -c, --capacity N          number of keys it is designed for (required)\n" \
	"  -e, --fpr P               target false-positive (error) rate as a\n" \
	"                            fraction (0.01 = 1%; Bloom: 2.99e-07 to\n" \
	"                            below 1, default 0.01; cuckoo: 0.000122071\n" \
	"                            to below 1)\n" \
	"  -b, --bits-per-key B      Bloom: table bits per key instead of --fpr\n" \
	"                            (1 to 64 in steps of 0.25)\n" \
	"  -f, --fingerprint-bits F  cuckoo: 8, 12 or 16 instead of --fpr\n" \
	"                            (default 12)\n" \
	"      --keyed               hash with SipHash-2-4 under a secret key\n" \
	"                            (keys chosen by an adversary)\n" \
	"  -s, --seed S              fixed hash seed (reproducible tables):\n" \
	"                            decimal, or hex after 0x\n" \
	"      --hash H              xxh3 (default), xxh64 (slower on keys of up\n" \
	"                            to 16 bytes; the default before 1.1.0) or\n" \
	"                            siphash24 (as --keyed)\n" \
	"      --prefixes            an address prefix filter (add --prefixes):\n" \
	"                            --fpr is then the rate of an address lookup,\n" \
	"                            which tests one key per prefix length held\n" \
	"      --prefix-lengths L    prefix filter: at most L distinct prefix\n" \
	"                            lengths per family (1 to 32, default 16);\n" \
	"                            sized for --fpr / L per key\n" \
	"      --layout L            Bloom, window and growing filters: line64\n" \
	"                            (64-byte blocks) or split32 (32-byte split\n" \
	"                            blocks: faster, 7.5% more memory at 1%,\n" \
	"                            --fpr from 1.052e-06); default: split32\n" \
	"                            where it costs at most 8% more memory (as\n" \
	"                            at 1% and 0.1%), else line64; info shows it\n"

/* The options of a new filter, create's and build's: one parser. */
#define NEW_FILTER_OPTS FILTER_OPTS, WINDOW_OPTS, GROW_OPTS
#define NEW_FILTER_SHORTOPTS FILTER_SHORTOPTS WINDOW_SHORTOPTS GROW_SHORTOPTS

/**
 * struct filter_args - the new filter a command was asked for
 * @o: the filter's options (FILTER_OPTS)
 * @wa: a window filter's (WINDOW_OPTS)
 * @g: a growing filter's (GROW_OPTS)
 * @grow: --grow, or --type grow, was given
 * @grow_param: the first growing filter's option given, or 0
 * @window: set by filter_args_finish(): a window filter's options, or NULL
 * @growing: set by filter_args_finish(): a growing filter's, or NULL
 *
 * Declared with FILTER_ARGS(), filled by filter_args_opt() for each option
 * the command's loop reads, checked as a whole by filter_args_finish().
 */
struct filter_args {
	struct mf_create_opts o;
	struct window_args wa;
	struct mf_grow_opts g;
	bool grow;
	int grow_param;
	const struct mf_window_opts *window;
	const struct mf_grow_opts *growing;
};

#define FILTER_ARGS(name)						\
	struct filter_args name = {					\
		.o = { .sz = sizeof(struct mf_create_opts) },		\
		.wa = { .w = { .sz = sizeof(struct mf_window_opts) } },	\
		.g = { .sz = sizeof(struct mf_grow_opts) },		\
	}

int filter_args_opt(int c, struct filter_args *a);
int filter_args_finish(struct filter_args *a);

/* input.c: keys one per line from a file or stdin, or from --key */
struct progress {
	bool tty;		/* stderr is a terminal */
	bool shown;		/* something is drawn */
	off_t total;		/* bytes of a regular file, 0 for a stream */
	struct timespec last;
};

/* Lines per kernel batch: a few thousand keeps memory small and calls few. */
#define BATCH_LINES 8192

/**
 * struct reader - one batch of keys at a time
 * @f: the stream, or NULL for keys given as arguments
 * @path: its name for messages
 * @args: keys given as arguments (--key), @nargs of them
 * @hex: keys are hex digits
 * @lineno: lines (or arguments) read so far
 * @keys_read: keys read so far
 * @buf: the stream's bytes as read (READ_BYTES), unread from @pos to @end
 * @eof: the stream has ended (what is left in @buf is its last line)
 * @n: keys in this batch
 * @text: the batch's lines as read, without line ends (query prints them)
 * @text_lens: their lengths
 * @keys: what goes to the filter: @text, or with --hex its decoded bytes
 * @key_lens: their lengths
 */
struct reader {
	FILE *f;
	const char *path;
	char **args;
	size_t nargs;
	bool hex;
	uint64_t lineno;
	uint64_t keys_read;
	char *buf;
	size_t pos, end;
	bool eof;

	size_t n;
	char *text;
	size_t text_len, text_cap;
	uint32_t *text_lens;
	unsigned char *keys;
	size_t keys_len, keys_cap;
	uint32_t *key_lens;

	struct progress prog;
};

int reader_open(struct reader *r, const char *path, bool hex);
int reader_open_args(struct reader *r, char **args, size_t n, bool hex);
ssize_t reader_next(struct reader *r);
void reader_free(struct reader *r);
void progress_done(struct reader *r);
void reader_full(const struct reader *r, const char *what, uint64_t added,
		 size_t done, int fd, const struct mf_offline *off);

struct memfilter_image_header;

/* output.c: -o FILE or stdout, never replacing what is not a file */
enum output_kind {
	OUTPUT_STDOUT,		/* no -o, -o -, or a link to stdout's file */
	OUTPUT_NEW,		/* a missing path: created complete */
	OUTPUT_REPLACE,		/* a regular file: replaced once complete */
	OUTPUT_IN_PLACE,	/* a device or FIFO: written as by '>' */
};

/**
 * struct output - where an image is being written
 * @path: -o's argument, or "<stdout>"
 * @kind: what it was found to be (output.c)
 * @fd: what output_write() writes to
 * @dirfd: @path's directory (OUTPUT_NEW, OUTPUT_REPLACE, OUTPUT_IN_PLACE)
 * @dir: its name, for messages
 * @base: @path's last component
 * @tmp: the temporary file's name in @dirfd, "" when it has none
 * @old: OUTPUT_REPLACE: the file replaced, whose mode and owners the new
 *	file takes
 * @total: output_progress(): the bytes to write, 0 for no progress shown
 * @written: the bytes written so far
 * @shown: a progress line is on stderr
 * @start: when output_progress() was called, @last: when last shown
 */
struct output {
	const char *path;
	enum output_kind kind;
	int fd;
	int dirfd;
	char *dir;
	const char *base;
	char tmp[NAME_MAX + 1];
	struct stat old;
	uint64_t total, written;
	bool shown;
	struct timespec start, last;
};

int output_open(struct output *o, const char *path);
void output_progress(struct output *o, uint64_t total);
int output_write(struct output *o, const void *buf, size_t len);
int output_commit(struct output *o, bool secret);
void output_abort(struct output *o);

/* image.c */
int rotate_image(const char *path, const char *out);
struct mf_offline *open_image(const char *path);
struct mf_offline *open_image_header(const char *path,
				     struct memfilter_image_header *h);
int write_offline(const char *what, struct mf_offline *f, struct output *out);

/* prefix.c: prefix lists, address lookups, a prefix filter's lengths */
int prefix_opt(int c, struct mf_create_opts *o);
int read_prefixes(struct reader *r, struct mf_prefix **out, size_t *count);
ssize_t query_prefix_batch(int fd, const struct mf_offline *off,
			   const struct reader *r, uint64_t *bits,
			   size_t *entries);
bool query_prefix_line(const struct reader *r, size_t i, size_t off);
void prefix_text(const struct mf_prefix_info *pi);
void json_prefixes(struct json_writer *jw, const struct mf_prefix_info *pi);

#endif /* _MEMFILTERCTL_H */
