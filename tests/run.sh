#!/usr/bin/env bash
# Every test of neardup, with what the tests need prepared first: README's test command, and the
# one CI runs (.ci/run). On a fresh machine it installs and builds what the tests use; run again,
# it skips what is already there, so a second run costs the tests alone.
#
#   bash tests/run.sh                 every test
#   bash tests/run.sh -E 'test(golden)'   nextest's filters and flags pass through (the doctests
#                                     and the counts check then run only with no arguments)
#
# 1. Prepares (each script idempotent): the third-party corpus (tests/thirdparty), the HTTP
#    service's real clients (tests/clients), the Python package built from this tree
#    (tests/python), Chromium and playwright-core (tests/browser).
# 2. Runs every Rust test with cargo nextest: each test its own process, the test binaries side by
#    side, each test's time printed (slow ones again at the end) and kept in
#    target/nextest/default/junit.xml. Then the doctests (`cargo test --doc`; nextest does not run
#    them).
# 3. Prints what ran, each count apart: Rust tests, doctests, pytest, README examples, browser
#    checks, schemathesis operations (the tests that run those write their summary lines to
#    target/test-counts/). With no arguments a missing count is an error: a suite that did not run
#    is not a pass.
#
# Ctrl-C stops it and every test process it started (nextest forwards the signal).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
say() { echo "== tests +$(( $(date +%s) - start ))s: $*"; }

say "prepare: third-party files"
bash tests/thirdparty/prepare.sh
say "prepare: HTTP clients"
bash tests/clients/prepare.sh
say "prepare: Python package"
bash tests/python/prepare.sh
say "prepare: browser"
bash tests/browser/prepare.sh

if ! command -v cargo-nextest >/dev/null; then
    say "installing cargo-nextest (crates.io)"
    cargo install --locked cargo-nextest
fi

counts=target/test-counts
rm -rf "$counts"
mkdir -p "$counts"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

say "Rust tests (cargo nextest)"
cargo nextest run --workspace "$@" 2>&1 | tee "$log"
grep -E '^ *Summary ' "$log" | tail -n 1 > "$counts/rust.txt"
if [ $# -gt 0 ]; then
    say "done (filtered: doctests and counts skipped)"
    exit 0
fi

say "doctests (cargo test --doc)"
# The whole workspace, neardup-python too (it has none): leaving it out changes the features
# the build resolves and compiled most crates again (119 s instead of 26 s).
cargo test --workspace --doc 2>&1 | tee "$log"
awk '/^test result:/ { p += $4; f += $6; i += $8 } END { print p " passed, " f " failed, " i " ignored" }' \
    "$log" > "$counts/doctests.txt"

say "done"
echo "What ran:"
missing=0
# pytest and the browser write a line a file (a test); they are summed here, the lines kept.
awk '{ for (i = 2; i <= NF; i++) { w = $i; sub(/,$/, "", w); if (w == "passed" || w == "xfailed" || w == "failed") n[w] += $(i - 1) } }
     END { printf "%d passed, %d xfailed, %d failed in %d files\n", n["passed"], n["xfailed"], n["failed"], NR }' \
    "$counts/pytest.txt" > "$counts/pytest-total.txt" 2>/dev/null || true
awk '{ n += $1 } END { printf "%d reports opened and checked in Chromium by %d tests\n", n, NR }' \
    "$counts/browser.txt" > "$counts/browser-total.txt" 2>/dev/null || true
for name in rust doctests pytest examples browser schemathesis; do
    file=$counts/$name.txt
    [ -s "$counts/$name-total.txt" ] && file=$counts/$name-total.txt
    if [ -s "$counts/$name.txt" ]; then
        printf '  %-13s %s\n' "$name" "$(cat "$file")"
    else
        printf '  %-13s MISSING: the test that runs it wrote no count\n' "$name"
        missing=1
    fi
done | tee "$counts/summary.txt"
grep -q MISSING "$counts/summary.txt" && missing=1
# Rust tests and doctests: none skipped or ignored (README examples marked `skip` in README.md
# are counted apart, by design; pytest's test fails on a skip).
if grep -qE '[1-9][0-9]* (skipped|ignored)' "$counts/rust.txt" "$counts/doctests.txt"; then
    echo "some Rust tests were skipped or ignored (above): every test must run"
    exit 1
fi
exit $missing
