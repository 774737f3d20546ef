#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bfctl sync -file F: the kernel's filters become the file's, changing only
# what differs (a kept filter keeps its generation), each filter replaced
# atomically (a DROP rule on it never stops dropping); a filter the file
# does not name left alone and listed, destroyed only with --prune (and
# then printed even with -q); -check and -j; and every refusal (a destroy of a filter in use, an empty file, a key type
# change, a replacement dropping most keys, a bad line) changes nothing.
. "$(dirname "$0")/lib.sh"
B=$BFCTL
XT=$(dirname "$B")/xtables
export XTABLES_LIBDIR=$XT:/usr/lib/x86_64-linux-gnu/xtables
names="sa sb sc sd sx sy sip sref"
cleanup() { for f in $names; do $B destroy $f 2> /dev/null; done; }
cleanup
field() { $B info -j "$1" | python3 -c "import json,sys; print(json.load(sys.stdin)['$2'])"; }
gens() { for f in "$@"; do printf '%s=%s ' "$f" "$(field "$f" generation)"; done; }

seq 1 3000 | sed 's/^/key-/' > "$TMP/str"
seq 1 500 | awk '{ printf "10.%d.%d.0/24\n", int($1 / 256), $1 % 256 }' > "$TMP/nets"
$B create sa blocked --items 3000 --fpr 0.01 --key-type str
$B create sb blocked --items 500 --fpr 0.01 --key-type net
$B create sc counting --items 3000 --fpr 0.01 --key-type str
$B add sa -file "$TMP/str"
$B add sb -file "$TMP/nets"
$B add sc -file "$TMP/str"
$B del sc key-1 > /dev/null
for f in sa sb sc; do $B export $f -o "$TMP/$f.img"; done
expect 0 "save the three filters" $B save -file "$TMP/base.save"

# ---- nothing differs: nothing changes ----
g0=$(gens sa sb sc)
expect 0 "sync with the kernel's own save" $B sync -file "$TMP/base.save"
check "every filter is unchanged" test "$out" = "$(printf 'unchanged sa\nunchanged sb\nunchanged sc')"
check "... and not replaced (same generations)" test "$(gens sa sb sc)" = "$g0"

# ---- one filter differs, one is extra, one is missing ----
# (a key sa answers "absent" for: adding it must change sa)
extra=$(absent_key sa extra-key)
check "a key sa does not hold" test -n "$extra"
$B add sa "$extra"
$B create sx blocked --items 10 --fpr 0.01
$B destroy sb
g0=$(gens sc)
expect 0 "sync -check --prune" $B sync -check --prune -file "$TMP/base.save"
like "-check says what it would do" "$out" 'would destroy sx'
like "... replace the changed filter" "$out" 'would replace sa'
like "... create the missing one" "$out" 'would create sb'
like "... keep the equal one" "$out" 'would keep sc'
expect 0 "-check changed nothing: sx is still there" $B info sx
expect 3 "... sb is still missing" $B info sb
expect 0 "... sa still has its extra key" $B test sa "$extra"
expect 0 "sync -j" $B -j sync -file "$TMP/base.save"
json_ok "its output is JSON" "$out"
json_check "it lists each action" "$out" \
	'j["applied"] and j["changed"] == 2 and {f["name"]: f["action"] for f in j["filters"]} == {"sx": "leave", "sa": "replace", "sb": "create", "sc": "keep"}'
expect 0 "without --prune the filter the file does not name is still there" $B info sx
expect 0 "sync -q --prune" $B sync -q --prune -file "$TMP/base.save"
check "... prints what it destroyed, and only that" test "$out" = "destroyed sx"
expect 3 "the extra filter is gone" $B info sx
like "... no such filter" "$err" "no such filter"
for f in sa sb sc; do
	$B export $f -o "$TMP/$f.now"
	check "$f exports byte-identical to the save's" cmp -s "$TMP/$f.img" "$TMP/$f.now"
done
check "the equal filter kept its generation" test "$(gens sc)" = "$g0"

# ---- create and add lines: seeded like the kernel's filter ----
{
	echo "create sd blocked --items 1000 --fpr 0.01 --key-type str"
	seq 1 800 | sed 's/^/add sd d-/'
} > "$TMP/lines"
cat "$TMP/base.save" "$TMP/lines" > "$TMP/lines.save"
expect 0 "a file of create and add lines creates the filter" $B sync -file "$TMP/lines.save"
like "... created" "$out" 'created sd'
# (the kernel counts the keys that were new: a false positive is not)
check "... with its keys" test "$(field sd count)" -ge 780
g0=$(gens sd)
expect 0 "the same file again" $B sync -file "$TMP/lines.save"
like "... keeps it (its seed is taken from the kernel's filter)" "$out" 'unchanged sd'
check "... same generation" test "$(gens sd)" = "$g0"
new=$(absent_key sd d-new)
check "a key sd does not hold" test -n "$new"
echo "add sd $new" >> "$TMP/lines.save"
expect 0 "one more add line" $B sync -file "$TMP/lines.save"
like "... replaces it" "$out" 'replaced sd'
expect 0 "... the new key is in" $B test sd "$new"
expect 0 "... the old keys too" $B test sd d-1 d-400 d-800

# ---- refusals change nothing ----
g0=$(gens sa sb sc sd)
$B create sref blocked --items 10 --fpr 0.01
if echo "get sref" > /sys/module/kb_consumer/parameters/cmd 2> /dev/null; then
	expect 3 "a filter in use that the file lacks is not destroyed" $B sync --prune -file "$TMP/base.save"
	like "... says why" "$err" 'filter sref is not in the file and is in use \(1 references: iptables rules or other consumers\): sync would destroy it; nothing changed'
	expect 0 "... sref is still there" $B info sref
	check "... nor was anything else changed" test "$(gens sa sb sc sd)" = "$g0"
	echo put > /sys/module/kb_consumer/parameters/cmd
else
	diag "no kb_consumer module: the in-use refusal is tested with iptables only"
fi
$B destroy sref

: > "$TMP/empty"
expect 3 "an empty file is refused with --prune" $B sync --prune -file "$TMP/empty"
like "... it would destroy everything" "$err" 'defines no filter: sync would destroy all [0-9]+ filters; nothing changed \(--force to do it\)'
check "... nothing changed" test "$(gens sa sb sc sd)" = "$g0"
expect 0 "without --prune an empty file leaves every filter" $B sync -file "$TMP/empty"
like "... and lists them" "$out" '^left sd \(not in the file; --prune destroys it\)$'
check "... nothing changed" test "$(gens sa sb sc sd)" = "$g0"

# (a bytes filter's block renamed sa: its crc32c covers the key type)
$B create sy blocked --items 3000 --fpr 0.01 --key-type bytes
$B save sy | sed 's/^filter sy /filter sa /' > "$TMP/kt.save"
$B destroy sy
expect 3 "a key type that would change is refused" $B sync -file "$TMP/kt.save"
like "... names both types" "$err" 'filter sa holds str keys and the file.s has bytes keys'
check "... nothing changed" test "$(gens sa sb sc sd)" = "$g0"

{
	cat "$TMP/base.save"
	echo "create sd blocked --items 1000 --fpr 0.01 --key-type str"
	echo "add sd d-1"
} > "$TMP/shrink.save"
expect 3 "a replacement dropping most of a filter's keys is refused" $B sync -file "$TMP/shrink.save"
like "... says how many" "$err" 'the file has 1 keys and the filter holds [0-9]+'
check "... nothing changed" test "$(gens sa sb sc sd)" = "$g0"
expect 0 "--force replaces it" $B sync --force -file "$TMP/shrink.save"
check "... to the one key" test "$(field sd count)" = 1

printf 'create sy blocked --items 10 --fpr 0.01 --key-type str\nadd sy k1\nbogus line\n' > "$TMP/bad.save"
expect 2 "a bad line is refused" $B sync -file "$TMP/bad.save"
like "... naming it" "$err" 'line 3: expected'
expect 3 "... nothing was created" $B info sy
printf 'add sa k1\n' > "$TMP/undef.save"
expect 2 "an add to a filter the file does not define" $B sync -file "$TMP/undef.save"
like "... says so" "$err" 'line 1: filter sa is not defined above'
expect 2 "an unknown option" $B sync -exist -file "$TMP/base.save"

# ---- a DROP rule on a filter sync replaces never stops dropping ----
# (in a namespace of its own: its filters, its rules, its loopback)
if ip netns add kbsync 2> /dev/null && [ -e "$XT/libxt_bloom.so" ] &&
   ip netns exec kbsync iptables -L INPUT -n > /dev/null 2>&1; then
	N="ip netns exec kbsync"
	$N ip link set lo up
	$N $B create sip blocked --items 100 --fpr 0.001 --key-type ipv4
	$N $B add sip 127.0.0.2
	$N $B save sip -file "$TMP/ip1.save"
	$N $B add sip 127.0.0.3
	$N $B save sip -file "$TMP/ip2.save"
	$N $B sync -file "$TMP/ip1.save" > /dev/null
	$N iptables -A INPUT -d 127.0.0.0/8 -m bloom --bloom-name sip --bloom-dir dst -j DROP
	expect 1 "127.0.0.2 is dropped" $N ping -c1 -W1 127.0.0.2
	expect 0 "127.0.0.3 is not, yet" $N ping -c1 -W1 127.0.0.3
	pinger() { while [ ! -e "$TMP/stop" ]; do
		$N ping -c1 -W1 127.0.0.2 > /dev/null 2>&1 && echo leak >> "$TMP/leak"
	done; }
	pinger &
	pp=$!
	for i in 1 2 3 4 5; do
		$N $B sync -q -file "$TMP/ip2.save" && $N $B sync -q -file "$TMP/ip1.save"
	done
	expect 0 "sync to the larger blocklist under the rule" $N $B sync -file "$TMP/ip2.save"
	like "... replaced it" "$out" 'replaced sip'
	touch "$TMP/stop"
	wait $pp
	check "no ping of 127.0.0.2 got through while sync replaced the filter" test ! -e "$TMP/leak"
	expect 1 "127.0.0.3 is dropped after the sync" $N ping -c1 -W1 127.0.0.3
	printf '# bfctl save 1\n# bfctl save end\n' > "$TMP/none.save"
	expect 3 "the filter of a rule is not destroyed by a sync without it" $N $B sync --prune --force -file "$TMP/none.save"
	like "... says why" "$err" 'filter sip is not in the file and is in use \([0-9]+ references'
	expect 0 "... it is still there" $N $B info sip
	$N iptables -F INPUT
	ip netns del kbsync
else
	ip netns del kbsync 2> /dev/null
	diag "no iptables with libxt_bloom here: the rule test is skipped"
fi

expect 0 "--prune --force with an empty file destroys every filter" $B sync --prune --force -file "$TMP/empty"
expect 0 "... list is empty" $B list -t
check "... nothing listed" test -z "$out"
cleanup
done_testing
