#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of the kbloom Python binding (unittest, Debian's python3; TAP with
--tap [CLASS[.TEST]...]).

Natively, against image files built by the build tree's bfctl
(KBLOOM_BFCTL; KBLOOM_LIBRARY names the built libkbloom.so.0): every kind
and key type, every added key present, and the answers for 2000 absent
keys equal to `bfctl image test`'s, false positives included (fixed seeds,
and each image sized so that there are some: the test checks there are);
net filters through test_addr; the errors; threads against close(); the
crawler example.  In a VM (/dev/kbloom and KBLOOM_TEST_FILTER, a str
filter test-python created with bfctl and filled with KBLOOM_TEST_KEYS):
the kernel filter through the same calls, compared with `bfctl test`,
a reader's EROFS, a writer's adds seen by bfctl, poll() across a rebuild,
ENOENT after destroy and PermissionError for a user without a grant.
"""

import io
import ipaddress
import json
import os
import selectors
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ.get("KBLOOM_PYTHONPATH", os.path.dirname(HERE)))
import kbloom  # noqa: E402

BFCTL = os.environ.get("KBLOOM_BFCTL", "bfctl")
CRAWLER = os.path.join(os.path.dirname(HERE), "kbloom", "examples", "crawler.py")
N_PRESENT = 400
N_ABSENT = 2000
TMP = None


def setUpModule():
    global TMP
    TMP = tempfile.mkdtemp(prefix="kbloom-py.")


def tearDownModule():
    shutil.rmtree(TMP, ignore_errors=True)


def bfctl(*args, ok=(0,)):
    r = subprocess.run([BFCTL] + list(args), capture_output=True, text=True)
    if r.returncode not in ok:
        raise AssertionError("bfctl %s: exit %d: %s" % (" ".join(args[:3]), r.returncode,
                                                        r.stderr.strip()))
    return r.stdout


def bfctl_answers(verb, keys, fmt=None):
    """bfctl's answers, one bool a key: `image test -j IMG KEY...` or
    `test -j NAME KEY...` (verb: the words before the keys)"""
    opt = ["--key-format", fmt] if fmt else []
    out = bfctl(*verb[:-1], *opt, "-j", verb[-1], *keys, ok=(0, 1))
    doc = json.loads(out)
    got = [k["key"] for k in doc["keys"]]
    if len(got) != len(keys):
        raise AssertionError("bfctl answered %d keys of %d" % (len(got), len(keys)))
    return [k["present"] for k in doc["keys"]]


# ---- keys: their text (for bfctl) and their encoding (uapi section 1),
# computed here independently of the binding's own conversion

def net_bytes(text):
    addr, _, plen = text.partition("/")
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    b = socket.inet_pton(fam, addr)
    return b + bytes((int(plen) if plen else len(b) * 8,))


def addr_bytes(text):
    return socket.inet_pton(socket.AF_INET6 if ":" in text else socket.AF_INET, text)


def keyset(key_type):
    """(present texts, absent texts, text -> bytes, addresses for test_addr)"""
    P, A = range(N_PRESENT), range(N_ABSENT)
    if key_type == "str":
        return ([f"https://example.org/page/{i}" for i in P],
                [f"https://example.org/ünseen/{i}" for i in A], str.encode, None)
    if key_type == "bytes":
        enc = bytes.fromhex
        return ([(b"\x00key" + i.to_bytes(3, "big")).hex() for i in P],
                [(b"\xffabs" + i.to_bytes(3, "big") + b"\x00").hex() for i in A], enc, None)
    if key_type == "ipv4":
        return ([f"192.0.{i // 256}.{i % 256}" for i in P],
                [f"198.51.{i // 256}.{i % 256}" for i in A], addr_bytes, True)
    if key_type == "ipv6":
        return ([f"2001:db8:1::{i:x}" for i in P],
                [f"2001:db8:2::{i:x}" for i in A], addr_bytes, True)
    if key_type == "ip":
        return ([f"192.0.2.{i % 256}" if i < 256 else f"2001:db8::{i:x}" for i in P],
                [f"203.0.{i // 256}.{i % 256}" if i % 2 else f"2001:db8:3::{i:x}"
                 for i in A], addr_bytes, True)
    # net: networks in, host addresses (looked up through the prefix
    # lengths) and other networks out
    v4 = [f"10.{i // 256}.{i % 256}.0/24" for i in P]
    v6 = [f"2001:db8:{i:x}::/48" for i in P]
    out4 = [f"10.{(i // 256) % 2}.{i % 256}.{i // 512 + 1}" for i in A[:N_ABSENT // 2]]
    out4 += [f"11.{i // 256}.{i % 256}.0/24" for i in A[N_ABSENT // 2:]]
    out6 = [f"2001:db8:{i:x}:1::1" for i in A[:N_ABSENT // 2]]
    out6 += [f"2001:db9:{i:x}::/48" for i in A[N_ABSENT // 2:]]
    if key_type == "net4":
        return v4, out4, net_bytes, True
    if key_type == "net6":
        return v6, out6, net_bytes, True
    return v4[::2] + v6[1::2], out4[::2] + out6[1::2], net_bytes, True


# name, build options: fixed seeds, sized for false positives (~10-30%)
IMAGES = [
    ("blocked_str", "str", ["--kind", "blocked", "--items", "400", "--fpr", "0.2",
                            "--seed", "1"]),
    ("blocked_siphash_bytes", "bytes", ["--kind", "blocked", "--bits", "1024",
                                        "--hashes", "3", "--hash", "siphash",
                                        "--seed", "7,9"]),
    ("classic_str", "str", ["--kind", "classic", "--bits-per-key", "3"]),
    ("counting_str", "str", ["--kind", "counting", "--items", "400", "--fpr", "0.2",
                             "--seed", "3"]),
    ("gozero_str", "str", ["--kind", "gozero", "--bits", "2500"]),
    ("classic_ipv4", "ipv4", ["--kind", "classic", "--bits-per-key", "3"]),
    ("counting_ipv6", "ipv6", ["--kind", "counting", "--bits", "1024", "--hashes", "2",
                               "--seed", "5"]),
    ("gozero_ip", "ip", ["--kind", "gozero", "--bits", "2500"]),
    ("blocked_net4", "net4", ["--kind", "blocked", "--bits", "1536", "--hashes", "3",
                              "--seed", "11"]),
    ("blocked_net6", "net6", ["--kind", "blocked", "--bits", "1536", "--hashes", "3",
                              "--seed", "13"]),
    ("counting_net", "net", ["--kind", "counting", "--bits", "1024", "--hashes", "2",
                             "--seed", "17"]),
]


def build_image(name, key_type, opts, keys):
    kf = os.path.join(TMP, name + ".keys")
    img = os.path.join(TMP, name + ".img")
    with open(kf, "w") as f:
        f.write("\n".join(keys) + "\n")
    bfctl("image", "build", *opts, "--key-type", key_type, "-file", kf, "-o", img)
    return img


class Case(unittest.TestCase):
    """lists of answers compared without difflib (minutes on 2000 bools)"""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.addTypeEqualityFunc(list, self._lists_equal)

    def _lists_equal(self, a, b, msg=None):
        if a == b:
            return
        bad = [i for i in range(max(len(a), len(b)))
               if i >= len(a) or i >= len(b) or a[i] != b[i]]
        i = bad[0]
        self.fail(self._formatMessage(msg, "%d of %d answers differ (lengths %d, %d); "
                                      "first at %d: %r != %r" % (
                                          len(bad), max(len(a), len(b)), len(a), len(b), i,
                                          a[i] if i < len(a) else None,
                                          b[i] if i < len(b) else None)))


class ImageAnswers(Case):
    """Every kind and key type: the binding answers as bfctl image test."""

    def check_image(self, name, key_type, opts):
        present, absent, enc, addrs = keyset(key_type)
        img = build_image(name, key_type, opts, present)
        want = bfctl_answers(["image", "test", img], absent)
        fps = sum(want)
        self.assertTrue(0 < fps < len(absent),
                        "%d false positives of %d: the image cannot tell" % (fps, len(absent)))
        with kbloom.Filter.from_image(img) as f:
            info = f.info
            self.assertEqual(info.kind.name.lower(), opts[1])
            self.assertEqual(info.key_type.name.lower(), key_type)
            self.assertFalse(info.writable)
            # all added keys present: as text, as encoded bytes, one batch
            if key_type != "bytes":     # bytes keys are only bytes
                self.assertTrue(all(k in f for k in present))
            self.assertTrue(all(f.test(enc(k)) for k in present))
            self.assertEqual(f.test_many(enc(k) for k in present), [True] * len(present))
            # absent keys: bfctl's answers, false positives included
            if key_type != "bytes":
                self.assertEqual([f.test(k) for k in absent], want)
                self.assertEqual(f.test_many(absent), want)
            self.assertEqual([enc(k) in f for k in absent], want)
            self.assertEqual(f.test_many([bytearray(enc(k)) for k in absent]), want)
            if addrs:
                hosts = [i for i, k in enumerate(absent) if "/" not in k]
                self.assertGreater(len(hosts), 0)
                self.assertEqual([f.test_addr(absent[i]) for i in hosts],
                                 [want[i] for i in hosts])
                self.assertEqual([f.test_addr(ipaddress.ip_address(absent[i]))
                                  for i in hosts], [want[i] for i in hosts])
            if key_type in ("net4", "net6", "net"):
                self.assertTrue(info.prefixes > 0)
                # an address inside each held network: present by its prefix
                inside = [str(ipaddress.ip_network(k)[1]) for k in present]
                self.assertTrue(all(f.test_addr(a) for a in inside))
                self.assertTrue(all(ipaddress.ip_address(a) in f for a in inside))


def _image_test(name, key_type, opts):
    def t(self):
        self.check_image(name, key_type, opts)
    t.__doc__ = "%s image: added keys present, absent keys as bfctl" % name
    return t


for _spec in IMAGES:
    setattr(ImageAnswers, "test_" + _spec[0], _image_test(*_spec))


class ImageCalls(Case):
    """The API's shape and its failures, on a str image."""

    @classmethod
    def setUpClass(cls):
        cls.present, cls.absent, _, _ = keyset("str")
        cls.img = build_image("calls", "str", ["--kind", "blocked", "--items", "400",
                                               "--fpr", "0.01", "--seed", "1"], cls.present)

    def test_batches(self):
        with kbloom.Filter.from_image(self.img) as f:
            self.assertEqual(f.test_many([]), [])
            self.assertEqual(f.test_many(iter(self.present[:3])), [True] * 3)
            # word boundaries of the bitmap: 63, 64, 65, 129 keys
            for n in (1, 63, 64, 65, 129):
                keys = self.present[:n] + self.absent[:n]
                self.assertEqual(f.test_many(keys), [k in f for k in keys])
            mixed = [self.present[0], self.present[1].encode(),
                     memoryview(self.present[2].encode())]
            self.assertEqual(f.test_many(mixed), [True] * 3)

    def test_readonly(self):
        with kbloom.Filter.from_image(self.img) as f:
            for call in (lambda: f.add("x"), lambda: f.add_many(["x", "y"]),
                         lambda: f.test_and_add("x")):
                with self.assertRaises(OSError) as cm:
                    call()
                self.assertEqual(cm.exception.errno, 30)   # EROFS
                self.assertEqual(cm.exception.filename, self.img)
                self.assertTrue(cm.exception.strerror)
            self.assertEqual(f.add_many([]), 0)
            with self.assertRaises(io.UnsupportedOperation):
                f.fileno()
            self.assertFalse(f.refresh())

    def test_bad_keys(self):
        with kbloom.Filter.from_image(self.img) as f:
            for bad in ("", b"", "x" * 1025):
                with self.assertRaises(OSError) as cm:
                    f.test(bad)
                self.assertEqual(cm.exception.errno, 22)    # EINVAL
                with self.assertRaises(OSError):
                    f.test_many(["ok", bad])
            for bad in (42, None, 1.5, ["a"]):
                with self.assertRaises(TypeError):
                    bad in f
            with self.assertRaises(TypeError):
                f.test_addr(3.5)
            with self.assertRaises(ValueError):
                f.test_addr("not-an-address")

    def test_bad_address_keys(self):
        present, _, _, _ = keyset("ipv4")
        img = build_image("calls_ipv4", "ipv4", ["--kind", "blocked", "--items", "400",
                                                 "--fpr", "0.01", "--seed", "1"], present)
        with kbloom.Filter.from_image(img) as f:
            with self.assertRaises(ValueError):
                "192.0.2.300" in f
            with self.assertRaises(OSError) as cm:
                f.test(b"\x01\x02\x03")         # 3 bytes: not an ipv4 key
            self.assertEqual(cm.exception.errno, 22)
            # a family the key type cannot hold: absent, as for a packet
            self.assertFalse(f.test_addr("2001:db8::1"))
            self.assertTrue(f.test_addr(present[0]))
            with self.assertRaises(ValueError):
                f.test_addr("192.0.2.0/24")     # a network is no address

    def test_open_errors(self):
        with self.assertRaises(FileNotFoundError) as cm:
            kbloom.Filter.from_image(os.path.join(TMP, "missing.img"))
        self.assertEqual(cm.exception.errno, 2)
        self.assertTrue(cm.exception.filename.endswith("missing.img"))
        with open(self.img, "rb") as f:
            good = f.read()
        bad = {"garbage": b"not an image" * 20, "empty": b"", "truncated": good[:-9],
               "crc": good[:-1] + bytes((good[-1] ^ 1,))}
        for what, data in bad.items():
            p = os.path.join(TMP, what + ".img")
            with open(p, "wb") as f:
                f.write(data)
            with self.subTest(what):
                with self.assertRaises(OSError) as cm:
                    kbloom.Filter.from_image(p)
                self.assertIn(cm.exception.errno, (22, 74), what)     # EINVAL, EBADMSG
        with self.assertRaises(ValueError):
            kbloom.Filter.from_image(self.img + "\0.x")    # not the image
        with self.assertRaises(ValueError):
            kbloom.Filter("name\0x")
        with self.assertRaises(TypeError):
            kbloom.Filter(42)
        if not os.path.exists("/dev/kbloom"):
            with self.assertRaises(OSError) as cm:
                kbloom.Filter("nosuchfilter")
            self.assertEqual(cm.exception.errno, 19)   # ENODEV: no module
            self.assertEqual(cm.exception.filename, "nosuchfilter")

    def test_close(self):
        f = kbloom.Filter.from_image(self.img)
        self.assertIn("open", repr(f))
        f.close()
        f.close()
        self.assertTrue(f.closed)
        for call in (lambda: self.present[0] in f, lambda: f.test_many(["a"]),
                     lambda: f.info, lambda: f.fileno(), lambda: f.test_addr("1.2.3.4")):
            with self.assertRaises(ValueError):
                call()

    def test_threads_against_close(self):
        """8 threads test while the filter is closed under them: each call
        answers or raises ValueError, none reads a freed handle."""
        f = kbloom.Filter.from_image(self.img)
        keys = self.present[:50] + self.absent[:50]
        want = f.test_many(keys)
        errors, answers = [], []
        go = threading.Event()

        def worker():
            go.wait()
            try:
                while True:
                    answers.append(f.test_many(keys) == want and
                                   [k in f for k in keys] == want)
            except ValueError:
                pass
            except BaseException as e:
                errors.append(e)
        ts = [threading.Thread(target=worker) for _ in range(8)]
        for t in ts:
            t.start()
        go.set()
        # (bounded: a worker that died cannot keep the test waiting)
        for _ in range(10000):
            if len(answers) >= 100 or errors or not any(t.is_alive() for t in ts):
                break
            threading.Event().wait(0.001)
        f.close()
        for t in ts:
            t.join()
        self.assertEqual(errors, [])
        self.assertTrue(all(answers))

    def test_fork(self):
        """a child keeps using its parent's Filter"""
        keys = self.present[:100] + self.absent[:400]
        with kbloom.Filter.from_image(self.img) as f:
            want = f.test_many(keys)
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:
                try:
                    os.close(r)
                    got = "".join("1" if k in f else "0" for k in keys)
                    os.write(w, got.encode())
                finally:
                    os._exit(0)
            os.close(w)
            with os.fdopen(r) as rf:
                got = rf.read()
            os.waitpid(pid, 0)
            self.assertEqual(got, "".join("1" if x else "0" for x in want))

    def test_crawler_example(self):
        """the example over an image: seen URLs skipped, new ones as bfctl says"""
        urls = self.present[::10] + self.absent[:200]
        want = bfctl_answers(["image", "test", self.img], urls)
        src = os.path.join(TMP, "frontier.txt")
        with open(src, "w") as f:
            f.write("\n".join(urls) + "\n")
        env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(kbloom.__file__)))
        for extra in ([], ["--batch", "64"]):
            r = subprocess.run([sys.executable, CRAWLER, "--image", self.img, *extra, src],
                               capture_output=True, text=True, env=env)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout.splitlines(),
                             ["%s %s" % ("skip" if w else "fetch", u)
                              for u, w in zip(urls, want)])
        r = subprocess.run([sys.executable, CRAWLER, "--image", self.img, "--write", src],
                           capture_output=True, text=True, env=env)
        self.assertEqual(r.returncode, 2)


@unittest.skipUnless(os.environ.get("KBLOOM_REPO"), "KBLOOM_REPO not set (natively it is)")
class Install(Case):
    """make install-python puts the package where Debian's python3 finds it"""

    def test_install(self):
        present, _, _, _ = keyset("str")
        img = build_image("install", "str", ["--kind", "blocked", "--items", "400",
                                             "--fpr", "0.01"], present)
        ver = "%d.%d" % sys.version_info[:2]
        for prefix, site in (("/usr", "/usr/lib/python3/dist-packages"),
                             ("/usr/local", "/usr/local/lib/python%s/dist-packages" % ver)):
            with self.subTest(prefix):
                dest = tempfile.mkdtemp(dir=TMP)
                subprocess.run(["make", "-s", "-C", os.environ["KBLOOM_REPO"], "install-python",
                                "DESTDIR=" + dest, "PREFIX=" + prefix],
                               check=True, capture_output=True)
                # on the path of Debian's python3 (not only of this one's -I)
                r = subprocess.run(["/usr/bin/python3", "-c", "import sys; print(sys.path)"],
                                   capture_output=True, text=True, env={})
                self.assertIn(repr(site), r.stdout)
                code = ("import kbloom, sys\n"
                        "with kbloom.Filter.from_image(sys.argv[1]) as f:\n"
                        "    print(kbloom.__file__, f.test(sys.argv[2]))\n")
                r = subprocess.run([sys.executable, "-c", code, img, present[0]],
                                   capture_output=True, text=True,
                                   env=dict(os.environ, PYTHONPATH=dest + site))
                self.assertEqual(r.stdout.split(),
                                 [dest + site + "/kbloom/__init__.py", "True"], r.stderr)


# ---- the kernel's filter (a VM with the module loaded) ----

KFILTER = os.environ.get("KBLOOM_TEST_FILTER")


@unittest.skipUnless(os.path.exists("/dev/kbloom") and KFILTER,
                     "no kernel filter (/dev/kbloom and KBLOOM_TEST_FILTER)")
class Kernel(Case):
    """The kernel filter KBLOOM_TEST_FILTER (a str filter holding the lines
    of KBLOOM_TEST_KEYS), as root; the tests run in this order."""

    @classmethod
    def setUpClass(cls):
        with open(os.environ["KBLOOM_TEST_KEYS"]) as f:
            cls.present = [line.strip() for line in f if line.strip()]
        cls.absent = ["absent-%d" % i for i in range(N_ABSENT)]

    def test_1_reader(self):
        want = bfctl_answers(["test", KFILTER], self.absent)
        self.assertTrue(0 < sum(want) < len(want), "no false positives to compare")
        with kbloom.Filter(KFILTER) as f:
            self.assertFalse(f.info.writable)
            self.assertEqual(f.info.key_type, kbloom.KeyType.STR)
            self.assertTrue(all(k in f for k in self.present))
            self.assertEqual(f.test_many(self.present), [True] * len(self.present))
            self.assertEqual([k in f for k in self.absent], want)
            self.assertEqual(f.test_many(self.absent), want)
            with self.assertRaises(OSError) as cm:
                f.add("x")
            self.assertEqual(cm.exception.errno, 30)    # EROFS
            self.assertGreaterEqual(f.fileno(), 0)

    def test_2_writer(self):
        new = [k for k, w in zip(self.absent, bfctl_answers(["test", KFILTER], self.absent))
               if not w][:20]
        with kbloom.Filter(KFILTER, write=True) as w, kbloom.Filter(KFILTER) as r:
            self.assertTrue(w.info.writable)
            self.assertFalse(w.test_and_add(new[0]))
            self.assertTrue(w.test_and_add(new[0]))
            w.add(new[1])
            self.assertGreaterEqual(w.add_many(new[2:]), 1)
            # the reader's mapping sees the adds at once, and the kernel too
            self.assertEqual(r.test_many(new), [True] * len(new))
            self.assertEqual(bfctl_answers(["test", KFILTER], new), [True] * len(new))

    def test_2_writer_crawler(self):
        """the example as a writer: new URLs fetched once, then skipped"""
        urls = ["https://example.org/crawl/%d" % i for i in range(200)]
        urls = [u for u, w in zip(urls, bfctl_answers(["test", KFILTER], urls)) if not w][:50]
        src = os.path.join(TMP, "crawl.txt")
        with open(src, "w") as f:
            f.write("\n".join(urls) + "\n")
        env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(kbloom.__file__)))
        runs = []
        for args in (["--write"], ["--write"], []):
            r = subprocess.run([sys.executable, CRAWLER, "--filter", KFILTER, *args, src],
                               capture_output=True, text=True, env=env)
            self.assertEqual(r.returncode, 0, r.stderr)
            lines = r.stdout.split("\n")[:-1]
            self.assertEqual([ln.split(" ", 1)[1] for ln in lines], urls)
            runs.append([ln.split(" ", 1)[0] for ln in lines])
        # the first run fetches the URLs (some adds make a later URL a
        # false positive at the filter's 10%: skipped), the next ones none
        self.assertGreater(runs[0].count("fetch"), len(urls) // 2)
        self.assertEqual(runs[1], ["skip"] * len(urls))
        self.assertEqual(runs[2], ["skip"] * len(urls))
        self.assertEqual(bfctl_answers(["test", KFILTER], urls), [True] * len(urls))

    def test_3_rebuild_poll(self):
        with kbloom.Filter(KFILTER) as f:
            sel = selectors.DefaultSelector()
            sel.register(f, selectors.EVENT_READ)
            self.assertEqual(sel.select(0), [])
            kf = os.path.join(TMP, "rebuild.keys")
            with open(kf, "w") as out:
                out.write("rebuilt-1\nrebuilt-2\n")
            bfctl("rebuild", KFILTER, "-file", kf, "--force")   # drops the rest
            self.assertEqual(len(sel.select(5)), 1, "poll did not wake up")
            # the next call maps the new generation, and poll is quiet again
            self.assertTrue(f.test("rebuilt-1") and "rebuilt-2" in f)
            self.assertEqual(f.test_many(["rebuilt-1", "rebuilt-2"]), [True, True])
            self.assertEqual(sel.select(0), [])
            self.assertEqual(f.info.generation,
                             json.loads(bfctl("-j", "info", KFILTER))["generation"])
            sel.close()

    def test_4_no_grant(self):
        if os.geteuid() != 0 or not shutil.which("setpriv"):
            self.skipTest("needs root and setpriv")
        # refused whether the filter exists or not: nobody learns names
        code = ("import kbloom, sys\n"
                "for name in sys.argv[1:]:\n"
                " try:\n  kbloom.Filter(name)\n"
                " except PermissionError:\n  print('PermissionError')\n"
                " else:\n  print('opened')\n")
        r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                            sys.executable, "-c", code, KFILTER, "nosuchfilter"],
                           capture_output=True, text=True,
                           env=dict(os.environ, PYTHONPATH=os.path.dirname(
                               os.path.dirname(kbloom.__file__))))
        # (EPERM from the filter's grant, or EACCES from the node's mode)
        self.assertEqual(r.stdout.split("\n")[:2], ["PermissionError"] * 2,
                         r.stdout + r.stderr)

    def test_5_granted_reader(self):
        """nobody, in the filter's readers group: the same answers as root"""
        if os.geteuid() != 0 or not shutil.which("setpriv"):
            self.skipTest("needs root and setpriv")
        r = subprocess.run([BFCTL, "grant", KFILTER, "--readers", "nogroup"],
                           capture_output=True, text=True)
        if r.returncode == 2:
            self.skipTest("bfctl has no grant verb: " + r.stderr.strip().split("\n")[0])
        self.assertEqual(r.returncode, 0, r.stderr)
        try:
            keys = self.present[:100] + self.absent
            want = bfctl_answers(["test", KFILTER], keys)
            code = ("import kbloom, sys\n"
                    "with kbloom.Filter(sys.argv[1]) as f:\n"
                    "    print(''.join('1' if k in f else '0' for k in sys.argv[2:]))\n"
                    "    try:\n        f.add('x')\n"
                    "    except OSError as e:\n        print(e.errno)\n")
            r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                sys.executable, "-c", code, KFILTER, *keys],
                               capture_output=True, text=True,
                               env=dict(os.environ, PYTHONPATH=os.path.dirname(
                                   os.path.dirname(kbloom.__file__))))
            self.assertEqual(r.stdout.split(), ["".join("1" if w else "0" for w in want), "30"],
                             r.stderr)
        finally:
            bfctl("grant", KFILTER, "--none")

    def test_6_destroyed(self):
        f = kbloom.Filter(KFILTER)
        bfctl("destroy", KFILTER)
        with self.assertRaises(FileNotFoundError):
            f.test("rebuilt-1")
        f.close()
        with self.assertRaises(FileNotFoundError):
            kbloom.Filter(KFILTER)


# ---- TAP ----

class TapResult(unittest.TestResult):
    """one TAP line a test, its failures as comments"""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.n = 0
        self.bad = None

    def startTest(self, test):
        super().startTest(test)
        self.bad = []

    def _line(self, test, ok, note=""):
        self.n += 1
        desc = test.id().replace("__main__.", "")
        print("%s %d - %s%s" % ("ok" if ok else "not ok", self.n, desc, note), flush=True)

    def addError(self, test, err):
        super().addError(test, err)
        if self.bad is None or not isinstance(test, unittest.TestCase):
            self._line(test, False)     # setUpClass / setUpModule
            self._comment(self.errors[-1][1])
        else:
            self.bad.append(self.errors[-1][1])

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.bad.append(self.failures[-1][1])

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self.bad.append(self._exc_info_to_string(err, test))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        if isinstance(test, unittest.TestCase):
            self._line(test, True, " # SKIP " + reason)
            self.bad = None
        else:
            self.n += 1
            print("ok %d - %s # SKIP %s" % (self.n, test.id(), reason), flush=True)

    def stopTest(self, test):
        super().stopTest(test)
        if self.bad is not None:
            self._line(test, not self.bad)
            for b in self.bad:
                self._comment(b)
        self.bad = None

    @staticmethod
    def _comment(text):
        for line in text.rstrip().splitlines():
            print("# " + line)


def tap_main(names):
    print("TAP version 13")
    mod = sys.modules[__name__]
    loader = unittest.defaultTestLoader
    suite = loader.loadTestsFromNames(names, mod) if names else loader.loadTestsFromModule(mod)
    result = TapResult()
    suite.run(result)
    print("1..%d" % result.n)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    if sys.argv[1:2] == ["--tap"]:       # --tap [CLASS[.TEST]...]
        sys.exit(tap_main(sys.argv[2:]))
    unittest.main()
