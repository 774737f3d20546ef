# SPDX-License-Identifier: GPL-2.0
#
# bfctl's kernel verbs: libnl for the generic netlink family, `make
# install`, the install test and the bfctl VM tests.  Included by the top
# Makefile after userspace/build.mk (which builds bfctl from
# userspace/bfctl/*.c and libkbcore.a).

KB_NL_CFLAGS := $(shell pkg-config --cflags libnl-genl-3.0 2>/dev/null || echo -I/usr/include/libnl3)
KB_NL_LIBS := $(shell pkg-config --libs libnl-genl-3.0 2>/dev/null || echo -lnl-genl-3 -lnl-3)

# lib/kbnl.c includes <netlink/...>; only an include path, harmless elsewhere
CFLAGS_USER += $(KB_NL_CFLAGS)
$(UBUILD)/bfctl $(UBUILD)/asan/bfctl: KB_ULIBS += $(KB_NL_LIBS)

# ---- make install [DESTDIR=...] [PREFIX=/usr/local] ----

PREFIX ?= /usr/local
KB_SBINDIR = $(DESTDIR)$(PREFIX)/sbin
KB_MAN8DIR = $(DESTDIR)$(PREFIX)/share/man/man8
KB_COMPDIR = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
# the BPF programs' header (userspace/bpf/kbloom.bpf.h, docs/bpf.md)
KB_INCDIR = $(DESTDIR)$(PREFIX)/include/kbloom
# iptables looks for extensions in its own directory, not under PREFIX
KB_XTLIBDIR ?= $(shell pkg-config --variable=xtlibdir xtables 2>/dev/null || echo /usr/lib/x86_64-linux-gnu/xtables)

.PHONY: install
install: $(UBUILD)/bfctl $(UBUILD)/xtables/libxt_bloom.so
	install -D -m 0755 $(UBUILD)/bfctl $(KB_SBINDIR)/bfctl
	install -D -m 0644 userspace/bfctl/bfctl.8 $(KB_MAN8DIR)/bfctl.8
	install -D -m 0644 userspace/bfctl/bfctl.bash-completion $(KB_COMPDIR)/bfctl
	install -D -m 0644 $(UBUILD)/xtables/libxt_bloom.so \
		$(DESTDIR)$(KB_XTLIBDIR)/libxt_bloom.so
	install -D -m 0644 userspace/bpf/kbloom.bpf.h $(KB_INCDIR)/kbloom.bpf.h

# native: make install into a temporary DESTDIR and check what landed
$(UBUILD)/tests/test-install: selftests/bfctl/test-install
	@mkdir -p $(@D)
	printf '#!/bin/bash\nexec %s %s %s "$$@"\n' $(CURDIR)/selftests/bfctl/test-install \
		$(CURDIR) $(BUILD) > $@
	chmod +x $@

NATIVE_TESTS += $(UBUILD)/tests/test-install
# the completion offers exactly the options bfctl takes
NATIVE_TESTS += $(CURDIR)/userspace/bfctl/tests/test-completion

# ---- VM tests: TAP scripts (selftests/bfctl/*.sh, in selftests/manifest)
# driving the real bfctl against kbloom.ko ----
VM_TEST_PROGS += $(UBUILD)/bfctl

# fuzz_savefmt (userspace/build.mk) runs restore, which reads create lines
# with the kernel verbs' option parser, add lines with the key parser, and
# guards capacity
KB_FUZZ_SRCS_fuzz_savefmt += userspace/bfctl/restore.c userspace/bfctl/kargs.c \
	userspace/bfctl/keys.c userspace/bfctl/capacity.c
$(UBUILD)/fuzz/fuzz_savefmt: userspace/bfctl/restore.c userspace/bfctl/kargs.c \
	userspace/bfctl/keys.c userspace/bfctl/capacity.c \
	userspace/bfctl/savefmt.h userspace/bfctl/kverbs.h

# ---- bfctl xdp (xdp.c): the XDP/tc blocklist, userspace/bpf/xdp_blocklist.bpf.c,
# loaded through its skeleton; only bfctl links libbpf ----
KB_BPF_PROGS += xdp_blocklist
KB_BFCTL_XDP_OBJS := $(UBUILD)/bfctl.d/xdp.o $(UBUILD)/asan/bfctl-obj/xdp.o
$(KB_BFCTL_XDP_OBJS): KB_UCFLAGS += $(KB_BPF_USER_CFLAGS) -I$(CURDIR)/userspace/bpf
$(KB_BFCTL_XDP_OBJS): $(KB_BPF_OUT)/xdp_blocklist.skel.h userspace/bpf/xdp_blocklist.h
$(UBUILD)/bfctl $(UBUILD)/asan/bfctl: KB_ULIBS += $(KB_BPF_LIBS)
