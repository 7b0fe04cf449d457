#!/usr/bin/env bash
# neardup on Spark side by side with text-dedup's Spark script (tuned for local[2]) on the
# peers' JSONL corpus, in one run, ROUNDS times, then the peers' own table and quality
# evaluation (against the exact reference).
#
#   bench/peers_spark.sh [rustdocs|rustdocs20k] [ROUNDS]
#
# Needs BENCH_WORK with the corpus and a venv SPARK_VENV (default $BENCH_WORK/spark-venv) with
# pyspark 4.3.0, text-dedup 0.4.0 and pyarrow (../shared/bench/peers/README.md), and Java 17;
# builds a release wheel of neardup and installs it into that venv.
set -euo pipefail
cd "$(dirname "$0")/.."
export BENCH_WORK=${BENCH_WORK:-/work/bench-work}
PEERS=$(cd ../shared/bench/peers && pwd)
export PEERS_DIR=$PEERS
VENV=${SPARK_VENV:-$BENCH_WORK/spark-venv}
PY=$VENV/bin/python
corpus=$BENCH_WORK/corpus/${1:-rustdocs}.jsonl
rounds=${2:-3}
base=${PEER_RESULTS_DIR:-$BENCH_WORK/results-spark}
"$PY" -m pip install -q --disable-pip-version-check "maturin==1.9.6"
rm -rf target/wheels-spark
"$VENV/bin/maturin" build -q --release --out target/wheels-spark --interpreter "$PY"
"$PY" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps target/wheels-spark/neardup-*.whl
run() { name=$1; shift; "$PY" "$PEERS/run_bench.py" --name "$name" --corpus "$corpus" --timeout 3600 -- "$@"; }
dirs=()
for r in $(seq 1 "$rounds"); do
  export PEER_RESULTS_DIR=$base/r$r
  mkdir -p "$PEER_RESULTS_DIR"
  dirs+=("$PEER_RESULTS_DIR")
  run neardup-spark "$PY" bench/peers/bench_neardup_spark.py --corpus "$corpus"
  run neardup-spark-12x10 "$PY" bench/peers/bench_neardup_spark.py --corpus "$corpus" --bands 12 --rows 10
  run spark-textdedup-tuned "$PY" "$PEERS/bench_spark_textdedup.py" --corpus "$corpus" --tuned
  # Its Spark log, for its job time (the work folder is cleared by the next run).
  cp "$BENCH_WORK/spark_work/tuned__$(basename "$corpus" .jsonl)/spark.log" "$PEER_RESULTS_DIR/spark-textdedup-tuned.spark.log"
done
# The single-machine answers with the same settings, for the clusters' comparison.
cargo build -q --release
for v in bands bands-12x10 bands-16x8; do
  PEER_RESULTS_DIR=$base/r1 "$PY" bench/peers/bench_neardup.py --corpus "$corpus" --variant $v > /dev/null
done
"$PY" bench/spark_same_clusters.py "$base/r1" "$(basename "$corpus" .jsonl)" "${dirs[@]}" || echo "CLUSTERS DIFFER from the single-machine run"
"$PY" "$PEERS/make_table.py" --dirs "${dirs[@]}" --corpus "$(basename "$corpus" .jsonl)"
"$PY" bench/spark_job_times.py "${dirs[@]}"
# evaluate.py imports every peer (rensa among them): the Python peers' venv runs it.
"${PEERS_PY:-$BENCH_WORK/peers-venv/bin/python}" "$PEERS/evaluate.py" --corpus "$corpus" --results "$base/r1"
