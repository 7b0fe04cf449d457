#!/usr/bin/env python3
"""Builds a labelled crawl of copies in other clothes (issue 57): the same content re-served in
another site's template, in another release or edition, as an excerpt, as a mirror abroad in a
legacy charset; and the hard negatives that must stay apart (different items of one template
whose descriptions are nearly the same, different items in a heavy template, the same chapter
in two languages).

Sources (all on a machine that builds neardup, none reserved for independent evaluation):
  * a package catalogue: the crates of the local cargo registry (~/.cargo/registry/src): name,
    version, summary, the README's prose as the long description, dependencies, keywords;
  * guide pages: Rust by Example in English, Spanish, Japanese, Korean and Chinese (the
    toolchain's documentation), and GNU coreutils' translated help texts (the system's
    coreutils.mo) in German, French, Polish, Czech, Russian and Ukrainian, grouped into pages.

Every page is rendered by a template of its site; the templates differ in markup (landmarks,
class-named divs, id-named divs, an old table layout, bare divs; `<p>`, `div.para`, `<br>`
paragraphs; `<pre><code>`, `<pre>`, `<br>` code), and their chrome (navigation, sidebars,
field tables, footers of prose) is large: on catalogue sites about twice the main text.

Positive pairs (label 1), by kind:
  catalogue-template  one package on two catalogue sites, each in its own template
  article-template    a guide page re-served in a blog, CMS or table template, markup rewritten
  excerpt             the first 40-70% of a guide page quoted in a forum post with replies, or
                      in a digest with "Continue reading"
  catalogue-release   one package in two releases of one catalogue: versions, dependencies and
                      sizes differ, the description by under 15% of its words, titles by the
                      version and the release name (which the URL path also varies by)
  edition             a guide page and its previous edition (2-10% of words changed, a notice)
  short-date          short pages (20-80 words) of one site where only a date line differs
  legacy-mirror       a guide page mirrored abroad with a banner, in the country's legacy charset
  print-view, session-id, small-edit, alias, tracking
                      the easy kinds, in every language
  family              two copies of one source of different kinds (transitive pairs)
Negative pairs (label 0):
  short-items         two short package pages of one light template about different items
                      whose descriptions are nearly the same (libfoo-dev / libfoo-doc /
                      libfoo++-dev), whole-page Jaccard >= 0.8 where the text allows
  heavy-template      two packages on one catalogue site (boilerplate twice the main text), the
                      most similar pairs
  languages           one chapter in two languages (shared code blocks, commands, paths)

Writes OUT/crawl.warc.gz (warcio), OUT/labels.csv (url_a,url_b,label,kind,lang,jaccard: the
exact Jaccard of the whole pages' word 5-gram sets) and prints the counts per kind.
Deterministic for a given machine's sources, --scale and --seed; tune on one seed, test on
another (the committed subset under tests/fixtures/clothes uses --seed 2).

Usage: python3 bench/make_clothes_crawl.py --out DIR [--seed S] [--scale F] [--max-pages N]
Needs: pip install warcio
"""
import argparse
import collections
import csv
import io
import os
import random
import re

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from clothes_pages import (CHROME_SENTENCES, FIELD_STYLES, Catalogue, Site, chapter_nav, edit_doc,
                           esc, prefix_blocks, release_of, render_blocks, with_query)
from clothes_sources import load_coreutils, load_crates, load_rbe
from make_labelled_crawl import TOKEN, jaccard, shingles, tokens

DATE = "2026-09-01T12:00:00Z"

# The legacy charset of each language's mirror abroad (Python codec names, as HTTP names them).
LEGACY = {"en": "iso-8859-1", "es": "iso-8859-1", "de": "windows-1252", "fr": "iso-8859-15",
          "pl": "iso-8859-2", "cs": "windows-1250", "ru": "koi8-r", "uk": "windows-1251",
          "ja": "shift_jis", "ko": "euc-kr", "zh": "gb18030"}
BANNER = {
    "en": "You are viewing a mirror of this documentation hosted by the national research network.",
    "es": "Está viendo una réplica de esta documentación alojada por la red académica nacional.",
    "de": "Sie sehen einen Spiegel dieser Dokumentation, betrieben vom nationalen Forschungsnetz.",
    "fr": "Vous consultez un miroir de cette documentation hébergé par le réseau national de recherche.",
    "pl": "Przeglądasz kopię lustrzaną tej dokumentacji utrzymywaną przez krajową sieć naukową.",
    "cs": "Prohlížíte si zrcadlo této dokumentace provozované národní výzkumnou sítí.",
    "ru": "Вы просматриваете зеркало этой документации на сервере национальной научной сети.",
    "uk": "Ви переглядаєте дзеркало цієї документації на сервері національної наукової мережі.",
    "ja": "このページは国立研究ネットワークが運営するミラーサイトです。",
    "ko": "이 페이지는 국가 연구망이 운영하는 미러 사이트입니다.",
    "zh": "您正在浏览由国家科研网络托管的本文档镜像。",
}
RELEASES = [("aurora", "2025"), ("borealis", "2026")]
# ---------------------------------------------------------------------------------------------


class Crawl:
    def __init__(self, out):
        self.f = open(os.path.join(out, "crawl.warc.gz"), "wb")
        self.w = WARCWriter(self.f, gzip=True)
        self.urls = set()
        self.bodies = {}
        self.labels = []
        self.langs = {}

    def add(self, url, body, lang, charset="utf-8"):
        assert url not in self.urls, url
        self.urls.add(url)
        self.bodies[url] = body
        self.langs[url] = lang
        data = body.encode(charset, "xmlcharrefreplace")
        hdrs = StatusAndHeaders("200 OK", [("Content-Type", f"text/html; charset={charset}"),
                                           ("Content-Length", str(len(data)))], protocol="HTTP/1.1")
        rec = self.w.create_warc_record(url, "response", payload=io.BytesIO(data), http_headers=hdrs,
                                        warc_headers_dict={"WARC-Date": DATE})
        self.w.write_record(rec)
        return url

    def label(self, a, b, lab, kind):
        self.labels.append((a, b, lab, kind))

    def close(self, out):
        self.f.close()
        with open(os.path.join(out, "labels.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["url_a", "url_b", "label", "kind", "lang", "jaccard"])
            for a, b, lab, kind in self.labels:
                w.writerow([a, b, lab, kind, self.langs[a], jaccard(self.bodies[a], self.bodies[b])])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scale", type=float, default=1.0, help="share of the sources used")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = random.Random(a.seed)
    crates = load_crates()
    rbe = load_rbe()
    core = load_coreutils()
    names = sorted(crates)
    rng.shuffle(names)
    names = names[: max(20, int(len(names) * a.scale))]
    words = sorted({w.lower() for n in names for w in re.findall(r"[a-z]{4,}", crates[n]["summary"])})
    c = Crawl(a.out)
    families = collections.defaultdict(list)  # source -> [url]

    def fam(key, url, kind):
        families[key].append((url, kind))

    # -- catalogue sites ---------------------------------------------------------------------
    layouts = ["landmarks", "classes", "ids", "tables", "bare"]
    cats = []
    for i, (layout, fields) in enumerate(zip(layouts, FIELD_STYLES)):
        fmt = rng.choice(["{name} {version} - {site}", "Package: {name} ({version}) | {site}",
                          "{site} :: {name} v{version}", "{name} {version} — {release} — {site}",
                          "{name}-{version} [{release}] · {site}"])
        markup = rng.choice(["p", "para", "br", "bare"])
        cats.append(Catalogue(rng, f"pkg{i}.{rng.choice(['example', 'test', 'invalid'])}",
                              rng.choice(["Crate", "Package", "Module", "Source", "Lib"]) + " " +
                              rng.choice(["Shelf", "Depot", "Index", "Hub", "Yard"]) + f" {i}",
                              layout, markup, words, fields, fmt))
    by_kw = collections.defaultdict(list)
    for n in names:
        for k in crates[n]["keywords"] or ["misc"]:
            by_kw[k].append(n)

    def related(n):
        pool = sorted({m for k in crates[n]["keywords"] or ["misc"] for m in by_kw[k] if m != n})
        r = random.Random(f"{a.seed}-{n}")
        extra = r.sample(names, 6)
        return [crates[m] for m in (pool[:4] + [m for m in extra if m != n])[:6]]

    for n in names:
        item = crates[n]
        home = cats[hash_str(n) % len(cats)]
        rel = related(n)
        sites = [home] + rng.sample([s for s in cats if s is not home], 2)
        urls = []
        for s in sites:
            u = c.add(s.url(item), s.item_page(item, rel, downloads=rng.randint(100, 10**7)), "en")
            urls.append(u)
            fam(("crate", n), u, "catalogue-template")
        for i in range(len(urls)):
            for j in range(i + 1, len(urls)):
                c.label(urls[i], urls[j], 1, "catalogue-template")
        # Two releases on the home catalogue.
        old = release_of(rng, item, rng.uniform(0.03, 0.14))
        (r_new, _), (r_old, _) = RELEASES[1], RELEASES[0]
        u_new = c.add(home.url(item, r_new), home.item_page(item, rel, release=r_new), "en")
        u_old = c.add(home.url(item, r_old), home.item_page(old, rel, release=r_old), "en")
        c.label(u_new, u_old, 1, "catalogue-release")
        fam(("crate", n), u_new, "catalogue-release")
        fam(("crate", n), u_old, "catalogue-release")

    # Heavy-template negatives: the most similar pairs of different packages on one site.
    for s in cats:
        pages = [(u, shingles(tokens(c.bodies[u]))) for u in sorted(c.urls)
                 if u.startswith(f"https://{s.host}/pkg/")]
        scored = []
        for i in range(len(pages)):
            for j in rng.sample(range(len(pages)), min(40, len(pages))):
                if j <= i:
                    continue
                x, y = pages[i][1], pages[j][1]
                scored.append((len(x & y) / len(x | y), pages[i][0], pages[j][0]))
        scored.sort(reverse=True)
        for _, ua, ub in scored[: max(10, int(60 * a.scale))]:
            c.label(ua, ub, 0, "heavy-template")

    # Short items of one light template: libX-dev / libX-doc / libX++-dev.
    lite = Catalogue(rng, "packages.lite.example", "Lite Packages", "bare", "p", words, "list",
                     "{name} - {site}")
    lite.nav, lite.side = lite.nav[:4], lite.side[:2]
    lite.prose, lite.about, lite.notice = "Lite Packages.", "", ""
    for n in names:
        item = crates[n]
        stem = re.sub(r"[^a-z0-9]", "", n.lower())
        kinds = [("dev", "development files"), ("doc", "documentation"), ("bin", "command-line tools")]
        r = random.Random(f"lite-{a.seed}-{n}")
        pick = r.sample(kinds, 2)
        variants = [(f"lib{stem}-{pick[0][0]}", pick[0][1]), (f"lib{stem}-{pick[1][0]}", pick[1][1])]
        if r.random() < 0.3:
            variants[1] = (f"lib{stem}++-{pick[0][0]}", f"{pick[0][1]} (C++ bindings)")
        us = []
        for vname, what in variants:
            short = dict(item, name=vname, long=[f"{item['summary']} This package contains the {what}."],
                         keywords=[], deps={})
            us.append(c.add(lite.url(short), lite.item_page(short, []), "en"))
        c.label(us[0], us[1], 0, "short-items")

    # Short pages where only a date line differs.
    news = Site(rng, "status.lite.example", "Release Notes", "bare", "p", words)
    news.nav, news.side, news.prose, news.about, news.notice = news.nav[:3], [], "Release Notes.", "", ""
    for k, n in enumerate(names):
        item = crates[n]
        body = f"{item['summary']} Version {item['version']} of {n} is available from the usual mirrors."
        if len(body.split()) > 80:
            continue
        d1 = f"Published {2024 + k % 2}-{1 + k % 12:02d}-{1 + k % 27:02d}"
        d2 = f"Updated {2025 + k % 2}-{1 + (k * 7) % 12:02d}-{1 + (k * 5) % 27:02d}"
        t = f"{n} {item['version']} released"
        ua = c.add(f"https://{news.host}/notes/{n}", news.page(t, f"<h1>{esc(t)}</h1><p>{esc(d1)}</p><p>{esc(body)}</p>"), "en")
        ub = c.add(f"https://{news.host}/archive/{n}.html", news.page(t, f"<h1>{esc(t)}</h1><p>{esc(d2)}</p><p>{esc(body)}</p>"), "en")
        c.label(ua, ub, 1, "short-date")

    # -- guide pages -------------------------------------------------------------------------
    # A share of the chapters (RBE) and help pages (coreutils), each in all its languages, so
    # that a chapter's translations are there to be told apart.
    groups = [[(("rbe", rel, lang), d) for lang, d in sorted(by.items())] for rel, by in rbe.items()]
    per_slug = collections.defaultdict(list)
    for lang, ds in sorted(core.items()):
        for d in ds:
            per_slug[d["slug"]].append((("core", d["slug"], lang), d))
    groups += [per_slug[k] for k in sorted(per_slug)]
    rng.shuffle(groups)
    groups = groups[: max(8, int(len(groups) * a.scale))]
    docs = [x for g in groups for x in g]
    rng.shuffle(docs)
    home = Site(rng, "guide.example", "The Guide", "landmarks", "p", words)
    editions = Site(rng, "guide.example", "The Guide", "landmarks", "p", words)
    editions.nav = home.nav
    editions.side, editions.foot, editions.prose, editions.tagline = home.side, home.foot, home.prose, home.tagline
    foreign = [Site(rng, "blog.example", "Weekend Hacker", "classes", "p", words),
               Site(rng, "cms.example", "Docs Portal", "ids", "para", words),
               Site(rng, "old.example", "Programmer's Corner", "tables", "br", words),
               Site(rng, "plain.example", "Reading Room", "bare", "bare", words)]
    forum = Site(rng, "forum.example", "Dev Forum", "classes", "p", words)
    digest = Site(rng, "digest.example", "Weekly Digest", "ids", "p", words)
    mirrors = {lang: Site(rng, f"mirror.{lang}.example", f"Mirror {lang.upper()}", "landmarks", "p", words)
               for lang in LEGACY}
    for m in mirrors.values():
        m.nav, m.side, m.foot, m.prose, m.tagline = home.nav, home.side, home.foot, home.prose, home.tagline

    rbe_urls = collections.defaultdict(dict)
    # Each guide page ends with links to the previous and next pages of its guide and language
    # (pages of this crawl: what the hyperlink map of paper 000 follows).
    paths = [f"{key[0]}/{d['lang']}/{d['slug']}" for key, d in docs]
    order = collections.defaultdict(list)  # (guide, language): its pages in crawl order
    for i, (key, d) in enumerate(docs):
        order[(key[0], d["lang"])].append(i)
    place = {i: (g, n) for g, ids in order.items() for n, i in enumerate(ids)}
    def neighbour(i, step):
        g, n = place[i]
        ok = 0 <= n + step < len(order[g])
        return f"https://{home.host}/{paths[order[g][n + step]]}" if ok else None
    for i, (key, d) in enumerate(docs):
        lang = d["lang"]
        path = f"{key[0]}/{lang}/{d['slug']}"
        nav = chapter_nav(neighbour(i, -1), neighbour(i, 1))
        u0 = c.add(f"https://{home.host}/{path}", home.article(d, trail=nav), lang)
        fam(key, u0, "original")
        if key[0] == "rbe":
            rbe_urls[key[1]][lang] = u0
        r = random.Random(f"{a.seed}-{path}")
        roll = i % 10
        # Foreign template (one of four).
        s = foreign[i % len(foreign)]
        u = c.add(f"https://{s.host}/{r.randint(2019, 2025)}/{d['slug']}-{lang}", s.article(d), lang)
        c.label(u0, u, 1, "article-template")
        fam(key, u, "article-template")
        # Excerpt: forum post with replies, or a digest entry.
        if roll < 5:
            share = r.uniform(0.4, 0.7)
            part = render_blocks(prefix_blocks(d, share), "p")
            if roll % 2 == 0:
                replies = "".join(f"<div class=\"reply\"><b>user{r.randint(1, 999)}</b><p>{esc('. '.join(r.sample(CHROME_SENTENCES, 2)) + '. ' + ' '.join(r.sample(words, 20)))}</p></div>"
                                  for _ in range(r.randint(2, 5)))
                main = (f"<h1>{esc(d['title'])}</h1><div class=\"post\"><p>Found this, worth a read:</p>"
                        f"<blockquote>{part}</blockquote></div>{replies}")
                u = c.add(f"https://{forum.host}/t/{d['slug']}-{lang}/{r.randint(10, 99999)}",
                          forum.page(f"{d['title']} - {forum.name}", main), lang)
            else:
                main = (f"<h1>{esc(d['title'])}</h1>{part}<p><a href=\"{esc(u0)}\">Continue reading &raquo;</a></p>")
                u = c.add(f"https://{digest.host}/issue/{r.randint(1, 300)}/{d['slug']}-{lang}",
                          digest.page(f"{d['title']} | {digest.name}", main), lang)
            c.label(u0, u, 1, "excerpt")
            fam(key, u, "excerpt")
        # Previous edition.
        if roll in (1, 4, 6, 8):
            old = edit_doc(r, d, r.uniform(0.02, 0.10))
            notice = "<p class=\"notice\">This is the previous edition of this page. The current edition is available.</p>"
            u = c.add(f"https://{home.host}/ed1/{path}", editions.article(old, extra=notice), lang)
            c.label(u0, u, 1, "edition")
            fam(key, u, "edition")
        # Mirror abroad in the legacy charset.
        if roll in (0, 3, 7, 9) and lang in LEGACY:
            m = mirrors[lang]
            banner = f"<div class=\"mirror-banner\"><p>{esc(BANNER[lang])}</p></div>"
            body = m.article(d, banner=banner, charset=LEGACY[lang])
            u = c.add(f"https://{m.host}/{path}", body, lang, charset=LEGACY[lang])
            c.label(u0, u, 1, "legacy-mirror")
            fam(key, u, "legacy-mirror")
        # The easy kinds, two per page in turn.
        kinds = ["print-view", "session-id", "small-edit", "alias", "tracking"]
        for easy in (kinds[i % 5], kinds[(i + 2) % 5]):
            if easy == "print-view":
                body = (f"<html><head><meta charset=\"utf-8\"><title>{esc(d['title'])} (print)</title></head><body>"
                        f"<h1>{esc(d['title'])}</h1>{render_blocks(d['blocks'], 'p')}<p>{esc(u0)}</p></body></html>")
                u = c.add(f"https://{home.host}/print/{path}", body, lang)
            elif easy == "session-id":
                # The session in the page's URL and in every link to the site, as URL rewriting
                # writes them.
                sid = f"sid={r.getrandbits(64):016x}"
                body = home.article(d, extra=f"<p>Session {r.getrandbits(32):08x}</p>", trail=nav)
                u = c.add(f"https://{home.host}/{path}?{sid}", with_query(body, home.host, sid), lang)
            elif easy == "small-edit":
                u = c.add(f"https://{home.host}/rev/{path}", home.article(edit_doc(r, d, 0.01), trail=nav), lang)
            elif easy == "alias":
                # Its links name its own host.
                body = home.article(d, trail=nav).replace(f"https://{home.host}/", f"https://www.{home.host}/")
                u = c.add(f"https://www.{home.host}/{path}", body, lang)
            else:
                u = c.add(f"https://{home.host}/{path}?utm_source=feed&utm_medium=rss&ref={r.randint(1, 9999)}",
                          home.article(d, trail=nav), lang)
            c.label(u0, u, 1, easy)
            fam(key, u, easy)

    # The same chapter in two languages: negatives.
    for rel, by in sorted(rbe_urls.items()):
        langs = sorted(by)
        if "en" in by:
            for lang in langs:
                # A partial translation (English paragraphs left in) is a copy, not a negative.
                if lang != "en" and prose_overlap(rbe[rel]["en"], rbe[rel][lang]) < 0.2:
                    c.label(by["en"], by[lang], 0, "languages")
    # Transitive pairs inside each family that no direct label names.
    named = {(x, y) for x, y, _, _ in c.labels} | {(y, x) for x, y, _, _ in c.labels}
    for key, members in sorted(families.items(), key=lambda kv: str(kv[0])):
        us = [u for u, _ in members]
        for i in range(len(us)):
            for j in range(i + 1, len(us)):
                if (us[i], us[j]) not in named:
                    c.label(us[i], us[j], 1, "family")
    c.close(a.out)
    counts = collections.Counter((k, lab) for _, _, lab, k in c.labels)
    langs = collections.Counter(c.langs[x] for x, _, _, _ in c.labels)
    print(f"{len(c.urls)} pages, {len(c.labels)} labelled pairs; languages: {dict(sorted(langs.items()))}")
    for (k, lab), n in sorted(counts.items(), key=lambda kv: (-kv[0][1], kv[0][0])):
        print(f"  {k:20s} {'positive' if lab else 'negative'} {n}")


def prose_overlap(a, b):
    """Jaccard of the word 5-gram sets of two documents' prose (code left out)."""
    sa = shingles([w for k, t in a["blocks"] if k != "code" for w in TOKEN.findall(t.lower())])
    sb = shingles([w for k, t in b["blocks"] if k != "code" for w in TOKEN.findall(t.lower())])
    return len(sa & sb) / max(1, len(sa | sb))


def hash_str(s):
    h = 0xCBF29CE484222325
    for b in s.encode():
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


if __name__ == "__main__":
    main()
