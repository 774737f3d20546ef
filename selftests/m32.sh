#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run a -m32 selftest, or skip it where the kernel has no IA32 emulation.
[ -e /proc/sys/abi/vsyscall32 ] || { echo "ok 1 # SKIP no IA32 emulation"; exit 0; }
exec "$@"
