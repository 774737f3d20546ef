# SPDX-License-Identifier: GPL-2.0
# Fault injection walk (failslab, fail_page_alloc, fail-nth): the real walk
# runs on the debug kernel (make check-debug); kernels without fault
# injection skip it.
$(ST_BUILD)/kbloom_fault: selftests/kbloom_fault.c selftests/kb_test.h \
		selftests/kb_nl.h uapi/linux/kbloom.h $(KSFT_DIR)/.stamp
	@mkdir -p $(@D)
	$(CC) $(ST_CFLAGS) -DXT_LIBDIR='"$(XT_BUILD)"' -o $@ $<

VM_TEST_PROGS += $(ST_BUILD)/kbloom_fault
VM_TESTS += kbloom_fault=$(ST_BUILD)/kbloom_fault
