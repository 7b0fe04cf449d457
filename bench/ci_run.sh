#!/usr/bin/env bash
# CI's time and disk from a fresh clone, as bench/results/ci-*.md measure them:
#
#   bash bench/ci_run.sh OUT [COMMIT]    (COMMIT: default HEAD)
#
# Clones this repository at COMMIT into OUT/main, runs `CI=true bash .ci/run` there with free
# disk and the machine's CPU sampled every 5 s (OUT/disk.log: time, free KiB, busy and idle
# jiffies), and writes OUT/result: the exit status, the seconds, the free disk at the start, its
# lowest point and the difference (the peak disk CI used), and how busy the CPU was. CI's own
# output is OUT/ci.log. Run it alone: other work on the machine counts in every number.
set -u
out=${1:?usage: bench/ci_run.sh OUT [COMMIT]}
repo=$(cd "$(dirname "$0")/.." && pwd)
commit=$(git -C "$repo" rev-parse "${2:-HEAD}") || exit 2
[ -e "$out" ] && { echo "$out exists: give a new folder" >&2; exit 2; }
mkdir -p "$out" && out=$(cd "$out" && pwd)
git clone -q "$repo" "$out/main" && git -C "$out/main" checkout -q "$commit" || exit 2
(
    while true; do
        echo "$(date +%s) $(df -k --output=avail "$out" | tail -n 1)" \
            "$(awk '/^cpu /{ print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat)"
        sleep 5
    done
) > "$out/disk.log" &
sampler=$!
start=$(date +%s)
(cd "$out/main" && CI=true bash .ci/run) > "$out/ci.log" 2>&1 < /dev/null
rc=$?
end=$(date +%s)
kill "$sampler"
{
    echo "commit $commit: exit $rc in $((end - start)) s"
    awk 'NR == 1 { free = $2; low = $2; busy = $3; idle = $4 } $2 < low { low = $2 }
         END { printf "disk: free at start %.2f GB, lowest %.2f GB, peak use %.2f GB\n", free / 1e6, low / 1e6, (free - low) / 1e6
               printf "cpu: %.0f%% busy\n", 100 * ($3 - busy) / ($3 - busy + $4 - idle) }' "$out/disk.log"
} | tee "$out/result"
exit "$rc"
