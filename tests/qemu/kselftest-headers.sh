#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Print a directory holding the kernel's kselftest_harness.h and
# kselftest.h (from Debian's linux-source-6.12), extracted once into the
# cache. Selftests and native tests both use that harness.

set -eu
. "$(dirname "$0")/../../scripts/common.sh"

linux_source_files kselftest 4 kselftest_harness.h \
	tools/testing/selftests/kselftest_harness.h \
	tools/testing/selftests/kselftest.h
