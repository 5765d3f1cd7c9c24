// SPDX-License-Identifier: GPL-2.0
/*
 * memfilterctl: option parsing, error messages and output helpers every
 * command uses (memfilterctl.h).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memfilterctl.h"

const char *prog = "memfilterctl";
const struct command *cur;
bool json_output;
bool pretty_output;

/* "memfilterctl CMD: ... (try 'memfilterctl CMD --help')" */
void usage_error(const char *fmt, ...)
{
	bool global = !cur || cur == &global_command;
	va_list ap;

	fprintf(stderr, "%s%s%s: ", prog, global ? "" : " ",
		global ? "" : cur->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (global)
		fprintf(stderr, " (try '%s help')\n", prog);
	else
		fprintf(stderr, " (try '%s %s --help')\n", prog, cur->name);
}

static void vsay(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", prog, prefix);
	vfprintf(stderr, fmt, ap);
	putc('\n', stderr);
}

/* "memfilterctl: warning: ..." */
void cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("warning: ", fmt, ap);
	va_end(ap);
}

/* "memfilterctl: ..." */
void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
}

/* "memfilterctl: WHAT: message"; returns the error exit status. */
int fail(const char *what, int err)
{
	cli_error("%s: %s", what, mf_strerror(err));
	return EXIT_ERR;
}

/* fail() for work done in this process, where no kernel limit applies. */
int fail_offline(const char *what, int err)
{
	if (err == -E2BIG)
		cli_error("%s: too large: a filter's table is at most 1 TiB (lower --capacity, or raise --fpr)",
			  what);
	else if (err == -ENOMEM)
		cli_error("%s: %s", what, strerror(ENOMEM));
	else
		fail(what, err);
	return EXIT_ERR;
}

/* COMMAND --help, help COMMAND: the exit status (2 if stdout fails). */
int print_help(void)
{
	printf("usage: %s %s %s\n\n%s", prog, cur->name, cur->usage,
	       cur->help);
	if (cur->json)
		printf("  -j, --json         as JSON (compact: one line)\n"
		       "  -p, --pretty       as indented JSON (implies --json)\n");
	return stdout_flush();
}

/* The options of the command being parsed, and those it has seen. */
static const struct command *parsing;
static unsigned char seen[0x200];

const struct option help_opts[] = {
	{ "help", no_argument, NULL, 'h' },
	{}
};

const struct option json_opts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "pretty", no_argument, NULL, 'p' },
	{ "help", no_argument, NULL, 'h' },
	{}
};

/* Parse @c's options from now on (main, and nf for its subcommands). */
void parse_begin(const struct command *c)
{
	parsing = c;
	memset(seen, 0, sizeof(seen));
	optind = 0;	/* glibc: start over on the new argv */
}

static const struct option *cmd_longopts(const struct command *c)
{
	return c->opts ? c->opts : help_opts;
}

/* @name (up to an '=') in @longopts, or NULL. */
static const struct option *long_opt_named(const struct option *longopts,
					   const char *name)
{
	size_t len = strcspn(name, "=");

	for (; longopts->name; longopts++)
		if (strlen(longopts->name) == len &&
		    !strncmp(longopts->name, name, len))
			return longopts;
	return NULL;
}

/* @c's option with the letter @letter, or NULL. */
static const struct option *letter_opt(const struct command *c, int letter)
{
	const struct option *o;

	for (o = cmd_longopts(c); o->name; o++)
		if (o->val == letter && c->shortopts &&
		    strchr(c->shortopts, letter))
			return o;
	return NULL;
}

/*
 * Calls @fn on every command, global first; a subcommand with its
 * command as @parent.
 */
static void each_command(void (*fn)(const struct command *c,
				    const struct command *parent, void *arg),
			 void *arg)
{
	const struct command *c;
	size_t t, i, j;

	fn(&global_command, NULL, arg);
	for (t = 0; t < command_tables_n; t++) {
		for (i = 0; i < *command_tables[t].n; i++) {
			c = &command_tables[t].cmds[i];
			fn(c, NULL, arg);
			for (j = 0; j < c->nsubs; j++)
				fn(&c->subs[j], c, arg);
		}
	}
}

/*
 * struct opt_search - which other commands take an option
 * @name: the long option's name (up to an '='), or NULL
 * @letter: or its letter
 * @found: the long option found (by @letter)
 * @who: the commands that take it, ", " between
 * @n: how many
 */
struct opt_search {
	const char *name;
	int letter;
	const struct option *found;
	char who[256];
	int n;
};

static void opt_search_one(const struct command *c,
			   const struct command *parent, void *arg)
{
	struct opt_search *s = arg;
	const struct option *o;
	size_t len = strlen(s->who);

	o = s->name ? long_opt_named(cmd_longopts(c), s->name) :
		      letter_opt(c, s->letter);
	if (!o || !strcmp(o->name, "help"))
		return;
	s->found = o;
	if (c == &global_command)
		return;
	snprintf(s->who + len, sizeof(s->who) - len, "%s%s%s%s",
		 s->n ? ", " : "", parent ? parent->name : "",
		 parent ? " " : "", c->name);
	s->n++;
}

/*
 * An option @parsing does not take: say which commands do (the option
 * exists, just not here) or what it abbreviates.
 */
static void unknown_opt(const char *typed)
{
	struct opt_search s = {};
	const struct option *o;
	size_t len;

	if (strncmp(typed, "--", 2)) {
		s.letter = (unsigned char)typed[1];
		each_command(opt_search_one, &s);
		if (s.found)
			usage_error("unknown option '-%c': -%c is --%s in every command, %s%s",
				    s.letter, s.letter, s.found->name,
				    s.n ? "an option of " : "a global option (before the command)",
				    s.who);
		else
			usage_error("unknown option '-%c'", s.letter);
		return;
	}
	s.name = typed + 2;
	len = strcspn(s.name, "=");
	each_command(opt_search_one, &s);
	if (s.found) {
		usage_error("unknown option '--%.*s': an option of %s, not of %s",
			    (int)len, s.name,
			    s.n ? s.who : "memfilterctl itself (before the command)",
			    cur->name);
		return;
	}
	for (o = cmd_longopts(parsing); o->name; o++)
		if (len && !strncmp(o->name, s.name, len))
			break;
	if (o->name)
		usage_error("unknown option '--%.*s': long options are not abbreviated (--%s?)",
			    (int)len, s.name, o->name);
	else
		usage_error("unknown option '--%.*s'", (int)len, s.name);
}

/*
 * The long option getopt_long() just returned as @longopts[@idx], as typed,
 * when it is an abbreviation (getopt_long() takes any unambiguous prefix:
 * "--key" for "--keyed"); NULL when it was typed whole.
 */
static const char *abbreviated(char **argv, const struct option *longopts,
			       int idx)
{
	const char *typed;
	size_t len;

	if (idx < 0)
		return NULL;
	/* "--name ARG" left optind two past it, "--name[=ARG]" one. */
	typed = argv[optind - (optarg && optarg == argv[optind - 1] ? 2 : 1)];
	if (strncmp(typed, "--", 2))
		return NULL;
	len = strcspn(typed + 2, "=");
	return len == strlen(longopts[idx].name) ? NULL : typed;
}

/* An option given a second time, as typed (-t, --type). */
static int repeated(int c, const struct option *o)
{
	const char *rep = parsing->repeatable;

	if (c < 0 || c >= (int)sizeof(seen) || (c < 0x100 && rep &&
						 strchr(rep, c)))
		return 0;
	if (!seen[c]++)
		return 0;
	for (; o->name && o->val != c; o++)
		;
	usage_error("option '--%s' given twice: give it once", o->name);
	return -1;
}

/*
 * A FILE or IMAGE argument (@what) that is "": said to be empty, not
 * ": No such file or directory". Returns true if it is.
 */
bool empty_path(const char *what, const char *path)
{
	if (!path || *path)
		return false;
	usage_error("%s: the path is empty", what);
	return true;
}

/*
 * getopt_long() over the arguments of the command being parsed
 * (parse_begin()), long options typed whole, none given twice but the
 * @repeatable ones. Returns the option, -1 at the end, or 0 after
 * reporting a usage error (the caller returns 2).
 */
int cmd_opt(int argc, char **argv)
{
	const struct option *longopts = cmd_longopts(parsing), *o;
	const char *abbr;
	int idx = -1, c;

	c = getopt_long(argc, argv, parsing->shortopts ? parsing->shortopts :
			HELP_SHORTOPTS, longopts, &idx);
	if (c != -1 && c != '?' && c != ':') {
		abbr = abbreviated(argv, longopts, idx);
		if (abbr) {
			unknown_opt(abbr);
			return 0;
		}
		return repeated(c, longopts) ? 0 : c;
	}
	if (c == '?') {
		abbr = argv[optind - 1];
		o = strncmp(abbr, "--", 2) ? NULL :
		    long_opt_named(longopts, abbr + 2);
		/* --NAME=ARG of an option without one. */
		if (o)
			usage_error("option '--%s' takes no argument", o->name);
		else
			unknown_opt(strncmp(abbr, "--", 2) ?
				    (char[3]){ '-', (char)optopt, 0 } : abbr);
		return 0;
	}
	if (c == ':') {
		usage_error("option '%s' needs an argument", argv[optind - 1]);
		return 0;
	}
	return c;
}

/* Parse a command whose only option is --help. Return: exit status or -1. */
int help_opt(int argc, char **argv)
{
	int c;

	while ((c = cmd_opt(argc, argv)) != -1)
		return c == 'h' ? print_help() : EXIT_ERR;
	return -1;
}

/* -j (--json) or -p (--pretty): set the output format and return true. */
bool json_flag(int c)
{
	if (c != 'j' && c != 'p')
		return false;
	json_output = true;
	pretty_output |= c == 'p';
	return true;
}

/* Parse a command whose options are --json, --pretty and --help. */
int json_opt(int argc, char **argv)
{
	int c;

	while ((c = cmd_opt(argc, argv)) != -1) {
		if (json_flag(c))
			continue;
		return c == 'h' ? print_help() : EXIT_ERR;
	}
	return -1;
}

/*
 * Digits only, as typed: no sign, space or other base (strtoull() takes
 * " -5" as 2^64 - 5 and, in base 0, "010" as 8). U64_HEX: "0x" and hex
 * digits too (a seed, as inspect prints it). A number past 2^64 - 1 is
 * too large, said with the limit, or with U64_SATURATE 2^64 - 1 (for an
 * option whose caller says its own, smaller range).
 */
int parse_u64(const char *opt, const char *s, unsigned int flags, uint64_t *v)
{
	unsigned long long x;
	int base = 10;
	char *end;

	if ((flags & U64_HEX) &&
	    (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2))) {
		s += 2;
		base = 16;
	}
	errno = 0;
	if (!*s || strspn(s, base == 16 ? "0123456789abcdefABCDEF" :
			  "0123456789") != strlen(s))
		goto bad;
	x = strtoull(s, &end, base);
	if (errno == ERANGE && !(flags & U64_SATURATE)) {
		if (base == 16)
			usage_error("%s: '%s' is too large (at most 0x%llx)",
				    opt, s - 2, ULLONG_MAX);
		else
			usage_error("%s: '%s' is too large (at most %llu)",
				    opt, s, ULLONG_MAX);
		return -1;
	}
	if ((errno && errno != ERANGE) || *end)
		goto bad;
	*v = x;
	return 0;
bad:
	usage_error("%s: '%s' is not a valid unsigned integer", opt,
		    base == 16 ? s - 2 : s);
	return -1;
}

/* A decimal fraction or exponent form, as typed (no space, sign or hex). */
int parse_double(const char *opt, const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if ((!isdigit((unsigned char)*s) && *s != '.') ||
	    strspn(s, "0123456789.eE+-") != strlen(s) || errno || *end ||
	    !isfinite(*v)) {
		usage_error("%s: '%s' is not a number", opt, s);
		return -1;
	}
	return 0;
}

/* One filter option into @o. Return: 1 taken, 0 not ours, -1 bad. */
static int filter_opt(int c, struct mf_create_opts *o)
{
	const struct libmf_type *t;
	uint64_t fp = 0;

	switch (c) {
	case OPT_PREFIXES:
	case OPT_PREFIX_LENGTHS:
		return prefix_opt(c, o);
	case 't':
		t = libmf_type_named(optarg);
		if (!t || !(t->flags & LIBMF_TYPE_CLI)) {
			usage_error("--type must be %s, not '%s'",
				    type_words(", ", " or "), optarg);
			return -1;
		}
		o->type = t->type;	/* grow: as --grow */
		return 1;
	case 'c':
		return parse_u64("--capacity", optarg, 0, &o->capacity) ? -1 : 1;
	case 'e':
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
		/* The library's rule: quarter bits exactly, nothing rounded. */
		if (mf_create_check(&(struct mf_create_opts){
			.type = MF_TYPE_BLOOM, .capacity = 1,
			.bits_per_key = o->bits_per_key }, NULL, NULL, NULL)) {
			usage_error("--bits-per-key must be %d to %d in steps of 0.25, not '%s'",
				    CLI_BPK_MIN, CLI_BPK_MAX, optarg);
			return -1;
		}
		return 1;
	case 'f':
		if (parse_u64("--fingerprint-bits", optarg, U64_SATURATE, &fp))
			return -1;
		if (fp != 8 && fp != 12 && fp != 16) {
			usage_error("--fingerprint-bits must be 8, 12 or 16");
			return -1;
		}
		o->fingerprint_bits = fp;
		return 1;
	case OPT_KEYED:
		o->keyed = true;
		return 1;
	case 's':
		if (parse_u64("--seed", optarg, U64_HEX, &o->seed))
			return -1;
		o->fixed_seed = true;
		return 1;
	case OPT_LAYOUT:
		if (!strcmp(optarg, "line64")) {
			o->layout = MF_LAYOUT_LINE64;
		} else if (!strcmp(optarg, "split32")) {
			o->layout = MF_LAYOUT_SPLIT32;
		} else {
			usage_error("--layout must be split32 or line64, not '%s'", optarg);
			return -1;
		}
		return 1;
	case OPT_HASH:
		if (!strcmp(optarg, "xxh64")) {
			o->hash_algo = MF_HASH_XXH64;
		} else if (!strcmp(optarg, "xxh3")) {
			o->hash_algo = MF_HASH_XXH3;
		} else if (!strcmp(optarg, "siphash24")) {
			o->hash_algo = MF_HASH_SIPHASH24;
		} else {
			usage_error("--hash must be xxh64, xxh3 or siphash24, not '%s'",
				    optarg);
			return -1;
		}
		return 1;
	default:
		return 0;
	}
}

/* --fpr against what a filter of type @type can reach. */
static int fpr_in_range(const struct mf_create_opts *o)
{
	bool bloom = o->type == MF_TYPE_BLOOM;
	uint64_t min = !bloom ? CLI_CUCKOO_FPR_MIN_PPB :
		       o->layout == MF_LAYOUT_SPLIT32 ? CLI_SPLIT32_FPR_MIN_PPB :
		       CLI_BLOOM_FPR_MIN_PPB;

	/* In parts per billion, rounded as the library rounds. */
	if ((uint64_t)(o->fpr * 1e9 + 0.5) >= min)
		return 0;
	usage_error("--fpr %g is out of range for a %s filter: %g to below 1 (%s)",
		    o->fpr, bloom ? "Bloom" : "cuckoo", min / 1e9,
		    bloom ? "what 64 bits per key reach" :
			    "what 16-bit fingerprints reach");
	return -1;
}

/*
 * --fpr against what a window or growing filter reaches, their types set:
 * each of a window's G generations is sized for fpr / G, a growing
 * filter's first sub-filter for fpr (1 - ratio) (core/window.c,
 * core/grow.c), and each must be what 64 bits per key reach or more.
 * Return: 0, or -1 after saying the range.
 */
static int fpr_reachable(const struct mf_create_opts *o,
			 const struct mf_window_opts *w,
			 const struct mf_grow_opts *g)
{
	double ratio = g && g->ratio != 0 ? g->ratio : 0.5, min;
	unsigned int gens = w ? w->generations : 0;

	if (o->fpr == 0 || (!w && !g))
		return 0;
	if (w)
		min = CLI_BLOOM_FPR_MIN_PPB * (double)gens;
	else
		min = CLI_BLOOM_FPR_MIN_PPB / (1 - ratio);
	/* In parts per billion, rounded as the library rounds. */
	if ((uint64_t)(o->fpr * 1e9 + 0.5) >= min)
		return 0;
	if (w)
		usage_error("--fpr %g is out of range for a window filter of %u generations: %.4g to below 1 (each generation is sized for fpr / %u, at least what 64 bits per key reach)",
			    o->fpr, gens, min / 1e9, gens);
	else
		usage_error("--fpr %g is out of range for a growing filter with --grow-ratio %g: %.4g to below 1 (its first sub-filter is sized for fpr x (1 - %g), at least what 64 bits per key reach)",
			    o->fpr, ratio, min / 1e9, ratio);
	return -1;
}

/*
 * A duration: N[ms|s|m|h], seconds without a unit, 1 ms to @max ms (365
 * days: --window 99999999999h is a typing error, not a window).
 */
static int parse_duration_ms(const char *opt, const char *s, uint64_t max,
			     uint64_t *ms)
{
	static const struct { const char *unit; uint64_t ms; } units[] = {
		{ "", 1000 }, { "ms", 1 }, { "s", 1000 }, { "m", 60000 },
		{ "h", 3600000 },
	};
	char *end;
	uint64_t v;
	size_t i;

	errno = 0;
	v = strtoull(s, &end, 10);
	for (i = 0; !errno && isdigit((unsigned char)*s) && end != s &&
	     i < ARRAY_SIZE(units); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		if (!v || v > max / units[i].ms)
			break;
		*ms = v * units[i].ms;
		return 0;
	}
	usage_error("%s: '%s' is not a duration of 1 ms to %" PRIu64
		    " days (N, Nms, Ns, Nm or Nh)", opt, s,
		    max / (24 * 3600 * 1000));
	return -1;
}

/* One of a window filter's options (WINDOW_OPTS_HELP): 0, or -1. */
static int window_opt(int c, struct window_args *a)
{
	switch (c) {
	case 'w':
		return parse_duration_ms("--window", optarg, CLI_WINDOW_MAX_MS,
					 &a->window_ms);
	case 'g':
		if (parse_u64("--generations", optarg, U64_SATURATE, &a->gens))
			return -1;
		if (a->gens < 2 || a->gens > 16) {
			usage_error("--generations must be 2 to 16");
			return -1;
		}
		return 0;
	case 'R':
		a->w.rotate_by_count = true;
		return 0;
	}
	return 0;
}

/*
 * Any window option makes a window filter, G generations of one Bloom
 * filter's shape: before filter_opts_finish(), which then sees a Bloom
 * filter. Fills in @a->w and @a->window: 0, or -1.
 */
static int window_opts_check(struct mf_create_opts *o, struct window_args *a)
{
	struct mf_window_opts *w = &a->w;

	a->window = a->window_ms || a->gens || w->rotate_by_count;
	if (!a->window)
		return 0;
	if (o->type && o->type != MF_TYPE_BLOOM) {
		usage_error("--window, --generations and --rotate-by-count make a window filter (Bloom generations), not a %s one",
			    type_name(o->type));
		return -1;
	}
	o->type = MF_TYPE_BLOOM;
	w->generations = a->gens ? a->gens : 4;
	/* Keys stay at least the window, at most G / (G - 1) of it. */
	w->period_ms = a->window_ms / (w->generations - 1);
	if (a->window_ms && !w->period_ms) {
		usage_error("--window is shorter than its %u - 1 periods of 1 ms",
			    w->generations);
		return -1;
	}
	return 0;
}

/* One of a growing filter's options (GROW_OPTS_HELP): 0, or -1. */
static int grow_opt(int c, struct mf_grow_opts *g)
{
	uint64_t v;

	switch (c) {
	case OPT_GROW_FACTOR:
		if (parse_u64("--grow-factor", optarg, U64_SATURATE, &v))
			return -1;
		if (v < 1 || v > 16) {
			usage_error("--grow-factor must be 1 to 16");
			return -1;
		}
		g->factor = v;
		return 0;
	case OPT_GROW_RATIO:
		if (parse_double("--grow-ratio", optarg, &g->ratio))
			return -1;
		/* The library's rule: whole percent, nothing rounded. */
		if (g->ratio == 0 ||
		    mf_create_check(&(struct mf_create_opts){
			.type = libmf_type_with(LIBMF_OPTS_GROW)->type,
			.capacity = 1, .fpr = 0.01 },
			NULL, &(struct mf_grow_opts){ .sz = sizeof(*g),
			.ratio = g->ratio }, NULL)) {
			usage_error("--grow-ratio must be 0.01 to 0.99 in steps of 0.01, not '%s'",
				    optarg);
			return -1;
		}
		return 0;
	case OPT_GROW_MAX:
		if (parse_u64("--grow-max", optarg, U64_SATURATE, &v))
			return -1;
		if (v < 1 || v > 16) {
			usage_error("--grow-max must be 1 to 16");
			return -1;
		}
		g->max_subs = v;
		return 0;
	}
	return 0;
}

/*
 * A growing filter is asked for by --grow (*@grow) or --type grow (which
 * set *@grow), never by its options alone (@grow_param: the first one
 * given, or 0). It is Bloom sub-filters sized by a rate: before
 * filter_opts_finish(), which then sees a Bloom filter. Return: 0, or -1.
 */
static int grow_opts_check(struct mf_create_opts *o, bool window, bool *grow,
			   int grow_param)
{
	static const char *const names[] = {
		[OPT_GROW_FACTOR - OPT_GROW_FACTOR] = "--grow-factor",
		[OPT_GROW_RATIO - OPT_GROW_FACTOR] = "--grow-ratio",
		[OPT_GROW_MAX - OPT_GROW_FACTOR] = "--grow-max",
	};

	*grow |= libmf_type_has(o->type, LIBMF_OPTS_GROW);
	if (!*grow) {
		if (!grow_param)
			return 0;
		usage_error("%s needs --grow (or --type grow)",
			    names[grow_param - OPT_GROW_FACTOR]);
		return -1;
	}
	if (window || (o->type && o->type != MF_TYPE_BLOOM &&
		       !libmf_type_has(o->type, LIBMF_OPTS_GROW))) {
		usage_error("--grow makes a growing Bloom filter: not with --type cuckoo or --window");
		return -1;
	}
	if (o->bits_per_key != 0) {
		usage_error("--grow sizes its sub-filters by --fpr, not --bits-per-key");
		return -1;
	}
	o->type = MF_TYPE_BLOOM;
	return 0;
}

/* Check the filter options as a whole and fill in the defaults. */
static int filter_opts_finish(struct mf_create_opts *o)
{
	if (!o->type) {
		usage_error("--type %s is required", type_words("|", "|"));
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
	if (o->hash_algo == MF_HASH_SIPHASH24)
		o->keyed = true;
	if (o->keyed && o->hash_algo && o->hash_algo != MF_HASH_SIPHASH24) {
		usage_error("--keyed hashes with siphash24, not --hash %s",
			    hash_name(o->hash_algo));
		return -1;
	}
	if (o->keyed && o->fixed_seed) {
		usage_error("--keyed and --seed exclude each other");
		return -1;
	}
	if (o->fpr != 0 && fpr_in_range(o))
		return -1;
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
		if (o->layout) {
			usage_error("--layout is for Bloom, window and growing filters");
			return -1;
		}
		if (o->fpr != 0 && o->fingerprint_bits) {
			usage_error("a cuckoo filter takes --fpr or --fingerprint-bits, not both");
			return -1;
		}
		if (o->fpr == 0 && !o->fingerprint_bits)
			o->fingerprint_bits = 12;
	}
	return 0;
}

/*
 * One option of a new filter (NEW_FILTER_OPTS) into @a, whichever command
 * reads it. Return: 1 taken, 0 not one of them, -1 bad (reported).
 */
int filter_args_opt(int c, struct filter_args *a)
{
	switch (c) {
	case 'G':
		a->grow = true;
		return 1;
	case OPT_GROW_FACTOR:
	case OPT_GROW_RATIO:
	case OPT_GROW_MAX:
		a->grow_param = a->grow_param ? a->grow_param : c;
		return grow_opt(c, &a->g) ? -1 : 1;
	case 'w':
	case 'g':
	case 'R':
		return window_opt(c, &a->wa) ? -1 : 1;
	}
	return filter_opt(c, &a->o);
}

/*
 * The new filter's options checked as a whole, the defaults filled in,
 * and its type set (window, growing or what --type said): @a->o, with
 * @a->window or @a->growing, is what to create. Return: 0, or -1
 * (reported).
 */
int filter_args_finish(struct filter_args *a)
{
	if (window_opts_check(&a->o, &a->wa) ||
	    grow_opts_check(&a->o, a->wa.window, &a->grow, a->grow_param) ||
	    filter_opts_finish(&a->o))
		return -1;
	a->window = a->wa.window ? &a->wa.w : NULL;
	a->growing = a->grow ? &a->g : NULL;
	if (a->window)
		a->o.type = libmf_type_with(LIBMF_OPTS_WINDOW)->type;
	if (a->growing)
		a->o.type = libmf_type_with(LIBMF_OPTS_GROW)->type;
	return fpr_reachable(&a->o, a->window, a->growing);
}

static bool valid_name(const char *name)
{
	size_t len = strlen(name);

	if (!len || len >= MF_NAME_MAX)
		return false;
	return strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789._-") == len;
}

/* Exactly one NAME and at most @max_extra more positional arguments. */
int positional(int argc, char **argv, int max_extra, const char **name,
	       const char **extra)
{
	int n = argc - optind;

	if (n < 1) {
		usage_error("missing filter NAME");
		return -1;
	}
	if (n > 1 + max_extra) {
		usage_error("unexpected argument '%s'",
			    argv[optind + 1 + max_extra]);
		return -1;
	}
	*name = argv[optind];
	if (extra)
		*extra = n > 1 ? argv[optind + 1] : NULL;
	return check_name(*name);
}

/* 0 for a valid filter name, else -1 after an error saying why. */
int check_name(const char *name)
{
	if (valid_name(name))
		return 0;
	if (!image_hint(name))
		usage_error("invalid filter name '%s' (1-%d characters of "
			    "A-Z a-z 0-9 . _ -)", name, MF_NAME_MAX - 1);
	return -1;
}

/*
 * A filter NAME that is not one but names a file: say how this command
 * reads an image file (info: inspect; query: --image ...). Return: 1 if
 * said.
 */
int image_hint(const char *name)
{
	static const struct { const char *cmd, *how; } hints[] = {
		{ "info", "'%s inspect %s' shows an image" },
		{ "query", "'%s query --image %s' queries an image" },
		{ "count", "'%s count --image %s' counts in an image" },
		{ "add", "'%s add --image %s' adds to an image" },
		{ "seen", "'%s seen --image %s' tests and adds to an image" },
		{ "rotate", "'%s rotate --image %s' rotates an image" },
		{ "load", "'%s load NAME < %s' loads an image" },
	};
	struct stat st;
	char how[256];
	size_t i;

	if (stat(name, &st) || !S_ISREG(st.st_mode))
		return 0;
	for (i = 0; i < ARRAY_SIZE(hints); i++)
		if (!strcmp(cur->name, hints[i].cmd))
			break;
	if (i == ARRAY_SIZE(hints))
		return 0;
	snprintf(how, sizeof(how), hints[i].how, prog, name);
	cli_error("%s: no filter by that name, but a file: %s", name, how);
	return 1;
}

/* Why mf_open_device() failed with @err. */
static void device_error(int err)
{
	if (err == -ENOENT || err == -ENXIO || err == -ENODEV)
		cli_error("%s: no such device (is memfilter.ko loaded?)",
			  MF_DEVICE_PATH);
	else
		fail(MF_DEVICE_PATH, err);
}

int open_device(void)
{
	int fd = mf_open_device();

	if (fd < 0)
		device_error(fd);
	return fd;
}

/*
 * --replace: put the new filter @fd (no name) under @name in one step,
 * publishing it if no filter has the name. 0, or EXIT_ERR after saying why.
 */
int replace_name(int dev, const char *name, int fd)
{
	int ret = mf_replace(dev, name, fd, MF_REPLACE_PUBLISH);

	if (ret == -ENOTTY)
		cli_error("%s: this kernel's memfilter cannot replace a filter in one step (no 'replace' in 'memfilterctl version'): rm it, then create or load",
			  name);
	else if (ret == -EOPNOTSUPP)
		cli_error("%s: a netfilter dedup attachment holds the name, and the new filter cannot test-and-add (cuckoo): detach it first",
			  name);
	else if (ret)
		fail(name, ret);
	return ret ? EXIT_ERR : 0;
}

/*
 * A published filter's fd, or a negative value after reporting why (a
 * NAME that is a file instead: how to read it as an image).
 */
int open_filter(const char *name)
{
	int dev = mf_open_device(), fd;

	if (dev < 0 && image_hint(name))
		return dev;
	if (dev < 0) {
		device_error(dev);
		return dev;
	}
	fd = mf_open(dev, name);
	close(dev);
	if (fd == -ENOENT && image_hint(name))
		return fd;
	if (fd < 0)
		cli_error("%s: %s", name, MF_CALL_STRERROR(mf_open, fd));
	return fd;
}

/* A Bloom layout as --layout and the output spell it. */
const char *layout_name(int layout)
{
	return layout == MF_LAYOUT_SPLIT32 ? "split32" : "line64";
}

/* A hash algorithm as --hash and the JSON output spell it. */
const char *hash_name(int algo)
{
	switch (algo) {
	case MF_HASH_XXH64:
		return "xxh64";
	case MF_HASH_XXH3:
		return "xxh3";
	case MF_HASH_SIPHASH24:
		return "siphash24";
	default:
		return "unknown";
	}
}

const char *type_name(int type)
{
	const struct libmf_type *t = libmf_type_of(type);

	return t ? t->name : "unknown";
}

/*
 * The names --type takes, from the type table: "bloom, cuckoo or grow"
 * with @sep ", " and @last " or ". The result is a static buffer.
 */
const char *type_words(const char *sep, const char *last)
{
	static char buf[128];
	size_t i, n = 0, len = 0, words = 0;

	for (i = 0; i < LIBMF_TYPES_N; i++)
		words += !!(libmf_types[i].flags & LIBMF_TYPE_CLI);
	buf[0] = '\0';
	for (i = 0; i < LIBMF_TYPES_N && len < sizeof(buf); i++) {
		if (!(libmf_types[i].flags & LIBMF_TYPE_CLI))
			continue;
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s",
				!n ? "" : n + 1 < words ? sep : last,
				libmf_types[i].name);
		n++;
	}
	return buf;
}

/*
 * Say that @what holds more keys than its capacity: a warning, or with
 * @strict an error (the caller then fails).
 */
void overfill_report(const char *what, const struct mf_info *i, bool strict)
{
	void (*say)(const char *fmt, ...) = strict ? cli_error : cli_warn;
	double m = i->fill_max, n;
	char rate[32];

	/* In parts per billion: 0 is a rate below one. */
	if (i->est_fpr > 0)
		snprintf(rate, sizeof(rate), "%.3g", i->est_fpr);
	else
		snprintf(rate, sizeof(rate), "below 1e-09");
	/*
	 * A Bloom filter counts adds, not distinct keys; at most half full,
	 * its bits tell how many distinct keys set them, n = -(m / k)
	 * ln(1 - fill / m). Far fewer than counted: keys added again (yes a
	 * | head -1000), which need not overfill the table at all.
	 */
	if (i->type == MF_TYPE_BLOOM && i->k && i->fill * 2 <= i->fill_max) {
		n = -(m / i->k) * log1p(-(double)i->fill / m);
		if (n * 2 < i->keys) {
			say("%s: %" PRIu64 " keys counted for capacity %" PRIu64
			    ", but its bits are those of about %.0f distinct key%s (estimated false-positive rate %s): a key added again is counted again%s%s",
			    what, i->keys, i->capacity, n,
			    n < 1.5 ? "" : "s", rate,
			    n > 1.1 * i->capacity ?	/* past its error */
			    "; use a larger --capacity" : "",
			    strict ? " (--strict)" : "");
			return;
		}
	}
	say("%s: overfilled: %" PRIu64 " keys for capacity %" PRIu64
	    " (estimated false-positive rate %s): use a larger --capacity%s",
	    what, i->keys, i->capacity, rate, strict ? " (--strict)" : "");
}

/* A window filter's generations, after info_text(). */
void window_text(const struct mf_window_info *w)
{
	unsigned int j;

	printf("%-18s%u (current %u)\n", "generations:", w->generations,
	       w->current_gen);
	if (w->period_ms)
		printf("%-18s%" PRIu64 " ms\n", "period:", w->period_ms);
	else
		printf("%-18s%s\n", "period:", "none (explicit rotation)");
	printf("%-18s%s\n", "rotate by count:", w->rotate_by_count ? "yes" : "no");
	for (j = 0; j < w->generations; j++)
		printf("  generation %-2u   age %" PRIu64 " ms, %" PRIu64
		       " keys, %" PRIu64 " bits set%s\n", j, w->age_ms[j],
		       w->keys[j], w->fill[j], j == w->current_gen ?
		       " (current)" : "");
}

/* A window filter's generations as fields and a "gens" array. */
void json_window(struct json_writer *jw, const struct mf_window_info *w)
{
	unsigned int j;

	jsonw_uint_field(jw, "generations", w->generations);
	jsonw_uint_field(jw, "current_gen", w->current_gen);
	jsonw_uint_field(jw, "period_ms", w->period_ms);
	jsonw_bool_field(jw, "rotate_by_count", w->rotate_by_count);
	jsonw_name(jw, "gens");
	jsonw_start_array(jw);
	for (j = 0; j < w->generations; j++) {
		jsonw_start_object(jw);
		jsonw_uint_field(jw, "age_ms", w->age_ms[j]);
		jsonw_uint_field(jw, "keys", w->keys[j]);
		jsonw_uint_field(jw, "fill", w->fill[j]);
		jsonw_end_object(jw);
	}
	jsonw_end_array(jw);
}

/* A growing filter's sub-filters, after info_text(). */
void grow_text(const struct mf_grow_info *g)
{
	unsigned int j;

	printf("%-18s%u of at most %u (capacity x%u, rate x%.2f each)\n",
	       "sub-filters:", g->subfilters, g->max_subs, g->factor, g->ratio);
	printf("%-18s%.9g\n", "fpr bound:", g->fpr);
	for (j = 0; j < g->subfilters; j++)
		printf("  sub-filter %-2u   %" PRIu64 " / %" PRIu64 " keys, %"
		       PRIu64 " / %" PRIu64 " bits set, estimated fpr %.6g%s\n",
		       j, g->keys[j], g->capacity[j], g->fill[j],
		       g->fill_max[j], g->est_fpr[j],
		       j + 1 == g->subfilters ? " (newest)" : "");
}

/* A growing filter's sub-filters as a "subfilters" array field. */
void json_grow(struct json_writer *jw, const struct mf_grow_info *g)
{
	unsigned int j;

	jsonw_uint_field(jw, "grow_max", g->max_subs);
	jsonw_uint_field(jw, "grow_factor", g->factor);
	jsonw_float_field(jw, "grow_ratio", "%.2f", g->ratio);
	jsonw_float_field(jw, "fpr_bound", "%.9g", g->fpr);
	jsonw_name(jw, "subfilters");
	jsonw_start_array(jw);
	for (j = 0; j < g->subfilters; j++) {
		jsonw_start_object(jw);
		jsonw_uint_field(jw, "capacity", g->capacity[j]);
		jsonw_uint_field(jw, "keys", g->keys[j]);
		jsonw_uint_field(jw, "fill", g->fill[j]);
		jsonw_uint_field(jw, "fill_max", g->fill_max[j]);
		jsonw_float_field(jw, "est_fpr", "%.9g", g->est_fpr[j]);
		jsonw_end_object(jw);
	}
	jsonw_end_array(jw);
}

/* A writer for one JSON value on stdout, compact unless --pretty. */
struct json_writer *json_begin(void)
{
	struct json_writer *jw = jsonw_new(stdout, pretty_output);

	if (!jw)
		cli_error("%s", strerror(ENOMEM));
	return jw;
}

/* Finish the value; the exit status. */
int json_end(struct json_writer *jw)
{
	if (jsonw_destroy(jw)) {
		cli_error("stdout: %s", strerror(errno ? errno : EIO));
		return EXIT_ERR;
	}
	return 0;
}

/*
 * Table bits per key of capacity: a Bloom filter's as built, a cuckoo
 * filter's from its slots (mf_info's k is then its slots per bucket).
 */
double bits_per_key(const struct mf_info *i)
{
	if (!libmf_type_has(i->type, LIBMF_TYPE_SLOTS))
		return i->bits_per_key;
	return i->capacity ? (double)i->fill_max * i->fingerprint_bits /
			     i->capacity : 0;
}

/*
 * The JSON members info and inspect share, in the same order: "k" is a
 * Bloom filter's probes per key; a cuckoo filter has "slots_per_bucket".
 */
void json_params(struct json_writer *jw, const struct mf_info *i, int layout)
{
	jsonw_string_field(jw, "type", type_name(i->type));
	if (libmf_type_may_have(i->type, LIBMF_TYPE_LAYOUT))
		jsonw_string_field(jw, "layout", layout_name(layout));
	jsonw_string_field(jw, "hash", hash_name(i->hash_algo));
	jsonw_bool_field(jw, "keyed", i->keyed);
	jsonw_hex_u64_field(jw, "seed", i->seed);
	jsonw_uint_field(jw, "capacity", i->capacity);
	jsonw_float_field(jw, "bits_per_key", "%.2f", bits_per_key(i));
	jsonw_uint_field(jw, libmf_type_has(i->type, LIBMF_TYPE_SLOTS) ?
			 "slots_per_bucket" : "k", i->k);
	jsonw_uint_field(jw, "fingerprint_bits", i->fingerprint_bits);
}

void json_fill(struct json_writer *jw, const struct mf_info *i)
{
	jsonw_uint_field(jw, "keys", i->keys);
	jsonw_uint_field(jw, "fill", i->fill);
	jsonw_uint_field(jw, "fill_max", i->fill_max);
	jsonw_float_field(jw, "est_fpr", "%.9g", i->est_fpr);
	jsonw_bool_field(jw, "overfill", i->overfill);
}

/*
 * The published id for info and list: 0 when the filter is not published
 * (or no longer, since mf_info()) or the module predates ids.
 */
int pub_id_of(int fd, const struct mf_info *i, uint32_t *pub_id)
{
	int ret = i->published ? mf_pub_id(fd, pub_id) : -ENOENT;

	if (ret == -ENOENT || ret == -EOPNOTSUPP) {
		*pub_id = 0;
		ret = 0;
	}
	return ret;
}

/*
 * A filter in the kernel as one object (info, list); @wi: a window
 * filter's generations, @gi: a growing filter's sub-filters, or NULL;
 * @pi: its prefix lengths.
 */
void json_info(struct json_writer *jw, const struct mf_info *i, int layout,
	       uint32_t pub_id, const struct mf_window_info *wi,
	       const struct mf_grow_info *gi, const struct mf_prefix_info *pi)
{
	jsonw_start_object(jw);
	jsonw_string_field(jw, "name", i->name);
	json_params(jw, i, layout);
	jsonw_uint_field(jw, "bytes", i->bytes);
	json_fill(jw, i);
	jsonw_bool_field(jw, "published", i->published);
	jsonw_uint_field(jw, "pub_id", pub_id);
	jsonw_uint_field(jw, "adds", i->adds);
	jsonw_uint_field(jw, "queries", i->queries);
	jsonw_uint_field(jw, "hits", i->hits);
	jsonw_uint_field(jw, "deletes", i->deletes);
	jsonw_uint_field(jw, "failed", i->failed);
	jsonw_uint_field(jw, "stash_used", i->stash_used);
	if (wi)
		json_window(jw, wi);
	if (gi)
		json_grow(jw, gi);
	json_prefixes(jw, pi);
	jsonw_end_object(jw);
}

/* Flush stdout; the exit status (2 after saying why it failed). */
int stdout_flush(void)
{
	if (fflush(stdout) || ferror(stdout)) {
		cli_error("stdout: %s", strerror(errno ? errno : EIO));
		return EXIT_ERR;
	}
	return 0;
}

/* A number from the line of @path that starts with @key, or 0. */
static uint64_t read_value(const char *path, const char *key)
{
	char line[256];
	uint64_t v = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key))) {
			v = strtoull(line + strlen(key), NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/* The memory cgroup (v2) of this process: memory.max less memory.current. */
static uint64_t cgroup_room(void)
{
	char line[512], path[600];
	uint64_t max, used;
	FILE *f = fopen("/proc/self/cgroup", "r");
	bool found = false;

	if (!f)
		return UINT64_MAX;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, "0::", 3);
	fclose(f);
	if (!found)
		return UINT64_MAX;
	line[strcspn(line, "\n")] = '\0';
	snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.max", line + 3);
	f = fopen(path, "r");
	if (!f)
		return UINT64_MAX;
	found = fscanf(f, "%" SCNu64, &max) == 1;
	fclose(f);
	if (!found)	/* "max" */
		return UINT64_MAX;
	snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.current",
		 line + 3);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%" SCNu64, &used) != 1)
		used = 0;
	if (f)
		fclose(f);
	return used < max ? max - used : 0;
}

/*
 * The memory this process can still take, and which limit says so: the
 * least of MemAvailable (/proc/meminfo: what the system can give without
 * swapping, which a filter's random accesses would make useless), the
 * room left under RLIMIT_AS and RLIMIT_DATA, and the memory cgroup's
 * memory.max less its memory.current. UINT64_MAX when none is known.
 */
static uint64_t memory_available(const char **which)
{
	struct rlimit rl;
	uint64_t room = UINT64_MAX, v, used;

	*which = NULL;
	v = read_value("/proc/meminfo", "MemAvailable:");
	if (v) {
		room = v * 1024;
		*which = "MemAvailable in /proc/meminfo";
	}
	if (!getrlimit(RLIMIT_AS, &rl) && rl.rlim_cur != RLIM_INFINITY) {
		used = read_value("/proc/self/status", "VmSize:") * 1024;
		v = rl.rlim_cur > used ? rl.rlim_cur - used : 0;
		if (v < room) {
			room = v;
			*which = "RLIMIT_AS (ulimit -v)";
		}
	}
	if (!getrlimit(RLIMIT_DATA, &rl) && rl.rlim_cur != RLIM_INFINITY) {
		used = read_value("/proc/self/status", "VmData:") * 1024;
		v = rl.rlim_cur > used ? rl.rlim_cur - used : 0;
		if (v < room) {
			room = v;
			*which = "RLIMIT_DATA (ulimit -d)";
		}
	}
	v = cgroup_room();
	if (v < room) {
		room = v;
		*which = "the memory cgroup's memory.max";
	}
	return room;
}

/* A size in MB, GB or TB (decimal, as df -H prints them). */
static const char *unit(uint64_t bytes)
{
	return bytes >= 1000000000000ULL ? "TB" : bytes >= 1000000000 ? "GB" :
	       "MB";
}

static double scaled(uint64_t bytes)
{
	return bytes / (bytes >= 1000000000000ULL ? 1e12 :
			bytes >= 1000000000 ? 1e9 : 1e6);
}

/*
 * Before an offline filter of these options is made: refuse at once one
 * whose table the memory left cannot hold, saying how much it needs.
 * Return: 0 (a size the library refuses is left to it to say), or -1.
 */
int memory_check(const char *what, const struct mf_create_opts *o,
		 const struct mf_window_opts *w, const struct mf_grow_opts *g)
{
	uint64_t need, room;
	const char *which;

	if (mf_offline_size(o, w, g, &need))
		return 0;
	room = memory_available(&which);
	if (need <= room)
		return 0;
	cli_error("%s: the filter's table needs %" PRIu64 " bytes (%.1f %s), more than the %" PRIu64 " bytes (%.1f %s) %s leaves: lower --capacity or raise --fpr",
		  what, need, scaled(need), unit(need), room, scaled(room),
		  unit(room), which);
	return -1;
}
