#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In the guest (the pkg lane): boot persistence with kbloom.service's own
# commands, two "boots" with a module reload in between.  Boot 1 starts
# the unit (no save file: first boot), creates a filter that an iptables
# ruleset references, and stops the unit (KBLOOM_SAVE_ON_STOP=yes saves).
# Without the unit, the ruleset cannot be restored after the reload; with
# it, the unit's start loads the modules and the filter, and then the
# ruleset restores.  A corrupt save file fails the start, but still
# creates the filter (empty), so that the ruleset restores.  The unit's ExecStart/ExecStop and EnvironmentFile are read
# from the unit file as `make install` laid it out.
#   pkg_boot.sh BUILD   (BUILD/pkg-root: make install DESTDIR; BUILD/kmod-KVER)
set -u
build=$1
kver=$(uname -r)
. "$(dirname "$0")/lib.sh"

echo "TAP version 13"
# The install and the modules, as a host would have them (overlay root).
# (tar: / has usrmerge's /lib -> usr/lib symlink, which cp -a would not follow)
tar -C "$build/pkg-root" -cf - . | tar -C / --keep-directory-symlink -xf - || { echo "not ok 1 - install $build/pkg-root"; exit 1; }
mkdir -p "/lib/modules/$kver/extra"
cp "$build/kmod-$kver/kmod/kbloom.ko" "$build/kmod-$kver/kmod/xt_bloom.ko" "/lib/modules/$kver/extra/"
depmod -a "$kver"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
unit=/lib/systemd/system/kbloom.service
save=/var/lib/kbloom/kbloom.save
rules=/etc/iptables/rules.v4
unitcmd() {	# unitcmd start|stop: the unit's Exec line, in its environment
	local key=ExecStart envf
	[ "$1" = stop ] && key=ExecStop
	envf=$(sed -n 's/^EnvironmentFile=-\{0,1\}//p' "$unit")
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin bash -c \
		"set -a; [ -r $envf ] && . $envf; set +a; exec $(sed -n "s/^$key=//p" "$unit")"
}
reboot() {	# what a reboot does to kbloom: no rules, no modules
	iptables -F INPUT
	rmmod xt_bloom kbloom 2> /dev/null
	! [ -d /sys/module/kbloom ]
}

check "no save file before the first boot" test ! -e "$save"
echo KBLOOM_SAVE_ON_STOP=yes > /etc/default/kbloom
mkdir -p "${rules%/*}"
printf '*filter\n-A INPUT -m bloom --bloom-name boot.bl --bloom-dir src -j DROP\nCOMMIT\n' > "$rules"

# Boot 1
logged "boot 1: the unit starts without a save file" unitcmd start
check "boot 1: the unit loaded kbloom and xt_bloom" \
	test -d /sys/module/kbloom -a -d /sys/module/xt_bloom
logged "boot 1: create the blocklist" bfctl create boot.bl blocked --items 1000 --fpr 0.01 --key-type ip
logged "boot 1: add a key" bfctl add boot.bl 192.0.2.66
logged "boot 1: the ruleset restores" iptables-restore "$rules"
logged "boot 1: the unit stops and saves" unitcmd stop
check "boot 1: the save file exists, mode 600" test "$(stat -c %a "$save" 2> /dev/null)" = 600
check "reboot" reboot

# Boot 2 as before kbloom.service: the rules come first, and fail.
modprobe xt_bloom
check "without the unit, iptables-restore rejects the ruleset" \
	sh -c "! iptables-restore '$rules' 2> /dev/null"
check "reboot" reboot

# Boot 2 with the unit first, as its Before= orders it.
logged "boot 2: the unit starts and restores" unitcmd start
check "boot 2: the unit loaded the modules" test -d /sys/module/xt_bloom
logged "boot 2: the ruleset restores" iptables-restore "$rules"
check "boot 2: the rule is there" grep -q 'bloom' <<< "$(iptables -S INPUT)"
logged "boot 2: the saved key is in the filter" bfctl test boot.bl 192.0.2.66
logged "boot 2: a second start (restart) replaces, does not fail" unitcmd start
check "reboot" reboot

# A corrupt (truncated) save file fails the start and says so, but
# creates the filter it names (empty: KBLOOM_RESTORE_FAILED's default).
truncate -s $(($(stat -c %s "$save") / 2)) "$save"
out=$(unitcmd start 2>&1)
rc=$?
check "a corrupt save file fails the unit" test "$rc" != 0
check "... with a message naming the file" grep -q "cannot restore $save" <<< "$out"
check "... and the filter" grep -q "not restored, created empty: boot.bl" <<< "$out"
logged "... which exists, so the ruleset restores" iptables-restore "$rules"
check "... empty" sh -c '! bfctl test -q boot.bl 192.0.2.66'
rm -f "$save"
: > /etc/default/kbloom
bfctl create x.bl blocked --items 10 --fpr 0.1 --key-type ip
logged "KBLOOM_SAVE_ON_STOP unset: stop succeeds" unitcmd stop
check "... no save file" test ! -e "$save"
reboot > /dev/null
rm -f "/lib/modules/$kver/extra/kbloom.ko" "/lib/modules/$kver/extra/xt_bloom.ko"
# Leave the guest as found for the next test (pkg_deb installs packages).
rmmod xt_bloom kbloom 2> /dev/null
(cd "$build/pkg-root" && find . ! -type d) | (cd / && xargs rm -f)
rm -f /etc/default/kbloom "$rules"
rm -rf /var/lib/kbloom
echo "1..$n"
exit $fail
