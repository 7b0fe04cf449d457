#!/usr/bin/env bash
# Issue 42's development-crawl goals, whole processes, ROUNDS rounds (default 3), one after
# another in each round: one-core `gzip -dc` of the crawl's files, `neardup dedup` with its
# defaults (the report on) and with --no-report; then neardup on the crawl's first file alone,
# for the marginal memory per page read (peak RSS difference over page difference).
# Usage: bench/speed_crawl.sh CRAWL_DIR (../shared/datasets/build-dev-crawl.py --out DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
crawl=${1:?usage: bench/speed_crawl.sh CRAWL_DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build --release -q
bin=target/release/neardup
files=("$crawl"/*.warc.gz)
timed() { # name, command...: appends "name wall_s rss_kb" to $work/times
  local name=$1; shift
  /usr/bin/time -f "$name %e %M" -a -o "$work/times" "$@" >/dev/null 2>&1
}
for round in $(seq "${ROUNDS:-3}"); do
  timed gzip-dc taskset -c 0 sh -c 'for f in "$@"; do gzip -dc "$f"; done' sh "${files[@]}"
  rm -rf "$work/d"; timed dedup "$bin" dedup "$crawl" --out "$work/d" -q
  rm -rf "$work/n"; timed dedup-no-report "$bin" dedup "$crawl" --out "$work/n" -q --no-report
  rm -rf "$work/f"; timed dedup-first-file "$bin" dedup "${files[0]}" --out "$work/f" -q
done
pages_all=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['pages_read'])" "$work/d/summary.json")
pages_one=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['pages_read'])" "$work/f/summary.json")
python3 - "$work/times" "$pages_all" "$pages_one" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, wall, rss = line.split()
    rows.setdefault(name, []).append((float(wall), int(rss)))
med = {n: (statistics.median(w for w, _ in r), statistics.median(m for _, m in r)) for n, r in rows.items()}
print("| what | wall s (rounds) | median | peak RSS MiB (median) | median / gzip -dc |")
print("|---|---|---:|---:|---:|")
for n, r in rows.items():
    print("| %s | %s | %.2f | %.0f | %.2fx |" % (n, " / ".join("%.2f" % w for w, _ in r), med[n][0], med[n][1] / 1024, med[n][0] / med["gzip-dc"][0]))
all_pages, one_pages = int(sys.argv[2]), int(sys.argv[3])
kib = (med["dedup"][1] - med["dedup-first-file"][1]) / (all_pages - one_pages)
print()
print("Pages read: %d (all files), %d (first file). Marginal peak memory with the report: %.2f KiB per page read." % (all_pages, one_pages, kib))
PY
