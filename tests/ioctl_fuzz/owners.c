// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl fuzzer's owners: threads that each keep a filter and a shadow
 * model of it, and check that no key the model holds is ever reported
 * absent.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include "fuzz.h"

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

void *owner_thread(void *arg)
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
