#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every operation on the biggest filters that fit in the VM (4 GiB of
# memory) yields: create, info, flush, export, upload and the FPR sizing
# search.  The test itself checks only results and prints timings; what
# fails it is the runner's console check: a soft lockup (the debug lane
# boots with watchdog_thresh=2 softlockup_panic=1, i.e. 4 s without a
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

# jget FIELD...: the FIELDs of the JSON object (or first object of a
# list) in $out, space-separated, FPR fields in ppb.  One python3 for them
# all: its start-up takes seconds on the debug kernel under TCG.
jget() {
	printf '%s' "$out" | python3 -c '
import json, sys
v = json.load(sys.stdin)
v = v[0] if isinstance(v, list) else v
print(" ".join(str(round(v["est_fpr"] * 1e9)) if f == "est_fpr_ppb" and "est_fpr" in v
               else str(v[f]) for f in sys.argv[1:]))' "$@"
}

diag "watchdog_thresh $(cat /proc/sys/kernel/watchdog_thresh)," \
	"softlockup_panic $(cat /proc/sys/kernel/softlockup_panic)," \
	"hung_task_timeout_secs $(cat /proc/sys/kernel/hung_task_timeout_secs 2> /dev/null)"
diag "guest memory:" "$(free -m)"
# the biggest filters need more than the default max_total_bytes (half of
# RAM): raise it for the test, and put it back however the test ends
param=/sys/module/kbloom/parameters/max_total_bytes
saved=$(cat $param)
trap 'echo "$saved" > $param; rm -rf "$TMP"' EXIT
echo $((3 << 30)) > $param
for f in big img img2 sz; do $B destroy $f 2> /dev/null; done

# 2 GiB blocked: create (zeroed by the allocator), info, flush
timed "create a 2 GiB blocked filter" $B create big blocked \
	--bits 17179869184 --hashes 8 --key-type ipv4
timed "add keys" $B add big 10.0.0.1 10.0.0.2
timed "info" $B info big
like "info counts the keys' bits" "$out" "bits"
timed "flush" $B flush big
expect 1 "flushed: the key is gone" $B test big 10.0.0.1
expect 0 "info after flush" $B -j info big
check "flush zeroed the kernel's fill counters" test "$(jget bits_set)" = 0
$B destroy big

# KB_LOCKUP_SMALL=1 (the debug lane): a smaller classic filter and fewer
# keys.  KASAN makes every loop several times slower, so 256 MiB still
# runs each loop for many times the watchdog's 4 s; the full sizes cost
# the lane four minutes and check nothing more there.
if [ "${KB_LOCKUP_SMALL:-0}" = 1 ]; then
	nkeys=4000 classic_bits=2147483648 classic_size="256 MiB"
else
	nkeys=40000 classic_bits=6442450944 classic_size="768 MiB"
fi

# the kernel's statistics (fill tracker) equal a scan of its image
for kind in blocked counting classic; do
	$B destroy st 2> /dev/null
	$B create st $kind --bits 8388608 --hashes 6 --key-type ipv4
	seq 0 $nkeys | awk '{ printf "10.1.%d.%d\n", int($1 / 256) % 256, $1 % 256 }' > "$TMP/k"
	$B add st -file "$TMP/k"
	[ $kind = counting ] && $B del st 10.1.0.1 10.1.0.2 10.1.0.3
	expect 0 "$kind: info" $B -j info st
	read -r kb ke kf <<< "$(jget bits_set est_items est_fpr_ppb)"
	$B export st -o "$TMP/st.img"
	expect 0 "$kind: offline info of its image" $B -j image info "$TMP/st.img"
	read -r sb se sf <<< "$(jget bits_set est_items est_fpr_ppb)"
	check "$kind: bits_set $kb = scan $sb" test -n "$kb" -a "$kb" = "$sb"
	check "$kind: est_items $ke = scan $se" test -n "$ke" -a "$ke" = "$se"
	check "$kind: est_fpr $kf ppb = scan $sf" test -n "$kf" -a "$kf" = "$sf"
	$B destroy st
	expect 0 "$kind: upload it" $B upload st "$TMP/st.img"
	expect 0 "$kind: info after upload" $B -j info st
	read -r ub uf <<< "$(jget bits_set est_fpr_ppb)"
	check "$kind: uploaded bits_set $ub = $kb" test -n "$ub" -a "$kb" = "$ub"
	check "$kind: uploaded est_fpr $uf = $kf" test -n "$uf" -a "$kf" = "$uf"
	$B destroy st
done

# a big classic filter (byte-wise kind): export, then upload the image
timed "create a $classic_size classic filter" $B create img classic \
	--bits $classic_bits --hashes 7 --key-type ipv4
$B add img 10.0.0.1 10.0.0.2 > /dev/null
timed "export the $classic_size filter" $B export img -o "$TMP/img"
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
