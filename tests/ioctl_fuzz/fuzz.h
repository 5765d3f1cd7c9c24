/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ioctl fuzzer's shared declarations (tests/ioctl_fuzz_test.c: the
 * checks, the chaos threads, the watchdog, the report and main;
 * commands.c: the device and filter fd commands; netfilter.c: the
 * netfilter commands and owner; owners.c: the owners and their shadow
 * models).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MF_IOCTL_FUZZ_H
#define _MF_IOCTL_FUZZ_H

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

#include "../memfilter_utils.h"

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
	OP_ROTATE, OP_NF_ATTACH, OP_NF_DETACH, OP_NF_LIST, OP_REPLACE,
	OP_EXCHANGE, OP_NR
};

extern const char *const op_name[OP_NR];

/* A set of errnos (all below 128). */
typedef unsigned __int128 emask;
#define B(e) ((emask)1 << (e))
#define E_STRUCT (B(EFAULT) | B(EINVAL) | B(E2BIG) | B(EOPNOTSUPP))
#define E_BATCH (E_STRUCT | B(ENOMEM) | B(EINTR))

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

/* How a window owner's filter rotates (Documentation/filters.rst). */
enum wmode { W_EXPLICIT, W_COUNT, W_PERIOD, W_NR };

extern const char *const wmode_name[W_NR];

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
	_Atomic uint64_t nf_replace_races;	/* of which with a replace */
	_Atomic uint64_t nf_race_reclaimed;	/* racing name taken back */
	/* chaos REPLACE/EXCHANGE tries of it: begun, ended */
	_Atomic uint64_t nf_race_renamed, nf_race_renamed_done;
	_Atomic uint64_t nf_race_gone;	/* attach/replace found it gone so */
	_Atomic uint64_t win_checked[W_NR], win_filters[W_NR], win_rotations;
	_Atomic uint64_t win_drains;
	_Atomic uint64_t grow_filters, grow_full; /* growing owners' */
	_Atomic uint64_t grow_created, grow_info;  /* chaos threads' */
};

extern struct shared *sh;
extern uint64_t seed;
extern long page;
extern unsigned char *hostile;
extern bool unprivileged;
extern atomic_int inject;
extern bool faults;
extern bool have_ipv6;

static inline uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline uint64_t mix64(uint64_t x)
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

static inline uint64_t rnd(struct rng *r)
{
	r->s += 0x9e3779b97f4a7c15ULL;
	return mix64(r->s);
}

/* Uniform in [0, n); n > 0. */
static inline uint64_t below(struct rng *r, uint64_t n)
{
	return rnd(r) % n;
}

/* True with probability pct percent. */
static inline bool chance(struct rng *r, unsigned int pct)
{
	return below(r, 100) < pct;
}

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

/* The size of a structure's first version, which ended with @last. */
#define FIRST_SIZE(s, last) \
	(offsetof(struct s, last) + sizeof(((struct s *)0)->last))

extern const char name_chars[];

enum name_kind { N_NONE, N_VALID, N_BAD_ASCII, N_LATIN1, N_LONG, N_JUNK };

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

/* The netfilter owner (netfilter.c). */
struct nf_owner {
	struct ctx c;
	struct memfilter_nf_attach att[MEMFILTER_NF_MAX];
	int n;
	uint32_t gone;			/* a detached id */
	int fds[3];			/* Bloom, cuckoo, window */
};

/* tests/ioctl_fuzz_test.c */
void find(enum rule rule, const char *fmt, ...);
void slot_enter(struct ctx *c, enum op op);
void slot_leave(struct ctx *c);
void account(enum op op, int ret);
int call(struct ctx *c, enum op op, int fd, unsigned long cmd, void *arg);
void violate(struct expect *x, const char *why,
	     emask allowed, enum rule accept_rule);
void judge(enum op op, const struct expect *x, int ret);
int dev_admin_call(struct ctx *c, enum op op, bool ro, unsigned long cmd,
		   void *arg, struct expect *x);
void *arg_struct(struct ctx *c, size_t ksize, size_t kmin,
		 struct expect *x, __u32 *size_out);
void bad_fields(struct ctx *c, struct expect *x, __u32 *flags,
		__u32 *reserved, __s32 *out_fd, enum rule reserved_rule);
void *user_ptr(struct ctx *c, void *good, size_t len, int *bad);
enum name_kind gen_name(struct ctx *c, char *name, bool allow_none);
void expect_name(struct expect *x, enum name_kind k, bool required);
int pool_pick(struct ctx *c);
void pool_put(struct ctx *c, int fd, bool writable);

/* commands.c */
void fz_api(struct ctx *c);
__u64 fz_period(struct rng *r);
void fz_create(struct ctx *c);
void fz_open(struct ctx *c);
bool name_ok(const char *n);
int unpublish_name(int dev, const char *name);
void fz_list(struct ctx *c);
void fz_load(struct ctx *c);
void fz_keys(struct ctx *c, int p);
void fz_info(struct ctx *c, int p);
void fz_clear(struct ctx *c, int p);
void fz_rotate(struct ctx *c, int p);
void fz_name(struct ctx *c, int p, bool publish);
void fz_replace(struct ctx *c, int p);
void fz_exchange(struct ctx *c);
void fz_badcmd(struct ctx *c, int p);
void fz_read(struct ctx *c, int p);

/* netfilter.c */
void fz_nf_attach(struct ctx *c);
void fz_nf_detach(struct ctx *c);
void fz_nf_list(struct ctx *c);
void *nf_owner_thread(void *arg);

/* owners.c */
void *owner_thread(void *arg);

#endif /* _MF_IOCTL_FUZZ_H */
