# SPDX-License-Identifier: GPL-2.0
#
# TAP for memfilter's host-side test scripts (install, DKMS). Sourced:
#   ok DESCRIPTION COMMAND [ARGS]   one test; on failure its output's tail
#   tap_end                         prints the plan, returns the status

tap_n=0
tap_rc=0
echo "TAP version 13"

ok() {
	local desc=$1 out
	shift
	tap_n=$((tap_n + 1))
	if out=$("$@" 2>&1); then
		echo "ok $tap_n $desc"
	else
		echo "$out" | tail -n 40 | sed 's/^/# /'
		echo "not ok $tap_n $desc"
		tap_rc=1
	fi
}

tap_end() {
	echo "1..$tap_n"
	return $tap_rc
}
