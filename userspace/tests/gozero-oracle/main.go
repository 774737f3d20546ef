// SPDX-License-Identifier: GPL-2.0

// gozero-oracle: go-zero's Redis bitmap Bloom filter (core/bloom), written
// here from its description, as the reference test-gozero-oracle checks
// kbloom's gozero kind against: offset i (i < 14) of a key is the first
// half of MurmurHash3_x64_128(key + byte(i)) modulo bits; Add sets the
// offsets and Exists reads them, each with one Lua script run by EVAL on
// a real Redis.  Keys are hex, one a line on stdin (an empty line is the
// empty key).
//
//	gozero-oracle offsets BITS              -> the 14 offsets of each key
//	gozero-oracle add SOCKET RKEY BITS      Add each key to bitmap RKEY
//	gozero-oracle exists SOCKET RKEY BITS   -> 1 or 0 for each key
//	gozero-oracle get SOCKET RKEY           -> the value's bytes, exactly
package main

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"

	"github.com/gomodule/redigo/redis"
	"github.com/spaolacci/murmur3"
)

const probes = 14

// KEYS[1] is the bitmap, ARGV the offsets
const setScript = `
for _, off in ipairs(ARGV) do
	redis.call("SETBIT", KEYS[1], off, 1)
end
`

const testScript = `
for _, off in ipairs(ARGV) do
	if tonumber(redis.call("GETBIT", KEYS[1], off)) == 0 then
		return false
	end
end
return true
`

func offsets(key []byte, bits uint64) []uint64 {
	out := make([]uint64, probes)
	for i := range out {
		d := make([]byte, len(key), len(key)+1)
		copy(d, key)
		h1, _ := murmur3.Sum128(append(d, byte(i)))
		out[i] = h1 % bits
	}
	return out
}

func die(f string, a ...interface{}) {
	fmt.Fprintf(os.Stderr, "gozero-oracle: "+f+"\n", a...)
	os.Exit(1)
}

func readKeys() [][]byte {
	var keys [][]byte
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		k, err := hex.DecodeString(sc.Text())
		if err != nil {
			die("bad hex key %q", sc.Text())
		}
		keys = append(keys, k)
	}
	if err := sc.Err(); err != nil {
		die("stdin: %v", err)
	}
	return keys
}

func parseBits(s string) uint64 {
	b, err := strconv.ParseUint(s, 10, 64)
	if err != nil || b == 0 {
		die("bad bits %q", s)
	}
	return b
}

// run the script over every key, pipelined; the replies in order
func eval(sock, rkey, script string, keys [][]byte, bits uint64) []interface{} {
	c, err := redis.Dial("unix", sock)
	if err != nil {
		die("redis %s: %v", sock, err)
	}
	defer c.Close()
	var replies []interface{}
	for start := 0; start < len(keys); start += 1000 {
		end := start + 1000
		if end > len(keys) {
			end = len(keys)
		}
		for _, k := range keys[start:end] {
			args := []interface{}{script, 1, rkey}
			for _, o := range offsets(k, bits) {
				args = append(args, o)
			}
			if err := c.Send("EVAL", args...); err != nil {
				die("EVAL: %v", err)
			}
		}
		if err := c.Flush(); err != nil {
			die("redis: %v", err)
		}
		for range keys[start:end] {
			r, err := c.Receive()
			if err != nil && err != redis.ErrNil {
				die("EVAL: %v", err)
			}
			replies = append(replies, r)
		}
	}
	return replies
}

func main() {
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	if len(os.Args) == 3 && os.Args[1] == "offsets" {
		bits := parseBits(os.Args[2])
		for _, k := range readKeys() {
			for i, o := range offsets(k, bits) {
				if i > 0 {
					w.WriteString(" ")
				}
				fmt.Fprint(w, o)
			}
			w.WriteString("\n")
		}
		return
	}
	if len(os.Args) == 4 && os.Args[1] == "get" {
		c, err := redis.Dial("unix", os.Args[2])
		if err != nil {
			die("redis %s: %v", os.Args[2], err)
		}
		v, err := redis.Bytes(c.Do("GET", os.Args[3]))
		if err != nil {
			die("GET: %v", err)
		}
		w.Write(v)
		return
	}
	if len(os.Args) != 5 {
		die("usage: offsets BITS | add|exists SOCKET RKEY BITS | get SOCKET RKEY")
	}
	bits := parseBits(os.Args[4])
	switch os.Args[1] {
	case "add":
		eval(os.Args[2], os.Args[3], setScript, readKeys(), bits)
	case "exists":
		for _, r := range eval(os.Args[2], os.Args[3], testScript, readKeys(), bits) {
			// Lua true is the integer 1, false a nil reply
			if v, ok := r.(int64); ok && v == 1 {
				w.WriteString("1\n")
			} else {
				w.WriteString("0\n")
			}
		}
	default:
		die("unknown command %q", os.Args[1])
	}
}
