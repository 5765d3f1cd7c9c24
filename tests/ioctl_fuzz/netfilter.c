// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl fuzzer's netfilter commands on /dev/memfilter, and the
 * netfilter owner, which predicts every answer in a namespace of its own.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include "fuzz.h"

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

void fz_nf_attach(struct ctx *c)
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
	ret = dev_admin_call(c, OP_NF_ATTACH, ro, MEMFILTER_IOC_NF_ATTACH, a, &x);
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
void fz_nf_detach(struct ctx *c)
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
	ret = dev_admin_call(c, OP_NF_DETACH, ro, MEMFILTER_IOC_NF_DETACH, d, &x);
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
void fz_nf_list(struct ctx *c)
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
	int fresh;		/* replace with this filter, or -1 */
	int replaced;		/* REPLACE's result */
};

static void *nf_race_close(void *arg)
{
	struct nf_race *r = arg;
	struct memfilter_name nm = { .size = sizeof(nm) };

	usleep(below(&r->c->r, 300));
	if (r->fresh >= 0) {
		/* The attachment follows: the old filter loses the name. */
		r->replaced = name_replace(r->c->dev, "fz.nf.race", r->fresh, 0);
		xioctl(r->fresh, MEMFILTER_IOC_UNPUBLISH, &nm);
		close(r->fresh);
	}
	xioctl(r->fd, MEMFILTER_IOC_UNPUBLISH, &nm);
	close(r->fd);
	return NULL;
}

/*
 * A child in a namespace of its own attaches to @name and exits: its
 * namespace's exit detaches, later, from a kernel worker.
 */
static pid_t nf_netns_child(struct nf_owner *o, const char *name)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct memfilter_nf_attach a = { .size = sizeof(a) };

		if (unshare(CLONE_NEWNET))
			_exit(3);
		nf_fields(&o->c.r, &a);
		strcpy(a.name, name);
		if (a.action == MEMFILTER_NF_DEDUP)
			a.action = MEMFILTER_NF_COUNT;
		_exit(xioctl(o->c.dev, MEMFILTER_IOC_NF_ATTACH, &a) ? 4 : 0);
	}
	return pid;
}

/*
 * Take "fz.nf.race" back from a chaos thread: its REPLACE (with the
 * publish flag, or of the name while a race had it) or EXCHANGE may have
 * left a pool filter under it. Returns 0, or -errno (-EEXIST: the name
 * changed hands meanwhile; create again and see).
 */
static int nf_race_reclaim(struct nf_owner *o)
{
	int ret = unpublish_name(o->c.dev, "fz.nf.race");

	if (!ret)
		atomic_fetch_add(&sh->nf_race_reclaimed, 1);
	/* ENOENT: unpublished meanwhile, or given to another filter. */
	return ret == -ENOENT ? -EEXIST : ret;
}

static int nf_race_create(struct nf_owner *o, bool bloom)
{
	return bloom ?
		create(o->c.dev, MEMFILTER_TYPE_BLOOM, 1000, 0, 40, 0, 0,
		       "fz.nf.race") :
		create(o->c.dev, MEMFILTER_TYPE_CUCKOO, 1000, 0, 0, 8, 0,
		       "fz.nf.race");
}

/*
 * Attach a fresh filter by name, then detach while another thread
 * unpublishes and closes it, or first replaces the name with another
 * fresh filter and then unpublishes and closes both, and (sometimes) a
 * child's namespace holding an attachment of the name exits: the
 * attachments keep what they hold, the replace succeeds (no dedup
 * attachment holds the name), the detach succeeds and nothing is left.
 * The attach and the replace may get ENOENT only while a chaos thread
 * tried to REPLACE or EXCHANGE the name (a pool filter it moved to may
 * have given it up): counted, not a failure.
 */
static void nf_owner_race(struct nf_owner *o)
{
	struct memfilter_nf_attach a = { 0 };
	struct nf_race r = { .c = &o->c, .fresh = -1 };
	/* Renames of the name in flight or begun since differ from this. */
	uint64_t renamed = atomic_load(&sh->nf_race_renamed_done);
	bool threaded, bloom;
	pid_t child = -1;
	pthread_t t;
	int ret, status;

	if (o->n == MEMFILTER_NF_MAX)
		return;
	bloom = chance(&o->c.r, 50);
	r.fd = nf_race_create(o, bloom);
	/* A chaos thread's REPLACE or EXCHANGE may have taken the name. */
	for (int i = 0; r.fd == -EEXIST && i < 3; i++) {
		ret = nf_race_reclaim(o);
		if (ret && ret != -EEXIST) {
			/* tests/faults.sh makes allocations fail */
			if (!faults || ret != -ENOMEM)
				find(R_VALID_FAILED, "nf owner: taking fz.nf.race back: %s",
				     strerror(-ret));
			return;
		}
		r.fd = nf_race_create(o, bloom);
	}
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
	/* Chaos may have moved the name on already, as for the replace. */
	if (ret == -ENOENT && atomic_load(&sh->nf_race_renamed) != renamed)
		atomic_fetch_add(&sh->nf_race_gone, 1);
	else
		nf_expect("ATTACH of the racing filter", ret, 0);
	if (chance(&o->c.r, 50)) {
		r.fresh = chance(&o->c.r, 50) ?
			create(o->c.dev, MEMFILTER_TYPE_BLOOM, 1000, 0, 40, 0,
			       0, NULL) :
			create(o->c.dev, MEMFILTER_TYPE_CUCKOO, 1000, 0, 0, 8,
			       0, NULL);
		if (r.fresh >= 0)
			atomic_fetch_add(&sh->nf_replace_races, 1);
	}
	if (chance(&o->c.r, 30))
		child = nf_netns_child(o, "fz.nf.race");
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
	if (r.fresh >= 0 && r.replaced == -ENOENT &&
	    atomic_load(&sh->nf_race_renamed) != renamed)
		atomic_fetch_add(&sh->nf_race_gone, 1);
	else if (r.fresh >= 0)
		nf_expect("REPLACE racing a detach", r.replaced, 0);
	while (child > 0 && waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	/* 4: the child attached after the name was gone (ENOENT). */
	if (child > 0 && (!WIFEXITED(status) || (WEXITSTATUS(status) &&
						 WEXITSTATUS(status) != 4)))
		find(R_VALID_FAILED, "nf owner's racing child: status %#x",
		     status);
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

void *nf_owner_thread(void *arg)
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
