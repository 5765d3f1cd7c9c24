// SPDX-License-Identifier: GPL-2.0
/*
 * memfilterctl: command-line front end to /dev/memfilter and to filter
 * images. This file parses the global options, dispatches to the command
 * tables (filter.c, image.c) and answers help and version.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <string.h>
#include <unistd.h>

#include <linux/memfilter.h>

#include "memfilterctl.h"

static int cmd_version(int argc, char **argv);

static const struct command main_commands[] = {
	{ .name = "version", .fn = cmd_version,
	  .usage = "",
	  .help = "Print this tool's version and ABI version, then open\n"
	  MF_DEVICE_PATH ", do the ABI handshake and print the kernel's ABI\n"
	  "version and features ('memfilterctl --version' prints only the\n"
	  "first line and needs no device).\n" },
};

static const size_t main_commands_n = ARRAY_SIZE(main_commands);

const struct command_table command_tables[] = {
	{ filter_commands, &filter_commands_n },
	{ image_commands, &image_commands_n },
	{ nf_commands, &nf_commands_n },
	{ main_commands, &main_commands_n },
};
const size_t command_tables_n = ARRAY_SIZE(command_tables);

static const struct option global_options[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "pretty", no_argument, NULL, 'p' },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{}
};

/* The options before the command (its name is none). */
const struct command global_command = {
	.name = "", .opts = global_options, .shortopts = "+:jpVh",
};

static void print_version(void)
{
	printf("%s %s\n", prog, MEMFILTER_VERSION);
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
		{ MEMFILTER_FEAT_WINDOW, "window" },
		{ MEMFILTER_FEAT_TEST_AND_ADD, "test-and-add" },
		{ MEMFILTER_FEAT_BPF_KFUNCS, "bpf-kfuncs" },
		{ MEMFILTER_FEAT_NETFILTER, "netfilter" },
		{ MEMFILTER_FEAT_COUNT, "count" },
		{ MEMFILTER_FEAT_GROW, "grow" },
		{ MEMFILTER_FEAT_PUB_ID, "pub-id" },
		{ MEMFILTER_FEAT_HASH_XXH3, "hash-xxh3" },
		{ MEMFILTER_FEAT_HASH_DEFAULT_XXH3, "hash-default-xxh3" },
		{ MEMFILTER_FEAT_REPLACE, "replace" },
		{ MEMFILTER_FEAT_PREFIXES, "prefixes" },
		{ MEMFILTER_FEAT_LAYOUTS, "layouts" },
	};
	struct mf_api_info info;
	uint64_t unnamed;
	int fd, ret;
	size_t i;

	ret = help_opt(argc, argv);
	if (ret >= 0)
		return ret;
	if (optind < argc) {
		usage_error("unexpected argument '%s'", argv[optind]);
		return EXIT_ERR;
	}
	print_version();
	printf("%s ABI version %u\n", prog, MEMFILTER_API_VERSION);
	fflush(stdout);
	fd = open_device();
	if (fd < 0)
		return EXIT_ERR;
	ret = mf_api(fd, &info);
	close(fd);
	if (ret)
		return fail("handshake", ret);
	printf("kernel ABI version %u\nfeatures:", info.api_version);
	unnamed = info.features;
	for (i = 0; i < ARRAY_SIZE(feats); i++) {
		if (info.features & feats[i].bit)
			printf(" %s", feats[i].name);
		unnamed &= ~feats[i].bit;
	}
	/* A newer module's bits, by number. */
	for (i = 0; i < 64; i++)
		if (unnamed & (1ULL << i))
			printf(" bit%zu", i);
	printf("\n");
	return stdout_flush();
}

static void usage(FILE *f)
{
	size_t t, i;

	fprintf(f, "usage: %s [GLOBAL OPTIONS] COMMAND [ARGS]\n\ncommands:\n",
		prog);
	for (t = 0; t < command_tables_n; t++)
		for (i = 0; i < *command_tables[t].n; i++)
			fprintf(f, "  %-8s %s\n", command_tables[t].cmds[i].name,
				command_tables[t].cmds[i].usage);
	fprintf(f, "  help     [COMMAND]: this text, or COMMAND --help\n\n"
		"global options:\n"
		"  -j, --json     JSON output (info, list, inspect), compact\n"
		"  -p, --pretty   indented JSON output (implies --json)\n"
		"  -V, --version  print the version of %s and exit\n"
		"  -h, --help     this text\n\n"
		"'%s help COMMAND' describes a command. Exit status: 0 on\n"
		"success (query: some key was printed or counted), 1 when query\n"
		"prints or counts no key, 2 on any error (one line on stderr).\n",
		prog, prog);
}

static const struct command *find_command(const char *name)
{
	size_t t, i;

	for (t = 0; t < command_tables_n; t++)
		for (i = 0; i < *command_tables[t].n; i++)
			if (!strcmp(name, command_tables[t].cmds[i].name))
				return &command_tables[t].cmds[i];
	return NULL;
}

/* Global options before the command. Return: exit status, or -1 to go on. */
static int global_opts(int argc, char **argv)
{
	int c;

	cur = &global_command;
	parse_begin(&global_command);
	opterr = 0;
	while ((c = cmd_opt(argc, argv)) != -1) {
		if (json_flag(c))
			continue;
		switch (c) {
		case 'V':
			print_version();
			return stdout_flush();
		case 'h':
			usage(stdout);
			return stdout_flush();
		default:
			return EXIT_ERR;
		}
	}
	return -1;
}

/* help [COMMAND]: the list of commands, or COMMAND --help. */
static int help_command(int argc, char **argv)
{
	if (argc - optind > 2) {
		cli_error("help: unexpected argument '%s' (try '%s help')",
			  argv[optind + 2], prog);
		return EXIT_ERR;
	}
	/* help --help, as every command's --help: this help. */
	if (argc - optind < 2 || !strcmp(argv[optind + 1], "help") ||
	    !strcmp(argv[optind + 1], "--help") ||
	    !strcmp(argv[optind + 1], "-h")) {
		usage(stdout);
		return stdout_flush();
	}
	cur = find_command(argv[optind + 1]);
	if (!cur) {
		cli_error("unknown command '%s' (try '%s help')",
			  argv[optind + 1], prog);
		return EXIT_ERR;
	}
	return print_help();
}

int main(int argc, char **argv)
{
	int ret;

	ret = global_opts(argc, argv);
	if (ret >= 0)
		return ret;
	if (optind >= argc) {
		cli_error("missing COMMAND (try '%s help')", prog);
		return EXIT_ERR;
	}
	if (!strcmp(argv[optind], "help"))
		return help_command(argc, argv);
	cur = find_command(argv[optind]);
	if (!cur) {
		cli_error("unknown command '%s' (try '%s help')", argv[optind],
			  prog);
		return EXIT_ERR;
	}
	if (json_output && !cur->json) {
		cli_error("%s has no JSON output", cur->name);
		return EXIT_ERR;
	}
	argc -= optind;
	argv += optind;
	parse_begin(cur);
	return cur->fn(argc, argv);
}
