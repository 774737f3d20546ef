#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bfctl redis pull and watch against a hostile Redis: redis_hostile.py, a
# small RESP server written for this test, serving a go-zero value that a
# kernel filter follows, and misbehaving: GETRANGE answered with a 256 MiB
# bulk string, a reply dripped a byte a second, MOVED and ASK from a
# server that is no Cluster node, a Cluster node redirecting to a dead
# one, a replica without keyspace events, RESP3 and unexpected
# reply types, and a saturated (all-ones) value.  In each case: bfctl's
# peak RSS stays under 64 MiB, it ends within a second of SIGTERM (if it
# has not ended by itself), exits with an error that names the problem,
# and the kernel filter answers 300 keys as it did before.
# KB_HOSTILE_SATURATION=0 leaves out the all-ones case (the saturation
# guard refuses it).
. "$(dirname "$0")/lib.sh"
B=$BFCTL
H=$(dirname "$0")/redis_hostile.py
SAT=${KB_HOSTILE_SATURATION:-1}
if ! command -v python3 > /dev/null; then
	echo "ok 1 - bfctl redis hostile # SKIP python3 not available"
	echo "1..1"
	exit 0
fi
sock=$TMP/h.sock
S=unix://$sock
marker=$TMP/hit
spid=
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2> /dev/null
	$B destroy hf 2> /dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
serve() {	# serve MODE: the hostile server on $sock
	[ -n "$spid" ] && { kill "$spid"; wait "$spid" 2> /dev/null; }
	rm -f "$marker" "$sock"
	python3 "$H" serve "$sock" "$TMP/v" "$1" "$marker" 2> "$TMP/srv.log" &
	spid=$!
	for _ in $(seq 100); do
		[ -S "$sock" ] && return 0
		sleep 0.1
	done
	return 1
}
keys() { seq 1 300 | sed 's/^/k-/'; }
answers() { keys | xargs $B test hf 2> /dev/null; }

# a gozero filter of 8192 bits (whole bytes: an all-ones value is one it
# could hold) with 60 keys; its value is what the server serves
bits=8192
expect 0 "create the followed filter" $B create hf gozero --bits $bits --key-type str
keys | head -n 60 | xargs $B add hf > /dev/null
$B export hf -o "$TMP/hf.img"
$B image export --format redis "$TMP/hf.img" > "$TMP/v"
serve good || { nok "the hostile server did not start: $(cat "$TMP/srv.log")"; done_testing; exit 1; }
expect 0 "pull from the server while it behaves" $B redis pull hf gz --server $S
answers > "$TMP/before"
check "the filter answers its 60 keys" test "$(grep -c 'maybe' "$TMP/before")" -ge 60

# hostile MODE GRACE RC PATTERN VERB [ARGS...]: bfctl redis VERB hf gz
# against the server in MODE, SIGTERMed GRACE seconds after the server
# began to misbehave (if still running); it must exit RC saying PATTERN
hostile() {
	local mode=$1 grace=$2 rc=$3 pat=$4 res r term secs rss
	shift 4
	serve "$mode"
	res=$(python3 "$H" run "$marker" "$grace" $B redis "$1" hf gz --server $S "${@:2}")
	read -r r term secs rss <<< "$(tail -n 1 <<< "$res" | sed -E 's/[a-z]+=//g')"
	check "$mode $1: peak RSS ${rss} KiB < 64 MiB" test "$rss" -lt 65536
	check "$mode $1: ended within a second of SIGTERM (sent: $term, ${secs} s)" \
		python3 -c "import sys; sys.exit(not ($term == 0 or $secs <= 1.0))"
	check "$mode $1: exit $rc (got $r)" test "$r" = "$rc"
	like "$mode $1: says why" "$res" "$pat"
	answers > "$TMP/after"
	check "$mode $1: the filter kept its contents" cmp -s "$TMP/before" "$TMP/after"
}

hostile big 3 3 "reply of 268435456 bytes declared where at most" pull
# SIGTERM while a reply drips: the pull ends at once, nothing loaded
hostile drip 1 3 "interrupted by a signal" pull
# --timeout bounds the whole pull, not each byte
hostile drip 15 3 "timed out: --timeout 3 s bounds the whole pull" pull --timeout 3
# a watcher stuck in a dripping pull ends on SIGTERM, status 0
hostile drip 2 0 "stopped" watch --poll 0
# a redirect is followed only from a Cluster node (redis_topo.c), and a
# failed one names the node it went to
hostile moved 3 3 "MOVED 3999 .*not a Cluster node: refused" pull
hostile ask 3 3 "ASK 3999 .*not a Cluster node: refused" pull
hostile cluster 3 3 "cluster node redis://127.0.0.1:7001: connect" pull
hostile cluster 3 0 "disconnected: cluster node redis://127.0.0.1:7001: connect" watch --poll 0
hostile replica 3 3 "a replica \(role:slave\) that publishes no keyspace events" pull
hostile resp3 3 3 "Protocol error, got \"%\" as reply type byte" pull
hostile array 3 3 "unexpected reply type where a string was asked" pull
# the saturation guard's refusal (KB_HOSTILE_SATURATION=0: left out)
if [ "$SAT" = 1 ]; then
	hostile ones 3 3 "saturated" pull
fi
# and the server behaving again: the pull works
serve good
expect 0 "a pull from the server behaving again" $B redis pull hf gz --server $S

done_testing
