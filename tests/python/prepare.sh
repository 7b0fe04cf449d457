#!/usr/bin/env bash
# Builds the Python package from this tree (maturin, from PyPI) and installs it into a fresh
# venv with pytest, datasketch (the reference its objects are tested against) and the data
# frame libraries its inputs come from (pyarrow, pandas, polars; tqdm for progress), and
# pyspark with Debian's OpenJDK 17 (apt, when no java is installed) for neardup.spark, Ray Data
# for neardup.ray, and
# Debian's redis-server with redis-py for neardup.datasketch's Redis storage (scipy for its
# sparse weighted inputs), and Scrapy for neardup.scrapy's crawl test, and atheris for the Python
# fuzz target (fuzz/python/); the tests are tests/python/*.py, run by tests/it/python.rs.
# Run again, it installs nothing new and rebuilds the wheel only where the code changed.
#
#   bash tests/python/prepare.sh [DIR]     (default: target/python)
#   bash tests/python/prepare.sh --venv-only [DIR]   (the venv alone: CI makes it beside clippy)
set -euo pipefail
cd "$(dirname "$0")/../.."
venv_only=false
if [ "${1:-}" = --venv-only ]; then
    venv_only=true
    shift
fi
out=${1:-target/python}
mkdir -p "$out"
out=$(cd "$out" && pwd)
if ! command -v java >/dev/null; then
    apt-get install -y -q openjdk-17-jre-headless >/dev/null || { apt-get update -q && apt-get install -y -q openjdk-17-jre-headless; }
fi
if ! command -v redis-server >/dev/null; then
    apt-get install -y -q redis-server >/dev/null || { apt-get update -q && apt-get install -y -q redis-server; }
fi
# The venv is made again only when the pinned packages change (their list is kept in it).
requirements=("maturin==1.9.6" "pytest==8.3.5" "datasketch==2.0.0"
    "pyarrow==26.0.1" "pandas==3.1.1" "polars==2.1.0" "tqdm==4.70.1" "warcio==1.8.1"
    "pyspark==4.3.0" "ray[data]==2.60.0" "redis==8.1.0" "scipy==1.17.1" "scrapy==2.19.0" "atheris==3.0.0")
if [ "$(cat "$out/venv/requirements.txt" 2>/dev/null)" != "$(printf '%s\n' "${requirements[@]}")" ]; then
    rm -rf "$out/venv"
    python3 -m venv "$out/venv"
    "$out/venv/bin/pip" install -q --disable-pip-version-check "${requirements[@]}"
    printf '%s\n' "${requirements[@]}" > "$out/venv/requirements.txt"
fi
if $venv_only; then
    exit 0
fi
# The wheel is built with the profile the tests build with (dev: optimized, see Cargo.toml), in
# the same target folder, so the two builds share what they can and a rebuild with nothing
# changed takes seconds.
rm -rf "$out/wheels"
"$out/venv/bin/maturin" build -q --out "$out/wheels" --interpreter "$out/venv/bin/python"
"$out/venv/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps "$out"/wheels/neardup-*.whl
"$out/venv/bin/python" -c "import neardup; print('neardup', neardup.__version__, 'in', '$out/venv')"
# Tells the build (build.rs) that these tests can run now.
bash tests/prepared.sh python
