#!/usr/bin/env bash
# neardup's Python package side by side with the peers that are Python packages (datasketch,
# rensa, gaoya) on the peers' JSONL corpus, in one run, ROUNDS times (default 3; tables show the
# fastest clean run of each, the raw JSONs hold every run), then the peers' own table and quality
# evaluation. Also the CLI on the same corpus, and the pyarrow table alone (--load-only: its
# peak RSS is the table's, for the zero-copy check).
#
#   bench/peers_py.sh [rustdocs|rustdocs20k] [ROUNDS]
#
# Needs BENCH_WORK with the peers' venv and corpus (../shared/bench/peers/README.md); builds a
# release wheel of neardup and installs it into that venv.
set -euo pipefail
cd "$(dirname "$0")/.."
export BENCH_WORK=${BENCH_WORK:-/work/bench-work}
PEERS=$(cd ../shared/bench/peers && pwd)
export PEERS_DIR=$PEERS
PY=$BENCH_WORK/peers-venv/bin/python
corpus=$BENCH_WORK/corpus/${1:-rustdocs}.jsonl
rounds=${2:-3}
base=${PEER_RESULTS_DIR:-$BENCH_WORK/results-py}
cargo build --release -q
"$PY" -m pip install -q --disable-pip-version-check "maturin==1.9.6" "pyarrow==26.0.1"
rm -rf target/wheels-release
"$BENCH_WORK/peers-venv/bin/maturin" build -q --release --out target/wheels-release --interpreter "$PY"
"$PY" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps target/wheels-release/neardup-*.whl
run() { name=$1; shift; "$PY" "$PEERS/run_bench.py" --name "$name" --corpus "$corpus" -- "$@"; }
dirs=()
for r in $(seq 1 "$rounds"); do
  export PEER_RESULTS_DIR=$base/r$r
  mkdir -p "$PEER_RESULTS_DIR"
  dirs+=("$PEER_RESULTS_DIR")
  run neardup-py-load "$PY" bench/peers/bench_neardup_py.py --corpus "$corpus" --load-only
  run neardup-py-bands "$PY" bench/peers/bench_neardup_py.py --corpus "$corpus" --variant bands
  run neardup-py-bands-exact "$PY" bench/peers/bench_neardup_py.py --corpus "$corpus" --variant bands-exact
  run neardup-bands "$PY" bench/peers/bench_neardup.py --corpus "$corpus" --variant bands --neardup target/release/neardup
  run datasketch   "$PY" "$PEERS/bench_datasketch.py" --corpus "$corpus"
  run rensa-9x13   "$PY" "$PEERS/bench_rensa.py" --corpus "$corpus" --num-perm 117 --bands 9
  run rensa        "$PY" "$PEERS/bench_rensa.py" --corpus "$corpus"
  run gaoya-native "$PY" "$PEERS/bench_gaoya.py" --corpus "$corpus" --variant native
  run gaoya-pytok  "$PY" "$PEERS/bench_gaoya.py" --corpus "$corpus" --variant pytok
done
"$PY" "$PEERS/make_table.py" --dirs "${dirs[@]}" --corpus "$(basename "$corpus" .jsonl)"
"$PY" "$PEERS/evaluate.py" --corpus "$corpus" --results "$base/r1"
