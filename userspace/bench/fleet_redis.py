# SPDX-License-Identifier: GPL-2.0
"""bench-fleet's Redis side: a minimal RESP client, the topology (a
primary, two replicas, three sentinels) and the writer, go-zero's Add at
a steady rate (userspace/bench/bench-fleet)."""

import os
import socket
import subprocess
import time

KEY = "fleet"
MASTER = "mymaster"
SET_SCRIPT = """
for _, off in ipairs(ARGV) do
	redis.call("SETBIT", KEYS[1], off, 1)
end
"""
CLK = os.sysconf("SC_CLK_TCK")

class RespError(Exception):
    pass


class Resp:
    """A minimal RESP2 client: enough for INFO, EVAL and SENTINEL."""

    def __init__(self, port, timeout=5.0):
        self.s = socket.create_connection(("127.0.0.1", port), timeout)
        self.buf = b""

    def close(self):
        self.s.close()

    def _line(self):
        while b"\r\n" not in self.buf:
            d = self.s.recv(65536)
            if not d:
                raise ConnectionError("closed")
            self.buf += d
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _exact(self, n):
        while len(self.buf) < n + 2:
            d = self.s.recv(max(65536, n + 2 - len(self.buf)))
            if not d:
                raise ConnectionError("closed")
            self.buf += d
        v, self.buf = self.buf[:n], self.buf[n + 2:]
        return v

    def reply(self):
        line = self._line()
        t, rest = line[:1], line[1:]
        if t == b"+":
            return rest.decode()
        if t == b"-":
            raise RespError(rest.decode())
        if t == b":":
            return int(rest)
        if t == b"$":
            n = int(rest)
            return None if n < 0 else self._exact(n)
        if t == b"*":
            n = int(rest)
            return None if n < 0 else [self.reply() for _ in range(n)]
        raise ConnectionError("bad reply %r" % line[:40])

    @staticmethod
    def enc(args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        return b"".join(out)

    def send(self, *args):
        self.s.sendall(self.enc(args))

    def cmd(self, *args):
        self.send(*args)
        return self.reply()


def info(port, section=None):
    c = Resp(port)
    try:
        raw = c.cmd("INFO", *([section] if section else []))
    finally:
        c.close()
    d = {}
    for ln in raw.decode().splitlines():
        if ":" in ln and not ln.startswith("#"):
            k, v = ln.split(":", 1)
            d[k] = v
    return d


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proc_cpu(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            st = f.read().rsplit(")", 1)[1].split()
        return (int(st[11]) + int(st[12])) / CLK
    except OSError:
        return None


def proc_status(pid, field):
    try:
        with open("/proc/%d/status" % pid) as f:
            for ln in f:
                if ln.startswith(field + ":"):
                    return int(ln.split()[1])
    except OSError:
        pass
    return None


def proc_rchar(pid):
    try:
        with open("/proc/%d/io" % pid) as f:
            for ln in f:
                if ln.startswith("rchar:"):
                    return int(ln.split()[1])
    except OSError:
        pass
    return None


def sentinel_primary(sports):
    for p in sports:
        try:
            c = Resp(p, 1.0)
            try:
                a = c.cmd("SENTINEL", "get-master-addr-by-name", MASTER)
            finally:
                c.close()
            if a:
                return int(a[1])
        except (OSError, RespError, ConnectionError):
            continue
    return None


# ---------------------------------------------------------------- writer

def writer_main(a):
    """go-zero's Add at a steady rate; logs 'I T_ACK' per acknowledged key"""
    offs = [ln.split() for ln in open(a.offsets)]
    log = open(a.log, "w", buffering=1)
    sports = [int(p) for p in a.sentinels.split(",")]
    c = None
    t0 = time.time()
    fails = 0
    for n, i in enumerate(range(a.start, a.start + a.count)):
        due = t0 + n / a.rate
        now = time.time()
        if due > now:
            time.sleep(due - now)
        while True:
            try:
                if c is None:
                    port = sentinel_primary(sports)
                    if port is None:
                        raise ConnectionError("no primary from the sentinels")
                    c = Resp(port, 2.0)
                c.cmd("EVAL", SET_SCRIPT, 1, KEY, *offs[i])
                log.write("%d %.6f\n" % (i, time.time()))
                break
            except (OSError, RespError, ConnectionError) as e:
                fails += 1
                log.write("# %.6f %s\n" % (time.time(), str(e)[:80]))
                if c is not None:
                    c.close()
                c = None
                time.sleep(0.05)
    log.write("# done fails=%d\n" % fails)
    return 0


# -------------------------------------------------------------- topology

class Topo:
    """A primary, two replicas, three sentinels on loopback."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.procs = []
        self.servers = []	# dicts: port, pid, name
        self.sports = []

    def _spawn(self, argv, name):
        lf = open(os.path.join(self.tmp, name + ".log"), "w")
        p = subprocess.Popen(argv, stdout=lf, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL)
        self.procs.append(p)
        return p

    def _wait_ping(self, port):
        for _ in range(100):
            try:
                c = Resp(port, 1.0)
                try:
                    if c.cmd("PING") == "PONG":
                        return
                finally:
                    c.close()
            except (OSError, RespError, ConnectionError):
                pass
            time.sleep(0.05)
        raise RuntimeError("redis on %d did not start" % port)

    def start(self):
        pport = None
        for i, name in enumerate(("primary", "replica1", "replica2")):
            port = free_port()
            d = os.path.join(self.tmp, name)
            os.mkdir(d)
            argv = ["redis-server", "--port", str(port), "--bind", "127.0.0.1",
                    "--dir", d, "--save", "", "--appendonly", "no",
                    "--notify-keyspace-events", "Kg$xe",
                    "--repl-diskless-sync", "yes",
                    "--repl-diskless-sync-delay", "0"]
            if i:
                argv += ["--replicaof", "127.0.0.1", str(pport)]
            else:
                pport = port
            p = self._spawn(argv, name)
            self._wait_ping(port)
            self.servers.append({"name": name, "port": port, "pid": p.pid})
        for r in self.servers[1:]:
            for _ in range(200):
                if info(r["port"], "replication").get("master_link_status") == "up":
                    break
                time.sleep(0.05)
            else:
                raise RuntimeError("%s did not sync" % r["name"])
        for i in range(3):
            port = free_port()
            conf = os.path.join(self.tmp, "sentinel%d.conf" % i)
            with open(conf, "w") as f:
                f.write("port %d\nbind 127.0.0.1\ndir %s\n"
                        "sentinel monitor %s 127.0.0.1 %d 2\n"
                        "sentinel down-after-milliseconds %s 1000\n"
                        "sentinel failover-timeout %s 10000\n"
                        "sentinel parallel-syncs %s 2\n" %
                        (port, self.tmp, MASTER, pport, MASTER, MASTER, MASTER))
            self._spawn(["redis-server", conf, "--sentinel"], "sentinel%d" % i)
            self._wait_ping(port)
            self.sports.append(port)
        # each sentinel knows both replicas and the other two sentinels
        for _ in range(300):
            ok = True
            for sp in self.sports:
                c = Resp(sp)
                try:
                    m = c.cmd("SENTINEL", "master", MASTER)
                    m = dict(zip(m[::2], m[1::2]))
                finally:
                    c.close()
                if (int(m[b"num-slaves"]) < 2 or
                        int(m[b"num-other-sentinels"]) < 2):
                    ok = False
            if ok:
                return
            time.sleep(0.1)
        raise RuntimeError("the sentinels did not see the topology")

    def primary(self):
        return self.servers[0]

    def replicas(self):
        return self.servers[1:]

    def stop(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
        for p in self.procs:
            p.wait()
        self.procs = []
