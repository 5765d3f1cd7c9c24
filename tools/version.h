/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memfilterctl's version. The build may pass -DMEMFILTER_VERSION="x.y.z"
 * (one version for the module, the library and the tools); this is the
 * fallback until it does.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTERCTL_VERSION_H
#define _MEMFILTERCTL_VERSION_H

#ifndef MEMFILTER_VERSION
#define MEMFILTER_VERSION "1.0.0"
#endif

#endif /* _MEMFILTERCTL_VERSION_H */
