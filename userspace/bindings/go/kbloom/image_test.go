// SPDX-License-Identifier: GPL-2.0

package kbloom

// Native tests: images built by bfctl image build, mapped by
// OpenImage, answering as bfctl image test does, key by key.

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

type imgCase struct {
	name    string
	build   []string // bfctl image build's options, less -file and -o
	hex     bool     // keys are hex (bytes key type)
	keyType string
	present []string // the keys built in
	absent  []string // keys tested, never added
	hosts   []string // addresses tested as packets' (ip and net types)
	minFP   int      // false positives expected among absent at least
}

func imgCases() []imgCase {
	str := func(kind string, opts ...string) imgCase {
		return imgCase{
			name:    kind + "/str",
			build:   append([]string{"--kind", kind, "--key-type", "str"}, opts...),
			keyType: "str",
			present: seqKeys("key-", 2000),
			absent:  seqKeys("other-", 20000),
			minFP:   100,
		}
	}
	var nets, netHosts []string
	for i := 0; i < 100; i++ {
		nets = append(nets, fmt.Sprintf("10.%d.0.0/16", 2*i),
			fmt.Sprintf("2001:db8:%x::/48", i))
		netHosts = append(netHosts, fmt.Sprintf("10.%d.%d.9", i, i), fmt.Sprintf("192.0.2.%d", i),
			fmt.Sprintf("2001:db8:%x:1::1", i), fmt.Sprintf("2001:db9::%x", i))
	}
	var net4, net4Hosts []string
	for i := 0; i < 500; i++ {
		net4 = append(net4, fmt.Sprintf("172.%d.%d.0/24", 16+i/250, i%250))
		// in a listed /24, and in one of the same /16 not listed
		net4Hosts = append(net4Hosts, fmt.Sprintf("172.%d.%d.77", 16+i/250, i%250),
			fmt.Sprintf("172.%d.%d.77", 18+i/250, i%250))
	}
	mixed := append(v4Keys(10<<24, 3, 700), v6Keys(1, 700)...)
	mixedOut := append(v4Keys(11<<24, 5, 4000), v6Keys(2, 4000)...)
	return []imgCase{
		str("classic", "--items", "2000", "--fpr", "5%"),
		str("blocked", "--items", "2000", "--fpr", "5%"),
		str("counting", "--items", "2000", "--fpr", "5%"),
		// go-zero's keys (its Exists takes the string's bytes), at
		// go-zero's fixed 14 probes; bits prime, not a multiple of 8
		{
			name:    "gozero/str",
			build:   []string{"--kind", "gozero", "--bits", "20011", "--key-type", "str"},
			keyType: "str",
			present: seqKeys("user:", 2000),
			absent:  seqKeys("order:", 20000),
			minFP:   100,
		},
		{
			name:    "classic/bytes",
			build:   []string{"--kind", "classic", "--items", "1500", "--fpr", "5%", "--key-type", "bytes"},
			hex:     true,
			keyType: "bytes",
			present: hexKeys("in", 1500),
			absent:  hexKeys("out", 15000),
			minFP:   100,
		},
		{
			name:    "blocked/ipv4",
			build:   []string{"--kind", "blocked", "--items", "1500", "--fpr", "2%", "--key-type", "ipv4"},
			keyType: "ipv4",
			present: v4Keys(10<<24, 7, 1500),
			absent:  v4Keys(10<<24+3, 7, 10000),
			minFP:   20,
		},
		{
			name:    "classic/ipv6",
			build:   []string{"--kind", "classic", "--items", "1500", "--fpr", "2%", "--key-type", "ipv6"},
			keyType: "ipv6",
			present: v6Keys(7, 1500),
			absent:  v6Keys(8, 10000),
			minFP:   20,
		},
		{
			name:    "gozero/ip",
			build:   []string{"--kind", "gozero", "--bits", "16001", "--key-type", "ip"},
			keyType: "ip",
			present: mixed,
			absent:  mixedOut,
			minFP:   20,
		},
		{
			name:    "classic/net",
			build:   []string{"--kind", "classic", "--items", "200", "--fpr", "1%", "--key-type", "net"},
			keyType: "net",
			present: nets,
			hosts:   netHosts,
		},
		{
			name:    "blocked/net4",
			build:   []string{"--kind", "blocked", "--items", "500", "--fpr", "1%", "--key-type", "net4"},
			keyType: "net4",
			present: net4,
			hosts:   net4Hosts,
		},
	}
}

// buildImage writes c's image with bfctl image build.
func buildImage(t testing.TB, dir string, c imgCase) string {
	t.Helper()
	keys := writeKeys(t, dir, "keys", c.present)
	img := filepath.Join(dir, "f.img")
	args := append([]string{"image", "build"}, c.build...)
	if c.hex {
		args = append(args, "--key-format", "hex")
	}
	bfctl(t, []int{0}, append(args, "-file", keys, "-o", img)...)
	return img
}

func TestImageAnswers(t *testing.T) {
	for _, c := range imgCases() {
		c := c
		t.Run(c.name, func(t *testing.T) {
			img := buildImage(t, t.TempDir(), c)
			f, err := OpenImage(img)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			keyFmt := ""
			if c.hex {
				keyFmt = "hex"
			}
			queries := append(append([]string{}, c.present...), c.absent...)
			want := testAnswers(t, []string{"image", "test"}, img, keyFmt, queries)
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
			fp := countTrue(got[len(c.present):])
			if fp < c.minFP {
				t.Errorf("%d false positives among %d absent keys, want %d or more to compare",
					fp, len(c.absent), c.minFP)
			}
			many, err := f.ExistsMany(enc)
			if err != nil {
				t.Fatal(err)
			}
			compare(t, "ExistsMany", queries, want, many)

			if strings.HasPrefix(c.keyType, "ip") {
				addrAnswers(t, f, queries, want)
			}
			if c.hosts != nil {
				hw := testAnswers(t, []string{"image", "test"}, img, "", c.hosts)
				addrAnswers(t, f, c.hosts, hw)
				if n := countTrue(hw); n == 0 || n == len(hw) {
					t.Errorf("%d of %d hosts in the prefixes: nothing to compare", n, len(hw))
				}
			}
		})
	}
}

// addrAnswers checks ExistsAddr and ExistsIP against want.
func addrAnswers(t testing.TB, f *Filter, addrs []string, want []bool) {
	t.Helper()
	ga := make([]bool, len(addrs))
	gi := make([]bool, len(addrs))
	var err error
	for i, s := range addrs {
		if ga[i], err = f.ExistsAddr(netip.MustParseAddr(s)); err != nil {
			t.Fatalf("ExistsAddr(%s): %v", s, err)
		}
		if gi[i], err = f.ExistsIP(net.ParseIP(s)); err != nil {
			t.Fatalf("ExistsIP(%s): %v", s, err)
		}
	}
	compare(t, "ExistsAddr", addrs, want, ga)
	compare(t, "ExistsIP", addrs, want, gi)
}

func strImage(t testing.TB) (*Filter, string) {
	t.Helper()
	c := imgCases()[0]
	img := buildImage(t, t.TempDir(), c)
	f, err := OpenImage(img)
	if err != nil {
		t.Fatal(err)
	}
	return f, img
}

func TestImageInfo(t *testing.T) {
	f, img := strImage(t)
	defer f.Close()
	info, err := f.Info()
	if err != nil {
		t.Fatal(err)
	}
	out := string(bfctl(t, []int{0}, "image", "info", "-j", img))
	if !strings.Contains(out, fmt.Sprintf(`"m":%d,`, info.M)) ||
		!strings.Contains(out, fmt.Sprintf(`"k":%d,`, info.K)) {
		t.Errorf("Info() = %+v, bfctl image info: %s", info, out)
	}
	if info.Writable {
		t.Error("an image says it is writable")
	}
	if fd := f.Fd(); fd != -1 {
		t.Errorf("an image's Fd() = %d, want -1", fd)
	}
}

func TestImageRefusesWrites(t *testing.T) {
	f, _ := strImage(t)
	defer f.Close()
	key := []byte("other-1")
	before, err := f.Exists(key)
	if err != nil {
		t.Fatal(err)
	}
	if before {
		t.Fatal("other-1 is a false positive of the test image: pick another key")
	}
	if err := f.Add(key); !errors.Is(err, syscall.EROFS) {
		t.Errorf("Add on an image: %v, want EROFS", err)
	}
	if _, err := f.AddMany([][]byte{key, []byte("x")}); !errors.Is(err, syscall.EROFS) {
		t.Errorf("AddMany on an image: %v, want EROFS", err)
	}
	if _, err := f.TestAndAdd(key); !errors.Is(err, syscall.EROFS) {
		t.Errorf("TestAndAdd on an image: %v, want EROFS", err)
	}
	if after, _ := f.Exists(key); after {
		t.Error("a refused add changed the answer")
	}
	var ke *Error
	if err := f.Add(key); !errors.As(err, &ke) || ke.Errno() != syscall.EROFS ||
		ke.Op != "add" || !strings.Contains(err.Error(), f.Name()) {
		t.Errorf("Add's error %#v does not say what failed", err)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.img")
	_, err := OpenImage(missing)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "missing.img") {
		t.Errorf("OpenImage of a missing file: %v, want ENOENT naming it", err)
	}
	// a NUL would cut the path short in C: refused, not truncated
	if _, err := OpenImage(missing + "\x00.img"); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("OpenImage of a path with a NUL: %v, want EINVAL", err)
	}
	if _, err := Open("web\x00x"); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("Open of a name with a NUL: %v, want EINVAL", err)
	}
	for name, data := range map[string][]byte{
		"empty":   {},
		"garbage": []byte(strings.Repeat("not an image\n", 100)),
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := OpenImage(p)
		var ke *Error
		if !errors.As(err, &ke) || (ke.Errno() != syscall.EBADMSG && ke.Errno() != syscall.EINVAL) {
			t.Errorf("OpenImage of an %s file: %v, want EBADMSG or EINVAL", name, err)
		}
	}
	// a truncated image: every byte of its payload counts
	_, img := strImage(t)
	data, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "short.img")
	if err := os.WriteFile(p, data[:len(data)-1], 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenImage(p); err == nil {
		t.Error("OpenImage of a truncated image succeeded")
	}
	if _, err := os.Stat("/dev/kbloom"); errors.Is(err, fs.ErrNotExist) {
		_, err := Open("web")
		if !errors.Is(err, syscall.ENODEV) {
			t.Errorf("Open without /dev/kbloom: %v, want ENODEV", err)
		}
	}
}

func TestClose(t *testing.T) {
	f, _ := strImage(t)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := f.Exists([]byte("key-1")); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Exists after Close: %v, want os.ErrClosed", err)
	}
	if _, err := f.ExistsMany([][]byte{[]byte("key-1")}); !errors.Is(err, os.ErrClosed) {
		t.Errorf("ExistsMany after Close: %v", err)
	}
	if _, err := f.ExistsAddr(netip.MustParseAddr("10.0.0.1")); !errors.Is(err, os.ErrClosed) {
		t.Errorf("ExistsAddr after Close: %v", err)
	}
	if err := f.Add([]byte("x")); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Add after Close: %v", err)
	}
	if _, err := f.Info(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Info after Close: %v", err)
	}
	if f.Fd() != -1 {
		t.Error("Fd after Close is not -1")
	}
}

func TestEdgeKeys(t *testing.T) {
	f, _ := strImage(t)
	defer f.Close()
	// the empty key (nil or not): what the library says of it (a str
	// key of 0 bytes is malformed, as in the kernel), the same both ways
	_, errNil := f.Exists(nil)
	_, errEmpty := f.Exists([]byte{})
	if !errors.Is(errNil, syscall.EINVAL) || !errors.Is(errEmpty, syscall.EINVAL) {
		t.Errorf("Exists(nil): %v, Exists([]byte{}): %v, want EINVAL", errNil, errEmpty)
	}
	if _, err := f.ExistsMany([][]byte{[]byte("key-1"), nil}); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("ExistsMany with an empty key: %v, want EINVAL", err)
	}
	if m, err := f.ExistsMany([][]byte{[]byte("key-1"), []byte("key-2")}); err != nil || !m[0] || !m[1] {
		t.Errorf("ExistsMany after an error: %v %v", m, err)
	}
	if m, err := f.ExistsMany(nil); err != nil || len(m) != 0 {
		t.Errorf("ExistsMany(nil): %v %v", m, err)
	}
	if _, err := f.ExistsAddr(netip.Addr{}); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("ExistsAddr of the zero Addr: %v, want EINVAL", err)
	}
	if _, err := f.ExistsIP(net.IP{1, 2, 3}); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("ExistsIP of a 3-byte IP: %v, want EINVAL", err)
	}
}

// Exists hands the caller's slice to C: nothing is allocated per call.
func TestExistsAllocs(t *testing.T) {
	f, _ := strImage(t)
	defer f.Close()
	key := []byte("key-17")
	addr := netip.MustParseAddr("2001:db8::1")
	if n := testing.AllocsPerRun(1000, func() { _, _ = f.Exists(key) }); n != 0 {
		t.Errorf("Exists allocates %v times a call", n)
	}
	if n := testing.AllocsPerRun(1000, func() { _, _ = f.ExistsAddr(addr) }); n != 0 {
		t.Errorf("ExistsAddr allocates %v times a call", n)
	}
}

// Goroutines testing while another closes: answers are right until
// the close and os.ErrClosed after it, never a crash.
func TestConcurrentClose(t *testing.T) {
	f, _ := strImage(t)
	keys := make([][]byte, 64)
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf("key-%d", i+1))
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	start := make(chan struct{})
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			<-start
			for i := 0; ; i++ {
				var ok bool
				var err error
				if g%2 == 0 {
					ok, err = f.Exists(keys[i%len(keys)])
				} else {
					var m []bool
					if m, err = f.ExistsMany(keys); err == nil {
						ok = countTrue(m) == len(keys)
					}
				}
				if errors.Is(err, os.ErrClosed) {
					return
				}
				if err != nil || !ok {
					errs <- fmt.Errorf("goroutine %d call %d: %v %v", g, i, ok, err)
					return
				}
			}
		}(g)
	}
	close(start)
	for i := 0; i < 2000; i++ {
		if ok, err := f.Exists(keys[0]); !ok || err != nil {
			t.Fatalf("Exists: %v %v", ok, err)
		}
	}
	_ = f.Close()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func BenchmarkExists(b *testing.B) {
	f, _ := strImage(b)
	defer f.Close()
	key := []byte("key-12345")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, _ = f.Exists(key)
	}
}

func BenchmarkExistsParallel(b *testing.B) {
	f, _ := strImage(b)
	defer f.Close()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		key := []byte("key-12345")
		for pb.Next() {
			_, _ = f.Exists(key)
		}
	})
}
