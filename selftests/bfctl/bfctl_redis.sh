#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bfctl redis against the kernel: a redis-server started here on a unix
# socket, the go-zero oracle (userspace/tests/gozero-oracle, built by make)
# as the application adding keys with go-zero's Lua scripts, and a gozero
# filter of IPv4 addresses in a network namespace.  Checked: pull --create
# loads what the application added; bfctl redis watch follows it (after
# each burst the kernel answers every present and absent key as go-zero's
# Exists does, false positives included); a rebuild RENAMEd over the key;
# Redis restarted mid-watch; the key deleted (the filter kept, "stale");
# a value growing while a chunked pull reads it (read again: setbit
# events do not prove a superset); an iptables rule on the filter drops the
# addresses the application added; a killed watcher leaves the last good
# filter serving; SIGTERM ends a watcher with status 0; a value replaced
# during a chunked pull is read again (the streamed transaction aborted,
# the filter equal to the new value); a value with bits past --bits is
# refused and the filter serves unchanged; a 32 MiB value is pulled with
# a peak RSS under half its size (streamed into the kernel); a kernel
# filter flushed behind a watcher is loaded again by its next poll, also
# when flushed during a poll of an unchanged value (under gdb); a
# value set to all ones (SETRANGE) is refused as saturated by pull and
# watch (status "refused", a kernel event), the filter serving unchanged,
# and loaded with --force.  With a relay (bfctl redis relay): a watcher
# merges its deltas into the live filter (KB_IOC_MERGE), the kernel's
# payload the value in Redis byte for byte and answering as go-zero's
# Exists, across a rebuild by RENAME, a relay killed and replaced, a
# stream trimmed under a stopped watcher and a flushed filter (ESTALE);
# a key added to the followed filter outside the watcher is found at the
# relay's next sync (the filter's CRC is not the relay's: mismatch) and
# dropped by a whole pull.
. "$(dirname "$0")/lib.sh"
B=$BFCTL
U=$(dirname "$B")
O=$U/tests/gozero-oracle
XT=$U/xtables
export XTABLES_LIBDIR=$XT:/usr/lib/x86_64-linux-gnu/xtables
for c in redis-server redis-cli python3 "$O"; do
	if ! command -v "$c" > /dev/null; then
		echo "ok 1 - bfctl redis # SKIP $c not available (make deps; make builds the oracle)"
		echo "1..1"
		exit 0
	fi
done

NS=kbrd
ip netns del $NS 2> /dev/null
N=
if ip netns add $NS 2> /dev/null; then
	N="ip netns exec $NS"
	$N ip link set lo up
fi
sock=$TMP/redis.sock
S=unix://$sock
rpid= wpid= rlpid=
cleanup() {
	[ -n "$wpid" ] && kill -CONT "$wpid" 2> /dev/null
	[ -n "$wpid" ] && kill "$wpid" 2> /dev/null
	[ -n "$rlpid" ] && kill "$rlpid" 2> /dev/null
	[ -n "$rpid" ] && kill "$rpid" 2> /dev/null
	$N iptables -F INPUT 2> /dev/null
	$N $B destroy rw 2> /dev/null
	$N $B destroy rg 2> /dev/null
	$N $B destroy rbig 2> /dev/null
	[ -n "$N" ] && ip netns del $NS
	rm -rf "$TMP"
}
trap cleanup EXIT
start_redis() {	# RDB in $TMP: a restart keeps the value
	redis-server --port 0 --unixsocket "$sock" --unixsocketperm 700 \
		--dir "$TMP" --save "" --appendonly no \
		--notify-keyspace-events KA > "$TMP/redis.log" 2>&1 &
	rpid=$!
	for _ in $(seq 100); do
		[ "$(redis-cli -s "$sock" PING 2> /dev/null)" = PONG ] && return 0
		sleep 0.1
	done
	return 1
}
R() { redis-cli -s "$sock" "$@"; }
start_redis || { nok "redis-server did not start: $(cat "$TMP/redis.log")"; done_testing; exit 1; }

bits=1409	# small: the 1000 absent addresses have false positives to compare
# (and so, with 200 keys and more, past the saturation guard's default
# of 1%: the pulls that load such values say --max-fpr 1)
MF="--max-fpr 1"
# address sets, as dotted quads (bfctl) and as their 4 raw bytes in hex
# (what the application adds: go-zero keys are bytes)
python3 - "$TMP" << 'EOF'
import sys
d = sys.argv[1]
sets = {
    "p1": ["127.0.0.2"] + ["10.1.%d.%d" % (i // 250, i % 250 + 1) for i in range(100)],
    "p2": ["10.2.%d.%d" % (i // 250, i % 250 + 1) for i in range(100)],
    "p3": ["10.3.%d.%d" % (i // 250, i % 250 + 1) for i in range(100)],
    "p4": ["10.4.%d.%d" % (i // 250, i % 250 + 1) for i in range(100)],
    "ab": ["172.16.%d.%d" % (i // 250, i % 250 + 1) for i in range(1000)],
}
hexof = lambda a: "".join("%02x" % int(x) for x in a.split("."))
q = []
for name, ips in sets.items():
    open(f"{d}/{name}.hex", "w").write("".join(hexof(a) + "\n" for a in ips))
    q += ips
open(f"{d}/q.ip", "w").write("\n".join(q) + "\n")
open(f"{d}/q.hex", "w").write("".join(hexof(a) + "\n" for a in q))
EOF
add() { "$O" add "$sock" "${2:-gz}" $bits < "$TMP/$1.hex"; }	# add SET [RKEY]
# one answer a line for every query: go-zero's Exists, the kernel's test
oracle_ans() { "$O" exists "$sock" gz $bits < "$TMP/q.hex"; }
kernel_ans() {
	xargs -n 1000 $N $B test "${1:-rw}" < "$TMP/q.ip" |
		sed -E 's/: maybe present$/ 1/; s/: absent$/ 0/' | awk '{ print $NF }'
}
agree() { oracle_ans > "$TMP/o"; kernel_ans "$@" > "$TMP/k"; cmp -s "$TMP/o" "$TMP/k"; }
wait_diag() { diag "watch log:" "$(cat "$TMP/w.log" "$TMP/w.err" 2> /dev/null)"; }
st() { grep -c "\"status\":\"$1\"" "$TMP/w.log"; }
# the watcher's uploads so far (-j or text lines): mark before a change,
# then synced waits for an upload after it (cheap) before comparing
# answers (the oracle is slow under TCG)
pulls() { grep -cE '"status":"updated"|: updated \(' "$TMP/w.log"; }
mark() { m0=$(pulls); }
synced() {	# synced DESC
	local d=$1 i
	for i in $(seq 600); do
		[ "$(pulls)" -gt "$m0" ] && break
		sleep 0.1
	done
	for i in $(seq 10); do	# a burst may take a second pull
		agree && { ok "$d"; return 0; }
		sleep 0.5
	done
	nok "$d"
	diag "watch log:" "$(cat "$TMP/w.log" "$TMP/w.err" 2> /dev/null)"
}

# ---- pull --create ----
add p1
expect 1 "pull of a missing key: exit 1" $N $B redis pull rw nokey --create --bits $bits --server $S
expect 3 "pull into a missing filter without --create" $N $B redis pull rw gz --bits $bits $MF --server $S
expect 0 "pull --create a gozero ipv4 filter" $N $B redis pull rw gz --create --bits $bits --key-type ipv4 $MF --server $S
expect 0 "info" $N $B info -j rw
json_check "gozero, m = --bits, ipv4" "$out" "j['kind'] == 'gozero' and j['m'] == $bits and j['key_type'] == 'ipv4'"
check "the kernel answers 1401 addresses as go-zero's Exists" agree
fp=$(tail -n 1000 "$TMP/k" | grep -cx 1)
check "with false positives to compare ($fp of 1000)" test "$fp" -gt 0

# ---- watch ----
$N $B -j redis watch rw gz --debounce 0.1 --poll 600 $MF --server $S \
	> "$TMP/w.log" 2> "$TMP/w.err" &
wpid=$!
wait_for "watch: connected and pulled" grep -q '"status":"unchanged\|"status":"updated' "$TMP/w.log"
mark
add p2
synced "watch: a burst of adds (14 setbits each) is followed"
R SET '{gz}:new' "" > /dev/null
add p3 '{gz}:new'
mark
R RENAME '{gz}:new' gz > /dev/null
synced "watch: a rebuild RENAMEd over the key is followed"
check "p1 is gone with the rebuild (go-zero says so too)" test "$(head -n 101 "$TMP/o" | grep -cx 1)" -lt 101

# ---- Redis restarted mid-watch ----
R SAVE > /dev/null
kill "$rpid"; wait "$rpid" 2> /dev/null
wait_for "watch: the lost connection is reported" grep -q '"status":"disconnected"' "$TMP/w.log"
start_redis
reconnected() { [ "$(st connected)" -ge 2 ]; }
wait_for "watch: reconnects" reconnected
mark
add p4
synced "watch: adds after the restart are followed"

# ---- iptables on the gozero filter: drops what the application added ----
if [ -n "$N" ] && [ -e "$XT/libxt_bloom.so" ] && $N iptables -L INPUT -n > /dev/null 2>&1; then
	mark
	add p1
	synced "watch: 127.0.0.2 added by the application reaches the kernel"
	# an address go-zero's Exists says is absent (no false positive)
	other=
	for i in $(seq 3 254); do
		if [ "$(printf '7f0000%02x\n' "$i" | "$O" exists "$sock" gz $bits)" = 0 ]; then
			other=127.0.0.$i
			break
		fi
	done
	expect 0 "a DROP rule on the filter" $N iptables -A INPUT -d 127.0.0.0/8 -p icmp --icmp-type echo-request -m bloom --bloom-name rw --bloom-dir dst -j DROP
	expect 1 "127.0.0.2 (added in Redis) is dropped" $N ping -c1 -W1 127.0.0.2
	expect 0 "$other (absent in go-zero too) is not" $N ping -c1 -W1 "$other"
	$N iptables -F INPUT
else
	diag "no netns or iptables with libxt_bloom: the rule test is skipped"
fi

# ---- the key deleted: filter kept, stale ----
kernel_ans > "$TMP/before"
R DEL gz > /dev/null
wait_for "watch: a deleted key is reported stale" grep -q '"status":"stale"' "$TMP/w.log"
kernel_ans > "$TMP/after"
check "the filter keeps its last value" cmp -s "$TMP/before" "$TMP/after"
kill -TERM "$wpid"
rc=0
wait "$wpid" || rc=$?
wpid=
check "SIGTERM: the watcher exits 0 (got $rc)" test "$rc" = 0
check "watch -j: every line is JSON" python3 -c '
import json, sys
for l in open(sys.argv[1]):
    json.loads(l)' "$TMP/w.log"

# ---- a killed watcher leaves the last good filter ----
add p2
m0=0
$N $B redis watch rw gz --debounce 0.1 $MF --server $S > "$TMP/w.log" 2>&1 &
wpid=$!
synced "a new watcher pulls the recreated key"
kill -KILL "$wpid"; wait "$wpid" 2> /dev/null
wpid=
kernel_ans > "$TMP/before"
add p3
kernel_ans > "$TMP/after"
check "after SIGKILL the filter serves its last value, unchanged" cmp -s "$TMP/before" "$TMP/after"
expect 0 "and is whole (info)" $N $B info rw

# paused CMD RC DESC BFCTL...: expect RC from BFCTL, which pauses after
# its pull's first chunk (BFCTL_REDIS_TEST_PAUSE, a FIFO handshake) while
# the shell command CMD changes the value under it
paused() {
	local cmd=$1 fifo=$TMP/pause hp
	shift
	rm -f "$fifo"
	mkfifo "$fifo"
	{ read -r _ < "$fifo"; eval "$cmd"; : > "$fifo"; } &
	hp=$!
	expect "$1" "$2" env BFCTL_REDIS_TEST_PAUSE="$fifo" "${@:3}"
	kill "$hp" 2> /dev/null
	wait "$hp" 2> /dev/null
	rm -f "$fifo"
}

# ---- a value growing while pulled in chunks ----
# one address first (its last probe well before the end), then 100 more
# during the read: the value grows and gains bits under the reader
R DEL gz > /dev/null
head -n 1 "$TMP/p1.hex" > "$TMP/p0.hex"
add p0
len0=$(R STRLEN gz)
hook="$O add $sock gz $bits < $TMP/p4.hex"
paused "$hook" 0 "a chunked pull while the application adds" \
	$N $B redis pull rw gz --chunk-size 4 $MF --server $S
# (a setbit event may as well have cleared a bit: SETBIT 0, BITFIELD SET)
like "setbit events mid-read: read again, not taken for a superset" "$out" ", 1 re-reads"
len1=$(R STRLEN gz)
check "the value grew during the read ($len0 -> $len1 bytes)" test "$len1" -gt "$len0"
expect 0 "what was there before the read is in the kernel" $N $B test rw 127.0.0.2
check "the kernel answers as go-zero's Exists at once" agree

# ---- a value replaced while pulled in chunks: read again, whole ----
# the pull streams into a kernel transaction: the torn read is aborted and
# a fresh one begun; the filter ends as the new value, never a mix
add p2 gz2
hook="redis-cli -s $sock RENAME gz2 gz > /dev/null"
paused "$hook" 0 "a chunked pull while the key is replaced" \
	$N $B redis pull rw gz --chunk-size 16 $MF --server $S
like "replaced: one re-read" "$out" ", 1 re-reads"
check "the kernel answers as go-zero's Exists on the new value" agree

# ---- a bad value: refused, the filter serving as it was ----
kernel_ans > "$TMP/before"
R SET gz "$(head -c $(((bits + 7) / 8)) /dev/zero | tr '\0' '\377')" > /dev/null
expect 3 "bits past --bits refused" $N $B redis pull rw gz --chunk-size 16 $MF --server $S
like "says why" "$err" "bits set past"
kernel_ans > "$TMP/after"
check "the refused pull left the filter unchanged" cmp -s "$TMP/before" "$TMP/after"

# ---- a saturated value: refused, the filter serving as it was ----
# anyone who may write the key can set every bit (SETRANGE); loaded, a
# DROP rule on the filter would drop everything, the watcher's own Redis
# replies included
R DEL gz > /dev/null
add p1
expect 0 "a value within 1% loads (the default guard)" $N $B redis pull rw gz --server $S
# (every bit of 1409: 176 bytes of ones and the top bit of the last)
R SETRANGE gz 0 "$(head -c $((bits / 8)) /dev/zero | tr '\0' '\377')$(printf '\200')" > /dev/null
$N $B monitor -j > "$TMP/mon" 2>&1 &
mpid=$!
expect 3 "an all-ones value (SETRANGE) is refused" $N $B redis pull rw gz --server $S
like "says it is saturated, with fill and FPR" "$err" 'refused: saturated, fill 100%, est. FPR 100% \(limit 1%'
kernel_ans > "$TMP/after"
check "the filter still answers present for its keys" test "$(head -n 101 "$TMP/after" | grep -cx 1)" = 101
check "... and absent for absent keys" test "$(tail -n +102 "$TMP/after" | grep -cx 1)" -lt 100
refused_ev() {	# the monitor may have joined after the first refusal
	$N $B redis pull rw gz --server $S > /dev/null 2>&1
	grep -q '"event":"refused","name":"rw"' "$TMP/mon"
}
wait_for "the kernel raised a refused event (monitor)" refused_ev
kill "$mpid"; wait "$mpid" 2> /dev/null
$N $B -j redis watch rw gz --poll 600 --server $S > "$TMP/w.log" 2> "$TMP/w.err" &
wpid=$!
wait_for "watch -j: status refused" grep -q '"status":"refused"' "$TMP/w.log"
like "... with fill and FPR" "$(cat "$TMP/w.log")" '"detail":"saturated, fill 100%, est. FPR 100%'
kill -TERM "$wpid"; wait "$wpid" 2> /dev/null
$N $B redis watch rw gz --poll 600 --server $S > "$TMP/w.log" 2>&1 &
wpid=$!
wait_for "watch: status refused (text)" grep -q '^rw gz: refused: saturated, fill 100%, est. FPR 100%' "$TMP/w.log"
kill -TERM "$wpid"; wait "$wpid" 2> /dev/null
wpid=
kernel_ans > "$TMP/after2"
check "the refused watcher left the filter as it was" cmp -s "$TMP/after" "$TMP/after2"
expect 0 "--force loads it anyway" $N $B redis pull rw gz --force --server $S
kernel_ans > "$TMP/after"
check "... and it answers maybe for everything" test "$(grep -cx 1 "$TMP/after")" = 1401

# ---- a big value streams: bfctl never holds it ----
# 32 MiB (2^28 bits): bfctl's peak RSS stays well under the value's size
big=$((32 << 20))
R SETRANGE gzbig $((big - 1)) x > /dev/null
rss=$(python3 -c '
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if r.returncode == 0 else -1)
' $N $B redis pull rbig gzbig --create --bits $((big * 8)) --server $S)
check "a 32 MiB value pulled with a peak RSS of ${rss} KiB (< 16 MiB)" \
	test "$rss" -gt 0 -a "$rss" -lt $((16 << 10))
expect 0 "the big filter is whole (info)" $N $B info -j rbig
json_check "m = 2^28" "$out" "j['m'] == $((big * 8))"
$N $B destroy rbig 2> /dev/null
R DEL gzbig > /dev/null

# ---- the kernel filter changed behind the watcher: the poll restores it ----
R DEL gz > /dev/null
add p1
$N $B -j redis watch rw gz --debounce 0.1 --poll 1 $MF --server $S \
	> "$TMP/w.log" 2> "$TMP/w.err" &
wpid=$!
m0=0
synced "a watcher with a 1 s poll"
# (the flush is not checked to differ first: the poll may already have
# restored it; the status line below says that it did)
$N $B flush rw
wait_for "the poll loads the value again after a flush" \
	grep -q '"detail":"the kernel filter was changed outside' "$TMP/w.log"
check "and the kernel answers as go-zero's Exists again" agree
kill -TERM "$wpid"; wait "$wpid" 2> /dev/null
wpid=

# ---- a flush while an unchanged poll runs is not taken for ours ----
# gdb stops the watcher in a poll whose value is unchanged (its
# transaction aborted: after the filter was found in step, before the
# generation is noted) and flushes the filter there: the next poll finds
# it changed and loads it again (a note that read the generation after
# the flush took it for the pull's own: the filter stayed empty)
if command -v gdb > /dev/null; then
	cat > "$TMP/g.gdb" << EOF
set pagination off
set confirm off
tbreak kbdev_txn_abort
commands
silent
shell $B flush rw && touch $TMP/flushed
continue
end
run
EOF
	$N gdb -q -batch -nx -x "$TMP/g.gdb" --args $B -j redis watch rw gz \
		--debounce 0.1 --poll 1 $MF --server $S > "$TMP/w.log" 2> "$TMP/w.err" &
	wpid=$!
	wait_for "gdb: the filter flushed in an unchanged poll" test -e "$TMP/flushed"
	wait_for "... the next poll loads the value again" \
		grep -q '"detail":"the kernel filter was changed outside' "$TMP/w.log"
	check "... and the kernel answers as go-zero's Exists again" agree
	kill -TERM "$wpid"; wait "$wpid" 2> /dev/null
	wpid=
else
	ok "# SKIP no gdb: a flush in an unchanged poll"
fi

# ---- a relay's stream of deltas, merged into the kernel filter ----
# bfctl redis relay writes what changed to a stream next to the key; the
# watcher merges each delta into the live filter (KB_IOC_MERGE) and pulls
# whole only for a rebuild, a new relay, a trim or a replaced generation
dlog=$TMP/dw.log
R CONFIG SET stream-node-max-entries 2 > /dev/null	# MAXLEN ~ trims soon
python3 -c '
import sys
for s in range(1, 13):
    open("%s/d%d.hex" % (sys.argv[1], s), "w").write(
        "".join("0a%02x%02x%02x\n" % (100 + s, i // 250, i % 250 + 1) for i in range(15)))' "$TMP"
R DEL gz > /dev/null
add p1
expect 0 "deltas: the filter pulled whole" $N $B redis pull rw gz $MF --server $S
relay() {	# relay LOG [OPTION...]: a relay in the background (rlpid)
	local log=$1
	shift
	$B -j redis relay gz --server $S --lease-ms 1000 --debounce 0.05 --sync 0 \
		--maxlen 4 "$@" > "$log" 2>&1 &
	rlpid=$!
}
relay "$TMP/ra.log"
wait_for "relay: takes the lease (an epoch's sync)" grep -q '"status":"sync"' "$TMP/ra.log"
# (--resync-backoff 0: the sections' resyncs pulled at once; the
# rationing is test-redis-delta's)
$N $B -j redis watch rw gz --debounce 0.1 --poll 600 --events-check 0.5 $MF \
	--resync-backoff 0 --server $S > "$dlog" 2>&1 &
wpid=$!
wait_diag() { diag "logs:" "$(cat "$dlog" "$TMP"/r?.log 2> /dev/null)"; }
wait_for "watch: follows the relay's stream" grep -q '"status":"relay".*following its stream' "$dlog"
# exact: the kernel's payload is the value in Redis, byte for byte
# (files, not <(...): the guest has no /dev/fd)
exact() {
	$N $B export rw -o "$TMP/k.img" > /dev/null 2>&1 &&
		$B image export --format redis "$TMP/k.img" > "$TMP/k.val" 2> /dev/null &&
		redis-cli -s "$sock" --raw GET gz | head -c -1 > "$TMP/r.val" &&
		cmp -s "$TMP/k.val" "$TMP/r.val"
}
wait_for "watch: pulled whole first" exact
nmerged() { grep -c '"status":"merged"' "$dlog"; }
m1=$(nmerged)
add p2
merged_more() { [ "$(nmerged)" -gt "$m1" ]; }
wait_for "a burst of adds: merged from the stream" merged_more
wait_for "... the kernel's payload is the value in Redis" exact
check "... and answers as go-zero's Exists" agree
# a rebuild: RENAMEd over the key, the relay says reset, a whole pull
R SET '{gz}:new' "" > /dev/null
add p3 '{gz}:new'
R RENAME '{gz}:new' gz > /dev/null
wait_for "a rebuild by RENAME: the relay says reset" grep -q '"status":"reset".*rebuild' "$TMP/ra.log"
wait_for "... the watcher holds the rebuilt value" exact
check "... and answers as go-zero's Exists" agree
# the relay killed; another takes the lease once it lapses
kill -KILL "$rlpid"; wait "$rlpid" 2> /dev/null
relay "$TMP/rb.log"
wait_for "a relay killed: another takes its lease" grep -q '"status":"leader"' "$TMP/rb.log"
add p4
wait_for "... adds after it reach the kernel" exact
check "... and it answers as go-zero's Exists" agree
# a watcher stopped while MAXLEN trims the stream: the gap, a whole pull
# (ten changes: the trim takes more than the one entry the stopped
# watcher's XREAD already holds)
kill -STOP "$wpid"
lastid() { R XINFO STREAM '{gz}:kbloom-stream' | sed -n '/^last-generated-id$/{n;p}'; }
for s in 1 2 3 4 5 6 7 8 9 10; do
	x0=$(lastid)
	add "d$s"
	for _ in $(seq 40); do [ "$(lastid)" != "$x0" ] && break; sleep 0.25; done
done
check "the stream was trimmed ($(R XLEN '{gz}:kbloom-stream') entries)" \
	test "$(R XLEN '{gz}:kbloom-stream')" -lt 6
kill -CONT "$wpid"
wait_for "a trimmed stream: the stopped watcher catches up" exact
check "... by a whole pull, saying why" grep -q '"status":"resync".*entries missing' "$dlog"
check "... and answers as go-zero's Exists" agree
# the filter replaced behind the watcher: the merge's generation is stale
$N $B flush rw
add d11
wait_for "a flushed filter (another generation): ESTALE, a whole pull" exact
check "... saying why" grep -q '"status":"resync".*not the one pulled into' "$dlog"
# a relay that syncs every second: the watcher checks the kernel filter
# (through a read-only mapping, no copy) against each sync's CRC; a key
# added to the followed filter outside the watcher is a mismatch, and a
# whole pull drops it
kill -TERM "$rlpid"; wait "$rlpid" 2> /dev/null
relay "$TMP/rc.log" --sync 1
nst() { grep -c "\"status\":\"$1\"" "$dlog"; }
v0=$(nst verified)
more() { [ "$(nst "$1")" -gt "$2" ]; }
wait_for "a relay's sync: the kernel filter checked, the relay's copy" more verified "$v0"
check "... read through its mapping" grep -q '"status":"verified".*bytes, mapped)' "$dlog"
la=
for i in $(seq 1 250); do
	$N $B test rw "10.99.0.$i" > /dev/null 2>&1 && continue
	la=10.99.0.$i
	break
done
check "an address the filter does not hold ($la)" test -n "$la"
x0=$(nst mismatch)
expect 0 "... added with bfctl add" $N $B add rw "$la"
wait_for "a key added outside the watcher: the next sync is a mismatch" more mismatch "$x0"
check "... saying why (the mapping read)" \
	grep -q '"status":"mismatch".*not the relay.s copy (CRC-32C [0-9a-f]*, the relay.s [0-9a-f]*, mapped)' "$dlog"
wait_for "... a whole pull: the kernel's payload is the value in Redis" exact
expect 1 "... the key added outside the watcher is gone" $N $B test rw "$la"
kill -TERM "$wpid" "$rlpid"; wait "$wpid" "$rlpid" 2> /dev/null
wpid= rlpid=
check "every status line is JSON" python3 -c '
import json, sys
for f in sys.argv[1:]:
    for l in open(f):
        json.loads(l)' "$dlog" "$TMP/rb.log" "$TMP/rc.log"

done_testing
