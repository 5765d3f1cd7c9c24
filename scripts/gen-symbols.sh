#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Print a Debian symbols file (deb-symbols(5)) from the library's version
# script: every symbol of every version node, and the node itself, with
# the release noted in the comment above the node ("/* 1.1.0 */") as its
# minimal version; a node noted otherwise (not released yet) gets
# VERSION. debian/rules writes debian/libmemfilter1.symbols with it, and
# dh_makeshlibs then fails if the built library exports anything else.
#   gen-symbols.sh MAP SONAME PACKAGE VERSION

set -eu
[ $# = 4 ] || { echo "usage: gen-symbols.sh MAP SONAME PACKAGE VERSION" >&2; exit 2; }
map=$1 soname=$2 pkg=$3 version=$4

echo "$soname $pkg #MINVER#"
echo "* Build-Depends-Package: ${pkg%[0-9]}-dev"
awk -v version="$version" -v map="$map" '
	function fail(msg) { print "gen-symbols.sh: " map ":" NR ": " msg > "/dev/stderr"; bad = 1; exit 1 }
	/^\/\* [0-9]+\.[0-9]+\.[0-9]+ \*\/$/ { release = $2; next }
	/^\/\*/ && !/\*\/$/ { incomment = 1; next }
	incomment { if (/\*\//) incomment = 0; next }
	/^\/\*.*\*\/$/ { release = ""; next }
	/^[A-Za-z_][A-Za-z0-9_.]* *\{/ {
		if (node != "") fail("node inside node " node)
		node = $1; sub(/\{.*/, "", node)
		min = release != "" ? release : version
		print " " node "@" node " " min
		global = 0; release = ""; nodes++; next
	}
	/^[ \t]*global:/ { global = 1; next }
	/^[ \t]*local:/ { global = 0; next }
	/^[ \t]*\}/ { node = ""; global = 0; next }
	global && /^[ \t]*[A-Za-z_][A-Za-z0-9_]*;/ {
		s = $1; sub(/;.*/, "", s)
		print " " s "@" node " " min; syms++; next
	}
	/^[ \t]*$/ { next }
	node != "" && !global && /^[ \t]*\*;/ { next }
	{ fail("not understood: " $0) }
	END { if (!bad && (nodes == 0 || syms == 0)) fail("no version node or no symbol") }
' "$map"
