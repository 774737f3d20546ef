# SPDX-License-Identifier: GPL-2.0
#
# kbloom top-level Makefile.  `make` builds the modules for $(KVER), the
# userspace programs and the selftests; `make check` runs everything;
# `make run` boots a throwaway VM with kbloom loaded.  See README.md.

SHELL := /bin/bash
# `make` alone is `make all`, whatever rule an included fragment puts first
.DEFAULT_GOAL := all
BUILD ?= $(CURDIR)/build
UBUILD := $(BUILD)/user
KSFT_DIR := $(BUILD)/ksft
LSRC := /usr/src/linux-source-6.1.tar.xz
CHECKPATCH := $(KSFT_DIR)/scripts/checkpatch.pl

# Newest installed Debian linux-headers-*-amd64 (never `uname -r`: the host
# kernel has no headers).  Evaluated only when a target needs it.
KVER ?= $(shell $(CURDIR)/scripts/kver)
KDIR ?= /lib/modules/$(KVER)/build
# Module builds for different kernels live in different mirror trees.
KBUILD_DIR = $(BUILD)/kmod-$(KVER)

CC ?= cc
CXX ?= c++
CFLAGS_USER := -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE \
	-I$(CURDIR)/uapi -I$(CURDIR)/kmod/core -I$(CURDIR)/kmod \
	-I$(CURDIR)/userspace/lib

# Appended to by the fragments below.
USER_PROGS :=
NATIVE_TESTS :=
# What the VM selftests need built; which tests run in which lane, and how,
# is selftests/manifest.  TESTS="a b" runs only those (make check-vm).
VM_TEST_PROGS :=
TESTS ?=
# Extra modules to insmod after kbloom.ko (paths relative to KBUILD_DIR).
VM_MODULES := kmod/kbloom.ko
# Distribution modules the VM tests need, loaded with modprobe first.
VM_MODPROBE :=

# The VM runner with the distribution modules the tests need (and VM_CPUS
# vCPUs, below, where set).
KB_VM_RUN = $(CURDIR)/scripts/vm-run $(foreach m,$(VM_MODPROBE),--modprobe $(m)) \
	$(if $(VM_CPUS),-c $(VM_CPUS))

# A whole lane's guest: about 10 minutes alone under TCG, up to half as
# long again while make check runs another lane beside it; a guest that
# hangs is still stopped well within CI's time.
VM_TIMEOUT ?= 1800
# vCPUs of a lane's guest (empty: vm-run's 2).  make check gives the
# Debian kernels' lanes 1 each and runs two at a time (scripts/check).
VM_CPUS ?=

# One VM lane: the manifest's tests of a lane on one kernel.
# $(call kb_vm_lane,KVER,OUTDIR,MODULE_TREE,LANE[,VM-RUN OPTIONS[,ENV]])
define kb_vm_lane
	@mkdir -p $(2)
	@$(CURDIR)/scripts/manifest $(4) $(BUILD) $(TESTS) > $(2).tests
	$(6) $(KB_VM_RUN) -k $(1) -o $(2) -t $(VM_TIMEOUT) $(5) \
		$(if $(VM_CMDLINE),--append '$(VM_CMDLINE)') \
		$(foreach m,$(VM_MODULES),--insmod $(3)/$(m)) --tests $(2).tests
endef

include userspace/bpf/build.mk
include userspace/build.mk
include userspace/libkbloom/build.mk
include selftests/build.mk
include userspace/xtables/build.mk
include userspace/bfctl/build.mk
include packaging/build.mk
include userspace/bindings/go/build.mk
include userspace/bindings/python/build.mk
BENCH_TARGETS += bench-core
include userspace/bench/app.mk
include userspace/bench/fleet.mk

.PHONY: all modules modules-tree user selftests deps check check-native check-vm \
	run style bench clean ksft

all: modules user selftests

$(KSFT_DIR)/.stamp: | $(LSRC)
	@mkdir -p $(KSFT_DIR)
	tar -xJf $(LSRC) -C $(KSFT_DIR) --strip-components=1 --wildcards \
		'linux-source-6.1/tools/testing/selftests/kselftest*.h' \
		'linux-source-6.1/scripts/checkpatch.pl' \
		'linux-source-6.1/scripts/spelling.txt' \
		'linux-source-6.1/scripts/const_structs.checkpatch'
	cp $(KSFT_DIR)/tools/testing/selftests/kselftest*.h $(KSFT_DIR)/
	touch $@

$(LSRC):
	@echo "missing $(LSRC): run 'make deps'" >&2; exit 1

ksft: $(KSFT_DIR)/.stamp

# One build of a tree at a time: make check runs lanes of one kernel side
# by side (vm, smp, pkg), and each lane's make modules relinks the tree's
# sources before kbuild finds nothing to do.
modules:
	@test -n "$(KVER)" || { echo "no kernel headers installed: run 'make deps'" >&2; exit 1; }
	@mkdir -p $(KBUILD_DIR)
	@flock $(KBUILD_DIR)/.kb-lock $(MAKE) --no-print-directory -C $(CURDIR) modules-tree

modules-tree:
	@find $(KBUILD_DIR) -type l -delete
	@mkdir -p $(KBUILD_DIR)/selftests
	@cp -rs $(wildcard $(CURDIR)/Kbuild $(CURDIR)/kmod $(CURDIR)/uapi) $(KBUILD_DIR)/
	@cp -rs $(CURDIR)/selftests/kmod $(KBUILD_DIR)/selftests/
	@kdir=$$($(CURDIR)/scripts/kdir-btf $(KVER) $(KDIR) $(BUILD) $(KBUILD_DIR)) && \
	echo "$(MAKE) -C $$kdir M=$(KBUILD_DIR) $(KBUILD_FLAGS) modules" && \
	$(MAKE) -C $$kdir M=$(KBUILD_DIR) $(KBUILD_FLAGS) modules

# sparse over every file (C=2) and the W=1 warnings, in a tree of their own
# so that the ordinary build is not redone; any warning fails.
.PHONY: sparse
sparse:
	@mkdir -p $(BUILD)
	@set -o pipefail; $(MAKE) --no-print-directory modules \
		KBUILD_DIR=$(BUILD)/kmod-sparse-$(KVER) KBUILD_FLAGS='C=2 W=1' \
		2>&1 | tee $(BUILD)/sparse-$(KVER).log
	@! grep -E 'warning:|error:' $(BUILD)/sparse-$(KVER).log

user: $(USER_PROGS) $(KB_BPF_SKELS)

selftests: $(NATIVE_TESTS) $(VM_TEST_PROGS) $(KB_BPF_TEST_SKELS)

.PHONY: bpf
bpf: $(KB_BPF_SKELS) $(KB_BPF_TEST_SKELS)

deps:
	@$(CURDIR)/scripts/deps

# Native unit tests: each program prints TAP; failures do not stop the rest.
check-native: all
	@rm -rf $(BUILD)/results/native; mkdir -p $(BUILD)/results/native
	@fail=0; for t in $(NATIVE_TESTS); do \
		n=$${t##*/}; \
		KB_BUILD=$(BUILD) $(CURDIR)/scripts/tap-run $$n $(BUILD)/results/native -- $$t || fail=1; \
		echo "native: $$n: $$(grep -c '^ok' $(BUILD)/results/native/$$n.tap) ok, $$(grep -c '^not ok' $(BUILD)/results/native/$$n.tap) not ok"; \
	done; \
	if [ $$fail != 0 ]; then grep -h '^not ok' $(BUILD)/results/native/*.tap; fi; exit $$fail

# The VM selftests on one kernel: make check-vm KVER=6.1.0-56-amd64
# (VM_LANE: the manifest's lane: vm, kernel (without the cli scripts), rt
# for Debian's PREEMPT_RT kernel, or smp, whose results, as make check runs
# it beside the others, go to a directory of their own)
VM_LANE ?= vm
check-vm: modules user selftests
	$(call kb_vm_lane,$(KVER),$(BUILD)/results/vm-$(KVER)$(if $(filter smp,$(VM_LANE)),-smp),$(KBUILD_DIR),$(VM_LANE))

check:
	@$(CURDIR)/scripts/check

# make run: only the product (the modules without the test modules, and
# what `make install` installs: bfctl, its man page and completion,
# libxt_bloom.so), installed in the guest as on a host (staged in RUN_ROOT,
# copied onto the guest's overlay: vm-run --install), then RUN_CMD (the
# demonstration) and, from a terminal, a shell.  scripts/tests/test-make-run
# checks that shell with another RUN_CMD and RUN_OUT (its own RUN_ROOT: the
# two may run at once).
RUN_OUT ?= $(BUILD)/run
RUN_ROOT = $(RUN_OUT)/root
RUN_CMD ?= $(CURDIR)/scripts/demo
run: deps
	@$(MAKE) --no-print-directory modules KB_NO_TESTS=1
	@rm -rf $(RUN_ROOT)
	@$(MAKE) --no-print-directory install DESTDIR=$(RUN_ROOT) PREFIX=/usr/local
	$(KB_VM_RUN) -k $(KVER) -o $(RUN_OUT) \
		$(if $(shell [ -t 0 ] && echo y),-i) --install $(RUN_ROOT) \
		--insmod $(KBUILD_DIR)/kmod/kbloom.ko --insmod $(KBUILD_DIR)/kmod/xt_bloom.ko \
		--run '$(RUN_CMD)'

# The netlink ABI from uapi/kbloom.yaml (scripts/ynl-gen): make regen
# rewrites the generated files, make style fails when they are stale.
NL_GEN := $(CURDIR)/scripts/ynl-gen $(YNL_DIR) $(CURDIR) $(BUILD)
.PHONY: regen
regen: $(YNL_DIR)/.stamp
	@$(NL_GEN)
# the selftests' rules name uapi/linux/kbloom.h, not what it includes
$(filter $(ST_BUILD)/%,$(VM_TEST_PROGS)): uapi/linux/kbloom_netlink.h

style: ksft $(YNL_DIR)/.stamp
	@rc=0; $(NL_GEN) --check || rc=1; \
	$(CURDIR)/scripts/style $(CHECKPATCH) || rc=1; exit $$rc

bench: $(BENCH_TARGETS)

clean:
	rm -rf $(BUILD)

# Reliability lanes (see README.md).  The debug kernel (KASAN, lockdep,
# kmemleak, UBSAN, fault injection) is built once from linux-source-6.1
# and cached outside the repository by scripts/debug-kernel.
DEBUG_KVER := debug-6.1
VM_DEBUG_TIMEOUT ?= 2700
# Tight lockup detection in the debug lane: a soft lockup after 4 s without
# a scheduling point, a task blocked uninterruptibly for 30 s, both panic.
# (watchdog_thresh=1, 2 s, gave a false soft lockup in the RCU kthread of a
# TCG guest on a host with load 9: the vCPU thread was not scheduled.)
VM_DEBUG_CMDLINE ?= watchdog_thresh=2 hung_task_panic=1 \
	sysctl.kernel.hung_task_timeout_secs=30

.PHONY: debug-kernel check-debug check-rt

# The runner's module-less initramfs (for kernels with everything built in).
NATIVE_TESTS += $(CURDIR)/scripts/tests/test-mkinitramfs
NATIVE_TESTS += $(CURDIR)/scripts/tests/test-config
NATIVE_TESTS += $(CURDIR)/scripts/tests/test-manifest
NATIVE_TESTS += $(CURDIR)/scripts/tests/test-core-div64
# the per-packet lookup of every built kbloom.ko calls nothing it need not
NATIVE_TESTS += $(CURDIR)/scripts/tests/test-pkt-path
# make run's shell: bfctl, man page, -m bloom, loopback, README's commands
# (one guest boot)
NATIVE_TESTS += $(CURDIR)/scripts/tests/test-make-run

# DKMS: the module sources (no tests, no build output) under
# $(DESTDIR)/usr/src/kbloom-VERSION, for `dkms install kbloom/VERSION`.
KB_VERSION = $(shell sed -n 's/^\#define KBLOOM_VERSION "\(.*\)"/\1/p' kmod/kbloom_version.h)
.PHONY: dkms-install
dkms-install:
	@test -n "$(KB_VERSION)"
	install -d $(DESTDIR)/usr/src/kbloom-$(KB_VERSION)
	cp -r Kbuild dkms.conf kmod uapi $(DESTDIR)/usr/src/kbloom-$(KB_VERSION)/
	install -D -m 0755 scripts/kdir-btf $(DESTDIR)/usr/src/kbloom-$(KB_VERSION)/scripts/kdir-btf
NATIVE_TESTS += $(CURDIR)/scripts/tests/test-dkms
NATIVE_TESTS += $(CURDIR)/scripts/tests/test-kdir-btf

debug-kernel:
	@$(CURDIR)/scripts/debug-kernel

KB_DEBUG_DIR = $(shell $(CURDIR)/scripts/debug-kernel --key)
check-debug: selftests
	@$(CURDIR)/scripts/debug-kernel > /dev/null
	@$(MAKE) --no-print-directory modules KVER=$(DEBUG_KVER) KDIR=$(KB_DEBUG_DIR)/linux
	$(call kb_vm_lane,$(DEBUG_KVER),$(BUILD)/results/vm-$(DEBUG_KVER),$(BUILD)/kmod-$(DEBUG_KVER),debug,\
		--kernel $(KB_DEBUG_DIR)/linux/arch/x86/boot/bzImage \
		--builtin $(KB_DEBUG_DIR)/linux/modules.builtin --kmemleak \
		--append '$(VM_DEBUG_CMDLINE)' \
		-t $(VM_DEBUG_TIMEOUT),KB_TEST_TIMEOUT=1800)

# Debian's PREEMPT_RT kernel: RCU read sections are preemptible, spinlocks sleep.
# (RT_LANE=rt-kernel: without the cli scripts, as make check runs it)
RT_LANE ?= rt
check-rt:
	@k=$$($(CURDIR)/scripts/kver rt) && \
	$(MAKE) --no-print-directory check-vm KVER=$$k VM_LANE=$(RT_LANE)
