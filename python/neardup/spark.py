"""neardup on Spark: the clusters of `neardup.dedup` for a PySpark DataFrame, computed by the
Rust engine in the executors, exactly the single-machine answer.

    from neardup import spark as nds
    result = nds.dedup(df, text_col="text", id_col="id")      # one row per input row
    kept = df.join(result.where("keep").select("id"), "id")

    pages = nds.read(spark, ["crawl-00.warc.gz", "crawl-01.warc.gz"])   # crawls, read in executors

How the run is spread (each step a DataFrame operation; every per-page and per-pair
computation is the engine's, through `mapInArrow`, with no Python per row; every step that
needs the rows of one key together shuffles them by key and hands each partition's rows
whole to the engine, which orders them and applies its rule: no rule is restated here):

1. Page order: the caller's ids (integers as they are, other ids by rank). It decides which page
   of a set is first, as input order does on one machine: the result equals `neardup.dedup` on
   the rows sorted by id, whatever the partitions or executors.
2. Sketch (executors): each page's identity key, its key in every candidate table (LSH bands
   or supershingle combinations), title segments, canonical-page sort key and scoring record.
3. Identity sets: the first page of each set of identical token sequences represents it; the
   others are joined to it.
4. Candidates: per table and key, the representatives in page order: every pair of a bucket of
   at most the engine's ALL_PAIRS_BUCKET, else each paired with the first of them and with its
   predecessor (star and chain edges).
5. Site names: per host, how many pages carry each title segment; the engine decides which
   name the site.
6. Scoring (executors): the engine's evidence for every candidate pair; accepted pairs and
   identity edges are the graph.
7. Connected components: a graph of at most `local_edges` edges is collected and clustered
   by the engine on the driver (one job); a larger one by large-star / small-star (Kiveris et
   al., "Connected Components in MapReduce and Beyond", SoCC 2014), checkpointed each round,
   checked for convergence, failing loudly past `max_rounds`. Both give every component's
   smallest page as its label.
8. Per component: the canonical page (the keep rule's sort key, then page order), the size,
   and each member's evidence against the canonical page (executors again); clusters numbered
   in the order of their smallest page, as `neardup.dedup` numbers them.
"""

from typing import Any, Dict, List, Optional, Sequence

__all__ = ["dedup", "kept", "paragraphs", "contamination", "add_to_index", "read", "connected_components",
           "NotConverged"]

from neardup import _plan  # noqa: E402
from neardup._plan import NotConverged  # noqa: E402 (one name of this module)
from neardup.spark_index import add_to_index  # noqa: E402 (one name of this module)

# The Spark schema of the sketch step's rows.
_SKETCH = ("order long, identity long, host_key long, title array<int>, keys array<long>, "
           "keep_key binary, record binary, language string")


def _evidence_ddl() -> str:
    """The evidence columns (neardup-evidence's schema, from the engine) and `same_site`."""
    from neardup import _neardup
    return _neardup.evidence_ddl() + ", same_site boolean"


def _arrow_type(ddl: str):
    """The Arrow schema Spark expects of a `mapInArrow` function returning `ddl`."""
    from pyspark.sql.pandas.types import to_arrow_schema
    from pyspark.sql.types import _parse_datatype_string
    return to_arrow_schema(_parse_datatype_string(ddl))


def _lineage_cut(df, checkpointed: bool):
    """`df` computed once and its lineage cut: a reliable checkpoint when the SparkContext has a
    checkpoint folder, else a local one."""
    return df.checkpoint(eager=True) if checkpointed else df.localCheckpoint(eager=True)


def connected_components(edges, max_rounds: int = _plan.MAX_ROUNDS,
                         checkpoint: Optional[bool] = None, stats: Optional[Dict[str, Any]] = None):
    """Connected components of an undirected graph given as a DataFrame of edges `(a, b)`
    (longs): a DataFrame `(node, component)` with every node of an edge once and its
    component's smallest node. Large-star and small-star rounds alternate until the edges form
    stars around each component's smallest node; each round's edges are checkpointed.

    Raises NotConverged after `max_rounds` rounds without convergence. `stats`, a dict, gets
    the number of rounds run (`rounds`)."""
    from pyspark.sql import functions as F

    if checkpoint is None:
        checkpoint = edges.sparkSession.sparkContext.getCheckpointDir() is not None
    a, b = F.col("a"), F.col("b")
    # Undirected edges, each once, as (a, b) with a < b.
    e = _lineage_cut(edges.where(a != b)
                     .select(F.least(a, b).alias("a"), F.greatest(a, b).alias("b"))
                     .distinct(), checkpoint)
    pair = "a long, b long"
    for round_no in range(1, max_rounds + 1):
        if stats is not None:
            stats["rounds"] = round_no
        # Large-star, then small-star (from each edge's larger end): the engine's steps over
        # every node's rows together (neardup_dedup::parts::large_star, small_star).
        both = e.select(a.alias("node"), b.alias("other")).union(
            e.select(b.alias("node"), a.alias("other")))
        large = _grouped(both, ["node"], "star_edges", pair, True).distinct()
        up = large.select(b.alias("node"), a.alias("other"))
        e = _lineage_cut(_grouped(up, ["node"], "star_edges", pair, False).distinct(), checkpoint)
        # Converged when the edges are stars around each component's smallest node (the
        # engine's test, star_breaks): connectivity is kept by both steps, so each star is a
        # component and its centre its smallest node.
        ends = e.select(a.alias("node"), b.alias("other"), F.lit(False).alias("larger")).union(
            e.select(b.alias("node"), a.alias("other"), F.lit(True).alias("larger")))
        breaks = _grouped(ends, ["node"], "star_breaks", "breaks long").agg(
            F.sum("breaks")).first()[0]
        if not breaks:
            return (e.select(b.alias("node"), a.alias("component"))
                    .union(e.select(a.alias("node"), a.alias("component")).distinct()))
    raise NotConverged(
        f"connected components did not converge within {max_rounds} rounds "
        "(raise max_rounds; no partial answer is returned)")


def _check_ids(df, col: str, name: str):
    """Raises ValueError when `df`'s column `col` (the caller's id column `name`) holds a null
    or repeated value (one job over that column)."""
    from pyspark.sql import functions as F

    c = F.col(col)
    problems = df.groupBy(c).count().where(c.isNull() | (F.col("count") > 1)).limit(1).collect()
    if problems:
        v, n = problems[0][0], problems[0][1]
        what = "null" if v is None else f"{v!r}, on {n} rows"
        raise ValueError(f"id column {name!r}: ids must be unique and not null ({what})")


def _order(df, id_col: str):
    """`(df with _order, integral)`: `_order` is the id when the ids are integers (`integral`;
    then the caller checks them with `_check_ids` where it reads them anyway), else the id's
    rank among all ids (sorted, then numbered by zipWithIndex: the same numbering however the
    rows are spread), the ids checked first (ranks of repeated ids would repeat rows)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    if id_col not in df.columns:
        raise KeyError(f"no id column {id_col!r} (columns: {', '.join(df.columns)})")
    idc = F.col(id_col)
    if isinstance(df.schema[id_col].dataType, (T.LongType, T.IntegerType, T.ShortType,
                                                T.ByteType)):
        return df.withColumn("_order", idc.cast("long")), True
    _check_ids(df, id_col, id_col)
    spark = df.sparkSession
    ranks = (df.select(idc.alias("_id")).rdd.map(lambda r: r[0]).sortBy(lambda x: x)
             .zipWithIndex())
    ranks = spark.createDataFrame(ranks, T.StructType([
        T.StructField("_id", df.schema[id_col].dataType, False),
        T.StructField("_order", T.LongType(), False)]))
    return df.join(ranks, idc == F.col("_id")).drop("_id"), False


class _Beside:
    """A function run in a thread beside the caller's jobs; `wait()` re-raises its error."""

    def __init__(self, fn):
        import threading
        self._error = None

        def run():
            try:
                fn()
            except BaseException as e:  # noqa: BLE001 (handed to the caller)
                self._error = e

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()

    def wait(self):
        self._thread.join()
        if self._error is not None:
            raise self._error


def dedup(df, text_col: str = "text", id_col: str = "id", url_col: Optional[str] = None, *,
          date_col: Optional[str] = None, html: bool = False,
          max_rounds: int = _plan.MAX_ROUNDS, checkpoint_dir: Optional[str] = None,
          local_edges: int = _plan.LOCAL_EDGES, stats: Optional[Dict[str, Any]] = None,
          **settings: Any):
    """Near-duplicate clusters of a DataFrame's rows, with `neardup.dedup`'s settings and
    answer: one row per input row with `id`, `language` (ISO 639-3; "und" for a row without
    terms or with too little text), `cluster` (null for a row without
    near-duplicates; clusters numbered by their smallest id, as `neardup.dedup` numbers
    them on the rows sorted by id), `cluster_size`, `canonical` (the id kept for the
    cluster), `keep`, and the evidence against the canonical row (the columns of
    `neardup.evidence_columns()`, then `same_site`; null for kept rows).

    Ids must be unique and not null; they set the page order (see the module). `date_col`:
    capture dates (as WARC-Date writes them; null for undated rows), which keep="newest"
    reads. `html=True`: the text column holds HTML, read as the CLI reads a page. `checkpoint_dir` sets the
    SparkContext's checkpoint folder for the connected components' rounds (without one, and
    none set before, rounds are checkpointed locally). `max_rounds` caps those rounds; past it
    NotConverged is raised. A graph of at most `local_edges` edges (accepted pairs and identity
    edges, 16 bytes each plus the keep rule's keys) is collected to the driver and clustered by
    the engine there (one job instead of the rounds); 0 always spreads it. `stats`, a dict,
    gets where the components were found and the rounds.

    Runs Spark jobs before it returns (the id check, the components' rounds); the result is a
    DataFrame still to be computed or written.
    """
    from pyspark.sql import functions as F

    from neardup import _neardup

    # Only what the caller gave travels; the library resolves the rest (`neardup.defaults()`).
    _neardup.Parts(**settings)  # the settings checked once, on the driver
    spark = df.sparkSession
    if checkpoint_dir is not None:
        spark.sparkContext.setCheckpointDir(checkpoint_dir)
    for c in [text_col] + [c for c in (url_col, date_col) if c]:
        if c not in df.columns:
            raise KeyError(f"no column {c!r} (columns: {', '.join(df.columns)})")
    rows, integral = _order(df, id_col)
    cols = [F.col("_order").alias("order"), F.col(text_col).alias("text"),
            F.col(id_col).alias("_id")]
    if url_col:
        cols.append(F.col(url_col).alias("url"))
    if date_col:
        cols.append(F.col(date_col).cast("string").alias("date"))
    sketched_ddl = _SKETCH + ", _id " + df.schema[id_col].dataType.simpleString()
    sketch_schema = _arrow_type(sketched_ddl)
    has_url = bool(url_col)

    def sketch(batches):
        for batch in batches:
            if batch.num_rows:
                got = _plan.sketch(settings, batch, "text", "url" if has_url else None, html,
                                   extra=("_id",), every_row=True,
                                   date="date" if date_col else None)
                yield from got.cast(sketch_schema).to_batches()

    # Every row sketched once, up front, and kept (a row that is no page has a null
    # identity): its id, order and language are the answer's, so the input is read once;
    # the pages' sketches feed the next steps, whose jobs would otherwise start sketching
    # the same partitions side by side before the cache holds them.
    sketched = rows.select(*cols).mapInArrow(sketch, sketched_ddl).persist()
    titled = sketched.agg(F.max(F.size("title"))).first()[0] or 0
    if integral:  # read from the cache (other ids were checked before they were ranked)
        _check_ids(sketched, "_id", id_col)
    pages = sketched.where(F.col("identity").isNotNull()).drop("_id")
    # Identity sets: the first page of each represents it; the engine decides which (a narrow
    # projection is shuffled by key). Kept: the identity pairs and the candidates read it.
    ident = _grouped(pages.select("identity", "order", "keys"), ["identity"], "identity_sets",
                     "identity long, order long, keys array<long>, rep long").persist()
    # Every member of an identity set is paired with the set's first page (scored with the
    # candidates: the pair's evidence is the member's, as its first page is usually canonical).
    identity_pairs = (ident.where(F.col("order") != F.col("rep"))
                      .select(F.col("rep").alias("a"), F.col("order").alias("b")))
    # Candidates: the representatives under each table's keys, paired by the engine's bucket
    # rule (steps::bucket_edges); a pair sharing keys in several tables is kept once.
    keyed = (ident.where(F.col("order") == F.col("rep"))
             .select("order", F.posexplode("keys").alias("t", "key")))
    candidates = _grouped(keyed, ["t", "key"], "bucket_edges", "a long, b long").distinct()
    # Site-naming title segments per host, decided by the engine (none when no page has a
    # title: rows of text).
    if titled > 0:
        site = _site_segments(pages, settings)
        with_site = pages.join(site, "host_key", "left")
    else:
        with_site = pages.withColumn("site", F.lit(None).cast("array<int>"))
    # Partitioned by page and kept: the joins of both ends of every pair (candidates, then
    # members and their canonical pages) read it in place instead of shuffling the records.
    partitions = int(spark.conf.get("spark.sql.shuffle.partitions"))
    sides = (with_site.select("order", "record", "site", "keep_key")
             .repartition(partitions, "order").persist())

    def with_sides(pairs):
        def side(s):
            return sides.select(F.col("order").alias(s), F.col("record").alias(s + "_record"),
                                F.col("site").alias(s + "_site"),
                                F.col("keep_key").alias(s + "_key"))
        return pairs.join(side("a"), "a").join(side("b"), "b")

    scored_ddl = "a long, b long, a_key binary, b_key binary, accepted boolean, " + _evidence_ddl()
    scored_schema = _arrow_type(scored_ddl)

    def score(batches):
        for batch in batches:
            if batch.num_rows:
                yield from _plan.score(settings, batch).cast(scored_schema).to_batches()

    def scored(pairs):
        return with_sides(pairs).mapInArrow(score, scored_ddl)

    evidence_cols = _plan.evidence_names()
    # Identity pairs are always accepted (identical tokens) and never candidates (only first
    # pages of identity sets are), so the union has each pair once.
    edges = (scored(candidates.union(identity_pairs)).where("accepted")
             .select("a", "b", "a_key", "b_key", *evidence_cols))

    def evidence_of(pairs):
        """Each member's evidence against its canonical page (pairs: node, canonical)."""
        return (scored(pairs.select(F.col("canonical").alias("a"), F.col("node").alias("b")))
                .select(F.col("b").alias("node"), *evidence_cols))

    members = _clusters(spark, edges, local_edges, max_rounds, stats, evidence_of,
                        evidence_cols)
    ident.unpersist()  # the edges are computed and kept
    # The callers' ids.
    if integral:  # the canonical page's id is its order
        members = members.withColumn("canonical_id", F.col("canonical").cast(
            df.schema[id_col].dataType))
    else:
        ids = sketched.select(F.col("order").alias("canonical"), F.col("_id").alias("canonical_id"))
        members = members.join(ids, "canonical")
    out = (sketched.select(F.col("order").alias("node"), F.col("_id").alias("id"), "language")
           .join(members, "node", "left"))
    result = out.select(
        "id", F.coalesce(F.col("language"), F.lit("und")).alias("language"), "cluster",
        F.coalesce(F.col("cluster_size"), F.lit(1)).cast("long").alias("cluster_size"),
        F.coalesce(F.col("canonical_id"), F.col("id")).alias("canonical"),
        (F.col("canonical").isNull() | (F.col("canonical") == F.col("node"))).alias("keep"),
        *evidence_cols)
    return result


def kept(df, result, id_col: str = "id", *, counts: bool = False, language: bool = False):
    """The kept corpus of ``df``: its rows that ``dedup(df, ...)`` (``result``) kept, every
    column as it was; with ``counts``, each row also gets ``neardup_cluster_size`` (1 for a row
    in no cluster) and ``neardup_removed_copies``, as ``neardup dedup --write-kept
    --kept-counts`` writes them; with ``language``, ``neardup_language`` (as
    ``--kept-language``). A DataFrame still to be computed or written (in no particular
    order: order it by the id column for input order)."""
    from pyspark.sql import functions as F

    r = result.select(F.col("id").alias("_neardup_id"), F.col("keep").alias("_neardup_keep"),
                      F.col("cluster_size").alias("_neardup_size"),
                      F.col("language").alias("_neardup_language"))
    out = df.join(r, df[id_col] == r["_neardup_id"], "inner").filter(F.col("_neardup_keep"))
    if counts:
        for name in ("neardup_cluster_size", "neardup_removed_copies"):
            if name in df.columns:
                raise ValueError(f"df already has a column {name!r}; counts=True would add it again")
        size = F.coalesce(F.col("_neardup_size"), F.lit(1)).cast("long")
        out = (out.withColumn("neardup_cluster_size", size)
                  .withColumn("neardup_removed_copies", size - F.lit(1)))
    if language:
        if "neardup_language" in df.columns:
            raise ValueError("df already has a column 'neardup_language'; language=True would "
                             "add it again")
        out = out.withColumn("neardup_language", F.col("_neardup_language"))
    return out.drop("_neardup_id", "_neardup_keep", "_neardup_size", "_neardup_language")


def paragraphs(df, text_col: str = "text", id_col: str = "id", *, unit: Optional[str] = None,
               policy: Optional[str] = None, max_docs: Optional[int] = None,
               min_chars: Optional[int] = None):
    """Repeated paragraphs (or lines) cut from a DataFrame's texts, with `neardup paragraphs`'
    settings and answer: `(cleaned, spans)`. `cleaned` is `df` with `text_col` cut (rows
    without a cut as they were); `spans` has one row per cut: `id`, `language`, `unit`,
    `start`, `end` (characters), `docs` (documents holding the unit), `first_id` and
    `first_unit` (where it was first found), `rule`. Document order is the ids' (as `dedup`'s
    page order), so on rows whose ids sort in input order the cuts are the CLI's.

    The engine keys every unit and cuts the texts in the executors; Spark counts each key's
    documents and finds its first occurrence; the engine's policy decides each cut.
    """
    from pyspark.sql import functions as F

    from neardup import _neardup

    opts = {"unit": unit, "policy": policy, "max_docs": max_docs, "min_chars": min_chars}
    rule = _neardup.ParagraphParts(**opts).rule()  # the settings checked once, on the driver
    if text_col not in df.columns:
        raise KeyError(f"no column {text_col!r} (columns: {', '.join(df.columns)})")
    rows, integral = _order(df, id_col)
    ids_checked = _Beside(lambda: _check_ids(df, id_col, id_col) if integral else None)
    docs = rows.select(F.col("_order").alias("order"), F.col(text_col).alias("text"))

    def keys(batches):
        import pyarrow as pa
        from neardup import _neardup as native
        parts = native.ParagraphParts(**opts)
        for batch in batches:
            if batch.num_rows == 0:
                continue
            row, u, hi, lo = parts.keys(batch.column("text").to_pylist())
            order = batch.column("order").take(pa.array(row, pa.uint32()))
            yield pa.RecordBatch.from_arrays(
                [order, pa.array(u, pa.int32()), pa.array(hi, pa.int64()),
                 pa.array(lo, pa.int64())], names=["order", "unit", "hi", "lo"])

    occurrences = docs.mapInArrow(keys, "order long, unit int, hi long, lo long").persist()
    groups = (occurrences.groupBy("hi", "lo")
              .agg(F.countDistinct("order").alias("docs"), F.count(F.lit(1)).alias("n"),
                   F.min(F.struct("order", "unit")).alias("first"))
              .where(F.col("n") >= 2).drop("n"))
    repeated = occurrences.join(groups, ["hi", "lo"]).select(
        "order", "unit", "docs", F.col("first.order").alias("first_order"),
        F.col("first.unit").alias("first_unit"),
        ((F.col("order") == F.col("first.order")) & (F.col("unit") == F.col("first.unit")))
        .alias("is_first"))

    def decide(batches):
        import pyarrow as pa
        from neardup import _neardup as native
        parts = native.ParagraphParts(**opts)
        for batch in batches:
            if batch.num_rows == 0:
                continue
            keep = parts.cuts(batch.column("docs").to_pylist(),
                              batch.column("is_first").to_pylist())
            yield batch.filter(pa.array(keep, pa.bool_()))

    cut_schema = ("order long, unit int, docs long, first_order long, first_unit int, "
                  "is_first boolean")
    cuts = repeated.mapInArrow(decide, cut_schema).drop("is_first").persist()
    per_doc = cuts.groupBy("order").agg(F.sort_array(F.collect_set("unit")).alias("cut"))

    span_type = "array<struct<unit:int,start:long,end:long>>"

    def apply(batches):
        import pyarrow as pa
        from neardup import _neardup as native
        parts = native.ParagraphParts(**opts)
        for batch in batches:
            if batch.num_rows == 0:
                continue
            got = parts.cut(batch.column("text").to_pylist(), batch.column("cut").to_pylist())
            yield pa.RecordBatch.from_pydict({
                "order": batch.column("order"),
                "cleaned": pa.array([g[0] for g in got], pa.string()),
                "language": pa.array([g[1] for g in got], pa.string()),
                "spans": pa.array([[{"unit": u, "start": s, "end": e} for u, s, e in g[2]]
                                   for g in got],
                                  pa.list_(pa.struct([("unit", pa.int32()), ("start", pa.int64()),
                                                      ("end", pa.int64())]))),
            })

    done = (docs.join(per_doc, "order")
            .mapInArrow(apply, f"order long, cleaned string, language string, spans {span_type}")
            .persist())
    ids_checked.wait()
    ids = rows.select(F.col("_order").alias("order"), F.col(id_col).alias("id"))
    first_ids = ids.select(F.col("order").alias("first_order"), F.col("id").alias("first_id"))
    spans = (done.select("order", "language", F.explode("spans").alias("s"))
             .select("order", "language", F.col("s.unit").alias("unit"), "s.start", "s.end")
             .join(cuts, ["order", "unit"])
             .join(ids, "order").join(first_ids, "first_order")
             .select("id", "language", "unit", "start", "end", "docs", "first_id", "first_unit",
                     F.lit(rule).alias("rule")))
    cleaned = (rows.join(done.select(F.col("order").alias("_order"), "cleaned"), "_order", "left")
               .withColumn(text_col, F.coalesce(F.col("cleaned"), F.col(text_col)))
               .select(*df.columns))
    return cleaned, spans


def contamination(df, eval: Sequence[str], text_col: str = "text", id_col: str = "id", *,
                  ngram: Optional[int] = None, action: Optional[str] = None,
                  margin: Optional[int] = None, eval_text: Optional[str] = None,
                  eval_id: Optional[str] = None):
    """Benchmark contamination of a DataFrame's texts, with `neardup decontaminate`'s settings
    and answer: `(cleaned, spans)`. `eval` are evaluation files (JSONL or Parquet), read once
    on the driver as the CLI reads them and indexed in each executor. `spans` has one row per
    span: `id`, `language`, `eval_file`, `item_id`, `start`, `end` (characters), `ngrams`.
    `cleaned` is `df` under the action: `cut` (the default) removes each span and `margin`
    characters around it, `drop` leaves contaminated rows out, `report` leaves `df` as it was.
    """
    from pyspark.sql import functions as F

    from neardup import _neardup

    files, items = _neardup.ContaminationParts.read_eval(
        [str(p) for p in eval], eval_text=eval_text, eval_id=eval_id)
    opts = {"ngram": ngram, "action": action, "margin": margin}
    act = _neardup.ContaminationParts(files, [], **opts).action()  # settings checked here
    if text_col not in df.columns:
        raise KeyError(f"no column {text_col!r} (columns: {', '.join(df.columns)})")
    if id_col not in df.columns:
        raise KeyError(f"no id column {id_col!r} (columns: {', '.join(df.columns)})")
    items_b = df.sparkSession.sparkContext.broadcast((files, items))
    docs = df.select(F.col(id_col).alias("id"), F.col(text_col).alias("text"))

    def parts():
        from neardup import _neardup as native
        f, it = items_b.value
        return native.ContaminationParts(f, it, **opts)

    def find(batches):
        import pyarrow as pa
        p = parts()
        for batch in batches:
            if batch.num_rows == 0:
                continue
            got = p.find(batch.column("text").to_pylist())
            if not got:
                continue
            rows = pa.array([g[0] for g in got], pa.uint32())
            yield pa.RecordBatch.from_arrays(
                [batch.column("id").take(rows)] +
                [pa.array([g[k] for g in got], t) for k, t in
                 [(6, pa.string()), (1, pa.string()), (2, pa.string()), (3, pa.int64()),
                  (4, pa.int64()), (5, pa.int64())]],
                names=["id", "language", "eval_file", "item_id", "start", "end", "ngrams"])

    id_type = df.schema[id_col].dataType.simpleString()
    spans = docs.mapInArrow(find, f"id {id_type}, language string, eval_file string, "
                                  "item_id string, start long, end long, ngrams long")
    if act == "report":
        return df, spans
    hit = spans.select(F.col("id").alias("_neardup_hit")).distinct()
    if act == "drop":
        cleaned = df.join(hit, df[id_col] == hit["_neardup_hit"], "left_anti")
        return cleaned, spans

    def cut(batches):
        import pyarrow as pa
        p = parts()
        for batch in batches:
            if batch.num_rows == 0:
                continue
            got = p.cut(batch.column("text").to_pylist())
            yield pa.RecordBatch.from_arrays([batch.column("id"), pa.array(got, pa.string())],
                                             names=["_neardup_id", "_neardup_cut"])

    cut_texts = (docs.join(hit, docs["id"] == hit["_neardup_hit"]).select("id", "text")
                 .mapInArrow(cut, f"_neardup_id {id_type}, _neardup_cut string"))
    cleaned = (df.join(cut_texts, df[id_col] == cut_texts["_neardup_id"], "left")
               .withColumn(text_col, F.coalesce(F.col("_neardup_cut"), F.col(text_col)))
               .select(*df.columns))
    return cleaned, spans


def _site_segments(pages, settings):
    """Per host, the title segments that name the site (`host_key`, `site`: a list): pages
    per host and per (host, segment) counted, the rule the engine's."""
    from pyspark.sql import functions as F

    host_pages = pages.groupBy("host_key").agg(F.count(F.lit(1)).alias("host_pages"))
    segments = (pages.select("host_key", F.explode("title").alias("seg"))
                .groupBy("host_key", "seg").agg(F.count(F.lit(1)).alias("count"))
                .join(host_pages, "host_key"))
    site_schema = _arrow_type("host_key long, seg int, site boolean")

    def site_rule(batches):
        import pyarrow as pa
        from neardup import _neardup as native
        parts = native.Parts(**settings)
        for batch in batches:
            site = pa.table(parts.site_segments(batch)).column("site")
            out = pa.table([batch.column("host_key"), batch.column("seg"), site],
                           names=["host_key", "seg", "site"])
            yield from out.cast(site_schema).to_batches()

    return (segments.mapInArrow(site_rule, "host_key long, seg int, site boolean")
            .where("site").groupBy("host_key").agg(F.collect_list("seg").alias("site")))


def _grouped(df, by: List[str], step: str, ddl: str, *args: Any):
    """`df`'s rows shuffled so that every row of one value of `by` lies in one partition (as
    many as the session's shuffle partitions), each partition's rows then handed whole to the
    engine's `step` (a function of `neardup._neardup`: `identity_sets`, `bucket_edges`,
    `canonical_pages`, `star_edges`, `star_breaks`; `args` after the rows), which orders them
    and applies the rule itself: Spark only moves rows. Its rows as `ddl`."""
    schema = _arrow_type(ddl)
    partitions = int(df.sparkSession.conf.get("spark.sql.shuffle.partitions"))

    def run(batches):
        import pyarrow as pa
        from neardup import _neardup as native
        batches = [b for b in batches if b.num_rows]
        if not batches:
            return
        got = pa.table(getattr(native, step)(pa.Table.from_batches(batches), *args))
        yield from got.cast(schema).to_batches()

    return df.repartition(partitions, *by).mapInArrow(run, ddl)


def _clusters(spark, edges, local_edges: int, max_rounds: int, stats, evidence_of,
              evidence_cols: List[str]):
    """(node, cluster, cluster_size, canonical, evidence...) of every page of an edge `(a, b,
    a_key, b_key, evidence...)`: on the driver by the engine when there are at most
    `local_edges` edges (one job collects them; a member's evidence against its canonical
    page is the accepted pair's when they are one, scored by `evidence_of` in the executors
    for the others), else by distributed connected components."""
    from pyspark.sql import functions as F

    # Scored once: both paths read the edges more than once.
    edges = edges.persist()
    schema = "node long, cluster long, cluster_size long, canonical long"
    if local_edges > 0:
        table = edges.limit(local_edges + 1).toArrow()
        if table.num_rows <= local_edges:
            if stats is not None:
                stats.update(rounds=0, components="driver", edges=table.num_rows)
            return _local_members(spark, table, schema, evidence_of, evidence_cols, stats)
    if stats is not None:
        stats["components"] = "distributed"
    labels = connected_components(edges.select("a", "b"), max_rounds=max_rounds, stats=stats)
    keys = (edges.select(F.col("a").alias("node"), F.col("a_key").alias("keep_key"))
            .union(edges.select(F.col("b").alias("node"), F.col("b_key").alias("keep_key")))
            .dropDuplicates(["node"]))
    # Each component's canonical page, chosen by the engine's rule (steps::canonical) over the
    # component's members shuffled together.
    members = _grouped(labels.join(keys, "node").select("component", "node", "keep_key"),
                       ["component"], "canonical_pages",
                       "node long, component long, canonical long, cluster_size long")
    numbers = (members.select("component").distinct().rdd.map(lambda r: r[0])
               .sortBy(lambda x: x).zipWithIndex())
    numbers = spark.createDataFrame(numbers, "component long, cluster long")
    members = members.join(numbers, "component").select("node", "cluster", "cluster_size",
                                                        "canonical")
    return members.join(evidence_of(members.where(F.col("node") != F.col("canonical"))),
                        "node", "left")


def _local_members(spark, table, schema: str, evidence_of, evidence_cols: List[str], stats):
    """The driver's clusters of the collected edges, each member's evidence taken from the
    accepted pair (canonical, member) when there is one (its per-side columns put in the
    canonical-first order), else scored in the executors."""
    have, missing = _plan.members(table, evidence_cols)
    full = spark.createDataFrame(have, schema + ", " + _evidence_ddl())
    if stats is not None:
        stats["members_scored_again"] = missing.num_rows
    if missing.num_rows == 0:
        return full
    rest = spark.createDataFrame(missing, schema)
    return full.unionByName(rest.join(evidence_of(rest), "node", "left"))


def read(spark, paths: Sequence[str], *, partitions: Optional[int] = None,
         strict: bool = False, text_field: str = "text", html_field: str = "html",
         url_field: str = "url", id_field: str = "id",
         max_record_bytes: Optional[int] = None):
    """The pages of crawl files read in the executors by the engine's readers (`neardup.read`):
    one row per record with `input` (the file's position in `paths`), `record` (the record's
    position in its file) and `neardup.read`'s columns. `(input, record)` is the order the CLI
    reads them in when `paths` is in its order (`input * 2**32 + record` makes an id column).
    A malformed record is skipped (the executor's log names it); `strict=True` fails the job
    instead."""
    paths = [str(p) for p in paths]
    if not paths:
        raise ValueError("paths is empty")
    from pyspark.sql.pandas.types import from_arrow_schema
    schema = from_arrow_schema(_plan.read_schema())
    options = dict(strict=strict, text_field=text_field, html_field=html_field,
                   url_field=url_field, id_field=id_field, max_record_bytes=max_record_bytes)

    def read_files(batches):
        for batch in batches:
            for input_no, path in zip(batch.column("input").to_pylist(),
                                      batch.column("path").to_pylist()):
                for pages in _plan.read_file(input_no, path, options):
                    yield from pages.to_batches()

    files = spark.createDataFrame(list(enumerate(paths)), "input int, path string")
    files = files.repartition(partitions or min(len(paths), spark.sparkContext.defaultParallelism),
                              "input")
    return files.mapInArrow(read_files, schema)
