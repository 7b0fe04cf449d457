#!/usr/bin/env bash
# `neardup serve` on loopback (issue 19): lookups per second and p50/p90/p99 latency at 1, 16
# and 256 concurrent clients (wrk, from Debian), against an index of the full development
# crawl, with real pages of the nightly crawl as request bodies; beside the same lookups in
# one process with no HTTP (crates/index/examples/lookup_inproc.rs) and `neardup index query`
# of the same pages as a whole process. wrk and the service share the machine's cores.
# ROUNDS runs of each (median reported by the summary at the end); SOAK=SECONDS adds a soak
# at 16 clients sampling the service's RSS every 10 s.
# Usage: bench/serve.sh [DEV_CRAWL_DIR] (default /work/devcrawl); WORK=DIR for scratch.
set -euo pipefail
cd "$(dirname "$0")/.."
DEV="${1:-/work/devcrawl}"
WORK="${WORK:-$(mktemp -d)}"
ROUNDS="${ROUNDS:-3}"
SECONDS_EACH="${SECONDS_EACH:-20}"
PAGES="${PAGES:-5000}"
mkdir -p "$WORK"
command -v wrk >/dev/null || (apt-get install -y -qq wrk >/dev/null)
cargo build --release -q
cargo build --release -q -p neardup-index --example lookup_inproc
B=target/release/neardup
if [ ! -f "$WORK/idx/MANIFEST" ]; then
  "$B" index create "$WORK/idx" -q
  for c in 1.63.0 stable nightly; do
    "$B" index add "$WORK/idx" "$DEV/rustdocs-$c.warc.gz" --label "$c" -q
  done
fi
"$B" index stats "$WORK/idx" | head -1
[ -f "$WORK/bodies.jsonl" ] || python3 bench/serve_bodies.py "$DEV/rustdocs-nightly.warc.gz" "$PAGES" "$WORK/bodies.jsonl"
echo "cores: $(nproc); bodies: $(wc -l < "$WORK/bodies.jsonl") pages, $(du -m "$WORK/bodies.jsonl" | cut -f1) MB"

"$B" serve --index "$WORK/idx" --listen 127.0.0.1:0 -q --read-only > "$WORK/addr" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 50); do [ -s "$WORK/addr" ] && break; sleep 0.1; done
ADDR=$(cat "$WORK/addr")
export BODIES="$WORK/bodies.jsonl"
# Warm the page cache and the service's pools.
wrk -t1 -c4 -d5s -s bench/serve_wrk.lua "http://$ADDR" > /dev/null
for r in $(seq "$ROUNDS"); do
  for c in 1 16 256; do
    t=$(( c < 2 ? 1 : 2 ))
    line=$(wrk -t"$t" -c"$c" -d"${SECONDS_EACH}s" --timeout 30s -s bench/serve_wrk.lua "http://$ADDR" | grep '^RESULT')
    echo "http c=$c round=$r $line"
  done
  for t in 1 2; do
    echo "inproc threads=$t round=$r $(target/release/examples/lookup_inproc "$WORK/idx" "$BODIES" "$t" "$SECONDS_EACH")"
  done
  /usr/bin/time -f "query round=$r %e s %M KiB" "$B" index query "$WORK/idx" "$BODIES" -o "$WORK/q.jsonl" -q --force 2>&1 | tail -1
done
echo "server RSS after the runs: $(ps -o rss= -p $SERVER) KiB"
if [ -n "${SOAK:-}" ]; then
  wrk -t2 -c16 -d"${SOAK}s" --timeout 30s -s bench/serve_wrk.lua "http://$ADDR" > "$WORK/soak.txt" &
  W=$!
  for s in $(seq 0 10 "$SOAK"); do
    echo "soak t=${s}s rss=$(ps -o rss= -p $SERVER) KiB"
    sleep 10
  done
  wait $W
  echo "soak $(grep '^RESULT' "$WORK/soak.txt")"
fi
