#!/usr/bin/env bash
# `neardup serve` of this tree beside an older build (issue 62: p99 < 10 ms and >= 3,000
# lookups/s at 16 clients, beside the build of 6079e77), in the same run: each build serves an
# index of the full development crawl that it made itself (index formats differ), both
# listening at once, and wrk (16 clients, the pages of bench/serve.sh: real nightly pages as
# request bodies, each service's default answer) alternates between them, ROUNDS rounds of
# SECONDS_EACH seconds each. wrk and the services share the machine's cores; one service is
# idle while the other is measured.
# Usage: bench/serve_vs.sh OLD_NEARDUP_BINARY [DEV_CRAWL_DIR] (default /work/devcrawl);
# WORK=DIR for the indexes and bodies (kept between runs); ROUNDS (5), SECONDS_EACH (20),
# CLIENTS (16).
set -euo pipefail
cd "$(dirname "$0")/.."
OLD="$1"
DEV="${2:-/work/devcrawl}"
WORK="${WORK:-/work/serve-vs}"
ROUNDS="${ROUNDS:-5}"
SECONDS_EACH="${SECONDS_EACH:-20}"
CLIENTS="${CLIENTS:-16}"
mkdir -p "$WORK"
command -v wrk >/dev/null || (apt-get install -y -qq wrk >/dev/null)
cargo build --release -q --bin neardup
NEW=target/release/neardup
for side in old new; do
  bin=$([ "$side" = old ] && echo "$OLD" || echo "$NEW")
  idx="$WORK/idx-$side"
  if [ ! -f "$idx/MANIFEST" ]; then
    "$bin" index create "$idx" -q
    for c in 1.63.0 stable nightly; do
      "$bin" index add "$idx" "$DEV/rustdocs-$c.warc.gz" --label "$c" -q
    done
  fi
  echo "$side: $("$bin" index stats "$idx" | head -1)"
done
[ -f "$WORK/bodies.jsonl" ] || python3 bench/serve_bodies.py "$DEV/rustdocs-nightly.warc.gz" 5000 "$WORK/bodies.jsonl"
export BODIES="$WORK/bodies.jsonl"
echo "cores: $(nproc); bodies: $(wc -l < "$BODIES") pages; $CLIENTS clients, $ROUNDS rounds of ${SECONDS_EACH}s"

PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null || true' EXIT
declare -A ADDR
for side in old new; do
  bin=$([ "$side" = old ] && echo "$OLD" || echo "$NEW")
  "$bin" serve --index "$WORK/idx-$side" --listen 127.0.0.1:0 -q --read-only > "$WORK/addr-$side" &
  PIDS+=($!)
  for _ in $(seq 100); do [ -s "$WORK/addr-$side" ] && break; sleep 0.1; done
  a=$(sed 's/.*listening on //' "$WORK/addr-$side" | head -1)
  case "$a" in http*) ;; *) a="http://$a" ;; esac
  ADDR[$side]=$a
  # Warm the page cache and the service's pools.
  wrk -t1 -c4 -d5s -s bench/serve_wrk.lua "${ADDR[$side]}" > /dev/null
done
for r in $(seq "$ROUNDS"); do
  for side in old new; do
    line=$(wrk -t2 -c"$CLIENTS" -d"${SECONDS_EACH}s" --timeout 30s -s bench/serve_wrk.lua "${ADDR[$side]}" | grep '^RESULT')
    echo "$side round=$r $line"
  done
done
