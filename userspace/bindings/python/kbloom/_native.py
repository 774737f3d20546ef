# SPDX-License-Identifier: GPL-2.0
"""ctypes declarations of libkbloom.so.0 (<kbloom/kbloom.h>).

Loaded once, at import: $KBLOOM_LIBRARY when set (a build tree's
build/user/libkbloom/libkbloom.so.0), else the soname through the dynamic
linker (Debian's libkbloom0), else whatever ctypes.util finds.  No
compiled extension: the binding runs on any Python 3 that has ctypes.
"""

import ctypes
import ctypes.util
import os

SONAME = "libkbloom.so.0"

KBLOOM_RDONLY = 0
KBLOOM_WRITE = 1


class Key(ctypes.Structure):
    """struct kbloom_key"""
    _fields_ = [("data", ctypes.c_void_p), ("len", ctypes.c_size_t)]


class RawInfo(ctypes.Structure):
    """struct kbloom_info"""
    _fields_ = ([(n, ctypes.c_uint32) for n in ("kind", "key_type", "hash", "k")] +
                [(n, ctypes.c_uint64) for n in ("m", "items", "payload_bytes",
                                                "generation", "id")] +
                [(n, ctypes.c_uint32) for n in ("fpr_ppb", "prefixes", "flags",
                                                "reserved")])


def _load():
    path = os.environ.get("KBLOOM_LIBRARY")
    if path:
        return ctypes.CDLL(path)
    try:
        return ctypes.CDLL(SONAME)
    except OSError as e:
        found = ctypes.util.find_library("kbloom")
        if not found:
            raise ImportError("kbloom: cannot load %s (install libkbloom0, or set "
                              "KBLOOM_LIBRARY to its path): %s" % (SONAME, e)) from e
        return ctypes.CDLL(found)


def _declare(lib):
    h = ctypes.c_void_p
    ph = ctypes.POINTER(ctypes.c_void_p)
    sz = ctypes.c_size_t
    protos = {
        "kbloom_open": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_uint, ph]),
        "kbloom_open_image": (ctypes.c_int, [ctypes.c_char_p, ph]),
        "kbloom_close": (None, [h]),
        "kbloom_fd": (ctypes.c_int, [h]),
        "kbloom_refresh": (ctypes.c_int, [h]),
        # keys go as c_char_p: a bytes object's own buffer, no copy
        "kbloom_test": (ctypes.c_int, [h, ctypes.c_char_p, sz]),
        "kbloom_test_addr": (ctypes.c_int, [h, ctypes.c_int, ctypes.c_char_p]),
        # the key array and the bitmap as addresses (see Filter._keys)
        "kbloom_test_many": (ctypes.c_long, [h, ctypes.c_void_p, sz, ctypes.c_void_p]),
        "kbloom_add": (ctypes.c_int, [h, ctypes.c_char_p, sz]),
        "kbloom_add_many": (ctypes.c_long, [h, ctypes.c_void_p, sz]),
        "kbloom_test_and_add": (ctypes.c_int, [h, ctypes.c_char_p, sz]),
        "kbloom_errmsg": (ctypes.c_char_p, []),
        "kbloom_info": (ctypes.c_int, [h, ctypes.POINTER(RawInfo)]),
    }
    for name, (res, args) in protos.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
    return lib


lib = _declare(_load())
