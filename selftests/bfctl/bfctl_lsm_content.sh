#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bfctl lsm attach --content: the path filter's content mode.  A file is
# denied by its SHA-256 (IMA's, bpf_ima_file_hash()) whatever its name:
# as an unprivileged user a copy in /dev/shm, a moved copy, a memfd
# (fexecve) and ld.so of a copy are denied, and, of a file listed by its
# digest alone, a symlink, a hard link, a bind mount and an overlayfs in a
# user namespace, a copy made after attach through a symlinked directory,
# and an exec or executable mapping through an fd opened before attach
# (a read through it works, even with --open), while 50 unlisted executables
# (their own contents) all run, even though the filter (64 bits, nearly
# full) answers "maybe" for most of them: the exact set decides.  Bad
# lines name the line; a non-bytes filter is refused; with --open cat and
# `sh script` of listed contents are denied; path mode attaches beside it
# and each detaches alone.  bfctl save writes the attachment as digests,
# and restore attaches it again from the save alone (its list file
# moved away).  Skips unless bpf and IMA are active LSMs.
. "$(dirname "$0")/lib.sh"
B=$BFCTL
PINS=/sys/fs/bpf/kbloom/lsm-content
N="setpriv --reuid=65534 --regid=65534 --clear-groups"

mountpoint -q /sys/kernel/security ||
	mount -t securityfs securityfs /sys/kernel/security
lsms=$(cat /sys/kernel/security/lsm 2> /dev/null)
case ",$lsms," in
*,bpf,*) ;;
*)	echo "1..0 # SKIP BPF LSM not active (lsm: '$lsms')"
	exit 0 ;;
esac
# 6.1 never lists IMA ("integrity" has no hooks there): its securityfs
if [ ! -d /sys/kernel/security/ima ]; then
	echo "1..0 # SKIP IMA not active (no /sys/kernel/security/ima)"
	exit 0
fi
diag "lsm: $lsms" "$(grep -h 'CONFIG_IMA_DEFAULT_HASH=' /boot/config-"$(uname -r)" 2> /dev/null)"

chmod 711 "$TMP"
D=$TMP/fs
mkdir -p "$D"
mount -t tmpfs -o mode=755 tmpfs "$D"
S=/dev/shm/kbc.$$
mkdir -m 1777 "$S"
fdpid=
trap '[ -n "$fdpid" ] && kill $fdpid 2> /dev/null; $B lsm detach 2> /dev/null
	umount "$D"; rm -rf "$S" "$TMP"' EXIT
# /bin/true plus random bytes after its end: runs, and its digest is its own
mkbin() { cp /bin/true "$1" && head -c 32 /dev/urandom >> "$1" && chmod 755 "$1"; }
mkbin "$D/listed"
mkbin "$D/listed2"
mkbin "$D/allow"
printf '#!/bin/sh\necho ran # %s\n' "$(od -An -tx8 -N8 /dev/urandom)" > "$D/script"
chmod 755 "$D/script"
hash2=$(sha256sum "$D/listed2" | cut -c1-64)
printf '# a comment\n%s\n\nsha256:%s\n%s\n' "$D/listed" "$hash2" "$D/script" > "$TMP/list"

$B destroy cf 2> /dev/null
$B destroy cfs 2> /dev/null
$B destroy pf 2> /dev/null
# one hash, 64 bits, then filled with random keys: "maybe" for almost any
# digest, so that the exact set decides (a false positive never denies)
$B create cf classic --bits 64 --hashes 1 --key-type bytes
$B create cfs blocked --items 10 --key-type str
$B create pf blocked --items 10 --key-type str
python3 -c 'import os; print("\n".join(os.urandom(32).hex() for i in range(200)))' > "$TMP/junk"
$B add cf -file "$TMP/junk"
mkdir -m 777 "$S/many"
python3 -c '
import os, sys
t = open("/bin/true", "rb").read()
for i in range(50):
    p = "%s/x%d" % (sys.argv[1], i)
    open(p, "wb").write(t + os.urandom(32))
    os.chmod(p, 0o755)' "$S/many"

# nobody's fd of listed2, opened before attach: exec and an executable
# mapping through it are judged at that moment, by contents; a read
# through it is not (with --open: that hook judges opens).  Started
# here, so that python's start under TCG overlaps the refusals
cat > "$TMP/fd.py" << 'EOF'
import errno, hashlib, mmap, os, sys, time
def wait(p):
    for i in range(1200):
        if os.path.exists(p):
            return
        time.sleep(0.05)
    sys.exit(9)
def err(e):
    return errno.errorcode.get(e.errno, str(e.errno))
fd = os.open(sys.argv[1], os.O_RDONLY)
open(sys.argv[2], 'w').close()                  # ready
wait(sys.argv[3])                               # attached --exec
try:
    mmap.mmap(fd, 0, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_EXEC)
    print('mmap allowed', flush=True)
except OSError as e:
    print('mmap', err(e), flush=True)
try:
    os.execve(fd, ['kbc'], {})                  # fexecve
except OSError as e:
    print('exec', err(e), flush=True)
open(sys.argv[4], 'w').close()                  # done with exec
wait(sys.argv[5])                               # attached --open (or not)
print('read', hashlib.sha256(os.pread(fd, 1 << 24, 0)).hexdigest(), flush=True)
EOF
$N python3 "$TMP/fd.py" "$D/listed2" "$S/fd.ready" "$TMP/fd.go1" "$S/fd.done1" \
	"$TMP/fd.go2" > "$TMP/fd.out" 2>&1 & fdpid=$!

# ---- refusals name the line, change nothing ----
printf 'sha256:%s\nsha256:abc\n' "$hash2" > "$TMP/bad_len"
expect 3 "a short digest is refused" $B lsm attach cf --content -file "$TMP/bad_len"
like "naming its line" "$err" "bad_len: line 2: .*64 hex digits, not 3"
printf 'sha256:%s\n' "$(printf 'z%.0s' $(seq 64))" > "$TMP/bad_hex"
expect 3 "a non-hex digest is refused" $B lsm attach cf --content -file "$TMP/bad_hex"
like "naming its line" "$err" "line 1: 'z' is not a hex digit"
printf '%s\n' "$D/listed" "$D/nosuch" > "$TMP/bad_file"
expect 3 "a missing file is refused" $B lsm attach cf --content -file "$TMP/bad_file"
like "naming its line" "$err" "line 2: $D/nosuch: No such file"
: > "$TMP/empty_file"
echo "$TMP/empty_file" > "$TMP/bad_empty"
expect 3 "the digest of empty contents is refused" $B lsm attach cf --content -file "$TMP/bad_empty"
like "saying why" "$err" "line 1: .*every empty file"
expect 3 "a str filter is refused" $B lsm attach cfs --content -file "$TMP/list"
like "naming the key types" "$err" "key type is str: content mode needs a bytes filter"
check "nothing pinned" test ! -e "$PINS"
expect 0 "info -j" $B -j info cf
json_check "the refused attaches added no key to the filter" "$out" "j['adds']==200"
expect 1 "show: nothing attached" $B lsm show

for i in $(seq 1200); do [ -e "$S/fd.ready" ] && break; sleep 0.05; done
# a symlinked directory, where nobody creates a copy after attach
$N mkdir "$S/real"
$N ln -s real "$S/sym"

# ---- exec: a file by its contents, under any name ----
expect 0 "attach --content --exec" $B lsm attach cf --content -file "$TMP/list" --exec
touch "$TMP/fd.go1"
check "pinned under $PINS, no open link" test -e "$PINS/config" -a -e "$PINS/link_exec" \
	-a -e "$PINS/link_mmap" -a -e "$PINS/link_mprotect" -a ! -e "$PINS/link_open"
expect 126 "exec of a listed file is denied" "$D/listed"
like "with EPERM" "$err" "not permitted"
expect 126 "a file listed by its digest is denied" "$D/listed2"
expect 0 "an unlisted file runs" "$D/allow"
expect 126 "unprivileged: a copy in /dev/shm is denied" \
	$N sh -c "cp $D/listed $S/copy && exec $S/copy"
expect 126 "unprivileged: the copy moved and renamed is denied" \
	$N sh -c "mv $S/copy $S/renamed && exec $S/renamed"
expect 127 "unprivileged: ld.so of the copy is denied (its code mapping)" \
	$N /lib64/ld-linux-x86-64.so.2 "$S/renamed"
cat > "$TMP/memfd.py" << 'EOF'
import os, sys
fd = os.memfd_create('kbc')
os.write(fd, open(sys.argv[1], 'rb').read())
os.execve(fd, ['kbc'], {})
EOF
expect 1 "unprivileged: memfd_create, write, fexecve of listed contents is denied" \
	$N python3 "$TMP/memfd.py" "$D/listed"
like "with EPERM" "$err" "PermissionError|not permitted"
expect 0 "unprivileged: the same of unlisted contents runs" \
	$N python3 "$TMP/memfd.py" "$D/allow"
expect 0 "mprotect PROT_EXEC of a file found listed is denied (seen set)" \
	python3 -c "
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
a = libc.mmap(None, 4096, 1, 2, os.open('$S/renamed', os.O_RDONLY), 0)
sys.exit(0 if libc.mprotect(a, 4096, 5) and ctypes.get_errno() == 1 else 1)"
expect 126 "a listed script run as a command is denied" "$D/script"
expect 0 "sh SCRIPT of listed contents runs without --open (the threat model)" sh "$D/script"

# ---- the threat model's other names, as nobody: listed2 is listed by
# digest only, so none of its names nor its inode ever reached the
# programs, and a program keyed by path or inode would run each ----
expect 126 "unprivileged: the listed binary itself is denied" $N "$D/listed"
like "with EPERM" "$err" "not permitted"
$N ln -s "$D/listed2" "$S/symlink"
expect 126 "unprivileged: a symlink to listed bytes is denied" $N "$S/symlink"
# fs.protected_hardlinks keeps nobody from linking root's file: root does
ln "$D/listed2" "$D/hard"
expect 126 "unprivileged: a hard link to them is denied" $N "$D/hard"
for i in $(seq 1200); do [ -e "$S/fd.done1" ] && break; sleep 0.05; done
like "unprivileged: through an fd opened before attach, an executable mapping is denied" \
	"$(cat "$TMP/fd.out")" "^mmap EPERM"
like "unprivileged: ... and an exec (fexecve)" "$(cat "$TMP/fd.out")" "^exec EPERM"
expect 126 "unprivileged: a copy made after attach at a non-canonical path (symlinked directory) is denied" \
	$N sh -c "cp $D/listed2 $S/sym/later && exec $S/sym/later"
if $N unshare -rm true 2> /dev/null; then
	$N touch "$S/bind"
	expect 126 "unprivileged: a bind mount in a user namespace is denied" \
		$N unshare -rm sh -c "mount --bind $D/listed2 $S/bind && exec $S/bind"
	$N mkdir "$S/up" "$S/work" "$S/ovl"
	# the overlay's file has its own path and inode; its unlisted
	# neighbour must run first (exit 9 otherwise): the mount executes
	expect 126 "unprivileged: a user-namespace overlayfs over the directory is denied (its unlisted file runs)" \
		$N unshare -rm sh -c "mount -t overlay overlay -o lowerdir=$D,upperdir=$S/up,workdir=$S/work $S/ovl && { $S/ovl/allow || exit 9; } && exec $S/ovl/listed2"
else
	ok "# SKIP no unprivileged user namespaces"
	ok "# SKIP no unprivileged user namespaces"
fi
# 50 unlisted executables (made before attach), most "maybe" in the filter
expect 0 "unprivileged: 50 unlisted executables all run" \
	$N sh -c "f=0; for x in $S/many/x*; do \$x || f=\$((f + 1)); done; exit \$f"
expect 0 "show --content -j" $B -j lsm show --content
json_check "show: filter, hooks, mode, digests" "$out" \
	"j['content']['filter']=='cf' and j['content']['hooks']==['exec'] and j['content']['mode']=='enforce' and j['content']['digests']==3 and j['content']['not_in_filter']==0"
json_check "show: the filter's false positives were allowed by the exact set" "$out" \
	"(lambda s: s['false_positives']>=1 and s['maybe']>=s['false_positives']+s['hits']-s['mprotect_hits'] and s['hits']>=7 and s['mprotect_hits']>=1 and s['no_hash']==0)(j['content']['stats'])"
expect 3 "destroy of its filter is refused" $B destroy cf
like "in use" "$err" "in use by a kernel component"
expect 3 "a second content attach is refused" $B lsm attach cf --content -file "$TMP/list"

# ---- path mode beside it ----
echo "$D/allow" > "$TMP/paths"
expect 0 "path mode attaches beside content mode" $B lsm attach pf -file "$TMP/paths" --exec
expect 126 "path mode denies its path" "$D/allow"
expect 126 "content mode still denies" "$D/listed"
expect 0 "show lists both" $B lsm show
like "path mode's line" "$out" "^filter pf hooks exec"
like "content mode's line" "$out" "content filter cf hooks exec mode enforce digests 3"
expect 0 "detach --path" $B lsm detach --path
expect 0 "path mode gone: allow runs" "$D/allow"
expect 126 "content mode stays" "$D/listed"
# the save, of content mode attached from $TMP/list: digests, not the
# list file's name nor its listed files' paths
expect 0 "save" $B save -file "$TMP/save"
check "the save has content mode's attach line" \
	grep -qx 'attach lsm cf mode=content hooks=exec enforce' "$TMP/save"
sed -n '/^attach lsm cf mode=content /,/^end$/p' "$TMP/save" > "$TMP/save.cf"
like "... then its three digests, as list sha256: lines" \
	"$(grep -c '^list sha256:[0-9a-f]\{64\}$' "$TMP/save.cf")" '^3$'
check "... the path-listed file's by its digest" \
	grep -qx "list sha256:$(sha256sum "$D/listed" | cut -c1-64)" "$TMP/save.cf"
expect 0 "detach (both: here content mode)" $B lsm detach
expect 0 "after detach the listed file runs" "$D/listed"
check "the pins are gone" test ! -e "$PINS"
expect 1 "detach again: not attached" $B lsm detach --content

# ---- restore: the attachment comes back from the save alone ----
mv "$TMP/list" "$TMP/list.away"		# (the --open part below wants it)
expect 0 "restore -exist --only=lsm from the save, the list file gone" \
	$B restore -exist --only=lsm -file "$TMP/save"
like "... saying nothing (not 'attached already')" "$err" '^$'
expect 126 "restored: unprivileged, a new copy of a path-listed file is denied" \
	$N sh -c "cp $D/listed $S/rcopy && exec $S/rcopy"
expect 126 "restored: the file listed by its digest is denied" "$D/listed2"
expect 0 "restored: an unlisted file runs" "$D/allow"
expect 0 "restored: show --content" $B lsm show --content
like "... reports it (cf, exec, enforce, 3 digests)" "$out" \
	"^content filter cf hooks exec mode enforce digests 3$"
expect 0 "detach --content" $B lsm detach --content
check "the pins are gone" test ! -e "$PINS"
mv "$TMP/list.away" "$TMP/list"

# ---- --open: judged at file_post_open (6.9) ----
if ! grep -qw bpf_lsm_file_post_open /proc/kallsyms; then
	expect 3 "--open is refused without file_post_open" \
		$B lsm attach cf --content -file "$TMP/list" --exec --open
	like "saying why" "$err" "needs the kernel's file_post_open LSM hook"
	check "nothing pinned" test ! -e "$PINS"
	touch "$TMP/fd.go2"
	wait $fdpid
	fdpid=
	$B destroy cf
	$B destroy cfs
	$B destroy pf
	done_testing
	exit
fi
expect 0 "attach --content --exec --open" $B lsm attach cf --content -file "$TMP/list" --exec --open
touch "$TMP/fd.go2"
rc=0; wait $fdpid || rc=$?
fdpid=
like "unprivileged: a read through the fd opened before attach still reads the listed bytes ($rc)" \
	"$(cat "$TMP/fd.out")" "^read $hash2"
expect 1 "unprivileged: ... while opening them now is denied" $N wc -c "$D/listed2"
expect 1 "open of a listed file is denied" wc -c "$D/listed"
expect 1 "unprivileged: open of a moved copy is denied" $N wc -c "$S/renamed"
expect 0 "open of an unlisted file works" wc -c "$D/allow"
expect 2 "sh SCRIPT of listed contents is denied with --open" sh "$D/script"
like "sh cannot open it" "$err" "cannot open"
expect 126 "exec of a listed file is denied" "$D/listed"
expect 0 "an unlisted file runs" "$D/allow"
expect 0 "detach --content" $B lsm detach --content
expect 0 "then the listed file opens" wc -c "$D/listed"
$B destroy cf
$B destroy cfs
$B destroy pf
done_testing
