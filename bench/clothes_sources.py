"""The sources of bench/make_clothes_crawl.py: the local cargo registry's crates as a package
catalogue, Rust by Example's chapters and coreutils' translated help texts as guide pages."""
import collections
import gettext
import glob
import html
import os
import re
import subprocess
import tomllib

TAGS = re.compile(r"<script.*?</script>|<style.*?</style>|<[^>]*>", re.S | re.I)
BLOCK = re.compile(r"<(h[1-3]|p|pre|li)\b[^>]*>(.*?)</\1>", re.S | re.I)
COREUTILS_LANGS = ["de", "fr", "pl", "cs", "ru", "uk"]
RBE_LANGS = ["en", "es", "ja", "ko", "zh"]


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
