// SPDX-License-Identifier: GPL-2.0
/*
 * The C half of the filter benchmark: memfilter's blocked Bloom and cuckoo
 * filters, built from the same core/ sources as the module (core/ is C),
 * and the memory-limit probe. Each function is one loop over a key array,
 * calling the library's exported entry points as a user of libmemfilter
 * would (no inlining across them). See bloom_bench.cc.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <stdlib.h>
#include <sys/mman.h>

#include "bloom.h"
#include "bloom_avx2.h"
#include "cuckoo.h"
#include "filter_type.h"
#include "bloom_bench.h"
#include "line_probe.h"

#define MFB_HUGE_BYTES	(2UL << 20)
#define MFB_CHUNK	1024

int mfb_huge;
int mfb_xxh3 = 1;	/* the default hash; --xxh64 clears it */
double mfb_fpr;
int mfb_layout;
const size_t mfb_ahead = MEMFILTER_BLOOM_AHEAD;

/*
 * A zeroed table: an anonymous mapping rounded to 2 MiB and 2 MiB aligned,
 * MADV_HUGEPAGE when mfb_huge (THP "madvise" mode then backs it with huge
 * pages), MADV_NOHUGEPAGE otherwise: 4 KiB numbers stay 4 KiB whatever the
 * THP setting, as for the module's kvzalloc(). Faulted in before timing.
 */
void *mfb_alloc(size_t bytes)
{
	size_t len = (bytes + MFB_HUGE_BYTES - 1) & ~(MFB_HUGE_BYTES - 1);
	u8 *p = mmap(NULL, len + MFB_HUGE_BYTES, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	u8 *a;

	if (p == MAP_FAILED)
		abort();
	a = (u8 *)(((uintptr_t)p + MFB_HUGE_BYTES - 1) & ~(MFB_HUGE_BYTES - 1));
	if (a > p)
		munmap(p, a - p);
	munmap(a + len, p + MFB_HUGE_BYTES - a);
	madvise(a, len, mfb_huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	memset(a, 0, len);
	return a;
}

void mfb_free(void *p, size_t bytes)
{
	munmap(p, (bytes + MFB_HUGE_BYTES - 1) & ~(MFB_HUGE_BYTES - 1));
}

/* ---- Bloom ------------------------------------------------------------- */

/*
 * In the union the module and libmemfilter keep a filter of any type in
 * (first: bloom_bench_kpath.c reads it).
 */
struct mfb_bloom {
	union memfilter_state s;
	size_t bytes;
};

struct mfb_bloom *mfb_bloom_new(size_t n, size_t *bytes)
{
	struct mfb_bloom *m = calloc(1, sizeof(*m));

	if (!m || (mfb_fpr > 0 ?
		   memfilter_bloom_params_from_fpr(&m->s.bloom.p, n,
						   (u64)(mfb_fpr * 1e9 + 0.5), mfb_layout) :
		   memfilter_bloom_params_from_bpk(&m->s.bloom.p, n, 40, mfb_layout)) ||
	    memfilter_hasher_init(&m->s.bloom.p.hasher,
				  mfb_xxh3 ? MEMFILTER_HASH_XXH3 : MEMFILTER_HASH_XXH64,
				  1, NULL))
		abort();
	m->bytes = memfilter_bloom_bytes(&m->s.bloom.p);
	m->s.bloom.words = mfb_alloc(m->bytes);
	*bytes = m->bytes;
	return m;
}

void mfb_bloom_clear(struct mfb_bloom *m)
{
	memset(m->s.bloom.words, 0, m->bytes);
}

void mfb_bloom_free(struct mfb_bloom *m)
{
	mfb_free(m->s.bloom.words, m->bytes);
	free(m);
}

void mfb_bloom_add(struct mfb_bloom *m, const u64 *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		memfilter_bloom_add_key(&m->s.bloom, &k[i], 8);
}

void mfb_bloom_add_batch(struct mfb_bloom *m, const u64 *k, size_t n)
{
	memfilter_bloom_add_keys(&m->s.bloom, k, 8, n);
}

void mfb_bloom_add_x(struct mfb_bloom *m, const u64 *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		memfilter_bloom_add_key_exclusive(&m->s.bloom, &k[i], 8);
}

void mfb_bloom_add_x_batch(struct mfb_bloom *m, const u64 *k, size_t n)
{
	memfilter_bloom_add_keys_exclusive(&m->s.bloom, k, 8, n);
}

/* The same loop shape as every peer's single query. */
u64 mfb_bloom_query(const struct mfb_bloom *m, const u64 *k, size_t n)
{
	u64 c = 0;

	for (size_t i = 0; i < n; i++)
		c += memfilter_bloom_contains_key(&m->s.bloom, &k[i], 8);
	return c;
}

/* Keys of @len bytes, back to back: one single-key call each. */
void mfb_bloom_add_len(struct mfb_bloom *m, const u8 *k, size_t len, size_t n)
{
	for (size_t i = 0; i < n; i++)
		memfilter_bloom_add_key(&m->s.bloom, k + i * len, len);
}

u64 mfb_bloom_query_len(const struct mfb_bloom *m, const u8 *k, size_t len,
			size_t n)
{
	u64 c = 0;

	for (size_t i = 0; i < n; i++)
		c += memfilter_bloom_contains_key(&m->s.bloom, k + i * len, len);
	return c;
}

/* The single-key test-and-add (the type's test_and_add_key). */
u64 mfb_bloom_tadd_len(struct mfb_bloom *m, const u8 *k, size_t len, size_t n)
{
	u64 c = 0;

	for (size_t i = 0; i < n; i++)
		c += memfilter_bloom_ops.test_and_add_key(&m->s, k + i * len, len);
	return c;
}

static u64 mfb_popcount(const unsigned long *bm, size_t m)
{
	u64 c = 0;

	for (size_t j = 0; j < DIV_ROUND_UP(m, BITS_PER_LONG); j++)
		c += __builtin_popcountl(bm[j]);
	return c;
}

/* memfilter_bloom_contains_keys() over chunks of 1024 keys. */
u64 mfb_bloom_query_batch(const struct mfb_bloom *m, const u64 *k, size_t n)
{
	unsigned long bm[MFB_CHUNK / BITS_PER_LONG];
	u64 c = 0;

	for (size_t i = 0; i < n; i += MFB_CHUNK) {
		size_t cnt = min(n - i, (size_t)MFB_CHUNK);

		memfilter_bloom_contains_keys(&m->s.bloom, &k[i], 8, cnt, bm);
		c += mfb_popcount(bm, cnt);
	}
	return c;
}

/* A chunk of keys hashed into an array by the library's memfilter_hash(). */
static void mfb_hash_chunk(const struct memfilter_hasher *hs, const u64 *k,
			   size_t n, u64 *h)
{
	for (size_t j = 0; j < n; j++)
		h[j] = memfilter_hash(hs, &k[j], 8);
}

/*
 * The paths the module (and libmemfilter's offline filters) run, through
 * the type's ops table as they do: ops->contains_key() on one
 * key (memfilter_contains(): BPF kfuncs, netfilter, dm), or a key's hash
 * by memfilter_hash_keys() and ops->contains() on 256 of them (one ioctl
 * window, MEMFILTER_IOC_QUERY). The module's bitmap_zero(),
 * bitmap_weight() and per-CPU stats are left out.
 */
#define MFB_WINDOW	256

typedef void mfb_contains_fn(const union memfilter_state *s, const u64 *h,
			     u32 n, unsigned long *result);

/*
 * memfilter_contains() without its stats: memfilter_state_contains_key(),
 * whose test of @ops->contains_key (set here) is left out with its
 * fallback (core/filter_type.c, not linked here).
 */
static u64 mfb_query_one(const struct mfb_bloom *m, const u64 *k, size_t n,
			 const struct memfilter_type_ops *ops)
{
	u64 c = 0;

	for (size_t i = 0; i < n; i++)
		c += ops->contains_key(&m->s, &k[i], 8);
	return c;
}

static u64 mfb_query_window(const struct mfb_bloom *m, const u64 *k, size_t n,
			    mfb_contains_fn *contains)
{
	unsigned long bm[MFB_WINDOW / BITS_PER_LONG];
	u64 h[MFB_WINDOW], c = 0;

	for (size_t i = 0; i < n; i += MFB_WINDOW) {
		size_t cnt = min(n - i, (size_t)MFB_WINDOW);

		/*
		 * memfilter_filter_hash_keys() (module/filter/filter.c): the
		 * hasher memfilter_state_hasher() finds for a Bloom filter,
		 * then the shared loop (filter_type.c is not linked here).
		 */
		memfilter_hash_keys(&m->s.bloom.p.hasher, &k[i], 8, cnt, h);
		contains(&m->s, h, cnt, bm);
		c += mfb_popcount(bm, cnt);
	}
	return c;
}

u64 mfb_bloom_query_ops(const struct mfb_bloom *m, const u64 *k, size_t n)
{
	return mfb_query_one(m, k, n, &memfilter_bloom_ops);
}

u64 mfb_bloom_query_ops_batch(const struct mfb_bloom *m, const u64 *k, size_t n)
{
	return mfb_query_window(m, k, n, memfilter_bloom_ops.contains);
}

/*
 * The scalar batch code, what the kernel runs where it cannot enter a SIMD
 * section (the single-key path as the kernel builds it is in
 * bloom_bench_kpath.c): memfilter_bloom_contains_hashes_scalar() for
 * windows.
 */
static void mfb_contains_scalar(const union memfilter_state *s, const u64 *h,
				u32 n, unsigned long *result)
{
	memfilter_bloom_contains_hashes_scalar(&s->bloom, h, n, result);
}

u64 mfb_bloom_query_scalar_batch(const struct mfb_bloom *m, const u64 *k,
				 size_t n)
{
	return mfb_query_window(m, k, n, mfb_contains_scalar);
}

/*
 * The core's inline pieces in the caller's own loop, as fastfilter_cpp's
 * Find() is in its callers: memfilter_hash() and bloom_avx2.h's test, so
 * the filter's constants (salts, window mask, hash constants, seed) are
 * loaded once per loop, not once per key. What a caller built for AVX2
 * that queries keys one at a time can have; not an exported path.
 */
u64 mfb_bloom_query_inline(const struct mfb_bloom *m, const u64 *k, size_t n)
{
	const struct memfilter_bloom b = m->s.bloom;
	struct memfilter_bloom_avx2 c;
	u64 hits = 0;

	memfilter_bloom_avx2_init(&c, b.p.k);
	if (b.p.layout == MEMFILTER_BLOOM_SPLIT32) {
		for (size_t i = 0; i < n; i++) {
			u64 h = memfilter_hash(&b.p.hasher, &k[i], 8);

			hits += memfilter_split32_avx2_has(memfilter_bloom_block_ptr_of(&b, h,
											MEMFILTER_BLOOM_SPLIT32),
							   memfilter_split32_avx2_pattern(&c, h));
		}
		return hits;
	}
	for (size_t i = 0; i < n; i++) {
		u64 h = memfilter_hash(&b.p.hasher, &k[i], 8);

		hits += memfilter_bloom_avx2_test(&c, memfilter_bloom_block_ptr(&b, h), h);
	}
	return hits;
}

/* ---- cuckoo ------------------------------------------------------------ */

struct mfb_cuckoo {
	struct memfilter_cuckoo c;
	struct memfilter_cuckoo_params p;
	void *mem;
	size_t bytes;
};

struct mfb_cuckoo *mfb_cuckoo_new(size_t n, size_t *bytes)
{
	struct mfb_cuckoo *m = calloc(1, sizeof(*m));

	if (!m || memfilter_cuckoo_params_init(&m->p, n, 12))
		abort();
	m->p.hasher.seed = 1;
	m->bytes = memfilter_cuckoo_mem_bytes(&m->p);
	m->mem = mfb_alloc(m->bytes);
	memfilter_cuckoo_init(&m->c, &m->p, m->mem);
	*bytes = m->bytes;
	return m;
}

void mfb_cuckoo_clear(struct mfb_cuckoo *m)
{
	memset(m->mem, 0, m->bytes);
	memfilter_cuckoo_init(&m->c, &m->p, m->mem);
}

void mfb_cuckoo_free(struct mfb_cuckoo *m)
{
	mfb_free(m->mem, m->bytes);
	free(m);
}

/* Returns the number of failed inserts. */
size_t mfb_cuckoo_add(struct mfb_cuckoo *m, const u64 *k, size_t n)
{
	size_t fail = 0;

	for (size_t i = 0; i < n; i++)
		fail += memfilter_cuckoo_add_key(&m->c, &k[i], 8) != 0;
	return fail;
}

u64 mfb_cuckoo_query(const struct mfb_cuckoo *m, const u64 *k, size_t n)
{
	u64 c = 0;

	for (size_t i = 0; i < n; i++)
		c += memfilter_cuckoo_contains_key(&m->c, &k[i], 8);
	return c;
}

/* The module's batch path: hash a chunk, memfilter_cuckoo_contains_hashes(). */
u64 mfb_cuckoo_query_batch(const struct mfb_cuckoo *m, const u64 *k, size_t n)
{
	unsigned long bm[MFB_CHUNK / BITS_PER_LONG];
	u64 h[MFB_CHUNK], c = 0;

	for (size_t i = 0; i < n; i += MFB_CHUNK) {
		size_t cnt = min(n - i, (size_t)MFB_CHUNK);

		mfb_hash_chunk(&m->c.p.hasher, &k[i], cnt, h);
		memfilter_cuckoo_contains_hashes(&m->c, h, cnt, bm);
		c += mfb_popcount(bm, cnt);
	}
	return c;
}

/* ---- the memory-limit probe -------------------------------------------- */

/* One random 64-byte line per key: line_probe.h. */
struct mfb_probe {
	u64 *lines;
	u64 nlines;
	size_t bytes;
};

static __always_inline const u64 *mfb_line(const struct mfb_probe *p, u64 key)
{
	return line_probe_line(p->lines, p->nlines, key, 0);
}

struct mfb_probe *mfb_probe_new(size_t bytes)
{
	struct mfb_probe *p = calloc(1, sizeof(*p));

	if (!p)
		abort();
	p->nlines = bytes / 64 ? bytes / 64 : 1;
	p->bytes = p->nlines * 64;
	p->lines = mfb_alloc(p->bytes);
	memset(p->lines, 1, p->bytes);
	return p;
}

void mfb_probe_free(struct mfb_probe *p)
{
	mfb_free(p->lines, p->bytes);
	free(p);
}

u64 mfb_probe_batch(const struct mfb_probe *p, const u64 *k, size_t n)
{
	return line_probe_batch(p->lines, p->nlines, k, n, 1);
}

u64 mfb_probe_single(const struct mfb_probe *p, const u64 *k, size_t n)
{
	return line_probe_single(p->lines, p->nlines, k, n, 1);
}

/* ---- writer-lock prototypes and the lock probe -------------------------- */

/*
 * A cacheline-padded test-and-test-and-set spinlock per stripe of blocks
 * (stripe = block index mod S), the shape the core would use: one locked
 * exchange to take it, a release store to drop it.
 */
struct mfb_stripe {
	int v;
} __attribute__((aligned(64)));

static struct mfb_stripe mfb_stripes[256];

static __always_inline void mfb_stripe_lock(struct mfb_stripe *l)
{
	while (__atomic_exchange_n(&l->v, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&l->v, __ATOMIC_RELAXED))
			__builtin_ia32_pause();
}

static __always_inline void mfb_stripe_unlock(struct mfb_stripe *l)
{
	__atomic_store_n(&l->v, 0, __ATOMIC_RELEASE);
}

/* Plain read-modify-write of a key's k = 6 words (10 bits/key) (as mf_bloom_set_exclusive). */
static __always_inline void mfb_set6(u64 *blk, u64 h)
{
	unsigned int s = memfilter_bloom_start(h), i, w;

	for (i = 0; i < 6; i++) {
		w = (s + i) & 7;
		WRITE_ONCE(blk[w], READ_ONCE(blk[w]) | 1ULL << memfilter_bloom_bit(h, w));
	}
}

/* One key: hash, take its stripe's lock, plain RMW, drop it. */
void mfb_proto_add_stripe(struct mfb_bloom *m, const u64 *k, size_t n,
			  unsigned int stripes)
{
	struct memfilter_bloom *b = &m->s.bloom;

	if (b->p.k != 6)
		abort();
	for (size_t i = 0; i < n; i++) {
		u64 h = memfilter_hash(&b->p.hasher, &k[i], 8);
		u64 blk = memfilter_bloom_block(b, h);
		struct mfb_stripe *l = &mfb_stripes[blk & (stripes - 1)];

		mfb_stripe_lock(l);
		mfb_set6(b->words + blk * 8, h);
		mfb_stripe_unlock(l);
	}
}

#define MFB_PCHUNK	256
int mfb_proto_avx2;

static MF_AVX2 void mfb_set_avx2(const struct memfilter_bloom_avx2 *c,
				 struct memfilter_bloom *b, const u64 *blk,
				 const u64 *h, const u16 *ord, size_t pos,
				 size_t end)
{
	for (; pos < end; pos++)
		memfilter_bloom_avx2_set_exclusive(c, b->words + blk[ord[pos]] * 8,
						   h[ord[pos]]);
}

static MF_AVX2 void mfb_avx2_init(struct memfilter_bloom_avx2 *c, u32 k)
{
	memfilter_bloom_avx2_init(c, k);
}

/*
 * Chunks of MFB_PCHUNK keys: hash each and prefetch its block, counting-
 * sort the chunk by stripe, then per stripe one lock around plain RMWs.
 */
void mfb_proto_add_batch_stripe(struct mfb_bloom *m, const u64 *k, size_t n,
				unsigned int stripes)
{
	struct memfilter_bloom *b = &m->s.bloom;
	u64 h[MFB_PCHUNK], blk[MFB_PCHUNK];
	u16 ord[MFB_PCHUNK], cnt[257];
	u8 st[MFB_PCHUNK];
	struct memfilter_bloom_avx2 vc;

	if (b->p.k != 6)
		abort();
	mfb_avx2_init(&vc, 6);
	for (size_t i = 0; i < n; i += MFB_PCHUNK) {
		size_t c = n - i < MFB_PCHUNK ? n - i : MFB_PCHUNK, j, pos;
		unsigned int s;

		memset(cnt, 0, sizeof(cnt[0]) * (stripes + 1));
		for (j = 0; j < c; j++) {
			h[j] = memfilter_xxh64(&k[i + j], 8, b->p.hasher.seed);
			blk[j] = memfilter_bloom_block(b, h[j]);
			memfilter_prefetch(b->words + blk[j] * 8);
			st[j] = blk[j] & (stripes - 1);
			cnt[st[j] + 1]++;
		}
		for (s = 0; s < stripes; s++)
			cnt[s + 1] += cnt[s];
		for (j = 0; j < c; j++)
			ord[cnt[st[j]]++] = j;
		/* cnt[s] is now the end of stripe s in ord[]. */
		for (s = 0, pos = 0; s < stripes; s++) {
			if (pos == cnt[s])
				continue;
			mfb_stripe_lock(&mfb_stripes[s]);
			if (mfb_proto_avx2)
				mfb_set_avx2(&vc, b, blk, h, ord, pos, cnt[s]);
			else
				for (; pos < cnt[s]; pos++)
					mfb_set6(b->words + blk[ord[pos]] * 8, h[ord[pos]]);
			pos = cnt[s];
			mfb_stripe_unlock(&mfb_stripes[s]);
		}
	}
}

/*
 * The core's stripe-locked inserts (memfilter_bloom_*_locked(), what the
 * module's Bloom writers run), and for comparison the atomic ones on the
 * same pre-hashed chunks, the module's shape (hashes, then ops->add).
 */
void mfb_bloom_stripes(struct mfb_bloom *m, int on)
{
	static void *mem;

	if (!mem && !(mem = aligned_alloc(64, MEMFILTER_BLOOM_STRIPES_BYTES)))
		abort();
	if (on)
		memfilter_bloom_attach_stripes(&m->s.bloom, mem);
	else
		m->s.bloom.stripes = NULL;
}

void mfb_bloom_add_locked(struct mfb_bloom *m, const u64 *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		memfilter_bloom_add_hash_locked(&m->s.bloom,
						memfilter_hash(&m->s.bloom.p.hasher, &k[i], 8));
}

/* The kernel's single-key path before: scalar, one atomic OR per word. */
void mfb_bloom_add_scalar1(struct mfb_bloom *m, const u64 *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		memfilter_bloom_add_hash_scalar(&m->s.bloom,
						memfilter_hash(&m->s.bloom.p.hasher, &k[i], 8));
}

void mfb_bloom_add_hashed(struct mfb_bloom *m, const u64 *k, size_t n, int locked)
{
	u64 h[MFB_CHUNK];

	for (size_t i = 0; i < n; i += MFB_CHUNK) {
		size_t c = n - i < MFB_CHUNK ? n - i : MFB_CHUNK;

		mfb_hash_chunk(&m->s.bloom.p.hasher, k + i, c, h);
		if (locked)
			memfilter_bloom_add_hashes_locked(&m->s.bloom, h, c);
		else
			memfilter_bloom_add_hashes(&m->s.bloom, h, c);
	}
}

/*
 * The physical limit of a concurrent single insert: per key the probe's
 * cheap hash, one random 64-byte line, and either one lock-prefixed OR
 * on it or one plain load-OR-store; and a locked op on a hot lock line
 * plus a plain RMW (the stripe lock's shape).
 */
void mfb_probe_store(struct mfb_probe *p, const u64 *k, size_t n, int how)
{
	for (size_t i = 0; i < n; i++) {
		u64 *l = (u64 *)mfb_line(p, k[i]);

		if (how == 0) {
			__atomic_fetch_or(l, k[i] & 2, __ATOMIC_RELAXED);
		} else if (how == 1) {
			WRITE_ONCE(*l, READ_ONCE(*l) | (k[i] & 2));
		} else {
			mfb_stripe_lock(&mfb_stripes[0]);
			WRITE_ONCE(*l, READ_ONCE(*l) | (k[i] & 2));
			mfb_stripe_unlock(&mfb_stripes[0]);
		}
	}
}
