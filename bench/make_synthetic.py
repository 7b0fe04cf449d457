#!/usr/bin/env python3
"""Synthetic pages for the index's scale benchmarks (issue 18): N JSONL records
{"id", "url", "text"} written to standard output or --out, deterministic for --seed.

Text is drawn from a Zipf-like vocabulary of 60,000 invented words (lengths 30 to 300 words,
log-uniform), so pages share common words as real text does but two independent pages are far
below any near-duplicate threshold. A share of pages (--dup-share, 0.2) are near copies of one
of the last 20,000 originals: a few percent of their words replaced (0 to 6%), some cut short
or extended by a sentence, on another host or the same one, so the index holds real clusters.

Usage: make_synthetic.py --pages N [--out FILE] [--seed S] [--start I]
  --start I numbers the records from I (to make a second, disjoint batch of queries).
"""

import argparse
import itertools
import json
import random
import sys


def vocabulary(rng, n=60_000):
    letters = "abcdefghijklmnopqrstuvwxyz"
    words, seen = [], set()
    while len(words) < n:
        w = "".join(rng.choice(letters) for _ in range(rng.randint(3, 10)))
        if w not in seen:
            seen.add(w)
            words.append(w)
    weights = [1.0 / (r + 10) for r in range(n)]
    return words, list(itertools.accumulate(weights))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, required=True)
    ap.add_argument("--out", default="-")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--dup-share", type=float, default=0.2)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    words, cum = vocabulary(random.Random(1))
    out = sys.stdout if a.out == "-" else open(a.out, "w", encoding="utf-8")
    recent = []
    buf = []
    for i in range(a.start, a.start + a.pages):
        host = f"site{rng.randrange(200_000)}.example"
        if recent and rng.random() < a.dup_share:
            src_host, src = rng.choice(recent)
            text = list(src)
            for _ in range(int(len(text) * rng.uniform(0.0, 0.06))):
                text[rng.randrange(len(text))] = rng.choices(words, cum_weights=cum)[0]
            r = rng.random()
            if r < 0.1:
                text = text[: max(20, int(len(text) * 0.95))]
            elif r < 0.2:
                text += rng.choices(words, cum_weights=cum, k=12)
            if rng.random() < 0.5:
                host = src_host
        else:
            n = int(30 * (10 ** rng.random()))
            text = rng.choices(words, cum_weights=cum, k=n)
            if len(recent) < 20_000:
                recent.append((host, text))
            else:
                recent[rng.randrange(20_000)] = (host, text)
        buf.append(json.dumps({"id": f"s{i}", "url": f"https://{host}/p/{i}", "text": " ".join(text)}))
        if len(buf) >= 10_000:
            out.write("\n".join(buf) + "\n")
            buf.clear()
    if buf:
        out.write("\n".join(buf) + "\n")
    out.flush()


if __name__ == "__main__":
    main()
