"""One evidence schema (neardup-evidence's columns) in every table that says two rows match:
`neardup.dedup` on rows and on crawl files, `Index.query`, `neardup.spark.dedup`, and the
CLI's tables; each with the schema's names, in its order, with its types."""

import json
import os
import subprocess
from pathlib import Path

import pyarrow as pa

import neardup

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = sorted(str(p) for p in (ROOT / "data" / "sample").glob("*.warc.gz"))
ARROW = {"text": pa.string(), "uint": pa.uint32(), "float": pa.float64()}
TEXT = "the quick brown fox jumps over the lazy dog and keeps running far away " * 8
ROWS = [{"id": "a", "text": TEXT}, {"id": "b", "text": TEXT + " again"},
        {"id": "c", "text": "an unrelated page about something else entirely " * 8}]


def check(table, optional=False, spark_types=False):
    """The table's evidence columns follow the schema, in order, as one contiguous run."""
    names = [n for n, _, _ in neardup.evidence_columns()]
    fields = [f.name for f in table.schema]
    at = fields.index(names[0])
    assert fields[at:at + len(names)] == names
    for name, kind, nullable in neardup.evidence_columns():
        f = table.schema.field(name)
        want = pa.int32() if (spark_types and kind == "uint") else ARROW[kind]
        assert f.type == want, name
        assert f.nullable == (nullable or optional), name


def test_the_schema_is_the_librarys():
    cols = neardup.evidence_columns()
    assert [c[0] for c in cols][:3] == ["rule", "b_similarity", "estimated_jaccard"]
    assert {k for _, k, _ in cols} == {"text", "uint", "float"}
    assert ("exact_jaccard", "float", True) in cols


def test_dedup_on_rows_and_on_files_carries_the_schema():
    per_row = neardup.dedup(ROWS)
    check(per_row, optional=True)
    b = per_row.to_pylist()[1]
    assert b["rule"] and b["titles"] in ("same", "different", "unknown", "translation")
    check(neardup.dedup(paths=SAMPLE))


def test_index_queries_carry_the_schema(tmp_path):
    idx = neardup.Index.create(tmp_path / "idx")
    idx.add(ROWS[:1], label="one")
    got = idx.query(ROWS[1:2])
    check(got)
    assert got.num_rows == 1


def test_the_cli_tables_carry_the_schema(tmp_path):
    out = tmp_path / "out"
    subprocess.run([os.environ["NEARDUP_BIN"], "dedup", *SAMPLE, "--out", str(out), "-q",
                    "--no-report"], check=True)
    row = json.loads((out / "clusters.jsonl").read_text().splitlines()[0])
    names = [n for n, _, _ in neardup.evidence_columns()]
    keys = list(row)
    at = keys.index(names[0])
    assert keys[at:at + len(names)] == names


def test_spark_carries_the_schema(spark):
    from neardup import spark as nds
    df = spark.createDataFrame(ROWS)
    got = nds.dedup(df, text_col="text", id_col="id").toArrow()
    check(got, optional=True, spark_types=True)
