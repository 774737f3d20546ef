# SPDX-License-Identifier: GPL-2.0
#
# libkbloom.so.0 (userspace/libkbloom): the filter core of kmod/core and
# the library's sources compiled -fPIC -fvisibility=hidden, linked with
# the version script libkbloom.map (LIBKBLOOM_0.1: kbloom.h's functions,
# nothing else); its install (lib, <kbloom/kbloom.h>, kbloom.pc, man3)
# and its native tests.  Included by the top Makefile after
# userspace/build.mk (KB_CORE_SRCS) and before userspace/bfctl/build.mk,
# which links the installed bfctl (KB_BFCTL_INSTALL) as the others.

KBL_DIR := userspace/libkbloom
KBL_OUT := $(UBUILD)/libkbloom
KBL_SO_VERSION := 0.1.0
KBL_SO := $(KBL_OUT)/libkbloom.so.$(KBL_SO_VERSION)
KBL_SRCS := $(sort $(wildcard $(KBL_DIR)/*.c))
KBL_CFLAGS = $(KB_UCFLAGS) -I$(CURDIR)/$(KBL_DIR) -fPIC -fvisibility=hidden \
	-fno-strict-aliasing
KBL_LIBS := -lsodium -lpthread

KBL_OBJS := $(patsubst $(KBL_DIR)/%.c,$(KBL_OUT)/obj/%.o,$(KBL_SRCS))
# the core and the CRC32C it uses, and the torn read's retry (kbtorn.c,
# bfctl's too), position-independent
KBL_CORE_OBJS := $(patsubst kmod/core/%.c,$(KBL_OUT)/core/%.o,$(KB_CORE_SRCS)) \
	$(KBL_OUT)/lib/kb_crc32c.o $(KBL_OUT)/lib/kbtorn.o

$(eval $(call kb_obj_rule,$(KBL_OUT)/obj,$(KBL_DIR),$$(KBL_CFLAGS)))
$(eval $(call kb_obj_rule,$(KBL_OUT)/core,kmod/core,$$(KBL_CFLAGS)))
$(eval $(call kb_obj_rule,$(KBL_OUT)/lib,userspace/lib,$$(KBL_CFLAGS)))

$(KBL_SO): $(KBL_OBJS) $(KBL_CORE_OBJS) $(KBL_DIR)/libkbloom.map
	$(CC) -shared -o $@ -Wl,-soname,libkbloom.so.0 \
		-Wl,--version-script=$(CURDIR)/$(KBL_DIR)/libkbloom.map \
		-Wl,-z,defs -Wl,-z,relro -Wl,-z,now \
		$(KBL_OBJS) $(KBL_CORE_OBJS) $(KBL_LIBS)
	ln -sf libkbloom.so.$(KBL_SO_VERSION) $(KBL_OUT)/libkbloom.so.0
	ln -sf libkbloom.so.0 $(KBL_OUT)/libkbloom.so

# the same objects for the native tests, which reach the hidden test hook
# (kbl_open_src()) by linking them rather than the .so
KBL_INT_A := $(KBL_OUT)/libkbloom-int.a
$(KBL_INT_A): $(KBL_OBJS) $(KBL_CORE_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

USER_PROGS += $(KBL_SO)

# bfctl links the shared library: one client library.  In the build tree
# it finds it through $ORIGIN; the installed bfctl (linked again, below)
# carries no search path and finds the installed library.
KBL_LINK = -L$(KBL_OUT) -lkbloom
$(UBUILD)/bfctl: $(KBL_SO)
$(UBUILD)/bfctl: KB_BFCTL_LIBS = $(KBL_LINK) -Wl,-rpath,'$$ORIGIN/libkbloom'
KB_BFCTL_INSTALL := $(KBL_OUT)/install/bfctl
$(KB_BFCTL_INSTALL): $(KB_BFCTL_OBJS) $(KB_CLIENT_OBJS) $(KB_LIBCORE) $(KBL_SO)
	@mkdir -p $(@D)
	$(CC) -o $@ $(KB_BFCTL_OBJS) $(KB_CLIENT_OBJS) $(KB_LIBCORE) $(KBL_LINK) \
		$(KB_ULIBS)

# the ASan bfctl links the library's objects built with ASan
KBL_ASAN_OBJS := $(patsubst $(KBL_DIR)/%.c,$(UBUILD)/asan/libkbloom/%.o,$(KBL_SRCS))
$(eval $(call kb_obj_rule,$(UBUILD)/asan/libkbloom,$(KBL_DIR),$$(KB_UCFLAGS) $$(KB_ASAN_FLAGS) -I$$(CURDIR)/$$(KBL_DIR)))
$(UBUILD)/asan/bfctl: $(KBL_ASAN_OBJS)
$(UBUILD)/asan/bfctl: KB_BFCTL_LIBS = $(KBL_ASAN_OBJS)

-include $(wildcard $(KBL_OUT)/obj/*.d $(KBL_OUT)/core/*.d $(KBL_OUT)/lib/*.d \
	$(UBUILD)/asan/libkbloom/*.d)

# ---- make install: the library, its header, kbloom.pc, man3 ----

KB_MULTIARCH := $(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2> /dev/null || \
	$(CC) -print-multiarch 2> /dev/null)
KBL_LIBDIR ?= $(PREFIX)/lib$(if $(KB_MULTIARCH),/$(KB_MULTIARCH))
KBL_MAN3 := $(sort $(wildcard $(KBL_DIR)/man/*.3))
KBL_INSTALLED = $(DESTDIR)$(KBL_LIBDIR)/libkbloom.so.$(KBL_SO_VERSION) \
	$(DESTDIR)$(KBL_LIBDIR)/libkbloom.so.0 $(DESTDIR)$(KBL_LIBDIR)/libkbloom.so \
	$(DESTDIR)$(KBL_LIBDIR)/pkgconfig/kbloom.pc $(KB_INCDIR)/kbloom.h \
	$(patsubst $(KBL_DIR)/man/%,$(DESTDIR)$(PREFIX)/share/man/man3/%,$(KBL_MAN3))

# kbloom.pc names PREFIX: written for every install
.PHONY: install-libkbloom
install: install-libkbloom
install-libkbloom: $(KBL_SO) $(KBL_DIR)/kbloom.pc.in
	sed -e 's,@PREFIX@,$(PREFIX),g' -e 's,@LIBDIR@,$(KBL_LIBDIR),g' \
		-e 's,@INCLUDEDIR@,$(PREFIX)/include,g' \
		-e 's,@VERSION@,$(KB_VERSION),g' $(KBL_DIR)/kbloom.pc.in > $(KBL_OUT)/kbloom.pc
	install -D -m 0644 $(KBL_SO) $(DESTDIR)$(KBL_LIBDIR)/libkbloom.so.$(KBL_SO_VERSION)
	ln -sf libkbloom.so.$(KBL_SO_VERSION) $(DESTDIR)$(KBL_LIBDIR)/libkbloom.so.0
	ln -sf libkbloom.so.0 $(DESTDIR)$(KBL_LIBDIR)/libkbloom.so
	install -D -m 0644 $(KBL_OUT)/kbloom.pc $(DESTDIR)$(KBL_LIBDIR)/pkgconfig/kbloom.pc
	install -D -m 0644 $(KBL_DIR)/kbloom.h $(KB_INCDIR)/kbloom.h
	install -d $(DESTDIR)$(PREFIX)/share/man/man3
	install -m 0644 $(KBL_MAN3) $(DESTDIR)$(PREFIX)/share/man/man3/
	$(if $(DESTDIR),,-ldconfig)

# ---- native tests ----
KBL_TEST_CFLAGS = $(KB_TEST_CFLAGS) -I$(CURDIR)/$(KBL_DIR)

# images of every kind and key type against the core and bfctl image test,
# through the built .so
$(UBUILD)/tests/test_libkbloom_image: userspace/tests/test_libkbloom_image.c \
		$(KBL_SO) $(KB_LIBCORE) $(KSFT_DIR)/.stamp $(UBUILD)/bfctl
	@mkdir -p $(@D)
	$(CC) $(KBL_TEST_CFLAGS) -o $@ $< $(KB_LIBCORE) -L$(KBL_OUT) -lkbloom \
		-Wl,-rpath,$(KBL_OUT) $(KB_ULIBS)
NATIVE_TESTS += $(UBUILD)/tests/test_libkbloom_image

# rebuilds followed under 8 testing threads, through a fake header in
# ordinary memory (the hidden hook kbl_open_src()): plain, and with the
# library, the core and the test all built under ASan + UBSan and under
# TSan (the lock-free reader scheme is what TSan is for)
KBL_FAKE := userspace/tests/test_libkbloom_fake.c
KBL_SAN_SRCS := $(KBL_FAKE) $(KBL_SRCS) $(KB_CORE_SRCS) userspace/lib/kb_crc32c.c \
	userspace/lib/kbtorn.c
KBL_SAN_CFLAGS = $(CFLAGS_USER) -I$(CURDIR)/userspace/lib -I$(KSFT_DIR) \
	-Wno-unused-parameter -Wno-sign-compare -fno-omit-frame-pointer \
	-fno-strict-aliasing
KB_TSAN_FLAGS := -fsanitize=thread

$(UBUILD)/tests/test_libkbloom_fake: $(KBL_FAKE) $(KBL_INT_A) $(KSFT_DIR)/.stamp
	@mkdir -p $(@D)
	$(CC) $(KBL_TEST_CFLAGS) -o $@ $< $(KBL_INT_A) $(KBL_LIBS) -lm

$(UBUILD)/asan/test_libkbloom_fake-asan: $(KBL_SAN_SRCS) $(KSFT_DIR)/.stamp \
		$(wildcard $(KBL_DIR)/*.h kmod/core/*.h)
	@mkdir -p $(@D)
	$(CC) $(KBL_SAN_CFLAGS) $(KB_ASAN_FLAGS) -o $@ $(KBL_SAN_SRCS) $(KBL_LIBS) -lm

$(UBUILD)/tsan/test_libkbloom_fake-tsan: $(KBL_SAN_SRCS) $(KSFT_DIR)/.stamp \
		$(wildcard $(KBL_DIR)/*.h kmod/core/*.h)
	@mkdir -p $(@D)
	$(CC) $(KBL_SAN_CFLAGS) $(KB_TSAN_FLAGS) -o $@ $(KBL_SAN_SRCS) $(KBL_LIBS) -lm

NATIVE_TESTS += $(UBUILD)/tests/test_libkbloom_fake \
	$(UBUILD)/asan/test_libkbloom_fake-asan $(UBUILD)/tsan/test_libkbloom_fake-tsan

# sliced mappings (windows, growing filters) through the same hook
$(UBUILD)/tests/test_libkbloom_slices: userspace/tests/test_libkbloom_slices.c \
		$(KBL_INT_A) $(KSFT_DIR)/.stamp
	@mkdir -p $(@D)
	$(CC) $(KBL_TEST_CFLAGS) -o $@ $< $(KBL_INT_A) $(KBL_LIBS) -lm
NATIVE_TESTS += $(UBUILD)/tests/test_libkbloom_slices

# the .so's exports against libkbloom.map, the header alone in C99 and C++
NATIVE_TESTS += $(CURDIR)/$(KBL_DIR)/tests/test-abi

# VM (cli lane): the library against the kernel, filters made by bfctl
$(UBUILD)/selftests/kbloom_lib: selftests/kbloom_lib.c $(KBL_SO) $(KB_LIBCORE) \
		$(KSFT_DIR)/.stamp $(UBUILD)/bfctl
	@mkdir -p $(@D)
	$(CC) $(ST_CFLAGS) -DBFCTL_PATH='"$(UBUILD)/bfctl"' -o $@ $< $(KB_LIBCORE) \
		-L$(KBL_OUT) -lkbloom -Wl,-rpath,$(KBL_OUT) -lsodium -lpthread -lm
VM_TEST_PROGS += $(UBUILD)/selftests/kbloom_lib
