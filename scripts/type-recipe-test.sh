#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Documentation/internals.rst's "How to add a filter type", followed in a
# scratch copy of the tree: a trivial type "plain" (a Bloom filter under
# another number, every operation handed to memfilter_bloom_ops) added by
# exactly the steps listed there and nothing else; then the native library
# and memfilterctl are built and answer for it (build, query, inspect of
# an image), memfilterctl's option and completion tables still agree, the
# userspace type table agrees with the core's (core_test), and the type's
# and the table's objects build against the 6.12 headers when they are
# installed. Fails if a step is missing from the list, or if the
# list names a file this script does not touch.
#   type-recipe-test.sh [KDIR]        (KDIR: default the 6.12 headers)

set -eu
cd "$(dirname "$0")/.."
. scripts/common.sh

kdir=${1:-$(ls -d /usr/src/linux-headers-6.12*-amd64 2>/dev/null | head -1)}
doc=Documentation/internals.rst
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t=$tmp/tree

# The tracked files as they are in this tree (edits included).
mkdir "$t"
git ls-files -z | grep -zv '^debian/' | xargs -0 cp --parents -t "$t"

# The files the recipe says to edit, in its order: each must be named in
# the section, and the section must name no other file of the tree.
files="uapi/linux/memfilter.h core/plain.c core/filter_type.h
core/filter_type.c Kbuild module/main.c Kconfig lib/libmemfilter.h
lib/types.h completion/memfilterctl.bash"
recipe=$(sed -n '/^How to add a filter type$/,/^A type with kernel-side state/p' "$doc")
[ -n "$recipe" ] || die "$doc: no section 'How to add a filter type'"
for f in $files; do
	g=${f/plain/<type>}
	grep -qF "\`\`$g\`\`" <<<"$recipe" || die "$doc: the recipe does not name $g"
done
# The table entries' members and flags that are not operations, which
# the steps below set: each must be named too.
for m in create_fields MEMFILTER_FIELDS_LAYOUT image_flags MEMFILTER_IMAGE_SPLIT32 \
	LIBMF_TYPE_CLI LIBMF_TYPE_LAYOUT; do
	grep -qF "\`\`$m\`\`" <<<"$recipe" || die "$doc: the recipe does not name $m"
done
# Steps 1 to 5 edit only those (core/compat.h is what a type is written
# against, core/<type>.h optional, the tests are step 6's).
steps=$(sed -n '/^1\. /,/^6\. /p' <<<"$recipe")
for f in $(grep -o '``[a-z_/<>]*\.\(c\|h\|bash\)``\|``K[a-z]*``' <<<"$steps" | tr -d '`' | sort -u); do
	case " $(echo $files | sed 's/plain/<type>/g') core/compat.h core/<type>.h " in
	*" $f "*) ;;
	*) [[ $f == tests/* || $f == kunit/* ]] ||
		die "$doc: the recipe names $f, which this test does not follow" ;;
	esac
done

edit() {	# FILE ANCHOR-LINE TEXT: TEXT after the line equal to ANCHOR-LINE
	python3 - "$t/$1" "$2" "$3" <<'EOF'
import sys
path, anchor, text = sys.argv[1:]
lines = open(path).read().split('\n')
hits = [i for i, l in enumerate(lines) if l == anchor]
if len(hits) != 1:
    sys.exit('%s: %d lines are %r' % (path, len(hits), anchor))
lines[hits[0] + 1:hits[0] + 1] = text.split('\n')
open(path, 'w').write('\n'.join(lines))
EOF
}

# 1. Its number in the uapi header.
edit uapi/linux/memfilter.h \
	'#define MEMFILTER_TYPE_GROW	4	/* Bloom sub-filters, added as it fills */' \
	'#define MEMFILTER_TYPE_PLAIN	5	/* test: a Bloom filter by another number */'
# 2. The algorithm and its table: here every operation is Bloom's.
cat >"$t/core/plain.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* A test type: a Bloom filter under another number. */
#include "filter_type.h"
#include "image.h"

#define B memfilter_bloom_ops

static int pl_params(const struct memfilter_create *c, union memfilter_params *p)
{ return B.params(c, p); }
static struct memfilter_hasher *pl_hasher(union memfilter_params *p)
{ return B.hasher(p); }
static const union memfilter_params *pl_params_of(const union memfilter_state *s)
{ return B.params_of(s); }
static u64 pl_mem_bytes(const union memfilter_params *p)
{ return B.mem_bytes(p); }
static u64 pl_payload_bytes(const union memfilter_params *p)
{ return B.payload_bytes(p); }
static void pl_init(union memfilter_state *s, const union memfilter_params *p,
		    void *mem)
{ B.init(s, p, mem); }
static void pl_contains(const union memfilter_state *s, const u64 *h, u32 n,
			unsigned long *r)
{ B.contains(s, h, n, r); }
static bool pl_contains_key(const union memfilter_state *s, const void *key,
			    size_t len)
{ return B.contains_key(s, key, len); }
static int pl_add(union memfilter_state *s, const u64 *h, u32 n,
		  unsigned long *r, u32 *done)
{ return B.add(s, h, n, r, done); }
static int pl_add_exclusive(union memfilter_state *s, const u64 *h, u32 n,
			    unsigned long *r, u32 *done)
{ return B.add_exclusive(s, h, n, r, done); }
static void pl_clear(union memfilter_state *s)
{ B.clear(s); }
static void pl_info(const union memfilter_state *s, u64 added,
		    struct memfilter_info *info)
{ B.info(s, added, info); }
static void pl_image(const union memfilter_state *s, u64 added,
		     struct memfilter_image_desc *d, void *payload)
{
	B.image(s, added, d, payload);
	d->type = MEMFILTER_TYPE_PLAIN;
}
static void pl_image_encode(struct memfilter_image_header *h,
			    const struct memfilter_image_desc *d)
{ B.image_encode(h, d); }
static int pl_image_decode(const struct memfilter_image_header *h,
			   struct memfilter_image_desc *d)
{ return B.image_decode(h, d); }
static int pl_restore(union memfilter_state *s,
		      const struct memfilter_image_desc *d)
{ return B.restore(s, d); }

const struct memfilter_type_ops memfilter_plain_ops = {
	.type = MEMFILTER_TYPE_PLAIN,
	.name = "plain",
	.create_fields = MEMFILTER_FIELDS_LAYOUT,
	.image_flags = MEMFILTER_IMAGE_SPLIT32,
	.params = pl_params,
	.hasher = pl_hasher,
	.params_of = pl_params_of,
	.mem_bytes = pl_mem_bytes,
	.payload_bytes = pl_payload_bytes,
	.init = pl_init,
	.contains = pl_contains,
	.contains_key = pl_contains_key,
	.add = pl_add,
	.add_exclusive = pl_add_exclusive,
	.clear = pl_clear,
	.info = pl_info,
	.image = pl_image,
	.image_encode = pl_image_encode,
	.image_decode = pl_image_decode,
	.restore = pl_restore,
};
EOF
# 3. Its members of the two unions, its extern, its line in the table.
edit core/filter_type.h '	struct memfilter_grow_params grow;' \
	'	struct memfilter_bloom_params plain;'
edit core/filter_type.h '	struct memfilter_grow grow;' \
	'	struct memfilter_bloom plain;'
edit core/filter_type.h \
	'extern const struct memfilter_type_ops memfilter_grow_ops;' \
	'extern const struct memfilter_type_ops memfilter_plain_ops;'
edit core/filter_type.c '	[MEMFILTER_TYPE_GROW] = &memfilter_grow_ops,' \
	'	[MEMFILTER_TYPE_PLAIN] = &memfilter_plain_ops,'
# 4. Its object in the module, and its name in the module's description
#    and in CONFIG_MEMFILTER's help.
edit Kbuild 'memfilter-y += core/grow.o module/filter/grow_kops.o' \
	'memfilter-y += core/plain.o'
sed -i 's/time-window and growing");$/time-window, growing and plain");/' \
	"$t/module/main.c"
grep -q 'growing and plain");' "$t/module/main.c" ||
	die "module/main.c: MODULE_DESCRIPTION not found"
sed -i 's/^\t  false-positive bound)\. Filters can/\t  false-positive bound), and plain ones. Filters can/' "$t/Kconfig"
grep -q 'and plain ones' "$t/Kconfig" || die "Kconfig: CONFIG_MEMFILTER's help not found"
# 5. Its library constant, its entry in the userspace type table (and
#    the refusal that lists the types), and the completion's --type words.
edit lib/libmemfilter.h '#define MF_TYPE_GROW 4' '#define MF_TYPE_PLAIN 5'
edit lib/types.h '	  "struct mf_grow_opts is for type MF_TYPE_GROW" },' \
	'	{ MF_TYPE_PLAIN, "plain", "plain", LIBMF_TYPE_CLI | LIBMF_TYPE_LAYOUT, NULL, NULL, NULL },'
sed -i 's/ or MF_TYPE_GROW"$/, MF_TYPE_GROW or MF_TYPE_PLAIN"/' "$t/lib/types.h"
grep -q 'MF_TYPE_PLAIN"$' "$t/lib/types.h" || die "lib/types.h: LIBMF_TYPES_WHY not found"
sed -i 's/compgen -W "bloom cuckoo grow"/compgen -W "bloom cuckoo grow plain"/' \
	"$t/completion/memfilterctl.bash"
grep -q 'grow plain"' "$t/completion/memfilterctl.bash" ||
	die "completion/memfilterctl.bash: the --type words not found"

# Build natively, as make check does, and use the new type.
make -s -C "$t" WERROR=1 build/bin/memfilterctl build/native/cli_options_test \
	build/native/core_test >"$tmp/build.log" 2>&1 ||
	{ cat "$tmp/build.log"; die "the tree with the new type does not build"; }
(cd "$t" && build/native/cli_options_test >"$tmp/opts.log" 2>&1) ||
	{ cat "$tmp/opts.log"; die "cli_options_test fails with the new type"; }
(cd "$t" && build/native/core_test >"$tmp/core.log" 2>&1) ||
	{ grep -v '^ok' "$tmp/core.log"; die "core_test fails with the new type (do the two type tables agree?)"; }
(cd "$t" && python3 scripts/check-abi-names.py >"$tmp/abi.log" 2>&1) ||
	{ cat "$tmp/abi.log"; die "check-abi-names.py fails with the new type"; }
M=$t/build/bin/memfilterctl
seq 1 1000 | sed 's/^/key/' >"$tmp/keys"
"$M" build --type plain --capacity 1000 --fpr 0.01 --seed 7 -o "$tmp/p.img" <"$tmp/keys"
"$M" inspect "$tmp/p.img" >"$tmp/inspect" || die "inspect fails on a plain image"
grep -q '^type: *plain$' "$tmp/inspect" || die "inspect does not say type plain"
grep -q '^layout: *split32$' "$tmp/inspect" || die "inspect does not say a plain image's layout"
[ "$("$M" query --image "$tmp/p.img" "$tmp/keys" | wc -l)" = 1000 ] ||
	die "an added key is not found in a plain filter"
# The same keys, seed and shape as a Bloom filter: the same answers.
"$M" build --type bloom --capacity 1000 --fpr 0.01 --seed 7 -o "$tmp/b.img" <"$tmp/keys"
seq 1001 3000 | sed 's/^/key/' >"$tmp/absent"
a=$("$M" query --image "$tmp/p.img" "$tmp/absent" 2>&1 | md5sum)
b=$("$M" query --image "$tmp/b.img" "$tmp/absent" 2>&1 | md5sum)
[ "$a" = "$b" ] || die "a plain filter answers otherwise than the Bloom filter it wraps"

# The kernel side: the new objects and the type table against real headers.
if [ -n "$kdir" ] && [ -f "$kdir/Makefile" ]; then
	make -C "$kdir" M="$t" MEMFILTER_WERROR=1 core/plain.o core/filter_type.o \
		>"$tmp/kbuild.log" 2>&1 ||
		{ cat "$tmp/kbuild.log"; die "core/plain.o does not build against $kdir"; }
	echo "type-recipe: module objects built against $kdir"
else
	echo "type-recipe: no kernel headers; module objects not built"
fi
echo "type-recipe: a new type by the documented steps builds and answers"
