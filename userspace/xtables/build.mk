# SPDX-License-Identifier: GPL-2.0
# libxt_bloom.so and libxt_BLOOM.so (iptables/ip6tables extensions for
# xt_bloom.ko: the bloom match and the BLOOM target) and the xt_bloom VM
# selftest.
XT_BUILD := $(UBUILD)/xtables
XTABLES_LIBDIR_SYS := $(shell pkg-config --variable=xtlibdir xtables 2>/dev/null)

# libxt_BLOOM.so: the BLOOM target (adds from the packet path).
XT_DEPS := userspace/xtables/bloom_genl.h uapi/linux/netfilter/xt_bloom.h

$(XT_BUILD)/libxt_%.so: userspace/xtables/libxt_%.c $(XT_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_USER) -Wno-unused-parameter -fPIC -shared -o $@ $<

USER_PROGS += $(XT_BUILD)/libxt_bloom.so $(XT_BUILD)/libxt_BLOOM.so

# The same extensions without their userspace check, so that the selftests
# reach xt_bloom's own refusals (never installed).
$(XT_BUILD)/nocheck/libxt_%.so: userspace/xtables/libxt_%.c $(XT_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_USER) -DXT_BLOOM_NO_PRECHECK -Wno-unused-parameter -Wno-unused-function -fPIC -shared -o $@ $<
VM_TEST_PROGS += $(XT_BUILD)/nocheck/libxt_bloom.so $(XT_BUILD)/nocheck/libxt_BLOOM.so

$(UBUILD)/selftests/xt_bloom: selftests/xt_bloom.c selftests/kb_test.h $(KSFT_DIR)/.stamp
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_USER) -I$(KSFT_DIR) -Wno-unused-parameter \
		-DXT_LIBDIR='"$(XT_BUILD)"' -o $@ $<

VM_TEST_PROGS += $(UBUILD)/selftests/xt_bloom
VM_MODULES += kmod/xt_bloom.ko
# iptables-legacy needs its tables loaded up front in the guest.
VM_MODPROBE += iptable_filter ip6table_filter

# ---- benchmark: make bench-netfilter [BENCH_SMALL=1] (one VM run) ----
BENCH_TARGETS += bench-netfilter
KB_BENCH_NF_OUT = $(BUILD)/bench/netfilter-$(KVER)

$(UBUILD)/bench/udp_blast: selftests/bench/udp_blast.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_USER) -o $@ $<

.PHONY: bench-netfilter
bench-netfilter: modules user $(UBUILD)/bench/udp_blast
	@rm -rf $(KB_BENCH_NF_OUT); mkdir -p $(KB_BENCH_NF_OUT)
	$(KB_VM_RUN) -k $(KVER) -o $(KB_BENCH_NF_OUT) -t 3600 \
		--insmod $(KBUILD_DIR)/kmod/kbloom.ko --insmod $(KBUILD_DIR)/kmod/xt_bloom.ko \
		--run 'XTABLES_LIBDIR=$(XT_BUILD):$(XTABLES_LIBDIR_SYS) $(CURDIR)/selftests/bench/netfilter.sh $(UBUILD)/bfctl $(UBUILD)/bench/udp_blast $(KB_BENCH_NF_OUT)/bench-netfilter.json $(if $(BENCH_SMALL),--small)'
	cp $(KB_BENCH_NF_OUT)/bench-netfilter.json $(BUILD)/bench-netfilter.json
