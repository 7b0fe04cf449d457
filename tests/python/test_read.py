"""neardup.read: crawl files as Arrow batches, record for record what warcio reads, bodies
decoded by the engine's charset rules, skipped records counted with file and offset."""

import gzip
import json

import pyarrow as pa
import pyarrow.compute
import pytest
from warcio.archiveiterator import ArchiveIterator

import neardup
from test_dedup import SAMPLE


def test_warc_pages_are_warcios_responses():
    pages = neardup.read(SAMPLE, batch_pages=50)
    batches = list(pages)
    assert len(batches) > 1 and all(isinstance(b, pa.RecordBatch) for b in batches)
    got = pa.Table.from_batches(batches).to_pydict()
    want = []
    with open(SAMPLE, "rb") as f:
        for rec in ArchiveIterator(f):
            if rec.rec_type == "response":
                want.append((rec.rec_headers.get_header("WARC-Target-URI"),
                             int(rec.http_headers.get_statuscode()),
                             rec.rec_headers.get_header("WARC-Date"),
                             rec.rec_headers.get_header("WARC-Record-ID"),
                             rec.content_stream().read()))
    assert [(u, s, d, i) for u, s, d, i, _ in want] == list(
        zip(got["url"], got["status"], got["date"], got["id"]))
    assert pages.pages == len(want) and pages.skipped == 0
    for (url, _, _, _, body), text, kind, n in zip(want, got["text"], got["kind"], got["body_bytes"]):
        if kind == "html":
            assert text == body.decode("utf-8") and n == len(body), url
    assert set(got["host"]) == {"doc.rust-lang.org"}
    assert set(got["file"]) == {str(SAMPLE)}


def test_jsonl_text_fields_and_damage(tmp_path):
    rows = [{"id": "a", "url": "https://example.org/a", "body": "first page"},
            {"id": "b", "url": "https://example.org/b", "body": "second page"}]
    path = tmp_path / "rows.jsonl.gz"
    with gzip.open(path, "wt") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
        f.write("{not json\n")
    pages = neardup.read([path], text_field="body")
    t = pages.read_all().to_pydict()
    assert t["text"] == ["first page", "second page"] and t["id"] == ["a", "b"]
    assert t["kind"] == ["text", "text"]
    assert pages.skipped == 1
    (p,) = pages.problems
    assert p["file"] == str(path) and p["offset"] > 0 and p["kind"]
    with pytest.raises(neardup.NeardupError) as e:
        neardup.read([path], text_field="body", strict=True).read_all()
    assert e.value.kind == "malformed-input"
    with pytest.raises(neardup.NeardupError):
        list(neardup.read([tmp_path / "missing.warc"]))
    with pytest.raises(ValueError, match="batch_pages"):
        neardup.read([path], batch_pages=0)


def test_pages_read_then_deduplicated_as_html_are_the_crawls_clusters():
    pages = neardup.read(SAMPLE).read_all()
    ok = pages.filter(pa.compute.and_(pa.compute.equal(pages["status"], 200),
                                      pa.compute.equal(pages["kind"], "html")))
    got = neardup.dedup(ok, text="text", url="url", id="id", html=True).to_pydict()
    want = neardup.dedup(paths=SAMPLE).to_pydict()
    clustered = [(u, c) for u, c in zip(ok["url"].to_pylist(), got["cluster"]) if c is not None]
    assert clustered == list(zip(want["url"], want["cluster"]))
    # The same rows read as plain text find other pairs: html=True is what makes them pages.
    as_text = neardup.dedup(ok, text="text", url="url", id="id").to_pydict()
    assert as_text["cluster"] != got["cluster"]


def test_a_folder_is_read_as_every_door_reads_it(tmp_path):
    """neardup.read walks a folder as the CLI and dedup(paths=) do (issue 58): the crawl files
    in its subfolders, not the folder as HTML files; a link to nothing is a warning."""
    import os

    (tmp_path / "crawl" / "2024-01").mkdir(parents=True)
    os.symlink(SAMPLE, tmp_path / "crawl" / "2024-01" / SAMPLE.name)
    os.symlink(tmp_path / "gone.warc.gz", tmp_path / "crawl" / "old.warc.gz")
    with pytest.warns(UserWarning, match="a link to nothing"):
        folder = sum(b.num_rows for b in neardup.read([str(tmp_path / "crawl")]))
    assert folder == sum(b.num_rows for b in neardup.read([str(SAMPLE)])) > 100
