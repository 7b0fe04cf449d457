#!/usr/bin/env python3
"""The paragraph pass over many synthetic documents in bounded memory, against a run with all
the memory it wants: the same spans and cleaned corpus, byte for byte.

    bench/paragraphs_10m.py --docs 10000000 --work /tmp/p10m [--neardup target/release/neardup]

Writes DIR/docs.jsonl.zst (zstd from the `zstandard` module, or `zstd` on the PATH): each
document 3-7 paragraphs drawn from a pool of shared paragraphs (boilerplate and quotes, in
several scripts: Latin, CJK, Arabic) and unique ones. Then runs `neardup paragraphs` twice
under /usr/bin/time -v, --mem-limit 2G and --mem-limit 20G, for each policy asked, and compares
the SHA-256 of spans.jsonl and of the cleaned file; prints one Markdown row per run (seconds,
peak RSS, bytes spilled, whether the answers are equal).
"""

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november "
         "oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu").split()
SHARED = [
    "Accept all cookies to continue browsing this site, or manage your preferences below.",
    "Home | About | Contact | Privacy policy | Terms of service | Sitemap",
    "本网站使用cookie来改善您的体验，继续浏览即表示您同意我们的隐私政策。",
    "جميع الحقوق محفوظة لهذا الموقع، ويمنع نسخ المحتوى دون إذن مسبق من الإدارة.",
    "Subscribe to our newsletter to receive the latest news and offers every week.",
    "Copyright © 2026 Example Media Group. All rights reserved. Reproduction prohibited.",
]


def sentence(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def generate(path: Path, docs: int, seed: int) -> None:
    rng = random.Random(seed)
    quotes = [sentence(rng, 12) for _ in range(5000)]  # repeated across a few documents each
    try:
        import zstandard
        out = zstandard.ZstdCompressor(level=3, threads=2).stream_writer(open(path, "wb"))
        proc = None
    except ImportError:
        proc = subprocess.Popen(["zstd", "-q", "-3", "-o", str(path)], stdin=subprocess.PIPE)
        out = proc.stdin
    buf = []
    for i in range(docs):
        paras = []
        for _ in range(rng.randint(3, 7)):
            r = rng.random()
            if r < 0.25:
                paras.append(rng.choice(SHARED))
            elif r < 0.45:
                paras.append(rng.choice(quotes))
            else:
                paras.append(sentence(rng, rng.randint(8, 20)) + f" {i}")
        buf.append(json.dumps({"id": f"d{i}", "text": "\n\n".join(paras)}, ensure_ascii=False))
        if len(buf) == 10000:
            out.write(("\n".join(buf) + "\n").encode())
            buf.clear()
    if buf:
        out.write(("\n".join(buf) + "\n").encode())
    out.close()
    if proc:
        proc.wait()


def sha(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def run(neardup: str, corpus: Path, out: Path, policy: str, mem: str, tmp: Path) -> dict:
    shutil.rmtree(out, ignore_errors=True)
    cmd = ["/usr/bin/time", "-v", neardup, "paragraphs", str(corpus), "-q", "--out", str(out),
           "--policy", policy, "--mem-limit", mem, "--tmp-dir", str(tmp),
           "--write-clean", str(out / "clean")]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr[-3000:]}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", p.stderr)
    secs = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
    summary = json.loads((out / "summary.json").read_text())
    clean = next((out / "clean").rglob("*.jsonl*"))
    got = {"seconds": secs, "rss_mib": rss / 1024, "summary": summary,
           "spans": sha(out / "spans.jsonl"), "clean": sha(clean)}
    shutil.rmtree(out)  # the spans of 10M documents take gigabytes: one run's at a time
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=10_000_000)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--neardup", default="target/release/neardup")
    ap.add_argument("--policy", action="append", default=None,
                    help="first-copy and/or boilerplate (default: both)")
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    a.work.mkdir(parents=True, exist_ok=True)
    corpus = a.work / "docs.jsonl.zst"
    if not corpus.exists():
        generate(corpus, a.docs, a.seed)
    print(f"corpus: {a.docs:,} documents, {corpus.stat().st_size / 2**20:,.0f} MiB zstd")
    print("| policy | --mem-limit | seconds | peak RSS MiB | units | units cut | spilled MiB | spans = | clean = |")
    print("|---|---|---:|---:|---:|---:|---:|---|---|")
    for policy in a.policy or ["first-copy", "boilerplate"]:
        got = {mem: run(a.neardup, corpus, a.work / f"out-{policy}-{mem}", policy, mem,
                        a.work) for mem in ["2G", "20G"]}
        for mem, g in got.items():
            s = g["summary"]
            print(f"| {policy} | {mem} | {g['seconds']:.0f} | {g['rss_mib']:,.0f} | "
                  f"{s['units']:,} | {s['units_cut']:,} | {s['spilled_bytes'] / 2**20:,.0f} | "
                  f"{g['spans'] == got['20G']['spans']} | {g['clean'] == got['20G']['clean']} |",
                  flush=True)
        if got["2G"]["spans"] != got["20G"]["spans"] or got["2G"]["clean"] != got["20G"]["clean"]:
            sys.exit("the bounded run's answer differs")


if __name__ == "__main__":
    os.umask(0o022)
    main()
