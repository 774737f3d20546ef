# SPDX-License-Identifier: GPL-2.0
#
# The Python binding (userspace/bindings/python/kbloom): pure Python,
# ctypes over libkbloom.so.0, so nothing is built.  `make install` puts
# the package where Debian's python3 looks: /usr/lib/python3/dist-packages
# for PREFIX=/usr (debian/rules, python3-kbloom), else the local site
# PREFIX/lib/python3.X/dist-packages.  Included by the top Makefile after
# packaging/build.mk (KB_INSTALLED, make uninstall).

KB_PY_SRC := userspace/bindings/python/kbloom
KB_PY_FILES := __init__.py _native.py
KB_PY_VER = $(shell /usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' \
	2> /dev/null || echo 3)
KB_PYTHONDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/python3/dist-packages,$(PREFIX)/lib/python$(KB_PY_VER)/dist-packages)
KB_PYDEST = $(DESTDIR)$(KB_PYTHONDIR)/kbloom

.PHONY: install-python
install: install-python
install-python:
	install -d $(KB_PYDEST)
	install -m 0644 $(addprefix $(KB_PY_SRC)/,$(KB_PY_FILES)) $(KB_PYDEST)/

KB_INSTALLED += $(addprefix $(KB_PYDEST)/,$(KB_PY_FILES))
# bytecode python3 wrote beside the installed files (root ran it)
uninstall: uninstall-python-cache
.PHONY: uninstall-python-cache
uninstall-python-cache:
	rm -rf $(KB_PYDEST)/__pycache__

# unittest over images natively (tests/test_kbloom.py); in the VM
# (selftests/manifest: python_kbloom) against a kernel filter too
NATIVE_TESTS += $(CURDIR)/userspace/bindings/python/test-python
