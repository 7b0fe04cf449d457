#!/usr/bin/env bash
# What keeping fewer bits of each kept shingle set member costs: the development crawl indexed
# at each width (`index create --set-bits W`), its size, and `index query` of its 1.63.0 crawl
# (every match of every page) compared with whole sets' by bench/compare_queries.py.
#
#   bash bench/set_bits.sh DEVCRAWL OUT [WIDTHS...]     (default widths: 32 22 20)
#
# DEVCRAWL holds rustdocs-{1.63.0,stable,nightly}.warc.gz (build-dev-crawl.py --out DEVCRAWL);
# the first width is the reference. Uses target/release/neardup (cargo build --release).
set -euo pipefail
cd "$(dirname "$0")/.."
crawl=$1 out=$2
shift 2
if [ $# -gt 0 ]; then widths=("$@"); else widths=(32 22 20); fi
bin=$PWD/target/release/neardup
mkdir -p "$out"
for w in "${widths[@]}"; do
    idx=$out/idx$w
    rm -rf "$idx"
    t0=$EPOCHREALTIME
    "$bin" index create "$idx" --set-bits "$w" -q
    for v in 1.63.0 stable nightly; do
        "$bin" index add "$idx" "$crawl/rustdocs-$v.warc.gz" --label "$v" -q -j2
    done
    t1=$EPOCHREALTIME
    "$bin" index query "$idx" "$crawl/rustdocs-1.63.0.warc.gz" -q -j2 -o "$out/q$w.jsonl"
    t2=$EPOCHREALTIME
    echo "set bits $w: add $(awk "BEGIN{printf \"%.1f\", $t1-$t0}") s, query $(awk "BEGIN{printf \"%.1f\", $t2-$t1}") s"
    "$bin" index stats "$idx" | head -2
done
files=()
for w in "${widths[@]}"; do files+=("$out/q$w.jsonl"); done
python3 bench/compare_queries.py "${files[@]}"
