#!/usr/bin/env bash
# neardup side by side with the peers of ../shared/bench/peers (datasketch, rensa, gaoya,
# datatrove) and bench/peers (fastsketchlsh) on the same JSONL corpus, in one run, then the
# peers' own table and quality
# evaluation. Usage: bench/peers.sh [rustdocs|rustdocs20k]   (default rustdocs, the full corpus)
# Needs BENCH_WORK with the peers' venv and corpus (see ../shared/bench/peers/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
export BENCH_WORK=${BENCH_WORK:-/work/bench-work}
PEERS=$(cd ../shared/bench/peers && pwd)
export PEERS_DIR=$PEERS
PY=$BENCH_WORK/peers-venv/bin/python
corpus=$BENCH_WORK/corpus/${1:-rustdocs}.jsonl
export PEER_RESULTS_DIR=${PEER_RESULTS_DIR:-$BENCH_WORK/results-side-by-side}
mkdir -p "$PEER_RESULTS_DIR"
cargo build --release -q
run() { name=$1; shift; "$PY" "$PEERS/run_bench.py" --name "$name" --corpus "$corpus" -- "$@"; }
for v in bands bands-rabin bands-exact shingling; do
  run neardup-$v "$PY" bench/peers/bench_neardup.py --corpus "$corpus" --variant $v --neardup target/release/neardup
done
run datasketch   "$PY" "$PEERS/bench_datasketch.py" --corpus "$corpus"
run rensa-9x13   "$PY" "$PEERS/bench_rensa.py" --corpus "$corpus" --num-perm 117 --bands 9
run rensa        "$PY" "$PEERS/bench_rensa.py" --corpus "$corpus"
run gaoya-native "$PY" "$PEERS/bench_gaoya.py" --corpus "$corpus" --variant native
run fastsketchlsh "$PY" bench/peers/bench_fastsketchlsh.py --corpus "$corpus"
run fastsketchlsh-16x8 "$PY" bench/peers/bench_fastsketchlsh.py --corpus "$corpus" --bands 16
run datatrove-common-9x13 "$PY" "$PEERS/bench_datatrove.py" --corpus "$corpus" --tok common --buckets 9 --hashes-per-bucket 13
"$PY" "$PEERS/make_table.py" --dirs "$PEER_RESULTS_DIR" --corpus "$(basename "$corpus" .jsonl)"
"$PY" "$PEERS/evaluate.py" --corpus "$corpus" --results "$PEER_RESULTS_DIR"
