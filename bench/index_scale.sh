#!/usr/bin/env bash
# The persistent index at scale (issues 18, 42, 62): PAGES synthetic pages (default 100 million)
# made by the Rust generator (bench/make_synthetic.rs) and streamed into `neardup index add IDX -`
# in batches of BATCH pages (default 10 million; no input file on disk), each add under
# `--mem-limit MEM`:
#   1. every batch: wall seconds and peak RSS of the add, the index's bytes (and per page) after
#      it, the disk still free: the curve, one line a batch;
#   2. lookups one page at a time (20,000 pages: every 500th page of the first batch and 10,000
#      new ones) with the index evicted from the page cache first (posix_fadvise DONTNEED: every
#      first read comes from disk), twice, then warm;
#   3. `neardup dedup --index IDX -` of a new batch of DEDUP pages (default 1 million), streamed:
#      wall seconds, peak RSS, the summary.
# Usage: bench/index_scale.sh [PAGES [BATCH]]; WORK=DIR for the index and the query pages (default
# /work/synth), MEM (default 2G), DEDUP (default 1000000; 0 leaves step 3 out), KEEP=1 keeps the
# index afterwards. The run stops before a batch that would not fit on the disk (at 800 B a page
# for the index and 4x the batch's index bytes for an add's staged runs and spills), or, with
# DEADLINE=EPOCH_SECONDS, before a batch that starts after it (steps 2 and 3 still run).
set -euo pipefail
cd "$(dirname "$0")/.."
PAGES="${1:-100000000}"
BATCH="${2:-10000000}"
WORK="${WORK:-/work/synth}"
MEM="${MEM:-2G}"
DEDUP="${DEDUP:-1000000}"
mkdir -p "$WORK"
cargo build --release -q --bin neardup --example make_synthetic
cargo build --release -q -p neardup-index --example index_latency
B=target/release/neardup
G=target/release/examples/make_synthetic
L=target/release/examples/index_latency
evict() {
  python3 -c 'import os,sys
d=sys.argv[1]
for f in os.listdir(d):
    p=os.path.join(d,f)
    if os.path.isfile(p):
        fd = os.open(p, os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)' "$1"
}
free_bytes() { df -B1 --output=avail "$WORK" | tail -1; }
index_bytes() { du -sb "$1" | cut -f1; }

idx="$WORK/idx-$PAGES"
rm -rf "$idx"
"$B" index create "$idx" -q
echo "pages $PAGES, batches of $BATCH, --mem-limit $MEM, $(nproc) cores"
echo "batch,pages_after,add_s,add_peak_kib,index_bytes,bytes_per_page,free_bytes"
done_pages=0
b=0
while [ "$done_pages" -lt "$PAGES" ]; do
  n=$((PAGES - done_pages < BATCH ? PAGES - done_pages : BATCH))
  need=$((n * 800 * 5))
  if [ "$(free_bytes)" -lt "$need" ]; then
    echo "stopped before batch $b: $(free_bytes) bytes free, a batch of $n pages needs about $need"
    break
  fi
  if [ -n "${DEADLINE:-}" ] && [ "$(date +%s)" -ge "$DEADLINE" ]; then
    echo "stopped before batch $b: past the deadline"
    break
  fi
  t="$WORK/time.txt"
  "$G" --pages "$n" --start "$done_pages" --seed $((b + 1)) |
    /usr/bin/time -o "$t" -f "%e %M" "$B" index add "$idx" - --label "synth-$b" --mem-limit "$MEM" -q
  done_pages=$((done_pages + n))
  read -r secs kib < "$t"
  size=$(index_bytes "$idx")
  echo "$b,$done_pages,$secs,$kib,$size,$((size / done_pages)),$(free_bytes)"
  b=$((b + 1))
done
"$B" index stats "$idx"

q="$WORK/query-$PAGES.jsonl"
"$G" --pages "$((BATCH < PAGES ? BATCH : PAGES))" --seed 1 | awk 'NR % 500 == 0' | head -10000 > "$q"
"$G" --pages 10000 --start $((PAGES * 2)) --seed 1001 >> "$q"
evict "$idx"
echo "query, evicted: $("$L" "$idx" "$q")"
evict "$idx"
echo "query, evicted again: $("$L" "$idx" "$q")"
echo "query, warm: $("$L" "$idx" "$q")"

if [ "$DEDUP" != 0 ]; then
  out="$WORK/dedup-out-$PAGES"
  rm -rf "$out"
  "$G" --pages "$DEDUP" --start $((PAGES * 3)) --seed 2001 |
    /usr/bin/time -f "dedup --index of $DEDUP new pages: %e s %M KiB" \
      "$B" dedup --index "$idx" - --mem-limit "$MEM" -o "$out" -q
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); [print(k, s.get(k)) for k in ("pages","pages_in_clusters","pages_to_remove","clusters","candidate_pairs","seconds")]' "$out/summary.json"
  rm -rf "$out"
fi
[ "${KEEP:-0}" = 1 ] || rm -rf "$idx"
