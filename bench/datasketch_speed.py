#!/usr/bin/env python3
"""neardup.datasketch beside datasketch in one run (issue 39): each variant is a whole process,
run --runs times, alternating; the medians of its whole-process time and of its measured phase
are reported with the ratios, and every variant's answers are checked equal to datasketch's.

1. Signatures of --docs documents (each document's set of words, 128 permutations, datasketch 2's
   --scheme, affine32 by default):
   datasketch's `MinHash(128).update_batch(words)` per document; the same code with the one
   import switched to neardup.datasketch; and `neardup.datasketch.bulk_hashvalues` on the
   Arrow column of word lists (no Python call per document). The words come from a JSONL
   corpus's `text` (--corpus, e.g. the peers' corpus of ../shared/bench/peers/make_corpus.py)
   or, without one, from a fixed synthetic vocabulary.
2. LSH: --lsh signatures (synthetic sets in groups of near copies, 128 permutations, threshold
   0.8) inserted, then each queried: datasketch's `insert`/`query` loop; the same loop on
   neardup.datasketch; and neardup's batch calls `insert_many`/`query_many` on the matrix.
   The loops take `LeanMinHash(seed=1, hashvalues=row)` objects made from the matrix first
   (setup, not measured; datasketch's `MinHash(hashvalues=...)` would draw its permutations
   again for every object).

Usage: datasketch_speed.py --python PY --work DIR [--corpus JSONL] [--docs N] [--lsh N]
                           [--runs 3] [--out results.md]
"""
import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

PERMS = 128
THRESHOLD = 0.8
SCHEME = ["affine32"]  # datasketch 2's permutation scheme (--scheme)

SIGNATURES = r'''
import hashlib, json, sys, time
import numpy as np
variant, words_path = sys.argv[1], sys.argv[2]
import pyarrow.parquet as pq
docs = pq.read_table(words_path).column("words")
if variant == "bulk":
    from neardup.datasketch import bulk_hashvalues
    t = time.perf_counter()
    hv = bulk_hashvalues(docs, num_perm=PERMS, scheme="SCHEME")
    phase = time.perf_counter() - t
else:
    if variant == "datasketch":
        from datasketch import MinHash
    else:
        from neardup.datasketch import MinHash
    lists = [[w.encode() for w in d] for d in docs.to_pylist()]
    t = time.perf_counter()
    ms = []
    for d in lists:
        m = MinHash(num_perm=PERMS, scheme="SCHEME")
        m.update_batch(d)
        ms.append(m)
    phase = time.perf_counter() - t
    hv = np.stack([m.hashvalues for m in ms])
print(json.dumps({"phase": phase, "digest": hashlib.sha256(
    np.ascontiguousarray(hv, dtype="<u8").tobytes()).hexdigest()}))
'''.replace("PERMS", str(PERMS))

LSH = r'''
import hashlib, json, sys, time
import numpy as np
variant, matrix_path = sys.argv[1], sys.argv[2]
hv = np.load(matrix_path)
n = len(hv)
if variant == "datasketch":
    from datasketch import LeanMinHash, MinHashLSH
else:
    from neardup.datasketch import LeanMinHash, MinHashLSH
lsh = MinHashLSH(threshold=THRESHOLD, num_perm=PERMS)
if variant == "batch":
    t = time.perf_counter()
    lsh.insert_many(list(range(n)), hv)
    answers = lsh.query_many(hv)
    phase = time.perf_counter() - t
else:
    ms = [LeanMinHash(seed=1, hashvalues=row, scheme="SCHEME") for row in hv]
    t = time.perf_counter()
    for i, m in enumerate(ms):
        lsh.insert(i, m)
    answers = [lsh.query(m) for m in ms]
    phase = time.perf_counter() - t
h = hashlib.sha256()
found = 0
for a in answers:
    a = sorted(a)
    found += len(a)
    h.update(np.asarray(a, dtype="<i8").tobytes() + b"|")
print(json.dumps({"phase": phase, "digest": h.hexdigest(), "candidates": found,
                  "bands": [lsh.b, lsh.r]}))
'''.replace("PERMS", str(PERMS)).replace("THRESHOLD", str(THRESHOLD))


def words_table(corpus, docs, out):
    """`docs` documents' word lists as a Parquet column."""
    import random
    import pyarrow as pa
    import pyarrow.parquet as pq
    rows = []
    if corpus:
        with open(corpus, encoding="utf-8") as f:
            for line in f:
                text = json.loads(line).get("text") or ""
                rows.append(sorted(set(text.split())))
                if len(rows) == docs:
                    break
    else:
        rng = random.Random(1)
        for _ in range(docs):
            rows.append(sorted({"w%d" % rng.randrange(200_000) for _ in range(300)}))
    pq.write_table(pa.table({"words": pa.array(rows, pa.list_(pa.string()))}), out)
    return sum(len(r) for r in rows)


def lsh_matrix(n, out, python):
    """`n` signatures of synthetic sets: groups of four, each a copy of the group's first set
    with 1 to 6 of its 40 elements replaced (made by neardup.datasketch.bulk_hashvalues, which
    the checks of step 1 hold equal to datasketch's)."""
    code = r'''
import sys, numpy as np, pyarrow as pa
from neardup.datasketch import bulk_hashvalues
n, out = int(sys.argv[1]), sys.argv[2]
rng = np.random.default_rng(7)
base = rng.integers(0, 2**32, size=(n // 4 + 1, 40), dtype=np.uint64)
rows = np.repeat(base, 4, axis=0)[:n].copy()
for i in range(n):
    if i % 4:
        k = rng.integers(1, 7)
        rows[i, rng.choice(40, k, replace=False)] = rng.integers(0, 2**32, k, dtype=np.uint64)
col = pa.ListArray.from_arrays(pa.array(np.arange(0, 40 * n + 1, 40, dtype=np.int32)),
                               pa.array(rows.reshape(-1)))
np.save(out, bulk_hashvalues(col, num_perm=PERMS, scheme="SCHEME"))
'''.replace("PERMS", str(PERMS)).replace("SCHEME", SCHEME[0])
    subprocess.run([python, "-c", code, str(n), str(out)], check=True)


def run(python, script, variant, data):
    t = time.perf_counter()
    script = script.replace("SCHEME", SCHEME[0])
    r = subprocess.run([python, "-c", script, variant, str(data)], capture_output=True,
                       text=True)
    total = time.perf_counter() - t
    if r.returncode != 0:
        sys.exit(f"{variant} failed:\n{r.stderr[-3000:]}")
    got = json.loads(r.stdout.strip().splitlines()[-1])
    got["total"] = total
    return got


def compare(name, python, script, variants, data, runs):
    results = {v: [] for v in variants}
    for _ in range(runs):
        for v in variants:
            results[v].append(run(python, script, v, data))
    rows = []
    base = variants[0]
    med = {v: (statistics.median(r["phase"] for r in rs),
               statistics.median(r["total"] for r in rs)) for v, rs in results.items()}
    for v in variants:
        digests = {r["digest"] for r in results[v]}
        same = digests == {results[base][0]["digest"]}
        extra = results[v][0].get("candidates")
        rows.append((v, med[v][0], med[v][1], med[base][0] / med[v][0],
                     med[base][1] / med[v][1], same, extra))
    lines = [f"### {name}", "",
             "| variant | phase (s) | whole process (s) | phase ratio | process ratio | "
             "answers equal datasketch's |",
             "|---|---:|---:|---:|---:|---|"]
    for v, p, t, rp, rt, same, extra in rows:
        note = f" ({extra} candidates)" if extra is not None else ""
        lines.append(f"| {v} | {p:.3f} | {t:.2f} | {rp:.1f}x | {rt:.1f}x | "
                     f"{'yes' if same else 'NO'}{note} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--corpus")
    ap.add_argument("--docs", type=int, default=20000)
    ap.add_argument("--lsh", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--scheme", default="affine32", choices=["affine32", "affine64", "legacy"])
    ap.add_argument("--out")
    a = ap.parse_args()
    SCHEME[0] = a.scheme
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    words = work / "words.parquet"
    elements = words_table(a.corpus, a.docs, words)
    report = [f"{a.docs} documents ({elements} words in their sets"
              f"{', from ' + Path(a.corpus).name if a.corpus else ', synthetic'}), "
              f"{a.lsh} signatures for LSH, {PERMS} permutations, scheme {a.scheme!r}, "
              f"medians of {a.runs} "
              f"runs, variants alternating.\n"]
    report.append(compare("Signatures", a.python, SIGNATURES,
                          ["datasketch", "neardup.datasketch", "bulk"], words, a.runs))
    matrix = work / "signatures.npy"
    lsh_matrix(a.lsh, matrix, a.python)
    report.append(compare(f"LSH: {a.lsh} inserts, then {a.lsh} queries (threshold {THRESHOLD})",
                          a.python, LSH, ["datasketch", "neardup.datasketch", "batch"],
                          matrix, a.runs))
    text = "\n".join(report)
    print(text)
    if a.out:
        Path(a.out).write_text(text)


if __name__ == "__main__":
    main()
