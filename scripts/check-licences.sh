#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# libmemfilter's licence, checked (make check, static stage): every file
# compiled or linked into libmemfilter.so and libmemfilter.a carries an
# SPDX line that allows the library's stated licence, GPL-2.0-only OR MIT.
# The files are what the Makefile builds the library from (LIB_SRCS and
# CORE_SRCS, the sources of its lib_objs; the version script) and every
# header those include (gcc -MM), so a new source or #include is checked
# without a list kept here. Allowed lines: "GPL-2.0-only OR MIT" and "MIT";
# "GPL-2.0 WITH Linux-syscall-note" for uapi/ only (the note: using the
# ABI header does not make a program a derived work). Every identifier
# must be one that LICENSES/ holds the text of. Prints what fails.
#   check-licences.sh [BUILD]     (default: build)

set -u
cd "$(dirname "$0")/.." || exit 1
B=${1:-build}
LIB_LICENCE="GPL-2.0-only OR MIT"

# Ask the Makefile itself, through a one-rule makefile on stdin.
# shellcheck disable=SC2016
vars=$(printf '%s\n' 'mf-print-lib:' \
	'	@echo "$(LIB_SRCS) $(CORE_SRCS)"' \
	'	@echo "$(CPPFLAGS_MF)"' \
	'	@echo "$(VERSION_H)"' |
	make -s --no-print-directory -f Makefile -f - BUILD="$B" mf-print-lib) || exit 1
srcs=$(echo "$vars" | sed -n 1p)
cppflags=$(echo "$vars" | sed -n 2p)
version_h=$(echo "$vars" | sed -n 3p)
[ -n "$srcs" ] || { echo "no library sources from the Makefile"; exit 1; }
make -s BUILD="$B" "$version_h" >/dev/null || exit 1

# Every file: the sources, the headers they include (outside /usr), the map.
# shellcheck disable=SC2086
files=$(for s in $srcs; do
		gcc $cppflags -MM "$s" || echo "FAILED $s"
	done | sed 's/\\$//; s/^[^:]*://' | tr ' ' '\n' | grep -v '^$' |
	grep -v '^/usr/' | sort -u)
case $files in *FAILED*) echo "gcc -MM failed"; exit 1 ;; esac
files="$files lib/libmemfilter.map"

valid=$(sed -n 's/^\(Valid-License-Identifier\|SPDX-Exception-Identifier\): *//p' \
	LICENSES/*/*)
bad=0
n=0
for f in $files; do
	n=$((n + 1))
	spdx=$(head -n 2 "$f" | sed -n 's/.*SPDX-License-Identifier: *\(.*\)$/\1/p' |
		sed 's/ *\*\/ *$//')
	case $spdx in
	"$LIB_LICENCE" | MIT) ;;
	"GPL-2.0 WITH Linux-syscall-note")
		case $f in uapi/*) ;; *)
			echo "$f: '$spdx' is for the uapi header only"; bad=1 ;;
		esac ;;
	"")
		echo "$f: no SPDX-License-Identifier line"; bad=1; continue ;;
	*)
		echo "$f: '$spdx' does not allow libmemfilter's $LIB_LICENCE"
		bad=1 ;;
	esac
	for id in $(echo "$spdx" | tr -d '()' | sed 's/ OR \| AND \| WITH / /g'); do
		echo "$valid" | grep -qxF "$id" ||
			{ echo "$f: '$id' has no text in LICENSES/"; bad=1; }
	done
done
[ "$n" -gt 10 ] || { echo "only $n files: the Makefile's lists changed?"; exit 1; }
[ $bad = 0 ] && echo "$n files in libmemfilter: $LIB_LICENCE"
exit $bad
