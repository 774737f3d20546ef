#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Filters that learn from packets, end to end: a port-scan trap.  Three
# network namespaces: the target (kblt), a scanner (kbls) and an
# innocent host (kbli), each joined to the target by a veth pair.
#
#   bfctl_learn.sh BFCTL          the trap with iptables -j BLOOM (vm lane):
#     with iptables-nft and -legacy, IPv4 and IPv6, a scanner that
#     touches the trap port is learned (bfctl test: maybe) and then
#     dropped on every port, the innocent host passes; the rule holds its
#     filter (destroy, rename: EBUSY, exit 3); iptables-save restores;
#     bad target arguments (usage errors, a filter missing, of another
#     kind, --prefix past the family or on a non-net filter), the
#     kernel's own refusals (the extension's nocheck copy); --prefix 24
#     adds the /24; create --max-fpr and the cap: a flood of
#     destinations stops at it, counted in learn refused; save/restore
#     keep the cap; a window filter (--window 4s --slices 4, where bfctl
#     has it) forgets the scanner within its bound and never before.
#   bfctl_learn.sh BFCTL --xdp    the same trap with the XDP program
#     (userspace/bpf/xdp_learn.bpf.c, bpf lane), native and generic.
. "$(dirname "$0")/lib.sh"
B=$BFCTL
UB=$(cd "$(dirname "$B")" && pwd)
XT=$UB/xtables
SYSXT=/usr/lib/x86_64-linux-gnu/xtables
export XTABLES_LIBDIR=$XT:$SYSXT
MODE=${2:-xt}
T=kblt S=kbls I=kbli
TRAP=2323
nst() { ip netns exec $T "$@"; }
netns_del() {
	for n in $T $S $I; do
		ip netns pids $n 2> /dev/null | xargs -r kill 2> /dev/null
		ip netns del $n 2> /dev/null
	done
}
netns_del
trap 'netns_del; rm -rf "$TMP"' EXIT

# probe NS SRC DST PORT [TIMEOUT]: a TCP connect to DST from NS (whose
# only address of that family is SRC, so nothing binds it: bash's
# /dev/tcp starts in a few ms, python3 in a second of TCG); prints open,
# refused (a RST: the packet got through) or timeout (dropped)
probe() {
	local out rc=0
	out=$(ip netns exec "$1" timeout "${5:-2}" bash -c "exec 3<> /dev/tcp/$3/$4" 2>&1) || rc=$?
	case $rc:$out in
	0:*) echo open ;;
	124:*) echo timeout ;;
	*refused*) echo refused ;;
	*) echo "error $rc: $out" ;;
	esac
}
# passes NS SRC DST PORT / dropped NS SRC DST PORT
# (a RST comes back in milliseconds; the long timeout is for a TCG guest
# on a loaded host, where bash alone may take a second to start)
passes() { [ "$(probe "$@" 6)" = refused ]; }
dropped() { [ "$(probe "$@" 1)" = timeout ]; }

ip netns add $T && ip netns add $S && ip netns add $I &&
	ip -n $S link add veth-s type veth peer name veth-ts netns $T &&
	ip -n $I link add veth-i type veth peer name veth-ti netns $T &&
	for n in $T $S $I; do ip -n $n link set lo up; done &&
	ip -n $S link set veth-s up && ip -n $I link set veth-i up &&
	ip -n $T link set veth-ts up && ip -n $T link set veth-ti up &&
	ip -n $T addr add 10.97.1.1/24 dev veth-ts &&
	ip -n $T addr add fd00:97:1::1/64 dev veth-ts nodad &&
	ip -n $T addr add 10.97.2.1/24 dev veth-ti &&
	ip -n $T addr add fd00:97:2::1/64 dev veth-ti nodad &&
	ip -n $S addr add 10.97.1.2/24 dev veth-s &&
	ip -n $S addr add fd00:97:1::2/64 dev veth-s nodad &&
	ip -n $I addr add 10.97.2.2/24 dev veth-i &&
	ip -n $I addr add fd00:97:2::2/64 dev veth-i nodad
check "three netns joined by veth" test $? = 0
# neighbours known before anything drops (the first probe may time out)
for p in "$S 10.97.1.2 10.97.1.1" "$S fd00:97:1::2 fd00:97:1::1" \
	"$I 10.97.2.2 10.97.2.1" "$I fd00:97:2::2 fd00:97:2::1"; do
	# shellcheck disable=SC2086
	passes $p 80 || passes $p 80
	# shellcheck disable=SC2086
	check "without rules $p port 80 answers (RST)" passes $p 80
done

# ---- the same trap with the XDP program (bpf lane) ----
XL=$UB/xdp-learn
xl_counter() {	# DEV NAME: the program's counter
	nst "$XL" stats "$1" | awk -v n="$2" '$1 == n { print $2 }'
}
xdp_test() {
	expect 0 "xdp: create scanners" nst $B create scanners blocked --items 10000 --fpr 0.001 --key-type ip
	expect 0 "xdp: the trap on the scanner's side (native)" nst "$XL" attach veth-ts scanners $TRAP native
	expect 0 "xdp: and on the innocent's side (generic)" nst "$XL" attach veth-ti scanners $TRAP generic
	expect 1 "xdp: a second program on a device: refused" nst "$XL" attach veth-ts scanners $TRAP
	check "xdp: the scanner reaches port 80 before the trap" passes $S 10.97.1.2 10.97.1.1 80
	check "xdp: its packet to the trap port is dropped" dropped $S 10.97.1.2 10.97.1.1 $TRAP
	expect 0 "xdp: the scanner is learned: bfctl test says maybe" nst $B test scanners 10.97.1.2
	check "xdp: then it is dropped on port 80" dropped $S 10.97.1.2 10.97.1.1 80
	check "xdp: and on port 22" dropped $S 10.97.1.2 10.97.1.1 22
	check "xdp: its IPv6 address still passes (not learned)" passes $S fd00:97:1::2 fd00:97:1::1 80
	check "xdp: its IPv6 packet to the trap port is dropped" dropped $S fd00:97:1::2 fd00:97:1::1 $TRAP
	expect 0 "xdp: the IPv6 address is learned" nst $B test scanners fd00:97:1::2
	check "xdp: then dropped on port 80" dropped $S fd00:97:1::2 fd00:97:1::1 80
	check "xdp: the innocent host passes (generic mode)" passes $I 10.97.2.2 10.97.2.1 80
	check "xdp: and over IPv6" passes $I fd00:97:2::2 fd00:97:2::1 80
	expect 1 "xdp: the innocent host is not listed" nst $B test scanners 10.97.2.2
	check "xdp: counters: 2 added, drops counted" \
		test "$(xl_counter veth-ts added)" = 2 -a "$(xl_counter veth-ts dropped)" -ge 3
	check "xdp: the innocent's side passed and dropped nothing" \
		test "$(xl_counter veth-ti passed)" -ge 2 -a "$(xl_counter veth-ti dropped)" = 0
	expect 0 "xdp: info -j" nst $B -j info scanners
	json_check "xdp: the filter counts the adds (no refusals)" "$out" \
		"j['adds']>=2 and j['learn_refused']==0"
	# a filter of another kind: the kfunc refuses (-EOPNOTSUPP), the
	# program fails open and learns nothing
	nst $B destroy scanners
	nst $B create scanners counting --items 1000 --key-type ip
	check "xdp: a counting filter: the trap packet passes (fail open)" passes $S 10.97.1.2 10.97.1.1 $TRAP
	expect 1 "xdp: and nothing is learned" nst $B test scanners 10.97.1.2
	expect 0 "xdp: detach" nst "$XL" detach veth-ts
	expect 0 "xdp: detach the other" nst "$XL" detach veth-ti
	check "xdp: no XDP program left" bash -c "! ip -n $T link show | grep -q 'prog/xdp'"
	nst $B destroy scanners
}
if [ "$MODE" = --xdp ]; then
	xdp_test
	done_testing
	exit
fi

# ---- the trap with iptables: IPT is iptables-nft, -legacy, ip6tables-... ----
trap_test() {	# IPT SCANNER-ADDR TARGET-ADDR INNOCENT-ADDR INNOCENT-TARGET [full]
	local ipt=$1 sa=$2 ta=$3 ia=$4 it=$5 full=${6-} w="$1:"
	expect 0 "$w create scanners" nst $B create scanners blocked --items 10000 --fpr 0.001 --key-type ip
	expect 0 "$w the DROP rule" nst $ipt -A INPUT -m bloom --bloom-name scanners --bloom-dir src -j DROP
	expect 0 "$w the trap rule" nst $ipt -A INPUT -p tcp --dport $TRAP -j BLOOM --add-set scanners src
	expect 1 "$w the scanner is not listed yet" nst $B test scanners $sa
	[ -z "$full" ] || check "$w the scanner reaches port 80 before the trap" passes $S $sa $ta 80
	check "$w its packet to the trap port gets through once (RST)" passes $S $sa $ta $TRAP
	expect 0 "$w the scanner is learned: bfctl test says maybe" nst $B test scanners $sa
	check "$w then it is dropped on port 80" dropped $S $sa $ta 80
	if [ -n "$full" ]; then
		check "$w and on port 22" dropped $S $sa $ta 22
		check "$w and on the trap port" dropped $S $sa $ta $TRAP
	fi
	check "$w the innocent host still reaches port 80" passes $I $ia $it 80
	expect 1 "$w the innocent host is not listed" nst $B test scanners $ia
	expect 0 "$w info -j" nst $B -j info scanners
	json_check "$w info: adds 1, refs 2, max_fpr 0.002, learn_refused 0" "$out" \
		"j['adds']==1 and j['refs']==2 and abs(j['max_fpr']-0.002)<1e-12 and j['learn_refused']==0"
	expect 3 "$w destroy while the rule exists: refused" nst $B destroy scanners
	like "$w says the filter is busy" "$err" "busy|in use"
	expect 0 "$w the filter is still there" nst $B test scanners $sa
	expect 0 "$w delete the rules" sh -c "ip netns exec $T $ipt -F INPUT"
	expect 0 "$w destroy once no rule holds it" nst $B destroy scanners
}
trap_test iptables-nft 10.97.1.2 10.97.1.1 10.97.2.2 10.97.2.1 full
trap_test iptables-legacy 10.97.1.2 10.97.1.1 10.97.2.2 10.97.2.1
trap_test ip6tables-nft fd00:97:1::2 fd00:97:1::1 fd00:97:2::2 fd00:97:2::1 full
trap_test ip6tables-legacy fd00:97:1::2 fd00:97:1::1 fd00:97:2::2 fd00:97:2::1

# ---- the rule's text, its save and restore; rename refused ----
nst $B create scanners blocked --items 10000 --fpr 0.001 --key-type ip
nst $B create scan24 blocked --items 1000 --fpr 0.0001 --key-type net4
for ipt in iptables-nft iptables-legacy; do
	expect 0 "$ipt: a rule with every option" nst $ipt -A INPUT -p udp --dport 9 -j BLOOM --add-set scan24 dst --prefix 24 --exist
	expect 0 "$ipt: --bloom-dir names the direction too" nst $ipt -A INPUT -p udp --dport 7 -j BLOOM --add-set scanners --bloom-dir src
	expect 0 "$ipt -S" nst $ipt -S INPUT
	like "$ipt: -S prints what was given" "$out" "-A INPUT -p udp -m udp --dport 9 -j BLOOM --add-set scan24 dst --prefix 24 --exist"
	like "$ipt: --bloom-dir is saved as the word after the name" "$out" "--dport 7 -j BLOOM --add-set scanners src$"
	expect 0 "$ipt -L" nst $ipt -L INPUT -n
	like "$ipt: -L prints the options" "$out" "BLOOM .*add-set scan24 dst prefix 24 exist"
	save=$(nst "$ipt-save")
	like "$ipt-save has the rule" "$save" "-j BLOOM --add-set scan24 dst --prefix 24 --exist"
	nst "$ipt" -F INPUT
	expect 0 "$ipt: iptables-save's output restores" sh -c "printf '%s\n' \"\$1\" | ip netns exec $T $ipt-restore" _ "$save"
	expect 0 "$ipt -S after the restore" nst $ipt -S INPUT
	like "$ipt: the same rule after the restore" "$out" "--dport 9 -j BLOOM --add-set scan24 dst --prefix 24 --exist"
	expect 3 "$ipt: rename of a filter a rule holds: refused" nst $B rename scan24 other
	nst "$ipt" -F INPUT
done

# ---- bad arguments: iptables says what is wrong, nothing inserted ----
nst $B create counted counting --items 1000 --fpr 0.01 --key-type ip
nst $B create words blocked --items 1000 --key-type str
nst $B create only6 blocked --items 1000 --key-type ipv6
bad() {	# DESC MESSAGE IPT ARGS...
	local d=$1 m=$2
	shift 2
	expect 2 "$d: refused" nst "$@"
	like "$d: says so" "$err" "$m"
}
bad "no direction" "needs a direction" iptables -A INPUT -j BLOOM --add-set scanners
bad "a bad direction" "src or dst" iptables -A INPUT -j BLOOM --add-set scanners up
bad "two directions" "two directions" iptables -A INPUT -j BLOOM --add-set scanners src --bloom-dir dst
bad "src,dst" "src or dst" iptables -A INPUT -j BLOOM --add-set scanners src,dst
bad "no --add-set" "add-set NAME src.dst is required" iptables -A INPUT -j BLOOM --prefix 24
bad "a bad name" "invalid filter name" iptables -A INPUT -j BLOOM --add-set 'a/b' src
bad "a missing filter" 'no kbloom filter "nosuch"' iptables -A INPUT -j BLOOM --add-set nosuch src
bad "a counting filter" "kind counting: only blocked" iptables -A INPUT -j BLOOM --add-set counted src
bad "a str filter" "holds str keys" iptables -A INPUT -j BLOOM --add-set words src
bad "an ipv6 filter in iptables" "holds ipv6 keys" iptables -A INPUT -j BLOOM --add-set only6 src
bad "--prefix 33 in iptables" "longer than an IPv4" iptables -A INPUT -j BLOOM --add-set scan24 src --prefix 33
bad "--prefix 129 in ip6tables" "prefix length" ip6tables -A INPUT -j BLOOM --add-set scanners src --prefix 129
bad "--prefix on a non-net filter" "prefix is for filters of key type net" iptables -A INPUT -j BLOOM --add-set scanners src --prefix 24
bad "an inverted option" "cannot be inverted" iptables -A INPUT -j BLOOM ! --add-set scanners src
expect 0 "nothing was inserted" nst iptables -S INPUT
check "the chain is empty" test "$out" = "-P INPUT ACCEPT"
# the kernel's own refusals, past the extension's checks
kernel_refuses() {	# DESC ERRNO-TEXT IPT ARGS...
	local d=$1 m=$2 rc=0
	shift 2
	err=$(XTABLES_LIBDIR=$XT/nocheck:$SYSXT ip netns exec $T "$@" 2>&1) || rc=$?
	if [ $rc != 0 ] && printf '%s' "$err" | grep -qE -- "$m"; then
		ok "$d"
	else
		nok "$d (exit $rc)"
		diag "$err"
	fi
}
for ipt in iptables-nft iptables-legacy; do
	kernel_refuses "$ipt: the kernel refuses a counting filter" "not supported" $ipt -A INPUT -j BLOOM --add-set counted src
	kernel_refuses "$ipt: the kernel refuses a missing filter" "No such file|No chain/target/match" $ipt -A INPUT -j BLOOM --add-set nosuch src
	kernel_refuses "$ipt: the kernel refuses an ipv6 filter in an IPv4 rule" "Protocol wrong type|Invalid argument" $ipt -A INPUT -j BLOOM --add-set only6 src
	kernel_refuses "$ipt: the kernel refuses --prefix 33" "Invalid argument|Protocol wrong type" $ipt -A INPUT -j BLOOM --add-set scan24 src --prefix 33
done
expect 0 "still nothing inserted" nst iptables-nft -S INPUT
check "the chain is still empty" test "$out" = "-P INPUT ACCEPT"
nst $B destroy counted; nst $B destroy words; nst $B destroy only6

# ---- --prefix 24 on a net4 filter adds the /24 ----
expect 0 "a trap rule adding the /24" nst iptables -A INPUT -p tcp --dport $TRAP -j BLOOM --add-set scan24 src --prefix 24
check "the scanner touches the trap" passes $S 10.97.1.2 10.97.1.1 $TRAP
expect 0 "10.97.1.0/24 is in the filter" nst $B test scan24 10.97.1.0/24
expect 0 "so is 10.97.1.77, never seen (the /24 was added, not the address)" nst $B test scan24 10.97.1.77
expect 1 "10.97.2.2 is not" nst $B test scan24 10.97.2.2
nst iptables -F INPUT

# ---- the cap: create --max-fpr, a flood of learned addresses stops at it ----
expect 2 "create --max-fpr on a counting filter: usage" nst $B create capc counting --max-fpr 0.1
expect 2 "create --max-fpr below --fpr: usage" nst $B create capc blocked --fpr 0.01 --max-fpr 0.001
expect 0 "create a small filter capped at 5%" nst $B create tiny blocked --items 1000 --fpr 0.01 --max-fpr 0.05 --key-type ipv4
expect 0 "info" nst $B info tiny
like "info shows the cap" "$out" "max fpr \(packet-path adds\): 0.05"
like "info shows nothing refused yet" "$out" "learn refused: 0"
# every destination in 10.200/16 learned from the target's own output
ip -n $T link add kbd0 type dummy && ip -n $T link set kbd0 up &&
	ip -n $T route add 10.200.0.0/16 dev kbd0
nst iptables -A OUTPUT -d 10.200.0.0/16 -j BLOOM --add-set tiny dst
nst python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(8000):
    s.sendto(b"x", ("10.200.%d.%d" % (i // 250, i % 250 + 1), 9))
'
expect 0 "info -j after 8000 destinations" nst $B -j info tiny
# (the estimate may pass the cap by the fill the kernel folds late: a few
# dozen bits of this filter's 10k)
json_check "adds stopped at the cap: est. FPR <= 5.5%, refusals counted" "$out" \
	"j['learn_refused']>0 and j['adds']+j['learn_refused']>=6000 and j['est_fpr']<=0.055 and j['max_fpr']==0.05"
expect 0 "list -j shows the cap too" nst $B -j list tiny
json_check "list: max_fpr, learn_refused" "$out" "j['filters'][0]['learn_refused']>0 and j['filters'][0]['max_fpr']==0.05"
nst iptables -F OUTPUT
# the cap survives save and restore (written only when not the default)
expect 0 "save" nst $B save -file "$TMP/learn.save"
check "the save has tiny's cap" grep -q "^filter tiny .* max-fpr-ppb=50000000 " "$TMP/learn.save"
check "and no cap on a filter with the default one" bash -c "! grep -q '^filter scanners .*max-fpr-ppb' '$TMP/learn.save'"
nst $B destroy tiny
expect 0 "restore" nst $B restore -file "$TMP/learn.save" --only=filters -exist
expect 0 "info -j of the restored filter" nst $B -j info tiny
json_check "the cap came back" "$out" "j['max_fpr']==0.05"
printf 'create made blocked --items 100 --fpr 0.01 --max-fpr 3%%\n' > "$TMP/create.restore"
expect 0 "a create line with --max-fpr" nst $B restore -file "$TMP/create.restore"
expect 0 "info -j" nst $B -j info made
json_check "it has the cap" "$out" "j['max_fpr']==0.03"
for f in tiny made scan24 scanners; do nst $B destroy $f; done

# ---- a window: the scanner passes again after it, never before ----
now_ms() { echo $(($(date +%s%N) / 1000000)); }
window_test() {
	local t0 t1 first=""
	expect 0 "window: create scanners --window 4s --slices 4" nst $B create scanners blocked --items 10000 --fpr 0.01 --window 4s --slices 4 --key-type ip
	nst iptables -A INPUT -m bloom --bloom-name scanners --bloom-dir src -j DROP
	nst iptables -A INPUT -p tcp --dport $TRAP -j BLOOM --add-set scanners src
	t0=$(now_ms)
	check "window: the scanner touches the trap" passes $S 10.97.1.2 10.97.1.1 $TRAP
	t1=$(now_ms)
	check "window: then it is dropped" dropped $S 10.97.1.2 10.97.1.1 80
	# bfctl test until it answers absent, the time taken after each
	# answer: one before t0 + 4 s is early for sure (the add came after
	# t0); the bound is t1 + 4 s * 5/4, and TCG gets 10 s more
	while :; do
		if ! nst $B test -q scanners 10.97.1.2; then
			first=$(now_ms)
			break
		fi
		[ $(($(now_ms) - t1)) -lt 20000 ] || break
		sleep 0.2
	done
	check "window: forgotten (bfctl test absent) within 20 s" test -n "$first"
	[ -n "$first" ] || first=$(now_ms)
	check "window: not forgotten before t + window ($((first - t0)) ms)" \
		test $((first - t0)) -ge 4000
	check "window: forgotten by t + window * 5/4 + 10 s of TCG slack" \
		test $((first - t1)) -le 15000
	check "window: the scanner passes again" passes $S 10.97.1.2 10.97.1.1 80
	nst iptables -F INPUT
	nst $B destroy scanners
}
rc=0; nst $B create wprobe blocked --window 4s > /dev/null 2>&1 || rc=$?
if [ $rc = 0 ]; then
	nst $B destroy wprobe
	window_test
else
	ok "# SKIP window: this bfctl or module has no --window (exit $rc)"
fi

done_testing
