"""`neardup audit` on a collection with known faults (bench/audit_collection.py, warcio), on
WARCs GNU Wget wrote with its own revisit records (--warc-dedup), and on warcio's example
WARC: every finding is the known one, and Python answers what the CLI answers."""

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("warcio")

ROOT = Path(__file__).resolve().parents[2]


def audit_cli(*paths):
    out = subprocess.run([os.environ["NEARDUP_BIN"], "audit", *map(str, paths), "--json", "-"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    out = tmp_path_factory.mktemp("audit")
    subprocess.run([sys.executable, str(ROOT / "bench" / "audit_collection.py"), "--out",
                    str(out)], check=True, capture_output=True)
    return out, json.loads((out / "truth.json").read_text())


def test_the_audit_finds_every_known_fault(collection):
    out, truth = collection
    files = sorted(out.glob("crawl*.warc.gz"))
    a = audit_cli(*files)
    r = a["revisits"]
    assert r["revisits"] == truth["revisits"]
    assert sorted(x["url"] for x in a["unresolvable"]) == truth["unresolvable"]
    assert r["by_resolution"]["unresolvable"] == len(truth["unresolvable"])
    assert all(x["reason"] and x["original"] is None for x in a["unresolvable"])
    # The lost originals' reasons name what was looked for.
    reasons = {x["url"]: x["reason"] for x in a["unresolvable"]}
    assert "no record <urn:uuid:" in reasons["https://lost.example/p0"]
    assert "no capture of https://lost.example/p3 at 2025-12-01" in reasons["https://lost.example/p3"]
    assert r["missing_refers_to_target_uri"] == truth["missing_headers"]
    assert r["missing_refers_to_date"] == truth["missing_headers"]
    assert len(a["missing_headers"]) == truth["missing_headers"]
    assert r["longest_chain"] == truth["longest_chain"] and r["deepest"] == truth["deepest"]
    assert r["chain_lengths"][3] == 1
    chain = a["longest_chains"][0]
    assert chain["url"] == "https://archive.example/logo.png" and chain["revisits"] == 150
    assert r["digest_mismatch"] == 0
    p = a["payloads"]
    assert p["repeated"] == truth["repeated"]
    assert p["bytes_saved_same_url"] == truth["bytes_saved_same_url"]
    assert p["bytes_saved_any_url"] == truth["bytes_saved_any_url"]
    assert [g["copies"] for g in a["repeated_payloads"]] == [6, 4]
    hosts = {h["host"]: h for h in a["hosts"]}
    for host, want in truth["hosts"].items():
        assert hosts[host]["pages"] == want["pages"], host
        assert hosts[host]["near_duplicate"] == want["near_duplicate"], host
    # Without the first crawl, the revisits of its captures cannot resolve.
    only_second = audit_cli(out / "crawl2.warc.gz")
    assert only_second["revisits"]["by_resolution"]["unresolvable"] > len(truth["unresolvable"])


def test_python_answers_what_the_cli_answers(collection):
    import neardup
    out, _ = collection
    files = sorted(str(p) for p in out.glob("crawl*.warc.gz"))
    assert neardup.audit(files, threads=1) == audit_cli(*files)


@pytest.fixture(scope="module")
def wget_dedup(tmp_path_factory):
    """Two crawls by GNU Wget of one local site; the second deduplicated against the first's
    CDX (--warc-dedup), so it holds revisit records (Wget writes WARC-Refers-To only)."""
    if not shutil.which("wget"):
        pytest.skip("GNU Wget is not installed (tests/thirdparty/prepare.sh installs it)")
    out = tmp_path_factory.mktemp("wget")
    site = out / "site"
    site.mkdir()
    for i in range(4):
        (site / f"p{i}.html").write_text(
            f"<html><body><p>page {i} " + " ".join(f"w{i}{k}" for k in range(60))
            + f"</p><a href='p{(i + 1) % 4}.html'>next</a></body></html>")
    (site / "index.html").write_text("<a href='p0.html'>start</a>")
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind",
                               "127.0.0.1", "--directory", str(site)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        import time
        import urllib.request
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/").read()
                break
            except OSError:
                time.sleep(0.05)
        base = ["wget", "-q", "-r", "-l", "5", "-nH", "--no-warc-compression"]
        subprocess.run(base + ["-P", str(out / "f1"), "--warc-file", str(out / "first"),
                               "--warc-cdx", f"http://127.0.0.1:{port}/"], cwd=out)
        subprocess.run(base + ["-P", str(out / "f2"), "--warc-file", str(out / "second"),
                               "--warc-dedup", str(out / "first.cdx"),
                               f"http://127.0.0.1:{port}/"], cwd=out)
    finally:
        server.terminate()
        server.wait()
    return out / "first.warc", out / "second.warc"


def test_wget_revisits_resolve_only_with_their_originals(wget_dedup):
    first, second = wget_dedup
    alone = audit_cli(second)
    r = alone["revisits"]
    assert r["revisits"] >= 4  # the index and the pages (robots.txt too)
    assert r["by_resolution"] == {"unresolvable": r["revisits"]}
    # Wget writes WARC-Refers-To without -Target-URI or -Date.
    assert r["missing_refers_to_target_uri"] == r["missing_refers_to_date"] == r["revisits"]
    both = audit_cli(first, second)
    assert both["revisits"]["by_resolution"] == {"refers-to-record": r["revisits"]}
    assert both["unresolvable"] == [] and both["revisits"]["longest_chain"] == 1


def test_warcio_example_revisits_resolve_by_uri_and_date():
    example = ROOT / "target" / "thirdparty" / "warcio" / "example.warc"
    if not example.exists():
        pytest.skip("tests/thirdparty/prepare.sh has not run")
    a = audit_cli(example)
    assert a["revisits"]["by_resolution"] == {"refers-to-uri-and-date": 1}
    assert a["revisits"]["missing_refers_to_target_uri"] == 0
    assert a["payloads"]["responses"] == 1


def test_a_file_of_revisits_alone_is_audited(tmp_path):
    """Issue 58: an audit needs records, not pages; a file holding only revisit records was
    refused with "no page read". warcio writes it."""
    from warcio.warcwriter import WARCWriter

    path = tmp_path / "revisits.warc.gz"
    with open(path, "wb") as f:
        w = WARCWriter(f, gzip=True)
        for i in range(3):
            w.write_record(w.create_revisit_record(
                f"https://r.example/{i}", digest="sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
                refers_to_uri=f"https://r.example/{i}", refers_to_date="2024-03-01T12:00:00Z"))
    a = audit_cli(path)
    assert a["revisits"]["revisits"] == 3
    assert a["revisits"]["by_resolution"] == {"unresolvable": 3}
    # A file with no record at all is still an error: nothing was audited.
    empty = tmp_path / "empty.warc"
    empty.write_bytes(b"")
    o = subprocess.run([os.environ["NEARDUP_BIN"], "audit", str(empty)], capture_output=True,
                       text=True)
    assert o.returncode == 4, o.stderr
