# SPDX-License-Identifier: GPL-2.0
# VM selftests: kselftest-harness programs run inside the guest.
ST_BUILD := $(UBUILD)/selftests
ST_CFLAGS = $(CFLAGS_USER) -I$(KSFT_DIR) -Wno-unused-parameter

# Programs run in the VM lane, as NAME=COMMAND.
ST_PROGS := kbloom_load
VM_TEST_PROGS += $(addprefix $(ST_BUILD)/,$(ST_PROGS)) $(ST_BUILD)/always_fail
VM_TESTS += $(foreach p,$(ST_PROGS),$(p)=$(ST_BUILD)/$(p))

$(ST_BUILD)/%: selftests/%.c $(KSFT_DIR)/.stamp
	@mkdir -p $(@D)
	$(CC) $(ST_CFLAGS) -o $@ $< -lpthread

$(ST_BUILD)/always_fail: selftests/fixtures/always_fail.c $(KSFT_DIR)/.stamp
	@mkdir -p $(@D)
	$(CC) $(ST_CFLAGS) -o $@ $<

# Tests of the test harness itself (run natively; some boot VMs).
NATIVE_TESTS += $(CURDIR)/scripts/tests/test-logscan $(CURDIR)/scripts/tests/test-vm-runner
