# SPDX-License-Identifier: GPL-2.0
#
# Userspace part of kbloom: libkbcore.a (the filter core of kmod/core built
# for userspace + userspace/lib helpers), bfctl, native tests, benchmark.
# Included by the top-level Makefile, which defines BUILD, UBUILD, KSFT_DIR
# and CFLAGS_USER.  All output goes under $(UBUILD).

KB_CORE_SRCS := $(sort $(wildcard kmod/core/*.c))
# the client of the module (kbconn.c over kbnl.c, libnl, and kbdev.c):
# only bfctl links kbconn.c and kbnl.c, so that libkbcore's other users
# (the tests, fuzzers and benchmark) need no libnl
KB_CLIENT_SRCS := userspace/lib/kbconn.c userspace/lib/kbnl.c
KB_LIB_SRCS := $(filter-out $(KB_CLIENT_SRCS),$(sort $(wildcard userspace/lib/*.c)))
KB_BFCTL_SRCS := $(sort $(wildcard userspace/bfctl/*.c))

KB_UCFLAGS = $(CFLAGS_USER) -I$(CURDIR)/userspace/lib -MMD -MP
KB_ULIBS := -lsodium -lpthread -lm
KB_LIBCORE := $(UBUILD)/lib/libkbcore.a

KB_CORE_OBJS := $(patsubst kmod/core/%.c,$(UBUILD)/core/%.o,$(KB_CORE_SRCS))
KB_LIB_OBJS := $(patsubst userspace/lib/%.c,$(UBUILD)/lib/%.o,$(KB_LIB_SRCS))
KB_CLIENT_OBJS := $(patsubst userspace/lib/%.c,$(UBUILD)/lib/%.o,$(KB_CLIENT_SRCS))
KB_BFCTL_OBJS := $(patsubst userspace/bfctl/%.c,$(UBUILD)/bfctl.d/%.o,$(KB_BFCTL_SRCS))

# One object rule per source directory and build flavour:
# $(call kb_obj_rule,OUTDIR,SRCDIR,CFLAGS) builds OUTDIR/%.o from SRCDIR/%.c.
define kb_obj_rule
$(1)/%.o: $(2)/%.c
	@mkdir -p $$(@D)
	$$(CC) $(3) -c -o $$@ $$<
endef

$(eval $(call kb_obj_rule,$(UBUILD)/core,kmod/core,$$(KB_UCFLAGS)))
$(eval $(call kb_obj_rule,$(UBUILD)/lib,userspace/lib,$$(KB_UCFLAGS)))
$(eval $(call kb_obj_rule,$(UBUILD)/bfctl.d,userspace/bfctl,$$(KB_UCFLAGS)))

$(KB_LIBCORE): $(KB_CORE_OBJS) $(KB_LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(UBUILD)/bfctl: $(KB_BFCTL_OBJS) $(KB_CLIENT_OBJS) $(KB_LIBCORE)
	$(CC) -o $@ $(KB_BFCTL_OBJS) $(KB_CLIENT_OBJS) $(KB_LIBCORE) $(KB_BFCTL_LIBS) \
		$(KB_ULIBS)

USER_PROGS += $(UBUILD)/bfctl

# ---- native tests (kselftest harness, TAP) ----

KB_C_TESTS := test_hash_vectors test_math test_sizing test_keys \
	test_core_kinds test_core_fpr test_image test_image_cur \
	test_bfctl_image test_bfctl_mem test_core_fill test_gozero test_core_guard \
	test_core_plens
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

# runs the built bfctl
$(UBUILD)/tests/test_bfctl_mem: $(UBUILD)/bfctl

# the save file's attachment lines, with the line reader they use
KB_C_TESTS += test_savefmt_attach
KB_SAVEFMT_ATTACH_SRCS := userspace/bfctl/savefmt_attach.c userspace/bfctl/savefmt_lines.c
$(UBUILD)/tests/test_savefmt_attach: userspace/tests/test_savefmt_attach.c \
		$(KB_SAVEFMT_ATTACH_SRCS) $(KB_LIBCORE) $(KSFT_DIR)/.stamp
	@mkdir -p $(@D)
	$(CC) $(KB_TEST_CFLAGS) -I$(CURDIR)/userspace/bfctl -o $@ $< \
		$(KB_SAVEFMT_ATTACH_SRCS) $(KB_LIBCORE) $(KB_ULIBS)

# the save file's grant lines and groups, with the parsers they use
KB_C_TESTS += test_grant
KB_GRANT_SRCS := userspace/bfctl/grant.c userspace/bfctl/kargs.c \
	userspace/bfctl/savefmt_lines.c
$(UBUILD)/tests/test_grant: userspace/tests/test_grant.c \
		$(KB_GRANT_SRCS) $(KB_LIBCORE) $(KSFT_DIR)/.stamp
	@mkdir -p $(@D)
	$(CC) $(KB_TEST_CFLAGS) -I$(CURDIR)/userspace/bfctl -o $@ $< \
		$(KB_GRANT_SRCS) $(KB_LIBCORE) $(KB_ULIBS)

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

# go-zero's Redis Bloom filter against the gozero kind: a script that
# builds its Go oracle at test time and runs gozero_offsets (the core's
# offsets, for keys bfctl refuses, like the empty one)
NATIVE_TESTS += $(CURDIR)/userspace/tests/test-gozero-oracle
selftests: $(UBUILD)/tests/gozero_offsets

# ---- benchmark: make bench-core [BENCH_SMALL=1] ----
# Compiled with -O3 -march=x86-64-v2 (SSE4.2/POPCNT; portable across
# x86-64 machines of the last decade, unlike -march=native).

KB_BENCH_CFLAGS = -O3 -march=x86-64-v2 -g -Wall -Wextra -Werror -D_GNU_SOURCE \
	-I$(CURDIR)/uapi -I$(CURDIR)/kmod/core -I$(CURDIR)/userspace/lib \
	-I$(CURDIR)/userspace/tests -MMD -MP
KB_BENCH_CORE_OBJS := $(patsubst kmod/core/%.c,$(UBUILD)/bench/core/%.o,$(KB_CORE_SRCS)) \
	$(patsubst userspace/lib/%.c,$(UBUILD)/bench/lib/%.o,$(KB_LIB_SRCS))

$(eval $(call kb_obj_rule,$(UBUILD)/bench/core,kmod/core,$$(KB_BENCH_CFLAGS)))
$(eval $(call kb_obj_rule,$(UBUILD)/bench/lib,userspace/lib,$$(KB_BENCH_CFLAGS)))

$(UBUILD)/bench/bench_core.o: userspace/bench/bench_core.c
	@mkdir -p $(@D)
	$(CC) $(KB_BENCH_CFLAGS) -c -o $@ $<

$(UBUILD)/bench/ldb_shim.o: userspace/tests/ldb_shim.cc userspace/tests/ldb_shim.h
	@mkdir -p $(@D)
	$(CXX) -O3 -march=x86-64-v2 -g -Wall -Wextra -Werror -c -o $@ $<

$(UBUILD)/bench/bench_core: $(UBUILD)/bench/bench_core.o \
		$(UBUILD)/bench/ldb_shim.o $(KB_BENCH_CORE_OBJS)
	$(CXX) -o $@ $^ -lleveldb -lbloom $(KB_ULIBS) -lm

$(UBUILD)/bench/bench_gozero.o: userspace/bench/bench_gozero.c
	@mkdir -p $(@D)
	$(CC) $(KB_BENCH_CFLAGS) -c -o $@ $<

$(UBUILD)/bench/bench_gozero: $(UBUILD)/bench/bench_gozero.o $(KB_BENCH_CORE_OBJS)
	$(CC) -o $@ $^ $(KB_ULIBS) -lm

.PHONY: bench-core
bench-core: $(UBUILD)/bench/bench_core
	$(UBUILD)/bench/bench_core $(if $(BENCH_SMALL),--small) \
		--json $(BUILD)/bench-core.json

-include $(wildcard $(UBUILD)/core/*.d $(UBUILD)/lib/*.d $(UBUILD)/bfctl.d/*.d \
	$(UBUILD)/bench/*.d $(UBUILD)/bench/core/*.d $(UBUILD)/bench/lib/*.d)

# ---- fuzzing: libFuzzer targets (clang, ASan + UBSan) ----
# Each target is linked with the core and userspace/lib sources compiled
# with the sanitizers.  run-fuzz (a NATIVE_TESTS entry) runs every target
# over its committed seed corpus (userspace/fuzz/corpus/NAME) and then
# fuzzes it for a bounded time; see userspace/fuzz/run-fuzz.

KB_FUZZ_CC ?= clang
KB_FUZZ_TARGETS := fuzz_image fuzz_keys fuzz_leveldb fuzz_args fuzz_savefmt
KB_FUZZ_CFLAGS = -O1 -g -fno-omit-frame-pointer \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-Wall -Wextra -Werror -Wno-unused-parameter -Wno-sign-compare \
	-D_GNU_SOURCE -DBFCTL_NO_MAIN -I$(CURDIR)/uapi -I$(CURDIR)/kmod/core \
	-I$(CURDIR)/userspace/lib -I$(CURDIR)/userspace/bfctl \
	-I$(CURDIR)/userspace/fuzz
KB_FUZZ_BINS := $(addprefix $(UBUILD)/fuzz/,$(KB_FUZZ_TARGETS))

# the bfctl targets add the bfctl sources they fuzz (main.c without its
# main()); fuzz_savefmt stubs /dev/kbloom, so it leaves out kbdev.c
KB_FUZZ_SRCS_fuzz_args := userspace/bfctl/main.c
KB_FUZZ_SRCS_fuzz_savefmt := userspace/bfctl/main.c userspace/bfctl/savefmt.c \
	userspace/bfctl/savefmt_lines.c
KB_FUZZ_NOLIB_fuzz_savefmt := userspace/lib/kbdev.c
$(UBUILD)/fuzz/fuzz_args: $(KB_FUZZ_SRCS_fuzz_args) userspace/bfctl/bfctl.h
$(UBUILD)/fuzz/fuzz_savefmt: $(KB_FUZZ_SRCS_fuzz_savefmt) userspace/bfctl/bfctl.h

$(UBUILD)/fuzz/fuzz_%: userspace/fuzz/fuzz_%.c userspace/fuzz/fuzz.h \
		$(KB_CORE_SRCS) $(KB_LIB_SRCS) $(wildcard kmod/core/*.h) \
		$(wildcard userspace/lib/*.h)
	@mkdir -p $(@D)
	$(KB_FUZZ_CC) $(KB_FUZZ_CFLAGS) -o $@ $< $(KB_FUZZ_SRCS_$(@F)) \
		$(KB_CORE_SRCS) $(filter-out $(KB_FUZZ_NOLIB_$(@F)),$(KB_LIB_SRCS)) \
		-lsodium

# the TAP wrapper: runs userspace/fuzz/run-fuzz on the binaries above
$(UBUILD)/fuzz/run-fuzz: userspace/fuzz/run-fuzz $(KB_FUZZ_BINS)
	@mkdir -p $(@D)
	printf '#!/bin/bash\nexec %s %s %s "$$@"\n' $(CURDIR)/userspace/fuzz/run-fuzz \
		$(UBUILD)/fuzz $(CURDIR)/userspace/fuzz/corpus > $@
	chmod +x $@

.PHONY: fuzz
fuzz: $(KB_FUZZ_BINS) $(UBUILD)/fuzz/run-fuzz

NATIVE_TESTS += $(UBUILD)/fuzz/run-fuzz

# ---- the native tests again under ASan + UBSan ----
# libkbcore, bfctl and the tests rebuilt under $(UBUILD)/asan; the test
# programs are named NAME-asan so their TAP results do not collide.

KB_ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
KB_ASAN_TESTS := $(KB_C_TESTS) test_leveldb_compat
KB_ASAN_LIBCORE := $(UBUILD)/asan/libkbcore.a
KB_ASAN_OBJS := $(patsubst kmod/core/%.c,$(UBUILD)/asan/core/%.o,$(KB_CORE_SRCS)) \
	$(patsubst userspace/lib/%.c,$(UBUILD)/asan/lib/%.o,$(KB_LIB_SRCS))
KB_ASAN_BFCTL_OBJS := $(patsubst userspace/bfctl/%.c,$(UBUILD)/asan/bfctl-obj/%.o,$(KB_BFCTL_SRCS)) \
	$(patsubst userspace/lib/%.c,$(UBUILD)/asan/lib/%.o,$(KB_CLIENT_SRCS))
KB_ASAN_TEST_CFLAGS = $(KB_UCFLAGS) $(KB_ASAN_FLAGS) -I$(KSFT_DIR) \
	-Wno-unused-parameter -Wno-sign-compare \
	-DBFCTL_PATH='"$(UBUILD)/asan/bfctl"'

$(eval $(call kb_obj_rule,$(UBUILD)/asan/core,kmod/core,$$(KB_UCFLAGS) $$(KB_ASAN_FLAGS)))
$(eval $(call kb_obj_rule,$(UBUILD)/asan/lib,userspace/lib,$$(KB_UCFLAGS) $$(KB_ASAN_FLAGS)))
$(eval $(call kb_obj_rule,$(UBUILD)/asan/bfctl-obj,userspace/bfctl,$$(KB_UCFLAGS) $$(KB_ASAN_FLAGS)))

$(KB_ASAN_LIBCORE): $(KB_ASAN_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(UBUILD)/asan/bfctl: $(KB_ASAN_BFCTL_OBJS) $(KB_ASAN_LIBCORE)
	$(CC) $(KB_ASAN_FLAGS) -o $@ $(KB_ASAN_BFCTL_OBJS) $(KB_BFCTL_LIBS) \
		$(KB_ASAN_LIBCORE) $(KB_ULIBS)

$(UBUILD)/asan/ldb_shim.o: userspace/tests/ldb_shim.cc userspace/tests/ldb_shim.h
	@mkdir -p $(@D)
	$(CXX) -O2 -g -Wall -Wextra -Werror $(KB_ASAN_FLAGS) -c -o $@ $<

$(UBUILD)/asan/%-asan: userspace/tests/%.c $(KB_ASAN_LIBCORE) \
		$(UBUILD)/asan/ldb_shim.o $(UBUILD)/asan/bfctl $(KSFT_DIR)/.stamp
	@mkdir -p $(@D)
	$(CC) $(KB_ASAN_TEST_CFLAGS) -c -o $@.o $<
	$(CXX) $(KB_ASAN_FLAGS) -o $@ $@.o $(UBUILD)/asan/ldb_shim.o \
		$(KB_ASAN_LIBCORE) -lleveldb $(KB_ULIBS)

NATIVE_TESTS += $(patsubst %,$(UBUILD)/asan/%-asan,$(KB_ASAN_TESTS))

# the save file's attachment lines: with the bfctl sources they test
$(UBUILD)/asan/test_savefmt_attach-asan: userspace/tests/test_savefmt_attach.c \
		$(KB_SAVEFMT_ATTACH_SRCS) $(KB_ASAN_LIBCORE) $(KSFT_DIR)/.stamp
	@mkdir -p $(@D)
	$(CC) $(KB_ASAN_TEST_CFLAGS) -I$(CURDIR)/userspace/bfctl -o $@ $< \
		$(KB_SAVEFMT_ATTACH_SRCS) $(KB_ASAN_LIBCORE) $(KB_ULIBS)

$(UBUILD)/asan/test_grant-asan: userspace/tests/test_grant.c \
		$(KB_GRANT_SRCS) $(KB_ASAN_LIBCORE) $(KSFT_DIR)/.stamp
	@mkdir -p $(@D)
	$(CC) $(KB_ASAN_TEST_CFLAGS) -I$(CURDIR)/userspace/bfctl -o $@ $< \
		$(KB_GRANT_SRCS) $(KB_ASAN_LIBCORE) $(KB_ULIBS)

-include $(wildcard $(UBUILD)/asan/core/*.d $(UBUILD)/asan/lib/*.d \
	$(UBUILD)/asan/bfctl-obj/*.d $(UBUILD)/asan/*-asan.d)
