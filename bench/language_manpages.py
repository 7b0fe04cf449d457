#!/usr/bin/env python3
"""neardup's languages against labels: translated manual pages of this machine.

    bench/language_manpages.py [--work DIR] [--bin target/release/examples/language_labels]

Each translated manual page under /usr/share/man/{de,es,fr,it,nl,pt,ru,sv,tr,ja,ko} is
rendered to text (`man -l`, `col -b`) and labelled with its directory's language; the English
pages of the same names (/usr/share/man/man1-8) are labelled English. Two kinds of documents
are scored: whole pages (a manual page's first 2 KB begin with its name, synopsis and option
lists, like a web page's menus) and their paragraphs of at least 150 bytes, joined onto one
line. Translations can be partial (an untranslated paragraph stays English), so no detector
reaches 100%; compare rows, not against 100.

The texts go through the `language_labels` example (`language::detect_bytes`, as a text page's
body is read); printed per kind: agreement per label, overall, and how many came out `und`.
Sources: dpkg, apt, shadow, man-db and the like (whatever this machine has installed); none of
the reserved evaluation sets.
"""

import argparse
import collections
import os
import re
import struct
import subprocess
import sys

LANGS = {"de": "deu", "es": "spa", "fr": "fra", "it": "ita", "nl": "nld", "pt": "por",
         "ru": "rus", "sv": "swe", "tr": "tur", "ja": "jpn", "ko": "kor"}


def render(path: str) -> str:
    r = subprocess.run(["sh", "-c", 'MANWIDTH=100 man -l "$1" 2>/dev/null | col -b', "sh", path],
                       capture_output=True)
    return r.stdout.decode("utf-8", "replace")


def documents():
    names = set()
    for d, code in LANGS.items():
        for root, _, files in sorted(os.walk(f"/usr/share/man/{d}")):
            for f in sorted(files):
                text = render(os.path.join(root, f))
                if len(text) >= 300:
                    names.add(f)
                    yield from split(code, text)
    for sec in range(1, 9):
        folder = f"/usr/share/man/man{sec}"
        for f in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
            if f in names:
                text = render(os.path.join(folder, f))
                if len(text) >= 300:
                    yield from split("eng", text)


def split(code: str, text: str):
    yield "page", code, text
    for para in re.split(r"\n\s*\n", text):
        para = " ".join(para.split())
        if len(para.encode()) >= 150:
            yield "para", code, para


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", default="/tmp/neardup-language-manpages")
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(__file__),
                                                  "../target/release/examples/language_labels"))
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    texts = os.path.join(a.work, "texts.bin")
    labels = []
    with open(texts, "wb") as out:
        for kind, code, text in documents():
            b = text.encode()
            out.write(struct.pack("<I", len(b)))
            out.write(b)
            labels.append((kind, code))
    if not labels:
        sys.exit("no translated manual pages under /usr/share/man")
    with open(texts, "rb") as stdin:
        got = subprocess.run([a.bin], stdin=stdin, capture_output=True, text=True,
                             check=True).stdout.split()
    langs = sorted({c for _, c in labels})
    print("| documents | " + " | ".join(langs) + " | all | und |")
    print("|---|" + "---:|" * (len(langs) + 2))
    for kind in ("page", "para"):
        per = collections.defaultdict(lambda: [0, 0])
        und = 0
        for g, (k, c) in zip(got, labels):
            if k == kind:
                per[c][0] += 1
                per[c][1] += g == c
                und += g == "und"
        total = sum(n for n, _ in per.values())
        right = sum(r for _, r in per.values())
        cells = " | ".join("%.1f%% of %d" % (100 * per[c][1] / per[c][0], per[c][0]) for c in langs)
        print(f"| {kind}s | {cells} | {100 * right / total:.2f}% | {und} |")


if __name__ == "__main__":
    main()
