#!/usr/bin/env python3
"""Reference HTML-to-text speed: resiliparse's html2text (extract_plain_text) on real pages.

Takes the first N HTML pages of a WARC file, writes them to OUT (a .warc.gz, written with warcio)
so that neardup's criterion benchmark can run on exactly the same pages
(NEARDUP_BENCH_WARC=OUT cargo bench -p neardup-text --bench tokenize), then times resiliparse on
one core and prints MB/s of HTML.

Usage: html2text_ref.py WARC OUT [--pages N]
Needs: pip install warcio==1.8.1 resiliparse
"""
import argparse
import io
import time

from resiliparse.extract.html2text import extract_plain_text
from resiliparse.parse.html import HTMLTree
from warcio.archiveiterator import ArchiveIterator
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("warc")
    ap.add_argument("out")
    ap.add_argument("--pages", type=int, default=20000)
    a = ap.parse_args()
    pages = []
    with open(a.warc, "rb") as f:
        for rec in ArchiveIterator(f):
            if rec.rec_type != "response":
                continue
            ct = rec.http_headers.get_header("Content-Type", "") if rec.http_headers else ""
            if not ct.startswith("text/html"):
                continue
            pages.append((rec.rec_headers.get_header("WARC-Target-URI"), rec.content_stream().read()))
            if len(pages) >= a.pages:
                break
    with open(a.out, "wb") as f:
        w = WARCWriter(f, gzip=True)
        for url, body in pages:
            http = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1")
            w.write_record(w.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=http))
    total = sum(len(b) for _, b in pages)
    best = None
    for _ in range(3):
        t0 = time.perf_counter()
        chars = 0
        for _, body in pages:
            chars += len(extract_plain_text(HTMLTree.parse_from_bytes(body, "utf-8")))
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    print(f"resiliparse html2text: {len(pages)} pages, {total / 1e6:.1f} MB HTML, best of 3: {best:.2f} s, "
          f"{total / 1e6 / best:.1f} MB/s on one core ({total / 2**20 / best:.1f} MiB/s)")


if __name__ == "__main__":
    main()
