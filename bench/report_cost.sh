#!/usr/bin/env bash
# What the report adds to a `neardup dedup` run, per input format: whole processes, ROUNDS
# rounds (default 3) alternating with and without --no-report, medians and their ratio.
# Usage: bench/report_cost.sh INPUT [DEDUP ARGS...]   e.g. the peers' JSONL corpus, the same
# corpus as Parquet, or the development crawl's folder. Issue 42's goal: at most +10%.
set -euo pipefail
cd "$(dirname "$0")/.."
input=${1:?usage: bench/report_cost.sh INPUT [DEDUP ARGS...]}
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build --release -q
for round in $(seq "${ROUNDS:-3}"); do
  rm -rf "$work/r" "$work/n"
  /usr/bin/time -f "report %e %M" -a -o "$work/times" target/release/neardup dedup "$input" --out "$work/r" -q "$@"
  /usr/bin/time -f "no-report %e %M" -a -o "$work/times" target/release/neardup dedup "$input" --out "$work/n" -q --no-report "$@"
done
python3 - "$work/times" "$input" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, wall, rss = line.split()
    rows.setdefault(name, []).append(float(wall))
r, n = statistics.median(rows["report"]), statistics.median(rows["no-report"])
print("| %s | %s | %.2f | %s | %.2f | %+.0f%% |" % (sys.argv[2], " / ".join("%.2f" % w for w in rows["report"]), r,
      " / ".join("%.2f" % w for w in rows["no-report"]), n, (r / n - 1) * 100))
PY
