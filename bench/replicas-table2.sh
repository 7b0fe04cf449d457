#!/usr/bin/env bash
# Paper 001 Table 2: AUC of the PU and NU classifiers with each feature in isolation and with all
# features but one, on the labelled replica crawl.
#
# Usage: bench/replicas-table2.sh CRAWL.warc.gz LABELS.csv
#   (make them with tests/fixtures/make_replicas.py --src DEVCRAWL ...)
set -euo pipefail
cd "$(dirname "$0")/.."
crawl=$1
labels=$2
cargo build --release -q
tmp=target/bench/table2
mkdir -p "$tmp"
all=(ndist nmatch ip4 ip3 fullpath)
run() { # name, features
  ./target/release/neardup replicas "$crawl" -q --features "$2" --out "$tmp/$1"
  ./target/release/neardup eval -q --truth "$labels" --pred "$tmp/$1" --out "$tmp/$1-eval"
  python3 - "$tmp/$1-eval/site-eval.json" "$1" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
auc = {m["method"]: m["auc"] for m in e["methods"]}
print(f"| {sys.argv[2]} | {auc['pu']:.4f} | {auc['nu']:.4f} | {auc['pu+nu']:.4f} |")
PY
}
echo "| features | PU AUC | NU AUC | PU+NU AUC |"
echo "|---|---:|---:|---:|"
run all "$(IFS=,; echo "${all[*]}")"
for f in "${all[@]}"; do run "only-$f" "$f"; done
for f in "${all[@]}"; do
  rest=()
  for g in "${all[@]}"; do [ "$g" != "$f" ] && rest+=("$g"); done
  run "all-except-$f" "$(IFS=,; echo "${rest[*]}")"
done
