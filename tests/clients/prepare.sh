#!/usr/bin/env bash
# Installs the real clients `neardup serve` is tested with (tests/it/clients.rs) into a venv:
# warcprox (a crawler's WARC-writing proxy, --cdxserver-dedup against the service's /cdx),
# warcio (reads what warcprox wrote) and schemathesis (generated requests against
# crates/serve/openapi.yaml). Reaches only PyPI.
#
#   bash tests/clients/prepare.sh [DIR]     (default: target/clients)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-target/clients}
mkdir -p "$out"
if [ ! -x "$out/venv/bin/schemathesis" ] || [ ! -x "$out/venv/bin/warcprox" ]; then
    python3 -m venv "$out/venv"
    "$out/venv/bin/pip" install -q --disable-pip-version-check \
        "warcprox==2.13.1" "warcio==1.8.1" "schemathesis==4.32.5"
fi
"$out/venv/bin/python" -c "import warcprox, warcio, schemathesis; print('clients ready:', '$out/venv')"
# Tells the build (build.rs) that these tests can run now.
bash tests/prepared.sh clients
