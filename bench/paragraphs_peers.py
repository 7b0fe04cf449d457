#!/usr/bin/env python3
"""Repeated-line dedup beside its peers (issue 38), whole processes, medians of --runs, one run
of this script: neardup paragraphs (--unit line --policy first-copy --min-chars 0), dolma
dedupe (paragraphs = lines, a Bloom filter) and datatrove's sentence dedup (lines:
split_sentences=False, n_sentences=1), on one JSONL corpus (by default the peers' rustdocs
corpus, ../shared/bench/peers/make_corpus.py).

Each tool's answer is checked against a brute-force reference written here: a line is cut when
an earlier line (in corpus order, this document or an earlier one) has the same words (runs of
letters and digits, lowercased: neardup's key). Agreement is the precision and recall of a
tool's cut lines against the reference's.

Usage: paragraphs_peers.py --corpus FILE.jsonl --work DIR --neardup BIN [--python PY] [--runs 3]
  PY: a Python with dolma and datatrove installed (pip install dolma datatrove orjson).
"""
import argparse
import gzip
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

# Letters and digits as Rust's char::is_alphanumeric reads them (Unicode Alphabetic or Numeric):
# Python's \w leaves out the circled letters (Alphabetic symbols, U+24B6-U+24E9: rustdoc's "ⓘ").
WORD = re.compile(r"(?:[^\W_]|[\u24b6-\u24e9])+")


def lines_of(text):
    """(start char, line) of every non-blank line, as neardup cuts lines (\\n, \\r\\n)."""
    out, at = [], 0
    for raw in text.split("\n"):
        line = raw[:-1] if raw.endswith("\r") else raw
        if line.strip():
            out.append((at, line))
        at += len(raw) + 1
    return out


def reference(docs):
    first, cut = {}, set()
    for d, text in enumerate(docs):
        for u, (_, line) in enumerate(lines_of(text)):
            key = tuple(w.lower() for w in WORD.findall(line))
            if not key:
                continue
            if key in first:
                cut.add((d, u))
            else:
                first[key] = (d, u)
    return cut


def timed(cmd, **kw):
    t = time.time()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, **kw)
    return time.time() - t


DATATROVE = r'''
import sys
from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.readers import JsonlReader
from datatrove.pipeline.writers import JsonlWriter
from datatrove.pipeline.dedup.sentence_dedup import (SentDedupConfig, SentenceDedupSignature,
    SentenceFindDedups, SentenceDedupFilter)
corpus, work = sys.argv[1], sys.argv[2]
cfg = SentDedupConfig(n_sentences=1, split_sentences=False, min_doc_words=0,
                      min_num_sentences=0)
read = lambda: JsonlReader(corpus, glob_pattern=None, text_key="text", id_key="id")
LocalPipelineExecutor(pipeline=[read(), SentenceDedupSignature(f"{work}/sigs", config=cfg)],
                      tasks=1, workers=1, logging_dir=f"{work}/logs1").run()
LocalPipelineExecutor(pipeline=[SentenceFindDedups(f"{work}/sigs", f"{work}/dups", config=cfg)],
                      tasks=1, workers=1, logging_dir=f"{work}/logs2").run()
LocalPipelineExecutor(pipeline=[read(), SentenceDedupFilter(f"{work}/dups", config=cfg),
                                JsonlWriter(f"{work}/out", compression=None)],
                      tasks=1, workers=1, logging_dir=f"{work}/logs3").run()
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--neardup", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    work = Path(a.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    rows = [json.loads(l) for l in open(a.corpus)]
    docs = [r["text"] for r in rows]
    t = time.time()
    want = reference(docs)
    ref_seconds = time.time() - t
    n_lines = sum(len(lines_of(d)) for d in docs)
    # dolma reads gzipped JSON lines with string ids under documents/.
    (work / "dolma/documents").mkdir(parents=True)
    with gzip.open(work / "dolma/documents/part.json.gz", "wt") as f:
        for i, r in enumerate(rows):
            f.write(json.dumps({"id": str(i), "text": r["text"], "source": "bench"}) + "\n")
    dolma_bin = str(Path(a.python).parent / "dolma")
    times = {"neardup": [], "neardup --write-clean": [], "dolma": [], "datatrove": []}
    failed = {}
    for run in range(a.runs):
        nd = work / f"nd{run}"
        times["neardup"].append(timed([a.neardup, "paragraphs", a.corpus, "--unit", "line",
                                       "--min-chars", "0", "--format", "parquet", "-q",
                                       "--out", str(nd)]))
        times["neardup --write-clean"].append(timed(
            [a.neardup, "paragraphs", a.corpus, "--unit", "line", "--min-chars", "0", "--format",
             "parquet", "-q", "--out", str(nd), "--write-clean", str(work / f"ndc{run}")]))
        shutil.rmtree(work / "dolma/attributes", ignore_errors=True)
        (work / "bloom.bin").unlink(missing_ok=True)
        config = work / "dolma.json"
        config.write_text(json.dumps({
            "documents": [str(work / "dolma/documents/*.json.gz")],
            "dedupe": {"name": "dup", "paragraphs": {"attribute_name": "dup"}, "skip_empty": True},
            "bloom_filter": {"file": str(work / "bloom.bin"), "read_only": False,
                             "estimated_doc_count": n_lines,
                             "desired_false_positive_rate": 0.0001},
            "processes": 2}))
        times["dolma"].append(timed([dolma_bin, "-c", str(config), "dedupe"],
            stderr=subprocess.DEVNULL))
        dt = work / f"dt{run}"
        script = work / "datatrove_job.py"
        script.write_text(DATATROVE)
        try:
            times["datatrove"].append(timed([a.python, str(script), a.corpus, str(dt)],
                                            stderr=subprocess.DEVNULL))
        except subprocess.CalledProcessError:
            failed["datatrove"] = "failed (see its log under WORK/dt*/logs*)"
    got = {}
    # neardup: the spans table's (record, unit).
    import pyarrow.parquet as pq
    spans = pq.read_table(work / "nd0" / "spans.parquet", columns=["record", "unit"]).to_pylist()
    got["neardup"] = {(r["record"], r["unit"]) for r in spans}
    got["neardup --write-clean"] = got["neardup"]
    # dolma: spans of duplicate lines (character offsets) mapped to lines.
    cut = set()
    with gzip.open(work / "dolma/attributes/dup/part.json.gz", "rt") as f:
        for line in f:
            r = json.loads(line)
            d = int(r["id"])
            starts = {s: u for u, (s, _) in enumerate(lines_of(docs[d]))}
            for s, e, *_ in r["attributes"].get("dup", []):
                # dolma's span starts where the line does (its end may hold the line break).
                if s in starts:
                    cut.add((d, starts[s]))
    got["dolma"] = cut
    # datatrove: the lines each output document lost, in order.
    cut = set()
    if "datatrove" in failed:
        (work / "dt0" / "out").mkdir(parents=True, exist_ok=True)
    kept_text = {}
    for p in sorted((work / "dt0" / "out").glob("*.jsonl")):
        for line in open(p):
            r = json.loads(line)
            kept_text[str(r["id"])] = r["text"]
    for d, r in enumerate(rows):
        ls = lines_of(docs[d])
        out = kept_text.get(str(r["id"]))
        if out is None:
            cut.update((d, u) for u in range(len(ls)))
            continue
        remaining = [l for _, l in lines_of(out)]
        j = 0
        for u, (_, l) in enumerate(ls):
            if j < len(remaining) and remaining[j] == l:
                j += 1
            else:
                cut.add((d, u))
    got["datatrove"] = cut
    med = {k: statistics.median(v) for k, v in times.items() if v}
    print(f"corpus: {a.corpus} ({len(docs)} documents, {n_lines} non-blank lines; the reference "
          f"cuts {len(want)}, found in {ref_seconds:.1f} s)")
    print("| tool | median s | runs | vs neardup | lines cut | precision | recall |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for k in times:
        if k in failed:
            print(f"| {k} | {failed[k]} | | | | | |")
            continue
        g = got[k]
        tp = len(g & want)
        p = tp / len(g) if g else 1.0
        r = tp / len(want) if want else 1.0
        print(f"| {k} | {med[k]:.2f} | {', '.join(f'{x:.2f}' for x in times[k])} | "
              f"{med[k] / med['neardup']:.1f}x | {len(g)} | {p:.4f} | {r:.4f} |")


if __name__ == "__main__":
    main()
