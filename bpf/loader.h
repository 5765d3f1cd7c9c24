/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the example loaders of bpf/ share: whether the running module has
 * its BPF kfuncs (MEMFILTER_FEAT_BPF_KFUNCS), which a loader checks before
 * loading a program that calls them.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_BPF_LOADER_H
#define _MEMFILTER_BPF_LOADER_H

#include <stdio.h>
#include <unistd.h>

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

#endif /* _MEMFILTER_BPF_LOADER_H */
