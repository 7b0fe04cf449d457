#!/usr/bin/env bash
# The scaling run of neardup on Spark: a synthetic set (bench/make_synthetic.py JSONL files) on
# local[2], components always spread over the executors (--local-edges 0), event log on; prints
# the job's timings, then shuffle bytes and records written over the job, and per page.
#
#   bench/spark_synth.sh WORK_DIR PAGES JSONL...
#
# Needs a venv SPARK_VENV (default $BENCH_WORK/spark-venv) with pyspark, pyarrow and neardup.
set -euo pipefail
cd "$(dirname "$0")/.."
V=${SPARK_VENV:-${BENCH_WORK:-/work/bench-work}/spark-venv}
W=$1; pages=$2; shift 2
mkdir -p "$W/input"
i=0
for f in "$@"; do
  if [ ! -f "$W/input/part-$i.parquet" ]; then
    # Integer ids ("s123" -> 123) and row groups of 65,536 rows, so Spark splits the input.
    "$V/bin/python" - "$f" "$W/input/part-$i.parquet" <<'PY'
import sys, pyarrow as pa, pyarrow.compute as pc, pyarrow.json as pj, pyarrow.parquet as pq
w = None
for b in pj.open_json(sys.argv[1], read_options=pj.ReadOptions(block_size=64 << 20)):
    t = pa.table({"id": pc.cast(pc.utf8_slice_codeunits(b.column("id"), 1), pa.int64()),
                  "text": b.column("text")})
    w = w or pq.ParquetWriter(sys.argv[2], t.schema)
    w.write_table(t, row_group_size=65536)
w.close()
PY
  fi
  i=$((i + 1))
done
rm -rf "$W/out" "$W/ev" "$W/ck" "$W/spark-local"; mkdir -p "$W/ev"
/usr/bin/time -f "wall=%e maxrss_kb=%M" env PYSPARK_PYTHON="$V/bin/python" "$V/bin/spark-submit" \
  --master local[2] --driver-memory 16g --conf spark.ui.enabled=false \
  --conf spark.sql.shuffle.partitions=64 --conf spark.default.parallelism=64 \
  --conf spark.local.dir="$W/spark-local" --conf spark.eventLog.enabled=true \
  --conf spark.eventLog.compress=false --conf spark.eventLog.dir="file://$W/ev" \
  python/examples/spark_dedup.py --input "$W/input" --output "$W/out" --threshold 0.8 \
  --containment -1 --num-perm 128 --shingle 5 --no-wrap --content page --checkpoint-dir "$W/ck" \
  --local-edges 0 2>&1 | grep -E '^\{"session|wall='
"$V/bin/python" - "$W/ev" "$pages" <<'PY'
import glob, json, os, sys
t = {"shuffle_write_bytes": 0, "shuffle_write_records": 0, "stages": 0, "tasks": 0}
for p in glob.glob(sys.argv[1] + "/**/*", recursive=True):
    if not os.path.isfile(p) or "events_" not in p:
        continue
    for line in open(p):
        if '"SparkListenerTaskEnd"' in line:
            w = (json.loads(line).get("Task Metrics") or {}).get("Shuffle Write Metrics") or {}
            t["shuffle_write_bytes"] += w.get("Shuffle Bytes Written", 0)
            t["shuffle_write_records"] += w.get("Shuffle Records Written", 0)
            t["tasks"] += 1
        elif '"SparkListenerStageCompleted"' in line:
            t["stages"] += 1
t["per_page"] = round(t["shuffle_write_bytes"] / int(sys.argv[2]), 1)
print(json.dumps(t))
PY
