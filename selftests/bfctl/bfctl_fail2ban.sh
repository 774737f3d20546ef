#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fail2ban's kbloom action (packaging/fail2ban/action.d/kbloom.conf) with
# Debian's fail2ban: a server started without systemd (fail2ban-client -c
# DIR start) in the netns that holds the filter, with a jail on a log
# this test writes (maxretry 2, bantime 8 s).  Two netns joined by veth:
# actionstart creates the window filter (bantime = window) before any ban,
# once; two failures of 10.97.0.2 and of fd00:97::2 ban them: they are
# dropped by iptables/ip6tables -m bloom, then, banned again, by the XDP
# blocklist alone, while an unlisted source passes; each passes again
# once the window has gone by (never before its bantime after the ban,
# TCG's slack allowed after it), with no unban command.  Stopping
# fail2ban leaves the filter and its bans; a filter of the same name that
# is not the one the jail asks for is neither used nor changed (the jail
# fails to start).
. "$(dirname "$0")/lib.sh"
B=$BFCTL
UB=$(cd "$(dirname "$B")" && pwd)
REPO=$(cd "$(dirname "$0")/../.." && pwd)
export XTABLES_LIBDIR=$UB/xtables:/usr/lib/x86_64-linux-gnu/xtables
S=kbfs
D=kbfd
F=f2b-kbt
C=$TMP/f2b
# the bans' time and window: long enough for a slow TCG guest to see a
# ban before it ends (checks between the ban and its end take seconds)
BANTIME=8
nss() { ip netns exec $S "$@"; }
nsd() { ip netns exec $D "$@"; }
f2b() { nsd fail2ban-client -c "$C" "$@"; }
netns_del() {
	[ -S "$C/f2b.sock" ] && f2b stop > /dev/null 2>&1
	for n in $S $D; do
		ip netns pids $n 2> /dev/null | xargs -r kill 2> /dev/null
		ip netns del $n 2> /dev/null
	done
}
trap 'netns_del; rm -rf "$TMP"' EXIT

echo "TAP version 13"
if ! command -v fail2ban-client > /dev/null; then
	echo "1..0 # SKIP no fail2ban (make deps installs it)"
	exit 0
fi

ip netns add $S && ip netns add $D &&
	ip -n $S link add veth-s type veth peer name veth-d netns $D &&
	ip -n $S link set lo up && ip -n $D link set lo up &&
	ip -n $S link set veth-s up && ip -n $D link set veth-d up &&
	ip -n $D addr add 10.97.0.1/24 dev veth-d &&
	ip -n $D addr add fd00:97::1/64 dev veth-d nodad &&
	ip -n $S addr add 10.97.0.2/24 dev veth-s &&
	ip -n $S addr add 10.97.0.3/24 dev veth-s &&
	ip -n $S addr add fd00:97::2/64 dev veth-s nodad
check "two netns joined by veth" test $? = 0
ping1() { nss ping -q -c1 -W1 -I "$1" "$2" > /dev/null 2>&1; }
passes() { ping1 "$@" || ping1 "$@"; }
blocked() { ! ping1 "$@"; }
for p in "10.97.0.2 10.97.0.1" "10.97.0.3 10.97.0.1" "fd00:97::2 fd00:97::1"; do
	check "before any ban $p answers" passes $p
done

# fail2ban's configuration: the shipped action, a filter and jails of ours
mkdir -p "$C/action.d" "$C/filter.d"
cp "$REPO/packaging/fail2ban/action.d/kbloom.conf" "$C/action.d/"
cat > "$C/fail2ban.conf" <<EOC
[Definition]
loglevel = INFO
logtarget = $C/f2b.log
syslogsocket = auto
socket = $C/f2b.sock
pidfile = $C/f2b.pid
dbfile = :memory:
allowipv6 = yes
EOC
cat > "$C/filter.d/kbt.conf" <<'EOC'
[Definition]
failregex = ^kbt: authentication failure from <HOST>$
datepattern = {NONE}
EOC
jail() {	# jail NAME [ENABLED]: the jail file (bfctl: this build's)
	cat > "$C/jail.conf" <<EOC
[DEFAULT]
backend = polling
maxretry = 2
findtime = 600
bantime = $BANTIME
banaction = kbloom[bfctl="$B"]
action = %(banaction)s

[$1]
enabled = true
filter = kbt
logpath = $C/auth.log
EOC
}
: > "$C/auth.log"
jail kbt
expect 0 "fail2ban starts without systemd" f2b start
wait_for "actionstart created the filter $F" bash -c "ip netns exec $D $B info $F > /dev/null 2>&1"
j=$(nsd $B -j info $F 2> /dev/null)
json_check "a window of the bantime, 4 slices, key type ip" "$j" \
	"(j[0] if isinstance(j, list) else j)['key_type'] == 'ip' and (j[0] if isinstance(j, list) else j).get('window_ms') == $((1000 * BANTIME))"

fail() { printf 'kbt: authentication failure from %s\n' "$@" >> "$C/auth.log"; }
# ban_of IP: epoch seconds (with ms) of fail2ban's latest "Ban IP" line; the
# add follows it, so an address must stay banned until at least that + 4
ban_of() {
	grep -E "NOTICE +\[kbt\] Ban $1\$" "$C/f2b.log" | tail -n1 |
		awk '{ print $1 " " $2 }' | sed 's/,/./' |
		xargs -I{} date -d {} +%s.%N
}
# bans_of IP: how many "Ban IP" lines fail2ban logged (its log, not
# fail2ban-client: a python start-up per poll is seconds under TCG)
bans_of() { grep -cE "NOTICE +\[kbt\] Ban $1\$" "$C/f2b.log"; }
banned_n() { [ "$(bans_of "$1")" -ge "$2" ]; }	# IP N: banned N times
unbans_of() { grep -cE "NOTICE +\[kbt\] Unban $1\$" "$C/f2b.log"; }
# held SRC DST IP...: each IP (a source SRC pinging DST) is dropped until
# its ban's time + the bantime (never earlier), then passes again within
# 30 s of its ban (the window's bound is 1.25 x 8 s, and TCG).  The
# addresses are polled together: they were banned together.
held() {
	local -a src dst ip t0 first
	local i n=0 now
	while [ $# -ge 3 ]; do
		src[n]=$1 dst[n]=$2 ip[n]=$3 first[n]=
		t0[n]=$(ban_of "$3")
		shift 3; n=$((n + 1))
	done
	for i in $(seq 0 $((n - 1))); do
		if [ -z "${t0[i]}" ]; then
			nok "${ip[i]}: fail2ban logged its ban"; return
		fi
		if ping1 "${src[i]}" "${dst[i]}"; then
			nok "${ip[i]} is dropped after its ban"; return
		fi
	done
	while :; do
		local left=0
		now=$(date +%s.%N)
		for i in $(seq 0 $((n - 1))); do
			[ -n "${first[i]}" ] && continue
			if ping1 "${src[i]}" "${dst[i]}"; then
				first[i]=$now
			else
				left=1
			fi
		done
		[ $left = 0 ] && break
		python3 -c "import sys; sys.exit(0 if $now - ${t0[0]} < 30 else 1)" || break
		sleep 0.2
	done
	for i in $(seq 0 $((n - 1))); do
		if [ -z "${first[i]}" ]; then
			nok "${ip[i]} passes again after the window"
			diag "still dropped 30 s after its ban"
		elif python3 -c "import sys; sys.exit(0 if ${first[i]} - ${t0[i]} >= $BANTIME else 1)"; then
			ok "${ip[i]} was dropped for the bantime and passes again after it ($(python3 -c "print('%.1f' % (${first[i]} - ${t0[i]}))") s)"
		else
			nok "${ip[i]} forgotten early: passed $(python3 -c "print('%.2f' % (${first[i]} - ${t0[i]}))") s after its ban"
		fi
	done
}

# ---- -m bloom ----
nsd iptables -w -I INPUT -m bloom --bloom-name $F --bloom-dir src -j DROP &&
	nsd ip6tables -w -I INPUT -m bloom --bloom-name $F --bloom-dir src -j DROP
check "iptables and ip6tables rules on the filter" test $? = 0
fail 10.97.0.2 10.97.0.2 fd00:97::2 fd00:97::2
wait_for "fail2ban banned 10.97.0.2" banned_n 10.97.0.2 1
wait_for "fail2ban banned fd00:97::2" banned_n fd00:97::2 1
# fail2ban logs "Ban" before it runs actionban: the add follows shortly
wait_for "bfctl test: both banned addresses are in the filter" \
	nsd $B test -q $F 10.97.0.2 fd00:97::2
check "-m bloom drops the banned IPv4 source" blocked 10.97.0.2 10.97.0.1
check "... and the banned IPv6 source" blocked fd00:97::2 fd00:97::1
check "an unlisted source passes" passes 10.97.0.3 10.97.0.1
held 10.97.0.2 10.97.0.1 10.97.0.2 fd00:97::2 fd00:97::1 fd00:97::2
nsd iptables -w -D INPUT -m bloom --bloom-name $F --bloom-dir src -j DROP
nsd ip6tables -w -D INPUT -m bloom --bloom-name $F --bloom-dir src -j DROP

# ---- the XDP blocklist, no rule: a second ban of the same addresses ----
expect 0 "bfctl xdp attach the filter" nsd $B xdp attach veth-d $F
both_unbanned() { [ "$(unbans_of 10.97.0.2)" -ge 1 ] && [ "$(unbans_of fd00:97::2)" -ge 1 ]; }
wait_for "fail2ban unbanned them (its own bantime)" both_unbanned
fail 10.97.0.2 10.97.0.2 fd00:97::2 fd00:97::2
wait_for "fail2ban banned 10.97.0.2 again" banned_n 10.97.0.2 2
wait_for "fail2ban banned fd00:97::2 again" banned_n fd00:97::2 2
check "XDP drops the banned IPv4 source" blocked 10.97.0.2 10.97.0.1
check "... and the banned IPv6 source" blocked fd00:97::2 fd00:97::1
check "an unlisted source passes" passes 10.97.0.3 10.97.0.1
held 10.97.0.2 10.97.0.1 10.97.0.2 fd00:97::2 fd00:97::1 fd00:97::2

# ---- stop and start: the filter stays, bans in it too ----
fail 10.97.0.3 10.97.0.3
wait_for "fail2ban banned 10.97.0.3" banned_n 10.97.0.3 1
expect 0 "fail2ban stops" f2b stop
check "actionstop left the filter" bash -c "ip netns exec $D $B info $F > /dev/null"
check "... and its ban: 10.97.0.3 is still dropped" blocked 10.97.0.3 10.97.0.1
: > "$C/f2b.log"
expect 0 "fail2ban starts again" f2b start
wait_for "the jail runs again, on the same filter (-exist)" \
	grep -q "Jail 'kbt' started" "$C/f2b.log"
like "... without an error" "$(grep ERROR "$C/f2b.log")" "^$"
expect 0 "fail2ban stops" f2b stop
nsd $B xdp detach veth-d

# ---- a filter of that name that is not the jail's: not used, not changed ----
nsd $B create f2b-other blocked --key-type ip --items 1000 --fpr 0.01
nsd $B add f2b-other 192.0.2.7 > /dev/null
fill() { nsd $B -j info f2b-other | python3 -c 'import json,sys; j=json.load(sys.stdin); j=j[0] if isinstance(j, list) else j; print(j["bits_set"], j["adds"])'; }
before=$(fill)
jail other
: > "$C/f2b.log"
expect 0 "fail2ban starts with a jail whose filter is another's" f2b start
fail 10.97.0.2 10.97.0.2
wait_for "fail2ban tried to ban and said why (actionstart, actionban)" \
	grep -q "ERROR.*Failed to execute ban jail 'other'" "$C/f2b.log"
like "... actionstart failed first" "$(cat "$C/f2b.log")" "ERROR +Failed to start jail 'other' action 'kbloom'"
check "the filter is left as it was (bits set, adds)" test "$(fill)" = "$before"
expect 0 "its key is still there" nsd $B test -q f2b-other 192.0.2.7
expect 0 "fail2ban stops" f2b stop
check "... and leaves that filter" bash -c "ip netns exec $D $B info f2b-other > /dev/null"
done_testing
