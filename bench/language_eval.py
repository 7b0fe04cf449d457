#!/usr/bin/env python3
"""neardup's page languages against labels read off the URLs, beside langid.py (an offline
detector on PyPI) on the same documents.

    bench/language_eval.py CORPUS.jsonl
    bench/language_eval.py CORPUS.jsonl --sample-bytes 128,192,256,384,512,2048
    bench/language_eval.py CORPUS.jsonl --dump before.json          # with one build's wheel
    bench/language_eval.py CORPUS.jsonl --against before.json       # with another's

CORPUS is the peers' JSONL corpus of the development crawl (`../shared/bench/peers/
make_corpus.py`: id, url, text). Its Rust by Example pages come in five languages, the language
in the path: /rust-by-example/{es,ja,ko,zh}/... and English without one. Translations are
partial (an untranslated page stays English under its language's path), so the labels are
noisy; both detectors meet the same noise. Prints per label: pages, neardup's and langid's
agreement, what neardup said; the time of the whole `neardup.dedup` run (which detects each
page's language while it sketches) and of langid on the same 2 KB samples. The detector's own
cost is measured by whole runs with and without it (bench/results/language-*.md).

With --sample-bytes, each size N in the list is tried as the detector's sample: every document's
text cut to its first N bytes (on a character boundary, as the detector cuts its sample) goes
through `neardup.dedup`, whose detector then reads exactly those bytes. Printed per size: the
agreement with the URL labels per label, and on the whole corpus the share of documents whose
answer is the largest size's answer (among those the largest size gives a language).
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
    ap.add_argument("--sample-bytes", help="comma-separated sample sizes to compare")
    ap.add_argument("--dump", help="write every document's language (JSON list) to this file")
    ap.add_argument("--against", help="a --dump of another build: print where the two differ")
    a = ap.parse_args()
    if a.dump or a.against:
        compare_builds(a.corpus, a.dump, a.against)
        return
    if a.sample_bytes:
        sample_sizes(a.corpus, sorted(int(x) for x in a.sample_bytes.split(",")))
        return
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


def cut(text: str, n: int) -> str:
    """The longest prefix of text of at most n UTF-8 bytes ending on a character boundary."""
    return text.encode("utf-8")[:n].decode("utf-8", errors="ignore")


def label_of(url: str):
    m = re.search(r"/rust-by-example/(?:([a-z]{2})/)?", url)
    if not m or (m.group(1) and m.group(1) not in LABELS):
        return None
    return LABELS[m.group(1)]


def sample_sizes(corpus: str, sizes: list) -> None:
    import neardup
    docs = [json.loads(line) for line in open(corpus, encoding="utf-8")]
    ids = [str(i) for i in range(len(docs))]
    labels = [label_of(d.get("url", "")) for d in docs]
    said = {}
    for n in sizes:
        t = time.perf_counter()
        got = neardup.dedup([{"id": i, "text": cut(d["text"], n)} for i, d in zip(ids, docs)])
        secs = time.perf_counter() - t
        lang = dict(zip(got["id"].to_pylist(), got["language"].to_pylist()))
        said[n] = [lang[i] for i in ids]
        print(f"sample {n} B: neardup.dedup of {len(docs)} documents {secs:.2f} s", file=sys.stderr)
    top = sizes[-1]
    names = sorted({l for l in labels if l})
    print("| sample bytes | " + " | ".join(f"{l} ({labels.count(l)})" for l in names)
          + " | labelled | same as " + f"{top} B (all documents) | und |")
    print("|---:|" + "---:|" * (len(names) + 3))
    for n in sizes:
        cells = []
        agree_all = 0
        for l in names:
            k = sum(1 for s, lab in zip(said[n], labels) if lab == l and s == l)
            cells.append(f"{100 * k / labels.count(l):.1f}%")
            agree_all += k
        lab_n = sum(1 for l in labels if l)
        known = [(s, t) for s, t in zip(said[n], said[top]) if t != "und"]
        same = sum(1 for s, t in known if s == t)
        und = sum(1 for s in said[n] if s == "und")
        print(f"| {n} | " + " | ".join(cells) + f" | {100 * agree_all / lab_n:.1f}% | "
              f"{100 * same / len(known):.2f}% ({len(known) - same} differ) | {und} |")


def compare_builds(corpus: str, dump, against) -> None:
    """Every document's language by this build (whole texts), saved and/or compared with a
    list another build saved: agreement per URL label and on the whole corpus."""
    import neardup
    docs = [json.loads(line) for line in open(corpus, encoding="utf-8")]
    got = neardup.dedup([{"id": str(i), "text": d["text"]} for i, d in enumerate(docs)])
    lang = dict(zip(got["id"].to_pylist(), got["language"].to_pylist()))
    said = [lang[str(i)] for i in range(len(docs))]
    if dump:
        json.dump(said, open(dump, "w"))
    if not against:
        return
    other = json.load(open(against))
    labels = [label_of(d.get("url", "")) for d in docs]
    print("| URL label | pages | this build agrees | other build agrees |")
    print("|---|---:|---:|---:|")
    for l in sorted({x for x in labels if x}):
        idx = [i for i, x in enumerate(labels) if x == l]
        print(f"| {l} | {len(idx)} | {100 * sum(said[i] == l for i in idx) / len(idx):.1f}% | "
              f"{100 * sum(other[i] == l for i in idx) / len(idx):.1f}% |")
    differ = [i for i in range(len(docs)) if said[i] != other[i]]
    print(f"\nSame answer on {len(docs) - len(differ)} of {len(docs)} documents "
          f"({100 * (len(docs) - len(differ)) / len(docs):.2f}%); they differ on {len(differ)}:")
    pairs = collections.Counter((other[i], said[i]) for i in differ)
    print(", ".join(f"{a} -> {b}: {n}" for (a, b), n in pairs.most_common(12)))


if __name__ == "__main__":
    main()
