#!/usr/bin/env bash
# The persistent index at scale (issues 18, 42): PAGES synthetic pages (bench/make_synthetic.py,
# default 10 million, in two zstd-compressed JSONL files: ~0.3 KB of disk per page) are
#   1. sketched alone (`neardup sketch`) and added to an empty index (`neardup index add
#      --mem-limit MEM`): wall seconds and peak RSS of each whole process, index bytes per page;
#   2. queried one page at a time (20,000 pages: every 500th indexed page and 10,000 new ones)
#      with the index evicted from the page cache first (posix_fadvise DONTNEED: every first
#      read comes from disk), twice;
#   3. deduplicated into an empty index (`neardup dedup --index --add-as --mem-limit MEM`):
#      wall seconds, peak RSS, the summary.
# Usage: bench/index_scale.sh [PAGES]; WORK=DIR for data and indexes (default /work/synth;
# about 1.5 KB of disk per page while it runs), MEM (default 2G); SKETCH=0 leaves out the sketch of step 1,
# DEDUP=0 step 3.
set -euo pipefail
cd "$(dirname "$0")/.."
PAGES="${1:-10000000}"
WORK="${WORK:-/work/synth}"
MEM="${MEM:-2G}"
mkdir -p "$WORK"
cargo build --release -q
cargo build --release -q -p neardup-index --example index_latency
B=target/release/neardup
L=target/release/examples/index_latency
half=$((PAGES / 2))
a="$WORK/a-$PAGES.jsonl.zst"
b="$WORK/b-$PAGES.jsonl.zst"
[ -s "$a" ] || python3 bench/make_synthetic.py --pages "$half" --seed 1 | zstd -q -3 -o "$a" &
[ -s "$b" ] || python3 bench/make_synthetic.py --pages $((PAGES - half)) --start "$half" --seed 2 | zstd -q -3 -o "$b" &
wait
ls -l "$a" "$b"
q="$WORK/query-$PAGES.jsonl"
if [ ! -s "$q" ]; then
  zstdcat "$a" | awk 'NR % 500 == 0' | head -10000 > "$q"
  python3 bench/make_synthetic.py --pages 10000 --start $((PAGES * 2)) --seed 3 >> "$q"
fi
evict() {
  python3 -c 'import os,sys
d=sys.argv[1]
for f in os.listdir(d):
    p=os.path.join(d,f)
    if os.path.isfile(p):
        fd = os.open(p, os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)' "$1"
}

if [ "${SKETCH:-1}" != 0 ]; then
  /usr/bin/time -f "sketch %e s %M KiB" "$B" sketch "$a" "$b" -o "$WORK/scale.ndsig" -q --force
  rm -f "$WORK/scale.ndsig"
fi
idx="$WORK/idx-$PAGES"
rm -rf "$idx"
"$B" index create "$idx" -q
/usr/bin/time -f "add %e s %M KiB" "$B" index add "$idx" "$a" "$b" --label synth --mem-limit "$MEM" -q
"$B" index stats "$idx"
du -sb "$idx"
evict "$idx"
echo "query, evicted: $("$L" "$idx" "$q")"
evict "$idx"
echo "query, evicted again: $("$L" "$idx" "$q")"
echo "query, warm: $("$L" "$idx" "$q")"
rm -rf "$idx"
[ "${DEDUP:-1}" = 0 ] && exit 0

didx="$WORK/didx-$PAGES"
out="$WORK/dedup-out-$PAGES"
rm -rf "$didx" "$out"
"$B" index create "$didx" -q
/usr/bin/time -f "dedup %e s %M KiB" "$B" dedup --index "$didx" "$a" "$b" --add-as synth --mem-limit "$MEM" -o "$out" -q
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); [print(k, s[k]) for k in ("pages","pages_in_clusters","pages_to_remove","clusters","candidate_pairs","pairs_within_run","page_runs","seconds")]' "$out/summary.json"
"$B" index check "$didx"
du -sh "$didx"
rm -rf "$didx" "$out"
