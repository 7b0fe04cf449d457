"""Request bodies for bench/serve.sh: the first N HTML pages (status 200) of a WARC as JSON
lines {"url", "html"}: what a crawler sends to POST /v1/lookup, and what `neardup index query`
reads as JSONL.

    python3 bench/serve_bodies.py WARC N OUT
"""

import json
import sys

from warcio.archiveiterator import ArchiveIterator

warc, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
count = 0
with open(warc, "rb") as f, open(out, "w") as o:
    for rec in ArchiveIterator(f):
        if rec.rec_type != "response" or rec.http_headers.get_statuscode() != "200":
            continue
        if "text/html" not in (rec.http_headers.get_header("Content-Type") or ""):
            continue
        html = rec.content_stream().read().decode("utf-8", "replace")
        o.write(json.dumps({"url": rec.rec_headers.get_header("WARC-Target-URI"), "html": html}))
        o.write("\n")
        count += 1
        if count == n:
            break
print(count, "bodies", file=sys.stderr)
