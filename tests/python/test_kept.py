"""The kept corpus from Python (`dedup(paths=..., write_kept=...)`) is the CLI's, byte for byte;
Parquet keeps its schema; data given as rows are told how to get theirs."""

import gzip
import json
import os
import subprocess

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import neardup

TEXT = "a page about ducks and where they swim in the summer and winter months "


def corpus(tmp_path):
    rows = []
    for i in range(30):
        base = f"{TEXT * 6} topic {i % 10} " + " ".join(f"w{i % 10}x{k}" for k in range(40))
        rows.append({"id": f"d{i}", "text": base + (" tail" if i >= 10 else ""),
                     "meta": {"n": i, "lang": "日本語" if i % 3 == 0 else "עברית"}})
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "part.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows[:15]))
    with gzip.open(tmp_path / "b" / "part.jsonl.gz", "wt") as f:
        f.write("".join(json.dumps(r) + "\n" for r in rows[15:]))
    return [tmp_path / "a" / "part.jsonl", tmp_path / "b" / "part.jsonl.gz"]


def test_python_writes_the_kept_corpus_the_cli_writes(tmp_path):
    paths = corpus(tmp_path)
    neardup.dedup(paths=paths, write_kept=tmp_path / "py", kept_counts=True)
    subprocess.run([os.environ["NEARDUP_BIN"], "dedup", *map(str, paths), "-q", "--no-report",
                    "--out", str(tmp_path / "out"), "--write-kept", str(tmp_path / "cli"),
                    "--kept-counts"], check=True)
    for rel in ["a/part.jsonl", "b/part.jsonl.gz"]:
        py = (tmp_path / "py" / rel).read_bytes()
        cli = (tmp_path / "cli" / rel).read_bytes()
        if rel.endswith(".gz"):
            py, cli = gzip.decompress(py), gzip.decompress(cli)
        assert py == cli, rel
    kept = [json.loads(l) for l in (tmp_path / "py" / "a" / "part.jsonl").read_text().splitlines()]
    kept += [json.loads(l) for l in gzip.decompress(
        (tmp_path / "py" / "b" / "part.jsonl.gz").read_bytes()).decode().splitlines()]
    removed = {r["id"] for r in map(json.loads, (tmp_path / "out" / "remove.jsonl").read_text().splitlines())}
    assert removed and not removed & {r["id"] for r in kept}
    assert len(kept) + len(removed) == 30
    assert sum(r["neardup_removed_copies"] for r in kept) == len(removed)


def test_parquet_keeps_its_schema(tmp_path):
    rows = [{"id": i, "text": TEXT * 5 + str(i % 4), "score": float(i)} for i in range(12)]
    table = pa.Table.from_pylist(rows).replace_schema_metadata({"source": "test"})
    pq.write_table(table, tmp_path / "t.parquet", row_group_size=5)
    neardup.dedup(paths=[tmp_path / "t.parquet"], write_kept=tmp_path / "kept")
    kept = pq.read_table(tmp_path / "kept" / "t.parquet")
    assert kept.schema == table.schema and kept.schema.metadata == table.schema.metadata
    result = neardup.dedup(table)
    assert kept.equals(table.filter(result["keep"]))


def test_write_kept_needs_files_it_can_write(tmp_path):
    with pytest.raises(ValueError, match=r'keep'):
        neardup.dedup([{"id": "a", "text": TEXT}], write_kept=tmp_path / "k")
    paths = corpus(tmp_path)
    with pytest.raises(ValueError, match="needs write_kept"):
        neardup.dedup(paths=paths, kept_counts=True)
    with pytest.raises(ValueError, match="needs write_kept"):
        neardup.dedup(paths=paths, kept_language=True)
    warc = tmp_path / "x.warc"
    warc.write_bytes(b"WARC/1.0\r\nWARC-Type: warcinfo\r\nContent-Length: 0\r\n\r\n\r\n\r\n")
    with pytest.raises(ValueError, match="JSONL and Parquet"):
        neardup.dedup(paths=[warc], write_kept=tmp_path / "k")
    assert not (tmp_path / "k").exists()


def test_a_reference_dump_is_the_clis(tmp_path):
    paths = corpus(tmp_path)
    old = tmp_path / "old.jsonl"
    # The old dump holds the first shard's documents again, under other ids.
    old.write_text("".join(json.dumps({**json.loads(l), "id": "old-" + json.loads(l)["id"]}) + "\n"
                           for l in paths[0].read_text().splitlines()))
    neardup.dedup(paths=paths, reference=[old], write_kept=tmp_path / "py")
    subprocess.run([os.environ["NEARDUP_BIN"], "dedup", *map(str, paths), "--reference", str(old), "-q",
                    "--no-report", "--out", str(tmp_path / "out"), "--write-kept", str(tmp_path / "cli")],
                   check=True)
    py = (tmp_path / "py" / "a" / "part.jsonl").read_bytes()
    assert py == (tmp_path / "cli" / "a" / "part.jsonl").read_bytes()
    # Every document of the first shard is in the old dump: none is written.
    assert py == b""
    assert not (tmp_path / "py" / "old.jsonl").exists()
    removed = [json.loads(l) for l in (tmp_path / "out" / "remove.jsonl").read_text().splitlines()]
    assert all(r["kept_id"].startswith("old-") for r in removed if r["id"].startswith("d") and
               int(r["id"][1:]) < 15)
    with pytest.raises(ValueError, match="reference"):
        neardup.dedup([{"id": "a", "text": TEXT}], reference=[old])


def test_kept_rows_gain_the_language_the_result_gives(tmp_path):
    rows = [{"id": "en", "text": "The committee met on Tuesday to discuss the budget of the library."},
            {"id": "fr", "text": "Le comité s'est réuni mardi pour discuter du budget de la bibliothèque."},
            {"id": "n", "text": "1 2 3"}]
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    neardup.dedup(paths=[path], write_kept=tmp_path / "k", kept_language=True)
    got = [json.loads(x) for x in (tmp_path / "k" / "in.jsonl").read_text().splitlines()]
    assert [g.pop("neardup_language") for g in got] == ["eng", "fra", "und"]
    assert got == rows
    assert neardup.dedup(rows)["language"].to_pylist() == ["eng", "fra", "und"]
