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
# Bounds in seconds, measured under TCG on 6.12 (new code / old code):
# info (the fastest of three runs), over an info of a 64-byte filter
# (starting bfctl takes 0.3-0.6 s):
# 0.04-0.9 / 12.3 s more; with the list loop running: 0.5-1.5 / 13.4 s;
# 1M adds 8-17 / 180 s; iptables -A 1.1-5.4 / 16 s (the old code made the
# rule wait for the registry lock held through a 1 GiB scan).  A loaded
# host makes TCG timings jumpy: the bounds leave room.
INFO_MAX=${KB_BOUNDED_INFO_MAX:-2}
INFO_LOAD_MAX=${KB_BOUNDED_INFO_LOAD_MAX:-3}
ADD_MAX=${KB_BOUNDED_ADD_MAX:-60}
IPT_MAX=${KB_BOUNDED_IPT_MAX:-10}

now() { date +%s.%N; }
# elapsed START: seconds since START, 2 decimals
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
# under T REF MAX: T <= REF + MAX
under() { awk -v t="$1" -v r="$2" -v m="$3" 'BEGIN { exit !(t <= r + m) }'; }
# best CMD...: the seconds of the fastest of three runs (the host's load
# stalls a TCG guest now and then: one slow run is noise, three are the
# code, and the old code's scan took its seconds every time)
best() {
	local i t e b=
	for i in 1 2 3; do
		t=$(now)
		"$@" > /dev/null 2>&1
		e=$(elapsed "$t")
		b=$(awk -v e="$e" -v b="${b:-$e}" 'BEGIN { print (e < b) ? e : b }')
	done
	echo "$b"
}

diag "guest memory:" "$(free -m)"
$B destroy big 2> /dev/null
$B destroy small 2> /dev/null
expect 0 "create a 64-byte filter (reference)" $B create small classic \
	--bits 512 --hashes 7 --key-type ipv4
tref=$(best $B info small)
# 2^33 bits: 1 GiB (+ LevelDB's k byte), the slowest kind to scan
expect 0 "create a 1 GiB classic filter" $B create big classic \
	--bits 8589934592 --hashes 7 --key-type ipv4
$B add big 10.0.0.1 > /dev/null

expect 0 "info of the 1 GiB filter" $B info big
like "info shows the key's bits" "$out" "bits|fill"
ti=$(best $B info big)
check "info answers in ${ti}s <= ${tref}s + ${INFO_MAX}s" under "$ti" "$tref" "$INFO_MAX"

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
check "1M adds in ${ta}s <= ${ADD_MAX}s" under "$ta" 0 "$ADD_MAX"

if iptables -L INPUT -n > /dev/null 2>&1 && [ -e "$XT/libxt_bloom.so" ]; then
	t=$(now)
	iptables -A INPUT -m bloom --bloom-name small --bloom-dir src -j ACCEPT
	tiref=$(elapsed "$t")
	iptables -D INPUT -m bloom --bloom-name small --bloom-dir src -j ACCEPT
	t=$(now)
	expect 0 "iptables -m bloom on the 1 GiB filter while 'list' loops" \
		iptables -A INPUT -m bloom --bloom-name big --bloom-dir src -j ACCEPT
	tr=$(elapsed "$t")
	check "iptables -A in ${tr}s <= ${IPT_MAX}s" under "$tr" 0 "$IPT_MAX"
	iptables -D INPUT -m bloom --bloom-name big --bloom-dir src -j ACCEPT
else
	diag "no iptables with libxt_bloom here: rule timing skipped"
fi

expect 0 "info of the filled filter while 'list' loops" $B info big
ti2=$(best $B info big)
tref2=$(best $B info small)
# against an info of the small filter under the same load: both pay for
# starting bfctl on a host as busy as it is now
check "info answers in ${ti2}s <= ${tref2}s + ${INFO_LOAD_MAX}s" \
	under "$ti2" "$tref2" "$INFO_LOAD_MAX"

touch "$TMP/stop"
wait $lp
nl=$(cat "$TMP/nlist")
diag "times: info ${ti}s (64-byte filter ${tref}s), adds ${ta}s," \
	"iptables ${tr:-?}s (64-byte filter ${tiref:-?}s)," \
	"info under list ${ti2}s (64-byte filter ${tref2}s); $nl list dumps ran"
check "the list loop ran ($nl dumps)" test "$nl" -gt 1
expect 0 "the keys are there" $B test big 10.0.0.1 10.15.66.63 10.3.2.1
$B destroy big
$B destroy small
done_testing
