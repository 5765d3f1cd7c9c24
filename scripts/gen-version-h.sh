#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Print memfilter_version.h from the VERSION file (x.y.z): the one version
# of the library, memfilterctl and (through Kbuild's -DMEMFILTER_VERSION)
# the module. Installed next to the library's header.
#   gen-version-h.sh VERSION > memfilter_version.h

set -eu
v=$(cat "$1")
case $v in
*[!0-9.]* | *..* | .* | *.) echo "gen-version-h.sh: bad version '$v'" >&2; exit 1 ;;
esac
IFS=. read -r major minor patch <<EOV
$v
EOV
[ -n "$patch" ] || { echo "gen-version-h.sh: '$v' is not x.y.z" >&2; exit 1; }
cat <<EOH
/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Generated from VERSION by scripts/gen-version-h.sh: do not edit. */
#ifndef _MEMFILTER_VERSION_H
#define _MEMFILTER_VERSION_H

#define MEMFILTER_VERSION_MAJOR $major
#define MEMFILTER_VERSION_MINOR $minor
#define MEMFILTER_VERSION_PATCH $patch
#define MEMFILTER_VERSION "$v"

#endif /* _MEMFILTER_VERSION_H */
EOH
