/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The one place where memfilter's shared code meets its two homes.
 *
 * Everything under core/ compiles unchanged into the kernel module and into
 * userspace (libmemfilter, native tests, fuzzers, benchmarks), the way
 * lib/xarray.c also builds in tools/testing/radix-tree. Shared files include
 * this header instead of kernel or libc headers and use kernel spellings
 * (u64, READ_ONCE, EXPORT_SYMBOL_GPL, check_mul_overflow, ...). In the
 * kernel those are the real thing; in userspace this header supplies
 * equivalents with the same semantics (core/userspace.h, the analogue of
 * the kernel's tools/include). This is the only #ifdef __KERNEL__ that
 * shared code may contain.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_COMPAT_H
#define _MEMFILTER_COMPAT_H

#ifdef __KERNEL__

#include <linux/bitops.h>
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/string.h>
#include <linux/types.h>
#include <asm/byteorder.h>
#include <linux/atomic.h>
#include <linux/ktime.h>
#include <linux/timekeeping.h>
#include <linux/prefetch.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/bottom_half.h>
#include <kunit/visibility.h>

/* Relaxed atomic OR of a 64-bit word (filters only ever set bits). */
static __always_inline void memfilter_atomic_or64(u64 *p, u64 v)
{
	atomic64_or(v, (atomic64_t *)p);
}

/* Relaxed atomic add to a 64-bit counter (window generations' keys). */
static __always_inline void memfilter_atomic_add64(u64 *p, u64 v)
{
	atomic64_add(v, (atomic64_t *)p);
}

/*
 * Relaxed compare-and-exchange of a 64-bit counter: true if *@p held
 * *@old and now holds @new, else *@old is what it held (window
 * generations' keys, claimed up to the capacity).
 */
static __always_inline bool memfilter_atomic_try_cmpxchg64(u64 *p, u64 *old,
							   u64 new)
{
	return atomic64_try_cmpxchg_relaxed((atomic64_t *)p, (s64 *)old, new);
}

/*
 * The Bloom filter's stripe locks (core/bloom.c): spinlocks, so lockdep
 * and KCSAN see them. Writers run in process and softirq context, so
 * every holder has bottom halves disabled: memfilter_bh_disable() around
 * a batch's sections, then memfilter_lock() per stripe; never from a hard
 * interrupt or NMI (the kfuncs are not registered for tracing programs).
 */
struct memfilter_lock {
	spinlock_t lock;	/* a stripe of a Bloom filter's blocks */
};

static inline void memfilter_lock_init(struct memfilter_lock *l)
{
	spin_lock_init(&l->lock);
}

static __always_inline void memfilter_lock(struct memfilter_lock *l)
	__acquires(&l->lock)
{
	spin_lock(&l->lock);
}

static __always_inline void memfilter_unlock(struct memfilter_lock *l)
	__releases(&l->lock)
{
	spin_unlock(&l->lock);
}

#define memfilter_bh_disable()	local_bh_disable()
#define memfilter_bh_enable()	local_bh_enable()

/* Milliseconds of boot time: window filters' generation ages. */
static inline u64 memfilter_now_ms(void)
{
	return div_u64(ktime_get_boottime_ns(), NSEC_PER_MSEC);
}

#define memfilter_prefetch(p)	prefetch(p)

/* Random bytes for seeds and secrets; cannot fail in the kernel. */
static inline int memfilter_random(void *buf, size_t len)
{
	get_random_bytes(buf, len);
	return 0;
}

/* Long loops over big tables (load, clear) yield now and then. */
#define memfilter_cond_resched()	cond_resched()

/*
 * Entering a SIMD section costs a kernel_fpu_begin(): worth it for a batch,
 * not for one key, so single-key calls stay scalar in the kernel.
 */
#define MEMFILTER_SIMD_CHEAP	0

/*
 * Batches of fewer keys stay scalar too (memfilter_simd_begin_batch()):
 * kernel_fpu_begin() in a task whose AVX state is live saves it and the
 * return to user space restores it, about 125 ns (XSAVEC + XRSTOR of
 * x87/SSE/AVX measured on the development host), against the ~4 ns per
 * key AVX2 saves over the scalar path (bench/results/bloom.md at b4096f2:
 * 6.7 vs 11.1 ns per query at 1M keys). One key used to pay for a whole
 * section.
 */
#define MEMFILTER_SIMD_MIN_KEYS	32

#ifdef CONFIG_X86_64
#include <linux/jump_label.h>
#include <linux/preempt.h>
#include <asm/cpufeature.h>
#include <asm/fpu/api.h>
#include <asm/simd.h>

/* core/bloom_avx2.c is built (Kbuild) and may be called. */
#define MEMFILTER_HAVE_AVX2	1

/*
 * The CPU has AVX2 and AVX and the kernel saves their registers: set once
 * at module init (memfilter_simd_init(), module/main.c), so that each
 * SIMD section asks a static branch, patched into the code, instead of
 * two feature bits and cpu_has_xfeatures() (a call).
 */
DECLARE_STATIC_KEY_FALSE(memfilter_simd_key);
void memfilter_simd_init(void);

/*
 * memfilter_simd_begin() - enter a section that may use AVX2 registers
 *
 * Context: any, NMI included; returns false (use the scalar path) where the
 * FPU cannot be used: in NMI context, where may_use_simd() itself must not
 * be asked (irq_fpu_usable() WARNs there on 6.1 and 6.12), and where
 * may_use_simd() says no (e.g. a hard interrupt that hit softirq-disabled
 * code, or before 6.15 a softirq that came inside a task's section).
 * Sections must be short: preemption stays off until memfilter_simd_end(),
 * and from 6.15 softirqs too (Documentation/filters.rst, "SIMD in the
 * kernel", has the path of each context on each kernel).
 */
static inline bool memfilter_simd_begin(void)
{
	if (!static_branch_likely(&memfilter_simd_key) || in_nmi() ||
	    !may_use_simd())
		return false;
	kernel_fpu_begin();
	return true;
}

static inline void memfilter_simd_end(void)
{
	kernel_fpu_end();
}
#else
#define MEMFILTER_HAVE_AVX2	0
static inline void memfilter_simd_init(void)
{
}

static inline bool memfilter_simd_begin(void)
{
	return false;
}

static inline void memfilter_simd_end(void)
{
}
#endif /* CONFIG_X86_64 */

/* Cuckoo filter (core/cuckoo.c): cpu_relax() in lockless readers. */
#include <linux/processor.h>

#else /* userspace */

#include "userspace.h"

#endif /* __KERNEL__ */

/**
 * memfilter_simd_begin_batch() - enter a SIMD section for @n keys, if worth it
 * @n: keys the section will process
 *
 * Below MEMFILTER_SIMD_MIN_KEYS keys the scalar path is cheaper than what
 * entering the section may cost (in the kernel, kernel_fpu_begin() saving
 * and later restoring the task's AVX state).
 *
 * Context: as memfilter_simd_begin().
 * Return: true if the caller is in a SIMD section (end it with
 * memfilter_simd_end()), false to use the scalar path.
 */
static inline bool memfilter_simd_begin_batch(size_t n)
{
	return n >= MEMFILTER_SIMD_MIN_KEYS && memfilter_simd_begin();
}

/* Unaligned little-endian loads, spelled the same in both homes. */
static __always_inline u64 memfilter_load_le64(const void *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return le64_to_cpu((__force __le64)v);
}

static __always_inline u32 memfilter_load_le32(const void *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return le32_to_cpu((__force __le32)v);
}

/*
 * @a * @b as 128 bits: the low half returned, the high half in *@hi. The
 * kernel is built with -pg (ftrace's call at every function entry) and an
 * 8-byte stack boundary, and GCC then gives every function holding an
 * __int128 a realigned stack frame (push, and, leave), even when the value
 * never leaves registers: one MUL in inline assembly keeps the single-key
 * paths frameless. Built the same in both homes, so that the native tests
 * run the kernel's code.
 */
static __always_inline u64 memfilter_mul128(u64 a, u64 b, u64 *hi)
{
#ifdef __x86_64__
	u64 lo;

	asm("mulq %3" : "=a" (lo), "=d" (*hi) : "0" (a), "r" (b) : "cc");
	return lo;
#else
	*hi = mul_u64_u64_shr(a, b, 64);
	return a * b;
#endif
}

/* The high 64 bits of @a * @b: multiply-shift range reduction. */
static __always_inline u64 memfilter_mulhi64(u64 a, u64 b)
{
	u64 hi;

	memfilter_mul128(a, b, &hi);
	return hi;
}

#endif /* _MEMFILTER_COMPAT_H */
