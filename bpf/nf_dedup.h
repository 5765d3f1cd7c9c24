/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * nf_dedup.bpf.c is tc_dedup.bpf.c's dedup at a netfilter hook: the same
 * key (the first TC_DEDUP_KEY_MAX bytes of the UDP payload) and the same
 * counters (struct tc_dedup_counts, in its .bss).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _NF_DEDUP_H
#define _NF_DEDUP_H

#include "tc_dedup.h"

#endif /* _NF_DEDUP_H */
