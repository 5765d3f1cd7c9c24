# SPDX-License-Identifier: GPL-2.0
#
# Shared settings for memfilter's scripts: where the heavy, reusable
# artifacts (test kernel, stock kernels) are cached outside the checkout.
# Sourced, not run.

TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${MEMFILTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/memfilter}
JOBS=${JOBS:-$(($(nproc) + 1))}
mkdir -p "$CACHE"

die() {
	echo "$(basename "$0"): $*" >&2
	exit 1
}

# Version of an installed Debian package, or nothing.
pkg_version() {
	dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true
}

# The kernel release (uname -r) that a headers metapackage points at.
headers_release() {
	dpkg-query -W -f='${Depends}' "$1" 2>/dev/null |
		sed -n 's/^linux-headers-\([^ ,]*\).*/\1/p'
}
