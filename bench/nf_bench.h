/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the guest benchmarks of the netfilter hook, bench/nf_pps.c
 * and bench/nf_prefix_pps.c: the guest's memfilterctl, a shell command's
 * exit status, and attaching memfilter's hook and detaching it with its
 * counters kept for the report.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _NF_BENCH_H
#define _NF_BENCH_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#define CTL		"/memfilter/bin/memfilterctl"

/* Run @cmd with sh -c. Return: its exit status, or -1 if it did not exit. */
static inline int sh(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * memfilterctl nf attach with the arguments @fmt formats; the attachment's
 * ID into *@id. Return: 0, or -1.
 */
static inline __attribute__((format(printf, 2, 3)))
int nf_bench_attach(long long *id, const char *fmt, ...)
{
	char args[256], cmd[320];
	va_list ap;
	FILE *p;
	int ok;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), CTL " nf attach %s", args);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	ok = fscanf(p, "%lld", id) == 1;
	return pclose(p) == 0 && ok ? 0 : -1;
}

/*
 * Keep attachment @id's counters in /tmp/@prog.@conf.stats, then detach
 * it. Return: as sh().
 */
static inline int nf_bench_detach(long long id, const char *prog, int conf)
{
	char cmd[320];

	snprintf(cmd, sizeof(cmd),
		 CTL " nf stats %lld >/tmp/%s.%d.stats && " CTL " nf detach %lld >/dev/null",
		 id, prog, conf, id);
	return sh(cmd);
}

#endif /* _NF_BENCH_H */
