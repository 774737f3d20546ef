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
like "save ends with its end line" "$(tail -1 "$TMP/one.save")" '^# bfctl save end$'
expect 3 "save of a filter that does not exist" bash -c "$B save rs_nosuch > $TMP/failed.save"
expect 2 "its output does not restore" $B restore -check -file "$TMP/failed.save"
like "restore says the save is cut short" "$err" 'cut short'
like "filter line has every parameter" "$(sed -n 2p "$TMP/one.save")" '^filter rs_blk kind=blocked key-type=str hash=xxh64 m=[0-9]+ k=[0-9]+ items=3000 fpr-ppb=10000000 seed=0x[0-9a-f]+,0x0 plen4=0x0 plen6=0x0,0x0,0x0 count=[0-9]+ bytes=[0-9]+ crc32c=0x[0-9a-f]{8}$'
# save -file goes where export -o goes (kbu_out): a symlink is followed,
# an existing file keeps its mode, a device node stays a device node
ln -s one.copy "$TMP/one.link"
echo old > "$TMP/one.copy"
chmod 644 "$TMP/one.copy"
expect 0 "save -file through a symlink" $B save rs_blk -file "$TMP/one.link"
check "the symlink is still a symlink" test -L "$TMP/one.link"
check "its target holds the save" cmp -s "$TMP/one.copy" "$TMP/one.save"
check "the target kept its mode 644" test "$(stat -c %a "$TMP/one.copy")" = 644
# ... but not a link another user made in a sticky world-writable
# directory (/tmp), unless the directory's owner made it: the kernel's
# fs.protected_symlinks rule, whatever the sysctl says
N="setpriv --reuid=65534 --regid=65534 --clear-groups"
sticky=$(mktemp -d /tmp/bfctl-sticky.XXXXXX)
chmod 1777 "$sticky"
echo motd > "$TMP/motd"
$N ln -s "$TMP/motd" "$sticky/kb.save"
$N ln -s "$TMP/motd" "$sticky/kb.img"
$N mkdir "$sticky/d"
$N ln -s "$TMP" "$sticky/dir"
expect 3 "save -file through nobody's symlink in a sticky dir is refused" \
	$B save rs_blk -file "$sticky/kb.save"
like "... with EACCES, naming the path" "$err" "$sticky/kb.save: Permission denied"
expect 3 "export -o through it is refused" $B export rs_blk -o "$sticky/kb.img"
expect 3 "a path through nobody's directory symlink is refused" \
	$B save rs_blk -file "$sticky/dir/motd"
check "the link's target is untouched" test "$(cat "$TMP/motd")" = motd
check "no file was made beside it" test -z "$(ls "$TMP" | grep '^motd.tmp')"
chown 65534 "$sticky/d" && chmod 1777 "$sticky/d"
$N ln -s "$TMP/motd" "$sticky/d/own.save"
expect 0 "the sticky dir's owner's own link is followed" $B save rs_blk -file "$sticky/d/own.save"
check "... into its target" grep -q '^# bfctl save end' "$TMP/motd"
ln -s "$TMP/one.copy" "$sticky/root.save"
expect 0 "root's own link in the sticky dir is followed" $B save rs_blk -file "$sticky/root.save"
rm -rf "$sticky"
mknod "$TMP/null" c 1 3
expect 0 "save -file to a device node" $B save rs_blk -file "$TMP/null"
check "the device node is still a device" test -c "$TMP/null"
expect 0 "export -o to a device node" $B export rs_blk -o "$TMP/null"
check "the device node is still a device after export" test -c "$TMP/null"
expect 0 "save of several filters to stdout" bash -c "for f in $names; do $B save \$f | sed 1d; done > $TMP/all.body"
{ echo '# bfctl save 1'; cat "$TMP/all.body"; } > "$TMP/all.save"
check "an empty 1M-key filter saves small (zero runs)" test "$(grep -A3 '^filter rs_empty' "$TMP/all.save" | wc -c)" -lt 2000
if have_netlink; then
	expect 0 "save without NAME saves every filter" $B save -file "$TMP/every.save"
	check "a save file is 0600 (it holds seeds)" test "$(stat -c %a "$TMP/every.save")" = 600
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
expect 2 "restore with a bad payload line" $B restore -file "$TMP/bad4.save"
like "error names line 4" "$err" 'line 4: bad base64'
expect 3 "no partial filter after a bad line" $B info rs_blk
# a bad header in the last filter: the earlier ones must not appear either
last=$(grep -n '^filter rs_empty' "$TMP/all.save" | cut -d: -f1)
sed "${last}s/kind=blocked/kind=bogus/" "$TMP/all.save" > "$TMP/badlast.save"
expect 2 "restore with a bad last filter line" $B restore -file "$TMP/badlast.save"
like "error names the last filter's line" "$err" "line $last: bad value for 'kind'"
for f in $names; do
	expect 3 "no filter $f after the failed restore" $B info $f
done
# one changed payload character: the CRC catches it
pl=$(awk '/^filter rs_blk/ { f = 1; next } f && !/^\*/ { print NR; exit }' "$TMP/all.save")
awk -v n="$pl" 'NR == n { c = substr($0, 1, 1); $0 = (c == "A" ? "B" : "A") substr($0, 2) } { print }' "$TMP/all.save" > "$TMP/crc.save"
expect 2 "restore of a payload that does not match its crc32c" $B restore -file "$TMP/crc.save"
like "crc error" "$err" 'crc32c does not match'
expect 3 "still no partial filter" $B info rs_blk
printf '# bfctl save 1\nfilter rs_other kind=blocked\nend\n' > "$TMP/short.save"
expect 2 "filter line missing fields" $B restore -file "$TMP/short.save"
like "missing fields named with line 2" "$err" 'line 2: filter line needs'
printf 'garbage\n' > "$TMP/garbage.save"
expect 2 "garbage input" $B restore -file "$TMP/garbage.save"
like "garbage named with line 1" "$err" "line 1: expected 'filter NAME"
printf '# bfctl save 1\nfilter rs_big kind=classic key-type=bytes hash=leveldb m=274877906944 k=3 bytes=34359738369 crc32c=0\n*34359738369\nend\n' > "$TMP/huge.save"
expect 2 "a filter declaring 32 GiB is refused before any allocation" $B restore -file "$TMP/huge.save"
like "over max_filter_bytes, line 2" "$err" 'line 2: filter rs_big: bytes=34359738369 is over max_filter_bytes'
# filters that fit one by one but not together: refused before their data
$B create rs_b1 blocked --bits 16000000 --hashes 7
$B save rs_b1 > "$TMP/b1.save"
$B destroy rs_b1
cp "$TMP/b1.save" "$TMP/two.save"
printf 'filter rs_b2 kind=blocked key-type=bytes hash=xxh64 m=16000000 k=7 bytes=2000000 crc32c=0\n*2000000\nend\n' >> "$TMP/two.save"
nb=/sys/module/kbloom/parameters/max_netns_bytes
old_nb=$(cat $nb)
echo 3000000 > $nb
expect 0 "one 2 MB filter fits a 3 MB max_netns_bytes" $B restore -check -file "$TMP/b1.save"
expect 2 "filters totalling over max_netns_bytes are refused" $B restore -check -file "$TMP/two.save"
like "over max_netns_bytes, named with its line" "$err" 'line [0-9]+: filter rs_b2: bytes=2000000 makes the file.s filters total over max_netns_bytes'
echo "$old_nb" > $nb

head -3 "$TMP/one.save" > "$TMP/trunc.save"
expect 2 "truncated input (no end line)" $B restore -file "$TMP/trunc.save"
expect 3 "no partial filter after truncated input" $B info rs_blk
expect 3 "restore of a missing file" $B restore -file "$TMP/none.save"
expect 2 "restore with a bad option" $B restore -bogus
expect 3 "save of a missing filter" $B save nosuch

# ---- --on-bad-payload: every filter is created, the bad ones stand in ----
# (kbloom.service's restore at boot: firewall rules name these filters)
cleanup
# rs_blk's first payload line changed (crc.save, above), and rs_net's
pn=$(awk '/^filter rs_net/ { f = 1; next } f && !/^\*/ { print NR; exit }' "$TMP/crc.save")
awk -v n="$pn" 'NR == n { c = substr($0, 1, 1); $0 = (c == "A" ? "B" : "A") substr($0, 2) } { print }' "$TMP/crc.save" > "$TMP/bad2.save"
bl=$(grep -n '^filter rs_blk' "$TMP/all.save" | cut -d: -f1)
# (a CRC is checked at the block's end line)
be=$(awk -v b="$bl" 'NR > b && $0 == "end" { print NR; exit }' "$TMP/bad2.save")
expect 3 "--on-bad-payload=empty: exit 3" $B restore --on-bad-payload=empty -file "$TMP/bad2.save"
like "names the bad filter, its line and the bad line" "$err" \
	"filter rs_blk \(line $bl\) not restored: line $be: filter rs_blk: crc32c does not match the data; created empty"
like "the summary names both bad filters" "$err" 'not restored, created empty: rs_blk rs_net$'
for f in $names; do
	case $f in rs_blk|rs_net) continue ;; esac
	$B export $f -o "$TMP/$f.after"
	check "the good filter $f restored byte-identically" cmp -s "$TMP/$f.before" "$TMP/$f.after"
done
expect 0 "the bad filter exists" $B info rs_blk
json_check "... empty, with the file's m" "$($B -j info rs_blk)" \
	"j['bits_set'] == 0 and j['count'] == 0 and j['m'] == $(sed -n "${bl}s/.* m=\([0-9]*\) .*/\1/p" "$TMP/all.save")"
expect 1 "... answering absent" $B test -q rs_blk key-1
# with -exist, a filter in the kernel is kept rather than made empty
cleanup
$B restore -file "$TMP/all.save"
expect 3 "-exist --on-bad-payload over good filters: exit 3" \
	$B restore -exist --on-bad-payload=empty -file "$TMP/bad2.save"
like "... says the running filter is kept" "$err" 'not restored, the filter in the kernel kept: rs_blk rs_net'
$B export rs_blk -o "$TMP/rs_blk.kept"
check "... and it is as it was" cmp -s "$TMP/rs_blk.before" "$TMP/rs_blk.kept"
cleanup
expect 3 "--on-bad-payload=closed: exit 3" $B restore --on-bad-payload=closed -file "$TMP/bad2.save"
like "the summary says closed" "$err" 'not restored, created closed \(every key answers maybe\): rs_blk rs_net'
expect 0 "a closed str filter answers maybe for 500 keys never added" \
	$B test -q rs_blk $(seq -f never-%g 1 500)
expect 0 "a closed net filter answers maybe for addresses and prefixes never added" \
	$B test -q rs_net 203.0.113.9 198.51.100.0/24 0.0.0.0/0 2001:db8:ffff::1 ::/0
expect 0 "the good filters still answer as saved" $B test -q rs_cl key-1 key-3000
expect 0 "a good save restores over the stand-ins with -exist" $B restore -exist -file "$TMP/all.save"
$B export rs_blk -o "$TMP/rs_blk.fixed"
check "... byte-identically" cmp -s "$TMP/rs_blk.before" "$TMP/rs_blk.fixed"
# a save cut inside its last block: that filter stands in, the rest load
cleanup
last=$(grep -n '^filter rs_empty' "$TMP/all.save" | cut -d: -f1)
head -n "$((last + 1))" "$TMP/all.save" > "$TMP/cut.save"
expect 3 "a save cut inside a block: exit 3" $B restore --on-bad-payload=empty -file "$TMP/cut.save"
like "... names the cut filter" "$err" "filter rs_empty \(line $last\) not restored: .*missing 'end' line"
expect 0 "... the cut filter exists" $B info rs_empty
expect 0 "... and the others loaded" $B test -q rs_net 10.0.5.0/24
cleanup
# a bad filter line: after its key-type a stand-in, before it none
sed "${bl}s/ m=[0-9]* / m=bogus /" "$TMP/all.save" > "$TMP/badline.save"
expect 3 "a bad filter line after key-type=" $B restore --on-bad-payload=closed -file "$TMP/badline.save"
like "... names its line" "$err" "line $bl: bad value for 'm'"
expect 0 "... a closed stand-in of its key type" $B test -q rs_blk $(seq -f never-%g 1 50)
cleanup
expect 2 "--on-bad-payload=bogus is a usage error" $B restore --on-bad-payload=bogus -file "$TMP/all.save"
expect 2 "without --on-bad-payload a bad block still loads nothing" $B restore -file "$TMP/bad2.save"
expect 3 "... no filter" $B info rs_cl

# ---- ipset-style create and add lines ----
ca="rc_ip rc_net rc_str rc_cnt rc_img"
cleanup_ca() { for f in $ca; do $B destroy $f 2> /dev/null; done; }
cleanup_ca
seq 1 5000 | awk '{ printf "198.%d.%d.%d\n", 18 + int($1 / 65536) % 2, int($1 / 256) % 256, $1 % 256 }' > "$TMP/ips"
{
	echo '# a generated blocklist'
	echo 'create rc_ip blocked --items 5000 --fpr 0.001 --key-type ipv4'
	echo 'create rc_net blocked --bits-per-key 16 --items 2000 --key-type net'
	echo 'create rc_str classic --bits 65536 --hashes 5 --key-type str'
	echo 'create rc_cnt counting --items 3000 --fpr 0.01 --key-type str --hash siphash --seed 7,9'
	sed 's/^/add rc_ip /' "$TMP/ips"
	echo
	sed 's/^/add rc_net /' "$TMP/nets"
	echo 'add rc_net 2001:db8::/32'
	sed 's/^/add rc_str /' "$TMP/str" | head -1000
	sed 's/^/add rc_cnt /' "$TMP/str"
	echo 'add rc_str two words'
} > "$TMP/ca.restore"
expect 0 "restore -check of create + add lines changes nothing" $B restore -check -file "$TMP/ca.restore"
like "-check counts the keys" "$out" '4 filters, 11002 keys: ok'
expect 3 "-check left no filter" $B info rc_ip
expect 0 "restore of create + add lines" $B restore -file "$TMP/ca.restore"
expect 0 "every IPv4 key tests present" $B test -q rc_ip $(cat "$TMP/ips")
expect 0 "every net key tests present" $B test -q rc_net $(cat "$TMP/nets") 2001:db8::/32
expect 0 "every str key tests present" $B test -q rc_str $(head -1000 "$TMP/str") "two words"
expect 0 "every counting key tests present" $B test -q rc_cnt $(cat "$TMP/str")
# (one of five keys not in the file: all five false positives at 0.1% is
# never)
expect 1 "a key not in the file tests absent" $B test -q rc_ip 192.0.2.77 192.0.2.78 192.0.2.79 192.0.2.80 192.0.2.81
info=$($B info rc_ip)
like "the filter keeps its configured sizing" "$info" 'configured items: 5000'
# count holds distinct keys: a key that already tested present (a false
# positive at 0.1%) is not counted, so a few of 5000 may be missing
cnt=$(printf '%s\n' "$info" | sed -n 's/^keys added (count): //p')
check "all keys went in (count $cnt of 5000)" test "${cnt:-0}" -ge 4980 -a "${cnt:-0}" -le 5000
like "the seed of the create line is used" "$($B save rc_cnt | sed -n 2p)" 'hash=siphash .* seed=0x7,0x9 '
like "classic: m and k of the create line" "$($B save rc_str | sed -n 2p)" 'kind=classic .* m=65536 k=5 '

# save of a restored filter restores byte-identically
for f in $ca; do [ $f = rc_img ] || $B export $f -o "$TMP/$f.ca1"; done
expect 0 "save of the restored filters" bash -c "for f in rc_ip rc_net rc_str rc_cnt; do $B save \$f | sed 1d; done > $TMP/ca.save"
cleanup_ca
expect 0 "restore of their save" $B restore -file "$TMP/ca.save"
for f in rc_ip rc_net rc_str rc_cnt; do
	$B export $f -o "$TMP/$f.ca2"
	check "create/add -> save -> restore of $f is byte-identical" cmp -s "$TMP/$f.ca1" "$TMP/$f.ca2"
done

# -exist: parameters must match; the filter keeps its keys, adds go in
expect 3 "create of an existing name without -exist" $B restore -file "$TMP/ca.restore"
like "names line 2 and the filter" "$err" 'line 2: filter rc_ip exists'
# (keys rc_ip answers absent for: the count must grow, the refused add
# must not be there)
ip1=$(absent_key rc_ip 192.0.2 .)
ip2=$(absent_key rc_ip 192.0.3 .)
check "two keys rc_ip does not hold" test -n "$ip1" -a -n "$ip2"
printf 'create rc_ip blocked --items 5000 --fpr 0.001 --key-type ipv4\nadd rc_ip %s\n' "$ip1" > "$TMP/same.restore"
cnt0=$($B info rc_ip | awk '/count/ { print $NF }')
expect 0 "-exist with the same parameters" $B restore -exist -file "$TMP/same.restore"
expect 0 "-exist: the new key is in" $B test -q rc_ip "$ip1"
expect 0 "-exist: the old keys stay" $B test -q rc_ip $(head -100 "$TMP/ips")
check "-exist: count grew by one" test "$($B info rc_ip | awk '/count/ { print $NF }')" = $((cnt0 + 1))
printf 'create rc_ip blocked --items 9000 --fpr 0.001 --key-type ipv4\nadd rc_ip %s\n' "$ip2" > "$TMP/other.restore"
expect 3 "-exist with other parameters" $B restore -exist -file "$TMP/other.restore"
like "says the parameters differ, line 1" "$err" 'line 1: filter rc_ip exists with other parameters'
expect 1 "nothing was added" $B test -q rc_ip "$ip2"
printf 'create rc_ip blocked --items 5000 --fpr 0.001 --key-type ipv4 --seed 1\n' > "$TMP/seed.restore"
expect 3 "-exist with another --seed" $B restore -exist -file "$TMP/seed.restore"
# -exist across versions: a filter made for the same --items/--fpr by a
# module that sized it otherwise (an image with another m and k and that
# request in its header) is the one the line asks for; other items or
# another FPR are not
seq 1 100 | sed 's/^/old-/' > "$TMP/oldkeys"
$B image build --kind blocked --bits 28672 --hashes 6 --items 3000 \
	--key-type str -file "$TMP/oldkeys" -o "$TMP/old.img" > /dev/null
python3 - "$TMP/old.img" <<'PY'	# fpr_ppb = 1% in the header, CRC32C again
import struct, sys
def crc32c(b):
    c = 0xffffffff
    for x in b:
        c ^= x
        for _ in range(8):
            c = (c >> 1) ^ (0x82f63b78 & -(c & 1))
    return c ^ 0xffffffff
d = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<I", d, 40, 10000000)
struct.pack_into("<I", d, len(d) - 4, crc32c(d[:-4]))
open(sys.argv[1], "wb").write(d)
PY
expect 0 "upload of a filter sized by other rules" $B upload rc_old "$TMP/old.img"
like "it has the old m and the request" \
	"$($B info rc_old | grep -e '^m:' -e '^configured fpr:' | tr '\n' ' ')" \
	'^m: 28672 configured fpr: 0.01 $'
args="blocked --items 3000 --fpr 0.01 --key-type str"
expect 0 "create -exist with the same --items/--fpr" $B create rc_old $args -exist
printf 'create rc_old %s\nadd rc_old new-key\n' "$args" > "$TMP/old.restore"
expect 0 "restore -exist of the same create line" $B restore -exist -file "$TMP/old.restore"
expect 0 "the filter kept its keys" $B test -q rc_old old-1 old-100 new-key
like "and its size" "$($B info rc_old | grep '^m:')" '^m: 28672$'
expect 3 "create -exist with another --fpr" $B create rc_old blocked --items 3000 --fpr 0.02 --key-type str -exist
like "says the parameters differ" "$err" 'exists with other parameters'
expect 3 "create -exist with other --items" $B create rc_old blocked --items 3001 --fpr 0.01 --key-type str -exist
$B destroy rc_old
printf 'add rc_ip 192.0.2.3\nadd rc_net 192.0.2.0/24\n' > "$TMP/live.restore"
expect 0 "add lines to filters already in the kernel" $B restore -file "$TMP/live.restore"
expect 0 "they are in" bash -c "$B test -q rc_ip 192.0.2.3 && $B test -q rc_net 192.0.2.0/24"

# bad lines: the line is named and nothing changes
$B export rc_ip -o "$TMP/rc_ip.before"
bad() {	# RC DESC PATTERN LINES...: the restore fails, rc_new not created
	local rc=$1 desc=$2 pat=$3
	shift 3
	printf '%s\n' "$@" > "$TMP/bad.restore"
	expect "$rc" "$desc" $B restore -file "$TMP/bad.restore"
	like "$desc: error names the line" "$err" "$pat"
	expect 3 "$desc: no filter created" $B info rc_new
	$B export rc_ip -o "$TMP/rc_ip.after"
	check "$desc: existing filter unchanged" cmp -s "$TMP/rc_ip.before" "$TMP/rc_ip.after"
}
bad 2 "bad key for the type" "line 4: key '10.0.0.300'" \
	'create rc_new blocked --items 10 --key-type ipv4' 'add rc_new 10.0.0.1' \
	'add rc_ip 192.0.2.50' 'add rc_new 10.0.0.300'
bad 2 "net key with host bits" "line 3: key '10.0.0.1/24'" \
	'create rc_new blocked --items 10 --key-type net4' 'add rc_ip 192.0.2.51' 'add rc_new 10.0.0.1/24'
bad 2 "unknown option" "line 2: unknown or incomplete option '--colour'" \
	'add rc_ip 192.0.2.52' 'create rc_new blocked --items 10 --colour red'
bad 2 "a verb option in a create line" "line 1: option '-exist' is not allowed" \
	'create rc_new blocked --items 10 -exist'
bad 2 "unknown kind" "line 1: unknown kind 'bogus'" 'create rc_new bogus'
bad 3 "add to an unknown filter" "line 3: filter rc_nosuch does not exist" \
	'create rc_new blocked --items 10' 'add rc_ip 192.0.2.53' 'add rc_nosuch 00ff'
bad 2 "create twice in one file" "line 3: filter rc_new already used on line 1" \
	'create rc_new blocked --items 10' 'add rc_ip 192.0.2.54' 'create rc_new blocked --items 10'
bad 3 "create of an existing name without -exist" "line 2: filter rc_ip exists" \
	'create rc_new blocked --items 10' 'create rc_ip blocked --items 10'
bad 2 "add without a key" "line 2: usage: add NAME KEY" 'create rc_new blocked --items 10' 'add rc_new'
bad 2 "unknown line" "line 2: expected 'filter NAME" 'create rc_new blocked --items 10' 'insert rc_new 1'
bad 2 "over max_filter_bytes" "line 1: filter rc_new: over max_filter_bytes \([0-9]+\): it needs 8.0 GiB" \
	'create rc_new blocked --bits 68719476736 --hashes 3'

# mixed with filter blocks from bfctl save
$B destroy rs_blk 2> /dev/null
cp "$TMP/one.save" "$TMP/blk.save"
# The add below must raise the count: take a key the saved filter does not
# already answer "maybe" for.
$B restore -file "$TMP/blk.save"
extra=$(absent_key rs_blk extra-key)
$B destroy rs_blk
check "a key the saved filter does not hold" test -n "$extra"
{
	cat "$TMP/blk.save"
	echo "add rs_blk $extra"
	echo 'create rc_img blocked --items 100 --key-type str'
	echo 'add rc_img img-key'
	sed 1d "$TMP/blk.save" | sed 's/^filter rs_blk/filter rs_other/'
	echo 'add rc_ip 192.0.2.99'
} > "$TMP/mixed.restore"
expect 0 "filter blocks mixed with create and add lines" $B restore -file "$TMP/mixed.restore"
expect 0 "add to a filter block of the file" $B test -q rs_blk "$extra"
expect 0 "the filter block's keys are there" $B test -q rs_other key-1 key-2000
expect 0 "the created filter" $B test -q rc_img img-key
expect 0 "add to a kernel filter" $B test -q rc_ip 192.0.2.99
like "the add counts in the filter block's filter" "$($B info rs_blk | grep count)" \
	"$(($(sed -n 's/.* count=\([0-9]*\) .*/\1/p' "$TMP/blk.save") + 1))"
{ echo 'add rs_other k'; cat "$TMP/blk.save" | sed 's/^filter rs_blk/filter rs_x/'; echo 'create rs_other blocked'; } > "$TMP/order.restore"
expect 2 "a create after adds to the kernel filter of that name" $B restore -exist -file "$TMP/order.restore"
like "names the create's line and the add's" "$err" "line $(wc -l < "$TMP/order.restore"): filter rs_other already used on line 1"
expect 3 "rs_x was not loaded" $B info rs_x
for f in $ca rs_other; do $B destroy $f 2> /dev/null; done

# ---- grants: shown by name, kept by save, restore and sync by name ----
U="setpriv --inh-caps=-all --ambient-caps=-all --bounding-set=-all"
grants() { $B info "$1" | grep -E '^(readers|writers):' | tr '\n' ' '; }
for f in rs_gr rs_gr2; do $B destroy $f 2> /dev/null; done
expect 0 "create --readers --writers" \
	$B create rs_gr blocked --items 100 --key-type str --readers daemon --writers 4242
check "info: readers by name, an unnamed group by number" \
	test "$(grants rs_gr)" = "readers: daemon writers: 4242 "
json_check "info -j: grants" "$($B -j info rs_gr)" \
	'j["readers"] == "daemon" and j["readers_gid"] == 1 and j["writers"] == "4242"'
json_check "list -j: grants" "$($B -j list)" \
	'[f for f in j["filters"] if f["name"] == "rs_gr"][0]["writers_gid"] == 4242'
like "list: grants at the end of the row" "$($B list)" '^rs_gr .* readers=daemon writers=4242$'
expect 0 "grant --writers changes only the writers" $B grant rs_gr --writers nogroup
check "readers kept" test "$(grants rs_gr)" = "readers: daemon writers: nogroup "
expect 2 "grant of a group this host lacks" $B grant rs_gr --readers kb-no-such-group
like "names the group" "$err" "no group 'kb-no-such-group'"
expect 2 "grant without a group" $B grant rs_gr
expect 2 "--none with a group" $B grant rs_gr --none --readers daemon
expect 3 "grant of a filter that does not exist" $B grant rs_nofilter --readers daemon
expect 3 "grant without CAP_NET_ADMIN" $U $B grant rs_gr --readers 0
like "names CAP_NET_ADMIN" "$err" CAP_NET_ADMIN
expect 2 "create with a group this host lacks" $B create rs_gr2 --readers kb-no-such-group
expect 3 "that create created nothing" $B info rs_gr2
check "refusals changed nothing" test "$(grants rs_gr)" = "readers: daemon writers: nogroup "
expect 0 "create -exist of the identical filter takes the grants asked for" \
	$B create rs_gr blocked --items 100 --key-type str --writers 4242 -exist
check "readers kept, writers set" test "$(grants rs_gr)" = "readers: daemon writers: 4242 "
$B save rs_gr -file "$TMP/gr.save"
like "save writes a grant line by group name" "$(cat "$TMP/gr.save")" '^grant rs_gr --readers daemon --writers 4242$'
$B destroy rs_gr
expect 0 "restore of a save with a grant line" $B restore -file "$TMP/gr.save"
check "restore sets the grants" test "$(grants rs_gr)" = "readers: daemon writers: 4242 "
expect 0 "grant --none" $B grant rs_gr --none
check "--none clears both" test -z "$(grants rs_gr)"
expect 0 "sync of an unchanged filter" $B sync -file "$TMP/gr.save"
check "sync sets the file's grants" test "$(grants rs_gr)" = "readers: daemon writers: 4242 "
$B add rs_gr sync-key > /dev/null
grep -v '^grant' "$TMP/gr.save" > "$TMP/gr-nogrant.save"
expect 0 "sync that replaces the filter, without a grant line" $B sync --force -file "$TMP/gr-nogrant.save"
like "it replaced it" "$out" "replace"
check "the replaced filter keeps its grants" test "$(grants rs_gr)" = "readers: daemon writers: 4242 "
sed -e 's/--readers daemon/--readers kb-no-such-group/' -e 's/rs_gr/rs_gr2/g' "$TMP/gr.save" > "$TMP/gr2.save"
expect 2 "restore of a grant to a group this host lacks" $B restore -file "$TMP/gr2.save"
like "names the line and the group" "$err" \
	"line $(grep -n '^grant' "$TMP/gr2.save" | cut -d: -f1): grant rs_gr2: no group 'kb-no-such-group'"
expect 3 "that restore loaded nothing" $B info rs_gr2
printf 'grant rs_gr --readers daemon\n' > "$TMP/gr3.restore"
expect 2 "a grant line of a filter the file does not define" $B restore -file "$TMP/gr3.restore"
like "says so" "$err" "line 1: grant rs_gr: the filter is not defined above"
printf 'create rs_gr2 blocked --items 10\ngrant rs_gr2 --writers daemon\n' > "$TMP/gr4.restore"
expect 0 "a create line and its grant line" $B restore -file "$TMP/gr4.restore"
check "the created filter has its grant" test "$(grants rs_gr2)" = "writers: daemon "
for f in rs_gr rs_gr2; do $B destroy $f 2> /dev/null; done

cleanup
done_testing
