#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Without CAP_NET_ADMIN: list, info and test work; every change fails with
# EPERM (exit 3).
. "$(dirname "$0")/lib.sh"
B=$BFCTL
U="setpriv --inh-caps=-all --ambient-caps=-all --bounding-set=-all"
$B destroy pv 2> /dev/null; $B destroy pv2 2> /dev/null
$B create pv blocked --items 100 --fpr 0.01 --key-type str
$B create pv2 counting --items 100 --fpr 0.01 --key-type str
$B add pv2 a > /dev/null
$B add pv a > /dev/null
echo b > "$TMP/keys"
$B export pv -o "$TMP/pv.img"
$B save pv -file "$TMP/pv.save"

check "setpriv really drops CAP_NET_ADMIN" test "$($U grep CapEff /proc/self/status | awk '{print $2}')" = 0000000000000000
expect 0 "unprivileged info" $U $B info pv
expect 0 "unprivileged test" $U $B test pv a
expect 1 "unprivileged test of an absent key" $U $B test pv zz
expect 0 "unprivileged list NAME" $U $B list pv
if have_netlink; then
	expect 0 "unprivileged list" $U $B list
	like "unprivileged list sees the filter" "$out" 'pv'
fi
expect 0 "unprivileged export (xxh64)" $U $B export pv -o "$TMP/u.img"
eperm() {	# DESC CMD...
	local d=$1
	shift
	expect 3 "unprivileged $d: exit 3" $U $B "$@"
	like "unprivileged $d: EPERM" "$err" 'Operation not permitted'
}
eperm create create pv3 blocked
eperm destroy destroy pv
eperm add add pv b
eperm "add -file" add pv -file "$TMP/keys"
eperm test-and-add test-and-add pv b
eperm del del pv2 a
eperm flush flush pv
eperm swap swap pv pv2
eperm rename rename pv pv9
eperm rebuild rebuild pv -file "$TMP/keys"
eperm upload upload pv "$TMP/pv.img"
eperm restore restore -exist -file "$TMP/pv.save"
if have_netlink; then
	eperm monitor monitor
fi
expect 0 "capsh --drop=cap_net_admin: test works" capsh --drop=cap_net_admin -- -c "$B test pv a"
expect 3 "capsh --drop=cap_net_admin: add fails" capsh --drop=cap_net_admin -- -c "$B add pv b"
expect 0 "the filter is unchanged" $B test pv a
expect 1 "no unprivileged add got through" $B test pv b
$B destroy pv; $B destroy pv2
done_testing
