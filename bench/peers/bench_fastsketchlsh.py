#!/usr/bin/env python3
"""fastsketchlsh (PyPI `fastsketchlsh`, module `FastSketchLSH`; C++ with SIMD and OpenMP)
near-duplicate benchmark, the peers' task of ../shared/bench/peers (same corpus, tokenization,
5-word shingles, threshold 0.8, result files).

Pipeline:
  signatures: common tokenization/shingling in Python and FastSimilaritySketch.batch (C++, one
              thread per process) in --procs forked processes; sketch rows (uint64) back to the
              parent.
  lsh:        LSH(num_perm, num_bands).insert of the sketch matrix, then one batch query.
  clusters:   "candidates" = every band collision; "verified" = pairs with
              estimate_jaccard >= 0.8.
  native:     LSH.insert_and_query_duplicates on a fresh index (its own keep/drop flags),
              timed separately, reported as "native_dedup_removed".

Its sketch size must be a power of two and its LSH needs num_perm % num_bands == 0, so
datasketch's 9 x 13 banding cannot be had: default --num-perm 128 --bands 8 (16 rows, as rensa's
default); --bands 16 (8 rows) finds more pairs near the threshold.

    python bench_fastsketchlsh.py --corpus $BENCH_WORK/corpus/rustdocs20k.jsonl
"""
import argparse
import os
import sys

sys.path.insert(0, os.environ.get("PEERS_DIR", os.path.join(os.path.dirname(__file__), "../../../shared/bench/peers")))
import common  # noqa: E402

NUM_PERM = 128
SEED = 42


def _init_worker():
    os.environ["OMP_NUM_THREADS"] = "1"


def sig_chunk(texts):
    import FastSketchLSH
    sets = [list(common.shingles(t)) for t in texts]
    nonempty = [s for s in sets if s]
    rows = iter(())
    if nonempty:
        sk = FastSketchLSH.FastSimilaritySketch(NUM_PERM, SEED)
        rows = iter(sk.batch(nonempty, num_threads=1))
    return [next(rows) if s else None for s in sets]


def main():
    global NUM_PERM
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--num-perm", type=int, default=128)
    ap.add_argument("--bands", type=int, default=8)
    ap.add_argument("--no-native", action="store_true")
    a = ap.parse_args()
    NUM_PERM = a.num_perm
    import numpy as np
    import FastSketchLSH
    from importlib.metadata import version

    ph = common.Phases()
    ph.start("load")
    ids, texts, nbytes = common.load_corpus(a.corpus)
    n = len(texts)
    ph.stop()

    ph.start("signatures")
    sigs = common.chunked_map(sig_chunk, texts, procs=a.procs, chunk=200, initializer=_init_worker)
    ph.stop()

    ph.start("lsh_insert")
    keys = [i for i, s in enumerate(sigs) if s is not None]
    matrix = np.ascontiguousarray(np.stack([sigs[i] for i in keys]).astype(np.uint64))
    lsh = FastSketchLSH.LSH(NUM_PERM, a.bands, num_threads=a.procs)
    lsh.insert(matrix)
    ph.stop()

    ph.start("lsh_query")
    res = lsh.query(matrix)
    pairs = []
    for row, cands in enumerate(res):
        i = keys[row]
        for c in cands:
            j = keys[c]
            if j > i:
                pairs.append((i, j))
    ph.stop()

    ph.start("verify_cluster")
    ver_pairs = [(i, j) for i, j in pairs
                 if FastSketchLSH.estimate_jaccard(sigs[i], sigs[j]) >= common.THRESHOLD]
    cand = common.clusters_from_pairs(n, pairs)
    ver = common.clusters_from_pairs(n, ver_pairs)
    ph.stop()

    native_removed = None
    if not a.no_native:
        ph.start("native_dedup")
        fresh = FastSketchLSH.LSH(NUM_PERM, a.bands, num_threads=a.procs)
        flags = fresh.insert_and_query_duplicates(matrix)
        native_removed = int(np.count_nonzero(flags))
        ph.stop()

    meta = {
        "version": version("fastsketchlsh"),
        "threaded": "signatures in %d processes (our Pool, C++ per batch); LSH insert/query: one call each, %d OpenMP threads" % (a.procs, a.procs),
        "docs": n, "text_bytes": nbytes,
        "params": {"num_perm": NUM_PERM, "threshold": common.THRESHOLD, "b": a.bands, "r": NUM_PERM // a.bands,
                   "ngram": common.NGRAM, "seed": SEED, "tokenization": common.TOKENIZATION},
        "candidate_pairs": len(pairs), "verified_pairs": len(ver_pairs),
        "native_dedup_removed": native_removed,
        "phases": ph.d, "signature_s": ph.d["signatures"],
        "e2e_excluding_native_s": round(sum(v for k, v in ph.d.items() if k != "native_dedup"), 3),
        "script_wall_s": ph.elapsed(),
    }
    variant = "" if (NUM_PERM, a.bands) == (128, 8) else "%dx%d" % (a.bands, NUM_PERM // a.bands)
    common.write_results("fastsketchlsh", variant, a.corpus, meta, {"candidates": cand, "verified": ver}, ids)


if __name__ == "__main__":
    main()
