"""How bench/make_clothes_crawl.py writes and changes pages: the edits between copies, the
markup conventions, and the sites (their templates and chrome) and catalogues."""
import html
import re

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


def chapter_nav(prev, next_):
    """Links to the previous and next chapters (URLs, or None), as guides end their pages."""
    parts = [f"<a href=\"{esc(u)}\">{label}</a>" for u, label in ((prev, "Previous chapter"), (next_, "Next chapter")) if u]
    return f"<p class=\"chapter-nav\">{' | '.join(parts)}</p>" if parts else ""


def with_query(html, host, param):
    """Every link of `html` to `host` with `param` (`sid=...`) in its query, as sites that keep a
    session in the URL write them."""
    def add(m):
        u = m.group(1)
        return f'href="{u}{"&amp;" if "?" in u else "?"}{param}"'
    return re.sub(r'href="(https://' + re.escape(host) + r'/[^"]*)"', add, html)


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

    def article(self, doc, *, title=None, blocks=None, extra="", trail="", banner="", charset="utf-8"):
        blocks = doc["blocks"] if blocks is None else blocks
        main = f"<h1>{esc(doc['title'])}</h1>\n{extra}{render_blocks(blocks, self.markup)}{trail}"
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
