// SPDX-License-Identifier: GPL-2.0
/*
 * Native tests that every field of libmemfilter's options structs is
 * honoured or refused, never ignored: struct mf_create_opts (zero
 * initialised, sz 0, as well as with MF_OPTS()), struct mf_window_opts,
 * struct mf_grow_opts and struct mf_nf_attach_opts, offline (the filter's
 * info says what it got) and through the device (this program's ioctl()
 * plays /dev/memfilter and keeps the request the library sent, field by
 * field); mf_create_check() agrees with mf_offline_create*() on a grid of
 * options and names the refused field; bits per key and the grow ratio
 * are exact or refused (the CLI's rule, now the library's). The versions
 * before MEMFILTER_1.8 keep their rules for the programs linked against
 * them (their hash_algo under sz 0, seed without fixed_seed and priority
 * without has_priority ignored, bits per key and ratio rounded).
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>

#include "filter_type.h"
#include "internal.h"
#include "kselftest_harness.h"
#include "libmemfilter.h"
#include "native_utils.h"
#include <linux/memfilter.h>

#define FAKE_DEV	777
#define FAKE_FILTER	4242

/* The last requests the fake device got. */
static struct {
	unsigned int creates, attaches;
	struct memfilter_create create;
	struct memfilter_nf_attach attach;
} fake;

/* libc's ioctl() as the library calls it (see lib_compat_test.c). */
int ioctl(int fd, unsigned long cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd != FAKE_DEV) {
		errno = EBADF;
		return -1;
	}
	switch (cmd) {
	case MEMFILTER_IOC_API:
		((struct memfilter_api *)arg)->features = ~0ULL;
		return 0;
	case MEMFILTER_IOC_CREATE:
		fake.creates++;
		fake.create = *(struct memfilter_create *)arg;
		((struct memfilter_create *)arg)->out_fd = FAKE_FILTER;
		return 0;
	case MEMFILTER_IOC_NF_ATTACH:
		fake.attaches++;
		fake.attach = *(struct memfilter_nf_attach *)arg;
		((struct memfilter_nf_attach *)arg)->out_id = 1;
		return 0;
	}
	errno = ENOTTY;
	return -1;
}

/* The request mf_create*() sent for @o (and @w, @g): 0, or the error. */
static int sent(const struct mf_create_opts *o, const struct mf_window_opts *w,
		const struct mf_grow_opts *g)
{
	int ret;

	memset(&fake, 0, sizeof(fake));
	if (o->type == MF_TYPE_WINDOW)
		ret = mf_create_window(FAKE_DEV, o, w);
	else if (o->type == MF_TYPE_GROW)
		ret = mf_create_grow(FAKE_DEV, o, g);
	else
		ret = mf_create(FAKE_DEV, o);
	if (ret >= 0 && (ret != FAKE_FILTER || fake.creates != 1))
		return -1000;
	return ret < 0 ? ret : 0;
}

/* The offline filter of @o (and @w, @g) and its info: 0 or the error. */
static int made(const struct mf_create_opts *o, const struct mf_window_opts *w,
		const struct mf_grow_opts *g, struct mf_info *info,
		struct mf_offline **keep)
{
	struct mf_offline *f;
	int ret = mf_test_offline(o, w, g, &f);

	if (ret)
		return ret;
	memset(info, 0, sizeof(*info));
	ret = mf_offline_info(f, info);
	if (keep)
		*keep = f;
	else
		mf_offline_free(f);
	return ret;
}

#define BLOOM(...) ((struct mf_create_opts){ .type = MF_TYPE_BLOOM, \
	.capacity = 1000, __VA_ARGS__ })
#define CUCKOO(...) ((struct mf_create_opts){ .type = MF_TYPE_CUCKOO, \
	.capacity = 1000, __VA_ARGS__ })

/* hash_algo in zero-initialised options (sz 0): honoured, both ways. */
TEST(hash_algo_with_sz_zero)
{
	static const int algos[] = { MF_HASH_XXH64, MF_HASH_XXH3 };
	struct mf_create_opts o;
	struct mf_info i;
	size_t a;

	for (a = 0; a < 2; a++) {
		o = BLOOM(.fpr = 0.01, .hash_algo = algos[a]);
		ASSERT_EQ(0, made(&o, NULL, NULL, &i, NULL));
		EXPECT_EQ(algos[a], i.hash_algo);
		ASSERT_EQ(0, sent(&o, NULL, NULL));
		EXPECT_EQ(algos[a] == MF_HASH_XXH64 ? MEMFILTER_CREATE_XXH64 :
						       MEMFILTER_CREATE_XXH3,
			  fake.create.flags);
	}
	o = BLOOM(.fpr = 0.01, .hash_algo = MF_HASH_SIPHASH24);
	ASSERT_EQ(0, made(&o, NULL, NULL, &i, NULL));
	EXPECT_EQ(MF_HASH_SIPHASH24, i.hash_algo);
	EXPECT_TRUE(i.keyed);
	ASSERT_EQ(0, sent(&o, NULL, NULL));
	EXPECT_EQ(MEMFILTER_CREATE_KEYED, fake.create.flags);
	/* The default: XXH3 offline, no hash named to the kernel. */
	o = BLOOM(.fpr = 0.01);
	ASSERT_EQ(0, made(&o, NULL, NULL, &i, NULL));
	EXPECT_EQ(MF_HASH_XXH3, i.hash_algo);
	ASSERT_EQ(0, sent(&o, NULL, NULL));
	EXPECT_EQ(0, fake.create.flags);
	/* Refused: unknown, or a seeded hash with keyed. */
	o = BLOOM(.fpr = 0.01, .hash_algo = 9);
	EXPECT_EQ(-EINVAL, made(&o, NULL, NULL, &i, NULL));
	EXPECT_EQ(-EINVAL, sent(&o, NULL, NULL));
	o = BLOOM(.fpr = 0.01, .hash_algo = MF_HASH_XXH64, .keyed = true);
	EXPECT_EQ(-EINVAL, made(&o, NULL, NULL, &i, NULL));
	EXPECT_EQ(0, fake.creates);
}

/* The same for window and growing filters, offline and on the device. */
TEST(hash_algo_with_sz_zero_window_grow)
{
	struct mf_create_opts w = { .type = MF_TYPE_WINDOW, .capacity = 100,
				    .fpr = 0.01, .hash_algo = MF_HASH_XXH64 };
	struct mf_create_opts g = { .type = MF_TYPE_GROW, .capacity = 100,
				    .fpr = 0.01, .hash_algo = MF_HASH_XXH64 };
	MF_OPTS(mf_window_opts, wo, .generations = 3);
	struct mf_info i;

	ASSERT_EQ(0, made(&w, &wo, NULL, &i, NULL));
	EXPECT_EQ(MF_HASH_XXH64, i.hash_algo);
	ASSERT_EQ(0, made(&g, NULL, NULL, &i, NULL));
	EXPECT_EQ(MF_HASH_XXH64, i.hash_algo);
	ASSERT_EQ(0, sent(&w, &wo, NULL));
	EXPECT_EQ(MEMFILTER_CREATE_XXH64, fake.create.flags);
	ASSERT_EQ(0, sent(&g, NULL, NULL));
	EXPECT_EQ(MEMFILTER_CREATE_XXH64, fake.create.flags);
}

TEST(seed_needs_fixed_seed)
{
	struct mf_create_opts o = BLOOM(.fpr = 0.01, .seed = 42);
	struct mf_info i;

	EXPECT_EQ(-EINVAL, made(&o, NULL, NULL, &i, NULL));
	EXPECT_EQ(-EINVAL, sent(&o, NULL, NULL));
	EXPECT_EQ(0, fake.creates);
	o.fixed_seed = true;
	ASSERT_EQ(0, made(&o, NULL, NULL, &i, NULL));
	EXPECT_EQ(42, i.seed);
	ASSERT_EQ(0, sent(&o, NULL, NULL));
	EXPECT_EQ(MEMFILTER_CREATE_SEED, fake.create.flags);
	EXPECT_EQ(42, fake.create.seed);
	/* Seed 0 is a seed too. */
	o.seed = 0;
	ASSERT_EQ(0, made(&o, NULL, NULL, &i, NULL));
	EXPECT_EQ(0, i.seed);
	o.keyed = true;
	EXPECT_EQ(-EINVAL, made(&o, NULL, NULL, &i, NULL));
}

/* Bits per key: 1 .. 64 in quarters, else refused (nothing rounded). */
TEST(bits_per_key_exact_or_refused)
{
	static const double ok[] = { 1, 1.25, 10, 10.25, 10.5, 10.75, 63.75, 64 };
	static const double bad[] = { 10.1, 10.3, 1.1, 63.9, 0.25, 0.75,
				      64.25, 1000, -1, 1e300 };
	struct mf_create_opts o;
	struct mf_info i;
	const char *why;
	size_t k;

	for (k = 0; k < sizeof(ok) / sizeof(ok[0]); k++) {
		o = BLOOM(.bits_per_key = ok[k]);
		ASSERT_EQ(0, made(&o, NULL, NULL, &i, NULL)) TH_LOG("%g", ok[k]);
		EXPECT_EQ(ok[k], i.bits_per_key);
		ASSERT_EQ(0, sent(&o, NULL, NULL));
		EXPECT_EQ(ok[k] * 4, fake.create.bits_per_key_q4);
		EXPECT_EQ(0, mf_create_check(&o, NULL, NULL, NULL));
	}
	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		o = BLOOM(.bits_per_key = bad[k]);
		EXPECT_EQ(-EINVAL, made(&o, NULL, NULL, &i, NULL)) TH_LOG("%g", bad[k]);
		EXPECT_EQ(-EINVAL, sent(&o, NULL, NULL)) TH_LOG("%g", bad[k]);
		EXPECT_EQ(0, fake.creates);
		EXPECT_EQ(-EINVAL, mf_create_check(&o, NULL, NULL, &why));
		EXPECT_STREQ("bits_per_key must be 1 to 64 in steps of 0.25", why);
	}
	o = BLOOM(.bits_per_key = NAN);
	EXPECT_EQ(-EINVAL, made(&o, NULL, NULL, &i, NULL));
	o = BLOOM(.bits_per_key = INFINITY);
	EXPECT_EQ(-EINVAL, made(&o, NULL, NULL, &i, NULL));
}

/* fpr: the core's sizing for it, offline; parts per billion to the kernel. */
TEST(fpr_fingerprint_capacity_type)
{
	struct memfilter_bloom_params p;
	struct mf_create_opts o = BLOOM(.fpr = 0.001);
	struct mf_info i;

	/* 0.1%: the default layout is SPLIT32. */
	ASSERT_EQ(0, memfilter_bloom_params_from_fpr(&p, 1000, 1000000,
						     MEMFILTER_BLOOM_SPLIT32));
	ASSERT_EQ(0, made(&o, NULL, NULL, &i, NULL));
	EXPECT_EQ(MF_TYPE_BLOOM, i.type);
	EXPECT_EQ(1000, i.capacity);
	EXPECT_EQ(p.bits_per_key_q4 / 4.0, i.bits_per_key);
	EXPECT_EQ(p.k, i.k);
	ASSERT_EQ(0, sent(&o, NULL, NULL));
	EXPECT_EQ(1000000, fake.create.fpr_ppb);
	EXPECT_EQ(1000, fake.create.capacity);
	EXPECT_EQ(MEMFILTER_TYPE_BLOOM, fake.create.type);
	o = CUCKOO(.fingerprint_bits = 16);
	ASSERT_EQ(0, made(&o, NULL, NULL, &i, NULL));
	EXPECT_EQ(MF_TYPE_CUCKOO, i.type);
	EXPECT_EQ(16, i.fingerprint_bits);
	ASSERT_EQ(0, sent(&o, NULL, NULL));
	EXPECT_EQ(16, fake.create.fingerprint_bits);
	/* A field the type does not take. */
	o = BLOOM(.fpr = 0.01, .fingerprint_bits = 16);
	EXPECT_EQ(-EINVAL, made(&o, NULL, NULL, &i, NULL));
	o = CUCKOO(.fingerprint_bits = 16, .bits_per_key = 10);
	EXPECT_EQ(-EINVAL, made(&o, NULL, NULL, &i, NULL));
	o = CUCKOO(.fingerprint_bits = 16, .fpr = 0.01);
	EXPECT_EQ(-EINVAL, made(&o, NULL, NULL, &i, NULL));
	o = BLOOM(.fpr = 0.01, .bits_per_key = 10);
	EXPECT_EQ(-EINVAL, made(&o, NULL, NULL, &i, NULL));
	EXPECT_EQ(-EINVAL, sent(&o, NULL, NULL));
	o = BLOOM(.fpr = 1e-12);
	EXPECT_EQ(-EINVAL, made(&o, NULL, NULL, &i, NULL));
}

TEST(keyed_and_name)
{
	struct mf_create_opts o = BLOOM(.fpr = 0.01, .keyed = true);
	struct mf_info i;

	ASSERT_EQ(0, made(&o, NULL, NULL, &i, NULL));
	EXPECT_TRUE(i.keyed);
	EXPECT_EQ(0, i.seed);
	ASSERT_EQ(0, sent(&o, NULL, NULL));
	EXPECT_EQ(MEMFILTER_CREATE_KEYED, fake.create.flags);
	/* A name: published on the device, refused offline. */
	o = BLOOM(.fpr = 0.01, .name = "opts-name");
	EXPECT_EQ(-EINVAL, made(&o, NULL, NULL, &i, NULL));
	ASSERT_EQ(0, sent(&o, NULL, NULL));
	EXPECT_STREQ("opts-name", fake.create.name);
	o.name = "0123456789012345678901234567890123456789012345678901234567890123";
	EXPECT_EQ(-ENAMETOOLONG, sent(&o, NULL, NULL));
}

/* struct mf_window_opts: each field reaches the filter. */
TEST(window_fields)
{
	struct mf_create_opts o = { .type = MF_TYPE_WINDOW, .capacity = 100,
				    .bits_per_key = 8 };
	MF_OPTS(mf_window_opts, w, .generations = 3, .period_ms = 5000,
		.rotate_by_count = true);
	MF_OPTS(mf_window_info, wi);
	struct mf_offline *f;
	struct mf_info i;

	ASSERT_EQ(0, made(&o, &w, NULL, &i, &f));
	ASSERT_EQ(0, mf_offline_window_info(f, &wi));
	EXPECT_EQ(3, wi.generations);
	EXPECT_EQ(5000, wi.period_ms);
	EXPECT_TRUE(wi.rotate_by_count);
	EXPECT_EQ(8, i.bits_per_key);
	mf_offline_free(f);
	ASSERT_EQ(0, sent(&o, &w, NULL));
	EXPECT_EQ(3, fake.create.generations);
	EXPECT_EQ(5000, fake.create.period_ms);
	EXPECT_EQ(MEMFILTER_WINDOW_ROTATE_BY_COUNT, fake.create.window_flags);
	w.generations = 17;
	EXPECT_EQ(-EINVAL, made(&o, &w, NULL, &i, NULL));
	w.generations = 0;
	EXPECT_EQ(-EINVAL, made(&o, &w, NULL, &i, NULL));
	/* Window options for another type, or a window filter without them. */
	o.type = MF_TYPE_BLOOM;
	w.generations = 3;
	EXPECT_EQ(-EINVAL, mf_offline_create_window(&o, &w, &f));
	EXPECT_EQ(-EINVAL, mf_create_window(FAKE_DEV, &o, &w));
	o.type = MF_TYPE_WINDOW;
	EXPECT_EQ(-EINVAL, mf_offline_create(&o, &f));
}

/*
 * layout: each layout reaches the kernel's request and the offline filter,
 * of every Bloom type; 0 is the default; unknown ones and a layout on a
 * cuckoo filter are refused, with a reason; the versions before 1.8 never
 * read the field (it was padding).
 */
TEST(layout_field)
{
	static const int types[] = { MF_TYPE_BLOOM, MF_TYPE_WINDOW, MF_TYPE_GROW };
	/*
	 * No layout at 1%: SPLIT32 for Bloom and for window generations (at
	 * 1% / 3); LINE64 for a growing filter, whose later sub-filters'
	 * rates are outside SPLIT32's band.
	 */
	static const int def[] = { MF_LAYOUT_SPLIT32, MF_LAYOUT_SPLIT32, MF_LAYOUT_LINE64 };
	MF_OPTS(mf_window_opts, w, .generations = 3);
	struct mf_offline *f;
	struct mf_info i;
	const char *why = NULL;

	for (size_t t = 0; t < 3; t++) {
		for (int l = MF_LAYOUT_DEFAULT; l <= MF_LAYOUT_SPLIT32; l++) {
			struct mf_create_opts o = { .type = types[t], .capacity = 1000,
						    .fpr = 0.01, .layout = l };

			ASSERT_EQ(0, made(&o, &w, NULL, &i, &f));
			EXPECT_EQ(l ? l : def[t], mf_offline_layout(f));
			EXPECT_EQ(l == MF_LAYOUT_SPLIT32 ? 8 : i.k, i.k);
			mf_offline_free(f);
			ASSERT_EQ(0, sent(&o, &w, NULL));
			EXPECT_EQ(l, fake.create.layout);
		}
	}
	/* Three sub-filters at 1% (0.5%, 0.25%, 0.125%): all in the band. */
	MF_OPTS(mf_grow_opts, g, .max_subs = 3);
	struct mf_create_opts o = { .type = MF_TYPE_GROW, .capacity = 1000, .fpr = 0.01 };

	ASSERT_EQ(0, made(&o, NULL, &g, &i, &f));
	EXPECT_EQ(MF_LAYOUT_SPLIT32, mf_offline_layout(f));
	mf_offline_free(f);
	g.max_subs = 4;	/* 0.0625%: below it */
	ASSERT_EQ(0, made(&o, NULL, &g, &i, &f));
	EXPECT_EQ(MF_LAYOUT_LINE64, mf_offline_layout(f));
	mf_offline_free(f);
	o = BLOOM(.fpr = 0.01, .layout = 3);
	EXPECT_EQ(-EINVAL, mf_create_check(&o, NULL, NULL, &why));
	EXPECT_STREQ("layout must be 0, MF_LAYOUT_LINE64 or MF_LAYOUT_SPLIT32", why);
	EXPECT_EQ(-EINVAL, sent(&o, NULL, NULL));
	o = CUCKOO(.fpr = 0.01, .layout = MF_LAYOUT_LINE64);
	EXPECT_EQ(-EINVAL, mf_create_check(&o, NULL, NULL, &why));
	EXPECT_STREQ("layout is for Bloom, window and growing filters, not cuckoo", why);
	EXPECT_EQ(-EINVAL, made(&o, NULL, NULL, &i, NULL));
	/* Before 1.8: not read, whatever is there. */
	o = BLOOM(.fpr = 0.01, .layout = 77);
	ASSERT_EQ(0, libmf_offline_create_1(&o, &f));
	EXPECT_EQ(MF_LAYOUT_SPLIT32, mf_offline_layout(f));
	mf_offline_free(f);
	memset(&fake, 0, sizeof(fake));
	ASSERT_EQ(FAKE_FILTER, libmf_create_1(FAKE_DEV, &o));
	EXPECT_EQ(0, fake.create.layout);
}

/* struct mf_grow_opts: each field reaches the filter; ratio exact. */
TEST(grow_fields)
{
	struct mf_create_opts o = { .type = MF_TYPE_GROW, .capacity = 100,
				    .fpr = 0.01 };
	MF_OPTS(mf_grow_opts, g, .max_subs = 5, .factor = 3, .ratio = 0.07);
	MF_OPTS(mf_grow_info, gi);
	struct mf_offline *f;
	struct mf_info i;
	const char *why;

	ASSERT_EQ(0, made(&o, NULL, &g, &i, &f));
	ASSERT_EQ(0, mf_offline_grow_info(f, &gi));
	EXPECT_EQ(5, gi.max_subs);
	EXPECT_EQ(3, gi.factor);
	EXPECT_EQ(0.07, gi.ratio);
	mf_offline_free(f);
	ASSERT_EQ(0, sent(&o, NULL, &g));
	EXPECT_EQ(5, fake.create.grow_max);
	EXPECT_EQ(3, fake.create.grow_factor);
	EXPECT_EQ(7, fake.create.grow_ratio_pct);
	g.ratio = 0.333;
	EXPECT_EQ(-EINVAL, made(&o, NULL, &g, &i, NULL));
	EXPECT_EQ(-EINVAL, sent(&o, NULL, &g));
	EXPECT_EQ(-EINVAL, mf_create_check(&o, NULL, &g, &why));
	EXPECT_STREQ("ratio must be 0.01 to 0.99 in steps of 0.01", why);
	g.ratio = 0.5;
	g.max_subs = 17;
	EXPECT_EQ(-EINVAL, made(&o, NULL, &g, &i, NULL));
	g.max_subs = 0;
	g.factor = 17;
	EXPECT_EQ(-EINVAL, made(&o, NULL, &g, &i, NULL));
	o.bits_per_key = 10;
	o.fpr = 0;
	g.factor = 0;
	EXPECT_EQ(-EINVAL, made(&o, NULL, &g, &i, NULL));
	o.type = MF_TYPE_BLOOM;
	EXPECT_EQ(-EINVAL, mf_create_grow(FAKE_DEV, &o, &g));
}

/* struct mf_nf_attach_opts: every field in the request, priority checked. */
TEST(nf_attach_fields)
{
	MF_OPTS(mf_nf_attach_opts, a, .family = MF_NF_IPV6, .hook = MF_NF_OUTPUT,
		.key = MF_NF_KEY_TUPLE, .action = MF_NF_DROP_MISS,
		.priority = -200);

	memset(&fake, 0, sizeof(fake));
	EXPECT_EQ(-EINVAL, mf_nf_attach(FAKE_DEV, "nf", &a));
	EXPECT_EQ(0, fake.attaches);
	a.has_priority = true;
	ASSERT_EQ(1, mf_nf_attach(FAKE_DEV, "nf", &a));
	EXPECT_EQ(MF_NF_IPV6, fake.attach.family);
	EXPECT_EQ(MF_NF_OUTPUT, fake.attach.hook);
	EXPECT_EQ(MF_NF_KEY_TUPLE, fake.attach.key);
	EXPECT_EQ(MF_NF_DROP_MISS, fake.attach.action);
	EXPECT_EQ(MEMFILTER_NF_ATTACH_PRIORITY, fake.attach.flags);
	EXPECT_EQ(-200, fake.attach.priority);
	EXPECT_STREQ("nf", fake.attach.name);
	/* Priority 0 is a priority when asked for, the default otherwise. */
	a.priority = 0;
	ASSERT_EQ(1, mf_nf_attach(FAKE_DEV, "nf", &a));
	EXPECT_EQ(MEMFILTER_NF_ATTACH_PRIORITY, fake.attach.flags);
	a.has_priority = false;
	ASSERT_EQ(1, mf_nf_attach(FAKE_DEV, "nf", &a));
	EXPECT_EQ(0, fake.attach.flags);
}

/* The versions before 1.8 keep their rules for programs linked to them. */
TEST(earlier_versions_unchanged)
{
	struct mf_create_opts o = BLOOM(.fpr = 0.01, .hash_algo = MF_HASH_XXH64);
	MF_OPTS(mf_nf_attach_opts, a, .family = MF_NF_IPV4, .hook = MF_NF_INPUT,
		.key = MF_NF_KEY_SADDR, .action = MF_NF_COUNT, .priority = -200);
	MF_OPTS(mf_grow_opts, g, .ratio = 0.333);
	MF_OPTS(mf_grow_info, gi);
	struct mf_offline *f;
	struct mf_info i;

	/* sz 0: hash_algo is past the 1.0.0 struct, not read. */
	ASSERT_EQ(0, libmf_offline_create_1(&o, &f));
	ASSERT_EQ(0, mf_offline_info(f, &i));
	EXPECT_EQ(MF_HASH_XXH3, i.hash_algo);
	mf_offline_free(f);
	memset(&fake, 0, sizeof(fake));
	ASSERT_EQ(FAKE_FILTER, libmf_create_1(FAKE_DEV, &o));
	EXPECT_EQ(0, fake.create.flags);
	/* With sz covering it, it is read. */
	o.sz = sizeof(o);
	ASSERT_EQ(0, libmf_offline_create_1(&o, &f));
	ASSERT_EQ(0, mf_offline_info(f, &i));
	EXPECT_EQ(MF_HASH_XXH64, i.hash_algo);
	mf_offline_free(f);
	/* A seed without fixed_seed: ignored. */
	o = BLOOM(.fpr = 0.01, .seed = 42);
	ASSERT_EQ(FAKE_FILTER, libmf_create_1(FAKE_DEV, &o));
	EXPECT_EQ(0, fake.create.flags);
	EXPECT_EQ(0, fake.create.seed);
	/* Bits per key rounded to a quarter. */
	o = BLOOM(.bits_per_key = 10.1);
	ASSERT_EQ(0, libmf_offline_create_1(&o, &f));
	ASSERT_EQ(0, mf_offline_info(f, &i));
	EXPECT_EQ(10, i.bits_per_key);
	mf_offline_free(f);
	/* The grow ratio rounded to a percent. */
	o = (struct mf_create_opts){ .type = MF_TYPE_GROW, .capacity = 100,
				     .fpr = 0.01 };
	ASSERT_EQ(0, libmf_offline_create_grow_1_4(&o, &g, &f));
	ASSERT_EQ(0, mf_offline_grow_info(f, &gi));
	EXPECT_EQ(0.33, gi.ratio);
	mf_offline_free(f);
	ASSERT_EQ(FAKE_FILTER, libmf_create_grow_1_4(FAKE_DEV, &o, &g));
	EXPECT_EQ(33, fake.create.grow_ratio_pct);
	/* A priority without has_priority: the default. */
	ASSERT_EQ(1, libmf_nf_attach_1_2(FAKE_DEV, "nf", &a));
	EXPECT_EQ(0, fake.attach.flags);
	/* The window versions read the same fields as before, too. */
	o = (struct mf_create_opts){ .type = MF_TYPE_WINDOW, .capacity = 100,
				     .fpr = 0.01, .hash_algo = MF_HASH_XXH64 };
	ASSERT_EQ(0, libmf_offline_create_window_1_6(&o, &(struct mf_window_opts){
		.sz = sizeof(struct mf_window_opts), .generations = 2 }, &f));
	ASSERT_EQ(0, mf_offline_info(f, &i));
	EXPECT_EQ(MF_HASH_XXH3, i.hash_algo);
	mf_offline_free(f);
	ASSERT_EQ(FAKE_FILTER, libmf_create_window_1_2(FAKE_DEV, &o,
		&(struct mf_window_opts){ .sz = sizeof(struct mf_window_opts),
					  .generations = 2 }));
	EXPECT_EQ(0, fake.create.flags);
}

/*
 * mf_create_check() on a grid of options: 0 exactly where
 * mf_offline_create*() makes a filter, the same errno where it does not,
 * with a reason.
 */
TEST(check_agrees_with_create)
{
	static const int types[] = { 0, MF_TYPE_BLOOM, MF_TYPE_CUCKOO,
				     MF_TYPE_WINDOW, MF_TYPE_GROW, 7 };
	static const double fprs[] = { 0, 0.01, 1e-7, 1.5 };
	static const double bpks[] = { 0, 10, 10.1 };
	static const unsigned int fps[] = { 0, 8, 9 };
	static const unsigned int gens[] = { 0, 2, 17 };
	struct mf_offline *f;
	unsigned int n = 0, good = 0;
	size_t t, a, b, c, d, e;

	for (t = 0; t < 6; t++)
	for (a = 0; a < 4; a++)
	for (b = 0; b < 3; b++)
	for (c = 0; c < 3; c++)
	for (d = 0; d < 3; d++)
	for (e = 0; e < 2; e++) {
		struct mf_create_opts o = {
			.type = types[t], .capacity = 100, .fpr = fprs[a],
			.bits_per_key = bpks[b], .fingerprint_bits = fps[c],
			.keyed = e,
		};
		MF_OPTS(mf_window_opts, w, .generations = gens[d]);
		bool win = o.type == MF_TYPE_WINDOW;
		const char *why = "unset";
		int chk, ret;

		if (!win && d)
			continue;
		chk = mf_create_check(&o, win ? &w : NULL, NULL, &why);
		ret = win ? mf_offline_create_window(&o, &w, &f) :
		      o.type == MF_TYPE_GROW ? mf_offline_create_grow(&o, NULL, &f) :
		      mf_offline_create(&o, &f);
		n++;
		ASSERT_EQ(ret, chk) TH_LOG("type %d fpr %g bpk %g fp %u gens %u",
					   o.type, o.fpr, o.bits_per_key,
					   o.fingerprint_bits, gens[d]);
		if (ret) {
			ASSERT_NE(NULL, why);
			ASSERT_NE(0, strcmp(why, "unset"));
			continue;
		}
		good++;
		EXPECT_EQ(NULL, why);
		mf_offline_free(f);
	}
	TH_LOG("%u option sets, %u make a filter", n, good);
	EXPECT_LT(10, good);
	EXPECT_LT(good * 2, n);
}

/* Some reasons, by field. */
TEST(check_names_the_field)
{
	static const struct {
		struct mf_create_opts o;
		const char *why;
	} cases[] = {
		{ BLOOM(), "a Bloom or window filter needs fpr or bits_per_key" },
		{ CUCKOO(), "a cuckoo filter needs fpr or fingerprint_bits" },
		{ CUCKOO(.fingerprint_bits = 9), "fingerprint_bits must be 8, 12 or 16" },
		{ BLOOM(.fpr = 0.01, .fingerprint_bits = 8), "fingerprint_bits is for cuckoo filters" },
		{ CUCKOO(.fpr = 0.01, .bits_per_key = 8), "fpr and bits_per_key exclude each other" },
		{ CUCKOO(.bits_per_key = 8), "bits_per_key is for Bloom and window filters" },
		{ BLOOM(.fpr = 1e-7), "fpr is below what 64 bits per key reach" },
		{ CUCKOO(.fpr = 1e-5), "fpr is below what 16-bit fingerprints reach" },
		{ BLOOM(.fpr = 0.01, .seed = 1), "seed is set but fixed_seed is not" },
		{ BLOOM(.fpr = 0.01, .capacity = 0), "capacity must be at least 1" },
		{ BLOOM(.fpr = 2), "fpr must be above 0 and below 1" },
		{ BLOOM(.fpr = 0.01, .type = 9), "type must be MF_TYPE_BLOOM, MF_TYPE_CUCKOO, MF_TYPE_WINDOW or MF_TYPE_GROW" },
		{ BLOOM(.fpr = 0.01, .keyed = true, .fixed_seed = true),
		  "keyed filters have a secret, not a seed: not with fixed_seed" },
		{ { .type = MF_TYPE_GROW, .capacity = 1 }, "a growing filter needs fpr (the bound on the whole filter)" },
		{ { .type = MF_TYPE_WINDOW, .capacity = 1, .fpr = 0.1 }, "a window filter needs its struct mf_window_opts" },
	};
	const char *why;
	size_t k;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		EXPECT_EQ(-EINVAL, mf_create_check(&cases[k].o, NULL, NULL, &why));
		EXPECT_STREQ(cases[k].why, why);
	}
	EXPECT_EQ(-EINVAL, mf_create_check(NULL, NULL, NULL, &why));
	EXPECT_EQ(-EINVAL, mf_create_check(&BLOOM(.fpr = 0.01), &(struct mf_window_opts){
		.sz = sizeof(struct mf_window_opts), .generations = 2 }, NULL, &why));
	EXPECT_STREQ("struct mf_window_opts is for type MF_TYPE_WINDOW", why);
	EXPECT_EQ(-EINVAL, mf_create_check(&BLOOM(.fpr = 0.01), NULL,
		&(struct mf_grow_opts){ .sz = sizeof(struct mf_grow_opts) }, &why));
	EXPECT_STREQ("struct mf_grow_opts is for type MF_TYPE_GROW", why);
	/* The type-specific rules past the options' own checks. */
	EXPECT_EQ(-EINVAL, mf_create_check(&(struct mf_create_opts){
		.type = MF_TYPE_WINDOW, .capacity = 1, .fpr = 0.1 },
		&(struct mf_window_opts){ .sz = sizeof(struct mf_window_opts),
					  .generations = 17 }, NULL, &why));
	EXPECT_STREQ("generations must be 2 to 16", why);
	EXPECT_EQ(-EINVAL, mf_create_check(&(struct mf_create_opts){
		.type = MF_TYPE_WINDOW, .capacity = 1, .fpr = 1e-9 },
		&(struct mf_window_opts){ .sz = sizeof(struct mf_window_opts),
					  .generations = 4 }, NULL, &why));
	EXPECT_STREQ("fpr is below what 64 bits per key reach", why);
	EXPECT_EQ(-EINVAL, mf_create_check(&(struct mf_create_opts){
		.type = MF_TYPE_GROW, .capacity = 1, .fpr = 0.01 }, NULL,
		&(struct mf_grow_opts){ .sz = sizeof(struct mf_grow_opts),
					.max_subs = 17 }, &why));
	EXPECT_STREQ("max_subs must be 0 to 16", why);
	EXPECT_EQ(-EINVAL, mf_create_check(&(struct mf_create_opts){
		.type = MF_TYPE_GROW, .capacity = 1, .bits_per_key = 8 },
		NULL, NULL, &why));
	EXPECT_STREQ("a growing filter is sized by fpr, not bits_per_key", why);
	EXPECT_EQ(0, mf_create_check(&BLOOM(.fpr = 0.01), NULL, NULL, &why));
	EXPECT_EQ(NULL, why);
}

TEST_HARNESS_MAIN
