// SPDX-License-Identifier: GPL-2.0
/*
 * Time per MEMFILTER_IOC_REPLACE and EXCHANGE, run in a guest against the
 * real module (bench/replace-bench.sh: Debian's stock 6.12 kernel, no
 * KASAN, QEMU TCG): N replaces of one published name between two filters,
 * then N exchanges of two names, against two yardsticks from the same
 * process: the API handshake on /dev/memfilter (the cheapest ioctl: the
 * system call, copy_struct_from_user() of 24 bytes and a reply) and the
 * non-atomic way to move a name, UNPUBLISH of one filter then PUBLISH of
 * the other (two ioctls, with a moment where the name has no filter, and
 * a new id each time). Emulated times are not hardware times: the report
 * gives the ratios to API beside the guest nanoseconds. A benchmark: it
 * checks only that every call succeeded.
 *
 *   replace_bench [N [ROUNDS]]   (default 2000 calls, 15 rounds)
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <linux/memfilter.h>

#define NAME	"bench.replace"
#define OTHER	"bench.replace.other"
#define MAXR	64

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "replace_bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int bloom(int dev, const char *name)
{
	struct memfilter_create c = {
		.size = sizeof(c), .type = MEMFILTER_TYPE_BLOOM,
		.capacity = 1000, .bits_per_key_q4 = 40,
	};

	if (name)
		strcpy(c.name, name);
	if (ioctl(dev, MEMFILTER_IOC_CREATE, &c))
		die("CREATE");
	return c.out_fd;
}

static void name_op(int fd, unsigned long cmd, const char *name)
{
	struct memfilter_name n = { .size = sizeof(n) };

	if (name)
		strcpy(n.name, name);
	if (ioctl(fd, cmd, &n))
		die(cmd == MEMFILTER_IOC_PUBLISH ? "PUBLISH" : "UNPUBLISH");
}

enum { API, REPLACE, EXCHANGE, REPUBLISH, NOPS };

static const char *const op_names[NOPS] = {
	[API] = "API handshake (yardstick: the cheapest ioctl)",
	[REPLACE] = "REPLACE of a published name (atomic)",
	[EXCHANGE] = "EXCHANGE of two published names (atomic)",
	[REPUBLISH] = "UNPUBLISH + PUBLISH (two ioctls, not atomic)",
};

/* One round of @n calls of @op; ns per call. */
static double round_ns(int op, int dev, const int fd[2], unsigned int n)
{
	struct memfilter_replace r = { .size = sizeof(r), .name = NAME };
	struct memfilter_exchange x = {
		.size = sizeof(x), .name = NAME, .other = OTHER,
	};
	struct memfilter_api api;
	double t0 = now_ns();
	unsigned int i;

	for (i = 0; i < n; i++) {
		switch (op) {
		case API:
			memset(&api, 0, sizeof(api));
			api.size = sizeof(api);
			api.api_version = MEMFILTER_API_VERSION;
			if (ioctl(dev, MEMFILTER_IOC_API, &api))
				die("API");
			break;
		case REPLACE:
			/* The name's filter is fd[i & 1]'s: put the other's. */
			r.fd = fd[!(i & 1)];
			if (ioctl(dev, MEMFILTER_IOC_REPLACE, &r))
				die("REPLACE");
			break;
		case EXCHANGE:
			if (ioctl(dev, MEMFILTER_IOC_EXCHANGE, &x))
				die("EXCHANGE");
			break;
		case REPUBLISH:
			name_op(fd[i & 1], MEMFILTER_IOC_UNPUBLISH, NULL);
			name_op(fd[!(i & 1)], MEMFILTER_IOC_PUBLISH, NAME);
			break;
		}
	}
	return (now_ns() - t0) / n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	unsigned int n = argc > 1 ? strtoul(argv[1], NULL, 0) : 2000;
	unsigned int rounds = argc > 2 ? strtoul(argv[2], NULL, 0) : 15;
	struct memfilter_api api = {
		.size = sizeof(api), .api_version = MEMFILTER_API_VERSION,
	};
	double t[NOPS][MAXR], med[NOPS];
	struct utsname u;
	unsigned int i, op;
	int dev, fd[2], other;

	if (!n || !rounds || rounds > MAXR) {
		fprintf(stderr, "usage: replace_bench [N [ROUNDS <= %d]]\n", MAXR);
		return 2;
	}
	dev = open("/dev/memfilter", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		die("/dev/memfilter");
	if (ioctl(dev, MEMFILTER_IOC_API, &api))
		die("API");
	if (!(api.features & MEMFILTER_FEAT_REPLACE)) {
		fprintf(stderr, "replace_bench: the module has no REPLACE\n");
		return 1;
	}
	fd[0] = bloom(dev, NAME);
	fd[1] = bloom(dev, NULL);
	other = bloom(dev, OTHER);
	/* Rounds alternate between the operations; an even n ends each
	 * round with the name where it started. */
	n += n & 1;
	for (i = 0; i < rounds; i++)
		for (op = 0; op < NOPS; op++)
			t[op][i] = round_ns(op, dev, fd, n);

	uname(&u);
	printf("# time per replace\n\n");
	printf("Kernel %s in QEMU TCG (emulated: read the ratios; the guest nanoseconds are not hardware times). %u calls per round, %u rounds, the four operations alternating round by round, one process, two Bloom filters of capacity 1000; median and min .. max over the rounds.\n\n",
	       u.release, n, rounds);
	printf("| operation | guest ns per call, median | min .. max | / API |\n");
	printf("|---|---|---|---|\n");
	for (op = 0; op < NOPS; op++) {
		qsort(t[op], rounds, sizeof(t[op][0]), cmp_double);
		med[op] = t[op][rounds / 2];
	}
	for (op = 0; op < NOPS; op++)
		printf("| %s | %.0f | %.0f .. %.0f | %.2f |\n", op_names[op],
		       med[op], t[op][0], t[op][rounds - 1], med[op] / med[API]);
	printf("\nREPLACE / (UNPUBLISH + PUBLISH): %.2f. A replace takes the name table's mutex and allocates one small object (the old filter's reference, dropped after an RCU grace period by call_rcu()); it never waits for a grace period.\n",
	       med[REPLACE] / med[REPUBLISH]);
	name_op(fd[0], MEMFILTER_IOC_UNPUBLISH, NULL);
	name_op(other, MEMFILTER_IOC_UNPUBLISH, NULL);
	close(other);
	close(fd[1]);
	close(fd[0]);
	close(dev);
	return 0;
}
