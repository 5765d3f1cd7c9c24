#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The history's shape, as Documentation/process/submitting-patches.rst
# asks: every commit after BASE (default: the first commit held to these
# rules) has a subject "area: summary" of at most 72 characters, a blank
# line after it, and a body (if any) wrapped at 72 columns. Lines that
# cannot be wrapped are allowed over 72: a URL, a quoted kernel log or
# command output indented by at least two spaces or a tab, and trailers
# ("Fixes:", "Link:", "Reported-by:" ...). Prints TAP.
#   check-commits.sh [BASE [HEAD]]

set -u
cd "$(dirname "$0")/.."
base=${1:-38bb6af2228fa93a32bd5e2c8601333271452af8}
head=${2:-HEAD}

echo "TAP version 13"
if ! git rev-parse -q --verify "$base^{commit}" >/dev/null 2>&1; then
	# A shallow clone without the base cannot tell which commits to hold
	# to the rules.
	echo "1..0 # SKIP $base is not in this clone's history"
	exit 0
fi
commits=$(git rev-list --reverse "$base..$head")
set -- $commits
echo "1..$#"
n=0 rc=0
for c in $commits; do
	n=$((n + 1))
	problems=$(git log -1 --format=%B "$c" | awk '
		NR == 1 {
			if (length($0) > 72)
				print "subject is " length($0) " characters (at most 72)"
			if ($0 !~ /^[A-Za-z0-9_.\/{},*+-]+( [A-Za-z0-9_.\/{},*+-]+)?: [^ ]/)
				print "subject is not \"area: summary\""
			next
		}
		NR == 2 && $0 != "" { print "no blank line after the subject" }
		/^(  |\t)/ { next }
		/^[A-Za-z-]+: / && /^(Fixes|Link|Closes|Reported-by|Suggested-by|Signed-off-by|Co-developed-by|Reviewed-by|Tested-by|Acked-by|Cc):/ { next }
		/https?:\/\// { next }
		length($0) > 72 { print "body line " NR " is " length($0) " characters (wrap at 72)" }
	')
	subject=$(git log -1 --format=%s "$c")
	if [ -n "$problems" ]; then
		echo "$problems" | sed 's/^/# /'
		echo "not ok $n $(git rev-parse --short "$c") $subject"
		rc=1
	else
		echo "ok $n $(git rev-parse --short "$c") $subject"
	fi
done
exit $rc
