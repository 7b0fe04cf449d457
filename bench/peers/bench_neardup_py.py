#!/usr/bin/env python3
"""neardup's Python package in the peer benchmark's format (../shared/bench/peers): the JSONL
corpus read from Python into a pyarrow table (pyarrow.json), then `neardup.dedup(table, ...)`
with the common parameters, the clusters written as <name>__<corpus>.clusters.verified.jsonl
so that the peers' make_table.py and evaluate.py score it like every other tool.

Common parameters, as bench_neardup.py gives the CLI: lowercase Unicode letter/digit runs as
tokens, word 5-grams without wrap-around, 128 min-hashes, LSH 9 bands x 13 rows (threshold 0.8,
chosen by the engine), pairs accepted at estimated Jaccard >= 0.8 (`verify=True`: exact
Jaccard), containment off, signatures over every term (content="page").

`sig s` is the `dedup` call (read in place + tokenize + shingle + min-hash + LSH + clusters);
`load` (pyarrow.json.read_json) is timed apart, as the peers time theirs.

--load-only stops after the load: its peak RSS is the table's, for the zero-copy check
(the dedup run's peak should be this plus what the CLI uses, not a second copy of the text).
The same check is also made inside the dedup run (Linux): the resident set after the load, then
the peak is reset (/proc/self/clear_refs) and read again after `dedup`; their difference is what
`dedup` added on top of the table (`memory` in the result JSON, printed to stderr). The mapped
corpus's page-cache pages count in RSS as file pages, so anonymous memory is reported apart.

    python bench_neardup_py.py --corpus C [--variant bands|bands-exact] [--load-only]
"""
import argparse
import os
import sys

sys.path.insert(0, os.environ.get("PEERS_DIR", os.path.join(os.path.dirname(__file__), "../../../shared/bench/peers")))
import common  # noqa: E402


def text_len(arr):
    """Bytes of text in a string array: its last offset minus its first (from the offsets
    buffer; pyarrow.compute's import alone would take 60 ms)."""
    import numpy as np
    if len(arr) == 0:
        return 0
    width = np.int64 if arr.type in ("large_string", "large_binary") else np.int32
    offsets = np.frombuffer(arr.buffers()[1], dtype=width)
    return int(offsets[arr.offset + len(arr)] - offsets[arr.offset])


def memory_kb():
    """This process's resident set from /proc/self/status (kB): VmRSS, VmHWM (peak since the
    last reset), RssAnon, RssFile; empty where /proc is missing."""
    try:
        with open("/proc/self/status") as f:
            rows = [line.split() for line in f]
    except OSError:
        return {}
    keys = ("VmRSS:", "VmHWM:", "RssAnon:", "RssFile:")
    return {r[0][:-1]: int(r[1]) for r in rows if r and r[0] in keys}


def reset_peak():
    """Resets VmHWM to the current resident set (Linux >= 4.0); False where not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def clusters_of(ids, cluster):
    """The clusters of the per-row result as sorted lists of ids, in cluster order (numpy, not
    a Python loop over the 110,432 rows)."""
    import numpy as np
    c = cluster.to_numpy(zero_copy_only=False)  # float64, NaN for rows in no cluster
    i = ids.to_numpy(zero_copy_only=False)
    keep = ~np.isnan(c)
    c, i = c[keep].astype(np.int64), i[keep]
    order = np.lexsort((i, c))
    c, i = c[order], i[order]
    cuts = np.flatnonzero(np.diff(c)) + 1
    return [g.tolist() for g in np.split(i, cuts)] if len(i) else []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--variant", default="bands", choices=["bands", "bands-exact"])
    ap.add_argument("--load-only", action="store_true")
    a = ap.parse_args()
    # numpy (imported by pyarrow) would start OpenBLAS threads that only compete with
    # neardup's workers for the cores.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    import pyarrow as pa
    import pyarrow.json as paj

    import neardup

    # jemalloc: the JSON reader's buffers grow in place instead of being copied and faulted
    # in again (pyarrow's default mimalloc pool took 0.3-1.1 s for this load, jemalloc
    # 0.36-0.5 s, and a third less memory).
    pa.set_memory_pool(pa.jemalloc_memory_pool())

    ph = common.Phases()
    ph.start("load")
    # A memory-mapped file: the reader parses the page cache where it is instead of reading
    # the file into buffers it allocated (a quarter fewer page faults, 30-70 ms less).
    table = paj.read_json(pa.memory_map(a.corpus), read_options=paj.ReadOptions(block_size=16 << 20), parse_options=paj.ParseOptions(
        explicit_schema=pa.schema([("id", pa.int64()), ("url", pa.string()), ("text", pa.string())])))
    table = table.combine_chunks() if table["text"].num_chunks > 64 else table
    ph.stop()
    text_bytes = sum(text_len(c) for c in table["text"].chunks)
    if a.load_only:
        print("table: %d rows, %d text bytes, %d Arrow bytes" % (table.num_rows, text_bytes, table.nbytes))
        return
    after_load = memory_kb()
    peak_reset = reset_peak()
    ph.start("dedup")
    result = neardup.dedup(table, text="text", id="id", threshold=0.8, containment=None,
                           num_perm=128, shingle=5, wrap=False, content="page",
                           verify=a.variant == "bands-exact")
    ph.stop()
    after_dedup = memory_kb()
    memory = {"after_load_kb": after_load, "after_dedup_kb": after_dedup, "peak_reset": peak_reset}
    if peak_reset and after_load and after_dedup:
        memory["dedup_added_peak_kb"] = after_dedup["VmHWM"] - after_load["VmRSS"]
        print("memory: table loaded %d MiB resident (%d anonymous, %d file), dedup's peak added %d MiB"
              % (after_load["VmRSS"] >> 10, after_load["RssAnon"] >> 10, after_load["RssFile"] >> 10,
                 memory["dedup_added_peak_kb"] >> 10), file=sys.stderr)
    ph.start("read_clusters")
    clusters = clusters_of(result["id"], result["cluster"])
    ph.stop()
    meta = {
        "version": "neardup %s (Python, pyarrow %s)" % (neardup.__version__, pa.__version__),
        "threaded": "Rust, all cores (GIL released)",
        "params": {"num_perm": 128, "ngram": 5, "threshold": 0.8, "b": 9, "r": 13},
        "phases": ph.d,
        "memory": memory,
        "signature_s": ph.d["dedup"],
        "text_bytes": text_bytes,
        "tokenization": common.TOKENIZATION + " (neardup: Rust char::is_alphanumeric runs, lowercased)",
        "docs": table.num_rows,
    }
    common.write_results("neardup-py", a.variant, a.corpus, meta, {"verified": clusters})


if __name__ == "__main__":
    main()
