# SPDX-License-Identifier: GPL-2.0
# Stress selftest (issue #7): every role at once for KB_STRESS_SECONDS per
# variant (plain, xt), 8 s by default (make check).  A long run on one
# kernel:  make check-stress [KB_STRESS_SECONDS=600] [KVER=...]
STRESS_BIN := $(ST_BUILD)/kbloom_stress
VM_TEST_PROGS += $(STRESS_BIN)
VM_TESTS += kbloom_stress=$(STRESS_BIN)

STRESS_SRCS := selftests/kbloom_stress.c selftests/kbloom_stress_xt.c
$(STRESS_BIN): $(STRESS_SRCS) selftests/kbloom_stress.h selftests/kb_test.h \
		uapi/linux/kbloom.h $(KSFT_DIR)/.stamp
	@mkdir -p $(@D)
	$(CC) $(ST_CFLAGS) -DXT_LIBDIR='"$(UBUILD)/xtables"' \
		-DXT_SYSDIR='"$(or $(XTABLES_LIBDIR_SYS),/usr/lib/x86_64-linux-gnu/xtables)"' \
		-o $@ $(STRESS_SRCS) -lpthread

# Timeouts grow with the duration (two variants, and TCG).
KB_STRESS_SECONDS ?= 600
.PHONY: check-stress
check-stress: modules selftests
	KB_TEST_TIMEOUT=$$((2 * $(KB_STRESS_SECONDS) + 1200)) \
	$(CURDIR)/scripts/vm-run -k $(KVER) -t $$((2 * $(KB_STRESS_SECONDS) + 1800)) \
		-o $(BUILD)/results/stress-$(KVER) \
		$(foreach m,$(VM_MODPROBE),--modprobe $(m)) \
		$(foreach m,$(VM_MODULES),--insmod $(KBUILD_DIR)/$(m)) \
		--test 'kbloom_stress=KB_STRESS_SECONDS=$(KB_STRESS_SECONDS) $(STRESS_BIN)'
