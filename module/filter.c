// SPDX-License-Identifier: GPL-2.0
/*
 * memfilter's filter objects: creation with limits and memcg accounting,
 * reference counting with RCU-deferred freeing, statistics, and the
 * exported in-kernel API (memfilter_add(), memfilter_contains(), ...).
 *
 * Conventions in this file: a filter is freed only after its last
 * reference is dropped AND an RCU grace period has passed, so RCU readers
 * that found it through the name table (memfilter_lookup_rcu()) may use it
 * until rcu_read_unlock() without a reference. Bloom filters take no lock
 * at all; cuckoo writers take f->lock with bottom halves disabled, because
 * packet paths (softirq) add and delete too; readers of both never lock.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <linux/bitmap.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/slab.h>

#include <kunit/visibility.h>
#include <linux/capability.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>

#include "filter.h"
#include "image.h"

unsigned long memfilter_max_filter_mb = 1024;
module_param_named(max_filter_mb, memfilter_max_filter_mb, ulong, 0644);
MODULE_PARM_DESC(max_filter_mb, "Largest table of one filter, MiB (default 1024)");

unsigned long memfilter_max_total_mb = 4096;
module_param_named(max_total_mb, memfilter_max_total_mb, ulong, 0644);
MODULE_PARM_DESC(max_total_mb, "Most memory of all filters together, MiB (default 4096)");

static atomic64_t mf_total_bytes = ATOMIC64_INIT(0);
static atomic64_t mf_next_id = ATOMIC64_INIT(0);
static struct workqueue_struct *mf_wq;

/* Serializes the name table and the list of all filters. */
DEFINE_MUTEX(memfilter_names_lock);
LIST_HEAD(memfilter_all_filters);

static void mf_filter_free_work(struct work_struct *work)
{
	struct memfilter *f = container_of(to_rcu_work(work), struct memfilter,
					   free_work);

	mutex_lock(&memfilter_names_lock);
	list_del(&f->all);
	mutex_unlock(&memfilter_names_lock);
	kvfree(f->mem);
	free_percpu(f->stats);
	atomic64_sub(f->bytes, &mf_total_bytes);
	kfree(f);
}

static int mf_params_bloom(const struct memfilter_create *c,
			   struct memfilter_bloom_params *p, u64 *bytes)
{
	int ret;

	if (c->fingerprint_bits || !c->fpr_ppb == !c->bits_per_key_q4)
		return -EINVAL;
	if (c->fpr_ppb)
		ret = memfilter_bloom_params_from_fpr(p, c->capacity, c->fpr_ppb);
	else
		ret = memfilter_bloom_params_from_bpk(p, c->capacity,
						      c->bits_per_key_q4);
	if (ret)
		return ret;
	*bytes = memfilter_bloom_bytes(p);
	return 0;
}

static int mf_params_cuckoo(const struct memfilter_create *c,
			    struct memfilter_cuckoo_params *p, u64 *bytes)
{
	int ret;

	if (c->bits_per_key_q4 || !c->fpr_ppb == !c->fingerprint_bits)
		return -EINVAL;
	if (c->fingerprint_bits)
		ret = memfilter_cuckoo_params_init(p, c->capacity,
						   c->fingerprint_bits);
	else
		ret = memfilter_cuckoo_params_from_fpr(p, c->capacity,
						       c->fpr_ppb);
	if (ret)
		return ret;
	*bytes = memfilter_cuckoo_mem_bytes(p);
	return 0;
}

static int mf_hasher(const struct memfilter_create *c,
		     struct memfilter_hasher *h)
{
	u64 key[2];
	int ret;

	if (c->flags & MEMFILTER_CREATE_KEYED) {
		do {
			get_random_bytes(key, sizeof(key));
		} while (!(key[0] | key[1]));
		ret = memfilter_hasher_init(h, MEMFILTER_HASH_SIPHASH24, 0, key);
		memzero_explicit(key, sizeof(key));
		return ret;
	}
	return memfilter_hasher_init(h, MEMFILTER_HASH_XXH64,
				     c->flags & MEMFILTER_CREATE_SEED ?
				     c->seed : get_random_u64(), NULL);
}

static int mf_charge(u64 bytes)
{
	u64 max_total;

	if (bytes > (u64)memfilter_max_filter_mb << 20)
		return -E2BIG;
	if (check_shl_overflow((u64)memfilter_max_total_mb, 20, &max_total))
		max_total = U64_MAX;
	if (atomic64_add_return(bytes, &mf_total_bytes) > max_total) {
		atomic64_sub(bytes, &mf_total_bytes);
		return -ENOMEM;
	}
	return 0;
}

static struct memfilter_pcpu_stats mf_stats_sum(struct memfilter *f)
{
	struct memfilter_pcpu_stats sum = {};
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct memfilter_pcpu_stats *s = per_cpu_ptr(f->stats, cpu);

		sum.adds += READ_ONCE(s->adds);
		sum.queries += READ_ONCE(s->queries);
		sum.hits += READ_ONCE(s->hits);
		sum.deletes += READ_ONCE(s->deletes);
		sum.failed += READ_ONCE(s->failed);
	}
	return sum;
}

/*
 * Allocate a filter of @type with the given parameters (hasher included),
 * charged against the module's limits, with one reference.
 */
static struct memfilter *mf_filter_alloc(u32 type, u32 flags,
					 const struct memfilter_bloom_params *bp,
					 const struct memfilter_cuckoo_params *cp)
{
	struct memfilter *f;
	u64 bytes, alloc;
	int ret;

	bytes = type == MEMFILTER_TYPE_BLOOM ? memfilter_bloom_bytes(bp) :
					       memfilter_cuckoo_mem_bytes(cp);
	if (!bytes ||
	    check_add_overflow(bytes, (u64)MEMFILTER_BLOOM_BLOCK_BYTES - 1, &alloc) ||
	    alloc > SIZE_MAX)
		return ERR_PTR(-E2BIG);

	ret = mf_charge(bytes);
	if (ret)
		return ERR_PTR(ret);

	f = kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
	if (!f) {
		ret = -ENOMEM;
		goto out_uncharge;
	}
	f->bytes = bytes;
	f->mem = kvzalloc(alloc, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!f->mem) {
		ret = -ENOMEM;
		goto out_free_f;
	}
	f->stats = alloc_percpu_gfp(struct memfilter_pcpu_stats,
				    GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!f->stats) {
		ret = -ENOMEM;
		goto out_free_mem;
	}

	f->type = type;
	f->flags = flags;
	if (type == MEMFILTER_TYPE_BLOOM) {
		f->bloom.p = *bp;
		f->bloom.words = PTR_ALIGN(f->mem, MEMFILTER_BLOOM_BLOCK_BYTES);
	} else {
		memfilter_cuckoo_init(&f->cuckoo, cp,
				      PTR_ALIGN(f->mem, MEMFILTER_BLOOM_BLOCK_BYTES));
	}
	refcount_set(&f->ref, 1);
	spin_lock_init(&f->lock);
	INIT_RCU_WORK(&f->free_work, mf_filter_free_work);
	f->id = atomic64_inc_return(&mf_next_id);

	mutex_lock(&memfilter_names_lock);
	list_add_tail(&f->all, &memfilter_all_filters);
	mutex_unlock(&memfilter_names_lock);
	return f;

out_free_mem:
	kvfree(f->mem);
out_free_f:
	kfree(f);
out_uncharge:
	atomic64_sub(bytes, &mf_total_bytes);
	return ERR_PTR(ret);
}

/**
 * memfilter_filter_create() - make a filter from a create request
 * @c: the request, copied from userspace
 *
 * Context: process context, may sleep.
 * Return: the filter with one reference, or an ERR_PTR(): -EOPNOTSUPP for
 * unknown flags or type, -EINVAL for inconsistent parameters, -E2BIG when
 * larger than max_filter_mb or overflowing, -ENOMEM when over
 * max_total_mb or out of memory. Nothing is left allocated on error.
 */
struct memfilter *memfilter_filter_create(const struct memfilter_create *c)
{
	struct memfilter_cuckoo_params cp;
	struct memfilter_bloom_params bp;
	struct memfilter *f;
	u64 bytes;
	int ret;

	if (c->flags & ~MEMFILTER_CREATE_FLAGS)
		return ERR_PTR(-EOPNOTSUPP);
	if ((c->flags & MEMFILTER_CREATE_KEYED) &&
	    (c->flags & MEMFILTER_CREATE_SEED))
		return ERR_PTR(-EINVAL);
	if (!(c->flags & MEMFILTER_CREATE_SEED) && c->seed)
		return ERR_PTR(-EINVAL);
	if (!c->capacity)
		return ERR_PTR(-EINVAL);

	switch (c->type) {
	case MEMFILTER_TYPE_BLOOM:
		ret = mf_params_bloom(c, &bp, &bytes);
		if (!ret)
			ret = mf_hasher(c, &bp.hasher);
		break;
	case MEMFILTER_TYPE_CUCKOO:
		ret = mf_params_cuckoo(c, &cp, &bytes);
		if (!ret)
			ret = mf_hasher(c, &cp.hasher);
		break;
	default:
		ret = -EOPNOTSUPP;
	}
	if (ret)
		return ERR_PTR(ret);
	f = mf_filter_alloc(c->type, c->flags, &bp, &cp);
	memzero_explicit(&bp.hasher, sizeof(bp.hasher));
	memzero_explicit(&cp.hasher, sizeof(cp.hasher));
	return f;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_filter_create);

/* The table an image's payload maps to. */
static void *mf_filter_table(struct memfilter *f)
{
	return f->type == MEMFILTER_TYPE_BLOOM ? (void *)f->bloom.words :
						 (void *)f->cuckoo.table;
}

/**
 * memfilter_filter_load() - make a filter from an image in user memory
 * @uimage: the image (header and payload)
 * @len: its length
 *
 * Context: process context, may sleep; interruptible by fatal signals.
 * Return: the filter with one reference, or an ERR_PTR(): -EBADMSG for a
 * corrupt or inconsistent image, -EOPNOTSUPP for an unsupported one,
 * -E2BIG or -ENOMEM for the module's limits, -EFAULT, -EINTR. Nothing is
 * left behind on error.
 */
struct memfilter *memfilter_filter_load(const u8 __user *uimage, u64 len)
{
	struct memfilter_image_header hdr;
	struct memfilter_image_desc d;
	struct memfilter *f;
	u64 off, n;
	u8 *table;
	u32 algo;
	int ret;

	if (len < sizeof(hdr))
		return ERR_PTR(-EBADMSG);
	if (copy_from_user(&hdr, uimage, sizeof(hdr)))
		return ERR_PTR(-EFAULT);
	ret = memfilter_image_parse(&hdr, len, &d);
	memzero_explicit(&hdr, sizeof(hdr));
	if (ret)
		return ERR_PTR(ret);

	algo = d.type == MEMFILTER_TYPE_BLOOM ? d.bloom.hasher.algo :
						d.cuckoo.hasher.algo;
	f = mf_filter_alloc(d.type, algo == MEMFILTER_HASH_SIPHASH24 ?
			    MEMFILTER_CREATE_KEYED : 0, &d.bloom, &d.cuckoo);
	memzero_explicit(&d.bloom.hasher, sizeof(d.bloom.hasher));
	memzero_explicit(&d.cuckoo.hasher, sizeof(d.cuckoo.hasher));
	if (IS_ERR(f))
		return f;

	table = mf_filter_table(f);
	for (off = 0; off < d.payload_size; off += n) {
		n = min_t(u64, d.payload_size - off, SZ_1M);
		if (copy_from_user(table + off, uimage + sizeof(hdr) + off, n)) {
			ret = -EFAULT;
			goto out_put;
		}
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto out_put;
		}
		cond_resched();
	}
	ret = memfilter_image_check_payload(&d, table);
	if (ret)
		goto out_put;
	if (d.type == MEMFILTER_TYPE_CUCKOO)
		ret = memfilter_cuckoo_restore(&f->cuckoo, d.stash, d.keys);
	else
		this_cpu_write(f->stats->adds, d.keys);
	if (ret)
		goto out_put;
	return f;

out_put:
	memfilter_put(f);
	return ERR_PTR(ret);
}

/**
 * memfilter_filter_image() - take a consistent image of a live filter
 * @f: the filter
 * @len: out: the image's length
 *
 * Bloom tables are copied word by word without a lock: every key added
 * before the call is in the image (bits are only ever set). Cuckoo tables
 * are copied under the writer lock, since fingerprints move.
 *
 * Context: process context, may sleep.
 * Return: the image in a kvmalloc()ed buffer, or an ERR_PTR(): -EPERM for
 * a keyed filter without CAP_SYS_ADMIN (its image carries the secret),
 * -ENOMEM.
 */
void *memfilter_filter_image(struct memfilter *f, size_t *len)
{
	const struct memfilter_hasher *h = f->type == MEMFILTER_TYPE_BLOOM ?
		&f->bloom.p.hasher : &f->cuckoo.p.hasher;
	struct memfilter_image_desc d;
	u64 payload, i, stash;
	struct memfilter_cuckoo_snapshot s;
	u8 *image;

	if (h->algo == MEMFILTER_HASH_SIPHASH24 && !capable(CAP_SYS_ADMIN))
		return ERR_PTR(-EPERM);
	if (f->type == MEMFILTER_TYPE_BLOOM)
		memfilter_image_desc_bloom(&d, &f->bloom, 0);
	else
		memfilter_image_desc_cuckoo(&d, &f->cuckoo, 0, 0);
	payload = d.payload_size;
	*len = MEMFILTER_IMAGE_HDR_SIZE + payload;
	image = kvmalloc(*len, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!image)
		return ERR_PTR(-ENOMEM);

	if (f->type == MEMFILTER_TYPE_BLOOM) {
		u64 *dst = (u64 *)(image + sizeof(struct memfilter_image_header));

		for (i = 0; i < payload / sizeof(u64); i++) {
			dst[i] = READ_ONCE(f->bloom.words[i]);
			if (!(i & 0xffff))
				cond_resched();
		}
		memfilter_image_desc_bloom(&d, &f->bloom,
					   mf_stats_sum(f).adds);
	} else {
		spin_lock_bh(&f->lock);
		memcpy(image + sizeof(struct memfilter_image_header),
		       f->cuckoo.table, payload);
		stash = f->cuckoo.stash;
		memfilter_cuckoo_stats(&f->cuckoo, &s);
		spin_unlock_bh(&f->lock);
		memfilter_image_desc_cuckoo(&d, &f->cuckoo, s.items, stash);
	}
	memfilter_image_header((struct memfilter_image_header *)image, &d,
			       image + sizeof(struct memfilter_image_header));
	return image;
}

/**
 * memfilter_get() - take another reference to a filter
 * @f: a filter the caller holds a reference to, or found under RCU
 *
 * Context: any.
 * Return: @f, or NULL if its last reference was already dropped (possible
 * only for a filter found under RCU).
 */
struct memfilter *memfilter_get(struct memfilter *f)
{
	return refcount_inc_not_zero(&f->ref) ? f : NULL;
}
EXPORT_SYMBOL_GPL(memfilter_get);

/**
 * memfilter_put() - drop a reference to a filter
 * @f: the filter; NULL is ignored
 *
 * The last reference frees the filter after an RCU grace period, from a
 * workqueue, so this is callable from any context.
 *
 * Context: any.
 */
void memfilter_put(struct memfilter *f)
{
	if (f && refcount_dec_and_test(&f->ref))
		queue_rcu_work(mf_wq, &f->free_work);
}
EXPORT_SYMBOL_GPL(memfilter_put);

/**
 * memfilter_filter_info() - fill in a filter's parameters and statistics
 * @f: the filter
 * @info: zeroed by the caller; everything but size and flags is written
 *
 * Context: process context (takes memfilter_names_lock for the name).
 */
void memfilter_filter_info(struct memfilter *f, struct memfilter_info *info)
{
	struct memfilter_pcpu_stats s = mf_stats_sum(f);
	const struct memfilter_hasher *h;

	info->type = f->type;
	info->adds = s.adds;
	info->queries = s.queries;
	info->hits = s.hits;
	info->deletes = s.deletes;
	info->failed = s.failed;
	info->bytes = f->bytes;
	if (f->type == MEMFILTER_TYPE_BLOOM) {
		const struct memfilter_bloom *b = &f->bloom;

		h = &b->p.hasher;
		info->capacity = b->p.capacity;
		info->k = b->p.k;
		info->bits_per_key_q4 = b->p.bits_per_key_q4;
		info->keys = s.adds;
		info->fill = memfilter_bloom_popcount(b);
		info->fill_max = b->p.nblocks * MEMFILTER_BLOOM_BLOCK_BITS;
		info->est_fpr_ppb = memfilter_bloom_est_fpr_ppb(b);
	} else {
		struct memfilter_cuckoo_snapshot cs;

		memfilter_cuckoo_stats(&f->cuckoo, &cs);
		h = &f->cuckoo.p.hasher;
		info->capacity = f->cuckoo.p.capacity;
		info->k = MEMFILTER_CUCKOO_SLOTS;
		info->fingerprint_bits = f->cuckoo.p.fp_bits;
		info->keys = cs.items;
		info->fill = cs.slots_used;
		info->fill_max = cs.slots;
		info->est_fpr_ppb = cs.est_fpr_ppb;
		info->stash_used = cs.stash_used;
	}
	info->hash_algo = h->algo;
	if (h->algo == MEMFILTER_HASH_XXH64)
		info->seed = h->seed;
	else
		info->status |= MEMFILTER_STATUS_KEYED;
	if (info->keys > info->capacity)
		info->status |= MEMFILTER_STATUS_OVERFILL;

	mutex_lock(&memfilter_names_lock);
	if (f->pub) {
		info->status |= MEMFILTER_STATUS_PUBLISHED;
		strscpy(info->name, f->pub->name, sizeof(info->name));
	}
	mutex_unlock(&memfilter_names_lock);
}

/**
 * memfilter_filter_clear() - empty a filter
 * @f: the filter
 *
 * Keys added concurrently with a clear may or may not survive it.
 *
 * Context: process context.
 */
void memfilter_filter_clear(struct memfilter *f)
{
	struct memfilter_pcpu_stats *s;
	int cpu;

	if (f->type == MEMFILTER_TYPE_BLOOM) {
		u64 i, n = f->bloom.p.nblocks * MEMFILTER_BLOOM_BLOCK_WORDS;

		for (i = 0; i < n; i++) {
			WRITE_ONCE(f->bloom.words[i], 0);
			if (!(i & 0xffff))
				cond_resched();
		}
	} else {
		spin_lock_bh(&f->lock);
		memfilter_cuckoo_clear(&f->cuckoo);
		spin_unlock_bh(&f->lock);
	}
	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(f->stats, cpu);
		WRITE_ONCE(s->adds, 0);
	}
}

/**
 * memfilter_filter_hashes() - apply one command to a batch of key hashes
 * @f: the filter
 * @cmd: MEMFILTER_CMD_ADD, _QUERY, _DELETE or _ADD_UNIQUE
 * @hashes: the keys' hashes under the filter's hasher
 * @n: how many
 * @result: bitmap of @n bits, written: the key was present (QUERY), added
 *	(ADD, ADD_UNIQUE), removed (DELETE)
 * @done: out: how many hashes were processed (< @n only on -ENOSPC)
 *
 * Context: any but hard interrupt; does not sleep.
 * Return: 0, -ENOSPC when a cuckoo filter filled up, -EOPNOTSUPP for a
 * command the filter type lacks.
 */
int memfilter_filter_hashes(struct memfilter *f, u32 cmd, const u64 *hashes, u32 n,
			    unsigned long *result, u32 *done)
{
	struct memfilter_pcpu_stats *s;
	u32 i, hits = 0;
	int ret = 0;

	bitmap_zero(result, n);
	*done = n;
	if (f->type == MEMFILTER_TYPE_BLOOM) {
		switch (cmd) {
		case MEMFILTER_CMD_QUERY:
			memfilter_bloom_contains_hashes(&f->bloom, hashes, n,
							result);
			hits = bitmap_weight(result, n);
			this_cpu_add(f->stats->queries, n);
			this_cpu_add(f->stats->hits, hits);
			return 0;
		case MEMFILTER_CMD_ADD:
			memfilter_bloom_add_hashes(&f->bloom, hashes, n);
			bitmap_fill(result, n);
			this_cpu_add(f->stats->adds, n);
			return 0;
		default:
			*done = 0;
			return -EOPNOTSUPP;
		}
	}

	if (cmd == MEMFILTER_CMD_QUERY) {
		memfilter_cuckoo_contains_hashes(&f->cuckoo, hashes, n, result);
		this_cpu_add(f->stats->queries, n);
		this_cpu_add(f->stats->hits, bitmap_weight(result, n));
		return 0;
	}
	spin_lock_bh(&f->lock);
	s = this_cpu_ptr(f->stats);
	for (i = 0; i < n; i++) {
		switch (cmd) {
		case MEMFILTER_CMD_ADD:
			ret = memfilter_cuckoo_add_hash(&f->cuckoo, hashes[i]);
			break;
		case MEMFILTER_CMD_ADD_UNIQUE:
			ret = memfilter_cuckoo_add_unique_hash(&f->cuckoo,
							       hashes[i]);
			if (ret == -EEXIST) {
				ret = 0;
				continue;
			}
			break;
		case MEMFILTER_CMD_DELETE:
			ret = memfilter_cuckoo_delete_hash(&f->cuckoo, hashes[i]);
			if (ret == -ENOENT) {
				ret = 0;
				continue;
			}
			if (!ret)
				s->deletes++;
			break;
		default:
			ret = -EOPNOTSUPP;
		}
		if (ret)
			break;
		__set_bit(i, result);
		if (cmd != MEMFILTER_CMD_DELETE)
			s->adds++;
	}
	if (ret == -ENOSPC)
		s->failed++;
	spin_unlock_bh(&f->lock);
	*done = i;
	return ret;
}

static u64 mf_hash_key(struct memfilter *f, const void *key, u32 len)
{
	return memfilter_hash(f->type == MEMFILTER_TYPE_BLOOM ?
			      &f->bloom.p.hasher : &f->cuckoo.p.hasher,
			      key, len);
}

/**
 * memfilter_contains() - may a key be in the filter?
 * @f: the filter (a reference, or found under RCU)
 * @key: the key
 * @len: its length in bytes
 *
 * Never a false negative for a key whose add returned before this call
 * started (and, for cuckoo filters, that was not deleted since).
 *
 * Context: any but hard interrupt; lockless, does not sleep.
 * Return: false if the key is definitely absent, true if it may be present.
 */
bool memfilter_contains(struct memfilter *f, const void *key, u32 len)
{
	unsigned long res = 0;
	u64 h = mf_hash_key(f, key, len);
	u32 done;

	memfilter_filter_hashes(f, MEMFILTER_CMD_QUERY, &h, 1, &res, &done);
	return res & 1;
}
EXPORT_SYMBOL_GPL(memfilter_contains);

/**
 * memfilter_add() - add a key
 * @f: the filter
 * @key: the key
 * @len: its length in bytes
 *
 * Context: any but hard interrupt; does not sleep (cuckoo filters take a
 * spinlock with bottom halves disabled).
 * Return: 0, or -ENOSPC when a cuckoo filter is full (nothing in it lost).
 */
int memfilter_add(struct memfilter *f, const void *key, u32 len)
{
	unsigned long res;
	u64 h = mf_hash_key(f, key, len);
	u32 done;

	return memfilter_filter_hashes(f, MEMFILTER_CMD_ADD, &h, 1, &res, &done);
}
EXPORT_SYMBOL_GPL(memfilter_add);

/**
 * memfilter_delete() - delete one copy of a key from a cuckoo filter
 * @f: the filter
 * @key: a key previously added (deleting others may remove a colliding
 *	key's fingerprint)
 * @len: its length in bytes
 *
 * Context: any but hard interrupt; does not sleep.
 * Return: 0, -ENOENT if not present, -EOPNOTSUPP for a Bloom filter.
 */
int memfilter_delete(struct memfilter *f, const void *key, u32 len)
{
	unsigned long res = 0;
	u64 h = mf_hash_key(f, key, len);
	u32 done;
	int ret;

	ret = memfilter_filter_hashes(f, MEMFILTER_CMD_DELETE, &h, 1, &res, &done);
	if (ret)
		return ret;
	return res & 1 ? 0 : -ENOENT;
}
EXPORT_SYMBOL_GPL(memfilter_delete);

#define MF_KERNEL_BATCH	64

/**
 * memfilter_contains_batch() - query fixed-size keys
 * @f: the filter
 * @keys: @n keys of @key_size bytes, back to back
 * @key_size: bytes per key
 * @n: how many
 * @result: bitmap of @n bits: set when the key may be present
 *
 * Context: any but hard interrupt; lockless, does not sleep.
 * Return: how many keys may be present.
 */
u32 memfilter_contains_batch(struct memfilter *f, const void *keys,
			     u32 key_size, u32 n, unsigned long *result)
{
	DECLARE_BITMAP(res, MF_KERNEL_BATCH);
	u64 h[MF_KERNEL_BATCH];
	u32 i, j, m, done, hits = 0;

	for (i = 0; i < n; i += m) {
		m = min_t(u32, n - i, MF_KERNEL_BATCH);
		for (j = 0; j < m; j++)
			h[j] = mf_hash_key(f, keys + (size_t)(i + j) * key_size,
					   key_size);
		memfilter_filter_hashes(f, MEMFILTER_CMD_QUERY, h, m, res, &done);
		bitmap_copy(result + i / BITS_PER_LONG, res, m);
		hits += bitmap_weight(res, m);
	}
	return hits;
}
EXPORT_SYMBOL_GPL(memfilter_contains_batch);

/**
 * memfilter_add_batch() - add fixed-size keys
 * @f: the filter
 * @keys: @n keys of @key_size bytes, back to back
 * @key_size: bytes per key
 * @n: how many
 * @done: out: how many were added (all unless -ENOSPC)
 *
 * Context: any but hard interrupt; does not sleep.
 * Return: 0 or -ENOSPC (a full cuckoo filter; the keys before *@done were
 * added, nothing already in the filter was lost).
 */
int memfilter_add_batch(struct memfilter *f, const void *keys, u32 key_size,
			u32 n, u32 *done)
{
	DECLARE_BITMAP(res, MF_KERNEL_BATCH);
	u64 h[MF_KERNEL_BATCH];
	u32 i, j, m, d;
	int ret = 0;

	for (i = 0; i < n && !ret; i += d) {
		m = min_t(u32, n - i, MF_KERNEL_BATCH);
		for (j = 0; j < m; j++)
			h[j] = mf_hash_key(f, keys + (size_t)(i + j) * key_size,
					   key_size);
		ret = memfilter_filter_hashes(f, MEMFILTER_CMD_ADD, h, m, res, &d);
	}
	*done = i;
	return ret;
}
EXPORT_SYMBOL_GPL(memfilter_add_batch);

int memfilter_filter_init(void)
{
	mf_wq = alloc_workqueue("memfilter", 0, 0);
	return mf_wq ? 0 : -ENOMEM;
}

void memfilter_filter_exit(void)
{
	/* Every filter's last put has run: wait for the RCU works to finish. */
	rcu_barrier();
	destroy_workqueue(mf_wq);
}
