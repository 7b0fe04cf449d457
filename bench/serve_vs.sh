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
# The service's own latency histogram of /v1/lookup (headers read to answer made; builds
# before it have none): the share of a round's lookups within 5, 10 and 20 ms inside the
# service, beside wrk's percentiles, which also count the connections and wrk itself.
buckets() { curl -s "$1/metrics" | sed -n 's|^neardup_request_seconds_bucket{route="/v1/lookup",le="\([^"]*\)"} |\1 |p'; }
within() {
  python3 -c 'import sys
a = dict(l.split() for l in sys.argv[1].splitlines())
b = dict(l.split() for l in sys.argv[2].splitlines())
d = {k: int(b[k]) - int(a.get(k, 0)) for k in b}
n = d.get("+Inf", 0)
print(" ".join("in_service_%sms=%.2f%%" % (m, 100 * d[k] / n) for m, k in (("5", "0.005"), ("10", "0.01"), ("20", "0.02")) if n and k in d))' "$1" "$2"
}
for r in $(seq "$ROUNDS"); do
  for side in old new; do
    before=$(buckets "${ADDR[$side]}")
    line=$(wrk -t2 -c"$CLIENTS" -d"${SECONDS_EACH}s" --timeout 30s -s bench/serve_wrk.lua "${ADDR[$side]}" | grep '^RESULT')
    echo "$side round=$r $line $(within "$before" "$(buckets "${ADDR[$side]}")")"
  done
done
