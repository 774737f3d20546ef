#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bfctl monitor prints the events of other processes' changes.
. "$(dirname "$0")/lib.sh"
B=$BFCTL
if ! have_netlink; then
	expect 3 "monitor needs the netlink family" $B monitor
	done_testing
	exit
fi
for f in mo0 mo1 mo2 mo3; do $B destroy $f 2> /dev/null; done
echo k > "$TMP/keys"
$B monitor -j > "$TMP/events.json" &
jpid=$!
$B monitor > "$TMP/events.txt" &
tpid=$!
# the events of the sentinel filter mo0, dropped from what is compared
events_txt() { grep -v ' mo0$' "$TMP/events.txt"; }
events_json() { grep -v '"name":"mo0"' "$TMP/events.json"; }
wait_diag() { diag "$(cat "$TMP/events.txt" "$TMP/events.json")"; }
# a monitor says nothing once subscribed: mo0 is created and destroyed
# until both have printed it, so that they saw everything after
listening() {
	$B create mo0 blocked --key-type str && $B destroy mo0
	grep -q 'destroyed mo0' "$TMP/events.txt" &&
		grep -q '"name":"mo0"' "$TMP/events.json"
}
wait_for "both monitors listen" listening
$B create mo1 blocked --key-type str
$B create mo2 blocked --key-type str
$B swap mo1 mo2
$B rename mo2 mo3
$B flush mo1
$B rebuild mo1 -file "$TMP/keys" > /dev/null
$B destroy mo1
$B destroy mo3
seen_all() {
	[ "$(events_txt | wc -l)" -ge 8 ] && [ "$(events_json | wc -l)" -ge 8 ]
}
wait_for "both monitors print the 8 events" seen_all
kill $jpid $tpid
wait $jpid $tpid 2> /dev/null
want='created mo1
created mo2
swapped mo1 mo2
renamed mo2 mo3
flushed mo1
rebuilt mo1
destroyed mo1
destroyed mo3'
check "monitor saw every event in order" test "$(events_txt)" = "$want"
diag "$(events_txt)"
n=0
while IFS= read -r line; do
	printf '%s' "$line" | python3 -c 'import json,sys; json.load(sys.stdin)' || n=$((n + 1))
done < <(events_json)
check "every monitor -j line is a JSON document" test $n = 0
json_check "monitor -j: swap has both names" "$(events_json | sed -n 3p)" 'j=={"event":"swapped","name":"mo1","name2":"mo2"}'
check "monitor -j saw 8 events" test "$(events_json | wc -l)" = 8
done_testing
