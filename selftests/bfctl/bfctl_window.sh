#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bfctl and windows and growing filters (issue 27): create --window
# --slices and --grow --max-bytes, what info, list and -j show of them,
# the monitor's rotated and grew events, save/restore keeping the slices
# with their ages (and a save restored long after it was taken forgetting
# what expired), growth past the capacity, and libkbloom (the Python
# binding, as a reader with no capability in the filter's readers group)
# answering as bfctl test does through rotations.  Windows are a few
# seconds: every wait is for an event or a state, bounded by wait_for's
# 60 s, never a fixed sleep that TCG could outrun.
set -u
. "$(dirname "$0")/lib.sh"
B=$BFCTL
LIBDIR=$(cd "$(dirname "$B")" && pwd)/libkbloom
PYDIR=$(pwd)/userspace/bindings/python

$B destroy w > /dev/null 2>&1
$B destroy w2 > /dev/null 2>&1
$B destroy p > /dev/null 2>&1
$B destroy g > /dev/null 2>&1
$B destroy g2 > /dev/null 2>&1
$B destroy g3 > /dev/null 2>&1
$B destroy r > /dev/null 2>&1

# ---- create, and what it refuses ----
expect 2 "create: --window with --grow is a usage error" \
	$B create w blocked --items 1000 --window 10s --grow
like "... and says why" "$err" "exclude each other"
expect 2 "create: --slices 16 is a usage error" \
	$B create w blocked --items 1000 --window 10s --slices 16
expect 2 "create: --window on a classic filter is a usage error" \
	$B create w classic --items 1000 --window 10s
expect 3 "... and nothing was created" $B list w
expect 0 "create --window 30s --slices 2" \
	$B create w blocked --items 1000 --fpr 0.01 --window 30s --slices 2 --key-type str
expect 0 "create -exist of the same window keeps it" \
	$B create w blocked --items 1000 --fpr 0.01 --window 30s --slices 2 --key-type str -exist
expect 3 "create -exist of another window is refused" \
	$B create w blocked --items 1000 --fpr 0.01 --window 31s --slices 2 --key-type str -exist
expect 3 "create -exist of another size is refused" \
	$B create w blocked --items 2000 --fpr 0.01 --window 30s --slices 2 --key-type str -exist

expect 0 "info of a window" $B info w
like "info: window and slices" "$out" "^window: 30s \(3 slices: one retired every 15s\)"
like "info: next rotation" "$out" "^next rotation in: [0-9]+ ms"
like "info: a line per slice" "$(printf '%s\n' "$out" | grep -c '^slice ')" "^3$"
expect 0 "info -j" $B info -j w
json_check "-j: window_ms, slices, a slice array, next rotation" "$out" \
	'j["window_ms"] == 30000 and j["slices"] == 3 and len(j["slice"]) == 3 and 0 <= j["next_rotation_ms"] <= 15000 and not j["grow"]'
expect 0 "list" $B list w
like "list: the window in the row" "$out" "window=30s/3"

expect 3 "export of a whole window is refused (one image per slice)" \
	$B export w -o "$TMP/w.img"
# (the netlink export names why; 6.1's dump start has no extack for it)
like "... saying why" "$err" "slice by slice|not supported"

# ---- monitor: rotated ----
$B monitor > "$TMP/mon" 2>&1 &
mon=$!
sleep 1

# ---- save/restore keeps the slices and their ages ----
k=$(absent_key w win)
expect 0 "add $k" $B add w "$k"
# the key into an older slice: wait for the next rotation
gen=$($B info -j w | python3 -c 'import json,sys; print(json.load(sys.stdin)["generation"])')
newgen() { test "$($B info -j w | python3 -c 'import json,sys; print(json.load(sys.stdin)["generation"])')" != "$gen"; }
wait_for "a rotation: a new generation" newgen
rotated() { grep -q '^rotated w$' "$TMP/mon"; }
wait_for "monitor: rotated w" rotated
expect 0 "the key is maybe present after the rotation" $B test w "$k"
expect 0 "save" $B save w -file "$TMP/w.save"
s=$(cat "$TMP/w.save")
like "save: the create line with the window" "$s" \
	"^create w blocked --key-type str .*--items 1000 --fpr 0\.010000000 .*--window 30s --slices 2$"
like "save: three slice blocks" "$(grep -c '^slice w index=' "$TMP/w.save")" "^3$"
age2=$(sed -n 's/^slice w index=2 age-ms=\([0-9]*\) .*/\1/p' "$TMP/w.save")
expect 0 "destroy" $B destroy w
expect 0 "restore" $B restore -file "$TMP/w.save"
expect 0 "the restored window holds the key" $B test w "$k"
expect 0 "info -j of the restored window" $B info -j w
# (a rotation due at once makes the saved slice 2 the third)
json_check "restored: 3 slices, the saved slice 2 as old as saved or older" "$out" \
	"len(j['slice']) == 3 and j['window_ms'] == 30000 and any($age2 <= s['age_ms'] < $age2 + 60000 for s in j['slice'][1:])"

# an old save: its slices expired while "the host was down"
python3 - "$TMP/w.save" "$TMP/old.save" <<'EOF'
import re, sys
t = open(sys.argv[1]).read()
t = re.sub(r"saved-ms=(\d+)", lambda m: "saved-ms=%d" % (int(m.group(1)) - 3600000), t)
open(sys.argv[2], "w").write(t)
EOF
expect 0 "destroy" $B destroy w
expect 0 "restore of a save an hour old" $B restore -file "$TMP/old.save"
expect 1 "... forgot the key" $B test w "$k"
expect 0 "info -j" $B info -j w
json_check "... every slice empty, the window kept" "$out" \
	"j['window_ms'] == 30000 and all(s['bits_set'] == 0 for s in j['slice'])"
# the live filter's slices from another's, through the ioctls (no bfctl
# verb uploads one slice): each slice of w2, restored from the save, into
# w as the same slice, aged 0
cat > "$TMP/slices.py" <<'EOF'
import ctypes, errno, fcntl, os, struct, sys
UPLOAD, EXPORT = 0xc050bf05, 0xc050bf06	# _IOWR(0xBF, 5/6, 80 bytes)
fd = os.open("/dev/kbloom", os.O_RDWR)
def ioc(cmd, name, flags, slice_, buf, age=0):
    addr = ctypes.addressof(buf) if buf is not None else 0
    size = len(buf) if buf is not None else 0
    a = bytearray(struct.pack("<II32sQQIIIIQ", 80, flags, name.encode(),
                              addr, size, 0, 0, slice_, 0, age))
    try:
        fcntl.ioctl(fd, cmd, a)
        err = 0
    except OSError as e:
        err = e.errno
    return err, struct.unpack("<II32sQQIIIIQ", bytes(a))
def export(name, n):
    err, r = ioc(EXPORT, name, 0, n, None)
    if err != errno.ENOSPC:
        return err, None
    buf = ctypes.create_string_buffer(r[4])
    err, r = ioc(EXPORT, name, 0, n, buf)
    return err, buf
src, dst, op = sys.argv[1], sys.argv[2], sys.argv[3]
if op == "copy":	# every slice of src into dst, aged 0
    for n in range(1, int(sys.argv[4]) + 1):
        err, buf = export(src, n)
        if err:
            sys.exit("export %s %d: %s" % (src, n, os.strerror(err)))
        err, r = ioc(UPLOAD, dst, 0, n, buf)
        if err:
            sys.exit("upload %s %d: %s (why %d)" % (dst, n, os.strerror(err), r[5]))
elif op == "whole":	# a whole-filter export of a window: EOPNOTSUPP
    print(errno.errorcode.get(export(src, 0)[0], "ok"))
else:			# slice 1 of src into dst: the errno's name
    err, buf = export(src, 1)
    print(errno.errorcode.get(ioc(UPLOAD, dst, 0, 1, buf)[0], "ok"))
EOF
sed -e 's/^create w /create w2 /' -e 's/^slice w /slice w2 /' "$TMP/w.save" \
	> "$TMP/w2.save"
expect 0 "restore the save as w2" $B restore -file "$TMP/w2.save"
expect 0 "w2 holds the key" $B test w2 "$k"
g0=$($B info -j w | python3 -c 'import json,sys; print(json.load(sys.stdin)["generation"])')
expect 0 "upload each slice of w2 into the live w" python3 "$TMP/slices.py" w2 w copy 3
expect 0 "w holds the key again" $B test w "$k"
check "... in a new generation" test "$($B info -j w | python3 -c 'import json,sys; print(json.load(sys.stdin)["generation"])')" != "$g0"
expect 0 "a whole export of the window (ioctl)" python3 "$TMP/slices.py" w w whole
like "... is EOPNOTSUPP" "$out" "^(EOPNOTSUPP|ENOTSUP)$"
expect 0 "create p (plain)" $B create p blocked --items 10 --key-type str
expect 0 "a slice upload into a plain filter" python3 "$TMP/slices.py" w p one
like "... is EINVAL" "$out" "^EINVAL$"
expect 0 "destroy p" $B destroy p
$B destroy w2 > /dev/null 2>&1

sed -e 's/^create w /create w2 /' -e 's/^slice w /slice w2 /' \
	-e 's/^slice w2 index=3 /slice w2 index=4 /' "$TMP/w.save" > "$TMP/bad.save"
expect 2 "restore: a slice past the window's slices is refused" \
	$B restore -check -file "$TMP/bad.save"
like "... naming the line" "$err" "line [0-9]+: slice 4 of w2"

# ---- growth ----
expect 0 "create --grow" $B create g blocked --items 100 --fpr 0.01 --grow --max-bytes 1M
seq 1 1000 | sed 's/^/key-/' > "$TMP/keys"
expect 0 "add 10x the capacity (not refused)" $B add g --key-format str -file "$TMP/keys"
expect 0 "info -j" $B info -j g
json_check "it grew: slices, grow, max_bytes" "$out" \
	"j['grow'] and j['slices'] > 1 and j['max_bytes'] == 1000000 and len(j['slice']) == j['slices']"
nsl=$(printf '%s' "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["slices"])')
expect 0 "info" $B info g
like "info: grow line" "$out" "^grow: yes \($nsl slices, at most 1000000 bytes\)"
grew() { grep -q '^grew g$' "$TMP/mon"; }
wait_for "monitor: grew g" grew
expect 0 "a window's slice into the growing filter" python3 "$TMP/slices.py" w g one
like "... is EINVAL (not the slice's parameters)" "$out" "^EINVAL$"
expect 0 "save of the growing filter" $B save g -file "$TMP/g.save"
like "save: --grow --max-bytes" "$(cat "$TMP/g.save")" "^create g blocked .*--grow --max-bytes 1000000$"
expect 0 "destroy" $B destroy g
expect 0 "restore" $B restore -file "$TMP/g.save"
expect 0 "info -j" $B info -j g
json_check "restored with its $nsl slices" "$out" "j['slices'] == $nsl"
expect 0 "every key still maybe present" $B test g --key-format str key-1 key-500 key-1000
kill $mon 2> /dev/null; wait $mon 2> /dev/null

# a rebuild and a restore load keys through a transaction: its staging
# filter grows as live adds make it grow (2.5x and 10x the capacity here)
expect 0 "create g3 --grow" $B create g3 blocked --items 100 --fpr 0.01 --key-type str --grow
head -n 250 "$TMP/keys" > "$TMP/keys250"
expect 0 "rebuild g3 from 2.5x its capacity" $B rebuild g3 --key-format str -file "$TMP/keys250"
expect 0 "info -j g3" $B info -j g3
json_check "the rebuild grew it and it is within capacity" "$out" \
	"j['slices'] == 2 and not j['over_capacity']"
expect 0 "the rebuilt keys maybe present" $B test g3 key-1 key-150 key-250
{ echo "create g2 blocked --items 100 --fpr 0.01 --key-type str --grow --max-bytes 1M"
  sed 's/^/add g2 /' "$TMP/keys"; } > "$TMP/g2.restore"
expect 0 "restore create --grow with 10x its capacity in add lines" \
	$B restore -file "$TMP/g2.restore"
expect 0 "info -j g2" $B info -j g2
json_check "the restore grew it and it is within capacity" "$out" \
	"j['slices'] == 4 and not j['over_capacity']"
expect 0 "the restored keys maybe present" $B test g2 key-1 key-500 key-1000
$B destroy g2 > /dev/null 2>&1
$B destroy g3 > /dev/null 2>&1

# ---- libkbloom through rotations, as a reader with no capability ----
groupadd -f kbwin
gid=$(getent group kbwin | cut -d: -f3)
expect 0 "create r --readers kbwin" \
	$B create r blocked --items 1000 --fpr 0.01 --window 8s --slices 2 --key-type str --readers kbwin
kr=$(absent_key r lib)
# the reader runs as nobody: it must read its script
chmod 755 "$TMP"
cat > "$TMP/reader.py" <<'EOF'
import sys
import kbloom
f = kbloom.Filter(sys.argv[1])
for line in sys.stdin:
    print(1 if f.test(line.strip().encode()) else 0, flush=True)
EOF
coproc RD { KBLOOM_LIBRARY=$LIBDIR/libkbloom.so.0 PYTHONPATH=$PYDIR \
	setpriv --reuid=65534 --regid=65534 --groups="$gid" --inh-caps=-all \
	--bounding-set=-all python3 -u "$TMP/reader.py" r 2> "$TMP/reader.err"; }
ask() { local a; echo "$1" >&"${RD[1]}"; read -r -t 30 a <&"${RD[0]}"; echo "${a:-none}"; }
a=$(ask "$kr")
check "libkbloom: absent before the add" test "$a" = 0
[ "$a" = 0 ] || diag "reader: $(cat "$TMP/reader.err")"
expect 0 "add $kr" $B add r "$kr"
check "libkbloom: maybe after the add, as bfctl test" test "$(ask "$kr")" = 1
gen=$($B info -j r | python3 -c 'import json,sys; print(json.load(sys.stdin)["generation"])')
newgen_r() { test "$($B info -j r | python3 -c 'import json,sys; print(json.load(sys.stdin)["generation"])')" != "$gen"; }
wait_for "r rotated" newgen_r
expect 0 "bfctl test: maybe after a rotation" $B test r "$kr"
check "libkbloom: maybe after a rotation (remapped)" test "$(ask "$kr")" = 1
forgot() { ! $B test -q r "$kr"; }
wait_for "bfctl test: forgotten after the window" forgot
check "libkbloom: forgotten too" test "$(ask "$kr")" = 0
[ -n "${RD_PID:-}" ] && eval "exec ${RD[1]}>&-"
wait
[ -s "$TMP/reader.err" ] && diag "reader: $(cat "$TMP/reader.err")"

$B destroy w > /dev/null 2>&1
$B destroy g > /dev/null 2>&1
$B destroy r > /dev/null 2>&1
done_testing
