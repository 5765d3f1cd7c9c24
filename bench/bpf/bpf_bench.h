/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by bench/bpf/bpf_bench.bpf.c and bench/bpf_bench.c.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _BPF_BENCH_H
#define _BPF_BENCH_H

#define BENCH_BATCH	64	/* keys per bpf_memfilter_contains_batch() */

#endif /* _BPF_BENCH_H */
