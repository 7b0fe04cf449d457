"""The distributed dedup plan's per-batch steps, shared by `neardup.spark` and `neardup.ray`:
each turns one Arrow table into the next by the engine's functions (`neardup._neardup`), so
the engines only move rows between them and no rule is written twice.

The plan (either engine runs it in this order; `neardup.spark`'s docstring says why each
step is shaped as it is):

1. `sketch`: each page's identity key, candidate keys, title segments, keep key, record.
2. per identity key, rows together: `identity_sets` (the engine's first page of a set).
3. per (table, key) of the representatives (`keyed`), rows together: `bucket_edges`.
4. per host, rows together: `site_segments` (`site_rule` decides each counted segment).
5. `score` every candidate pair, both sides' records joined to it.
6. the accepted pairs clustered (`clusters`, by the engine) with each member's evidence
   against its canonical page taken from the pairs (`members`); the others scored again.
"""

from typing import Any, Dict, List, Tuple

# The sketch step's columns, in order.
SKETCH = ["order", "identity", "host_key", "title", "keys", "keep_key", "record", "language"]


# The distributed components' defaults, the library's (neardup_dedup::parts): graphs of at
# most LOCAL_EDGES accepted pairs are clustered by the engine on the driver, larger ones in
# the workers in at most MAX_ROUNDS large-star/small-star rounds.
from neardup._neardup import LOCAL_EDGES, MAX_ROUNDS  # noqa: E402,F401


class NotConverged(RuntimeError):
    """Connected components did not converge within the rounds allowed: no partial answer is
    returned."""


def parts(settings: Dict[str, Any]):
    """The engine's plan parts for `settings`, made once per worker process."""
    from neardup import _neardup
    key = repr(sorted(settings.items()))
    made = _PARTS.get(key)
    if made is None:
        made = _PARTS[key] = _neardup.Parts(**settings)
    return made


_PARTS: Dict[str, Any] = {}


def evidence_names() -> List[str]:
    """The evidence columns (neardup-evidence's schema, from the engine), then `same_site`."""
    from neardup import _neardup
    return [name for name, _, _ in _neardup.evidence_columns()] + ["same_site"]


def sketch(settings, batch, text: str, url, html: bool, extra: Tuple[str, ...] = (),
           every_row: bool = False, date=None):
    """A batch of rows (`order`, `text`, `url` and `date` when given, and `extra` columns)
    sketched: the
    `SKETCH` columns, then `extra`, one row per row that is a page (rows without terms are
    not); with `every_row`, one per row, a row that is no page with a null `identity` and the
    language "und"."""
    import pyarrow as pa
    import pyarrow.compute as pc
    got, _ = parts(settings).sketch(batch, text, url, html, date)
    got = pa.table(got)
    rows = got.column("row")
    if every_row:
        import numpy as np
        at = np.full(batch.num_rows, -1, dtype=np.int64)
        at[rows.to_numpy()] = np.arange(len(rows))
        at = pa.array(at, mask=at < 0)
        cols = [got.column(n).take(at) for n in SKETCH[1:]]
        cols[-1] = pc.fill_null(cols[-1], "und")
        return pa.table([batch.column("order")] + cols + [batch.column(c) for c in extra],
                        names=SKETCH + list(extra))
    head = [batch.column("order").take(rows)]
    cols = head + [got.column(n) for n in SKETCH[1:]] + [batch.column(c).take(rows) for c in extra]
    return pa.table(cols, names=SKETCH + list(extra))


def score(settings, batch):
    """A batch of pairs (`a`, `b`, `a_key`, `b_key`, `a_record`, `b_record`, `a_site`,
    `b_site`) scored: `a`, `b`, `a_key`, `b_key`, `accepted`, then the evidence."""
    import pyarrow as pa
    ev = pa.table(parts(settings).score(batch))
    head = ["a", "b", "a_key", "b_key"]
    return pa.table([batch.column(c) for c in head] + ev.columns, names=head + ev.column_names)


def keyed(table):
    """The representatives of identity sets (rows of `identity_sets` whose `order` is their
    `rep`) under each of their keys: `order`, `t` (the key's table), `key`."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    reps = table.filter(pc.equal(table.column("order"), table.column("rep")))
    keys = reps.column("keys").combine_chunks()
    parent = pc.list_parent_indices(keys)
    offsets = keys.offsets.to_numpy()[:-1]
    t = np.arange(len(parent), dtype=np.int64) - offsets[parent.to_numpy()]
    return pa.table([reps.column("order").take(parent), pa.array(t.astype(np.int32)),
                     pc.list_flatten(keys)], names=["order", "t", "key"])


def identity_pairs(table):
    """Every member of an identity set paired with the set's first page (`a`, `b`)."""
    import pyarrow.compute as pc
    members = table.filter(pc.not_equal(table.column("order"), table.column("rep")))
    return members.select(["rep", "order"]).rename_columns(["a", "b"])


def site_of_hosts(settings, table):
    """Every row of a host together (`host_key`, `title`): per host, the title segments that
    name the site (`host_key`, `site`), counted here, decided by the engine."""
    import pyarrow as pa
    import pyarrow.compute as pc
    titles = table.column("title").combine_chunks()
    parent = pc.list_parent_indices(titles)
    host_pages = table.group_by("host_key").aggregate([([], "count_all")]).rename_columns(
        ["host_key", "host_pages"])
    segs = pa.table([table.column("host_key").take(parent), pc.list_flatten(titles)],
                    names=["host_key", "seg"])
    counts = (segs.group_by(["host_key", "seg"]).aggregate([([], "count_all")])
              .rename_columns(["host_key", "seg", "count"]).join(host_pages, "host_key"))
    site = pa.table(parts(settings).site_segments(counts)).column("site")
    named = counts.filter(site).select(["host_key", "seg"])
    return named.group_by("host_key").aggregate([("seg", "list")]).rename_columns(
        ["host_key", "site"])


def members(edges, evidence_cols: List[str]):
    """The clusters of the accepted pairs (`a`, `b`, `a_key`, `b_key`, evidence...), by the
    engine: `(known, missing)`. `known`: `node`, `cluster`, `cluster_size`, `canonical` and
    each member's evidence against its canonical page where one of the pairs joins them (its
    per-side columns put in the canonical-first order), canonical pages with null evidence;
    `missing`: the members no pair joins to their canonical page (`node`, `cluster`,
    `cluster_size`, `canonical`), to be scored."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from neardup import _neardup

    found = pa.table(_neardup.clusters(edges))
    scored_edges = edges.filter(pc.is_valid(edges.column("rule")))
    lo = pc.min_element_wise(scored_edges.column("a"), scored_edges.column("b"))
    hi = pc.max_element_wise(scored_edges.column("a"), scored_edges.column("b"))
    known = pa.table([lo, hi] + [scored_edges.column(c) for c in evidence_cols],
                     names=["_lo", "_hi"] + evidence_cols)
    node, canonical = found.column("node"), found.column("canonical")
    found = found.append_column("_lo", pc.min_element_wise(node, canonical)).append_column(
        "_hi", pc.max_element_wise(node, canonical))
    joined = found.join(known, ["_lo", "_hi"], join_type="left outer")
    # The pair's evidence is (smaller page, larger page); against a canonical page that is the
    # larger one, the per-side columns trade places (the others do not depend on the order).
    swap = pc.fill_null(pc.not_equal(joined.column("canonical"), joined.column("_lo")), False)
    side_a, side_b = joined.column("boilerplate_a"), joined.column("boilerplate_b")
    for name, own, other in (("boilerplate_a", side_a, side_b), ("boilerplate_b", side_b, side_a)):
        joined = joined.set_column(joined.schema.get_field_index(name), name,
                                   pc.if_else(swap, other, own))
    is_member = pc.not_equal(joined.column("node"), joined.column("canonical"))
    head = ["node", "cluster", "cluster_size", "canonical"]
    # Canonical pages have no evidence (no pair joins a page to itself); members with none
    # from their pairs are scored.
    have = joined.filter(pc.or_(pc.invert(is_member), pc.is_valid(joined.column("rule"))))
    missing = joined.filter(pc.and_(is_member, pc.is_null(joined.column("rule"))))
    return have.select(head + evidence_cols), missing.select(head)


def read_schema():
    """The columns of a crawl file's pages read by a worker (`neardup.read`'s, after the file's
    position in the paths, `input`, and the record's in its file, `record`)."""
    import pyarrow as pa
    s, i32, i64 = pa.string(), pa.int32(), pa.int64()
    return pa.schema([
        ("input", i32), ("record", i64), ("url", s), ("host", s), ("status", i32), ("date", s),
        ("id", s), ("ip", s), ("mime", s), ("kind", s), ("payload_digest", s), ("charset", s),
        ("text", s), ("body_bytes", i64), ("file", s), ("offset", i64)])


def read_file(input_no: int, path: str, options: Dict[str, Any]):
    """One crawl file's pages by the engine's readers (`neardup.read(**options)`), as tables
    of `read_schema()`."""
    import pyarrow as pa

    import neardup
    schema = read_schema()
    record = 0
    for pages in neardup.read([path], **options):
        n = pages.num_rows
        head = [pa.array([input_no] * n, pa.int32()), pa.array(range(record, record + n), pa.int64())]
        record += n
        out = pa.Table.from_batches([pages])
        yield pa.table(head + out.columns, names=["input", "record"] + out.column_names).cast(schema)
