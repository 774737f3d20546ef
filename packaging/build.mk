# SPDX-License-Identifier: GPL-2.0
#
# Running kbloom on a host: the boot units, udev rule, modules-load.d and
# sysusers.d entries (`make install` adds them to what userspace/bfctl
# installs), `make uninstall`, the Debian packages (`make deb`) and their
# tests (`make check-pkg`).  Included by the top Makefile after
# userspace/bfctl/build.mk, whose PREFIX, DESTDIR and KB_*DIR it uses.

KB_LIBEXECDIR = $(PREFIX)/libexec/kbloom
# (Debian 12's debhelper wants units in /lib: debian/rules says so)
KB_SYSTEMD_UNITDIR ?= $(PREFIX)/lib/systemd/system
KB_UNITDIR = $(DESTDIR)$(KB_SYSTEMD_UNITDIR)
KB_UDEVDIR = $(DESTDIR)$(PREFIX)/lib/udev/rules.d
KB_MODLOADDIR = $(DESTDIR)$(PREFIX)/lib/modules-load.d
KB_SYSUSERSDIR = $(DESTDIR)$(PREFIX)/lib/sysusers.d
KB_PKG_OUT = $(BUILD)/packaging/$(subst /,_,$(PREFIX))

# Everything `make install` puts under DESTDIR, and nothing else:
# `make uninstall` removes exactly these.
KB_INSTALLED = $(KB_SBINDIR)/bfctl $(KB_MAN8DIR)/bfctl.8 $(KB_COMPDIR)/bfctl \
	$(DESTDIR)$(KB_XTLIBDIR)/libxt_bloom.so \
	$(DESTDIR)$(KB_XTLIBDIR)/libxt_BLOOM.so $(KB_INCDIR)/kbloom.bpf.h \
	$(DESTDIR)$(KB_LIBEXECDIR)/kbloom-persist $(KB_UNITDIR)/kbloom.service \
	$(KB_UNITDIR)/kbloom-attach.service \
	$(KB_UNITDIR)/bfctl-redis-watch@.service \
	$(KB_UDEVDIR)/60-kbloom.rules $(KB_MODLOADDIR)/kbloom.conf \
	$(KB_SYSUSERSDIR)/kbloom.conf $(KBL_INSTALLED)

# The unit and its helper name the installed paths: generated per PREFIX.
$(KB_PKG_OUT)/%: packaging/%.in
	@mkdir -p $(@D)
	sed -e 's,@LIBEXECDIR@,$(KB_LIBEXECDIR),g' \
		-e 's,@SBINDIR@,$(PREFIX)/sbin,g' $< > $@

# CrowdSec's custom bouncer's program (docs/crowdsec.md)
KB_INSTALLED += $(DESTDIR)$(KB_LIBEXECDIR)/kbloom-crowdsec

.PHONY: install-boot uninstall
install: install-boot
install-boot: $(KB_PKG_OUT)/kbloom.service $(KB_PKG_OUT)/kbloom-persist \
		$(KB_PKG_OUT)/kbloom-attach.service $(KB_PKG_OUT)/bfctl-redis-watch@.service
	install -D -m 0755 $(KB_PKG_OUT)/kbloom-persist $(DESTDIR)$(KB_LIBEXECDIR)/kbloom-persist
	install -D -m 0755 packaging/crowdsec/kbloom-crowdsec $(DESTDIR)$(KB_LIBEXECDIR)/kbloom-crowdsec
	install -D -m 0644 $(KB_PKG_OUT)/kbloom.service $(KB_UNITDIR)/kbloom.service
	install -D -m 0644 $(KB_PKG_OUT)/kbloom-attach.service $(KB_UNITDIR)/kbloom-attach.service
	install -D -m 0644 '$(KB_PKG_OUT)/bfctl-redis-watch@.service' \
		'$(KB_UNITDIR)/bfctl-redis-watch@.service'
	install -D -m 0644 packaging/60-kbloom.rules $(KB_UDEVDIR)/60-kbloom.rules
	install -D -m 0644 packaging/kbloom.modules-load $(KB_MODLOADDIR)/kbloom.conf
	install -D -m 0644 packaging/kbloom.sysusers $(KB_SYSUSERSDIR)/kbloom.conf

# Directories: kbloom's own (libexec/kbloom) go when empty; shared ones
# (sbin, man8, rules.d...) only inside a DESTDIR, where install created them.
uninstall:
	rm -f $(KB_INSTALLED)
	$(if $(DESTDIR),-cd $(DESTDIR) && for f in $(patsubst $(DESTDIR)/%,%,$(KB_INSTALLED)); do \
		rmdir -p --ignore-fail-on-non-empty "$${f%/*}" 2> /dev/null; done; true)
	-rmdir $(DESTDIR)$(KB_LIBEXECDIR) 2> /dev/null
	-rmdir $(KB_INCDIR) 2> /dev/null
	-rmdir $(KB_PYDEST) 2> /dev/null

NATIVE_TESTS += $(CURDIR)/packaging/tests/test-uninstall
NATIVE_TESTS += $(CURDIR)/packaging/tests/test-units
NATIVE_TESTS += $(CURDIR)/packaging/tests/test-doc-paths
NATIVE_TESTS += $(CURDIR)/packaging/tests/test-crowdsec
# ---- make deb: Debian packages kbloom-dkms and bfctl in build/deb/ ----
# Built from a copy of the tree (no build output, no VCS), offline.
KB_DEB_DIR = $(BUILD)/deb
.PHONY: deb
deb:
	rm -rf $(KB_DEB_DIR)
	mkdir -p $(KB_DEB_DIR)/kbloom-$(KB_VERSION)
	tar -C $(CURDIR) --exclude=./build --exclude=./.git -cf - . | \
		tar -C $(KB_DEB_DIR)/kbloom-$(KB_VERSION) -xf -
	cd $(KB_DEB_DIR)/kbloom-$(KB_VERSION) && \
		dpkg-buildpackage -b -us -uc > $(KB_DEB_DIR)/build.log 2>&1 || \
		{ tail -n 40 $(KB_DEB_DIR)/build.log; exit 1; }
	rm -rf $(KB_DEB_DIR)/kbloom-$(KB_VERSION)
	ls $(KB_DEB_DIR)/*.deb

# ---- make check-pkg: the packages and the boot units in a 6.12 VM ----
# One lane, one kernel (see the pkg lane in selftests/manifest).  The .debs
# are installed with dpkg in a chroot of the guest's root on this side
# (pkg_deb_chroot.sh: DKMS compiles natively, not under TCG), and the
# guest applies the result, loads the modules DKMS built and purges.
KB_PKG_RES = $(BUILD)/results/vm-pkg
KB_PKG_KVER = $(shell $(CURDIR)/scripts/kver 6.12)
.PHONY: check-pkg
check-pkg: deb user
	$(MAKE) --no-print-directory modules KVER=$(KB_PKG_KVER)
	rm -rf $(BUILD)/pkg-root
	$(MAKE) --no-print-directory install DESTDIR=$(BUILD)/pkg-root PREFIX=/usr \
		KB_SYSTEMD_UNITDIR=/lib/systemd/system
	@mkdir -p $(KB_PKG_RES) $(BUILD)/results/pkg-host
	-$(CURDIR)/selftests/pkg/pkg_deb_chroot.sh $(KB_DEB_DIR) $(KB_PKG_KVER) \
		$(KB_DEB_DIR)/root > $(BUILD)/results/pkg-host/pkg_deb_chroot.tap
	@$(CURDIR)/scripts/manifest pkg $(BUILD) $(TESTS) > $(KB_PKG_RES).tests
	KB_TEST_TIMEOUT=1800 $(KB_VM_RUN) -k $(KB_PKG_KVER) -o $(KB_PKG_RES) -t 3000 \
		--tests $(KB_PKG_RES).tests
