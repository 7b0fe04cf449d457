#!/usr/bin/env bash
# A set of shards against one index (issue 62): PAGES synthetic pages (default 1 million, made by
# bench/make_synthetic.rs) streamed in batches of BATCH (default 250,000) into one index and into
# a set of SHARDS shards (default 2; `index create --shards`), each batch one add; then the same
# queried pages against both, every match and the likeliest one (`index query`, -j THREADS), and
# the rows compared byte for byte. Prints each add's seconds (and the shard that took it), the
# bytes of both, the query times, and whether the rows are identical (the script fails if not).
# Usage: bench/shards_vs_one.sh [PAGES [BATCH]]; WORK=DIR (default /work/shards-bench), MEM
# (default 2G), THREADS (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
PAGES="${1:-1000000}"
BATCH="${2:-250000}"
WORK="${WORK:-/work/shards-bench}"
MEM="${MEM:-2G}"
SHARDS="${SHARDS:-2}"
THREADS="${THREADS:-2}"
cargo build --release -q --bin neardup --example make_synthetic
B=target/release/neardup
G=target/release/examples/make_synthetic
rm -rf "$WORK"
mkdir -p "$WORK"
one="$WORK/one"
set="$WORK/set"
"$B" index create "$one" -q
"$B" index create "$set" --shards "$SHARDS" -q
now() { date +%s.%N; }
echo "pages $PAGES, batches of $BATCH, $SHARDS shards, --mem-limit $MEM, $(nproc) cores"
echo "batch,one_add_s,set_add_s,set_shard"
done_pages=0
b=0
while [ "$done_pages" -lt "$PAGES" ]; do
  n=$((PAGES - done_pages < BATCH ? PAGES - done_pages : BATCH))
  t0=$(now)
  "$G" --pages "$n" --start "$done_pages" --seed $((b + 1)) |
    "$B" index add "$one" - --label "synth-$b" --mem-limit "$MEM" -q
  t1=$(now)
  shard=$("$G" --pages "$n" --start "$done_pages" --seed $((b + 1)) |
    "$B" index add "$set" - --label "synth-$b" --mem-limit "$MEM" | sed -n 's/.*(shard \([0-9]*\)).*/\1/p')
  t2=$(now)
  echo "$b,$(python3 -c "print(f'{$t1-$t0:.1f},{$t2-$t1:.1f}')"),$shard"
  done_pages=$((done_pages + n))
  b=$((b + 1))
done
echo "one: $(du -sb "$one" | cut -f1) bytes; set: $(du -sb "$set" | cut -f1) bytes"
for s in "$set"/shard-*; do echo "  $(basename "$s"): $("$B" index stats "$s" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["pages"])') pages"; done

# Queried: every 50th page of the first batch (their near-copies are held) and 15,000 new ones.
q="$WORK/query.jsonl"
"$G" --pages "$BATCH" --seed 1 | awk 'NR % 50 == 0' > "$q"
"$G" --pages 15000 --start $((PAGES * 2)) --seed 1001 >> "$q"
echo "queried pages: $(wc -l < "$q")"
for extra in "" "--max-matches 1"; do
  for ix in one set; do
    t0=$(now)
    # shellcheck disable=SC2086
    "$B" index query "$WORK/$ix" "$q" -j "$THREADS" $extra -q > "$WORK/rows-$ix.jsonl"
    t1=$(now)
    echo "query ${extra:-every match} on $ix: $(python3 -c "print(f'{$t1-$t0:.1f}')") s, $(wc -l < "$WORK/rows-$ix.jsonl") rows"
  done
  cmp "$WORK/rows-one.jsonl" "$WORK/rows-set.jsonl"
  echo "rows identical (${extra:-every match})"
done
