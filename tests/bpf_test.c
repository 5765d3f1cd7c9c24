// SPDX-License-Identifier: GPL-2.0
/*
 * Selftest of memfilter's BPF kfuncs (module/consumers/bpf.c), run in the
 * guests with BPF_PROG_TEST_RUN (no network devices needed):
 *
 *  - the API feature bit says whether the kfuncs exist, and agrees with
 *    the module's BTF in /sys/kernel/btf (on Debian's 6.1 both say no and
 *    every other test is skipped, saying why);
 *  - bpf/xdp_blocklist.bpf.c, the example (a borrowed filter), drops
 *    exactly the packets whose source address the filter answers "may be
 *    present" for: the answers, false positives included, are predicted by
 *    querying a dump of the same filter offline with libmemfilter; the
 *    filter counts one query per packet and one hit per drop;
 *  - the same kfuncs from TC programs (SCHED_CLS and SCHED_ACT), exactly;
 *  - published ids: INFO and mf_pub_id() report one while a filter is
 *    published (on every kernel), none after unpublish, a new one after
 *    republish; bpf_memfilter_borrow_id() finds the filter by it, and
 *    nothing by an id never issued, unpublished or replaced;
 *  - a replace or an exchange of the name reaches XDP programs by id and
 *    by name and TC programs by id at once: every verdict right after it
 *    is the new filter's (the two filters hold different sources);
 *  - every kfunc's return value from a syscall program, on Bloom and
 *    cuckoo filters, the batch against the ioctl query;
 *  - a filter held by a map (kptr) outlives its name and fd and is freed
 *    with the map;
 *  - the verifier refuses programs that skip the NULL check, leak the
 *    reference, read a packet past its checked end, pass a read-only key,
 *    use a kptr read in place, release or stash a borrowed filter, forget
 *    to end a borrow, borrow in a (sleepable) syscall program, or call the
 *    kfuncs from a program type they are not registered for; and a
 *    syscall program is sleepable or does not load at all;
 *  - the example loaders (XDP, netfilter) attach and detach, or say
 *    clearly that the kfuncs are absent; the XDP one by the filter's id
 *    when it is published;
 *  - the module cannot be unloaded while a program that uses them is
 *    loaded, and can be again once the program is gone.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/memfilter.h>

#include "kselftest_harness.h"
#include "libmemfilter.h"

#include "kfunc_ops.h"
#include "kfunc_ops.skel.h"
#include "prefix_list.h"
#include "xdp_blocklist.h"
#include "xdp_blocklist.skel.h"
#include "bpf_utils.h"

#define BTF_PATH "/sys/kernel/btf/memfilter"
#define REFCNT_PATH "/sys/module/memfilter/refcnt"

/* 6.12 or later with BTF (the KCSAN test kernel has none): kfuncs expected. */
static bool kfuncs_expected(void)
{
	struct utsname u;
	int major, minor;

	if (access("/sys/kernel/btf/vmlinux", F_OK))
		return false;
	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return false;
	return major > 6 || (major == 6 && minor >= 12);
}

FIXTURE(bpf) {
	int dev;
	bool kfuncs;
};

FIXTURE_SETUP(bpf)
{
	struct mf_api_info api;

	self->dev = mf_open_device();
	ASSERT_LE(0, self->dev) TH_LOG("%s", mf_strerror(self->dev));
	ASSERT_EQ(0, mf_api(self->dev, &api));
	self->kfuncs = api.features & MEMFILTER_FEAT_BPF_KFUNCS;
}

FIXTURE_TEARDOWN(bpf)
{
	close(self->dev);
}

#define NEED_KFUNCS() do {						\
	if (!self->kfuncs)						\
		SKIP(return, "this kernel has no memfilter kfuncs "	\
		     "(MEMFILTER_FEAT_BPF_KFUNCS clear, e.g. Debian 6.1: "	\
		     "no module BTF); see Documentation/bpf.rst");	\
} while (0)

/*
 * The feature bit is set exactly when the module's BTF is there, and always
 * on a 6.12 kernel with BTF.
 */
TEST_F(bpf, feature_bit)
{
	bool btf = access(BTF_PATH, F_OK) == 0;

	TH_LOG("kfuncs %s, module BTF %s", self->kfuncs ? "yes" : "no",
	       btf ? "yes" : "no");
	EXPECT_EQ(btf, self->kfuncs);
	if (kfuncs_expected())
		EXPECT_TRUE(self->kfuncs);
}

TEST_F(bpf, xdp_blocklist_exact)
{
	NEED_KFUNCS();
	blocklist_exact(_metadata, self->dev, false);
}

TEST_F(bpf, xdp_blocklist_exact_by_id)
{
	NEED_KFUNCS();
	blocklist_exact(_metadata, self->dev, true);
}

/* The same kfuncs from SCHED_CLS and SCHED_ACT programs, exactly. */
TEST_F(bpf, tc_blocklist_exact)
{
	struct kfunc_ops_bpf *skel;
	struct mf_offline *off;
	unsigned int cls, act;
	int fd;

	NEED_KFUNCS();
	fd = blocklist(self->dev, "bpf.test.tc", false, &off);
	ASSERT_LE(0, fd) TH_LOG("blocklist: %s", mf_strerror(fd));
	skel = ops_load("bpf.test.tc");
	ASSERT_NE(NULL, skel);

	tc_check(_metadata, skel->progs.tc_blocklist, off, &cls);
	tc_check(_metadata, skel->progs.act_blocklist, off, &act);
	TH_LOG("%d packets: %u shot (%d sources in the filter)", N_SRC, cls,
	       N_SRC / 4);
	EXPECT_EQ(cls, act);
	EXPECT_LE(N_SRC / 4, cls);

	kfunc_ops_bpf__destroy(skel);
	mf_offline_free(off);
	ASSERT_EQ(0, mf_unpublish(fd));
	close(fd);
}

/* Map-like return values of contains, add and delete on a cuckoo filter. */
TEST_F(bpf, cuckoo_returns)
{
	struct kfunc_ops_bpf *skel;
	uint32_t k;
	int fd, i, added = 0, ret;

	NEED_KFUNCS();
	/* No filter by that name yet: get returns NULL. */
	skel = ops_load("bpf.test.cuckoo");
	ASSERT_NE(NULL, skel);
	skel->bss->args.op = KFUNC_OP_CONTAINS;
	skel->bss->args.got = -1;
	{
		LIBBPF_OPTS(bpf_test_run_opts, o);

		ASSERT_EQ(0, bpf_prog_test_run_opts(
				bpf_program__fd(skel->progs.kfunc_op), &o));
	}
	EXPECT_EQ(0, skel->bss->args.got);

	fd = seeded(self->dev, MF_TYPE_CUCKOO, 64, 0.01, "bpf.test.cuckoo");
	ASSERT_LE(0, fd) TH_LOG("create: %s", mf_strerror(fd));
	k = 1;
	EXPECT_EQ(-ENOENT, op(skel, KFUNC_OP_CONTAINS, &k, 4));
	EXPECT_EQ(-ENOENT, op(skel, KFUNC_OP_DELETE, &k, 4));
	EXPECT_EQ(0, op(skel, KFUNC_OP_ADD, &k, 4));
	EXPECT_EQ(0, op(skel, KFUNC_OP_CONTAINS, &k, 4));
	EXPECT_EQ(1, mf_query(fd, &k, 4, 1, NULL, NULL));
	EXPECT_EQ(0, op(skel, KFUNC_OP_DELETE, &k, 4));
	EXPECT_EQ(-ENOENT, op(skel, KFUNC_OP_CONTAINS, &k, 4));
	EXPECT_EQ(0, mf_query(fd, &k, 4, 1, NULL, NULL));

	/* Fill it: -ENOSPC, and every key added before is still there. */
	for (i = 0; i < 4096; i++) {
		k = 1000 + i;
		ret = op(skel, KFUNC_OP_ADD, &k, 4);
		if (ret)
			break;
		added++;
	}
	EXPECT_EQ(-ENOSPC, ret);
	EXPECT_LE(64, added);
	for (i = 0; i < added; i++) {
		k = 1000 + i;
		ASSERT_EQ(0, op(skel, KFUNC_OP_CONTAINS, &k, 4)) TH_LOG("%d", i);
	}

	kfunc_ops_bpf__destroy(skel);
	ASSERT_EQ(0, mf_unpublish(fd));
	close(fd);
}

/* The raw INFO ioctl's pub_id (what mf_pub_id() reads), or UINT64_MAX. */
static uint64_t info_pub_id(int fd)
{
	struct memfilter_info i = { .size = sizeof(i) };

	if (ioctl(fd, MEMFILTER_IOC_INFO, &i))
		return UINT64_MAX;
	return i.pub_id;
}

/*
 * Published ids, without BPF (so on Debian's 6.1 too): one per publish,
 * reported by INFO and mf_pub_id(), none while unpublished, a different
 * one after republishing.
 */
TEST_F(bpf, pub_id)
{
	uint32_t id1 = 0, id2 = 0, id3 = 0, id;
	struct mf_api_info api;
	int fd, fd2, anon;

	ASSERT_EQ(0, mf_api(self->dev, &api));
	EXPECT_TRUE(api.features & MEMFILTER_FEAT_PUB_ID);
	fd = seeded(self->dev, MF_TYPE_BLOOM, 1000, 0.01, "bpf.test.id1");
	ASSERT_LE(0, fd) TH_LOG("create: %s", mf_strerror(fd));
	fd2 = seeded(self->dev, MF_TYPE_CUCKOO, 1000, 0.01, "bpf.test.id2");
	ASSERT_LE(0, fd2) TH_LOG("create: %s", mf_strerror(fd2));
	anon = seeded(self->dev, MF_TYPE_BLOOM, 1000, 0.01, NULL);
	ASSERT_LE(0, anon) TH_LOG("create: %s", mf_strerror(anon));

	ASSERT_EQ(0, mf_pub_id(fd, &id1));
	ASSERT_EQ(0, mf_pub_id(fd2, &id2));
	TH_LOG("ids %u, %u", id1, id2);
	EXPECT_LE(1, id1);
	EXPECT_GE(INT32_MAX, id1);
	EXPECT_LE(1, id2);
	EXPECT_NE(id1, id2);
	EXPECT_EQ(id1, info_pub_id(fd));
	EXPECT_EQ(id2, info_pub_id(fd2));
	/* Never published: no id. */
	EXPECT_EQ(-ENOENT, mf_pub_id(anon, &id));
	EXPECT_EQ(0, info_pub_id(anon));

	ASSERT_EQ(0, mf_unpublish(fd));
	EXPECT_EQ(-ENOENT, mf_pub_id(fd, &id));
	EXPECT_EQ(0, info_pub_id(fd));
	ASSERT_EQ(0, mf_publish(fd, "bpf.test.id1"));
	ASSERT_EQ(0, mf_pub_id(fd, &id3));
	TH_LOG("republished: id %u", id3);
	EXPECT_EQ(id3, info_pub_id(fd));
	EXPECT_NE(id1, id3);
	EXPECT_NE(id2, id3);
	/* A second name for a published filter is refused; the id stays. */
	EXPECT_EQ(-EBUSY, mf_publish(fd, "bpf.test.id3"));
	EXPECT_EQ(id3, info_pub_id(fd));

	ASSERT_EQ(0, mf_unpublish(fd));
	ASSERT_EQ(0, mf_unpublish(fd2));
	close(anon);
	close(fd2);
	close(fd);
}

/*
 * bpf_memfilter_borrow_id() finds the filter by its id and nothing by an
 * id never issued, by the id of an unpublished filter, or by the old id of
 * a republished one; each query it makes is counted by the filter.
 */
TEST_F(bpf, borrow_id)
{
	struct kfunc_ops_bpf *skel;
	struct mf_info before, after;
	uint32_t k = 0x1234, absent, id, id2;
	int fd, ret;

	NEED_KFUNCS();
	fd = seeded(self->dev, MF_TYPE_BLOOM, 1000, 0.01, "bpf.test.byid");
	ASSERT_LE(0, fd) TH_LOG("create: %s", mf_strerror(fd));
	ASSERT_EQ(1, mf_add(fd, &k, 4, 1, NULL, NULL));
	/* A key the filter answers "absent" for (fixed seed: deterministic). */
	for (absent = 1; absent < 100; absent++)
		if (mf_query(fd, &absent, 4, 1, NULL, NULL) == 0)
			break;
	ASSERT_GT(100, absent);
	ASSERT_EQ(0, mf_pub_id(fd, &id));
	skel = ops_load("bpf.test.byid");
	ASSERT_NE(NULL, skel);

	ASSERT_EQ(0, mf_info(fd, &before));
	EXPECT_EQ(1, by_id(skel, id, &k, 4, &ret));
	EXPECT_EQ(0, ret);
	EXPECT_EQ(1, by_id(skel, id, &absent, 4, &ret));
	EXPECT_EQ(-ENOENT, ret);
	ASSERT_EQ(0, mf_info(fd, &after));
	EXPECT_EQ(before.queries + 2, after.queries);
	EXPECT_EQ(before.hits + 1, after.hits);

	/* Never issued: 0, far ahead of the cursor, past the limit. */
	EXPECT_EQ(0, by_id(skel, 0, &k, 4, &ret));
	EXPECT_EQ(0, by_id(skel, id + 1000000, &k, 4, &ret));
	EXPECT_EQ(0, by_id(skel, 0xffffffffu, &k, 4, &ret));

	/* Unpublished: the id finds nothing. */
	ASSERT_EQ(0, mf_unpublish(fd));
	EXPECT_EQ(0, by_id(skel, id, &k, 4, &ret));
	/* Republished: a new id finds it, the old one still nothing. */
	ASSERT_EQ(0, mf_publish(fd, "bpf.test.byid"));
	ASSERT_EQ(0, mf_pub_id(fd, &id2));
	TH_LOG("id %u, republished %u", id, id2);
	EXPECT_NE(id, id2);
	EXPECT_EQ(0, by_id(skel, id, &k, 4, &ret));
	EXPECT_EQ(1, by_id(skel, id2, &k, 4, &ret));
	EXPECT_EQ(0, ret);
	ASSERT_EQ(0, mf_info(fd, &after));
	EXPECT_EQ(before.queries + 3, after.queries);

	kfunc_ops_bpf__destroy(skel);
	ASSERT_EQ(0, mf_unpublish(fd));
	close(fd);
}

/*
 * bpf_memfilter_contains_id() answers as the ioctl query and as
 * bpf_memfilter_borrow_id() + bpf_memfilter_contains() do, key by key,
 * and is counted like them; an id that finds no filter is -ESRCH; and
 * bpf_memfilter_test_and_add_id() is test-and-add by id.
 */
TEST_F(bpf, contains_id)
{
	struct kfunc_ops_bpf *skel;
	struct mf_info before, after;
	uint32_t k, id, id2, cid;
	int fd, cfd, want, ret, hits = 0;

	NEED_KFUNCS();
	fd = seeded(self->dev, MF_TYPE_BLOOM, 1000, 0.05, "bpf.test.cid");
	ASSERT_LE(0, fd) TH_LOG("create: %s", mf_strerror(fd));
	/* Full (1000 keys): some of the absent keys answer present. */
	for (k = 0; k < 3000; k += 3)
		ASSERT_EQ(1, mf_add(fd, &k, 4, 1, NULL, NULL));
	ASSERT_EQ(0, mf_pub_id(fd, &id));
	skel = ops_load("bpf.test.cid");
	ASSERT_NE(NULL, skel);

	ASSERT_EQ(0, mf_info(fd, &before));
	for (k = 0; k < 1000; k++) {
		want = mf_query(fd, &k, 4, 1, NULL, NULL);
		ASSERT_LE(0, want);
		if (k % 3 == 0)
			ASSERT_EQ(1, want) TH_LOG("key %u", k);
		hits += want;
		ASSERT_EQ(want ? 0 : -ENOENT,
			  one_call(skel, KFUNC_OP_CONTAINS, id, &k, 4))
			TH_LOG("key %u", k);
		ASSERT_EQ(1, by_id(skel, id, &k, 4, &ret));
		ASSERT_EQ(want ? 0 : -ENOENT, ret) TH_LOG("key %u", k);
	}
	TH_LOG("%d of 1000 keys may be present (334 added)", hits);
	EXPECT_LT(334, hits);
	EXPECT_GT(1000, hits);
	/* The ioctl queries, the one-call kfunc's and the borrow's. */
	ASSERT_EQ(0, mf_info(fd, &after));
	EXPECT_EQ(before.queries + 3000, after.queries);
	EXPECT_EQ(before.hits + 3 * hits, after.hits);

	/* No filter: never issued, unpublished, republished under a new id. */
	k = 0;
	EXPECT_EQ(-ESRCH, one_call(skel, KFUNC_OP_CONTAINS, 0, &k, 4));
	EXPECT_EQ(-ESRCH, one_call(skel, KFUNC_OP_CONTAINS, id + 1000000,
				   &k, 4));
	EXPECT_EQ(-ESRCH, one_call(skel, KFUNC_OP_CONTAINS, 0xffffffffu,
				   &k, 4));
	EXPECT_EQ(-ESRCH, one_call(skel, KFUNC_OP_TEST_AND_ADD, 0, &k, 4));
	ASSERT_EQ(0, mf_unpublish(fd));
	EXPECT_EQ(-ESRCH, one_call(skel, KFUNC_OP_CONTAINS, id, &k, 4));
	EXPECT_EQ(-ESRCH, one_call(skel, KFUNC_OP_TEST_AND_ADD, id, &k, 4));
	ASSERT_EQ(0, mf_publish(fd, "bpf.test.cid"));
	ASSERT_EQ(0, mf_pub_id(fd, &id2));
	EXPECT_NE(id, id2);
	EXPECT_EQ(-ESRCH, one_call(skel, KFUNC_OP_CONTAINS, id, &k, 4));
	EXPECT_EQ(0, one_call(skel, KFUNC_OP_CONTAINS, id2, &k, 4));

	/* Test-and-add by id: a key answered absent, then present. */
	for (k = 3001; k < 4000; k++)
		if (mf_query(fd, &k, 4, 1, NULL, NULL) == 0)
			break;
	ASSERT_GT(4000, k);
	EXPECT_EQ(0, one_call(skel, KFUNC_OP_TEST_AND_ADD, id2, &k, 4));
	EXPECT_EQ(1, mf_query(fd, &k, 4, 1, NULL, NULL));
	EXPECT_EQ(-EEXIST, one_call(skel, KFUNC_OP_TEST_AND_ADD, id2, &k, 4));
	EXPECT_EQ(0, one_call(skel, KFUNC_OP_CONTAINS, id2, &k, 4));

	/* A cuckoo filter: contains by id works, test-and-add does not. */
	cfd = seeded(self->dev, MF_TYPE_CUCKOO, 64, 0.01, "bpf.test.cid.c");
	ASSERT_LE(0, cfd) TH_LOG("create: %s", mf_strerror(cfd));
	ASSERT_EQ(0, mf_pub_id(cfd, &cid));
	k = 7;
	EXPECT_EQ(-ENOENT, one_call(skel, KFUNC_OP_CONTAINS, cid, &k, 4));
	ASSERT_EQ(1, mf_add(cfd, &k, 4, 1, NULL, NULL));
	EXPECT_EQ(0, one_call(skel, KFUNC_OP_CONTAINS, cid, &k, 4));
	EXPECT_EQ(-EOPNOTSUPP,
		  one_call(skel, KFUNC_OP_TEST_AND_ADD, cid, &k, 4));

	kfunc_ops_bpf__destroy(skel);
	ASSERT_EQ(0, mf_unpublish(cfd));
	ASSERT_EQ(0, mf_unpublish(fd));
	close(cfd);
	close(fd);
}

/*
 * Address lookups from XDP (kfunc_ops's xdp_addr): a prefix filter
 * holding a list shaped like a published one (tests/prefix_list.h) drops
 * exactly the packets whose source address a dump of the same filter,
 * looked up offline (mf_offline_query_addrs(), the same core/prefix.h
 * rule), may cover: every address inside a listed range, and the false
 * positives outside, by id and through a borrow, each lookup counted as
 * one query. The reference path (a syscall program) answers the same;
 * sizes but 4 and 16 are -EINVAL, no filter by id -ESRCH, and a filter
 * of keys looks the address up as a key.
 */
TEST_F(bpf, prefix_lookup_exact)
{
	MF_OPTS(mf_create_opts, o, .type = MF_TYPE_BLOOM, .fpr = 0.25,
		.fixed_seed = true, .seed = 5, .name = "bpf.test.pfx",
		.prefixes = true, .prefix_lengths = 24);
	struct mf_info before, after;
	struct plist_probes *pp;
	struct kfunc_ops_bpf *skel;
	struct mf_offline *off;
	size_t i, ilen;
	uint8_t pkt[64];
	uint32_t id, k;
	int fd, kfd, pass, hits;
	__u32 retval;
	void *img;

	NEED_KFUNCS();
	pp = plist_probes_new();
	ASSERT_NE(NULL, pp);
	o.capacity = pp->n;
	fd = mf_create(self->dev, &o);
	ASSERT_LE(0, fd) TH_LOG("create: %s", mf_strerror(fd));
	ASSERT_EQ(pp->n, mf_add_prefixes(fd, pp->list, pp->n, NULL, NULL));
	ASSERT_EQ(0, mf_pub_id(fd, &id));
	ASSERT_EQ(0, mf_dump(fd, &img, &ilen));
	ASSERT_EQ(0, mf_offline_from_image(img, ilen, &off, NULL));
	free(img);
	ASSERT_EQ(0, plist_probe(pp, 7, off));
	hits = pp->hits;
	TH_LOG("%d of %d probes covered (%zu inside a listed range)", hits,
	       PLIST_PROBES, pp->inside);
	skel = ops_load("bpf.test.pfx");
	ASSERT_NE(NULL, skel);

	ASSERT_EQ(0, mf_info(fd, &before));
	for (pass = 0; pass < 2; pass++) {
		skel->bss->args.id = pass ? id : 0;
		memset(&skel->bss->addr_counts, 0, sizeof(skel->bss->addr_counts));
		for (i = 0; i < PLIST_PROBES; i++) {
			bool hit = plist_hit(pp, i);

			ASSERT_EQ(0, run_xdp(bpf_program__fd(skel->progs.xdp_addr),
					     pkt, addr_packet(pkt, &pp->a[i]), &retval));
			ASSERT_EQ(hit ? XDP_DROP : XDP_PASS, retval)
				TH_LOG("%s, probe %zu", pass ? "by id" : "borrowed", i);
			if (i % 3 == 0)
				ASSERT_TRUE(hit) TH_LOG("probe %zu is inside", i);
		}
		EXPECT_EQ(hits, skel->bss->addr_counts.dropped);
		EXPECT_EQ(PLIST_PROBES - hits, skel->bss->addr_counts.passed);
		EXPECT_EQ(0, skel->bss->addr_counts.no_filter);
		EXPECT_EQ(0, skel->bss->addr_counts.not_ip);
	}
	ASSERT_EQ(0, mf_info(fd, &after));
	EXPECT_EQ(before.queries + 2 * PLIST_PROBES, after.queries);
	EXPECT_EQ(before.hits + 2 * hits, after.hits);

	/* A referenced filter (syscall program), and the sizes refused. */
	for (i = 0; i < 60; i++) {
		bool hit = plist_hit(pp, i);

		EXPECT_EQ(hit ? 0 : -ENOENT,
			  op(skel, KFUNC_OP_CONTAINS_ADDR, pp->a[i].addr,
			     pp->a[i].family == MF_PREFIX_IPV4 ? 4 : 16)) TH_LOG("probe %zu", i);
	}
	EXPECT_EQ(-EINVAL, op(skel, KFUNC_OP_CONTAINS_ADDR, pp->a[0].addr, 5));
	EXPECT_EQ(-EINVAL, op(skel, KFUNC_OP_CONTAINS_ADDR, pp->a[0].addr, 0));
	EXPECT_EQ(-EINVAL, one_call(skel, KFUNC_OP_CONTAINS_ADDR, id, pp->a[0].addr, 15));
	EXPECT_EQ(-ESRCH, one_call(skel, KFUNC_OP_CONTAINS_ADDR, 0, pp->a[0].addr, 4));
	kfunc_ops_bpf__destroy(skel);
	mf_offline_free(off);
	ASSERT_EQ(0, mf_unpublish(fd));
	close(fd);

	/* A filter of keys: the address is its key. */
	kfd = seeded(self->dev, MF_TYPE_BLOOM, 64, 0.001, "bpf.test.pfx");
	ASSERT_LE(0, kfd) TH_LOG("create: %s", mf_strerror(kfd));
	k = htonl(0xc0000201);		/* 192.0.2.1 */
	ASSERT_EQ(1, mf_add(kfd, &k, 4, 1, NULL, NULL));
	skel = ops_load("bpf.test.pfx");
	ASSERT_NE(NULL, skel);
	EXPECT_EQ(0, op(skel, KFUNC_OP_CONTAINS_ADDR, &k, 4));
	k = htonl(0xc0000202);
	EXPECT_EQ(mf_query(kfd, &k, 4, 1, NULL, NULL) ? 0 : -ENOENT,
		  op(skel, KFUNC_OP_CONTAINS_ADDR, &k, 4));
	kfunc_ops_bpf__destroy(skel);
	ASSERT_EQ(0, mf_unpublish(kfd));
	close(kfd);
	plist_probes_free(pp);
}

static struct xdp_blocklist_bpf *xdp_load(const char *name, uint32_t id)
{
	struct xdp_blocklist_bpf *skel = xdp_blocklist_bpf__open();

	if (!skel)
		return NULL;
	strcpy((char *)skel->rodata->filter_name, name);
	skel->rodata->filter_id = id;
	if (xdp_blocklist_bpf__load(skel)) {
		xdp_blocklist_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

#define REPLACE_NAME	"bpf.test.replace"

/*
 * The programs' verdicts for every packet are the answers of the filter
 * the name refers to (offline @off, holding every 4th source from
 * @first), right after a replace or exchange: XDP by id and by name, TC
 * by id; @want the filter that must count the queries (and no other).
 */
static void replaced_check(struct __test_metadata *_metadata,
			   struct xdp_blocklist_bpf *const xdp[2],
			   struct kfunc_ops_bpf *tc, struct mf_offline *off,
			   int first, int want, int other)
{
	uint64_t q0 = 0, q1 = 0, o0 = 0, o1 = 0;
	unsigned int drop, fp, shot, i;
	struct mf_info in;

	ASSERT_EQ(0, mf_info(want, &in));
	q0 = in.queries;
	ASSERT_EQ(0, mf_info(other, &in));
	o0 = in.queries;
	for (i = 0; i < 2; i++) {
		xdp[i]->bss->counts.dropped = xdp[i]->bss->counts.passed = 0;
		xdp_check(_metadata, bpf_program__fd(xdp[i]->progs.xdp_blocklist),
			  off, first, &drop, &fp);
		EXPECT_EQ(drop, xdp[i]->bss->counts.dropped);
		EXPECT_EQ(2 * N_SRC - drop, xdp[i]->bss->counts.passed);
		EXPECT_EQ(0, xdp[i]->bss->counts.no_filter);
	}
	tc_check(_metadata, tc->progs.tc_blocklist_id, off, &shot);
	TH_LOG("every 4th source from %d: XDP dropped %u (%u false positives), TC shot %u",
	       first, drop, fp, shot);
	ASSERT_EQ(0, mf_info(want, &in));
	q1 = in.queries;
	ASSERT_EQ(0, mf_info(other, &in));
	o1 = in.queries;
	EXPECT_EQ(4 * N_SRC + N_SRC, q1 - q0);
	EXPECT_EQ(0, o1 - o0);
}

/*
 * A replace reaches BPF programs at once: a program by id (XDP with
 * bpf_memfilter_contains_id(), TC likewise) and by name (XDP with
 * bpf_memfilter_borrow()) answer the new filter's way for every packet
 * right after the call, the id staying with the name; an exchange rolls
 * back just as fast. The two filters hold different sources (every 4th
 * from 0, from 2), so every verdict tells which filter answered.
 */
TEST_F(bpf, replace_follows_id)
{
	struct xdp_blocklist_bpf *xdp[2];
	struct mf_offline *offa, *offb;
	struct kfunc_ops_bpf *tc;
	uint32_t id, idb;
	int a, b;

	NEED_KFUNCS();
	a = blocklist_from(self->dev, REPLACE_NAME, true, 0, &offa);
	ASSERT_LE(0, a) TH_LOG("blocklist: %s", mf_strerror(a));
	b = blocklist_from(self->dev, NULL, true, 2, &offb);
	ASSERT_LE(0, b) TH_LOG("blocklist: %s", mf_strerror(b));
	ASSERT_EQ(0, mf_pub_id(a, &id));
	xdp[0] = xdp_load(REPLACE_NAME, id);
	xdp[1] = xdp_load(REPLACE_NAME, 0);
	tc = ops_load(REPLACE_NAME);
	ASSERT_NE(NULL, xdp[0]);
	ASSERT_NE(NULL, xdp[1]);
	ASSERT_NE(NULL, tc);
	tc->bss->args.id = id;

	replaced_check(_metadata, xdp, tc, offa, 0, a, b);
	ASSERT_EQ(0, mf_replace(self->dev, REPLACE_NAME, b, 0));
	ASSERT_EQ(0, mf_pub_id(b, &idb));
	EXPECT_EQ(id, idb);
	replaced_check(_metadata, xdp, tc, offb, 2, b, a);
	/* Rollback: the old filter under a second name, exchanged back. */
	ASSERT_EQ(0, mf_publish(a, REPLACE_NAME ".old"));
	ASSERT_EQ(0, mf_exchange(self->dev, REPLACE_NAME, REPLACE_NAME ".old"));
	replaced_check(_metadata, xdp, tc, offa, 0, a, b);
	ASSERT_EQ(0, mf_pub_id(a, &idb));
	EXPECT_EQ(id, idb);

	xdp_blocklist_bpf__destroy(xdp[1]);
	xdp_blocklist_bpf__destroy(xdp[0]);
	kfunc_ops_bpf__destroy(tc);
	mf_offline_free(offb);
	mf_offline_free(offa);
	EXPECT_EQ(0, mf_unpublish(b));
	EXPECT_EQ(0, mf_unpublish(a));
	close(b);
	close(a);
}

/* Bloom: delete is -EOPNOTSUPP; the batch agrees with the ioctl query. */
TEST_F(bpf, bloom_batch)
{
	struct kfunc_ops_bpf *skel;
	struct kfunc_op_args *a;
	uint64_t want = 0;
	uint32_t k, keys[KFUNC_OP_BATCH_KEYS];
	ssize_t hits;
	int fd, i;

	NEED_KFUNCS();
	fd = seeded(self->dev, MF_TYPE_BLOOM, 32, 0.2, "bpf.test.bloom");
	ASSERT_LE(0, fd) TH_LOG("create: %s", mf_strerror(fd));
	skel = ops_load("bpf.test.bloom");
	ASSERT_NE(NULL, skel);
	a = &skel->bss->args;

	k = 7;
	EXPECT_EQ(0, op(skel, KFUNC_OP_ADD, &k, 4));
	EXPECT_EQ(-EOPNOTSUPP, op(skel, KFUNC_OP_DELETE, &k, 4));
	EXPECT_EQ(0, op(skel, KFUNC_OP_CONTAINS, &k, 4));

	/* 32 keys in, 64 queried. */
	for (i = 0; i < KFUNC_OP_BATCH_KEYS; i++) {
		keys[i] = 100 + i;
		if (i % 2 == 0)
			ASSERT_EQ(0, op(skel, KFUNC_OP_ADD, &keys[i], 4));
	}
	hits = mf_query(fd, keys, 4, KFUNC_OP_BATCH_KEYS, &want, NULL);
	ASSERT_LE(KFUNC_OP_BATCH_KEYS / 2, hits);
	memcpy(a->keys, keys, sizeof(keys));
	a->bitmap = ~0ull;
	EXPECT_EQ(hits, op(skel, KFUNC_OP_BATCH, &k, 4));
	EXPECT_EQ(want, a->bitmap);
	for (i = 0; i < KFUNC_OP_BATCH_KEYS; i += 2)
		EXPECT_TRUE(a->bitmap >> i & 1);
	TH_LOG("batch: %zd of 64 may be present", hits);

	a->bitmap = ~0ull;
	EXPECT_EQ(-EINVAL, op(skel, KFUNC_OP_BATCH_BADSIZE, &k, 4));
	EXPECT_EQ(0, a->bitmap);
	a->bitmap = ~0ull;
	EXPECT_EQ(-EINVAL, op(skel, KFUNC_OP_BATCH_TOOMANY, &k, 4));
	EXPECT_EQ(0, a->bitmap);

	kfunc_ops_bpf__destroy(skel);
	ASSERT_EQ(0, mf_unpublish(fd));
	close(fd);
}

/*
 * Test-and-add from a program: -EEXIST exactly where the ioctl's
 * test-and-add on a twin filter (same seed, same size) says "was present",
 * 0 elsewhere; a cuckoo filter says -EOPNOTSUPP.
 */
TEST_F(bpf, test_and_add_exact)
{
	struct kfunc_ops_bpf *skel;
	uint64_t was;
	uint32_t k;
	int fd, twin, i, dups = 0, fps = 0;

	NEED_KFUNCS();
	fd = seeded(self->dev, MF_TYPE_BLOOM, 64, 0.1, "bpf.test.tadd");
	ASSERT_LE(0, fd) TH_LOG("create: %s", mf_strerror(fd));
	twin = seeded(self->dev, MF_TYPE_BLOOM, 64, 0.1, NULL);
	ASSERT_LE(0, twin);
	skel = ops_load("bpf.test.tadd");
	ASSERT_NE(NULL, skel);
	/* 200 keys, every third one a repeat of the key before it. */
	for (i = 0; i < 200; i++) {
		k = i % 3 == 2 ? 5000 + i - 1 : 5000 + i;
		was = 0;
		ASSERT_LE(0, mf_test_and_add(twin, &k, 4, 1, &was, NULL));
		EXPECT_EQ(was & 1 ? -EEXIST : 0,
			  op(skel, KFUNC_OP_TEST_AND_ADD, &k, 4)) TH_LOG("key %d", i);
		dups += i % 3 == 2;
		fps += (was & 1) && i % 3 != 2;
		if (i % 3 == 2)
			EXPECT_TRUE(was & 1);
	}
	TH_LOG("200 test-and-adds: %d repeats, %d false positives", dups, fps);
	kfunc_ops_bpf__destroy(skel);
	ASSERT_EQ(0, mf_unpublish(fd));
	close(fd);
	close(twin);

	fd = seeded(self->dev, MF_TYPE_CUCKOO, 64, 0.01, "bpf.test.tadd");
	ASSERT_LE(0, fd);
	skel = ops_load("bpf.test.tadd");
	ASSERT_NE(NULL, skel);
	k = 1;
	EXPECT_EQ(-EOPNOTSUPP, op(skel, KFUNC_OP_TEST_AND_ADD, &k, 4));
	kfunc_ops_bpf__destroy(skel);
	ASSERT_EQ(0, mf_unpublish(fd));
	close(fd);
}

/*
 * A map holding a filter (a kptr) keeps it alive after its name and fd
 * are gone; freeing the map frees the filter.
 */
TEST_F(bpf, kptr_holds_filter)
{
	const uint64_t cap = 4321;	/* marks this test's filter in debugfs */
	struct kfunc_ops_bpf *skel;
	struct kfunc_op_args *a;
	uint32_t k = 42;
	int fd, i;

	NEED_KFUNCS();
	if (listed(cap) < 0)
		SKIP(return, "no debugfs: cannot see when the filter is freed");
	ASSERT_EQ(0, listed(cap));
	fd = seeded(self->dev, MF_TYPE_CUCKOO, cap, 0.01, "bpf.test.kptr");
	ASSERT_LE(0, fd) TH_LOG("create: %s", mf_strerror(fd));
	ASSERT_EQ(1, mf_add(fd, &k, 4, 1, NULL, NULL));
	skel = ops_load("bpf.test.kptr");
	ASSERT_NE(NULL, skel);
	a = &skel->bss->args;

	ASSERT_EQ(0, run_syscall(skel->progs.kptr_stash));
	ASSERT_EQ(0, mf_unpublish(fd));
	close(fd);
	/* Only the map holds it now. */
	EXPECT_EQ(1, listed(cap));
	a->len = 4;
	memcpy(a->key, &k, 4);
	a->got = -1;
	a->ret = -1;
	ASSERT_EQ(0, run_syscall(skel->progs.kptr_contains));
	EXPECT_EQ(1, a->got);
	EXPECT_EQ(0, a->ret);
	EXPECT_EQ(1, listed(cap));

	kfunc_ops_bpf__destroy(skel);
	/* Maps are freed from a work item, filters after a grace period. */
	for (i = 0; i < 100 && listed(cap); i++)
		usleep(100 * 1000);
	EXPECT_EQ(0, listed(cap));
}

/*
 * The syscall program alone loads: the object itself is sound, so each
 * refused_* test below fails for its own program only. Once, not per
 * refused_* test: a load costs seconds under KASAN and the object is the
 * same compiled-in skeleton every time.
 */
TEST_F(bpf, refused_object_sound)
{
	NEED_KFUNCS();
	ASSERT_EQ(0, load_one("kfunc_op")) TH_LOG("%s", vlog);
}

/*
 * MF_KFUNCS_WITHOUT_TRUSTED_FLAG=1 (tests/qemu/variants.sh, variant
 * "next"): the module is the newer-kernel build (scripts/compat-test.sh),
 * whose kfuncs carry no KF_TRUSTED_ARGS because the verifier of 7.0 and
 * later checks every kfunc's arguments so by default; 6.12's does that
 * only for kfuncs with the flag. On 6.12 such a module's possibly-NULL
 * or untrusted filter is still refused, by the check of the argument's
 * type instead (another message), and a possibly-NULL key or bitmap is
 * not refused at all (refused_null_keys skips).
 */
static bool kfuncs_flagless(void)
{
	const char *v = getenv("MF_KFUNCS_WITHOUT_TRUSTED_FLAG");

	return v && !strcmp(v, "1");
}

/*
 * refused_NAME: the verifier refuses kfunc_ops's neg_NAME with @msg, or
 * @flagless_msg for the newer-kernel build on 6.12.
 */
#define REFUSED_AS(name, msg, flagless_msg)			\
	TEST_F(bpf, refused_##name)				\
	{							\
		NEED_KFUNCS();					\
		refused(_metadata, "neg_" #name,		\
			kfuncs_flagless() ? flagless_msg : msg);\
	}
#define REFUSED(name, msg)	REFUSED_AS(name, msg, msg)

REFUSED_AS(no_null_check, "Possibly NULL pointer passed to trusted arg0",
	   "arg#0 is ptr_or_null_ expected ptr_ or socket")

REFUSED(no_release, "Unreleased reference")

/* Kfunc memory arguments must be writable: .rodata keys are refused. */
REFUSED(rodata_key, "write into map forbidden")

/* A kptr read in place (not taken with bpf_kptr_xchg()) is untrusted. */
REFUSED_AS(kptr_untrusted, "R1 must be referenced or trusted",
	   "arg#0 is untrusted_ptr_ expected ptr_ or socket")

/* A borrowed filter is not a reference: bpf_memfilter_release() refuses it. */
REFUSED(borrow_release,
	"kernel function bpf_memfilter_release args#0 expected pointer to STRUCT memfilter but R1 has a pointer to STRUCT memfilter_borrowed")

/* Nor can it be stored in a map, where it would outlive the program run. */
REFUSED(borrow_stash, "invalid kptr access")

REFUSED(borrow_no_unborrow, "Unreleased reference")

/* SYSCALL programs are sleepable: their kfunc set has no borrow. */
REFUSED(borrow_syscall,
	"calling kernel function bpf_memfilter_borrow is not allowed")

/*
 * ...and always are: the verifier refuses a SYSCALL program loaded
 * without BPF_F_SLEEPABLE before it looks at any kfunc call
 * (check_attach_btf_id(): "Syscall programs can only be sleepable"), so
 * no syscall program calls a kfunc without being sleepable. A raw
 * bpf(BPF_PROG_LOAD) of "r0 = 0; exit" as such a program is refused, and
 * loads (and runs) with the flag. (libbpf 1.1 cannot load one: its
 * "syscall" sections get BPF_F_SLEEPABLE at load whatever the program's
 * flags say.)
 */
TEST_F(bpf, syscall_prog_needs_sleepable)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	static const char msg[] = "Syscall programs can only be sleepable";
	union bpf_attr a;
	int fd, flags;

	for (flags = 0; flags <= BPF_F_SLEEPABLE; flags += BPF_F_SLEEPABLE) {
		memset(&a, 0, sizeof(a));
		a.prog_type = BPF_PROG_TYPE_SYSCALL;
		a.insns = (__u64)(uintptr_t)insns;
		a.insn_cnt = 2;
		a.license = (__u64)(uintptr_t)"GPL";
		a.prog_flags = flags;
		a.log_buf = (__u64)(uintptr_t)vlog;
		a.log_size = sizeof(vlog);
		a.log_level = 1;
		vlog[0] = 0;
		fd = syscall(__NR_bpf, BPF_PROG_LOAD, &a, sizeof(a));
		if (!flags) {
			EXPECT_EQ(-1, fd);
			EXPECT_EQ(EINVAL, errno);
			EXPECT_NE(NULL, strstr(vlog, msg)) TH_LOG("log: %s", vlog);
			if (fd >= 0)
				close(fd);
			continue;
		}
		ASSERT_LE(0, fd) TH_LOG("log: %s", vlog);
		LIBBPF_OPTS(bpf_test_run_opts, o);
		EXPECT_EQ(0, bpf_prog_test_run_opts(fd, &o));
		EXPECT_EQ(0, o.retval);
		close(fd);
	}
}

/* Nor the borrow by id. */
REFUSED(borrow_id_syscall,
	"calling kernel function bpf_memfilter_borrow_id is not allowed")

/* The one-call lookups by id: not in sleepable programs either. */
REFUSED(contains_id_syscall,
	"calling kernel function bpf_memfilter_contains_id is not allowed")

REFUSED(test_and_add_id_syscall,
	"calling kernel function bpf_memfilter_test_and_add_id is not allowed")

REFUSED(contains_addr_id_syscall,
	"calling kernel function bpf_memfilter_contains_addr_id is not allowed")

/*
 * Every kfunc's key (and the batch's bitmap) is checked by the verifier:
 * a possibly-NULL pointer (KF_TRUSTED_ARGS: a NULL key oopsed the kernel
 * before), a key shorter than the size passed, a key past the packet's
 * checked end. tests/bpf/kfunc_ops.bpf.c's NEG_KEY programs.
 */
static const char *const key_kfuncs[] = {
	"contains", "add", "delete", "test_and_add", "contains_batch",
	"contains_id", "test_and_add_id", "contains_addr", "contains_addr_id",
};

static const struct {
	const char *suffix;
	const char *msg;
} key_refusals[] = {
	{ "short_key", "stack R2" },
	{ "past_end", "invalid access to packet" },
};

/* Every kfunc's neg_KFUNC_SUFFIX program is refused with @msg. */
static void refused_each_kfunc(struct __test_metadata *_metadata,
			       const char *suffix, const char *msg)
{
	char prog[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(key_kfuncs); i++) {
		snprintf(prog, sizeof(prog), "neg_%s_%s", key_kfuncs[i], suffix);
		refused(_metadata, prog, msg);
	}
}

/*
 * 18 object loads, each verified in full: under TCG on a loaded host
 * (load 7-30) the harness's 30 s default timed out.
 */
TEST_F_TIMEOUT(bpf, refused_keys, 300)
{
	size_t j;

	NEED_KFUNCS();
	for (j = 0; j < ARRAY_SIZE(key_refusals); j++)
		refused_each_kfunc(_metadata, key_refusals[j].suffix,
				   key_refusals[j].msg);
}

/* A possibly-NULL key (9 loads), and the batch's possibly-NULL bitmap. */
TEST_F_TIMEOUT(bpf, refused_null_keys, 300)
{
	NEED_KFUNCS();
	if (kfuncs_flagless())
		SKIP(return, "the newer-kernel build on 6.12: without "
		     "KF_TRUSTED_ARGS 6.12's verifier does not refuse a "
		     "possibly-NULL memory argument (7.0's refuses it for "
		     "every kfunc)");
	refused_each_kfunc(_metadata, "null_key",
			   "Possibly NULL pointer passed to trusted arg1");
	refused(_metadata, "neg_contains_batch_null_bitmap",
		"Possibly NULL pointer passed to trusted arg4");
}

/*
 * Keys over MEMFILTER_KEY_MAX, which no ioctl takes, are refused by every
 * kfunc (-E2BIG) and leave the filter as it was; MEMFILTER_KEY_MAX itself
 * and the empty key are keys, answered as the ioctls answer them.
 */
TEST_F(bpf, key_limits)
{
	static uint8_t big[KFUNC_OP_KEY_MAX];
	struct kfunc_ops_bpf *skel;
	struct mf_info before, after;
	const uint32_t zero_len = 0;
	uint32_t id;
	int fd, cfd;

	NEED_KFUNCS();
	memset(big, 0xa5, sizeof(big));
	fd = seeded(self->dev, MF_TYPE_BLOOM, 1000, 0.01, "bpf.test.keymax");
	ASSERT_LE(0, fd) TH_LOG("create: %s", mf_strerror(fd));
	ASSERT_EQ(0, mf_pub_id(fd, &id));
	skel = ops_load("bpf.test.keymax");
	ASSERT_NE(NULL, skel);

	ASSERT_EQ(0, mf_info(fd, &before));
	EXPECT_EQ(-E2BIG, op(skel, KFUNC_OP_ADD, big, MF_KEY_MAX + 1));
	EXPECT_EQ(-E2BIG, op(skel, KFUNC_OP_CONTAINS, big, MF_KEY_MAX + 1));
	EXPECT_EQ(-E2BIG, op(skel, KFUNC_OP_TEST_AND_ADD, big,
			     MF_KEY_MAX + 1));
	EXPECT_EQ(-E2BIG, op(skel, KFUNC_OP_DELETE, big, MF_KEY_MAX + 1));
	EXPECT_EQ(-E2BIG, one_call(skel, KFUNC_OP_CONTAINS, id, big,
				   MF_KEY_MAX + 1));
	EXPECT_EQ(-E2BIG, one_call(skel, KFUNC_OP_TEST_AND_ADD, id, big,
				   MF_KEY_MAX + 1));
	skel->bss->args.batch_key_size = MF_KEY_MAX + 1;
	EXPECT_EQ(-E2BIG, op(skel, KFUNC_OP_BATCH_KEYSIZE, big,
			     MF_KEY_MAX + 1));
	EXPECT_EQ(0, skel->bss->args.bitmap);
	ASSERT_EQ(0, mf_info(fd, &after));
	EXPECT_EQ(before.adds, after.adds);
	EXPECT_EQ(before.queries, after.queries);

	/* MEMFILTER_KEY_MAX bytes: added by BPF, found by the ioctl. */
	EXPECT_EQ(-ENOENT, op(skel, KFUNC_OP_CONTAINS, big, MF_KEY_MAX));
	EXPECT_EQ(0, op(skel, KFUNC_OP_ADD, big, MF_KEY_MAX));
	EXPECT_EQ(1, mf_query(fd, big, MF_KEY_MAX, 1, NULL, NULL));
	EXPECT_EQ(0, one_call(skel, KFUNC_OP_CONTAINS, id, big, MF_KEY_MAX));
	skel->bss->args.batch_key_size = MF_KEY_MAX;
	EXPECT_EQ(1, op(skel, KFUNC_OP_BATCH_KEYSIZE, big, MF_KEY_MAX));
	EXPECT_EQ(1, skel->bss->args.bitmap);

	/* The empty key: absent, added by the ioctl, then present to BPF. */
	EXPECT_EQ(-ENOENT, op(skel, KFUNC_OP_CONTAINS, big, 0));
	EXPECT_EQ(-ENOENT, one_call(skel, KFUNC_OP_CONTAINS, id, big, 0));
	ASSERT_EQ(1, mf_addv(fd, big, &zero_len, 1, NULL, NULL));
	EXPECT_EQ(0, op(skel, KFUNC_OP_CONTAINS, big, 0));
	EXPECT_EQ(0, one_call(skel, KFUNC_OP_CONTAINS, id, big, 0));
	EXPECT_EQ(-EEXIST, op(skel, KFUNC_OP_TEST_AND_ADD, big, 0));

	/* A cuckoo filter's delete, likewise. */
	cfd = seeded(self->dev, MF_TYPE_CUCKOO, 1000, 0.01, NULL);
	ASSERT_LE(0, cfd) TH_LOG("create: %s", mf_strerror(cfd));
	kfunc_ops_bpf__destroy(skel);
	ASSERT_EQ(0, mf_unpublish(fd));
	ASSERT_EQ(0, mf_publish(cfd, "bpf.test.keymax"));
	skel = ops_load("bpf.test.keymax");
	ASSERT_NE(NULL, skel);
	EXPECT_EQ(-E2BIG, op(skel, KFUNC_OP_DELETE, big, MF_KEY_MAX + 1));
	EXPECT_EQ(0, op(skel, KFUNC_OP_ADD, big, MF_KEY_MAX));
	EXPECT_EQ(0, op(skel, KFUNC_OP_DELETE, big, MF_KEY_MAX));
	EXPECT_EQ(-ENOENT, op(skel, KFUNC_OP_DELETE, big, MF_KEY_MAX));

	kfunc_ops_bpf__destroy(skel);
	ASSERT_EQ(0, mf_unpublish(cfd));
	close(cfd);
	close(fd);
}

/*
 * A bpf_wq callback of an XDP program borrows a filter by id and queries
 * it while this thread unpublishes and closes the filter (its last
 * reference). The callback runs in a kworker under rcu_read_lock_trace()
 * only: before the filter's free waited for an RCU Tasks Trace grace
 * period, KASAN reported the use after free here (debug guest). Every
 * query of a present key must answer present: no false negative either.
 */
#define WQ_ROUNDS	200000

TEST_F(bpf, wq_borrow_outlives_close)
{
	struct kfunc_ops_bpf *skel;
	volatile struct wq_state *st;
	struct bpf_program *p;
	uint8_t pkt[64] = { 0 };
	uint32_t k, id;
	__u32 retval;
	int fd, round, ms;

	NEED_KFUNCS();
	skel = kfunc_ops_bpf__open();
	ASSERT_NE(NULL, skel);
	strcpy((char *)skel->rodata->filter_name, "bpf.test.wq");
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, !strcmp(bpf_program__name(p),
						     "wq_borrow_start"));
	ASSERT_EQ(0, kfunc_ops_bpf__load(skel));
	st = &skel->bss->wq_state;
	for (round = 0; round < 3; round++) {
		fd = seeded(self->dev, MF_TYPE_BLOOM, 1000, 0.01,
			    "bpf.test.wq");
		ASSERT_LE(0, fd) TH_LOG("create: %s", mf_strerror(fd));
		for (k = 0; k < 1000; k++)
			ASSERT_EQ(1, mf_add(fd, &k, 4, 1, NULL, NULL));
		ASSERT_EQ(0, mf_pub_id(fd, &id));
		st->id = id;
		st->rounds = WQ_ROUNDS;
		st->started = 0;
		st->done = 0;
		st->hits = -1;
		ASSERT_EQ(0, run_xdp(bpf_program__fd(skel->progs.wq_borrow_start),
				     pkt, sizeof(pkt), &retval));
		ASSERT_EQ(XDP_PASS, retval);
		for (ms = 0; !st->started && !st->done && ms < 60000; ms++)
			usleep(1000);
		ASSERT_EQ(1, st->started) TH_LOG("round %d: done %u", round,
						 st->done);
		/* The last references: the name's, then the fd's. */
		ASSERT_EQ(0, mf_unpublish(fd));
		close(fd);
		for (ms = 0; !st->done && ms < 300000; ms++)
			usleep(1000);
		ASSERT_EQ(WQ_DONE_RAN, st->done);
		EXPECT_EQ(WQ_ROUNDS, st->hits);
	}
	kfunc_ops_bpf__destroy(skel);
}

REFUSED(contains_id_rodata_key, "write into map forbidden")

REFUSED(contains_id_socket,
	"calling kernel function bpf_memfilter_contains_id is not allowed")

REFUSED(socket_filter,
	"calling kernel function bpf_memfilter_get is not allowed")

/* Run a program installed beside this test; its output in @out. */
static int beside(const char *prog, const char *args, char *out, size_t size)
{
	char path[4096], *dir;
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

	if (n <= 0)
		return -1;
	path[n] = 0;
	dir = strrchr(path, '/') + 1;
	snprintf(dir, sizeof(path) - (dir - path), "%s", prog);
	if (access(path, X_OK))
		return -2;
	return run_cmd(out, size, "%s %s", path, args);
}

/*
 * The example loader attaches to lo and detaches at once where the kfuncs
 * exist; elsewhere it exits 2 with a message that names the feature bit.
 */
TEST_F(bpf, loader)
{
	char out[1024];
	int st = beside("xdp_blocklist", "lo bpf.test.loader 0", out,
			sizeof(out));

	if (st == -2)
		SKIP(return, "xdp_blocklist is not installed beside the test");
	TH_LOG("xdp_blocklist: exit %d: %s", st, out);
	if (self->kfuncs) {
		EXPECT_EQ(0, st);
		EXPECT_NE(NULL, strstr(out, "dropped 0 passed 0"));
	} else {
		EXPECT_EQ(2, st);
		EXPECT_NE(NULL, strstr(out, "MEMFILTER_FEAT_BPF_KFUNCS clear"));
	}
}

/*
 * The XDP loader with the filter published: it reads the id and the
 * program, borrowing by id, loads and attaches.
 */
TEST_F(bpf, loader_by_id)
{
	char out[1024], want[64];
	uint32_t id;
	int fd, st;

	NEED_KFUNCS();
	fd = seeded(self->dev, MF_TYPE_BLOOM, 1000, 0.01, "bpf.test.loader.id");
	ASSERT_LE(0, fd) TH_LOG("create: %s", mf_strerror(fd));
	ASSERT_EQ(0, mf_pub_id(fd, &id));
	st = beside("xdp_blocklist", "lo bpf.test.loader.id 0", out,
		    sizeof(out));
	ASSERT_EQ(0, mf_unpublish(fd));
	close(fd);
	if (st == -2)
		SKIP(return, "xdp_blocklist is not installed beside the test");
	TH_LOG("xdp_blocklist: exit %d: %s", st, out);
	EXPECT_EQ(0, st);
	snprintf(want, sizeof(want), "published id %u\n", id);
	EXPECT_NE(NULL, strstr(out, want));
	EXPECT_NE(NULL, strstr(out, "dropped 0 passed 0"));
}

/*
 * The netfilter example's loader: attaches to this namespace's IPv4
 * prerouting with a netfilter BPF link and detaches at once; or exits 2
 * naming the feature bit (6.1).
 */
TEST_F(bpf, nf_loader)
{
	char out[1024];
	int st = beside("nf_dedup", "bpf.test.nf 0", out, sizeof(out));

	if (st == -2)
		SKIP(return, "nf_dedup is not installed beside the test");
	TH_LOG("nf_dedup: exit %d: %s", st, out);
	if (self->kfuncs) {
		EXPECT_EQ(0, st);
		EXPECT_NE(NULL, strstr(out, "attached to ipv4 prerouting"));
		EXPECT_NE(NULL, strstr(out, "passed 0 dropped 0"));
	} else {
		EXPECT_EQ(2, st);
		EXPECT_NE(NULL, strstr(out, "MEMFILTER_FEAT_BPF_KFUNCS clear"));
	}
}

/* memfilterctl version lists "bpf-kfuncs" exactly when the bit is set. */
TEST_F(bpf, version_feature)
{
	char out[1024];
	int st = beside("memfilterctl", "version", out, sizeof(out));

	if (st == -2)
		SKIP(return, "memfilterctl is not installed beside the test");
	ASSERT_EQ(0, st) TH_LOG("%s", out);
	EXPECT_EQ(self->kfuncs, strstr(out, "bpf-kfuncs") != NULL)
		TH_LOG("%s", out);
}

static long refcnt(void)
{
	FILE *f = fopen(REFCNT_PATH, "r");
	long n = -1;

	if (f) {
		if (fscanf(f, "%ld", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

/*
 * Wait until only this test's /dev/memfilter fd holds the module: a
 * program that used the kfuncs drops its module reference after an RCU
 * grace period and a work item, not when its last fd is closed.
 */
static long settled_refcnt(void)
{
	int i;

	for (i = 0; i < 100 && refcnt() != 1; i++)
		usleep(100 * 1000);
	return refcnt();
}

/*
 * A loaded program that uses the kfuncs pins the module. Last in the file,
 * so tests run in order: the earlier tests' programs are gone too.
 */
TEST_F(bpf, module_pinned)
{
	struct xdp_blocklist_bpf *skel;

	NEED_KFUNCS();
	ASSERT_EQ(1, settled_refcnt());
	skel = xdp_blocklist_bpf__open_and_load();
	ASSERT_NE(NULL, skel);
	EXPECT_EQ(2, refcnt());
	/* delete_module(2) says EWOULDBLOCK (EAGAIN) for a module in use. */
	EXPECT_EQ(-1, syscall(SYS_delete_module, "memfilter", O_NONBLOCK));
	EXPECT_EQ(EWOULDBLOCK, errno);
	xdp_blocklist_bpf__destroy(skel);
	EXPECT_EQ(1, settled_refcnt());
}

TEST_HARNESS_MAIN
