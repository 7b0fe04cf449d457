#!/usr/bin/env python3
"""Near-duplicate clusters of a dataset on Spark with neardup: a job for spark-submit, or a
plain pyspark script (it starts its own local session when run with python).

    spark-submit --master local[2] --driver-memory 8g python/examples/spark_dedup.py \\
        --input rows.parquet --output result.parquet
    python python/examples/spark_dedup.py --input rows.jsonl --output result.parquet --master local[2]
    python python/examples/spark_dedup.py --crawl data/sample/*.warc.gz --output result.parquet

--input is Parquet (a file or folder) or JSON lines with a text and an id column; --crawl reads
WARC/ARC/JSONL crawl files in the executors instead (pages with status 200 that are HTML or
text, ids from their file and record). Writes one row per input row (id, cluster, cluster_size,
canonical, keep, evidence) as Parquet, atomically: into a temporary folder beside --output,
renamed into place when complete; an existing --output is refused unless --overwrite.

--index DIR also adds the rows to the persistent index in DIR (created with the job's signature
settings when it holds none), its segments written by the executors and made live in one commit
(`neardup serve --index DIR` answers from it); DIR must be a folder every executor sees.

Prints one JSON line of timings: the Spark session's start apart, then the job from reading the
DataFrame to the written result, and the connected components' rounds.

The executors need neardup and pyarrow installed: the same wheel on every node (pip install, or
spark-submit --archives with a packed environment; see python/README.md).
"""
import argparse
import json
import os
import sys
import time

import job_settings  # beside this file


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--input", help="Parquet or JSON lines rows")
    src.add_argument("--crawl", nargs="+", help="crawl files, read in the executors")
    ap.add_argument("--output", required=True)
    ap.add_argument("--overwrite", action="store_true")
    ap.add_argument("--text-col", default="text")
    ap.add_argument("--id-col", default="id")
    ap.add_argument("--url-col", default=None)
    ap.add_argument("--master", default=None, help="when run with python (default local[*])")
    job_settings.add_flags(ap)
    job_settings.add_cluster_flags(ap)
    ap.add_argument("--checkpoint-dir", default=None)
    ap.add_argument("--partitions", type=int, default=None, help="repartition the input")
    ap.add_argument("--index", default=None, help="also add the rows to the index in this folder")
    ap.add_argument("--label", default="spark", help="the crawl label of --index's add")
    a = ap.parse_args()

    out = os.path.abspath(a.output)
    if os.path.exists(out) and not a.overwrite:
        raise SystemExit(f"{out} exists (--overwrite replaces it)")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    from neardup import spark as nds

    t0 = time.perf_counter()
    # The result is written to a temporary folder renamed into place at the end (atomic on
    # its own), so the output committer need not move every file again at the job's commit.
    builder = (SparkSession.builder.appName("neardup-dedup")
               .config("spark.hadoop.mapreduce.fileoutputcommitter.algorithm.version", "2"))
    if a.master:
        builder = builder.master(a.master)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    session_s = time.perf_counter() - t0

    t1 = time.perf_counter()
    url_col = a.url_col
    html = False
    if a.crawl:
        pages = nds.read(spark, a.crawl)
        df = (pages.where((F.col("status") == 200) & F.col("kind").isin("html", "text"))
              .withColumn("page", F.col("input").cast("long") * (1 << 32) + F.col("record")))
        id_col, text_col, url_col, html = "page", "text", "url", True
    else:
        reader = spark.read.parquet if not a.input.endswith((".jsonl", ".json")) else spark.read.json
        df = reader(a.input)
        id_col, text_col = a.id_col, a.text_col
    if a.partitions:
        df = df.repartition(a.partitions)
    stats = {}
    result = nds.dedup(df, text_col, id_col, url_col, html=html,
                       checkpoint_dir=a.checkpoint_dir, stats=stats,
                       **job_settings.cluster_settings(a), **job_settings.settings(a))
    job_settings.write_atomically(out, result.write.parquet)
    job_s = time.perf_counter() - t1
    added = None
    if a.index:
        job_settings.create_index(a.index, a)
        added = nds.add_to_index(df, a.index, text_col, id_col, url_col, html=html,
                                 label=a.label)
    print(json.dumps({"session_s": round(session_s, 3), "job_s": round(job_s, 3),
                      "cc_rounds": stats.get("rounds"), "components": stats.get("components"),
                      "members_scored_again": stats.get("members_scored_again"),
                      "output": out, "index_add": added,
                      "app_id": spark.sparkContext.applicationId}), flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
