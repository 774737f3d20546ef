// SPDX-License-Identifier: GPL-2.0

package kbloom

/*
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <kbloom/kbloom.h>

// A result and, when it is an error, a copy of this thread's message:
// kbloom_errmsg() is per thread, and a goroutine may run its next cgo
// call on another thread, so the message is taken in the same C call
// (malloc'd only on failure; the Go side frees it).
typedef struct {
	long rc;
	char *msg;
} kbg_res;

static kbg_res kbg_ret(long rc)
{
	kbg_res r = { rc, NULL };

	if (rc < 0) {
		const char *m = kbloom_errmsg();

		r.msg = strdup(m ? m : "");
	}
	return r;
}

static kbg_res kbg_open(const char *name, unsigned int flags, uintptr_t *out)
{
	struct kbloom *f = NULL;
	kbg_res r = kbg_ret(kbloom_open(name, flags, &f));

	*out = (uintptr_t)f;
	return r;
}

static kbg_res kbg_open_image(const char *path, uintptr_t *out)
{
	struct kbloom *f = NULL;
	kbg_res r = kbg_ret(kbloom_open_image(path, &f));

	*out = (uintptr_t)f;
	return r;
}

// The handle crosses into Go as an integer: a pointer to the opaque
// (incomplete) struct would be boxed, allocating, by cgo's pointer check
// of every call; it is C memory, which Go need not track.
#define KBG_F(h) ((struct kbloom *)(h))

static void kbg_close(uintptr_t f)
{
	kbloom_close(KBG_F(f));
}

static int kbg_fd(uintptr_t f)
{
	return kbloom_fd(KBG_F(f));
}

// The empty key: a valid pointer for a zero-length Go slice.
static const char kbg_empty[1];

static kbg_res kbg_test(uintptr_t f, const void *key, size_t len)
{
	return kbg_ret(kbloom_test(KBG_F(f), key ? key : kbg_empty, len));
}

static kbg_res kbg_add(uintptr_t f, const void *key, size_t len)
{
	return kbg_ret(kbloom_add(KBG_F(f), key ? key : kbg_empty, len));
}

static kbg_res kbg_test_and_add(uintptr_t f, const void *key, size_t len)
{
	return kbg_ret(kbloom_test_and_add(KBG_F(f), key ? key : kbg_empty, len));
}

// An address passed by value (network order in hi..lo), so that no Go
// memory is handed to C and nothing escapes to the heap.
static kbg_res kbg_test_addr(uintptr_t f, int v6, uint64_t hi, uint64_t lo)
{
	unsigned char a[16];
	int i;

	for (i = 0; i < 8; i++) {
		a[i] = hi >> (56 - 8 * i);
		a[8 + i] = lo >> (56 - 8 * i);
	}
	if (v6)
		return kbg_ret(kbloom_test_addr(KBG_F(f), AF_INET6, a));
	return kbg_ret(kbloom_test_addr(KBG_F(f), AF_INET, a + 12));
}

// Batches: the keys' bytes one after another in buf, their lengths in
// lens.  Go memory may not hold the Go pointers a struct kbloom_key
// array would, so the array is built here, in C memory (on the stack for
// small batches), and never outlives the call.  One library call for the
// whole batch: its keys are checked before any is added, and tested
// against one generation of the filter.
#define KBG_STACK_KEYS 256

static kbg_res kbg_batch(uintptr_t f, int add, const unsigned char *buf,
			 const size_t *lens, size_t n, uint64_t *bitmap)
{
	struct kbloom_key stack[KBG_STACK_KEYS], *keys = stack;
	size_t i, off = 0;
	long rc;

	if (n > KBG_STACK_KEYS) {
		keys = calloc(n, sizeof(*keys));
		if (!keys) {
			kbg_res r = { -ENOMEM, strdup("no memory for the batch") };

			return r;
		}
	}
	for (i = 0; i < n; i++) {
		keys[i].data = buf ? buf + off : (const void *)kbg_empty;
		keys[i].len = lens[i];
		off += lens[i];
	}
	if (add)
		rc = kbloom_add_many(KBG_F(f), keys, n);
	else
		rc = kbloom_test_many(KBG_F(f), keys, n, bitmap);
	if (keys != stack)
		free(keys);
	return kbg_ret(rc);
}

static kbg_res kbg_refresh(uintptr_t f)
{
	return kbg_ret(kbloom_refresh(KBG_F(f)));
}

static kbg_res kbg_info(uintptr_t f, struct kbloom_info *info)
{
	return kbg_ret(kbloom_info(KBG_F(f), info));
}
*/
import "C"

import (
	"net"
	"net/netip"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"unsafe"
)

// Filter is an opened kbloom filter: a kernel filter of the caller's
// network namespace (Open, OpenWriter) or an image file (OpenImage).
// Its methods may be called from any number of goroutines at once.
type Filter struct {
	// mu is held shared by every call into the library and
	// exclusively by Close, so that Close never frees the handle
	// under a call.
	mu   sync.RWMutex
	h    C.uintptr_t // the struct kbloom *; 0 once closed
	name string
}

// Info describes the generation of the filter that a Filter maps.  Kind,
// KeyType and Hash are the KB_KIND_, KB_KEY_ and KB_HASH_ values of
// <linux/kbloom.h>.
type Info struct {
	Kind, KeyType, Hash, K uint32
	M                      uint64 // bits (counters for counting)
	Items                  uint64 // the items it was sized for
	PayloadBytes           uint64
	Generation             uint64
	ID                     uint64 // the filter's id (0 for images)
	FPRppb                 uint32 // target false-positive rate, parts per billion
	Prefixes               uint32 // net key types: the prefix lengths held
	Writable               bool   // opened with OpenWriter
}

// wrap turns a library result into an error (nil when rc >= 0); the
// message, if any, is freed here.
func wrap(op, name string, r C.kbg_res) error {
	if r.rc >= 0 {
		return nil
	}
	e := &Error{Op: op, Name: name, Err: syscall.Errno(-r.rc)}
	if r.msg != nil {
		e.Msg = C.GoString(r.msg)
		C.free(unsafe.Pointer(r.msg))
	}
	return e
}

func newFilter(h C.uintptr_t, name string) *Filter {
	f := &Filter{h: h, name: name}
	// a Filter dropped without Close does not leak its mapping and fd
	runtime.SetFinalizer(f, (*Filter).Close)
	return f
}

// noNUL refuses a name C would read cut short at a NUL byte.
func noNUL(op, name string) error {
	if strings.IndexByte(name, 0) >= 0 {
		return &Error{Op: op, Name: name, Err: syscall.EINVAL, Msg: "name holds a NUL byte"}
	}
	return nil
}

func open(name string, flags C.uint, op string) (*Filter, error) {
	if err := noNUL(op, name); err != nil {
		return nil, err
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var h C.uintptr_t
	if err := wrap(op, name, C.kbg_open(cname, flags, &h)); err != nil {
		return nil, err
	}
	return newFilter(h, name), nil
}

// Open opens the filter NAME of the caller's network namespace for
// reading: Exists and the other tests.  It needs the filter's readers
// grant or CAP_NET_ADMIN over the namespace.
func Open(name string) (*Filter, error) {
	return open(name, C.KBLOOM_RDONLY, "open")
}

// OpenWriter opens the filter NAME for reading and writing: Add,
// AddMany and TestAndAdd too.  It needs the writers grant or
// CAP_NET_ADMIN.
func OpenWriter(name string) (*Filter, error) {
	return open(name, C.KBLOOM_WRITE, "open")
}

// OpenImage maps a kbloom image file (bfctl image build, bfctl export)
// read-only.  It needs no kernel module; the filter has no fd and
// refuses adds (EROFS).
func OpenImage(path string) (*Filter, error) {
	if err := noNUL("open image", path); err != nil {
		return nil, err
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var h C.uintptr_t
	if err := wrap("open image", path, C.kbg_open_image(cpath, &h)); err != nil {
		return nil, err
	}
	return newFilter(h, path), nil
}

// Name is the name (or image path) the filter was opened with.
func (f *Filter) Name() string {
	return f.name
}

// acquire takes the handle for one call, or fails if f is closed; the
// caller calls f.mu.RUnlock() when done.
func (f *Filter) acquire(op string) (C.uintptr_t, error) {
	f.mu.RLock()
	if f.h == 0 {
		f.mu.RUnlock()
		return 0, &Error{Op: op, Name: f.name, Err: os.ErrClosed}
	}
	return f.h, nil
}

// keyPtr points at a key's first byte, or is nil for an empty key (the
// C side substitutes a valid pointer).  The slice's memory is Go memory
// passed for the duration of one call only, as cgo allows.
func keyPtr(data []byte) unsafe.Pointer {
	if len(data) == 0 {
		return nil
	}
	return unsafe.Pointer(&data[0])
}

// Exists reports whether data may be in the filter: false means it was
// never added, true that it was added or is a false positive.  Keys are
// encoded as the filter's key type says (str and bytes: the bytes; ipv4
// 4 bytes, ipv6 16; net4/net6: address and prefix length); a host key of
// a net filter is looked up as a packet's address would be, through
// every prefix length it holds.  No system call, no allocation.
func (f *Filter) Exists(data []byte) (bool, error) {
	h, err := f.acquire("exists")
	if err != nil {
		return false, err
	}
	r := C.kbg_test(h, keyPtr(data), C.size_t(len(data)))
	f.mu.RUnlock()
	if r.rc < 0 {
		return false, wrap("exists", f.name, r)
	}
	return r.rc > 0, nil
}

// ExistsAddr tests an address as a packet's source or destination is
// tested (key types ipv4, ipv6, ip and the net types): an IPv4 address
// (Is4) as 4 bytes, any other, IPv4-mapped IPv6 included, as 16.
func (f *Filter) ExistsAddr(a netip.Addr) (bool, error) {
	if !a.IsValid() {
		return false, &Error{Op: "exists", Name: f.name, Err: syscall.EINVAL,
			Msg: "invalid address"}
	}
	h, err := f.acquire("exists")
	if err != nil {
		return false, err
	}
	b := a.As16()
	hi := uint64(0)
	lo := uint64(0)
	for i := 0; i < 8; i++ {
		hi = hi<<8 | uint64(b[i])
		lo = lo<<8 | uint64(b[8+i])
	}
	v6 := C.int(0)
	if !a.Is4() {
		v6 = 1
	}
	r := C.kbg_test_addr(h, v6, C.uint64_t(hi), C.uint64_t(lo))
	f.mu.RUnlock()
	if r.rc < 0 {
		return false, wrap("exists", f.name, r)
	}
	return r.rc > 0, nil
}

// ExistsIP is ExistsAddr for a net.IP: an address with a 4-byte form
// (To4, so also ::ffff:a.b.c.d as net.ParseIP gives IPv4 addresses) is
// tested as IPv4.
func (f *Filter) ExistsIP(ip net.IP) (bool, error) {
	if v4 := ip.To4(); v4 != nil {
		return f.ExistsAddr(netip.AddrFrom4(*(*[4]byte)(v4)))
	}
	a, ok := netip.AddrFromSlice(ip)
	if !ok {
		return false, &Error{Op: "exists", Name: f.name, Err: syscall.EINVAL,
			Msg: "invalid IP address"}
	}
	return f.ExistsAddr(a)
}

// flatten lays keys out for kbg_batch: their bytes one after another and
// their lengths (Go memory without Go pointers, as cgo requires).
func flatten(keys [][]byte) ([]byte, []C.size_t) {
	total := 0
	for _, k := range keys {
		total += len(k)
	}
	buf := make([]byte, 0, total)
	lens := make([]C.size_t, len(keys))
	for i, k := range keys {
		buf = append(buf, k...)
		lens[i] = C.size_t(len(k))
	}
	return buf, lens
}

// ExistsMany tests every key, in one call into the library: the answers
// are Exists' for each key, in order, all from the same generation of
// the filter.  A malformed key fails the whole call.
func (f *Filter) ExistsMany(keys [][]byte) ([]bool, error) {
	if len(keys) == 0 {
		return []bool{}, nil
	}
	buf, lens := flatten(keys)
	bitmap := make([]uint64, (len(keys)+63)/64)
	h, err := f.acquire("exists")
	if err != nil {
		return nil, err
	}
	r := C.kbg_batch(h, 0, (*C.uchar)(keyPtr(buf)), &lens[0], C.size_t(len(keys)),
		(*C.uint64_t)(unsafe.Pointer(&bitmap[0])))
	f.mu.RUnlock()
	if r.rc < 0 {
		return nil, wrap("exists", f.name, r)
	}
	out := make([]bool, len(keys))
	for i := range out {
		out[i] = bitmap[i/64]>>(i%64)&1 != 0
	}
	return out, nil
}

// Add adds data to the filter (OpenWriter only: a reader's or an
// image's Add fails with EROFS).
func (f *Filter) Add(data []byte) error {
	h, err := f.acquire("add")
	if err != nil {
		return err
	}
	r := C.kbg_add(h, keyPtr(data), C.size_t(len(data)))
	f.mu.RUnlock()
	return wrap("add", f.name, r)
}

// AddMany adds every key and returns how many of them were absent
// before (OpenWriter only).  A malformed key fails the call before any
// key is added.
func (f *Filter) AddMany(keys [][]byte) (int, error) {
	if len(keys) == 0 {
		return 0, nil
	}
	buf, lens := flatten(keys)
	h, err := f.acquire("add")
	if err != nil {
		return 0, err
	}
	r := C.kbg_batch(h, 1, (*C.uchar)(keyPtr(buf)), &lens[0], C.size_t(len(keys)), nil)
	f.mu.RUnlock()
	if r.rc < 0 {
		return 0, wrap("add", f.name, r)
	}
	return int(r.rc), nil
}

// TestAndAdd adds data and reports whether it may have been present
// before (OpenWriter only): false means it was certainly new.
func (f *Filter) TestAndAdd(data []byte) (bool, error) {
	h, err := f.acquire("test-and-add")
	if err != nil {
		return false, err
	}
	r := C.kbg_test_and_add(h, keyPtr(data), C.size_t(len(data)))
	f.mu.RUnlock()
	if r.rc < 0 {
		return false, wrap("test-and-add", f.name, r)
	}
	return r.rc > 0, nil
}

// Refresh maps the filter's current generation now and reports whether
// it changed.  It is never needed for correct answers (every call
// follows a rebuild by itself); a program that polls Fd calls it to
// learn that the filter was replaced.
func (f *Filter) Refresh() (bool, error) {
	h, err := f.acquire("refresh")
	if err != nil {
		return false, err
	}
	r := C.kbg_refresh(h)
	f.mu.RUnlock()
	if r.rc < 0 {
		return false, wrap("refresh", f.name, r)
	}
	return r.rc > 0, nil
}

// Info describes the generation the filter maps.
func (f *Filter) Info() (Info, error) {
	h, err := f.acquire("info")
	if err != nil {
		return Info{}, err
	}
	var ci C.struct_kbloom_info
	r := C.kbg_info(h, &ci)
	f.mu.RUnlock()
	if r.rc < 0 {
		return Info{}, wrap("info", f.name, r)
	}
	return Info{
		Kind: uint32(ci.kind), KeyType: uint32(ci.key_type),
		Hash: uint32(ci.hash), K: uint32(ci.k),
		M: uint64(ci.m), Items: uint64(ci.items),
		PayloadBytes: uint64(ci.payload_bytes),
		Generation:   uint64(ci.generation), ID: uint64(ci.id),
		FPRppb: uint32(ci.fpr_ppb), Prefixes: uint32(ci.prefixes),
		Writable: ci.flags&C.KBLOOM_WRITE != 0,
	}, nil
}

// Fd is the filter's file descriptor, for poll: it becomes readable when
// the generation it maps stops being the filter's current one (a
// rebuild, swap, upload, flush or destroy), and stays so until a call
// (Refresh, or any test) maps the new one.  It is -1 for an image or a
// closed filter.  The fd belongs to the Filter: do not close it.
func (f *Filter) Fd() int {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if f.h == 0 {
		return -1
	}
	return int(C.kbg_fd(f.h))
}

// Close unmaps the filter and closes its fd.  It waits for calls in
// progress; later calls fail with an error that is os.ErrClosed.
// Closing a closed filter does nothing and returns nil.
func (f *Filter) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.h != 0 {
		C.kbg_close(f.h)
		f.h = 0
		runtime.SetFinalizer(f, nil)
	}
	return nil
}
