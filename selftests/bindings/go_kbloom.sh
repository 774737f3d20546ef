#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Go binding against the kernel: the go test binary make built
# natively (build/user/go/kbloom.test, userspace/bindings/go/test-go
# --compile; the guest has no time to compile Go under TCG) runs its
# kernel tests (kernel_test.go) on filters it creates with bfctl: a
# reader's Exists, ExistsMany and ExistsAddr answering as bfctl test, key
# by key, false positives included, for every kind and key type (gozero
# with go-zero's keys too); a reader's adds refused (EROFS), a writer's
# seen by the reader at once, a batch with a bad key adding nothing; a
# rebuild waking poll on Fd and followed without reopening, a remap
# clearing it; 4 goroutines testing through rebuilds and swaps without a
# false negative; ENOENT after destroy.  Then, where bfctl has grants, as nobody without capabilities
# in a filter's readers group: tests work, adds are EROFS, a writer's open
# and another filter's are EPERM.  Each Go test and subtest is a TAP
# point; none may be skipped here.  (Its image tests run natively.)
#   go_kbloom.sh BFCTL GO_TEST_BINARY
. "$(dirname "$0")/../bfctl/lib.sh"
T=${2:?usage: $0 BFCTL GO_TEST_BINARY}
if [ ! -x "$T" ]; then
	ok "Go binding # SKIP no $T (Go was not installed at build time)"
	done_testing
	exit
fi
# the build tree's libkbloom.so.0, beside the bfctl that uses it
export LD_LIBRARY_PATH=$(dirname "$BFCTL")/libkbloom
export KBLOOM_BFCTL=$BFCTL KBLOOM_TEST_FILTER=gotest

gotest() {	# OUTFILE CMD...: run a go test binary; each test a TAP point
	local out=$1 rc=0 line
	shift
	(cd /tmp && "$@") > "$out" 2>&1 || rc=$?
	while IFS= read -r line; do
		if [[ $line =~ ^\ *---\ (PASS|FAIL|SKIP):\ ([^ ]+) ]]; then
			case ${BASH_REMATCH[1]} in
			PASS) ok "go test: ${BASH_REMATCH[2]}" ;;
			SKIP) nok "go test: ${BASH_REMATCH[2]} skipped in the VM" ;;
			FAIL) nok "go test: ${BASH_REMATCH[2]}" ;;
			esac
		elif [[ ! $line =~ ^===\ (RUN|PAUSE|CONT) ]]; then
			diag "$line"
		fi
	done < "$out"
	check "go test exits 0 (exit $rc)" test $rc = 0
}

gotest "$TMP/kernel" "$T" -test.v -test.count=1 -test.run '^TestKernel'
check "the kernel tests ran (TestKernelRebuild passed)" \
	grep -q -- '--- PASS: TestKernelRebuild ' "$TMP/kernel"
check "no filter left behind" sh -c "! '$BFCTL' list -t | grep -q '^gotest-'"

# a granted reader (bfctl create --readers: the grants)
if "$BFCTL" grant --help > /dev/null 2>&1; then
	g=gotest-granted
	seq 1 100 | sed 's/^/key-/' > "$TMP/gkeys"
	expect 0 "create $g, readers nogroup" $BFCTL create $g classic --items 1000 \
		--fpr 1% --key-type str --readers nogroup
	expect 0 "add its keys" $BFCTL add $g -file "$TMP/gkeys"
	expect 0 "create $g-ungranted" $BFCTL create $g-ungranted classic --items 1000 \
		--fpr 1% --key-type str
	KBLOOM_TEST_GRANTED=$g gotest "$TMP/granted" setpriv --reuid=65534 --regid=65534 \
		--clear-groups --inh-caps=-all --bounding-set=-all \
		"$T" -test.v -test.count=1 -test.run '^TestGranted$'
	check "the granted test ran" grep -q -- '--- PASS: TestGranted ' "$TMP/granted"
	$BFCTL destroy $g
	$BFCTL destroy $g-ungranted
else
	ok "a granted reader # SKIP bfctl has no grant verb"
fi
done_testing
