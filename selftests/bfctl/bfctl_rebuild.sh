#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bfctl rebuild: atomic replacement through a /dev/kbloom transaction;
# killed half-way (SIGKILL) it leaves the live filter exactly as it was.
# Also: bulk loading costs about what parsing the file costs.
. "$(dirname "$0")/lib.sh"
B=$BFCTL
cleanup() { $B destroy rb 2> /dev/null; $B destroy rbperf 2> /dev/null; }
cleanup

seq 1 1000 | sed 's/^/old-/' > "$TMP/old"
seq 1 2000 | sed 's/^/new-/' > "$TMP/new"
$B create rb blocked --items 2000 --fpr 0.0001 --key-type str
$B add rb -file "$TMP/old"
m0=$($B info -j rb | python3 -c 'import json,sys; print(json.load(sys.stdin)["m"])')
expect 0 "rebuild from a file" $B rebuild rb -file "$TMP/new"
expect 0 "info after rebuild" $B info -j rb
json_check "without size options the sizing stays" "$out" "j['m']==$m0 and j['fpr']==0.0001 and j['items']==2000"
expect 0 "new keys present after rebuild" $B test rb new-1 new-1000 new-2000
expect 1 "old keys gone after rebuild" $B test rb old-1 old-2 old-3
expect 0 "rebuild with new size options" $B rebuild rb -file "$TMP/old" --items 5000 --fpr 0.001
expect 0 "info after resize" $B info -j rb
json_check "resized to the new items and fpr" "$out" 'j["items"]==5000 and j["fpr"]==0.001'
# a new FPR or bits per key must not shrink the filter to the file's lines
expect 0 "rebuild --fpr alone keeps the configured capacity" $B rebuild rb -file "$TMP/old" --fpr 0.01
expect 0 "info" $B info -j rb
json_check "items stay 5000, fpr 0.01" "$out" 'j["items"]==5000 and j["fpr"]==0.01'
expect 0 "rebuild --bits-per-key alone keeps the configured capacity" $B rebuild rb -file "$TMP/old" --bits-per-key 12
expect 0 "info" $B info -j rb
json_check "m = 12 bits for each of 5000, in 512-bit blocks" "$out" 'j["items"]==5000 and 60000 <= j["m"] < 60512'
# without a configured capacity (--bits --hashes), the file's lines
$B create rbmk blocked --bits 4096 --hashes 4 --key-type str
expect 0 "rebuild --fpr alone of a filter without capacity" $B rebuild rbmk -file "$TMP/old" --fpr 0.01
json_check "items = lines of the file" "$($B info -j rbmk)" 'j["items"]==1000 and j["fpr"]==0.01'
$B destroy rbmk
expect 2 "rebuild --items alone on a filter not sized by --fpr" $B rebuild rb -file "$TMP/old" --items 99
like "says which sizing to give" "$err" 'not sized by --fpr'
expect 2 "rebuild without -file" $B rebuild rb
expect 3 "rebuild of a missing filter" $B rebuild nosuch -file "$TMP/old"
expect 2 "rebuild cannot change the key type" $B rebuild rb -file "$TMP/old" --key-type ipv4

# a bad line: nothing changes
$B export rb -o "$TMP/before.img"
{ head -500 "$TMP/new"; printf '%2000s\n' x | tr ' ' y; } > "$TMP/badlong"
expect 2 "rebuild with a bad line: bad input" $B rebuild rb -file "$TMP/badlong"
like "the bad line is named, its text cut short" "$err" "badlong:501: key too long 'y{64}'\\.\\.\\.; nothing added"
$B export rb -o "$TMP/after.img"
check "a failed rebuild leaves the filter byte-identical" cmp -s "$TMP/before.img" "$TMP/after.img"

# ---- SIGKILL half-way: the transaction holds 1M+ keys, the live filter none of them ----
mkfifo "$TMP/fifo"
$B rebuild rb -file "$TMP/fifo" --items 3000000 --fpr 0.01 &
pid=$!
exec 3> "$TMP/fifo"
seq 1 1500000 | sed 's/^/half-/' >&3	# > one 1M-key batch, sent to the kernel
sleep 2
check "rebuild is still running half-way" kill -0 $pid
expect 1 "while it runs the live filter does not see staged keys" $B test rb half-1 half-2 half-3
expect 0 "while it runs the live filter answers as before" $B test rb old-1 old-1000
kill -9 $pid
wait $pid 2> /dev/null
exec 3>&-
$B export rb -o "$TMP/killed.img"
check "after SIGKILL the filter is byte-identical" cmp -s "$TMP/before.img" "$TMP/killed.img"
expect 0 "after SIGKILL old keys still answer" $B test rb old-1 old-500 old-1000
expect 1 "after SIGKILL no staged key leaked" $B test rb half-1 half-1000000
expect 0 "the next rebuild works" $B rebuild rb -file "$TMP/new"
# a size over max_filter_bytes: refused naming the memory, filter kept
$B export rb -o "$TMP/before.img"
expect 3 "rebuild to 10^12 keys at 1%" $B rebuild rb -file "$TMP/old" \
	--items 1000000000000 --fpr 0.01
like "names the memory it would need" "$err" \
	'refused: the filter needs 1\.1 TiB \([0-9]+ bytes\), over the module.s max_filter_bytes of '
$B export rb -o "$TMP/after.img"
check "the refused rebuild left the filter as it was" cmp -s "$TMP/before.img" "$TMP/after.img"

# ---- bulk load through /dev/kbloom ----
n=200000
seq 1 $n | awk '{ printf "%d.%d.%d.%d\n", int($1/16777216)%256, int($1/65536)%256, int($1/256)%256, $1%256 }' > "$TMP/ips"
$B create rbperf blocked --items $n --fpr 0.01 --key-type ipv4
# (its speed against parsing alone is measured by make bench-netfilter)
expect 0 "add -file of $n ipv4 keys" $B add rbperf -file "$TMP/ips"
expect 0 "bulk-loaded keys answer" $B test rbperf 0.0.0.1 0.3.13.64

cleanup
done_testing
