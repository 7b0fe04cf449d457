#!/usr/bin/env bash
# Runs fuzz targets for a while each, keeping their corpora (fuzz/corpus/TARGET, seeded from
# tests/fixtures) and logs (fuzz/logs/TARGET.log), and reports the seconds spent per target in
# fuzz/hours.tsv (appended: date, target, seconds, runs, result).
# fuzz/owed.py sums it: what each target has had and still owes of an hour (--chains 2: the
# commands that give it on two cores).
#
#   fuzz/run.sh SECONDS [TARGET...]     (default: every target)
#   fuzz/run.sh smoke [TARGET...]       (CI: a fixed seed and a fixed number of runs, so the same
#                                        code always gives the same answer; not logged as hours)
#
# Needs the nightly toolchain and cargo-fuzz (cargo install cargo-fuzz). A crash leaves its input
# in fuzz/artifacts/TARGET/ and makes this script exit 1. Targets named py_NAME are Python
# (fuzz/python/NAME.py, atheris), run with $NEARDUP_PYTHON (default: the venv of
# tests/python/prepare.sh, which installs atheris and the neardup package).
set -uo pipefail
cd "$(dirname "$0")"
secs=${1:?usage: fuzz/run.sh SECONDS|smoke [TARGET...]}
shift
smoke=false
if [ "$secs" = smoke ]; then
    smoke=true
    # The smoke checks that every target builds and holds 3000 runs (a panic still names its
    # file and line). Its build is lighter than the fuzzing hours' (cargo-fuzz's release build
    # with AddressSanitizer, which checks unsafe code's memory accesses): opt-level 1, no ASan,
    # no line tables: 187 s and 1.2 GB instead of 307 s and 2.9 GB at opt-level 1 with them
    # (bench/results/ci-2026-11-27.md).
    export CARGO_PROFILE_RELEASE_OPT_LEVEL=1
    export RUSTFLAGS="${RUSTFLAGS:-} -Cdebuginfo=0"
    build=(--sanitizer none)
else
    build=()
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(warc arc jsonl parquet html sigfile index minhash_state scoring_page page_record report_folder clean_text capture_print payload_digest kept_rows paragraph_spans timeline_audit wacz py_datasketch_state)
fi
mkdir -p corpus logs
status=0
# The Rust targets built in one cargo run first: their dependencies compile once and the targets
# link side by side (each target's own build below then finds nothing to do).
rust=0
for t in "${targets[@]}"; do
    [[ $t == py_* ]] || rust=$((rust + 1))
done
if [ $rust -gt 1 ]; then
    echo "building the fuzz targets"
    if ! cargo +nightly fuzz build "${build[@]}" > logs/build.log 2>&1; then
        echo "the fuzz targets do not build, see fuzz/logs/build.log"
        tail -n 30 logs/build.log
        exit 1
    fi
fi
one() {
    local t=$1 s rc spent runs result start
    mkdir -p "corpus/$t"
    case $t in
        warc) seeds=(../tests/fixtures/*.warc ../tests/fixtures/*.warc.gz) ;;
        arc) seeds=(../tests/fixtures/*.arc ../tests/fixtures/*.arc.gz) ;;
        jsonl) seeds=(../tests/fixtures/*.jsonl ../tests/fixtures/*.jsonl.gz) ;;
        parquet) seeds=(../tests/fixtures/*.parquet) ;;
        html) seeds=(../tests/fixtures/site/*.html ../tests/fixtures/site/docs/*.html) ;;
        report_folder) python3 seed_report_folder.py corpus/report_folder; seeds=() ;;
        clean_text|paragraph_spans) seeds=(../tests/fixtures/*.jsonl) ;;
        kept_rows) seeds=(../tests/fixtures/*.jsonl ../tests/fixtures/*.warc) ;;
        timeline_audit) seeds=(../tests/fixtures/*.warc) ;;
        wacz) seeds=(../tests/fixtures/wacz/*.wacz) ;;
        *) seeds=() ;;
    esac
    for s in "${seeds[@]}"; do
        [ -f "$s" ] && [ "$(stat -c %s "$s")" -lt 1000000 ] && cp -n "$s" "corpus/$t/" 2>/dev/null
    done
    python=${NEARDUP_PYTHON:-../target/python/venv/bin/python}
    # Build first, so that the time logged is fuzzing time.
    if [[ $t == py_* ]]; then
        if ! "$python" -c "import atheris, neardup" > "logs/$t.build.log" 2>&1; then
            echo "$t: $python lacks atheris or neardup, see fuzz/logs/$t.build.log"
            return 1
        fi
    elif ! cargo +nightly fuzz build "${build[@]}" "$t" > "logs/$t.build.log" 2>&1; then
        echo "$t: build failed, see fuzz/logs/$t.build.log"
        return 1
    fi
    if $smoke; then
        limits=(-seed=1 -runs=3000)
    else
        limits=(-max_total_time="$secs")
    fi
    start=$(date +%s)
    if [[ $t == py_* ]]; then
        mkdir -p "artifacts/$t"
        "$python" "python/${t#py_}.py" "corpus/$t" "${limits[@]}" -rss_limit_mb=2048 -timeout=20 \
            -artifact_prefix="artifacts/$t/" > "logs/$t.log" 2>&1
    else
        cargo +nightly fuzz run "${build[@]}" "$t" "corpus/$t" -- "${limits[@]}" -rss_limit_mb=2048 \
            -timeout=20 > "logs/$t.log" 2>&1
    fi
    rc=$?
    spent=$(( $(date +%s) - start ))
    runs=$(grep -oE '#[0-9]+' "logs/$t.log" | tail -1 | tr -d '#')
    result=ok
    if [ $rc -ne 0 ]; then
        result="crash (exit $rc, see fuzz/logs/$t.log and fuzz/artifacts/$t)"
    fi
    if ! $smoke; then
        printf '%s\t%s\t%s\t%s\t%s\n' "$(date -u +%F)" "$t" "$spent" "${runs:-0}" "$result" >> hours.tsv
    fi
    echo "$t: $spent s, ${runs:-0} runs, $result"
    [ "$result" = ok ]
}
# The smoke runs two targets at a time (CI's machine has two cores); fuzzing hours run one at a
# time, each on its own core's worth of time.
parallel=1
if $smoke; then
    parallel=2
fi
running=0
for t in "${targets[@]}"; do
    if [ $running -ge $parallel ]; then
        wait -n || status=1
        running=$((running - 1))
    fi
    one "$t" &
    running=$((running + 1))
done
while [ $running -gt 0 ]; do
    wait -n || status=1
    running=$((running - 1))
done
exit $status
