#!/usr/bin/env bash
# Micro-benchmarks of the hot path with ordo-one/benchmark (release build): time and allocations
# per request for the codec, the coordinator's routing step, a journal append and an in-process
# perform. Writes benchmarks/micro.md (or FILE) and prints it.
#
#   scripts/microbench.sh [--out FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
out=benchmarks/micro.md
if [ "${1:-}" = "--out" ]; then out="$2"; fi
scripts/setup.sh >/dev/null
report=$(swift package --allow-writing-to-package-directory benchmark --target ActionBusMicroBenchmarks \
    --format markdown --no-progress 2>/dev/null | sed -n '/^## /,$p')
{
    echo "# ActionBus micro-benchmarks"
    echo ""
    echo "\`scripts/microbench.sh\`, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, release build. Per request (each sample handles 1 000,"
    echo "prepared before the clock starts); allocations counted by ordo-one/benchmark's malloc interposer."
    echo ""
    echo "$report" | sed 's/^## /### /; s/^### ActionBusMicroBenchmarks$//'
} >"$out"
cat "$out"
