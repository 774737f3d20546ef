# SPDX-License-Identifier: GPL-2.0
# TAP helpers for the bfctl VM tests (sourced).  Usage of a test:
#   selftests/bfctl/NAME.sh /path/to/bfctl
# Tests run as root in the guest, from the repository root.

BFCTL=${1:?usage: $0 BFCTL}
export BFCTL
tap_n=0
tap_fail=0
TMP=$(mktemp -d /tmp/bfctl-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
nok() {
	tap_n=$((tap_n + 1)); tap_fail=$((tap_fail + 1))
	echo "not ok $tap_n - $*"
}
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }

# expect RC DESC CMD...: CMD must exit with RC; its output is kept in
# $out (stdout) and $err (stderr)
expect() {
	local want=$1 desc=$2 rc=0
	shift 2
	out=$("$@" 2> "$TMP/stderr") || rc=$?
	err=$(cat "$TMP/stderr")
	if [ "$rc" = "$want" ]; then
		ok "$desc"
	else
		nok "$desc (exit $rc, want $want)"
		diag "cmd: $*" "stdout: $out" "stderr: $err"
	fi
}

# check DESC TEST-ARGS...: a shell test
check() {
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else nok "$desc"; diag "failed: $*"; fi
}

# like: DESC STRING PATTERN (grep -E)
like() {
	if printf '%s\n' "$2" | grep -qE -- "$3"; then
		ok "$1"
	else
		nok "$1"
		diag "no match for /$3/ in:" "$2"
	fi
}

json_ok() {	# DESC JSON-TEXT: parses with python3's json module
	if printf '%s' "$2" | python3 -c 'import json,sys; json.load(sys.stdin)' 2> "$TMP/json.err"; then
		ok "$1"
	else
		nok "$1"
		diag "$2" "$(cat "$TMP/json.err")"
	fi
}

# python3 expression over the parsed JSON document j, true -> ok
json_check() {	# DESC JSON EXPR
	if printf '%s' "$2" | python3 -c "import json,sys; j=json.load(sys.stdin); sys.exit(0 if ($3) else 1)"; then
		ok "$1"
	else
		nok "$1"
		diag "expr: $3" "json: $2"
	fi
}

# wait_for DESC CMD...: a test that CMD succeeds within 60 s, tried every
# quarter second (a fixed sleep is a race in a loaded TCG VM); on failure
# a script's wait_diag, if it defines one, says what it saw
wait_for() {
	local d=$1 i
	shift
	for i in $(seq 240); do
		"$@" && { ok "$d"; return 0; }
		sleep 0.25
	done
	nok "$d"
	diag "failed: $*"
	if declare -F wait_diag > /dev/null; then wait_diag; fi
	return 1
}

# absent_key FILTER PREFIX [SEP]: print the first PREFIX-N (SEP, default
# "-", between them) the filter answers "absent" for, so adding it must
# change the filter and a test of it must say absent (a fixed key is a
# false positive of a full 1% filter once in a hundred seeds); prints
# nothing if 200 tries all answer "maybe"
absent_key() {
	local i rc
	for i in $(seq 1 200); do
		rc=0; "$BFCTL" test -q "$1" "$2${3:--}$i" || rc=$?
		[ $rc = 1 ] && { echo "$2${3:--}$i"; return; }
	done
}
have_netlink() { "$BFCTL" version | grep -q 'transport netlink'; }

done_testing() {
	echo "1..$tap_n"
	[ "$tap_fail" = 0 ]
}
