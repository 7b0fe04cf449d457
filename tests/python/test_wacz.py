"""WACZ packages in the Python doors (issue 59): `neardup.read`, `neardup.dedup(paths=)`,
`neardup.audit` and `neardup.spark.read` read a package as its WARC files, as the CLI does.
Fixtures: tests/fixtures/make_wacz.py (py-wacz and warcio)."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pyarrow as pa
import pytest
from warcio.archiveiterator import ArchiveIterator

import neardup
from neardup import spark as nds

WACZ = Path(__file__).resolve().parents[1] / "fixtures" / "wacz"
WARCS = [WACZ / "a1.warc.gz", WACZ / "a2.warc.gz"]


def warcio_responses(paths):
    out = []
    for p in paths:
        with open(p, "rb") as f:
            for rec in ArchiveIterator(f):
                if rec.rec_type == "response":
                    out.append((rec.rec_headers.get_header("WARC-Target-URI"),
                                rec.rec_headers.get_header("WARC-Record-ID"),
                                rec.content_stream().read().decode()))
    return out


@pytest.mark.parametrize("package", ["a.wacz", "a-deflated.wacz", "a-streamed.wacz"])
def test_read_gives_the_pages_warcio_reads_from_the_packed_warcs(package):
    got = pa.Table.from_batches(list(neardup.read(WACZ / package))).to_pydict()
    assert list(zip(got["url"], got["id"], got["text"])) == warcio_responses(WARCS)
    assert {Path(f).name for f in got["file"]} == {"a1.warc.gz", "a2.warc.gz"}
    assert all(f.startswith(str(WACZ / package) + os.sep) for f in got["file"])


def test_dedup_of_a_package_equals_dedup_of_its_warcs():
    def rows(paths):
        t = neardup.dedup(paths=[str(p) for p in paths])
        keep = [c for c in t.column_names if "file" not in c]
        return t.select(keep).to_pylist()

    ours = rows([WACZ / "a.wacz"])
    assert ours and ours == rows(WARCS)
    assert any(r["cluster"] is not None for r in ours)


def test_audit_names_the_missing_package(tmp_path):
    for f in ("a.wacz", "b.wacz"):
        shutil.copy(WACZ / f, tmp_path / f)
    r = neardup.audit(tmp_path / "b.wacz")
    r = r if isinstance(r, dict) else json.loads(r)
    missing = [p["package"] for p in r["packages"] if not p["found"]]
    assert missing == ["c.wacz"]
    assert r["revisits"]["by_resolution"]["refers-to-record"] == 8
    # The CLI says the same.
    cli = subprocess.run([os.environ["NEARDUP_BIN"], "audit", str(tmp_path / "b.wacz"),
                          "--json", "-", "-q"], capture_output=True, check=True)
    assert json.loads(cli.stdout)["packages"] == r["packages"]


def test_spark_reads_a_package_in_the_executors(spark):
    got = nds.read(spark, [str(WACZ / "a.wacz")]).toArrow().to_pydict()
    want = warcio_responses(WARCS)
    assert list(zip(got["url"], got["id"], got["text"])) == want
    assert got["record"] == list(range(len(want)))
