// SPDX-License-Identifier: GPL-2.0

//go:build !kbloom_pkgconfig

package kbloom

// Linked against libkbloom where the compiler finds it by default:
// libkbloom-dev puts <kbloom/kbloom.h> and libkbloom.so in /usr, make
// install in PREFIX (default /usr/local).  Elsewhere (the build tree, a
// staging root) CGO_CFLAGS and CGO_LDFLAGS name the directories, or
// -tags kbloom_pkgconfig asks pkg-config (PKG_CONFIG_PATH) for them.

// #cgo LDFLAGS: -lkbloom
import "C"
