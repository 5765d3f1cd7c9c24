/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * memfilter: in-kernel membership filters (blocked Bloom, cuckoo, and
 * window filters that forget keys by age).
 *
 * This is the userspace ABI of /dev/memfilter. It is the single definition
 * shared by the kernel module, libmemfilter and every tool; nothing else
 * describes the ABI.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _UAPI_LINUX_MEMFILTER_H
#define _UAPI_LINUX_MEMFILTER_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

/**
 * DOC: General ioctl format
 *
 * Every ioctl takes a pointer to a structure whose first member is
 * ``__u32 size``, set by the caller to the size of the structure it was
 * compiled with. The kernel copies the structure with
 * copy_struct_from_user(): a caller built against an older, smaller
 * structure gets the newer fields zeroed; a caller built against a newer,
 * larger structure is accepted as long as every byte the kernel does not know
 * is zero. Output is written back only up to the smaller of the two sizes.
 * Structures grow only at the end, in 64-bit aligned steps. Fields named
 * ``__reserved`` and all unknown ``flags`` bits must be zero.
 *
 * The commands are encoded with _IOWR() for the benefit of tracing tools;
 * the kernel dispatches on the type and number only and takes the size from
 * the ``size`` member, so a structure that grows keeps its command number.
 *
 * The errnos have one meaning across all commands:
 *
 *  - ENOTTY: the command number is not known to this kernel (or is a
 *    filter command on /dev/memfilter, or the other way round).
 *  - EFAULT: the argument pointer (or a pointer inside it) is not valid.
 *  - EINVAL: ``size`` is smaller than the first version of the structure,
 *    or a known field holds an invalid value (a name outside
 *    ``[A-Za-z0-9._-]``, an ``fpr_ppb`` outside 1 .. 10^9 - 1, a key
 *    length over MEMFILTER_KEY_MAX anywhere in a batch, ...).
 *  - E2BIG: ``size`` is larger than the kernel's structure and the extra
 *    bytes are not all zero (a newer feature this kernel lacks), or
 *    ``size`` is larger than a page (4096 on x86), checked before any byte
 *    is read, as for openat2() and clone3(). CREATE and LOAD also return
 *    it for a filter larger than the ``max_filter_mb`` module parameter
 *    or than the format allows (a size no retry can fix, unlike ENOMEM).
 *  - EOPNOTSUPP: the structure is understood but asks for something this
 *    kernel does not support: an unknown ``flags`` bit, a non-zero
 *    ``__reserved`` field, an unknown ABI version, filter type, hash or
 *    image version, or an operation the filter's type does not have
 *    (DELETE, ADD_UNIQUE and COUNT on Bloom and window filters,
 *    TEST_AND_ADD on cuckoo filters, ROTATE on all but window filters),
 *    even with no keys.
 *  - EACCES: /dev/memfilter was opened without the needed permission
 *    (the device is mode 0600 unless udev says otherwise).
 *  - EBADF: the fd is not open for what the command does, as write(2) on
 *    an O_RDONLY file: CREATE, LOAD, NF_ATTACH, NF_DETACH, REPLACE and
 *    EXCHANGE, and OPEN with MEMFILTER_OPEN_WRITE, need /dev/memfilter
 *    opened for writing;
 *    ADD, DELETE, ADD_UNIQUE, TEST_AND_ADD, CLEAR, ROTATE, PUBLISH and
 *    UNPUBLISH need a filter fd opened for writing (every CREATE and LOAD
 *    fd is; an OPEN fd only with MEMFILTER_OPEN_WRITE). Also: the fd is
 *    not a memfilter fd.
 *  - EPERM: the command needs a privilege the fd's opener lacked (the
 *    credentials an fd was opened with count, not the caller's): naming a
 *    filter, or opening for writing a filter one does not own (see
 *    struct memfilter_open), needs CAP_SYS_ADMIN; dumping a keyed filter
 *    needs a writable fd opened by a process with CAP_SYS_ADMIN.
 *  - ENOENT: no filter by that name.
 *  - EEXIST: the name is taken.
 *  - ENOSPC: no room, and nothing already in the filter was lost: a
 *    cuckoo filter is full, or a growing filter is at its limits (its
 *    ``grow_max`` sub-filters, ``max_filter_mb`` or ``max_total_mb``);
 *    NF_ATTACH: the network namespace has MEMFILTER_NF_MAX attachments.
 *  - EBADMSG: a filter image is corrupt or inconsistent.
 *  - ENOMEM: out of memory, or the ``max_total_mb`` module parameter
 *    (filters and dump snapshots together) would be exceeded.
 */

#define MEMFILTER_IOCTL_TYPE	0xB9
#define MEMFILTER_CMD_BASE	0x80

/* The ABI version this header describes. */
#define MEMFILTER_API_VERSION	1

/* Commands on /dev/memfilter. */
#define MEMFILTER_CMD_API	(MEMFILTER_CMD_BASE + 0)
#define MEMFILTER_CMD_CREATE	(MEMFILTER_CMD_BASE + 1)
#define MEMFILTER_CMD_OPEN	(MEMFILTER_CMD_BASE + 2)
#define MEMFILTER_CMD_LIST	(MEMFILTER_CMD_BASE + 3)
#define MEMFILTER_CMD_LOAD	(MEMFILTER_CMD_BASE + 4)
/* Commands on a filter fd. */
#define MEMFILTER_CMD_ADD	(MEMFILTER_CMD_BASE + 0x10)
#define MEMFILTER_CMD_QUERY	(MEMFILTER_CMD_BASE + 0x11)
#define MEMFILTER_CMD_DELETE	(MEMFILTER_CMD_BASE + 0x12)
#define MEMFILTER_CMD_ADD_UNIQUE (MEMFILTER_CMD_BASE + 0x13)
#define MEMFILTER_CMD_INFO	(MEMFILTER_CMD_BASE + 0x14)
#define MEMFILTER_CMD_CLEAR	(MEMFILTER_CMD_BASE + 0x15)
#define MEMFILTER_CMD_PUBLISH	(MEMFILTER_CMD_BASE + 0x16)
#define MEMFILTER_CMD_UNPUBLISH	(MEMFILTER_CMD_BASE + 0x17)
#define MEMFILTER_CMD_TEST_AND_ADD (MEMFILTER_CMD_BASE + 0x18)
#define MEMFILTER_CMD_ROTATE	(MEMFILTER_CMD_BASE + 0x19)
#define MEMFILTER_CMD_COUNT	(MEMFILTER_CMD_BASE + 0x1a)
#define MEMFILTER_CMD_ADD_PREFIXES (MEMFILTER_CMD_BASE + 0x1b)

/* Bits of memfilter_api.features: what this kernel module can do. */
#define MEMFILTER_FEAT_HASH_XXH64	_BITULL(0)
#define MEMFILTER_FEAT_HASH_SIPHASH	_BITULL(1)
#define MEMFILTER_FEAT_BLOOM		_BITULL(2)
#define MEMFILTER_FEAT_CUCKOO		_BITULL(3)
#define MEMFILTER_FEAT_NAMES		_BITULL(4)
#define MEMFILTER_FEAT_IMAGES		_BITULL(5)
#define MEMFILTER_FEAT_WINDOW		_BITULL(6) /* window filters, ROTATE */
#define MEMFILTER_FEAT_TEST_AND_ADD	_BITULL(7)
/* The BPF kfuncs of Documentation/bpf.rst are registered. */
#define MEMFILTER_FEAT_BPF_KFUNCS	_BITULL(8)
/* MEMFILTER_IOC_COUNT exists (bit 9 is MEMFILTER_FEAT_NETFILTER, below). */
#define MEMFILTER_FEAT_COUNT		_BITULL(10)
/* Growing Bloom filters (MEMFILTER_TYPE_GROW). */
#define MEMFILTER_FEAT_GROW		_BITULL(11)
/* Published filters have an id (memfilter_info.pub_id, BPF by-id lookup). */
#define MEMFILTER_FEAT_PUB_ID		_BITULL(12)
/* Filters can hash keys with seeded XXH3-64 (MEMFILTER_CREATE_XXH3). */
#define MEMFILTER_FEAT_HASH_XXH3	_BITULL(13)
/*
 * MEMFILTER_CREATE_XXH64 exists and a create request that names no hash
 * gets XXH3-64; without this bit it gets XXH64 and the flag is refused.
 */
#define MEMFILTER_FEAT_HASH_DEFAULT_XXH3 _BITULL(14)
/*
 * Address prefix filters: memfilter_create.prefix_lengths,
 * MEMFILTER_IOC_ADD_PREFIXES, address lookups by the prefix rule (see
 * struct memfilter_prefix) in the netfilter hook and the BPF kfuncs.
 */
#define MEMFILTER_FEAT_PREFIXES		_BITULL(16)
/*
 * Bloom, window and growing filters have a layout (memfilter_create.layout,
 * memfilter_info.layout, MEMFILTER_IMAGE_SPLIT32): MEMFILTER_LAYOUT_SPLIT32
 * exists. Without this bit every such filter is MEMFILTER_LAYOUT_LINE64 and
 * a non-zero layout is refused (EOPNOTSUPP).
 */
#define MEMFILTER_FEAT_LAYOUTS		_BITULL(17)

/**
 * struct memfilter_api - ioctl(MEMFILTER_IOC_API): version handshake
 * @size: sizeof(struct memfilter_api)
 * @flags: must be 0
 * @api_version: in: the version the caller speaks (MEMFILTER_API_VERSION);
 *	out: the version the kernel speaks
 * @__reserved: must be 0
 * @features: out: MEMFILTER_FEAT_* bits this kernel supports
 *
 * Like UFFDIO_API: the caller states the ABI version it was built for and
 * learns what the kernel supports. An @api_version the kernel does not
 * speak fails with EOPNOTSUPP and reports the kernel's version in
 * @api_version.
 */
struct memfilter_api {
	__u32 size;
	__u32 flags;
	__u32 api_version;
	__u32 __reserved;
	__aligned_u64 features;
};

/* Filter types. */
#define MEMFILTER_TYPE_BLOOM	1
#define MEMFILTER_TYPE_CUCKOO	2
#define MEMFILTER_TYPE_WINDOW	3	/* Bloom generations, oldest forgotten */
#define MEMFILTER_TYPE_GROW	4	/* Bloom sub-filters, added as it fills */

/*
 * Bloom layouts (memfilter_create.layout, memfilter_info.layout), for
 * Bloom, window and growing filters (Documentation/filters.rst):
 * LINE64, 64-byte blocks of 8 x 64-bit words, k of them probed (1..8);
 * SPLIT32, the split-block filter of Parquet, Impala and Kudu: 32-byte
 * blocks of 8 x 32-bit words, one bit set in each (k = 8). At an equal
 * false-positive rate SPLIT32 takes about 6% more memory (1%: 10.75
 * bits/key against 10; 0.1%: 17 against 15.75) and answers with one
 * 32-byte load. A create request naming none (0) gets the module's
 * default, which INFO then reports.
 */
#define MEMFILTER_LAYOUT_DEFAULT	0
#define MEMFILTER_LAYOUT_LINE64		1
#define MEMFILTER_LAYOUT_SPLIT32	2

/*
 * Key hash algorithms (memfilter_info.hash_algo, filter images). XXH3 is
 * xxHash 0.8's XXH3_64bits_withSeed(): the same seeding as XXH64, faster
 * on keys of up to 16 bytes; neither resists chosen keys. A filter's
 * algorithm never changes: images carry it, and an image loads with the
 * one it names, whatever the default for new filters.
 */
#define MEMFILTER_HASH_XXH64	1
#define MEMFILTER_HASH_SIPHASH24 2
#define MEMFILTER_HASH_XXH3	3

/*
 * Flags of memfilter_create.flags. At most one of KEYED, XXH3 and XXH64
 * names the hash; with none of them the filter hashes with XXH3-64 where
 * the module reports MEMFILTER_FEAT_HASH_DEFAULT_XXH3, and with XXH64 on
 * older modules (which refuse the XXH64 flag with EOPNOTSUPP: a caller
 * that wants XXH64 everywhere may retry without it).
 */
#define MEMFILTER_CREATE_KEYED	_BITUL(0) /* SipHash-2-4, secret from the kernel RNG */
#define MEMFILTER_CREATE_SEED	_BITUL(1) /* use @seed, not a random one (XXH64, XXH3) */
#define MEMFILTER_CREATE_XXH3	_BITUL(2) /* XXH3-64; not with KEYED or XXH64 */
#define MEMFILTER_CREATE_XXH64	_BITUL(3) /* XXH64; not with KEYED or XXH3 */
#define MEMFILTER_CREATE_FLAGS	(MEMFILTER_CREATE_KEYED | MEMFILTER_CREATE_SEED | \
				 MEMFILTER_CREATE_XXH3 | MEMFILTER_CREATE_XXH64)

/* Window filters: generations per filter. */
#define MEMFILTER_WINDOW_MIN_GENERATIONS 2
#define MEMFILTER_WINDOW_MAX_GENERATIONS 16

/* Flags of memfilter_create.window_flags. */
#define MEMFILTER_WINDOW_ROTATE_BY_COUNT _BITUL(0) /* full generation rotates */
#define MEMFILTER_WINDOW_FLAGS	MEMFILTER_WINDOW_ROTATE_BY_COUNT

/*
 * Growing filters: sub-filters per filter, and the defaults a create
 * request's zero fields stand for.
 */
#define MEMFILTER_GROW_MAX_SUBS		16
#define MEMFILTER_GROW_DEFAULT_FACTOR	2
#define MEMFILTER_GROW_MAX_FACTOR	16
#define MEMFILTER_GROW_DEFAULT_RATIO_PCT 50

/* A name, NUL-terminated, of [A-Za-z0-9._-] characters. */
#define MEMFILTER_NAME_MAX	64

/**
 * struct memfilter_create - ioctl(MEMFILTER_IOC_CREATE): a new filter
 * @size: sizeof(struct memfilter_create)
 * @flags: MEMFILTER_CREATE_* bits
 * @type: MEMFILTER_TYPE_BLOOM, MEMFILTER_TYPE_CUCKOO, MEMFILTER_TYPE_WINDOW
 *	or MEMFILTER_TYPE_GROW
 * @fingerprint_bits: cuckoo: 8, 12 or 16; 0 derives it from @fpr_ppb.
 *	Must be 0 for Bloom, window and growing filters.
 * @capacity: how many keys the filter is designed for (>= 1); window
 *	filters: keys per generation (per rotation period); growing
 *	filters: keys of the first sub-filter
 * @fpr_ppb: target false-positive rate in parts per billion (1 .. 10^9-1);
 *	0 means "use @bits_per_key_q4" (Bloom, window) or @fingerprint_bits
 *	(cuckoo); window filters: the rate with every generation full;
 *	growing filters: required, the bound on the rate of the whole
 *	filter however many sub-filters it grows
 * @bits_per_key_q4: Bloom, window: bits per key times 4 (40 = 10
 *	bits/key; window: of each generation); exactly one of @fpr_ppb and
 *	@bits_per_key_q4 is non-zero for these
 * @out_fd: in: must be 0; out: the new filter's file descriptor (O_CLOEXEC)
 * @seed: the XXH3 or XXH64 seed with MEMFILTER_CREATE_SEED; must be 0
 *	otherwise
 * @name: optional: publish the filter under this name at once (needs the
 *	same privilege as MEMFILTER_IOC_PUBLISH); all zero for none
 * @generations: window: G, MEMFILTER_WINDOW_MIN_GENERATIONS ..
 *	MEMFILTER_WINDOW_MAX_GENERATIONS; 0 for other types
 * @window_flags: window: MEMFILTER_WINDOW_* bits; 0 for other types
 * @period_ms: window: rotate every @period_ms milliseconds (a kernel
 *	timer); 0 for no timer (rotation by count or MEMFILTER_IOC_ROTATE
 *	only); 0 for other types
 * @grow_max: growing: the most sub-filters, 1 .. MEMFILTER_GROW_MAX_SUBS;
 *	0 for MEMFILTER_GROW_MAX_SUBS; 0 for other types
 * @grow_factor: growing: each new sub-filter holds this many times the
 *	keys of the one before (s), 1 .. MEMFILTER_GROW_MAX_FACTOR; 0 for
 *	MEMFILTER_GROW_DEFAULT_FACTOR; 0 for other types
 * @grow_ratio_pct: growing: each new sub-filter's false-positive rate is
 *	this percentage of the one before (r), 1 .. 99; 0 for
 *	MEMFILTER_GROW_DEFAULT_RATIO_PCT; 0 for other types
 * @layout: Bloom, window, growing: MEMFILTER_LAYOUT_LINE64 or
 *	MEMFILTER_LAYOUT_SPLIT32, or 0 (MEMFILTER_LAYOUT_DEFAULT) for the
 *	module's default (SPLIT32 where it needs at most 8% more memory than
 *	LINE64 for the rate of each table, such as 1% and 0.1%; LINE64
 *	elsewhere and for @bits_per_key_q4); sizing from @fpr_ppb follows
 *	the layout's model.
 *	Must be 0 for cuckoo filters (EINVAL); an unknown layout, or any but
 *	0 on modules without MEMFILTER_FEAT_LAYOUTS, is EOPNOTSUPP
 * @prefix_lengths: 0 for a filter of keys; 1 .. MEMFILTER_PREFIX_LENGTHS_MAX
 *	for an address prefix filter (struct memfilter_prefix) that holds
 *	prefixes of at most this many distinct lengths per address family.
 *	Its size from @fpr_ppb is for @fpr_ppb / @prefix_lengths per key,
 *	so that an address lookup, which tests one key per length held,
 *	stays under @fpr_ppb (1 - (1 - p / L)^L <= p)
 * @__reserved1: must be 0
 *
 * A growing filter (MEMFILTER_TYPE_GROW) starts as one Bloom sub-filter
 * of @capacity keys at rate @fpr_ppb * (1 - r); when the newest is full
 * the next one, s times larger at r times the rate, takes the inserts
 * (sub-filter i: @capacity * s^i keys at @fpr_ppb * (1 - r) * r^i), so
 * the whole filter's rate stays under @fpr_ppb. Past @grow_max
 * sub-filters, the sub-filter rates the layout can reach, or the module's
 * memory limits, adds fail with ENOSPC and nothing already in is lost.
 *
 * Each filter is its own file descriptor; the filter lives while any fd,
 * published name or in-kernel reference does. Returns EINVAL for
 * inconsistent parameters, E2BIG when the size exceeds the module's
 * per-filter limit or overflows, ENOMEM when the total limit or memory is
 * exhausted, EEXIST when @name is taken. Nothing is left half-created.
 */
struct memfilter_create {
	__u32 size;
	__u32 flags;
	__u32 type;
	__u32 fingerprint_bits;
	__aligned_u64 capacity;
	__aligned_u64 fpr_ppb;
	__u32 bits_per_key_q4;
	__s32 out_fd;
	__aligned_u64 seed;
	char name[MEMFILTER_NAME_MAX];
	__u32 generations;
	__u32 window_flags;
	__aligned_u64 period_ms;
	__u32 grow_max;
	__u32 grow_factor;
	__u32 grow_ratio_pct;
	__u32 layout;
	__u32 prefix_lengths;
	__u32 __reserved1;
};

/* Flags of memfilter_open.flags. */
#define MEMFILTER_OPEN_WRITE	_BITUL(0) /* a read-write fd (see below) */
#define MEMFILTER_OPEN_FLAGS	MEMFILTER_OPEN_WRITE

/**
 * struct memfilter_open - ioctl(MEMFILTER_IOC_OPEN): open a published filter
 * @size: sizeof(struct memfilter_open)
 * @flags: MEMFILTER_OPEN_* bits
 * @name: the published name, NUL-terminated
 * @out_fd: in: must be 0; out: a new fd for the filter (O_CLOEXEC)
 * @__reserved: must be 0
 *
 * Without flags the new fd is read-only, like an O_RDONLY file: it may
 * QUERY, INFO and read() the image of an unkeyed filter; commands that
 * change the filter fail on it with EBADF. MEMFILTER_OPEN_WRITE asks for a
 * read-write fd, through a /dev/memfilter fd opened for writing (EBADF
 * otherwise) by a process with CAP_SYS_ADMIN or by the filter's owner
 * (EPERM otherwise): the same effective uid as its creator, holding every
 * one of CAP_SYS_ADMIN and CAP_NET_ADMIN the creator held (so uid 0
 * without capabilities does not own what root made). The right is
 * checked once, here, and then carried by the fd. ENOENT when no filter
 * has that name, EINVAL for an invalid name.
 */
struct memfilter_open {
	__u32 size;
	__u32 flags;
	char name[MEMFILTER_NAME_MAX];
	__s32 out_fd;
	__u32 __reserved;
};

/**
 * struct memfilter_list - ioctl(MEMFILTER_IOC_LIST): published names
 * @size: sizeof(struct memfilter_list)
 * @flags: must be 0
 * @count: in: capacity of @names in entries; out: number of published
 *	filters (may exceed the input: then only the first fit)
 * @__reserved: must be 0
 * @names: user pointer to @count entries of MEMFILTER_NAME_MAX bytes
 */
struct memfilter_list {
	__u32 size;
	__u32 flags;
	__u32 count;
	__u32 __reserved;
	__aligned_u64 names;
};

/* Limits of one batch (struct memfilter_keys). */
#define MEMFILTER_KEY_MAX	4096
#define MEMFILTER_BATCH_MAX	1048576

/**
 * struct memfilter_keys - a batch of keys for ADD, QUERY, DELETE, ADD_UNIQUE,
 *	TEST_AND_ADD and COUNT
 * @size: sizeof(struct memfilter_keys)
 * @flags: must be 0
 * @count: number of keys (0 .. MEMFILTER_BATCH_MAX)
 * @key_size: fixed-size keys: bytes per key (1 .. MEMFILTER_KEY_MAX), keys
 *	packed back to back at @keys; 0: variable-size keys, packed back to
 *	back at @keys with their lengths in @lens
 * @keys: user pointer to the key bytes
 * @lens: user pointer to @count __u32 lengths (each 0 .. MEMFILTER_KEY_MAX),
 *	only when @key_size is 0; must be 0 otherwise
 * @results: optional user pointer to a bitmap of (@count + 63) / 64 __u64
 *	words: bit i set when key i "may be present" (QUERY), was added
 *	(ADD, ADD_UNIQUE), was found and removed (DELETE) or "may have been
 *	present" before it was added (TEST_AND_ADD); COUNT: to an array of
 *	@count __u8, byte i the count of key i; 0 for none
 * @out_count: out: how many keys had their bit set (COUNT: a non-zero
 *	count)
 * @out_done: out: how many keys were processed; less than @count only
 *	when the call failed part way (ENOSPC from a full cuckoo filter or a
 *	growing filter at its limits, ENOMEM from a growing filter that
 *	could not allocate its next sub-filter, EFAULT, EINTR): keys
 *	before @out_done took effect, the rest did not, and result words
 *	past the one holding key @out_done - 1 are not written. Every key
 *	length is checked before the first key takes effect: EINVAL comes
 *	with @out_done 0 and nothing changed.
 *
 * DELETE and ADD_UNIQUE are for cuckoo filters (EOPNOTSUPP on Bloom and
 * window filters); TEST_AND_ADD is for Bloom and window filters
 * (EOPNOTSUPP on cuckoo filters, whose analogue is ADD_UNIQUE).
 * TEST_AND_ADD answers, for each key in order, what QUERY would have said
 * and then adds it (window filters: to the current generation), in one
 * pass over the key's cache lines; a key repeated in one batch is present
 * the second time. A key whose add returned before the call started (and
 * that is within its window) is always reported present; two calls racing
 * on one new key may both report it absent, and it is present after both.
 * ADD_UNIQUE skips a key that may already be present (its result bit stays
 * clear) and goes on; DELETE likewise skips a key it does not find.
 * ADD on a cuckoo filter that is full fails with ENOSPC and loses nothing
 * that was in it.
 *
 * COUNT is for cuckoo filters (EOPNOTSUPP on Bloom and window filters,
 * whatever @count): like RedisBloom's CF.COUNT, it tells how many times
 * each key may have been added and not deleted, as the number of copies of
 * its fingerprint in its two buckets and the victim stash. A key's count
 * is at least the number of its adds that returned before the call
 * started, minus its deletes (0: certainly absent, as QUERY answers), and
 * at most MEMFILTER_COUNT_MAX; it is more when keys sharing its
 * fingerprint and buckets were added (a false positive, with QUERY's
 * probability per copy). COUNT is a lockless reader like QUERY: each key
 * is counted from one consistent snapshot of its buckets and the stash (a
 * copy a writer is moving is counted once); a key whose lockless count
 * keeps meeting a writer mid-update is recounted under the writer lock.
 * It changes no statistic
 * but @queries and @hits, as QUERY does.
 */
struct memfilter_keys {
	__u32 size;
	__u32 flags;
	__u32 count;
	__u32 key_size;
	__aligned_u64 keys;
	__aligned_u64 lens;
	__aligned_u64 results;
	__u32 out_count;
	__u32 out_done;
};

/* The largest COUNT: 2 buckets of 4 slots, and the victim stash. */
#define MEMFILTER_COUNT_MAX	9

/**
 * DOC: Address prefixes
 *
 * A filter created with a non-zero memfilter_create.prefix_lengths holds
 * address prefixes (CIDR: 10.0.0.0/8, 2001:db8::/32; an address is its
 * /32 or /128) for lookups by address. MEMFILTER_IOC_ADD_PREFIXES adds
 * them: struct memfilter_keys whose @keys are @count struct
 * memfilter_prefix (@key_size sizeof(struct memfilter_prefix), @lens 0).
 * A prefix of length L is stored as one key: the byte L, then the
 * address with every bit past the first L cleared, 4 bytes (5 in all)
 * for IPv4, 16 (17) for IPv6. The filter records which lengths it holds,
 * per family, at most @prefix_lengths of each.
 *
 * An address lookup (the netfilter hook's SADDR and DADDR keys, the
 * address kfuncs of Documentation/bpf.rst, libmemfilter, memfilterctl
 * query --prefixes) tests the address's key at each length its family
 * holds, longest first, and stops at the first that may be present: at
 * most @prefix_lengths probes. A filter without prefixes looks the
 * address itself up, as a 4- or 16-byte key. Each probe may be a false
 * positive, so an address whose family holds L lengths is a false
 * positive with probability 1 - (1 - p)^L, about L times the key rate
 * p (memfilter_info.prefix_fpr4_ppb, _fpr6_ppb); sizing from fpr_ppb
 * accounts for @prefix_lengths (struct memfilter_create).
 *
 * Lengths are recorded before any key of the batch is added and are never
 * forgotten (CLEAR keeps them; they cost probes, not answers): a lookup
 * that starts after an add returned sees the prefix. Prefixes cannot be
 * deleted: rebuild the filter instead. Errnos of ADD_PREFIXES beyond those
 * of ADD: EOPNOTSUPP on a filter without prefixes; EINVAL when @key_size
 * is not sizeof(struct memfilter_prefix), @lens is set, or any entry is
 * invalid (family, length, an address bit set past the length, a
 * non-zero reserved byte or byte past an IPv4 address); ENOSPC when the
 * batch would give a family more than @prefix_lengths lengths. All three
 * are checked on the whole batch before anything changes (out_done 0).
 */
#define MEMFILTER_PREFIX_IPV4	4
#define MEMFILTER_PREFIX_IPV6	6

/* The most lengths per family a filter may hold, and the CLI's default. */
#define MEMFILTER_PREFIX_LENGTHS_MAX	32
#define MEMFILTER_PREFIX_LENGTHS_DEFAULT 16

/**
 * struct memfilter_prefix - one address prefix (MEMFILTER_IOC_ADD_PREFIXES)
 * @family: MEMFILTER_PREFIX_IPV4 or MEMFILTER_PREFIX_IPV6
 * @length: bits of the prefix: 0 .. 32 (IPv4), 0 .. 128 (IPv6)
 * @__reserved: must be 0
 * @addr: the address in network byte order, every bit past @length 0;
 *	IPv4 in the first 4 bytes, the other 12 bytes 0
 */
struct memfilter_prefix {
	__u8 family;
	__u8 length;
	__u8 __reserved[2];
	__u8 addr[16];
};

/* memfilter_info.status bits. */
#define MEMFILTER_STATUS_OVERFILL	_BITUL(0) /* keys > capacity */
#define MEMFILTER_STATUS_PUBLISHED	_BITUL(1)
#define MEMFILTER_STATUS_KEYED		_BITUL(2)

/**
 * struct memfilter_info - ioctl(MEMFILTER_IOC_INFO): parameters and stats
 * @size: sizeof(struct memfilter_info)
 * @flags: must be 0
 * @type: MEMFILTER_TYPE_*
 * @hash_algo: MEMFILTER_HASH_*
 * @seed: the XXH64 or XXH3 seed (0 for keyed filters: the secret never
 *	leaves)
 * @capacity: design capacity in keys
 * @bytes: memory of the filter's table
 * @keys: keys in the filter (Bloom: successful adds, which counts
 *	duplicates but not a key TEST_AND_ADD found present; cuckoo:
 *	fingerprints stored)
 * @fill: Bloom: bits set; cuckoo: slots used
 * @fill_max: Bloom: bits; cuckoo: slots
 * @est_fpr_ppb: false-positive rate estimated from the actual fill, ppb
 * @k: Bloom: probes per key; cuckoo: slots per bucket
 * @fingerprint_bits: cuckoo fingerprint width; 0 for Bloom
 * @bits_per_key_q4: Bloom: bits per key of capacity, times 4
 * @status: MEMFILTER_STATUS_* bits
 * @adds: add calls that inserted a key (TEST_AND_ADD: the keys it
 *	reported absent)
 * @queries: keys queried
 * @hits: queried keys answered "may be present"
 * @deletes: keys deleted
 * @failed: adds refused because the filter was full (cuckoo)
 * @stash_used: cuckoo victim stash entries in use
 * @__reserved: 0
 * @name: published name, or empty
 * @generations: window: G; 0 for other types
 * @current_gen: window: the generation inserts go to, 0..G-1
 * @period_ms: window: the rotation period, 0 for none
 * @window_flags: window: MEMFILTER_WINDOW_* bits it was created with
 * @gens_count: in: entries at @gens; out: G (window), the number of
 *	sub-filters (growing), or 0
 * @gens: in: optional user pointer to @gens_count struct
 *	memfilter_generation, filled for generations (sub-filters) 0 ..
 *	min(@gens_count, G) - 1; 0 for none
 * @subfilters: growing: sub-filters in use (inserts go to the last);
 *	0 for other types
 * @grow_max: growing: the most sub-filters; 0 for other types
 * @grow_factor: growing: capacity factor s; 0 for other types
 * @grow_ratio_pct: growing: rate ratio r in percent; 0 for other types
 * @fpr_ppb: growing: the bound on the whole filter's rate it was
 *	created with; 0 for other types
 * @pub_id: while published: the filter's id, 1 .. 2^31 - 1, which BPF
 *	programs pass to bpf_memfilter_borrow_id() instead of the name;
 *	0 when not published, and from kernels without
 *	MEMFILTER_FEAT_PUB_ID. A new publish gets a new id; an id is
 *	issued again only after about 2^31 later publishes
 * @layout: Bloom, window, growing: MEMFILTER_LAYOUT_LINE64 or
 *	MEMFILTER_LAYOUT_SPLIT32 (never 0: the default is resolved at
 *	creation); 0 for cuckoo filters, and from kernels without
 *	MEMFILTER_FEAT_LAYOUTS (whose filters are all LINE64)
 * @__reserved2: 0
 * @prefix_lengths: prefix filters: the most lengths per family
 *	(memfilter_create.prefix_lengths); 0 for filters of keys
 * @__reserved3: 0
 * @prefixes: prefix filters: the lengths held, bit L of word 0 for IPv4
 *	/L, bit L % 64 of word 1 + L / 64 for IPv6 /L; 0 otherwise
 * @prefix_fpr4_ppb: prefix filters: the false-positive rate of an IPv4
 *	address lookup, 1 - (1 - @est_fpr_ppb)^L for the L IPv4 lengths
 *	held (0 with none); 0 for filters of keys
 * @prefix_fpr6_ppb: the same for IPv6
 *
 * Window filters report @capacity per generation, @keys and @fill summed
 * over the generations (keys: adds since each was last cleared),
 * @est_fpr_ppb from the model at each generation's key count, and
 * MEMFILTER_STATUS_OVERFILL when the current generation holds more than
 * @capacity keys.
 *
 * Growing filters report @capacity, @fill_max and @bytes summed over
 * their sub-filters in use, @keys and @fill summed likewise, @k and
 * @bits_per_key_q4 of the first, @est_fpr_ppb the sum of each
 * sub-filter's model rate at its key count, and one struct
 * memfilter_generation per sub-filter (@age_ms 0, @keys, @fill). They
 * are never MEMFILTER_STATUS_OVERFILL: a full sub-filter makes a new one.
 */
struct memfilter_info {
	__u32 size;
	__u32 flags;
	__u32 type;
	__u32 hash_algo;
	__aligned_u64 seed;
	__aligned_u64 capacity;
	__aligned_u64 bytes;
	__aligned_u64 keys;
	__aligned_u64 fill;
	__aligned_u64 fill_max;
	__aligned_u64 est_fpr_ppb;
	__u32 k;
	__u32 fingerprint_bits;
	__u32 bits_per_key_q4;
	__u32 status;
	__aligned_u64 adds;
	__aligned_u64 queries;
	__aligned_u64 hits;
	__aligned_u64 deletes;
	__aligned_u64 failed;
	__u32 stash_used;
	__u32 __reserved;
	char name[MEMFILTER_NAME_MAX];
	__u32 generations;
	__u32 current_gen;
	__aligned_u64 period_ms;
	__u32 window_flags;
	__u32 gens_count;
	__aligned_u64 gens;
	__u32 subfilters;
	__u32 grow_max;
	__u32 grow_factor;
	__u32 grow_ratio_pct;
	__aligned_u64 fpr_ppb;
	__aligned_u64 pub_id;
	__u32 layout;
	__u32 __reserved2;
	__u32 prefix_lengths;
	__u32 __reserved3;
	__aligned_u64 prefixes[4];
	__aligned_u64 prefix_fpr4_ppb;
	__aligned_u64 prefix_fpr6_ppb;
};

/**
 * struct memfilter_generation - one generation of a window filter (INFO)
 * @age_ms: milliseconds since it last became current (since creation or
 *	load if it never did)
 * @keys: keys added to it since it was last cleared
 * @fill: bits set in it
 */
struct memfilter_generation {
	__aligned_u64 age_ms;
	__aligned_u64 keys;
	__aligned_u64 fill;
};

/**
 * struct memfilter_name - ioctl(MEMFILTER_IOC_PUBLISH / _UNPUBLISH)
 * @size: sizeof(struct memfilter_name)
 * @flags: must be 0
 * @name: PUBLISH: the name to publish this filter under (EEXIST if taken,
 *	EBUSY if this filter already has one); UNPUBLISH: must be empty
 *
 * Publishing makes the filter reachable by name from other processes and
 * from kernel hooks, and keeps it alive without any fd. Both need
 * CAP_SYS_ADMIN, held by the process that opened the filter fd (EPERM
 * otherwise): a name is a system-wide resource that kernel hooks trust.
 */
struct memfilter_name {
	__u32 size;
	__u32 flags;
	char name[MEMFILTER_NAME_MAX];
};

/**
 * struct memfilter_clear - ioctl(MEMFILTER_IOC_CLEAR): empty the filter
 * @size: sizeof(struct memfilter_clear)
 * @flags: must be 0
 */
struct memfilter_clear {
	__u32 size;
	__u32 flags;
};

/**
 * struct memfilter_rotate - ioctl(MEMFILTER_IOC_ROTATE): rotate a window
 * @size: sizeof(struct memfilter_rotate)
 * @flags: must be 0
 *
 * Clears the oldest generation and makes it current, now; the period
 * timer, if any, restarts. Keys added since G - 1 rotations ago stay
 * present. EOPNOTSUPP on other filter types.
 */
struct memfilter_rotate {
	__u32 size;
	__u32 flags;
};

/**
 * DOC: Filter images
 *
 * A filter travels as an image: a 128-byte header followed by the filter's
 * table (the payload), every field little-endian whatever the host. The
 * header pins everything needed to answer exactly as the original did:
 * type, geometry, hash algorithm, seed or secret. Reading a filter fd from
 * offset 0 yields its image (see Documentation/image-format.rst);
 * MEMFILTER_IOC_LOAD makes a new filter from one. The loader refuses what
 * it cannot answer exactly: EBADMSG for a corrupt or inconsistent image
 * (bad magic, checksum, sizes, geometry), EOPNOTSUPP for a well-formed
 * image of a version, type or hash this kernel does not know, E2BIG or
 * ENOMEM for one beyond the module's limits.
 *
 * Keyed (SipHash) filters carry their 128-bit secret in the image, since an
 * image without it could not answer at all. Dumping a keyed filter
 * therefore needs a read-write fd opened by a process with CAP_SYS_ADMIN
 * (the fd's credentials count, not the reader's: EPERM otherwise), and
 * such images must be stored like keys. A dump holds a snapshot of the
 * table until it is read to the end or the fd is closed; snapshots count
 * against the ``max_total_mb`` module parameter (ENOMEM past it).
 */
#define MEMFILTER_IMAGE_MAGIC	0x31474d49544c464dULL	/* "MFLTIMG1" */
#define MEMFILTER_IMAGE_VERSION	1
#define MEMFILTER_IMAGE_HDR_SIZE 128

/* memfilter_image_header.flags */
#define MEMFILTER_IMAGE_SECRET	_BITUL(0)	/* @secret holds the SipHash key */
/*
 * Cuckoo images only: the table uses the second bucket layout (any bucket
 * count; a key's other bucket (t - i) mod buckets, core/cuckoo.h); without
 * it, the first (a power of two of buckets, XOR).
 */
#define MEMFILTER_IMAGE_CUCKOO_MOD	_BITUL(1)
/*
 * Bloom, window and growing images only: the tables use the split-block
 * layout (MEMFILTER_LAYOUT_SPLIT32: @geometry counts 32-byte blocks, an
 * even number, and @k is 8); without it, the 64-byte layout
 * (MEMFILTER_LAYOUT_LINE64), which every image made before layouts has.
 */
#define MEMFILTER_IMAGE_SPLIT32		_BITUL(2)
/*
 * A prefix filter (memfilter_create.prefix_lengths): the payload ends with
 * struct memfilter_image_prefixes, after the table.
 */
#define MEMFILTER_IMAGE_PREFIXES	_BITUL(3)

/**
 * struct memfilter_image_header - the first 128 bytes of a filter image
 * @magic: MEMFILTER_IMAGE_MAGIC
 * @version: MEMFILTER_IMAGE_VERSION
 * @header_size: MEMFILTER_IMAGE_HDR_SIZE
 * @type: MEMFILTER_TYPE_*
 * @hash_algo: MEMFILTER_HASH_*
 * @flags: MEMFILTER_IMAGE_* bits
 * @seed: XXH64 or XXH3 seed (0 for keyed filters)
 * @secret: SipHash-2-4 key words (k0, k1) with MEMFILTER_IMAGE_SECRET,
 *	else 0
 * @capacity: design capacity in keys (window: per generation; growing:
 *	of the first sub-filter, whose shape @geometry, @k and
 *	@bits_per_key_q4 also give)
 * @keys: keys in the filter when the image was taken
 * @geometry: Bloom: blocks (64-byte, or 32-byte with
 *	MEMFILTER_IMAGE_SPLIT32); cuckoo: buckets (a power of two unless
 *	@flags has MEMFILTER_IMAGE_CUCKOO_MOD); window: blocks per generation
 * @k: Bloom, window: probes per key (1..8); cuckoo: fingerprint bits
 *	(8, 12, 16)
 * @bits_per_key_q4: Bloom, window: bits per key x 4 it was sized for;
 *	cuckoo: 0
 * @stash: cuckoo: the victim stash, (bucket << 16) | fingerprint, or 0;
 *	window: the number of generations; growing: bits 0-7 the number of
 *	sub-filters in the payload, 8-15 the most sub-filters, 16-23 the
 *	capacity factor, 24-31 the rate ratio in percent, 32-63 the rate
 *	bound in ppb (struct memfilter_create); Bloom: 0
 * @payload_size: bytes of table that follow the header
 * @payload_xxh64: XXH64 (seed 0) of the payload
 * @__reserved: must be 0
 * @header_xxh64: XXH64 (seed 0) of the header's first 120 bytes
 */
struct memfilter_image_header {
	__le64 magic;
	__le16 version;
	__le16 header_size;
	__le32 type;
	__le32 hash_algo;
	__le32 flags;
	__le64 seed;
	__le64 secret[2];
	__le64 capacity;
	__le64 keys;
	__le64 geometry;
	__le32 k;
	__le32 bits_per_key_q4;
	__le64 stash;
	__le64 payload_size;
	__le64 payload_xxh64;
	__u8 __reserved[16];
	__le64 header_xxh64;
};

/* Bytes of struct memfilter_image_window at the start of a window payload. */
#define MEMFILTER_IMAGE_WINDOW_SIZE 384

/**
 * struct memfilter_image_window - window images: the payload's first bytes
 * @generations: G, equal to the header's @stash
 * @current_gen: the generation inserts went to, below G
 * @flags: MEMFILTER_WINDOW_* bits it was created with
 * @__reserved0: must be 0
 * @period_ms: rotation period, 0 for none
 * @age_ms: each generation's age when imaged (time since it became
 *	current); 0 past G
 * @keys: keys added to each generation since it was cleared; 0 past G
 * @__reserved: must be 0
 *
 * Followed by the table: G * geometry blocks (64 or 32 bytes), the G blocks of one
 * index adjacent (core/window.h). Loading restores the generations, which
 * one is current, their ages and the period timer.
 */
struct memfilter_image_window {
	__le32 generations;
	__le32 current_gen;
	__le32 flags;
	__le32 __reserved0;
	__le64 period_ms;
	__le64 age_ms[MEMFILTER_WINDOW_MAX_GENERATIONS];
	__le64 keys[MEMFILTER_WINDOW_MAX_GENERATIONS];
	__u8 __reserved[104];
};

/* Bytes of struct memfilter_image_grow at the start of a growing payload. */
#define MEMFILTER_IMAGE_GROW_SIZE 192

/**
 * struct memfilter_image_grow - growing images: the payload's first bytes
 * @subs: sub-filters in the payload, equal to bits 0-7 of the header's
 *	@stash
 * @active: sub-filters in use, 1 .. @subs (the others were made ahead
 *	and are empty)
 * @keys: keys added to each sub-filter; 0 past @subs
 * @__reserved: must be 0
 *
 * Followed by the sub-filters' tables, in order: sub-filter i is a Bloom
 * table of the shape that struct memfilter_create gives it (its blocks
 * are computed, not stored).
 */
struct memfilter_image_grow {
	__le32 subs;
	__le32 active;
	__le64 keys[MEMFILTER_GROW_MAX_SUBS];
	__u8 __reserved[56];
};

/* Bytes of struct memfilter_image_prefixes at the end of a payload. */
#define MEMFILTER_IMAGE_PREFIXES_SIZE 64

/**
 * struct memfilter_image_prefixes - prefix filters' images: the payload's
 *	last bytes (with MEMFILTER_IMAGE_PREFIXES)
 * @prefix_lengths: the most lengths per family, 1 ..
 *	MEMFILTER_PREFIX_LENGTHS_MAX
 * @__reserved0: must be 0
 * @lengths: the lengths held, as memfilter_info.prefixes: at most
 *	@prefix_lengths of each family, no bit past IPv4 /32 in word 0 nor
 *	past IPv6 /128 in word 3
 * @__reserved: must be 0
 */
struct memfilter_image_prefixes {
	__le32 prefix_lengths;
	__le32 __reserved0;
	__le64 lengths[4];
	__u8 __reserved[24];
};

/**
 * struct memfilter_load - ioctl(MEMFILTER_IOC_LOAD): a filter from an image
 * @size: sizeof(struct memfilter_load)
 * @flags: must be 0
 * @image: user pointer to the whole image
 * @image_len: its length in bytes (header + payload, exactly)
 * @out_fd: in: must be 0; out: the new filter's fd (O_CLOEXEC)
 * @__reserved: must be 0
 * @name: optional: publish under this name (CAP_SYS_ADMIN); zero for none
 *
 * The new filter answers every query exactly as the imaged one did.
 * Nothing is left behind on error.
 */
struct memfilter_load {
	__u32 size;
	__u32 flags;
	__aligned_u64 image;
	__aligned_u64 image_len;
	__s32 out_fd;
	__u32 __reserved;
	char name[MEMFILTER_NAME_MAX];
};

#define MEMFILTER_IO(nr, type) _IOWR(MEMFILTER_IOCTL_TYPE, nr, type)
#define MEMFILTER_IOC_API	MEMFILTER_IO(MEMFILTER_CMD_API, struct memfilter_api)
#define MEMFILTER_IOC_CREATE	MEMFILTER_IO(MEMFILTER_CMD_CREATE, struct memfilter_create)
#define MEMFILTER_IOC_OPEN	MEMFILTER_IO(MEMFILTER_CMD_OPEN, struct memfilter_open)
#define MEMFILTER_IOC_LIST	MEMFILTER_IO(MEMFILTER_CMD_LIST, struct memfilter_list)
#define MEMFILTER_IOC_LOAD	MEMFILTER_IO(MEMFILTER_CMD_LOAD, struct memfilter_load)
#define MEMFILTER_IOC_ADD	MEMFILTER_IO(MEMFILTER_CMD_ADD, struct memfilter_keys)
#define MEMFILTER_IOC_QUERY	MEMFILTER_IO(MEMFILTER_CMD_QUERY, struct memfilter_keys)
#define MEMFILTER_IOC_DELETE	MEMFILTER_IO(MEMFILTER_CMD_DELETE, struct memfilter_keys)
#define MEMFILTER_IOC_ADD_UNIQUE MEMFILTER_IO(MEMFILTER_CMD_ADD_UNIQUE, struct memfilter_keys)
#define MEMFILTER_IOC_INFO	MEMFILTER_IO(MEMFILTER_CMD_INFO, struct memfilter_info)
#define MEMFILTER_IOC_CLEAR	MEMFILTER_IO(MEMFILTER_CMD_CLEAR, struct memfilter_clear)
#define MEMFILTER_IOC_PUBLISH	MEMFILTER_IO(MEMFILTER_CMD_PUBLISH, struct memfilter_name)
#define MEMFILTER_IOC_UNPUBLISH	MEMFILTER_IO(MEMFILTER_CMD_UNPUBLISH, struct memfilter_name)
#define MEMFILTER_IOC_TEST_AND_ADD MEMFILTER_IO(MEMFILTER_CMD_TEST_AND_ADD, struct memfilter_keys)
#define MEMFILTER_IOC_ROTATE	MEMFILTER_IO(MEMFILTER_CMD_ROTATE, struct memfilter_rotate)
#define MEMFILTER_IOC_COUNT	MEMFILTER_IO(MEMFILTER_CMD_COUNT, struct memfilter_keys)
#define MEMFILTER_IOC_ADD_PREFIXES MEMFILTER_IO(MEMFILTER_CMD_ADD_PREFIXES, struct memfilter_keys)

/**
 * DOC: Netfilter attachments
 *
 * A published filter can be attached to a netfilter hook of the caller's
 * network namespace (see Documentation/netfilter.rst). Each packet the hook
 * sees gives a key (an address, the 5-tuple or the L4 payload); the
 * action decides the verdict from the filter's answer. The commands are on
 * /dev/memfilter and act on the caller's network namespace; ATTACH and
 * DETACH need CAP_NET_ADMIN in that namespace's user namespace, held by
 * the credentials that opened the fd (EPERM); ATTACH with DEDUP also
 * CAP_SYS_ADMIN.
 * An attachment holds the name: each packet asks the filter the name
 * refers to then, so MEMFILTER_IOC_REPLACE and MEMFILTER_IOC_EXCHANGE
 * reach it at once (see "Replacing a published filter" below).
 * Unpublishing the name does not detach it: the attachment keeps the
 * filter the name had last. Attachments go with their namespace and at
 * module unload.
 *
 * Errnos beyond the table above: ENOENT for ATTACH means no filter has the
 * name; for DETACH, no attachment has the id in this namespace. ENOSPC:
 * the namespace already has MEMFILTER_NF_MAX attachments. EOPNOTSUPP: a
 * known action the filter cannot do (MEMFILTER_NF_DEDUP on a cuckoo
 * filter: no test-and-add; Bloom, window and growing filters have it), or
 * IPv6 without IPv6 support. EINVAL: an unknown
 * family, hook, key or action number, a priority of INT_MIN or INT_MAX, a
 * priority without MEMFILTER_NF_ATTACH_PRIORITY, an invalid name.
 *
 * An attachment's id is unique among the attachments that exist (of
 * every namespace), from 1 to U32_MAX, and handed out cyclically: an id
 * is not reused while it is attached, and a detached one only after the
 * ids after it were.
 *
 * Key bytes, as the filter sees them (network byte order throughout):
 * SADDR / DADDR: the 4- or 16-byte address, from the fixed IPv4 or IPv6
 * header, of every packet (fragments and any extension header chain
 * included). TUPLE: source address,
 * destination address, source port, destination port (2 bytes each; 0 for
 * protocols other than TCP, UDP, UDP-Lite, SCTP and DCCP), protocol
 * (1 byte): 13 bytes for IPv4, 37 for IPv6. L4_PAYLOAD: the bytes after
 * the TCP or UDP header, at most MEMFILTER_KEY_MAX of them.
 *
 * A packet without a key of the attachment's kind is "skipped": a TUPLE
 * key of a non-first fragment of a protocol with ports, or of an IPv6
 * packet whose extension headers cannot be followed; an L4_PAYLOAD key of
 * any fragment, of other protocols, of a payload over MEMFILTER_KEY_MAX
 * bytes or of a GSO packet. DROP_MISS (an allowlist) drops skipped
 * packets: nothing it cannot check passes. The other actions accept them.
 *
 * The counters of struct memfilter_nf_entry add up: every packet the hook
 * saw (@packets) is in exactly one of @skipped, @hits and @misses; DEDUP's
 * @misses are @added plus @add_failed.
 */
#define MEMFILTER_CMD_NF_ATTACH	(MEMFILTER_CMD_BASE + 5)
#define MEMFILTER_CMD_NF_DETACH	(MEMFILTER_CMD_BASE + 6)
#define MEMFILTER_CMD_NF_LIST	(MEMFILTER_CMD_BASE + 7)

/* memfilter_api.features: the three commands below exist. */
#define MEMFILTER_FEAT_NETFILTER	_BITULL(9)

/* memfilter_nf_attach.family: bits. */
#define MEMFILTER_NF_IPV4	_BITUL(0)
#define MEMFILTER_NF_IPV6	_BITUL(1)

/* memfilter_nf_attach.hook: the netfilter hook (NF_INET_* numbers). */
#define MEMFILTER_NF_PRE_ROUTING	0
#define MEMFILTER_NF_LOCAL_IN		1
#define MEMFILTER_NF_FORWARD		2
#define MEMFILTER_NF_LOCAL_OUT		3
#define MEMFILTER_NF_POST_ROUTING	4

/* memfilter_nf_attach.key */
#define MEMFILTER_NF_KEY_SADDR		1
#define MEMFILTER_NF_KEY_DADDR		2
#define MEMFILTER_NF_KEY_TUPLE		3
#define MEMFILTER_NF_KEY_L4_PAYLOAD	4

/* memfilter_nf_attach.action */
#define MEMFILTER_NF_DROP_HIT	1	/* drop when the key may be present */
#define MEMFILTER_NF_DROP_MISS	2	/* drop when it is certainly absent */
#define MEMFILTER_NF_COUNT	3	/* never drop: count */
#define MEMFILTER_NF_DEDUP	4	/* test-and-add, drop repeats */

/* memfilter_nf_attach.flags */
#define MEMFILTER_NF_ATTACH_PRIORITY	_BITUL(0) /* @priority is set */
#define MEMFILTER_NF_ATTACH_FLAGS	MEMFILTER_NF_ATTACH_PRIORITY

/*
 * The priority without MEMFILTER_NF_ATTACH_PRIORITY: after defragmentation
 * (-400), before raw (-300) and connection tracking (-200).
 */
#define MEMFILTER_NF_PRIORITY_DEFAULT	(-350)

/* Attachments per network namespace. */
#define MEMFILTER_NF_MAX	64

/**
 * struct memfilter_nf_attach - ioctl(MEMFILTER_IOC_NF_ATTACH)
 * @size: sizeof(struct memfilter_nf_attach)
 * @flags: MEMFILTER_NF_ATTACH_* bits
 * @name: the published filter, NUL-terminated
 * @family: MEMFILTER_NF_IPV4 and/or MEMFILTER_NF_IPV6
 * @hook: MEMFILTER_NF_PRE_ROUTING .. MEMFILTER_NF_POST_ROUTING
 * @priority: with MEMFILTER_NF_ATTACH_PRIORITY (else must be 0): the
 *	hook priority, INT_MIN + 1 .. INT_MAX - 1
 * @key: MEMFILTER_NF_KEY_*
 * @action: MEMFILTER_NF_*
 * @out_id: in: must be 0; out: the attachment's id, 1 .. U32_MAX, unique
 *	while it is attached (see above)
 * @__reserved: must be 0
 */
struct memfilter_nf_attach {
	__u32 size;
	__u32 flags;
	char name[MEMFILTER_NAME_MAX];
	__u32 family;
	__u32 hook;
	__s32 priority;
	__u32 key;
	__u32 action;
	__u32 out_id;
	__aligned_u64 __reserved;
};

/**
 * struct memfilter_nf_detach - ioctl(MEMFILTER_IOC_NF_DETACH)
 * @size: sizeof(struct memfilter_nf_detach)
 * @flags: must be 0
 * @id: the attachment, as ATTACH returned it
 * @__reserved: must be 0
 *
 * Packets already inside the hook finish with the filter; the attachment
 * and its reference go after an RCU grace period.
 */
struct memfilter_nf_detach {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 __reserved;
};

/**
 * struct memfilter_nf_entry - one attachment, as MEMFILTER_IOC_NF_LIST
 *	reports it (counters summed over CPUs)
 * @id: its id
 * @family: as attached
 * @hook: as attached
 * @priority: as attached (the default resolved)
 * @key: as attached
 * @action: as attached
 * @name: the filter's published name when attached (kept after unpublish)
 * @packets: packets the hook saw: @skipped + @hits + @misses
 * @hits: packets whose key the filter may hold
 * @drops: packets dropped
 * @added: keys added (dedup)
 * @skipped: packets without a key of the attachment's kind (see above);
 *	dropped by DROP_MISS, accepted otherwise
 * @misses: packets whose key the filter certainly does not hold
 *	(added in the first version: entry_size MEMFILTER_NF_ENTRY_SIZE_VER0
 *	ends before it)
 * @add_failed: DEDUP: keys the filter certainly did not hold and could
 *	not take (a growing filter whose newest sub-filter was full:
 *	EAGAIN until its next one is made, ENOSPC at its limits; a window
 *	rotating by count whose current generation was full: EAGAIN until
 *	its rotation ran); their packets were accepted (part of @misses, not
 *	of @added). A key the filter may hold is a hit then too.
 */
struct memfilter_nf_entry {
	__u32 id;
	__u32 family;
	__u32 hook;
	__s32 priority;
	__u32 key;
	__u32 action;
	char name[MEMFILTER_NAME_MAX];
	__aligned_u64 packets;
	__aligned_u64 hits;
	__aligned_u64 drops;
	__aligned_u64 added;
	__aligned_u64 skipped;
	__aligned_u64 misses;
	__aligned_u64 add_failed;
};

/* The first struct memfilter_nf_entry, up to @skipped. */
#define MEMFILTER_NF_ENTRY_SIZE_VER0	128

/**
 * struct memfilter_nf_list - ioctl(MEMFILTER_IOC_NF_LIST): attachments
 *	and their counters, in the caller's network namespace
 * @size: sizeof(struct memfilter_nf_list)
 * @flags: must be 0
 * @count: in: capacity of @entries; out: number of attachments (may
 *	exceed the input: then only the first fit)
 * @entry_size: in: sizeof(struct memfilter_nf_entry) as the caller knows
 *	it, at least MEMFILTER_NF_ENTRY_SIZE_VER0 (EINVAL below), at most a
 *	page (E2BIG above); entries are written with that stride, truncated
 *	to it, a tail past the kernel's entry zeroed
 * @entries: user pointer to @count entries of @entry_size bytes
 *
 * Needs no privilege (like reading /proc/net/netfilter).
 */
struct memfilter_nf_list {
	__u32 size;
	__u32 flags;
	__u32 count;
	__u32 entry_size;
	__aligned_u64 entries;
};

#define MEMFILTER_IOC_NF_ATTACH	MEMFILTER_IO(MEMFILTER_CMD_NF_ATTACH, struct memfilter_nf_attach)
#define MEMFILTER_IOC_NF_DETACH	MEMFILTER_IO(MEMFILTER_CMD_NF_DETACH, struct memfilter_nf_detach)
#define MEMFILTER_IOC_NF_LIST	MEMFILTER_IO(MEMFILTER_CMD_NF_LIST, struct memfilter_nf_list)

/**
 * DOC: Replacing a published filter
 *
 * MEMFILTER_IOC_REPLACE makes a published name refer to another filter in
 * one step; MEMFILTER_IOC_EXCHANGE swaps the filters of two published
 * names (a rollback, or the swap of ipset). Both are /dev/memfilter
 * commands. The name keeps its id (memfilter_info.pub_id): the filter
 * put under it takes the id over, and the filter that had it loses its
 * name (and its id) but stays alive while an fd or an in-kernel
 * reference holds it.
 *
 * Everything that resolves the name or the id when it uses the filter
 * sees the old filter up to the step and the new one after it, never
 * neither and never a half-loaded one (a filter is complete before it
 * has an fd): netfilter attachments (each packet asks the filter the name
 * refers to; an attachment's counters go on across a replace), the BPF
 * kfuncs that look the filter up per call (bpf_memfilter_borrow(),
 * bpf_memfilter_borrow_id(), bpf_memfilter_contains_id(),
 * bpf_memfilter_test_and_add_id()) and the in-kernel memfilter_lookup_rcu()
 * and memfilter_lookup_id_rcu(). A reference taken before the step
 * (bpf_memfilter_get(), memfilter_get_by_name(), an OPEN fd) keeps the
 * filter it was taken on; a device-mapper memfilter-dedup table keeps
 * the filter its table line named when it was loaded, until the table is
 * reloaded (Documentation/device-mapper.rst). The old filter is freed
 * once no reader can hold it (after an RCU grace period for the name's
 * reference, and RCU Tasks Trace and RCU grace periods after its last
 * reference, as for every filter). An exchange takes its two steps one
 * after the other: a reader that looks up both names in between may find
 * one filter under both.
 *
 * Both need CAP_SYS_ADMIN, held by the process that opened /dev/memfilter
 * (the fd's credentials count, as for PUBLISH), and /dev/memfilter open
 * for writing. Errnos beyond the table above:
 *
 *  - EPERM: the opener of /dev/memfilter lacks CAP_SYS_ADMIN.
 *  - EBADF: /dev/memfilter is not open for writing, or REPLACE's @fd is
 *    not a memfilter filter fd open for writing.
 *  - ENOENT: no filter has the name (REPLACE without
 *    MEMFILTER_REPLACE_PUBLISH), or either name (EXCHANGE).
 *  - EBUSY: REPLACE's filter is published (under any name: a filter has
 *    at most one); with MEMFILTER_REPLACE_PUBLISH also: every id is in
 *    use.
 *  - EOPNOTSUPP: an unknown flag or a non-zero ``__reserved``; or a
 *    netfilter DEDUP attachment holds the name and the filter that would
 *    take it has no test-and-add (a cuckoo filter), or is a prefix filter
 *    and the attachment's key is an address (SADDR, DADDR), as for
 *    NF_ATTACH. Nothing changed.
 *  - EINVAL: an invalid name; EXCHANGE of a name with itself.
 *  - ENOMEM: out of memory. Nothing changed.
 */
#define MEMFILTER_CMD_REPLACE	(MEMFILTER_CMD_BASE + 8)
#define MEMFILTER_CMD_EXCHANGE	(MEMFILTER_CMD_BASE + 9)

/* memfilter_api.features: REPLACE and EXCHANGE exist. */
#define MEMFILTER_FEAT_REPLACE		_BITULL(15)

/* memfilter_replace.flags */
#define MEMFILTER_REPLACE_PUBLISH	_BITUL(0) /* no filter has @name: publish */
#define MEMFILTER_REPLACE_FLAGS		MEMFILTER_REPLACE_PUBLISH

/**
 * struct memfilter_replace - ioctl(MEMFILTER_IOC_REPLACE): a published
 *	name refers to another filter
 * @size: sizeof(struct memfilter_replace)
 * @flags: MEMFILTER_REPLACE_* bits; with MEMFILTER_REPLACE_PUBLISH a name
 *	no filter has is published for @fd's filter (a new id, as PUBLISH),
 *	so a refresh needs no special first run
 * @name: the published name, NUL-terminated
 * @fd: a filter fd open for writing (as CREATE and LOAD return), of a
 *	filter that is not published
 * @__reserved: must be 0
 */
struct memfilter_replace {
	__u32 size;
	__u32 flags;
	char name[MEMFILTER_NAME_MAX];
	__s32 fd;
	__u32 __reserved;
};

/**
 * struct memfilter_exchange - ioctl(MEMFILTER_IOC_EXCHANGE): two published
 *	names swap their filters
 * @size: sizeof(struct memfilter_exchange)
 * @flags: must be 0
 * @name: a published name
 * @other: another published name
 *
 * Each name keeps its id; the filters swap names and ids.
 */
struct memfilter_exchange {
	__u32 size;
	__u32 flags;
	char name[MEMFILTER_NAME_MAX];
	char other[MEMFILTER_NAME_MAX];
};

#define MEMFILTER_IOC_REPLACE	MEMFILTER_IO(MEMFILTER_CMD_REPLACE, struct memfilter_replace)
#define MEMFILTER_IOC_EXCHANGE	MEMFILTER_IO(MEMFILTER_CMD_EXCHANGE, struct memfilter_exchange)

#endif /* _UAPI_LINUX_MEMFILTER_H */
