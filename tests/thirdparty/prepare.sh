#!/usr/bin/env bash
# Builds the third-party corpus the reader tests compare against (tests/it/thirdparty.rs):
#   - warcio 1.6.3's own test data (its sdist on PyPI ships it: example.warc, example-trunc.warc,
#     bad.arc, chunked, resource, ARC gz, ...);
#   - WARCs written by GNU Wget (--warc-file), recursively fetching a small generated site from a
#     local http.server on 127.0.0.1, once plain and once gzipped;
#   - a WARC written by warcio's capture_http from the same site;
#   - a WACZ package py-wacz (PyPI) makes of those WARCs;
# and writes expected.json: what warcio's ArchiveIterator reads from every file (records by type,
# responses and resources; a package's WARCs read out of it with zipfile), the reference the
# test compares neardup's page counts with.
#
#   bash tests/thirdparty/prepare.sh [DIR]     (default: target/thirdparty)
#
# Installs what it needs (pip: warcio, wacz; apt: wget) and reaches only PyPI and 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-target/thirdparty}
mkdir -p "$out"
out=$(cd "$out" && pwd)
# Made once: a second run keeps the files (and the answers) of the first.
if [ -f "$out/expected.json" ]; then
    echo "third-party corpus ready: $out"
    bash tests/prepared.sh thirdparty
    exit 0
fi
python3 -c "import warcio" 2>/dev/null || pip install -q "warcio==1.8.1"
if ! command -v wget >/dev/null; then
    (apt-get update -qq && apt-get install -y -qq wget) >/dev/null
fi
# 1. warcio's test data.
if [ ! -d "$out/warcio" ]; then
    tmp=$(mktemp -d)
    pip download -q --no-deps --no-binary :all: "warcio==1.6.3" -d "$tmp"
    tar xzf "$tmp"/warcio-1.6.3.tar.gz -C "$tmp"
    mkdir -p "$out/warcio"
    cp "$tmp"/warcio-1.6.3/test/data/* "$out/warcio/"
    rm -rf "$tmp"
fi
# 2. A small site, fetched by wget and by warcio from a local server.
site=$(mktemp -d)
python3 - "$site" <<'PY'
import os, sys
root = sys.argv[1]
os.makedirs(os.path.join(root, "docs"), exist_ok=True)
words = "near duplicate pages differ by a few words in a template that repeats".split()
for i in range(12):
    body = " ".join(words[(i + k) % len(words)] for k in range(200))
    links = " ".join(f'<a href="docs/p{j}.html">p{j}</a>' for j in range(12) if j != i)
    with open(os.path.join(root, "docs", f"p{i}.html"), "w") as f:
        f.write(f"<!DOCTYPE html><html><head><title>p{i}</title></head><body><p>{body}</p>"
                f"<p>{links.replace('docs/', '')}</p></body></html>")
with open(os.path.join(root, "index.html"), "w") as f:
    f.write("<!DOCTYPE html><html><head><title>index</title></head><body>"
            + " ".join(f'<a href="docs/p{j}.html">p{j}</a>' for j in range(12))
            + '<img src="logo.png"></body></html>')
with open(os.path.join(root, "logo.png"), "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
PY
port=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$site" >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$site"' EXIT
for _ in $(seq 50); do
    python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/')" 2>/dev/null && break
    sleep 0.1
done
mkdir -p "$out/wget"
(cd "$out/wget" && rm -f wget-site*.warc* &&
    wget -q --recursive --level=2 --no-host-directories --directory-prefix=files \
        --warc-file=wget-site --no-warc-compression "http://127.0.0.1:$port/" || true)
(cd "$out/wget" && wget -q --recursive --level=2 --no-host-directories --directory-prefix=files \
        --warc-file=wget-site-gz "http://127.0.0.1:$port/" || true)
rm -rf "$out/wget/files"
python3 - "$out" "$port" <<'PY' || true
import sys, urllib.request
from warcio.capture_http import capture_http
out, port = sys.argv[1], sys.argv[2]
with capture_http(f"{out}/wget/warcio-capture.warc.gz"):
    for path in ["", "docs/p0.html", "docs/p1.html", "docs/p2.html", "logo.png"]:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/{path}").read()
PY
# 3. A WACZ package of the WARCs written above, by py-wacz (in its own venv: its pins).
if [ ! -f "$out/wacz/wget-site.wacz" ]; then
    python3 -m venv "$out/pywacz"
    "$out/pywacz/bin/pip" install -q --disable-pip-version-check "wacz==0.6.0"
    mkdir -p "$out/wacz"
    "$out/pywacz/bin/wacz" create -o "$out/wacz/wget-site.wacz" \
        "$out/wget/wget-site-gz.warc.gz" "$out/wget/warcio-capture.warc.gz" >/dev/null
    rm -rf "$out/pywacz"
fi
# 4. What warcio reads from every file.
python3 - "$out" <<'PY'
import glob, json, os, sys
from warcio.archiveiterator import ArchiveIterator
out = sys.argv[1]
expected = {}
import io, zipfile
def streams(path):
    if path.endswith(".wacz"):
        with zipfile.ZipFile(path) as z:
            for name in sorted(n for n in z.namelist() if n.startswith("archive/")):
                yield io.BytesIO(z.read(name))
    else:
        with open(path, "rb") as f:
            yield f
for path in sorted(glob.glob(f"{out}/*/*")):
    if path.endswith(".json"):
        continue
    rec = {"records": 0, "by_type": {}, "http_responses": 0, "resources": 0, "error": None}
    try:
        for f in streams(path):
            for r in ArchiveIterator(f, arc2warc=True):
                rec["records"] += 1
                rec["by_type"][r.rec_type] = rec["by_type"].get(r.rec_type, 0) + 1
                if r.rec_type == "response" and r.http_headers is not None:
                    rec["http_responses"] += 1
                if r.rec_type == "resource":
                    rec["resources"] += 1
                r.content_stream().read()
    except Exception as e:  # noqa: BLE001 - warcio's own verdict is the reference
        rec["error"] = f"{type(e).__name__}: {e}"[:200]
    expected[os.path.relpath(path, out)] = rec
with open(f"{out}/expected.json", "w") as f:
    json.dump(expected, f, indent=1, sort_keys=True)
print(f"third-party corpus: {len(expected)} files in {out}")
PY
# Tells the build (build.rs) that these tests can run now.
bash tests/prepared.sh thirdparty
