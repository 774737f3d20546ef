#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kbloom vs ipset on the same address lists, in one VM (TCG: compare the
# ratios, not the absolute numbers):
#  - load: 1M random IPv4 addresses + 100k random /24 prefixes from text,
#    `bfctl add -file` vs `ipset restore` (hash:ip + hash:net), and
#    `bfctl restore` of kbloom's own save file; `bfctl add -file` against
#    parsing the same file and building the filter offline;
#  - kernel memory at 0.1% FPR: Slab + VmallocUsed deltas from /proc/meminfo;
#  - per-packet cost: a fixed number of UDP packets through RULES rules
#    that all test the lists and miss (the common case for a blocklist),
#    -m bloom vs -m set, minus the same run without those rules.
# Usage: netfilter.sh BFCTL UDP_BLAST JSON [--small]
set -eu
bfctl=$1 blast=$2 json=$3
small=${4:-}
n_ip=1000000 n_net=100000 pkts=200000 rules=20 reps=3
[ "$small" = --small ] && n_ip=100000 n_net=10000 pkts=50000 reps=2
work=$(mktemp -d)
cd "$work"

now() { date +%s%N; }
meminfo() {	# Slab + VmallocUsed, in kB
	awk '/^Slab:|^VmallocUsed:/ { s += $2 } END { print s }' /proc/meminfo
}
settle() { sync; echo 3 > /proc/sys/vm/drop_caches; sleep 1; }

echo "generating $n_ip addresses and $n_net /24 prefixes"
python3 - "$n_ip" "$n_net" <<'PY'
import random, sys
n_ip, n_net = int(sys.argv[1]), int(sys.argv[2])
rnd = random.Random(1)
ips, nets = set(), set()
while len(ips) < n_ip:
    a = rnd.getrandbits(32)
    if a >> 24 not in (0, 10, 127) and a >> 28 < 14:
        ips.add(a)
while len(nets) < n_net:
    a = rnd.getrandbits(24) << 8
    if a >> 24 not in (0, 10, 127) and a >> 28 < 14:
        nets.add(a)
q = lambda a: "%d.%d.%d.%d" % (a >> 24, a >> 16 & 255, a >> 8 & 255, a & 255)
with open("ips.txt", "w") as f:
    f.writelines(q(a) + "\n" for a in sorted(ips))
with open("nets.txt", "w") as f:
    f.writelines(q(a) + "/24\n" for a in sorted(nets))
with open("ipset.restore", "w") as f:
    f.write("create bl4 hash:ip family inet hashsize %d maxelem %d\n" % (n_ip, 2 * n_ip))
    f.write("create bln hash:net family inet hashsize %d maxelem %d\n" % (n_net, 2 * n_net))
    f.writelines("add bl4 %s\n" % q(a) for a in sorted(ips))
    f.writelines("add bln %s/24\n" % q(a) for a in sorted(nets))
PY

modprobe ip_set_hash_ip; modprobe ip_set_hash_net; modprobe xt_set
settle
m0=$(meminfo); t0=$(now)
ipset restore < ipset.restore
t1=$(now); settle; m1=$(meminfo)
ipset_ms=$(( (t1 - t0) / 1000000 )) ipset_kb=$((m1 - m0))

# kbloom from the same text lists (the bulk /dev/kbloom path)...
settle
m0=$(meminfo); t0=$(now)
"$bfctl" create bl4 blocked --items "$n_ip" --fpr 0.001 --key-type ipv4
"$bfctl" add bl4 -file ips.txt
"$bfctl" create bln blocked --items "$n_net" --fpr 0.001 --key-type net4
"$bfctl" add bln -file nets.txt
t1=$(now); settle; m1=$(meminfo)
kb_ms=$(( (t1 - t0) / 1000000 )) kb_kb=$((m1 - m0))
# bfctl add -file against parsing the same file and building the filter
# offline (issue: loading must cost at most a few times the parsing).
t0=$(now)
"$bfctl" image build --kind blocked --items "$n_ip" --fpr 0.001 --key-type ipv4 \
	-file ips.txt -o offline.img > /dev/null
t1=$(now)
"$bfctl" create addf blocked --items "$n_ip" --fpr 0.001 --key-type ipv4
t2=$(now)
"$bfctl" add addf -file ips.txt
t3=$(now)
"$bfctl" destroy addf
parse_ms=$(( (t1 - t0) / 1000000 )) addfile_ms=$(( (t3 - t2) / 1000000 ))
# ...and from its own save file (an image upload per filter).
"$bfctl" save -file kbloom.save
"$bfctl" destroy bl4; "$bfctl" destroy bln
t0=$(now)
"$bfctl" restore -file kbloom.save
t1=$(now)
kb_restore_ms=$(( (t1 - t0) / 1000000 ))
echo "load: ipset ${ipset_ms} ms, ${ipset_kb} kB; kbloom ${kb_ms} ms (restore of its save: ${kb_restore_ms} ms), ${kb_kb} kB"

# Every listed address must be found by both (no false negatives).
head -n 1000 ips.txt > probe.txt
"$bfctl" test -q bl4 $(cat probe.txt)
ipset test bl4 "$(head -n1 probe.txt)" 2> /dev/null

# Per-packet cost: packets from 10.99.0.2 (in neither list) to 10.99.0.1.
ip netns add kbb_src
ip link add veth-b type veth peer name veth-a netns kbb_src
ip link set veth-b up
ip addr add 10.99.0.1/24 dev veth-b
ip -n kbb_src link set veth-a up
ip -n kbb_src addr add 10.99.0.2/24 dev veth-a
ip -n kbb_src link set lo up
ip netns exec kbb_src ping -q -c1 -W2 10.99.0.1 > /dev/null
# The filters and sets live in this (the initial) namespace, where the
# rules are.
run_pkts() {	# median ns for $pkts packets over $reps runs
	local i t=()
	for i in $(seq "$reps"); do
		t+=("$(ip netns exec kbb_src "$blast" 10.99.0.2 10.99.0.1 "$pkts")")
		sleep 0.5
	done
	printf '%s\n' "${t[@]}" | sort -n | sed -n "$(( (reps + 1) / 2 ))p"
}
chain() {	# chain MATCH...: RULES rules testing both lists, then a counter
	iptables -w -F INPUT
	local i
	for i in $(seq "$rules"); do
		iptables -w -A INPUT -p udp --dport 9 "$@" -j DROP
	done
	iptables -w -A INPUT -p udp --dport 9 -j DROP
}
chain -s 192.0.2.1	# same rule count, a plain match: the baseline
base=$(run_pkts)
chain -m set --match-set bl4 src
set_ns=$(run_pkts)
chain -m bloom --bloom-name bl4 --bloom-dir src
bloom_ns=$(run_pkts)
iptables -w -F INPUT
python3 - "$json" <<PY
import json, sys
base, s, b = $base, $set_ns, $bloom_ns
pkts, rules = $pkts, $rules
per = lambda t: max(t - base, 1) / pkts / rules
r = {
    "n_ip": $n_ip, "n_net": $n_net,
    "ipset_load_ms": $ipset_ms, "kbloom_load_ms": $kb_ms,
    "kbloom_restore_ms": $kb_restore_ms,
    "offline_parse_build_ms": $parse_ms, "add_file_ms": $addfile_ms,
    "ratio_add_file_vs_parse": $addfile_ms / max($parse_ms, 1),
    "ipset_kernel_kb": $ipset_kb, "kbloom_kernel_kb": $kb_kb,
    "pkt_base_ns": base / pkts, "pkt_set_ns_per_rule": per(s),
    "pkt_bloom_ns_per_rule": per(b),
    "load_ratio_vs_ipset": $ipset_ms / max($kb_ms, 1),
    "mem_ratio_vs_ipset": $ipset_kb / max($kb_kb, 1),
    "pkt_cost_ratio_vs_ipset": per(s) / per(b),
    "note": "QEMU TCG: absolute times are not meaningful, ratios are",
}
json.dump(r, open(sys.argv[1], "w"), indent=1)
print(json.dumps(r, indent=1))
PY
ip netns del kbb_src
ip link del veth-b 2> /dev/null || true
"$bfctl" destroy bl4; "$bfctl" destroy bln
ipset destroy
rm -rf "$work"
