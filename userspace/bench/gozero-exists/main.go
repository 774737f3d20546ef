// SPDX-License-Identifier: GPL-2.0

// gozero-exists: make bench-app's go-zero side.  go-zero's Exists
// (core/bloom) as an application calls it: one synchronous call per key
// from one goroutine, each the 14 offsets (the first half of
// MurmurHash3_x64_128(key + byte(i)) modulo bits) and one run of its
// GETBIT Lua script, by EVALSHA with EVAL on NOSCRIPT as go-zero's
// ScriptRun does (redigo's Script.Do does the same).  Then the same keys
// again with the script pipelined 1000 EVALs at a time, the figure
// make bench-gozero reports, which go-zero's API never does.  Keys are
// hex, one a line on stdin.  Prints one line:
//
//	KEYS HITS NS_PER_KEY_SYNC NS_PER_KEY_PIPELINED
//
//	gozero-exists SOCKET RKEY BITS < KEYS.hex
package main

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/spaolacci/murmur3"
)

const probes = 14

// go-zero's test script: KEYS[1] the bitmap, ARGV the offsets
const testScript = `
for _, off in ipairs(ARGV) do
	if tonumber(redis.call("GETBIT", KEYS[1], off)) == 0 then
		return false
	end
end
return true
`

func die(f string, a ...interface{}) {
	fmt.Fprintf(os.Stderr, "gozero-exists: "+f+"\n", a...)
	os.Exit(1)
}

// the script's arguments for key: the bitmap's name, then the offsets
// as decimal strings (go-zero's buildOffsetArgs)
func args(rkey string, key []byte, bits uint64) []interface{} {
	a := make([]interface{}, 1, 1+probes)
	a[0] = rkey
	d := make([]byte, len(key)+1)
	copy(d, key)
	for i := 0; i < probes; i++ {
		d[len(key)] = byte(i)
		h1, _ := murmur3.Sum128(d)
		a = append(a, strconv.FormatUint(h1%bits, 10))
	}
	return a
}

// Lua true is the integer 1, false a nil reply
func present(r interface{}, err error) bool {
	if err != nil && err != redis.ErrNil {
		die("script: %v", err)
	}
	v, ok := r.(int64)
	return ok && v == 1
}

func main() {
	if len(os.Args) != 4 {
		die("usage: gozero-exists SOCKET RKEY BITS < KEYS.hex")
	}
	sock, rkey := os.Args[1], os.Args[2]
	bits, err := strconv.ParseUint(os.Args[3], 10, 64)
	if err != nil || bits == 0 {
		die("bad bits %q", os.Args[3])
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
	c, err := redis.Dial("unix", sock)
	if err != nil {
		die("redis %s: %v", sock, err)
	}
	defer c.Close()
	script := redis.NewScript(1, testScript)

	// per key, synchronous: what an application's Exists costs
	hits := 0
	t0 := time.Now()
	for _, k := range keys {
		if present(script.Do(c, args(rkey, k, bits)...)) {
			hits++
		}
	}
	sync := time.Since(t0)

	// pipelined, 1000 EVALs a flush (make bench-gozero's figure)
	phits := 0
	t0 = time.Now()
	for start := 0; start < len(keys); start += 1000 {
		end := start + 1000
		if end > len(keys) {
			end = len(keys)
		}
		for _, k := range keys[start:end] {
			a := append([]interface{}{testScript, 1}, args(rkey, k, bits)...)
			if err := c.Send("EVAL", a...); err != nil {
				die("EVAL: %v", err)
			}
		}
		if err := c.Flush(); err != nil {
			die("redis: %v", err)
		}
		for range keys[start:end] {
			if present(c.Receive()) {
				phits++
			}
		}
	}
	pipe := time.Since(t0)
	if hits != phits {
		die("%d hits per key, %d pipelined", hits, phits)
	}
	n := int64(len(keys))
	fmt.Printf("%d %d %.1f %.1f\n", n, hits,
		float64(sync.Nanoseconds())/float64(n),
		float64(pipe.Nanoseconds())/float64(n))
}
