// SPDX-License-Identifier: GPL-2.0
/*
 * memfilterctl: command-line front end to /dev/memfilter.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/memfilter.h>

#include "memfilter.h"

static const char *prog = "memfilterctl";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s COMMAND [ARGS]\n"
		"\n"
		"commands:\n"
		"  version     print this tool's and the kernel's ABI version and features\n"
		"  help        this text\n"
		"\n"
		"Exit status: 0 on success, 2 on error.\n", prog);
}

static int cmd_version(int argc, char **argv)
{
	struct mf_api_info info;
	int fd, ret;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: %s version\n"
		       "Open %s, do the ABI handshake, print versions and features.\n",
		       prog, MF_DEVICE_PATH);
		return 0;
	}
	printf("memfilterctl ABI version %u\n", MEMFILTER_API_VERSION);
	fd = mf_open_device();
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, MF_DEVICE_PATH,
			mf_strerror(fd));
		return 2;
	}
	ret = mf_api(fd, &info);
	close(fd);
	if (ret) {
		fprintf(stderr, "%s: handshake: %s\n", prog, mf_strerror(ret));
		return 2;
	}
	printf("kernel ABI version %u\nfeatures:", info.api_version);
	if (info.features & MEMFILTER_FEAT_HASH_XXH64)
		printf(" hash-xxh64");
	if (info.features & MEMFILTER_FEAT_HASH_SIPHASH)
		printf(" hash-siphash24");
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "version"))
		return cmd_version(argc - 1, argv + 1);
	fprintf(stderr, "%s: unknown command '%s' (try '%s help')\n", prog,
		argv[1], prog);
	return 2;
}
