// SPDX-License-Identifier: GPL-2.0
/*
 * Loader of tc_dedup.bpf.c: attach it to a network device's tcx ingress
 * or egress (BPF_LINK_CREATE, Linux 6.6+) with the name of a published
 * Bloom or window filter, run for a while (or until SIGINT/SIGTERM),
 * print its counters, detach.
 *
 *   tc_dedup IFNAME FILTER [SECONDS] [egress]
 *
 * Exit status: 0; 1 on a usage, load or attach error; 2 when the kernel's
 * memfilter has no BPF kfuncs (Debian's 6.1: no module BTF).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "loader.h"
#include "libmemfilter.h"
#include "tc_dedup.h"
#include "tc_dedup.skel.h"

/* BPF_TCX_INGRESS and _EGRESS of 6.6+ (Debian 12's uapi headers are 6.1's). */
#define MF_BPF_TCX_INGRESS	46
#define MF_BPF_TCX_EGRESS	47

int main(int argc, char **argv)
{
	struct tc_dedup_bpf *skel;
	int ret, link, egress = 0;
	char msg[64 + IF_NAMESIZE];
	unsigned int ifindex;
	long seconds = -1;

	if (argc > 4 && !strcmp(argv[4], "egress"))
		egress = 1;
	if (argc < 3 || argc > 5 || (argc == 5 && !egress) ||
	    strlen(argv[2]) >= MF_NAME_MAX) {
		fprintf(stderr, "usage: tc_dedup IFNAME FILTER [SECONDS] [egress]\n");
		return 1;
	}
	if (argc >= 4)
		seconds = strtol(argv[3], NULL, 10);
	ifindex = if_nametoindex(argv[1]);
	if (!ifindex) {
		fprintf(stderr, "tc_dedup: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	ret = loader_kfuncs("tc_dedup");
	if (ret <= 0)
		return ret < 0 ? 1 : 2;

	skel = tc_dedup_bpf__open();
	if (!skel) {
		fprintf(stderr, "tc_dedup: cannot open the BPF object\n");
		return 1;
	}
	snprintf((char *)skel->rodata->filter_name,
		 sizeof(skel->rodata->filter_name), "%s", argv[2]);
	skel->rodata->filter_id = loader_filter_id("tc_dedup", argv[2]);
	ret = tc_dedup_bpf__load(skel);
	if (ret) {
		fprintf(stderr, "tc_dedup: load: %s\n", strerror(-ret));
		tc_dedup_bpf__destroy(skel);
		return 1;
	}
	link = bpf_link_create(bpf_program__fd(skel->progs.tc_dedup), ifindex,
			       egress ? MF_BPF_TCX_EGRESS : MF_BPF_TCX_INGRESS,
			       NULL);
	if (link < 0) {
		fprintf(stderr, "tc_dedup: tcx %s on %s: %s%s\n",
			egress ? "egress" : "ingress", argv[1], strerror(errno),
			errno == EINVAL ? " (tcx needs Linux 6.6)" : "");
		tc_dedup_bpf__destroy(skel);
		return 1;
	}

	snprintf(msg, sizeof(msg), "attached to %s tcx %s", argv[1],
		 egress ? "egress" : "ingress");
	loader_run(msg, seconds);

	close(link);
	tc_dedup_print(&skel->bss->counts);
	tc_dedup_bpf__destroy(skel);
	return 0;
}
