/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kernel's include/linux/jhash.h takes from
 * linux/unaligned/packed_struct.h, for bench/bpf_key_bench.c: an
 * unaligned native-endian 32-bit load (x86-64: one mov, as in the kernel).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _BENCH_KSHIM_PACKED_STRUCT_H
#define _BENCH_KSHIM_PACKED_STRUCT_H
#include <string.h>
#include "compat.h"

static inline u32 __get_unaligned_cpu32(const void *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}
#endif
