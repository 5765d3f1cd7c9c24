/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpf_test's helpers, on top of memfilter_utils.h: filters and the
 * packets sent through the XDP
 * example (the source addresses a filter blocks), running XDP, TC and
 * syscall programs with BPF_PROG_TEST_RUN and kfunc_ops's programs one
 * kfunc at a time, the exact blocklist check, and loading one program
 * for the verifier's log. Included by tests/bpf_test.c only, after
 * kselftest_harness.h and the skeletons.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#ifndef _MF_BPF_UTILS_H
#define _MF_BPF_UTILS_H

#include "memfilter_utils.h"

/* Sources sent through the XDP program; the filter holds every 4th. */
#define N_SRC	600
#define XDP_NAME "bpf.test.xdp"

/* A library filter with the tests' fixed seed: its fd or -errno. */
static int seeded(int dev, int type, uint64_t capacity, double fpr,
		  const char *name)
{
	struct mf_create_opts o = {
		.type = type,
		.capacity = capacity,
		.fpr = fpr,
		.fixed_seed = true,
		.seed = 0x6d656d66696c7472ull,
		.name = name,
	};

	return mf_create(dev, &o);
}

/* Ethernet + IPv4 or IPv6 header with source address @a. */
static size_t addr_packet(uint8_t *p, const struct mf_prefix *a)
{
	memset(p, 0, 64);
	if (a->family == MF_PREFIX_IPV4) {
		p[12] = 0x08;			/* ETH_P_IP */
		p[14] = 0x45;
		p[14 + 8] = 64;
		p[14 + 9] = 17;
		memcpy(p + 14 + 12, a->addr, 4);
		return 14 + 20;
	}
	p[12] = 0x86;				/* ETH_P_IPV6 */
	p[13] = 0xdd;
	p[14] = 0x60;
	p[14 + 6] = 17;
	p[14 + 7] = 64;
	memcpy(p + 14 + 8, a->addr, 16);
	return 14 + 40;
}

/*
 * Ethernet + IPv4 or IPv6 header with source address number @i
 * (10.1.x.y, 2001:db8::x:y), which is also copied to @key.
 */
static size_t packet(uint8_t *p, int i, bool v6, uint8_t *key, size_t *klen)
{
	struct mf_prefix a = { .family = v6 ? MF_PREFIX_IPV6 : MF_PREFIX_IPV4 };

	if (!v6) {
		a.addr[0] = 10;
		a.addr[1] = 1;
		a.addr[2] = i >> 8;
		a.addr[3] = i;
		*klen = 4;
	} else {
		memcpy(a.addr, "\x20\x01\x0d\xb8", 4);
		a.addr[14] = i >> 8;
		a.addr[15] = i;
		*klen = 16;
	}
	memcpy(key, a.addr, *klen);
	return addr_packet(p, &a);
}

/*
 * A Bloom filter (5% FPR) published as @name (NULL: none) holding the
 * sources @first, @first + 4, ... of N_SRC IPv4 sources, and of as many
 * IPv6 ones with @v6, and *@off: the same filter, from its dump,
 * offline. Returns its fd, or -errno.
 */
static int blocklist_from(int dev, const char *name, bool v6, int first,
			  struct mf_offline **off)
{
	uint8_t pkt[64], key[16];
	int fd, i, fam, ret;
	size_t klen, ilen;
	void *img;

	fd = seeded(dev, MF_TYPE_BLOOM, (v6 ? 2 : 1) * N_SRC / 4, 0.05, name);
	if (fd < 0)
		return fd;
	for (fam = 0; fam <= v6; fam++)
		for (i = first; i < N_SRC; i += 4) {
			packet(pkt, i, fam, key, &klen);
			ret = mf_add(fd, key, klen, 1, NULL, NULL);
			if (ret != 1)
				goto fail;
		}
	ret = mf_dump(fd, &img, &ilen);
	if (ret)
		goto fail;
	ret = mf_offline_from_image(img, ilen, off, NULL);
	free(img);
	if (!ret)
		return fd;
fail:
	close(fd);
	return ret < 0 ? ret : -EIO;
}

/* blocklist_from() of every 4th source from the first. */
static int blocklist(int dev, const char *name, bool v6, struct mf_offline **off)
{
	return blocklist_from(dev, name, v6, 0, off);
}

static int run_xdp(int prog, const void *pkt, size_t len, __u32 *retval)
{
	uint8_t out[128];
	LIBBPF_OPTS(bpf_test_run_opts, o,
		.data_in = pkt,
		.data_size_in = len,
		.data_out = out,
		.data_size_out = sizeof(out),
		.repeat = 1,
	);
	int ret = bpf_prog_test_run_opts(prog, &o);

	*retval = o.retval;
	return ret;
}

static struct kfunc_ops_bpf *ops_load(const char *name)
{
	struct kfunc_ops_bpf *skel = kfunc_ops_bpf__open();

	if (!skel)
		return NULL;
	strcpy((char *)skel->rodata->filter_name, name);
	if (kfunc_ops_bpf__load(skel)) {
		kfunc_ops_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

/* Verdicts of program @prog for N_SRC IPv4 sources against offline @off. */
static void tc_check(struct __test_metadata *_metadata,
		     struct bpf_program *prog, struct mf_offline *off,
		     unsigned int *shot)
{
	uint8_t pkt[64], key[16];
	size_t klen, len;
	ssize_t maybe;
	int i;

	*shot = 0;
	for (i = 0; i < N_SRC; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .repeat = 1);

		len = packet(pkt, i, false, key, &klen);
		o.data_size_in = len;
		maybe = mf_offline_query(off, key, klen, 1, NULL, NULL);
		ASSERT_LE(0, maybe);
		*shot += maybe;
		ASSERT_EQ(0, bpf_prog_test_run_opts(bpf_program__fd(prog), &o));
		ASSERT_EQ(maybe ? 2 : 0, o.retval)	/* TC_ACT_SHOT : _OK */
			TH_LOG("%s: source %d", bpf_program__name(prog), i);
	}
}

/*
 * Verdicts of XDP program @prog for N_SRC IPv4 and N_SRC IPv6 sources
 * against offline @off, packet by packet; *@drop: how many it dropped,
 * *@fp: of them, sources not among every 4th from @first (false
 * positives).
 */
static void xdp_check(struct __test_metadata *_metadata, int prog,
		      struct mf_offline *off, int first, unsigned int *drop,
		      unsigned int *fp)
{
	uint8_t pkt[64], key[16];
	unsigned int v6;
	size_t klen, len;
	ssize_t maybe;
	__u32 rv;
	int i;

	*drop = *fp = 0;
	for (v6 = 0; v6 < 2; v6++)
		for (i = 0; i < N_SRC; i++) {
			len = packet(pkt, i, v6, key, &klen);
			maybe = mf_offline_query(off, key, klen, 1, NULL, NULL);
			ASSERT_LE(0, maybe);
			if (i % 4 == first) {
				ASSERT_EQ(1, maybe);	/* no false negative */
			} else {
				*fp += maybe;
			}
			*drop += maybe;
			ASSERT_EQ(0, run_xdp(prog, pkt, len, &rv));
			ASSERT_EQ(maybe ? XDP_DROP : XDP_PASS, rv)
				TH_LOG("source %d (IPv%d)", i, v6 ? 6 : 4);
		}
}

/*
 * The example's verdicts, packet by packet, against the offline query of
 * the same filter; the filter found by name (bpf_memfilter_borrow()) or,
 * with @by_id, by its published id (bpf_memfilter_contains_id()).
 */
static void blocklist_exact(struct __test_metadata *_metadata, int dev,
			    bool by_id)
{
	struct xdp_blocklist_bpf *skel;
	struct mf_info before, after;
	struct mf_offline *off;
	uint8_t pkt[64], key[16];
	unsigned int drop, fp;
	size_t klen, len;
	int fd, prog;
	uint32_t id = 0;
	__u32 rv;

	fd = blocklist(dev, XDP_NAME, true, &off);
	ASSERT_LE(0, fd) TH_LOG("blocklist: %s", mf_strerror(fd));
	if (by_id)
		ASSERT_EQ(0, mf_pub_id(fd, &id));

	skel = xdp_blocklist_bpf__open();
	ASSERT_NE(NULL, skel);
	strcpy((char *)skel->rodata->filter_name, XDP_NAME);
	skel->rodata->filter_id = id;
	ASSERT_EQ(0, xdp_blocklist_bpf__load(skel));
	prog = bpf_program__fd(skel->progs.xdp_blocklist);

	ASSERT_EQ(0, mf_info(fd, &before));
	xdp_check(_metadata, prog, off, 0, &drop, &fp);
	TH_LOG("%u packets, %u dropped, %u of them false positives",
	       2 * N_SRC, drop, fp);
	/* A Bloom filter at 5% FPR has some among 900 absent sources. */
	EXPECT_LT(0, fp);
	EXPECT_EQ(drop, skel->bss->counts.dropped);
	EXPECT_EQ(2 * N_SRC - drop, skel->bss->counts.passed);
	EXPECT_EQ(0, skel->bss->counts.not_ip);
	EXPECT_EQ(0, skel->bss->counts.no_filter);
	/* The filter's own counters: one query per packet, hits = drops. */
	ASSERT_EQ(0, mf_info(fd, &after));
	EXPECT_EQ(2 * N_SRC, after.queries - before.queries);
	EXPECT_EQ(drop, after.hits - before.hits);

	/* Not IP: passed, counted apart. */
	memset(pkt, 0, sizeof(pkt));
	pkt[12] = 0x08;
	pkt[13] = 0x06;				/* ETH_P_ARP */
	ASSERT_EQ(0, run_xdp(prog, pkt, 42, &rv));
	EXPECT_EQ(XDP_PASS, rv);
	EXPECT_EQ(1, skel->bss->counts.not_ip);

	/*
	 * Unpublished: the name or the id finds nothing (-ESRCH from
	 * bpf_memfilter_contains_id()), the packet passes.
	 */
	ASSERT_EQ(0, mf_unpublish(fd));
	len = packet(pkt, 0, false, key, &klen);
	ASSERT_EQ(0, run_xdp(prog, pkt, len, &rv));
	EXPECT_EQ(XDP_PASS, rv);
	EXPECT_EQ(1, skel->bss->counts.no_filter);

	xdp_blocklist_bpf__destroy(skel);
	mf_offline_free(off);
	close(fd);
}

/* Run one kfunc on @key; returns its return value (or -1000 on failure). */
static int op(struct kfunc_ops_bpf *skel, int op, const void *key,
	      size_t len)
{
	struct kfunc_op_args *a = &skel->bss->args;
	LIBBPF_OPTS(bpf_test_run_opts, o);

	a->op = op;
	a->len = len;
	memcpy(a->key, key, len);
	a->got = -1;
	if (bpf_prog_test_run_opts(bpf_program__fd(skel->progs.kfunc_op), &o) ||
	    o.retval || a->got != 1)
		return -1000;
	return a->ret;
}

/*
 * Run borrow_id_op: borrow by @id, contains(@key). Returns args.got (1
 * found, 0 not) with the contains value in *@ret, or -1 if the run failed.
 */
static int by_id(struct kfunc_ops_bpf *skel, uint32_t id, const void *key,
		 size_t len, int *ret)
{
	struct kfunc_op_args *a = &skel->bss->args;
	uint8_t pkt[64] = { 0 };
	__u32 retval;

	a->id = id;
	a->len = len;
	memcpy(a->key, key, len);
	a->got = -1;
	a->ret = -1000;
	if (run_xdp(bpf_program__fd(skel->progs.borrow_id_op), pkt,
		    sizeof(pkt), &retval) || retval != XDP_PASS)
		return -1;
	*ret = a->ret;
	return a->got;
}

/*
 * Run by_id_op: @kop (KFUNC_OP_CONTAINS or KFUNC_OP_TEST_AND_ADD) through
 * bpf_memfilter_contains_id() or bpf_memfilter_test_and_add_id() on @key
 * by @id. Returns the kfunc's value, or -1000 if the run failed.
 */
static int one_call(struct kfunc_ops_bpf *skel, int kop, uint32_t id,
		    const void *key, size_t len)
{
	struct kfunc_op_args *a = &skel->bss->args;
	uint8_t pkt[64] = { 0 };
	__u32 retval;

	a->op = kop;
	a->id = id;
	a->len = len;
	memcpy(a->key, key, len);
	a->ret = -1000;
	if (run_xdp(bpf_program__fd(skel->progs.by_id_op), pkt, sizeof(pkt),
		    &retval) || retval != XDP_PASS)
		return -1000;
	return a->ret;
}

/* How many live filters have capacity @cap (debugfs lists every one). */
static int listed(uint64_t cap)
{
	FILE *f = fopen("/sys/kernel/debug/memfilter/filters", "r");
	char line[512];
	unsigned long long c;
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*u %*s %*s %*u %llu", &c) == 1 && c == cap)
			n++;
	fclose(f);
	return n;
}

static int run_syscall(struct bpf_program *prog)
{
	LIBBPF_OPTS(bpf_test_run_opts, o);

	if (bpf_prog_test_run_opts(bpf_program__fd(prog), &o))
		return -1000;
	return o.retval;
}

static char vlog[1 << 16];

/* Load only program @name of kfunc_ops; return its verifier log. */
static int load_one(const char *name)
{
	struct kfunc_ops_bpf *skel = kfunc_ops_bpf__open();
	struct bpf_program *p;
	int ret;

	if (!skel)
		return -ENOMEM;
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, !strcmp(bpf_program__name(p),
						     name));
	vlog[0] = 0;
	p = bpf_object__find_program_by_name(skel->obj, name);
	bpf_program__set_log_buf(p, vlog, sizeof(vlog));
	bpf_program__set_log_level(p, 1);
	ret = kfunc_ops_bpf__load(skel);
	kfunc_ops_bpf__destroy(skel);
	return ret;
}

/* The verifier refuses program @prog of kfunc_ops with message @msg. */
static void refused(struct __test_metadata *_metadata, const char *prog,
		    const char *msg)
{
	const char *line;
	size_t n;

	ASSERT_NE(0, load_one(prog)) TH_LOG("the verifier accepted %s", prog);
	n = strlen(vlog);
	line = strstr(vlog, msg);
	ASSERT_NE(NULL, line)
		TH_LOG("verifier log ends: %s", vlog + (n > 600 ? n - 600 : 0));
	TH_LOG("verifier: %.*s", (int)strcspn(line, "\n"), line);
}

#endif /* _MF_BPF_UTILS_H */
