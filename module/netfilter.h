/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memfilter's netfilter hook (module/netfilter.c): what main.c calls to
 * set it up, tear it down and serve its three /dev/memfilter commands.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_NETFILTER_H
#define _MEMFILTER_NETFILTER_H

#include <linux/types.h>

struct memfilter_ucmd;

int memfilter_nf_init(void);
void memfilter_nf_exit(void);
int memfilter_nf_cmd_attach(struct memfilter_ucmd *ucmd);
int memfilter_nf_cmd_detach(struct memfilter_ucmd *ucmd);
int memfilter_nf_cmd_list(struct memfilter_ucmd *ucmd);

/* Attachment ids: exported for KUnit. */
int memfilter_nf_id_alloc(void *entry, u32 *id);
void memfilter_nf_id_free(u32 id);
u32 memfilter_nf_id_set_next(u32 next);

#endif /* _MEMFILTER_NETFILTER_H */
