#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench-app's guest part (one TCG VM: compare the ratios, not the
# absolute numbers).  The image IMG (built on the host by
# userspace/bench/bench-app) is uploaded as kernel filter appbench; then
# the keys of KEYS.hex are tested
#  - by kb_bench_app: through libkbloom's mapping (kbloom_test per key,
#    kbloom_test_many) and through the filter fd's KB_IOC_TEST ioctl
#    (all keys in one call, 1024 a call, one key a call);
#  - by `bfctl test` over netlink, as a shell script would ask it: xargs
#    hands each bfctl as many keys as 1 MB of command line holds (about
#    30,000), wall time of all of them, process starts included (one
#    round: under TCG 1M keys take bfctl over half a minute).
# kb_bench_app's fastest of ROUNDS rounds counts.  Writes JSON to OUT.
#   app.sh BFCTL KB_BENCH_APP IMG KEYS.hex OUT.json [ROUNDS [NL_ROUNDS]]
set -eu
bfctl=$1 prog=$2 img=$3 keys=$4 json=$5 rounds=${6:-3} nl_rounds=${7:-1}
name=appbench
cleanup() { "$bfctl" destroy $name 2> /dev/null || true; }
trap cleanup EXIT
"$bfctl" upload $name "$img"
mapfrag=$("$prog" $name "$keys" "$rounds")
n=$(wc -l < "$keys")

# bfctl test exits 1 when a key of its batch is absent: only > 1 is an
# error (xargs itself would turn every non-zero exit into 123)
cat > /tmp/bfctl-test << EOF
#!/bin/bash
"$bfctl" -q test $name --key-format hex "\$@"
[ \$? -le 1 ]
EOF
chmod +x /tmp/bfctl-test
best=
for _ in $(seq "$nl_rounds"); do
	t0=$(date +%s%N)
	xargs -s 1000000 -a "$keys" /tmp/bfctl-test
	t1=$(date +%s%N)
	t=$((t1 - t0))
	if [ -z "$best" ] || [ $t -lt "$best" ]; then best=$t; fi
done
procs=$(xargs -s 1000000 -a "$keys" echo | wc -l)
nl_ns=$(awk "BEGIN { printf \"%.2f\", $best / $n }")
cat > "$json" << JSON
{"guest": $mapfrag,
 "bfctl_netlink": {"keys": $n, "processes": $procs, "rounds": $nl_rounds, "ns_per_key": $nl_ns}}
JSON
cat "$json"
