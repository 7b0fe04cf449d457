#!/usr/bin/env python3
"""neardup on Spark (`neardup.spark.dedup`, through python/examples/spark_dedup.py) in the peer
benchmark's format, timed as ../shared/bench/peers/bench_spark_textdedup.py times text-dedup's
Spark script:

  1. JSONL -> one Parquet file (pyarrow), as text-dedup's runner does ("to_parquet", in e2e).
  2. spark-submit --master local[2] python/examples/spark_dedup.py --input PARQ --output OUT
     with the common parameters (128 min-hashes, word 5-grams without wrap-around, LSH bands
     for threshold 0.8 chosen by the engine: 9 x 13, containment off, every term), Spark's
     event log on. The job prints the session's start and the job from reading the DataFrame
     to the written result apart, and the connected components' rounds.
  3. Clusters = rows of OUT grouped by `cluster`, written as <name>__<corpus>.clusters.verified.jsonl
     (pairs are accepted on the estimated Jaccard of the full signature, as neardup-py-bands).

From the event log: shuffle bytes and records written over the whole job (per page, for the
scaling study), and the number of stages.

    python bench_neardup_spark.py --corpus C [--driver-memory 12g] [--cores 2] [--partitions N]

Run it with a Python that has pyspark, pyarrow and the neardup wheel installed.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.environ.get("PEERS_DIR", os.path.join(os.path.dirname(__file__), "../../../shared/bench/peers")))
import common  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
WORK = os.path.join(os.environ.get("BENCH_WORK", "bench-work"), "spark_work")


def event_log_totals(folder):
    """Shuffle bytes and records written, and stages, summed over the event logs in `folder`."""
    t = {"shuffle_write_bytes": 0, "shuffle_write_records": 0, "shuffle_read_bytes": 0,
         "stages": 0, "tasks": 0}
    for path in glob.glob(os.path.join(folder, "**", "*"), recursive=True):
        if not os.path.isfile(path):
            continue
        with open(path) as f:
            for line in f:
                if '"SparkListenerTaskEnd"' in line:
                    m = json.loads(line).get("Task Metrics") or {}
                    w = m.get("Shuffle Write Metrics") or {}
                    r = m.get("Shuffle Read Metrics") or {}
                    t["shuffle_write_bytes"] += w.get("Shuffle Bytes Written", 0)
                    t["shuffle_write_records"] += w.get("Shuffle Records Written", 0)
                    t["shuffle_read_bytes"] += r.get("Remote Bytes Read", 0) + r.get("Local Bytes Read", 0)
                    t["tasks"] += 1
                elif '"SparkListenerStageCompleted"' in line:
                    t["stages"] += 1
    return t


def write_input(corpus, folder):
    """The corpus as one Parquet file in `folder` (`id`, `text`): (rows, text bytes)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    ids, texts, nbytes = common.load_corpus(corpus)
    pq.write_table(pa.table({"id": pa.array(ids, pa.int64()), "text": pa.array(texts, pa.string())}),
                   os.path.join(folder, "part-0.parquet"))
    return len(texts), nbytes


def read_clusters(out):
    """The clusters of a job's result (Parquet: `id`, `cluster`), as sorted lists of ids."""
    import pyarrow.parquet as pq
    t = pq.read_table(out, columns=["id", "cluster"]).to_pydict()
    groups = {}
    for i, c in zip(t["id"], t["cluster"]):
        if c is not None:
            groups.setdefault(c, []).append(i)
    return sorted((sorted(g) for g in groups.values()), key=lambda g: g[0])


def tree_rss(pid):
    """Resident bytes of `pid` and every process below it (/proc)."""
    children = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(d))
            except (OSError, ValueError, IndexError):
                pass
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        todo += children.get(p, [])
        try:
            with open(f"/proc/{p}/statm") as f:
                total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except OSError:
            pass
    return total


def run_sampled(cmd, env):
    """Runs `cmd`: (exit status, its output, the peak resident bytes of its process tree,
    sampled every 0.2 s)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    peak = [0]

    def sample():
        while p.poll() is None:
            peak[0] = max(peak[0], tree_rss(p.pid))
            time.sleep(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    log = p.communicate()[0]
    sampler.join()
    return p.returncode, log, peak[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--driver-memory", default="12g")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--local-edges", type=int, default=None,
                    help="the job's --local-edges (0: components always spread over the executors)")
    ap.add_argument("--bands", type=int, default=None,
                    help="with --rows: the LSH tables (variant neardup-spark-BxR); default: the "
                    "engine's choice for the threshold, 9 x 13")
    ap.add_argument("--rows", type=int, default=None)
    ap.add_argument("--partitions", type=int, default=None,
                    help="spark.sql.shuffle.partitions and the input's partitions (default 2 x "
                    "cores: fewer, larger tasks measured faster than text-dedup --tuned's 4 x "
                    "cores)")
    a = ap.parse_args()
    from importlib.metadata import version

    ph = common.Phases()
    work = os.path.join(WORK, "neardup__" + common.corpus_name(a.corpus))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    parq = os.path.join(work, "input")
    os.makedirs(parq)
    events = os.path.join(work, "events")
    os.makedirs(events)

    ph.start("to_parquet")
    n, nbytes = write_input(a.corpus, parq)
    ph.stop()

    venv_bin = os.path.dirname(sys.executable)
    out = os.path.join(work, "out")
    parts = a.partitions or 2 * a.cores
    cmd = [os.path.join(venv_bin, "spark-submit"), "--master", "local[%d]" % a.cores,
           "--driver-memory", a.driver_memory, "--conf", "spark.ui.enabled=false",
           "--conf", "spark.local.dir=" + os.path.join(work, "spark-local"),
           "--conf", "spark.sql.shuffle.partitions=%d" % parts,
           "--conf", "spark.default.parallelism=%d" % parts,
           "--conf", "spark.eventLog.enabled=true", "--conf", "spark.eventLog.compress=false",
           "--conf", "spark.eventLog.dir=file://" + events,
           os.path.join(ROOT, "python/examples/spark_dedup.py"),
           "--input", parq, "--output", out, "--threshold", str(common.THRESHOLD),
           "--containment", "-1", "--num-perm", str(common.NUM_PERM), "--shingle", str(common.NGRAM),
           "--no-wrap", "--content", "page", "--checkpoint-dir", os.path.join(work, "ck"),
           # The input is one Parquet file of one row group, read by one task: spread over the
           # cores first, as text-dedup's tuned script does (its repartition(4 x cores)).
           "--partitions", str(parts)]
    if a.local_edges is not None:
        cmd += ["--local-edges", str(a.local_edges)]
    if a.bands is not None:
        cmd += ["--bands", str(a.bands), "--rows", str(a.rows)]
    variant = "%dx%d" % (a.bands, a.rows) if a.bands is not None else ""
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable,
               OPENBLAS_NUM_THREADS="1")
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    ph.start("spark_submit")
    returncode, log, peak = run_sampled(cmd, env)
    ph.stop()
    with open(os.path.join(work, "spark.log"), "w") as f:
        f.write(log)
    sys.stderr.write("\n".join(l for l in log.splitlines() if "Stage" not in l)[-4000:] + "\n")
    if returncode != 0:
        raise SystemExit("spark job failed with %d" % returncode)
    timings = [json.loads(l) for l in log.splitlines() if l.startswith('{"session_s"')][-1]

    ph.start("read_results")
    clusters = read_clusters(out)
    ph.stop()
    totals = event_log_totals(events)

    meta = {
        "version": "neardup %s / pyspark %s" % (version("neardup"), version("pyspark")),
        "threaded": "Spark local[%d] (JVM + Python workers; Rust in the workers, one thread each)" % a.cores,
        "docs": n, "text_bytes": nbytes,
        "params": {"num_perm": common.NUM_PERM, "threshold": common.THRESHOLD, "b": a.bands or 9, "r": a.rows or 13,
                   "ngram": common.NGRAM},
        "phases": ph.d, "signature_s": None,
        "session_s": timings["session_s"], "job_s": timings["job_s"],
        "cc_rounds": timings["cc_rounds"], "components": timings.get("components"),
        "shuffle_partitions": parts,
        "event_log": totals,
        "shuffle_write_bytes_per_doc": round(totals["shuffle_write_bytes"] / max(n, 1), 1),
        "peak_tree_rss_bytes": peak,
        "e2e_s": round(ph.d["to_parquet"] + ph.d["spark_submit"], 3),
        "script_wall_s": ph.elapsed(),
    }
    common.write_results("neardup-spark", variant, a.corpus, meta, {"verified": clusters})


if __name__ == "__main__":
    main()
