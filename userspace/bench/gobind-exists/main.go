// SPDX-License-Identifier: GPL-2.0

// gobind-exists: make bench-app's Go binding side.  The Go binding's
// Exists (userspace/bindings/go/kbloom) as an application calls
// go-zero's: one call per key from one goroutine, here on an image file
// mapped by libkbloom (OpenImage).  The keys (hex, one a line on stdin)
// are tested once to warm, then ROUNDS times, the fastest round counting.
// Prints one line:
//
//	KEYS HITS NS_PER_KEY
//
//	gobind-exists IMAGE [ROUNDS] < KEYS.hex
package main

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"time"

	"kbloom.dev/kbloom"
)

func die(f string, a ...interface{}) {
	fmt.Fprintf(os.Stderr, "gobind-exists: "+f+"\n", a...)
	os.Exit(1)
}

func pass(f *kbloom.Filter, keys [][]byte) int {
	hits := 0
	for _, k := range keys {
		ok, err := f.Exists(k)
		if err != nil {
			die("%v", err)
		}
		if ok {
			hits++
		}
	}
	return hits
}

func main() {
	if len(os.Args) < 2 || len(os.Args) > 3 {
		die("usage: gobind-exists IMAGE [ROUNDS] < KEYS.hex")
	}
	rounds := 7
	if len(os.Args) == 3 {
		r, err := strconv.Atoi(os.Args[2])
		if err != nil || r < 1 {
			die("bad rounds %q", os.Args[2])
		}
		rounds = r
	}
	var keys [][]byte
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		k, err := hex.DecodeString(sc.Text())
		if err != nil {
			die("bad hex key %q", sc.Text())
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		die("no keys")
	}
	f, err := kbloom.OpenImage(os.Args[1])
	if err != nil {
		die("%v", err)
	}
	defer f.Close()
	hits := pass(f, keys)
	best := time.Duration(1 << 62)
	for r := 0; r < rounds; r++ {
		t0 := time.Now()
		if pass(f, keys) != hits {
			die("a read-only image answered otherwise")
		}
		if t := time.Since(t0); t < best {
			best = t
		}
	}
	fmt.Printf("%d %d %.2f\n", len(keys), hits,
		float64(best.Nanoseconds())/float64(len(keys)))
}
