#!/usr/bin/env bash
# End-to-end benchmark of the HTML report on the full development crawl (~142k pages): what the
# report costs a `neardup dedup` run (with and without --no-report, whole processes, median of
# ROUNDS), how long `neardup report DIR` takes alone, how big report.html is, and how long
# Debian's Chromium takes to load it (tests/browser/check_reports.mjs, which also checks it).
#
# Usage: bench/report.sh [CRAWL_DIR]   (default target/devcrawl; built if missing, ~3 min)
#        ROUNDS=N (default 3)
# Needs the browser test prepared: bash tests/browser/prepare.sh
# Writes target/bench/report/ and prints the numbers.
set -euo pipefail
cd "$(dirname "$0")/.."
crawl=${1:-target/devcrawl}
rounds=${ROUNDS:-3}
out=target/bench/report
mkdir -p "$out"
if [ ! -f "$crawl/manifest.json" ]; then
  [ -d /usr/share/doc/rust-doc/html ] || apt-get install -y rust-doc >/dev/null
  python3 ../shared/datasets/build-dev-crawl.py --out "$crawl"
fi
cargo build --release -q
bin=./target/release/neardup
timed() { # LOG CMD...: appends "wall_s rss_kib" to LOG
  local log=$1
  shift
  /usr/bin/time -f "%e %M" -o "$out/time.tmp" "$@" >/dev/null
  cat "$out/time.tmp" >>"$log"
}
rm -f "$out"/*.times
for round in $(seq "$rounds"); do
  rm -rf "$out/with" "$out/without"
  timed "$out/with.times" "$bin" dedup "$crawl" --out "$out/with" -q
  timed "$out/without.times" "$bin" dedup "$crawl" --out "$out/without" --no-report -q
  timed "$out/rebuild.times" "$bin" report "$out/with" -q
done
shots=$out/screenshots
: >"$out/browser.jsonl"
for round in $(seq "$rounds"); do
  node tests/browser/check_reports.mjs "$shots" "$out/with/report.html" >>"$out/browser.jsonl"
done
python3 - "$out" "$crawl" <<'PY'
import json, os, statistics, sys
out, crawl = sys.argv[1], sys.argv[2]
def med(name):
    rows = [list(map(float, l.split())) for l in open(f"{out}/{name}.times") if l.strip()]
    return statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows) / 1024, len(rows)
with_s, with_mb, n = med("with")
without_s, without_mb, _ = med("without")
rebuild_s, rebuild_mb, _ = med("rebuild")
s = json.load(open(f"{out}/with/summary.json"))
pages = s.get("pages_read") or s.get("pages")
size = os.path.getsize(f"{out}/with/report.html")
loads = [json.loads(l) for l in open(f"{out}/browser.jsonl") if l.strip()]
print(f"crawl {crawl}: {pages} pages; median of {n} runs, whole processes, {os.cpu_count()} cores")
print(f"dedup with report:    {with_s:7.2f} s  peak RSS {with_mb:6.0f} MiB")
print(f"dedup --no-report:    {without_s:7.2f} s  peak RSS {without_mb:6.0f} MiB  "
      f"(the report costs {with_s - without_s:+.2f} s, x{with_s / without_s:.2f})")
print(f"neardup report alone: {rebuild_s:7.2f} s  peak RSS {rebuild_mb:6.0f} MiB")
print(f"report.html: {size / 1e6:.2f} MB ({size} bytes)")
print(f"Chromium load: median {statistics.median(l['load_ms'] for l in loads):.0f} ms over {len(loads)} loads; "
      f"{loads[-1]['svgs']} SVGs, {loads[-1]['tables']} tables; checks "
      + ("passed" if all(l["ok"] for l in loads) else "FAILED: " + "; ".join(p for l in loads for p in l["problems"])))
PY
