# SPDX-License-Identifier: GPL-2.0
#
# DKMS's build of the modules (dkms.conf's MAKE), run in DKMS's copy of
# the sources:  make -f kmod/dkms.mk KVER=RELEASE KDIR=KERNEL_SOURCE_DIR
# scripts/kdir-btf picks the KDIR that gives kbloom.ko BTF for the BPF
# kfuncs (an overlay in ./btf with the vmlinux of /boot/vmlinuz-KVER
# where the headers lack one), or says in make.log why the module is
# built without it: "... BPF kfuncs unavailable".

KB_KDIR := $(shell $(CURDIR)/scripts/kdir-btf $(KVER) $(KDIR) $(CURDIR)/btf $(CURDIR))

modules:
	$(MAKE) -C $(KB_KDIR) M=$(CURDIR) KB_NO_TESTS=1 modules
