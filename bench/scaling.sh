#!/usr/bin/env bash
# How `neardup dedup` scales with threads (issue 60): -j1, -j2 and 4, 8, 16 where the machine
# has them, on synthetic pages, a multi-file crawl and one large .warc.gz; wall and CPU seconds
# per stage per thread count, and the speed-up. Options: see bench/scaling.py. Builds the
# release binary unless --bin is given (on the 16-core machine: a binary carried there).
#   bench/scaling.sh --crawl /work/devcrawl                      # 1,000,000 pages, 5 rounds
#   bench/scaling.sh --pages 200000 --rounds 3 --inputs synthetic
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ " $* " != *" --bin "* ]]; then
  cargo build --release -q --bin neardup
fi
exec python3 bench/scaling.py "$@"
