#!/usr/bin/env bash
# End-to-end benchmark of `neardup scan` on the full development crawl (142k pages, 1.6 GB of
# HTML), with peak memory, plus the HTML-to-text reference (resiliparse) on the same pages.
#
# Usage: bench/e2e-scan.sh [CRAWL_DIR]   (default target/devcrawl; built if missing, ~2 min)
# Writes target/bench/scan.json and prints the numbers.
set -euo pipefail
cd "$(dirname "$0")/.."
crawl=${1:-target/devcrawl}
mkdir -p target/bench
if [ ! -f "$crawl/manifest.json" ]; then
  [ -d /usr/share/doc/rust-doc/html ] || apt-get install -y rust-doc >/dev/null
  python3 ../shared/datasets/build-dev-crawl.py --out "$crawl"
fi
python3 -c "import warcio, resiliparse" 2>/dev/null || pip install -q warcio==1.8.1 resiliparse
cargo build --release -q
echo "== neardup scan $crawl ($(nproc) cores)"
for run in 1 2 3; do
  /usr/bin/time -f "wall %e s, peak RSS %M KiB" ./target/release/neardup scan "$crawl" -q --json target/bench/scan.json
done
python3 - <<'PY'
import json
r = json.load(open("target/bench/scan.json"))
print(f"pages {r['pages']} (HTML {r['html_pages']}), HTML {r['analyzed_bytes']/1e9:.2f} GB, tokens {r['tokens']}, "
      f"{r['seconds']:.2f} s, {r['pages_per_second']:.0f} pages/s, {r['body_mb_per_second']:.0f} MB/s, skipped {r['skipped']}")
PY
echo "== HTML to tokens, one core, same 20,000 pages: resiliparse vs neardup"
first=$(ls "$crawl"/*.warc.gz | sort | tail -1)
python3 bench/html2text_ref.py "$first" target/bench/pages.warc.gz --pages 20000
NEARDUP_BENCH_WARC="$PWD/target/bench/pages.warc.gz" cargo bench -q -p neardup-text --bench tokenize 2>&1 | grep -E "^tokenize|thrpt"
