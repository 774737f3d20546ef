#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bfctl xdp: the XDP/tc blocklist end to end.  Two network namespaces
# joined by veth; the blocklist on the receiving side (kbxd) drops pings
# from listed IPv4/IPv6 sources and from a listed net4 prefix, in XDP
# native and generic mode and as a tc filter, and passes the others;
# counters; crafted frames with 0 to 13 VLAN tags get the same verdict
# from each mode as from iptables -m bloom (more than 8: dropped);
# destroy (and sync) of a filter in use refused, --force, show warns;
# --dir dst; every refusal (unknown device, missing filter, a
# filter without addresses, a foreign XDP or tc program without
# --replace, which prints the id it replaced; detach leaves a foreign
# program alone, even one put in place while it runs); a missing filter
# fails open; filters are per netns; a saved blocklist restores, but not
# over a foreign program; a rebuild and a swap under a
# continuous UDP stream never let a listed source through; detach; rmmod
# kbloom refused while a blocklist is attached, done after detach.
. "$(dirname "$0")/lib.sh"
B=$BFCTL
UB=$(cd "$(dirname "$B")" && pwd)
STREAM=$(cd "$(dirname "$0")" && pwd)/xdp_stream.py
export XTABLES_LIBDIR=$UB/xtables:/usr/lib/x86_64-linux-gnu/xtables
S=kbxs
D=kbxd
nss() { ip netns exec $S "$@"; }
nsd() { ip netns exec $D "$@"; }
# deleting the netns deletes veth-d, and the blocklist on it
netns_del() {
	for n in $S $D; do
		ip netns pids $n 2> /dev/null | xargs -r kill 2> /dev/null
		ip netns del $n 2> /dev/null
	done
	$B destroy late --force 2> /dev/null
}
netns_del
trap 'touch "$TMP/stop"; netns_del; rm -rf "$TMP"' EXIT

# ping SRC DST: 0 if answered
ping1() { nss ping -q -c1 -W2 -I "$1" "$2" > /dev/null 2>&1; }
passes() { ping1 "$@"; }
blocked() { ! ping1 "$@"; }
# counter NAME: from `bfctl -j xdp show veth-d` in kbxd (without the
# warning of a missing filter)
counter() {
	nsd $B -j xdp show veth-d 2> /dev/null |
		python3 -c "import json,sys; print(json.load(sys.stdin)[0]['$1'])"
}

ip netns add $S && ip netns add $D &&
	ip -n $S link add veth-s type veth peer name veth-d netns $D &&
	ip -n $S link set lo up && ip -n $D link set lo up &&
	ip -n $S link set veth-s up && ip -n $D link set veth-d up &&
	ip -n $D addr add 10.98.0.1/24 dev veth-d &&
	ip -n $D addr add 10.98.0.5/24 dev veth-d &&
	ip -n $D addr add fd00:98::1/64 dev veth-d nodad &&
	for a in 2 3 130; do ip -n $S addr add 10.98.0.$a/24 dev veth-s; done &&
	ip -n $S addr add fd00:98::2/64 dev veth-s nodad &&
	ip -n $S addr add fd00:98::3/64 dev veth-s nodad
check "two netns joined by veth" test $? = 0
# every source answered before anything is attached (and neighbours known)
for p in "10.98.0.2 10.98.0.1" "10.98.0.3 10.98.0.1" "10.98.0.130 10.98.0.1" \
	"fd00:98::2 fd00:98::1" "fd00:98::3 fd00:98::1"; do
	ping1 $p || ping1 $p
	check "without a blocklist $p answers" ping1 $p
done

# the blocklist: two hosts, one per family, and a /25 (a net filter)
nsd $B create bl blocked --items 1000 --fpr 0.0001 --key-type net
nsd $B add bl 10.98.0.2 fd00:98::2 10.98.0.128/25 > /dev/null
nsd $B create words blocked --key-type str

# ---- refusals: nothing attached by any of them ----
expect 2 "attach without a filter name" nsd $B xdp attach veth-d
expect 2 "attach --dir bad" nsd $B xdp attach veth-d bl --dir up
expect 2 "attach --mode bad" nsd $B xdp attach veth-d bl --mode fast
expect 2 "attach a bad filter name" nsd $B xdp attach veth-d 'a/b'
expect 2 "detach takes no --mode" nsd $B xdp detach veth-d --mode tc
expect 2 "an unknown xdp verb" nsd $B xdp frob
expect 2 "attach --priority bad" nsd $B xdp attach veth-d bl --priority -1
expect 2 "attach --priority with --no-dispatcher" \
	nsd $B xdp attach veth-d bl --priority 5 --no-dispatcher
expect 2 "attach --priority with --mode tc" nsd $B xdp attach veth-d bl --priority 5 --mode tc
expect 2 "detach takes no --priority" nsd $B xdp detach veth-d --priority 5
expect 2 "attach has no -j" nsd $B -j xdp attach veth-d bl
expect 3 "attach to an unknown device" nsd $B xdp attach nosuch0 bl
like "says so" "$err" "no device 'nosuch0'"
expect 3 "attach to loopback (not Ethernet), even with --force" nsd $B xdp attach lo bl --force
like "says the blocklist parses Ethernet only" "$err" "lo is not an Ethernet device"
expect 3 "attach to a missing filter" nsd $B xdp attach veth-d nosuch
like "says the blocklist would block nothing" "$err" 'block nothing.*--force'
expect 3 "attach to a filter of strings" nsd $B xdp attach veth-d words
like "says the key type holds no addresses" "$err" 'key type str'
expect 3 "detach with nothing attached" nsd $B xdp detach veth-d
expect 3 "show a device without a blocklist" nsd $B xdp show veth-d
expect 0 "show without any blocklist" nsd $B xdp show
check "prints nothing" test -z "$out"
check "no XDP program after the refusals" \
	bash -c "! ip -n $D link show veth-d | grep -q 'prog/xdp'"

# ---- each mode: listed sources dropped, others pass, counted ----
mode_test() {	# MODE
	local m=$1
	expect 0 "$m: attach" nsd $B xdp attach veth-d bl --mode $m
	# ip netns exec hides /sys/fs/bpf: libxdp has no bpffs to pin in
	[ $m = tc ] || like "$m: attached alone (libxdp found no bpffs)" "$out" \
		"^veth-d: alone, without libxdp's dispatcher \(libxdp loaded it alone"
	expect 0 "$m: show -j" nsd $B -j xdp show veth-d
	# (no count checked here: the peer's own IPv6 neighbour and MLD
	# packets from its listed address may already have been dropped)
	json_check "$m: show says filter bl, dir src, mode $m" "$out" \
		"len(j)==1 and j[0]['dev']=='veth-d' and j[0]['filter']=='bl' and j[0]['dir']=='src' and j[0]['mode']=='$m'"
	check "$m: 10.98.0.2 (listed) is dropped" blocked 10.98.0.2 10.98.0.1
	check "$m: 10.98.0.3 passes" passes 10.98.0.3 10.98.0.1
	check "$m: 10.98.0.130 (in 10.98.0.128/25) is dropped" blocked 10.98.0.130 10.98.0.1
	check "$m: fd00:98::2 (listed) is dropped" blocked fd00:98::2 fd00:98::1
	check "$m: fd00:98::3 passes" passes fd00:98::3 fd00:98::1
	expect 0 "$m: show -j" nsd $B -j xdp show veth-d
	json_check "$m: dropped >= 3, passed >= 2, nofilter 0" "$out" \
		"j[0]['dropped']>=3 and j[0]['passed']>=2 and j[0]['nofilter']==0"
	local how="xdp $m" shown="xdp $m"
	[ $m = tc ] && how=tc shown=$tc_how
	expect 3 "$m: destroy bl is refused while attached" nsd $B destroy bl
	like "$m: in use by the blocklist on veth-d ($how)" "$err" \
		"in use by a kernel component: the XDP/tc blocklist on veth-d \\($how\\).*--force"
	expect 0 "$m: bl is still there" nsd $B info bl
	expect 0 "$m: show (text)" nsd $B xdp show
	like "$m: one line for veth-d" "$out" "^veth-d: $shown filter bl dir src prog [0-9]+ passed [0-9]+ dropped [0-9]+ nofilter 0 nonip [0-9]+$"
	expect 0 "$m: detach" nsd $B xdp detach veth-d
	check "$m: 10.98.0.2 answers after detach" passes 10.98.0.2 10.98.0.1
	expect 3 "$m: nothing to show after detach" nsd $B xdp show veth-d
}
# tc mode: tcx (exact replace and detach) on 6.6 and later, else a
# cls_bpf filter
if [ "$(printf '%s\n6.6\n' "$(uname -r | cut -d- -f1)" | sort -V | head -n1)" = 6.6 ]; then
	tcx=True tc_how=tcx
else
	tcx=False tc_how=tc
fi
mode_test native
mode_test generic
mode_test tc
expect 0 "tc: attach" nsd $B xdp attach veth-d bl --mode tc
json_check "tc: tcx is $tcx ($(uname -r))" "$(nsd $B -j xdp show veth-d)" "j[0]['tcx']==$tcx"
if [ $tcx = True ]; then
	check "tcx: no tc filter at the blocklist's handle" \
		bash -c "! tc -n $D filter show dev veth-d ingress | grep -q ."
	# replaced while a detach is paused: detach removes exactly the
	# program it read, which is gone (no check-then-delete window)
	mkfifo "$TMP/tcxpause"
	BFCTL_XDP_TEST_PAUSE=$TMP/tcxpause nsd $B xdp detach veth-d \
		> /dev/null 2> "$TMP/tcxdet.err" &
	det=$!
	ok=0
	timeout 30 head -c2 "$TMP/tcxpause" > /dev/null || ok=1
	nsd $B xdp attach veth-d bl --mode tc || ok=1
	timeout 30 bash -c ": > '$TMP/tcxpause'" || ok=1
	rc=0
	wait $det || rc=$?
	check "tcx: replaced while detach paused" test $ok = 0
	check "tcx: detach refuses (exit $rc)" test $rc = 3
	like "tcx: the program it read is gone" "$(cat "$TMP/tcxdet.err")" "gone from tcx meanwhile"
	check "tcx: the new blocklist still drops 10.98.0.2" blocked 10.98.0.2 10.98.0.1
fi
expect 0 "tc: detach" nsd $B xdp detach veth-d
check "tc: 10.98.0.2 answers after detach" passes 10.98.0.2 10.98.0.1

# ---- VLAN tags: XDP (each mode) gives every frame -m bloom's verdict ----
# The same frames (xdp_vlan.py, crafted with scapy) from kbxs: with
# nothing on kbxd, with an iptables/ip6tables -m bloom DROP rule alone,
# and through the blocklist in each mode; kbxd counts each frame's
# datagrams with one iptables rule per frame (its UDP port).  The kernel
# strips VID-0 tags at any depth, takes a tag into its vlan device and
# drops the IP packet of a VID without one (PACKET_OTHERHOST): a listed
# source must reach kbxd through the blocklist exactly when it does
# through -m bloom, and an unlisted one too, up to 8 tags; a frame with
# more is dropped by the blocklist, listed or not (bfctl.8).
VLAN_PY=$(cd "$(dirname "$0")" && pwd)/xdp_vlan.py
vlan() {	# LOWER NAME ID [PROTO], in kbxd
	ip -n $D link add link "$1" name "$2" type vlan \
		protocol "${4:-802.1Q}" id "$3" && ip -n $D link set "$2" up
}
ok=0
vlan veth-d v10 10 && vlan veth-d v100 100 802.1ad &&
	vlan v100 v120 20 && vlan v120 v130 30 || ok=1
# every frame is to 10.98.0.1 from 10.98.0.x, whichever device takes it
nsd sh -c 'for f in /proc/sys/net/ipv4/conf/*/rp_filter; do echo 0 > $f; done' || ok=1
check "vlan devices 10 and 100 (802.1ad) > 20 > 30 on veth-d" test $ok = 0
mac() { ip -n "$1" -br link show "$2" | awk '{ print $3 }'; }
# (scapy warns about the routes of the netns it is imported in)
python3 "$VLAN_PY" build "$(mac $D veth-d)" "$(mac $S veth-s)" "$TMP/frames" \
	2> "$TMP/scapy.err"
check "scapy built the frames" grep -q sentinel "$TMP/frames"
grep -q sentinel "$TMP/frames" || diag "$(cat "$TMP/scapy.err")"
sentinel=$(awk '$2 == "sentinel" { print $1 }' "$TMP/frames")
{ echo '*filter'; echo ':KBV - [0:0]'
  echo "-A INPUT -p udp --dport 20000:20999 -j KBV"
  awk '$2 ~ /^4\// || $2 == "sentinel" { print "-A KBV -p udp --dport " $1 " -j DROP" }' "$TMP/frames"
  echo COMMIT; } > "$TMP/rules4"
{ echo '*filter'; echo ':KBV - [0:0]'
  echo "-A INPUT -p udp --dport 20000:20999 -j KBV"
  awk '$2 ~ /^6\// { print "-A KBV -p udp --dport " $1 " -j DROP" }' "$TMP/frames"
  echo COMMIT; } > "$TMP/rules6"
nsd iptables-restore -n "$TMP/rules4" && nsd ip6tables-restore -n "$TMP/rules6"
check "a counting rule per frame in kbxd" test $? = 0
# frames RUN: send them all once, then $TMP/got.RUN: the names of those
# kbxd received, one a line
# counts: "PACKETS PORT" for each counting rule of kbxd
counts() {
	{ nsd iptables -L KBV -n -v -x; nsd ip6tables -L KBV -n -v -x; } |
		awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^dpt:/) print $1, substr($i, 5) }'
}
frames() {
	local i
	nsd iptables -Z KBV && nsd ip6tables -Z KBV
	nss python3 "$VLAN_PY" send veth-s "$TMP/frames"
	for i in $(seq 120); do
		counts | grep -q "^[1-9][0-9]* $sentinel\$" && break
		sleep 0.25
	done
	counts | awk '$1 > 0 { print $2 }' | while read -r p; do
		awk -v p="$p" '$1 == p && $2 != "sentinel" { print $2 }' "$TMP/frames"
	done | sort > "$TMP/got.$1"
}
# same DESC A B: the two lists of names are equal
same() {
	if cmp -s "$2" "$3"; then ok "$1"; else nok "$1"; diag "$(diff "$2" "$3")"; fi
}
all() { awk '$2 != "sentinel" { print $2 }' "$TMP/frames" | sort; }
frames none
all | grep -v nodev > "$TMP/want.none"
same "without a filter: every frame but those of a VID without a vlan device" \
	"$TMP/want.none" "$TMP/got.none"
ok=0
for t in iptables ip6tables; do
	nsd $t -t raw -A PREROUTING -m bloom --bloom-name bl --bloom-dir src -j DROP || ok=1
done
check "-m bloom: DROP rules on bl" test $ok = 0
frames mbloom
grep -v /listed "$TMP/got.none" > "$TMP/want.mbloom"
same "-m bloom: every listed frame dropped, the others received" \
	"$TMP/want.mbloom" "$TMP/got.mbloom"
for t in iptables ip6tables; do
	nsd $t -t raw -D PREROUTING -m bloom --bloom-name bl --bloom-dir src -j DROP
done
grep -v deep: "$TMP/got.mbloom" > "$TMP/want.xdp"
for m in native generic tc; do
	expect 0 "$m vlan: attach" nsd $B xdp attach veth-d bl --mode $m
	frames $m
	grep -v deep: "$TMP/got.$m" > "$TMP/got.$m.shallow"
	same "$m vlan: up to 8 tags, every frame gets -m bloom's verdict" \
		"$TMP/want.xdp" "$TMP/got.$m.shallow"
	check "$m vlan: more than 8 tags, dropped, listed or not" \
		bash -c "! grep -q deep: $TMP/got.$m"
	expect 0 "$m vlan: detach" nsd $B xdp detach veth-d
done
check "no clsact filter left by tc detach" \
	bash -c "! tc -n $D filter show dev veth-d ingress | grep -q kbloom"

# ---- --dir dst: the destination address is tested ----
nsd $B create dsts blocked --key-type ipv4
nsd $B add dsts 10.98.0.5 > /dev/null
expect 0 "attach --dir dst" nsd $B xdp attach veth-d dsts --dir dst --mode generic
expect 3 "destroy dsts is refused while attached" nsd $B destroy dsts
check "dst: to 10.98.0.5 (listed) is dropped" blocked 10.98.0.3 10.98.0.5
check "dst: to 10.98.0.1 passes, from a source listed in bl too" passes 10.98.0.2 10.98.0.1
check "dst: IPv6 passes (an ipv4 filter holds no IPv6)" passes fd00:98::2 fd00:98::1
json_check "dst: show says dir dst" "$(nsd $B -j xdp show veth-d)" "j[0]['dir']=='dst'"
# attach again: replaced in place (its mode kept), now by source
expect 0 "attach again replaces ours" nsd $B xdp attach veth-d bl
json_check "replaced: filter bl, dir src, still generic" "$(nsd $B -j xdp show veth-d)" \
	"len(j)==1 and j[0]['filter']=='bl' and j[0]['dir']=='src' and j[0]['mode']=='generic'"
check "replaced: 10.98.0.2 is dropped" blocked 10.98.0.2 10.98.0.1
expect 0 "destroy dsts: replaced, no longer in use" nsd $B destroy dsts
expect 3 "attach --mode native over ours in generic mode" nsd $B xdp attach veth-d bl --mode native
like "says detach first" "$err" 'detach veth-d first'
expect 3 "attach --mode tc over ours in XDP" nsd $B xdp attach veth-d bl --mode tc
expect 0 "detach" nsd $B xdp detach veth-d

# ---- a missing filter: refused, --force fails open; per netns ----
$B create late blocked --key-type ip	# init_net's: kbxd must not see it
$B add late 10.98.0.3 > /dev/null
nss $B create late blocked --key-type ip
nss $B add late 10.98.0.3 > /dev/null
expect 3 "attach to a filter only other netns have" nsd $B xdp attach veth-d late
expect 0 "--force attaches to a missing filter" nsd $B xdp attach veth-d late --force
like "with a loud warning" "$err" "warning: no filter 'late'.*every packet passes"
check "late: 10.98.0.3 passes (other netns' filters are not seen)" passes 10.98.0.3 10.98.0.1
n=$(counter nofilter)
check "late: the packets counted as nofilter ($n)" test "$n" -ge 1
check "late: none dropped" test "$(counter dropped)" = 0
nsd $B create late blocked --key-type ip
nsd $B add late 10.98.0.3 > /dev/null
check "late: created in kbxd, it is used at the next packet" blocked 10.98.0.3 10.98.0.1
check "late: 10.98.0.2 passes (not in late)" passes 10.98.0.2 10.98.0.1
expect 3 "late: destroy is refused while attached" nsd $B destroy late
expect 0 "late: init_net's late is not in use: destroyed" $B destroy late
{ nsd $B save bl && nsd $B save words; } > "$TMP/sync-nolate.save"
expect 3 "late: a sync that would destroy it is refused" \
	nsd $B sync --prune -file "$TMP/sync-nolate.save"
like "late: says so" "$err" "in use by a kernel component"
expect 0 "late: destroy --force" nsd $B destroy late --force
check "late: destroyed, the blocklist fails open again" passes 10.98.0.3 10.98.0.1
expect 0 "late: show warns that the filter is gone" nsd $B xdp show
like "late: loudly, on stderr" "$err" "WARNING: filter 'late' does not exist.*every packet passes"
like "late: and still shows the line" "$out" "^veth-d: xdp native filter late "
expect 0 "late: show -j" nsd $B -j xdp show veth-d
json_check "late: filter_exists false" "$out" "j[0]['filter_exists'] is False"
like "late: -j warns too" "$err" "WARNING: filter 'late'"
# by id: a re-created filter (a new id) is found again through its name
nsd $B create late blocked --key-type ip
nsd $B add late 10.98.0.3 > /dev/null
check "late: re-created, used again at the next packet" blocked 10.98.0.3 10.98.0.1
# the id stays with a renamed filter (bfctl.8: replace with swap)
nsd $B rename late late2
check "late: renamed, the blocklist follows it" blocked 10.98.0.3 10.98.0.1
expect 0 "late: show names the filter it now tests" nsd $B xdp show veth-d
like "late: (renamed late2)" "$out" "filter late \\(renamed late2\\) dir"
check "late: and does not warn it is gone" test -z "$err"
expect 0 "late: show -j" nsd $B -j xdp show veth-d
json_check "late: filter_now late2, exists" "$out" "j[0]['filter_now'] == 'late2' and j[0]['filter_exists']"
expect 3 "late: the renamed filter's destroy is refused too" nsd $B destroy late2
like "late: in use" "$err" "in use by a kernel component"
nsd $B destroy late2 --force
check "late: renamed and destroyed, it fails open" passes 10.98.0.3 10.98.0.1
expect 0 "detach" nsd $B xdp detach veth-d

# ---- a foreign program is never replaced without --replace, never removed ----
PASS_O=$UB/bpf/kb_xdp_pass.bpf.o
xdp_id() { nsd ip -d link show veth-d | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p'; }
# a save of a blocklist, to be restored over the foreign program below
expect 0 "attach, to be saved" nsd $B xdp attach veth-d bl --mode generic
expect 0 "save records the blocklist" nsd $B save -file "$TMP/att.save"
check "... as an attach line" grep -qxE "attach xdp veth-d bl mode=generic dir=src( alone| prio=50)" "$TMP/att.save"
expect 0 "detach" nsd $B xdp detach veth-d
if nsd ip link set dev veth-d xdpgeneric obj "$PASS_O" sec xdp 2> "$TMP/ip.err"; then
	fid=$(xdp_id)
	expect 3 "restore does not replace a foreign XDP program" \
		nsd $B restore -exist -file "$TMP/att.save"
	like "... names the blocklist not attached" "$err" 'not attached \(above\): xdp veth-d$'
	check "the foreign program is still there" test "$(xdp_id)" = "$fid"
	expect 3 "attach over a foreign XDP program" nsd $B xdp attach veth-d bl
	like "names it and --replace" "$err" "program $fid that is not a kbloom blocklist; not replacing it without --replace"
	expect 3 "attach --force over it: --force does not replace" \
		nsd $B xdp attach veth-d bl --force
	check "the foreign program is still there" test "$(xdp_id)" = "$fid"
	expect 3 "detach leaves a foreign XDP program" nsd $B xdp detach veth-d
	check "the foreign program is still there" test "$(xdp_id)" = "$fid"
	expect 0 "show lists no blocklist" nsd $B xdp show
	check "prints nothing" test -z "$out"
	expect 2 "detach takes no --replace" nsd $B xdp detach veth-d --replace
	expect 3 "attach --replace --mode native over a generic one" \
		nsd $B xdp attach veth-d bl --replace --mode native
	like "says to remove it first" "$err" 'XDP program in XDP generic mode: remove it first'
	expect 0 "attach --replace replaces it (in its mode)" nsd $B xdp attach veth-d bl --replace
	like "and prints the id it replaced" "$out" "^veth-d: replaced XDP program $fid "
	check "replaced: 10.98.0.2 is dropped" blocked 10.98.0.2 10.98.0.1
	expect 0 "detach" nsd $B xdp detach veth-d
	check "nothing left on veth-d" \
		bash -c "! ip -n $D link show veth-d | grep -q 'prog/xdp'"
	expect 0 "restore attaches the saved blocklist" \
		nsd $B restore -exist -file "$TMP/att.save"
	check "restored: 10.98.0.2 is dropped" blocked 10.98.0.2 10.98.0.1
	expect 0 "detach" nsd $B xdp detach veth-d
else
	nok "ip link attaches a foreign XDP program"
	diag "$(cat "$TMP/ip.err")"
fi
# tc: a foreign program at the blocklist's own handle and priority (0x6b62)
TCPASS_O=$UB/bpf/kb_tc_pass.bpf.o
tcf() { tc -n $D filter "$1" dev veth-d ingress prio 27490 handle 0x6b62 "${@:2}"; }
tc_id() { tc -n $D filter show dev veth-d ingress | sed -n 's/.* id \([0-9]*\) .*/\1/p'; }
nsd tc qdisc add dev veth-d clsact 2> /dev/null
if tcf add bpf da obj "$TCPASS_O" sec tc 2> "$TMP/tc.err"; then
	fid=$(tc_id)
	expect 3 "tc: attach over a foreign tc filter at its handle" \
		nsd $B xdp attach veth-d bl --mode tc
	like "tc: names it and --replace" "$err" "a tc program $fid that is not a kbloom blocklist; not replacing it without --replace"
	expect 3 "tc: detach leaves it" nsd $B xdp detach veth-d
	check "tc: the foreign filter is still there" test "$(tc_id)" = "$fid"
	expect 0 "tc: attach --replace" nsd $B xdp attach veth-d bl --mode tc --replace
	like "tc: prints the id it replaced" "$out" "^veth-d: replaced tc program $fid "
	check "tc: replaced, 10.98.0.2 is dropped" blocked 10.98.0.2 10.98.0.1
	# detach between reading veth-d and deleting: a foreign program put
	# at the handle meanwhile stays (the kernel deletes by handle)
	mkfifo "$TMP/pause"
	BFCTL_XDP_TEST_PAUSE=$TMP/pause nsd $B xdp detach veth-d \
		> "$TMP/det.out" 2> "$TMP/det.err" &
	det=$!
	ok=0
	timeout 30 head -c2 "$TMP/pause" > /dev/null || ok=1
	tcf replace bpf da obj "$TCPASS_O" sec tc || ok=1
	fid=$(tc_id)
	timeout 30 bash -c ": > '$TMP/pause'" || ok=1
	rc=0
	wait $det || rc=$?
	check "tc: detach paused, a foreign filter put at its handle" test $ok = 0
	check "tc: detach refuses (exit $rc)" test $rc = 3
	like "tc: says the filter is another program now" "$(cat "$TMP/det.err")" \
		"is program $fid now, not [0-9]+: left alone"
	check "tc: the foreign filter is still there" test "$(tc_id)" = "$fid"
	tcf del bpf
else
	nok "tc attaches a foreign filter at the blocklist's handle"
	diag "$(cat "$TMP/tc.err")"
fi
# whatever failed above, the tests below start from a bare device
nsd $B xdp detach veth-d 2> /dev/null
tcf del bpf 2> /dev/null
nsd ip link set dev veth-d xdpgeneric off 2> /dev/null

. "$(dirname "$0")/xdp_libxdp.sh"

# ---- rebuild and swap under a continuous stream: nothing listed gets in ----
{ echo 10.98.0.2; echo fd00:98::2; echo 10.98.0.128/25
  for i in $(seq 0 255); do echo "10.96.$i.0/24"; done; } > "$TMP/keys"
nsd $B create bl2 blocked --items 1000 --fpr 0.0001 --key-type net
nsd $B add bl2 -file "$TMP/keys" > /dev/null
expect 0 "stream: attach (native)" nsd $B xdp attach veth-d bl --mode native
nsd python3 "$STREAM" recv 9999 "$TMP/counts" "$TMP/stop" &
sleep 1
nss python3 "$STREAM" send 10.98.0.1 fd00:98::1 9999 "$TMP/stop" \
	10.98.0.2 10.98.0.3 fd00:98::2 fd00:98::3 10.98.0.130 &
sleep 2
ok=0
for r in 1 2 3; do
	nsd $B rebuild bl -file "$TMP/keys" > /dev/null || ok=1
	nsd $B swap bl bl2 || ok=1
done
nsd $B rebuild bl -file "$TMP/keys" --items 5000 --fpr 0.001 > /dev/null || ok=1
check "stream: 4 rebuilds and 3 swaps done" test $ok = 0
sleep 1
touch "$TMP/stop"
wait
counts=$(cat "$TMP/counts" 2> /dev/null)
json_check "stream: listed sources got nothing through, others did" "$counts" \
	"j.get('10.98.0.2',0)==0 and j.get('fd00:98::2',0)==0 and j.get('10.98.0.130',0)==0 and j.get('10.98.0.3',0)>0 and j.get('fd00:98::3',0)>0"
n=$(counter dropped)
check "stream: the blocklist dropped the listed sources' packets ($n)" test "$n" -ge 10

# ---- rmmod kbloom: refused while attached, done after detach ----
# modules using kbloom's exports (xt_bloom, the test module) go first
# and come back at the end, with kbloom, for the tests after this one
rm_ok=1
for h in $(ls /sys/module/kbloom/holders 2> /dev/null); do
	rmmod "$h" 2> /dev/null || rm_ok=0
done
if [ $rm_ok = 1 ]; then
	check "rmmod kbloom refused while a blocklist is attached" \
		bash -c "! rmmod kbloom 2> /dev/null"
	expect 0 "detach" nsd $B xdp detach veth-d
	# the program's module reference goes with it, after an RCU grace period
	for i in $(seq 1 50); do
		rmmod kbloom 2> /dev/null && break
		sleep 0.2
	done
	check "rmmod kbloom after detach" test ! -e /sys/module/kbloom
	expect 3 "attach without kbloom loaded, even --force" \
		nsd $B xdp attach veth-d bl --force
	like "says the module is not loaded" "$err" 'module is not loaded'
	check "nothing attached" \
		bash -c "! ip -n $D link show veth-d | grep -q 'prog/xdp'"
else
	nok "the modules holding kbloom unload"
	nsd $B xdp detach veth-d
fi
while read -r ko; do
	m=$(modinfo -F name "$ko")
	[ -e "/sys/module/$m" ] || insmod "$ko"
done < "${KB_OUT:?}/insmod.list"
check "kbloom and its users are back" test -e /sys/module/kbloom
done_testing
