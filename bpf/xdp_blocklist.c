// SPDX-License-Identifier: GPL-2.0
/*
 * Loader of xdp_blocklist.bpf.c: attach it to a network device with the
 * name of a published filter, run for a while (or until SIGINT/SIGTERM),
 * print its counters, detach. If the filter is published when it loads,
 * the program finds it by its published id (mf_pub_id()), else by name.
 *
 *   xdp_blocklist IFNAME FILTER [SECONDS]
 *
 * Exit status: 0; 1 on a usage or load error; 2 when the kernel's memfilter
 * has no BPF kfuncs (Debian's 6.1: no module BTF).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <linux/memfilter.h>

#include "libmemfilter.h"
#include "loader.h"
#include "xdp_blocklist.h"
#include "xdp_blocklist.skel.h"

int main(int argc, char **argv)
{
	struct xdp_blocklist_bpf *skel;
	unsigned int ifindex;
	long seconds = -1;
	int ret;

	if (argc < 3 || argc > 4 || strlen(argv[2]) >= MF_NAME_MAX) {
		fprintf(stderr, "usage: xdp_blocklist IFNAME FILTER [SECONDS]\n");
		return 1;
	}
	if (argc == 4)
		seconds = strtol(argv[3], NULL, 10);
	ifindex = if_nametoindex(argv[1]);
	if (!ifindex) {
		fprintf(stderr, "xdp_blocklist: %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	ret = loader_kfuncs("xdp_blocklist");
	if (ret <= 0)
		return ret < 0 ? 1 : 2;

	skel = xdp_blocklist_bpf__open();
	if (!skel) {
		fprintf(stderr, "xdp_blocklist: cannot open the BPF object\n");
		return 1;
	}
	snprintf((char *)skel->rodata->filter_name,
		 sizeof(skel->rodata->filter_name), "%s", argv[2]);
	skel->rodata->filter_id = loader_filter_id("xdp_blocklist", argv[2]);
	ret = xdp_blocklist_bpf__load(skel);
	if (!ret)
		ret = bpf_xdp_attach(ifindex,
				     bpf_program__fd(skel->progs.xdp_blocklist),
				     XDP_FLAGS_UPDATE_IF_NOEXIST, NULL);
	if (ret) {
		fprintf(stderr, "xdp_blocklist: load/attach on %s: %s\n",
			argv[1], strerror(-ret));
		xdp_blocklist_bpf__destroy(skel);
		return 1;
	}

	loader_run(NULL, seconds);

	bpf_xdp_detach(ifindex, 0, NULL);
	printf("dropped %llu passed %llu not_ip %llu no_filter %llu\n",
	       (unsigned long long)skel->bss->counts.dropped,
	       (unsigned long long)skel->bss->counts.passed,
	       (unsigned long long)skel->bss->counts.not_ip,
	       (unsigned long long)skel->bss->counts.no_filter);
	xdp_blocklist_bpf__destroy(skel);
	return 0;
}
