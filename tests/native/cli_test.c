// SPDX-License-Identifier: GPL-2.0
/*
 * memfilterctl's offline commands (build, inspect, merge, query --image and
 * the option checks that need no device) on the host, built with ASan and
 * UBSan: runs the offline half of tests/cli_test.sh (MF_CLI_OFFLINE=1)
 * with build/native/memfilterctl first on PATH and MF_CLI_ASAN=1 (its
 * memory limits are ASan's, not ulimit -v). The script prints TAP;
 * its exit status is this test's. Run from the top of the tree, as
 * make native-test and scripts/check.sh do.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SCRIPT "tests/cli_test.sh"

int main(void)
{
	char exe[PATH_MAX], *path;
	const char *old = getenv("PATH");
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0) {
		perror("/proc/self/exe");
		return 1;
	}
	exe[n] = '\0';
	if (access(SCRIPT, R_OK)) {
		perror(SCRIPT " (run from the top of the tree)");
		return 1;
	}
	if (asprintf(&path, "%s:%s", dirname(exe), old ? old : "/usr/bin:/bin") < 0)
		return 1;
	if (setenv("PATH", path, 1) || setenv("MF_CLI_OFFLINE", "1", 1) ||
	    setenv("MF_CLI_ASAN", "1", 1))
		return 1;
	free(path);
	execl("/bin/sh", "sh", SCRIPT, (char *)NULL);
	perror("/bin/sh");
	return 1;
}
