/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memfilter's device-mapper target "memfilter-dedup" (module/dm.c): what
 * main.c calls to register and unregister it. Kernels without device
 * mapper get no-op stubs; Kbuild then leaves dm.o out.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_DM_H
#define _MEMFILTER_DM_H

#if IS_REACHABLE(CONFIG_BLK_DEV_DM)
int memfilter_dm_init(void);
void memfilter_dm_exit(void);
#else
static inline int memfilter_dm_init(void)
{
	return 0;
}

static inline void memfilter_dm_exit(void)
{
}
#endif

#endif /* _MEMFILTER_DM_H */
