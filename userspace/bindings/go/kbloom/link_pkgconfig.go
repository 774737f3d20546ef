// SPDX-License-Identifier: GPL-2.0

//go:build kbloom_pkgconfig

package kbloom

// -tags kbloom_pkgconfig: the flags of kbloom.pc (pkg-config kbloom).

// #cgo pkg-config: kbloom
import "C"
