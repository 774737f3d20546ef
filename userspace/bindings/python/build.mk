# SPDX-License-Identifier: GPL-2.0
#
# The Python binding (userspace/bindings/python/kbloom): pure Python,
# ctypes over libkbloom.so.0, so nothing is built.  Included by the top
# Makefile after packaging/build.mk.

# unittest over images natively (tests/test_kbloom.py); in the VM
# (selftests/manifest: python_kbloom) against a kernel filter too
NATIVE_TESTS += $(CURDIR)/userspace/bindings/python/test-python
