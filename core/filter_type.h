/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * memfilter's filter types: one const table of operations per type
 * (struct memfilter_type_ops, like the BPF map types' struct bpf_map_ops),
 * through which the module and libmemfilter's offline filters create,
 * size, fill, query, image and describe a filter without ever asking
 * which type it is.
 *
 * Adding a type: its algorithm and its table in core/<type>.c, its
 * parameters and state in the two unions below, one line in
 * memfilter_types[] (core/filter_type.c), its MEMFILTER_TYPE_* in the uapi
 * header, and its tests. See Documentation/internals.rst.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MEMFILTER_FILTER_TYPE_H
#define _MEMFILTER_FILTER_TYPE_H

#include <linux/memfilter.h>

#include "bloom.h"
#include "bloom_probe.h"
#include "compat.h"
#include "cuckoo.h"
#include "grow.h"
#include "window.h"

/* The shape of a filter of any type, its hasher included. */
union memfilter_params {
	struct memfilter_bloom_params bloom;
	struct memfilter_cuckoo_params cuckoo;
	struct memfilter_window_params window;
	struct memfilter_grow_params grow;
};

/* A filter of any type: its parameters and its view of its table. */
union memfilter_state {
	struct memfilter_bloom bloom;
	struct memfilter_cuckoo cuckoo;
	struct memfilter_window window;
	struct memfilter_grow grow;
};

struct memfilter_image_desc;

/*
 * The type-specific fields of struct memfilter_create, by group
 * (struct memfilter_type_ops.create_fields): 0 in a request for a type
 * that does not claim them.
 */
#define MEMFILTER_FIELDS_LAYOUT	BIT(0)	/* layout */
#define MEMFILTER_FIELDS_WINDOW	BIT(1)	/* generations, window_flags, period_ms */
#define MEMFILTER_FIELDS_GROW	BIT(2)	/* grow_max, grow_factor, grow_ratio_pct */

/*
 * The image header flags that belong to one type or another
 * (struct memfilter_type_ops.image_flags): a Bloom layout's, a cuckoo
 * table's bucket count that is not a power of two.
 */
#define MEMFILTER_IMAGE_TYPE_FLAGS \
	(MEMFILTER_IMAGE_SPLIT32 | MEMFILTER_IMAGE_CUCKOO_MOD)

/* The most parts an owner attaches to a filter that grows (@attach). */
#define MEMFILTER_MAX_PARTS	MEMFILTER_GROW_MAX_SUBS

/**
 * struct memfilter_type_ops - the operations of one filter type
 * @type: its MEMFILTER_TYPE_*
 * @name: its name, for logs and debugfs
 * @locked_writers: writers (add, add_unique, delete, clear, image) must be
 *	serialized by the owner's lock; readers (contains) never lock. When
 *	false, every operation is lockless.
 * @counts_keys: the table knows how many keys it holds; otherwise the
 *	owner's count of adds stands in (Bloom filters cannot count)
 * @create_fields: which type-specific fields of struct memfilter_create
 *	the type reads (MEMFILTER_FIELDS_*); memfilter_create_params()
 *	refuses a request that sets any other with -EINVAL
 * @params: check a create request's type-specific fields (capacity is
 *	already non-zero) and size the filter; the hasher is left to the
 *	caller. Return: 0, -EINVAL, -E2BIG.
 * @hasher: the hasher inside a parameter block
 * @params_of: a filter's parameters
 * @mem_bytes: bytes of table memory the owner allocates (64-byte aligned,
 *	zeroed) for these parameters; 0 if they cannot be met
 * @payload_bytes: bytes of table an image carries
 * @init: set up a filter on zeroed table memory @mem
 * @contains: query @n hashes; set bit i of @result when key i may be in
 * @contains_key: query one key: hash it under the filter's hasher and
 *	test it, as @contains would its hash, by the type's shortest path
 *	(one call, no bitmap, no batch machinery); lockless as @contains.
 *	The single-key case of the BPF kfuncs, netfilter and dm. Every type
 *	provides it.
 * @add: add @n hashes; set bit i of @result when key i was added. Stops
 *	at the first that does not fit (a full cuckoo filter or sub-filter,
 *	a full current generation of a window that rotates by count). Return:
 *	0 or -ENOSPC; *@done is how many hashes were processed.
 * @add_exclusive: @add for a filter with one owner and no concurrent
 *	readers (offline builds): the same bits, no atomics. NULL: use @add.
 * @add_unique: @add, but a key that may already be in sets no bit and
 *	adds nothing. NULL if the type cannot tell.
 * @delete: remove one copy of each of @n hashes; set bit i when key i was
 *	removed. NULL if the type cannot delete.
 * @test_and_add: for each of @n hashes in order, set bit i when key i may
 *	have been present, then add it; lockless. NULL if the type cannot.
 *	Return: 0 or -ENOSPC, where @add would stop; *@done as for @add.
 * @test_and_add_key: @test_and_add for one key, by the type's shortest
 *	path (the key hashed inline, no bitmap, no batch): exactly the answer
 *	and the effect of @test_and_add on the key's hash as a batch of one.
 *	The single-key case of memfilter_test_and_add(), the dedup kfuncs,
 *	netfilter and dm. Return: 1 if the key may have been present (it is
 *	added again), 0 if it certainly was not (it is now), or -ENOSPC where
 *	@test_and_add would stop (nothing added, nothing answered: the caller
 *	may ask @contains_key). NULL exactly when @test_and_add is.
 * @count: for each of @n hashes, how many copies of its key the filter
 *	holds (0: certainly absent) into @counts[i], at most
 *	MEMFILTER_COUNT_MAX; lockless, as @contains. NULL if the type cannot
 *	count (Bloom, window).
 * @clear: empty the filter
 * @info: fill in the type's fields of @info (capacity, k,
 *	bits_per_key_q4, fingerprint_bits, keys, fill, fill_max,
 *	est_fpr_ppb, stash_used); @added is the owner's count of adds
 * @image: fill in an image description of the filter (@added as for @info)
 *	and, if @payload is not NULL, copy its table there
 * @image_encode: write the type's fields of an image header
 * @image_decode: check and read the type's fields of an image header
 *	into @d (hasher excepted). Return: 0, -EBADMSG.
 * @restore: finish a filter whose table was just copied from an image
 *	described by @d. Return: 0, or -EBADMSG if the table contradicts it.
 * @steps: for @locked_writers types, so that no section under the
 *	owner's lock grows with the table: how many steps (of at most
 *	MEMFILTER_CUCKOO_DUMP_CHUNK bytes of table) a stepwise clear or copy
 *	takes. NULL: @clear and @image need no lock and yield by themselves.
 * @clear_step: clear step @k of @steps; together they are @clear
 * @copy_begin: start copying the table as it is at this instant into
 *	@t->dst, filling in @d as @image would: from now until @copy_end,
 *	writers first copy out the steps they are about to change
 * @copy_step: copy step @k of @steps unless a writer already did
 * @copy_end: stop; every step has been copied
 * @next_bytes: for types that grow (their @add stops with -ENOSPC when
 *	the part in use is full and no next part was attached): bytes of
 *	the next part, 0 if the filter cannot grow. The owner allocates
 *	them (64-byte aligned, zeroed; it frees them after the filter) and
 *	hands them to @attach, in process context, one grower at a time,
 *	never during an @image. NULL: the type never grows.
 * @wants_next: the owner should attach the next part ahead now (cheap,
 *	lockless: the module asks after every add)
 * @attach: make the next part on memory of @next_bytes bytes; safe
 *	against concurrent adds and queries
 * @parts: for types made of parts whose state is all in the table
 *	(growing filters' sub-filters): fill @g with each part in use, at
 *	most MEMFILTER_MAX_PARTS, and return how many. NULL: none, or the
 *	owner knows (window generations age by the owner's clock).
 * @lock_bytes: bytes of writers' locks an owner with concurrent writers
 *	(the module) allocates right after the table (64-byte aligned, in
 *	the same allocation) and hands to @attach_locks once @init is done;
 *	0: the type takes none. An owner with one writer attaches none.
 * @attach_locks: from now on, writers lock in @mem (@lock_bytes bytes)
 * @image_flags: the type-specific flags of an image header
 *	(MEMFILTER_IMAGE_TYPE_FLAGS) its images may carry; the image parser
 *	refuses the others with -EBADMSG
 */
struct memfilter_type_ops {
	u32 type;
	const char *name;
	bool locked_writers;
	bool counts_keys;
	u32 create_fields;
	int (*params)(const struct memfilter_create *c,
		      union memfilter_params *p);
	struct memfilter_hasher *(*hasher)(union memfilter_params *p);
	const union memfilter_params *(*params_of)(const union memfilter_state *s);
	u64 (*mem_bytes)(const union memfilter_params *p);
	u64 (*payload_bytes)(const union memfilter_params *p);
	void (*init)(union memfilter_state *s, const union memfilter_params *p,
		     void *mem);
	void (*contains)(const union memfilter_state *s, const u64 *hashes,
			 u32 n, unsigned long *result);
	bool (*contains_key)(const union memfilter_state *s, const void *key,
			     size_t len);
	int (*add)(union memfilter_state *s, const u64 *hashes, u32 n,
		   unsigned long *result, u32 *done);
	int (*add_exclusive)(union memfilter_state *s, const u64 *hashes, u32 n,
			     unsigned long *result, u32 *done);
	int (*add_unique)(union memfilter_state *s, const u64 *hashes, u32 n,
			  unsigned long *result, u32 *done);
	int (*delete)(union memfilter_state *s, const u64 *hashes, u32 n,
		      unsigned long *result, u32 *done);
	int (*test_and_add)(union memfilter_state *s, const u64 *hashes, u32 n,
			    unsigned long *result, u32 *done);
	int (*test_and_add_key)(union memfilter_state *s, const void *key,
				u32 len);
	void (*count)(const union memfilter_state *s, const u64 *hashes, u32 n,
		      u8 *counts);
	void (*clear)(union memfilter_state *s);
	void (*info)(const union memfilter_state *s, u64 added,
		     struct memfilter_info *info);
	void (*image)(const union memfilter_state *s, u64 added,
		      struct memfilter_image_desc *d, void *payload);
	void (*image_encode)(struct memfilter_image_header *h,
			     const struct memfilter_image_desc *d);
	int (*image_decode)(const struct memfilter_image_header *h,
			    struct memfilter_image_desc *d);
	int (*restore)(union memfilter_state *s,
		       const struct memfilter_image_desc *d);
	u64 (*steps)(const union memfilter_state *s);
	void (*clear_step)(union memfilter_state *s, u64 k);
	void (*copy_begin)(union memfilter_state *s, struct memfilter_table_copy *t,
			   struct memfilter_image_desc *d);
	void (*copy_step)(union memfilter_state *s, u64 k);
	void (*copy_end)(union memfilter_state *s);
	u64 (*next_bytes)(const union memfilter_state *s);
	bool (*wants_next)(const union memfilter_state *s);
	void (*attach)(union memfilter_state *s, void *mem);
	u32 (*parts)(const union memfilter_state *s,
		     struct memfilter_generation *g);
	u64 lock_bytes;
	void (*attach_locks)(union memfilter_state *s, void *mem);
	u32 image_flags;
};

extern const struct memfilter_type_ops memfilter_bloom_ops;
extern const struct memfilter_type_ops memfilter_cuckoo_ops;
extern const struct memfilter_type_ops memfilter_window_ops;
extern const struct memfilter_type_ops memfilter_grow_ops;

const struct memfilter_type_ops *memfilter_type_ops(u32 type);
int memfilter_create_params(const struct memfilter_create *c,
			    const struct memfilter_type_ops **ops,
			    union memfilter_params *p);
void memfilter_state_info(const struct memfilter_type_ops *ops,
			  const union memfilter_state *s, u64 added,
			  struct memfilter_info *info);

/*
 * A create request's Bloom layout (memfilter_create.layout, checked by
 * memfilter_create_params()) as the core's: MEMFILTER_LAYOUT_DEFAULT is
 * memfilter_bloom_default_layout() of @fpr_ppb, the rate each Bloom table
 * is sized for (0 for bits per key).
 */
static inline u32 memfilter_create_layout(const struct memfilter_create *c,
					  u64 fpr_ppb)
{
	if (c->layout == MEMFILTER_LAYOUT_SPLIT32)
		return MEMFILTER_BLOOM_SPLIT32;
	if (c->layout == MEMFILTER_LAYOUT_LINE64)
		return MEMFILTER_BLOOM_LINE64;
	return memfilter_bloom_default_layout(fpr_ppb);
}

/* The core's layout as memfilter_info.layout reports it. */
static inline u32 memfilter_info_layout(u32 layout)
{
	return layout == MEMFILTER_BLOOM_SPLIT32 ? MEMFILTER_LAYOUT_SPLIT32 :
						   MEMFILTER_LAYOUT_LINE64;
}

/*
 * The memfilter_info.layout of a filter's parameters: its Bloom layout,
 * 0 for a cuckoo filter.
 */
static inline u32 memfilter_params_layout(const struct memfilter_type_ops *ops,
					  const union memfilter_params *p)
{
	if (ops == &memfilter_cuckoo_ops)
		return 0;
	if (ops == &memfilter_window_ops)
		return memfilter_info_layout(p->window.gen.layout);
	if (ops == &memfilter_grow_ops)
		return memfilter_info_layout(p->grow.sub0.layout);
	return memfilter_info_layout(p->bloom.layout);
}

/* Result bitmaps: bit i answers for hash i; the caller zeroes them. */
static inline void memfilter_result_set(unsigned long *result, u32 i)
{
	result[i / BITS_PER_LONG] |= 1UL << (i % BITS_PER_LONG);
}

/**
 * memfilter_state_hasher() - how a filter hashes its keys
 * @ops: its type
 * @s: the filter
 *
 * Context: any.
 * Return: its hasher.
 */
static inline const struct memfilter_hasher *
memfilter_state_hasher(const struct memfilter_type_ops *ops,
		       const union memfilter_state *s)
{
	/*
	 * Where the common types keep it, found directly as
	 * memfilter_state_contains_key() finds their ops: the type's two
	 * indirect calls cost two retpolines on the stock kernels, on every
	 * single-key add and delete. (The three ops are exported to KUnit
	 * modules, which inline this too.)
	 */
	if (likely(ops == &memfilter_bloom_ops))
		return &s->bloom.p.hasher;
	if (ops == &memfilter_cuckoo_ops)
		return &s->cuckoo.p.hasher;
	if (ops == &memfilter_window_ops)
		return &s->window.p.gen.hasher;
	return ops->hasher((union memfilter_params *)ops->params_of(s));
}

/**
 * memfilter_key_hash() - a key's hash under a filter's hasher
 * @ops: the filter's type
 * @s: the filter
 * @key: the key
 * @len: its length in bytes
 *
 * The one hash every operation on a key starts from, in the kernel and in
 * userspace alike.
 *
 * Context: any.
 * Return: the key's 64-bit hash.
 */
static inline u64 memfilter_key_hash(const struct memfilter_type_ops *ops,
				     const union memfilter_state *s,
				     const void *key, size_t len)
{
	return memfilter_hash(memfilter_state_hasher(ops, s), key, len);
}

/**
 * memfilter_state_contains_key() - may a key be in a filter?
 * @ops: the filter's type
 * @s: the filter
 * @key: the key
 * @len: its length in bytes
 *
 * The type's @contains_key; for Bloom filters inline
 * (memfilter_bloom_contains_key_inline(): the hash and a SPLIT32 probe in
 * the caller), for cuckoo and window filters a direct call, chosen by
 * comparing @ops, else one indirect call. With
 * retpolines (the stock kernels' mitigation on CPUs without eIBRS) an
 * indirect call costs a mispredicted return, several times the compares:
 * the kernel's INDIRECT_CALL_*() wrappers
 * (include/linux/indirect_call_wrapper.h) do the same for its hot paths.
 * Always inline: at the kernel's -O2, an object with two callers (the
 * kfuncs, memfilter_contains() beside the prefix walk) otherwise gets one
 * out-of-line copy for a variable length, a call and a frame on every key.
 *
 * Context: as the type's @contains; lockless.
 * Return: false if the key is certainly absent, true if it may be present.
 */
static __always_inline bool memfilter_state_contains_key(const struct memfilter_type_ops *ops,
							 const union memfilter_state *s,
							 const void *key, size_t len)
{
	if (likely(ops == &memfilter_bloom_ops))
		return memfilter_bloom_contains_key_inline(&s->bloom, key, len);
	if (ops == &memfilter_cuckoo_ops)
		return memfilter_cuckoo_contains_key(&s->cuckoo, key, len);
	if (ops == &memfilter_window_ops)
		return memfilter_window_contains_key(&s->window, key, len);
	return ops->contains_key(s, key, len);
}

int memfilter_window_state_test_and_add_key(union memfilter_state *s,
					    const void *key, u32 len);

/**
 * memfilter_state_test_and_add_key() - was a key in a filter? add it
 * @ops: the filter's type, one with @test_and_add_key
 * @s: the filter
 * @key: the key
 * @len: its length in bytes
 *
 * The type's @test_and_add_key; for Bloom and window filters a direct
 * call, as memfilter_state_contains_key().
 *
 * Context: as the type's @test_and_add; lockless.
 * Return: as @test_and_add_key: 1 (may have been present), 0 (was not; is
 * now), or -ENOSPC (no room: nothing added, nothing answered).
 */
static inline int memfilter_state_test_and_add_key(const struct memfilter_type_ops *ops,
						   union memfilter_state *s,
						   const void *key, u32 len)
{
	if (likely(ops == &memfilter_bloom_ops))
		return memfilter_bloom_test_and_add_key(&s->bloom, key, len);
	if (ops == &memfilter_window_ops)
		return memfilter_window_state_test_and_add_key(s, key, len);
	return ops->test_and_add_key(s, key, len);
}

#endif /* _MEMFILTER_FILTER_TYPE_H */
