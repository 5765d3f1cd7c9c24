/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Userspace stand-ins for the kernel definitions that memfilter's shared
 * code uses, with the kernel's semantics. Included only by core/compat.h,
 * and only outside the kernel; never part of the module, so it is written
 * against libc rather than in kernel style.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_USERSPACE_H
#define _MEMFILTER_USERSPACE_H

#include <errno.h>
#include <linux/types.h>	/* __le16/32/64, as the uapi header uses them */
#include <endian.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

#ifndef __always_inline
#define __always_inline	inline __attribute__((__always_inline__))
#endif
#define __aligned(x)	__attribute__((__aligned__(x)))
/* Exempt from -ftrivial-auto-var-init: written whole before any read. */
#if __has_attribute(__uninitialized__)
#define __uninitialized	__attribute__((__uninitialized__))
#else
#define __uninitialized
#endif
#define noinline	__attribute__((__noinline__))
#define __packed	__attribute__((__packed__))
#define __force
#define __maybe_unused	__attribute__((__unused__))
#define __must_check	__attribute__((__warn_unused_result__))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))
#define data_race(expr)		(expr)
#define smp_rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb()		__atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_mb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_store_release(p, v)	__atomic_store_n(p, v, __ATOMIC_RELEASE)
#define smp_load_acquire(p)	__atomic_load_n(p, __ATOMIC_ACQUIRE)

#define BUILD_BUG_ON(cond)	_Static_assert(!(cond), #cond)
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define EXPORT_SYMBOL_GPL(sym)
#define EXPORT_SYMBOL_IF_KUNIT(sym)

#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)

#define min(a, b)	((a) < (b) ? (a) : (b))
#define max(a, b)	((a) > (b) ? (a) : (b))
#define clamp(v, lo, hi)	min(max(v, lo), hi)

#define cpu_to_le16(x)	htole16(x)
#define cpu_to_le32(x)	htole32(x)
#define cpu_to_le64(x)	htole64(x)
#define le16_to_cpu(x)	le16toh(x)
#define le32_to_cpu(x)	le32toh(x)
#define le64_to_cpu(x)	le64toh(x)

static inline u64 rol64(u64 word, unsigned int shift)
{
	return (word << (shift & 63)) | (word >> ((-shift) & 63));
}

static inline u32 rol32(u32 word, unsigned int shift)
{
	return (word << (shift & 31)) | (word >> ((-shift) & 31));
}

static inline u64 mul_u64_u64_shr(u64 a, u64 b, unsigned int shift)
{
	return (u64)(((unsigned __int128)a * b) >> shift);
}

#define BIT(n)			(1UL << (n))
#define BIT_ULL(n)		(1ULL << (n))
#define BITS_PER_LONG		(8 * (int)sizeof(long))
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define hweight64(x)		((unsigned int)__builtin_popcountll(x))
#define hweight_long(x)		((unsigned int)__builtin_popcountl(x))

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

#define DIV_ROUND_UP_ULL(ll, d)	div_u64((ll) + (d) - 1, (d))

static inline void memfilter_atomic_or64(u64 *p, u64 v)
{
	__atomic_fetch_or(p, v, __ATOMIC_RELAXED);
}

static inline void memfilter_atomic_add64(u64 *p, u64 v)
{
	__atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

static inline bool memfilter_atomic_try_cmpxchg64(u64 *p, u64 *old, u64 val)
{
	return __atomic_compare_exchange_n(p, old, val, false, __ATOMIC_RELAXED,
					   __ATOMIC_RELAXED);
}

/*
 * The Bloom filter's stripe locks (core/bloom.c), as the kernel's
 * spinlock_t: a locked exchange to take one, a release store to drop it.
 * A holder can be preempted here, so a waiter yields now and then rather
 * than spin out its time slice. No bottom halves in userspace.
 */
struct memfilter_lock {
	int locked;
};

static inline void memfilter_lock_init(struct memfilter_lock *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELAXED);
}

static inline void memfilter_lock(struct memfilter_lock *l)
{
	unsigned int spins = 0;

	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED)) {
			if (++spins % 1024 == 0)
				sched_yield();
#if defined(__x86_64__) || defined(__i386__)
			else
				__builtin_ia32_pause();
#endif
		}
	}
}

static inline void memfilter_unlock(struct memfilter_lock *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

#define memfilter_bh_disable()	do { } while (0)
#define memfilter_bh_enable()	do { } while (0)

/*
 * Offline filters have no clock: a window filter's generations keep the
 * ages an image gave them (so an image re-serializes to the same bytes),
 * and rotations are explicit.
 */
static inline u64 memfilter_now_ms(void)
{
	return 0;
}

#define memfilter_prefetch(p)	__builtin_prefetch(p)
#define memzero_explicit(p, n)	explicit_bzero(p, n)

/* Fill @buf from the kernel's random source: 0 or -errno. */
static inline int memfilter_random(void *buf, size_t len)
{
	u8 *p = (u8 *)buf;

	while (len) {
		ssize_t n = getrandom(p, len, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= n;
	}
	return 0;
}
#define memfilter_cond_resched()	do { } while (0)

static inline void *memchr_inv(const void *start, int c, size_t bytes)
{
	const unsigned char *p = (const unsigned char *)start;

	for (size_t i = 0; i < bytes; i++)
		if (p[i] != (unsigned char)c)
			return (void *)(p + i);
	return NULL;
}

#ifdef __x86_64__
#define MEMFILTER_HAVE_AVX2	1
/*
 * memfilter_simd_begin() only tests the CPU: single-key calls may use AVX2.
 * (A benchmark defines it 0 to build the kernel's single-key path.)
 */
#ifndef MEMFILTER_SIMD_CHEAP
#define MEMFILTER_SIMD_CHEAP	1
#endif
/*
 * Code built for AVX2 (-mavx2, -march=native) asks nothing; other code
 * asks the CPU once per call (a load and a test of libgcc's CPU model).
 */
static inline bool memfilter_simd_begin(void)
{
#ifdef __AVX2__
	return true;
#else
	return __builtin_cpu_supports("avx2");
#endif
}
#else
#define MEMFILTER_HAVE_AVX2	0
#define MEMFILTER_SIMD_CHEAP	0
static inline bool memfilter_simd_begin(void)
{
	return false;
}
#endif

static inline void memfilter_simd_end(void)
{
}

/* No section costs anything here: any batch may use AVX2. */
#define MEMFILTER_SIMD_MIN_KEYS	1

/* Cuckoo filter (core/cuckoo.c). */
#define __ffs64(x)	((unsigned int)__builtin_ctzll(x))

static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

static inline u64 mul_u64_u64_div_u64(u64 a, u64 mul, u64 div)
{
	return (u64)(((unsigned __int128)a * mul) / div);
}

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax()	__builtin_ia32_pause()
#else
#define cpu_relax()	__atomic_signal_fence(__ATOMIC_SEQ_CST)
#endif

#endif /* _MEMFILTER_USERSPACE_H */
