#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Without CAP_NET_ADMIN (or as nobody) every verb that talks to the kernel,
# reads included, fails with EPERM (exit 3) and a message naming
# CAP_NET_ADMIN; a root of its own user+network namespace may do anything
# there.
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
eperm() {	# DESC CMD...
	local d=$1
	shift
	expect 3 "unprivileged $d: exit 3" $U $B "$@"
	like "unprivileged $d: EPERM" "$err" 'Operation not permitted'
	like "unprivileged $d: names CAP_NET_ADMIN" "$err" 'CAP_NET_ADMIN'
}
N="setpriv --reuid=65534 --regid=65534 --clear-groups"
nobody() {	# DESC CMD...: as nobody (who may open the 0666 /dev/kbloom)
	local d=$1
	shift
	expect 3 "nobody $d: exit 3" $N $B "$@"
	like "nobody $d: names CAP_NET_ADMIN" "$err" 'CAP_NET_ADMIN'
	check "nobody $d: no filter in the output" test -z "$(printf '%s' "$out" | grep pv)"
}
eperm info info pv
eperm test test pv a
eperm "test of an absent key" test pv zz
eperm "list NAME" list pv
eperm export export pv -o "$TMP/u.img"
check "no unprivileged image written" test ! -s "$TMP/u.img"
eperm save save
nobody info info pv
nobody test test pv a
nobody save save
nobody export export pv -o "$TMP/n.img"
expect 3 "nobody info (netlink)" $N $B info pv
like "nobody info (netlink): names CAP_NET_ADMIN" "$err" 'CAP_NET_ADMIN'
expect 3 "unprivileged info (netlink)" $U $B info pv
like "unprivileged info (netlink): names CAP_NET_ADMIN" "$err" 'CAP_NET_ADMIN'
if have_netlink; then
	eperm list list
	check "unprivileged list prints nothing" test -z "$out"
	nobody list list
fi
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
expect 3 "capsh --drop=cap_net_admin: test fails" capsh --drop=cap_net_admin -- -c "$B test pv a"
expect 3 "capsh --drop=cap_net_admin: add fails" capsh --drop=cap_net_admin -- -c "$B add pv b"
expect 0 "the filter is unchanged" $B test pv a
expect 0 "root of its own user+net namespace works there" unshare -Urn sh -c "$B create own blocked --key-type str && $B add own k && $B test own k && $B info own > /dev/null && $B list own > /dev/null && $B destroy own"
expect 3 "... and sees no filter of the initial namespace" unshare -Urn $B info pv
expect 1 "no unprivileged add got through" $B test pv b
$B destroy pv; $B destroy pv2
# CAP_NET_ADMIN but no way into /dev/kbloom (the node made 000 here, the caller
# without CAP_DAC_OVERRIDE, as a udev-group setup would leave a non-member):
# keys on the command line go over netlink and work; a bulk load needs
# the device and says so, not that the module is missing
D="setpriv --inh-caps=-dac_override,-dac_read_search --bounding-set=-dac_override,-dac_read_search"
$B create pd blocked --items 100 --fpr 0.01 --key-type str
$B add pd a > /dev/null
mode=$(stat -c %a /dev/kbloom)
chmod 000 /dev/kbloom
check "the caller really cannot open /dev/kbloom" bash -c "! $D bash -c 'exec 3< /dev/kbloom' 2> /dev/null"
expect 0 "test without the device: over netlink" $D $B test pd a
expect 1 "test of an absent key without the device" $D $B test pd zz
expect 0 "add without the device: over netlink" $D $B add pd c
expect 3 "add -file needs the device" $D $B add pd -file "$TMP/keys"
like "names /dev/kbloom and its permissions" "$err" '/dev/kbloom: Permission denied'
check "does not blame the module" test -z "$(printf '%s' "$err" | grep 'not loaded')"
chmod "$mode" /dev/kbloom
$B destroy pd
done_testing
