#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bfctl save / export / restore of a 256 MiB filter: streamed, with a
# bounded peak RSS, byte-identical round trip.  The stream is bfctl's and
# the kernel's chunked export, the same on every kernel: it runs on one
# (the rt lane, where a chunk loop that forgot to yield would show), as
# its minute and a half a kernel buys nothing on the others.
. "$(dirname "$0")/lib.sh"
B=$BFCTL
seq 1 3000 | sed 's/^/key-/' > "$TMP/str"

# ---- a big filter: save and export stream (issue #13) ----
# 2^31 bits: 256 MiB.  bfctl writes the kernel's export as it arrives: its
# peak RSS stays far below the filter (it held the whole image before)
$B destroy rs_huge 2> /dev/null
expect 0 "create a 256 MiB filter" $B create rs_huge blocked \
	--bits 2147483648 --hashes 7 --key-type str
$B add rs_huge -file "$TMP/str" > /dev/null
# peak RSS of a command in KiB (GNU time; the guest runs the host's root)
peak() { /usr/bin/time -f %M -o "$TMP/rss" "$@" && tail -1 "$TMP/rss"; }
if [ -x /usr/bin/time ]; then
	kib=$(peak $B save rs_huge -file "$TMP/huge.save")
	check "save of 256 MiB: bfctl's peak RSS ${kib} KiB < 64 MiB" \
		test "${kib:-999999}" -lt 65536
	kib=$(peak $B export rs_huge -o "$TMP/huge.img")
	check "export of 256 MiB: bfctl's peak RSS ${kib} KiB < 64 MiB" \
		test "${kib:-999999}" -lt 65536
	kib=$(peak bash -c "$B save rs_huge > $TMP/huge.stdout")
	check "save to a pipe: peak RSS ${kib} KiB < 64 MiB" \
		test "${kib:-999999}" -lt 65536
else
	nok "/usr/bin/time is missing (scripts/deps installs time)"
fi
check "the export is the whole image" \
	test "$(stat -c %s "$TMP/huge.img")" = $((268435456 + 132))
expect 0 "image info of the streamed export" $B image info -j "$TMP/huge.img"
json_check "it holds the keys" "$out" 'j["count"] == 3000'
check "save to stdout and to a file agree" cmp -s "$TMP/huge.save" "$TMP/huge.stdout"
$B export rs_huge -o - | cmp -s - "$TMP/huge.img"
check "export to a pipe is the same image" test "${PIPESTATUS[*]}" = "0 0"
$B destroy rs_huge
expect 0 "restore the 256 MiB save" $B restore -file "$TMP/huge.save"
$B export rs_huge -o "$TMP/huge.after"
check "save -> restore of 256 MiB is byte-identical" \
	cmp -s "$TMP/huge.img" "$TMP/huge.after"
$B destroy rs_huge
rm -f "$TMP"/huge.*

done_testing
