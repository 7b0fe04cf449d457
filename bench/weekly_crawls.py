#!/usr/bin/env python3
"""Weekly crawls of one URL space with known changes (issue 40): WARC files written by warcio,
and the truth, one JSON line per URL visit: how the page changed since the week before.

Every URL is an article page of one of a few hosts: a site template (navigation, footer), a
date line and a view counter, and an article of 150 to 3,000 words drawn from a vocabulary
(the words of the committed sample crawl when given, else a fixed synthetic one). Each page
changes at the pace of its class (static 60%, weekly 25%, hot 15%: see CLASSES). Each week,
each page either stays as it is or changes in exactly one way:

  unchanged         the same bytes
  markup-only       other markup (class names, attributes, whitespace), the same text
  dates-only        the date line, a time and the view counter change
  few-words         one to three words of a long article (at least 600 words) change
  large-edit        whole paragraphs rewritten: 30% to 60% of the article's words
  content-replaced  a new article under the same template
  gone              404 (and stays gone)
  moved             301 to another URL (and stays moved)

A page whose date line changes with its text is labelled by its text change.

Usage: weekly_crawls.py --out DIR [--urls 400] [--weeks 4] [--seed 1] [--vocab-from WARC...]
Writes DIR/week1.warc.gz ... and DIR/truth.jsonl.
"""
import argparse
import io
import json
import random
import re
from pathlib import Path

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

CATEGORIES = ["unchanged", "markup-only", "dates-only", "few-words", "large-edit",
              "content-replaced", "gone", "moved"]
# Pages change at their own pace: each URL is of one class (its share of the URLs), with the
# chances of each change from one week to the next. About three URL visits in four see no text
# change, as on real weekly crawls; a static page's text changes once in fifty weeks.
CLASSES = {
    "static": (0.60, [0.70, 0.12, 0.15, 0.01, 0.005, 0.005, 0.005, 0.005]),
    "weekly": (0.25, [0.30, 0.05, 0.10, 0.25, 0.15, 0.10, 0.025, 0.025]),
    "hot": (0.15, [0.05, 0.02, 0.08, 0.35, 0.30, 0.17, 0.015, 0.015]),
}
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]


def vocabulary(warcs, rng):
    words = set()
    if warcs:
        from warcio.archiveiterator import ArchiveIterator
        for path in warcs:
            with open(path, "rb") as f:
                for rec in ArchiveIterator(f):
                    if rec.rec_type == "response":
                        text = rec.content_stream().read().decode("utf-8", "replace")
                        words.update(re.findall(r"\b[a-z]{3,12}\b", re.sub(r"<[^>]*>", " ", text)))
    if len(words) < 2000:
        syll = ["ka", "lo", "mi", "ne", "ru", "ta", "ve", "so", "pi", "du", "fe", "gra", "tor",
                "lin", "mar", "pes", "qui", "ban", "cel", "dor"]
        while len(words) < 4000:
            words.add("".join(rng.choice(syll) for _ in range(rng.randint(2, 4))))
    return sorted(w for w in words if not any(m.lower() == w for m in MONTHS))


class Page:
    def __init__(self, rng, vocab, host, path):
        self.rng, self.vocab, self.host, self.path = rng, vocab, host, path
        self.paragraphs = self.article(rng.choice([150, 400, 800, 1500, 3000]))
        self.klass = "article"
        self.day = rng.randint(1, 28)
        self.month = rng.randrange(12)
        self.hour = rng.randint(0, 23)
        self.minute = rng.randint(0, 59)
        self.views = rng.randint(10, 90000)
        self.status = 200
        names = list(CLASSES)
        self.pace = rng.choices(names, [CLASSES[n][0] for n in names])[0]

    def article(self, words):
        out, left = [], words
        while left > 0:
            n = min(left, self.rng.randint(40, 90))
            if left - n < 20:  # no paragraph of a few words
                n = left
            out.append([self.rng.choice(self.vocab) for _ in range(n)])
            left -= n
        return out

    def words(self):
        return sum(len(p) for p in self.paragraphs)

    def html(self):
        paras = "\n".join("<p>%s</p>" % " ".join(p) for p in self.paragraphs)
        return ("<html><head><title>%s %s</title></head><body class=\"%s\">"
                "<nav><a href=\"/\">home</a> <a href=\"/about\">about</a> <a href=\"/news\">news"
                "</a> archive contact</nav><div class=\"meta\">Updated %s %d, 2026 %02d:%02d "
                "&middot; %s views</div><main>%s</main><footer>copyright %s all rights "
                "reserved privacy terms</footer></body></html>" % (
                    self.host, self.path, self.klass, MONTHS[self.month], self.day, self.hour,
                    self.minute, f"{self.views:,}", paras, self.host)).encode()

    def change(self, category):
        rng = self.rng
        if category == "markup-only":
            self.klass = rng.choice([k for k in ["article", "article wide", "post", "story main",
                                                 "entry"] if k != self.klass])
        elif category == "dates-only":
            self.day = self.day % 28 + 1
            self.hour = (self.hour + rng.randint(1, 5)) % 24
            self.minute = rng.randint(0, 59)
            self.views += rng.randint(1, 5000)
        elif category == "few-words":
            for _ in range(rng.randint(1, 3)):
                p = rng.choice(self.paragraphs)
                p[rng.randrange(len(p))] = rng.choice(self.vocab) + "x"
        elif category == "large-edit":
            # Whole paragraphs rewritten until 30% to 60% of the words are new.
            goal = rng.uniform(0.3, 0.6) * self.words()
            done = 0
            for i in rng.sample(range(len(self.paragraphs)), len(self.paragraphs)):
                if done >= goal or done + len(self.paragraphs[i]) > 0.6 * self.words():
                    continue
                done += len(self.paragraphs[i])
                self.paragraphs[i] = [rng.choice(self.vocab) for _ in self.paragraphs[i]]
        elif category == "content-replaced":
            self.paragraphs = self.article(rng.choice([400, 800, 1500, 3000]))
        elif category == "gone":
            self.status = 404
        elif category == "moved":
            self.status = 301
        if category in ("few-words", "large-edit", "content-replaced"):
            self.day = self.day % 28 + 1  # an edited article shows a new date too


def possible(page):
    if page.status != 200:
        return ["gone"] if page.status == 404 else ["moved"]
    out = list(CATEGORIES)
    if page.words() < 600:
        out.remove("few-words")
    if len(page.paragraphs) < 3:
        out.remove("large-edit")
    return out


def record(writer, url, page, date):
    if page.status == 404:
        status, headers, body = "404 Not Found", [("Content-Type", "text/html")], \
            b"<html><body>not found</body></html>"
    elif page.status == 301:
        status, headers, body = "301 Moved Permanently", [
            ("Location", url + "-new"), ("Content-Type", "text/html")], b""
    else:
        status, headers, body = "200 OK", [("Content-Type", "text/html; charset=utf-8")], \
            page.html()
    http = StatusAndHeaders(status, headers, protocol="HTTP/1.1")
    writer.write_record(writer.create_warc_record(
        url, "response", payload=io.BytesIO(body), http_headers=http,
        warc_headers_dict={"WARC-Date": date}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--urls", type=int, default=400)
    ap.add_argument("--weeks", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--vocab-from", nargs="*", default=[])
    ap.add_argument("--copies", type=float, default=0.0,
                    help="share of URLs served again, byte for byte, under mirror.example "
                         "(a stable cluster of two copies; their truth lines are the source's)")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    vocab = vocabulary(a.vocab_from, rng)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    hosts = ["news.example", "blog.example.org", "docs.example.net"]
    pages = {}
    for i in range(a.urls):
        host = hosts[i % len(hosts)]
        url = "https://%s/articles/%d" % (host, i)
        pages[url] = Page(rng, vocab, host, "/articles/%d" % i)
    # Copies are drawn from their own generator: without --copies the crawls are unchanged.
    pick = random.Random(a.seed + 1)
    copies = {url: url.replace("https://%s/" % page.host, "https://mirror.example/", 1)
              for url, page in pages.items() if pick.random() < a.copies}
    truth = []
    for week in range(1, a.weeks + 1):
        date = "2026-%02d-%02dT10:00:00Z" % (1 + (week * 7) // 28, 1 + (week * 7) % 28)
        with open(out / ("week%d.warc.gz" % week), "wb") as f:
            writer = WARCWriter(f, gzip=True)
            for url, page in pages.items():
                if week > 1:
                    choices = possible(page)
                    pace = CLASSES[page.pace][1]
                    weights = [pace[CATEGORIES.index(c)] for c in choices]
                    category = rng.choices(choices, weights)[0]
                    page.change(category)
                    truth.append({"url": url, "week": week, "date": date, "change": category,
                                  "pace": page.pace})
                    if url in copies:
                        truth.append({"url": copies[url], "week": week, "date": date,
                                      "change": category, "pace": page.pace, "copy_of": url})
                record(writer, url, page, date)
                if url in copies:
                    record(writer, copies[url], page, date)
    with open(out / "truth.jsonl", "w") as f:
        for t in truth:
            f.write(json.dumps(t) + "\n")
    print("wrote %d weeks of %d URLs to %s (%d visits labelled)" % (a.weeks, a.urls, out,
                                                                  len(truth)))


if __name__ == "__main__":
    main()
