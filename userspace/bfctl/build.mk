# SPDX-License-Identifier: GPL-2.0
#
# bfctl's kernel verbs: libnl for the generic netlink family, `make
# install`, the install test and the bfctl VM tests.  Included by the top
# Makefile after userspace/build.mk (which builds bfctl from
# userspace/bfctl/*.c and libkbcore.a).

KB_NL_CFLAGS := $(shell pkg-config --cflags libnl-genl-3.0 2>/dev/null || echo -I/usr/include/libnl3)
KB_NL_LIBS := $(shell pkg-config --libs libnl-genl-3.0 2>/dev/null || echo -lnl-genl-3 -lnl-3)

# every link of bfctl: the build tree's, ASan's, the one make install installs
KB_BFCTL_BINS := $(UBUILD)/bfctl $(UBUILD)/asan/bfctl $(KB_BFCTL_INSTALL)

# lib/kbnl.c includes <netlink/...>; only an include path, harmless elsewhere
CFLAGS_USER += $(KB_NL_CFLAGS)
$(KB_BFCTL_BINS): KB_ULIBS += $(KB_NL_LIBS)
# bfctl redis (redis*.c): Debian's libhiredis-dev
$(KB_BFCTL_BINS): KB_ULIBS += -lhiredis

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
install: $(KB_BFCTL_INSTALL) $(UBUILD)/xtables/libxt_bloom.so \
		$(UBUILD)/xtables/libxt_BLOOM.so
	install -D -m 0755 $(KB_BFCTL_INSTALL) $(KB_SBINDIR)/bfctl
	install -D -m 0644 userspace/bfctl/bfctl.8 $(KB_MAN8DIR)/bfctl.8
	install -D -m 0644 userspace/bfctl/bfctl.bash-completion $(KB_COMPDIR)/bfctl
	install -D -m 0644 $(UBUILD)/xtables/libxt_bloom.so \
		$(DESTDIR)$(KB_XTLIBDIR)/libxt_bloom.so
	install -D -m 0644 $(UBUILD)/xtables/libxt_BLOOM.so \
		$(DESTDIR)$(KB_XTLIBDIR)/libxt_BLOOM.so
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
# windows and growing filters: create's usage errors, restore -check of
# slice blocks (no kernel)
NATIVE_TESTS += $(CURDIR)/userspace/bfctl/tests/test-slices
# bfctl redis against a private redis-server (pull/watch with -o: no kernel)
NATIVE_TESTS += $(CURDIR)/userspace/bfctl/tests/test-redis
# bfctl redis relay and watch following its stream of deltas (-o)
NATIVE_TESTS += $(CURDIR)/userspace/bfctl/tests/test-redis-delta

# ---- VM tests: TAP scripts (selftests/bfctl/*.sh, in selftests/manifest)
# driving the real bfctl against kbloom.ko ----
VM_TEST_PROGS += $(UBUILD)/bfctl

# fuzz_savefmt (userspace/build.mk) runs restore, which reads create lines
# with the kernel verbs' option parser, add lines with the key parser, and
# guards capacity (restore_bad.c: --on-bad-payload's stand-ins)
KB_FUZZ_SRCS_fuzz_savefmt += userspace/bfctl/restore.c userspace/bfctl/kargs.c \
	userspace/bfctl/keys.c userspace/bfctl/capacity.c \
	userspace/bfctl/restore_bad.c userspace/bfctl/savefmt_attach.c \
	userspace/bfctl/grant.c userspace/bfctl/savefmt_slices.c \
	userspace/bfctl/slices.c userspace/bfctl/json.c
$(UBUILD)/fuzz/fuzz_savefmt: userspace/bfctl/restore.c userspace/bfctl/savefmt_attach.c userspace/bfctl/kargs.c \
	userspace/bfctl/savefmt_slices.c userspace/bfctl/slices.c \
	userspace/bfctl/grant.c \
	userspace/bfctl/restore_bad.c \
	userspace/bfctl/keys.c userspace/bfctl/capacity.c \
	userspace/bfctl/savefmt.h userspace/bfctl/kverbs.h

# The go-zero oracle (userspace/tests/gozero-oracle) for the bfctl_redis VM
# test, built here with Debian's Go packages (GOPATH mode, no network): the
# guest has no time to compile Go under TCG.  Without them the test skips.
KB_HAVE_GO_ORACLE := $(shell command -v go > /dev/null && \
	test -d /usr/share/gocode/src/github.com/gomodule/redigo/redis && \
	test -d /usr/share/gocode/src/github.com/spaolacci/murmur3 && echo y)
ifeq ($(KB_HAVE_GO_ORACLE),y)
$(UBUILD)/tests/gozero-oracle: userspace/tests/gozero-oracle/main.go
	@mkdir -p $(@D)
	GOPATH=/usr/share/gocode GO111MODULE=off GOFLAGS= GOPROXY=off \
		GOCACHE=$(BUILD)/gocache go build -o $@ $<
VM_TEST_PROGS += $(UBUILD)/tests/gozero-oracle
endif

# ---- make bench-redis: bfctl redis pull vs redis-cli GET (native) ----
BENCH_TARGETS += bench-redis
.PHONY: bench-redis
bench-redis: $(UBUILD)/bfctl
	$(CURDIR)/userspace/bench/bench-redis $(UBUILD)/bfctl $(BUILD)/bench-redis.json

# ---- make bench-gozero: gozero lookups, core batched vs go-zero's Exists ----
BENCH_TARGETS += bench-gozero
.PHONY: bench-gozero
bench-gozero: $(UBUILD)/bench/bench_gozero $(UBUILD)/tests/gozero-oracle
	$(CURDIR)/userspace/bench/bench-gozero $(UBUILD)/bench/bench_gozero \
		$(UBUILD)/tests/gozero-oracle $(BUILD)/bench-gozero.json

# ---- bfctl lsm: the path filter (userspace/bpf/path_filter.bpf.c) ----
KB_BPF_PROGS += path_filter
# its path buffers are claimed with compare-and-exchange: BPF ISA v3
$(KB_BPF_OUT)/path_filter.bpf.o: KB_BPF_CFLAGS += -mcpu=v3
KB_LSM_OBJS := $(foreach o,lsm lsm_show lsm_inode restore_attach,$(UBUILD)/bfctl.d/$(o).o $(UBUILD)/asan/bfctl-obj/$(o).o)
$(KB_LSM_OBJS): $(KB_BPF_OUT)/path_filter.skel.h
$(KB_LSM_OBJS): KB_UCFLAGS += $(KB_BPF_USER_CFLAGS) -I$(CURDIR)/userspace/bpf
$(KB_BFCTL_BINS): KB_ULIBS += $(KB_BPF_LIBS)
# the program's keyed hash against libsodium's (native)
$(UBUILD)/tests/test_pf_siphash: KB_TEST_CFLAGS += -I$(CURDIR)/userspace/bpf
$(UBUILD)/tests/test_pf_siphash: userspace/bpf/path_filter.h
NATIVE_TESTS += $(UBUILD)/tests/test_pf_siphash

# content mode (lsm_content.c): userspace/bpf/content_filter.bpf.c, the
# files' SHA-256 from IMA (bpf_ima_file_hash()) tested as bytes keys
KB_BPF_PROGS += content_filter
KB_LSM_CONTENT_OBJS := $(foreach o,lsm_content lsm_content_show restore_attach,$(UBUILD)/bfctl.d/$(o).o $(UBUILD)/asan/bfctl-obj/$(o).o)
$(KB_LSM_CONTENT_OBJS): $(KB_BPF_OUT)/content_filter.skel.h userspace/bpf/content_filter.h
$(KB_LSM_CONTENT_OBJS): KB_UCFLAGS += $(KB_BPF_USER_CFLAGS) -I$(CURDIR)/userspace/bpf

# ---- bfctl xdp (xdp.c, xdp_show.c): the XDP/tc blocklist, userspace/bpf/xdp_blocklist.bpf.c,
# loaded through its skeleton; only bfctl links libbpf ----
KB_BPF_PROGS += xdp_blocklist
KB_BFCTL_XDP_OBJS := $(foreach o,xdp xdp_show xdp_disp xdp_opts xdp_tcx restore_attach,$(UBUILD)/bfctl.d/$(o).o $(UBUILD)/asan/bfctl-obj/$(o).o)
$(KB_BFCTL_XDP_OBJS): KB_UCFLAGS += $(KB_BPF_USER_CFLAGS) -I$(CURDIR)/userspace/bpf
$(KB_BFCTL_XDP_OBJS): $(KB_BPF_OUT)/xdp_blocklist.skel.h userspace/bpf/xdp_blocklist.h
# libxdp (Debian's libxdp-dev, xdp-tools 1.3): its dispatcher lets the
# blocklist share a device's XDP hook with xdp-filter and the like (xdp_disp.c)
$(KB_BFCTL_BINS): KB_ULIBS += $(shell pkg-config --libs libxdp 2> /dev/null || echo -lxdp)
