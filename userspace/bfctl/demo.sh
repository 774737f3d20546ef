#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A bfctl walk-through for make run (called by scripts/demo in the VM,
# kbloom loaded): every command is echoed before it runs.
#   userspace/bfctl/demo.sh BFCTL
set -u
B=${1:?usage: $0 BFCTL}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
show() {
	local rc=0

	echo "+ ${*//$B/bfctl}"
	"$@" || rc=$?
	echo
	return $rc
}

echo "== bfctl walk-through =="
show $B version
$B monitor > "$tmp/events" &
mon=$!
sleep 0.5
show $B create blocklist blocked --items 1000000 --fpr 0.001 --key-type net
show $B add blocklist 192.0.2.0/24 198.51.100.7 2001:db8::/32
show $B test blocklist 192.0.2.0/24 203.0.113.9
echo "exit status $? (1: a key is absent)"
seq 0 99999 | awk '{ printf "10.%d.%d.0/24\n", int($1 / 256) % 256, $1 % 256 }' > "$tmp/nets"
show $B add blocklist -file "$tmp/nets"
show $B list
show $B info blocklist
show $B -j info blocklist
show $B save blocklist -file "$tmp/blocklist.save"
show head -c 300 "$tmp/blocklist.save"
echo
show $B export blocklist -o "$tmp/before.img"
show $B destroy blocklist
show $B restore -file "$tmp/blocklist.save"
show $B export blocklist -o "$tmp/after.img"
show cmp "$tmp/before.img" "$tmp/after.img"
echo "(save -> destroy -> restore is byte-identical)"
# A new list: 10.0.0.0/16's nets gone, 203.0.113.0/24 new; the rebuild
# stages it while the live filter answers and swaps it in at commit.
{ grep -v '^10\.0\.' "$tmp/nets"; echo 203.0.113.0/24; } > "$tmp/new"
show wc -l "$tmp/new"
show $B rebuild blocklist -file "$tmp/new"
show $B test blocklist 203.0.113.0/24 10.0.7.0/24 10.1.7.0/24
echo "exit status $? (10.0.7.0/24 left with the rebuild)"
# A truncated list would empty a live blocklist: refused, nothing changed.
head -n 3 "$tmp/new" > "$tmp/truncated"
show $B rebuild blocklist -file "$tmp/truncated" ||
	echo "=> refused on purpose: a 3-line file would drop almost every key (--force to do it)"
show $B test blocklist 203.0.113.0/24
show $B create counters counting --items 1000 --fpr 0.01 --key-type str
show $B test-and-add counters alice bob alice
show $B del counters bob
show $B destroy counters
show $B destroy blocklist

echo "== an exec filter (BPF LSM) =="
cp /bin/true "$tmp/forbidden"
printf '%s\n' "$tmp/forbidden" > "$tmp/paths"
show $B create noexec blocked --items 100 --fpr 0.01 --key-type str
if show $B lsm attach noexec -file "$tmp/paths" --exec; then
	show "$tmp/forbidden"
	echo "exit status $? (126: exec denied, EPERM)"
	show $B lsm show
	show $B lsm log --once
	show $B lsm detach
	show "$tmp/forbidden"
	echo "exit status $? (detached: runs again)"
fi
show $B destroy noexec
sleep 0.5
kill $mon 2> /dev/null
wait $mon 2> /dev/null
echo "+ bfctl monitor (ran in the background meanwhile):"
cat "$tmp/events"
