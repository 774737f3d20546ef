#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# A unix socket proxy in front of redis-server that counts the bytes the
# server sends to its clients (test-redis-delta: what a watcher reads per
# change).  Usage: redis_count_proxy.py LISTEN UPSTREAM COUNTFILE; the
# running total is rewritten into COUNTFILE after every forward.
import os
import selectors
import socket
import sys

listen, upstream, countfile = sys.argv[1:4]
total = 0
sel = selectors.DefaultSelector()
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(listen)
srv.listen(64)
sel.register(srv, selectors.EVENT_READ)
peer = {}


def note():
    tmp = countfile + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % total)
    os.replace(tmp, countfile)


def close(s):
    for x in (s, peer.get(s)):
        if x is not None and x in peer:
            sel.unregister(x)
            x.close()
            del peer[x]


note()
while True:
    for key, _ in sel.select():
        s = key.fileobj
        if s is srv:
            c, _ = srv.accept()
            u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            u.connect(upstream)
            peer[c] = u
            peer[u] = c
            sel.register(c, selectors.EVENT_READ)
            sel.register(u, selectors.EVENT_READ)
            continue
        if s not in peer:
            continue
        try:
            data = s.recv(1 << 16)
        except OSError:
            data = b""
        if not data:
            close(s)
            continue
        peer[s].sendall(data)
        if s.getpeername() == upstream:
            total += len(data)
            note()
