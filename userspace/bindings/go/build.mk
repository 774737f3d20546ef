# SPDX-License-Identifier: GPL-2.0
#
# The Go binding (userspace/bindings/go/kbloom, module kbloom.dev/kbloom,
# cgo over libkbloom): its native test, the VM test's binary and its
# install.  Included by the top Makefile after userspace/libkbloom/build.mk
# (KBL_SO) and userspace/bfctl/build.mk (install, PREFIX).

KB_GO_DIR := userspace/bindings/go/kbloom
KB_GO_SRCS := $(shell find $(KB_GO_DIR) -name '*.go' -o -name go.mod)
KB_GO_TEST := $(CURDIR)/userspace/bindings/go/test-go

# gofmt, vet, go test over images, the example (test-go says what)
NATIVE_TESTS += $(KB_GO_TEST)

# The VM test (selftests/bindings/go_kbloom.sh) runs this go test binary
# against kernel filters: compiled here, since the guest has no time to
# build Go under TCG.  Without Go the test skips itself.
ifneq ($(shell command -v go),)
$(UBUILD)/go/kbloom.test: $(KB_GO_SRCS) $(KBL_SO) userspace/libkbloom/kbloom.h $(KB_GO_TEST)
	KB_BUILD=$(BUILD) $(KB_GO_TEST) --compile $@
VM_TEST_PROGS += $(UBUILD)/go/kbloom.test
endif

# ---- make install: the sources where Debian's Go packages keep theirs
# (GOPATH /usr/share/gocode with PREFIX=/usr), tests left out; make
# uninstall removes exactly those ----
KB_GO_IMPORT := kbloom.dev/kbloom
KB_GO_INSTDIR = $(DESTDIR)$(PREFIX)/share/gocode/src/$(KB_GO_IMPORT)
KB_GO_LIBSRCS := $(KB_GO_DIR)/go.mod $(filter-out %_test.go,$(wildcard $(KB_GO_DIR)/*.go))
KB_GO_EXSRCS := $(wildcard $(KB_GO_DIR)/examples/cachepen/*.go)
KB_GO_INSTALLED = $(patsubst $(KB_GO_DIR)/%,$(KB_GO_INSTDIR)/%,$(KB_GO_LIBSRCS) $(KB_GO_EXSRCS))

.PHONY: install-go uninstall-go
install: install-go
install-go:
	install -d $(KB_GO_INSTDIR)/examples/cachepen
	install -m 0644 $(KB_GO_LIBSRCS) $(KB_GO_INSTDIR)/
	install -m 0644 $(KB_GO_EXSRCS) $(KB_GO_INSTDIR)/examples/cachepen/
# the package's directories go when empty; gocode's shared ones (src,
# share/gocode) only inside a DESTDIR, as uninstall treats the others
uninstall: uninstall-go
uninstall-go:
	rm -f $(KB_GO_INSTALLED)
	-rmdir $(KB_GO_INSTDIR)/examples/cachepen $(KB_GO_INSTDIR)/examples \
		$(KB_GO_INSTDIR) $(dir $(KB_GO_INSTDIR)) 2> /dev/null
	$(if $(DESTDIR),-cd $(DESTDIR) && rmdir -p --ignore-fail-on-non-empty \
		.$(PREFIX)/share/gocode/src 2> /dev/null)
