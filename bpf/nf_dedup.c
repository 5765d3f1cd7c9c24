// SPDX-License-Identifier: GPL-2.0
/*
 * Loader of nf_dedup.bpf.c: attach it with a netfilter BPF link (Linux
 * 6.4+) to the IPv4 or IPv6 prerouting hook of the caller's network
 * namespace, at memfilter's default hook priority (between defragmentation
 * and conntrack), with the name of a published Bloom or window filter; run
 * for a while (or until SIGINT/SIGTERM), print its counters, detach.
 *
 *   nf_dedup FILTER [SECONDS] [ipv6]
 *
 * Exit status: 0; 1 on a usage, load or attach error; 2 when the kernel's
 * memfilter has no BPF kfuncs (Debian's 6.1: no module BTF, and no
 * netfilter programs before 6.4).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/memfilter.h>

#include "loader.h"
#include "libmemfilter.h"
#include "nf_dedup.h"
#include "nf_dedup.skel.h"

#define NF_INET_PRE_ROUTING	0

int main(int argc, char **argv)
{
	struct nf_dedup_bpf *skel;
	int ret, link, v6 = 0;
	long seconds = -1;

	if (argc > 3 && !strcmp(argv[3], "ipv6"))
		v6 = 1;
	if (argc < 2 || argc > 4 || (argc == 4 && !v6) ||
	    strlen(argv[1]) >= MF_NAME_MAX) {
		fprintf(stderr, "usage: nf_dedup FILTER [SECONDS] [ipv6]\n");
		return 1;
	}
	if (argc >= 3)
		seconds = strtol(argv[2], NULL, 10);
	ret = loader_kfuncs("nf_dedup");
	if (ret <= 0)
		return ret < 0 ? 1 : 2;

	skel = nf_dedup_bpf__open();
	if (!skel) {
		fprintf(stderr, "nf_dedup: cannot open the BPF object\n");
		return 1;
	}
	snprintf((char *)skel->rodata->filter_name,
		 sizeof(skel->rodata->filter_name), "%s", argv[1]);
	skel->rodata->filter_id = loader_filter_id("nf_dedup", argv[1]);
	loader_nf_prog(skel->progs.nf_dedup);
	ret = nf_dedup_bpf__load(skel);
	if (ret) {
		fprintf(stderr, "nf_dedup: load: %s\n", strerror(-ret));
		nf_dedup_bpf__destroy(skel);
		return 1;
	}
	link = loader_nf_link(bpf_program__fd(skel->progs.nf_dedup),
			      v6 ? LOADER_NFPROTO_IPV6 : LOADER_NFPROTO_IPV4,
			      NF_INET_PRE_ROUTING,
			      MEMFILTER_NF_PRIORITY_DEFAULT);
	if (link < 0) {
		fprintf(stderr, "nf_dedup: netfilter link: %s\n",
			strerror(errno));
		nf_dedup_bpf__destroy(skel);
		return 1;
	}

	loader_run(v6 ? "attached to ipv6 prerouting" :
			"attached to ipv4 prerouting", seconds);

	close(link);
	tc_dedup_print(&skel->bss->counts);
	nf_dedup_bpf__destroy(skel);
	return 0;
}
