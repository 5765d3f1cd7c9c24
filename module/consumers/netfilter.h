/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memfilter's netfilter hook (module/consumers/netfilter.c): what main.c calls
 * to set it up and tear it down, and what the /dev/memfilter commands
 * (nf_ioctl.c) call to attach, detach and list.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_NETFILTER_H
#define _MEMFILTER_NETFILTER_H

#include <linux/memfilter.h>
#include <linux/types.h>

struct net;

int memfilter_nf_init(void);
void memfilter_nf_exit(void);
int memfilter_nf_attach(struct net *net, const struct memfilter_nf_attach *cmd,
			int (*reply)(void *arg, u32 id), void *arg);
int memfilter_nf_detach(struct net *net, u32 id);
u32 memfilter_nf_list(struct net *net, struct memfilter_nf_entry *e);

/* Attachment ids: exported for KUnit. */
int memfilter_nf_id_alloc(void *entry, u32 *id);
void memfilter_nf_id_free(u32 id);
u32 memfilter_nf_id_set_next(u32 next);

#endif /* _MEMFILTER_NETFILTER_H */
