#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The newer-kernel test (make check's build matrix): the module built
# with every entry of module/kernel_compat.h forced to its newer-kernel
# side, against 6.12 (tests/compat/kernel_next.h makes 6.12's API look
# like the next kernels'), with -Werror:
#
#  - against the debug test kernel: the module and the KUnit modules
#  - against Debian's 6.12 headers: the module the stock 6.12 guest then
#    loads for bpf_test (tests/qemu/variants.sh), left in OUTDIR
#  - the kfuncs are registered without KF_TRUSTED_ARGS in that build and
#    with it in the 6.12 build (build/kbuild/stock-6.12), so each build
#    really took its side; the KUnit module imports its namespace in both
#  - module/ and kunit/ name neither system_wq nor system_unbound_wq,
#    which 7.2 deprecates (kernel_next.h cannot undefine them: 6.12's own
#    flush_workqueue() names them)
#
# Prints TAP.
#   compat-test.sh TEST_KDIR STOCK612_KDIR [OUTDIR] (default build/kbuild)

set -u
cd "$(dirname "$0")/.." || exit 1
kk=$1 k612=$2 dir=${3:-build/kbuild}
next=$PWD/tests/compat/kernel_next.h

. tests/tap.sh
tap_begin

build_next() {
	scripts/build-module.sh "$1" "$dir/$2" -j"${JOBS:-3}" \
		MEMFILTER_WERROR=1 MEMFILTER_COMPAT_NEXT="$next" \
		>"$dir/$2.log" 2>&1 || { cat "$dir/$2.log"; return 1; }
}
mkdir -p "$dir"
ok "newer-kernel side against the test kernel (module and KUnit)" \
	build_next "$kk" test-next
ok "newer-kernel side against Debian's 6.12 headers" \
	build_next "$k612" stock-6.12-next

# trusted_kfuncs KO: how many kfuncs of the module's kfunc set carry
# KF_TRUSTED_ARGS (1 << 4), read from the .BTF_ids section: the set8
# header (count, flags) and then one (BTF id, kfunc flags) pair per kfunc.
trusted_kfuncs() {
	objcopy -O binary --only-section=.BTF_ids "$1" "$1.btf_ids" &&
	python3 - "$1.btf_ids" <<'EOF'
import struct, sys
w = open(sys.argv[1], "rb").read()
words = struct.unpack("<%dI" % (len(w) // 4), w)
n = words[0]
assert 0 < n < 64, "no kfunc set at the start of .BTF_ids"
print(sum(1 for f in words[3:3 + 2 * n:2] if f & (1 << 4)))
EOF
}
trust_sides() {
	local old new want
	old=$(trusted_kfuncs "$dir/stock-6.12/memfilter.ko") &&
	new=$(trusted_kfuncs "$dir/stock-6.12-next/memfilter.ko") || return 1
	# As many as module/consumers/bpf.c's first set flags
	# MEMFILTER_KF_TRUSTED.
	want=$(sed -n '/^BTF_KFUNCS_START(mf_kfunc_ids)/,/^BTF_KFUNCS_END/p' \
		module/consumers/bpf.c | grep -c 'MEMFILTER_KF_TRUSTED)$')
	echo "KF_TRUSTED_ARGS: $old kfuncs in the 6.12 build (bpf.c flags $want), $new in the newer-kernel one"
	[ "$want" -gt 0 ] && [ "$old" = "$want" ] && [ "$new" = 0 ]
}
ok "kfuncs: KF_TRUSTED_ARGS on 6.12, no flag on the newer side" trust_sides

import_ns() {
	local ko f
	for ko in "$dir/test/memfilter_kunit.ko" "$dir/test-next/memfilter_kunit.ko"; do
		f=$(modinfo -F import_ns "$ko") || return 1
		[ "$f" = EXPORTED_FOR_KUNIT_TESTING ] ||
			{ echo "$ko: import_ns '$f'"; return 1; }
	done
}
ok "KUnit module imports EXPORTED_FOR_KUNIT_TESTING on both sides" import_ns

old_wq() {
	! grep -nE '\<system_(unbound_)?wq\>' module/*.[ch] module/*/*.[ch] kunit/*.c \
		kunit/*.h | grep -v '^module/kernel_compat.h:'
}
ok "module/ and kunit/ name neither system_wq nor system_unbound_wq" old_wq

tap_end
