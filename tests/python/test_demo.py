"""neardup.demo: the example world, the same bytes as `neardup demo` writes, readable by
third-party readers (warcio, pyarrow)."""
import json
import os
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from warcio.archiveiterator import ArchiveIterator

import neardup


def files(root):
    return {p.relative_to(root): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_python_and_the_cli_write_the_same_world(tmp_path):
    about = neardup.demo(tmp_path / "py")
    assert "corpus.jsonl" in about and "crawl/" in about
    subprocess.run([os.environ["NEARDUP_BIN"], "demo", str(tmp_path / "cli"), "-q"], check=True)
    a, b = files(tmp_path / "py"), files(tmp_path / "cli")
    assert a.keys() == b.keys()
    assert [k for k in a if a[k] != b[k]] == []


def test_its_files_read_with_third_party_readers(tmp_path):
    neardup.demo(tmp_path / "w")
    w = tmp_path / "w"
    weeks = {}
    for week in ("week1", "week2"):
        with open(w / week / f"{week}.warc.gz", "rb") as f:
            recs = [r for r in ArchiveIterator(f) if r.rec_type == "response"]
            weeks[week] = {r.rec_headers.get_header("WARC-Target-URI"): r.http_headers.get_statuscode()
                           for r in recs}
    # One URL space; a page gone in week 2, a copy on a mirror host.
    assert set(weeks["week1"]) <= set(weeks["week2"])
    assert list(weeks["week2"].values()).count("404") == 1
    assert any(u.startswith("https://docs-mirror.example/") for u in weeks["week2"])
    with open(w / "collection" / "2026-11-09.warc.gz", "rb") as f:
        types = [r.rec_type for r in ArchiveIterator(f)]
    assert types.count("revisit") > 100
    # The packages: valid zips holding the same WARC files, week 2's revisits naming week 1's
    # package, its datapackage.json requiring it (and a missing one).
    import zipfile
    with zipfile.ZipFile(w / "packages" / "2026-11-09.wacz") as z:
        assert z.testzip() is None
        recs = [r for r in ArchiveIterator(z.open("archive/2026-11-09.warc.gz")) if r.rec_type == "revisit"]
        containers = {r.rec_headers.get_header("WARC-Refers-To-Container") for r in recs}
        assert containers == {"file://2026-11-02.wacz", "file://2026-10-26.wacz"}
        dp = json.loads(z.read("datapackage.json"))
        assert [r["filename"] for r in dp["relation"]["requires"]] == ["2026-11-02.wacz", "2026-10-26.wacz"]
        assert {r["path"] for r in dp["resources"]} >= {"archive/2026-11-09.warc.gz", "pages/pages.jsonl"}
    rows = pq.read_table(w / "rows.parquet")
    assert rows.column_names == ["id", "url", "text"] and rows.num_rows == 60


def test_a_folder_holding_files_is_refused(tmp_path):
    (tmp_path / "mine.txt").write_text("keep")
    with pytest.raises(neardup.NeardupError) as e:
        neardup.demo(tmp_path)
    assert e.value.kind == "not-empty"
    assert (tmp_path / "mine.txt").read_text() == "keep"
