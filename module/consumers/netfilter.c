// SPDX-License-Identifier: GPL-2.0
/*
 * memfilter's netfilter hook: a published filter attached to an IPv4
 * and/or IPv6 hook of a network namespace decides, from one key taken out
 * of each packet, whether the packet passes (drop-hit, drop-miss, and
 * dedup, which drops a key the filter may have seen and adds it with
 * memfilter_test_and_add()) or is only counted (count). Attached, detached
 * and listed through /dev/memfilter (NF_ATTACH, NF_DETACH, NF_LIST: their
 * arguments and privileges are nf_ioctl.c's) and shown in debugfs
 * (memfilter/netfilter).
 *
 * Conventions in this file: attachments live on one list under mf_nf_lock
 * (a mutex: registering a hook sleeps), and by id in mf_nf_ids, which
 * hands ids out cyclically and never one that is in use; each belongs to
 * the namespace it was attached in, whose pernet exit removes it, as does
 * module unload.
 * The packet path never locks and never modifies the skb: it reads headers
 * and payload with skb_header_pointer() into a per-CPU scratch buffer
 * (bottom halves disabled while it is in use), asks the filter through the
 * in-kernel API (include/linux/memfilter.h) but for the key query, inline
 * (memfilter_contains_inline(), filter/filter.h), and answers NF_ACCEPT or
 * NF_DROP. Address keys come from the fixed IP header alone, so every packet
 * has one; only port and payload keys parse further, and a packet without
 * such a key is "skipped": dropped by drop-miss (an allowlist never lets
 * through what it could not check), accepted by the other actions. Each
 * packet lands in exactly one of the skipped, hits and misses counters. An
 * attachment holds its filter's name entry (memfilter_name_hold()), not the
 * filter: each packet asks the filter the name refers to at that moment
 * (memfilter_name_filter(), one load inside the hook's RCU read-side
 * section), so a replace or an exchange of the name reaches every attachment
 * in the one step it takes, and the attachment's counters go on counting.
 * After an unpublish the entry keeps the filter it had last. An attachment,
 * with its hold on the entry, is freed an RCU grace period after its hooks
 * were unregistered, so a packet still inside the hook finishes with it.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/list.h>
#include <linux/memfilter.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <kunit/visibility.h>
#include <linux/u64_stats_sync.h>
#include <linux/udp.h>
#include <linux/xarray.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>

/*
 * The internals the hook uses (Documentation/internals.rst, "How to add
 * an in-kernel consumer"): memfilter_contains_inline(), the name holds
 * and memfilter_name_filter().
 */
#include "filter/filter.h"
#include "netfilter.h"

/* Key bytes: two IPv6 addresses, two ports and the protocol at most. */
#define MF_NF_TUPLE_MAX	(2 * sizeof(struct in6_addr) + 2 * sizeof(__be16) + 1)

struct mf_nf_stats {
	u64_stats_t packets;
	u64_stats_t hits;
	u64_stats_t drops;
	u64_stats_t added;
	u64_stats_t skipped;
	u64_stats_t misses;
	u64_stats_t add_failed;
	struct u64_stats_sync syncp;
};

/**
 * struct mf_nf_attachment - one filter on one hook of one namespace
 * @node: on mf_nf_list, under mf_nf_lock
 * @rcu: frees it after the last packet left the hook
 * @net: the namespace; no reference (its pernet exit detaches us first)
 * @pub: the filter's name entry, held (memfilter_name_hold()): the filter
 *	is memfilter_name_filter(@pub), read once per packet
 * @stats: per-CPU counters
 * @ops: the registered hooks (IPv4, IPv6)
 * @nops: how many of @ops are used
 * @id: what userspace calls it: its index in mf_nf_ids
 * @family: MEMFILTER_NF_IPV4 / _IPV6 bits
 * @hook: MEMFILTER_NF_PRE_ROUTING .. _POST_ROUTING
 * @key: MEMFILTER_NF_KEY_*
 * @action: MEMFILTER_NF_*
 * @priority: the hook priority
 * @name: the filter's name when attached
 */
struct mf_nf_attachment {
	struct list_head node;
	struct rcu_head rcu;
	struct net *net;
	struct memfilter_name_entry *pub;
	struct mf_nf_stats __percpu *stats;
	struct nf_hook_ops ops[2];
	unsigned int nops;
	u32 id;
	u32 family, hook, key, action;
	s32 priority;
	char name[MEMFILTER_NAME_MAX];
};

struct mf_nf_scratch {
	u8 buf[MEMFILTER_KEY_MAX];
};

static DEFINE_PER_CPU(struct mf_nf_scratch, mf_nf_scratch);
static DEFINE_MUTEX(mf_nf_lock);
static LIST_HEAD(mf_nf_list);	/* every attachment, under mf_nf_lock */
/* Every attachment by id, 1 .. U32_MAX; @mf_nf_next_id under its lock. */
static DEFINE_XARRAY_ALLOC1(mf_nf_ids);
static u32 mf_nf_next_id = 1;
static struct dentry *mf_nf_debugfs;

/**
 * memfilter_nf_id_alloc() - a new attachment id
 * @entry: what the id will name (not NULL)
 * @id: out: the id
 *
 * Cyclic: the id after the last one handed out that is not in use, from 1
 * to U32_MAX, so an id is never reused while attached and a detached one
 * only after 2^32 - 1 more attachments.
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOMEM, or -ENOSPC when every id is in use.
 */
int memfilter_nf_id_alloc(void *entry, u32 *id)
{
	int ret = xa_alloc_cyclic(&mf_nf_ids, id, entry,
				  XA_LIMIT(1, U32_MAX), &mf_nf_next_id,
				  GFP_KERNEL_ACCOUNT);

	if (ret == -EBUSY)
		return -ENOSPC;
	return ret < 0 ? ret : 0;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_nf_id_alloc);

/**
 * memfilter_nf_id_free() - give an id back
 * @id: from memfilter_nf_id_alloc()
 *
 * Context: any but hard interrupt.
 */
void memfilter_nf_id_free(u32 id)
{
	xa_erase(&mf_nf_ids, id);
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_nf_id_free);

/**
 * memfilter_nf_id_set_next() - where the next id search starts (KUnit)
 * @next: the first id to try
 *
 * Context: process context.
 * Return: where it started before.
 */
u32 memfilter_nf_id_set_next(u32 next)
{
	u32 old;

	xa_lock(&mf_nf_ids);
	old = mf_nf_next_id;
	mf_nf_next_id = next;
	xa_unlock(&mf_nf_ids);
	return old;
}
EXPORT_SYMBOL_IF_KUNIT(memfilter_nf_id_set_next);

/* The ports of a protocol that has them at the start of its header. */
static bool mf_nf_has_ports(u8 proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
	       proto == IPPROTO_UDPLITE || proto == IPPROTO_SCTP ||
	       proto == IPPROTO_DCCP;
}

/*
 * The L4 payload of a TCP or UDP packet that is not a fragment or a GSO
 * super-packet: its bytes (in the skb or copied to @buf) and length; NULL
 * when it is empty or longer than MEMFILTER_KEY_MAX.
 */
static const void *mf_nf_payload(struct sk_buff *skb, unsigned int thoff,
				 u8 proto, void *buf, u32 *len)
{
	unsigned int off, end;

	if (skb_is_gso(skb))
		return NULL;
	if (proto == IPPROTO_TCP) {
		struct tcphdr _th;
		const struct tcphdr *th;

		th = skb_header_pointer(skb, thoff, sizeof(_th), &_th);
		if (!th || th->doff * 4 < sizeof(*th))
			return NULL;
		off = thoff + th->doff * 4;
		end = skb->len;
	} else if (proto == IPPROTO_UDP) {
		struct udphdr _uh;
		const struct udphdr *uh;

		uh = skb_header_pointer(skb, thoff, sizeof(_uh), &_uh);
		if (!uh || ntohs(uh->len) < sizeof(*uh))
			return NULL;
		off = thoff + sizeof(*uh);
		end = thoff + ntohs(uh->len);
	} else {
		return NULL;
	}
	/*
	 * An empty payload (a bare SYN, ACK or FIN) has nothing to match:
	 * as one key of every such packet, dedup would drop all but the
	 * first and stall every TCP connection through it.
	 */
	if (off >= end || end > skb->len || end - off > MEMFILTER_KEY_MAX)
		return NULL;
	*len = end - off;
	return skb_header_pointer(skb, off, *len, buf);
}

/*
 * Where a packet's transport header is, for the 5-tuple and payload keys:
 * @thoff: its offset (unset for a later fragment)
 * @proto: the protocol
 * @fragment: the packet is a fragment, the first one included
 * @later: a fragment but the first (it has no transport header)
 */
struct mf_nf_l4 {
	unsigned int thoff;
	u8 proto;
	bool fragment;
	bool later;
};

/*
 * Append the ports of a whole packet or first fragment, or zeros for a
 * protocol without ports (later fragments too: they have none either).
 * False when they cannot be read: a later fragment of a protocol with
 * ports, a truncated header.
 */
static bool mf_nf_ports(struct sk_buff *skb, const struct mf_nf_l4 *l4,
			u8 *out)
{
	const __be16 *ports;
	__be16 _ports[2];

	if (!mf_nf_has_ports(l4->proto)) {
		memset(out, 0, sizeof(_ports));
		return true;
	}
	if (l4->later)
		return false;
	ports = skb_header_pointer(skb, l4->thoff, sizeof(_ports), _ports);
	if (!ports)
		return false;
	memcpy(out, ports, sizeof(_ports));
	return true;
}

static bool mf_nf_address_key(const struct mf_nf_attachment *a)
{
	return a->key == MEMFILTER_NF_KEY_SADDR ||
	       a->key == MEMFILTER_NF_KEY_DADDR;
}

/*
 * An address key, from the fixed header alone: every packet has one,
 * fragments and packets with any extension header chain included.
 */
static const void *mf_nf_key_address(const struct mf_nf_attachment *a,
				     const void *saddr, const void *daddr,
				     unsigned int alen, u32 *len)
{
	*len = alen;
	return a->key == MEMFILTER_NF_KEY_SADDR ? saddr : daddr;
}

/*
 * The 5-tuple or payload key of a packet whose transport header is at
 * @l4: NULL to skip it. @saddr and @daddr point to the addresses of @alen
 * bytes in the (copied) network header.
 */
static const void *mf_nf_key_l4(const struct mf_nf_attachment *a,
				struct sk_buff *skb, const void *saddr,
				const void *daddr, unsigned int alen,
				const struct mf_nf_l4 *l4, void *buf, u32 *len)
{
	u8 *k = buf;

	if (a->key == MEMFILTER_NF_KEY_L4_PAYLOAD) {
		if (l4->fragment)
			return NULL;
		return mf_nf_payload(skb, l4->thoff, l4->proto, buf, len);
	}
	memcpy(k, saddr, alen);
	memcpy(k + alen, daddr, alen);
	if (!mf_nf_ports(skb, l4, k + 2 * alen))
		return NULL;
	k[2 * alen + 4] = l4->proto;
	*len = 2 * alen + 5;
	return k;
}

static const void *mf_nf_key_ipv4(const struct mf_nf_attachment *a,
				  struct sk_buff *skb, struct iphdr *iph,
				  void *buf, u32 *len)
{
	unsigned int nhoff = skb_network_offset(skb);
	const struct iphdr *h;
	struct mf_nf_l4 l4;
	u16 frag;

	h = skb_header_pointer(skb, nhoff, sizeof(*iph), iph);
	if (!h || h->version != 4)
		return NULL;
	if (mf_nf_address_key(a))
		return mf_nf_key_address(a, &h->saddr, &h->daddr,
					 sizeof(h->saddr), len);
	if (h->ihl < 5)
		return NULL;
	frag = ntohs(h->frag_off);
	l4.thoff = nhoff + h->ihl * 4;
	l4.proto = h->protocol;
	l4.fragment = frag & (IP_OFFSET | IP_MF);
	l4.later = frag & IP_OFFSET;
	return mf_nf_key_l4(a, skb, &h->saddr, &h->daddr, sizeof(h->saddr),
			    &l4, buf, len);
}

static const void *mf_nf_key_ipv6(const struct mf_nf_attachment *a,
				  struct sk_buff *skb, struct ipv6hdr *ip6h,
				  void *buf, u32 *len)
{
	const struct ipv6hdr *h;
	unsigned short fragoff;
	struct mf_nf_l4 l4 = {};
	int proto, flags = 0;

	if (!IS_ENABLED(CONFIG_IPV6))
		return NULL;
	h = skb_header_pointer(skb, skb_network_offset(skb), sizeof(*ip6h),
			       ip6h);
	if (!h || h->version != 6)
		return NULL;
	if (mf_nf_address_key(a))
		return mf_nf_key_address(a, &h->saddr, &h->daddr,
					 sizeof(h->saddr), len);
	/* A later fragment's protocol, when no header follows its own. */
	proto = ipv6_find_hdr(skb, &l4.thoff, -1, &fragoff, &flags);
	if (proto < 0)
		return NULL;
	l4.proto = proto;
	l4.fragment = flags & IP6_FH_F_FRAG;
	l4.later = fragoff;
	return mf_nf_key_l4(a, skb, &h->saddr, &h->daddr, sizeof(h->saddr),
			    &l4, buf, len);
}

static unsigned int mf_nf_hook(void *priv, struct sk_buff *skb,
			       const struct nf_hook_state *state)
{
	struct mf_nf_attachment *a = priv;
	struct memfilter *f;
	struct mf_nf_stats *st;
	union {
		struct iphdr v4;
		struct ipv6hdr v6;
	} hdr;
	bool hit = false, drop, added = false, failed = false;
	const void *key;
	u32 len;
	int ret;

	/* The scratch buffer and the counters are this CPU's until enable. */
	local_bh_disable();
	/* The hook runs inside rcu_read_lock() (nf_hook()). */
	f = memfilter_name_filter(a->pub);
	st = this_cpu_ptr(a->stats);
	if (state->pf == NFPROTO_IPV4)
		key = mf_nf_key_ipv4(a, skb, &hdr.v4,
				     this_cpu_ptr(&mf_nf_scratch)->buf, &len);
	else
		key = mf_nf_key_ipv6(a, skb, &hdr.v6,
				     this_cpu_ptr(&mf_nf_scratch)->buf, &len);
	if (!key) {
		/* An allowlist lets nothing through that it cannot check. */
		drop = a->action == MEMFILTER_NF_DROP_MISS;
	} else if (a->action == MEMFILTER_NF_DEDUP) {
		/*
		 * 1: may have been seen (also while the filter has no room
		 * for new keys); 0: new, now added; < 0: certainly new, not
		 * added (a growing filter's newest sub-filter was full:
		 * -EAGAIN, or -ENOSPC at its limits; a window rotating by
		 * count waits for its rotation: -EAGAIN), accepted.
		 */
		ret = memfilter_test_and_add(f, key, len);
		hit = ret == 1;
		added = ret == 0;
		failed = ret < 0;
		drop = hit;
	} else {
		/* Addresses by the prefix rule: a filter of keys looks one up. */
		hit = mf_nf_address_key(a) ?
		      memfilter_contains_addr(f, key, len) :
		      memfilter_contains_inline(f, key, len);
		drop = a->action == MEMFILTER_NF_DROP_HIT ? hit :
		       a->action == MEMFILTER_NF_DROP_MISS ? !hit : false;
	}
	u64_stats_update_begin(&st->syncp);
	u64_stats_inc(&st->packets);
	if (!key)
		u64_stats_inc(&st->skipped);
	else if (hit)
		u64_stats_inc(&st->hits);
	else
		u64_stats_inc(&st->misses);
	if (drop)
		u64_stats_inc(&st->drops);
	if (added)
		u64_stats_inc(&st->added);
	if (failed)
		u64_stats_inc(&st->add_failed);
	u64_stats_update_end(&st->syncp);
	local_bh_enable();
	return drop ? NF_DROP : NF_ACCEPT;
}

static void mf_nf_free_rcu(struct rcu_head *rcu)
{
	struct mf_nf_attachment *a = container_of(rcu, typeof(*a), rcu);

	memfilter_name_release(a->pub);
	free_percpu(a->stats);
	kfree(a);
}

/*
 * What the attachment asks of every filter its name refers to. Dedup adds
 * keys: a type with test-and-add (Bloom, window, grow), and not addresses
 * into a prefix filter (whose keys are prefixes).
 */
static unsigned int mf_nf_hold_flags(const struct mf_nf_attachment *a)
{
	if (a->action != MEMFILTER_NF_DEDUP)
		return 0;
	return MEMFILTER_HOLD_TEST_AND_ADD |
	       (mf_nf_address_key(a) ? MEMFILTER_HOLD_ADDRESSES : 0);
}

/* The attachment no longer asks anything of its name's filters. */
static void mf_nf_end_hold(struct mf_nf_attachment *a)
{
	memfilter_name_end_hold(a->pub, mf_nf_hold_flags(a));
}

/* Unhook and free after a grace period. Called with mf_nf_lock held. */
static void mf_nf_detach_locked(struct mf_nf_attachment *a)
{
	lockdep_assert_held(&mf_nf_lock);
	list_del(&a->node);
	memfilter_nf_id_free(a->id);
	nf_unregister_net_hooks(a->net, a->ops, a->nops);
	mf_nf_end_hold(a);
	call_rcu(&a->rcu, mf_nf_free_rcu);
}

static void mf_nf_read_stats(const struct mf_nf_attachment *a,
			     struct memfilter_nf_entry *e)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct mf_nf_stats *st = per_cpu_ptr(a->stats, cpu);
		u64 packets, hits, drops, added, skipped, misses, failed;
		unsigned int start;

		do {
			start = u64_stats_fetch_begin(&st->syncp);
			packets = u64_stats_read(&st->packets);
			hits = u64_stats_read(&st->hits);
			drops = u64_stats_read(&st->drops);
			added = u64_stats_read(&st->added);
			skipped = u64_stats_read(&st->skipped);
			misses = u64_stats_read(&st->misses);
			failed = u64_stats_read(&st->add_failed);
		} while (u64_stats_fetch_retry(&st->syncp, start));
		e->packets += packets;
		e->hits += hits;
		e->drops += drops;
		e->added += added;
		e->skipped += skipped;
		e->misses += misses;
		e->add_failed += failed;
	}
}

static void mf_nf_entry(const struct mf_nf_attachment *a,
			struct memfilter_nf_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->id = a->id;
	e->family = a->family;
	e->hook = a->hook;
	e->priority = a->priority;
	e->key = a->key;
	e->action = a->action;
	strscpy(e->name, a->name, sizeof(e->name));
	mf_nf_read_stats(a, e);
}

static struct mf_nf_attachment *mf_nf_alloc(const struct memfilter_nf_attach *cmd,
					    struct net *net)
{
	static const u8 pfs[] = { NFPROTO_IPV4, NFPROTO_IPV6 };
	struct mf_nf_attachment *a;
	unsigned int i;
	int cpu;

	a = kzalloc(sizeof(*a), GFP_KERNEL_ACCOUNT);
	if (!a)
		return NULL;
	a->stats = alloc_percpu_gfp(struct mf_nf_stats, GFP_KERNEL_ACCOUNT);
	if (!a->stats) {
		kfree(a);
		return NULL;
	}
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(a->stats, cpu)->syncp);
	a->net = net;
	a->family = cmd->family;
	a->hook = cmd->hook;
	a->key = cmd->key;
	a->action = cmd->action;
	a->priority = cmd->flags & MEMFILTER_NF_ATTACH_PRIORITY ?
		      cmd->priority : MEMFILTER_NF_PRIORITY_DEFAULT;
	strscpy(a->name, cmd->name, sizeof(a->name));
	for (i = 0; i < ARRAY_SIZE(pfs); i++) {
		struct nf_hook_ops *ops = &a->ops[a->nops];

		if (!(cmd->family & BIT(i)))
			continue;
		ops->hook = mf_nf_hook;
		ops->priv = a;
		ops->pf = pfs[i];
		ops->hooknum = cmd->hook;
		ops->priority = a->priority;
		a->nops++;
	}
	return a;
}

/**
 * memfilter_nf_attach() - attach a published filter to a hook
 * @net: the namespace whose hook it is
 * @cmd: the attachment, checked by the caller (nf_ioctl.c)
 * @reply: called with the new attachment's id, under mf_nf_lock, once it
 *	is live; if it fails, the attachment is undone and its error returned
 * @arg: @reply's argument
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOMEM, -ENOSPC (MEMFILTER_NF_MAX attachments in @net
 * already), the name's errors (memfilter_name_hold()), nf_register_net_hooks()'s,
 * or @reply's.
 */
int memfilter_nf_attach(struct net *net, const struct memfilter_nf_attach *cmd,
			int (*reply)(void *arg, u32 id), void *arg)
{
	struct mf_nf_attachment *a, *pos;
	unsigned int n = 0;
	int ret;

	a = mf_nf_alloc(cmd, net);
	if (!a)
		return -ENOMEM;
	a->pub = memfilter_name_hold(cmd->name, mf_nf_hold_flags(a));
	if (IS_ERR(a->pub)) {
		ret = PTR_ERR(a->pub);
		goto out_free;
	}

	mutex_lock(&mf_nf_lock);
	list_for_each_entry(pos, &mf_nf_list, node)
		n += pos->net == net;
	if (n >= MEMFILTER_NF_MAX) {
		ret = -ENOSPC;
		goto out_unlock;
	}
	ret = memfilter_nf_id_alloc(a, &a->id);
	if (ret)
		goto out_unlock;
	ret = nf_register_net_hooks(net, a->ops, a->nops);
	if (ret)
		goto out_free_id;
	list_add_tail(&a->node, &mf_nf_list);
	ret = reply(arg, a->id);
	if (ret)	/* The caller cannot know the id: undo. */
		mf_nf_detach_locked(a);
	mutex_unlock(&mf_nf_lock);
	return ret;

out_free_id:
	memfilter_nf_id_free(a->id);
out_unlock:
	mutex_unlock(&mf_nf_lock);
	mf_nf_end_hold(a);
	memfilter_name_release(a->pub);
out_free:
	free_percpu(a->stats);
	kfree(a);
	return ret;
}

/**
 * memfilter_nf_detach() - detach an attachment of @net
 * @net: the namespace it was attached in
 * @id: its id
 *
 * Context: process context, may sleep.
 * Return: 0, or -ENOENT (no such id in @net).
 */
int memfilter_nf_detach(struct net *net, u32 id)
{
	struct mf_nf_attachment *a;

	guard(mutex)(&mf_nf_lock);
	a = xa_load(&mf_nf_ids, id);
	if (!a || a->net != net)
		return -ENOENT;
	mf_nf_detach_locked(a);
	return 0;
}

/**
 * memfilter_nf_list() - the attachments of @net
 * @net: the namespace
 * @e: room for MEMFILTER_NF_MAX entries, filled in attach order
 *
 * Context: process context, may sleep.
 * Return: how many attachments @net has (at most MEMFILTER_NF_MAX of them
 * are in @e).
 */
u32 memfilter_nf_list(struct net *net, struct memfilter_nf_entry *e)
{
	struct mf_nf_attachment *a;
	u32 count = 0;

	guard(mutex)(&mf_nf_lock);
	list_for_each_entry(a, &mf_nf_list, node) {
		if (a->net != net)
			continue;
		if (count < MEMFILTER_NF_MAX)
			mf_nf_entry(a, &e[count]);
		count++;
	}
	return count;
}

static const char *const mf_nf_hook_names[] = {
	"prerouting", "input", "forward", "output", "postrouting",
};

static const char *const mf_nf_key_names[] = {
	"?", "saddr", "daddr", "5-tuple", "l4-payload",
};

static const char *const mf_nf_action_names[] = {
	"?", "drop-hit", "drop-miss", "count", "dedup",
};

static int mf_nf_show(struct seq_file *m, void *v)
{
	struct memfilter_nf_entry e;
	struct mf_nf_attachment *a;

	seq_puts(m, "netns id filter family hook priority key action packets hits drops added skipped misses add_failed\n");
	guard(mutex)(&mf_nf_lock);
	list_for_each_entry(a, &mf_nf_list, node) {
		mf_nf_entry(a, &e);
		seq_printf(m, "%u %u %s %s %s %d %s %s %llu %llu %llu %llu %llu %llu %llu\n",
			   a->net->ns.inum, e.id, e.name,
			   e.family == MEMFILTER_NF_IPV4 ? "ipv4" :
			   e.family == MEMFILTER_NF_IPV6 ? "ipv6" : "both",
			   mf_nf_hook_names[e.hook], e.priority,
			   mf_nf_key_names[e.key], mf_nf_action_names[e.action],
			   e.packets, e.hits, e.drops, e.added, e.skipped,
			   e.misses, e.add_failed);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mf_nf);

static void __net_exit mf_nf_net_exit(struct net *net)
{
	struct mf_nf_attachment *a, *tmp;

	guard(mutex)(&mf_nf_lock);
	list_for_each_entry_safe(a, tmp, &mf_nf_list, node)
		if (a->net == net)
			mf_nf_detach_locked(a);
}

static struct pernet_operations mf_nf_net_ops = {
	.exit = mf_nf_net_exit,
};

/**
 * memfilter_nf_init() - register the pernet operations and debugfs file
 *
 * Context: module init, after memfilter_debugfs_init().
 * Return: 0 or -errno.
 */
int memfilter_nf_init(void)
{
	struct dentry *dir;
	int ret;

	ret = register_pernet_subsys(&mf_nf_net_ops);
	if (ret)
		return ret;
	dir = debugfs_lookup("memfilter", NULL);
	if (!IS_ERR_OR_NULL(dir)) {
		mf_nf_debugfs = debugfs_create_file("netfilter", 0400, dir,
						    NULL, &mf_nf_fops);
		dput(dir);
	}
	return 0;
}

/**
 * memfilter_nf_exit() - detach everything (module unload)
 *
 * Every namespace's exit runs: attachments are unhooked; rcu_barrier()
 * then waits until each was freed and its filter reference dropped.
 *
 * Context: module exit, before memfilter_unpublish_all().
 */
void memfilter_nf_exit(void)
{
	unregister_pernet_subsys(&mf_nf_net_ops);
	rcu_barrier();
	debugfs_remove(mf_nf_debugfs);
}
