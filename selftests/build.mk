# SPDX-License-Identifier: GPL-2.0
# VM selftests: kselftest-harness programs run inside the guest.
ST_BUILD := $(UBUILD)/selftests
ST_CFLAGS = $(CFLAGS_USER) -I$(KSFT_DIR) -Wno-unused-parameter -Wno-sign-compare

# The VM selftest programs (selftests/manifest says where and how they run).
ST_PROGS := kbloom_load kbloom_ioctl kbloom_image kbloom_txn kbloom_txn_write kbloom_api kbloom_identity \
	kbloom_limits kbloom_map kbloom_merge
VM_TEST_PROGS += $(addprefix $(ST_BUILD)/,$(ST_PROGS)) $(ST_BUILD)/always_fail

$(ST_BUILD)/%: selftests/%.c $(KSFT_DIR)/.stamp
	@mkdir -p $(@D)
	$(CC) $(ST_CFLAGS) -o $@ $< -lpthread

$(addprefix $(ST_BUILD)/,$(ST_PROGS)): selftests/kb_test.h selftests/kb_nl.h \
		uapi/linux/kbloom.h

# the generic netlink family (raw AF_NETLINK, selftests/kb_nl.h)
KB_GENL_PROGS := kbloom_genl kbloom_genl_dump kbloom_priv kbloom_spec kbloom_window \
	kbloom_except
VM_TEST_PROGS += $(addprefix $(ST_BUILD)/,$(KB_GENL_PROGS))
$(ST_BUILD)/kbloom_limits: selftests/kb_nl.h
$(addprefix $(ST_BUILD)/,$(KB_GENL_PROGS)): selftests/kb_nl.h selftests/kb_test.h uapi/linux/kbloom.h

# uapi/kbloom.yaml against the kernel, through the kernel's own ynl cli.py
# (tools/net/ynl and Documentation/netlink of linux-source-6.12, extracted
# to $(BUILD)/ynl, never committed).  No tarball: the test skips itself.
YNL_DIR := $(BUILD)/ynl
LSRC_YNL := /usr/src/linux-source-6.12.tar.xz
$(YNL_DIR)/.stamp:
	@mkdir -p $(YNL_DIR)
	if [ -f $(LSRC_YNL) ]; then \
		tar -xJf $(LSRC_YNL) -C $(YNL_DIR) --strip-components=1 \
			linux-source-6.12/tools/net/ynl \
			linux-source-6.12/Documentation/netlink; \
	fi
	touch $@

VM_TEST_PROGS += $(YNL_DIR)/.stamp

# The ioctl ABI from 32-bit processes (compat_ptr_ioctl, __aligned_u64
# layouts): the same tests built with -m32 (gcc-multilib), run through
# selftests/m32.sh, which skips them where the kernel has no IA32 emulation.
ST_M32 := kbloom_ioctl kbloom_image kbloom_txn_write kbloom_map
$(ST_BUILD)/m32/%: selftests/%.c selftests/kb_test.h selftests/kb_nl.h \
		uapi/linux/kbloom.h $(KSFT_DIR)/.stamp
	@mkdir -p $(@D)
	$(CC) -m32 $(ST_CFLAGS) -o $@ $< -lpthread

VM_TEST_PROGS += $(foreach p,$(ST_M32),$(ST_BUILD)/m32/$(p))

# exports and references that must not pin locks or memory; one test
# inserts an iptables -m bloom rule (libxt_bloom from the build)
$(ST_BUILD)/kbloom_pin: selftests/kbloom_pin.c selftests/kb_test.h selftests/kb_nl.h \
		uapi/linux/kbloom.h $(KSFT_DIR)/.stamp $(UBUILD)/xtables/libxt_bloom.so
	@mkdir -p $(@D)
	$(CC) $(ST_CFLAGS) -DXT_LIBDIR='"$(UBUILD)/xtables"' -o $@ $< -lpthread

VM_TEST_PROGS += $(ST_BUILD)/kbloom_pin

# the identity test runs bfctl image build
$(ST_BUILD)/kbloom_identity: selftests/kbloom_identity.c $(KSFT_DIR)/.stamp $(UBUILD)/bfctl
	@mkdir -p $(@D)
	$(CC) $(ST_CFLAGS) -DBFCTL_PATH='"$(UBUILD)/bfctl"' -o $@ $<

# the consumer API fixture (kbloom_api)
VM_MODULES += selftests/kmod/kb_consumer.ko

$(ST_BUILD)/always_fail: selftests/fixtures/always_fail.c $(KSFT_DIR)/.stamp
	@mkdir -p $(@D)
	$(CC) $(ST_CFLAGS) -o $@ $<

# Tests of the test harness itself (run natively; some boot VMs).
NATIVE_TESTS += $(CURDIR)/scripts/tests/test-logscan $(CURDIR)/scripts/tests/test-vm-runner

# ---- benchmark: make bench-kmod [BENCH_SMALL=1] (one VM run, TCG) ----
BENCH_TARGETS += bench-kmod
KB_BENCH_KMOD_OUT = $(BUILD)/bench/kmod-$(KVER)

$(ST_BUILD)/kbloom_bench: selftests/kbloom_bench.c selftests/kb_test.h selftests/kb_nl.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_USER) -o $@ $<

.PHONY: bench-kmod
bench-kmod: modules $(ST_BUILD)/kbloom_bench
	@rm -rf $(KB_BENCH_KMOD_OUT); mkdir -p $(KB_BENCH_KMOD_OUT)
	$(KB_VM_RUN) -k $(KVER) -o $(KB_BENCH_KMOD_OUT) \
		--insmod $(KBUILD_DIR)/kmod/kbloom.ko \
		--insmod $(KBUILD_DIR)/selftests/kmod/kb_consumer.ko \
		--run '$(ST_BUILD)/kbloom_bench $(if $(BENCH_SMALL),--small) --json $(KB_BENCH_KMOD_OUT)/bench-kmod.json'
	cp $(KB_BENCH_KMOD_OUT)/bench-kmod.json $(BUILD)/bench-kmod.json
	@cat $(BUILD)/bench-kmod.json

# ---- benchmark: make bench-bpf [BENCH_SMALL=1] (one VM run, TCG) ----
# kbloom's kfuncs vs BPF_MAP_TYPE_BLOOM_FILTER behind XDP programs of one
# shape, and the XDP blocklist vs iptables -m bloom (selftests/bench/bpf.sh).
BENCH_TARGETS += bench-bpf
KB_BPF_TEST_PROGS += kb_bench_bloom kb_bench_kbloom
KB_BENCH_BPF_OUT = $(BUILD)/bench/bpf-$(KVER)

$(KB_BPF_OUT)/kb_bench_bloom.bpf.o $(KB_BPF_OUT)/kb_bench_kbloom.bpf.o: \
	selftests/bpf/kb_bench_xdp.h

$(UBUILD)/bench/kb_bench_bpf: selftests/bench/kb_bench_bpf.c \
		$(KB_BPF_OUT)/kb_bench_bloom.skel.h $(KB_BPF_OUT)/kb_bench_kbloom.skel.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_USER) $(KB_BPF_USER_CFLAGS) -o $@ $< $(KB_BPF_LIBS) -lm

.PHONY: bench-bpf
bench-bpf: modules user $(UBUILD)/bench/kb_bench_bpf $(UBUILD)/bench/udp_blast
	@rm -rf $(KB_BENCH_BPF_OUT); mkdir -p $(KB_BENCH_BPF_OUT)
	$(KB_VM_RUN) -k $(KVER) -o $(KB_BENCH_BPF_OUT) -t 1800 \
		--insmod $(KBUILD_DIR)/kmod/kbloom.ko --insmod $(KBUILD_DIR)/kmod/xt_bloom.ko \
		--run 'XTABLES_LIBDIR=$(XT_BUILD):$(XTABLES_LIBDIR_SYS) $(CURDIR)/selftests/bench/bpf.sh $(UBUILD)/bfctl $(UBUILD)/bench/kb_bench_bpf $(UBUILD)/bench/udp_blast $(KB_BENCH_BPF_OUT)/bench-bpf.json $(if $(BENCH_SMALL),--small)'
	cp $(KB_BENCH_BPF_OUT)/bench-bpf.json $(BUILD)/bench-bpf.json
	@cat $(BUILD)/bench-bpf.json

# ---- make bench-lsm-content [BENCH_SMALL=1]: what content mode's hashing
# costs (selftests/bench/lsm_content.sh; one VM, TCG) ----
BENCH_TARGETS += bench-lsm-content
KB_BENCH_LSMC_OUT = $(BUILD)/bench/lsm-content-$(KVER)
.PHONY: bench-lsm-content
bench-lsm-content: modules user
	@rm -rf $(KB_BENCH_LSMC_OUT); mkdir -p $(KB_BENCH_LSMC_OUT)
	$(KB_VM_RUN) -k $(KVER) -o $(KB_BENCH_LSMC_OUT) -t 1800 \
		--insmod $(KBUILD_DIR)/kmod/kbloom.ko \
		--run '$(CURDIR)/selftests/bench/lsm_content.sh $(UBUILD)/bfctl $(KB_BENCH_LSMC_OUT)/bench-lsm-content.json $(if $(BENCH_SMALL),--small)'
	cp $(KB_BENCH_LSMC_OUT)/bench-lsm-content.json $(BUILD)/bench-lsm-content.json
	@cat $(BUILD)/bench-lsm-content.json

# ---- make bench-learn [BENCH_SMALL=1]: learning from the packet path,
# kbloom's BLOOM target vs ipset's SET target vs nft's dynamic sets, and a
# window's test cost (selftests/bench/learn.sh; one VM, TCG) ----
BENCH_TARGETS += bench-learn
KB_BENCH_LEARN_OUT = $(BUILD)/bench/learn-$(KVER)

$(UBUILD)/bench/learn_blast: selftests/bench/learn_blast.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_USER) -o $@ $<

.PHONY: bench-learn
bench-learn: modules user $(UBUILD)/bench/learn_blast $(UBUILD)/bench/udp_blast
	@rm -rf $(KB_BENCH_LEARN_OUT); mkdir -p $(KB_BENCH_LEARN_OUT)
	$(KB_VM_RUN) -k $(KVER) -o $(KB_BENCH_LEARN_OUT) -t 3600 \
		--insmod $(KBUILD_DIR)/kmod/kbloom.ko --insmod $(KBUILD_DIR)/kmod/xt_bloom.ko \
		--run 'XTABLES_LIBDIR=$(XT_BUILD):$(XTABLES_LIBDIR_SYS) $(CURDIR)/selftests/bench/learn.sh $(UBUILD)/bfctl $(UBUILD)/bench/learn_blast $(UBUILD)/bench/udp_blast $(KB_BENCH_LEARN_OUT)/bench-learn.json $(if $(BENCH_SMALL),--small)'
	cp $(KB_BENCH_LEARN_OUT)/bench-learn.json $(BUILD)/bench-learn.json
	@cat $(BUILD)/bench-learn.json

# ---- fault ----
# Fault injection walk (failslab, fail_page_alloc, fail-nth): the real walk
# runs on the debug kernel (make check-debug); kernels without fault
# injection skip it.
$(ST_BUILD)/kbloom_fault: selftests/kbloom_fault.c selftests/kb_test.h \
		selftests/kb_nl.h uapi/linux/kbloom.h $(KSFT_DIR)/.stamp
	@mkdir -p $(@D)
	$(CC) $(ST_CFLAGS) -DXT_LIBDIR='"$(XT_BUILD)"' -o $@ $<

VM_TEST_PROGS += $(ST_BUILD)/kbloom_fault

# ---- fuzz ----
# kbloom_fuzz: seeded random ioctls and netlink requests (VM lane).
# Longer runs: KB_FUZZ_SEED=N KB_FUZZ_ITERS=N or KB_FUZZ_SECONDS=N in the
# test's command (see the top of selftests/kbloom_fuzz.c).
FUZZ_SRCS := selftests/kbloom_fuzz.c selftests/kbloom_fuzz_ioc.c \
	selftests/kbloom_fuzz_nl.c
VM_TEST_PROGS += $(ST_BUILD)/kbloom_fuzz

$(ST_BUILD)/kbloom_fuzz: $(FUZZ_SRCS) selftests/kb_fuzz.h selftests/kb_test.h \
		selftests/kb_nl.h uapi/linux/kbloom.h $(KSFT_DIR)/.stamp
	@mkdir -p $(@D)
	$(CC) $(ST_CFLAGS) -o $@ $(FUZZ_SRCS) -lpthread

# ---- stress ----
# Stress selftest (issue #7): every role at once for KB_STRESS_SECONDS per
# variant (plain, xt), 8 s by default (make check).  A long run on one
# kernel:  make check-stress [KB_STRESS_SECONDS=600] [KVER=...]
STRESS_BIN := $(ST_BUILD)/kbloom_stress
VM_TEST_PROGS += $(STRESS_BIN)

STRESS_SRCS := selftests/kbloom_stress.c selftests/kbloom_stress_xt.c
$(STRESS_BIN): $(STRESS_SRCS) selftests/kbloom_stress.h selftests/kb_test.h \
		selftests/kb_nl.h uapi/linux/kbloom.h $(KSFT_DIR)/.stamp
	@mkdir -p $(@D)
	$(CC) $(ST_CFLAGS) -DXT_LIBDIR='"$(UBUILD)/xtables"' \
		-DXT_SYSDIR='"$(or $(XTABLES_LIBDIR_SYS),/usr/lib/x86_64-linux-gnu/xtables)"' \
		-o $@ $(STRESS_SRCS) -lpthread

# Stress of adds from the packet path (issue #27): the BLOOM target over
# veth from two CPUs, bulk adds, rebuilds, a window's rotations, netns churn
$(ST_BUILD)/kbloom_stress_learn: selftests/kbloom_stress_learn.c selftests/kb_test.h \
		selftests/kb_nl.h uapi/linux/kbloom.h $(KSFT_DIR)/.stamp
	@mkdir -p $(@D)
	$(CC) $(ST_CFLAGS) -DXT_LIBDIR='"$(UBUILD)/xtables"' \
		-DXT_SYSDIR='"$(or $(XTABLES_LIBDIR_SYS),/usr/lib/x86_64-linux-gnu/xtables)"' \
		-o $@ $< -lpthread -lm
VM_TEST_PROGS += $(ST_BUILD)/kbloom_stress_learn

# Timeouts grow with the duration (two variants, and TCG).
KB_STRESS_SECONDS ?= 600
.PHONY: check-stress
check-stress: modules selftests
	KB_TEST_TIMEOUT=$$((2 * $(KB_STRESS_SECONDS) + 1200)) \
	$(KB_VM_RUN) -k $(KVER) -t $$((2 * $(KB_STRESS_SECONDS) + 1800)) \
		-o $(BUILD)/results/stress-$(KVER) \
		$(foreach m,$(VM_MODULES),--insmod $(KBUILD_DIR)/$(m)) \
		--test 'kbloom_stress=KB_STRESS_SECONDS=$(KB_STRESS_SECONDS) $(STRESS_BIN)'

# ---- BPF (userspace/bpf/build.mk) ----
# kbloom_btf: the module's BTF against the running kernel's, and an fentry
# program on a kbloom.ko function (selftests/bpf/kb_btf_fentry.bpf.c)
KB_BPF_TEST_PROGS += kb_btf_fentry
$(ST_BUILD)/kbloom_btf: selftests/kbloom_btf.c $(KB_BPF_OUT)/kb_btf_fentry.skel.h \
		$(KSFT_DIR)/.stamp
	@mkdir -p $(@D)
	$(CC) $(ST_CFLAGS) $(KB_BPF_USER_CFLAGS) -o $@ $< $(KB_BPF_LIBS)
VM_TEST_PROGS += $(ST_BUILD)/kbloom_btf
# bfctl_xdp: a foreign XDP program and a foreign tc program the blocklist
# must not replace (without --replace) nor remove
KB_BPF_TEST_PROGS += kb_xdp_pass kb_tc_pass

# kbloom_bpf: the kfuncs from XDP, tc and TRACING programs, and two that
# the verifier must refuse (a leaked reference, a forged one)
KB_BPF_TEST_PROGS += kb_kfunc kb_kfunc_leak kb_kfunc_forge
$(ST_BUILD)/kbloom_bpf: selftests/kbloom_bpf.c selftests/kb_test.h selftests/kb_nl.h \
		uapi/linux/kbloom.h $(KSFT_DIR)/.stamp \
		$(patsubst %,$(KB_BPF_OUT)/%.skel.h,kb_kfunc kb_kfunc_leak kb_kfunc_forge)
	@mkdir -p $(@D)
	$(CC) $(ST_CFLAGS) $(KB_BPF_USER_CFLAGS) -o $@ $< $(KB_BPF_LIBS) -lpthread

VM_TEST_PROGS += $(ST_BUILD)/kbloom_bpf

# kbloom_learn: the add kfuncs (adds from the packet path), the flood, and
# concurrent adds, bulk adds and rebuilds
KB_BPF_TEST_PROGS += kb_learn
$(ST_BUILD)/kbloom_learn: selftests/kbloom_learn.c selftests/kb_test.h selftests/kb_nl.h \
		uapi/linux/kbloom.h $(KSFT_DIR)/.stamp $(KB_BPF_OUT)/kb_learn.skel.h
	@mkdir -p $(@D)
	$(CC) $(ST_CFLAGS) $(KB_BPF_USER_CFLAGS) -o $@ $< $(KB_BPF_LIBS) -lpthread -lm

VM_TEST_PROGS += $(ST_BUILD)/kbloom_learn
