#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A crawler's seen-URL check against a kbloom filter.

Reads candidate URLs (one a line, from the files given or stdin) and
prints "fetch URL" for those not seen yet and "skip URL" for those the
filter says it has (maybe) seen: a false positive skips a new URL now and
then, at the filter's rate, and a seen URL is never fetched twice.

  crawler.py --filter seen --write urls.txt   # test_and_add: the crawler
                                              # that owns the seen set
  crawler.py --filter seen urls.txt           # test: a reader (a fleet of
                                              # workers sharing one set)
  crawler.py --image seen.img urls.txt        # an image file, no kernel

The filter is a str filter made for it, e.g.
  bfctl create seen blocked --items 10000000 --fpr 0.001 --key-type str \\
      --writers crawler
URLs are keys as they are (normalise them first in a real crawler).
Lookups are a memory read each, not a system call: test() on a mapping,
and, for a writer, one test_and_add() per URL, so that two crawlers
never both fetch a URL.  Batches (test_many) go through one call.
"""

import argparse
import fileinput
import sys

import kbloom


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--filter", help="the kernel filter's name")
    src.add_argument("--image", help="a kbloom image file instead")
    ap.add_argument("--write", action="store_true",
                    help="mark fetched URLs seen (test_and_add; needs a writer's grant)")
    ap.add_argument("--batch", type=int, default=0, metavar="N",
                    help="readers: look N URLs up per call (test_many)")
    ap.add_argument("files", nargs="*", help="URL lists (default: stdin)")
    args = ap.parse_args()
    if args.write and args.image:
        ap.error("--write needs --filter: an image is read-only")

    try:
        if args.image:
            seen = kbloom.Filter.from_image(args.image)
        else:
            seen = kbloom.Filter(args.filter, write=args.write)
    except OSError as e:
        print("crawler: %s" % e, file=sys.stderr)
        return 3

    fetched = 0
    with seen:
        urls = (line.strip() for line in fileinput.input(args.files))
        urls = [u for u in urls if u]
        if args.write:
            # one call: tests and marks, so a URL is fetched once
            answers = [seen.test_and_add(u) for u in urls]
        elif args.batch > 0:
            answers = []
            for i in range(0, len(urls), args.batch):
                answers += seen.test_many(urls[i:i + args.batch])
        else:
            answers = [u in seen for u in urls]
        for url, was_seen in zip(urls, answers):
            print("%s %s" % ("skip" if was_seen else "fetch", url))
            fetched += not was_seen
    print("crawler: %d to fetch, %d skipped" % (fetched, len(urls) - fetched),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
