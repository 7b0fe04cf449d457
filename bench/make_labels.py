#!/usr/bin/env python3
"""Builds a labelled development set for `neardup eval` from a crawl of the development data
(default: the committed sample, data/sample/*.warc.gz), as issue 4 asks:

* version pairs: the same rustdoc path in two versions, labelled 1 when the exact Jaccard of
  their word 5-gram sets is >= 0.8, else 0 (kind "version"; the Jaccard is written along);
* altered pairs, made the ways Henzinger (2006, section 3.1) lists correct near-duplicates: two
  copies of a page that differ only by a session id, a timestamp, a visitor count, an execution
  time (same site, URLs differ by a query), or by the URL itself included in the text and served
  from two other hosts (kinds "session-id", "timestamp", "visitor-count", "execution-time",
  "url-only"); label 1;
* same-template negatives: two pages of one version, one folder and one rustdoc page type
  (struct.*, fn.*, trait.*, ...) whose main item differs (exact Jaccard < 0.5); label 0.

Writes OUT/labels.csv (url_a,url_b,label,kind,jaccard) and OUT/altered.warc.gz (the altered
copies, written with warcio). Deterministic for a given --seed.

Usage: python3 bench/make_labels.py [--crawl DIR] [--out DIR] [--per-kind N] [--seed S]
"""
import argparse
import csv
import glob
import html
import io
import os
import random
import re

from warcio.archiveiterator import ArchiveIterator
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

TOKEN = re.compile(r"[^\W_]+")
TAGS = re.compile(r"<script.*?</script>|<style.*?</style>|<[^>]*>", re.S | re.I)


def tokens(page_html):
    text = html.unescape(TAGS.sub(" ", page_html))
    return TOKEN.findall(text.lower())


def shingles(toks, k=5):
    if len(toks) < k:
        return {" ".join(toks)} if toks else set()
    return {" ".join(toks[i:i + k]) for i in range(len(toks) - k + 1)}


def jaccard(a, b):
    u = len(a | b)
    return len(a & b) / u if u else 0.0


REFRESH = re.compile(r"<meta[^>]+http-equiv=[\"']?refresh", re.I)


def read_pages(crawl):
    pages = {}
    for path in sorted(glob.glob(os.path.join(crawl, "*.warc.gz"))):
        with open(path, "rb") as f:
            for rec in ArchiveIterator(f):
                if rec.rec_type != "response" or not rec.http_headers:
                    continue
                if not rec.http_headers.get_header("Content-Type", "").startswith("text/html"):
                    continue
                if rec.http_headers.get_statuscode() != "200":
                    continue
                body = rec.content_stream().read().decode("utf-8", "replace")
                # Redirect stubs (rustdoc writes thousands) are not pages: neardup counts them
                # apart and never clusters them, so they are not labelled either.
                if REFRESH.search(body):
                    continue
                pages[rec.rec_headers.get_header("WARC-Target-URI")] = body
    return pages


def insert(page_html, snippet):
    i = page_html.lower().rfind("</body>")
    return page_html[:i] + snippet + page_html[i:] if i >= 0 else page_html + snippet


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crawl", default="data/sample")
    ap.add_argument("--out", default="target/labels")
    ap.add_argument("--per-kind", type=int, default=40)
    ap.add_argument("--seed", type=int, default=2006)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)
    pages = read_pages(a.crawl)
    sets = {u: shingles(tokens(h)) for u, h in pages.items()}
    rows = []

    # Version pairs: https://doc.rust-lang.org/<version>/<path>
    by_path = {}
    for u in pages:
        m = re.match(r"https://doc\.rust-lang\.org/([^/]+)/(.*)", u)
        if m:
            by_path.setdefault(m.group(2), []).append(u)
    for path in sorted(by_path):
        us = sorted(by_path[path])
        for i in range(len(us)):
            for j in range(i + 1, len(us)):
                jac = jaccard(sets[us[i]], sets[us[j]])
                rows.append((us[i], us[j], int(jac >= 0.8), "version", round(jac, 4)))

    # Altered pairs.
    candidates = sorted(u for u in pages if len(tokens(pages[u])) >= 50)
    rng.shuffle(candidates)
    altered = []
    makers = {
        "session-id": lambda: '<p>Session <a href="?sid=%032x">%032x</a></p>' % ((rng.getrandbits(128),) * 2),
        "timestamp": lambda: "<p>Generated %04d-%02d-%02d %02d:%02d:%02d UTC</p>" % (
            rng.randint(2020, 2026), rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59)),
        "visitor-count": lambda: "<p>You are visitor number %d</p>" % rng.randint(1000, 999999),
        "execution-time": lambda: "<p>Page generated in %.4f seconds</p>" % rng.uniform(0.001, 2.0),
    }
    pick = iter(candidates)
    for kind, make in makers.items():
        for _ in range(a.per_kind):
            u = next(pick)
            ua, ub = u + "?v=a", u + "?v=b"
            altered.append((ua, insert(pages[u], make())))
            altered.append((ub, insert(pages[u], make())))
            rows.append((ua, ub, 1, kind, ""))
    for _ in range(a.per_kind):
        u = next(pick)
        path = u.split("/", 3)[3]
        ua, ub = "https://mirror-one.example.net/" + path, "https://mirror-two.example.com/" + path
        altered.append((ua, insert(pages[u], "<p>%s</p>" % ua)))
        altered.append((ub, insert(pages[u], "<p>%s</p>" % ub)))
        rows.append((ua, ub, 1, "url-only", ""))

    # Same-template negatives: one version, one folder, one page type, different main item.
    groups = {}
    for u in pages:
        m = re.match(r"(https://doc\.rust-lang\.org/[^/]+/.*/)(struct|fn|trait|enum|macro|type|constant)\.[^/]+\.html$", u)
        if m:
            groups.setdefault((m.group(1), m.group(2)), []).append(u)
    negatives = []
    for key in sorted(groups):
        us = sorted(groups[key])
        for i in range(len(us) - 1):
            jac = jaccard(sets[us[i]], sets[us[i + 1]])
            if jac < 0.5:
                negatives.append((us[i], us[i + 1], 0, "same-template", round(jac, 4)))
    rng.shuffle(negatives)
    rows.extend(sorted(negatives[: a.per_kind * 3]))

    with open(os.path.join(a.out, "labels.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["url_a", "url_b", "label", "kind", "jaccard"])
        w.writerows(rows)
    with open(os.path.join(a.out, "altered.warc.gz"), "wb") as f:
        w = WARCWriter(f, gzip=True)
        for url, body in altered:
            http = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1")
            w.write_record(w.create_warc_record(url, "response", payload=io.BytesIO(body.encode("utf-8")), http_headers=http))
    kinds = {}
    for r in rows:
        kinds.setdefault(r[3], [0, 0])[r[2]] += 1
    print("wrote %d labelled pairs (%s) and %d altered pages to %s" % (
        len(rows), ", ".join("%s: %d pos / %d neg" % (k, v[1], v[0]) for k, v in sorted(kinds.items())), len(altered), a.out))


if __name__ == "__main__":
    main()
