#!/usr/bin/env bash
# End-to-end benchmark of `neardup evolve` on the three versions of the Rust documentation as
# three crawls of one URL space (build-dev-crawl.py --same-urls: 1.63.0 from 2022, stable and
# nightly from 2026, ~142k pages), with peak memory and the headline numbers.
#
# Usage: bench/e2e-evolve.sh [CRAWL_DIR]   (default target/devcrawl-same; built if missing, ~3 min)
# Writes target/bench/evolve/ and prints the numbers.
set -euo pipefail
cd "$(dirname "$0")/.."
crawl=${1:-target/devcrawl-same}
mkdir -p target/bench
if [ ! -f "$crawl/manifest.json" ]; then
  [ -d /usr/share/doc/rust-doc/html ] || apt-get install -y rust-doc >/dev/null
  python3 ../shared/datasets/build-dev-crawl.py --out "$crawl" --same-urls
fi
cargo build --release -q
crawls=("$crawl/rustdocs-1.63.0.warc.gz" "$crawl/rustdocs-stable.warc.gz" "$crawl/rustdocs-nightly.warc.gz")
echo "== neardup evolve (3 crawls, $(nproc) cores)"
for run in 1 2; do
  /usr/bin/time -f "wall %e s, peak RSS %M KiB" ./target/release/neardup evolve "${crawls[@]}" \
    --labels 2022-08-1.63.0,2026-05-stable,2026-07-nightly --out target/bench/evolve -q
done
python3 - <<'PY'
import json
s = json.load(open("target/bench/evolve/summary.json"))
for c in s["crawls"]:
    k = c["counts"]
    print(f"{k['label']}: {k['pages']} pages, {k['clusters']} clusters ({k['clustered_urls']} URLs), "
          f"{k['new_urls']} new, {k['missing_from_first']} of crawl 1 missing, "
          f"read+sketch {c['seconds_read_and_sketch']:.2f} s, cluster {c['seconds_cluster']:.3f} s")
for c in s["last_crawl_coefficients"]:
    print(f"  size {c['range']:>9}: {c['urls']:>6} URLs, containment {c['containment']:.3f}, "
          f"similarity {c['similarity']:.3f}, reverse {c['reverse_containment']:.3f}")
print("change buckets:", s["change_buckets_all_transitions"])
for e in s["events"]:
    print("events", {k: v for k, v in e.items()})
print("recrawl", s["recrawl"], "check", s["recrawl_validation"])
print(f"evolution stage {s['seconds_evolve']:.3f} s, total {s['seconds_total']:.2f} s")
PY
