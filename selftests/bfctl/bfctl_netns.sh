#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Filters are per network namespace: a second netns sees none of the
# first's, over netlink and over /dev/kbloom (key batches).
. "$(dirname "$0")/lib.sh"
B=$BFCTL
$B destroy ns1 2> /dev/null
$B create ns1 blocked --items 100 --fpr 0.01 --key-type str
$B add ns1 a > /dev/null
expect 3 "another netns has no ns1 (info)" unshare -n $B info ns1
expect 3 "another netns cannot test ns1" unshare -n $B test ns1 a
if have_netlink; then
	expect 0 "another netns lists nothing" unshare -n $B list -t
	check "the list is empty" test -z "$out"
fi
expect 0 "another netns can create its own ns1" unshare -n sh -c "$B create ns1 blocked --key-type str && $B add ns1 zz && $B test ns1 zz"
expect 1 "which did not touch ours" $B test ns1 zz
ip netns add kbt 2> /dev/null
if [ -e /run/netns/kbt ]; then
	expect 0 "ip netns exec: create in kbt" ip netns exec kbt $B create nsk blocked
	expect 3 "kbt's filter is not in init_net" $B info nsk
	expect 0 "kbt keeps its filter" ip netns exec kbt $B info nsk
	ip netns del kbt
fi
expect 0 "ours is intact" $B test ns1 a
$B destroy ns1
done_testing
