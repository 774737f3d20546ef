# SPDX-License-Identifier: GPL-2.0
#
# BPF programs: compiled at build time with Debian's clang (-target bpf),
# against a vmlinux.h that bpftool dumps from a kernel's BTF, wrapped in a
# libbpf skeleton (bpftool gen skeleton).  Nothing here is committed: all
# output goes under $(UBUILD)/bpf.  Included by the top-level Makefile.
#
# A program userspace/bpf/NAME.bpf.c is added with
#	KB_BPF_PROGS += NAME
# and a selftest's program selftests/bpf/NAME.bpf.c with
#	KB_BPF_TEST_PROGS += NAME
# Both give $(UBUILD)/bpf/NAME.bpf.o and $(UBUILD)/bpf/NAME.skel.h (so NAME
# is unique across both directories and a C identifier: the skeleton's
# functions are NAME__open() ...).  The program using the skeleton lists
# $(UBUILD)/bpf/NAME.skel.h as a prerequisite, compiles with
# $(KB_BPF_USER_CFLAGS) and links $(KB_BPF_LIBS).

KB_BPF_OUT := $(UBUILD)/bpf
KB_BPF_CLANG ?= clang
KB_BPFTOOL ?= bpftool
KB_BPF_PROGS :=
KB_BPF_TEST_PROGS :=
# Where each list's sources are (the selftests' programs may include the
# program headers of userspace/bpf, like kbloom.bpf.h).
KB_BPF_SRCDIR := $(CURDIR)/userspace/bpf
KB_BPF_TEST_SRCDIR := $(CURDIR)/selftests/bpf

# The BTF vmlinux.h is dumped from: the newest headers package that ships
# one (Debian's 6.12 headers have a BTF-only vmlinux; 6.1's have none).
# Types come from it; CO-RE relocations adapt field offsets to the running
# kernel, so the same objects load on 6.1 and 6.12.  Evaluated lazily.
KB_BPF_VMLINUX ?= $(lastword $(shell ls -d /usr/src/linux-headers-*/vmlinux 2> /dev/null | sort -V))

# -g: BTF in the object (libbpf needs it for CO-RE, maps and skeletons).
# __TARGET_ARCH_x86: libbpf's bpf_tracing.h picks pt_regs accessors by it.
KB_BPF_CFLAGS = -target bpf -O2 -g -Wall -Werror -D__TARGET_ARCH_x86 \
	-I$(KB_BPF_OUT) -I$(KB_BPF_SRCDIR)
KB_BPF_USER_CFLAGS = -I$(KB_BPF_OUT) $(shell pkg-config --cflags libbpf)
KB_BPF_LIBS = $(shell pkg-config --libs libbpf)

$(KB_BPF_OUT)/vmlinux.h:
	@test -n "$(KB_BPF_VMLINUX)" || { echo "no /usr/src/linux-headers-*/vmlinux with BTF: install the 6.12 headers (make deps)" >&2; exit 1; }
	@mkdir -p $(@D)
	$(KB_BPFTOOL) btf dump file $(KB_BPF_VMLINUX) format c > $@.tmp
	mv $@.tmp $@

# $(call kb_bpf_rule,SRCDIR): NAME.bpf.o from SRCDIR/NAME.bpf.c.  -MMD
# records the headers each program includes (kbloom.bpf.h, ...).  The
# object is passed through bpftool's static linker, which keeps BTF and
# drops DWARF: the skeleton embeds the object (a few KiB instead of ~1 MiB).
define kb_bpf_rule
$(KB_BPF_OUT)/%.bpf.o: $(1)/%.bpf.c $(KB_BPF_OUT)/vmlinux.h
	@mkdir -p $$(@D)
	$$(KB_BPF_CLANG) $$(KB_BPF_CFLAGS) -I$(1) -MMD -MP -MT $$@ -MF $$(@:.o=.d) \
		-c -o $$(@:.o=.dbg.o) $$<
	$$(KB_BPFTOOL) gen object $$@ $$(@:.o=.dbg.o)
endef
$(eval $(call kb_bpf_rule,$(KB_BPF_SRCDIR)))
$(eval $(call kb_bpf_rule,$(KB_BPF_TEST_SRCDIR)))

$(KB_BPF_OUT)/%.skel.h: $(KB_BPF_OUT)/%.bpf.o
	$(KB_BPFTOOL) gen skeleton $< name $* > $@.tmp
	mv $@.tmp $@

# Kept: make would delete the objects as intermediates of the skeletons.
.PRECIOUS: $(KB_BPF_OUT)/%.bpf.o

# `make bpf` builds every listed program; `make user` the skeletons of
# KB_BPF_PROGS, `make selftests` those of KB_BPF_TEST_PROGS (the top
# Makefile's rules, after every fragment has added to the lists).
KB_BPF_SKELS = $(patsubst %,$(KB_BPF_OUT)/%.skel.h,$(KB_BPF_PROGS))
KB_BPF_TEST_SKELS = $(patsubst %,$(KB_BPF_OUT)/%.skel.h,$(KB_BPF_TEST_PROGS))

-include $(wildcard $(KB_BPF_OUT)/*.d)

# ---- the XDP learning trap (docs/bpf.md "Learning a blocklist"): its
# program and xdp-learn, the example loader (built, not installed; the
# bfctl_learn VM test runs it) ----
KB_BPF_PROGS += xdp_learn
$(UBUILD)/xdp-learn: userspace/bpf/xdp_learn.c userspace/bpf/xdp_learn.h \
		$(KB_BPF_OUT)/xdp_learn.skel.h
	$(CC) $(CFLAGS_USER) $(KB_BPF_USER_CFLAGS) -o $@ $< $(KB_BPF_LIBS)
USER_PROGS += $(UBUILD)/xdp-learn
