#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What content mode's hashing costs (make bench-lsm-content; one VM, TCG:
# compare the ratios, not the absolute numbers).  A big executable
# (/bin/true with SIZE MiB of random bytes after it: the kernel maps only
# its segments, so exec'ing it costs what /bin/true costs) is run REPS
# times:
#  - without content mode (the baseline);
#  - with content mode and no IMA policy: IMA has no cached digest, so
#    every check (exec, then the kernel's PROT_EXEC mapping of its text,
#    and of the loader and libc that ld.so maps) hashes the whole file;
#  - with content mode after an IMA policy that measures the file (rules
#    matching only files of a bench-owned uid, so nothing else is
#    measured): the first exec hashes, IMA keeps the digest for this
#    version of the inode, and the next execs only read it;
#  - once more after the file is rewritten (a new version: hashed again).
# The first exec's time over the median repeated one, in one run, is the
# ratio to read.  Writes JSON.  Usage: lsm_content.sh BFCTL JSON [--small]
set -eu
bfctl=$1 json=$2
size=64 reps=7
[ "${3:-}" = --small ] && size=16 reps=5
uid=4242
work=$(mktemp -d)
# a tmpfs of its own: not the guest's overlayfs root, whose file changes
# IMA tracks through the layer below
mount -t tmpfs -o size=$((2 * size + 64))m tmpfs "$work"
cleanup() {
	"$bfctl" lsm detach --content 2> /dev/null || true
	"$bfctl" destroy cbench 2> /dev/null || true
	umount "$work" 2> /dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
mountpoint -q /sys/kernel/security ||
	mount -t securityfs securityfs /sys/kernel/security

big=$work/big
cp /bin/true "$big"
head -c $((size << 20)) /dev/urandom >> "$big"
chmod 755 "$big"
chmod 755 "$work"
# one unrelated listed digest: the filter answers "absent" for big
head -c 64 /dev/urandom > "$work/other"
echo "$work/other" > "$work/list"

# times.py FILE REPS: seconds of the first exec, then the median of the
# REPS after it
cat > "$work/times.py" << 'EOF'
import subprocess, sys, time
f, reps = sys.argv[1], int(sys.argv[2])
t = []
for i in range(reps + 1):
    s = time.perf_counter()
    subprocess.run([f], check=True)
    t.append(time.perf_counter() - s)
rest = sorted(t[1:])
print('%.6f %.6f' % (t[0], rest[len(rest) // 2]))
EOF
run() { python3 "$work/times.py" "$big" "$reps"; }

"$bfctl" destroy cbench 2> /dev/null || true
"$bfctl" create cbench blocked --items 100 --key-type bytes
read -r base_first base_rep <<< "$(run)"
"$bfctl" lsm attach cbench --content -file "$work/list" --exec -q
read -r nopol_first nopol_rep <<< "$(run)"
# IMA policy: measure what uid's files run and map executable.  It can be
# written once per boot (CONFIG_IMA_WRITE_POLICY is off in Debian).
chown "$uid" "$big"
policy=ok
printf 'measure func=BPRM_CHECK fowner=%s\nmeasure func=MMAP_CHECK mask=MAY_EXEC fowner=%s\n' \
	"$uid" "$uid" > /sys/kernel/security/ima/policy 2> /dev/null || policy=refused
# a new version of the file, so that the first exec below hashes it
printf 'x' >> "$big"
read -r pol_first pol_rep <<< "$(run)"
printf 'y' >> "$big"
read -r new_first new_rep <<< "$(run)"
checked=$("$bfctl" -j lsm show --content | python3 -c 'import json,sys; print(json.load(sys.stdin)["content"]["stats"]["checked"])')

python3 - "$json" << EOF
import json, sys
r = lambda a, b: round(a / b, 2) if b else None
d = {
    'file_mib': $size, 'reps': $reps, 'kernel': '$(uname -r)',
    'ima_policy': '$policy', 'checks_hashed': $checked,
    'seconds': {
        'no_content_mode': {'first': $base_first, 'repeat_median': $base_rep},
        'no_ima_policy': {'first': $nopol_first, 'repeat_median': $nopol_rep},
        'ima_policy': {'first': $pol_first, 'repeat_median': $pol_rep},
        'ima_policy_rewritten': {'first': $new_first, 'repeat_median': $new_rep},
    },
    'first_over_repeat': {
        'no_ima_policy': r($nopol_first, $nopol_rep),
        'ima_policy': r($pol_first, $pol_rep),
        'ima_policy_rewritten': r($new_first, $new_rep),
    },
    'repeat_over_baseline': {
        'no_ima_policy': r($nopol_rep, $base_rep),
        'ima_policy': r($pol_rep, $base_rep),
    },
}
json.dump(d, open(sys.argv[1], 'w'), indent=1)
EOF
# vm-run shows what the run printed (and wants something)
cat "$json"
