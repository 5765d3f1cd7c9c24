/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memfilterctl's version: the one in VERSION, through the generated
 * <memfilter_version.h> (scripts/gen-version-h.sh), as the library's.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTERCTL_VERSION_H
#define _MEMFILTERCTL_VERSION_H

#include "memfilter_version.h"

#endif /* _MEMFILTERCTL_VERSION_H */
