#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bfctl lsm, path mode, against an unprivileged user (nobody) who wants to
# run a listed binary: what docs/lsm.md's threat model says is denied is
# (the binary, a symlink, a hard link, a bind mount in a user namespace,
# an exec through an fd opened before attach, a non-canonical listed path
# created after attach, on a merged /usr too), and what it says is not,
# is not (a copy, a memfd, `sh script` without --open, a user-namespace
# overlayfs over the directory with --exec alone, reading an fd opened
# before attach).  500 unlisted executables all run.
. "$(dirname "$0")/lib.sh"
B=$BFCTL
U="setpriv --reuid=65534 --regid=65534 --clear-groups"

mountpoint -q /sys/kernel/security ||
	mount -t securityfs securityfs /sys/kernel/security
case ",$(cat /sys/kernel/security/lsm 2> /dev/null)," in
*,bpf,*) ;;
*)	echo "1..0 # SKIP BPF LSM not active"
	exit 0 ;;
esac

A=$TMP/adv
chmod 711 "$TMP"	# nobody's way to the files
mkdir -p "$A"
mount -t tmpfs -o mode=0755 tmpfs "$A"
trap '$B lsm detach 2> /dev/null; rm -f /usr/bin/kb-adv-later; umount -l "$A"; rm -rf "$TMP"' EXIT
mkdir "$A/bin" "$A/real" "$A/u" "$A/u/up" "$A/u/work" "$A/u/ovl"
ln -s real "$A/sym"
cp /bin/true "$A/bin/tool"
printf '#!/bin/sh\necho script ran\n' > "$A/bin/script"
chmod 755 "$A/bin/script"
chown -R 65534:65534 "$A/u"
rm -f /usr/bin/kb-adv-later
# the listed binary, a listed script, and two listed paths that do not
# exist yet and are not canonical: through a symlinked directory, and
# /bin on a merged /usr (where bpf_d_path() writes /usr/bin)
printf '%s\n' "$A/bin/tool" "$A/bin/script" "$A/sym/later" \
	/bin/kb-adv-later > "$TMP/list"
$B destroy adv 2> /dev/null
$B create adv blocked --items 100 --fpr 0.01 --key-type str

# an fd of the listed binary that nobody opens before attach
cat > "$TMP/fd.py" << 'EOF'
import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
open(sys.argv[2], 'w').close()                  # ready
while not os.path.exists(sys.argv[3]):          # attached
    time.sleep(0.05)
data = os.pread(fd, 1 << 20, 0)
with open(sys.argv[4], 'wb') as f:
    f.write(data)
try:
    os.execve(fd, ['tool'], {})                 # fexecve
except OSError:
    sys.exit(13)
EOF
$U python3 "$TMP/fd.py" "$A/bin/tool" "$A/u/ready" "$TMP/attached" \
	"$A/u/fromfd" & fdpid=$!
for i in $(seq 200); do [ -e "$A/u/ready" ] && break; sleep 0.05; done

expect 0 "attach --exec" $B lsm attach adv -file "$TMP/list" --exec
like "the non-canonical path is listed by its real directory" "$err" \
	"$A/sym/later: listed as $A/real/later"
like "and /bin/... as /usr/bin/... on a merged /usr" "$err" \
	"/bin/kb-adv-later: listed as /usr/bin/kb-adv-later"
like "attach warns that others can read (and copy) the listed binary" "$err" \
	"warning: $A/bin/tool: other users can read it"
touch "$TMP/attached"
rc=0; wait $fdpid || rc=$?
check "an fd opened before attach still reads the file" cmp -s "$A/bin/tool" "$A/u/fromfd"
check "... but an exec through it is denied ($rc)" test $rc = 13

# ---- denied: the file by every name ----
expect 126 "nobody: the listed binary" $U "$A/bin/tool"
like "with EPERM" "$err" "not permitted"
$U ln -s "$A/bin/tool" "$A/u/symlink"
expect 126 "nobody: a symlink to it" $U "$A/u/symlink"
# fs.protected_hardlinks keeps nobody from linking root's file: root does
$U ln "$A/bin/tool" "$A/u/hard" 2> /dev/null || ln "$A/bin/tool" "$A/u/hard"
expect 126 "nobody: a hard link to it" $U "$A/u/hard"
userns=
$U unshare -rm true 2> /dev/null && userns=1
if [ -n "$userns" ]; then
	touch "$A/u/bind"
	chown 65534:65534 "$A/u/bind"
	expect 126 "nobody: a bind mount of it in a user namespace" \
		$U unshare -rm sh -c "mount --bind $A/bin/tool $A/u/bind && exec $A/u/bind"
else
	ok "# SKIP no unprivileged user namespaces"
fi
expect 126 "nobody: the listed script, exec'd" $U "$A/bin/script"
cp /bin/true "$A/real/later"
cp /bin/true /usr/bin/kb-adv-later
expect 126 "nobody: a non-canonical listed path created after attach" \
	$U "$A/sym/later"
expect 126 "nobody: ... by its real path" $U "$A/real/later"
expect 126 "nobody: /bin/kb-adv-later created after attach (merged /usr)" \
	$U /bin/kb-adv-later

# ---- not denied, as the threat model says ----
$U cp "$A/bin/tool" "$A/u/copy"
expect 0 "nobody: a copy runs (path mode does not deny copies)" $U "$A/u/copy"
expect 0 "nobody: a memfd holding the same bytes runs" $U python3 -c "
import os
fd = os.memfd_create('x')
os.write(fd, open('$A/bin/tool', 'rb').read())
os.execve(fd, ['x'], {})"
expect 0 "nobody: sh listed-script runs without --open" $U sh "$A/bin/script"
like "... and prints" "$out" "script ran"
if [ -n "$userns" ]; then
	expect 0 "nobody: a user-namespace overlayfs alias runs with --exec alone" \
		$U unshare -rm sh -c "mount -t overlay overlay -o lowerdir=$A/bin,upperdir=$A/u/up,workdir=$A/u/work $A/u/ovl && exec $A/u/ovl/tool"
else
	ok "# SKIP no unprivileged user namespaces"
fi

# ---- 500 unlisted executables all run ----
mkdir "$A/many"
python3 -c "
import shutil, sys
for i in range(500):
    shutil.copy('/bin/true', '$A/many/x%d' % i)"
$U bash -c "n=0; for i in \$(seq 0 499); do $A/many/x\$i && n=\$((n + 1)); done; echo \$n" > "$TMP/many" 2>&1
check "nobody: 500 unlisted executables all run ($(tail -c 200 "$TMP/many"))" \
	test "$(tail -1 "$TMP/many")" = 500
expect 0 "detach" $B lsm detach

# ---- with --open too: the script and the overlay's underlying file ----
expect 0 "attach --exec --open" $B lsm attach adv -file "$TMP/list" --exec --open -q
expect 2 "nobody: sh listed-script is denied with --open" $U sh "$A/bin/script"
like "sh cannot open it" "$err" "denied|not permitted"
if [ -n "$userns" ]; then
	rm -rf "$A/u/up" "$A/u/work"
	$U mkdir "$A/u/up" "$A/u/work"
	expect 126 "nobody: the overlayfs alias is denied with --open (its backing file's open, by inode)" \
		$U unshare -rm sh -c "mount -t overlay overlay -o lowerdir=$A/bin,upperdir=$A/u/up,workdir=$A/u/work $A/u/ovl && exec $A/u/ovl/tool"
else
	ok "# SKIP no unprivileged user namespaces"
fi
expect 0 "detach" $B lsm detach
expect 0 "after detach the listed binary runs" $U "$A/bin/tool"
$B destroy adv
done_testing
