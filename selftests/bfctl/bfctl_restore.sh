#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bfctl save / restore: byte-identical round trips, line-numbered errors
# that leave no partial filter, -exist.
. "$(dirname "$0")/lib.sh"
B=$BFCTL
names="rs_blk rs_sip rs_cnt rs_cl rs_net rs_hex rs_empty"
cleanup() { for f in $names rs_other; do $B destroy $f 2> /dev/null; done; }
cleanup

seq 1 3000 | sed 's/^/key-/' > "$TMP/str"
seq 1 2000 | awk '{ printf "10.%d.%d.0/24\n", int($1 / 256), $1 % 256 }' > "$TMP/nets"
seq 1 500 | awk '{ printf "%08x\n", $1 * 2654435761 % 4294967296 }' > "$TMP/hex"

$B create rs_blk blocked --items 3000 --fpr 0.01 --key-type str
$B create rs_sip blocked --items 3000 --fpr 0.001 --key-type str --hash siphash
$B create rs_cnt counting --items 3000 --fpr 0.01 --key-type str
$B create rs_cl classic --items 3000 --fpr 0.01 --key-type str
$B create rs_net blocked --items 2000 --fpr 0.01 --key-type net
$B create rs_hex blocked --bits-per-key 12 --items 500 --key-type bytes
$B create rs_empty blocked --items 1000000 --fpr 0.01 --key-type ipv4
for f in rs_blk rs_sip rs_cnt rs_cl; do $B add $f -file "$TMP/str"; done
$B add rs_net -file "$TMP/nets"
$B add rs_hex -file "$TMP/hex"
$B del rs_cnt key-1 key-2 > /dev/null

for f in $names; do $B export $f -o "$TMP/$f.before"; done
expect 0 "save NAME -file" $B save rs_blk -file "$TMP/one.save"
like "save starts with its magic line" "$(head -1 "$TMP/one.save")" '^# bfctl save 1$'
like "filter line has every parameter" "$(sed -n 2p "$TMP/one.save")" '^filter rs_blk kind=blocked key-type=str hash=xxh64 m=[0-9]+ k=[0-9]+ items=3000 fpr-ppb=10000000 seed=0x[0-9a-f]+,0x0 plen4=0x0 plen6=0x0,0x0,0x0 count=[0-9]+ bytes=[0-9]+ crc32c=0x[0-9a-f]{8}$'
expect 0 "save of several filters to stdout" bash -c "for f in $names; do $B save \$f | sed 1d; done > $TMP/all.body"
{ echo '# bfctl save 1'; cat "$TMP/all.body"; } > "$TMP/all.save"
check "an empty 1M-key filter saves small (zero runs)" test "$(grep -A3 '^filter rs_empty' "$TMP/all.save" | wc -c)" -lt 2000
if have_netlink; then
	expect 0 "save without NAME saves every filter" $B save -file "$TMP/every.save"
	check "every filter is in the save" test "$(grep -c '^filter rs_' "$TMP/every.save")" -ge 7
fi

expect 3 "restore onto existing filters without -exist" $B restore -file "$TMP/all.save"
like "names the line of the taken name" "$err" 'line [0-9]+: filter rs_blk exists'
cleanup
expect 0 "restore after destroy" $B restore -file "$TMP/all.save"
for f in $names; do
	$B export $f -o "$TMP/$f.after"
	check "save -> destroy -> restore of $f is byte-identical" cmp -s "$TMP/$f.before" "$TMP/$f.after"
done
expect 0 "restored filter answers" $B test rs_net 10.0.5.0/24 10.1.0.0/24
expect 0 "restore -exist replaces in place" $B restore -exist -file "$TMP/one.save"
expect 0 "restore from stdin" bash -c "$B destroy rs_blk && $B restore < $TMP/one.save"
$B export rs_blk -o "$TMP/rs_blk.again"
check "stdin restore is byte-identical" cmp -s "$TMP/rs_blk.before" "$TMP/rs_blk.again"

# ---- errors name line N and leave nothing behind ----
cleanup
# line 4 is a payload line of the first filter: break its base64
awk 'NR == 4 { print "%%%not-base64" ; next } { print }' "$TMP/all.save" > "$TMP/bad4.save"
expect 3 "restore with a bad payload line" $B restore -file "$TMP/bad4.save"
like "error names line 4" "$err" 'line 4: bad base64'
expect 3 "no partial filter after a bad line" $B info rs_blk
# a bad header in the last filter: the earlier ones must not appear either
last=$(grep -n '^filter rs_empty' "$TMP/all.save" | cut -d: -f1)
sed "${last}s/kind=blocked/kind=bogus/" "$TMP/all.save" > "$TMP/badlast.save"
expect 3 "restore with a bad last filter line" $B restore -file "$TMP/badlast.save"
like "error names the last filter's line" "$err" "line $last: bad value for 'kind'"
for f in $names; do
	expect 3 "no filter $f after the failed restore" $B info $f
done
# one changed payload character: the CRC catches it
pl=$(awk '/^filter rs_blk/ { f = 1; next } f && !/^\*/ { print NR; exit }' "$TMP/all.save")
awk -v n="$pl" 'NR == n { c = substr($0, 1, 1); $0 = (c == "A" ? "B" : "A") substr($0, 2) } { print }' "$TMP/all.save" > "$TMP/crc.save"
expect 3 "restore of a payload that does not match its crc32c" $B restore -file "$TMP/crc.save"
like "crc error" "$err" 'crc32c does not match'
expect 3 "still no partial filter" $B info rs_blk
printf '# bfctl save 1\nfilter rs_other kind=blocked\nend\n' > "$TMP/short.save"
expect 3 "filter line missing fields" $B restore -file "$TMP/short.save"
like "missing fields named with line 2" "$err" 'line 2: filter line needs'
printf 'garbage\n' > "$TMP/garbage.save"
expect 3 "garbage input" $B restore -file "$TMP/garbage.save"
like "garbage named with line 1" "$err" "line 1: expected 'filter NAME"
head -3 "$TMP/one.save" > "$TMP/trunc.save"
expect 3 "truncated input (no end line)" $B restore -file "$TMP/trunc.save"
expect 3 "no partial filter after truncated input" $B info rs_blk
expect 3 "restore of a missing file" $B restore -file "$TMP/none.save"
expect 2 "restore with a bad option" $B restore -bogus
expect 3 "save of a missing filter" $B save nosuch

cleanup
done_testing
