#!/usr/bin/env bash
# The persistent index on the development crawl (issue 18): `neardup index add` beside
# `neardup sketch` alone (whole processes, ROUNDS rounds each, interleaved; wall seconds and
# peak RSS), index bytes per page, and one-page query latency (p50/p90/p99) of the nightly
# crawl's pages against the index of all three crawls: with the index files in the page cache,
# and with them evicted first (posix_fadvise DONTNEED; the first reads come from disk).
# Usage: bench/index.sh [DEV_CRAWL_DIR] (default /work/devcrawl); WORK=DIR for scratch.
set -euo pipefail
cd "$(dirname "$0")/.."
DEV="${1:-/work/devcrawl}"
WORK="${WORK:-$(mktemp -d)}"
mkdir -p "$WORK"
ROUNDS="${ROUNDS:-3}"
cargo build --release -q
cargo build --release -q -p neardup-index --example index_latency
B=target/release/neardup
L=target/release/examples/index_latency
crawls=("$DEV"/rustdocs-*.warc.gz)
for r in $(seq "$ROUNDS"); do
  /usr/bin/time -f "sketch $r %e s %M KiB" "$B" sketch "${crawls[@]}" -o "$WORK/dev.ndsig" -q --force
  rm -rf "$WORK/idx"
  "$B" index create "$WORK/idx" -q
  /usr/bin/time -f "add $r %e s %M KiB" "$B" index add "$WORK/idx" "${crawls[@]}" --label dev -q
done
"$B" index stats "$WORK/idx"
nightly="$DEV/rustdocs-nightly.warc.gz"
echo "warm: $("$L" "$WORK/idx" "$nightly")"
python3 -c 'import os,sys
for f in os.listdir(sys.argv[1]):
    fd = os.open(os.path.join(sys.argv[1], f), os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)' "$WORK/idx"
echo "evicted: $("$L" "$WORK/idx" "$nightly")"
