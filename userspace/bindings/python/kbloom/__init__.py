# SPDX-License-Identifier: GPL-2.0
"""kbloom: test the kernel's Bloom filters from Python, at memory speed.

A thin ctypes binding of libkbloom.so.0 (<kbloom/kbloom.h>, libkbloom(3)).
A Filter opens a filter of the kbloom kernel module by name (in the
caller's network namespace, through /dev/kbloom: root, or a member of
the filter's readers or writers group) and tests keys in a read-only
mapping of it, without a system call per key; rebuilds are followed by
the library.  Filter.from_image() maps an image file instead (bfctl
image build or export), with no kernel at all.

    import kbloom
    with kbloom.Filter("seen") as f:
        if url in f:            # maybe seen (false positives possible)
            ...
        f.test_many([b"a", b"b"])   # [True, False], one C call

Keys are bytes (or bytearray/memoryview), or str, which is encoded as
UTF-8.  In filters whose key type holds addresses (ipv4, ipv6, ip, net4,
net6, net) a str is read as bfctl reads it ("10.0.0.1", "10.0.0.0/8"; an
address alone is a host route in the net types) and ipaddress objects
are taken too; bytes are always passed as they are, encoded as
uapi/linux/kbloom.h section 1 says.  test_addr() looks an address up as
a packet's would be, through every prefix length a net filter holds.

Errors from the library are OSError with its errno and message (and the
filter's name or the image's path): FileNotFoundError (ENOENT: no such
filter, or destroyed), PermissionError (EPERM: not granted), OSError with
errno EROFS (add on a reader or an image), EINVAL (a key malformed for
the key type), ENODEV (the module is not loaded).  A str that is not an
address where one is needed raises ValueError, a key of another type
TypeError, any call on a closed Filter ValueError.

A Filter may be shared between threads (the library is thread-safe, and
every call releases the GIL); close() waits for no one: calls already
inside the library finish first, and the handle is freed by the last.
Across os.fork() the child's Filter keeps working, rebuilds included,
if no other thread was inside a call on it when the process forked
(libkbloom(3)); otherwise open a new one in the child.
"""

import array
import collections
import ctypes
import enum
import io
import ipaddress
import itertools
import os
import socket
import threading

from ._native import lib as _lib, Key as _Key, RawInfo as _RawInfo
from ._native import KBLOOM_RDONLY, KBLOOM_WRITE

__all__ = ["Filter", "Info", "Kind", "KeyType", "Hash"]


class Kind(enum.IntEnum):
    """enum kb_kind (uapi/linux/kbloom.h)"""
    BLOCKED = 0
    CLASSIC = 1
    COUNTING = 2
    GOZERO = 3


class KeyType(enum.IntEnum):
    """enum kb_key_type"""
    BYTES = 0
    STR = 1
    IPV4 = 2
    IPV6 = 3
    IP = 4
    NET4 = 5
    NET6 = 6
    NET = 7


class Hash(enum.IntEnum):
    """enum kb_hash"""
    XXH64 = 0
    SIPHASH = 1
    LEVELDB = 2
    MURMUR3 = 3


def _enum(cls, v):
    try:
        return cls(v)
    except ValueError:      # a newer library's value: keep the number
        return v


Info = collections.namedtuple("Info", [
    "kind", "key_type", "hash", "k", "m", "items", "payload_bytes",
    "generation", "id", "fpr_ppb", "prefixes", "writable"])
Info.__doc__ = """The parameters of the generation a Filter maps (struct kbloom_info).

kind, key_type, hash: Kind, KeyType, Hash (IntEnum); k probes per key; m
bits (counters for counting); items the configured capacity (0: not
given); payload_bytes; generation and id (0 for an image); fpr_ppb the
configured false positive rate in parts per billion; prefixes the prefix
lengths a net filter holds; writable: opened with write=True."""

_ADDR_TYPES = (KeyType.IPV4, KeyType.IPV6, KeyType.IP)
_NET_TYPES = (KeyType.NET4, KeyType.NET6, KeyType.NET)
_ADDRS = (ipaddress.IPv4Address, ipaddress.IPv6Address)
_NETS = (ipaddress.IPv4Network, ipaddress.IPv6Network)

# struct kbloom_key {void *, size_t} as an array of machine words
_WORD = next(t for t in "QLI" if array.array(t).itemsize == ctypes.sizeof(ctypes.c_void_p))
assert ctypes.sizeof(ctypes.c_size_t) == ctypes.sizeof(ctypes.c_void_p)
assert ctypes.sizeof(_Key) == 2 * ctypes.sizeof(ctypes.c_void_p)


_test = _lib.kbloom_test


def _error(ret, what):
    """OSError for the library's negative errno ret: OSError(e, msg)
    picks the subclass (FileNotFoundError for ENOENT...)."""
    msg = _lib.kbloom_errmsg()
    msg = msg.decode("utf-8", "replace") if msg else os.strerror(-ret)
    return OSError(-ret, msg, what)


class Filter:
    """A kbloom filter, opened for testing (and adding, with write=True).

    Filter(name, write=False) opens the filter NAME of the caller's
    network namespace (kbloom_open(3)); Filter.from_image(path) maps an
    image file read-only.  Use it as a context manager, or close() it.
    """

    __slots__ = ("_h", "_what", "_addr", "_lock", "_users", "_closing",
                 "__weakref__")

    def __init__(self, name, write=False):
        if isinstance(name, str):
            name = name.encode()
        if not isinstance(name, bytes):
            raise TypeError("kbloom: a filter name is str or bytes, not %s"
                            % type(name).__name__)
        if b"\0" in name:          # C would see a shorter name
            raise ValueError("kbloom: a filter name holds no NUL byte")
        self._setup(name.decode("utf-8", "replace"))
        h = ctypes.c_void_p()
        ret = _lib.kbloom_open(name, KBLOOM_WRITE if write else KBLOOM_RDONLY,
                               ctypes.byref(h))
        if ret < 0:
            raise _error(ret, self._what)
        self._opened(h)

    @classmethod
    def from_image(cls, path):
        """Map the kbloom image file path read-only (kbloom_open_image(3));
        no kernel needed.  Adds raise OSError EROFS, fileno() has no fd."""
        self = cls.__new__(cls)
        path = os.fsencode(path)
        if b"\0" in path:
            raise ValueError("kbloom: a path holds no NUL byte")
        self._setup(os.fsdecode(path))
        h = ctypes.c_void_p()
        ret = _lib.kbloom_open_image(path, ctypes.byref(h))
        if ret < 0:
            raise _error(ret, self._what)
        self._opened(h)
        return self

    def _setup(self, what):
        self._h = None
        self._what = what
        self._lock = threading.Lock()
        self._users = []
        self._closing = False
        self._addr = 0

    def _opened(self, h):
        self._h = h             # a c_void_p: ctypes passes it as it is
        try:
            kt = self.info.key_type
            # how str and ipaddress keys convert: 0 text, 1 address, 2 network
            self._addr = 1 if kt in _ADDR_TYPES else 2 if kt in _NET_TYPES else 0
        except BaseException:
            self.close()
            raise

    # ---- the handle's lifetime: close() never frees it under a call.
    # A call appends to _users, then checks _closing; close() sets
    # _closing, then frees the handle only if _users is empty, else the
    # last call out does.  list.append and list.pop are atomic (the GIL,
    # or the list's lock without it), and cost a third of a Lock's with.

    def _enter(self):
        self._users.append(None)
        if self._closing:
            self._leave()
            raise ValueError("kbloom: operation on a closed filter")
        return self._h

    def _leave(self):
        self._users.pop()
        if self._closing and not self._users:
            self._free()

    def _free(self):
        with self._lock:        # once, whoever comes last
            h, self._h = self._h, None
        if h is not None:
            _lib.kbloom_close(h)

    def close(self):
        """Unmap the filter and close its fd (kbloom_close(3)); again: nothing.
        A call another thread is making finishes first."""
        if self._h is None:
            return
        self._closing = True
        if not self._users:
            self._free()

    @property
    def closed(self):
        return self._closing

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_h", None) is not None:
            self.close()

    def __repr__(self):
        state = "closed" if self.closed else "open"
        return "<kbloom.Filter %r %s>" % (self._what, state)

    # ---- keys

    def _key(self, key):
        """key as the bytes the filter's key type takes"""
        if isinstance(key, bytes):
            return key
        kt = self._addr
        if isinstance(key, str):
            if not kt:
                return key.encode()
            if kt == 1:
                return ipaddress.ip_address(key).packed
            net = ipaddress.ip_network(key)
            return net.network_address.packed + bytes((net.prefixlen,))
        if isinstance(key, (bytearray, memoryview)):
            return bytes(key)
        if isinstance(key, _ADDRS):
            if kt == 2:                 # a host route: looked up as a packet
                return key.packed + bytes((key.max_prefixlen,))
            return key.packed
        if isinstance(key, _NETS):
            return key.network_address.packed + bytes((key.prefixlen,))
        raise TypeError("kbloom: a key is bytes or str (or an ipaddress "
                        "object), not %s" % type(key).__name__)

    def _one(self, fn, key):
        k = key if type(key) is bytes else self._key(key)
        h = self._enter()
        try:
            ret = fn(h, k, len(k))
        finally:
            self._leave()
        if ret < 0:
            raise _error(ret, self._what)
        return ret

    def _many(self, fn, keys, bitmap=None):
        """fn over keys in one call: the keys joined in one buffer, and a
        struct kbloom_key array of (address, length) words pointing into it"""
        conv = self._key
        if self._addr:
            ks = [k if type(k) is bytes else conv(k) for k in keys]
        else:                   # the common case without a call a key
            ks = [k if type(k) is bytes else k.encode() if type(k) is str else conv(k)
                  for k in keys]
        n = len(ks)
        lens = array.array(_WORD, map(len, ks))
        buf = bytearray().join(ks) or bytearray(1)
        base = ctypes.addressof((ctypes.c_char * len(buf)).from_buffer(buf))
        vec = array.array(_WORD, bytes(2 * n * lens.itemsize))
        vec[0::2] = array.array(_WORD, itertools.accumulate(lens[:-1], initial=base))
        vec[1::2] = lens
        args = (vec.buffer_info()[0], n)
        if bitmap is not None:
            args += (ctypes.addressof(bitmap),)
        h = self._enter()
        try:
            ret = fn(h, *args)
        finally:
            self._leave()
        if ret < 0:
            raise _error(ret, self._what)
        return ret

    # ---- lookups

    def test(self, key):
        """True if key is maybe present, False if it is absent; the
        kernel's answer (kbloom_test(3)), false positives included."""
        # _one() inline: this is the per-key path
        if type(key) is bytes:
            k = key
        elif type(key) is str and not self._addr:
            k = key.encode()
        else:
            k = self._key(key)
        self._users.append(None)
        try:
            if self._closing:
                raise ValueError("kbloom: operation on a closed filter")
            ret = _test(self._h, k, len(k))
        finally:
            self._leave()
        if ret < 0:
            raise _error(ret, self._what)
        return ret > 0

    __contains__ = test

    def test_many(self, keys):
        """[test(k) for k in keys], in one call into the library
        (kbloom_test_many(3)), which releases the GIL."""
        keys = list(keys)
        n = len(keys)
        if not n:
            return []
        words = (n + 63) // 64
        bitmap = (ctypes.c_uint64 * words)()
        self._many(_lib.kbloom_test_many, keys, bitmap)
        # bit i % 64 of word i / 64: bit i of one little-endian integer
        bits = format(int.from_bytes(bytes(bitmap), "little"), "b")[::-1]
        return [c == "1" for c in bits.ljust(n, "0")[:n]]

    def test_addr(self, addr):
        """True if the address (ipaddress.IPv4Address/IPv6Address, its
        text, or its 4 or 16 bytes) is maybe present, looked up as a
        packet's (kbloom_test_addr(3)): in a net filter through every
        prefix length it holds; in a filter of the other family absent."""
        if isinstance(addr, (str, int, bytes)):
            addr = ipaddress.ip_address(addr)
        if isinstance(addr, ipaddress.IPv4Address):
            fam = socket.AF_INET
        elif isinstance(addr, ipaddress.IPv6Address):
            fam = socket.AF_INET6
        else:
            raise TypeError("kbloom: an address is an ipaddress.IPv4Address, "
                            "IPv6Address or str, not %s" % type(addr).__name__)
        packed = addr.packed
        h = self._enter()
        try:
            ret = _lib.kbloom_test_addr(h, fam, packed)
        finally:
            self._leave()
        if ret < 0:
            raise _error(ret, self._what)
        return ret > 0

    # ---- writers (Filter(name, write=True)); elsewhere OSError EROFS

    def add(self, key):
        """Add key (kbloom_add(3))."""
        self._one(_lib.kbloom_add, key)

    def add_many(self, keys):
        """Add every key in one call (kbloom_add_many(3)); returns the
        number of keys that were new (tested absent before)."""
        keys = list(keys)
        if not keys:
            return 0
        return self._many(_lib.kbloom_add_many, keys)

    def test_and_add(self, key):
        """Add key; True if it was maybe present before, False if it was
        absent (kbloom_test_and_add(3)): a seen-set's check in one call."""
        return self._one(_lib.kbloom_test_and_add, key) > 0

    # ---- the filter itself

    def fileno(self):
        """The filter's fd, for poll() and selectors: readable (POLLIN)
        when the mapped generation stops being the filter's current one
        (rebuild, swap, upload, flush, destroy).  Images have none:
        io.UnsupportedOperation."""
        h = self._enter()
        try:
            fd = _lib.kbloom_fd(h)
        finally:
            self._leave()
        if fd < 0:
            raise io.UnsupportedOperation("kbloom: %s has no fd (an image)" % self._what)
        return fd

    def refresh(self):
        """Map the filter's current generation now (every call does when
        needed); True if it changed (kbloom_refresh(3))."""
        h = self._enter()
        try:
            ret = _lib.kbloom_refresh(h)
        finally:
            self._leave()
        if ret < 0:
            raise _error(ret, self._what)
        return ret > 0

    @property
    def info(self):
        """Info of the generation mapped now (kbloom_info(3))."""
        raw = _RawInfo()
        h = self._enter()
        try:
            ret = _lib.kbloom_info(h, ctypes.byref(raw))
        finally:
            self._leave()
        if ret < 0:
            raise _error(ret, self._what)
        return Info(_enum(Kind, raw.kind), _enum(KeyType, raw.key_type),
                    _enum(Hash, raw.hash), raw.k, raw.m, raw.items,
                    raw.payload_bytes, raw.generation, raw.id, raw.fpr_ppb,
                    raw.prefixes, bool(raw.flags & KBLOOM_WRITE))

