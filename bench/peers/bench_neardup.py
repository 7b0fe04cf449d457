#!/usr/bin/env python3
"""neardup in the peer benchmark's format (../shared/bench/peers): runs `neardup dedup` on a JSONL
corpus with the common parameters and writes <name>__<corpus>.json plus
<name>__<corpus>.clusters.<kind>.jsonl (sorted corpus ids per line), so that the peers' own
make_table.py and evaluate.py score neardup exactly like the other tools.

Common parameters: lowercase Unicode letter/digit runs as tokens (neardup's plain-text
tokenizer; `_` and punctuation separate), word 5-grams without wrap-around, a page with fewer
than 5 tokens is one shingle of all its tokens; 128 min-hashes; LSH 9 bands x 13 rows
(threshold 0.8, chosen by neardup's optimizer); pairs accepted at estimated Jaccard >= 0.8
("verified"), or at exact Jaccard >= 0.8 with --verify ("exact").

`sig s` = neardup's read + tokenize + shingle + min-hash stage (one streaming pass over the JSONL;
it includes JSON parsing and reading the file, which the peers time separately as "load").

`bands` uses the default min-hash family (one-permutation hashing densified by re-hashing rounds);
`bands-rabin` the same with the papers' 128 independent Rabin functions.

Usage: bench_neardup.py --corpus C [--variant bands|bands-rabin|bands-exact|shingling] [--neardup BIN]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.environ.get("PEERS_DIR", os.path.join(os.path.dirname(__file__), "../../../shared/bench/peers")))
import common  # noqa: E402

# The peers' task is Jaccard >= 0.8 over the common tokenization: containment acceptance (on by
# default with bands since the accuracy defaults) is turned off, and signatures are taken over
# every term (--content page; the default main content counts each domain name, URL and the
# page's own host and path as one term, which the common tokenization does not).
JACCARD = ["--lsh", "bands", "--minhashes", "128", "--threshold", "0.8", "--containment", "off"]
VARIANTS = {
    "bands": JACCARD,
    "bands-rabin": JACCARD + ["--minhash", "rabin"],
    # The same run without report.html (and the second pass over the input its side-by-side
    # samples take): what the report costs.
    "bands-no-report": JACCARD + ["--no-report"],
    "bands-exact": JACCARD + ["--verify"],
    # More bands of fewer rows: pairs near the threshold meet in a band far more often (a pair at
    # Jaccard 0.8 with probability 0.95 for 16 x 8, 0.68 for 12 x 10, instead of 0.40 for 9 x
    # 13), each still accepted on its scores.
    "bands-16x8": JACCARD + ["--bands", "16", "--rows", "8"],
    "bands-12x10": JACCARD + ["--bands", "12", "--rows", "10"],
    "shingling": ["--lsh", "supershingles", "--level", "very-similar"],
    "bands-star": JACCARD + ["--cluster", "star"],
    "bands-exact-star": JACCARD + ["--verify", "--cluster", "star"],
}
# make_table.py shows "verified" (pairs checked against the threshold) and "candidates" columns.
KIND = {v: "verified" for v in VARIANTS}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--variant", default="bands", choices=sorted(VARIANTS))
    ap.add_argument("--neardup", default=os.path.join(os.path.dirname(__file__), "../../target/release/neardup"))
    a = ap.parse_args()
    out = tempfile.mkdtemp(prefix="neardup-bench-")
    cmd = [a.neardup, "dedup", a.corpus, "--out", out, "-q", "--no-wrap", "-k", "5", "--content", "page",
           "--text-field", "text", "--id-field", "id", "--url-field", "url"] + VARIANTS[a.variant]
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True)
    summary = json.load(open(os.path.join(out, "summary.json")))
    # Harness-only work (excluded from e2e like the peers' "read_clusters"/"load_for_stats").
    t0 = time.time()
    text_bytes = 0
    with open(a.corpus, "rb") as f:
        for line in f:
            text_bytes += len(json.loads(line)["text"].encode("utf-8"))
    by_cluster = {}
    with open(os.path.join(out, "clusters.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            by_cluster.setdefault(r["cluster"], []).append(int(r["id"]))
    clusters = [sorted(v) for _, v in sorted(by_cluster.items())]
    harness = time.time() - t0
    version = subprocess.run([a.neardup, "--version"], capture_output=True, text=True).stdout.strip()
    m = summary["config"]["matching"]
    meta = {
        "version": version,
        "threaded": "Rust, %d threads (readers + workers, rayon for tables)" % summary["threads"],
        "params": {"num_perm": summary["params"]["m"], "ngram": 5, "threshold": summary["config"]["threshold"],
                   "b": m.get("bands", "ss"), "r": m.get("rows", m.get("min_agree"))},
        "phases": dict([("signatures", summary["seconds_read_and_sketch"])]
                       + [(n, t) for n, t in summary["counts"]["seconds"]]
                       + [("read_clusters", round(harness, 3))]),
        "signature_s": summary["seconds_read_and_sketch"],
        "text_bytes": text_bytes,
        "tokenization": common.TOKENIZATION + " (neardup: Rust char::is_alphanumeric runs, lowercased)",
        "docs": summary["pages_sketched"] + summary["pages_without_terms"],
    }
    common.write_results("neardup", a.variant, a.corpus, meta, {KIND[a.variant]: clusters})


if __name__ == "__main__":
    main()
