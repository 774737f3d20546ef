#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest half of the .deb test (the pkg lane, make check-pkg).  The
# host half, pkg_deb_chroot.sh, ran `dpkg -i` of the .debs of `make deb`
# in a chroot of this same root, where DKMS compiled and signed the
# modules for this kernel at native speed (under TCG the compile alone
# took over twenty minutes), and left what changed as ROOT/root.tar and
# ROOT/deleted.  Here: apply that to the overlay root, so that the
# packages are installed as far as dpkg, DKMS and modprobe can tell; load
# the modules DKMS built, walk through create, add, test, an iptables rule
# and a save with the installed programs; then purge both packages here:
# nothing of theirs is left (files, /var/lib/dkms/kbloom, modules, the
# save file, unit links).
#   pkg_deb.sh DEBDIR ROOT
set -u
debs=$1 root=$2
kver=$(uname -r)
. "$(dirname "$0")/lib.sh"

echo "TAP version 13"
# the installed programs, not a make install under /usr/local
export PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive
# man-db's trigger would rebuild the whole index under TCG: the guest only
rm -f /var/lib/man-db/auto-update
# the guest's /dev is a bare devtmpfs; dkms needs <(...), so /dev/fd
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
dkms_deb=$(ls "$debs"/kbloom-dkms_*_all.deb 2> /dev/null)
bfctl_deb=$(ls "$debs"/bfctl_*_amd64.deb 2> /dev/null)
[ -n "$dkms_deb" ] && [ -n "$bfctl_deb" ] ||
	{ echo "not ok 1 - .debs in $debs (make deb)"; echo "1..1"; exit 1; }
ver=$(dpkg-deb -f "$dkms_deb" Version)
files=$( (dpkg-deb -c "$dkms_deb"; dpkg-deb -c "$bfctl_deb") |
	awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }')

check "kbloom not loaded before" test ! -d /sys/module/kbloom
check "not installed before" sh -c '! dpkg -s bfctl kbloom-dkms > /dev/null 2>&1'
apply() {
	local p
	while read -r p; do rm -rf "/${p:?}"; done < "$root/deleted"
	tar -C / -xpf "$root/root.tar"
}
logged "the chroot's dpkg -i applied to this root" apply
check "dpkg: both packages installed" \
	test "$(dpkg-query -W -f '${Status}\n' bfctl kbloom-dkms 2> /dev/null | grep -c 'install ok installed')" = 2
check "dkms status: kbloom/$ver installed for $kver" \
	grep -q "^kbloom/$ver, $kver, .*: installed" <<< "$(dkms status -m kbloom 2>&1)"
mods=$(ls /lib/modules/"$kver"/updates/dkms/{kbloom,xt_bloom}.ko* 2> /dev/null)
check "both modules under /lib/modules/$kver/updates/dkms" test "$(wc -w <<< "$mods")" = 2
for m in $mods; do
	check "${m##*/} signed with DKMS's key" test -n "$(modinfo -F signer "$m")"
done
check "the kbloom group exists" eval 'getent group kbloom > /dev/null'
check "kbloom.service enabled" test -L /etc/systemd/system/multi-user.target.wants/kbloom.service
check "kbloom-attach.service enabled" test -L /etc/systemd/system/multi-user.target.wants/kbloom-attach.service
logged "modprobe xt_bloom (and kbloom) from DKMS's tree" modprobe xt_bloom
check "the loaded kbloom is DKMS's" \
	test "$(modinfo -n kbloom 2> /dev/null)" = "$(ls /lib/modules/"$kver"/updates/dkms/kbloom.ko* 2> /dev/null)" -a -d /sys/module/kbloom
# udevd does not run here: udevadm test (systemd 252) applies the rules
# to the device, permissions included, and names the rule lines it used
udev=$(udevadm test --action=add /sys/class/misc/kbloom 2>&1)
check "udev's 60-kbloom.rules sets the group and mode of /dev/kbloom" \
	eval 'grep -q "60-kbloom.rules:[0-9]* GROUP $(getent group kbloom | cut -d: -f3)\$" <<< "$udev" && grep -q "60-kbloom.rules:[0-9]* MODE 0666\$" <<< "$udev"'
check "/dev/kbloom is group kbloom, mode 0666" \
	test "$(stat -c '%G %a' /dev/kbloom)" = "kbloom 666"
[ "$fail" = 0 ] || printf '%s\n' "$udev" | grep -i 'kbloom\|perm' | tail -n 20 | sed 's/^/# /'

# The walk-through, with the installed programs and extension only.
logged "bfctl create" bfctl create pkg.t blocked --items 1000 --fpr 0.01 --key-type ip
logged "bfctl add" bfctl add pkg.t 192.0.2.1 198.51.100.7
logged "bfctl test: added key present" bfctl test pkg.t 192.0.2.1
check "bfctl test: other key absent (exit 1)" sh -c 'bfctl test pkg.t 203.0.113.9 > /dev/null; [ $? = 1 ]'
logged "iptables -m bloom with the installed libxt_bloom" \
	iptables -A INPUT -m bloom --bloom-name pkg.t --bloom-dir src -j DROP
logged "kbloom-persist save" /usr/libexec/kbloom/kbloom-persist save
check "the save file holds the filter" grep -q pkg.t /var/lib/kbloom/kbloom.save
iptables -D INPUT -m bloom --bloom-name pkg.t --bloom-dir src -j DROP
bfctl destroy pkg.t
logged "rmmod xt_bloom kbloom" rmmod xt_bloom kbloom

logged "dpkg --purge bfctl kbloom-dkms" dpkg --purge bfctl kbloom-dkms
left=$(for f in $files; do [ -e "$f" ] && echo "$f"; done)
check "no file of either package left" test -z "$left"
[ -z "$left" ] || printf '# left: %s\n' $left
check "dpkg knows neither package" sh -c '! dpkg -s bfctl kbloom-dkms > /dev/null 2>&1'
check "no /var/lib/dkms/kbloom" test ! -e /var/lib/dkms/kbloom
check "no kbloom module for $kver" test -z "$(find /lib/modules/"$kver" -name 'kbloom.ko*' -o -name 'xt_bloom.ko*')"
check "modprobe finds no kbloom" sh -c '! modinfo kbloom > /dev/null 2>&1'
check "no /usr/src/kbloom-$ver" test ! -e "/usr/src/kbloom-$ver"
check "no save file, no /var/lib/kbloom" test ! -e /var/lib/kbloom
check "no kbloom.service links" test -z "$(find /etc/systemd -name 'kbloom*')"
echo "1..$n"
exit $fail
