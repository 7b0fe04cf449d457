"""neardup.dedup over every input kind (dicts, pyarrow, pandas, polars, crawl paths): one
answer whatever the kind, equal to the CLI's on the same records, evidence on every removed
row, the caller's ids shared rather than copied, the GIL released, and bad input raising
clear exceptions."""

import json
import os
import random
import subprocess
import threading
from pathlib import Path

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import neardup

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample" / "rustdocs-stable.warc.gz"


def words(seed, n, vocab=20000):
    rng = random.Random(seed)
    return ["w%d" % rng.randrange(vocab) for _ in range(n)]


def corpus(seed=5, bases=40):
    """Records with exact copies, near copies (5% of words replaced) and unrelated pages."""
    rng = random.Random(seed)
    out = []
    for b in range(bases):
        text = words(1000 + b, 300)
        out.append(text)
        if b % 3 == 0:
            out.append(list(text))
        if b % 2 == 0:
            out.append([w if rng.random() > 0.05 else "z%d" % rng.randrange(10**6) for w in text])
    rng.shuffle(out)
    return [{"id": "r%d" % i, "text": " ".join(t)} for i, t in enumerate(out)]


def cli_removed(tmp_path, records, *flags):
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "out"
    subprocess.run([os.environ["NEARDUP_BIN"], "dedup", str(path), "--out", str(out), "-q", *flags],
                   check=True)
    return {r["id"]: r["kept_id"] for r in map(json.loads, (out / "remove.jsonl").read_text().splitlines())}


def removed(result):
    d = result.to_pydict()
    return {i: c for i, c, k in zip(d["id"], d["canonical"], d["keep"]) if not k}


def test_dedup_equals_the_cli_on_the_same_records(tmp_path):
    records = corpus()
    got = neardup.dedup(records)
    assert isinstance(got, pa.Table)
    d = got.to_pydict()
    assert d["row"] == list(range(len(records)))
    assert d["id"] == [r["id"] for r in records]
    gone = removed(got)
    assert len(gone) >= 20, gone
    for i, k in enumerate(d["keep"]):
        if not k:
            assert d["rule"][i] and d["estimated_jaccard"][i] >= 0.5 and d["containment"][i] > 0
            assert d["cluster"][i] is not None and d["cluster_size"][i] >= 2
            assert d["canonical_row"][i] < i
        elif d["cluster"][i] is None:
            assert d["cluster_size"][i] == 1 and d["canonical"][i] == d["id"][i]
            assert d["rule"][i] is None
    assert gone == cli_removed(tmp_path, records)


def test_settings_are_the_clis(tmp_path):
    # Long pages, and short ones (between 84 and 128 distinct shingles: compared by their
    # exact sets, whose cut follows num_perm as it follows --minhashes).
    records = corpus(seed=8, bases=30)
    rng = random.Random(4)
    for b in range(30):
        text = words(5000 + b, 100)
        records.append({"id": "s%d" % b, "text": " ".join(text)})
        near = [w if rng.random() > 0.02 else "y%d" % rng.randrange(10**6) for w in text]
        records.append({"id": "t%d" % b, "text": " ".join(near)})
    for verify in (False, True):
        got = neardup.dedup(records, threshold=0.8, containment=None, shingle=4, wrap=False,
                            num_perm=128, content="page", verify=verify)
        flags = ["--threshold", "0.8", "--containment", "off", "-k", "4", "--no-wrap",
                 "--minhashes", "128", "--content", "page"] + ["--verify"] * verify
        assert removed(got) == cli_removed(tmp_path, records, *flags), verify
    shingled = neardup.dedup(records, matching="supershingles", containment=None, level=2)
    assert removed(shingled) == cli_removed(tmp_path, records, "--lsh", "supershingles")


def test_every_input_kind_gives_one_answer():
    records = corpus(seed=6, bases=30)
    want = neardup.dedup(records).to_pydict()
    table = pa.Table.from_pylist(records)
    # Several batches, so rows and canonical ids cross batch boundaries.
    chunked = pa.Table.from_batches(table.to_batches(max_chunksize=7))
    assert chunked["text"].num_chunks > 3
    kinds = {
        "pyarrow.Table": table,
        "chunked Table": chunked,
        "RecordBatch": table.to_batches()[0],
        "RecordBatchReader": chunked.to_reader(),
        "pandas": pd.DataFrame(records),
        "polars": pl.DataFrame(records),
        "large_string": table.cast(pa.schema([("id", pa.large_string()), ("text", pa.large_string())])),
        "string_view": table.cast(pa.schema([("id", pa.string_view()), ("text", pa.string_view())])),
        "binary": table.cast(pa.schema([("id", pa.string()), ("text", pa.binary())])),
    }
    for name, data in kinds.items():
        got = neardup.dedup(data).to_pydict()
        for col in ("row", "cluster", "cluster_size", "canonical_row", "keep", "rule",
                    "estimated_jaccard"):
            assert got[col] == want[col], (name, col)
        assert [str(x) for x in got["canonical"]] == want["canonical"], name
    # Threads and batch boundaries change nothing.
    for threads in (1, 3):
        assert neardup.dedup(chunked, threads=threads).to_pydict() == neardup.dedup(table).to_pydict()


def test_ids_keep_their_type():
    records = corpus(seed=7, bases=10)
    table = pa.table({"id": pa.array(range(100, 100 + len(records)), pa.int64()),
                      "text": [r["text"] for r in records]})
    got = neardup.dedup(table)
    assert got.schema.field("id").type == pa.int64()
    assert got["id"].to_pylist() == table["id"].to_pylist()
    no_ids = neardup.dedup(table.drop_columns(["id"]))
    assert no_ids["id"].to_pylist() == list(range(len(records)))
    assert no_ids["keep"] == got["keep"]


def test_urls_and_keep_rules():
    text = " ".join(words(3, 200))
    rows = [{"id": 1, "url": "https://example.org/a/long/path", "text": text},
            {"id": 2, "url": "https://example.org/b", "text": text}]
    first = neardup.dedup(rows, url="url").to_pydict()
    assert first["canonical"] == [1, 1]
    short = neardup.dedup(rows, url="url", keep="shortest-url").to_pydict()
    assert short["canonical"] == [2, 2] and short["keep"] == [False, True]


def test_paths_run_the_whole_pipeline_like_the_cli(tmp_path):
    got = neardup.dedup(paths=str(SAMPLE)).to_pydict()
    out = tmp_path / "out"
    subprocess.run([os.environ["NEARDUP_BIN"], "dedup", str(SAMPLE), "--out", str(out), "-q"], check=True)
    cli = [json.loads(line) for line in (out / "clusters.jsonl").read_text().splitlines()]
    assert len(got["url"]) == len(cli) > 0
    assert list(zip(got["url"], got["cluster"], got["canonical_url"], got["keep"])) == [
        (r["url"], r["cluster"], r["canonical_url"], r["canonical"]) for r in cli]
    assert got["estimated_jaccard"] == [r["estimated_jaccard"] for r in cli]


def test_a_folder_of_crawl_folders_reads_as_the_cli_reads_it(tmp_path):
    """paths= walks a folder as the CLI does (the library's walk): the crawl files in dated
    subfolders are read, not the folder as HTML files (issue 58: 4 rows instead of 440), and a
    link to nothing below it is a warning."""
    crawl = tmp_path / "crawl"
    for month, name in [("2024-01", SAMPLE.name), ("2024-02", "rustdocs-nightly.warc.gz")]:
        (crawl / month).mkdir(parents=True)
        os.symlink(SAMPLE.parent / name, crawl / month / name)
    os.symlink(tmp_path / "gone.warc.gz", crawl / "old.warc.gz")
    with pytest.warns(UserWarning, match="old.warc.gz.*a link to nothing"):
        got = neardup.dedup(paths=[str(crawl)]).to_pydict()
    out = tmp_path / "out"
    subprocess.run([os.environ["NEARDUP_BIN"], "dedup", str(crawl), "--out", str(out), "-q"],
                   check=True)
    cli = [json.loads(line) for line in (out / "clusters.jsonl").read_text().splitlines()]
    assert len(got["url"]) == len(cli) > 300
    assert list(zip(got["url"], got["cluster"])) == [(r["url"], r["cluster"]) for r in cli]


def test_progress_is_reported_and_the_gil_is_released():
    records = corpus(seed=9, bases=300)
    table = pa.Table.from_pylist(records)
    calls, ticks = [], [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            ticks[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    try:
        neardup.dedup(table, progress=lambda done, total: calls.append((done, total, ticks[0])))
    finally:
        stop.set()
        t.join()
    # A table's text column tells its size up front (Arrow bytes, offsets included).
    total = table["text"].nbytes
    assert total >= sum(len(r["text"].encode()) for r in records)
    assert calls[0][:2] == (0, total) and calls[-1][:2] == (total, total), calls[:2]
    # Between the first call and the last the other thread ran: the GIL was not held.
    assert calls[-1][2] > calls[0][2], calls
    with pytest.raises(ZeroDivisionError):
        neardup.dedup(table, progress=lambda done, total: 1 / 0)
    neardup.dedup(table, progress=True)  # a tqdm bar


def test_bad_input_raises_clear_exceptions(tmp_path):
    with pytest.raises(KeyError, match='row 1 has no "text" column'):
        neardup.dedup([{"text": "a b c"}, {"txt": "a"}])
    with pytest.raises(ValueError, match="row 0: text is None"):
        neardup.dedup([{"text": None}])
    with pytest.raises(TypeError, match="row 0: text is int"):
        neardup.dedup([{"text": 5}])
    with pytest.raises(ValueError, match="not valid UTF-8"):
        neardup.dedup([{"text": b"\xff\xfe"}])
    with pytest.raises(ValueError, match="threshold"):
        neardup.dedup([{"text": "a b c d e f"}], threshold=2.0)
    with pytest.raises(TypeError, match="mixes ints"):
        neardup.dedup([{"id": 1, "text": "a"}, {"id": "x", "text": "b"}])
    assert neardup.dedup([]).num_rows == 0
    t = pa.table({"id": [1, 2], "text": ["a b c", None]})
    with pytest.raises(ValueError, match="row 1: text is null"):
        neardup.dedup(t)
    with pytest.raises(KeyError, match=r'no "body" column .*columns: id, text'):
        neardup.dedup(t, text="body")
    with pytest.raises(TypeError, match="column \"id\" is Int64, expected strings"):
        neardup.dedup(t, text="id")
    with pytest.raises(ValueError, match="row 1: text is not valid UTF-8"):
        neardup.dedup(pa.table({"text": pa.array([b"ok", b"\xc3\x28"], pa.binary())}))
    with pytest.raises(ValueError, match="matching"):
        neardup.dedup(t.slice(0, 1), matching="fuzzy")
    with pytest.raises(TypeError, match="not both"):
        neardup.dedup(t, paths=[str(SAMPLE)])
    with pytest.raises(neardup.NeardupError) as e:
        neardup.dedup(paths=[str(tmp_path / "missing.warc.gz")])
    assert e.value.kind == "input"
    damaged = tmp_path / "damaged.warc"
    damaged.write_bytes(b"WARC/1.0\r\nWARC-Type: response\r\nContent-Length: 99999\r\n\r\nshort")
    with pytest.raises(neardup.NeardupError) as e:
        neardup.dedup(paths=[str(damaged)], strict=True)
    assert e.value.kind == "malformed-input", e.value


def test_a_stream_is_read_as_it_comes_not_held():
    """A RecordBatchReader larger than what is kept: batches are made as the engine asks for
    them and let go once read, so Arrow memory stays near a few batches (only ids are kept)."""
    rng = random.Random(3)
    schema = pa.schema([("id", pa.int64()), ("text", pa.string())])
    peak = [0]
    n_batches, rows = 40, 500

    def batches():
        for b in range(n_batches):
            peak[0] = max(peak[0], pa.total_allocated_bytes())
            texts = [" ".join(words(rng.randrange(300), 60)) for _ in range(rows)]
            yield pa.record_batch([pa.array(range(b * rows, (b + 1) * rows), pa.int64()),
                                   pa.array(texts)], schema=schema)

    got = neardup.dedup(pa.RecordBatchReader.from_batches(schema, batches()))
    assert got.num_rows == n_batches * rows
    assert got["id"].to_pylist() == list(range(n_batches * rows))
    # 300 distinct texts repeated: most rows are copies of an earlier one.
    assert got["keep"].to_pylist().count(True) <= 300
    one_batch = rows * 60 * 6
    assert peak[0] < 6 * one_batch, (peak[0], one_batch, n_batches * one_batch)


def test_a_date_column_decides_keep_newest_in_every_input_shape():
    """Capture dates from a column (null: undated) reach the keep rule "newest", from
    mappings, a table and a stream alike; without the column the first page is kept."""
    text = "the quick brown fox jumps over the lazy dog again and again " * 8
    rows = [{"id": "old", "text": text, "date": "2020-01-01T00:00:00Z"},
            {"id": "new", "text": text, "date": "2024-06-01T00:00:00Z"},
            {"id": "none", "text": text, "date": None}]
    table = pa.Table.from_pylist(rows)
    for data in (rows, table, pa.RecordBatchReader.from_batches(table.schema, table.to_batches())):
        got = neardup.dedup(data, date="date", keep="newest").to_pylist()
        assert [r["canonical"] for r in got] == ["new"] * 3, got
    assert [r["canonical"] for r in neardup.dedup(rows, keep="newest").to_pylist()] == ["old"] * 3
    with pytest.raises(KeyError, match="date"):
        neardup.dedup(table, date="when", keep="newest")
