"""warcprox (PyPI) as a real client of `neardup serve`: warcprox proxies a local HTTP server
that serves pages of the sample crawl and writes WARCs, with --cdxserver-dedup pointing at the
service's /cdx.

1. First crawl: warcprox fetches every page and writes full response records (the index is
   empty, so /cdx knows none of them).
2. The first crawl's WARC is added to the index over HTTP (POST /v1/add:batch, the WARC as it
   is).
3. Second crawl, one page changed by a line: warcprox asks /cdx for each URL and writes a
   revisit record for every page whose payload digest the index holds; the changed page gets a
   full response record, and /v1/lookup of that record says it is a near-duplicate of its
   first-crawl capture, with the evidence.

    python warcprox_dedup.py --neardup BIN --sample WARC --work DIR [--pages N]

Exits 0 when every check holds; prints what it counted.
"""

import argparse
import glob
import http.server
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request

from warcio.archiveiterator import ArchiveIterator


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sample_pages(path, n):
    """The first n HTML pages (200, no meta refresh) of the sample crawl: (path, body)."""
    out = []
    with open(path, "rb") as f:
        for rec in ArchiveIterator(f):
            if rec.rec_type != "response" or rec.http_headers.get_statuscode() != "200":
                continue
            ctype = rec.http_headers.get_header("Content-Type") or ""
            body = rec.content_stream().read()
            if "text/html" not in ctype or b'http-equiv="refresh"' in body or len(body) < 4000:
                continue
            out.append(("/p%d.html" % len(out), body))
            if len(out) == n:
                break
    return out


class Site(http.server.ThreadingHTTPServer):
    daemon_threads = True


def serve_site(pages):
    class Handler(http.server.BaseHTTPRequestHandler):
        # HTTP/1.1 keeps the connection warcprox pools open. Under HTTP/1.0 the site closes
        # each connection after its answer, and warcprox may pool it before the close is
        # visible: the next fetch on it fails with RemoteDisconnected, which warcprox answers
        # with 502 and caches for the host (seen on a loaded CI machine).
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            body = pages.get(self.path)
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    # warcprox refuses to fetch from 127.0.0.1 (and ::1); any other loopback address is allowed.
    site = Site(("127.0.0.2", 0), Handler)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    return site


def crawl(warcprox_bin, cdx, warcs, urls):
    """Runs warcprox once, fetches every URL through it, stops it: the records it wrote."""
    warcs = os.path.abspath(warcs)
    os.makedirs(warcs, exist_ok=True)
    port = free_port()
    proc = subprocess.Popen(
        [warcprox_bin, "-b", "127.0.0.1", "-p", str(port), "-d", warcs, "-z",
         "--base32", "--cdxserver-dedup", cdx, "-n", "crawl",
         "--dedup-min-text-size", "0", "--dedup-min-binary-size", "0"],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(warcs, "warcprox.log"), "wb"),
        # warcprox writes its stats database (warcprox.sqlite) in its working folder.
        cwd=warcs,
    )
    try:
        opener = urllib.request.build_opener(
            urllib.request.ProxyHandler({"http": "http://127.0.0.1:%d" % port}))
        deadline = time.time() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.time() > deadline:
                    raise SystemExit("warcprox did not start")
                time.sleep(0.2)
        try:
            for u in urls:
                with opener.open(u, timeout=30) as r:
                    assert r.status == 200, (u, r.status)
                    r.read()
        except Exception:
            with open(os.path.join(warcs, "warcprox.log"), "rb") as log:
                sys.stderr.write("warcprox.log, last 4 KB:\n")
                sys.stderr.write(log.read()[-4096:].decode("utf-8", "replace"))
            raise
        # warcprox writes records after answering: wait until every URL is in a WARC.
        deadline = time.time() + 60
        while len(records(warcs)) < len(urls):
            if time.time() > deadline:
                raise SystemExit("warcprox wrote %d of %d records" % (len(records(warcs)), len(urls)))
            time.sleep(0.3)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    return records(warcs)


def records(warcs):
    """(type, url, payload digest, refers-to date) of every response and revisit record."""
    out = []
    for path in sorted(glob.glob(os.path.join(warcs, "*.warc.gz*"))):
        with open(path, "rb") as f:
            try:
                for rec in ArchiveIterator(f):
                    if rec.rec_type in ("response", "revisit"):
                        h = rec.rec_headers
                        out.append((rec.rec_type, h.get_header("WARC-Target-URI"),
                                    h.get_header("WARC-Payload-Digest"),
                                    h.get_header("WARC-Refers-To-Date")))
            except Exception:
                pass  # a file still being written
    return out


def post(url, data, ctype):
    req = urllib.request.Request(url, data=data, headers={"Content-Type": ctype}, method="POST")
    with urllib.request.urlopen(req, timeout=60) as r:
        return r.status, r.read().decode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--neardup", required=True)
    ap.add_argument("--sample", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--pages", type=int, default=12)
    a = ap.parse_args()
    warcprox_bin = os.path.join(os.path.dirname(sys.executable), "warcprox")

    pages = dict(sample_pages(a.sample, a.pages))
    assert len(pages) == a.pages, len(pages)
    site = serve_site(pages)
    base = "http://127.0.0.2:%d" % site.server_address[1]
    urls = [base + p for p in sorted(pages)]

    index = os.path.join(a.work, "idx")
    subprocess.run([a.neardup, "index", "create", index, "-q"], check=True)
    server = subprocess.Popen([a.neardup, "serve", "--index", index, "--listen", "127.0.0.1:0", "-q"],
                              stdout=subprocess.PIPE)
    try:
        addr = server.stdout.readline().decode().strip()
        svc = "http://" + addr

        # 1. The first crawl: full records only.
        first = crawl(warcprox_bin, svc + "/cdx", os.path.join(a.work, "warcs1"), urls)
        kinds = [r[0] for r in first]
        assert kinds.count("response") == len(urls) and "revisit" not in kinds, kinds

        # 2. Its WARC, as warcprox wrote it, into the index.
        added = 0
        for path in glob.glob(os.path.join(a.work, "warcs1", "*.warc.gz")):
            with open(path, "rb") as f:
                status, text = post(svc + "/v1/add:batch?label=crawl1", f.read(), "application/warc")
            assert status == 200, text
            for line in text.splitlines():
                r = json.loads(line)
                assert r.get("status") == "added", r
                added += 1
        assert added == len(urls), added

        # 3. The second crawl, one page changed by a line.
        changed = sorted(pages)[0]
        pages[changed] = pages[changed].replace(b"</body>", b"<p>A line added since.</p></body>")
        second = crawl(warcprox_bin, svc + "/cdx", os.path.join(a.work, "warcs2"), urls)
        revisits = [r for r in second if r[0] == "revisit"]
        responses = [r for r in second if r[0] == "response"]
        assert len(revisits) == len(urls) - 1, second
        assert all(r[3] for r in revisits), "revisits name the date of the capture they repeat"
        assert [r[1] for r in responses] == [base + changed], responses
        # The changed page: not an exact duplicate, but neardup finds its first capture.
        for path in glob.glob(os.path.join(a.work, "warcs2", "*.warc.gz")):
            with open(path, "rb") as f:
                status, text = post(svc + "/v1/lookup:batch", f.read(), "application/warc")
            for line in text.splitlines():
                r = json.loads(line)
                if r["url"] != base + changed:
                    continue
                assert r["duplicate"] and r["matches"][0]["url"] == base + changed, r
                assert r["matches"][0]["label"] == "crawl1", r
                assert not r["matches"][0]["identical_payload"], r
                print("near-duplicate of its first capture: estimated Jaccard %.3f"
                      % r["matches"][0]["estimated_jaccard"])
        print("first crawl: %d responses; second crawl: %d revisits, %d response"
              % (len(first), len(revisits), len(responses)))
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=60) == 0
        site.shutdown()


if __name__ == "__main__":
    main()
