#!/usr/bin/env bash
# tests/prepared.sh NAME: tells the build (build.rs) that tests/NAME/prepare.sh is done, so the
# tests that need what it prepares run instead of being listed as ignored. Writes `ready` to
# target/prepared/NAME.stamp only when it changes: a second run rebuilds nothing.
# Run from the repository's root (every prepare script cds there first).
set -euo pipefail
stamp=target/prepared/${1:?usage: tests/prepared.sh NAME}.stamp
mkdir -p target/prepared
[ "$(cat "$stamp" 2>/dev/null)" = ready ] || echo ready > "$stamp"
