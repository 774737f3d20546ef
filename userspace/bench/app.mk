# SPDX-License-Identifier: GPL-2.0
#
# ---- make bench-app [BENCH_SMALL=1]: applications' lookups (issue 26) ----
# Natively: libkbloom on a mapped image against the core it wraps, and the
# Go binding's Exists against go-zero's through a local Redis
# (userspace/bench/bench-app); then one TCG VM: libkbloom's mapping against
# the filter fd's KB_IOC_TEST and bfctl's netlink test
# (selftests/bench/app.sh).  Writes build/bench-app.json
# (userspace/bench/bench-app-json).  Never part of make check.
BENCH_TARGETS += bench-app
KB_BENCH_APP_OUT = $(BUILD)/bench/app
KB_LIBKBLOOM_DIR = $(KBL_OUT)
# <kbloom/kbloom.h> as an application includes it
KB_BENCH_APP_INC = $(UBUILD)/bench/include
KB_BENCH_APP_CFLAGS = $(KB_UCFLAGS) -I$(KB_BENCH_APP_INC)
KB_BENCH_APP_LIBS = -L$(KB_LIBKBLOOM_DIR) -Wl,-rpath,$(KB_LIBKBLOOM_DIR) -lkbloom

$(KB_BENCH_APP_INC)/kbloom/kbloom.h: userspace/libkbloom/kbloom.h
	@mkdir -p $(@D)
	ln -sf $(CURDIR)/$< $@

# the core from libkbcore.a: built as libkbloom builds it, so the two
# sides differ only by the library's own code
$(UBUILD)/bench/bench_app: userspace/bench/bench_app.c \
		$(KB_BENCH_APP_INC)/kbloom/kbloom.h $(KB_LIBCORE) \
		$(KBL_SO)
	@mkdir -p $(@D)
	$(CC) $(KB_BENCH_APP_CFLAGS) -o $@ $< $(KB_LIBCORE) \
		$(KB_BENCH_APP_LIBS) $(KB_ULIBS)

$(UBUILD)/bench/kb_bench_app: selftests/bench/kb_bench_app.c \
		$(KB_BENCH_APP_INC)/kbloom/kbloom.h $(KB_LIBCORE) \
		$(KBL_SO)
	@mkdir -p $(@D)
	$(CC) $(KB_BENCH_APP_CFLAGS) -o $@ $< $(KB_LIBCORE) \
		$(KB_BENCH_APP_LIBS) $(KB_ULIBS)

# go-zero's Exists as an application calls it (Debian's redigo and
# murmur3, GOPATH mode, no network), as the oracle is built
KB_BENCH_GO = GOPATH=/usr/share/gocode GO111MODULE=off GOFLAGS= GOPROXY=off \
	GOCACHE=$(BUILD)/gocache go
$(UBUILD)/bench/gozero-exists: userspace/bench/gozero-exists/main.go
	@mkdir -p $(@D)
	$(KB_BENCH_GO) build -o $@ $<

# the Go binding's Exists: a module of its own that takes the binding
# from the tree (replace), with the build tree's libkbloom; no network
KB_BENCH_GOBIND_SRCS = $(wildcard userspace/bench/gobind-exists/*.go \
	userspace/bench/gobind-exists/go.mod userspace/bindings/go/kbloom/*.go)
$(UBUILD)/bench/gobind-exists: $(KB_BENCH_GOBIND_SRCS) \
		$(KB_BENCH_APP_INC)/kbloom/kbloom.h $(KBL_SO)
	@mkdir -p $(@D)
	cd userspace/bench/gobind-exists && GOFLAGS=-mod=mod GOPROXY=off \
		GOCACHE=$(BUILD)/gocache CGO_CFLAGS='-O2 -I$(KB_BENCH_APP_INC)' \
		CGO_LDFLAGS='$(KB_BENCH_APP_LIBS)' go build -o $@ .

.PHONY: bench-app
bench-app: modules user $(UBUILD)/bench/bench_app $(UBUILD)/bench/kb_bench_app \
		$(UBUILD)/bench/gozero-exists $(UBUILD)/tests/gozero-oracle \
		$(UBUILD)/bench/gobind-exists
	@rm -rf $(KB_BENCH_APP_OUT) $(KB_BENCH_APP_OUT)-vm $(BUILD)/bench-app.json
	@mkdir -p $(KB_BENCH_APP_OUT) $(KB_BENCH_APP_OUT)-vm
	$(CURDIR)/userspace/bench/bench-app $(UBUILD)/bfctl $(UBUILD)/bench/bench_app \
		$(UBUILD)/bench/gozero-exists $(UBUILD)/tests/gozero-oracle \
		$(UBUILD)/bench/gobind-exists $(KB_BENCH_APP_OUT)
	$(KB_VM_RUN) -k $(KVER) -o $(KB_BENCH_APP_OUT)-vm -t 1800 \
		--insmod $(KBUILD_DIR)/kmod/kbloom.ko \
		--run '$(CURDIR)/selftests/bench/app.sh $(UBUILD)/bfctl $(UBUILD)/bench/kb_bench_app $(KB_BENCH_APP_OUT)/blocked.img $(KB_BENCH_APP_OUT)/keys.hex $(KB_BENCH_APP_OUT)-vm/app.json'
	$(CURDIR)/userspace/bench/bench-app-json $(KB_BENCH_APP_OUT)/native.json \
		$(KB_BENCH_APP_OUT)-vm/app.json $(KVER) > $(BUILD)/bench-app.json
	@cat $(BUILD)/bench-app.json
	@test -s $(KB_BENCH_APP_OUT)-vm/app.json || \
		{ echo "bench-app: the guest part wrote nothing: see $(KB_BENCH_APP_OUT)-vm/console.log" >&2; exit 1; }
