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
 * REPLACE/EXCHANGE/close/dup on shared filters and names (the owners'
 * included), and forked children that may drop their privileges. A watchdog aborts with a message if one call takes longer
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
 * predicts every answer exactly (see nf_owner_thread()), and races a
 * detach against unpublish and close of the attached filter, against a
 * replace of its name, and against the exit of a namespace that holds an
 * attachment of it.
 *
 * Every call's outcome is checked against the documentation: its errno
 * must be one the uapi errno table gives for that command, and a request
 * the documentation calls invalid must fail (with its errno). A departure
 * already reported elsewhere may be listed as known in rules[]: printed,
 * not failed. None is listed now: the rules on Latin-1 names, cuckoo
 * fpr_ppb = 10^9, EINVAL after a partial batch, Bloom DELETE/ADD_UNIQUE
 * with no keys, INFO's __reserved and CREATE on a read-only device are
 * checked like any other, and two of the documentation's choices (E2BIG
 * also means over the size limit; an unknown type is EOPNOTSUPP) are
 * expected. Filter fds carry rights: write
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
 *	  MF_FUZZ_FORK_PERMILLE (default 2: the chaos ops that fork a child
 *	  running chaos ops of its own; tests/faults.sh's fault.fork raises it
 *	  so that forks meet the thread limit)
 *
 * The same seed gives every thread the same sequence of decisions; the
 * interleaving of threads is up to the scheduler.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include "ioctl_fuzz/fuzz.h"

const char *const op_name[OP_NR] = {
	"API", "CREATE", "OPEN", "LIST", "LOAD", "ADD", "QUERY", "DELETE",
	"ADD_UNIQUE", "INFO", "CLEAR", "PUBLISH", "UNPUBLISH", "bad cmd",
	"read", "dup", "close", "fork", "COUNT", "TEST_AND_ADD",
	"ROTATE", "NF_ATTACH", "NF_DETACH", "NF_LIST", "REPLACE", "EXCHANGE",
};

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
	/* the replace DOC: EOPNOTSUPP also for a dedup holder of the name */
	[OP_REPLACE] = E_STRUCT | B(EPERM) | B(ENOENT) | B(EBUSY) | B(EBADF) |
		       B(ENOMEM),
	[OP_EXCHANGE] = E_STRUCT | B(EPERM) | B(ENOENT) | B(EBADF),
	/* read(): the image DOC (EPERM for keyed dumps), offsets, memory */
	[OP_READ] = B(EINVAL) | B(EFAULT) | B(EPERM) | B(ENOMEM) | B(EINTR),
	/*
	 * fork(2): ENOMEM, and EAGAIN at a thread limit (threads-max, root
	 * included: tests/faults.sh's fault.fork); then no child runs.
	 */
	[OP_FORK] = B(ENOMEM) | B(EAGAIN),
};

/*
 * What each rule is called. A departure already reported elsewhere may be
 * marked known (printed, not failed, unless MF_FUZZ_STRICT).
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

const char *const wmode_name[W_NR] = {
	"explicit", "by count", "by period",
};

struct shared *sh;
uint64_t seed;
static unsigned int seconds = 60, nchaos = 4, watchdog_s = 60;
long page;
unsigned char *hostile;	/* HOSTILE_PAGES that come and go */
bool unprivileged;	/* this (child) process dropped privileges */
static bool in_child;		/* a forked child: forks no further */
static bool strict;
atomic_int inject;
bool faults;
static unsigned long fork_permille = 2;
static bool have_nf;		/* MEMFILTER_FEAT_NETFILTER */
bool have_ipv6;		/* IPv6 */
static const char *window_regr;	/* check_window_regressions() */

void find(enum rule rule, const char *fmt, ...)
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

void slot_enter(struct ctx *c, enum op op)
{
	atomic_store(&c->slot->op, op);
	atomic_store(&c->slot->start_ms, now_ms());
}

void slot_leave(struct ctx *c)
{
	atomic_store(&c->slot->start_ms, 0);
}

void account(enum op op, int ret)
{
	int e = ret < 0 ? -ret : 0;

	atomic_fetch_add(&sh->calls[op][e < NERR ? e : NERR - 1], 1);
	/* Under fault injection any call may fail for memory. */
	if (faults && e == ENOMEM)
		return;
	if (e && !(e < 128 && (op_errnos[op] & B(e))))
		find(R_ERRNO, "%s -> %s (%d)", op_name[op], strerror(e), e);
}

int call(struct ctx *c, enum op op, int fd, unsigned long cmd, void *arg)
{
	int ret;

	slot_enter(c, op);
	ret = xioctl(fd, cmd, arg);
	slot_leave(c);
	account(op, ret);
	return ret;
}

void violate(struct expect *x, const char *why,
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

void judge(enum op op, const struct expect *x, int ret)
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

/*
 * A command that changes the device's names (replace, exchange, the
 * netfilter attachments): refused with EBADF on the read-only open @ro,
 * EPERM when this process dropped its privileges. Calls it on the device
 * and judges the answer; returns it.
 */
int dev_admin_call(struct ctx *c, enum op op, bool ro, unsigned long cmd,
		   void *arg, struct expect *x)
{
	int ret;

	if (ro)
		violate(x, "device opened read-only", B(EBADF), R_ACCEPTED);
	if (unprivileged)
		x->env |= B(EPERM);
	ret = call(c, op, ro ? c->dev_ro : c->dev, cmd, arg);
	judge(op, x, ret);
	return ret;
}

/* --- building argument structs ----------------------------------------- */

/*
 * Lay out a command struct of @ksize bytes, first version @kmin bytes
 * (filled by the caller at the returned address) with a random user size: mostly exact, sometimes too
 * small, larger with a zero or non-zero tail, or running into the guard
 * page. Records what the size alone implies in @x.
 */

void *arg_struct(struct ctx *c, size_t ksize, size_t kmin,
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
void bad_fields(struct ctx *c, struct expect *x, __u32 *flags,
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
void *user_ptr(struct ctx *c, void *good, size_t len, int *bad)
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

const char name_chars[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-";

/*
 * A random name into @name (MEMFILTER_NAME_MAX bytes): mostly one of a few
 * shared valid names (so that names collide), or a broken one.
 */
enum name_kind gen_name(struct ctx *c, char *name, bool allow_none)
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
void expect_name(struct expect *x, enum name_kind k, bool required)
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

int pool_pick(struct ctx *c)
{
	int i = below(&c->r, POOL);

	return c->pool[i].fd >= 0 ? i : -1;
}

void pool_put(struct ctx *c, int fd, bool writable)
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
	} else if (pick < 790) {
		fz_name(c, p, true);
	} else if (pick < 820) {
		fz_name(c, p, false);
	} else if (pick < 840) {
		fz_replace(c, p);
	} else if (pick < 850) {
		fz_exchange(c);
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
	} else if (pick < 1000 - fork_permille || in_child) {
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
		names[i][MEMFILTER_NAME_MAX - 1] = 0;
		done += !unpublish_name(dev, names[i]);
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
	printf("# netfilter: %llu attached, %llu detached by chaos threads; %llu lists checked; %llu detach/close races, %llu of them with a replace; racing name taken back from chaos %llu times, chaos renames of it tried %llu times, %llu attaches or replaces found it gone so\n",
	       (unsigned long long)atomic_load(&sh->nf_attached),
	       (unsigned long long)atomic_load(&sh->nf_detached),
	       (unsigned long long)atomic_load(&sh->nf_lists),
	       (unsigned long long)atomic_load(&sh->nf_races),
	       (unsigned long long)atomic_load(&sh->nf_replace_races),
	       (unsigned long long)atomic_load(&sh->nf_race_reclaimed),
	       (unsigned long long)atomic_load(&sh->nf_race_renamed),
	       (unsigned long long)atomic_load(&sh->nf_race_gone));
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
	fork_permille = env_num("MF_FUZZ_FORK_PERMILLE", NULL, 2);
	if (fork_permille > 30)	/* closes keep 960..969 of the picks */
		fork_permille = 30;
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
