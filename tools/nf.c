// SPDX-License-Identifier: GPL-2.0
/*
 * memfilterctl nf: netfilter attachments of the caller's network namespace
 * (attach, detach, list, stats), one command with subcommands in the
 * manner of "bpftool prog".
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memfilterctl.h"

struct nf_name {
	const char *name;
	int value;
};

static const struct nf_name nf_hooks[] = {
	{ "prerouting", MF_NF_PREROUTING }, { "input", MF_NF_INPUT },
	{ "forward", MF_NF_FORWARD }, { "output", MF_NF_OUTPUT },
	{ "postrouting", MF_NF_POSTROUTING },
};

static const struct nf_name nf_keys[] = {
	{ "saddr", MF_NF_KEY_SADDR }, { "daddr", MF_NF_KEY_DADDR },
	{ "5-tuple", MF_NF_KEY_TUPLE }, { "l4-payload", MF_NF_KEY_L4_PAYLOAD },
};

static const struct nf_name nf_actions[] = {
	{ "drop-hit", MF_NF_DROP_HIT }, { "drop-miss", MF_NF_DROP_MISS },
	{ "count", MF_NF_COUNT }, { "dedup", MF_NF_DEDUP },
};

static const struct nf_name nf_families[] = {
	{ "ipv4", MF_NF_IPV4 }, { "ipv6", MF_NF_IPV6 },
	{ "both", MF_NF_IPV4 | MF_NF_IPV6 },
};

/* A name's value, or a usage error listing the choices. */
static int nf_lookup(const char *opt, const char *s, const struct nf_name *t,
		     size_t n, int *v)
{
	char choices[128] = "";
	size_t i;

	for (i = 0; i < n; i++) {
		if (!strcmp(s, t[i].name)) {
			*v = t[i].value;
			return 0;
		}
		strncat(choices, i ? ", " : "", sizeof(choices) - strlen(choices) - 1);
		strncat(choices, t[i].name, sizeof(choices) - strlen(choices) - 1);
	}
	usage_error("%s: '%s' is not one of %s", opt, s, choices);
	return -1;
}

static const char *nf_str(const struct nf_name *t, size_t n, int v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].value == v)
			return t[i].name;
	return "?";
}

static const struct option nf_attach_opts[] = {
	{ "family", required_argument, NULL, 'F' },
	{ "hook", required_argument, NULL, 'H' },
	{ "key", required_argument, NULL, 'k' },
	{ "action", required_argument, NULL, 'a' },
	{ "priority", required_argument, NULL, 'P' },
	{ "help", no_argument, NULL, 'h' },
	{}
};

static int nf_attach(int argc, char **argv)
{
	MF_OPTS(mf_nf_attach_opts, o, .family = MF_NF_IPV4 | MF_NF_IPV6,
		.hook = -1, .key = -1, .action = -1);
	const char *name;
	int c, dev, fam;
	int64_t id;
	long prio;
	char *end;

	while ((c = cmd_opt(argc, argv)) != -1) {
		switch (c) {
		case 'F':
			if (nf_lookup("--family", optarg, nf_families,
				      ARRAY_SIZE(nf_families), &fam))
				return EXIT_ERR;
			o.family = fam;
			break;
		case 'H':
			if (nf_lookup("--hook", optarg, nf_hooks,
				      ARRAY_SIZE(nf_hooks), &o.hook))
				return EXIT_ERR;
			break;
		case 'k':
			if (nf_lookup("--key", optarg, nf_keys,
				      ARRAY_SIZE(nf_keys), &o.key))
				return EXIT_ERR;
			break;
		case 'a':
			if (nf_lookup("--action", optarg, nf_actions,
				      ARRAY_SIZE(nf_actions), &o.action))
				return EXIT_ERR;
			break;
		case 'P':
			errno = 0;
			/* Decimal, as typed: "010" is 10, not octal 8. */
			prio = strtol(optarg, &end, 10);
			if (errno || *end ||
			    !isdigit((unsigned char)optarg[*optarg == '-']) ||
			    prio <= INT_MIN ||
			    prio >= INT_MAX) {
				usage_error("--priority: '%s' is not an integer between %d and %d",
					    optarg, INT_MIN + 1, INT_MAX - 1);
				return EXIT_ERR;
			}
			o.has_priority = true;
			o.priority = (int)prio;
			break;
		case 'h':
			return print_help();
		default:
			return EXIT_ERR;
		}
	}
	if (positional(argc, argv, 0, &name, NULL))
		return EXIT_ERR;
	if (o.hook < 0 || o.key < 0 || o.action < 0) {
		usage_error("attach needs --hook, --key and --action");
		return EXIT_ERR;
	}
	dev = open_device();
	if (dev < 0)
		return EXIT_ERR;
	id = mf_nf_attach(dev, name, &o);
	close(dev);
	if (id == -EOPNOTSUPP && o.action == MF_NF_DEDUP) {
		cli_error("%s: dedup needs a Bloom, window or growing filter (test-and-add)",
			  name);
		return EXIT_ERR;
	}
	if (id == -EPERM) {
		cli_error("%s: attaching needs CAP_NET_ADMIN in this network namespace%s",
			  name, o.action == MF_NF_DEDUP ? " and CAP_SYS_ADMIN" : "");
		return EXIT_ERR;
	}
	if (id < 0)
		return fail(name, (int)id);
	printf("%lld\n", (long long)id);
	return stdout_flush();
}

/* The ID argument of detach and stats. */
static int nf_id(int argc, char **argv, uint32_t *id)
{
	uint64_t v;

	if (argc - optind != 1) {
		usage_error(argc - optind ? "one attachment ID, please" :
			    "missing attachment ID");
		return -1;
	}
	if (parse_u64("ID", argv[optind], U64_SATURATE, &v))
		return -1;
	if (!v || v > UINT32_MAX) {
		usage_error("ID: '%s' is not an attachment ID", argv[optind]);
		return -1;
	}
	*id = (uint32_t)v;
	return 0;
}

static int nf_detach(int argc, char **argv)
{
	uint32_t id;
	int ret, dev;

	ret = help_opt(argc, argv);
	if (ret >= 0)
		return ret;
	if (nf_id(argc, argv, &id))
		return EXIT_ERR;
	dev = open_device();
	if (dev < 0)
		return EXIT_ERR;
	ret = mf_nf_detach(dev, id);
	close(dev);
	if (ret == -ENOENT) {
		cli_error("no attachment %u in this network namespace", id);
		return EXIT_ERR;
	}
	return ret ? fail("detach", ret) : 0;
}

static void nf_text(const struct mf_nf_entry *e)
{
	printf("%u: %s %s %s priority %d key %s action %s\n"
	       "\tpackets %llu hits %llu drops %llu added %llu skipped %llu\n",
	       e->id, e->name, nf_str(nf_families, ARRAY_SIZE(nf_families),
				      e->family),
	       nf_str(nf_hooks, ARRAY_SIZE(nf_hooks), e->hook), e->priority,
	       nf_str(nf_keys, ARRAY_SIZE(nf_keys), e->key),
	       nf_str(nf_actions, ARRAY_SIZE(nf_actions), e->action),
	       (unsigned long long)e->packets, (unsigned long long)e->hits,
	       (unsigned long long)e->drops, (unsigned long long)e->added,
	       (unsigned long long)e->skipped);
}

static void nf_json(struct json_writer *jw, const struct mf_nf_entry *e)
{
	jsonw_start_object(jw);
	jsonw_uint_field(jw, "id", e->id);
	jsonw_string_field(jw, "filter", e->name);
	jsonw_string_field(jw, "family", nf_str(nf_families,
						ARRAY_SIZE(nf_families),
						e->family));
	jsonw_string_field(jw, "hook", nf_str(nf_hooks, ARRAY_SIZE(nf_hooks),
					      e->hook));
	jsonw_name(jw, "priority");
	jsonw_float(jw, "%.0f", (double)e->priority);
	jsonw_string_field(jw, "key", nf_str(nf_keys, ARRAY_SIZE(nf_keys),
					     e->key));
	jsonw_string_field(jw, "action", nf_str(nf_actions,
						ARRAY_SIZE(nf_actions),
						e->action));
	jsonw_uint_field(jw, "packets", e->packets);
	jsonw_uint_field(jw, "hits", e->hits);
	jsonw_uint_field(jw, "drops", e->drops);
	jsonw_uint_field(jw, "added", e->added);
	jsonw_uint_field(jw, "skipped", e->skipped);
	jsonw_end_object(jw);
}

/* list (@one 0) or stats of @one. */
static int nf_show(uint32_t one)
{
	struct mf_nf_entry e[64];
	struct json_writer *jw = NULL;
	ssize_t n, i;
	int dev;

	dev = open_device();
	if (dev < 0)
		return EXIT_ERR;
	n = mf_nf_list(dev, e, ARRAY_SIZE(e));
	close(dev);
	if (n < 0)
		return fail("list", (int)n);
	if (n > (ssize_t)ARRAY_SIZE(e))
		n = ARRAY_SIZE(e);
	if (json_output) {
		jw = json_begin();
		if (!jw)
			return EXIT_ERR;
		if (!one)
			jsonw_start_array(jw);
	}
	for (i = 0; i < n; i++) {
		if (one && e[i].id != one)
			continue;
		if (jw)
			nf_json(jw, &e[i]);
		else
			nf_text(&e[i]);
		if (one)
			break;
	}
	if (one && i == n) {
		if (jw)
			json_end(jw);
		cli_error("no attachment %u in this network namespace", one);
		return EXIT_ERR;
	}
	if (!jw)
		return stdout_flush();
	if (!one)
		jsonw_end_array(jw);
	return json_end(jw);
}

static int nf_list(int argc, char **argv)
{
	int ret = json_opt(argc, argv);

	if (ret >= 0)
		return ret;
	if (optind < argc) {
		usage_error("unexpected argument '%s'", argv[optind]);
		return EXIT_ERR;
	}
	return nf_show(0);
}

static int nf_stats(int argc, char **argv)
{
	int ret = json_opt(argc, argv);
	uint32_t id;

	if (ret >= 0)
		return ret;
	if (nf_id(argc, argv, &id))
		return EXIT_ERR;
	return nf_show(id);
}

static const struct command nf_subs[] = {
	{ .name = "attach", .fn = nf_attach, .opts = nf_attach_opts,
	  .shortopts = ":F:H:k:a:P:h" },
	{ .name = "detach", .fn = nf_detach },
	{ .name = "list", .fn = nf_list, .opts = json_opts,
	  .shortopts = JSON_SHORTOPTS },
	{ .name = "show", .fn = nf_list, .opts = json_opts,
	  .shortopts = JSON_SHORTOPTS },
	{ .name = "stats", .fn = nf_stats, .opts = json_opts,
	  .shortopts = JSON_SHORTOPTS },
};

static int cmd_nf(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage_error("missing subcommand: attach, detach, list (or show) or stats");
		return EXIT_ERR;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h"))
		return argc > 2 ? (usage_error("unexpected argument '%s'",
					       argv[2]), EXIT_ERR) :
				  print_help();
	for (i = 0; i < ARRAY_SIZE(nf_subs); i++) {
		if (!strcmp(argv[1], nf_subs[i].name)) {
			parse_begin(&nf_subs[i]);
			return nf_subs[i].fn(argc - 1, argv + 1);
		}
	}
	usage_error("unknown subcommand '%s'", argv[1]);
	return EXIT_ERR;
}

const struct command nf_commands[] = {
	{ .name = "nf", .fn = cmd_nf, .json = true,
	  .subs = nf_subs, .nsubs = ARRAY_SIZE(nf_subs),
	  .usage = "attach NAME --hook H --key K --action A [--family F] [--priority P]\n"
	  "       memfilterctl nf detach ID\n"
	  "       memfilterctl nf list|show [--json]\n"
	  "       memfilterctl nf stats ID [--json]",
	  .help = "Netfilter attachments of this network namespace (see\n"
	  "Documentation/netfilter.rst). attach prints the new attachment's ID;\n"
	  "attach and detach need CAP_NET_ADMIN in the namespace. list (or\n"
	  "show) prints every attachment with its counters, stats ID one.\n\n"
	  "  -H, --hook H       prerouting, input, forward, output or postrouting\n"
	  "  -k, --key K        saddr, daddr, 5-tuple or l4-payload\n"
	  "  -a, --action A     drop-hit (blocklist), drop-miss (allowlist), count,\n"
	  "                     dedup (drop a key seen before and add it: a Bloom\n"
	  "                     or window filter; needs CAP_SYS_ADMIN too)\n"
	  "  -F, --family F     ipv4, ipv6 or both (default both)\n"
	  "  -P, --priority P   hook priority (default -350: after defragmentation,\n"
	  "                     before raw and conntrack)\n" },
};
const size_t nf_commands_n = ARRAY_SIZE(nf_commands);
