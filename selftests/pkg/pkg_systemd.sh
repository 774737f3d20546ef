#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In the guest (the pkg lane): two real boots with systemd as PID 1.  The
# guest's root (make install's files added) is the lower layer of an
# overlay booted twice with systemd-nspawn -b, each boot in a new network
# namespace (--private-network), so the filters of boot 1 are gone in
# boot 2 as after a reboot; the overlay's upper layer is the disk that
# survives.  Boot 1 (first boot, no save file) creates a filter, writes an
# iptables ruleset that uses it, and powers off: kbloom.service saves
# (KBLOOM_SAVE_ON_STOP=yes).  Boot 2: iptables.service (iptables-restore
# of that ruleset, no ordering of its own) succeeds only because
# kbloom.service restored the filter before it.  A third boot with
# kbloom.service masked shows that the ruleset fails without it.  In boot
# 2, bfctl-redis-watch@.service follows a key of a redis-server started
# by the probe, as a dynamic user with CAP_NET_ADMIN alone.  A fourth
# boot, with the filter's block in the save file corrupted and
# KBLOOM_RESTORE_FAILED=closed: kbloom.service fails, loudly (journal,
# kernel log), but only after creating the filter, so the ruleset loads
# whole and the filter answers "maybe" for every key; the failed unit does
# not save over the file at poweroff.
# Attachments (the same boots): boot 1 also attaches an XDP blocklist
# (boot.bl) to a veth that kbtest-net.service creates at every boot
# before kbloom-attach.service, and, when the kernel's BPF LSM is active,
# an LSM path filter whose list file it then deletes; boot 2 finds them
# attached again by the units, from the save alone: a listed source's ping
# is dropped (the blocklist's counter says so) and the listed file does
# not run.  systemd-nspawn's /sys has no fs/bpf, so every boot gets the
# guest's bpffs bound on /sys/fs/bpf; its pins (the LSM filter's links)
# outlive a container as they would not outlive a reboot, so between
# boots 1 and 2 the guest detaches the filter, as a reboot would, and
# boot 2 must attach it again itself.
# The modules are loaded in the guest (a container cannot load them).
#   pkg_systemd.sh BUILD   (BUILD/pkg-root: make install DESTDIR; BUILD/kmod-KVER)
set -u
build=$1
kver=$(uname -r)
. "$(dirname "$0")/lib.sh"

echo "TAP version 13"
command -v systemd-nspawn > /dev/null ||
	{ echo "ok 1 # SKIP no systemd-nspawn (make deps: systemd-container)"; echo "1..1"; exit 0; }
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
# (tar: / has usrmerge's /lib -> usr/lib symlink, which cp -a would not follow)
tar -C "$build/pkg-root" -cf - . | tar -C / --keep-directory-symlink -xf - || { echo "not ok 1 - install $build/pkg-root"; exit 1; }
for m in kbloom xt_bloom; do
	ko=$build/kmod-$kver/kmod/$m.ko
	for dep in $(modinfo -F depends "$ko" | tr , ' '); do
		[ -d "/sys/module/$dep" ] || modprobe "$dep"
	done
	[ -d /sys/module/$m ] || insmod "$ko" 2>&1 | sed 's/^/# /'
done
check "kbloom and xt_bloom loaded in the guest" test -d /sys/module/xt_bloom -a -c /dev/kbloom

# The disk: an overlay over the guest root, its upper layer on a tmpfs.
d=/run/kbsd
mkdir -p $d && mount -t tmpfs tmpfs $d && mkdir -p $d/upper $d/work $d/root ||
	{ echo "not ok 2 - tmpfs"; exit 1; }
mount -t overlay overlay -o lowerdir=/,upperdir=$d/upper,workdir=$d/work $d/root ||
	{ echo "not ok 2 - overlay root"; exit 1; }
r=$d/root
u=$r/etc/systemd/system
# (the guest loaded the modules: a container cannot)
printf 'KBLOOM_SAVE_ON_STOP=yes\nKBLOOM_MODULES=\n' > $r/etc/default/kbloom
rm -f $r/var/lib/kbloom/kbloom.save $r/etc/iptables/rules.v4
mkdir -p $r/etc/iptables $r/var/lib/kbtest
# the LSM part of the boots: only where the kernel's BPF LSM is active
mountpoint -q /sys/kernel/security || mount -t securityfs securityfs /sys/kernel/security
case ",$(cat /sys/kernel/security/lsm 2> /dev/null)," in
*,bpf,*) : > $r/var/lib/kbtest/lsm; lsm=yes ;;
*) rm -f $r/var/lib/kbtest/lsm; lsm=no ;;
esac
# the guest's bpffs, bound into every boot (see above; libxdp's
# dispatcher pins there too)
bpffs_ours=no
mountpoint -q /sys/fs/bpf || { mount -t bpf -o mode=0700 bpf /sys/fs/bpf && bpffs_ours=yes; }
# The test's boot target: kbloom.service, a rules loader, a probe.
cat > $u/kbtest.target <<'UNIT'
[Unit]
Description=kbloom boot test
Wants=kbloom.service kbloom-attach.service iptables.service kbprobe.service
Wants=kbtest-net.service
UNIT
# the blocklist's device, made at every boot before kbloom-attach.service
# needs it; a second netns holds the sender (192.0.2.66 is in boot.bl)
cat > $u/kbtest-net.service <<'UNIT'
[Unit]
Description=kbloom boot test: a veth for the blocklist
DefaultDependencies=no
Before=kbloom-attach.service
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/sh -ec 'ip netns add kbpeer; ip link add kbv0 type veth peer name kbv1 netns kbpeer; ip addr add 192.0.2.1/24 dev kbv0; ip link set kbv0 up; ip -n kbpeer link set lo up; ip -n kbpeer addr add 192.0.2.66/24 dev kbv1; ip -n kbpeer link set kbv1 up'
UNIT
cat > $u/iptables.service <<'UNIT'
[Unit]
Description=iptables rules (ordered by nothing but kbloom.service's Before=)
DefaultDependencies=no
ConditionPathExists=/etc/iptables/rules.v4
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/sbin/iptables-restore /etc/iptables/rules.v4
UNIT
cat > $u/kbprobe.service <<'UNIT'
[Unit]
Description=kbloom boot test probe
After=iptables.service kbloom.service kbloom-attach.service kbtest-net.service
SuccessAction=poweroff
FailureAction=poweroff
[Service]
Type=oneshot
ExecStart=/bin/bash /etc/kbprobe
UNIT
cat > $r/etc/kbprobe <<'PROBE'
log=/var/lib/kbtest/boot$(cat /var/lib/kbtest/boot)
{
	echo "kbloom=$(systemctl is-active kbloom.service)"
	echo "iptables=$(systemctl is-active iptables.service)"
	echo "kbloom_failed=$(systemctl is-failed kbloom.service)"
	iptables -S INPUT | grep -q bloom && echo rule=yes || echo rule=no
	echo "rules=$(iptables -S INPUT | grep -c '^-A')"
	bfctl test -q boot.bl $(seq -f 198.18.7.%g 1 200) > /dev/null 2>&1 &&
		echo closed=yes || echo closed=no
	bfctl test boot.bl 192.0.2.66 > /dev/null 2>&1 && echo key=yes || echo key=no
	systemctl show -p ExecMainStatus --value kbloom.service | sed 's/^/kbloom_status=/'
	journalctl -b -u kbloom.service --no-pager -o cat | sed 's/^/journal: /'
	echo "attach=$(systemctl is-active kbloom-attach.service)"
	journalctl -b -u kbloom-attach.service --no-pager -o cat | sed 's/^/attach journal: /'
	# the blocklist on kbv0, and a listed source's ping dropped by it
	bfctl xdp show kbv0 2>&1 | sed 's/^/xdp: /'
	ping1() { ip netns exec kbpeer ping -q -c1 -W2 -I 192.0.2.66 192.0.2.1 > /dev/null 2>&1; }
	[ "$(cat /var/lib/kbtest/boot)" = 1 ] && { ping1 && echo ping_before=yes || echo ping_before=no; }
	[ "$(cat /var/lib/kbtest/boot)" = 1 ] && bfctl create boot.bl blocked --items 1000 --fpr 0.01 --key-type ip &&
		bfctl add boot.bl 192.0.2.66 && bfctl xdp attach kbv0 boot.bl --mode generic &&
		echo xdp_attached=yes
	# (boots 3 and 4 test other things: no time spent on pings there)
	[ "$(cat /var/lib/kbtest/boot)" -le 2 ] && { ping1 && echo ping_listed=passed || echo ping_listed=dropped; }
	bfctl -j xdp show kbv0 2> /dev/null |
		python3 -c "import json,sys; print('xdp_dropped=%d' % json.load(sys.stdin)[0]['dropped'])"
	# the LSM path filter (when the kernel's BPF LSM is active)
	echo "bpffs=$(stat -f -c %T /sys/fs/bpf 2> /dev/null)"
	if [ -e /var/lib/kbtest/lsm ]; then
		if [ "$(cat /var/lib/kbtest/boot)" = 1 ]; then
			install -m 700 /bin/true /usr/local/bin/kbdenied &&
			echo /usr/local/bin/kbdenied > /etc/kbdenied.list &&
			bfctl create boot.paths classic --items 100 --fpr 0.01 --key-type str &&
			bfctl lsm attach boot.paths -file /etc/kbdenied.list &&
			echo lsm_attached=yes
			# the save must not need the list file
			rm -f /etc/kbdenied.list
		fi
		bfctl lsm show --path 2>&1 | sed 's/^/lsm: /'
		/usr/local/bin/kbdenied 2> /dev/null && echo lsm_exec=ran || echo lsm_exec=denied
		/bin/true && echo lsm_other=ran
	fi
} > "$log" 2>&1
# boot 2: bfctl-redis-watch@.service follows a key as its dynamic user,
# in the kbloom group, with CAP_NET_ADMIN alone (skipped without redis)
if [ "$(cat /var/lib/kbtest/boot)" = 2 ] && command -v redis-server > /dev/null; then {
	w=bfctl-redis-watch@boot.gz.service rs=/run/kbredis.sock
	redis-server --port 0 --unixsocket $rs --unixsocketperm 777 --save "" \
		--appendonly no --notify-keyspace-events KA --daemonize yes \
		--logfile /var/lib/kbtest/redis.log
	for i in $(seq 50); do [ -S $rs ] && break; sleep 0.2; done
	# what 60-kbloom.rules does (no udev here)
	chgrp kbloom /dev/kbloom && chmod 666 /dev/kbloom
	bfctl create boot.src gozero --bits 8192 --key-type str &&
	bfctl add boot.src probe-key > /dev/null &&
	bfctl redis push boot.src gz --server unix://$rs > /dev/null &&
	bfctl create boot.gz gozero --bits 8192 --key-type str
	mkdir -p /etc/kbloom
	printf 'BFCTL_REDIS_SERVER=unix://%s\nBFCTL_REDIS_KEY=gz\nBFCTL_REDIS_OPTS=--poll 1\n' $rs \
		> /etc/kbloom/redis-boot.gz.conf
	: > /etc/kbloom/redis-boot.gz.password
	chmod 600 /etc/kbloom/redis-boot.gz.password
	systemctl start $w
	for i in $(seq 120); do
		bfctl test -q boot.gz probe-key && break
		sleep 0.5
	done
	bfctl test -q boot.gz probe-key && echo watch_key=yes || echo watch_key=no
	pid=$(systemctl show -p MainPID --value $w)
	echo "watch_uid=$(awk '/^Uid:/ { print $2 }' /proc/$pid/status)"
	g=$(getent group kbloom | cut -d: -f3)
	awk -v g="$g" '/^Groups:/ { for (i = 2; i <= NF; i++) if ($i == g) f = 1 }
		END { print "watch_kbloom_group=" (f ? "yes" : "no") }' /proc/$pid/status
	echo "watch_capeff=$(awk '/^CapEff:/ { print $2 }' /proc/$pid/status)"
	echo "watch_memorymax=$(systemctl show -p MemoryMax --value $w)"
	systemctl stop $w
	journalctl -b -u $w --no-pager -o cat | sed 's/^/watch journal: /'
} >> "$log" 2>&1; fi
if [ "$(cat /var/lib/kbtest/boot)" = 1 ]; then
	bfctl test -q boot.bl 192.0.2.66 &&
	printf '*filter\n-A INPUT -m bloom --bloom-name boot.bl --bloom-dir src -j DROP\n-A INPUT -p tcp --dport 22 -j ACCEPT\nCOMMIT\n' \
		> /etc/iptables/rules.v4
	echo "created=$?" >> "$log"
fi
PROBE

boot() {	# boot N: one boot; $log: its probe's log
	local i=$1 t0=$SECONDS rc=0 blog=${KB_OUT:-/tmp}/pkg_systemd-boot$1.log
	echo "$i" > $r/var/lib/kbtest/boot
	# bpf(): nspawn's filter leaves it out by default (the blocklist, the
	# LSM filter).  No systemd on the guest to register with: --register=no, and
	# --keep-unit in a cgroup of this boot's own (nspawn makes its
	# payload/supervisor cgroups there; a second boot in the same one
	# fails with EBUSY).
	mkdir -p /sys/fs/cgroup/kbsd$i
	(echo $BASHPID > /sys/fs/cgroup/kbsd$i/cgroup.procs &&
	 exec timeout -k 5 240 systemd-nspawn -q -D $r --private-network \
		--register=no --keep-unit --bind=/dev/kbloom --bind=/dev/kmsg \
		--bind=/sys/fs/bpf \
		--system-call-filter=bpf \
		-b -- systemd.unit=kbtest.target) > "$blog" 2>&1 || rc=$?
	echo "# boot $i: nspawn exit $rc after $((SECONDS - t0)) s"
	log=$(cat $r/var/lib/kbtest/boot$i 2> /dev/null)
	[ -n "$log" ] || tail -n 30 "$blog" | sed 's/^/# /'
}
has() { grep -qx "$1" <<< "$log"; }
both() { has "$1" && has "$2"; }
hasre() { grep -q "$1" <<< "$log"; }

boot 1
check "boot 1: kbloom.service active without a save file (first boot)" has kbloom=active
check "boot 1: the journal says there was nothing to restore" grep -q "nothing to restore" <<< "$log"
check "boot 1: the probe created the filter and the ruleset" has created=0
check "boot 1: kbloom.service saved at poweroff" test -s $r/var/lib/kbloom/kbloom.save
check "boot 1: a ping from 192.0.2.66 passes before the blocklist" has ping_before=yes
check "boot 1: the blocklist attached to kbv0 drops it" \
	both xdp_attached=yes ping_listed=dropped
check "boot 1: the save has the blocklist's attach line" \
	grep -qxE 'attach xdp kbv0 boot.bl mode=generic dir=src( alone| prio=50)' \
		$r/var/lib/kbloom/kbloom.save
check "boot 1: the container has the guest's bpffs on /sys/fs/bpf" has bpffs=bpf_fs
if [ $lsm = yes ]; then
	check "boot 1: the LSM path filter attached, denies the listed file" \
		both lsm_attached=yes lsm_exec=denied
	check "boot 1: the save carries its list, not the list file's name" \
		sh -c "grep -A1 -x 'attach lsm boot.paths mode=path hooks=exec enforce' '$r/var/lib/kbloom/kbloom.save' |
			grep -qx 'list /usr/local/bin/kbdenied'"
	# the container is gone, its LSM filter is not (bpffs pins, the
	# kernel's programs): take it away as a reboot would
	check "boot 1 over: its LSM filter is still pinned in the guest" \
		test -e /sys/fs/bpf/kbloom/lsm/config
	logged "... bfctl lsm detach in the guest takes it away" bfctl lsm detach
	check "... nothing of it left pinned" test ! -e /sys/fs/bpf/kbloom/lsm
fi
[ "$fail" = 0 ] || sed 's/^/# /' <<< "$log"
boot 2
check "boot 2: kbloom.service active (restored)" has kbloom=active
check "boot 2: iptables.service loaded the ruleset that uses the filter" has iptables=active
check "boot 2: the rule is in the new netns" has rule=yes
check "boot 2: the saved key answers" has key=yes
check "boot 2: the whole ruleset" has rules=2
check "boot 2: a filter restored whole answers absent for keys never added" has closed=no
check "boot 2: kbloom-attach.service attached the blocklist again" has attach=active
check "boot 2: ... on kbv0, generic mode (in libxdp's dispatcher), testing boot.bl" hasre '^xdp: kbv0: xdp generic \(dispatcher priority [0-9]* \)\{0,1\}filter boot\.bl '
check "boot 2: ... a listed source's ping is dropped" has ping_listed=dropped
check "boot 2: ... by the blocklist (its dropped counter)" hasre '^xdp_dropped=[1-9]'
if [ $lsm = yes ]; then
	check "boot 2: kbloom.service attached the LSM path filter again" hasre '^lsm: filter boot\.paths '
	check "boot 2: ... its listed file does not run" has lsm_exec=denied
	check "boot 2: ... others do" has lsm_other=ran
	check "boot 2: ... and kbloom.service did not fail" has kbloom_failed=active
	check "... nor logged a failure or an attachment left as it was" \
		eval '! grep -Eiq "^journal: .*(fail|cannot|not attached|left as it is|error)" <<< "$log"'
	# boots 3 and 4 test other things: as after a reboot again
	bfctl lsm detach > /dev/null 2>&1
else
	n=$((n + 1))
	echo "ok $n # SKIP the LSM filter's reboot: the guest kernel's BPF LSM is not active (lsm: $(cat /sys/kernel/security/lsm 2> /dev/null))"
fi
if command -v redis-server > /dev/null; then
	check "boot 2: bfctl-redis-watch@ follows a Redis key into the kernel" has watch_key=yes
	check "boot 2: ... as a user of its own, not root" hasre '^watch_uid=[1-9]'
	check "boot 2: ... in the kbloom group" has watch_kbloom_group=yes
	check "boot 2: ... with CAP_NET_ADMIN alone (CapEff 0x1000)" has watch_capeff=0000000000001000
	check "boot 2: ... with a MemoryMax" hasre '^watch_memorymax=[0-9]'
	grep -q '^watch_key=yes' <<< "$log" || grep '^watch journal' <<< "$log" | sed 's/^/# /' 
fi
[ "$fail" = 0 ] || sed 's/^/# /' <<< "$log"
ln -sf /dev/null $u/kbloom.service
boot 3
rm -f $u/kbloom.service
check "boot without kbloom.service (masked): iptables.service fails" has iptables=failed
check "... and no rule is loaded" has rule=no
# (the LSM filter detached after boot 2: what boot 2 denied runs, so it
# was kbloom.service's attachment that denied it)
[ $lsm = no ] || check "... and, no LSM filter attached, the file boot 2 denied runs" has lsm_exec=ran
# Boot 4: one payload line of boot.bl's block changed (its CRC fails)
s=$r/var/lib/kbloom/kbloom.save
pl=$(awk '/^filter boot\.bl / { f = 1; next } f && !/^\*/ { print NR; exit }' $s)
awk -v n="$pl" 'NR == n { c = substr($0, 1, 1); $0 = (c == "A" ? "B" : "A") substr($0, 2) } { print }' \
	$s > $d/bad.save && cp $d/bad.save $s
be=$(awk -v n="$pl" 'NR > n && $0 == "end" { print NR; exit }' $s)	# (where the CRC fails)
printf 'KBLOOM_SAVE_ON_STOP=yes\nKBLOOM_MODULES=\nKBLOOM_RESTORE_FAILED=closed\n' > $r/etc/default/kbloom
dmesg -C 2> /dev/null
t0=$SECONDS
boot 4
check "boot 4, a corrupt save: kbloom.service failed" has kbloom_failed=failed
check "... iptables.service loaded the ruleset" has iptables=active
check "... the whole ruleset" has rules=2
check "... the journal names the filter and its bad line" \
	grep -q "^journal: bfctl: restore: .*: filter boot\.bl (line [0-9]*) not restored: line $be: filter boot\.bl: crc32c does not match" <<< "$log"
check "... the kernel log names the filter" \
	grep -q 'kbloom: not restored, created closed (every key answers maybe): boot\.bl$' <<< "$(dmesg)"
check "... KBLOOM_RESTORE_FAILED=closed: it answers maybe for keys never added" has closed=yes
check "... the failed unit did not save over the file at poweroff" cmp -s $d/bad.save $s
echo "# boot 4 (corrupt save): $((SECONDS - t0)) s"
[ "$fail" = 0 ] || { sed 's/^/# /' <<< "$log"; dmesg | grep kbloom | sed 's/^/# dmesg: /'; }
umount $r && umount $d
bfctl lsm detach > /dev/null 2>&1
[ $bpffs_ours = no ] || umount /sys/fs/bpf
# Leave the guest as found for the next test (pkg_deb installs packages).
rmmod xt_bloom kbloom 2> /dev/null
(cd "$build/pkg-root" && find . ! -type d) | (cd / && xargs rm -f)
rm -f /etc/default/kbloom
echo "1..$n"
exit $fail
