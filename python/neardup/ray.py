"""neardup on Ray Data: the clusters of `neardup.dedup` for a `ray.data.Dataset`, computed by
the Rust engine in Ray's workers, exactly the single-machine answer (and `neardup.spark`'s).

    import ray
    from neardup import ray as ndr
    pages = ray.data.read_parquet("corpus/")               # or ndr.read(["crawl.warc.gz", ...])
    result = ndr.dedup(pages, text_col="text", id_col="id")   # one row per input row
    kept = ndr.kept(pages, result, id_col="id")

The plan is `neardup._plan`'s, the one `neardup.spark` runs: every per-page and per-pair step
is the engine's, on Arrow batches (`map_batches(batch_format="pyarrow")`); every step that
needs the rows of one key together hash-shuffles them by key (`repartition(keys=...)`, whose
partitions are whole blocks) and hands each block to the engine, which orders the rows and
applies its rule; the pairs meet their pages' records by Ray's hash joins. The accepted pairs
are clustered by the engine in the driver (their `a`, `b`, keep keys and evidence: 16 bytes
and the keys per edge), as `neardup.spark` does below its `local_edges`.

Installed with `pip install neardup[ray]` (Ray Data; its joins need polars).
"""

from typing import Any, Dict, List, Optional, Sequence

from neardup import _plan
from neardup._plan import NotConverged  # noqa: F401 (one name of this module)

__all__ = ["dedup", "kept", "read", "add_to_index", "init", "connected_components", "NotConverged"]


def init(num_cpus: Optional[int] = None, **kwargs: Any):
    """`ray.init(num_cpus=..., **kwargs)` with the worker pool a neardup run needs: Ray kills
    idle workers beyond one per CPU after a second, and a run's steps start tasks of several
    shapes side by side (maps, shuffle maps and reduces, joins), so the extra workers would be
    killed between steps and started again, seconds each (measured: a run of 110 rows took
    15-25 s so, 1 s with the pool kept; `bench/results/`). Kept here up to four per CPU for
    ten minutes. Joining a running cluster (`address`, or RAY_ADDRESS), it is plain
    `ray.init`: give `ray start` the same (`--system-config`, `SYSTEM_CONFIG`)."""
    import os

    import ray
    if kwargs.get("address") or os.environ.get("RAY_ADDRESS"):
        return ray.init(num_cpus=num_cpus, **kwargs)
    cpus = num_cpus or os.cpu_count() or 1
    config = dict(SYSTEM_CONFIG, num_workers_soft_limit=4 * cpus)
    config.update(kwargs.pop("_system_config", {}))
    return ray.init(num_cpus=num_cpus, _system_config=config, **kwargs)


# The system settings `init` starts Ray with (and the soft limit of workers, four per CPU).
SYSTEM_CONFIG = {"idle_worker_killing_time_threshold_ms": 600_000}


def _map(ds, fn, **kw):
    """`fn` over every block of `ds` as one pyarrow table."""
    return ds.map_batches(fn, batch_format="pyarrow", batch_size=None, zero_copy_batch=True,
                          **kw)


def _partitions(partitions: Optional[int]) -> int:
    import ray
    if partitions is not None:
        if partitions < 1:
            raise ValueError(f"partitions must be at least 1 (got {partitions})")
        return partitions
    return max(2, int(ray.cluster_resources().get("CPU", 2)))


def _empty(schema):
    import pyarrow as pa
    return pa.Table.from_batches([], schema)


def _grouped(ds, by: List[str], step, schema, n: int):
    """`ds`'s rows hash-shuffled so that every row of one value of `by` lies in one block (of
    `n`), each block then handed whole to `step` (a table to a table of `schema`): the engine
    orders the rows and applies its rule; Ray only moves them."""
    def run(table):
        if table.num_rows == 0:
            return _empty(schema)
        return step(table).cast(schema)
    return _map(ds.repartition(n, keys=by), run)


def _native(name: str):
    """The engine's grouped step `name` (`neardup._neardup.<name>`) as a table function."""
    def step(table):
        import pyarrow as pa
        from neardup import _neardup
        return pa.table(getattr(_neardup, name)(table.combine_chunks()))
    return step


def _distinct(ds, cols: List[str], schema, n: int):
    """`ds`'s rows (only `cols`) each once."""
    return _grouped(ds, cols, lambda t: t.group_by(cols).aggregate([]).select(cols), schema, n)


def _check_ids(ids, col: str, n: int):
    """Raises ValueError when the column `col` of `ids` has a null or repeated value (its rows
    shuffled by value, each block checked whole)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    found = pa.schema([("nulls", pa.int64()), ("repeated", pa.string()), ("count", pa.int64())])

    def check(t):
        counts = t.group_by(col).aggregate([([], "count_all")])
        many = counts.filter(pc.greater(counts.column("count_all"), 1)).slice(0, 1)
        nulls = t.column(col).null_count
        if not nulls and not many.num_rows:
            return _empty(found)
        example = [repr(many.column(col)[0].as_py()), many.column("count_all")[0].as_py()] \
            if many.num_rows else [None, None]
        return pa.table([[nulls], [example[0]], [example[1]]], schema=found)

    problems = _collect(_grouped(ids.select_columns([col]), [col], check, found, n), found)
    if problems.num_rows:
        if pc.sum(problems.column("nulls")).as_py():
            what = "null"
        else:
            what = "%s, on %d rows" % (problems.column("repeated")[0].as_py(),
                                       problems.column("count")[0].as_py())
        raise ValueError(f"id column {col!r}: ids must be unique and not null ({what})")


def _order(ds, id_col: str, n: int):
    """`(ds with _order, integral)`: `_order` is the id when the ids are integers, else the
    id's rank among all ids (sorted, then numbered block by block in the sorted order: the
    same numbering however the rows are spread, once the ids are checked unique)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    schema = ds.schema()
    types = dict(zip(schema.names, schema.types))
    if id_col not in types:
        raise KeyError(f"no id column {id_col!r} (columns: {', '.join(schema.names)})")
    if pa.types.is_integer(types[id_col]):
        return _map(ds, lambda t: t.append_column(
            "_order", pc.cast(t.column(id_col), pa.int64()))), True
    _check_ids(ds, id_col, n)  # ranks of repeated ids would repeat rows
    ranks = _numbered(ds.select_columns([id_col]).sort(id_col), "_order")
    return ds.join(ranks, "inner", n, on=(id_col,)), False


def _numbered(ds, column: str):
    """A sorted Dataset's rows, each with its rank in `column` (from 0)."""
    import pyarrow as pa
    import ray
    number = ray.remote(lambda t, start: t.append_column(
        column, pa.array(range(start, start + t.num_rows), pa.int64())))
    return ray.data.from_arrow_refs([number.remote(r, first)
                                     for r, first, _ in _sorted_blocks(ds.to_arrow_refs(), 0)])


def _sorted_blocks(refs, first: int):
    """The blocks of a sorted Dataset (`to_arrow_refs()`, in order), each with the rank of its
    first row counted from `first` and its rows: `(ref, first rank, rows)`."""
    import ray
    num_rows = ray.remote(lambda t: t.num_rows)
    counts = ray.get([num_rows.remote(r) for r in refs])
    out = []
    for ref, count in zip(refs, counts):
        out.append((ref, first, count))
        first += count
    return out


def _no_pairs():
    """An empty batch of pairs, as the score step reads them."""
    import pyarrow as pa
    site = pa.list_(pa.int32())
    return pa.RecordBatch.from_pylist([], pa.schema(
        [("a", pa.int64()), ("b", pa.int64()), ("a_key", pa.binary()), ("b_key", pa.binary()),
         ("a_record", pa.binary()), ("b_record", pa.binary()), ("a_site", site),
         ("b_site", site)]))


def _collect(ds, schema):
    """`ds`'s rows in the driver, as one table of `schema`."""
    import pyarrow as pa
    import ray
    tables = [t for t in ray.get(ds.to_arrow_refs()) if t.num_rows]
    if not tables:
        return _empty(schema)
    return pa.concat_tables([t.select(schema.names).cast(schema) for t in tables])


def dedup(ds, text_col: str = "text", id_col: str = "id", url_col: Optional[str] = None, *,
          date_col: Optional[str] = None, html: bool = False, partitions: Optional[int] = None,
          local_edges: int = _plan.LOCAL_EDGES, max_rounds: int = _plan.MAX_ROUNDS,
          stats: Optional[Dict[str, Any]] = None, **settings: Any):
    """Near-duplicate clusters of a Dataset's rows, with `neardup.dedup`'s settings and
    answer, as `neardup.spark.dedup` gives them: a Dataset with one row per input row with
    `id`, `language`, `cluster`, `cluster_size`, `canonical`, `keep` and the evidence against
    the canonical row (the columns of `neardup.evidence_columns()`, then `same_site`; null
    for kept rows).

    Ids must be unique and not null; they set the page order (integers as they are, other ids
    by rank): the result equals `neardup.dedup` on the rows sorted by id, however the blocks
    are spread. `date_col`: capture dates (as WARC-Date writes them; null for undated rows),
    which keep="newest" reads. `html=True`: the text column holds HTML, read as the CLI reads a page.
    `partitions`: the blocks of every shuffle (default: the cluster's CPUs, at least 2).
    A graph of at most `local_edges` accepted pairs is clustered by the engine in the driver;
    a larger one (any, with 0) in the workers, by large-star and small-star rounds whose every
    step is the engine's (`connected_components`), at most `max_rounds` (past them
    `NotConverged` is raised). `stats`, a dict, gets the accepted edges, where the components
    were found, the rounds and the members scored again.

    Runs Ray jobs before it returns (the id check, the steps up to the clusters); the result
    is a Dataset still to be computed or written (materialize it to use it twice).
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import ray

    from neardup import _neardup

    _neardup.Parts(**settings)  # the settings checked once, on the driver
    n = _partitions(partitions)
    columns = ds.schema().names
    for c in [text_col] + [c for c in (url_col, date_col) if c]:
        if c not in columns:
            raise KeyError(f"no column {c!r} (columns: {', '.join(columns)})")
    rows, integral = _order(ds, id_col, n)
    taken = ["_order", text_col, id_col] + [c for c in (url_col, date_col) if c]
    renamed = ["order", "text", "_id"] + (["url"] if url_col else []) + (
        ["date"] if date_col else [])

    def sketch(table):
        t = table.select(taken).rename_columns(renamed)
        return _plan.sketch(settings, t.combine_chunks(), "text", "url" if url_col else None,
                            html, extra=("_id",), every_row=True,
                            date="date" if date_col else None)

    # Every row sketched once, kept (a row that is no page has a null identity): its id,
    # order and language are the answer's; the pages' sketches feed the next steps.
    sketched = _map(rows, sketch).materialize()
    if integral:  # (other ids were checked before they were ranked)
        _check_ids(sketched, "_id", n)
    pages = _map(sketched, lambda t: t.filter(pc.is_valid(t.column("identity"))))
    ident_schema = pa.schema([("identity", pa.int64()), ("order", pa.int64()),
                              ("keys", pa.list_(pa.int64())), ("rep", pa.int64())])
    ident = _grouped(pages.select_columns(["identity", "order", "keys"]), ["identity"],
                     _native("identity_sets"), ident_schema, n).materialize()
    pair = pa.schema([("a", pa.int64()), ("b", pa.int64())])
    keyed = _map(ident, _plan.keyed)
    candidates = _grouped(keyed, ["t", "key"], _native("bucket_edges"), pair, n)
    candidates = _distinct(candidates, ["a", "b"], pair, n)
    pairs = candidates.union(_map(ident, _plan.identity_pairs))
    longest = pa.schema([("n", pa.int64())])
    titled = pc.max(_collect(_map(pages, lambda t: pa.table(
        [[pc.max(pc.list_value_length(t.column("title"))).as_py() or 0]], schema=longest)),
        longest).column("n")).as_py()
    paired = _no_pairs().schema
    site_type = paired.field("a_site").type
    if titled:
        site_schema = pa.schema([("host_key", pa.int64()), ("site", site_type)])
        site = _grouped(pages.select_columns(["host_key", "title"]), ["host_key"],
                        lambda t: _plan.site_of_hosts(settings, t), site_schema, n)
        sides = pages.select_columns(["order", "record", "keep_key", "host_key"]).join(
            site, "left_outer", n, on=("host_key",))
    else:
        sides = _map(pages.select_columns(["order", "record", "keep_key"]), lambda t: t.append_column(
            "site", pa.nulls(t.num_rows, site_type)))
    side_schema = pa.schema([("order", pa.int64()), ("record", pa.binary()), ("site", site_type),
                             ("keep_key", pa.binary())])
    sides = _map(sides, lambda t: t.select(side_schema.names).cast(side_schema)).materialize()

    def side(s):
        return sides.rename_columns({"order": s, "record": s + "_record", "site": s + "_site",
                                     "keep_key": s + "_key"})

    # Every candidate pair meets both pages' sides (two hash joins) and is scored.
    with_sides = pairs.join(side("a"), "inner", n, on=("a",)).join(
        side("b"), "inner", n, on=("b",))
    evidence_cols = _plan.evidence_names()
    score_schema = _plan.score(settings, _no_pairs()).schema
    edge_cols = ["a", "b", "a_key", "b_key"] + evidence_cols

    def accepted(t):
        # Ray's joins (polars) give large binaries and lists: the engine reads the plain ones.
        got = _plan.score(settings, t.select(paired.names).cast(paired).combine_chunks())
        return got.filter(got.column("accepted")).select(edge_cols)

    edge_schema = pa.schema([score_schema.field(c) for c in edge_cols])
    edges = _map(with_sides, accepted).materialize()
    count = edges.count()
    id_type = ds.schema().types[columns.index(id_col)]
    answer_schema = pa.schema([("id", id_type), ("language", pa.string()),
                               ("cluster", pa.int64()), ("cluster_size", pa.int64()),
                               ("canonical", id_type), ("keep", pa.bool_())] +
                              [score_schema.field(c) for c in evidence_cols])

    def answer(t):
        """Rows (`node`, `id`, `language`) with their members' columns (null: in no cluster)."""
        canonical = t.column("canonical")
        keep = pc.or_(pc.is_null(canonical), pc.equal(canonical, t.column("node")))
        return pa.table([
            t.column("id"), t.column("language"), t.column("cluster"),
            pc.fill_null(pc.cast(t.column("cluster_size"), pa.int64()), 1),
            pc.coalesce(t.column("canonical_id"), t.column("id")), pc.fill_null(keep, True),
        ] + [t.column(c) for c in evidence_cols], names=answer_schema.names).cast(answer_schema)

    def own(t):
        return t.select(["order", "_id", "language"]).rename_columns(["node", "id", "language"])

    if stats is not None:
        stats["edges"] = count
    if not (0 < local_edges and count <= local_edges):
        members = _spread_members(edges, sides, n, max_rounds, stats, paired, settings,
                                  evidence_cols, side)
        if integral:  # the canonical page's id is its order
            members = _map(members, lambda t: t.append_column(
                "canonical_id", pc.cast(t.column("canonical"), id_type)))
        else:  # the canonical pages' ids, from the rows
            members = members.join(_map(sketched, lambda t: t.select(["order", "_id"]).rename_columns(
                ["canonical", "canonical_id"])), "inner", n, on=("canonical",))
        # Every row's place: its member's row, by a join (rows in no cluster have none).
        return _map(_map(sketched, own).join(members, "left_outer", n, on=("node",)), answer)
    # Clustered by the engine in the driver.
    have, missing = _plan.members(_collect(edges, edge_schema), evidence_cols)
    if stats is not None:
        stats.update(components="driver", rounds=0, members_scored_again=missing.num_rows)
    if missing.num_rows:  # members no accepted pair joins to their canonical page
        have = pa.concat_tables([have, _score_again(missing, sides, side_schema, paired,
                                                    settings, evidence_cols, have.schema)])
    members = have
    if integral:  # the canonical page's id is its order
        members = members.append_column("canonical_id", pc.cast(members.column("canonical"),
                                                                id_type))
    else:  # the canonical pages' ids, from the rows
        wanted = ray.put(pc.unique(members.column("canonical")))
        canon = _collect(_map(sketched, lambda t: t.filter(
            pc.is_in(t.column("order"), value_set=ray.get(wanted))).select(["order", "_id"])),
            pa.schema([("order", pa.int64()), ("_id", id_type)]))
        members = members.join(canon.rename_columns(["canonical", "canonical_id"]), "canonical")
    # Every row's place from the driver's members (handed to every block once).
    placed = ray.put(members)
    return _map(sketched, lambda t: answer(own(t).join(ray.get(placed), "node",
                                                       join_type="left outer")))


def _spread_members(edges, sides, n, max_rounds, stats, paired, settings, evidence_cols, side):
    """The members of the accepted pairs `edges` (a Dataset), found in the workers: the
    components' rounds; each component's canonical page by the engine's rule over its members
    shuffled together (`canonical_pages`); clusters numbered in the order of their smallest
    page, as the engine numbers them; every member scored against its canonical page."""
    import pyarrow as pa
    import pyarrow.compute as pc

    labels = connected_components(edges.select_columns(["a", "b"]), n, max_rounds, stats)
    keys = _map(sides, lambda t: t.select(["order", "keep_key"]).rename_columns(
        ["node", "keep_key"]))
    by_component = pa.schema([("component", pa.int64()), ("node", pa.int64()),
                              ("keep_key", pa.binary())])
    placed = pa.schema([("node", pa.int64()), ("component", pa.int64()),
                        ("canonical", pa.int64()), ("cluster_size", pa.int64())])
    members = _grouped(_map(labels.join(keys, "inner", n, on=("node",)), lambda t: t.select(
        by_component.names).cast(by_component)), ["component"], _native("canonical_pages"),
        placed, n).materialize()
    # Clusters numbered in the order of their labels (each component's smallest page).
    numbers = _numbered(_map(members, lambda t: t.filter(pc.equal(
        t.column("node"), t.column("component"))).select(["component"])).sort("component"),
        "cluster")
    members = members.join(numbers, "inner", n, on=("component",)).materialize()
    # Every member's evidence against its canonical page, scored again in the workers.
    pairs = _map(members, lambda t: t.filter(pc.not_equal(t.column("node"), t.column(
        "canonical"))).select(["canonical", "node"]).rename_columns(["a", "b"]))
    with_sides = pairs.join(side("a"), "inner", n, on=("a",)).join(side("b"), "inner", n,
                                                                       on=("b",))
    evidence = _map(with_sides, lambda t: _plan.score(
        settings, t.select(paired.names).cast(paired).combine_chunks()).select(
        ["b"] + evidence_cols).rename_columns(["node"] + evidence_cols))
    if stats is not None:
        stats["members_scored_again"] = members.count() - numbers.count()
    return _map(members, lambda t: t.select(["node", "cluster", "cluster_size", "canonical"])).join(
        evidence, "left_outer", n, on=("node",))


def connected_components(edges, n: int, max_rounds: int = _plan.MAX_ROUNDS,
                         stats: Optional[Dict[str, Any]] = None):
    """Connected components of an undirected graph given as a Dataset of edges `a`, `b`
    (int64): a Dataset `node`, `component` with every node of an edge once and its
    component's smallest node. Large-star and small-star rounds (Kiveris et al., "Connected
    Components in MapReduce and Beyond", SoCC 2014) alternate until the edges are stars around
    each component's smallest node; every step is the engine's, over rows shuffled by node
    into `n` blocks. Raises NotConverged after `max_rounds` rounds (no partial answer)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from neardup import _neardup

    pair = pa.schema([("a", pa.int64()), ("b", pa.int64())])
    ends = pa.schema([("node", pa.int64()), ("other", pa.int64()), ("larger", pa.bool_())])
    breaks = pa.schema([("breaks", pa.int64())])
    label = pa.schema([("node", pa.int64()), ("component", pa.int64())])

    def oriented(t):
        a, b = t.column("a"), t.column("b")
        return pa.table([pc.min_element_wise(a, b), pc.max_element_wise(a, b)],
                        schema=pair).filter(pc.not_equal(a, b))

    def both_ways(t, larger: bool):
        """Each edge from both ends (`node`, `other`), with `larger` when asked."""
        a, b = t.column("a").combine_chunks(), t.column("b").combine_chunks()
        cols = [pa.concat_arrays([a, b]), pa.concat_arrays([b, a])]
        if larger:
            cols.append(pa.array([False] * t.num_rows + [True] * t.num_rows, pa.bool_()))
            return pa.table(cols, schema=ends)
        return pa.table(cols, names=["node", "other"])

    def star(large: bool):
        return lambda t: pa.table(_neardup.star_edges(t.combine_chunks(), large))

    e = _distinct(_map(edges, oriented), ["a", "b"], pair, n).materialize()
    for round_no in range(1, max_rounds + 1):
        if stats is not None:
            stats.update(components="distributed", rounds=round_no)
        large = _distinct(_grouped(_map(e, lambda t: both_ways(t, False)), ["node"],
                                   star(True), pair, n), ["a", "b"], pair, n)
        # Small-star reads each edge from its larger end.
        up = _map(large, lambda t: pa.table([t.column("b"), t.column("a")],
                                            names=["node", "other"]))
        e = _distinct(_grouped(up, ["node"], star(False), pair, n), ["a", "b"], pair,
                      n).materialize()
        left = _collect(_grouped(_map(e, lambda t: both_ways(t, True)), ["node"],
                                 _native("star_breaks"), breaks, n), breaks)
        if not (pc.sum(left.column("breaks")).as_py() or 0):
            # Stars: every leaf labelled by its centre, every centre by itself.
            return _distinct(_map(e, lambda t: pa.table([
                pa.concat_arrays([t.column("b").combine_chunks(), t.column("a").combine_chunks()]),
                pa.concat_arrays([t.column("a").combine_chunks()] * 2)], schema=label)),
                ["node", "component"], label, n)
    raise _plan.NotConverged(
        f"connected components did not converge within {max_rounds} rounds "
        "(raise max_rounds; no partial answer is returned)")


def _score_again(missing, sides, side_schema, paired, settings, evidence_cols, schema):
    """The members `missing` (`node`, `cluster`, `cluster_size`, `canonical`) with their
    evidence against their canonical pages: the sides of those pages gathered from `sides`
    (a filter of every block, no shuffle) and each pair scored by the engine in the driver."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import ray

    wanted = ray.put(pc.unique(pa.concat_arrays([
        missing.column("canonical").combine_chunks(), missing.column("node").combine_chunks()])))
    got = _collect(_map(sides, lambda t: t.filter(
        pc.is_in(t.column("order"), value_set=ray.get(wanted)))), side_schema)
    pairs = missing.select(["canonical", "node"]).rename_columns(["a", "b"])
    for s in ("a", "b"):  # (a join by position: Arrow's joins carry no list columns)
        at = pc.index_in(pairs.column(s), value_set=got.column("order"))
        for c, name in (("record", "_record"), ("site", "_site"), ("keep_key", "_key")):
            pairs = pairs.append_column(s + name, got.column(c).take(at))
    ev = _plan.score(settings, pairs.select(paired.names).cast(paired).combine_chunks())
    ev = ev.select(["b"] + evidence_cols).rename_columns(["node"] + evidence_cols)
    return missing.join(ev, "node").select(schema.names).cast(schema)


def kept(ds, result, id_col: str = "id", *, counts: bool = False, language: bool = False,
         partitions: Optional[int] = None):
    """The kept corpus of ``ds``: its rows that ``dedup(ds, ...)`` (``result``) kept, every
    column as it was; with ``counts``, each row also gets ``neardup_cluster_size`` (1 for a row
    in no cluster) and ``neardup_removed_copies``, as ``neardup dedup --write-kept
    --kept-counts`` writes them; with ``language``, ``neardup_language`` (as
    ``--kept-language``). A Dataset still to be computed or written (in no particular order)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    names = ds.schema().names
    added = (["neardup_cluster_size", "neardup_removed_copies"] if counts else []) + (
        ["neardup_language"] if language else [])
    for name in added:
        if name in names:
            raise ValueError(f"ds already has a column {name!r}; "
                             f"{'language' if name == 'neardup_language' else 'counts'}=True "
                             "would add it again")
    r = result.select_columns(["id", "keep", "cluster_size", "language"]).rename_columns(
        {"id": "_neardup_id", "keep": "_neardup_keep", "cluster_size": "_neardup_size",
         "language": "_neardup_language"})
    joined = ds.join(r, "inner", _partitions(partitions), on=(id_col,),
                     right_on=("_neardup_id",))

    def finish(t):
        t = t.filter(pc.fill_null(t.column("_neardup_keep"), False))
        cols = [t.column(c) for c in names]
        if counts:
            size = pc.fill_null(pc.cast(t.column("_neardup_size"), pa.int64()), 1)
            cols += [size, pc.subtract(size, 1)]
        if language:
            cols.append(t.column("_neardup_language"))
        return pa.table(cols, names=names + added)

    return _map(joined, finish)


def read(paths: Sequence[str], *, strict: bool = False, text_field: str = "text",
         html_field: str = "html", url_field: str = "url", id_field: str = "id",
         max_record_bytes: Optional[int] = None):
    """The pages of crawl files (every format the CLI reads: WARC, ARC, WACZ, JSONL, Parquet)
    read in Ray's workers by the engine's readers (`neardup.read`), one task per file: one row
    per record with `input` (the file's position in `paths`), `record` (the record's position
    in its file) and `neardup.read`'s columns, as `neardup.spark.read` gives them. A malformed
    record is skipped (the worker's log names it); `strict=True` fails the job instead."""
    import os

    import ray

    # Ray's workers run in folders of their own: a relative path is the caller's.
    paths = [os.path.abspath(os.fspath(p)) for p in paths]
    if not paths:
        raise ValueError("paths is empty")
    options = dict(strict=strict, text_field=text_field, html_field=html_field,
                   url_field=url_field, id_field=id_field, max_record_bytes=max_record_bytes)

    def read_files(t):
        for input_no, path in zip(t.column("input").to_pylist(), t.column("path").to_pylist()):
            yield from _plan.read_file(input_no, path, options)

    files = ray.data.from_items([{"input": i, "path": p} for i, p in enumerate(paths)],
                                override_num_blocks=len(paths))
    return files.map_batches(read_files, batch_format="pyarrow", batch_size=1)


def add_to_index(ds, path, text_col: str = "text", id_col: str = "id",
                 url_col: Optional[str] = None, *, html: bool = False, label: str = "ray",
                 parts: Optional[int] = None, strict: bool = False) -> Dict[str, Any]:
    """Adds a Dataset's rows to the persistent index in the folder `path` (made by
    `neardup.Index.create` or `neardup index create`) as one commit, the index's segments
    written by Ray's workers, as `neardup.spark.add_to_index` writes them (the same report,
    the same index): afterwards `neardup serve`, `neardup index query` and `neardup.Index`
    answer from it. `path` must be a folder the driver and every worker see.

    The driver holds the index's writer lock from the start to the commit; the rows are
    sketched in the workers, sorted in page order (the caller's ids), and each sorted block
    written as one part by a task whose every attempt writes files of its own (a retried task
    never shares one); the commit names the files of the attempts whose answers Ray returned,
    and a run that fails before it leaves files no manifest names, removed by the next
    writer. `parts`: the blocks sorted into (default: the cluster's CPUs, at least 2)."""
    import json
    import os

    import pyarrow as pa
    import pyarrow.compute as pc
    import ray

    from neardup import _neardup

    path = os.path.abspath(os.fspath(path))
    columns = ds.schema().names
    for c in [text_col] + ([url_col] if url_col else []):
        if c not in columns:
            raise KeyError(f"no column {c!r} (columns: {', '.join(columns)})")
    n = _partitions(parts)
    add = _neardup.IndexParts(path)  # the writer lock, held to the commit
    try:
        rows, integral = _order(ds, id_col, n)
        if integral:
            _check_ids(ds, id_col, n)
        taken = ["_order", text_col, id_col] + ([url_col] if url_col else [])
        schema = pa.schema([("order", pa.int64()), ("page", pa.binary()),
                            ("not_pages", pa.int64()), ("held", pa.int64())])

        def sketch(t):
            t = t.select(taken).rename_columns(["order", "text", "id"] + (["url"] if url_col else []))
            t = t.set_column(2, "id", pc.cast(t.column("id"), pa.string())).combine_chunks()
            got, left_out, was_held = _neardup.index_sketch(
                path, t, "text", "id", "url" if url_col else None, html, strict)
            got = pa.table(got)
            k = got.num_rows
            # The block's pages, then one row of its counts (no order).
            return pa.table([
                pa.concat_arrays([t.column("order").take(got.column("row")).combine_chunks(),
                                  pa.nulls(1, pa.int64())]),
                pa.concat_arrays([got.column("page").combine_chunks().cast(pa.binary()),
                                  pa.nulls(1, pa.binary())]),
                pa.array([0] * k + [left_out], pa.int64()),
                pa.array([0] * k + [was_held], pa.int64())], schema=schema)

        sketched = _map(rows, sketch).materialize()
        counted = pa.schema([("not_pages", pa.int64()), ("held", pa.int64())])
        totals = _collect(_map(sketched, lambda t: t.filter(pc.is_null(t.column("order"))).select(
            counted.names)), counted)
        pages = _map(sketched, lambda t: t.filter(pc.is_valid(t.column("order"))).select(
            ["order", "page"]))
        # Parts in page order: a page's id is the add's first id plus its rank.
        refs = pages.repartition(n).sort("order").to_arrow_refs()
        generation, tasks = add.generation, []
        write = ray.remote(max_retries=3)(_write_part)
        for ref, first, count in _sorted_blocks(refs, add.first_id):
            if count:
                tasks.append(write.remote(ref, path, generation, len(tasks), first, label))
        written = [json.loads(w) for w in ray.get(tasks)]
        for w in written:
            w["segments"] = [tuple(s) for s in w["segments"]]
        report = add.commit(written)
        report["not_pages"] = pc.sum(totals.column("not_pages")).as_py() or 0
        report["held"] = pc.sum(totals.column("held")).as_py() or 0
        return report
    except BaseException:
        add.abandon()
        raise


def _write_part(table, path, generation, part, first_id, label):
    """One part of an add written as segments (`IndexPartWriter`), its files named for this
    attempt alone (a random 63-bit number: a retried task writes files of its own)."""
    import json
    import secrets

    from neardup import _neardup
    w = _neardup.IndexPartWriter(path, generation, part, first_id, secrets.randbits(63))
    for batch in table.select(["page"]).to_batches():
        w.push(batch)
    return json.dumps(w.finish(label))
