#!/usr/bin/env python3
"""Near-duplicate clusters of a dataset on Ray with neardup (`neardup.ray`): run it on a Ray
cluster's head node (it joins the running cluster: RAY_ADDRESS, or `ray start`'s), or alone
with --num-cpus N for a local Ray of N workers.

    python python/examples/ray_dedup.py --input rows.parquet --output result.parquet --num-cpus 2
    python python/examples/ray_dedup.py --crawl data/sample/*.warc.gz --output result.parquet

--input is Parquet (a file or folder) or JSON lines with a text and an id column; --crawl reads
WARC/ARC/WACZ/JSONL crawl files in the workers instead (pages with status 200 that are HTML or
text, ids from their file and record). Writes one row per input row (id, cluster,
cluster_size, canonical, keep, evidence) as a folder of Parquet files, atomically: into a
temporary folder beside --output, renamed into place when complete; an existing --output is
refused unless --overwrite.

--index DIR also adds the rows to the persistent index in DIR (created with the job's signature
settings when it holds none), its segments written by the workers and made live in one commit
(`neardup serve --index DIR` answers from it); DIR must be a folder every worker sees.

Prints one JSON line of timings: Ray's start apart, then the job from reading the dataset to
the written result.

The workers need neardup, pyarrow and polars installed (`pip install neardup[ray]`).
"""
import argparse
import json
import os
import time

import job_settings  # beside this file


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--input", help="Parquet or JSON lines rows")
    src.add_argument("--crawl", nargs="+", help="crawl files, read in the workers")
    ap.add_argument("--output", required=True)
    ap.add_argument("--overwrite", action="store_true")
    ap.add_argument("--text-col", default="text")
    ap.add_argument("--id-col", default="id")
    ap.add_argument("--url-col", default=None)
    ap.add_argument("--num-cpus", type=int, default=None,
                    help="start a local Ray of this many workers (default: join the cluster, or "
                    "a local Ray of every core)")
    job_settings.add_flags(ap)
    ap.add_argument("--partitions", type=int, default=None,
                    help="blocks of the input and of every shuffle (default: the CPUs)")
    job_settings.add_cluster_flags(ap)
    ap.add_argument("--index", default=None, help="also add the rows to the index in this folder")
    ap.add_argument("--label", default="ray", help="the crawl label of --index's add")
    a = ap.parse_args()

    out = os.path.abspath(a.output)
    if os.path.exists(out) and not a.overwrite:
        raise SystemExit(f"{out} exists (--overwrite replaces it)")
    import pyarrow.compute as pc
    import ray

    from neardup import ray as ndr

    t0 = time.perf_counter()
    ndr.init(num_cpus=a.num_cpus, include_dashboard=False, log_to_driver=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    session_s = time.perf_counter() - t0

    t1 = time.perf_counter()
    url_col, html = a.url_col, False
    if a.crawl:
        def pages_of(t):
            t = t.filter(pc.and_(pc.equal(t.column("status"), 200),
                                 pc.is_in(t.column("kind"), value_set=pc.cast(
                                     ["html", "text"], "string"))))
            page = pc.add(pc.multiply(pc.cast(t.column("input"), "int64"), 1 << 32),
                          t.column("record"))
            return t.append_column("page", page)
        ds = ndr.read(a.crawl).map_batches(pages_of, batch_format="pyarrow")
        id_col, text_col, url_col, html = "page", "text", "url", True
    else:
        reader = ray.data.read_json if a.input.endswith((".jsonl", ".json")) else ray.data.read_parquet
        ds = reader(a.input)
        id_col, text_col = a.id_col, a.text_col
    n = a.partitions or max(2, int(ray.cluster_resources().get("CPU", 2)))
    ds = ds.repartition(n)
    stats = {}
    result = ndr.dedup(ds, text_col, id_col, url_col, html=html, partitions=n, stats=stats,
                       **job_settings.cluster_settings(a), **job_settings.settings(a))
    job_settings.write_atomically(out, result.write_parquet)
    job_s = time.perf_counter() - t1
    added = None
    if a.index:
        job_settings.create_index(a.index, a)
        added = ndr.add_to_index(ds, a.index, text_col, id_col, url_col, html=html,
                                 label=a.label, parts=n)
    print(json.dumps({"session_s": round(session_s, 3), "job_s": round(job_s, 3),
                      "edges": stats.get("edges"), "components": stats.get("components"),
                      "rounds": stats.get("rounds"),
                      "members_scored_again": stats.get("members_scored_again"),
                      "output": out, "index_add": added}), flush=True)
    ray.shutdown()


if __name__ == "__main__":
    main()
