// SPDX-License-Identifier: GPL-2.0

package kbloom

// What the native and the kernel tests share: bfctl (KBLOOM_BFCTL, or
// the build tree's), key files, and bfctl's answers as the reference.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// bfctlPath is the bfctl that builds images and answers as the
// reference: $KBLOOM_BFCTL (test-go and the VM test set it), else the
// build tree's next to this source; the test is skipped without either.
func bfctlPath(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("KBLOOM_BFCTL"); p != "" {
		return p
	}
	p, err := filepath.Abs("../../../../build/user/bfctl")
	if err == nil {
		if _, err = os.Stat(p); err == nil {
			return p
		}
	}
	t.Skip("no bfctl: set KBLOOM_BFCTL or run make user")
	return ""
}

// bfctl runs bfctl ARGS and returns its stdout; exit codes in ok (0 and
// 1 for test verbs) are success.
func bfctl(t testing.TB, ok []int, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(bfctlPath(t), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	rc := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		rc = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("bfctl %s: %v", strings.Join(args, " "), err)
	}
	for _, o := range ok {
		if rc == o {
			return out
		}
	}
	t.Fatalf("bfctl %s: exit %d: %s", strings.Join(args, " "), rc, stderr.String())
	return nil
}

// writeKeys writes one key a line to a file of dir.
func writeKeys(t testing.TB, dir, name string, keys []string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(strings.Join(keys, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// seqKeys is PREFIX1..PREFIXn.
func seqKeys(prefix string, n int) []string {
	k := make([]string, n)
	for i := range k {
		k[i] = fmt.Sprintf("%s%d", prefix, i+1)
	}
	return k
}

// hexKeys are n byte keys of 1..32 bytes (SHA-256 of a label and the
// index, cut): arbitrary bytes, NUL and 0xff included, the same each run.
func hexKeys(label string, n int) []string {
	k := make([]string, n)
	for i := range k {
		s := sha256.Sum256([]byte(fmt.Sprintf("%s-%d", label, i)))
		k[i] = hex.EncodeToString(s[:1+i%32])
	}
	return k
}

// v4Keys are n addresses 10.A.B.C from a base, a step apart.
func v4Keys(base uint32, step uint32, n int) []string {
	k := make([]string, n)
	for i := range k {
		a := base + uint32(i)*step
		k[i] = fmt.Sprintf("%d.%d.%d.%d", a>>24, a>>16&255, a>>8&255, a&255)
	}
	return k
}

// v6Keys are n addresses 2001:db8:L::i.
func v6Keys(label int, n int) []string {
	k := make([]string, n)
	for i := range k {
		k[i] = fmt.Sprintf("2001:db8:%x::%x", label, i+1)
	}
	return k
}

// encode gives a key's bytes as the library takes them for a key type
// (the text bfctl reads: hex for bytes keys, addresses for ip types).
func encode(t testing.TB, keyType, key string) []byte {
	t.Helper()
	switch keyType {
	case "str":
		return []byte(key)
	case "bytes":
		b, err := hex.DecodeString(key)
		if err != nil {
			t.Fatal(err)
		}
		return b
	case "ipv4", "ipv6", "ip":
		a := netip.MustParseAddr(key)
		return a.AsSlice()
	case "net4", "net6", "net":
		p := netip.MustParsePrefix(key)
		return append(p.Addr().AsSlice(), byte(p.Bits()))
	}
	t.Fatalf("no encoding for key type %s", keyType)
	return nil
}

// testAnswers are bfctl's answers for keys, in order: `bfctl -j VERB...
// [--key-format F] TARGET KEY...`, VERB test (TARGET a kernel filter) or
// image test (an image file), 2000 keys a run.
func testAnswers(t testing.TB, verb []string, target, keyFormat string, keys []string) []bool {
	t.Helper()
	var got []bool
	for len(keys) > 0 {
		n := len(keys)
		if n > 2000 {
			n = 2000
		}
		args := append(append([]string{"-j"}, verb...), fmtArgs(keyFormat)...)
		args = append(append(args, target), keys[:n]...)
		out := bfctl(t, []int{0, 1}, args...)
		var doc struct {
			Keys []struct {
				Present bool `json:"present"`
			} `json:"keys"`
		}
		if err := json.Unmarshal(out, &doc); err != nil {
			t.Fatalf("bfctl %s %s: %v: %.200s", strings.Join(verb, " "), target, err, out)
		}
		if len(doc.Keys) != n {
			t.Fatalf("bfctl answered %d keys of %d", len(doc.Keys), n)
		}
		for _, k := range doc.Keys {
			got = append(got, k.Present)
		}
		keys = keys[n:]
	}
	return got
}

// compare checks that the Go answers equal bfctl's, key by key.
func compare(t testing.TB, what string, keys []string, want, got []bool) {
	t.Helper()
	bad := 0
	for i := range keys {
		if want[i] != got[i] {
			if bad < 5 {
				t.Errorf("%s: key %q: Go says %v, bfctl %v", what, keys[i], got[i], want[i])
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d answers differ", what, bad, len(keys))
	}
}

// countTrue counts the true answers.
func countTrue(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}

// fmtArgs is bfctl's --key-format option for keyFormat, if any.
func fmtArgs(keyFormat string) []string {
	if keyFormat == "" {
		return nil
	}
	return []string{"--key-format", keyFormat}
}
