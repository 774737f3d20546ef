#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Learning from the packet path, kbloom vs ipset vs nftables, in one VM
# (TCG: compare the ratios, not the absolute numbers):
#  - per packet: N packets, each from a source not seen before (N
#    distinct sources, learn_blast), through RULES learning rules of one
#    kind, each into a set of its own, then a drop: kbloom's
#    `-j BLOOM --add-set lbI src` into a window filter, ipset's
#    `-j SET --add-set lsI src --timeout T` into `hash:ip timeout T
#    maxelem 2N hashsize N`, and nft's `update @nsI { ip saddr timeout T }` on a
#    dynamic set.  The same chain with rules that fail on the source port
#    instead (iptables and nft each have theirs) is the baseline: chain
#    minus baseline, per packet and rule, is one learning rule's cost.
#    Every repetition starts from empty sets; chains alternate within a
#    repetition and each takes its fastest (other load only adds time).
#    The sender runs on CPU 0, where its packets' rules run (below), and
#    packets dropped before the rules are counted per chain;
#  - kernel memory once the N sources are learned (the first
#    repetition): the delta of what is neither free nor page cache in
#    /proc/meminfo, around creating the sets and rules and learning, less
#    the baseline's, per set (Slab + VmallocUsed deltas and the sets' own
#    sizes are reported beside it);
#  - the per-packet test cost of a window filter of S+1 slices vs a plain
#    filter of the same items and FPR: TRULES `-m bloom` rules that miss
#    (as netfilter.sh measures the match), for S = 4 and S = 1.
# ipset's hash needs its hashsize: a full bucket (12 entries) is resized
# only from userspace, never by the SET target, which fails to add from
# then on (with the default hashsize of 1024, the set stops at 12288
# sources).  Timeouts and windows are T = 300 s, so that nothing expires while a
# slow TCG guest learns and measures (a 60 s timeout costs the same per
# insert).  The window filters have one rotation per window (S = 1, two
# slices, each sized for all N sources): the flood arrives within one
# slice's time, so the newest slice holds all of it.
# Usage: learn.sh BFCTL LEARN_BLAST UDP_BLAST JSON [--small]
set -eu
bfctl=$1 lblast=$2 ublast=$3 json=$4
small=${5:-}
n=1000000 rules=4 reps=4 fpr=0.001 tmo=300 trules=50 tpkts=20000 treps=9 nsrc=64
[ "$small" = --small ] && n=100000 rules=2 reps=3 trules=25 tpkts=10000 treps=5
work=$(mktemp -d)
cd "$work"

# Kernel memory, in kB: what is neither free nor page cache (caches
# dropped first; the guest runs nothing else).  Slab + VmallocUsed alone
# would miss a payload that kvmalloc() took from the page allocator as
# one high-order kmalloc (over 8 kB, not in Slab).
meminfo() {
	awk '/^MemTotal:/ { t = $2 } /^MemFree:|^Buffers:|^Cached:/ { f += $2 }
	     END { print t - f }' /proc/meminfo
}
slabvm() {	# Slab + VmallocUsed, in kB, as netfilter.sh reports
	awk '/^Slab:|^VmallocUsed:/ { s += $2 } END { print s }' /proc/meminfo
}
settle() { sync; echo 3 > /proc/sys/vm/drop_caches; sleep 1; }
fastest() { printf '%s\n' "$@" | sort -n | head -n 1; }
csv() { local IFS=,; echo "$*"; }

modprobe ip_set_hash_ip; modprobe xt_set; modprobe nf_tables
lsmod | grep -q '^nf_conntrack ' && echo "# note: nf_conntrack is loaded"

ip netns add kbl_src
ip link add veth-b type veth peer name veth-a netns kbl_src
ip link set veth-b up
ip addr add 10.99.0.1/24 dev veth-b
ip -n kbl_src link set veth-a up
ip -n kbl_src link set lo up
ip -n kbl_src addr add 10.99.0.2/24 dev veth-a
# learned sources come from 10.64.0.0/10, which has no route back here
sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.veth-b.rp_filter=0
ip netns exec kbl_src ping -q -c1 -W2 10.99.0.1 > /dev/null

# ---- the learning rules ----
clear_all() {
	iptables -w -F INPUT
	nft delete table ip kbl 2> /dev/null || true
	local i
	for i in $(seq "$rules"); do
		ipset destroy "ls$i" 2> /dev/null || true
		"$bfctl" destroy "lb$i" 2> /dev/null || true
	done
}
ipt_chain() {	# ipt_chain RULE-TEMPLATE (I: the rule's number)
	local i
	{
		echo '*filter'
		for i in $(seq "$rules"); do
			echo "-A INPUT -p udp --dport 9 ${1//I/$i}"
		done
		echo '-A INPUT -p udp --dport 9 -j DROP'
		echo COMMIT
	} | iptables-restore -w
}
nft_chain() {	# nft_chain RULE-TEMPLATE [SETS]
	local i
	{
		echo 'table ip kbl {'
		if [ -n "${2:-}" ]; then
			for i in $(seq "$rules"); do
				echo "set ns$i { type ipv4_addr; size $((2 * n)); flags dynamic,timeout; timeout ${tmo}s; }"
			done
		fi
		echo 'chain in { type filter hook input priority 0;'
		for i in $(seq "$rules"); do
			echo "udp dport 9 ${1//I/$i}"
		done
		echo 'udp dport 9 drop'
		echo '}'
		echo '}'
	} | nft -f -
}
setup() {	# setup KIND: empty sets and the chain of KIND
	clear_all
	local i
	case $1 in
	ipt_base) ipt_chain '--sport 1 -j DROP' ;;
	nft_base) nft_chain 'udp sport 1 drop' ;;
	ipset)
		for i in $(seq "$rules"); do
			ipset create "ls$i" hash:ip timeout "$tmo" maxelem $((2 * n)) \
				hashsize "$n"
		done
		ipt_chain "-j SET --add-set lsI src --timeout $tmo" ;;
	nft) nft_chain "update @nsI { ip saddr timeout ${tmo}s }" sets ;;
	kbloom)
		for i in $(seq "$rules"); do
			"$bfctl" create "lb$i" blocked --key-type ipv4 --items "$n" \
				--fpr "$fpr" $kb_shape
		done
		ipt_chain '-j BLOOM --add-set lbI src' ;;
	esac
}
# Packets the receiving CPUs' backlogs dropped (all CPUs, since boot):
# a dropped packet never reaches the rules, and would make its chain look
# cheaper.
drops() {
	local sum=0 d
	for d in $(awk '{ print $2 }' /proc/net/softnet_stat); do
		sum=$((sum + 16#$d))
	done
	echo "$sum"
}
# The sender is pinned to CPU 0: veth hands each packet to the sending
# CPU's backlog, so the rules run on that CPU, in its softirq or its
# ksoftirqd, and the sender's clock counts them.  Unpinned, on a guest of
# 2 vCPUs, the sender can move to the other CPU while ksoftirqd works
# through the backlog: the rules' time then overlaps the sender's and is
# partly not counted, and the more so the costlier the rule.
learn() {	# ns for n packets from n new sources
	local d0 ns
	d0=$(drops)
	ns=$(taskset -c 0 ip netns exec kbl_src "$lblast" 10.99.0.1 "$n" \
		10.64.0.0 "$n")
	sleep 0.5
	dropped=$(($(drops) - d0))
	[ "$dropped" = 0 ] || echo "# $dropped packets dropped before the rules" >&2
	echo "$dropped" > dropped.last
	echo "$ns"
}

# Is the BLOOM target there (this tree's kernel module and extension)?
# Into a window filter; a build without windows learns into a plain one
# (said in the JSON: kbloom_filter).
kinds="ipt_base ipset nft_base nft"
kb_shape="--window ${tmo}s --slices 1"
# windowed FILTER: the kernel made a window (one before windows may take
# the options and ignore them)
windowed() {
	"$bfctl" -j info "$1" 2> /dev/null | python3 -c 'import json, sys
j = json.load(sys.stdin); j = j[0] if isinstance(j, list) else j
sys.exit(0 if j.get("window_ms") else 1)'
}
{ "$bfctl" create lbprobe blocked --key-type ipv4 --items 1000 $kb_shape 2> /dev/null &&
  windowed lbprobe; } || {
	"$bfctl" destroy lbprobe 2> /dev/null || true
	echo "# no window filters: kbloom learns into a plain filter"
	kb_shape=
	"$bfctl" create lbprobe blocked --key-type ipv4 --items 1000
}
if iptables -w -A INPUT -p udp --dport 9 -j BLOOM --add-set lbprobe src; then
	kinds="$kinds kbloom"
else
	echo "# no BLOOM target: kbloom's learning not measured"
fi
iptables -w -F INPUT
"$bfctl" destroy lbprobe 2> /dev/null || true

declare -A t mem sv dr
for k in $kinds; do t[$k]=""; done
# KB_BENCH_LEARN_ONLY=test: the window's test cost alone (its learning
# numbers null), for a build with windows but no BLOOM target
[ "${KB_BENCH_LEARN_ONLY:-}" = test ] && reps=0
setup ipt_base; learn > /dev/null	# warm up (neighbour, caches)
for rep in $(seq "$reps"); do
	for k in $kinds; do
		clear_all; settle
		m0=$(meminfo) s0=$(slabvm)
		setup "$k"
		ns=$(learn)
		t[$k]="${t[$k]} $ns"
		dr[$k]=$((${dr[$k]:-0} + $(cat dropped.last)))
		if [ "$rep" = 1 ]; then
			settle; m1=$(meminfo) s1=$(slabvm)
			mem[$k]=$((m1 - m0)) sv[$k]=$((s1 - s0))
			case $k in
			ipset)
				ipset list -t ls1 | sed 's/^/# /'
				ipset_bytes=$(ipset list -t ls1 | awk '/^Size in memory:/ { print $4 }') ;;
			kbloom)
				"$bfctl" info lb1 | sed 's/^/# /'
				kb_bytes=$("$bfctl" info lb1 | awk '$1 == "bytes:" { print $2 }')
				kb_refused=$("$bfctl" -j info lb1 | python3 -c \
					'import json,sys; j=json.load(sys.stdin); j=j[0] if isinstance(j,list) else j; print(j.get("learn_refused", j.get("learn-refused")))')
				;;
			esac
		fi
		echo "rep $rep $k: $ns ns, ${mem[$k]} kB"
	done
done
clear_all

# ---- a window filter's test cost vs a plain one's ----
srcs=()
for i in $(seq 10 $((10 + nsrc - 1))); do
	srcs+=("10.99.1.$i")
	ip -n kbl_src addr add "10.99.1.$i/16" dev veth-a
done
ip addr add 10.99.1.1/16 dev veth-b 2> /dev/null || true
ip netns exec kbl_src ping -q -c1 -W2 10.99.0.1 > /dev/null
tkinds="plain"
"$bfctl" create tplain blocked --key-type ipv4 --items "$n" --fpr "$fpr"
if "$bfctl" create twin4 blocked --key-type ipv4 --items "$n" --fpr "$fpr" \
	--window "${tmo}s" --slices 4 &&
   "$bfctl" create twin1 blocked --key-type ipv4 --items "$n" --fpr "$fpr" \
	--window "${tmo}s" --slices 1 && windowed twin4 && windowed twin1; then
	tkinds="$tkinds win4 win1"
fi
# the same keys in each (none of the test's sources)
python3 -c "
for i in range($n // 10):
    a = 0x0b000000 + i * 7919
    print('%d.%d.%d.%d' % (a >> 24, a >> 16 & 255, a >> 8 & 255, a & 255))" > keys.txt
for f in tplain twin4 twin1; do
	"$bfctl" info "$f" > /dev/null 2>&1 && "$bfctl" add "$f" -file keys.txt
done
tblast() {
	taskset -c 0 ip netns exec kbl_src "$ublast" 10.99.0.1 "$tpkts" "${srcs[@]}"
	sleep 0.3
}
tchain() {
	local i
	{
		echo '*filter'
		for i in $(seq "$trules"); do
			echo "-A INPUT -p udp --dport 9 $* -j DROP"
		done
		echo '-A INPUT -p udp --dport 9 -j DROP'
		echo COMMIT
	} | iptables-restore -w
}
declare -A tt
tchain --sport 1; tblast > /dev/null
for r in $(seq "$treps"); do
	tchain --sport 1; tt[base]="${tt[base]:-} $(tblast)"
	for k in $tkinds; do
		case $k in
		plain) f=tplain ;; win4) f=twin4 ;; win1) f=twin1 ;;
		esac
		tchain -m bloom --bloom-name $f --bloom-dir src
		tt[$k]="${tt[$k]:-} $(tblast)"
	done
done
iptables -w -F INPUT
for f in tplain twin4 twin1; do "$bfctl" destroy "$f" 2> /dev/null || true; done

get() { local v=${1:-}; [ -n "$v" ] && fastest $v || echo None; }
python3 - "$json" <<PY
import json, sys
n, rules, trules, tpkts = $n, $rules, $trules, $tpkts
t = {$(for k in ipt_base ipset nft_base nft kbloom; do printf '"%s": %s, ' $k "$(get "${t[$k]:-}")"; done)}
mem = {$(for k in ipt_base ipset nft_base nft kbloom; do printf '"%s": %s, ' $k "${mem[$k]:-None}"; done)}
sv = {$(for k in ipt_base ipset nft_base nft kbloom; do printf '"%s": %s, ' $k "${sv[$k]:-None}"; done)}
dr = {$(for k in ipt_base ipset nft_base nft kbloom; do printf '"%s": %s, ' $k "${dr[$k]:-None}"; done)}
tt = {$(for k in base plain win4 win1; do printf '"%s": %s, ' $k "$(get "${tt[$k]:-}")"; done)}
def per(a, b, cnt, r):	# ns per packet and rule, None when noise swamped it
    return (a - b) / cnt / r if a is not None and b is not None and a > b else None
def ratio(a, b):
    return a / b if a and b else None
def kb(k, base):	# kernel kB per set, the baseline's delta taken off
    if mem.get(k) is None: return None
    return (mem[k] - max(mem[base] or 0, 0)) / rules
ns = {"ipset": per(t["ipset"], t["ipt_base"], n, rules),
      "nft": per(t["nft"], t["nft_base"], n, rules),
      "kbloom": per(t["kbloom"], t["ipt_base"], n, rules)}
kbs = {"ipset": kb("ipset", "ipt_base"), "nft": kb("nft", "nft_base"),
       "kbloom": kb("kbloom", "ipt_base")}
test = {k: per(tt[k], tt["base"], tpkts, trules) for k in ("plain", "win4", "win1")}
r = {
    "sources": n, "learn_rules": rules, "fpr": $fpr, "timeout_s": $tmo,
    "kbloom_filter": "blocked --items %d --fpr $fpr ${kb_shape:-(plain: no windows in this build)}" % n,
    "kbloom_filter_bytes": ${kb_bytes:-None}, "kbloom_learn_refused": ${kb_refused:-None},
    "learn_samples_ns": {k: [int(x) for x in v.split()] for k, v in {
        $(for k in ipt_base ipset nft_base nft kbloom; do printf '"%s": "%s", ' $k "${t[$k]:-}"; done)}.items()},
    "learn_dropped_pkts": dr,
    "learn_ns_per_pkt_rule": ns, "learn_kernel_kb_per_set": kbs,
    "learn_kernel_kb_raw": mem, "learn_slab_vmalloc_kb_raw": sv,
    "ipset_size_in_memory": ${ipset_bytes:-None},
    "test_samples_ns": {k: [int(x) for x in v.split()] for k, v in {
        $(for k in base plain win4 win1; do printf '"%s": "%s", ' $k "${tt[$k]:-}"; done)}.items()},
    "test_ns_per_pkt_rule": test, "test_rules": trules, "test_pkts": tpkts,
    "learn_pkt_ratio_vs_ipset": ratio(ns["ipset"], ns["kbloom"]),
    "learn_pkt_ratio_vs_nft": ratio(ns["nft"], ns["kbloom"]),
    "learn_mem_ratio_vs_ipset": ratio(kbs["ipset"], kbs["kbloom"]),
    "learn_mem_ratio_vs_nft": ratio(kbs["nft"], kbs["kbloom"]),
    "window_test_cost_vs_plain": ratio(test["win4"], test["plain"]),
    "window1_test_cost_vs_plain": ratio(test["win1"], test["plain"]),
    "ratios": "learn_*_vs_X: X's cost / kbloom's (above 1: kbloom cheaper); "
              "window_test_cost_vs_plain: a window of 5 slices' test cost / a plain filter's",
    "note": "QEMU TCG: absolute times are not meaningful, ratios are",
}
json.dump(r, open(sys.argv[1], "w"), indent=1)
print(json.dumps(r, indent=1))
PY
ip netns del kbl_src
ip link del veth-b 2> /dev/null || true
ipset destroy 2> /dev/null || true
rm -rf "$work"
