/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the example loaders of bpf/ share: whether the running module has
 * its BPF kfuncs (MEMFILTER_FEAT_BPF_KFUNCS), which a loader checks before
 * loading a program that calls them; the filter's published id, which it
 * gives the program; and a netfilter BPF link, which
 * Debian 12's libbpf (1.1) and uapi headers (6.1) cannot make.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_BPF_LOADER_H
#define _MEMFILTER_BPF_LOADER_H

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include <linux/memfilter.h>

#include "libmemfilter.h"

/*
 * 1 when the kfuncs are there, 0 when not (the message is printed, naming
 * the feature bit), -1 when the device cannot be asked.
 */
static inline int loader_kfuncs(const char *prog)
{
	struct mf_api_info api;
	int dev = mf_open_device();
	int ret;

	if (dev < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, MF_DEVICE_PATH,
			mf_strerror(dev));
		return -1;
	}
	ret = mf_api(dev, &api);
	close(dev);
	if (ret) {
		fprintf(stderr, "%s: %s\n", prog, mf_strerror(ret));
		return -1;
	}
	if (api.features & MEMFILTER_FEAT_BPF_KFUNCS)
		return 1;
	fprintf(stderr,
		"%s: the memfilter module has no BPF kfuncs on this kernel\n"
		"(MEMFILTER_FEAT_BPF_KFUNCS clear: no module BTF, as on Debian's 6.1);\n"
		"see Documentation/bpf.rst\n", prog);
	return 0;
}

/*
 * The published id of filter @name (mf_pub_id()), or 0 when it is not
 * published now: the program then finds it by name. Says which on stderr.
 */
static inline __u32 loader_filter_id(const char *prog, const char *name)
{
	int dev = mf_open_device();
	int fd = dev < 0 ? dev : mf_open(dev, name);
	uint32_t id = 0;

	if (fd >= 0) {
		if (mf_pub_id(fd, &id))
			id = 0;
		close(fd);
	}
	if (dev >= 0)
		close(dev);
	if (id)
		fprintf(stderr, "%s: %s: published id %u\n", prog, name, id);
	else
		fprintf(stderr, "%s: %s: not published now: by name\n", prog,
			name);
	return id;
}

static volatile sig_atomic_t loader_stop;

static inline void loader_on_signal(int sig)
{
	loader_stop = 1;
}

/*
 * Say @attached (on stdout, flushed: a caller may wait for it) and wait
 * @seconds (< 0: forever), or until SIGINT or SIGTERM, which are caught
 * before the message so that the caller still detaches and reports.
 */
static inline void loader_run(const char *attached, long seconds)
{
	signal(SIGINT, loader_on_signal);
	signal(SIGTERM, loader_on_signal);
	if (attached) {
		printf("%s\n", attached);
		fflush(stdout);
	}
	while (!loader_stop && seconds--)
		sleep(1);
}

/* Of Linux 6.4+ uapi (Debian 12's headers are 6.1's). */
#define LOADER_BPF_PROG_TYPE_NETFILTER	32
#define LOADER_BPF_NETFILTER		45
#define LOADER_NFPROTO_IPV4		2
#define LOADER_NFPROTO_IPV6		10

/* union bpf_attr's link_create for a netfilter link, as 6.4+ lays it out. */
struct loader_nf_link_attr {
	__u32 prog_fd;
	__u32 target_fd;	/* 0 */
	__u32 attach_type;	/* BPF_NETFILTER */
	__u32 flags;		/* 0 */
	__u32 pf;		/* NFPROTO_IPV4 or NFPROTO_IPV6 */
	__u32 hooknum;		/* NF_INET_PRE_ROUTING ... */
	__s32 priority;		/* not INT_MIN or INT_MAX */
	__u32 nf_flags;		/* BPF_F_NETFILTER_IP_DEFRAG (6.6+) or 0 */
};

/*
 * Make a program of type BPF_PROG_TYPE_NETFILTER before it loads (libbpf
 * 1.1 does not know SEC("netfilter")).
 */
static inline void loader_nf_prog(struct bpf_program *prog)
{
	bpf_program__set_type(prog, LOADER_BPF_PROG_TYPE_NETFILTER);
	bpf_program__set_expected_attach_type(prog, LOADER_BPF_NETFILTER);
}

/*
 * Attach a loaded netfilter program to @hooknum of family @pf in the
 * caller's network namespace at @priority: BPF_LINK_CREATE, what libbpf
 * 1.2+ calls bpf_program__attach_netfilter(). Return: the link's fd, or
 * -1 with errno set.
 */
static inline int loader_nf_link(int prog_fd, __u32 pf, __u32 hooknum,
				 __s32 priority)
{
	union {
		struct loader_nf_link_attr nf;
		union bpf_attr attr;
	} a;

	memset(&a, 0, sizeof(a));
	a.nf.prog_fd = prog_fd;
	a.nf.attach_type = LOADER_BPF_NETFILTER;
	a.nf.pf = pf;
	a.nf.hooknum = hooknum;
	a.nf.priority = priority;
	return syscall(__NR_bpf, BPF_LINK_CREATE, &a.attr, sizeof(a.attr));
}

#endif /* _MEMFILTER_BPF_LOADER_H */
