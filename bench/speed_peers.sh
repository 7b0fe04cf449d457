#!/usr/bin/env bash
# Issue 42's end-to-end goals on the peers' task, whole processes, ROUNDS rounds (default 3)
# of: neardup with the report (the default) and without, gaoya native, datasketch, fastsketchlsh
# (and rensa 9x13), one after another in each round under the peers' run_bench.py; then the
# median wall time and peak memory of each, and each peer's ratio to neardup with the report.
# Usage: bench/speed_peers.sh [rustdocs|rustdocs20k]. Needs BENCH_WORK with the peers' venv and
# corpus (../shared/bench/peers/README.md; `pip install fastsketchlsh` into that venv).
set -euo pipefail
cd "$(dirname "$0")/.."
export BENCH_WORK=${BENCH_WORK:-/work/bench-work}
PEERS=$(cd ../shared/bench/peers && pwd)
export PEERS_DIR=$PEERS
PY=$BENCH_WORK/peers-venv/bin/python
corpus=$BENCH_WORK/corpus/${1:-rustdocs}.jsonl
out=${SPEED_OUT:-$BENCH_WORK/speed-peers}
rm -rf "$out"
cargo build --release -q
for round in $(seq "${ROUNDS:-3}"); do
  export PEER_RESULTS_DIR=$out/round-$round
  mkdir -p "$PEER_RESULTS_DIR"
  run() { name=$1; shift; "$PY" "$PEERS/run_bench.py" --name "$name" --corpus "$corpus" -- "$@" >/dev/null 2>&1; }
  run neardup-bands "$PY" bench/peers/bench_neardup.py --corpus "$corpus" --variant bands --neardup target/release/neardup
  run neardup-bands-no-report "$PY" bench/peers/bench_neardup.py --corpus "$corpus" --variant bands-no-report --neardup target/release/neardup
  run gaoya-native "$PY" "$PEERS/bench_gaoya.py" --corpus "$corpus" --variant native
  run datasketch "$PY" "$PEERS/bench_datasketch.py" --corpus "$corpus"
  run fastsketchlsh "$PY" bench/peers/bench_fastsketchlsh.py --corpus "$corpus"
  run rensa-9x13 "$PY" "$PEERS/bench_rensa.py" --corpus "$corpus" --num-perm 117 --bands 9
done
"$PY" - "$out" <<'PY'
# e2e as the peers' make_table.py counts it: the bench process's wall time minus harness-only
# phases (re-reading the corpus or the tool's output for statistics).
import glob, json, os, statistics, sys
HARNESS = ("load_for_stats", "read_clusters", "read_results")
runs = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "round-*", "*.json"))):
    if f.endswith(".run.json"):
        continue
    r = json.load(open(f))
    e2e = r["run"]["wall_s"] - sum(r["phases"].get(h, 0) for h in HARNESS)
    rss = r["run"].get("tree_peak_rss_kb") or r["run"]["max_rss_kb"]
    runs.setdefault(r["name"], []).append((e2e, rss))
base = statistics.median(e for e, _ in runs["neardup-bands"])
print("| tool | e2e s (rounds) | median | peak RSS MiB (tree, median) | median / neardup with report |")
print("|---|---|---:|---:|---:|")
for name, rs in sorted(runs.items()):
    med = statistics.median(e for e, _ in rs)
    rss = statistics.median(m for _, m in rs) / 1024
    print("| %s | %s | %.2f | %.0f | %.2fx |" % (name, " / ".join("%.2f" % e for e, _ in rs), med, rss, med / base))
PY
