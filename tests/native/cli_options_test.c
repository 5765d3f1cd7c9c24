// SPDX-License-Identifier: GPL-2.0
/*
 * memfilterctl's option tables, read from the tables the commands parse
 * with (linked in from tools/): a letter means one option in every
 * command, the global options included; every letter a table lists has
 * its long option; and the help, the man page and the bash completion
 * say the same as the tables: every option of every command is in its
 * help and in memfilterctl(8), every "-X, --name" either shows matches
 * the tables, and the completion offers each command exactly its
 * options. Run from the top of the tree.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "memfilterctl.h"

#define MAN_PAGE "man/memfilterctl.8"
#define COMPLETION "completion/memfilterctl.bash"

/* One command and where it is, for messages. */
struct cmd_ref {
	const struct command *c;
	const char *parent;	/* nf for its subcommands, else NULL */
};

static struct cmd_ref cmds[64];
static size_t ncmds;

static const struct option *opts_of(const struct command *c)
{
	return c->opts ? c->opts : help_opts;
}

static const char *shortopts_of(const struct command *c)
{
	return c->shortopts ? c->shortopts : HELP_SHORTOPTS;
}

static void collect(void)
{
	const struct command *c;
	size_t t, i, j;

	if (ncmds)
		return;
	cmds[ncmds++] = (struct cmd_ref){ &global_command, NULL };
	for (t = 0; t < command_tables_n; t++) {
		for (i = 0; i < *command_tables[t].n; i++) {
			c = &command_tables[t].cmds[i];
			cmds[ncmds++] = (struct cmd_ref){ c, NULL };
			for (j = 0; j < c->nsubs; j++)
				cmds[ncmds++] = (struct cmd_ref){ &c->subs[j],
								  c->name };
		}
	}
}

static const char *cmd_name(const struct cmd_ref *r, char *buf, size_t n)
{
	if (r->c == &global_command)
		snprintf(buf, n, "(global)");
	else
		snprintf(buf, n, "%s%s%s", r->parent ? r->parent : "",
			 r->parent ? " " : "", r->c->name);
	return buf;
}

/* The letters of @c's short option string, without ':' and '+'. */
static bool is_letter(int ch)
{
	return ch > 0 && ch < 0x80 && isalnum(ch);
}

/* letter -> long name, as the first command with it says */
static const char *meaning[128];
static char meaning_where[128][32];

/* Build meaning[] from every table; count the letters that disagree. */
static int letter_meanings(void)
{
	const struct option *o;
	const char *s;
	char where[32];
	int bad = 0, n;
	size_t i;

	collect();
	memset(meaning, 0, sizeof(meaning));
	for (i = 0; i < ncmds; i++) {
		cmd_name(&cmds[i], where, sizeof(where));
		for (s = shortopts_of(cmds[i].c); *s; s++) {
			if (!is_letter(*s))
				continue;
			n = 0;
			for (o = opts_of(cmds[i].c); o->name; o++)
				if (o->val == *s)
					n++;
			if (n != 1) {
				fprintf(stderr, "#   %s: letter -%c has %d long options\n",
					where, *s, n);
				bad++;
			}
		}
		for (o = opts_of(cmds[i].c); o->name; o++) {
			if (o->val >= 0x80)
				continue;	/* long-only */
			if (!is_letter(o->val) ||
			    !strchr(shortopts_of(cmds[i].c), o->val)) {
				fprintf(stderr, "#   %s: --%s has the value %d, not one of its letters\n",
					where, o->name, o->val);
				bad++;
				continue;
			}
			if (!meaning[o->val]) {
				meaning[o->val] = o->name;
				snprintf(meaning_where[o->val],
					 sizeof(meaning_where[0]), "%s", where);
			} else if (strcmp(meaning[o->val], o->name)) {
				fprintf(stderr, "#   -%c is --%s in %s but --%s in %s\n",
					o->val, meaning[o->val],
					meaning_where[o->val], o->name, where);
				bad++;
			}
		}
	}
	return bad;
}

TEST(one_letter_one_option)
{
	EXPECT_EQ(0, letter_meanings());
}

/* The text of @path, NUL-terminated; free() it. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, n;

	if (!f)
		return NULL;
	for (;;) {
		buf = realloc(buf, len + 65536 + 1);
		if (!buf)
			break;
		n = fread(buf + len, 1, 65536, f);
		len += n;
		if (!n)
			break;
	}
	fclose(f);
	if (buf)
		buf[len] = '\0';
	return buf;
}

/*
 * Each "-X, --name" in @text (@esc: man page escapes, "\-") against
 * meaning[]: the number that disagree.
 */
static int letter_pairs(const char *text, bool esc, const char *what)
{
	const char *dash = esc ? "\\-" : "-";
	const char *sep = esc ? " \", \" " : ", ";
	size_t dl = strlen(dash), sl = strlen(sep);
	const char *p = text;
	char name[64];
	int bad = 0, letter;
	size_t n;

	while ((p = strstr(p, dash))) {
		p += dl;
		letter = (unsigned char)*p;
		if (!is_letter(letter) || strncmp(p + 1, sep, sl) ||
		    strncmp(p + 1 + sl, dash, dl) ||
		    strncmp(p + 1 + sl + dl, dash, dl))
			continue;
		p += 1 + sl + 2 * dl;
		for (n = 0; n < sizeof(name) - 1; ) {
			if (esc && !strncmp(p, "\\-", 2)) {
				name[n++] = '-';
				p += 2;
			} else if (islower((unsigned char)*p) ||
				   isdigit((unsigned char)*p) || *p == '-') {
				name[n++] = *p++;
			} else {
				break;
			}
		}
		name[n] = '\0';
		if (!meaning[letter] || strcmp(meaning[letter], name)) {
			fprintf(stderr, "#   %s: -%c, --%s, but the tables say -%c is %s%s\n",
				what, letter, name, letter,
				meaning[letter] ? "--" : "nothing",
				meaning[letter] ? meaning[letter] : "");
			bad++;
		}
	}
	return bad;
}

/* Whether @text names --@name (@esc: as the man page spells it). */
static bool names_option(const char *text, const char *name, bool esc)
{
	char want[128], *w = want;
	const char *p;
	size_t len;

	w += sprintf(w, esc ? "\\-\\-" : "--");
	for (; *name && w < want + sizeof(want) - 3; name++) {
		if (esc && *name == '-')
			*w++ = '\\';
		*w++ = *name;
	}
	*w = '\0';
	len = strlen(want);
	for (p = text; (p = strstr(p, want)); p += len) {
		/* The whole name: --key is not --keyed. */
		if (!islower((unsigned char)p[len]) &&
		    !(p[len] == '-' && !esc) &&
		    !(esc && p[len] == '\\' && p[len + 1] == '-'))
			return true;
	}
	return false;
}

/* A command's help as print_help() prints it. */
static char *help_text(const struct command *c)
{
	char *t;

	if (asprintf(&t, "%s\n%s%s", c->usage, c->help,
		     c->json ? "  -j, --json\n  -p, --pretty\n" : "") < 0)
		return NULL;
	return t;
}

TEST(help_says_the_tables)
{
	const struct command *c;
	const struct option *o;
	char where[32], *t;
	int bad;
	size_t i;

	bad = letter_meanings();
	for (i = 1; i < ncmds; i++) {
		/* A subcommand's options are in its command's help. */
		c = cmds[i].c;
		if (cmds[i].parent) {
			size_t j;

			for (j = 0; j < i && strcmp(cmds[j].c->name,
						    cmds[i].parent); j++)
				;
			c = cmds[j].c;
		}
		t = help_text(c);
		ASSERT_NE(NULL, t);
		cmd_name(&cmds[i], where, sizeof(where));
		for (o = opts_of(cmds[i].c); o->name; o++) {
			if (!strcmp(o->name, "help"))
				continue;
			if (!names_option(t, o->name, false)) {
				fprintf(stderr, "#   %s --help does not name --%s\n",
					where, o->name);
				bad++;
			}
		}
		if (!cmds[i].parent)
			bad += letter_pairs(t, false, where);
		free(t);
	}
	EXPECT_EQ(0, bad);
}

TEST(man_page_says_the_tables)
{
	const struct option *o;
	char *man = slurp(MAN_PAGE);
	char where[32];
	int bad;
	size_t i;

	ASSERT_NE(NULL, man) TH_LOG(MAN_PAGE ": run from the top of the tree");
	bad = letter_meanings() + letter_pairs(man, true, MAN_PAGE);
	for (i = 0; i < ncmds; i++) {
		cmd_name(&cmds[i], where, sizeof(where));
		for (o = opts_of(cmds[i].c); o->name; o++) {
			if (!names_option(man, o->name, true)) {
				fprintf(stderr, "#   " MAN_PAGE " does not name --%s (%s)\n",
					o->name, where);
				bad++;
			}
		}
	}
	free(man);
	EXPECT_EQ(0, bad);
}

/* "-X) prev=--name ;;" lines of the completion against meaning[]. */
static int completion_letters(const char *text)
{
	const char *p = text;
	char name[64];
	int bad = 0, n = 0;

	while ((p = strstr(p, ") prev=--"))) {
		if (p - text >= 2 && p[-2] == '-' && is_letter(p[-1]) &&
		    sscanf(p, ") prev=--%63[a-z0-9-]", name) == 1) {
			n++;
			if (!meaning[(unsigned char)p[-1]] ||
			    strcmp(meaning[(unsigned char)p[-1]], name)) {
				fprintf(stderr, "#   " COMPLETION ": -%c is --%s\n",
					p[-1], name);
				bad++;
			}
		}
		p++;
	}
	return n ? bad : bad + 1;
}

/* What the completion offers for "memfilterctl WORDS CUR" (CUR shell-quoted). */
static char *complete_at(const char *words, const char *cur, int cword)
{
	char *cmd, *out;

	if (asprintf(&cmd, "bash -c '"
		     "_init_completion() { words=(\"${COMP_WORDS[@]}\"); "
		     "cword=$COMP_CWORD; cur=${words[cword]}; "
		     "prev=${words[cword-1]}; }; _filedir() { :; }; "
		     "complete() { :; }; . " COMPLETION "; "
		     "COMP_WORDS=(memfilterctl %s %s); COMP_CWORD=%d; "
		     "_memfilterctl; printf \"%%s\\n\" \"${COMPREPLY[@]}\"' "
		     ">build/native/cli_options_test.out", words, cur, cword) < 0)
		return NULL;
	if (system(cmd)) {
		free(cmd);
		return NULL;
	}
	free(cmd);
	out = slurp("build/native/cli_options_test.out");
	remove("build/native/cli_options_test.out");
	return out;
}

/* What the completion offers after "memfilterctl WORDS --". */
static char *complete(const char *words, int cword)
{
	return complete_at(words, "--", cword);
}

/* Whether the line "--@name" is in @out. */
static bool offered(const char *out, const char *name)
{
	const char *p;
	size_t len = strlen(name);

	for (p = out; *p; p = strchr(p, '\n') + 1) {
		if (!strncmp(p, "--", 2) && !strncmp(p + 2, name, len) &&
		    p[2 + len] == '\n')
			return true;
		if (!strchr(p, '\n'))
			break;
	}
	return false;
}

/* Its lines that are not empty. */
static int lines(const char *out)
{
	const char *p;
	int n = 0;

	for (p = out; *p; p++)
		n += *p == '\n' && p > out && p[-1] != '\n';
	return n;
}

TEST(completion_says_the_tables)
{
	const struct option *o;
	char words[64], where[32], *text, *out;
	int bad, n, cword;
	size_t i;

	if (system("command -v bash >/dev/null"))
		SKIP(return, "no bash");
	text = slurp(COMPLETION);
	ASSERT_NE(NULL, text);
	bad = letter_meanings() + completion_letters(text);
	free(text);
	for (i = 0; i < ncmds; i++) {
		if (cmds[i].c->nsubs)
			continue;	/* its subcommands are checked */
		cmd_name(&cmds[i], where, sizeof(where));
		if (cmds[i].c == &global_command) {
			words[0] = '\0';
			cword = 1;
		} else {
			snprintf(words, sizeof(words), "%s", where);
			cword = cmds[i].parent ? 3 : 2;
		}
		out = complete(words, cword);
		ASSERT_NE(NULL, out);
		n = 0;
		for (o = opts_of(cmds[i].c); o->name; o++, n++) {
			if (!offered(out, o->name)) {
				fprintf(stderr, "#   completion of '%s --' lacks --%s\n",
					where, o->name);
				bad++;
			}
		}
		if (lines(out) != n) {
			fprintf(stderr, "#   completion of '%s --' offers %d words for %d options:\n%s",
				where, lines(out), n, out);
			bad++;
		}
		free(out);
	}
	EXPECT_EQ(0, bad);
}

/*
 * After --type, the completion offers the names the type table lets
 * --type take, in the table's order (type_words()).
 */
TEST(completion_says_the_types)
{
	char *out, *p;

	if (system("command -v bash >/dev/null"))
		SKIP(return, "no bash");
	out = complete_at("create --type", "\"\"", 3);
	ASSERT_NE(NULL, out);
	for (p = out; *p; p++)
		if (*p == '\n')
			*p = p[1] ? ' ' : '\0';
	EXPECT_STREQ(type_words(" ", " "), out);
	free(out);
}

TEST_HARNESS_MAIN
