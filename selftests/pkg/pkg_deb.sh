#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# NOT YET IN selftests/manifest: no run has passed yet (the last one, with
# DKMS compiling under TCG on a host with load 10, was still in dpkg -i
# after 20 minutes); register it (lane pkg, last) once one does.
# In the guest (the pkg lane, make check-pkg): install the .debs of
# `make deb` with dpkg into the overlay root, let DKMS build and sign the
# modules for the running kernel, load them, walk through create, add,
# test, an iptables rule and a save, then purge both packages: nothing of
# theirs is left (files, /var/lib/dkms/kbloom, modules, the save file).
#   pkg_deb.sh DEBDIR
set -u
debs=$1
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
t0=$SECONDS
logged "dpkg -i kbloom-dkms bfctl (DKMS builds for $kver)" \
	dpkg -i "$dkms_deb" "$bfctl_deb" < /dev/null
echo "# dpkg -i took $((SECONDS - t0)) s"
check "dkms status: kbloom/$ver installed for $kver" \
	grep -q "^kbloom/$ver, $kver, .*: installed" <<< "$(dkms status -m kbloom 2>&1)"
mods=$(ls /lib/modules/"$kver"/updates/dkms/{kbloom,xt_bloom}.ko* 2> /dev/null)
check "both modules under /lib/modules/$kver/updates/dkms" test "$(wc -w <<< "$mods")" = 2
for m in $mods; do
	check "${m##*/} signed with DKMS's key" test -n "$(modinfo -F signer "$m")"
done
check "the kbloom group exists" eval 'getent group kbloom > /dev/null'
check "kbloom.service enabled" test -L /etc/systemd/system/multi-user.target.wants/kbloom.service
logged "modprobe xt_bloom (and kbloom) from DKMS's tree" modprobe xt_bloom
check "the loaded kbloom is DKMS's" \
	test "$(modinfo -n kbloom 2> /dev/null)" = "$(ls /lib/modules/"$kver"/updates/dkms/kbloom.ko* 2> /dev/null)" -a -d /sys/module/kbloom
# udevd does not run here: udevadm test applies the rules to the device
udev=$(udevadm test /sys/class/misc/kbloom 2>&1)
urule() { grep -q "60-kbloom.rules:[0-9]* $1" <<< "$udev"; }
check "udev rule gives /dev/kbloom to group kbloom, mode 0660" \
	eval 'urule "GROUP=\"kbloom\"" && urule "MODE=\"0660\""'
grep -q '60-kbloom.rules' <<< "$udev" || printf '%s\n' "$udev" | tail -n 20 | sed 's/^/# /'

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
