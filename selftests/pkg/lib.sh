# SPDX-License-Identifier: GPL-2.0
# TAP helpers of the pkg lane's scripts (sourced; they print the plan and
# exit with $fail themselves).
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); fail=1; echo "not ok $n - $*"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else nok "$d"; fi; }
logged() {	# logged NAME CMD...: check, with the output on failure
	local d=$1 out
	shift
	if out=$("$@" 2>&1); then ok "$d"; else nok "$d"; printf '%s\n' "$out" | tail -n 30 | sed 's/^/# /'; fi
}
