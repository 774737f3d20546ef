// SPDX-License-Identifier: GPL-2.0

// Package kbloom tests keys against kbloom's in-kernel Bloom filters at
// memory speed, through libkbloom (cgo): the filter is mapped read-only
// into the process, and Exists reads its bits there, with no system call
// and no allocation.
//
// A Filter has the shape of go-zero's core/bloom.Filter, so a go-zero
// service can swap its Redis round trip per key for a local lookup of
// the same filter (see examples/cachepen, which follows a go-zero filter
// kept in Redis through bfctl redis watch):
//
//	f, err := kbloom.Open("users")      // the readers grant, or CAP_NET_ADMIN
//	if err != nil { ... }
//	defer f.Close()
//	ok, err := f.Exists([]byte("user:42")) // false: certainly never added
//
// Open and OpenWriter open a filter of the caller's network namespace
// through /dev/kbloom (the kbloom module); a reader needs the filter's
// readers grant and a writer its writers grant (bfctl create --readers,
// bfctl grant), or CAP_NET_ADMIN.  OpenImage maps an image file (bfctl
// image build, bfctl export) without the kernel.
//
// Keys are the bytes the filter's key type takes: a str or bytes key as
// it is; ipv4 4 bytes and ipv6 16 in network order; net4 and net6 the
// address and the prefix length.  ExistsAddr and ExistsIP test an address
// as the kernel tests a packet's (net filters: through every prefix
// length they hold).  The answers are exactly the kernel's: the library
// runs the kernel's own filter core.
//
// The library follows rebuilds, swaps, uploads and flushes by itself: a
// call after one answers from the new contents; Fd polls readable when
// that happens, for programs that want to know.  After the filter is
// destroyed, calls fail with an error that is fs.ErrNotExist.
//
// A Filter is safe for concurrent use by any number of goroutines.
// Close waits for the calls in progress and is idempotent; later calls
// fail with os.ErrClosed.  Errors are *Error, which unwrap to a
// syscall.Errno: errors.Is(err, fs.ErrNotExist), errors.Is(err,
// fs.ErrPermission) and errors.Is(err, syscall.EROFS) (an add on a
// reader or an image) work, and the message is the library's.
//
// Building: libkbloom-dev (or make install) puts <kbloom/kbloom.h> and
// libkbloom.so where cgo finds them.  Debian's Go packaging installs this
// package's sources under /usr/share/gocode/src/kbloom.dev/kbloom
// (golang-kbloom-dev): build in GOPATH mode with
// GOPATH=$HOME/go:/usr/share/gocode GO111MODULE=off, or in module mode
// with a replace directive naming that directory.  Elsewhere set
// CGO_CFLAGS and CGO_LDFLAGS, or build with -tags kbloom_pkgconfig to
// take them from kbloom.pc.
package kbloom
