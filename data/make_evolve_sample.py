#!/usr/bin/env python3
"""Build data/evolve-sample/: three crawls of one URL space for `neardup evolve`.

Input: the folder written by `../shared/datasets/build-dev-crawl.py --out DIR --same-urls` (the
Rust documentation of 1.63.0, stable and nightly, all published under
https://doc.rust-lang.org/stable/). A random sample of paths would hold almost no near-duplicates,
so the sample is chosen around rustdoc's re-exports: paths under core/ and alloc/ whose std/
counterpart exists (the same item published twice: real near-duplicate clusters), both sides
kept, plus random other paths. The same paths are kept in every version where they exist, so
pages appear, vanish, change and move between clusters as the real site did.

Records are read and written with warcio (third-party), one gzip member each, in the order of
the source file; the warcinfo record and the site's non-HTML files are kept too.

Usage: python3 data/make_evolve_sample.py --src DIR [--out data/evolve-sample] [--seed 7]
"""
import argparse
import os
import random

from warcio.archiveiterator import ArchiveIterator
from warcio.warcwriter import WARCWriter

VERSIONS = [("1.63.0", "2022-08"), ("stable", "2026-05"), ("nightly", "2026-07")]
BASE = "https://doc.rust-lang.org/stable/"


def html_paths(path):
    out = set()
    with open(path, "rb") as f:
        for rec in ArchiveIterator(f):
            if rec.rec_type != "response":
                continue
            url = rec.rec_headers.get_header("WARC-Target-URI")
            if url.startswith(BASE) and url.endswith(".html"):
                out.add(url[len(BASE):])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", required=True)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "evolve-sample"))
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--reexports", type=int, default=60, help="core/ paths with a std/ twin")
    ap.add_argument("--alloc", type=int, default=20, help="alloc/ paths with a std/ twin")
    ap.add_argument("--others", type=int, default=100, help="random other paths")
    args = ap.parse_args()
    paths = {v: html_paths(os.path.join(args.src, f"rustdocs-{v}.warc.gz")) for v, _ in VERSIONS}
    union = sorted(set().union(*paths.values()))
    rng = random.Random(args.seed)

    def twins(prefix):
        return sorted(p for p in union if p.startswith(prefix) and "std/" + p[len(prefix):] in union
                      and p.count("/") >= 2)

    keep = set()
    for prefix, n in (("core/", args.reexports), ("alloc/", args.alloc)):
        t = twins(prefix)
        for p in rng.sample(t, min(n, len(t))):
            keep.add(p)
            keep.add("std/" + p[len(prefix):])
    rest = [p for p in union if p not in keep]
    keep.update(rng.sample(rest, min(args.others, len(rest))))
    os.makedirs(args.out, exist_ok=True)
    for v, date in VERSIONS:
        src = os.path.join(args.src, f"rustdocs-{v}.warc.gz")
        dst = os.path.join(args.out, f"{date}-rustdocs-{v}.warc.gz")
        n = 0
        with open(src, "rb") as f, open(dst + ".tmp", "wb") as o:
            w = WARCWriter(o, gzip=True)
            extras = 0
            for rec in ArchiveIterator(f):
                url = rec.rec_headers.get_header("WARC-Target-URI") or ""
                rel = url[len(BASE):] if url.startswith(BASE) else ""
                if rec.rec_type == "warcinfo":
                    pass
                elif rec.rec_type == "response" and rel in keep:
                    n += 1
                elif rec.rec_type == "response" and rel.startswith("static.files/") and extras < 3:
                    extras += 1
                else:
                    continue
                w.write_record(rec)
        os.replace(dst + ".tmp", dst)
        print(f"{dst}: {n} pages, {os.path.getsize(dst)} bytes")


if __name__ == "__main__":
    main()
