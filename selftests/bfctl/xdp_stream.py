#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# The continuous packet stream of bfctl_xdp.sh:
#   xdp_stream.py send DST4 DST6 PORT STOPFILE SRC...   (UDP from each SRC in turn)
#   xdp_stream.py recv PORT OUTFILE STOPFILE            (count datagrams by source)
# The receiver writes {"SRC": count, ...} as JSON to OUTFILE when STOPFILE
# appears.  No timing is asserted: the test compares counts with zero.
import json
import os
import select
import socket
import sys


def send(dst4, dst6, port, stop, srcs):
    socks = []
    for s in srcs:
        fam = socket.AF_INET6 if ':' in s else socket.AF_INET
        sk = socket.socket(fam, socket.SOCK_DGRAM)
        sk.bind((s, 0))
        socks.append((sk, dst6 if fam == socket.AF_INET6 else dst4))
    n = 0
    while not os.path.exists(stop):
        for sk, dst in socks:
            try:
                sk.sendto(b'kbloom', (dst, port))
            except OSError:
                pass    # a neighbour not resolved yet: try again
        n += 1
        if n % 4 == 0:      # a stream, not a flood: the guest is emulated
            select.select([], [], [], 0.002)


def recv(port, out, stop):
    s4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s4.bind(('0.0.0.0', port))
    s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    s6.bind(('::', port))
    counts = {}
    while not os.path.exists(stop):
        r, _, _ = select.select([s4, s6], [], [], 0.1)
        for sk in r:
            _, addr = sk.recvfrom(64)
            counts[addr[0]] = counts.get(addr[0], 0) + 1
    with open(out + '.tmp', 'w') as f:
        json.dump(counts, f)
    os.rename(out + '.tmp', out)


if sys.argv[1] == 'send':
    send(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6:])
else:
    recv(int(sys.argv[2]), sys.argv[3], sys.argv[4])
