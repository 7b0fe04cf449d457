#!/usr/bin/env bash
# The index crash test at benchmark length: `neardup index add` and `dedup --index --add-as`
# (alternately, half of each within 1 MiB of memory) killed with SIGKILL at 50
# moments spread over an add (tests/it/index_damage.rs, adds_killed_at_random_moments...), each kill
# followed by `index check` and the acknowledged-adds check. ROUNDS=N to change the count;
# CRAWL=FILE the crawl added (default: the development crawl's first WARC, ~47k pages, when
# DEV (default /work/devcrawl) holds it, else the committed sample's).
set -euo pipefail
cd "$(dirname "$0")/.."
DEV="${DEV:-/work/devcrawl}"
if [ -z "${CRAWL:-}" ] && [ -f "$DEV/rustdocs-1.63.0.warc.gz" ]; then CRAWL="$DEV/rustdocs-1.63.0.warc.gz"; fi
if [ -n "${CRAWL:-}" ]; then export NEARDUP_CRASH_CRAWL="$CRAWL"; fi
NEARDUP_CRASH_ROUNDS="${ROUNDS:-50}" cargo test --release -q --test it \
    adds_killed_at_random_moments_lose_nothing_acknowledged -- --nocapture 2>&1 |
    grep -E "rounds:|test result"
