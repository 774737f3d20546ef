#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every operation on the biggest filters that fit in the VM (4 GiB of
# memory) yields: create, info, flush, export, upload and the FPR sizing
# search.  The test itself checks only results and prints timings; what
# fails it is the runner's console check: a soft lockup (the debug lane
# boots with watchdog_thresh=1 softlockup_panic=1, i.e. 2 s without a
# scheduling point panics) or a hung task (hung_task_panic=1).
. "$(dirname "$0")/lib.sh"
B=$BFCTL

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
# timed DESC CMD...: expect 0, and say how long it took
timed() {
	local desc=$1 t

	shift
	t=$(now)
	expect 0 "$desc" "$@"
	diag "$desc: $(elapsed "$t")s"
}

diag "watchdog_thresh $(cat /proc/sys/kernel/watchdog_thresh)," \
	"softlockup_panic $(cat /proc/sys/kernel/softlockup_panic)," \
	"hung_task_timeout_secs $(cat /proc/sys/kernel/hung_task_timeout_secs 2> /dev/null)"
diag "guest memory:" "$(free -m)"
for f in big img img2 sz; do $B destroy $f 2> /dev/null; done

# 2 GiB blocked: create (zeroed by the allocator), info, flush
timed "create a 2 GiB blocked filter" $B create big blocked \
	--bits 17179869184 --hashes 8 --key-type ipv4
timed "add keys" $B add big 10.0.0.1 10.0.0.2
timed "info" $B info big
like "info counts the keys' bits" "$out" "bits"
timed "flush" $B flush big
expect 1 "flushed: the key is gone" $B test big 10.0.0.1
timed "info after flush" $B info big
$B destroy big

# 768 MiB classic (byte-wise kind): export, then upload the image
timed "create a 768 MiB classic filter" $B create img classic \
	--bits 6442450944 --hashes 7 --key-type ipv4
$B add img 10.0.0.1 10.0.0.2 > /dev/null
timed "export the 768 MiB filter" $B export img -o "$TMP/img"
$B destroy img
timed "upload the image (one counting scan)" $B upload img2 "$TMP/img"
rm -f "$TMP/img"
expect 0 "the uploaded filter has the keys" $B test img2 10.0.0.1 10.0.0.2
timed "info of the uploaded filter" $B info img2
$B destroy img2

# FPR sizing: a big answer, and one past max_filter_bytes (stops early)
timed "size 2e8 keys at 1e-9" $B create sz blocked --items 200000000 \
	--fpr 0.000000001
$B destroy sz
t=$(now)
expect 3 "1e10 keys at 1e-9 are over max_filter_bytes" $B create sz \
	blocked --items 10000000000 --fpr 0.000000001
diag "refused in $(elapsed "$t")s"
done_testing
