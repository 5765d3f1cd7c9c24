# SPDX-License-Identifier: GPL-2.0
#
# Guest script for other builds of the module on Debian's stock 6.12
# kernel: each NAME:TEST[,TEST...] word of MF_VARIANTS loads
# /memfilter/NAME/memfilter.ko (vm.sh --variant NAME=DIR), runs those
# selftests against it and unloads it. make check's variants:
#   dkms  the module DKMS built when the memfilter-dkms package was
#         installed on the host (scripts/deb-test.sh): cli_test's tests
#         that reach the kernel, with 20000 keys for its big one, as in
#         the debug guest (the stock 6.12 guest runs all of it against
#         make's own build of the same sources)
#   next  the newer-kernel build (scripts/compat-test.sh): bpf_test, told
#         by MF_KFUNCS_WITHOUT_TRUSTED_FLAG=1 that the kfuncs are
#         registered without KF_TRUSTED_ARGS, as for kernels that trust
#         kfunc arguments by default, which 6.12's verifier does not do

. /memfilter/lib.sh

echo "# kernel $(uname -r)"
# (lib.sh's section() owns the names kind and name.)
for v in ${MF_VARIANTS:-}; do
	var=${v%%:*}
	tests=$(echo "${v#*:}" | tr , ' ')
	ko=$MF/$var/memfilter.ko
	section tap "variant.$var.load" tap_check "insmod $var/memfilter.ko" \
		eval "insmod $ko && [ -c /dev/memfilter ]"
	unset MF_KFUNCS_WITHOUT_TRUSTED_FLAG MF_CLI_BIG MF_CLI_SKIP_OFFLINE \
		MF_CLI_SKIP_USERSPACE
	case $var in
	next) export MF_KFUNCS_WITHOUT_TRUSTED_FLAG=1 ;;
	dkms) export MF_CLI_BIG=20000 MF_CLI_SKIP_OFFLINE=1 \
		MF_CLI_SKIP_USERSPACE=1 ;;
	esac
	for t in $tests; do
		section tap "variant.$var.selftest.$t" "$MF/bin/$t"
	done
	section tap "variant.$var.unload" tap_check "rmmod memfilter" \
		unload_memfilter
done
exit $failed
