#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Bounded work (issue #12) on a 1 GiB filter: 'info' does not scan the
# payload, and a 'list' dump running in a tight loop does not hold the
# registry lock or the filter's mutex while it reads statistics, so 1M
# adds and an iptables -m bloom rule (which looks the filter up by name)
# finish in bounded time.  Before, each info/list scanned 1 GiB under the
# filter mutex and the registry lock: seconds per filter under TCG.
. "$(dirname "$0")/lib.sh"
B=$BFCTL
XT=$(dirname "$B")/xtables
export XTABLES_LIBDIR=$XT:/usr/lib/x86_64-linux-gnu/xtables
# bounds (seconds, under QEMU TCG); the measured times are printed
INFO_MAX=${KB_BOUNDED_INFO_MAX:-1}
ADD_MAX=${KB_BOUNDED_ADD_MAX:-60}
IPT_MAX=${KB_BOUNDED_IPT_MAX:-5}

now() { date +%s.%N; }
# elapsed START: seconds since START, 2 decimals
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
# under T MAX: T <= MAX
under() { awk -v t="$1" -v m="$2" 'BEGIN { exit !(t <= m) }'; }

diag "guest memory:" "$(free -m)"
$B destroy big 2> /dev/null
# 2^33 bits: 1 GiB (+ LevelDB's k byte), the slowest kind to scan
expect 0 "create a 1 GiB classic filter" $B create big classic \
	--bits 8589934592 --hashes 7 --key-type ipv4
$B add big 10.0.0.1 > /dev/null

t=$(now)
expect 0 "info of the 1 GiB filter" $B info big
ti=$(elapsed "$t")
like "info shows the key's bits" "$out" "bits|fill"
check "info answers in ${ti}s <= ${INFO_MAX}s" under "$ti" "$INFO_MAX"

python3 -c '
import sys
w = sys.stdout.write
for i in range(1000000):
    w("10.%d.%d.%d\n" % ((i >> 16) & 255, (i >> 8) & 255, i & 255))
' > "$TMP/keys"

# the list dump, as root, in a tight loop in the background
lister() {
	local n=0

	while [ ! -e "$TMP/stop" ]; do
		$B list > /dev/null 2>&1
		n=$((n + 1))
	done
	echo $n > "$TMP/nlist"
}
lister &
lp=$!
sleep 1

t=$(now)
expect 0 "1M adds while 'list' loops" $B add big -file "$TMP/keys"
ta=$(elapsed "$t")
check "1M adds in ${ta}s <= ${ADD_MAX}s" under "$ta" "$ADD_MAX"

if iptables -L INPUT -n > /dev/null 2>&1 && [ -e "$XT/libxt_bloom.so" ]; then
	t=$(now)
	expect 0 "iptables -m bloom on the 1 GiB filter while 'list' loops" \
		iptables -A INPUT -m bloom --bloom-name big --bloom-dir src -j ACCEPT
	tr=$(elapsed "$t")
	check "iptables -A in ${tr}s <= ${IPT_MAX}s" under "$tr" "$IPT_MAX"
	iptables -D INPUT -m bloom --bloom-name big --bloom-dir src -j ACCEPT
else
	diag "no iptables with libxt_bloom here: rule timing skipped"
fi

t=$(now)
expect 0 "info of the filled filter while 'list' loops" $B info big
ti2=$(elapsed "$t")
check "info answers in ${ti2}s <= ${INFO_MAX}s" under "$ti2" "$INFO_MAX"

touch "$TMP/stop"
wait $lp
nl=$(cat "$TMP/nlist")
diag "times: info ${ti}s, adds ${ta}s, iptables ${tr:-?}s, info ${ti2}s; $nl list dumps ran"
check "the list loop ran ($nl dumps)" test "$nl" -gt 1
expect 0 "the keys are there" $B test big 10.0.0.1 10.15.66.63 10.3.2.1
$B destroy big
done_testing
