#!/usr/bin/env bash
# What --write-kept adds to a dedup run (issue 38: at most 15%): the same synthetic JSONL corpus
# (bench/make_synthetic.py, 200,000 pages, 187 MB, 16% near copies) plain, gzip -1 and zstd -3,
# `dedup --no-report` with and without --write-kept, whole processes, medians of 3.
# Usage: bench/write_kept.sh [PAGES]
set -euo pipefail
cd "$(dirname "$0")/.."
pages=${1:-200000}
work=${BENCH_WORK:-/tmp/neardup-bench}/write-kept
mkdir -p "$work"
cargo build --release -q
bin=$PWD/target/release/neardup
[ -s "$work/syn.jsonl" ] || python3 bench/make_synthetic.py --pages "$pages" --out "$work/syn.jsonl"
[ -s "$work/syn.jsonl.gz" ] || gzip -1 -k "$work/syn.jsonl"
[ -s "$work/syn.jsonl.zst" ] || zstd -q -3 "$work/syn.jsonl" -o "$work/syn.jsonl.zst"
cd "$work"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for f in syn.jsonl syn.jsonl.gz syn.jsonl.zst; do
  for mode in plain kept; do
    for i in 1 2 3; do
      rm -rf out kept
      s=$(date +%s.%N)
      if [ $mode = plain ]; then "$bin" dedup "$f" --out out --no-report -q
      else "$bin" dedup "$f" --out out --no-report -q --write-kept kept; fi
      e=$(date +%s.%N)
      echo "$e - $s" | bc
    done | median > "t-$mode"
  done
  p=$(cat t-plain); k=$(cat t-kept)
  echo "$f: dedup $p s, with --write-kept $k s: +$(echo "scale=1; 100 * ($k - $p) / $p" | bc)%"
done
