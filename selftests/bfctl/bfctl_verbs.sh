#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bfctl against kbloom.ko: every kernel verb, its failures and exit codes,
# -j output, extack messages (netlink).
. "$(dirname "$0")/lib.sh"
B=$BFCTL

for f in v4 v6 s1 s2 hx cnt cl nets ren1 ren2 up1 dflt kf kfs kfm kfp kfr; do $B destroy $f 2> /dev/null; done

# ---- usage errors: exit 2 ----
expect 2 "no verb is a usage error" $B
expect 2 "unknown verb" $B frobnicate
expect 2 "create without a name" $B create --items 10
expect 2 "create with an unknown kind" $B create v4 bogus
expect 2 "create with a bad name" $B create 'bad name' blocked
expect 2 "create with conflicting sizing" $B create v4 blocked --fpr 0.01 --bits-per-key 10
expect 2 "create with a bad --fpr" $B create v4 blocked --items 10 --fpr 2
expect 2 "--bits-per-key without --items (a 64-byte filter)" $B create v4 blocked --bits-per-key 10
like "says --items is needed" "$err" 'needs --items'
expect 2 "octal-looking numbers are not octal, signs are refused" $B create v4 blocked --items ' 5'
expect 2 "unknown option" $B list --bogus
expect 2 "test without keys" $B test v4
expect 0 "help" $B --help

# ---- create, info, list ----
expect 0 "create blocked ipv4" $B create v4 blocked --items 1000 --fpr 0.01 --key-type ipv4
expect 3 "create twice: EEXIST" $B create v4 blocked --key-type ipv4
like "create twice names the error" "$err" '^bfctl: create v4: File exists'
expect 0 "create twice with -exist" $B create v4 blocked --items 1000 --fpr 0.01 --key-type ipv4 -exist
# -exist keeps only an identical filter (ipset, and bfctl's own restore)
expect 3 "-exist with another kind" $B create v4 counting --items 1000 --fpr 0.01 --key-type ipv4 -exist
like "names what exists" "$err" 'exists with other parameters \(blocked ipv4 m='
expect 3 "-exist with another key type" $B create v4 blocked --items 1000 --fpr 0.01 --key-type ipv6 -exist
expect 3 "-exist with another size" $B create v4 blocked --items 100000 --fpr 0.01 --key-type ipv4 -exist
expect 0 "v4 is unchanged" $B info v4
like "still a blocked filter" "$out" 'kind: blocked'
expect 0 "create ipv6 siphash with a seed" $B create v6 blocked --bits-per-key 10 --items 100 --key-type ipv6 --hash siphash --seed 1,2
expect 0 "create str with --bits/--hashes" $B create s1 blocked --bits 4096 --hashes 5 --key-type str
expect 0 "create second str" $B create s2 blocked --bits 4096 --hashes 5 --key-type str
expect 0 "create bytes" $B create hx blocked --key-type bytes
expect 0 "create counting" $B create cnt counting --items 1000 --fpr 1% --key-type str
expect 0 "create classic" $B create cl classic --items 1000 --fpr 0.01 --key-type str
expect 0 "create net" $B create nets blocked --items 1000 --fpr 0.001 --key-type net
# the README's default kind, and counts as admins type them
expect 0 "create without a kind" $B create dflt --items 2k
expect 0 "info -j of the default kind" $B -j info dflt
json_check "no kind: blocked, bytes keys, 2k items" "$out" 'j["kind"]=="blocked" and j["key_type"]=="bytes" and j["items"]==2000'
expect 2 "an overflowing --items is refused" $B create dflt2 --items 1e30
like "... saying so" "$err" "--items '1e30' is too large"
expect 3 "... and nothing was created" $B info dflt2
expect 0 "destroy dflt" $B destroy dflt
expect 0 "info" $B info v4
like "info shows kind and key type" "$out" 'kind: blocked'
like "info shows the key type" "$out" 'key type: ipv4'
expect 0 "info -j" $B info v4 -j
json_ok "info -j parses" "$out"
json_check "info -j fields" "$out" 'j["name"]=="v4" and j["kind"]=="blocked" and j["key_type"]=="ipv4" and j["items"]==1000'
json_check "info -j has the filter's id" "$out" 'type(j["id"])==int and j["id"]>0'
v4id=$(printf '%s' "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
expect 0 "info" $B info v4
like "info shows the id" "$out" "^id: $v4id\$"
expect 3 "info of a missing filter: ENOENT" $B info nosuch
like "info ENOENT message" "$err" '^bfctl: info nosuch: No such file or directory'
expect 0 "list NAME" $B list v4
like "list NAME shows a table" "$out" '^NAME +KIND'
expect 0 "list NAME -j" $B -j list v4
json_check "list NAME -j has one filter" "$out" 'len(j["filters"])==1 and j["filters"][0]["name"]=="v4"'
json_check "list NAME -j has its id" "$out" "j['filters'][0]['id']==$v4id"
expect 3 "list of a missing filter" $B list nosuch

# ---- keys: add, test, test-and-add, del ----
expect 0 "add ipv4 keys" $B add v4 10.0.0.1 10.0.0.2 -exist
expect 0 "test present keys: exit 0" $B test v4 10.0.0.1 10.0.0.2
like "test prints maybe present" "$out" '10.0.0.1: maybe present'
expect 1 "test an absent key: exit 1" $B test v4 10.0.0.1 10.9.9.9
like "test prints absent" "$out" '10.9.9.9: absent'
expect 1 "test -q is quiet" $B test -q v4 10.9.9.9
check "test -q printed nothing" test -z "$out"
expect 1 "test -j" $B test -j v4 10.0.0.1 10.9.9.9
json_ok "test -j parses" "$out"
json_check "test -j results" "$out" 'j["keys"][0]["present"] and not j["keys"][1]["present"] and j["all_present"]==False'
expect 2 "a bad ipv4 key is a usage error" $B add v4 10.0.0.300
like "bad key message names key and reason" "$err" "key 1 '10.0.0.300': bad address"
expect 2 "an ipv6 key in an ipv4 filter" $B test v4 ::1
expect 0 "add an existing key warns" $B add v4 10.0.0.1
like "warning names the key" "$err" '10.0.0.1: already \(maybe\) present'
# More keys than one netlink message holds: bfctl splits the batch.
many=$(seq 0 2999 | awk '{ printf "10.1.%d.%d ", int($1 / 256), $1 % 256 }')
$B destroy many 2> /dev/null
expect 0 "create a filter for many keys" $B create many blocked --items 10000 --fpr 0.001 --key-type ipv4
expect 0 "add 3000 keys in one command" $B add many $many
expect 0 "test 3000 keys in one command" $B test -q many $many
expect 0 "destroy it" $B destroy many
expect 0 "test-and-add" $B test-and-add v4 10.0.0.1 10.0.0.3
check "test-and-add prints only the new key" test "$out" = "10.0.0.3"
expect 0 "ipv6 keys" $B add v6 2001:db8::1 -exist
expect 0 "ipv6 test" $B test v6 2001:db8::1
expect 0 "str keys with spaces" $B add s1 "hello world" -- -dash -exist
expect 0 "str test" $B test s1 "hello world" -- -dash
expect 1 "test -j with bytes that are not UTF-8" $B -j test s1 $'\xff\xfe' 'héllo' $'quote"back\\slash\nnl'
json_ok "test -j escapes any key into valid JSON" "$out"
json_check "valid UTF-8 keys come back as they are" "$out" 'j["keys"][1]["key"]=="h\u00e9llo" and j["keys"][2]["key"]=="quote\"back\\slash\nnl"'
expect 0 "bytes keys are hex" $B add hx 00ff10 deadbeef -exist
expect 0 "bytes test" $B test hx DEADBEEF
expect 2 "bytes: odd hex" $B add hx abc
# one key-format rule for every verb: bytes keys are hex unless --key-format
expect 0 "--key-format str on add" $B add hx --key-format str plain-text -exist
expect 0 "... and on test" $B test hx --key-format str plain-text
expect 0 "... is the same key as its hex" $B test hx 706c61696e2d74657874
expect 2 "a bad --key-format" $B test hx --key-format base64 x
printf '00ff10\ncafe\n' > "$TMP/hexfile"
expect 0 "add -file of hex keys" $B add hx -file "$TMP/hexfile"
expect 0 "... they test present" $B test hx cafe
expect 0 "image build reads the same file the same way" $B image build --kind blocked --bits-per-key 10 --key-type bytes -file "$TMP/hexfile" -o "$TMP/hx.img"
expect 0 "... and image test answers as test does" $B image test "$TMP/hx.img" cafe 00ff10
expect 1 "... the text 'cafe' is another key" $B image test --key-format str "$TMP/hx.img" cafe
expect 2 "--key-format is refused where keys are not read" $B info hx --key-format hex
expect 0 "net: CIDRs" $B add nets 10.0.0.0/8 2001:db8::/32 192.0.2.1 -exist
printf '198.51.100.0/24\r\n203.0.113.7\r\n' > "$TMP/crlf"
expect 0 "add -file of a CRLF file" $B add nets -file "$TMP/crlf"
expect 0 "its keys without the CR" $B test nets 198.51.100.0/24 203.0.113.7
expect 2 "net: host bits set are refused" $B add nets 10.1.2.3/8
like "net: host bits message names the network meant" "$err" 'host bits set; did you mean 10\.0\.0\.0/8\?'
expect 0 "net: test CIDR" $B test nets 10.0.0.0/8
# an address tests present when a prefix holding it is there (as iptables)
expect 0 "net: addresses inside held prefixes" $B test nets 10.200.3.4 192.0.2.1 2001:db8:1::9
expect 1 "net: an address outside them" $B test nets 11.0.0.1
expect 1 "net: a host route is only itself" $B test nets 192.0.2.2
expect 1 "net: a wider prefix than held is absent" $B test nets 10.0.0.0/7
expect 0 "counting: add" $B add cnt a b c -exist
expect 0 "counting: del" $B del cnt a
expect 1 "counting: del of an absent key: exit 1" $B del cnt zzz
expect 0 "counting: del -exist of an absent key" $B del cnt zzz -exist
expect 1 "counting: deleted key tests absent" $B test cnt a
expect 3 "del on a blocked filter: EOPNOTSUPP" $B del s1 x
like "del EOPNOTSUPP message" "$err" 'Operation not supported'
expect 3 "add to a missing filter" $B add nosuch x

# ---- add -file (bulk) ----
seq 1 5000 | sed 's/^/k/' > "$TMP/keys"
expect 0 "add -file" $B add s1 -file "$TMP/keys"
expect 0 "keys from the file test present" $B test s1 k1 k2500 k5000
printf 'ok1\n\nok2\n' > "$TMP/blank"
expect 0 "add -file skips empty lines" $B add s2 -file "$TMP/blank"
printf '10.0.0.1\nnot-an-ip\n' > "$TMP/badips"
expect 2 "add -file with a bad line: bad input" $B add v4 -file "$TMP/badips"
like "add -file names the file, the line and its text" "$err" "badips:2: bad address 'not-an-ip'; nothing added"
printf '10.0.0.1\n1.2.3.\033[2J\n' > "$TMP/badesc"
expect 2 "a line with control bytes" $B add v4 -file "$TMP/badesc"
like "is quoted escaped" "$err" "badesc:2: bad address '1\\.2\\.3\\.\\\\x1b\\[2J'"

# ---- key files as admins have them: comments, blanks, CRLF ----
$B create kf blocked --items 10000 --fpr 0.01 --key-type ipv4
printf '#\n# FireHOL-style header\n#   source: example\n#\n\n198.18.0.1\n198.18.0.2 # why it is listed\n198.18.0.3\t;\tSBL123\n198.18.0.4 \t \n; a whole-line ; comment\n  198.18.0.5\r\n198.18.0.6#x\n' > "$TMP/firehol"
expect 0 "add -file of a FireHOL-style list" $B add kf -file "$TMP/firehol"
expect 0 "its 6 addresses test present" $B test kf 198.18.0.1 198.18.0.2 198.18.0.3 198.18.0.4 198.18.0.5 198.18.0.6
expect 0 "info -j" $B -j info kf
json_check "6 keys were added, no comment among them" "$out" "j['adds']==6"
expect 0 "rebuild reads it the same way" $B rebuild kf -file "$TMP/firehol"
expect 0 "image build too" $B image build --kind blocked --items 100 --fpr 0.01 --key-type ipv4 -file "$TMP/firehol" -o "$TMP/kf.img"
expect 0 "... whose image holds the addresses" $B image test "$TMP/kf.img" 198.18.0.1 198.18.0.6
# restore's add lines read their key the same way; ';' comments too
printf '; ipset-style\ncreate kfr blocked --items 100 --fpr 0.01 --key-type ipv4\nadd kfr 198.18.1.1 # why\nadd kfr 198.18.1.2 \t\r\n' > "$TMP/kf.restore"
expect 0 "restore of add lines with comments" $B restore -file "$TMP/kf.restore"
expect 0 "... their keys" $B test kfr 198.18.1.1 198.18.1.2
# text keys may hold '#', ';' and blanks: only whole-line comments go
$B create kfs blocked --items 100 --fpr 0.01 --key-type str
printf '# header\n; too\nurl#frag\n  a b \t\r\nk ; v\n' > "$TMP/strfile"
expect 0 "add -file of str keys with comments" $B add kfs -file "$TMP/strfile"
expect 0 "the keys as written, '#', ';' and inner blanks kept" $B test kfs 'url#frag' 'a b' 'k ; v'
expect 0 "info -j" $B -j info kfs
json_check "3 keys were added" "$out" "j['adds']==3"

# a bad line in the middle: a file is checked whole first, adds nothing
$B create kfm blocked --items 10000 --fpr 0.01 --key-type ipv4
awk 'BEGIN { for (n = 0; n < 3000; n++) { if (n == 2000) print "10.9.300.1"; printf "10.9.%d.%d\n", n / 250, n % 250 + 1 } }' > "$TMP/badmid"
expect 2 "add -file with a bad line at 2001 of 3001" $B add kfm -file "$TMP/badmid"
like "names it" "$err" "badmid:2001: bad address '10\\.9\\.300\\.1'; nothing added"
expect 1 "a key from before the bad line is not in the filter" $B test kfm 10.9.0.1
expect 0 "info -j" $B -j info kfm
json_check "nothing was added" "$out" "j['adds']==0"
expect 2 "the same from stdin redirected from the file" sh -c "$B add kfm -file - < '$TMP/badmid'"
expect 1 "... is checked first too: nothing added" $B test kfm 10.9.0.1
# a pipe cannot be checked first: the keys before the line went in, said
$B create kfp blocked --items 10000 --fpr 0.01 --key-type ipv4
expect 2 "add -file - from a pipe with a bad line" sh -c "cat '$TMP/badmid' | $B add kfp -file -"
like "names the line" "$err" "-:2001: bad address"
like "says how many keys went in" "$err" "the 2000 keys before line 2001 were added, none from it on"
expect 0 "they did, up to the line before" $B test kfp 10.9.0.1 10.9.7.250
expect 0 "info -j" $B -j info kfp
json_check "exactly those" "$out" "j['adds']==2000"
expect 3 "add -file of a missing file" $B add s1 -file "$TMP/nope"

# ---- flush, swap, rename ----
expect 0 "flush" $B flush s2
expect 1 "flushed filter is empty" $B test s2 ok1
id_of() { $B info "$1" -j | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'; }
s1id=$(id_of s1) s2id=$(id_of s2)
expect 0 "swap" $B swap s1 s2
check "swap: names keep their ids" test "$(id_of s1) $(id_of s2)" = "$s1id $s2id"
expect 0 "after swap s2 has s1's keys" $B test s2 k1
expect 1 "after swap s1 is empty" $B test s1 k1
expect 3 "swap with a different key type: EINVAL" $B swap s1 v4
expect 3 "swap with a missing filter" $B swap s1 nosuch
expect 0 "rename" $B rename s2 ren1
expect 3 "old name is gone" $B info s2
expect 0 "renamed filter keeps its keys" $B test ren1 k1
check "renamed filter keeps its id" test "$(id_of ren1)" = "$s2id"
expect 3 "rename onto an existing name: EEXIST" $B rename ren1 s1
expect 3 "flush of a missing filter" $B flush nosuch

# ---- export, upload, image verbs ----
expect 0 "export" $B export ren1 -o "$TMP/ren1.img"
expect 0 "image info on an export" $B image info "$TMP/ren1.img"
expect 0 "image test on an export" $B image test "$TMP/ren1.img" k42
# (ren1 holds s1's keys: thousands in 4096 bits, saturated, so past the
# saturation guard only with --force; bfctl_guard tests the guard)
expect 0 "upload creates" $B upload up1 "$TMP/ren1.img" --force
expect 0 "uploaded filter answers" $B test up1 k42
expect 0 "export of the upload" $B export up1 -o "$TMP/up1.img"
check "upload -> export is byte-identical" cmp -s "$TMP/ren1.img" "$TMP/up1.img"
head -c 100 "$TMP/ren1.img" > "$TMP/trunc.img"
expect 3 "upload of a truncated image" $B upload up1 "$TMP/trunc.img"
like "upload error says why" "$err" 'Invalid argument'
expect 2 "export without -o" $B export up1
expect 3 "export of a missing filter" $B export nosuch -o "$TMP/x.img"
seq 1 100 | sed 's/^/m/' > "$TMP/k100"
expect 0 "image build offline" $B image build --kind blocked --items 100 --fpr 0.01 --key-type str -file "$TMP/k100" -o "$TMP/b.img"
expect 0 "upload an offline image" $B upload up1 "$TMP/b.img"
expect 2 "an option upload does not take" $B upload -exist up1 "$TMP/b.img"
like "names the option" "$err" "option .-exist. is not allowed"
expect 0 "offline-built keys answer in the kernel" $B test up1 m1 m100

# ---- destroy ----
up1id=$(id_of up1)
expect 0 "destroy" $B destroy up1
expect 3 "destroy twice: ENOENT" $B destroy up1
expect 0 "create again under the same name" $B create up1 blocked --key-type str
check "a filter created again has a new id" test "$(id_of up1)" -gt "$up1id"
expect 0 "destroy it" $B destroy up1
expect 2 "destroy without a name" $B destroy

# ---- version ----
expect 0 "version" $B version
like "version names the module" "$out" 'kbloom module'
# the module's own word, and bfctl's line agrees with it
kf=$(cat /sys/module/kbloom/parameters/kfuncs)
case $kf in
yes) like "version: kfuncs yes as the module says" "$out" '^kfuncs: yes$' ;;
partial*) like "version: kfuncs partial as the module says" "$out" "^kfuncs: ${kf//[()]/.}\$" ;;
*) like "version: kfuncs no (reason) as the module says" "$out" '^kfuncs: no \(.+\)$' ;;
esac
expect 0 "version -j" $B -j version
json_ok "version -j parses" "$out"
json_check "version -j: kfuncs is a boolean matching the module" "$out" \
	"j['kfuncs'] == ('$kf' == 'yes') and ('kfuncs_reason' in j) != j['kfuncs']"
# a module that registered some hooks' kfuncs only (kmod/bpf.c): bfctl
# shows which, from the parameter (faked in a private mount namespace)
# (bfctl says no without the module's BTF in /sys/kernel/btf, whatever
# the parameter says)
echo "partial (xdp tc; tracing: -EINVAL)" > "$TMP/kf"
if [ ! -e /sys/kernel/btf/kbloom ]; then
	ok "version: partial kfuncs # SKIP the module has no BTF"
elif unshare -m sh -c "mount --bind '$TMP/kf' /sys/module/kbloom/parameters/kfuncs &&
	exec $B version > '$TMP/kf.out'" 2> "$TMP/kf.err"; then
	like "version: a partial registration names the hooks and the failure" \
		"$(cat "$TMP/kf.out")" '^kfuncs: partial \(xdp tc; tracing: -EINVAL\)$'
	unshare -m sh -c "mount --bind '$TMP/kf' /sys/module/kbloom/parameters/kfuncs &&
		exec $B -j version" > "$TMP/kf.json"
	json_check "version -j: partial is not yes, and says why" "$(cat "$TMP/kf.json")" \
		"j['kfuncs'] is False and j['kfuncs_partial'] is True and j['kfuncs_reason']=='xdp tc; tracing: -EINVAL'"
else
	nok "bind-mount a fake kfuncs parameter"
	diag "$(cat "$TMP/kf.err")"
fi

# ---- netlink: list all, -j, extack ----
if have_netlink; then
	expect 0 "list all" $B list
	like "list shows v4 and v6" "$out" 'v6'
	expect 0 "list -t" $B list -t
	like "list -t prints names" "$out" '^cl$'
	expect 0 "list -j" $B list -j
	json_ok "list -j parses" "$out"
	json_check "list -j has every filter" "$out" 'set(f["name"] for f in j["filters"]) >= {"v4","v6","s1","hx","cnt","cl","nets","ren1"}'
	expect 3 "create with a bad size gets the kernel's message" $B create big blocked --bits 100 --hashes 3
	like "extack message reaches the user" "$err" '^bfctl: create big: Invalid argument: .+'
	diag "extack: $err"
	expect 3 "a second create reports EEXIST over netlink" $B create v4 blocked --key-type ipv4
	# the control plane is netlink only: the old switch to the device is gone
	expect 0 "version names the control transport" env BFCTL_TRANSPORT=ioctl $B version
	like "netlink even with BFCTL_TRANSPORT=ioctl" "$out" 'transport netlink'
	expect 0 "BFCTL_TRANSPORT=ioctl is ignored: list all works" env BFCTL_TRANSPORT=ioctl $B list -t
	like "list over netlink shows v4" "$out" '^v4$'
else
	expect 3 "list all needs netlink" $B list
fi

for f in v4 v6 s1 s2 hx cnt cl nets ren1 ren2 up1 kf kfs kfm kfp kfr; do $B destroy $f 2> /dev/null; done
done_testing
