#!/usr/bin/env bash
# How an add's and a `dedup --index` run's time grow with the index they go into (issue 62): an
# index of BASE synthetic pages (default 8 million) added in batches of BATCH (default 1 million)
# with --no-merge, so it holds one key segment a batch as the 40 M run did before its first merge;
# then, ROUNDS times (default 3), for each build given: an add of NEW new pages (default 1 million)
# to a copy of it (hard links: segments are never written in place), the first batch added to a
# copy again (`--again`: every record held, none stored) and `dedup --index` of DEDUP pages
# (default 200,000, half of them new, half the first batch's: few enough against the index that
# their keys are looked up, not the segments read whole). Wall seconds and peak RSS of each.
# Usage: bench/add_growth.sh OLD_NEARDUP [NEW_NEARDUP (default: this tree's release build)];
# WORK=DIR (default /work/growth), MEM (default 2G).
set -euo pipefail
cd "$(dirname "$0")/.."
OLD="$1"
NEW="${2:-target/release/neardup}"
BASE="${BASE:-8000000}"
BATCH="${BATCH:-1000000}"
NEWPAGES="${NEW_PAGES:-1000000}"
DEDUP="${DEDUP:-200000}"
ROUNDS="${ROUNDS:-3}"
WORK="${WORK:-/work/growth}"
MEM="${MEM:-2G}"
cargo build --release -q --example make_synthetic
G=target/release/examples/make_synthetic
mkdir -p "$WORK"
base="$WORK/base-$BASE"
if [ ! -f "$base/MANIFEST" ]; then
  rm -rf "$base"
  "$NEW" index create "$base" -q
  done_pages=0
  b=0
  while [ "$done_pages" -lt "$BASE" ]; do
    "$G" --pages "$BATCH" --start "$done_pages" --seed $((b + 1)) |
      "$NEW" index add "$base" - --label "base-$b" --mem-limit "$MEM" --no-merge -q
    done_pages=$((done_pages + BATCH))
    b=$((b + 1))
  done
fi
echo "index: $BASE pages in $((BASE / BATCH)) key segments, $(du -sb "$base" | cut -f1) bytes; $(nproc) cores"
echo "build,round,step,seconds,peak_kib"
t="$WORK/time.txt"
for r in $(seq 1 "$ROUNDS"); do
  for which in old new; do
    bin=$OLD
    [ "$which" = new ] && bin=$NEW
    copy="$WORK/copy"
    rm -rf "$copy"
    cp -al "$base" "$copy"
    "$G" --pages "$NEWPAGES" --start $((BASE * 2)) --seed 777 |
      /usr/bin/time -o "$t" -f "%e %M" "$bin" index add "$copy" - --label new --mem-limit "$MEM" --no-merge -q
    read -r secs kib < "$t"
    echo "$which,$r,add,$secs,$kib"
    rm -rf "$copy"
    cp -al "$base" "$copy"
    "$G" --pages "$BATCH" --seed 1 |
      /usr/bin/time -o "$t" -f "%e %M" "$bin" index add "$copy" - --label again --again --mem-limit "$MEM" --no-merge -q
    read -r secs kib < "$t"
    echo "$which,$r,add-held,$secs,$kib"
    out="$WORK/dedup-out"
    rm -rf "$out"
    { "$G" --pages $((DEDUP / 2)) --start $((BASE * 3)) --seed 778; "$G" --pages $((DEDUP / 2)) --seed 1; } |
      /usr/bin/time -o "$t" -f "%e %M" "$bin" dedup --index "$base" - --mem-limit "$MEM" -o "$out" -q
    read -r secs kib < "$t"
    echo "$which,$r,dedup,$secs,$kib"
    python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print("  ", {k: s.get(k) for k in ("pages","duplicates_of_index","pages_in_clusters","candidate_pairs","pairs_with_index")})' "$out/summary.json"
    rm -rf "$copy" "$out"
  done
done
