// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl fuzzer's device and filter fd commands: each draws a request,
 * valid or broken in a documented way, and judges the answer.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include "fuzz.h"

/* --- device commands ------------------------------------------------------ */

void fz_api(struct ctx *c)
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
__u64 fz_period(struct rng *r)
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

void fz_create(struct ctx *c)
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
	/* A layout: mostly known ones, sometimes one no kernel has. */
	if (chance(&c->r, 2)) {
		cr->layout = chance(&c->r, 50) ? below(&c->r, 3) :
			     MEMFILTER_LAYOUT_SPLIT32 + 1 + below(&c->r, 1000);
		if (cr->layout > MEMFILTER_LAYOUT_SPLIT32)
			violate(&x, "unknown layout", B(EOPNOTSUPP), R_ACCEPTED);
		else if (cr->layout && cr->type == MEMFILTER_TYPE_CUCKOO)
			violate(&x, "layout on a cuckoo filter", B(EINVAL), R_ACCEPTED);
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

void fz_open(struct ctx *c)
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

bool name_ok(const char *n)
{
	size_t len = strnlen(n, MEMFILTER_NAME_MAX);

	if (!len || len == MEMFILTER_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!strchr(name_chars, n[i]))
			return false;
	return true;
}

/*
 * Unpublish @name, whatever filter has it, through a writable fd opened
 * by name on @dev. Returns 0, or -errno (ENOENT: no filter has it, or
 * had it by the time of the unpublish).
 */
int unpublish_name(int dev, const char *name)
{
	struct memfilter_open o = {
		.size = sizeof(o), .flags = MEMFILTER_OPEN_WRITE,
	};
	struct memfilter_name nm = { .size = sizeof(nm) };
	int ret;

	strncpy(o.name, name, sizeof(o.name) - 1);
	ret = xioctl(dev, MEMFILTER_IOC_OPEN, &o);
	if (ret)
		return ret;
	ret = xioctl(o.out_fd, MEMFILTER_IOC_UNPUBLISH, &nm);
	close(o.out_fd);
	return ret;
}

void fz_list(struct ctx *c)
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

void fz_load(struct ctx *c)
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

void fz_keys(struct ctx *c, int p)
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
	/*
	 * ENOMEM part way: a growing filter's next sub-filter could not be
	 * allocated (make faults' failslab); the keys before it took effect.
	 */
	if (ret == -ENOMEM && c->pool[p].type == MEMFILTER_TYPE_GROW &&
	    (op == OP_ADD || op == OP_TEST_AND_ADD) && k->out_done >= k->count)
		find(R_OUTPUT, "%s -> ENOMEM (growing) with out_done %u of %u",
		     op_name[op], k->out_done, k->count);
	if (ret && ret != -ENOSPC && ret != -EFAULT && ret != -EINTR &&
	    !(ret == -ENOMEM && c->pool[p].type == MEMFILTER_TYPE_GROW &&
	      (op == OP_ADD || op == OP_TEST_AND_ADD)) &&
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

void fz_info(struct ctx *c, int p)
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

void fz_clear(struct ctx *c, int p)
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
void fz_rotate(struct ctx *c, int p)
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

void fz_name(struct ctx *c, int p, bool publish)
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

/*
 * A name for REPLACE and EXCHANGE: mostly gen_name()'s, sometimes an
 * owner's (whose own PUBLISH and UNPUBLISH then race it) or the netfilter
 * owner's racing filter's (whose attachments follow it).
 */
static enum name_kind replace_name(struct ctx *c, char *name)
{
	uint64_t pick = below(&c->r, 100);

	if (pick >= 15)
		return gen_name(c, name, chance(&c->r, 5));
	memset(name, 0, MEMFILTER_NAME_MAX);
	if (pick < 10)
		snprintf(name, MEMFILTER_NAME_MAX, "fz.t%u",
			 (unsigned int)below(&c->r, MAX_OWNERS));
	else
		strcpy(name, "fz.nf.race");
	return N_VALID;
}

/*
 * REPLACE a name with a pool filter: ENOENT (no such name, without the
 * flag), EBUSY (the filter has a name) and EOPNOTSUPP (a dedup
 * attachment holds the name and the filter is a cuckoo one) depend on
 * what other threads did; a read-only filter fd, the device fd or -1 as
 * the filter, a read-only device, bad flags and fields must fail.
 */
void fz_replace(struct ctx *c, int p)
{
	struct expect x = {
		.env = B(ENOENT) | B(EBUSY) | B(EOPNOTSUPP) | B(ENOMEM),
	};
	struct memfilter_replace *r;
	bool ro = chance(&c->r, 3), race;
	enum name_kind nk;
	__u32 size;

	r = arg_struct(c, sizeof(*r), sizeof(*r), &x, &size);
	r->size = size;
	nk = replace_name(c, r->name);
	expect_name(&x, nk, true);
	if (chance(&c->r, 40))
		r->flags = MEMFILTER_REPLACE_PUBLISH;
	if (chance(&c->r, 3)) {
		r->flags |= 1U << (1 + below(&c->r, 31));
		violate(&x, "unknown flag", B(EOPNOTSUPP), R_ACCEPTED);
	}
	bad_fields(c, &x, NULL, &r->__reserved, NULL, R_ACCEPTED);
	if (chance(&c->r, 5)) {
		r->fd = chance(&c->r, 50) ? c->dev : -1;
		violate(&x, "not a filter fd", B(EBADF), R_ACCEPTED);
	} else {
		r->fd = c->pool[p].fd;
		if (!c->pool[p].writable)
			violate(&x, "a read-only filter fd", B(EBADF), R_RO_WRITE);
	}
	/* Counted around the call: the owner sees it while it may act. */
	race = !strcmp(r->name, "fz.nf.race");
	if (race)
		atomic_fetch_add(&sh->nf_race_renamed, 1);
	dev_admin_call(c, OP_REPLACE, ro, MEMFILTER_IOC_REPLACE, r, &x);
	if (race)
		atomic_fetch_add(&sh->nf_race_renamed_done, 1);
}

/* EXCHANGE two names; the same one twice must fail. */
void fz_exchange(struct ctx *c)
{
	struct expect x = { .env = B(ENOENT) | B(EOPNOTSUPP) };
	struct memfilter_exchange *e;
	bool ro = chance(&c->r, 3), race;
	enum name_kind na, nb;
	__u32 size;

	e = arg_struct(c, sizeof(*e), sizeof(*e), &x, &size);
	e->size = size;
	na = replace_name(c, e->name);
	nb = replace_name(c, e->other);
	expect_name(&x, na, true);
	expect_name(&x, nb, true);
	if (na == N_VALID && nb == N_VALID && !strcmp(e->name, e->other))
		violate(&x, "the same name twice", B(EINVAL), R_ACCEPTED);
	bad_fields(c, &x, &e->flags, NULL, NULL, R_ACCEPTED);
	race = !strcmp(e->name, "fz.nf.race") || !strcmp(e->other, "fz.nf.race");
	if (race)
		atomic_fetch_add(&sh->nf_race_renamed, 1);
	dev_admin_call(c, OP_EXCHANGE, ro, MEMFILTER_IOC_EXCHANGE, e, &x);
	if (race)
		atomic_fetch_add(&sh->nf_race_renamed_done, 1);
}

/* Commands numbers no table serves, on either kind of fd. */
void fz_badcmd(struct ctx *c, int p)
{
	static const unsigned long dev_cmds[] = {
		MEMFILTER_IOC_API, MEMFILTER_IOC_CREATE, MEMFILTER_IOC_OPEN,
		MEMFILTER_IOC_LIST, MEMFILTER_IOC_LOAD, MEMFILTER_IOC_REPLACE,
		MEMFILTER_IOC_EXCHANGE,
	};
	int fd = p >= 0 && chance(&c->r, 50) ? c->pool[p].fd : c->dev;
	unsigned long cmd;
	unsigned int nr;

	switch (below(&c->r, 4)) {
	case 0:
		nr = below(&c->r, 256);
		if (nr >= MEMFILTER_CMD_BASE && nr <= MEMFILTER_CMD_ADD_PREFIXES)
			nr = MEMFILTER_CMD_BASE + 0x40;
		cmd = _IOC(below(&c->r, 4), MEMFILTER_IOCTL_TYPE, nr,
			   below(&c->r, 1 << 14));
		break;
	case 1:
		cmd = _IOWR('x' + below(&c->r, 3), MEMFILTER_CMD_BASE +
			    below(&c->r, 0x18), struct memfilter_keys);
		break;
	case 2:
		/*
		 * +5 .. +7 are the netfilter commands of /dev/memfilter,
		 * +8 and +9 REPLACE and EXCHANGE
		 */
		cmd = _IOWR(MEMFILTER_IOCTL_TYPE, MEMFILTER_CMD_BASE + 10 +
			    below(&c->r, 6), struct memfilter_keys);
		break;
	default:
		/* the other kind of fd's commands */
		nr = below(&c->r, sizeof(dev_cmds) / sizeof(dev_cmds[0]));
		cmd = fd == c->dev ? key_cmds[below(&c->r, NKEY_OPS)] :
			dev_cmds[nr];
	}
	memset(c->arg, 0, 512);
	*(__u32 *)c->arg = 512;
	call(c, OP_BADCMD, fd, cmd, c->arg);
}

void fz_read(struct ctx *c, int p)
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
