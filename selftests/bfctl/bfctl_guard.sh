#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What keeps a live blocklist from becoming "block everything" or "block
# nothing" by accident: add and restore refuse to take a filter past twice
# its capacity and rebuild refuses to drop more than half of its keys,
# each unless --force and each changing nothing when it refuses; an add
# that leaves a filter over capacity warns, in bfctl and as a kernel event
# (monitor) and log line, and so does an upload or a commit that does.
# The saturation guard: upload, restore and sync refuse a payload whose
# estimated FPR is over --max-fpr (default 10x the configured FPR, else
# 1%), the kernel raising a "refused" event, the filter serving on; --force
# loads it.  Also: what is printed for a saturated filter,
# limits named in the user's terms, restore -check against the kernel.
# Net filters: --fpr is per lookup (one probe per prefix length held), a
# new prefix length can take a filter over it, lookups count addresses.
. "$(dirname "$0")/lib.sh"
B=$BFCTL
names="gd gd2 gdsat gdr gdm1 gdm2 gdnew gdu gdo gdrs gdoc gdp gdp3 gdpl gdpr"
cleanup() { for f in $names; do $B destroy $f 2> /dev/null; done; }
cleanup
count() { $B info -j "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])'; }

# ---- add: the capacity guard ----
$B create gd blocked --items 100 --fpr 0.01 --key-type str
seq 1 150 | sed 's/^/k/' > "$TMP/k150"
expect 0 "add 150 keys to a filter of capacity 100" $B add gd -file "$TMP/k150"
# (the kernel counts keys that were new: false positives are not)
like "warns that it is over capacity" "$err" '^bfctl: warning: gd is over capacity: 1[0-9][0-9] keys added, about [0-9]+ held, for a capacity of 100'
like "... with its false positive rate" "$err" 'estimated false positive rate [0-9.e-]+ \(configured 0.01\)'
expect 0 "-q keeps the warning quiet" $B -q add gd k1
check "... nothing on stderr" test -z "$err"
seq 151 250 | sed 's/^/k/' > "$TMP/k100"
expect 3 "add -file past 2x the capacity is refused" $B add gd -file "$TMP/k100"
c0=$(count gd)
like "says why, with the numbers" "$err" "refused: adding 100 keys would give the filter $((c0 + 100)), over 2 times its capacity of 100"
like "says how to go on" "$err" '--force to add anyway'
check "a regular file is counted first: nothing was added" test "$(count gd)" = "$c0"
# The refused keys were never added, but a filter at 1.5x its capacity
# answers maybe for some absent keys (its seed is random: about 5% here),
# so one key is no proof either way.  Added, all 100 would answer maybe.
$B test gd $(cat "$TMP/k100") > "$TMP/k100.test"
check "each of the 100 refused keys answers" test "$(grep -c -e ': maybe present$' -e ': absent$' "$TMP/k100.test")" = 100
check "... fewer than half maybe: they were not added" test "$(grep -c ': maybe present$' "$TMP/k100.test")" -lt 50
expect 3 "add of keys on the command line past 2x" $B add gd $(seq 200 260 | sed 's/^/k/')
check "... nothing added" test "$(count gd)" = "$c0"
# a pipe cannot be counted first: the batch that would cross is refused
# (batches are 2^20 keys: the first of 2.5M fits in 2 x 600000, the second not)
seq 1 2500000 | sed 's/^/p/' > "$TMP/p25"
$B create gd2 blocked --items 600000 --fpr 0.01 --key-type str
expect 3 "add from a pipe past 2x is refused" bash -c "cat $TMP/p25 | $B add gd2 -file -"
like "... at the batch that would cross" "$err" 'refused: adding 2097152 keys would give the filter 2097152, over 2 times its capacity of 600000'
like "... and says what the batches before it added" "$err" '1048576 keys were added before the refusal'
check "... the filter stays within 2x its capacity" test "$(count gd2)" -le 1200000
expect 0 "--force adds past the guard" $B add gd -file "$TMP/k100" --force
check "... all of them (less the false positives)" test "$(count gd)" -gt $((c0 + 50))
expect 0 "... and they answer" $B test gd k151 k250

# the kernel tells too: an event and a warning in the log, once per filter
# generation (a flush re-arms it)
# (the monitor is listening once it prints a flush of gd; a flush after
# the add, once printed, shows every event of the add was)
$B monitor -j > "$TMP/mon" 2>&1 &
mon=$!
flushes() { grep -c '"event":"flushed","name":"gd"' "$TMP/mon"; }
flushed() { $B flush gd && [ "$(flushes)" -gt 0 ]; }
wait_for "the monitor listens" flushed
n0=$(flushes)
$B add gd -file "$TMP/k150" 2> /dev/null
$B flush gd
more_flushes() { [ "$(flushes)" -gt "$n0" ]; }
wait_for "... and prints what follows" more_flushes
kill $mon; wait $mon 2> /dev/null
like "monitor shows the over-capacity event" "$(cat "$TMP/mon")" '"event":"over-capacity","name":"gd"'
check "... once" test "$(grep -c over-capacity "$TMP/mon")" = 1
like "the kernel log names filter and netns" "$(dmesg | tail -n 200)" "kbloom: netns [0-9]+: filter gd over its configured capacity"

# ---- a saturated filter: estimates are not 2^64 - 1 ----
$B create gdsat blocked --bits 512 --hashes 4 --key-type str
seq 1 3000 | sed 's/^/s/' > "$TMP/s3000"
$B add gdsat -file "$TMP/s3000"
expect 0 "info -j of a saturated filter" $B info -j gdsat
json_check "est_items is null and saturated true" "$out" 'j["est_items"] is None and j["saturated"] is True'
check "no 18446744073709551615 anywhere" test -z "$(printf '%s' "$out" | grep 18446744073709551615)"
expect 0 "info says saturated" $B info gdsat
like "... in words" "$out" '^estimated items: saturated$'
expect 0 "list says saturated" $B list gdsat
like "... in its column" "$out" 'saturated'
expect 0 "list -j of it" $B list -j
json_check "list -j: null too" "$out" '[f for f in j["filters"] if f["name"]=="gdsat"][0]["est_items"] is None'
$B export gdsat -o "$TMP/sat.img"
expect 0 "image info -j of a saturated image" $B image info -j "$TMP/sat.img"
json_check "image info: null too" "$out" 'j["est_items"] is None'
json_check "a filter far from full is not saturated" "$($B info -j gd)" 'j["saturated"] is False and isinstance(j["est_items"], int)'

# ---- limits in the user's terms ----
expect 3 "a filter over max_filter_bytes" $B create gdbig blocked --items 100000000000 --fpr 0.000001
like "names max_filter_bytes" "$err" 'max_filter_bytes'
like "and the memory the filter would need" "$err" \
	'refused: the filter needs [0-9.]+ GiB \([0-9]+ bytes\), over the module.s max_filter_bytes of [0-9.]+ [KMGT]iB'
expect 3 "a filter of 2^36 bits is over max_filter_bytes" \
	$B create gdbig blocked --bits 68719476736 --hashes 7
like "needs 8 GiB, exactly" "$err" 'needs 8\.0 GiB \(8589934592 bytes\)'
expect 3 "neither was created" $B info gdbig
check "not 'Argument list too long'" test -z "$(printf '%s' "$err" | grep 'Argument list too long')"
old=$(cat /sys/module/kbloom/parameters/max_filters)
have=$($B list -t | wc -l)
echo $((have)) > /sys/module/kbloom/parameters/max_filters
expect 3 "create over max_filters" $B create gdm1 blocked --items 10 --fpr 0.01
like "names max_filters" "$err" 'max_filters'
check "not 'No space left on device'" test -z "$(printf '%s' "$err" | grep 'No space left')"
printf 'create gdm1 blocked --items 10 --fpr 0.01\ncreate gdm2 blocked --items 10 --fpr 0.01\n' > "$TMP/two.restore"
echo $((have + 1)) > /sys/module/kbloom/parameters/max_filters
expect 3 "restore of two filters with room for one" $B restore -file "$TMP/two.restore"
like "names max_filters and the counts" "$err" "creates 2 filters and the namespace keeps $have: over max_filters \($((have + 1))\)"
expect 3 "... restore -check says so too" $B restore -check -file "$TMP/two.restore"
expect 3 "... and nothing was created" $B info gdm1
echo "$old" > /sys/module/kbloom/parameters/max_filters

# ---- rebuild: the drop guard ----
$B create gdr blocked --items 1000 --fpr 0.01 --key-type str
seq 1 1000 | sed 's/^/r/' > "$TMP/r1000"
seq 1 400 | sed 's/^/r/' > "$TMP/r400"
seq 1 600 | sed 's/^/r/' > "$TMP/r600"
: > "$TMP/empty"
$B add gdr -file "$TMP/r1000"
$B export gdr -o "$TMP/gdr.img"
expect 3 "rebuild from an empty file is refused" $B rebuild gdr -file "$TMP/empty"
like "says how many it would drop" "$err" 'the file has 0 keys and the filter holds [0-9]+: the rebuild would drop [0-9]+ of them \(100%'
like "... and that the filter is unchanged" "$err" 'the filter is unchanged; --force'
expect 3 "rebuild dropping 60% is refused" $B rebuild gdr -file "$TMP/r400"
$B export gdr -o "$TMP/gdr2.img"
check "refused rebuilds leave the filter byte-identical" cmp -s "$TMP/gdr.img" "$TMP/gdr2.img"
expect 0 "rebuild dropping 40% is fine" $B rebuild gdr -file "$TMP/r600"
expect 1 "... r700 is gone (one of five a false positive at most)" $B test gdr r700 r750 r800 r900 r1000
$B add gdr -file "$TMP/r1000" 2> /dev/null
expect 0 "rebuild --force from an empty file" $B rebuild gdr -file "$TMP/empty" --force
expect 1 "... empties it" $B test gdr r1
expect 0 "a rebuild of an empty filter needs no force" $B rebuild gdr -file "$TMP/r400"
# --fpr alone keeps the configured capacity, not the file's line count
expect 0 "rebuild --fpr alone" $B rebuild gdr -file "$TMP/r400" --fpr 0.001
json_check "keeps items 1000, takes the new fpr" "$($B info -j gdr)" 'j["items"]==1000 and j["fpr"]==0.001'

# ---- restore: the capacity guard and -check against the kernel ----
{ echo "create gdnew blocked --items 10 --fpr 0.01 --key-type str"; seq 1 30 | sed 's/^/add gdnew n/'; } > "$TMP/over.restore"
expect 3 "restore past 2x a created filter's capacity" $B restore -file "$TMP/over.restore"
like "names the file's line and the filter" "$err" 'line 1: filter gdnew: refused: adding 30 keys'
expect 3 "... nothing restored" $B info gdnew
expect 3 "restore -check refuses it too" $B restore -check -file "$TMP/over.restore"
expect 0 "restore --force loads it" $B restore --force -file "$TMP/over.restore"
expect 0 "... all keys in" $B test gdnew n1 n30
seq 1 300 | sed 's/^/add gd x/' > "$TMP/live.restore"
expect 3 "restore adding past 2x a live filter's capacity" $B restore -file "$TMP/live.restore"
like "... names it" "$err" 'filter gd: refused: adding 300 keys'
# -check asks the kernel: a name that exists, without -exist
echo "create gdr blocked --items 1000 --fpr 0.01 --key-type str" > "$TMP/exists.restore"
expect 3 "restore -check of a create whose name exists" $B restore -check -file "$TMP/exists.restore"
like "... says it exists" "$err" 'filter gdr exists'
echo "create gdr blocked --items 5 --fpr 0.01 --key-type str" > "$TMP/differs.restore"
expect 3 "restore -check -exist of other parameters" $B restore -check -exist -file "$TMP/differs.restore"
like "... says they differ" "$err" 'exists with other parameters'
echo "add nosuchfilter x" > "$TMP/nosuch.restore"
expect 3 "restore -check of an add to a filter the kernel lacks" $B restore -check -file "$TMP/nosuch.restore"
like "... names it" "$err" 'filter nosuchfilter does not exist'
# without the right to ask the kernel: the file only, and it says so
expect 0 "restore -check without CAP_NET_ADMIN checks the file" \
	bash -c "setpriv --reuid=65534 --regid=65534 --clear-groups $B restore -check < $TMP/exists.restore"
like "... and says it did not ask the kernel" "$err" 'no CAP_NET_ADMIN to ask the kernel: checked the file only'

# ---- the saturation guard: upload, restore, sync ----
# ($TMP/sat.img: gdsat, every bit set; sized by --bits: the 1% default)
$B create gdu blocked --items 1000 --fpr 0.01 --key-type str
$B monitor -j > "$TMP/mon2" 2>&1 &
mon=$!
fl2() { grep -c '"event":"flushed","name":"gdu"' "$TMP/mon2"; }
flushed2() { $B flush gdu && [ "$(fl2)" -gt 0 ]; }
wait_for "the monitor listens" flushed2
$B add gdu u1 u2 u3
for v in 0 1.5 abc; do
	expect 2 "upload --max-fpr $v: usage" $B upload gdu "$TMP/sat.img" --max-fpr $v
done
expect 3 "upload of a saturated image is refused" $B upload gdu "$TMP/sat.img"
like "says why, with fill and FPR" "$err" 'sat.img: refused: saturated, fill 100%, est. FPR 100% \(limit 1%'
expect 0 "... the filter keeps its keys" $B test gdu u1 u2 u3
expect 1 "... and answers absent for others" $B test gdu $(seq 1 20 | sed 's/^/zz/')
expect 0 "upload --force loads it" $B upload gdu "$TMP/sat.img" --force
expect 0 "... maybe for anything now" $B test gdu zz1 zz2 zz3
# over capacity (1.4x) but well under the guard: loads, and says so
$B create gdo blocked --items 100 --fpr 0.01 --key-type str
seq 1 140 | sed 's/^/o/' | $B -q add gdo -file -
$B export gdo -o "$TMP/over.img"
expect 0 "upload of an image over its capacity" $B upload gdu "$TMP/over.img"
$B save gdo | sed 's/^filter gdo /filter gdoc /' > "$TMP/over.save"
expect 0 "restore of a save over its capacity (a commit)" $B restore -file "$TMP/over.save"
$B save gdsat | sed 's/^filter gdsat /filter gdrs /' > "$TMP/sat.save"
expect 3 "restore of a saturated save is refused" $B restore -file "$TMP/sat.save"
like "... names the line and filter, and why" "$err" 'line [0-9]+: filter gdrs: refused: saturated, fill 100%, est. FPR 100%'
expect 3 "... nothing restored" $B info gdrs
expect 3 "restore -check refuses it too" $B restore -check -file "$TMP/sat.save"
expect 2 "restore --max-fpr 2: usage" $B restore --max-fpr 2 -file "$TMP/sat.save"
expect 0 "restore --max-fpr 100% loads it" $B restore --max-fpr 100% -file "$TMP/sat.save"
$B flush gdu
more2() { [ "$(fl2)" -gt 1 ]; }
wait_for "... (the monitor saw all of it)" more2
kill $mon; wait $mon 2> /dev/null
like "the kernel's refused event (monitor)" "$(cat "$TMP/mon2")" '"event":"refused","name":"gdu"'
like "an upload over capacity raises over-capacity" "$(cat "$TMP/mon2")" '"event":"over-capacity","name":"gdu"'
like "so does a commit (restore)" "$(cat "$TMP/mon2")" '"event":"over-capacity","name":"gdoc"'
like "the kernel log says it refused" "$(dmesg | tail -n 200)" "kbloom: netns [0-9]+: filter gdu refused a saturated payload"
NS=kbgd
ip netns del $NS 2> /dev/null
if ip netns add $NS 2> /dev/null; then
	expect 3 "sync of a saturated save is refused" ip netns exec $NS $B sync -file "$TMP/sat.save"
	like "... says why" "$err" 'filter gdrs: refused: saturated'
	check "... nothing created" test -z "$(ip netns exec $NS $B list -t)"
	expect 0 "sync --force loads it" ip netns exec $NS $B sync --force -file "$TMP/sat.save"
	expect 0 "... maybe for anything" ip netns exec $NS $B test gdrs zz1 zz2
	ip netns del $NS
fi

# ---- net filters: the FPR is per lookup of every prefix length held ----
expect 2 "--prefixes is for net key types" $B create gdp blocked --items 1000 --fpr 0.01 --key-type str --prefixes 3
like "... says so" "$err" '--prefixes is for the net key types'
expect 2 "--prefixes 0 is refused" $B create gdp blocked --items 1000 --key-type net4 --prefixes 0
expect 2 "--prefixes over 129 is refused" $B create gdp blocked --items 1000 --key-type net4 --prefixes 130
expect 2 "--prefixes with --bits-per-key is refused" $B create gdp blocked --items 1000 --bits-per-key 10 --key-type net4 --prefixes 3
check "... nothing created" test -z "$($B list -t | grep '^gdp$')"
# 950 hosts in a filter for 1000 at 1% (seeded: the same bits every run)
# estimate 0.7% per lookup; one /24 makes a lookup two probes: 1.4%
$B create gdp blocked --items 1000 --fpr 0.01 --key-type net4 --seed 7
for i in $(seq 0 949); do echo "10.0.$((i / 250)).$((i % 250 + 1))"; done > "$TMP/h950"
expect 0 "950 hosts: within capacity" $B add gdp -file "$TMP/h950"
check "... no warning" test -z "$err"
expect 0 "info -j" $B info -j gdp
json_check "one prefix length, under the FPR asked for" "$out" 'j["prefixes"]==1 and 0.005<j["est_fpr"]<0.0105 and j["over_capacity"] is False'
$B monitor -j > "$TMP/monp" 2>&1 &
monp=$!
pflushes() { grep -c '"event":"flushed","name":"gdp3"' "$TMP/monp"; }
$B create gdp3 blocked --items 10 --key-type str
pflushed() { $B flush gdp3 && [ "$(pflushes)" -gt 0 ]; }
wait_for "the monitor listens" pflushed
expect 0 "a /24: a new prefix length" $B add gdp 192.0.2.0/24
like "warns: over its FPR per lookup of 2 prefix lengths" "$err" '^bfctl: warning: gdp is over capacity: 951 keys added, .* estimated false positive rate 0.01[0-9]* per lookup of 2 prefix lengths \(configured 0.01\)'
n0=$(pflushes)
$B flush gdp3
pmore() { [ "$(pflushes)" -gt "$n0" ]; }
wait_for "... the monitor has seen the add" pmore
kill $monp; wait $monp 2> /dev/null
like "the kernel raises over-capacity for it" "$(cat "$TMP/monp")" '"event":"over-capacity","name":"gdp"'
expect 0 "info -j" $B info -j gdp
json_check "two prefix lengths, estimated per lookup" "$out" 'j["prefixes"]==2 and 0.0105<j["est_fpr"]<0.02 and j["over_capacity"] is True and j["est_items"]<1000'
expect 0 "info names the prefix lengths per lookup" $B info gdp
like "... in text" "$out" 'prefix lengths per lookup: 2'
# sized for the lengths: --prefixes, and restore from its add lines
expect 0 "create --prefixes 3" $B create gdpl blocked --items 1000 --fpr 0.01 --key-type net4 --prefixes 3
expect 0 "info -j" $B info -j gdpl
json_check "bigger than for one length" "$out" 'j["m"]>10240 and j["prefixes"]==0'
printf 'create gdpr blocked --items 1000 --fpr 0.01 --key-type net4 --seed 7\nadd gdpr 10.9.0.0/16\nadd gdpr 10.8.1.0/24\nadd gdpr 10.8.2.3\n' > "$TMP/p3.save"
expect 0 "restore a net filter of three prefix lengths" $B restore -file "$TMP/p3.save"
expect 0 "info -j" $B info -j gdpr
json_check "sized for the three lengths its keys hold" "$out" 'j["prefixes"]==3 and j["expected_fpr"]<=0.01 and j["m"]>10240'
m3=$(printf '%s' "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["m"])')
m0=$($B info -j gdpl | python3 -c 'import json,sys; print(json.load(sys.stdin)["m"])')
check "... as --prefixes 3 sizes it" test "$m3" = "$m0"
printf '10.9.0.0/16\n10.8.1.0/24\n10.8.2.3\n' > "$TMP/k3"
expect 0 "rebuild gdp from a file of three prefix lengths" $B rebuild gdp -file "$TMP/k3" --force
expect 0 "info -j" $B info -j gdp
json_check "sized for the file's three lengths, within its FPR" "$out" "j['prefixes']==3 and j['m']==$m0 and j['over_capacity'] is False"
# a lookup of an address is one lookup, however many lengths it probes
l0=$($B info -j gdpr | python3 -c 'import json,sys; print(json.load(sys.stdin)["lookups"])')
expect 0 "test 3 addresses inside its prefixes" $B test gdpr 10.9.7.7 10.8.1.200 10.8.2.3
expect 1 "test 17 outside" $B test gdpr $(seq 1 17 | sed 's/^/172.16.0./')
expect 0 "info -j" $B info -j gdpr
json_check "20 tests: 20 lookups, 3 maybe" "$out" "j['lookups']==$l0+20 and j['hits']==3"

cleanup
done_testing
