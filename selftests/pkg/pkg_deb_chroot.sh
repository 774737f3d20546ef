#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The host half of the .deb test (make check-pkg; pkg_deb.sh is the guest
# half).  `dpkg -i` of the packages of `make deb` runs here, chrooted
# into an overlay of this machine's root -- the root the pkg lane's guest
# boots -- in a private mount namespace, so that DKMS compiles kbloom at
# native speed: in the guest, under TCG, the same compile took over twenty
# minutes.  In the chroot `uname -r` says the guest's kernel, as it will
# in the guest, so DKMS builds for that kernel only, and services are not
# started (policy-rc.d), as in any chroot.  What dpkg and DKMS changed, the
# overlay's upper directory, is written to OUT/root.tar (and the paths
# they deleted to OUT/deleted); the guest applies it to its own overlay
# root and goes on from there: the package state, the modules DKMS built
# and signed, the walk-through, the purge.  Nothing touches this
# machine's root or its kernel.
#   pkg_deb_chroot.sh DEBDIR KVER OUT   (TAP on stdout, as root)
set -u
debs=$(realpath "$1") kver=$2 out=$(realpath -m "$3")
. "$(dirname "$0")/lib.sh"

echo "TAP version 13"
dkms_deb=$(ls "$debs"/kbloom-dkms_*_all.deb 2> /dev/null)
bfctl_deb=$(ls "$debs"/bfctl_*_amd64.deb 2> /dev/null)
# bfctl depends on libkbloom0; libkbloom-dev is installed to be checked
lib_deb=$(ls "$debs"/libkbloom0_*_amd64.deb 2> /dev/null)
dev_deb=$(ls "$debs"/libkbloom-dev_*_amd64.deb 2> /dev/null)
if [ -z "$dkms_deb" ] || [ -z "$bfctl_deb" ] || [ -z "$lib_deb" ] || [ -z "$dev_deb" ] ||
	[ ! -d "/lib/modules/$kver/build" ]; then
	nok ".debs in $debs (make deb) and the headers of $kver"
	echo "1..$n"
	exit 1
fi
ver=$(dpkg-deb -f "$dkms_deb" Version)
rm -rf "$out"
mkdir -p "$out"

# in a private mount namespace: nothing mounted here is seen outside it,
# and all of it goes when the namespace's last process exits
inner() {
	set -eu
	mount -t tmpfs -o mode=0755 kb-debroot "$t"
	mkdir "$t/upper" "$t/work" "$t/root"
	mount -t overlay overlay \
		-o "lowerdir=/,upperdir=$t/upper,workdir=$t/work" "$t/root"
	r=$t/root
	mount -t proc proc "$r/proc"
	mount --rbind /dev "$r/dev"
	mount -t tmpfs tmpfs "$r/run"
	mount -t tmpfs tmpfs "$r/tmp"
	mkdir "$r/tmp/debs"
	cp "$dkms_deb" "$bfctl_deb" "$lib_deb" "$dev_deb" "$r/tmp/debs/"
	# scaffolding, removed before the upper directory is read (files the
	# lower root does not have leave nothing behind when removed)
	printf '#!/bin/sh\n[ "$1" = -r ] && { echo %s; exit 0; }\nexec /bin/uname "$@"\n' \
		"$kver" > "$r/usr/local/sbin/uname"
	chmod 755 "$r/usr/local/sbin/uname"
	# (a machine may have its own: keep it, a removal would be a change)
	if [ ! -e "$r/usr/sbin/policy-rc.d" ]; then
		printf '#!/bin/sh\nexit 101\n' > "$r/usr/sbin/policy-rc.d"
		chmod 755 "$r/usr/sbin/policy-rc.d"
		own_policy=1
	fi
	rc=0
	chroot "$r" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive HOME=/root LANG=C.UTF-8 \
		dpkg -i /tmp/debs/"${dkms_deb##*/}" /tmp/debs/"${bfctl_deb##*/}" \
		/tmp/debs/"${lib_deb##*/}" /tmp/debs/"${dev_deb##*/}" \
		> "$out/dpkg.log" 2>&1 < /dev/null || rc=$?
	chroot "$r" dkms status -m kbloom > "$out/dkms-status" 2>&1 || true
	rm -f "$r/usr/local/sbin/uname"
	[ -z "${own_policy:-}" ] || rm -f "$r/usr/sbin/policy-rc.d"
	# overlayfs marks a deleted lower file with a 0:0 character device
	(cd "$t/upper" && find . -type c -print0 |
		xargs -0r stat -c '%t:%T %n' | sed -n 's/^0:0 \.\///p') > "$out/deleted"
	# an opaque directory hides the lower one's contents: fine for a
	# directory the packages created, not for one the root has
	(cd "$t/upper" && getfattr -R -m '^trusted\.overlay\.opaque$' . 2> /dev/null |
		sed -n 's/^# file: //p' | while read -r d; do
			[ ! -e "/$d" ] || echo "$d"
		done) > "$out/opaque"
	(cd "$t/upper" && find . -mindepth 1 ! -type c -print0 |
		tar --null --no-recursion -T - -cpf "$out/root.tar")
	return $rc
}
export -f inner
# (the mounts go with the namespace; the directory is this side's)
t=$(mktemp -d /tmp/kb-debroot.XXXXXX)
export dkms_deb bfctl_deb lib_deb dev_deb kver out t
t0=$SECONDS
rc=0
unshare -m --propagation private bash -c inner || rc=$?
rmdir "$t"
secs=$((SECONDS - t0))
check "dpkg -i kbloom-dkms bfctl libkbloom0 libkbloom-dev in a chroot of the guest's root ($secs s)" test "$rc" = 0
[ "$rc" = 0 ] || tail -n 30 "$out/dpkg.log" | sed 's/^/# /'
check "DKMS built and installed kbloom/$ver for $kver" \
	grep -q "^kbloom/$ver, $kver, .*: installed" "$out/dkms-status"
check "... for $kver only (uname -r in the chroot)" \
	test "$(grep -c ': installed' "$out/dkms-status")" = 1
check "the changes are one tar file" test -s "$out/root.tar"
check "with the modules DKMS built" \
	test "$(tar -tf "$out/root.tar" | grep -F "/modules/$kver/updates/dkms/" |
		grep -cE '/(kbloom|xt_bloom)\.ko')" = 2
# (no directory was replaced whole: the guest applies files, not layers)
check "no opaque directory in the changes" test ! -s "$out/opaque"
check "no scaffolding in the changes" \
	sh -c "! tar -tf '$out/root.tar' | grep -qE 'policy-rc.d|local/sbin/uname'"
echo "1..$n"
exit $fail
