#!/usr/bin/env python3
"""neardup on Ray (`neardup.ray.dedup`, through python/examples/ray_dedup.py) in the peer
benchmark's format, timed as bench_neardup_spark.py times the Spark job (same input, same
parameters, same clusters file), for the Ray-against-Spark ratio:

  1. JSONL -> one Parquet file (pyarrow).
  2. python python/examples/ray_dedup.py --num-cpus CORES --input PARQ --output OUT with the
     common parameters (128 min-hashes, word 5-grams without wrap-around, LSH bands for
     threshold 0.8 chosen by the engine, containment off, every term): a local Ray of CORES
     workers, started by the job (its start printed apart).
  3. Clusters = rows of OUT grouped by `cluster`, written as <name>__<corpus>.clusters.verified.jsonl.

Peak memory of the whole process tree (the driver, raylets, workers) sampled every 0.2 s (the
object store's shared pages counted in every process that maps them: an upper bound); the
bytes and rows into every shuffle and the largest task's memory from Ray Data's operator
metrics (the session's ray-data.log).

    python bench_neardup_ray.py --corpus C [--cores 2] [--partitions N]

Run it with a Python that has ray[data], polars, pyarrow and the neardup wheel installed.
"""
import argparse
import glob
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.environ.get("PEERS_DIR", os.path.join(os.path.dirname(__file__), "../../../shared/bench/peers")))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from bench_neardup_spark import read_clusters, run_sampled, write_input  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
WORK = os.path.join(os.environ.get("BENCH_WORK", "bench-work"), "ray_work")


def shuffle_metrics(log):
    """Bytes and rows into every shuffle (hash shuffles, joins' both sides, sorts) and the
    largest task memory (USS) sampled, from the operator metrics in a Ray session's
    ray-data.log (logged as each operator completes)."""
    t = {"bytes": 0, "rows": 0, "operators": 0, "max_task_uss_bytes": 0}
    lines = open(log).read().splitlines()

    def number(text, pattern):
        m = re.search(pattern, text)
        return int(float(m.group(1))) if m else 0

    for i, line in enumerate(lines[:-1]):
        if " completed. Operator Metrics:" not in line:
            continue
        m = lines[i + 1]  # a dict's repr (not always a literal: read by its keys)
        t["max_task_uss_bytes"] = max(t["max_task_uss_bytes"], number(
            m, r"'max_uss_bytes': \{[^}]*'max': ([0-9.e+]+)"))
        if "ShuffleMap" in line:
            t["bytes"] += number(m, r"'bytes_inputs_received': ([0-9]+)")
            t["rows"] += number(m, r"'num_row_inputs_received': ([0-9]+)")
            t["operators"] += 1
    return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--partitions", type=int, default=None,
                    help="blocks of the input and of every shuffle (default 2 x cores, as the "
                    "Spark job's shuffle partitions)")
    ap.add_argument("--local-edges", type=int, default=None,
                    help="the job's --local-edges (0: components always found in the workers)")
    a = ap.parse_args()
    from importlib.metadata import version

    ph = common.Phases()
    work = os.path.join(WORK, "neardup__" + common.corpus_name(a.corpus))
    shutil.rmtree(work, ignore_errors=True)
    parq = os.path.join(work, "input")
    os.makedirs(parq)
    ph.start("to_parquet")
    n, nbytes = write_input(a.corpus, parq)
    ph.stop()

    out = os.path.join(work, "out")
    parts = a.partitions or 2 * a.cores
    cmd = [sys.executable, os.path.join(ROOT, "python/examples/ray_dedup.py"),
           "--num-cpus", str(a.cores), "--input", parq, "--output", out,
           "--threshold", str(common.THRESHOLD), "--containment", "-1",
           "--num-perm", str(common.NUM_PERM), "--shingle", str(common.NGRAM), "--no-wrap",
           "--content", "page", "--partitions", str(parts)]
    if a.local_edges is not None:
        cmd += ["--local-edges", str(a.local_edges)]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", RAY_ADDRESS="")
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    ph.start("ray_job")
    sessions = set(glob.glob("/tmp/ray/session_2*"))
    returncode, log, peak = run_sampled(cmd, env)
    ph.stop()
    with open(os.path.join(work, "ray.log"), "w") as f:
        f.write(log)
    if returncode != 0:
        sys.stderr.write(log[-4000:])
        raise SystemExit("ray job failed with %d" % returncode)
    timings = [json.loads(l) for l in log.splitlines() if l.startswith('{"session_s"')][-1]
    (session,) = set(glob.glob("/tmp/ray/session_2*")) - sessions
    shuffled = shuffle_metrics(os.path.join(session, "logs", "ray-data", "ray-data.log"))
    ph.start("read_results")
    clusters = read_clusters(out)
    ph.stop()
    meta = {
        "version": "neardup %s / ray %s" % (version("neardup"), version("ray")),
        "threaded": "Ray local, %d CPUs (Python workers; Rust in the workers)" % a.cores,
        "docs": n, "text_bytes": nbytes,
        "params": {"num_perm": common.NUM_PERM, "threshold": common.THRESHOLD, "b": 9, "r": 13,
                   "ngram": common.NGRAM},
        "phases": ph.d, "signature_s": None,
        "session_s": timings["session_s"], "job_s": timings["job_s"],
        "edges": timings.get("edges"), "components": timings.get("components"),
        "rounds": timings.get("rounds"), "partitions": parts,
        "peak_tree_rss_bytes": peak,
        "shuffle": shuffled,
        "shuffle_bytes_per_doc": round(shuffled["bytes"] / max(n, 1), 1),
        "e2e_s": round(ph.d["to_parquet"] + ph.d["ray_job"], 3),
        "script_wall_s": ph.elapsed(),
    }
    variant = "" if a.local_edges is None else "local-edges-%d" % a.local_edges
    common.write_results("neardup-ray", variant, a.corpus, meta, {"verified": clusters})


if __name__ == "__main__":
    main()
