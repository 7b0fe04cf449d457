"""`neardup.spark.add_to_index`: a DataFrame's rows added to the persistent index as one commit,
the segments written by the executors (`crates/python/src/spark_index.rs` is the native half).

The driver takes the index's writer lock; the rows are sketched in the executors, ranked in
page order (the caller's ids), range-partitioned, and each part written as segments by its
task (every task attempt its own files, so a retry or a speculative copy never shares one);
the driver commits one manifest naming the attempts Spark kept.
"""

from typing import Any, Dict, Optional

__all__ = ["add_to_index"]


def add_to_index(df, path, text_col: str = "text", id_col: str = "id",
                 url_col: Optional[str] = None, *, html: bool = False, label: str = "spark",
                 parts: Optional[int] = None, strict: bool = False) -> Dict[str, Any]:
    """Adds a DataFrame's rows to the persistent index in the folder `path` (made by
    `neardup.Index.create` or `neardup index create`) as one commit, the index's segments
    written by the executors: afterwards `neardup serve`, `neardup index query` and
    `neardup.Index` answer from it. The index holds what `neardup.Index.add` of the rows sorted
    by id makes (the same page ids, keys and records), in one catalog and one key segment per
    part (`neardup index compact` merges them).

    `path` must be a folder the driver and every executor see (a shared filesystem; local
    mode's local disk). The driver holds the index's writer lock from the start to the commit;
    a run that fails before the commit leaves files no manifest names, removed by the next
    writer. Ids must be unique and not null (they order the pages); a page's id in the index
    is its row's id as text. `parts`: how many parts (default: spark.sql.shuffle.partitions).

    Returns `pages` (pages added; rows that are not pages the index holds, such as rows
    without terms, are left out and counted in `not_pages`; rows the index already holds as
    the same record, same id and URL and text, are left out and counted in `held`), `first_id`,
    `generation`, `parts`."""
    import json
    import os

    import pyarrow as pa
    from pyspark.sql import functions as F

    from neardup import _neardup
    from neardup.spark import _check_ids, _order

    path = os.path.abspath(os.fspath(path))
    for c in [text_col] + ([url_col] if url_col else []):
        if c not in df.columns:
            raise KeyError(f"no column {c!r} (columns: {', '.join(df.columns)})")
    spark = df.sparkSession
    add = _neardup.IndexParts(path)  # the writer lock, held to the commit
    ranked = None
    try:
        rows, integral = _order(df, id_col)
        if integral:
            _check_ids(df, id_col, id_col)
        cols = [F.col("_order").alias("order"), F.col(text_col).alias("text"),
                F.col(id_col).cast("string").alias("id")]
        if url_col:
            cols.append(F.col(url_col).alias("url"))
        has_url = bool(url_col)
        not_pages = spark.sparkContext.accumulator(0)
        held = spark.sparkContext.accumulator(0)

        def sketch(batches):
            from neardup import _neardup as native
            for batch in batches:
                if batch.num_rows == 0:
                    continue
                got, left_out, was_held = native.index_sketch(path, batch, "text", "id",
                                                       "url" if has_url else None, html, strict)
                not_pages.add(left_out)
                held.add(was_held)
                got = pa.table(got)
                order = batch.column("order").take(got.column("row"))
                yield from pa.table([order, got.column("page")],
                                    names=["order", "page"]).to_batches()

        # Kept: range partitioning samples it before it shuffles it.
        pages = rows.select(*cols).mapInArrow(sketch, "order long, page binary").persist()
        n = parts or int(spark.conf.get("spark.sql.shuffle.partitions"))
        # Parts in page order: range-partitioned by order, sorted within. A page's id is the
        # add's first id plus its rank, whatever the partitions' boundaries.
        ranked = pages.repartitionByRange(n, "order").sortWithinPartitions("order").persist()
        counts = dict(ranked.select(F.spark_partition_id().alias("p")).groupBy("p").count()
                      .collect())
        pages.unpersist()
        firsts, at = {}, add.first_id
        for p in sorted(counts):
            firsts[p] = at
            at += counts[p]
        generation = add.generation

        def write(batches):
            from pyspark import TaskContext

            from neardup import _neardup as native
            task = TaskContext.get()
            # Each attempt (a retry, a speculative copy) writes files of its own: only the
            # attempt whose answer Spark keeps is committed, the others' files are removed.
            part, attempt = task.partitionId(), task.taskAttemptId()
            w = None
            for batch in batches:
                if batch.num_rows == 0:
                    continue
                if w is None:
                    w = native.IndexPartWriter(path, generation, part, firsts[part], attempt)
                w.push(batch.select(["page"]))
            if w is not None:
                yield pa.RecordBatch.from_pydict({"part": [json.dumps(w.finish(label))]})

        written = [json.loads(r[0]) for r in ranked.mapInArrow(write, "part string").collect()]
        for w in written:
            w["segments"] = [tuple(s) for s in w["segments"]]
        report = add.commit(written)
        report["not_pages"] = not_pages.value
        report["held"] = held.value
        return report
    except BaseException:
        add.abandon()
        raise
    finally:
        if ranked is not None:
            ranked.unpersist()
