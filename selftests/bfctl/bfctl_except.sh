#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Exception sets (bfctl except, KB_CMD_EXCEPT_*): a key a filter answers
# maybe is answered absent once excepted, by bfctl test and by an
# iptables -m bloom rule; prefixes on net filters; exceptions survive
# flush, rebuild and swap; failures (unknown filter, duplicates, too
# many, no CAP_NET_ADMIN) change nothing.
. "$(dirname "$0")/lib.sh"
B=$BFCTL
XT=$(dirname "$B")/xtables
export XTABLES_LIBDIR=$XT:${XTABLES_LIBDIR:-/usr/lib/x86_64-linux-gnu/xtables}

for f in ex ex2 exn; do $B destroy $f 2> /dev/null; done

# a full one-block filter with a fixed seed: most keys answer maybe, the
# same ones on every run
seq -f '10.1.%g.1' 0 255 > "$TMP/keys"
seq -f '10.2.%g.1' 0 255 >> "$TMP/keys"
expect 0 "create a saturated filter" $B create ex blocked --bits 512 --hashes 1 --key-type ipv4 --seed 7
expect 0 "fill it" $B add --force ex -file "$TMP/keys"
fp=
for i in $(seq 1 200); do
	if $B test -q ex 192.168.0.$i; then fp=192.168.0.$i; break; fi
done
check "a key never added answers maybe (a false positive)" test -n "$fp"
expect 0 "a listed key answers maybe" $B test ex 10.1.7.1

expect 0 "except add the false positive and a listed key" $B except ex add "$fp" 10.1.7.1
expect 1 "the false positive now answers absent" $B test ex "$fp"
expect 1 "the listed key answers absent too" $B test ex 10.1.7.1
expect 0 "other listed keys still answer maybe" $B test ex 10.1.8.1
expect 0 "list" $B except ex list
check "list shows both" test "$(echo "$out" | sort | tr '\n' ' ')" = "10.1.7.1 $fp "
expect 0 "info" $B info ex
like "info shows the count" "$out" '^exceptions: 2$'
expect 0 "list -j" $B -j list ex
json_check "list -j shows the count" "$out" "j['filters'][0]['exceptions'] == 2"
expect 0 "except list -j" $B -j except ex list
json_check "list -j holds the keys" "$out" "j['count'] == 2 and sorted(j['keys']) == sorted(['$fp', '10.1.7.1'])"

# ---- failures change nothing ----
expect 3 "except add of a key already there: EEXIST" $B except ex add 10.1.7.1
expect 0 "... with -exist: ok" $B except ex add -exist 10.1.7.1
expect 3 "except del of a key not there: ENOENT" $B except ex del 10.9.9.9
expect 0 "... with -exist: ok" $B except ex del -exist 10.9.9.9
expect 2 "a malformed key: usage error" $B except ex add not-an-address
expect 3 "an unknown filter" $B except nosuch list
expect 2 "an unknown operation" $B except ex frob
expect 3 "no CAP_NET_ADMIN: refused" capsh --drop=cap_net_admin -- -c "$B except ex add 10.3.0.1"
expect 3 "no CAP_NET_ADMIN: list refused too" capsh --drop=cap_net_admin -- -c "$B except ex list"
python3 -c 'for i in range(4097): print("172.16.%d.%d" % (i // 256, i % 256))' > "$TMP/many"
expect 3 "more than 4096 exceptions: refused" $B except ex add -file "$TMP/many"
head -n 4094 "$TMP/many" > "$TMP/fill"
expect 0 "4096 in all: accepted" $B except ex add -file "$TMP/fill"
expect 3 "one more: the kernel refuses (ENOSPC)" $B except ex add 10.4.0.1
like "... saying why" "$err" 'at most 4096'
expect 0 "list after the failures" $B except ex list
check "4096 exceptions" test "$(echo "$out" | wc -l)" = 4096
expect 0 "del -file" $B except ex del -file "$TMP/fill"
expect 1 "still excepted after all that" $B test ex "$fp"

# ---- exceptions belong to the filter, not its generation ----
expect 0 "rebuild (the same seed: the same bits)" $B rebuild ex -file "$TMP/keys" --force --seed 7
expect 1 "rebuild keeps exceptions" $B test ex "$fp"
expect 0 "flush" $B flush ex
expect 0 "add back" $B add --force ex -file "$TMP/keys"
expect 1 "flush keeps exceptions" $B test ex "$fp"
expect 0 "create a second filter, same keys" $B create ex2 blocked --bits 512 --hashes 1 --key-type ipv4 --seed 7
expect 0 "fill it" $B add --force ex2 -file "$TMP/keys"
expect 0 "swap" $B swap ex ex2
expect 1 "swap: the name keeps its exceptions" $B test ex "$fp"
expect 0 "... and the other filter has none" $B test ex2 "$fp"
# ---- save, restore and sync keep them ----
expect 0 "save" $B save -file "$TMP/save"
like "the save holds except lines" "$(cat "$TMP/save")" "^except ex $fp\$"
expect 0 "destroy" $B destroy ex
expect 0 "restore" $B restore -exist --force -file "$TMP/save"
expect 1 "restore brings the exceptions back" $B test ex "$fp"
expect 0 "except flush" $B except ex flush
expect 0 "after except flush the false positive answers maybe again" $B test ex "$fp"
expect 0 "sync with the save" $B sync --force -file "$TMP/save"
expect 1 "sync gives an unchanged filter the file's exceptions" $B test ex "$fp"
expect 0 "except del" $B except ex del "$fp"
expect 0 "rebuild with other keys, so sync replaces" $B rebuild ex -file "$TMP/keys" --force --seed 8
expect 0 "sync replacing the filter" $B sync --force -file "$TMP/save"
expect 1 "the replaced filter has the file's exceptions" $B test ex "$fp"
expect 0 "except flush" $B except ex flush
expect 0 "after except flush the false positive answers maybe again" $B test ex "$fp"
expect 0 "except list of an empty set" $B except ex list
check "prints nothing" test -z "$out"

# pass DESC CMD...: CMD succeeds; drop DESC CMD...: CMD fails (a DROP on
# OUTPUT fails ping's send, whatever exit status ping gives that)
pass() { local d=$1; shift; if "$@" > /dev/null 2>&1; then ok "$d"; else nok "$d"; fi; }
drop() { local d=$1; shift; if "$@" > /dev/null 2>&1; then nok "$d"; else ok "$d"; fi; }

# ---- net filters: prefixes; iptables -m bloom honours exceptions ----
expect 0 "create a net filter" $B create exn blocked --items 100 --fpr 0.01 --key-type net
expect 0 "block 127.0.0.0/16" $B add exn 127.0.0.0/16
expect 0 "except 127.0.5.0/24" $B except exn add 127.0.5.0/24
expect 1 "an address in the excepted prefix answers absent" $B test exn 127.0.5.9
expect 0 "an address outside it answers maybe" $B test exn 127.0.6.9
expect 2 "a prefix with host bits set: usage error" $B except exn add 127.0.5.1/24
expect 0 "an address excepted inside a listed prefix" $B except exn add 127.0.8.7
expect 1 "test answers as a packet would: absent" $B test exn 127.0.8.7
expect 0 "its neighbour stays maybe" $B test exn 127.0.8.6
expect 1 "test of the /32 key itself: absent" $B test exn 127.0.8.7/32

# in a namespace of its own: the rules and the traffic stay there
if ip netns add kbex 2> /dev/null && [ -e "$XT/libxt_bloom.so" ] &&
   ip netns exec kbex iptables -L INPUT -n > /dev/null 2>&1; then
	N="ip netns exec kbex"
	$N ip link set lo up
	$N $B create exn blocked --items 100 --fpr 0.01 --key-type net
	$N $B add exn 127.0.0.0/16
	$N $B except exn add 127.0.5.0/24
	# the false positive of the init namespace's filter: same bits here
	$N $B create exf blocked --bits 512 --hashes 1 --key-type ipv4 --seed 7
	$N $B add --force exf -file "$TMP/keys"
	$N ip addr add "$fp/32" dev lo
	expect 0 "a DROP rule on the net filter" $N iptables -A OUTPUT -o lo -m bloom --bloom-name exn --bloom-dir dst -j DROP
	expect 0 "a DROP rule on the saturated filter" $N iptables -A OUTPUT -o lo -d "$fp/32" -m bloom --bloom-name exf --bloom-dir dst -j DROP
	drop "iptables drops a blocked address" $N ping -c 1 -W 1 127.0.6.9
	pass "iptables passes an address of the excepted prefix (both ways)" $N ping -c 1 -W 1 -I 127.0.5.1 127.0.5.9
	drop "iptables drops the false positive" $N ping -c 1 -W 1 "$fp"
	$N $B except exf add "$fp"
	pass "iptables passes it once excepted" $N ping -c 1 -W 1 "$fp"
	$N $B except exf del "$fp"
	drop "and drops it once the exception is gone" $N ping -c 1 -W 1 "$fp"
	$N iptables -F OUTPUT
	ip netns del kbex
else
	ip netns del kbex 2> /dev/null
	nok "no iptables with libxt_bloom here"
fi

for f in ex ex2 exn; do $B destroy $f 2> /dev/null; done
done_testing
