# SPDX-License-Identifier: GPL-2.0
# Sourced by bfctl_xdp.sh (its netns, veth and filter bl; veth-d bare):
# the blocklist in libxdp's dispatcher beside xdp-filter on one device.
# xdp-filter drops the source 10.98.0.3 its own way (its hash map), the
# blocklist the listed 10.98.0.2; each keeps working when the other is
# detached or unloaded, and detach removes only the blocklist, even when
# the dispatcher was rebuilt between its read and its request.  libxdp
# pins the dispatcher's programs in a bpffs; `ip netns exec` mounts a /sys
# of its own, so both use one of this test's, named by LIBXDP_BPFFS.
lx() { nsd env LIBXDP_BPFFS="$TMP/bpffs" "$@"; }
# the programs libxdp's dispatcher on veth-d runs, one name a line
# (xdp-filter's, xdpfilt_alw_ip and the like, as xdpfilt)
lx_progs() {
	lx xdp-loader status veth-d 2> /dev/null |
		awk '$1 == "=>" { print $3 }' | sed 's/^xdpfilt_.*/xdpfilt/'
}

if ! command -v xdp-filter > /dev/null; then
	nok "xdp-filter is installed (xdp-tools, scripts/deps)"
elif ! { mkdir -p "$TMP/bpffs" && mount -t bpf bpf "$TMP/bpffs"; }; then
	nok "a bpffs for libxdp mounts"
else
	expect 0 "libxdp: xdp-filter loads on veth-d" \
		lx xdp-filter load --mode native --features ipv4,ipv6 veth-d
	lx xdp-filter ip --mode src 10.98.0.3
	check "libxdp: xdp-filter drops 10.98.0.3" blocked 10.98.0.3 10.98.0.1
	check "libxdp: 10.98.0.2 passes xdp-filter" passes 10.98.0.2 10.98.0.1
	expect 3 "libxdp: --no-dispatcher is refused beside a dispatcher" \
		lx $B xdp attach veth-d bl --no-dispatcher
	like "libxdp: says it would replace all its programs" "$err" \
		"runs libxdp's dispatcher .*would replace all its programs"
	expect 3 "libxdp: another mode than the dispatcher's is refused" \
		lx $B xdp attach veth-d bl --mode generic
	expect 0 "libxdp: attach joins the dispatcher, no --replace" \
		lx $B xdp attach veth-d bl --priority 20
	like "libxdp: says so, with its priority" "$out" \
		"^veth-d: in libxdp's dispatcher at priority 20$"
	check "libxdp: the dispatcher runs both" \
		test "$(lx_progs | sort | tr '\n' ' ')" = "kbloom_xdp xdpfilt "
	check "libxdp: the blocklist drops 10.98.0.2" blocked 10.98.0.2 10.98.0.1
	check "libxdp: xdp-filter still drops 10.98.0.3" blocked 10.98.0.3 10.98.0.1
	check "libxdp: fd00:98::3 passes both" passes fd00:98::3 fd00:98::1
	check "libxdp: fd00:98::2 is dropped" blocked fd00:98::2 fd00:98::1
	expect 0 "libxdp: show -j" lx $B -j xdp show veth-d
	json_check "libxdp: show says native, dispatcher, priority 20, drops" "$out" \
		"len(j)==1 and j[0]['mode']=='native' and j[0]['dispatcher'] and j[0]['priority']==20 and j[0]['dropped']>=2"
	expect 0 "libxdp: show (text)" lx $B xdp show veth-d
	like "libxdp: names the dispatcher and priority" "$out" \
		"^veth-d: xdp native dispatcher priority 20 filter bl dir src prog [0-9]+ "
	expect 3 "libxdp: detach without its bpffs does not see it" nsd $B xdp detach veth-d
	like "libxdp: and says why" "$err" "pinned in a bpffs not mounted here"
	check "libxdp: the blocklist stays" blocked 10.98.0.2 10.98.0.1
	old=$(lx $B -j xdp show veth-d | python3 -c "import json,sys; print(json.load(sys.stdin)[0]['prog_id'])")
	expect 0 "libxdp: attach again replaces ours in the dispatcher" \
		lx $B xdp attach veth-d bl --dir src
	like "libxdp: keeping its priority" "$out" "at priority 20$"
	check "libxdp: one blocklist, a new one, beside xdp-filter" \
		test "$(lx_progs | sort | tr '\n' ' ')" = "kbloom_xdp xdpfilt "
	json_check "libxdp: not program $old any more" "$(lx $B -j xdp show veth-d)" \
		"j[0]['prog_id'] != $old and j[0]['priority']==20"
	# a save keeps its place in the dispatcher; restore puts it back there
	expect 0 "libxdp: save" lx $B save -file "$TMP/lx.save"
	check "libxdp: the attach line has its priority" \
		grep -qx "attach xdp veth-d bl mode=native dir=src prio=20" "$TMP/lx.save"
	expect 0 "libxdp: detach before the restore" lx $B xdp detach veth-d
	expect 0 "libxdp: restore re-attaches it" lx $B restore -exist -file "$TMP/lx.save"
	json_check "libxdp: in the dispatcher again, at priority 20" "$(lx $B -j xdp show veth-d)" \
		"j[0]['dispatcher'] and j[0]['priority']==20"
	check "libxdp: beside xdp-filter still" \
		test "$(lx_progs | sort | tr '\n' ' ')" = "kbloom_xdp xdpfilt "
	expect 0 "libxdp: detach" lx $B xdp detach veth-d
	check "libxdp: only xdp-filter is left" test "$(lx_progs)" = xdpfilt
	check "libxdp: 10.98.0.2 passes after detach" passes 10.98.0.2 10.98.0.1
	check "libxdp: xdp-filter still drops 10.98.0.3" blocked 10.98.0.3 10.98.0.1
	expect 3 "libxdp: detach again: none left" lx $B xdp detach veth-d
	# the dispatcher rebuilt (xdp-filter unloaded) while detach is paused
	# between reading veth-d and detaching: only the blocklist goes
	expect 0 "libxdp: attach (default priority)" lx $B xdp attach veth-d bl
	like "libxdp: at priority 50" "$out" "at priority 50$"
	mkfifo "$TMP/lxpause"
	BFCTL_XDP_TEST_PAUSE=$TMP/lxpause lx $B xdp detach veth-d \
		> "$TMP/lxdet.out" 2> "$TMP/lxdet.err" &
	det=$!
	ok=0
	timeout 30 head -c2 "$TMP/lxpause" > /dev/null || ok=1
	lx xdp-filter unload veth-d || ok=1
	lx xdp-filter load --mode native --features ipv4,ipv6 veth-d || ok=1
	lx xdp-filter ip --mode src 10.98.0.3 || ok=1
	timeout 30 bash -c ": > '$TMP/lxpause'" || ok=1
	rc=0
	wait $det || rc=$?
	check "libxdp: xdp-filter reloaded while detach paused" test $ok = 0
	check "libxdp: the paused detach succeeds (exit $rc)" test $rc = 0
	[ $rc = 0 ] || diag "$(cat "$TMP/lxdet.err")"
	check "libxdp: and left xdp-filter" test "$(lx_progs)" = xdpfilt
	check "libxdp: which drops 10.98.0.3" blocked 10.98.0.3 10.98.0.1
	# the other way round: xdp-filter unloaded, the blocklist stays
	expect 0 "libxdp: attach beside xdp-filter" lx $B xdp attach veth-d bl
	expect 0 "libxdp: xdp-filter unloads" lx xdp-filter unload veth-d
	check "libxdp: the blocklist is left" test "$(lx_progs)" = kbloom_xdp
	check "libxdp: and drops 10.98.0.2" blocked 10.98.0.2 10.98.0.1
	check "libxdp: 10.98.0.3 passes" passes 10.98.0.3 10.98.0.1
	expect 0 "libxdp: detach the last one" lx $B xdp detach veth-d
	check "libxdp: nothing left on veth-d" \
		bash -c "! ip -n $D link show veth-d | grep -q 'prog/xdp'"
	lx xdp-filter unload veth-d 2> /dev/null
	nsd ip link set dev veth-d xdp off 2> /dev/null
	umount "$TMP/bpffs"
fi
