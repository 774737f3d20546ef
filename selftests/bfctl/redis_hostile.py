#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A hostile Redis for bfctl_redis_hostile.sh: a small RESP2 server, written
for the test, that answers the commands bfctl redis pull/watch send and
misbehaves on purpose.

  redis_hostile.py serve SOCK VALUE MODE MARKER
      serve the bytes of the file VALUE as the string key "gz" on the unix
      socket SOCK; MODE says how to misbehave; MARKER is created when the
      misbehaviour begins.  Modes:
        good     none
        big      GETRANGE answered with a 256 MiB bulk string
        drip     GETRANGE's (correct) reply dripped one byte a second
        moved    key commands answered -MOVED (but cluster_enabled:0)
        ask      key commands answered -ASK (but cluster_enabled:0)
        cluster  INFO cluster says cluster_enabled:1, and key commands
                 are answered -MOVED to a port where nothing listens
        replica  INFO replication says role:slave, no keyspace events
        resp3    GETRANGE answered with a RESP3 map
        array    GETRANGE answered with an array of integers
        ones     the value all ones (a saturated filter)
  redis_hostile.py run MARKER GRACE CMD...
      run CMD; once MARKER exists, give it GRACE seconds to end by
      itself, then SIGTERM it; print "rc=N term=0|1 secs=S rss=KiB" (secs:
      from the SIGTERM to its end; rss: its peak resident set)
"""
import os
import resource
import signal
import socket
import socketserver
import subprocess
import sys
import threading
import time


def bulk(b):
    return b"$%d\r\n%s\r\n" % (len(b), b)


def array(items):
    return b"*%d\r\n" % len(items) + b"".join(bulk(i) for i in items)


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    allow_reuse_address = True


class Handler(socketserver.StreamRequestHandler):
    def read_cmd(self):
        line = self.rfile.readline()
        if not line:
            return None
        if not line.startswith(b"*"):
            return line.split()
        args = []
        for _ in range(int(line[1:])):
            n = int(self.rfile.readline()[1:])
            args.append(self.rfile.read(n + 2)[:-2])
        return args

    def mark(self):
        open(self.server.marker, "a").close()

    def send(self, b):
        self.wfile.write(b)
        self.wfile.flush()

    def handle(self):
        mode, value = self.server.mode, self.server.value
        while True:
            try:
                args = self.read_cmd()
            except (ValueError, OSError):
                return
            if not args:
                return
            cmd = args[0].upper()
            key = args[1] if len(args) > 1 else b""
            try:
                self.answer(mode, value, cmd, key, args)
            except (BrokenPipeError, ConnectionResetError):
                return

    def answer(self, mode, value, cmd, key, args):
        keycmds = (b"STRLEN", b"GETRANGE", b"EXISTS", b"GET", b"WATCH",
                   b"TYPE")
        if mode in ("moved", "ask", "cluster") and cmd in keycmds:
            self.mark()
            word = b"ASK" if mode == "ask" else b"MOVED"
            self.send(b"-%s 3999 127.0.0.1:7001\r\n" % word)
        elif cmd == b"CONFIG":
            # no keyspace events: bfctl fences with WATCH/EXEC alone
            self.send(array([b"notify-keyspace-events", b""]))
        elif cmd == b"INFO":
            sect = key.lower()
            if sect == b"cluster":
                on = b"1" if mode == "cluster" else b"0"
                if mode == "cluster":
                    self.mark()
                self.send(bulk(b"# Cluster\r\ncluster_enabled:%s\r\n" % on))
            elif sect == b"replication":
                role = b"slave" if mode == "replica" else b"master"
                if mode == "replica":
                    self.mark()
                self.send(bulk(b"# Replication\r\nrole:%s\r\n" % role))
            else:
                self.send(bulk(b"# Server\r\n"))
        elif cmd == b"STRLEN":
            self.send(b":%d\r\n" % (len(value) if key == b"gz" else 0))
        elif cmd == b"EXISTS":
            self.send(b":%d\r\n" % (1 if key == b"gz" else 0))
        elif cmd == b"GET":
            self.send(bulk(value) if key == b"gz" else b"$-1\r\n")
        elif cmd == b"GETRANGE":
            self.getrange(mode, value, key, args)
        elif cmd == b"EXEC":
            self.send(b"*0\r\n")
        elif cmd == b"PING":
            self.send(b"+PONG\r\n")
        else:   # AUTH, SELECT, WATCH, UNWATCH, MULTI...
            self.send(b"+OK\r\n")

    def getrange(self, mode, value, key, args):
        v = value if key == b"gz" else b""
        a, b = int(args[2]), int(args[3])
        part = v[a:b + 1]
        if mode == "big":
            self.mark()
            self.send(b"$%d\r\n" % (256 << 20))
            z = bytes(1 << 20)
            for _ in range(256):
                self.send(z)
            self.send(b"\r\n")
        elif mode == "drip":
            self.mark()
            for c in bulk(part):
                self.send(bytes([c]))
                time.sleep(1)
        elif mode == "resp3":
            self.mark()
            self.send(b"%1\r\n+a\r\n:1\r\n")
        elif mode == "array":
            self.mark()
            self.send(b"*3\r\n:1\r\n:2\r\n:3\r\n")
        else:
            if mode == "ones":
                self.mark()
            self.send(bulk(part))


def serve(sock, valuef, mode, marker):
    value = open(valuef, "rb").read()
    if mode == "ones":
        value = b"\xff" * len(value)
    try:
        os.unlink(sock)
    except FileNotFoundError:
        pass
    srv = Server(sock, Handler)
    srv.mode, srv.value, srv.marker = mode, value, marker
    srv.serve_forever()


def run(marker, grace, cmd):
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = []
    ts = [threading.Thread(target=lambda f=f: out.append(f.read()))
          for f in (p.stdout, p.stderr)]
    for t in ts:
        t.start()
    end = time.monotonic() + 120
    while p.poll() is None and not os.path.exists(marker) and \
            time.monotonic() < end:
        time.sleep(0.05)
    end = time.monotonic() + grace
    while p.poll() is None and time.monotonic() < end:
        time.sleep(0.05)
    term, secs = 0, 0.0
    if p.poll() is None:
        term = 1
        t0 = time.monotonic()
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        secs = time.monotonic() - t0
    for t in ts:
        t.join()
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    sys.stdout.write("".join(o.decode(errors="replace") for o in out))
    print("rc=%d term=%d secs=%.2f rss=%d" % (p.returncode, term, secs, rss))


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(*sys.argv[2:6])
    elif sys.argv[1] == "run":
        run(sys.argv[2], float(sys.argv[3]), sys.argv[4:])
    else:
        sys.exit(__doc__)
