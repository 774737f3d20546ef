# SPDX-License-Identifier: GPL-2.0
# kbloom_fuzz: seeded random ioctls and netlink requests (VM lane).
# Longer runs: KB_FUZZ_SEED=N KB_FUZZ_ITERS=N or KB_FUZZ_SECONDS=N in the
# test's command (see the top of selftests/kbloom_fuzz.c).
FUZZ_SRCS := selftests/kbloom_fuzz.c selftests/kbloom_fuzz_ioc.c \
	selftests/kbloom_fuzz_nl.c
VM_TEST_PROGS += $(ST_BUILD)/kbloom_fuzz
VM_TESTS += kbloom_fuzz=$(ST_BUILD)/kbloom_fuzz

$(ST_BUILD)/kbloom_fuzz: $(FUZZ_SRCS) selftests/kb_fuzz.h selftests/kb_test.h \
		selftests/kb_nl.h uapi/linux/kbloom.h $(KSFT_DIR)/.stamp
	@mkdir -p $(@D)
	$(CC) $(ST_CFLAGS) -o $@ $(FUZZ_SRCS) -lpthread
