# SPDX-License-Identifier: GPL-2.0
# VM selftests: kselftest-harness programs run inside the guest.
ST_BUILD := $(UBUILD)/selftests
ST_CFLAGS = $(CFLAGS_USER) -I$(KSFT_DIR) -Wno-unused-parameter -Wno-sign-compare

# Programs run in the VM lane, as NAME=COMMAND.
ST_PROGS := kbloom_load kbloom_ioctl kbloom_image kbloom_txn kbloom_api kbloom_identity
VM_TEST_PROGS += $(addprefix $(ST_BUILD)/,$(ST_PROGS)) $(ST_BUILD)/always_fail
VM_TESTS += $(foreach p,$(ST_PROGS),$(p)=$(ST_BUILD)/$(p))

$(ST_BUILD)/%: selftests/%.c $(KSFT_DIR)/.stamp
	@mkdir -p $(@D)
	$(CC) $(ST_CFLAGS) -o $@ $< -lpthread

$(addprefix $(ST_BUILD)/,$(ST_PROGS)): selftests/kb_test.h uapi/linux/kbloom.h

# the generic netlink family (raw AF_NETLINK, selftests/kb_nl.h)
KB_GENL_PROGS := kbloom_genl kbloom_genl_dump kbloom_priv kbloom_spec
VM_TEST_PROGS += $(addprefix $(ST_BUILD)/,$(KB_GENL_PROGS))
VM_TESTS += $(foreach p,$(KB_GENL_PROGS),$(p)=$(ST_BUILD)/$(p))
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

$(ST_BUILD)/kbloom_ynl: selftests/kbloom_ynl.py uapi/kbloom.yaml $(YNL_DIR)/.stamp
	@mkdir -p $(@D)
	printf '#!/bin/sh\nexec python3 %s %s %s\n' $(CURDIR)/selftests/kbloom_ynl.py \
		$(YNL_DIR) $(CURDIR)/uapi/kbloom.yaml > $@
	chmod +x $@

VM_TEST_PROGS += $(ST_BUILD)/kbloom_ynl
VM_TESTS += kbloom_ynl=$(ST_BUILD)/kbloom_ynl

# The ioctl ABI from 32-bit processes (compat_ptr_ioctl, __aligned_u64
# layouts): the same tests built with -m32 (gcc-multilib), run through a
# wrapper that skips them where the kernel has no IA32 emulation.
ST_M32 := kbloom_ioctl kbloom_image
$(ST_BUILD)/m32/%: selftests/%.c selftests/kb_test.h uapi/linux/kbloom.h $(KSFT_DIR)/.stamp
	@mkdir -p $(@D)
	$(CC) -m32 $(ST_CFLAGS) -o $@ $< -lpthread

$(foreach p,$(ST_M32),$(ST_BUILD)/$(p)_m32): $(ST_BUILD)/%_m32: $(ST_BUILD)/m32/%
	printf '#!/bin/sh\n[ -e /proc/sys/abi/vsyscall32 ] || { echo "ok 1 # SKIP no IA32 emulation"; exit 0; }\nexec %s\n' $< > $@
	chmod +x $@

VM_TEST_PROGS += $(foreach p,$(ST_M32),$(ST_BUILD)/m32/$(p) $(ST_BUILD)/$(p)_m32)
VM_TESTS += $(foreach p,$(ST_M32),$(p)_m32=$(ST_BUILD)/$(p)_m32)

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

$(ST_BUILD)/kbloom_bench: selftests/kbloom_bench.c selftests/kb_test.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_USER) -o $@ $<

.PHONY: bench-kmod
bench-kmod: modules $(ST_BUILD)/kbloom_bench
	@rm -rf $(KB_BENCH_KMOD_OUT); mkdir -p $(KB_BENCH_KMOD_OUT)
	$(CURDIR)/scripts/vm-run -k $(KVER) -o $(KB_BENCH_KMOD_OUT) \
		$(foreach m,$(VM_MODPROBE),--modprobe $(m)) \
		--insmod $(KBUILD_DIR)/kmod/kbloom.ko \
		--run '$(ST_BUILD)/kbloom_bench $(if $(BENCH_SMALL),--small) --json $(KB_BENCH_KMOD_OUT)/bench-kmod.json'
	cp $(KB_BENCH_KMOD_OUT)/bench-kmod.json $(BUILD)/bench-kmod.json
	@cat $(BUILD)/bench-kmod.json
