// SPDX-License-Identifier: GPL-2.0

package kbloom

// Kernel filters (the VM test, selftests/bindings/go_kbloom.sh): run
// when /dev/kbloom exists and KBLOOM_TEST_FILTER names the filters'
// prefix; KBLOOM_BFCTL is the bfctl that creates them and answers as
// the reference.  Each test creates and destroys its own filters.

import (
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// kernelName is PREFIX-SUFFIX, or skips the test without a kernel.
func kernelName(t *testing.T, suffix string) string {
	t.Helper()
	if _, err := os.Stat("/dev/kbloom"); err != nil {
		t.Skip("no /dev/kbloom")
	}
	base := os.Getenv("KBLOOM_TEST_FILTER")
	if base == "" {
		t.Skip("KBLOOM_TEST_FILTER not set")
	}
	if os.Getenv("KBLOOM_BFCTL") == "" {
		t.Fatal("KBLOOM_TEST_FILTER without KBLOOM_BFCTL")
	}
	return base + "-" + suffix
}

// kernelFilter creates NAME with bfctl create ARGS and adds keys;
// the filter is destroyed when the test ends.
func kernelFilter(t *testing.T, name string, keys []string, create ...string) {
	t.Helper()
	bfctl(t, []int{0, 3}, "destroy", name)
	bfctl(t, []int{0}, append([]string{"create", name}, create...)...)
	t.Cleanup(func() { bfctl(t, []int{0, 3}, "destroy", name) })
	if len(keys) > 0 {
		bfctl(t, []int{0}, "add", name, "-file", writeKeys(t, t.TempDir(), "keys", keys))
	}
}

// pollIn waits up to d for fd to be readable.
func pollIn(fd int, d time.Duration) bool {
	pfd := struct {
		fd             int32
		events, revent int16
	}{int32(fd), 1 /* POLLIN */, 0}
	n, _, e := syscall.Syscall(syscall.SYS_POLL, uintptr(unsafe.Pointer(&pfd)), 1,
		uintptr(d.Milliseconds()))
	return e == 0 && n == 1 && pfd.revent&1 != 0
}

// Every kind: a reader's answers equal bfctl test's, key by key.
func TestKernelAnswers(t *testing.T) {
	for i, c := range imgCases() {
		i, c := i, c
		t.Run(c.name, func(t *testing.T) {
			name := kernelName(t, fmt.Sprintf("a%d", i))
			keyFmt := ""
			if c.hex {
				keyFmt = "hex"
			}
			// image build's --kind KIND ... is create's KIND ...
			create := append([]string{"create", name, c.build[1]}, c.build[2:]...)
			bfctl(t, []int{0, 3}, "destroy", name)
			bfctl(t, []int{0}, create...)
			t.Cleanup(func() { bfctl(t, []int{0, 3}, "destroy", name) })
			add := append([]string{"add", name}, fmtArgs(keyFmt)...)
			bfctl(t, []int{0}, append(add, "-file",
				writeKeys(t, t.TempDir(), "keys", c.present))...)

			f, err := Open(name)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			queries := append(append([]string{}, c.present...), c.absent...)
			want := testAnswers(t, []string{"test"}, name, keyFmt, queries)
			enc := make([][]byte, len(queries))
			got := make([]bool, len(queries))
			for i, k := range queries {
				enc[i] = encode(t, c.keyType, k)
				if got[i], err = f.Exists(enc[i]); err != nil {
					t.Fatalf("Exists(%q): %v", k, err)
				}
			}
			compare(t, "Exists", queries, want, got)
			if n := countTrue(got[:len(c.present)]); n != len(c.present) {
				t.Errorf("%d of %d added keys present", n, len(c.present))
			}
			if fp := countTrue(got[len(c.present):]); fp < c.minFP {
				t.Errorf("%d false positives, want %d or more to compare", fp, c.minFP)
			}
			many, err := f.ExistsMany(enc)
			if err != nil {
				t.Fatal(err)
			}
			compare(t, "ExistsMany", queries, want, many)
			if c.hosts != nil {
				hw := testAnswers(t, []string{"test"}, name, "", c.hosts)
				addrAnswers(t, f, c.hosts, hw)
			}
		})
	}
}

// A reader cannot add; a writer can, and a reader sees it at once.
func TestKernelWriter(t *testing.T) {
	name := kernelName(t, "w")
	kernelFilter(t, name, seqKeys("key-", 100), "classic", "--items", "1000", "--fpr", "0.1%",
		"--key-type", "str")
	r, err := Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Fd() < 0 {
		t.Errorf("a kernel filter's Fd() = %d", r.Fd())
	}
	// keys the filter answers absent (a fixed key could be a false
	// positive)
	var fresh [][]byte
	for i := 0; len(fresh) < 4 && i < 1000; i++ {
		k := []byte(fmt.Sprintf("new-%d", i))
		if ok, err := r.Exists(k); err != nil {
			t.Fatal(err)
		} else if !ok {
			fresh = append(fresh, k)
		}
	}
	if len(fresh) < 4 {
		t.Fatal("no absent keys")
	}
	if err := r.Add(fresh[0]); !errors.Is(err, syscall.EROFS) {
		t.Errorf("a reader's Add: %v, want EROFS", err)
	}
	if _, err := r.TestAndAdd(fresh[0]); !errors.Is(err, syscall.EROFS) {
		t.Errorf("a reader's TestAndAdd: %v, want EROFS", err)
	}
	if _, err := r.AddMany(fresh); !errors.Is(err, syscall.EROFS) {
		t.Errorf("a reader's AddMany: %v, want EROFS", err)
	}
	if ok, _ := r.Exists(fresh[0]); ok {
		t.Error("a refused add changed the filter")
	}
	if info, err := r.Info(); err != nil || info.Writable || info.M == 0 {
		t.Errorf("reader's Info() = %+v, %v", info, err)
	}

	w, err := OpenWriter(name)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if info, err := w.Info(); err != nil || !info.Writable {
		t.Errorf("writer's Info() = %+v, %v", info, err)
	}
	if was, err := w.TestAndAdd(fresh[0]); err != nil || was {
		t.Errorf("TestAndAdd of an absent key: %v %v", was, err)
	}
	if was, err := w.TestAndAdd(fresh[0]); err != nil || !was {
		t.Errorf("TestAndAdd again: %v %v", was, err)
	}
	if err := w.Add(fresh[1]); err != nil {
		t.Error(err)
	}
	if n, err := w.AddMany([][]byte{fresh[2], fresh[3], []byte("key-1")}); err != nil || n != 2 {
		t.Errorf("AddMany of 2 new keys and an old one: %d new, %v", n, err)
	}
	// a malformed key (an empty str) fails a batch before any key of
	// it is added
	batch := make([][]byte, 300)
	for i := range batch {
		batch[i] = []byte(fmt.Sprintf("batch-%d", i))
	}
	before, err := r.ExistsMany(batch)
	if err != nil {
		t.Fatal(err)
	}
	batch = append(batch, nil)
	if _, err := w.AddMany(batch); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("AddMany with an empty str key: %v, want EINVAL", err)
	}
	if after, err := r.ExistsMany(batch[:300]); err != nil || countTrue(after) != countTrue(before) {
		t.Errorf("a refused AddMany added keys: %d maybe before, %d after (%v)",
			countTrue(before), countTrue(after), err)
	}
	for _, k := range fresh {
		if ok, err := r.Exists(k); !ok || err != nil {
			t.Errorf("the reader does not see %s: %v %v", k, ok, err)
		}
		bfctl(t, []int{0}, "test", name, string(k))
	}
}

// A rebuild wakes poll and is followed without reopening; a destroy
// leaves ENOENT.
func TestKernelRebuild(t *testing.T) {
	name := kernelName(t, "rb")
	old := seqKeys("old-", 500)
	kernelFilter(t, name, old, "blocked", "--items", "1000", "--fpr", "0.1%", "--key-type", "str")
	f, err := Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info0, err := f.Info()
	if err != nil {
		t.Fatal(err)
	}
	if pollIn(f.Fd(), 0) {
		t.Error("the fd polls readable before any change")
	}
	nw := seqKeys("new-", 500)
	bfctl(t, []int{0}, "rebuild", name, "-file", writeKeys(t, t.TempDir(), "new", nw))
	if !pollIn(f.Fd(), 10*time.Second) {
		t.Error("poll did not report the rebuild")
	}
	if changed, err := f.Refresh(); err != nil || !changed {
		t.Errorf("Refresh after a rebuild: %v %v", changed, err)
	}
	if pollIn(f.Fd(), 0) {
		t.Error("the fd still polls readable once the new generation is mapped")
	}
	if changed, err := f.Refresh(); err != nil || changed {
		t.Errorf("a second Refresh: %v %v, want no change", changed, err)
	}
	if info, err := f.Info(); err != nil || info.Generation == info0.Generation {
		t.Errorf("Info after the rebuild: %+v (before %+v) %v", info, info0, err)
	}
	queries := append(append([]string{}, nw...), old...)
	want := testAnswers(t, []string{"test"}, name, "", queries)
	got := make([]bool, len(queries))
	for i, k := range queries {
		if got[i], err = f.Exists([]byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	compare(t, "after rebuild", queries, want, got)
	if n := countTrue(got[:len(nw)]); n != len(nw) {
		t.Errorf("%d of %d rebuilt keys present", n, len(nw))
	}
	if n := countTrue(got[len(nw):]); n > 50 {
		t.Errorf("%d of %d old keys still present", n, len(old))
	}

	bfctl(t, []int{0}, "destroy", name)
	if _, err := f.Exists([]byte("new-1")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Exists after destroy: %v, want ENOENT", err)
	}
	if _, err := f.ExistsAddr(netip.MustParseAddr("10.0.0.1")); err == nil {
		t.Error("ExistsAddr after destroy succeeded")
	}
	if _, err := Open(name); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open of a destroyed filter: %v, want ENOENT", err)
	}
}

// Run by the VM test without privileges, as a member of the readers
// group of the filter KBLOOM_TEST_GRANTED (key-1..key-100 added), whose
// -ungranted twin grants nothing: the grant opens it for reading only.
func TestGranted(t *testing.T) {
	name := os.Getenv("KBLOOM_TEST_GRANTED")
	if name == "" {
		t.Skip("KBLOOM_TEST_GRANTED not set")
	}
	f, err := Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	keys := make([][]byte, 100)
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf("key-%d", i+1))
		if ok, err := f.Exists(keys[i]); !ok || err != nil {
			t.Errorf("a granted reader's Exists(%s): %v %v", keys[i], ok, err)
		}
	}
	if m, err := f.ExistsMany(keys); err != nil || countTrue(m) != len(keys) {
		t.Errorf("a granted reader's ExistsMany: %d of %d, %v", countTrue(m), len(keys), err)
	}
	if err := f.Add([]byte("x")); !errors.Is(err, syscall.EROFS) {
		t.Errorf("a reader's Add: %v, want EROFS", err)
	}
	if _, err := OpenWriter(name); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("OpenWriter with only the readers grant: %v, want EPERM", err)
	}
	if _, err := Open(name + "-ungranted"); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("Open of a filter that grants nothing: %v, want EPERM", err)
	}
}

// Goroutines testing keys present in every generation while the filter
// is rebuilt and swapped under them: never a false negative or an error.
func TestKernelRebuildUnderReaders(t *testing.T) {
	name := kernelName(t, "rr")
	both := seqKeys("both-", 200)
	kernelFilter(t, name, both, "classic", "--items", "2000", "--fpr", "1%", "--key-type", "str")
	other := name + "-b"
	kernelFilter(t, other, both, "blocked", "--items", "2000", "--fpr", "1%", "--key-type", "str")
	f, err := Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info0, _ := f.Info()
	keys := make([][]byte, len(both))
	for i, k := range both {
		keys[i] = []byte(k)
	}
	stop := make(chan struct{})
	errs := make(chan error, 4)
	var wg sync.WaitGroup
	var calls atomic.Int64
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if g == 0 {
					m, err := f.ExistsMany(keys)
					if err != nil || countTrue(m) != len(keys) {
						errs <- fmt.Errorf("ExistsMany: %d of %d, %v", countTrue(m), len(keys), err)
						return
					}
				} else {
					for _, k := range keys {
						if ok, err := f.Exists(k); !ok || err != nil {
							errs <- fmt.Errorf("Exists(%s): %v %v", k, ok, err)
							return
						}
					}
				}
				calls.Add(1)
			}
		}(g)
	}
	dir := t.TempDir()
	for i := 0; i < 4; i++ {
		keys := append(append([]string{}, both...), seqKeys(fmt.Sprintf("gen%d-", i), 500)...)
		bfctl(t, []int{0}, "rebuild", name, "-file", writeKeys(t, dir, "k", keys))
		bfctl(t, []int{0}, "swap", name, other)
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if calls.Load() == 0 {
		t.Error("no call completed")
	}
	if info, err := f.Info(); err != nil || info.Generation == info0.Generation {
		t.Errorf("the readers never saw a new generation: %+v %v", info, err)
	}
}
