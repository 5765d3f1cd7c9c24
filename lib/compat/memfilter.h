/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * <memfilter.h>: libmemfilter's header under its 1.0.0 name, installed
 * for source compatibility through the 1.x releases and removed in 2.0.
 * Include <libmemfilter.h>: this name is too easily taken for the kernel
 * ABI, <linux/memfilter.h>, or for the module's in-kernel API.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _LIBMEMFILTER_COMPAT_MEMFILTER_H
#define _LIBMEMFILTER_COMPAT_MEMFILTER_H

#include "libmemfilter.h"

#endif /* _LIBMEMFILTER_COMPAT_MEMFILTER_H */
