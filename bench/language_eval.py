#!/usr/bin/env python3
"""neardup's page languages against labels read off the URLs, beside langid.py (an offline
detector on PyPI) on the same documents.

    bench/language_eval.py CORPUS.jsonl [--python-with-neardup target/python/venv/bin/python]

CORPUS is the peers' JSONL corpus of the development crawl (`../shared/bench/peers/
make_corpus.py`: id, url, text). Its Rust by Example pages come in five languages, the language
in the path: /rust-by-example/{es,ja,ko,zh}/... and English without one. Translations are
partial (an untranslated page stays English under its language's path), so the labels are
noisy; both detectors meet the same noise. Prints per label: pages, neardup's and langid's
agreement, what neardup said; the time of the whole `neardup.dedup` run (which detects each
page's language while it sketches) and of langid on the same 2 KB samples. The detector's own
cost is measured by whole runs with and without it (bench/results/language-*.md).
"""

import argparse
import collections
import json
import re
import sys
import time

LABELS = {"es": "spa", "ja": "jpn", "ko": "kor", "zh": "cmn", None: "eng"}
LANGID = {"es": "spa", "ja": "jpn", "ko": "kor", "zh": "cmn", "en": "eng"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus")
    a = ap.parse_args()
    rows = []
    for line in open(a.corpus, encoding="utf-8"):
        r = json.loads(line)
        m = re.search(r"/rust-by-example/(?:([a-z]{2})/)?", r.get("url", ""))
        if not m or (m.group(1) and m.group(1) not in LABELS):
            continue
        rows.append({"id": str(r["id"]), "text": r["text"], "label": LABELS[m.group(1)]})
    import neardup
    t = time.perf_counter()
    got = neardup.dedup([{"id": r["id"], "text": r["text"]} for r in rows])
    nd_secs = time.perf_counter() - t
    nd = dict(zip(got["id"].to_pylist(), got["language"].to_pylist()))
    try:
        import langid
        langid.classify("warm up")
        t = time.perf_counter()
        li = {r["id"]: LANGID.get(langid.classify(r["text"][:2048])[0], "other") for r in rows}
        li_secs = time.perf_counter() - t
    except ImportError:
        li, li_secs = {}, None
    by = collections.defaultdict(lambda: [0, 0, 0, collections.Counter()])
    for r in rows:
        b = by[r["label"]]
        b[0] += 1
        b[1] += nd[r["id"]] == r["label"]
        b[2] += li.get(r["id"]) == r["label"]
        b[3][nd[r["id"]]] += 1
    print(f"{len(rows)} Rust by Example pages; neardup.dedup (detection with sketching and "
          f"clustering) {nd_secs:.2f} s" + (f"; langid.py on 2 KB samples {li_secs:.2f} s "
                                            f"({1e6 * li_secs / len(rows):.0f} µs a page)"
                                            if li_secs else ""))
    print("| URL label | pages | neardup agrees | langid agrees | neardup said |")
    print("|---|---:|---:|---:|---|")
    tot = [0, 0, 0]
    for label, (n, a_nd, a_li, conf) in sorted(by.items()):
        tot = [tot[0] + n, tot[1] + a_nd, tot[2] + a_li]
        said = ", ".join(f"{k} {v}" for k, v in conf.most_common(4))
        print(f"| {label} | {n} | {100 * a_nd / n:.1f}% | "
              f"{100 * a_li / n:.1f}% | {said} |" if li else
              f"| {label} | {n} | {100 * a_nd / n:.1f}% | — | {said} |")
    print(f"| all | {tot[0]} | {100 * tot[1] / tot[0]:.1f}% | "
          f"{100 * tot[2] / tot[0]:.1f}% | |")
    disagree = [r for r in rows if nd[r["id"]] != li.get(r["id"], nd[r["id"]])]
    print(f"neardup and langid disagree on {len(disagree)} pages")
    for r in disagree[:8]:
        print(f"  label {r['label']} neardup {nd[r['id']]} langid {li[r['id']]}: "
              f"{r['text'][:100]!r}", file=sys.stderr)


if __name__ == "__main__":
    main()
