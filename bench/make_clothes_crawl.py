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
import gettext
import glob
import html
import io
import os
import random
import re
import subprocess
import tomllib

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from make_labelled_crawl import TOKEN, jaccard, shingles, tokens

TAGS = re.compile(r"<script.*?</script>|<style.*?</style>|<[^>]*>", re.S | re.I)
BLOCK = re.compile(r"<(h[1-3]|p|pre|li)\b[^>]*>(.*?)</\1>", re.S | re.I)
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
COREUTILS_LANGS = ["de", "fr", "pl", "cs", "ru", "uk"]
RBE_LANGS = ["en", "es", "ja", "ko", "zh"]
RELEASES = [("aurora", "2025"), ("borealis", "2026")]
CHROME_SENTENCES = [
    "Our volunteers review every submission before it is published",
    "Pages are rebuilt nightly from the upstream metadata",
    "If something looks wrong, open a ticket on the tracker and include the page address",
    "Mirrors are synchronised four times a day and listed on the status page",
    "This service is run by a non-profit association and funded by donations",
    "Hosting is provided free of charge by our infrastructure partners",
    "All names and logos are the property of their respective owners",
    "Content is available under the licence stated on each page unless otherwise noted",
    "Please read the acceptable use policy before mirroring anything from this site",
    "We use cookies to remember your settings and to count visits anonymously",
    "By continuing to browse you agree to our use of cookies",
    "Subscribe to the newsletter to get the week's best reads every Friday morning",
    "We never share your address and you can unsubscribe at any time",
    "I have been writing software for twenty years, mostly systems code and tools for other programmers",
    "This blog is where I keep notes on what I learn, in the hope that they help someone else",
    "Opinions are my own and not those of my employer",
    "Comments are moderated and may take a day to appear",
    "Be kind, stay on topic, and do not post personal information about others",
    "Found a mistake? Send a correction and we will fix it as soon as we can",
    "The archive goes back to the first issue and every page keeps its original address",
    "Our editors pick the most useful guides from around the web every week",
    "Advertising keeps this site free; thank you for not blocking it",
    "Sponsored links are marked and never influence what we write",
    "Questions about your account go to the help desk, which answers within two working days",
    "The search box at the top finds pages, people and packages",
    "Translations are contributed by readers and reviewed by native speakers",
    "Printed copies of the guide can be ordered from the shop",
    "The team meets every second Tuesday and the minutes are public",
    "Security issues should be reported privately to the address on the contact page",
    "Thanks to everyone who sent feedback on the new design",
]


def esc(s):
    return html.escape(s, quote=True)


# ---------------------------------------------------------------------------------------------
# Sources


def prose_of_readme(text):
    """The README's prose paragraphs (badges, code, tables, headings and link lines dropped)."""
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    paras = []
    for block in re.split(r"\n\s*\n", text):
        b = " ".join(block.split())
        if not b or b[0] in "#|<![>*-=" or b.startswith("[!") or "](http" in b and len(b) < 120:
            continue
        b = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", b)
        b = re.sub(r"[`*_]", "", b)
        if len(b.split()) >= 8:
            paras.append(b)
    return paras


def load_crates():
    """The registry's packages, one per name (the newest version), by name."""
    out = {}
    root = os.path.expanduser("~/.cargo/registry/src")
    for path in sorted(glob.glob(os.path.join(root, "*", "*", "Cargo.toml"))):
        try:
            d = tomllib.load(open(path, "rb"))
        except (OSError, tomllib.TOMLDecodeError):
            continue
        pk = d.get("package", {})
        name, version, summary = pk.get("name"), pk.get("version"), pk.get("description")
        if not (isinstance(name, str) and isinstance(version, str) and isinstance(summary, str)):
            continue
        readme = pk.get("readme", "README.md")
        readme = "README.md" if readme is True else readme
        paras = []
        if isinstance(readme, str):
            p = os.path.join(os.path.dirname(path), readme)
            if os.path.exists(p):
                paras = prose_of_readme(open(p, encoding="utf-8", errors="replace").read())
        words = 0
        long = []
        for p in paras:
            if words >= 260:
                break
            long.append(p)
            words += len(p.split())
        if words < 40:
            continue
        deps = sorted(k for k, v in d.get("dependencies", {}).items()
                      if isinstance(v, (str, dict)))[:10]
        reqs = {}
        for k in deps:
            v = d["dependencies"][k]
            reqs[k] = v if isinstance(v, str) else str(v.get("version", "*"))
        out[name] = {
            "name": name, "version": version, "summary": " ".join(summary.split()),
            "long": long, "deps": reqs, "license": str(pk.get("license", "unknown")),
            "keywords": [k for k in pk.get("keywords", []) if isinstance(k, str)][:5],
            "size": os.path.getsize(path) * 37 + len(" ".join(long)) * 11,
        }
    return out


def rbe_root():
    sysroot = subprocess.check_output(["rustc", "--print", "sysroot"], text=True).strip()
    return os.path.join(sysroot, "share/doc/rust/html/rust-by-example")


def blocks_of_html(body):
    """(kind, text) blocks of a page's <main>: h, p, code, li."""
    m = re.search(r"<main>(.*?)</main>", body, re.S)
    if not m:
        return []
    out = []
    for tag, inner in BLOCK.findall(m.group(1)):
        text = html.unescape(TAGS.sub("", inner)) if tag.lower() == "pre" else \
            " ".join(html.unescape(TAGS.sub(" ", inner)).split())
        if not text.strip():
            continue
        kind = {"pre": "code", "li": "li"}.get(tag.lower(), "h" if tag.lower().startswith("h") else "p")
        out.append((kind, text.strip("\n")))
    return out


def load_rbe():
    """Rust by Example chapters: {path: {lang: doc}} for chapters present in every language."""
    root = rbe_root()
    chapters = collections.defaultdict(dict)
    for lang in RBE_LANGS:
        base = root if lang == "en" else os.path.join(root, lang)
        for path in sorted(glob.glob(os.path.join(base, "**", "*.html"), recursive=True)):
            rel = os.path.relpath(path, base)
            if rel.split(os.sep)[0] in RBE_LANGS or rel in ("print.html", "index.html", "404.html", "toc.html"):
                continue
            blocks = blocks_of_html(open(path, encoding="utf-8", errors="replace").read())
            text_words = sum(len(t.split()) for k, t in blocks if k != "code")
            if lang in ("ja", "zh"):
                text_words = sum(len(t) for k, t in blocks if k != "code") // 3
            if text_words < 60 or not blocks or blocks[0][0] != "h":
                continue
            chapters[rel][lang] = {"lang": lang, "title": blocks[0][1], "blocks": blocks[1:],
                                   "slug": rel[:-5].replace(os.sep, "-")}
    # A translation that is the English page itself is no translation.
    out = {}
    for rel, by in sorted(chapters.items()):
        if "en" not in by:
            continue
        en = by["en"]["blocks"]
        by = {l: d for l, d in by.items() if l == "en" or d["blocks"] != en}
        out[rel] = by
    return out


def load_coreutils():
    """Pages of coreutils' help texts in each translation: {lang: [doc]} (one page a group of
    four long messages, the same grouping in every language; its title the first message's
    first line)."""
    msgs = None
    per = {}
    for lang in COREUTILS_LANGS:
        p = f"/usr/share/locale/{lang}/LC_MESSAGES/coreutils.mo"
        if not os.path.exists(p):
            continue
        cat = gettext.GNUTranslations(open(p, "rb"))._catalog
        per[lang] = cat
        keys = {k for k, v in cat.items() if isinstance(k, str) and len(k) >= 160 and v}
        msgs = keys if msgs is None else msgs & keys
    if not msgs:
        return {}
    msgs = sorted(msgs)
    out = {}
    for lang, cat in per.items():
        docs = []
        for i in range(0, len(msgs) - 3, 4):
            group = [cat[k] for k in msgs[i:i + 4]]
            blocks = []
            for g in group:
                for para in re.split(r"\n\s*\n", g.replace("%s", "cmd").replace("%%", "%")):
                    lines = [" ".join(l.split()) for l in para.splitlines() if l.strip()]
                    if lines:
                        blocks.append(("p", " ".join(lines)))
            first = group[0].strip().splitlines()[0]
            title = " ".join(re.sub(r"[%:.]", " ", first).split()[:7]) or f"coreutils {i}"
            docs.append({"lang": lang, "title": title, "blocks": blocks, "slug": f"help-{i // 4}"})
        out[lang] = docs
    return out


# ---------------------------------------------------------------------------------------------
# Edits


def edit_words(rng, text, share, vocab):
    """`text` with about `share` of its words (characters, in unspaced CJK text) replaced,
    deleted or joined by a new one."""
    spaced = text.count(" ") * 12 >= len(text)
    words = text.split(" ") if spaced else list(text)
    out = []
    for w in words:
        r = rng.random()
        if r < share / 3:
            out.append(rng.choice(vocab))
        elif r < 2 * share / 3:
            continue
        elif r < share:
            out.extend([w, rng.choice(vocab)])
        else:
            out.append(w)
    return (" " if spaced else "").join(out)


def edit_doc(rng, doc, share):
    vocab = [w for k, t in doc["blocks"] if k == "p"
             for w in (t.split(" ") if cjk(doc["lang"]) is False else list(t)) if w.isalpha()] or ["the"]
    blocks = [(k, edit_words(rng, t, share, vocab) if k == "p" else t) for k, t in doc["blocks"]]
    return dict(doc, blocks=blocks)


def cjk(lang):
    return lang in ("ja", "zh")


def prefix_blocks(doc, share):
    """The blocks of the first `share` of the page's text."""
    total = sum(len(t) for _, t in doc["blocks"])
    out, n = [], 0
    for k, t in doc["blocks"]:
        if n >= share * total:
            break
        out.append((k, t))
        n += len(t)
    return out


# ---------------------------------------------------------------------------------------------
# Templates


def render_blocks(blocks, style):
    """Blocks in one markup convention: p, para (div.para), br (paragraphs and code lines as
    text broken by <br>), bare (divs)."""
    out = []
    for k, t in blocks:
        if k == "h":
            out.append({"p": f"<h2>{esc(t)}</h2>", "para": f"<div class=\"para-head\"><b>{esc(t)}</b></div>",
                        "br": f"<b>{esc(t)}</b><br>", "bare": f"<div><strong>{esc(t)}</strong></div>"}[style])
        elif k == "code":
            if style == "br":
                out.append("<tt>" + "<br>".join(esc(l) for l in t.splitlines()) + "</tt><br><br>")
            elif style == "para":
                out.append("<div class=\"code\">" + "".join(f"<span>{esc(l)}</span><br>" for l in t.splitlines()) + "</div>")
            elif style == "bare":
                out.append(f"<pre>{esc(t)}</pre>")
            else:
                out.append(f"<pre><code>{esc(t)}</code></pre>")
        elif k == "li":
            out.append({"p": f"<ul><li>{esc(t)}</li></ul>", "para": f"<div class=\"para\">&bull; {esc(t)}</div>",
                        "br": f"&middot; {esc(t)}<br>", "bare": f"<div>- {esc(t)}</div>"}[style])
        else:
            out.append({"p": f"<p>{esc(t)}</p>", "para": f"<div class=\"para\">{esc(t)}</div>",
                        "br": f"{esc(t)}<br><br>", "bare": f"<div>{esc(t)}</div>"}[style])
    return "\n".join(out)


def links(items, sep=" "):
    return sep.join(f"<a href=\"{esc(u)}\">{esc(t)}</a>" for u, t in items)


def ul(items, cls=""):
    c = f" class=\"{cls}\"" if cls else ""
    return f"<ul{c}>" + "".join(f"<li><a href=\"{esc(u)}\">{esc(t)}</a></li>" for u, t in items) + "</ul>"


class Site:
    """A generated site: host, name, layout and markup, and the chrome its pages repeat."""

    def __init__(self, rng, host, name, layout, markup, words):
        self.host, self.name, self.layout, self.markup = host, name, layout, markup
        base = f"https://{host}/"
        self.nav = [(base + f"c/{w}", w.capitalize()) for w in rng.sample(words, 14)]
        self.side = [(base + f"p/{w}", f"{w.capitalize()} {rng.choice(words)}") for w in rng.sample(words, 12)]
        self.foot = [(base + f"about/{w}", w.capitalize()) for w in rng.sample(words, 8)]
        self.prose = ". ".join(rng.sample(CHROME_SENTENCES, rng.randint(4, 7))) + "."
        self.about = ". ".join(rng.sample(CHROME_SENTENCES, rng.randint(3, 6))) + "."
        self.notice = ". ".join(rng.sample(CHROME_SENTENCES, 2)) + "."
        self.tagline = f"{name}: " + " ".join(rng.sample(words, 6))

    def page(self, title, main, *, head_extra="", banner="", related=(), charset="utf-8"):
        """A whole page: this site's chrome around `main` (already HTML)."""
        rel = ""
        if related:
            rel = "<div class=\"related-box\"><h3>Related</h3>" + ul(related) + "</div>"
        head = (f"<!DOCTYPE html><html><head><meta charset=\"{charset}\"><title>{esc(title)}</title>"
                f"{head_extra}</head><body>{banner}")
        if self.notice:
            head += f"<div class=\"notice-bar\">{esc(self.notice)}</div>"
        about = f"<h3>About</h3><p>{esc(self.about)}</p>" if self.about else ""
        if self.layout == "landmarks":
            body = (f"<header><a href=\"https://{self.host}/\">{esc(self.name)}</a><p>{esc(self.tagline)}</p>"
                    f"<nav>{ul(self.nav)}</nav></header><main><article>{main}{rel}</article></main>"
                    f"<aside>{about}<h3>Popular</h3>{ul(self.side)}</aside>"
                    f"<footer>{ul(self.foot)}<p>{esc(self.prose)}</p></footer>")
        elif self.layout == "classes":
            body = (f"<div class=\"site-header\"><div class=\"navbar\">{ul(self.nav, 'menu')}</div>"
                    f"<div class=\"tagline\">{esc(self.tagline)}</div></div>"
                    f"<div class=\"wrap\"><div class=\"content\">{main}{rel}</div>"
                    f"<div class=\"col-side\">{about}<h3>Popular</h3>{ul(self.side)}</div></div>"
                    f"<div class=\"site-info\"><p>{esc(self.prose)}</p>{ul(self.foot)}</div>")
        elif self.layout == "ids":
            body = (f"<div id=\"top\"><div id=\"menu\">{links(self.nav)}</div><h4>{esc(self.tagline)}</h4></div>"
                    f"<div id=\"page\">{main}{rel}</div>"
                    f"<div id=\"col2\">{about}<h4>Popular</h4>{links(self.side, '<br>')}</div>"
                    f"<div id=\"legal\"><p>{esc(self.prose)}</p>{links(self.foot)}</div>")
        elif self.layout == "tables":
            body = (f"<table width=\"100%\"><tr><td colspan=\"2\"><b>{esc(self.name)}</b> - {esc(self.tagline)}"
                    f"<br>{links(self.nav, ' | ')}</td></tr><tr><td width=\"22%\" valign=\"top\">"
                    f"{about}<b>Popular</b><br>{links(self.side, '<br>')}</td><td valign=\"top\">{main}{rel}</td></tr>"
                    f"<tr><td colspan=\"2\"><font size=\"1\">{esc(self.prose)}</font><br>{links(self.foot, ' | ')}"
                    f"</td></tr></table>")
        else:  # bare divs, no telling names
            body = (f"<div>{ul(self.nav)}<p>{esc(self.tagline)}</p></div><div>{main}{rel}</div>"
                    f"<div>{about}<p>Popular</p>{ul(self.side)}</div><div><p>{esc(self.prose)}</p>{ul(self.foot)}</div>")
        return head + body + "</body></html>\n"

    def article(self, doc, *, title=None, blocks=None, extra="", banner="", charset="utf-8"):
        blocks = doc["blocks"] if blocks is None else blocks
        main = f"<h1>{esc(doc['title'])}</h1>\n{extra}{render_blocks(blocks, self.markup)}"
        return self.page(title or f"{doc['title']} - {self.name}", main, banner=banner, charset=charset)


FIELD_STYLES = ["table", "dl", "list", "br", "spans"]


def field_html(style, fields):
    if style == "table":
        return "<table class=\"fields\">" + "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in fields) + "</table>"
    if style == "dl":
        return "<dl>" + "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in fields) + "</dl>"
    if style == "list":
        return "<ul class=\"meta\">" + "".join(f"<li>{esc(k)}: {esc(v)}</li>" for k, v in fields) + "</ul>"
    if style == "br":
        return "".join(f"<b>{esc(k)}:</b> {esc(v)}<br>" for k, v in fields)
    return "<div class=\"facts\">" + "".join(f"<span class=\"k\">{esc(k)}</span> <span>{esc(v)}</span> " for k, v in fields) + "</div>"


class Catalogue(Site):
    """A package catalogue site: its own field names and order, title pattern, URL pattern."""

    def __init__(self, rng, host, name, layout, markup, words, fields, title_fmt):
        super().__init__(rng, host, name, layout, markup, words)
        self.fields_style = fields
        self.title_fmt = title_fmt
        self.labels = rng.choice([
            ("Version", "License", "Size", "Depends", "Keywords"),
            ("Latest release", "Licence", "Download size", "Requires", "Tags"),
            ("Current version", "License terms", "Package size", "Dependencies", "Topics"),
            ("Ver.", "Copying", "Archive", "Needs", "Categories"),
        ])
        self.order = rng.sample(range(5), 5)

    def url(self, item, release=None):
        if release:
            return f"https://{self.host}/{release}/{item['name']}"
        return f"https://{self.host}/pkg/{item['name']}"

    def item_page(self, item, related, *, release=None, downloads=0):
        lab = self.labels
        deps = ", ".join(f"{k} ({v})" for k, v in item["deps"].items()) or "none"
        vals = [item["version"], item["license"], f"{item['size']:,} bytes", deps,
                ", ".join(item["keywords"]) or "-"]
        fields = [(lab[i], vals[i]) for i in self.order]
        if downloads:
            fields.append(("Downloads", f"{downloads:,}"))
        desc = f"<p class=\"summary\"><b>{esc(item['summary'])}</b></p>" + render_blocks(
            [("p", p) for p in item["long"]], self.markup)
        main = (f"<h1>{esc(item['name'])}</h1>{field_html(self.fields_style, fields)}"
                f"<div class=\"description\">{desc}</div>")
        rel = [(self.url(r, release), f"{r['name']} - {r['summary']}") for r in related]
        rname = release or ""
        title = self.title_fmt.format(name=item["name"], version=item["version"], release=rname,
                                      site=self.name)
        return self.page(title, main, related=rel)


def release_of(rng, item, share):
    """The same package in an older release: lower version, older dependency requirements,
    another size, the description edited by about `share` of its words."""
    parts = [int(x) if x.isdigit() else 0 for x in re.split(r"[.+-]", item["version"])[:3]] + [0, 0, 0]
    major, minor, patch = parts[:3]
    if patch > 0:
        patch = rng.randint(0, patch - 1)
    elif minor > 0:
        minor, patch = rng.randint(0, minor - 1), rng.randint(0, 9)
    else:
        major, minor, patch = max(0, major - 1), rng.randint(1, 9), rng.randint(0, 9)
    vocab = [w for p in item["long"] for w in p.split(" ") if w.isalpha()] or ["the"]
    long = [edit_words(rng, p, share, vocab) for p in item["long"]]
    deps = {k: re.sub(r"\d+", lambda m: str(max(0, int(m.group()) - rng.randint(0, 1))), v, count=2)
            for k, v in item["deps"].items()}
    if deps and rng.random() < 0.5:
        deps.pop(rng.choice(sorted(deps)))
    return dict(item, version=f"{major}.{minor}.{patch}", long=long, deps=deps,
                size=int(item["size"] * rng.uniform(0.8, 0.97)))


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
    for i, (key, d) in enumerate(docs):
        lang = d["lang"]
        path = f"{key[0]}/{lang}/{d['slug']}"
        u0 = c.add(f"https://{home.host}/{path}", home.article(d), lang)
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
                u = c.add(f"https://{home.host}/{path}?sid={r.getrandbits(64):016x}",
                          home.article(d, extra=f"<p>Session {r.getrandbits(32):08x}</p>"), lang)
            elif easy == "small-edit":
                u = c.add(f"https://{home.host}/rev/{path}", home.article(edit_doc(r, d, 0.01)), lang)
            elif easy == "alias":
                u = c.add(f"https://www.{home.host}/{path}", home.article(d), lang)
            else:
                u = c.add(f"https://{home.host}/{path}?utm_source=feed&utm_medium=rss&ref={r.randint(1, 9999)}",
                          home.article(d), lang)
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
