#!/usr/bin/env python3
"""Builds a labelled crawl with the near-duplicates the web really makes (issue 16), from real
Rust documentation pages: a WARC of every page and the labels that score `neardup dedup` and
`neardup mirrors` on it.

Sources: rustdoc pages of one version of a crawl written by ../shared/datasets/build-dev-crawl.py
(default: the committed sample, data/sample), used as they are (a documentation site), and their
prose paragraphs, which become the articles of five generated news-like sites, each with its own
template (HTML5 landmarks; class-named divs; an old table layout; id-named divs; bare link
lists), so that no single markup convention gives the main content away.

Positive page pairs (label 1), by kind:
  mirror          a copy on another host with an injected banner and every link rewritten to it
                  (a news site and part of the documentation)
  partial-mirror  a copy of a third of a site, links rewritten
  stale-mirror    an older copy: one sentence per article differs, older "most read" sidebar
  alias           the same site at www.HOST and HOST
  print-view      the printer-friendly view of an article (no navigation, sidebar or footer)
  parked          parked domains: many hosts, one template, differing only by the host's name
  session-id, timestamp, visitor-count, execution-time, server-name
                  one page at two URLs whose renderings differ by that counter
Negative page pairs (label 0), by kind:
  template-api    rustdoc pages of one kind in one module whose main item differs, with a
                  whole-page Jaccard >= 0.5 (the hard ones)
  template-news   two articles of one news site (short articles: the template dominates)
  template-shop   product pages of shops sharing one template, different products
  redirect        301 responses of different hosts (not pages: never to be clustered)
  error-page      404 responses of different hosts
  soft-404        200 responses that say "page not found", within one site

Writes OUT/crawl.warc.gz (warcio), OUT/labels.csv (url_a,url_b,label,kind,jaccard: the exact
Jaccard of the whole pages' word 5-gram sets, for reference), OUT/sites.csv (host_a,host_b,
label,kind: mirror, partial-mirror, stale-mirror, alias, parked, template-shop) and prints the
counts. Deterministic for a given crawl, --scale and --seed.

Usage: python3 bench/make_labelled_crawl.py [--crawl DIR] [--version stable] [--out DIR]
                                            [--scale N] [--seed S]
Needs: pip install warcio
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
PARA = re.compile(r"<p>(.*?)</p>", re.S | re.I)
DATE = "2026-03-01T12:00:00Z"

FIRST = ["Ada", "Brendan", "Carol", "Dmitri", "Esther", "Farid", "Grace", "Hiro", "Ines", "Jonas",
         "Kemal", "Lena", "Mateo", "Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Sven", "Tamar"]
LAST = ["Okafor", "Lindqvist", "Moreau", "Tanaka", "Ferreira", "Novak", "Haddad", "Kowalski",
        "Brennan", "Sato", "Vogel", "Castillo", "Ivanova", "Mensah", "Rossi", "Dubois"]
SECTIONS = ["World", "Business", "Technology", "Science", "Health", "Sport", "Culture", "Opinion",
            "Travel", "Climate", "Education", "Politics", "Local", "Video", "Podcasts", "Weather"]
WORDS = ["cheap", "flights", "best", "online", "home", "loans", "car", "insurance", "travel",
         "deals", "garden", "tools", "pet", "supplies", "crypto", "wallet", "solar", "panels",
         "yoga", "studio", "coffee", "beans", "vintage", "watches"]
PRODUCTS = ["kettle", "toaster", "blender", "lamp", "chair", "desk", "backpack", "umbrella", "jacket",
            "teapot", "mug", "skillet", "clock", "radio", "headphones", "notebook", "pen", "wallet",
            "scarf", "gloves", "boots", "blanket", "pillow", "mirror", "vase", "rug", "shelf"]
COLOURS = ["red", "blue", "green", "black", "white", "grey", "yellow", "orange", "purple", "brown"]


def tokens(page):
    return TOKEN.findall(html.unescape(TAGS.sub(" ", page)).lower())


def shingles(toks, k=5):
    if len(toks) < k:
        return {" ".join(toks)} if toks else set()
    return {" ".join(toks[i:i + k]) for i in range(len(toks) - k + 1)}


def jaccard(a, b):
    sa, sb = shingles(tokens(a)), shingles(tokens(b))
    u = len(sa | sb)
    return round(len(sa & sb) / u, 4) if u else 0.0


def read_docs(crawl, version=None):
    """Rustdoc HTML pages (of one version, or of all), by URL, in file order."""
    pages = {}
    for path in sorted(glob.glob(os.path.join(crawl, "*.warc.gz"))):
        if version and f"-{version}." not in os.path.basename(path):
            continue
        with open(path, "rb") as f:
            for rec in ArchiveIterator(f):
                if rec.rec_type != "response" or not rec.http_headers:
                    continue
                if rec.http_headers.get_statuscode() != "200":
                    continue
                if not rec.http_headers.get_header("Content-Type", "").startswith("text/html"):
                    continue
                url = rec.rec_headers.get_header("WARC-Target-URI")
                body = rec.content_stream().read().decode("utf-8", "replace")
                if re.search(r"<meta[^>]+http-equiv=[\"']?refresh", body, re.I):
                    continue  # rustdoc's redirect stubs: not pages
                pages[url] = body
    return pages


def paragraphs(pages):
    """Prose paragraphs (15 to 150 words) of the pages, each once, in URL order."""
    seen, out = set(), []
    for url in sorted(pages):
        for m in PARA.finditer(pages[url]):
            inner = m.group(1)
            if "<pre" in inner:
                continue
            text = " ".join(html.unescape(TAGS.sub(" ", inner)).split())
            n = len(text.split())
            if 15 <= n <= 150 and text not in seen:
                seen.add(text)
                out.append(text)
    return out


class Site:
    """A generated news-like site: a host, a template style and its articles."""

    def __init__(self, rng, host, name, style):
        self.host, self.name, self.style = host, name, style
        self.sections = rng.sample(SECTIONS, 14)
        self.footer = rng.sample(SECTIONS, 6) + ["About us", "Contact", "Careers", "Advertise",
                                                  "Privacy policy", "Terms of use", "Cookie settings"]
        self.articles = []  # (slug, title, author, date, paragraphs)

    def url(self, path, host=None):
        return f"https://{host or self.host}/{path}"

    def most_read(self, rng, k=10):
        return [a[:2] for a in rng.sample(self.articles, min(k, len(self.articles)))]

    def render(self, art, most_read, host=None, banner="", extra_head="", extra_foot="",
               print_view=False):
        slug, title, author, day, paras = art
        base = f"https://{host or self.host}/"
        body = "".join(f"<p>{html.escape(p)}</p>\n" for p in paras)
        byline = f"By {author} &middot; {day}"
        if print_view:
            return (f"<!DOCTYPE html><html><head><title>{html.escape(title)} (print)</title></head>"
                    f"<body><p>{self.name} &mdash; printer-friendly version</p>\n"
                    f"<h1>{html.escape(title)}</h1>\n<p>{byline}</p>\n{body}"
                    f"<p>Read online: {base}news/{slug}</p></body></html>\n")
        nav = [(f"{base}section/{s.lower()}", s) for s in self.sections]
        side = [(f"{base}news/{s}", t) for s, t in most_read]
        foot = [(f"{base}info/{f.lower().replace(' ', '-')}", f) for f in self.footer]

        def links(items, sep=""):
            return sep.join(f'<a href="{u}">{html.escape(t)}</a>' for u, t in items)

        def ul(items, cls=""):
            return f"<ul{cls}>" + "".join(f'<li><a href="{u}">{html.escape(t)}</a></li>' for u, t in items) + "</ul>"

        copy = (f"<p>{self.name} is an independent newsroom funded by its readers. We report on the people, "
                f"places and ideas that shape our region, and we correct our mistakes in public. Sign up for "
                f"the morning briefing: the five stories you need, in your inbox before breakfast.</p>"
                f"<p>&copy; 2026 {self.name}. All rights reserved. Registered in England and Wales.</p>")
        cookie = ("<p>We use cookies to personalise content and ads and to analyse our traffic. "
                  "By continuing you agree to our cookie policy.</p>")
        head = (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{html.escape(title)} | "
                f"{self.name}</title></head><body>{banner}")
        art_html = f"<h1>{html.escape(title)}</h1>\n<p class=\"byline\">{byline}</p>\n{extra_head}{body}"
        if self.style == "landmarks":
            page = (f"{head}<header><a href=\"{base}\">{self.name}</a><nav>{ul(nav)}</nav></header>"
                    f"<main><article>{art_html}</article></main>"
                    f"<aside><h2>Most read</h2>{ul(side)}</aside>"
                    f"<footer>{ul(foot)}{extra_foot}{copy}{cookie}</footer></body></html>")
        elif self.style == "classes":
            menu_cls = ' class="menu"'
            page = (f"{head}<div class=\"site-header\"><div class=\"navbar\">{ul(nav, menu_cls)}</div></div>"
                    f"<div class=\"container\"><div class=\"content\">{art_html}</div>"
                    f"<div class=\"sidebar widget-area\"><h3>Most read</h3>{ul(side)}</div></div>"
                    f"<div class=\"site-footer\">{ul(foot)}{extra_foot}{copy}{cookie}</div></body></html>")
        elif self.style == "tables":
            page = (f"{head}<table width=\"100%\"><tr><td colspan=\"2\"><b>{self.name}</b> | {links(nav, ' | ')}</td></tr>"
                    f"<tr><td width=\"25%\" valign=\"top\"><b>Most read</b><br>{links(side, '<br>')}</td>"
                    f"<td valign=\"top\">{art_html}</td></tr>"
                    f"<tr><td colspan=\"2\">{links(foot, ' | ')}{extra_foot}{copy}{cookie}</td></tr></table></body></html>")
        elif self.style == "ids":
            page = (f"{head}<div id=\"header\"><div id=\"menu\">{links(nav, ' ')}</div></div>"
                    f"<div id=\"main\">{art_html}</div>"
                    f"<div id=\"right-column\"><h4>Most read</h4>{links(side, '<br>')}</div>"
                    f"<div id=\"bottom\">{links(foot, ' ')}{extra_foot}{copy}{cookie}</div></body></html>")
        else:  # bare: no telling names at all
            page = (f"{head}<div>{ul(nav)}</div><div>{art_html}</div><div><p>Most read</p>{ul(side)}</div>"
                    f"<div>{ul(foot)}{extra_foot}{copy}{cookie}</div></body></html>")
        return page + "\n"


def rewrite_links(page, old_host, new_host):
    return page.replace(f"https://{old_host}/", f"https://{new_host}/")


def insert_after_body(page, snippet):
    i = page.find("<body>")
    if i < 0:
        m = re.search(r"<body[^>]*>", page)
        if not m:
            return snippet + page
        i, n = m.start(), len(m.group(0))
    else:
        n = len("<body>")
    return page[:i + n] + snippet + page[i + n:]


def insert_before_end(page, snippet):
    i = page.lower().rfind("</body>")
    return page[:i] + snippet + page[i:] if i >= 0 else page + snippet


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crawl", default="data/sample")
    ap.add_argument("--version", default="stable")
    ap.add_argument("--out", default="target/labelled")
    ap.add_argument("--scale", type=int, default=1, help="multiplies the number of pages per kind")
    ap.add_argument("--seed", type=int, default=16)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    s = a.scale
    os.makedirs(a.out, exist_ok=True)
    docs = read_docs(a.crawl, a.version)
    if not docs:
        raise SystemExit(f"no {a.version} rustdoc pages in {a.crawl}")
    # Prose from every version (each paragraph once), so that articles share no paragraph.
    paras = paragraphs(read_docs(a.crawl))
    rng.shuffle(paras)
    per_site = min(24 * s, len(paras) // (5 * 4))
    if per_site < 9:
        raise SystemExit(f"too little prose in {a.crawl}: {len(paras)} paragraphs")
    pages = []  # (url, status, headers, body)
    labels = []  # (url_a, url_b, label, kind)
    sites = []  # (host_a, host_b, label, kind)
    body_of = {}

    def add(url, body, status="200 OK", headers=None):
        assert url not in body_of, url
        body_of[url] = body
        pages.append((url, status, headers or [("Content-Type", "text/html; charset=utf-8")], body))

    def label(ua, ub, lab, kind):
        labels.append((ua, ub, lab, kind))

    # The documentation site, as crawled.
    doc_urls = sorted(docs)
    rng.shuffle(doc_urls)
    doc_urls = sorted(doc_urls[: 60 * s])
    for u in doc_urls:
        add(u, docs[u])

    # Five news-like sites.
    styles = ["landmarks", "classes", "tables", "ids", "bare"]
    names = ["The Daily Ferris", "Crab Street Journal", "The Borrow Checker Times", "Lifetime Gazette",
             "Morning Trait Post"]
    hosts = ["www.dailyferris.example", "www.crabstreet.example", "www.borrowtimes.example",
             "www.lifetimegazette.example", "www.traitpost.example"]
    news = [Site(rng, h, n, st) for h, n, st in zip(hosts, names, styles)]
    pi = iter(paras)
    for site in news:
        for k in range(per_site):
            short = k % 3 == 0
            n = rng.randint(1, 2) if short else rng.randint(3, 7)
            ps = [next(pi) for _ in range(n)]
            words = ps[0].split()
            title = " ".join(words[:rng.randint(5, 9)]).rstrip(".,;:")
            title = title[0].upper() + title[1:]
            slug = f"{2026 - k % 3}/{k:03d}-" + "-".join(TOKEN.findall(title.lower())[:5])
            author = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
            day = f"2026-0{1 + k % 9}-{1 + k % 28:02d}"
            site.articles.append((slug, title, author, day, ps))
        site.current = site.most_read(rng)
        for art in site.articles:
            add(site.url(f"news/{art[0]}"), site.render(art, site.current))

    # mirror: a news site and part of the documentation, banner injected, links rewritten.
    m_host = "news-mirror.example.net"
    banner = (f"<div class=\"mirror-notice\"><p>You are reading a mirror of {news[0].host}, refreshed every hour. "
              f"<a href=\"https://{news[0].host}/\">Go to the original site</a>.</p></div>")
    for art in news[0].articles:
        ua = news[0].url(f"news/{art[0]}")
        ub = f"https://{m_host}/news/{art[0]}"
        add(ub, insert_after_body(rewrite_links(news[0].render(art, news[0].current), news[0].host, m_host), banner))
        label(ua, ub, 1, "mirror")
    sites.append((news[0].host, m_host, 1, "mirror"))
    d_host = "rustdocs-mirror.example.com"
    d_banner = ("<div style=\"background:#ffd\"><p>Unofficial mirror of the Rust documentation, "
                "provided for readers behind slow links. Contact: mirror-admin at rustdocs-mirror.</p></div>")
    for u in doc_urls[: 30 * s]:
        ub = u.replace("https://doc.rust-lang.org/", f"https://{d_host}/")
        add(ub, insert_after_body(rewrite_links(docs[u], "doc.rust-lang.org", d_host), d_banner))
        label(u, ub, 1, "mirror")
    sites.append(("doc.rust-lang.org", d_host, 1, "mirror"))

    # partial-mirror: a third of news site 1.
    p_host = "crab-archive.example.org"
    for art in news[1].articles[::3]:
        ua = news[1].url(f"news/{art[0]}")
        ub = f"https://{p_host}/news/{art[0]}"
        add(ub, rewrite_links(news[1].render(art, news[1].current), news[1].host, p_host))
        label(ua, ub, 1, "partial-mirror")
    sites.append((news[1].host, p_host, 1, "partial-mirror"))

    # stale-mirror: news site 2 as it was: one sentence differs per article, older sidebar.
    st_host = "borrowtimes.mirror.example.com"
    older = news[2].most_read(random.Random(a.seed + 1))
    for art in news[2].articles:
        slug, title, author, day, ps = art
        ps = list(ps)
        i = rng.randrange(len(ps))
        sentences = ps[i].split(". ")
        if len(sentences) > 1:
            del sentences[rng.randrange(len(sentences))]
            ps[i] = ". ".join(sentences)
        else:
            ps[i] = ps[i] + " This story was updated."
        ua = news[2].url(f"news/{slug}")
        ub = f"https://{st_host}/news/{slug}"
        add(ub, rewrite_links(news[2].render((slug, title, author, day, ps), older), news[2].host, st_host))
        label(ua, ub, 1, "stale-mirror")
    sites.append((news[2].host, st_host, 1, "stale-mirror"))

    # alias: news site 3 also at its bare host.
    bare = news[3].host[len("www."):]
    for art in news[3].articles:
        ua = news[3].url(f"news/{art[0]}")
        ub = f"https://{bare}/news/{art[0]}"
        add(ub, rewrite_links(news[3].render(art, news[3].current), news[3].host, bare))
        label(ua, ub, 1, "alias")
    sites.append((news[3].host, bare, 1, "alias"))

    # print-view: news site 4's articles.
    for art in news[4].articles:
        ua = news[4].url(f"news/{art[0]}")
        ub = news[4].url(f"print/{art[0]}")
        add(ub, news[4].render(art, news[4].current, print_view=True))
        label(ua, ub, 1, "print-view")

    # Counters: one page at two URLs, rendered twice with a counter that differs.
    counters = {
        "session-id": lambda: (f"<p>Session <a href=\"?sid={rng.getrandbits(128):032x}\">continue</a></p>", ""),
        "timestamp": lambda: (f"<p>Last updated {rng.randint(2020, 2026)}-{rng.randint(1, 12):02d}-"
                              f"{rng.randint(1, 28):02d} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} UTC</p>", ""),
        "visitor-count": lambda: ("", f"<p>You are visitor number {rng.randint(1000, 999999)}</p>"),
        "execution-time": lambda: ("", f"<p>Page generated in {rng.uniform(0.001, 2.0):.4f} seconds</p>"),
        "server-name": lambda: ("", f"<p>Served by web-{rng.randint(1, 64):02d}.{rng.choice(['fra', 'ams', 'iad', 'sin'])}"
                                    f".cluster{rng.randint(1, 9)}</p>"),
    }
    n_site = 0
    for kind, make in counters.items():
        for k in range(8 * s):
            if k % 2 == 0:
                site = news[n_site % len(news)]
                n_site += 1
                art = site.articles[(k * 7 + len(kind)) % len(site.articles)]
                urls = [site.url(f"news/{art[0]}?{kind}={v}") for v in "ab"]
                bodies = []
                for _ in urls:
                    h, f = make()
                    bodies.append(site.render(art, site.current, extra_head=h, extra_foot=f))
            else:
                u = doc_urls[(k * 11 + len(kind)) % len(doc_urls)]
                urls = [f"{u}?{kind}={v}" for v in "ab"]
                bodies = []
                for _ in urls:
                    h, f = make()
                    bodies.append(insert_before_end(insert_after_body(docs[u], h), f))
            for url, body in zip(urls, bodies):
                add(url, body)
            label(urls[0], urls[1], 1, kind)

    # parked: many hosts, one template, the host's own name in it.
    related = ["Online degrees", "Car insurance quotes", "Cheap flights", "Web hosting", "Credit cards",
               "Home security", "Mortgage rates", "Dating sites", "Solar panels", "Business loans"]
    parked = []
    used = set()
    while len(parked) < 12 * s:
        w = rng.sample(WORDS, 2)
        host = f"{w[0]}{w[1]}-{rng.choice(['online', 'shop', 'hub', 'world', 'zone'])}.example"
        if host in used:
            continue
        used.add(host)
        parked.append(host)
    parked_urls = []
    for host in parked:
        for path in ["", "index.html"]:
            rel = "".join(f'<li><a href="https://{host}/search?q={html.escape(r)}">{html.escape(r)}</a></li>' for r in related)
            body = (f"<!DOCTYPE html><html><head><title>{host} - This domain may be for sale</title></head><body>"
                    f"<h1>{host}</h1><p>The domain {host} may be for sale. Click here to inquire about {host}.</p>"
                    f"<h2>Related searches</h2><ul>{rel}</ul>"
                    f"<p>Copyright 2026 {host}. All rights reserved. <a href=\"https://{host}/privacy\">Privacy policy</a>. "
                    f"Disclaimer: {host} is not affiliated with the advertisers on this page; the sponsored listings "
                    f"are provided by a third party and may change at any time.</p></body></html>\n")
            url = f"https://{host}/{path}"
            add(url, body)
            parked_urls.append(url)
    for i in range(0, len(parked_urls), 2):
        label(parked_urls[i], parked_urls[i + 1], 1, "parked")
    for _ in range(len(parked) * 2):
        i, j = sorted(rng.sample(range(len(parked_urls)), 2))
        if i // 2 != j // 2:
            label(parked_urls[i], parked_urls[j], 1, "parked")
    for i in range(len(parked)):
        for j in range(i + 1, len(parked)):
            sites.append((parked[i], parked[j], 1, "parked"))

    # template-shop: shops on one template, different products, no URL in common.
    shops = [f"{w}-{c}.shop.example" for w, c in zip(rng.sample(WORDS, 8), rng.sample(COLOURS, 8))][: 6 + 2 * (s - 1)]
    shop_pages = []
    for host in shops:
        for _ in range(4):
            p, c = rng.choice(PRODUCTS), rng.choice(COLOURS)
            price = f"{rng.randint(5, 300)}.{rng.randint(0, 99):02d}"
            sku = rng.randint(10000, 99999)
            url = f"https://{host}/products/{c}-{p}-{sku}"
            nav = "".join(f'<li><a href="https://{host}/c/{x}">{x.title()}</a></li>' for x in ["kitchen", "living", "outdoor", "sale", "new"])
            body = (f"<!DOCTYPE html><html><head><title>{c.title()} {p} | Shop</title></head><body>"
                    f"<nav><ul>{nav}</ul></nav><h1>{c.title()} {p}</h1><p>Price: EUR {price}. SKU {sku}.</p>"
                    f"<p>Free delivery on orders over EUR 50. Returns within 30 days. Secure checkout with all major cards.</p>"
                    f"<h2>Why shop with us</h2><p>Family-run since 1998, we ship from our own warehouse and answer every "
                    f"email within one working day. Sign up for our newsletter and get ten percent off your first order.</p>"
                    f"<footer><p>Shipping | Returns | Contact | Terms | Privacy</p></footer></body></html>\n")
            add(url, body)
            shop_pages.append((host, url))
    for _ in range(12 * s):
        (ha, ua), (hb, ub) = rng.sample(shop_pages, 2)
        if ha != hb:
            label(ua, ub, 0, "template-shop")
    for i in range(len(shops)):
        for j in range(i + 1, len(shops)):
            sites.append((shops[i], shops[j], 0, "template-shop"))

    # Not pages: redirects, errors and soft 404s.
    error_hosts = [n.host for n in news] + [m_host, d_host, p_host]
    moved, missing = [], []
    for host in error_hosts:
        for k in range(2):
            u = f"https://{host}/old/page-{k}.html"
            target = f"https://{host}/new/page-{k}.html"
            add(u, "<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0//EN\">\n<html><head>\n<title>301 Moved Permanently</title>\n"
                   f"</head><body>\n<h1>Moved Permanently</h1>\n<p>The document has moved <a href=\"{target}\">here</a>.</p>\n"
                   f"<hr>\n<address>Apache/2.4.41 (Ubuntu) Server at {host} Port 443</address>\n</body></html>\n",
                status="301 Moved Permanently", headers=[("Content-Type", "text/html; charset=iso-8859-1"), ("Location", target)])
            moved.append(u)
            u = f"https://{host}/missing/{k}/{rng.getrandbits(32):08x}.html"
            add(u, "<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0//EN\">\n<html><head>\n<title>404 Not Found</title>\n"
                   "</head><body>\n<h1>Not Found</h1>\n<p>The requested URL was not found on this server.</p>\n"
                   f"<hr>\n<address>Apache/2.4.41 (Ubuntu) Server at {host} Port 443</address>\n</body></html>\n",
                status="404 Not Found")
            missing.append(u)
    for i in range(0, len(moved) - 2, 2):
        label(moved[i], moved[i + 2], 0, "redirect")
        label(missing[i], missing[i + 2], 0, "error-page")
    for site in news:
        soft = []
        for k in range(3):
            u = site.url(f"news/gone-{k}-{rng.getrandbits(24):06x}")
            art = ("", "Page not found", "", "", ["Sorry, the page you were looking for could not be found. "
                   "It may have been moved or deleted. Try searching or go back to the home page."])
            add(u, site.render(art, site.current))
            soft.append(u)
        label(soft[0], soft[1], 0, "soft-404")
        label(soft[1], soft[2], 0, "soft-404")

    # template-news: two articles of one site, short ones first.
    for site in news:
        arts = site.articles
        for k in range(0, min(len(arts) - 3, 9 * s), 3):
            ua, ub = site.url(f"news/{arts[k][0]}"), site.url(f"news/{arts[k + 3][0]}")
            label(ua, ub, 0, "template-news")

    # template-api: rustdoc pages of one kind in one module, different items, whole-page J >= 0.5.
    groups = {}
    for u in docs:
        m = re.match(r"(https://doc\.rust-lang\.org/[^/]+/.*/)(struct|fn|trait|enum|macro|type|constant|primitive)\.[^/]+\.html$", u)
        if m:
            groups.setdefault((m.group(1), m.group(2)), []).append(u)
    hard = []
    for key in sorted(groups):
        us = sorted(groups[key])[:40]
        for i in range(len(us) - 1):
            for j in range(i + 1, min(i + 4, len(us))):
                if jaccard(docs[us[i]], docs[us[j]]) >= 0.5:
                    hard.append((us[i], us[j]))
    rng.shuffle(hard)
    for ua, ub in sorted(hard[: 30 * s]):
        for u in (ua, ub):
            if u not in body_of:
                add(u, docs[u])
        label(ua, ub, 0, "template-api")

    with open(os.path.join(a.out, "crawl.warc.gz"), "wb") as f:
        w = WARCWriter(f, gzip=True)
        for url, status, headers, body in pages:
            http = StatusAndHeaders(status, headers, protocol="HTTP/1.1")
            rec = w.create_warc_record(url, "response", payload=io.BytesIO(body.encode("utf-8")),
                                       http_headers=http, warc_headers_dict={"WARC-Date": DATE})
            rec.rec_headers.replace_header("WARC-Record-ID", f"<urn:uuid:{len(url):08x}-0000-0000-0000-{abs(hash_url(url)):012x}>")
            w.write_record(rec)
    with open(os.path.join(a.out, "labels.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["url_a", "url_b", "label", "kind", "jaccard"])
        for ua, ub, lab, kind in labels:
            w.writerow([ua, ub, lab, kind, jaccard(body_of[ua], body_of[ub])])
    with open(os.path.join(a.out, "sites.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["host_a", "host_b", "label", "kind"])
        w.writerows(sites)
    kinds = {}
    for r in labels:
        kinds.setdefault(r[3], [0, 0])[r[2]] += 1
    print(f"{len(pages)} pages, {len(labels)} labelled pairs, {len(sites)} labelled host pairs in {a.out}")
    for k, (neg, pos) in sorted(kinds.items()):
        print(f"  {k:15} {pos:5} positive {neg:5} negative")


def hash_url(url):
    """A stable 48-bit number from a URL (Python's hash() is salted per process)."""
    h = 1469598103934665603
    for b in url.encode():
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h & 0xFFFFFFFFFFFF


if __name__ == "__main__":
    main()
