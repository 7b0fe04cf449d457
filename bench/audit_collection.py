#!/usr/bin/env python3
"""A WARC collection with known faults for `neardup audit` (issue 40), written by warcio, and
its truth (truth.json).

Two crawls of three hosts, each crawl a .warc.gz:

  archive.example   40 article pages; the second crawl stores 30 unchanged ones as revisits
                    (identical-payload-digest, with WARC-Refers-To, -Target-URI and -Date) and
                    10 changed ones in full; a logo fetched 151 times: one response and 150
                    revisits of it (a long chain); a page revisited through a revisit (a
                    revisit-of-revisit link, depth 2).
  lost.example      revisits whose original is in no file of the collection: by record id only
                    (as GNU Wget writes them), by target URI and date only, by digest only.
  cdn.example       a style sheet stored in full in both crawls and 4 more times under the
                    same URL; a script stored in full under 4 URLs; one payload stored twice
                    but with a revisit-able copy under a redirect (not counted: a 301 body).
  mirror.example    20 pages in 10 pairs of near-duplicates (two words apart).
  unique.example    20 pages unlike any other.

Every revisit also carries WARC-Payload-Digest. Six revisits lack WARC-Refers-To-Target-URI
and -Date (the Wget-style ones, resolvable or not).

Usage: audit_collection.py --out DIR [--seed 1]
"""
import argparse
import base64
import hashlib
import io
import json
import random
import uuid
from pathlib import Path

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

PROFILE = "http://netpreserve.org/warc/1.0/revisit/identical-payload-digest"


def digest(payload):
    return "sha1:" + base64.b32encode(hashlib.sha1(payload).digest()).decode()


class Crawl:
    def __init__(self, path, date):
        self.f = open(path, "wb")
        self.w = WARCWriter(self.f, gzip=True)
        self.date = date
        self.second = 0

    def stamp(self):
        self.second += 1
        return f"{self.date}T00:{self.second // 60 % 60:02d}:{self.second % 60:02d}Z"

    def response(self, url, payload, ctype="text/html", status="200 OK"):
        rid = f"<urn:uuid:{uuid.UUID(int=random.getrandbits(128))}>"
        date = self.stamp()
        http = StatusAndHeaders(status, [("Content-Type", ctype),
                                         ("Content-Length", str(len(payload)))],
                                protocol="HTTP/1.1")
        rec = self.w.create_warc_record(url, "response", payload=io.BytesIO(payload),
                                        http_headers=http,
                                        warc_headers_dict={"WARC-Date": date,
                                                           "WARC-Record-ID": rid})
        self.w.write_record(rec)
        return {"id": rid, "url": url, "date": date, "digest": digest(payload)}

    def revisit(self, url, payload_digest, refers=None, target=None, when=None):
        rid = f"<urn:uuid:{uuid.UUID(int=random.getrandbits(128))}>"
        headers = {"WARC-Date": self.stamp(), "WARC-Record-ID": rid,
                   "WARC-Profile": PROFILE, "WARC-Payload-Digest": payload_digest}
        if refers:
            headers["WARC-Refers-To"] = refers
        if target:
            headers["WARC-Refers-To-Target-URI"] = target
        if when:
            headers["WARC-Refers-To-Date"] = when
        http = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
        rec = self.w.create_warc_record(url, "revisit", http_headers=http,
                                        warc_headers_dict=headers)
        self.w.write_record(rec)
        return {"id": rid, "url": url}

    def close(self):
        self.f.close()


def page(title, words):
    return (f"<!DOCTYPE html><html><head><title>{title}</title></head><body><h1>{title}</h1>"
            f"<p>{' '.join(words)}</p></body></html>").encode()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    random.seed(args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    vocab = [f"{a}{b}{c}" for a in "bdfgklmnprstv" for b in "aeiou" for c in "lmnrst"]
    words = lambda n: [random.choice(vocab) for _ in range(n)]
    truth = {"unresolvable": [], "missing_headers": 0, "longest_chain": 151 - 1, "deepest": 2,
             "bytes_saved_same_url": 0, "bytes_saved_any_url": 0, "repeated": 0,
             "hosts": {}}

    one = Crawl(out / "crawl1.warc.gz", "2026-01-01")
    two = Crawl(out / "crawl2.warc.gz", "2026-02-01")
    # archive.example: articles, half revisited.
    articles = [page(f"Article {i}", words(300)) for i in range(40)]
    firsts = [one.response(f"https://archive.example/a/{i}", p) for i, p in enumerate(articles)]
    for i, (p, f) in enumerate(zip(articles, firsts)):
        if i < 30:
            two.revisit(f["url"], f["digest"], f["id"], f["url"], f["date"])
        else:
            two.response(f["url"], page(f"Article {i}", words(300)))
    # A logo fetched 151 times: one response, 150 revisits (both crawls).
    logo = bytes(range(256)) * 8
    orig = one.response("https://archive.example/logo.png", logo, "image/png")
    for k in range(150):
        c = one if k < 75 else two
        c.revisit(orig["url"], orig["digest"], orig["id"], orig["url"], orig["date"])
    # A revisit of a revisit (Refers-To names the first revisit; no target URI or date).
    about = page("About", words(200))
    a0 = one.response("https://archive.example/about", about)
    a1 = two.revisit(a0["url"], a0["digest"], a0["id"], a0["url"], a0["date"])
    two.revisit(a0["url"], a0["digest"], a1["id"])
    truth["missing_headers"] += 1
    # lost.example: originals in no file.
    for k in range(3):
        url = f"https://lost.example/p{k}"
        d = digest(page(url, words(50)))
        gone = f"<urn:uuid:{uuid.UUID(int=random.getrandbits(128))}>"
        r = two.revisit(url, d, gone)
        truth["unresolvable"].append(url)
        truth["missing_headers"] += 1
    for k in range(3, 5):
        url = f"https://lost.example/p{k}"
        r = two.revisit(url, digest(page(url, words(50))), None, url, "2025-12-01T00:00:00Z")
        truth["unresolvable"].append(url)
    url = "https://lost.example/p5"
    two.revisit(url, digest(page(url, words(50))))
    truth["unresolvable"].append(url)
    truth["missing_headers"] += 1
    # Two Wget-style revisits that resolve by record id (no target URI or date).
    for i in range(30, 32):
        f = firsts[i]
        two.revisit(f["url"], f["digest"], f["id"])
        truth["missing_headers"] += 1
    # cdn.example: repeated payloads.
    css = ("body { color: #333; } " * 200).encode()
    for c in (one, two, one, two, one, two):
        c.response("https://cdn.example/site.css", css, "text/css")
    js = ("function f(x) { return x + 1; } " * 150).encode()
    for k in range(4):
        one.response(f"https://cdn.example/v{k}/lib.js", js, "application/javascript")
    truth["repeated"] += 2
    truth["bytes_saved_same_url"] += 5 * len(css)
    truth["bytes_saved_any_url"] += 5 * len(css) + 3 * len(js)
    # Article payloads stored twice? None: the second crawl revisits them. The about page:
    # stored once. The logo: once.
    # mirror.example: near-duplicate pairs.
    for k in range(10):
        base = words(300)
        other = list(base)
        other[17], other[211] = "zzzalpha", "zzzbeta"
        one.response(f"https://mirror.example/x/{k}", page(f"Doc {k}", base))
        one.response(f"https://mirror.example/y/{k}", page(f"Doc {k}", other))
    for k in range(20):
        one.response(f"https://unique.example/{k}", page(f"Unique {k}", words(300)))
    one.close()
    two.close()
    truth["hosts"] = {"mirror.example": {"pages": 20, "near_duplicate": 20},
                      "unique.example": {"pages": 20, "near_duplicate": 0},
                      "archive.example": {"pages": 51, "near_duplicate": 0}}
    truth["revisits"] = 30 + 150 + 2 + 6 + 2
    (out / "truth.json").write_text(json.dumps(truth, indent=1))
    print(f"wrote {out}/crawl1.warc.gz, crawl2.warc.gz, truth.json")


if __name__ == "__main__":
    main()
