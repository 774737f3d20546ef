# SPDX-License-Identifier: GPL-2.0
#
# Userspace part of kbloom: libkbcore.a (the filter core of kmod/core built
# for userspace + userspace/lib helpers), bfctl, native tests, benchmark.
# Included by the top-level Makefile, which defines BUILD, UBUILD, KSFT_DIR
# and CFLAGS_USER.  All output goes under $(UBUILD).

KB_CORE_SRCS := $(sort $(wildcard kmod/core/*.c))
KB_LIB_SRCS := $(sort $(wildcard userspace/lib/*.c))
KB_BFCTL_SRCS := $(sort $(wildcard userspace/bfctl/*.c))

KB_UCFLAGS = $(CFLAGS_USER) -I$(CURDIR)/userspace/lib -MMD -MP
KB_ULIBS := -lsodium -lpthread -lm
KB_LIBCORE := $(UBUILD)/lib/libkbcore.a

KB_CORE_OBJS := $(patsubst kmod/core/%.c,$(UBUILD)/core/%.o,$(KB_CORE_SRCS))
KB_LIB_OBJS := $(patsubst userspace/lib/%.c,$(UBUILD)/lib/%.o,$(KB_LIB_SRCS))
KB_BFCTL_OBJS := $(patsubst userspace/bfctl/%.c,$(UBUILD)/bfctl.d/%.o,$(KB_BFCTL_SRCS))

$(UBUILD)/core/%.o: kmod/core/%.c
	@mkdir -p $(@D)
	$(CC) $(KB_UCFLAGS) -c -o $@ $<

$(UBUILD)/lib/%.o: userspace/lib/%.c
	@mkdir -p $(@D)
	$(CC) $(KB_UCFLAGS) -c -o $@ $<

$(KB_LIBCORE): $(KB_CORE_OBJS) $(KB_LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(UBUILD)/bfctl.d/%.o: userspace/bfctl/%.c
	@mkdir -p $(@D)
	$(CC) $(KB_UCFLAGS) -c -o $@ $<

$(UBUILD)/bfctl: $(KB_BFCTL_OBJS) $(KB_LIBCORE)
	$(CC) -o $@ $(KB_BFCTL_OBJS) $(KB_LIBCORE) $(KB_ULIBS)

USER_PROGS += $(UBUILD)/bfctl

# ---- native tests (kselftest harness, TAP) ----

KB_C_TESTS := test_hash_vectors test_math test_sizing test_keys \
	test_core_kinds test_core_fpr test_image test_bfctl_image
KB_TEST_CFLAGS = $(KB_UCFLAGS) -I$(KSFT_DIR) -Wno-unused-parameter -Wno-sign-compare \
	-DBFCTL_PATH='"$(UBUILD)/bfctl"'

$(UBUILD)/tests/%: userspace/tests/%.c $(KB_LIBCORE) $(KSFT_DIR)/.stamp
	@mkdir -p $(@D)
	$(CC) $(KB_TEST_CFLAGS) -o $@ $< $(KB_LIBCORE) $(KB_ULIBS)

$(UBUILD)/tests/test_bfctl_image: userspace/tests/test_bfctl_image.c \
		$(UBUILD)/tests/ldb_shim.o $(KB_LIBCORE) $(KSFT_DIR)/.stamp $(UBUILD)/bfctl
	@mkdir -p $(@D)
	$(CC) $(KB_TEST_CFLAGS) -o $@ $< $(UBUILD)/tests/ldb_shim.o \
		$(KB_LIBCORE) -lleveldb -lstdc++ $(KB_ULIBS)

# libleveldb is C++, the kselftest harness is C: a small C++ shim
$(UBUILD)/tests/ldb_shim.o: userspace/tests/ldb_shim.cc userspace/tests/ldb_shim.h
	@mkdir -p $(@D)
	$(CXX) -O2 -g -Wall -Wextra -Werror -c -o $@ $<

$(UBUILD)/tests/test_leveldb_compat: userspace/tests/test_leveldb_compat.c \
		$(UBUILD)/tests/ldb_shim.o $(KB_LIBCORE) $(KSFT_DIR)/.stamp
	@mkdir -p $(@D)
	$(CC) $(KB_TEST_CFLAGS) -o $@ $< $(UBUILD)/tests/ldb_shim.o \
		$(KB_LIBCORE) -lleveldb -lstdc++ $(KB_ULIBS)

NATIVE_TESTS += $(addprefix $(UBUILD)/tests/,$(KB_C_TESTS) test_leveldb_compat)

# ---- benchmark: make bench-core [BENCH_SMALL=1] ----
# Compiled with -O3 -march=x86-64-v2 (SSE4.2/POPCNT; portable across
# x86-64 machines of the last decade, unlike -march=native).

KB_BENCH_CFLAGS = -O3 -march=x86-64-v2 -g -Wall -Wextra -Werror -D_GNU_SOURCE \
	-I$(CURDIR)/uapi -I$(CURDIR)/kmod/core -I$(CURDIR)/userspace/lib \
	-I$(CURDIR)/userspace/tests -MMD -MP
KB_BENCH_CORE_OBJS := $(patsubst kmod/core/%.c,$(UBUILD)/bench/core/%.o,$(KB_CORE_SRCS)) \
	$(patsubst userspace/lib/%.c,$(UBUILD)/bench/lib/%.o,$(KB_LIB_SRCS))

$(UBUILD)/bench/core/%.o: kmod/core/%.c
	@mkdir -p $(@D)
	$(CC) $(KB_BENCH_CFLAGS) -c -o $@ $<

$(UBUILD)/bench/lib/%.o: userspace/lib/%.c
	@mkdir -p $(@D)
	$(CC) $(KB_BENCH_CFLAGS) -c -o $@ $<

$(UBUILD)/bench/bench_core.o: userspace/bench/bench_core.c
	@mkdir -p $(@D)
	$(CC) $(KB_BENCH_CFLAGS) -c -o $@ $<

$(UBUILD)/bench/ldb_shim.o: userspace/tests/ldb_shim.cc userspace/tests/ldb_shim.h
	@mkdir -p $(@D)
	$(CXX) -O3 -march=x86-64-v2 -g -Wall -Wextra -Werror -c -o $@ $<

$(UBUILD)/bench/bench_core: $(UBUILD)/bench/bench_core.o \
		$(UBUILD)/bench/ldb_shim.o $(KB_BENCH_CORE_OBJS)
	$(CXX) -o $@ $^ -lleveldb -lbloom $(KB_ULIBS) -lm

.PHONY: bench-core
bench-core: $(UBUILD)/bench/bench_core
	$(UBUILD)/bench/bench_core $(if $(BENCH_SMALL),--small) \
		--json $(BUILD)/bench-core.json

-include $(wildcard $(UBUILD)/core/*.d $(UBUILD)/lib/*.d $(UBUILD)/bfctl.d/*.d \
	$(UBUILD)/bench/*.d $(UBUILD)/bench/core/*.d $(UBUILD)/bench/lib/*.d)
