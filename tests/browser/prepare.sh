#!/usr/bin/env bash
# Installs what the report's browser test (tests/it/report.rs) drives: Debian's Chromium and
# playwright-core from npm (no browser download: it drives /usr/bin/chromium). Reaches only
# Debian's mirrors and the npm registry.
#
#   bash tests/browser/prepare.sh [DIR]     (default: target/browser)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-target/browser}
if ! command -v chromium >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -q >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null
    else
        sudo apt-get update -q >/dev/null
        sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null
    fi
fi
mkdir -p "$out"
cp tests/browser/package.json tests/browser/package-lock.json "$out/" 2>/dev/null || cp tests/browser/package.json "$out/"
if [ ! -d "$out/node_modules/playwright-core" ]; then
    (cd "$out" && npm install --no-audit --no-fund --silent)
fi
echo "browser test ready: $(chromium --version), playwright-core $(node -p "require('./$out/node_modules/playwright-core/package.json').version")"
# Tells the build (build.rs) that these tests can run now.
bash tests/prepared.sh browser
