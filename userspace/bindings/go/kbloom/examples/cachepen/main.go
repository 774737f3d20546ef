// SPDX-License-Identifier: GPL-2.0

// Command cachepen guards a database against cache penetration: a
// lookup of a key that was never stored (a scraper walking ids, a
// client retrying a deleted one) is answered "not found" by a Bloom
// filter of every stored key, without a database query.
//
// go-zero services do this with core/bloom over Redis: one round trip
// to Redis per Exists.  Here the same filter is followed by every host's
// kernel and tested in the process's own memory:
//
//  1. The service that writes the database keeps adding each new key to
//     go-zero's filter in Redis, as before (bloom.New(store, "users",
//     1<<20).Add([]byte(key))).
//
//  2. Every host of the fleet follows that Redis key into a kernel
//     filter, with bfctl (see bfctl(8), REDIS):
//
//     bfctl redis watch users users --server redis://cache:6379/0 \
//     --create --bits 1048576 --key-type str --enable-events
//
//     (or systemctl enable --now bfctl-redis-watch@users).  With
//     Redis's keyspace events on, a change reaches the kernel within a
//     fraction of a second; the filter is replaced atomically.
//
//  3. The filter is granted to the service's group, so that the service
//     needs no CAP_NET_ADMIN: bfctl grant users --readers cachepen.
//
//  4. The service opens it (kbloom.Open("users")) and asks it before
//     every database lookup.  Exists reads the mapped filter: no Redis
//     round trip, no system call; libkbloom follows each upload by
//     itself.
//
// The answers are go-zero's: a gozero filter probes go-zero's bit
// offsets, and bfctl redis watch copies go-zero's bits.  A false
// positive (about the rate the filter was sized for) costs one
// database query, as with go-zero; a false negative cannot happen for a
// key that reached the filter.  If the filter cannot be read (not yet
// created, destroyed), the guard fails open: it asks the database.
//
// This example reads keys, one a line, from stdin and prints what the
// guarded lookup found; its "database" is a file of key=value lines:
//
//	cachepen -filter users -db users.txt < requests
//	cachepen -image users.img -db users.txt < requests
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"

	"kbloom.dev/kbloom"
)

// errNotFound is a lookup's answer for a key the database does not hold.
var errNotFound = errors.New("not found")

// database stands for the real one: every Get costs a query.
type database struct {
	rows    map[string]string
	queries int
}

func (d *database) Get(key string) (string, error) {
	d.queries++
	if v, ok := d.rows[key]; ok {
		return v, nil
	}
	return "", errNotFound
}

// guard answers from the filter what the database cannot hold.
type guard struct {
	filter  *kbloom.Filter
	db      *database
	skipped int // database queries the filter saved
}

func (g *guard) Get(key string) (string, error) {
	ok, err := g.filter.Exists([]byte(key))
	if err != nil {
		// fail open: a missing filter must not hide rows
		log.Printf("cachepen: %v; asking the database", err)
	} else if !ok {
		g.skipped++
		return "", errNotFound
	}
	return g.db.Get(key)
}

func loadDB(path string) (*database, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	db := &database{rows: map[string]string{}}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			db.rows[k] = v
		}
	}
	return db, nil
}

func main() {
	name := flag.String("filter", "", "the kernel filter to open")
	image := flag.String("image", "", "an image file to map instead (bfctl image build)")
	dbPath := flag.String("db", "", "the database: key=value lines")
	flag.Parse()
	if (*name == "") == (*image == "") || *dbPath == "" {
		fmt.Fprintln(os.Stderr, "usage: cachepen -filter NAME | -image IMG -db FILE < keys")
		os.Exit(2)
	}
	db, err := loadDB(*dbPath)
	if err != nil {
		log.Fatal(err)
	}
	var f *kbloom.Filter
	if *name != "" {
		f, err = kbloom.Open(*name)
	} else {
		f, err = kbloom.OpenImage(*image)
	}
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()

	g := &guard{filter: f, db: db}
	in := bufio.NewScanner(os.Stdin)
	n := 0
	for in.Scan() {
		key := in.Text()
		n++
		v, err := g.Get(key)
		switch {
		case err == nil:
			fmt.Printf("%s: %s\n", key, v)
		case errors.Is(err, errNotFound):
			fmt.Printf("%s: not found\n", key)
		default:
			log.Fatal(err)
		}
	}
	fmt.Printf("%d lookups, %d database queries, %d answered by the filter\n",
		n, db.queries, g.skipped)
}
