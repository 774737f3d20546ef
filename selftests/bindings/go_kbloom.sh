#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Go binding against the kernel: the go test binary make built
# natively (build/user/go/kbloom.test, userspace/bindings/go/test-go
# --compile; the guest has no time to compile Go under TCG) runs its
# kernel tests (kernel_test.go) on filters it creates with bfctl: a
# reader's Exists, ExistsMany and ExistsAddr answering as bfctl test, key
# by key, false positives included, for every kind and key type (gozero
# with go-zero's keys too); a reader's adds refused (EROFS), a writer's
# seen by the reader at once; a rebuild waking poll on Fd and followed
# without reopening; ENOENT after destroy.  Each Go test and subtest is a
# TAP point; none may be skipped here.  (Its image tests run natively.)
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
rc=0
(cd "$TMP" && "$T" -test.v -test.count=1 -test.run '^TestKernel') > "$TMP/gotest" 2>&1 || rc=$?
skips=0
while IFS= read -r line; do
	if [[ $line =~ ^\ *---\ (PASS|FAIL|SKIP):\ ([^ ]+) ]]; then
		case ${BASH_REMATCH[1]} in
		PASS) ok "go test: ${BASH_REMATCH[2]}" ;;
		SKIP) nok "go test: ${BASH_REMATCH[2]} skipped in the VM"; skips=1 ;;
		FAIL) nok "go test: ${BASH_REMATCH[2]}" ;;
		esac
	elif [[ ! $line =~ ^===\ (RUN|PAUSE|CONT) ]]; then
		diag "$line"
	fi
done < "$TMP/gotest"
check "go test exits 0 (exit $rc)" test $rc = 0
check "the kernel tests ran (TestKernelRebuild passed)" grep -q -- '--- PASS: TestKernelRebuild ' "$TMP/gotest"
check "no filter left behind" sh -c "! '$BFCTL' list -t | grep -q '^gotest-'"
done_testing
