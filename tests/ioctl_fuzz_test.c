// SPDX-License-Identifier: GPL-2.0
/*
 * A seeded, multi-threaded random-ioctl fuzzer of /dev/memfilter, run in
 * the guests like the selftests (TAP on stdout, exit status decides).
 *
 * Owner threads each keep a filter and a shadow model of it: every key
 * the kernel reported added and that was not deleted since (nor cleared)
 * must be answered "may be present", by the filter and by a filter loaded
 * from its dump. Chaos threads meanwhile call every command on the device
 * and on filter fds, including the owners' filters (opened by name): random
 * struct sizes and tails, flags, capacities, names, batches with hostile
 * key lengths and counts, bad pointers and pointers into memory another
 * thread keeps unmapping, dumps read at random offsets, images loaded with
 * bit flips, truncations and extensions, CLEAR/INFO/PUBLISH/UNPUBLISH/OPEN/
 * close/dup on shared filters, and forked children that may drop their
 * privileges. A watchdog aborts with a message if one call takes longer
 * than MF_FUZZ_WATCHDOG seconds.
 *
 * Window filters: the chaos threads create them with every rotation mode
 * (explicit, by count, by period, periods from 1 ms to 2^64 - 1) and race
 * ROTATE, ADD, TEST_AND_ADD, QUERY, dumps, loads and CLEAR on them. The
 * last owner keeps window filters and checks Documentation/filters.rst's
 * guarantee: a key is reported present while inside its window, counted
 * in its own rotations (explicit), in keys added since (by count: at most
 * 1 + S / capacity rotations after S keys) or in time (by period: until
 * t_add + (G - 1) * P); after G rotations of a filter no one else could
 * reach, INFO shows no key and no bit and no key is present.
 *
 * Growing filters: the chaos threads create them across the grow_*
 * ranges and with invalid values (EINVAL; grow_* on other types EINVAL,
 * non-zero __reserved EOPNOTSUPP), and race ADD and TEST_AND_ADD (ENOSPC
 * only at the limits, never EAGAIN), DELETE, ADD_UNIQUE, COUNT and ROTATE
 * (EOPNOTSUPP), INFO (sub-filters, the gens array), dumps, loads and
 * CLEAR on them. Owners may keep one (at most 4 sub-filters, all
 * reachable): every key added stays present across growth and dump/load,
 * and an add that stops with ENOSPC found every sub-filter up to grow_max
 * in use and full (INFO keys == capacity).
 *
 * Netfilter (MEMFILTER_FEAT_NETFILTER): the chaos threads ATTACH, DETACH
 * and LIST in the initial namespace with random and invalid families,
 * hooks, keys, actions, priorities, flags, sizes (an entry_size over a
 * page is E2BIG) and pointers; a detach of
 * an id already detached or never issued must be ENOENT, of a live one
 * must succeed. The netfilter owner, alone in a namespace of its own,
 * predicts every answer exactly (see nf_owner_thread()).
 *
 * Every call's outcome is checked against the documentation: its errno
 * must be one the uapi errno table gives for that command, and a request
 * the documentation calls invalid must fail (with its errno). A departure
 * already reported elsewhere may be listed as known in rules[]: printed,
 * not failed. None is listed now: issue 10 item 18's findings (Latin-1
 * names, cuckoo fpr_ppb = 10^9, EINVAL after a partial batch, Bloom
 * DELETE/ADD_UNIQUE with no keys, INFO's __reserved, CREATE on a
 * read-only device) are fixed and checked like any rule, and its two
 * decisions (E2BIG also means over the size limit; an unknown type is
 * EOPNOTSUPP) are documented and expected. Filter fds carry rights: write
 * commands on a read-only one (OPEN without MEMFILTER_OPEN_WRITE) must
 * fail with EBADF.
 *
 *   ioctl_fuzz_test [SEED [SECONDS]]
 *   env: MF_FUZZ_SEED, MF_FUZZ_SECONDS (default 60), MF_FUZZ_THREADS
 *	  (chaos threads, default 4), MF_FUZZ_WATCHDOG (default 60),
 *	  MF_FUZZ_STRICT=1 (known departures, if any are listed, fail too),
 *	  MF_FUZZ_INJECT=1 (the shadow model claims one key that was never
 *	  added: the run must then fail, which shows that the check can)
 *	  MF_FUZZ_FAULTS=1 (tests/faults.sh: ENOMEM is then a right answer
 *	  to any call, and each chaos thread sets its
 *	  /proc/thread-self/make-it-fail, so that the kernel's failslab and
 *	  fail_page_alloc, armed with task-filter, fail its calls and its
 *	  children's; a child that cannot drop its privileges for ENOMEM or
 *	  EAGAIN then ends quietly. The owners stay unarmed: their filters
 *	  and models must survive the chaos threads' failing calls)
 *
 * The same seed gives every thread the same sequence of decisions; the
 * interleaving of threads is up to the scheduler.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <inttypes.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>

#include "memfilter_utils.h"

#define MAX_CHAOS	16
#define MAX_OWNERS	3	/* the last one keeps window filters */
#define MAX_SLOTS	64	/* watchdog slots: threads, then children */
#define POOL		12	/* filter fds per chaos thread */
#define HOSTILE_PAGES	32
#define NERR		134	/* errno histogram: 0 is success */
#define MODEL_MAX	(1 << 15)	/* keys in a shadow model */
#define TRACKED_MARK	777	/* capacity % 1000 of owner filters */
#define NF_IDS		128	/* attachment ids the chaos threads share */
#define NF_NEVER	0x80000000u	/* ids from here on are never issued */

enum op {
	OP_API, OP_CREATE, OP_OPEN, OP_LIST, OP_LOAD, OP_ADD, OP_QUERY,
	OP_DELETE, OP_ADD_UNIQUE, OP_INFO, OP_CLEAR, OP_PUBLISH, OP_UNPUBLISH,
	OP_BADCMD, OP_READ, OP_DUP, OP_CLOSE, OP_FORK, OP_COUNT, OP_TEST_AND_ADD,
	OP_ROTATE, OP_NF_ATTACH, OP_NF_DETACH, OP_NF_LIST, OP_NR
};

static const char *const op_name[OP_NR] = {
	"API", "CREATE", "OPEN", "LIST", "LOAD", "ADD", "QUERY", "DELETE",
	"ADD_UNIQUE", "INFO", "CLEAR", "PUBLISH", "UNPUBLISH", "bad cmd",
	"read", "dup", "close", "fork", "COUNT", "TEST_AND_ADD",
	"ROTATE", "NF_ATTACH", "NF_DETACH", "NF_LIST",
};

/* A set of errnos (all below 128). */
typedef unsigned __int128 emask;
#define B(e) ((emask)1 << (e))
#define E_STRUCT (B(EFAULT) | B(EINVAL) | B(E2BIG) | B(EOPNOTSUPP))
#define E_BATCH (E_STRUCT | B(ENOMEM) | B(EINTR))

/* The uapi errno table, per command (see uapi/linux/memfilter.h). */
static const emask op_errnos[OP_NR] = {
	[OP_API] = E_STRUCT,
	[OP_CREATE] = E_STRUCT | B(EPERM) | B(EEXIST) | B(ENOMEM) | B(EACCES) |
		      B(EBADF),
	[OP_OPEN] = E_STRUCT | B(ENOENT) | B(ENOMEM) | B(EPERM) | B(EBADF),
	[OP_LIST] = E_STRUCT | B(ENOMEM),
	[OP_LOAD] = E_STRUCT | B(EPERM) | B(EEXIST) | B(EBADMSG) |
		    B(ENOMEM) | B(EACCES) | B(EINTR) | B(EBADF),
	[OP_ADD] = E_BATCH | B(ENOSPC) | B(EPERM) | B(EBADF),
	[OP_QUERY] = E_BATCH,
	[OP_DELETE] = E_BATCH | B(EPERM) | B(EBADF),
	[OP_ADD_UNIQUE] = E_BATCH | B(ENOSPC) | B(EPERM) | B(EBADF),
	[OP_COUNT] = E_BATCH,
	/* ENOSPC: a growing filter at its limits (uapi.rst) */
	[OP_TEST_AND_ADD] = E_BATCH | B(ENOSPC) | B(EPERM) | B(EBADF),
	[OP_INFO] = E_STRUCT,
	[OP_CLEAR] = E_STRUCT | B(EPERM) | B(EBADF),
	[OP_ROTATE] = E_STRUCT | B(EPERM) | B(EBADF),
	[OP_PUBLISH] = E_STRUCT | B(EPERM) | B(EEXIST) | B(EBUSY) | B(EBADF),
	[OP_UNPUBLISH] = E_STRUCT | B(EPERM) | B(ENOENT) | B(EBADF),
	[OP_BADCMD] = B(ENOTTY),
	/* the netfilter DOC: ENOENT, ENOSPC and EOPNOTSUPP have more uses */
	[OP_NF_ATTACH] = E_STRUCT | B(EPERM) | B(ENOENT) | B(ENOSPC) |
			 B(ENOMEM) | B(EBADF),
	[OP_NF_DETACH] = E_STRUCT | B(EPERM) | B(ENOENT) | B(EBADF),
	[OP_NF_LIST] = E_STRUCT | B(ENOMEM),
	/* read(): the image DOC (EPERM for keyed dumps), offsets, memory */
	[OP_READ] = B(EINVAL) | B(EFAULT) | B(EPERM) | B(ENOMEM) | B(EINTR),
	/*
	 * fork(2): ENOMEM, and EAGAIN at a thread limit (threads-max, root
	 * included: tests/faults.sh's fault.fork); then no child runs.
	 */
	[OP_FORK] = B(ENOMEM) | B(EAGAIN),
};

/* What the checks found, by rule. */
enum rule {
	R_ERRNO,		/* errno outside the command's table */
	R_ACCEPTED,		/* a documented-invalid request succeeded */
	R_WRONG_ERRNO,		/* an invalid request failed otherwise */
	R_VALID_FAILED,		/* a valid request failed unexplained */
	R_OUTPUT,		/* an output field breaks its documentation */
	R_PARTIAL,		/* keys took effect before a failure */
	R_CORRUPT_LOADED,	/* a damaged image loaded */
	R_NAME_LATIN1,		/* names with bytes 0xC0-0xFF */
	R_CUCKOO_FPR_1E9,	/* cuckoo fpr_ppb = 10^9 accepted */
	R_PARTIAL_EINVAL,	/* bad key length in a later window */
	R_BLOOM_COUNT0,		/* Bloom DELETE/ADD_UNIQUE, count 0 */
	R_INFO_RESERVED,	/* INFO accepts __reserved != 0 */
	R_RO_CREATE,		/* read-only device fd may CREATE */
	R_RO_WRITE,		/* a read-only filter fd changed the filter */
	R_NR
};

/*
 * What each rule is called. A departure already reported elsewhere may be
 * marked known (printed, not failed, unless MF_FUZZ_STRICT); issue 10 item
 * 18's were, until the kernel was fixed: they fail again if they come back.
 */
static const struct {
	const char *id;
	const char *known;	/* NULL: a new finding, fails the run */
} rules[R_NR] = {
	[R_ERRNO] = { "errno-not-in-table" },
	[R_ACCEPTED] = { "invalid-request-accepted" },
	[R_WRONG_ERRNO] = { "invalid-request-wrong-errno" },
	[R_VALID_FAILED] = { "valid-request-failed" },
	[R_OUTPUT] = { "output-field" },
	[R_PARTIAL] = { "partial-effect-undocumented" },
	[R_CORRUPT_LOADED] = { "corrupt-image-loaded" },
	[R_NAME_LATIN1] = { "name-latin1" },
	[R_CUCKOO_FPR_1E9] = { "cuckoo-fpr-1e9" },
	[R_PARTIAL_EINVAL] = { "batch-partial-einval" },
	[R_BLOOM_COUNT0] = { "bloom-count0" },
	[R_INFO_RESERVED] = { "info-reserved" },
	[R_RO_CREATE] = { "readonly-dev-create" },
	[R_RO_WRITE] = { "readonly-fd-write" },
};

/* How a window owner's filter rotates (Documentation/filters.rst). */
enum wmode { W_EXPLICIT, W_COUNT, W_PERIOD, W_NR };

static const char *const wmode_name[W_NR] = {
	"explicit", "by count", "by period",
};

struct slot {
	_Atomic uint64_t start_ms;	/* 0: not in a call */
	_Atomic int op;
	_Atomic int who;		/* thread number, or 1000 + child */
};

/* Shared with forked children (MAP_SHARED): counters and findings. */
struct shared {
	_Atomic uint64_t calls[OP_NR][NERR];
	_Atomic uint64_t checked_keys, false_negatives, delete_misses;
	_Atomic uint64_t dump_checks, children, child_failures;
	struct {
		_Atomic uint64_t hits;
		_Atomic int claimed;
		char example[200];
	} found[R_NR];
	char fn_example[200];
	_Atomic int fn_claimed;
	struct slot slots[MAX_SLOTS];
	_Atomic int next_child_slot;
	_Atomic int stop;
	/* netfilter attachments of the initial namespace: live, detached */
	_Atomic uint32_t nf_live[NF_IDS], nf_gone[NF_IDS];
	_Atomic uint64_t nf_attached, nf_detached, nf_lists, nf_races;
	_Atomic uint64_t win_checked[W_NR], win_filters[W_NR], win_rotations;
	_Atomic uint64_t win_drains;
	_Atomic uint64_t grow_filters, grow_full; /* growing owners' */
	_Atomic uint64_t grow_created, grow_info;  /* chaos threads' */
};

static struct shared *sh;
static uint64_t seed;
static unsigned int seconds = 60, nchaos = 4, watchdog_s = 60;
static long page;
static unsigned char *hostile;	/* HOSTILE_PAGES that come and go */
static bool unprivileged;	/* this (child) process dropped privileges */
static bool in_child;		/* a forked child: forks no further */
static bool strict;
static atomic_int inject;
static bool faults;
static bool have_nf, have_ipv6;	/* MEMFILTER_FEAT_NETFILTER; IPv6 */
static const char *window_regr;	/* check_window_regressions() */

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

struct rng {
	uint64_t s;
};

static uint64_t rnd(struct rng *r)
{
	r->s += 0x9e3779b97f4a7c15ULL;
	return mix64(r->s);
}

/* Uniform in [0, n); n > 0. */
static uint64_t below(struct rng *r, uint64_t n)
{
	return rnd(r) % n;
}

/* True with probability pct percent. */
static bool chance(struct rng *r, unsigned int pct)
{
	return below(r, 100) < pct;
}

static void find(enum rule rule, const char *fmt, ...)
{
	va_list ap;

	atomic_fetch_add(&sh->found[rule].hits, 1);
	if (atomic_exchange(&sh->found[rule].claimed, 1))
		return;
	va_start(ap, fmt);
	vsnprintf(sh->found[rule].example, sizeof(sh->found[rule].example),
		  fmt, ap);
	va_end(ap);
}

/* --- calls, the watchdog's view of them, and the errno table ---------- */

struct ctx {
	struct rng r;
	struct slot *slot;
	int id;
	int dev;		/* O_RDWR device fd */
	int dev_ro;		/* O_RDONLY device fd */
	unsigned char *arg;	/* page followed by a PROT_NONE page */
	unsigned char *buf;	/* scratch for keys, lens, results, images */
	size_t buf_size;
	struct pool {
		int fd;
		bool tracked;	/* an owner's filter: no DELETE or CLEAR */
		bool writable;	/* CREATE, LOAD, OPEN with MEMFILTER_OPEN_WRITE */
		__u32 type;
	} pool[POOL];
};

static void slot_enter(struct ctx *c, enum op op)
{
	atomic_store(&c->slot->op, op);
	atomic_store(&c->slot->start_ms, now_ms());
}

static void slot_leave(struct ctx *c)
{
	atomic_store(&c->slot->start_ms, 0);
}

static void account(enum op op, int ret)
{
	int e = ret < 0 ? -ret : 0;

	atomic_fetch_add(&sh->calls[op][e < NERR ? e : NERR - 1], 1);
	/* Under fault injection any call may fail for memory. */
	if (faults && e == ENOMEM)
		return;
	if (e && !(e < 128 && (op_errnos[op] & B(e))))
		find(R_ERRNO, "%s -> %s (%d)", op_name[op], strerror(e), e);
}

static int call(struct ctx *c, enum op op, int fd, unsigned long cmd,
		void *arg)
{
	int ret;

	slot_enter(c, op);
	ret = xioctl(fd, cmd, arg);
	slot_leave(c);
	account(op, ret);
	return ret;
}

/*
 * What the documentation says of one request: @must_fail when it breaks
 * a documented rule; then an error in @allowed is right, an error in @alt
 * is a known departure (@alt_rule), success is @accept_rule.
 */
struct expect {
	bool must_fail;
	emask allowed, alt;
	enum rule accept_rule, alt_rule;
	bool ambiguous;		/* something the docs do not settle */
	emask env;		/* errnos the state may explain */
	const char *why;
};

static void violate(struct expect *x, const char *why,
		    emask allowed, enum rule accept_rule)
{
	if (!x->must_fail || (rules[x->accept_rule].known &&
			      !rules[accept_rule].known)) {
		x->accept_rule = accept_rule;
		x->why = why;
	}
	x->must_fail = true;
	x->allowed |= allowed;
}

static void judge(enum op op, const struct expect *x, int ret)
{
	emask e = ret < 0 && -ret < 128 ? B(-ret) : 0;
	emask env = x->env | (faults ? B(ENOMEM) : 0);

	if (x->must_fail) {
		if (!ret)
			find(x->accept_rule, "%s accepted: %s", op_name[op],
			     x->why);
		else if (e & x->alt && !(e & x->allowed))
			find(x->alt_rule, "%s: %s -> %s", op_name[op], x->why,
			     strerror(-ret));
		else if (!(e & (x->allowed | env)) && !x->ambiguous)
			find(R_WRONG_ERRNO, "%s: %s -> %s", op_name[op],
			     x->why, strerror(-ret));
	} else if (ret && !(e & env) && !x->ambiguous) {
		find(R_VALID_FAILED, "%s -> %s", op_name[op], strerror(-ret));
	}
}

/* --- building argument structs ----------------------------------------- */

/*
 * Lay out a command struct of @ksize bytes, first version @kmin bytes
 * (filled by the caller at the returned address) with a random user size: mostly exact, sometimes too
 * small, larger with a zero or non-zero tail, or running into the guard
 * page. Records what the size alone implies in @x.
 */
/* The size of a structure's first version, which ended with @last. */
#define FIRST_SIZE(s, last) \
	(offsetof(struct s, last) + sizeof(((struct s *)0)->last))

static void *arg_struct(struct ctx *c, size_t ksize, size_t kmin,
			struct expect *x, __u32 *size_out)
{
	unsigned char *a = c->arg;
	uint64_t pick = below(&c->r, 100);
	__u32 size = ksize;

	memset(a, 0, page);
	if (pick < 6) {
		/* Below the first version's size; grown structs take any above. */
		size = below(&c->r, kmin);
		violate(x, "size below the struct", B(EINVAL), R_ACCEPTED);
	} else if (pick < 12) {
		size = ksize + 1 + below(&c->r, 256);
	} else if (pick < 18) {
		size = ksize + 1 + below(&c->r, 256);
		a[ksize + below(&c->r, size - ksize)] = 1 + below(&c->r, 255);
		violate(x, "non-zero tail", B(E2BIG), R_ACCEPTED);
	} else if (pick < 21) {
		/* The struct ends at the guard page; the tail is unmapped. */
		a = c->arg + page - ksize;
		memset(a, 0, ksize);
		size = ksize + 1 + below(&c->r, 64);
		violate(x, "tail in unmapped memory", B(EFAULT), R_ACCEPTED);
	} else if (pick < 23) {
		size = page + 1 + below(&c->r, 0xffffffffULL - page - 1);
		/* Over a page: E2BIG before anything is read (as openat2()). */
		violate(x, "size over a page", B(E2BIG), R_ACCEPTED);
	}
	*size_out = size;
	return a;
}

/*
 * Sometimes break a request's flags (unknown bit), __reserved or out_fd;
 * NULL for a field the request lacks. @reserved_rule: what accepting a
 * non-zero __reserved is.
 */
static void bad_fields(struct ctx *c, struct expect *x, __u32 *flags,
		       __u32 *reserved, __s32 *out_fd, enum rule reserved_rule)
{
	if (flags && chance(&c->r, 3)) {
		*flags = 1U << below(&c->r, 32);
		violate(x, "flags", B(EOPNOTSUPP), R_ACCEPTED);
	}
	if (reserved && chance(&c->r, 3)) {
		*reserved = 1 + below(&c->r, 1000);
		violate(x, "__reserved", B(EOPNOTSUPP) | B(EINVAL),
			reserved_rule);
	}
	if (out_fd && chance(&c->r, 3)) {
		*out_fd = 1 + below(&c->r, 50);
		violate(x, "out_fd != 0", B(EINVAL), R_ACCEPTED);
	}
}

/* A user pointer for @len bytes: good, or one of many bad kinds. */
static void *user_ptr(struct ctx *c, void *good, size_t len, int *bad)
{
	uint64_t pick = below(&c->r, 100);

	*bad = 0;
	if (pick < 88)
		return good;
	if (pick < 93) {
		*bad = -1;	/* maybe mapped: the unmapper decides */
		return hostile + below(&c->r, HOSTILE_PAGES * page);
	}
	if (pick < 97) {
		/*
		 * From the arg page into its guard page: faults only if the
		 * kernel reads that far (it may refuse a header first).
		 */
		*bad = -1;
		return c->arg + page - below(&c->r, len && len < (size_t)page ?
					      len : page);
	}
	*bad = 1;
	switch (below(&c->r, 4)) {
	case 0:
		return NULL;
	case 1:
		return (void *)16;
	case 2:
		return (void *)0xffff888000000000ULL;
	default:
		return (void *)-4096L;
	}
}

static const char name_chars[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-";

enum name_kind { N_NONE, N_VALID, N_BAD_ASCII, N_LATIN1, N_LONG, N_JUNK };

/*
 * A random name into @name (MEMFILTER_NAME_MAX bytes): mostly one of a few
 * shared valid names (so that names collide), or a broken one.
 */
static enum name_kind gen_name(struct ctx *c, char *name, bool allow_none)
{
	uint64_t pick = below(&c->r, 100);
	size_t len, i;

	memset(name, 0, MEMFILTER_NAME_MAX);
	if (allow_none && pick < 40)
		return N_NONE;
	if (pick < 80) {
		snprintf(name, MEMFILTER_NAME_MAX, "fz.%u",
			 (unsigned int)below(&c->r, 24));
		return N_VALID;
	}
	if (pick < 86) {
		len = 1 + below(&c->r, MEMFILTER_NAME_MAX - 1);
		for (i = 0; i < len; i++)
			name[i] = name_chars[below(&c->r, sizeof(name_chars) - 1)];
		return N_VALID;
	}
	len = 1 + below(&c->r, 12);
	for (i = 0; i < len; i++)
		name[i] = name_chars[below(&c->r, sizeof(name_chars) - 1)];
	switch (below(&c->r, 4)) {
	case 0:
		name[below(&c->r, len)] = " /:*\x01\x7f\x80\xa0"[below(&c->r, 8)];
		return N_BAD_ASCII;
	case 1:
		/* a Latin-1 letter (0xC0-0xFF but for the signs 0xD7, 0xF7) */
		i = below(&c->r, len);
		name[i] = 0xc0 + below(&c->r, 64);
		if ((unsigned char)name[i] == 0xd7 || (unsigned char)name[i] == 0xf7)
			name[i] = 0xc0;
		return N_LATIN1;
	case 2:
		memset(name, 'n', MEMFILTER_NAME_MAX);	/* no NUL */
		return N_LONG;
	default:
		name[len + 1 + below(&c->r, MEMFILTER_NAME_MAX - len - 2)] = 'j';
		return N_JUNK;
	}
}

/* Record what a name implies: @required for PUBLISH (empty is invalid). */
static void expect_name(struct expect *x, enum name_kind k, bool required)
{
	switch (k) {
	case N_NONE:
		if (required)
			violate(x, "empty name", B(EINVAL), R_ACCEPTED);
		break;
	case N_VALID:
		break;
	case N_LATIN1:
		violate(x, "name with bytes 0xC0-0xFF", B(EINVAL),
			R_NAME_LATIN1);
		x->alt |= B(ENOENT) | B(EEXIST);
		x->alt_rule = R_NAME_LATIN1;
		break;
	default:
		violate(x, "malformed name", B(EINVAL), R_ACCEPTED);
	}
	if (k != N_NONE && unprivileged)
		x->env |= B(EPERM);
}

/* --- the filter fd pool of a chaos thread ------------------------------- */

static int pool_pick(struct ctx *c)
{
	int i = below(&c->r, POOL);

	return c->pool[i].fd >= 0 ? i : -1;
}

static void pool_put(struct ctx *c, int fd, bool writable)
{
	struct memfilter_info i;
	int s = below(&c->r, POOL);

	if (fd < 0)
		return;
	if (c->pool[s].fd >= 0)
		close(c->pool[s].fd);
	c->pool[s].fd = fd;
	c->pool[s].writable = writable;
	c->pool[s].tracked = true;
	c->pool[s].type = 0;
	if (!info(fd, &i)) {
		__u64 cap0 = i.capacity, sum = 1, pow = 1;

		/* growing: INFO sums capacity * s^j over the sub-filters */
		for (__u32 j = 1; i.type == MEMFILTER_TYPE_GROW &&
		     j < i.subfilters; j++) {
			pow *= i.grow_factor;
			sum += pow;
		}
		if (i.type == MEMFILTER_TYPE_GROW)
			cap0 = i.capacity / sum;
		c->pool[s].tracked = cap0 % 1000 == TRACKED_MARK;
		c->pool[s].type = i.type;
	}
}

/* --- device commands ------------------------------------------------------ */

static void fz_api(struct ctx *c)
{
	struct expect x = { 0 };
	struct memfilter_api *a;
	__u32 size;

	a = arg_struct(c, sizeof(*a), sizeof(*a), &x, &size);
	a->size = size;
	a->api_version = chance(&c->r, 90) ? MEMFILTER_API_VERSION : rnd(&c->r);
	if (a->api_version != MEMFILTER_API_VERSION)
		violate(&x, "unknown api_version", B(EOPNOTSUPP), R_ACCEPTED);
	if (chance(&c->r, 5)) {
		a->flags = 1U << below(&c->r, 32);
		violate(&x, "flags", B(EOPNOTSUPP), R_ACCEPTED);
	}
	if (chance(&c->r, 5)) {
		a->__reserved = 1 + below(&c->r, 1000);
		violate(&x, "__reserved", B(EOPNOTSUPP) | B(EINVAL), R_ACCEPTED);
	}
	judge(OP_API, &x, call(c, OP_API, c->dev, MEMFILTER_IOC_API, a));
}

static const __u64 fprs[] = { 1000000, 10000000, 100000000 };

/*
 * A window filter's fields: generations (2..16), flags, period. Periods
 * are mostly short, so that the timer rotates while the threads work;
 * a few are huge (no limit is documented: such a filter must simply not
 * rotate by time). On another type any of them is invalid.
 */
static __u64 fz_period(struct rng *r)
{
	switch (below(r, 20)) {
	case 0:
		return (1ULL << 63) + below(r, 1000);
	case 1:
		return UINT64_MAX - below(r, 3);
	case 2:
		return (1ULL << 32) + below(r, 1000);
	case 3:
	case 4:
	case 5:
		return 100 + below(r, 2000);
	default:
		return 1 + below(r, 60);
	}
}

static void fz_window_fields(struct ctx *c, struct memfilter_create *cr,
			     struct expect *x)
{
	bool window = cr->type == MEMFILTER_TYPE_WINDOW;

	if (!window) {
		switch (below(&c->r, 3)) {
		case 0:
			cr->generations = 2 + below(&c->r, 15);
			break;
		case 1:
			cr->window_flags = MEMFILTER_WINDOW_ROTATE_BY_COUNT;
			break;
		default:
			cr->period_ms = fz_period(&c->r);
		}
		violate(x, "window fields on another type", B(EINVAL),
			R_ACCEPTED);
		return;
	}
	cr->generations = MEMFILTER_WINDOW_MIN_GENERATIONS +
		below(&c->r, MEMFILTER_WINDOW_MAX_GENERATIONS -
		      MEMFILTER_WINDOW_MIN_GENERATIONS + 1);
	if (chance(&c->r, 3)) {
		cr->generations = chance(&c->r, 50) ? below(&c->r, 2) :
			MEMFILTER_WINDOW_MAX_GENERATIONS + 1 + below(&c->r, 1000);
		violate(x, "generations outside 2..16", B(EINVAL), R_ACCEPTED);
	}
	if (chance(&c->r, 35))
		cr->window_flags = MEMFILTER_WINDOW_ROTATE_BY_COUNT;
	if (chance(&c->r, 3)) {
		cr->window_flags |= 1U << (1 + below(&c->r, 31));
		violate(x, "unknown window flag", B(EOPNOTSUPP), R_ACCEPTED);
	}
	if (chance(&c->r, 60))
		cr->period_ms = fz_period(&c->r);
	/* G generations of up to 2^20 keys each: up to 16x the memory */
	if (cr->capacity > 1 << 16 && cr->capacity <= 1ULL << 32)
		cr->capacity = 1 + below(&c->r, 1 << 16);
	if (cr->capacity % 1000 == TRACKED_MARK)
		cr->capacity++;
}

/*
 * A growing filter's fields (Documentation/uapi.rst, "Growing filters"):
 * grow_max 1..16, grow_factor 1..16, grow_ratio_pct 1..99 (0: defaults);
 * fpr_ppb required, bits_per_key_q4 and fingerprint_bits 0. On another
 * type any grow_* field is invalid. The rates stay reachable: the first
 * sub-filter's is at least 10^6 * 1% = 10^4 ppb (the layout reaches ~300).
 */
static void fz_grow_fields(struct ctx *c, struct memfilter_create *cr,
			   struct expect *x)
{
	if (cr->type != MEMFILTER_TYPE_GROW) {
		switch (below(&c->r, 3)) {
		case 0:
			cr->grow_max = 1 + below(&c->r, MEMFILTER_GROW_MAX_SUBS);
			break;
		case 1:
			cr->grow_factor = 1 + below(&c->r, MEMFILTER_GROW_MAX_FACTOR);
			break;
		default:
			cr->grow_ratio_pct = 1 + below(&c->r, 99);
		}
		violate(x, "grow fields on another type", B(EINVAL),
			R_ACCEPTED);
		return;
	}
	cr->grow_max = below(&c->r, MEMFILTER_GROW_MAX_SUBS + 1);
	cr->grow_factor = below(&c->r, MEMFILTER_GROW_MAX_FACTOR + 1);
	cr->grow_ratio_pct = below(&c->r, 100);
	cr->fpr_ppb = fprs[below(&c->r, 3)];
	/* sub-filters up to 2^16 * 16^15 keys: keep the first one small */
	if (cr->capacity > 1 << 16 && cr->capacity <= 1ULL << 32)
		cr->capacity = 1 + below(&c->r, 1 << 16);
	if (cr->capacity % 1000 == TRACKED_MARK)
		cr->capacity++;
	switch (below(&c->r, 40)) {
	case 0:
		cr->grow_max = MEMFILTER_GROW_MAX_SUBS + 1 + below(&c->r, 1000);
		violate(x, "grow_max over 16", B(EINVAL), R_ACCEPTED);
		break;
	case 1:
		cr->grow_factor = MEMFILTER_GROW_MAX_FACTOR + 1 +
				  below(&c->r, 1000);
		violate(x, "grow_factor over 16", B(EINVAL), R_ACCEPTED);
		break;
	case 2:
		cr->grow_ratio_pct = 100 + below(&c->r, 1000);
		violate(x, "grow_ratio_pct over 99", B(EINVAL), R_ACCEPTED);
		break;
	case 3:
		cr->fpr_ppb = 0;
		violate(x, "growing without fpr_ppb", B(EINVAL), R_ACCEPTED);
		break;
	case 4:
		cr->fpr_ppb = 1000000000 + below(&c->r, 3);
		violate(x, "fpr_ppb >= 10^9", B(EINVAL), R_ACCEPTED);
		break;
	case 5:
		cr->bits_per_key_q4 = (__u32[]){ 20, 40, 80 }[below(&c->r, 3)];
		if (chance(&c->r, 50))
			cr->fpr_ppb = 0;
		violate(x, "bits_per_key_q4 on a growing filter", B(EINVAL),
			R_ACCEPTED);
		break;
	case 6:
		cr->fingerprint_bits = (__u32[]){ 8, 12, 16 }[below(&c->r, 3)];
		violate(x, "fingerprint_bits on a growing filter", B(EINVAL),
			R_ACCEPTED);
		break;
	}
}

static void fz_create(struct ctx *c)
{
	struct expect x = { .env = B(ENOMEM) };
	struct memfilter_create *cr;
	bool ro = chance(&c->r, 3);
	enum name_kind nk;
	__u32 size;
	int ret;

	cr = arg_struct(c, sizeof(*cr), FIRST_SIZE(memfilter_create, name), &x,
			&size);
	cr->size = size;
	cr->type = (__u32[]){ MEMFILTER_TYPE_BLOOM, MEMFILTER_TYPE_BLOOM,
			      MEMFILTER_TYPE_CUCKOO, MEMFILTER_TYPE_CUCKOO,
			      MEMFILTER_TYPE_WINDOW, MEMFILTER_TYPE_GROW,
			      MEMFILTER_TYPE_GROW }[below(&c->r, 7)];
	if (chance(&c->r, 3)) {
		cr->type = chance(&c->r, 50) ? 0 : MEMFILTER_TYPE_GROW + 1 +
						    below(&c->r, 100);
		violate(&x, "unknown type", B(EOPNOTSUPP), R_ACCEPTED);
	}
	if (chance(&c->r, 90))
		cr->capacity = 1 + below(&c->r, 1 << 16);
	else if (chance(&c->r, 70))
		cr->capacity = 1 + below(&c->r, 1 << 20);
	else if (chance(&c->r, 50))
		cr->capacity = 0;
	else
		cr->capacity = (1ULL << 32) + rnd(&c->r) % (1ULL << 62);
	if (cr->capacity % 1000 == TRACKED_MARK)
		cr->capacity++;
	if (!cr->capacity)
		violate(&x, "capacity 0", B(EINVAL), R_ACCEPTED);
	if (cr->capacity > 1ULL << 32) {
		/* beyond max_filter_mb (1024) whatever the geometry */
		violate(&x, "capacity beyond the size limit",
			B(E2BIG) | B(ENOMEM), R_ACCEPTED);
	}
	if (cr->type == MEMFILTER_TYPE_WINDOW)
		fz_window_fields(c, cr, &x);
	else if (chance(&c->r, 2))
		fz_window_fields(c, cr, &x);	/* on another type: EINVAL */
	if (cr->type == MEMFILTER_TYPE_GROW)
		fz_grow_fields(c, cr, &x);
	else if (chance(&c->r, 2))
		fz_grow_fields(c, cr, &x);	/* on another type: EINVAL */
	if (chance(&c->r, 2)) {
		cr->__reserved = 1 + below(&c->r, 1000);
		violate(&x, "__reserved", B(EOPNOTSUPP), R_ACCEPTED);
	}
	if (cr->type == MEMFILTER_TYPE_BLOOM || cr->type == MEMFILTER_TYPE_WINDOW) {
		if (chance(&c->r, 60))
			cr->bits_per_key_q4 = (__u32[]){ 20, 40, 80 }[below(&c->r, 3)];
		else
			cr->fpr_ppb = fprs[below(&c->r, 3)];
		if (chance(&c->r, 4)) {
			cr->fpr_ppb = 1000000000 + below(&c->r, 3);
			cr->bits_per_key_q4 = 0;
			violate(&x, "fpr_ppb >= 10^9", B(EINVAL), R_ACCEPTED);
		} else if (chance(&c->r, 3)) {
			cr->bits_per_key_q4 = 40;
			cr->fpr_ppb = fprs[0];
			violate(&x, "both fpr_ppb and bits_per_key_q4", B(EINVAL),
				R_ACCEPTED);
		} else if (chance(&c->r, 3)) {
			cr->fingerprint_bits = 8;
			violate(&x, "fingerprint_bits on Bloom/window", B(EINVAL),
				R_ACCEPTED);
		} else if (chance(&c->r, 3)) {
			cr->bits_per_key_q4 = rnd(&c->r);
			cr->fpr_ppb = 0;
			x.ambiguous = true;	/* the valid range is not documented */
		}
	} else if (cr->type == MEMFILTER_TYPE_CUCKOO) {
		if (chance(&c->r, 60))
			cr->fingerprint_bits = (__u32[]){ 8, 12, 16 }[below(&c->r, 3)];
		else
			cr->fpr_ppb = fprs[below(&c->r, 3)];
		if (chance(&c->r, 4)) {
			cr->fpr_ppb = 1000000000;
			cr->fingerprint_bits = 0;
			violate(&x, "fpr_ppb = 10^9", B(EINVAL), R_CUCKOO_FPR_1E9);
		} else if (chance(&c->r, 3)) {
			cr->fingerprint_bits = 1 + below(&c->r, 32);
			cr->fpr_ppb = 0;
			if (cr->fingerprint_bits % 4 || cr->fingerprint_bits < 8 ||
			    cr->fingerprint_bits > 16)
				violate(&x, "fingerprint_bits not 8, 12, 16",
					B(EINVAL), R_ACCEPTED);
		} else if (chance(&c->r, 3)) {
			cr->bits_per_key_q4 = 40;
			violate(&x, "bits_per_key_q4 on cuckoo", B(EINVAL),
				R_ACCEPTED);
		}
	}
	if (chance(&c->r, 30)) {
		cr->flags |= MEMFILTER_CREATE_SEED;
		cr->seed = rnd(&c->r);
	} else if (chance(&c->r, 30)) {
		cr->flags |= MEMFILTER_CREATE_KEYED;
	}
	if (!(cr->flags & MEMFILTER_CREATE_KEYED) && chance(&c->r, 30))
		cr->flags |= MEMFILTER_CREATE_XXH3;
	if (chance(&c->r, 3)) {
		/* Above every known flag (bit 3 became XXH64). */
		unsigned int lo = 32 - __builtin_clz(MEMFILTER_CREATE_FLAGS);

		cr->flags |= 1U << (lo + below(&c->r, 32 - lo));
		violate(&x, "unknown flag", B(EOPNOTSUPP), R_ACCEPTED);
	}
	if (chance(&c->r, 3)) {
		cr->flags |= MEMFILTER_CREATE_SEED | MEMFILTER_CREATE_KEYED;
		violate(&x, "KEYED with SEED", B(EINVAL), R_ACCEPTED);
	}
	if (chance(&c->r, 3)) {
		cr->flags |= MEMFILTER_CREATE_XXH3 | MEMFILTER_CREATE_KEYED;
		violate(&x, "KEYED with XXH3", B(EINVAL), R_ACCEPTED);
	}
	if (chance(&c->r, 3) && !(cr->flags & MEMFILTER_CREATE_SEED)) {
		cr->seed = 1 + below(&c->r, 1000);
		violate(&x, "seed without SEED", B(EINVAL), R_ACCEPTED);
	}
	if (chance(&c->r, 3)) {
		cr->out_fd = 1 + below(&c->r, 100);
		violate(&x, "out_fd != 0", B(EINVAL), R_ACCEPTED);
	}
	nk = gen_name(c, cr->name, true);
	expect_name(&x, nk, false);
	if (nk != N_NONE)
		x.env |= B(EEXIST);
	if (ro)
		violate(&x, "device opened read-only", B(EBADF), R_RO_CREATE);
	ret = call(c, OP_CREATE, ro ? c->dev_ro : c->dev,
		   MEMFILTER_IOC_CREATE, cr);
	x.env |= B(E2BIG);	/* over max_filter_mb: documented */
	judge(OP_CREATE, &x, ret);
	if (ret)
		return;
	atomic_fetch_add(&sh->grow_created, cr->type == MEMFILTER_TYPE_GROW);
	if (nk == N_LATIN1) {	/* do not leave such a name behind */
		struct memfilter_name nm = { .size = sizeof(nm) };

		call(c, OP_UNPUBLISH, cr->out_fd, MEMFILTER_IOC_UNPUBLISH, &nm);
	}
	pool_put(c, cr->out_fd, true);
}

static void fz_open(struct ctx *c)
{
	struct expect x = { .env = B(ENOENT) | B(ENOMEM) };
	struct memfilter_open *o;
	bool ro = chance(&c->r, 10), write = chance(&c->r, 50);
	enum name_kind nk;
	__u32 size;
	int ret;

	o = arg_struct(c, sizeof(*o), sizeof(*o), &x, &size);
	o->size = size;
	nk = gen_name(c, o->name, false);
	if (chance(&c->r, 20)) {	/* an owner's filter */
		memset(o->name, 0, sizeof(o->name));
		snprintf(o->name, sizeof(o->name), "fz.t%u",
			 (unsigned int)below(&c->r, MAX_OWNERS));
	} else {
		expect_name(&x, nk, true);
	}
	bad_fields(c, &x, NULL, &o->__reserved, &o->out_fd, R_ACCEPTED);
	if (chance(&c->r, 3)) {
		o->flags = 1U << (1 + below(&c->r, 31));
		violate(&x, "unknown flag", B(EOPNOTSUPP), R_ACCEPTED);
	}
	if (write) {
		/* A read-write fd: root gets it, others only for their own. */
		o->flags |= MEMFILTER_OPEN_WRITE;
		if (ro)
			violate(&x, "OPEN_WRITE through a read-only device",
				B(EBADF), R_ACCEPTED);
		if (unprivileged)
			x.env |= B(EPERM);
	}
	ret = call(c, OP_OPEN, ro ? c->dev_ro : c->dev, MEMFILTER_IOC_OPEN, o);
	judge(OP_OPEN, &x, ret);
	if (!ret)
		pool_put(c, o->out_fd, write);
}

static bool name_ok(const char *n)
{
	size_t len = strnlen(n, MEMFILTER_NAME_MAX);

	if (!len || len == MEMFILTER_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!strchr(name_chars, n[i]))
			return false;
	return true;
}

static void fz_list(struct ctx *c)
{
	struct expect x = { .env = B(ENOMEM) };
	struct memfilter_list *l;
	char *names = (char *)c->buf;
	__u32 size, max = c->buf_size / MEMFILTER_NAME_MAX;
	int bad, ret;

	l = arg_struct(c, sizeof(*l), sizeof(*l), &x, &size);
	l->size = size;
	l->count = below(&c->r, 64);
	l->names = (__u64)(uintptr_t)user_ptr(c, names, l->count *
					      MEMFILTER_NAME_MAX, &bad);
	if (chance(&c->r, 3))
		l->count = rnd(&c->r);	/* more than the buffer holds */
	if (bad || l->count > max)
		x.ambiguous = true;	/* faults only if names exist */
	if (bad > 0 && l->count && !l->names)
		violate(&x, "names NULL", B(EFAULT), R_ACCEPTED);
	bad_fields(c, &x, &l->flags, &l->__reserved, NULL, R_ACCEPTED);
	if (x.ambiguous || x.must_fail)
		x.env |= B(EFAULT);
	max = l->count;
	ret = call(c, OP_LIST, c->dev, MEMFILTER_IOC_LIST, l);
	judge(OP_LIST, &x, ret);
	if (ret || bad || (void *)l != (void *)c->arg || l->size < sizeof(*l))
		return;
	for (__u32 i = 0; i < l->count && i < max && i < 64; i++) {
		const char *n = names + (size_t)i * MEMFILTER_NAME_MAX;

		if (name_ok(n))
			continue;
		unsigned char byte = n[strspn(n, name_chars)];

		if (byte >= 0xc0)
			find(R_NAME_LATIN1, "LIST returned a name with byte 0x%02x",
			     byte);
		else
			find(R_OUTPUT, "LIST returned a malformed name (byte 0x%02x)",
			     byte);
	}
}

static void fz_load(struct ctx *c)
{
	struct expect x = { .env = B(ENOMEM) | B(E2BIG) };
	struct memfilter_load *l;
	unsigned char *img = NULL;
	size_t len = 0, n;
	enum name_kind nk;
	int p = pool_pick(c), err = -1, bad, ret;
	__u32 size;

	if (p >= 0 && chance(&c->r, 85))
		img = dump(c->pool[p].fd, 1000 + below(&c->r, 1 << 16), &len,
			   &err);
	if (err) {
		free(img);
		len = below(&c->r, 512);
		img = malloc(len + 1);
		for (n = 0; n < len; n++)
			img[n] = rnd(&c->r);
		x.allowed |= B(EBADMSG);
		violate(&x, "random bytes", B(EBADMSG) | B(EOPNOTSUPP),
			R_CORRUPT_LOADED);
	} else {
		switch (below(&c->r, 5)) {
		case 0:
		case 1:
			break;
		case 2: {
			/* Distinct bits: two flips of one bit are no change. */
			size_t flipped[4];
			int k = 0, j;

			for (n = 1 + below(&c->r, 4); n; n--) {
				size_t bit;

				do {
					bit = (chance(&c->r, 60) ?
					       below(&c->r, MEMFILTER_IMAGE_HDR_SIZE) :
					       below(&c->r, len)) * 8 +
					      below(&c->r, 8);
					for (j = 0; j < k && flipped[j] != bit; j++)
						;
				} while (j < k);
				flipped[k++] = bit;
				img[bit / 8] ^= 1 << (bit % 8);
			}
			violate(&x, "flipped bits", B(EBADMSG) | B(EOPNOTSUPP),
				R_CORRUPT_LOADED);
			break;
		}
		case 3:
			len = below(&c->r, len);
			violate(&x, "truncated", B(EBADMSG), R_CORRUPT_LOADED);
			break;
		default:
			n = 1 + below(&c->r, 4096);
			img = realloc(img, len + n);
			for (size_t i = 0; i < n; i++)
				img[len + i] = chance(&c->r, 50) ? 0 : rnd(&c->r);
			len += n;
			violate(&x, "extended", B(EBADMSG), R_CORRUPT_LOADED);
		}
	}
	l = arg_struct(c, sizeof(*l), sizeof(*l), &x, &size);
	l->size = size;
	l->image = (__u64)(uintptr_t)user_ptr(c, img, len, &bad);
	l->image_len = len;
	if (bad < 0) {
		x.ambiguous = true;
		x.env |= B(EFAULT) | B(EBADMSG) | B(EOPNOTSUPP);
	} else if (bad > 0 && len) {
		violate(&x, "bad image pointer", B(EFAULT), R_ACCEPTED);
	}
	if (chance(&c->r, 3)) {
		l->image_len = rnd(&c->r);
		violate(&x, "wrong image_len", B(EBADMSG) | B(EFAULT) | B(E2BIG),
			R_CORRUPT_LOADED);
		x.ambiguous |= l->image_len == len;
	}
	bad_fields(c, &x, &l->flags, &l->__reserved, &l->out_fd, R_ACCEPTED);
	nk = chance(&c->r, 70) ? N_NONE : gen_name(c, l->name, true);
	expect_name(&x, nk, false);
	if (nk != N_NONE)
		x.env |= B(EEXIST);
	ret = call(c, OP_LOAD, c->dev, MEMFILTER_IOC_LOAD, l);
	judge(OP_LOAD, &x, ret);
	free(img);
	if (ret)
		return;
	if (nk == N_LATIN1) {
		struct memfilter_name nm = { .size = sizeof(nm) };

		call(c, OP_UNPUBLISH, l->out_fd, MEMFILTER_IOC_UNPUBLISH, &nm);
	}
	pool_put(c, l->out_fd, true);
}

/* --- filter fd commands ---------------------------------------------------- */

static const enum op key_ops[] = {
	OP_ADD, OP_QUERY, OP_DELETE, OP_ADD_UNIQUE, OP_COUNT, OP_TEST_AND_ADD,
};
static const unsigned long key_cmds[] = {
	MEMFILTER_IOC_ADD, MEMFILTER_IOC_QUERY, MEMFILTER_IOC_DELETE,
	MEMFILTER_IOC_ADD_UNIQUE, MEMFILTER_IOC_COUNT,
	MEMFILTER_IOC_TEST_AND_ADD,
};
#define NKEY_OPS (sizeof(key_ops) / sizeof(key_ops[0]))

static void fz_keys(struct ctx *c, int p)
{
	struct expect x = { .env = B(ENOMEM) };
	struct memfilter_keys *k;
	int which = below(&c->r, NKEY_OPS), bad_keys = 0, bad_lens = 0,
	    bad_res = 0;
	size_t bytes = 0, cap = c->buf_size / 2;
	__u32 *lens = (__u32 *)(c->buf + cap), size, late_bad = 0;
	bool tracked = c->pool[p].tracked, lens_known = true, long_key = false;
	enum op op;
	int ret;

	if (tracked && (which == 2))
		which = 1;	/* never DELETE from an owner's filter */
	op = key_ops[which];
	k = arg_struct(c, sizeof(*k), sizeof(*k), &x, &size);
	k->size = size;
	switch (below(&c->r, 10)) {
	case 0:
		k->count = 0;
		break;
	case 1:
		k->count = 256 + below(&c->r, 1024);
		break;
	case 2:
		k->count = chance(&c->r, 50) ? MEMFILTER_BATCH_MAX + 1 +
			below(&c->r, 1000) : rnd(&c->r);
		break;
	default:
		k->count = 1 + below(&c->r, 300);
	}
	if (chance(&c->r, 50)) {
		k->key_size = (__u32[]){ 1, 4, 8, 8, 16, 33, 4095, 4096 }
			[below(&c->r, 8)];
		if (chance(&c->r, 3)) {
			k->key_size = MEMFILTER_KEY_MAX + 1 + below(&c->r, 1 << 20);
			violate(&x, "key_size > KEY_MAX", B(EINVAL), R_ACCEPTED);
		}
		bytes = (size_t)k->key_size * (k->count <= MEMFILTER_BATCH_MAX ?
					      k->count : 0);
		if (chance(&c->r, 3)) {
			k->lens = (__u64)(uintptr_t)lens;
			violate(&x, "lens with key_size", B(EINVAL), R_ACCEPTED);
		}
	} else if (k->count <= MEMFILTER_BATCH_MAX) {
		size_t n = k->count < cap / 4 ? k->count : 0;

		for (size_t i = 0; i < n; i++)
			lens[i] = chance(&c->r, 5) ? 0 : below(&c->r, 65);
		if (n && chance(&c->r, 15)) {
			/* one hostile length, often after the first window */
			size_t at = n > 256 && chance(&c->r, 70) ?
				256 + below(&c->r, n - 256) : below(&c->r, n);

			lens[at] = chance(&c->r, 30) ? MEMFILTER_KEY_MAX :
				chance(&c->r, 50) ? 0xffffffffu :
				MEMFILTER_KEY_MAX + 1 + below(&c->r, 1 << 20);
			if (lens[at] > MEMFILTER_KEY_MAX) {
				long_key = true;
				late_bad = at >= 256 ? at : 0;
			}
		}
		for (size_t i = 0; i < n; i++)
			bytes += lens[i] <= MEMFILTER_KEY_MAX ? lens[i] : 0;
		if (n < k->count) {
			lens_known = false;	/* lens run past the buffer */
			x.ambiguous = true;
			x.env |= B(EFAULT) | B(EINVAL);
		}
		k->lens = (__u64)(uintptr_t)user_ptr(c, lens, 4 * (size_t)k->count,
						     &bad_lens);
		if (!k->count && chance(&c->r, 50))
			k->lens = 0;
		if (long_key && !bad_lens)
			violate(&x, "a key length > KEY_MAX", B(EINVAL),
				R_ACCEPTED);
		if (k->count && !k->lens)
			violate(&x, "no lens", B(EINVAL) | B(EFAULT), R_ACCEPTED);
	}
	if (k->count > MEMFILTER_BATCH_MAX)
		violate(&x, "count > BATCH_MAX", B(EINVAL), R_ACCEPTED);
	if (bytes > cap) {
		lens_known = false;	/* keys run past the buffer */
		x.ambiguous = true;
		x.env |= B(EFAULT);
	}
	for (size_t i = 0; i < bytes && i < cap; i += 8)
		*(uint64_t *)(c->buf + i) = rnd(&c->r) >> below(&c->r, 64);
	k->keys = (__u64)(uintptr_t)user_ptr(c, c->buf, bytes, &bad_keys);
	if (chance(&c->r, 70)) {
		/* a bitmap, or COUNT's byte per key */
		uint64_t rbytes = op == OP_COUNT ? k->count :
				  ((uint64_t)k->count + 63) / 64 * 8;
		void *res = NULL;

		/* at the end of the arg page, if it fits after the struct */
		if (rbytes <= (uint64_t)page - sizeof(*k) - 512)
			res = c->arg + page - rbytes;
		k->results = (__u64)(uintptr_t)user_ptr(c, res, 8, &bad_res);
		if (!res && !bad_res)
			k->results = 0;
	}
	bad_fields(c, &x, &k->flags, NULL, NULL, R_ACCEPTED);
	if (!k->results)
		bad_res = 0;	/* NULL results: none wanted */
	if (bad_keys || bad_lens || bad_res) {
		x.env |= B(EFAULT);
		x.ambiguous = true;
	}
	/* Certain faults: the kernel must touch the memory. */
	if (bad_keys > 0 && bytes && !bad_lens && lens_known)
		violate(&x, "bad keys pointer", B(EFAULT), R_ACCEPTED);
	if (bad_lens > 0 && k->count && k->count <= MEMFILTER_BATCH_MAX &&
	    !k->key_size)
		violate(&x, "bad lens pointer", B(EFAULT), R_ACCEPTED);
	if (bad_res > 0 && k->count && k->count <= MEMFILTER_BATCH_MAX &&
	    !bad_keys && !bad_lens && lens_known)
		violate(&x, "bad results pointer", B(EFAULT), R_ACCEPTED);
	if ((c->pool[p].type == MEMFILTER_TYPE_BLOOM ||
	     c->pool[p].type == MEMFILTER_TYPE_WINDOW ||
	     c->pool[p].type == MEMFILTER_TYPE_GROW) &&
	    (op == OP_DELETE || op == OP_ADD_UNIQUE))
		violate(&x, "DELETE/ADD_UNIQUE on Bloom/window/growing",
			B(EOPNOTSUPP), k->count ? R_ACCEPTED : R_BLOOM_COUNT0);
	/* COUNT: cuckoo only, refused even with no keys */
	if (c->pool[p].type && c->pool[p].type != MEMFILTER_TYPE_CUCKOO &&
	    op == OP_COUNT)
		violate(&x, "COUNT on Bloom/window/growing", B(EOPNOTSUPP),
			R_ACCEPTED);
	/* TEST_AND_ADD: Bloom and window only, refused even with no keys */
	if (c->pool[p].type == MEMFILTER_TYPE_CUCKOO && op == OP_TEST_AND_ADD)
		violate(&x, "TEST_AND_ADD on cuckoo", B(EOPNOTSUPP), R_ACCEPTED);
	if (!c->pool[p].writable && op != OP_QUERY && op != OP_COUNT)
		violate(&x, "a read-only fd", B(EBADF), R_RO_WRITE);
	if (c->pool[p].type == MEMFILTER_TYPE_CUCKOO &&
	    (op == OP_ADD || op == OP_ADD_UNIQUE))
		x.env |= B(ENOSPC);
	/* a growing filter at grow_max or the memory limits; never EAGAIN */
	if (c->pool[p].type == MEMFILTER_TYPE_GROW &&
	    (op == OP_ADD || op == OP_TEST_AND_ADD))
		x.env |= B(ENOSPC);
	if (unprivileged && op != OP_QUERY && op != OP_COUNT)
		x.env |= B(EPERM);
	if (!c->pool[p].type)
		x.ambiguous = true;
	ret = call(c, op, c->pool[p].fd, key_cmds[which], k);
	judge(op, &x, ret);
	if (size < sizeof(*k) || (void *)k != (void *)c->arg)
		return;		/* output not written, or not all of it */
	if (!ret && (k->out_done != k->count || k->out_count > k->count))
		find(R_OUTPUT, "%s of %u keys: out_done %u out_count %u",
		     op_name[op], k->count, k->out_done, k->out_count);
	/* ENOSPC at the first key that did not fit: out_done before it */
	if (ret == -ENOSPC && c->pool[p].type == MEMFILTER_TYPE_GROW &&
	    k->out_done >= k->count)
		find(R_OUTPUT, "%s -> ENOSPC (growing) with out_done %u of %u",
		     op_name[op], k->out_done, k->count);
	if (ret && ret != -ENOSPC && ret != -EFAULT && ret != -EINTR &&
	    k->out_done && k->out_done <= k->count) {
		/* a long key we planted late, or lens we did not write */
		if (ret == -EINVAL && (late_bad || bad_lens || !lens_known))
			find(R_PARTIAL_EINVAL, "%s: key %u of %u too long: out_done %u",
			     op_name[op], late_bad, k->count, k->out_done);
		else
			find(R_PARTIAL, "%s -> %s with out_done %u of %u",
			     op_name[op], strerror(-ret), k->out_done, k->count);
	}
}

static void fz_info(struct ctx *c, int p)
{
	struct expect x = { 0 };
	struct memfilter_info *i;
	struct memfilter_generation *g;
	__u32 size, ngens = 0;
	int ret;

	i = arg_struct(c, sizeof(*i), FIRST_SIZE(memfilter_info, name), &x,
		       &size);
	i->size = size;
	bad_fields(c, &x, &i->flags, &i->__reserved, NULL, R_INFO_RESERVED);
	if (chance(&c->r, 50)) {
		/* window generations, growing sub-filters: into c->buf */
		i->gens_count = below(&c->r, MEMFILTER_GROW_MAX_SUBS + 2);
		i->gens = (__u64)(uintptr_t)c->buf;
		memset(c->buf, 0xa5, sizeof(*g) * (MEMFILTER_GROW_MAX_SUBS + 2));
		ngens = i->gens_count;
	}
	ret = call(c, OP_INFO, c->pool[p].fd, MEMFILTER_IOC_INFO, i);
	judge(OP_INFO, &x, ret);
	if (ret || size < sizeof(*i) || (void *)i != (void *)c->arg)
		return;
	if (i->type == MEMFILTER_TYPE_GROW) {
		/*
		 * One entry per sub-filter in use, age_ms 0, none past them.
		 * The entries are read apart from the rest: another thread's
		 * add may grow the filter, or its CLEAR shrink it, between.
		 */
		if (!i->subfilters || i->subfilters > i->grow_max ||
		    !i->grow_max || i->grow_max > MEMFILTER_GROW_MAX_SUBS ||
		    !i->grow_factor ||
		    i->grow_factor > MEMFILTER_GROW_MAX_FACTOR ||
		    !i->grow_ratio_pct || i->grow_ratio_pct > 99 ||
		    !i->fpr_ppb || i->fpr_ppb >= 1000000000 ||
		    !i->gens_count || i->gens_count > i->grow_max ||
		    i->generations ||
		    (i->status & MEMFILTER_STATUS_OVERFILL))
			find(R_OUTPUT, "INFO growing: %u/%u subs s %u r %u fpr %llu gens %u st %#x",
			     i->subfilters, i->grow_max, i->grow_factor,
			     i->grow_ratio_pct, (unsigned long long)i->fpr_ppb,
			     i->gens_count, i->status);
		atomic_fetch_add(&sh->grow_info, 1);
		g = (struct memfilter_generation *)c->buf;
		for (__u32 j = 0; j < ngens && j < i->gens_count; j++)
			if (g[j].age_ms)
				find(R_OUTPUT, "INFO growing: sub %u age_ms %llu",
				     j, (unsigned long long)g[j].age_ms);
		for (__u32 j = i->gens_count; j < ngens; j++)
			if (g[j].age_ms != 0xa5a5a5a5a5a5a5a5ULL)
				find(R_OUTPUT, "INFO wrote gens entry %u of %u sub-filters",
				     j, i->gens_count);
	} else if (i->subfilters || i->grow_max || i->grow_factor ||
		   i->grow_ratio_pct || i->fpr_ppb) {
		find(R_OUTPUT, "INFO: growing fields on type %u", i->type);
	}
	if ((i->type != MEMFILTER_TYPE_BLOOM && i->type != MEMFILTER_TYPE_CUCKOO &&
	     i->type != MEMFILTER_TYPE_WINDOW && i->type != MEMFILTER_TYPE_GROW) ||
	    (i->type == MEMFILTER_TYPE_WINDOW) !=
	    (i->generations >= MEMFILTER_WINDOW_MIN_GENERATIONS) ||
	    i->generations > MEMFILTER_WINDOW_MAX_GENERATIONS ||
	    (i->generations && i->current_gen >= i->generations) ||
	    i->fill > i->fill_max || !i->capacity ||
	    !memchr(i->name, 0, sizeof(i->name)) ||
	    !!(i->status & MEMFILTER_STATUS_KEYED) !=
	    (i->hash_algo == MEMFILTER_HASH_SIPHASH24) ||
	    (i->hash_algo != MEMFILTER_HASH_XXH64 &&
	     i->hash_algo != MEMFILTER_HASH_XXH3 &&
	     i->hash_algo != MEMFILTER_HASH_SIPHASH24) ||
	    ((i->status & MEMFILTER_STATUS_KEYED) && i->seed))
		find(R_OUTPUT, "INFO: type %u fill %llu/%llu algo %u status %#x",
		     i->type, (unsigned long long)i->fill,
		     (unsigned long long)i->fill_max, i->hash_algo, i->status);
}

static void fz_clear(struct ctx *c, int p)
{
	struct expect x = { 0 };
	struct memfilter_clear *cl;
	__u32 size;

	if (c->pool[p].tracked)
		return;
	cl = arg_struct(c, sizeof(*cl), sizeof(*cl), &x, &size);
	cl->size = size;
	bad_fields(c, &x, &cl->flags, NULL, NULL, R_ACCEPTED);
	if (!c->pool[p].writable)
		violate(&x, "a read-only fd", B(EBADF), R_RO_WRITE);
	judge(OP_CLEAR, &x, call(c, OP_CLEAR, c->pool[p].fd,
				 MEMFILTER_IOC_CLEAR, cl));
}

/*
 * ROTATE: window filters only. Not on an owner's filter: its shadow model
 * counts the rotations (or the time) its keys have left.
 */
static void fz_rotate(struct ctx *c, int p)
{
	struct expect x = { 0 };
	struct memfilter_rotate *ro;
	__u32 size;

	if (c->pool[p].tracked)
		return;
	ro = arg_struct(c, sizeof(*ro), sizeof(*ro), &x, &size);
	ro->size = size;
	bad_fields(c, &x, &ro->flags, NULL, NULL, R_ACCEPTED);
	if (!c->pool[p].writable)
		violate(&x, "a read-only fd", B(EBADF), R_RO_WRITE);
	if (c->pool[p].type && c->pool[p].type != MEMFILTER_TYPE_WINDOW)
		violate(&x, "ROTATE on Bloom/cuckoo/growing", B(EOPNOTSUPP),
			R_ACCEPTED);
	judge(OP_ROTATE, &x, call(c, OP_ROTATE, c->pool[p].fd,
				  MEMFILTER_IOC_ROTATE, ro));
}

static void fz_name(struct ctx *c, int p, bool publish)
{
	struct expect x = { 0 };
	struct memfilter_name *nm;
	enum name_kind nk = N_NONE;
	enum op op = publish ? OP_PUBLISH : OP_UNPUBLISH;
	__u32 size;
	int ret;

	nm = arg_struct(c, sizeof(*nm), sizeof(*nm), &x, &size);
	nm->size = size;
	if (publish) {
		nk = chance(&c->r, 5) ? N_NONE : gen_name(c, nm->name, false);
		expect_name(&x, nk, true);
		x.env |= B(EEXIST) | B(EBUSY);
	} else {
		x.env |= B(ENOENT);
		if (chance(&c->r, 5)) {
			nm->name[below(&c->r, MEMFILTER_NAME_MAX)] = 'x';
			violate(&x, "UNPUBLISH with a name", B(EINVAL), R_ACCEPTED);
		}
	}
	bad_fields(c, &x, &nm->flags, NULL, NULL, R_ACCEPTED);
	if (!c->pool[p].writable)
		violate(&x, "a read-only fd", B(EBADF), R_RO_WRITE);
	if (unprivileged)
		x.env |= B(EPERM);
	ret = call(c, op, c->pool[p].fd, publish ? MEMFILTER_IOC_PUBLISH :
		   MEMFILTER_IOC_UNPUBLISH, nm);
	judge(op, &x, ret);
	if (!ret && nk == N_LATIN1) {
		struct memfilter_name un = { .size = sizeof(un) };

		call(c, OP_UNPUBLISH, c->pool[p].fd, MEMFILTER_IOC_UNPUBLISH, &un);
	}
}

/* Commands numbers no table serves, on either kind of fd. */
static void fz_badcmd(struct ctx *c, int p)
{
	static const unsigned long dev_cmds[] = {
		MEMFILTER_IOC_API, MEMFILTER_IOC_CREATE, MEMFILTER_IOC_OPEN,
		MEMFILTER_IOC_LIST, MEMFILTER_IOC_LOAD,
	};
	int fd = p >= 0 && chance(&c->r, 50) ? c->pool[p].fd : c->dev;
	unsigned long cmd;
	unsigned int nr;

	switch (below(&c->r, 4)) {
	case 0:
		nr = below(&c->r, 256);
		if (nr >= MEMFILTER_CMD_BASE && nr <= MEMFILTER_CMD_COUNT)
			nr = MEMFILTER_CMD_BASE + 0x40;
		cmd = _IOC(below(&c->r, 4), MEMFILTER_IOCTL_TYPE, nr,
			   below(&c->r, 1 << 14));
		break;
	case 1:
		cmd = _IOWR('x' + below(&c->r, 3), MEMFILTER_CMD_BASE +
			    below(&c->r, 0x18), struct memfilter_keys);
		break;
	case 2:
		/* +5 .. +7 are the netfilter commands of /dev/memfilter */
		cmd = _IOWR(MEMFILTER_IOCTL_TYPE, MEMFILTER_CMD_BASE + 8 +
			    below(&c->r, 8), struct memfilter_keys);
		break;
	default:
		/* the other kind of fd's commands */
		cmd = fd == c->dev ? key_cmds[below(&c->r, NKEY_OPS)] :
			dev_cmds[below(&c->r, 5)];
	}
	memset(c->arg, 0, 512);
	*(__u32 *)c->arg = 512;
	call(c, OP_BADCMD, fd, cmd, c->arg);
}

static void fz_read(struct ctx *c, int p)
{
	int fd = c->pool[p].fd, bad;
	size_t len = below(&c->r, 1 << 17);
	void *buf = user_ptr(c, c->buf, len, &bad);
	off_t off;
	ssize_t r;
	int ret;

	if (len > c->buf_size)
		len = c->buf_size;
	switch (below(&c->r, 4)) {
	case 0:
		off = 0;
		break;
	case 1:
		off = below(&c->r, 1 << 20);
		break;
	case 2:
		off = -1 - (off_t)below(&c->r, 1000);
		break;
	default:
		off = lseek(fd, 0, SEEK_CUR);	/* continue a dump */
	}
	slot_enter(c, OP_READ);
	if (chance(&c->r, 50)) {
		r = pread(fd, buf, len, off);
	} else {
		if (lseek(fd, off, SEEK_SET) < 0 && off >= 0)
			find(R_VALID_FAILED, "lseek(%lld) on a filter fd: %s",
			     (long long)off, strerror(errno));
		r = read(fd, buf, len);
	}
	ret = r < 0 ? -errno : 0;
	slot_leave(c);
	account(OP_READ, ret);
	if (!bad && off == 0 && r < 0 && errno != EPERM && errno != ENOMEM)
		find(R_VALID_FAILED, "read at 0 of %zu bytes: %s", len,
		     strerror(errno));
	if (!bad && off == 0 && len >= 8 && r >= 8 && memcmp(buf, "MFLTIMG1", 8))
		find(R_OUTPUT, "a dump does not start with the magic");
}

/* --- netfilter commands (on /dev/memfilter) ------------------------------- */

/* A random valid attachment of filter @name (NULL: keep a->name). */
static void nf_fields(struct rng *r, struct memfilter_nf_attach *a)
{
	a->family = have_ipv6 ? 1 + below(r, 3) : MEMFILTER_NF_IPV4;
	a->hook = below(r, MEMFILTER_NF_POST_ROUTING + 1);
	a->key = MEMFILTER_NF_KEY_SADDR + below(r, 4);
	a->action = MEMFILTER_NF_DROP_HIT + below(r, 4);
	if (chance(r, 30)) {
		a->flags = MEMFILTER_NF_ATTACH_PRIORITY;
		a->priority = (__s32[]){ INT_MIN + 1, INT_MAX - 1, 0, -350,
					 (__s32)rnd(r) }[below(r, 5)];
		if (a->priority == INT_MIN || a->priority == INT_MAX)
			a->priority = 7;
	}
}

/* Keep a new attachment's id where other threads can detach it. */
static void nf_remember(_Atomic uint32_t *ids, uint32_t id)
{
	for (int i = 0, s = id % NF_IDS; i < NF_IDS; i++) {
		uint32_t zero = 0;

		if (atomic_compare_exchange_strong(&ids[(s + i) % NF_IDS],
						   &zero, id))
			return;
	}
	if (ids == sh->nf_gone)	/* forget an old one */
		atomic_store(&ids[id % NF_IDS], id);
	/* a live one the array cannot hold: cleanup() detaches it */
}

static void fz_nf_attach(struct ctx *c)
{
	struct expect x = { .env = B(ENOENT) | B(ENOSPC) | B(ENOMEM) };
	struct memfilter_nf_attach *a;
	bool ro = chance(&c->r, 3);
	enum name_kind nk;
	__u32 size;
	int ret;

	a = arg_struct(c, sizeof(*a), sizeof(*a), &x, &size);
	a->size = size;
	nk = gen_name(c, a->name, chance(&c->r, 5));
	expect_name(&x, nk, true);
	nf_fields(&c->r, a);
	switch (below(&c->r, 40)) {
	case 0:
		a->family = chance(&c->r, 50) ? 0 : 1U << (2 + below(&c->r, 30));
		violate(&x, "unknown family", B(EINVAL), R_ACCEPTED);
		break;
	case 1:
		a->hook = MEMFILTER_NF_POST_ROUTING + 1 + below(&c->r, 1000);
		violate(&x, "unknown hook", B(EINVAL), R_ACCEPTED);
		break;
	case 2:
		a->key = chance(&c->r, 50) ? 0 : 5 + below(&c->r, 1000);
		violate(&x, "unknown key", B(EINVAL), R_ACCEPTED);
		break;
	case 3:
		a->action = chance(&c->r, 50) ? 0 : 5 + below(&c->r, 1000);
		violate(&x, "unknown action", B(EINVAL), R_ACCEPTED);
		break;
	case 4:
		a->flags = MEMFILTER_NF_ATTACH_PRIORITY;
		a->priority = chance(&c->r, 50) ? INT_MIN : INT_MAX;
		violate(&x, "priority INT_MIN or INT_MAX", B(EINVAL), R_ACCEPTED);
		break;
	case 5:
		a->flags = 0;
		a->priority = 1 + below(&c->r, 1000);
		violate(&x, "priority without its flag", B(EINVAL), R_ACCEPTED);
		break;
	case 6:
		a->flags |= 1U << (1 + below(&c->r, 31));
		violate(&x, "unknown flag", B(EOPNOTSUPP), R_ACCEPTED);
		break;
	case 7:
		a->__reserved = 1 + below(&c->r, 1000);
		violate(&x, "__reserved", B(EOPNOTSUPP), R_ACCEPTED);
		break;
	case 8:
		a->out_id = 1 + below(&c->r, 1000);
		violate(&x, "out_id != 0", B(EINVAL), R_ACCEPTED);
		break;
	}
	if (a->action == MEMFILTER_NF_DEDUP)
		x.env |= B(EOPNOTSUPP);	/* the name may be a cuckoo filter's */
	if (ro)
		violate(&x, "device opened read-only", B(EBADF), R_ACCEPTED);
	if (unprivileged)
		x.env |= B(EPERM);
	ret = call(c, OP_NF_ATTACH, ro ? c->dev_ro : c->dev,
		   MEMFILTER_IOC_NF_ATTACH, a);
	judge(OP_NF_ATTACH, &x, ret);
	if (ret || size < sizeof(*a))
		return;
	if (!a->out_id || a->out_id >= NF_NEVER) {
		find(R_OUTPUT, "NF_ATTACH returned id %u", a->out_id);
		return;
	}
	atomic_fetch_add(&sh->nf_attached, 1);
	nf_remember(sh->nf_live, a->out_id);
}

/*
 * DETACH: an id taken from the live ones must go (exactly once: no other
 * thread knows it); a detached id, 0 or one never issued must be ENOENT.
 */
static void fz_nf_detach(struct ctx *c)
{
	struct expect x = { 0 };
	struct memfilter_nf_detach *d;
	bool ro = chance(&c->r, 3), live = false;
	uint32_t id = 0;
	__u32 size;
	int ret;

	d = arg_struct(c, sizeof(*d), sizeof(*d), &x, &size);
	d->size = size;
	switch (below(&c->r, 10)) {
	case 0:
	case 1:
		id = atomic_load(&sh->nf_gone[below(&c->r, NF_IDS)]);
		if (id)
			violate(&x, "an id already detached", B(ENOENT),
				R_ACCEPTED);
		break;
	case 2:
		id = chance(&c->r, 50) ? 0 : NF_NEVER + below(&c->r, 1 << 30);
		break;
	default:
		for (int i = 0, s = below(&c->r, NF_IDS); i < NF_IDS && !id; i++)
			id = atomic_exchange(&sh->nf_live[(s + i) % NF_IDS], 0);
		live = id;
	}
	if (!id || id >= NF_NEVER)
		violate(&x, "an id never issued", B(ENOENT), R_ACCEPTED);
	d->id = id;
	if (chance(&c->r, 3)) {
		d->flags = 1U << below(&c->r, 32);
		violate(&x, "flags", B(EOPNOTSUPP), R_ACCEPTED);
	}
	if (chance(&c->r, 3)) {
		d->__reserved = 1 + below(&c->r, 1000);
		violate(&x, "__reserved", B(EOPNOTSUPP), R_ACCEPTED);
	}
	if (ro)
		violate(&x, "device opened read-only", B(EBADF), R_ACCEPTED);
	if (unprivileged)
		x.env |= B(EPERM);
	ret = call(c, OP_NF_DETACH, ro ? c->dev_ro : c->dev,
		   MEMFILTER_IOC_NF_DETACH, d);
	judge(OP_NF_DETACH, &x, ret);
	if (!ret && live) {
		atomic_fetch_add(&sh->nf_detached, 1);
		nf_remember(sh->nf_gone, id);
	} else if (live && ret != -ENOENT) {
		nf_remember(sh->nf_live, id);	/* refused: still attached */
	}
}

static bool nf_entry_ok(const struct memfilter_nf_entry *e)
{
	return e->id && e->id < NF_NEVER && e->family &&
	       !(e->family & ~(MEMFILTER_NF_IPV4 | MEMFILTER_NF_IPV6)) &&
	       e->hook <= MEMFILTER_NF_POST_ROUTING &&
	       e->key >= MEMFILTER_NF_KEY_SADDR &&
	       e->key <= MEMFILTER_NF_KEY_L4_PAYLOAD &&
	       e->action >= MEMFILTER_NF_DROP_HIT &&
	       e->action <= MEMFILTER_NF_DEDUP &&
	       e->priority != INT_MIN && e->priority != INT_MAX &&
	       name_ok(e->name) && e->hits <= e->packets &&
	       e->drops <= e->packets && e->added <= e->packets &&
	       e->skipped <= e->packets && e->misses <= e->packets &&
	       e->add_failed <= e->misses;
}

/* LIST: random capacities, entry sizes and pointers; entries must be sane. */
static void fz_nf_list(struct ctx *c)
{
	struct expect x = { .env = B(ENOMEM) };
	struct memfilter_nf_list *l;
	const size_t esz = sizeof(struct memfilter_nf_entry);
	__u32 size, in_count;
	int bad, ret;

	l = arg_struct(c, sizeof(*l), sizeof(*l), &x, &size);
	l->size = size;
	l->count = below(&c->r, MEMFILTER_NF_MAX + 16);
	switch (below(&c->r, 20)) {
	case 0:
		/* below the first version's entry (a shorter newer one is fine) */
		l->entry_size = below(&c->r, MEMFILTER_NF_ENTRY_SIZE_VER0);
		violate(&x, "entry_size below the entry", B(EINVAL), R_ACCEPTED);
		break;
	case 1:
	case 2:
		l->entry_size = esz + 1 + below(&c->r, 200);
		break;
	case 3:
		l->entry_size = esz + below(&c->r, 1U << 31);
		l->count = 0;	/* none wanted: nothing written */
		break;
	case 4:
		/* a huge stride: refused before a byte is written or cleared */
		l->entry_size = page + 1 + below(&c->r, 0xffffffffULL - page);
		l->count = 1 + below(&c->r, MEMFILTER_NF_MAX + 16);
		break;
	default:
		l->entry_size = esz;
	}
	if (l->entry_size > page) {
		violate(&x, "entry_size over a page", B(E2BIG), R_ACCEPTED);
		/* the guard page: if it were accepted, nothing of ours breaks */
		l->entries = (__u64)(uintptr_t)(c->arg + page);
		bad = 0;
		goto flags;
	}
	/* the entries fit the buffer; poisoned, so a short write shows */
	memset(c->buf, 0xa5, (size_t)l->count * l->entry_size);
	l->entries = (__u64)(uintptr_t)user_ptr(c, c->buf,
					       (size_t)l->count * l->entry_size,
					       &bad);
	if (bad > 0 && l->count && !l->entries)
		violate(&x, "entries NULL", B(EFAULT), R_ACCEPTED);
	if (bad) {
		x.ambiguous = true;	/* faults only if attachments exist */
		x.env |= B(EFAULT);
	}
flags:
	if (chance(&c->r, 3)) {
		l->flags = 1U << below(&c->r, 32);
		violate(&x, "flags", B(EOPNOTSUPP), R_ACCEPTED);
	}
	in_count = l->count;
	ret = call(c, OP_NF_LIST, c->dev, MEMFILTER_IOC_NF_LIST, l);
	judge(OP_NF_LIST, &x, ret);
	atomic_fetch_add(&sh->nf_lists, !ret);
	if (ret || bad || size < sizeof(*l) || (void *)l != (void *)c->arg)
		return;
	if (l->count > MEMFILTER_NF_MAX)
		find(R_OUTPUT, "NF_LIST: %u attachments in one namespace",
		     l->count);
	for (__u32 i = 0; i < l->count && i < in_count; i++) {
		const unsigned char *p = c->buf + (size_t)i * l->entry_size;
		struct memfilter_nf_entry e;

		memcpy(&e, p, esz);
		if (!nf_entry_ok(&e))
			find(R_OUTPUT, "NF_LIST entry %u: id %u family %#x hook %u key %u action %u",
			     i, e.id, e.family, e.hook, e.key, e.action);
		for (size_t j = esz; j < l->entry_size; j++)
			if (p[j]) {
				find(R_OUTPUT, "NF_LIST: entry %u's tail not zeroed", i);
				break;
			}
	}
}

/*
 * The netfilter owner: a thread in a network namespace of its own, where
 * nothing else attaches and no packet flows (its loopback is down), so
 * every answer is predicted exactly: which attachments LIST shows, in
 * attach order, with zero counters; ENOSPC at MEMFILTER_NF_MAX; ENOENT for
 * an unpublished name and for a detached id or one from another
 * namespace; EOPNOTSUPP for dedup on a cuckoo filter; EBADF through a
 * read-only device fd. Now and then it detaches while another thread
 * closes and unpublishes the attached filter, or forks a child that
 * attaches in a namespace of its own and exits without detaching.
 */
struct nf_owner {
	struct ctx c;
	struct memfilter_nf_attach att[MEMFILTER_NF_MAX];
	int n;
	uint32_t gone;			/* a detached id */
	int fds[3];			/* Bloom, cuckoo, window */
};

static const char *const nf_names[] = {
	"fz.nf.bloom", "fz.nf.cuckoo", "fz.nf.window", "fz.nf.none",
};

static void nf_expect(const char *what, int ret, int want)
{
	if (ret == want)
		return;
	if (!want)
		find(R_VALID_FAILED, "nf owner: %s -> %s", what, strerror(-ret));
	else if (!ret)
		find(R_ACCEPTED, "nf owner: %s accepted (want %s)", what,
		     strerror(-want));
	else
		find(R_WRONG_ERRNO, "nf owner: %s -> %s (want %s)", what,
		     strerror(-ret), strerror(-want));
}

static int nf_attach_as(struct nf_owner *o, int dev,
			struct memfilter_nf_attach *a)
{
	a->size = sizeof(*a);
	return call(&o->c, OP_NF_ATTACH, dev, MEMFILTER_IOC_NF_ATTACH, a);
}

static int nf_detach_as(struct nf_owner *o, int dev, uint32_t id)
{
	struct memfilter_nf_detach d = { .size = sizeof(d), .id = id };

	return call(&o->c, OP_NF_DETACH, dev, MEMFILTER_IOC_NF_DETACH, &d);
}

static void nf_owner_attach(struct nf_owner *o)
{
	struct memfilter_nf_attach a = { 0 };
	int which = below(&o->c.r, 4), want = 0, ret;

	nf_fields(&o->c.r, &a);
	strcpy(a.name, nf_names[which]);
	if (which == 3)
		want = -ENOENT;
	else if (which == 1 && a.action == MEMFILTER_NF_DEDUP)
		want = -EOPNOTSUPP;
	else if (o->n == MEMFILTER_NF_MAX)
		want = -ENOSPC;
	ret = nf_attach_as(o, o->c.dev, &a);
	nf_expect("ATTACH", ret, want);
	if (ret)
		return;
	if (!a.flags)
		a.priority = MEMFILTER_NF_PRIORITY_DEFAULT;
	if (o->n < MEMFILTER_NF_MAX)
		o->att[o->n++] = a;
}

static void nf_owner_detach(struct nf_owner *o)
{
	int i = o->n ? below(&o->c.r, o->n) : 0, ret;
	uint32_t id;

	if (!o->n || chance(&o->c.r, 20)) {
		/* detached here; live in the initial namespace; never */
		id = (uint32_t[]){ o->gone, 0, NF_NEVER,
				   atomic_load(&sh->nf_live[below(&o->c.r,
								  NF_IDS)]) }
			[below(&o->c.r, 4)];
		nf_expect("DETACH of an id not attached here",
			  nf_detach_as(o, o->c.dev, id), -ENOENT);
		return;
	}
	ret = nf_detach_as(o, o->c.dev, o->att[i].out_id);
	nf_expect("DETACH", ret, 0);
	if (ret)
		return;
	o->gone = o->att[i].out_id;
	memmove(&o->att[i], &o->att[i + 1], (o->n - i - 1) * sizeof(o->att[0]));
	o->n--;
}

static void nf_owner_list(struct nf_owner *o)
{
	struct memfilter_nf_entry e[MEMFILTER_NF_MAX + 1];
	struct memfilter_nf_list l = {
		.size = sizeof(l), .count = MEMFILTER_NF_MAX + 1,
		.entry_size = sizeof(e[0]), .entries = (__u64)(uintptr_t)e,
	};
	int ret;

	ret = call(&o->c, OP_NF_LIST, o->c.dev, MEMFILTER_IOC_NF_LIST, &l);
	nf_expect("LIST", ret, 0);
	if (ret)
		return;
	if (l.count != (__u32)o->n) {
		find(R_OUTPUT, "nf owner: LIST shows %u attachments, %d made",
		     l.count, o->n);
		return;
	}
	for (int i = 0; i < o->n; i++) {
		const struct memfilter_nf_attach *a = &o->att[i];

		if (e[i].id != a->out_id || e[i].family != a->family ||
		    e[i].hook != a->hook || e[i].priority != a->priority ||
		    e[i].key != a->key || e[i].action != a->action ||
		    strcmp(e[i].name, a->name) || e[i].packets || e[i].hits ||
		    e[i].drops || e[i].added || e[i].skipped)
			find(R_OUTPUT, "nf owner: LIST entry %d: id %u (want %u) hook %u/%u prio %d/%d name %s/%s packets %llu",
			     i, e[i].id, a->out_id, e[i].hook, a->hook,
			     e[i].priority, a->priority, e[i].name, a->name,
			     (unsigned long long)e[i].packets);
	}
	atomic_fetch_add(&sh->nf_lists, 1);
}

struct nf_race {
	struct ctx *c;
	int fd;
};

static void *nf_race_close(void *arg)
{
	struct nf_race *r = arg;
	struct memfilter_name nm = { .size = sizeof(nm) };

	usleep(below(&r->c->r, 300));
	xioctl(r->fd, MEMFILTER_IOC_UNPUBLISH, &nm);
	close(r->fd);
	return NULL;
}

/*
 * Attach a fresh filter by name, then detach while another thread
 * unpublishes and closes it: the attachment's reference keeps the filter,
 * the detach succeeds and nothing is left.
 */
static void nf_owner_race(struct nf_owner *o)
{
	struct memfilter_nf_attach a = { 0 };
	struct nf_race r = { .c = &o->c };
	bool threaded;
	pthread_t t;
	int ret;

	if (o->n == MEMFILTER_NF_MAX)
		return;
	r.fd = chance(&o->c.r, 50) ?
		create(o->c.dev, MEMFILTER_TYPE_BLOOM, 1000, 0, 40, 0, 0,
		       "fz.nf.race") :
		create(o->c.dev, MEMFILTER_TYPE_CUCKOO, 1000, 0, 0, 8, 0,
		       "fz.nf.race");
	if (r.fd == -EEXIST) {
		find(R_OUTPUT, "nf owner: fz.nf.race left published");
		return;
	}
	if (r.fd < 0)
		return;
	nf_fields(&o->c.r, &a);
	a.action = MEMFILTER_NF_COUNT;
	strcpy(a.name, "fz.nf.race");
	ret = nf_attach_as(o, o->c.dev, &a);
	nf_expect("ATTACH of the racing filter", ret, 0);
	/*
	 * Without a thread (EAGAIN at a thread limit, tests/faults.sh's
	 * fault.fork) the same steps run in order: the attachment and the
	 * name must not outlive them.
	 */
	threaded = !pthread_create(&t, NULL, nf_race_close, &r);
	if (!threaded)
		nf_race_close(&r);
	if (!ret) {
		usleep(below(&o->c.r, 300));
		nf_expect("DETACH racing unpublish and close",
			  nf_detach_as(o, o->c.dev, a.out_id), 0);
		o->gone = a.out_id;
	}
	if (threaded)
		pthread_join(t, NULL);
	atomic_fetch_add(&sh->nf_races, 1);
}

/* A child in a namespace of its own attaches and exits: the exit detaches. */
static void nf_owner_fork(struct nf_owner *o)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		struct memfilter_nf_attach a = { 0 };

		if (unshare(CLONE_NEWNET))
			_exit(3);
		for (int i = 0; i < 3; i++) {
			memset(&a, 0, sizeof(a));
			nf_fields(&o->c.r, &a);
			strcpy(a.name, nf_names[i]);
			a.size = sizeof(a);
			if (a.action == MEMFILTER_NF_DEDUP)
				a.action = MEMFILTER_NF_COUNT;
			if (xioctl(o->c.dev, MEMFILTER_IOC_NF_ATTACH, &a))
				_exit(4);
		}
		_exit(0);
	}
	if (pid < 0)
		return;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		find(R_VALID_FAILED, "nf owner's child: status %#x", status);
}

static void *nf_owner_thread(void *arg)
{
	struct nf_owner *o = arg;
	struct memfilter_create cr = {
		.size = sizeof(cr), .type = MEMFILTER_TYPE_WINDOW,
		.capacity = 1000, .bits_per_key_q4 = 40, .generations = 4,
		.period_ms = 50, .name = "fz.nf.window",
	};

	if (unshare(CLONE_NEWNET)) {
		printf("# nf owner: unshare(CLONE_NEWNET): %s: not run\n",
		       strerror(errno));
		return NULL;
	}
	o->fds[0] = create(o->c.dev, MEMFILTER_TYPE_BLOOM, 1000, 0, 40, 0, 0,
			   nf_names[0]);
	o->fds[1] = create(o->c.dev, MEMFILTER_TYPE_CUCKOO, 1000, 0, 0, 8, 0,
			   nf_names[1]);
	o->fds[2] = xioctl(o->c.dev, MEMFILTER_IOC_CREATE, &cr) ?: cr.out_fd;
	if (o->fds[0] < 0 || o->fds[1] < 0 || o->fds[2] < 0) {
		find(R_VALID_FAILED, "nf owner: CREATE of its filters failed");
		return NULL;
	}
	while (!atomic_load(&sh->stop)) {
		uint64_t pick = below(&o->c.r, 1000);

		if (pick < 450) {
			nf_owner_attach(o);
		} else if (pick < 800) {
			nf_owner_detach(o);
		} else if (pick < 900) {
			nf_owner_list(o);
		} else if (pick < 940) {
			nf_owner_race(o);
		} else if (pick < 970) {
			struct memfilter_nf_attach a = { 0 };

			nf_fields(&o->c.r, &a);
			strcpy(a.name, nf_names[0]);
			nf_expect("ATTACH through a read-only device fd",
				  nf_attach_as(o, o->c.dev_ro, &a), -EBADF);
			if (o->n)
				nf_expect("DETACH through a read-only device fd",
					  nf_detach_as(o, o->c.dev_ro,
						       o->att[0].out_id), -EBADF);
		} else if (pick < 975) {
			nf_owner_fork(o);
		} else {
			usleep(1000);
		}
	}
	nf_owner_list(o);
	while (o->n) {
		nf_expect("DETACH at the end",
			  nf_detach_as(o, o->c.dev, o->att[o->n - 1].out_id), 0);
		o->n--;
	}
	nf_owner_list(o);
	for (int i = 0; i < 3; i++) {
		struct memfilter_name nm = { .size = sizeof(nm) };

		xioctl(o->fds[i], MEMFILTER_IOC_UNPUBLISH, &nm);
		close(o->fds[i]);
	}
	return NULL;
}

/* --- chaos threads ---------------------------------------------------------- */

static void chaos_op(struct ctx *c);

static void child_run(struct ctx *c)
{
	int n = 20 + below(&c->r, 200), s;

	s = atomic_fetch_add(&sh->next_child_slot, 1);
	c->slot = &sh->slots[MAX_OWNERS + MAX_CHAOS + 1 +
			     s % (MAX_SLOTS - MAX_OWNERS - MAX_CHAOS - 1)];
	atomic_store(&c->slot->who, 1000 + s);
	in_child = true;
	if (chance(&c->r, 50)) {
		if (setgid(MF_NOBODY) || setuid(MF_NOBODY))
			_exit(faults && (errno == ENOMEM || errno == EAGAIN) ?
			      0 : 3);
		unprivileged = true;
	}
	while (n-- && !atomic_load(&sh->stop))
		chaos_op(c);
	slot_leave(c);
	_exit(0);
}

static void fz_fork(struct ctx *c)
{
	struct ctx child = *c;
	int status;
	pid_t pid;

	child.r.s = rnd(&c->r);
	slot_enter(c, OP_FORK);
	pid = fork();
	if (pid == 0)
		child_run(&child);
	slot_leave(c);
	account(OP_FORK, pid < 0 ? -errno : 0);
	if (pid < 0)
		return;
	atomic_fetch_add(&sh->children, 1);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		atomic_fetch_add(&sh->child_failures, 1);
		if (WIFSIGNALED(status))
			printf("# child died of signal %d\n", WTERMSIG(status));
	}
}

static void chaos_op(struct ctx *c)
{
	int p = pool_pick(c), fd;
	uint64_t pick = below(&c->r, 1000);

	if (have_nf && chance(&c->r, 4)) {
		pick = below(&c->r, 10);
		if (pick < 4)
			fz_nf_attach(c);
		else if (pick < 8)
			fz_nf_detach(c);
		else
			fz_nf_list(c);
		return;
	}
	if (pick < 20) {
		fz_api(c);
	} else if (pick < 120) {
		fz_create(c);
	} else if (pick < 170) {
		fz_open(c);
	} else if (pick < 200) {
		fz_list(c);
	} else if (pick < 240) {
		fz_load(c);
	} else if (pick < 255) {
		fz_badcmd(c, p);
	} else if (p < 0) {
		fz_create(c);
	} else if (pick < 640) {
		fz_keys(c, p);
	} else if (pick < 700) {
		fz_info(c, p);
	} else if (pick < 720) {
		fz_rotate(c, p);
	} else if (pick < 760) {
		fz_clear(c, p);
	} else if (pick < 800) {
		fz_name(c, p, true);
	} else if (pick < 840) {
		fz_name(c, p, false);
	} else if (pick < 930) {
		fz_read(c, p);
	} else if (pick < 960) {
		fd = dup(c->pool[p].fd);
		account(OP_DUP, fd < 0 ? -errno : 0);
		if (fd >= 0) {
			int s = below(&c->r, POOL);

			if (c->pool[s].fd >= 0)
				close(c->pool[s].fd);
			c->pool[s] = c->pool[p];
			c->pool[s].fd = fd;
		}
	} else if (pick < 998 || in_child) {
		account(OP_CLOSE, close(c->pool[p].fd) ? -errno : 0);
		c->pool[p].fd = -1;
	} else {
		fz_fork(c);
	}
}

static void ctx_init(struct ctx *c, int id)
{
	memset(c, 0, sizeof(*c));
	c->id = id;
	c->r.s = mix64(seed ^ mix64(id + 1));
	c->slot = &sh->slots[id];
	atomic_store(&c->slot->who, id);
	c->dev = dev_open();
	c->dev_ro = open(MF_DEV, O_RDONLY | O_CLOEXEC);
	c->arg = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c->arg != MAP_FAILED)
		mprotect(c->arg + page, page, PROT_NONE);
	c->buf_size = 1 << 20;
	c->buf = malloc(c->buf_size);
	for (int i = 0; i < POOL; i++)
		c->pool[i].fd = -1;
}

static void ctx_fini(struct ctx *c)
{
	for (int i = 0; i < POOL; i++) {
		if (c->pool[i].fd >= 0)
			close(c->pool[i].fd);
	}
	close(c->dev);
	close(c->dev_ro);
	munmap(c->arg, 2 * page);
	free(c->buf);
}

/* MF_FUZZ_FAULTS: the kernel's fault injection for this thread. */
static void fault_arm(void)
{
	int fd;

	if (!faults)
		return;
	fd = open("/proc/thread-self/make-it-fail", O_WRONLY);
	if (fd < 0 || write(fd, "1", 1) != 1) {
		printf("Bail out! make-it-fail: %s\n", strerror(errno));
		exit(1);
	}
	close(fd);
}

static void *chaos_thread(void *arg)
{
	struct ctx *c = arg;

	fault_arm();
	while (!atomic_load(&sh->stop))
		chaos_op(c);
	return NULL;
}

/* The unmapper: pages of the hostile region come and go. */
static void *unmapper_thread(void *arg)
{
	struct rng r = { mix64(seed ^ 0x1234) };

	while (!atomic_load(&sh->stop)) {
		size_t at = below(&r, HOSTILE_PAGES) * page;
		size_t n = (1 + below(&r, 4)) * page;
		void *p;

		if (at + n > HOSTILE_PAGES * page)
			n = HOSTILE_PAGES * page - at;
		if (below(&r, 2)) {
			munmap(hostile + at, n);
			usleep(below(&r, 200));
			p = mmap(hostile + at, n, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS |
				 MAP_FIXED_NOREPLACE, -1, 0);
			if (p != MAP_FAILED)
				memset(p, below(&r, 256), n);
		} else {
			mprotect(hostile + at, n, PROT_NONE);
			usleep(below(&r, 200));
			mprotect(hostile + at, n, PROT_READ | PROT_WRITE);
		}
		usleep(below(&r, 500));
	}
	return NULL;
}

/* --- owners and their shadow models --------------------------------------- */

/*
 * A model key is a number; its bytes are 8 (the number mixed) or, for one
 * in five, 1..61 bytes derived from it, given as a variable-size key.
 */
static size_t key_len(uint64_t id)
{
	return id % 5 ? 8 : 1 + id % 61;
}

static void key_bytes(uint64_t id, unsigned char *out)
{
	uint64_t w = mix64(id ^ 0x6b6579);

	for (size_t i = 0; i < key_len(id); i++) {
		if (i % 8 == 0 && i)
			w = mix64(w);
		out[i] = w >> (8 * (i % 8));
	}
}

struct owner {
	struct ctx c;
	int fd;
	__u32 type;
	__u32 grow_max;		/* growing: the most sub-filters */
	bool published;
	bool window;		/* keeps window filters */
	bool ever_published;	/* this filter: chaos threads may add */
	enum wmode wmode;
	__u32 gens;
	__u64 wcap;		/* keys per generation */
	__u64 period;		/* W_PERIOD: ms */
	uint64_t epoch;		/* W_EXPLICIT: rotations so far (ours only) */
	uint64_t submitted;	/* W_COUNT: keys handed to adds so far */
	uint64_t *stamp;	/* window: per key, its last add's epoch,
				 * submitted count or start time */
	uint32_t *count;	/* copies added, by key number */
	uint64_t ids;		/* key numbers in use: [0, ids) */
	uint64_t live;		/* keys with count > 0 */
	uint64_t injected;	/* MF_FUZZ_INJECT's key, never added */
	uint64_t *batch;
	unsigned char *keys;
	__u32 *lens;
	__u64 *res;
};

#define OWNER_BATCH 2048

/* One batch command over model keys @ids[0..n). Returns -errno or 0. */
static int owner_batch(struct owner *o, enum op op, unsigned long cmd,
		       const uint64_t *ids, __u32 n, __u32 *done)
{
	struct memfilter_keys k = {
		.size = sizeof(k), .count = n,
		.keys = (__u64)(uintptr_t)o->keys,
		.results = (__u64)(uintptr_t)o->res,
	};
	bool fixed = true;
	size_t off = 0;
	int ret;

	for (__u32 i = 0; i < n; i++)
		fixed &= key_len(ids[i]) == 8;
	if (!fixed || chance(&o->c.r, 20)) {
		k.lens = (__u64)(uintptr_t)o->lens;
	} else {
		k.key_size = 8;
	}
	for (__u32 i = 0; i < n; i++) {
		key_bytes(ids[i], o->keys + off);
		o->lens[i] = key_len(ids[i]);
		off += o->lens[i];
	}
	memset(o->res, 0, (n + 63) / 64 * 8);
	ret = call(&o->c, op, o->fd, cmd, &k);
	*done = k.out_done;
	if (ret && !(ret == -ENOSPC && op != OP_QUERY && op != OP_COUNT) &&
	    ret != -ENOMEM)
		find(R_VALID_FAILED, "owner %s of %u keys: %s", op_name[op], n,
		     strerror(-ret));
	if (!ret && k.out_done != n)
		find(R_OUTPUT, "owner %s: out_done %u of %u", op_name[op],
		     k.out_done, n);
	return ret;
}

static bool res_bit(const __u64 *res, __u32 i)
{
	return res[i / 64] >> (i % 64) & 1;
}

/*
 * Is window key @id inside its guarantee at time @t (ms)? Explicit: added
 * at most G - 1 rotations ago. By count: a rotation needs a full current
 * generation, so after the add of a key began at most 1 + S / capacity
 * rotations happened, S the keys added since (its own batch included):
 * inside while S < (G - 1) * capacity. By period: until t_add + (G - 1) * P
 * (2 ms for the clocks' rounding).
 */
static bool window_in(const struct owner *o, uint64_t id, uint64_t t)
{
	__u64 span;

	switch (o->wmode) {
	case W_EXPLICIT:
		return o->epoch - o->stamp[id] <= o->gens - 1;
	case W_COUNT:
		return o->submitted - o->stamp[id] < (o->gens - 1) * o->wcap;
	default:
		if (o->period > UINT64_MAX / o->gens)
			return true;
		span = (o->gens - 1) * o->period;
		return o->stamp[id] + span > t + 2;
	}
}

static void owner_window_create(struct owner *o, __u64 cap, __u32 flags)
{
	struct rng *r = &o->c.r;
	struct memfilter_create cr = {
		.size = sizeof(cr), .type = MEMFILTER_TYPE_WINDOW,
		.flags = flags, .bits_per_key_q4 = 40,
	};
	int ret;

	o->wmode = below(r, W_NR);
	o->gens = 2 + below(r, o->wmode == W_COUNT ? 15 : 7);
	o->wcap = o->wmode == W_COUNT ? 777 + 1000 * below(r, 3) : cap;
	o->period = 0;
	if (o->wmode == W_PERIOD)
		o->period = chance(r, 80) ?
			(__u64[]){ 20, 50, 100, 300, 1000 }[below(r, 5)] :
			fz_period(r);
	cr.capacity = o->wcap;
	cr.generations = o->gens;
	cr.period_ms = o->period;
	cr.window_flags = o->wmode == W_COUNT ?
		MEMFILTER_WINDOW_ROTATE_BY_COUNT : 0;
	ret = xioctl(o->c.dev, MEMFILTER_IOC_CREATE, &cr);
	o->fd = ret ? ret : cr.out_fd;
	o->epoch = o->submitted = 0;
	o->ever_published = false;
	atomic_fetch_add(&sh->win_filters[o->wmode], 1);
}

static const char *owner_type_name(const struct owner *o)
{
	if (o->window)
		return wmode_name[o->wmode];
	return o->type == MEMFILTER_TYPE_BLOOM ? "Bloom" :
	       o->type == MEMFILTER_TYPE_GROW ? "growing" : "cuckoo";
}

/*
 * A growing owner filter: at most 4 sub-filters, s up to 3, r 20..99%,
 * so that every sub-filter's rate is reachable (10^7 * 80% * 20%^3 =
 * 64000 ppb) and all of them together stay small: ENOSPC then means
 * grow_max, which the owner checks exactly.
 */
static int owner_grow_create(struct owner *o, __u64 cap, __u32 flags)
{
	struct rng *r = &o->c.r;
	struct memfilter_create cr = {
		.size = sizeof(cr), .type = MEMFILTER_TYPE_GROW,
		.capacity = cap, .fpr_ppb = 10000000, .flags = flags,
		.grow_max = 1 + below(r, 4),
		.grow_factor = chance(r, 20) ? 0 : 1 + below(r, 3),
		.grow_ratio_pct = chance(r, 20) ? 0 : 20 + below(r, 80),
	};
	int ret = xioctl(o->c.dev, MEMFILTER_IOC_CREATE, &cr);

	o->grow_max = cr.grow_max;
	return ret ? ret : cr.out_fd;
}

/*
 * A growing owner's add stopped with ENOSPC: every sub-filter up to
 * grow_max is in use and full (nothing else can stop it, see
 * owner_grow_create()).
 */
static void owner_grow_full(struct owner *o, const char *what, __u32 done,
			    __u32 n)
{
	struct memfilter_info i;

	if (info(o->fd, &i)) {
		find(R_VALID_FAILED, "owner INFO after ENOSPC");
		return;
	}
	atomic_fetch_add(&sh->grow_full, 1);
	if (i.subfilters != o->grow_max || i.keys != i.capacity ||
	    done >= n)
		find(R_OUTPUT, "%s -> ENOSPC (done %u/%u): %u/%u subs, %llu/%llu keys",
		     what, done, n, i.subfilters, o->grow_max,
		     (unsigned long long)i.keys,
		     (unsigned long long)i.capacity);
}

static void owner_new_filter(struct owner *o)
{
	struct rng *r = &o->c.r;
	__u64 cap = 1000 * (1 + below(r, 32)) + TRACKED_MARK;
	__u32 flags = chance(r, 30) ? MEMFILTER_CREATE_KEYED :
		      chance(r, 30) ? MEMFILTER_CREATE_XXH3 : 0;

	if (o->fd >= 0) {
		struct memfilter_name nm = { .size = sizeof(nm) };

		if (o->published)
			call(&o->c, OP_UNPUBLISH, o->fd, MEMFILTER_IOC_UNPUBLISH,
			     &nm);
		close(o->fd);
	}
	o->type = (__u32[]){ MEMFILTER_TYPE_BLOOM, MEMFILTER_TYPE_CUCKOO,
			     MEMFILTER_TYPE_GROW }[below(r, 3)];
	if (o->window)
		o->type = MEMFILTER_TYPE_WINDOW;
	if (o->window)
		owner_window_create(o, cap, flags);
	else if (o->type == MEMFILTER_TYPE_GROW)
		o->fd = owner_grow_create(o, cap, flags);
	else if (o->type == MEMFILTER_TYPE_BLOOM)
		o->fd = create(o->c.dev, o->type, cap, 0, 40, 0, flags, NULL);
	else
		o->fd = create(o->c.dev, o->type, cap, 0, 0,
			       (__u32[]){ 8, 12, 16 }[below(r, 3)], flags, NULL);
	account(OP_CREATE, o->fd < 0 ? o->fd : 0);
	if (o->fd < 0)
		find(R_VALID_FAILED, "owner CREATE: %s", strerror(-o->fd));
	atomic_fetch_add(&sh->grow_filters, o->type == MEMFILTER_TYPE_GROW);
	memset(o->count, 0, MODEL_MAX * sizeof(*o->count));
	o->ids = o->live = 0;
	o->injected = UINT64_MAX;
	o->published = false;
}

/*
 * Cuckoo: COUNT the batch just queried; each key counts at least the
 * copies the model holds (chaos threads may only add more).
 */
static void owner_count_check(struct owner *o, __u32 n, const char *what)
{
	const __u8 *counts = (const __u8 *)o->res;
	__u32 done;

	if (o->type != MEMFILTER_TYPE_CUCKOO ||
	    owner_batch(o, OP_COUNT, MEMFILTER_IOC_COUNT, o->batch, n, &done))
		return;
	for (__u32 i = 0; i < done; i++) {
		if (counts[i] >= o->count[o->batch[i]])
			continue;
		find(R_OUTPUT, "%s: COUNT of key #%llu is %u, %u copies added",
		     what, (unsigned long long)o->batch[i], counts[i],
		     o->count[o->batch[i]]);
	}
}

/* Query (and COUNT) every live key: each must be reported present. */
static void owner_check(struct owner *o, int fd, const char *what)
{
	uint64_t id = 0, t;
	__u32 n, done;

	while (id < o->ids) {
		t = now_ms();
		for (n = 0; n < OWNER_BATCH && id < o->ids; id++)
			if (o->count[id] && (!o->window || window_in(o, id, t)))
				o->batch[n++] = id;
		if (!n)
			break;
		int save = o->fd;

		o->fd = fd;
		owner_batch(o, OP_QUERY, MEMFILTER_IOC_QUERY, o->batch, n, &done);
		o->fd = save;
		t = now_ms();	/* the query's end: inside the guarantee? */
		for (__u32 i = 0; i < done; i++) {
			if (o->window && !window_in(o, o->batch[i], t))
				continue;
			atomic_fetch_add(&sh->checked_keys, 1);
			if (o->window)
				atomic_fetch_add(&sh->win_checked[o->wmode], 1);
			if (res_bit(o->res, i))
				continue;
			atomic_fetch_add(&sh->false_negatives, 1);
			if (!atomic_exchange(&sh->fn_claimed, 1))
				snprintf(sh->fn_example, sizeof(sh->fn_example),
					 "%s: %s key #%llu (%zu bytes, %u copies) absent, %llu live keys",
					 what, o->window ? wmode_name[o->wmode] :
					 owner_type_name(o),
					 (unsigned long long)o->batch[i],
					 key_len(o->batch[i]),
					 o->count[o->batch[i]],
					 (unsigned long long)o->live);
		}
		o->fd = fd;
		owner_count_check(o, n, what);
		o->fd = save;
	}
}

static void owner_add(struct owner *o, bool unique)
{
	enum op op = unique ? OP_ADD_UNIQUE : OP_ADD;
	unsigned long cmd = unique ? MEMFILTER_IOC_ADD_UNIQUE :
			    MEMFILTER_IOC_ADD;
	__u32 n = 1 + below(&o->c.r, 600), m = 0, done;
	uint64_t stamp = 0, t;

	if (o->type != MEMFILTER_TYPE_CUCKOO && unique)
		return;
	/*
	 * Bloom and window: TEST_AND_ADD half the time; every live key (a
	 * window's: inside its guarantee) was present.
	 */
	if (o->type != MEMFILTER_TYPE_CUCKOO && chance(&o->c.r, 50)) {
		op = OP_TEST_AND_ADD;
		cmd = MEMFILTER_IOC_TEST_AND_ADD;
	}
	if (o->ids < MODEL_MAX && atomic_exchange(&inject, 0)) {
		/* a key never given to the kernel, counted as added */
		o->injected = o->ids;
		o->stamp[o->ids] = o->wmode == W_EXPLICIT ? o->epoch :
				   o->wmode == W_COUNT ? o->submitted : now_ms();
		o->count[o->ids++] = 1;
		o->live++;
	}
	for (__u32 i = 0; i < n; i++) {
		uint64_t id = o->ids && chance(&o->c.r, 15) ?
			below(&o->c.r, o->ids) : o->ids;

		if (id == o->injected)
			id = o->ids;

		if (id == o->ids) {
			if (o->ids == MODEL_MAX)
				continue;
			o->ids++;
		}
		o->batch[m++] = id;
	}
	if (o->window)
		stamp = o->wmode == W_EXPLICIT ? o->epoch :
			o->wmode == W_COUNT ? o->submitted : now_ms();
	if (owner_batch(o, op, cmd, o->batch, m, &done) == -ENOSPC &&
	    o->type == MEMFILTER_TYPE_GROW)
		owner_grow_full(o, op_name[op], done, m);
	o->submitted += m;
	t = now_ms();
	for (__u32 i = 0; i < done && i < m; i++) {
		if (op == OP_TEST_AND_ADD && o->window && o->count[o->batch[i]] &&
		    !window_in(o, o->batch[i], t)) {
			/* past its guarantee: may be gone; now added anew */
		} else if (op == OP_TEST_AND_ADD) {
			/* a key added before this call: "was present" */
			if (o->count[o->batch[i]] && !res_bit(o->res, i)) {
				atomic_fetch_add(&sh->false_negatives, 1);
				if (!atomic_exchange(&sh->fn_claimed, 1))
					snprintf(sh->fn_example,
						 sizeof(sh->fn_example),
						 "TEST_AND_ADD: %s key #%llu (%u copies) was absent",
						 owner_type_name(o),
						 (unsigned long long)o->batch[i],
						 o->count[o->batch[i]]);
			}
			atomic_fetch_add(&sh->checked_keys, 1);
			if (o->window)
				atomic_fetch_add(&sh->win_checked[o->wmode], 1);
		} else if (!res_bit(o->res, i)) {
			continue;
		}
		if (o->window)
			o->stamp[o->batch[i]] = stamp;
		if (!o->count[o->batch[i]]++)
			o->live++;
	}
}

/*
 * A window owner's rotations. Explicit: ROTATE, one epoch more; and
 * sometimes G of them in a row, after which nothing is left: if no other
 * thread could reach the filter, INFO must show no key and no bit, and no
 * key of the model may be reported present (an exact prediction).
 */
static void owner_rotate(struct owner *o)
{
	struct memfilter_rotate ro = { .size = sizeof(ro) };
	struct memfilter_info i;
	bool drain = chance(&o->c.r, 10);
	__u32 n = 0, done;

	if (o->wmode != W_EXPLICIT)
		return;
	for (__u32 j = 0; j < (drain ? o->gens : 1); j++) {
		if (call(&o->c, OP_ROTATE, o->fd, MEMFILTER_IOC_ROTATE, &ro)) {
			find(R_VALID_FAILED, "owner ROTATE failed");
			return;
		}
		o->epoch++;
		atomic_fetch_add(&sh->win_rotations, 1);
	}
	if (!drain || o->ever_published)
		return;
	atomic_fetch_add(&sh->win_drains, 1);
	if (info(o->fd, &i) || i.keys || i.fill)
		find(R_OUTPUT, "window after %u rotations: INFO keys %llu fill %llu, want 0",
		     o->gens, (unsigned long long)i.keys,
		     (unsigned long long)i.fill);
	for (uint64_t id = 0; id < o->ids && n < OWNER_BATCH; id++)
		if (o->count[id])
			o->batch[n++] = id;
	if (!n ||
	    owner_batch(o, OP_QUERY, MEMFILTER_IOC_QUERY, o->batch, n, &done))
		return;
	for (__u32 j = 0; j < done; j++)
		if (res_bit(o->res, j))
			find(R_OUTPUT, "window after %u rotations: key #%llu still present",
			     o->gens, (unsigned long long)o->batch[j]);
}

static void owner_delete(struct owner *o)
{
	__u32 n = 0, want = 1 + below(&o->c.r, 300), done;

	if (o->type != MEMFILTER_TYPE_CUCKOO || !o->live)
		return;
	for (uint64_t id = below(&o->c.r, o->ids); n < want; id++) {
		if (id == o->ids)
			id = 0;
		if (!o->count[id])
			continue;
		/* each copy once at most per batch */
		bool dup = false;

		for (__u32 j = 0; j < n; j++)
			dup |= o->batch[j] == id;
		if (dup)
			break;
		o->batch[n++] = id;
		if (n == o->live)
			break;
	}
	if (owner_batch(o, OP_DELETE, MEMFILTER_IOC_DELETE, o->batch, n, &done))
		return;
	for (__u32 i = 0; i < done; i++) {
		if (!res_bit(o->res, i)) {
			atomic_fetch_add(&sh->delete_misses, 1);
			atomic_fetch_add(&sh->false_negatives, 1);
			if (!atomic_exchange(&sh->fn_claimed, 1))
				snprintf(sh->fn_example, sizeof(sh->fn_example),
					 "DELETE did not find live key #%llu (%u copies)",
					 (unsigned long long)o->batch[i],
					 o->count[o->batch[i]]);
			continue;
		}
		if (!--o->count[o->batch[i]])
			o->live--;
	}
}

static void owner_dump_check(struct owner *o)
{
	size_t len;
	unsigned char *img;
	int err, fd;

	slot_enter(&o->c, OP_READ);
	img = dump(o->fd, 1000 + below(&o->c.r, 1 << 16), &len, &err);
	slot_leave(&o->c);
	account(OP_READ, err);
	if (err) {
		if (err != -ENOMEM)
			find(R_VALID_FAILED, "owner dump: %s", strerror(-err));
		free(img);
		return;
	}
	fd = load(o->c.dev, img, len);
	account(OP_LOAD, fd < 0 ? fd : 0);
	free(img);
	if (fd < 0) {
		if (fd != -ENOMEM)
			find(R_VALID_FAILED, "owner LOAD of its dump: %s",
			     strerror(-fd));
		return;
	}
	owner_check(o, fd, "loaded dump");
	atomic_fetch_add(&sh->dump_checks, 1);
	close(fd);
}

static void owner_name(struct owner *o)
{
	struct memfilter_name nm = { .size = sizeof(nm) };
	int ret;

	if (!o->published)
		snprintf(nm.name, sizeof(nm.name), "fz.t%d", o->c.id);
	if (o->window && o->wmode == W_COUNT)
		return;		/* others' adds would rotate it */
	o->ever_published |= !o->published;
	ret = call(&o->c, o->published ? OP_UNPUBLISH : OP_PUBLISH, o->fd,
		   o->published ? MEMFILTER_IOC_UNPUBLISH : MEMFILTER_IOC_PUBLISH,
		   &nm);
	if (!ret)
		o->published = !o->published;
	else if (ret == -ENOENT || ret == -EBUSY)
		o->published = ret == -EBUSY;	/* a chaos thread did it */
	else if (ret != -EEXIST)
		find(R_VALID_FAILED, "owner %s: %s",
		     o->published ? "UNPUBLISH" : "PUBLISH", strerror(-ret));
}

static void *owner_thread(void *arg)
{
	struct owner *o = arg;
	struct memfilter_clear cl = { .size = sizeof(cl) };

	o->fd = -1;
	owner_new_filter(o);
	while (!atomic_load(&sh->stop) && o->fd >= 0) {
		uint64_t pick = below(&o->c.r, 1000);

		if (pick < 400) {
			owner_add(o, false);
		} else if (pick < 500) {
			owner_add(o, true);
		} else if (pick < 700) {
			if (o->window)
				owner_rotate(o);
			else
				owner_delete(o);
		} else if (pick < 900) {
			owner_check(o, o->fd, "filter");
		} else if (pick < 930) {
			owner_dump_check(o);
		} else if (pick < 960) {
			owner_name(o);
		} else if (pick < 980) {
			if (!call(&o->c, OP_CLEAR, o->fd, MEMFILTER_IOC_CLEAR, &cl)) {
				memset(o->count, 0, MODEL_MAX * sizeof(*o->count));
				o->live = 0;
			}
		} else if (pick < 990 || o->ids == MODEL_MAX) {
			owner_check(o, o->fd, "filter");
			owner_new_filter(o);
		}
	}
	if (o->fd >= 0) {
		owner_check(o, o->fd, "filter");
		close(o->fd);
	}
	return NULL;
}

/* --- watchdog, report, main ----------------------------------------------- */

static void *watchdog_thread(void *arg)
{
	while (!atomic_load(&sh->stop)) {
		uint64_t now = now_ms();

		for (int i = 0; i < MAX_SLOTS; i++) {
			uint64_t t = atomic_load(&sh->slots[i].start_ms);

			if (!t || t > now || now - t < watchdog_s * 1000ULL)
				continue;
			printf("# watchdog: %s %d stuck in %s for %llu s (seed %#llx)\n",
			       atomic_load(&sh->slots[i].who) >= 1000 ?
			       "child" : "thread",
			       atomic_load(&sh->slots[i].who),
			       op_name[atomic_load(&sh->slots[i].op)],
			       (unsigned long long)(now - t) / 1000,
			       (unsigned long long)seed);
			printf("not ok 1 an ioctl never returned (watchdog %u s)\n",
			       watchdog_s);
			printf("Bail out! watchdog\n");
			fflush(stdout);
			abort();
		}
		usleep(200000);
	}
	return NULL;
}

/* Detach every attachment left in the initial namespace. */
static void nf_cleanup(int dev)
{
	struct memfilter_nf_entry e[MEMFILTER_NF_MAX];
	struct memfilter_nf_list l = {
		.size = sizeof(l), .count = MEMFILTER_NF_MAX,
		.entry_size = sizeof(e[0]), .entries = (__u64)(uintptr_t)e,
	};
	int done = 0;

	if (xioctl(dev, MEMFILTER_IOC_NF_LIST, &l)) {
		printf("# cleanup: cannot list attachments\n");
		return;
	}
	for (__u32 i = 0; i < l.count && i < MEMFILTER_NF_MAX; i++) {
		struct memfilter_nf_detach d = { .size = sizeof(d), .id = e[i].id };

		done += !xioctl(dev, MEMFILTER_IOC_NF_DETACH, &d);
	}
	printf("# cleanup: detached %d of %u attachments\n", done, l.count);
}

/*
 * Regressions (found by this fuzzer): a window filter whose period_ms is
 * above 2^63 rotated on every tick of its timer, so a key vanished at once
 * although no period had passed (the period is not limited by the
 * documentation: such a filter must keep its keys); a window CREATE with
 * fpr_ppb >= 10^9 succeeded. Returns NULL or why not.
 */
static const char *check_window_regressions(void)
{
	static char why[160];
	static const __u64 periods[] = {
		UINT64_MAX, (1ULL << 63) + 1, (1ULL << 32) + 1,
	};
	static const struct { __u64 fpr; int ret; } fprs_w[] = {
		{ 1000000000, -EINVAL }, { 1000000001, -EINVAL },
		{ UINT64_MAX, -EINVAL }, { 999999999, 0 }, { 1000000, 0 },
	};
	int dev = dev_open();

	for (size_t j = 0; j < sizeof(fprs_w) / sizeof(fprs_w[0]); j++) {
		struct memfilter_create cr = {
			.size = sizeof(cr), .type = MEMFILTER_TYPE_WINDOW,
			.capacity = 100, .fpr_ppb = fprs_w[j].fpr,
			.generations = 4,
		};
		int ret = xioctl(dev, MEMFILTER_IOC_CREATE, &cr);

		if (!ret)
			close(cr.out_fd);
		if (ret != fprs_w[j].ret) {
			snprintf(why, sizeof(why),
				 "window CREATE with fpr_ppb %llu, G = 4: %s, want %s",
				 (unsigned long long)fprs_w[j].fpr,
				 ret ? strerror(-ret) : "success",
				 fprs_w[j].ret ? strerror(-fprs_w[j].ret) : "success");
			close(dev);
			return why;
		}
	}

	for (size_t j = 0; j < sizeof(periods) / sizeof(periods[0]); j++) {
		struct memfilter_create cr = {
			.size = sizeof(cr), .type = MEMFILTER_TYPE_WINDOW,
			.capacity = 100, .bits_per_key_q4 = 40,
			.generations = 2, .period_ms = periods[j],
		};
		__u64 key = 42, res = 0;
		struct memfilter_info i;
		int ret;

		if (xioctl(dev, MEMFILTER_IOC_CREATE, &cr)) {
			snprintf(why, sizeof(why), "CREATE with period %#llx: %s",
				 (unsigned long long)periods[j], strerror(errno));
			close(dev);
			return why;
		}
		ret = keys_op(cr.out_fd, MEMFILTER_IOC_ADD, &key, 1, &res, NULL,
			      NULL);
		usleep(200000);		/* many timer ticks if it rotates */
		res = 0;
		if (!ret)
			ret = keys_op(cr.out_fd, MEMFILTER_IOC_QUERY, &key, 1,
				      &res, NULL, NULL);
		if (!ret)
			ret = info(cr.out_fd, &i);
		close(cr.out_fd);
		if (ret || !(res & 1) || i.current_gen) {
			snprintf(why, sizeof(why),
				 "period %#llx: key %s after 200 ms, current generation %u (%s)",
				 (unsigned long long)periods[j],
				 res & 1 ? "present" : "gone",
				 ret ? 0 : i.current_gen, ret ? strerror(-ret) : "ok");
			close(dev);
			return why;
		}
	}
	close(dev);
	return NULL;
}

/* Unpublish every name left behind, so that later tests start clean. */
static void cleanup(void)
{
	enum { MAX = 4096 };
	char (*names)[MEMFILTER_NAME_MAX] = calloc(MAX, MEMFILTER_NAME_MAX);
	struct memfilter_list l = {
		.size = sizeof(l), .count = MAX,
		.names = (__u64)(uintptr_t)names,
	};
	int dev = dev_open(), done = 0;

	if (!names || dev < 0 || xioctl(dev, MEMFILTER_IOC_LIST, &l)) {
		printf("# cleanup: cannot list names\n");
		goto out;
	}
	for (__u32 i = 0; i < l.count && i < MAX; i++) {
		struct memfilter_open o = {
			.size = sizeof(o), .flags = MEMFILTER_OPEN_WRITE,
		};
		struct memfilter_name nm = { .size = sizeof(nm) };

		memcpy(o.name, names[i], sizeof(o.name));
		if (xioctl(dev, MEMFILTER_IOC_OPEN, &o))
			continue;
		done += !xioctl(o.out_fd, MEMFILTER_IOC_UNPUBLISH, &nm);
		close(o.out_fd);
	}
	printf("# cleanup: unpublished %d of %u names\n", done, l.count);
	if (have_nf)
		nf_cleanup(dev);
out:
	free(names);
	close(dev);
}

static void report(void)
{
	uint64_t total = 0, errs[NERR] = { 0 };
	int n = 0, failed = 0, unknown = 0;

	printf("# calls per command (ok, then errno: count):\n");
	for (int op = 0; op < OP_NR; op++) {
		char line[512];
		uint64_t sum = 0;
		int len;

		for (int e = 0; e < NERR; e++)
			sum += atomic_load(&sh->calls[op][e]);
		total += sum;
		len = snprintf(line, sizeof(line), "# %-10s %9llu  ok %llu",
			       op_name[op], (unsigned long long)sum,
			       (unsigned long long)atomic_load(&sh->calls[op][0]));
		for (int e = 1; e < NERR; e++) {
			uint64_t v = atomic_load(&sh->calls[op][e]);

			errs[e] += v;
			if (v && len < (int)sizeof(line) - 40)
				len += snprintf(line + len, sizeof(line) - len,
						"  %s %llu", strerrorname_np(e) ?: "?",
						(unsigned long long)v);
		}
		printf("%s\n", line);
	}
	printf("# errno histogram over %llu calls:", (unsigned long long)total);
	for (int e = 1; e < NERR; e++)
		if (errs[e])
			printf(" %s %llu", strerrorname_np(e) ?: "?",
			       (unsigned long long)errs[e]);
	printf("\n# shadow model: %llu keys checked, %llu dump/load checks, %llu forked children\n",
	       (unsigned long long)atomic_load(&sh->checked_keys),
	       (unsigned long long)atomic_load(&sh->dump_checks),
	       (unsigned long long)atomic_load(&sh->children));
	for (int r = 0; r < R_NR; r++) {
		uint64_t hits = atomic_load(&sh->found[r].hits);

		if (!hits)
			continue;
		printf("# %s %s: %llu times, e.g. %s\n",
		       rules[r].known ? "known" : "NEW", rules[r].id,
		       (unsigned long long)hits, sh->found[r].example);
		if (rules[r].known)
			printf("#   (%s)\n", rules[r].known);
		if (!rules[r].known || strict)
			unknown++;
	}

	printf("# window owner: filters/keys checked explicit %llu/%llu, by count %llu/%llu, by period %llu/%llu; %llu ROTATEs, %llu exact drains\n",
	       (unsigned long long)atomic_load(&sh->win_filters[W_EXPLICIT]),
	       (unsigned long long)atomic_load(&sh->win_checked[W_EXPLICIT]),
	       (unsigned long long)atomic_load(&sh->win_filters[W_COUNT]),
	       (unsigned long long)atomic_load(&sh->win_checked[W_COUNT]),
	       (unsigned long long)atomic_load(&sh->win_filters[W_PERIOD]),
	       (unsigned long long)atomic_load(&sh->win_checked[W_PERIOD]),
	       (unsigned long long)atomic_load(&sh->win_rotations),
	       (unsigned long long)atomic_load(&sh->win_drains));
	printf("# growing: chaos created %llu, %llu INFOs checked; owners %llu filters, %llu ENOSPC checked at grow_max\n",
	       (unsigned long long)atomic_load(&sh->grow_created),
	       (unsigned long long)atomic_load(&sh->grow_info),
	       (unsigned long long)atomic_load(&sh->grow_filters),
	       (unsigned long long)atomic_load(&sh->grow_full));
	printf("# netfilter: %llu attached, %llu detached by chaos threads; %llu lists checked; %llu detach/close races\n",
	       (unsigned long long)atomic_load(&sh->nf_attached),
	       (unsigned long long)atomic_load(&sh->nf_detached),
	       (unsigned long long)atomic_load(&sh->nf_lists),
	       (unsigned long long)atomic_load(&sh->nf_races));
	printf("1..5\n");
	if (atomic_load(&sh->false_negatives)) {
		printf("# %s\n", sh->fn_example);
		printf("not ok %d no false negatives: %llu of %llu keys absent (%llu DELETE misses)\n",
		       ++n, (unsigned long long)atomic_load(&sh->false_negatives),
		       (unsigned long long)atomic_load(&sh->checked_keys),
		       (unsigned long long)atomic_load(&sh->delete_misses));
		failed = 1;
	} else {
		printf("ok %d no false negatives in %llu shadow-checked keys\n",
		       ++n, (unsigned long long)atomic_load(&sh->checked_keys));
	}
	printf("ok %d no call exceeded the watchdog (%u s)\n", ++n, watchdog_s);
	if (atomic_load(&sh->found[R_ERRNO].hits)) {
		printf("not ok %d errnos within the uapi table: %s\n", ++n,
		       sh->found[R_ERRNO].example);
		failed = 1;
		unknown--;
	} else {
		printf("ok %d errnos within the uapi table (%llu calls)\n", ++n,
		       (unsigned long long)total);
	}
	if (window_regr) {
		printf("not ok %d window regressions (huge periods, fpr_ppb range): %s\n",
		       ++n, window_regr);
		failed = 1;
	} else {
		printf("ok %d window regressions (huge periods, fpr_ppb range)\n",
		       ++n);
	}
	if (unknown > 0 || atomic_load(&sh->child_failures)) {
		printf("not ok %d documented contract: %d new contradictions, %llu failed children\n",
		       ++n, unknown,
		       (unsigned long long)atomic_load(&sh->child_failures));
		failed = 1;
	} else {
		printf("ok %d documented contract holds\n", ++n);
	}
	fflush(stdout);
	exit(failed);
}

static unsigned long env_num(const char *name, const char *arg,
			     unsigned long def)
{
	const char *s = arg ? arg : getenv(name);

	return s && *s ? strtoull(s, NULL, 0) : def;
}

int main(int argc, char **argv)
{
	pthread_t chaos[MAX_CHAOS], owners[MAX_OWNERS], wd, um, nft;
	static struct ctx cctx[MAX_CHAOS];
	static struct owner own[MAX_OWNERS];
	static struct nf_owner nfo;
	struct memfilter_api api = {
		.size = sizeof(api), .api_version = MEMFILTER_API_VERSION,
	};
	uint64_t t0;
	int dev;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	seed = env_num("MF_FUZZ_SEED", argc > 1 ? argv[1] : NULL, 0);
	if (!seed)
		seed = mix64(now_ms() ^ ((uint64_t)getpid() << 32));
	seconds = env_num("MF_FUZZ_SECONDS", argc > 2 ? argv[2] : NULL, 60);
	nchaos = env_num("MF_FUZZ_THREADS", NULL, 4);
	watchdog_s = env_num("MF_FUZZ_WATCHDOG", NULL, 60);
	strict = env_num("MF_FUZZ_STRICT", NULL, 0);
	inject = env_num("MF_FUZZ_INJECT", NULL, 0);
	faults = env_num("MF_FUZZ_FAULTS", NULL, 0);
	if (nchaos > MAX_CHAOS)
		nchaos = MAX_CHAOS;
	printf("# seed %#llx, %u s, %u chaos threads + %d owners, watchdog %u s%s%s%s\n",
	       (unsigned long long)seed, seconds, nchaos, MAX_OWNERS, watchdog_s,
	       strict ? ", strict" : "", inject ? ", injecting a false negative" : "",
	       faults ? ", chaos threads under fault injection" : "");
	printf("# reproduce: MF_FUZZ_SEED=%#llx MF_FUZZ_SECONDS=%u %s\n",
	       (unsigned long long)seed, seconds, argv[0]);

	dev = dev_open();
	if (dev < 0) {
		printf("1..0 # SKIP %s: %s\n", MF_DEV, strerror(errno));
		return 4;
	}
	have_nf = !xioctl(dev, MEMFILTER_IOC_API, &api) &&
		  (api.features & MEMFILTER_FEAT_NETFILTER);
	have_ipv6 = !access("/proc/net/if_inet6", F_OK);
	close(dev);
	printf("# netfilter commands %s, IPv6 %s\n",
	       have_nf ? "fuzzed" : "absent (MEMFILTER_FEAT_NETFILTER): not fuzzed",
	       have_ipv6 ? "yes" : "no");
	page = sysconf(_SC_PAGESIZE);
	/* Keep malloc off mmap(): the unmapper's holes must stay ours. */
	mallopt(M_MMAP_THRESHOLD, 256 << 20);
	mallopt(M_ARENA_MAX, 1);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	/* The hostile pages, between two guard pages: nothing spills over. */
	hostile = mmap(NULL, (HOSTILE_PAGES + 2) * page, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || hostile == MAP_FAILED ||
	    mprotect(hostile + page, HOSTILE_PAGES * page,
		     PROT_READ | PROT_WRITE)) {
		printf("Bail out! mmap: %s\n", strerror(errno));
		return 1;
	}
	hostile += page;
	signal(SIGPIPE, SIG_IGN);

	for (int i = 0; i < MAX_OWNERS; i++) {
		ctx_init(&own[i].c, i);
		own[i].count = calloc(MODEL_MAX, sizeof(*own[i].count));
		own[i].stamp = calloc(MODEL_MAX, sizeof(*own[i].stamp));
		own[i].window = i == MAX_OWNERS - 1;
		own[i].batch = malloc(OWNER_BATCH * sizeof(*own[i].batch));
		own[i].keys = malloc(OWNER_BATCH * 64);
		own[i].lens = malloc(OWNER_BATCH * sizeof(*own[i].lens));
		own[i].res = malloc(OWNER_BATCH);	/* or COUNT's bytes */
	}
	for (unsigned int i = 0; i < nchaos; i++)
		ctx_init(&cctx[i], MAX_OWNERS + i);
	ctx_init(&nfo.c, MAX_OWNERS + MAX_CHAOS);
	window_regr = check_window_regressions();
	pthread_create(&wd, NULL, watchdog_thread, NULL);
	pthread_create(&um, NULL, unmapper_thread, NULL);
	for (int i = 0; i < MAX_OWNERS; i++)
		pthread_create(&owners[i], NULL, owner_thread, &own[i]);
	for (unsigned int i = 0; i < nchaos; i++)
		pthread_create(&chaos[i], NULL, chaos_thread, &cctx[i]);
	if (have_nf)
		pthread_create(&nft, NULL, nf_owner_thread, &nfo);

	t0 = now_ms();
	while (now_ms() - t0 < seconds * 1000ULL) {
		sleep(1);
		if ((now_ms() - t0) / 1000 % 30 == 0)
			printf("# %llu s: %llu keys checked\n",
			       (unsigned long long)(now_ms() - t0) / 1000,
			       (unsigned long long)atomic_load(&sh->checked_keys));
	}
	atomic_store(&sh->stop, 1);
	for (unsigned int i = 0; i < nchaos; i++)
		pthread_join(chaos[i], NULL);
	for (int i = 0; i < MAX_OWNERS; i++)
		pthread_join(owners[i], NULL);
	if (have_nf)
		pthread_join(nft, NULL);
	pthread_join(um, NULL);
	pthread_join(wd, NULL);
	for (unsigned int i = 0; i < nchaos; i++)
		ctx_fini(&cctx[i]);
	for (int i = 0; i < MAX_OWNERS; i++)
		ctx_fini(&own[i].c);
	ctx_fini(&nfo.c);
	cleanup();
	report();
	return 0;
}
