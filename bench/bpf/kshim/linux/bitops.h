/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kernel's include/linux/jhash.h takes from linux/bitops.h and the
 * headers it pulls in, for bench/bpf_key_bench.c: rol32(), from
 * core/userspace.h (the kernel's definition), and the kernel's keyword
 * for a switch case that continues into the next.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _BENCH_KSHIM_BITOPS_H
#define _BENCH_KSHIM_BITOPS_H
#include "compat.h"

#ifndef fallthrough
#define fallthrough	__attribute__((__fallthrough__))
#endif
#endif
