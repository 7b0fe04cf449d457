"""Payload digests in any form, normalized once: SHA-1 or SHA-256, base32 or hex, with the
`sha1:`/`sha256:` prefix or without, as warcio computes them, through every door that takes a
digest (Python's `Index.digests`, the CLI's `index digest`, the service's `/v1/digest` and
`/cdx` filter)."""

import base64
import hashlib
import io
import json
import os
import subprocess
import urllib.parse
import urllib.request

import neardup
from warcio.statusandheaders import StatusAndHeaders
from warcio.utils import Digester
from warcio.warcwriter import WARCWriter


def _crawl(path):
    payloads = []
    with open(path, "wb") as f:
        w = WARCWriter(f, gzip=True)
        for i in range(3):
            body = ("<html><head><title>Page %d</title></head><body><p>%s</p></body></html>"
                    % (i, " ".join("word%d" % (j * (i + 1)) for j in range(200)))).encode()
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html")],
                                       protocol="HTTP/1.1")
            rec = w.create_warc_record("https://d.example/p%d" % i, "response",
                                       payload=io.BytesIO(body), http_headers=headers)
            w.write_record(rec)
            payloads.append(("https://d.example/p%d" % i, body))
    return payloads


def _forms(body):
    """Every way a digest of `body` is written: warcio's (prefix and base32), hex, bare,
    lowercase, padded, with hyphenated prefixes."""
    out = []
    for algo in ("sha1", "sha256"):
        d = Digester(algo)
        d.update(body)
        warcio_form = str(d)  # e.g. sha256:BASE32 (with padding for SHA-256)
        raw = hashlib.new(algo, body).digest()
        b32 = base64.b32encode(raw).decode()
        hexd = raw.hex()
        out += [warcio_form, warcio_form.split(":", 1)[1], b32.rstrip("=").lower(), hexd,
                hexd.upper(), "%s:%s" % (algo, hexd), "%s:%s" % (algo.upper().replace("SHA", "SHA-"), b32)]
    return out


def test_every_digest_form_finds_its_page_through_every_door(tmp_path):
    crawl = tmp_path / "crawl.warc.gz"
    payloads = _crawl(crawl)
    idx = neardup.Index.create(tmp_path / "idx")
    assert idx.add(paths=[crawl], label="c")["pages"] == 3
    served = subprocess.Popen([os.environ["NEARDUP_BIN"], "serve", "--index", str(idx.path),
                               "--listen", "127.0.0.1:0", "--read-only"],
                              stdout=subprocess.PIPE, text=True)
    try:
        base = served.stdout.readline().split("listening on ")[1].strip()
        for url, body in payloads:
            sha1 = "sha1:" + base64.b32encode(hashlib.sha1(body).digest()).decode()
            for form in _forms(body):
                rows = idx.digests([form])
                assert [(r["url"], r["sha1"]) for r in rows] == [(url, sha1)], form
                want = rows[0]["digest"]
                assert want in (sha1, "sha256:" + hashlib.sha256(body).hexdigest())
                cli = subprocess.run([os.environ["NEARDUP_BIN"], "index", "digest", str(idx.path),
                                      form], check=True, capture_output=True, text=True).stdout
                assert [json.loads(l) for l in cli.splitlines()] == rows, form
                q = urllib.parse.urlencode({"digest": form})
                http = json.load(urllib.request.urlopen(base + "/v1/digest?" + q, timeout=30))
                assert http == rows, form
                q = urllib.parse.urlencode({"url": url, "fl": "original,digest,sha256",
                                            "filter": "digest:" + form})
                cdx = urllib.request.urlopen(base + "/cdx?" + q, timeout=30).read().decode()
                assert cdx.split() == [url, sha1[5:], hashlib.sha256(body).hexdigest()], form
        # Another page's digest finds nothing; a malformed one is a 400 and a ValueError.
        other = hashlib.sha256(b"nothing here").hexdigest()
        assert idx.digests([other]) == []
        try:
            urllib.request.urlopen(base + "/v1/digest?digest=sha256:zz", timeout=30)
            raise AssertionError("a malformed digest was answered")
        except urllib.error.HTTPError as e:
            assert e.code == 400
    finally:
        served.terminate()
        served.wait(timeout=30)
    try:
        idx.digests(["sha256:zz"])
        raise AssertionError("a malformed digest was taken")
    except ValueError as e:
        assert "SHA-256" in str(e)
