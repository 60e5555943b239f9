#!/usr/bin/env bash
# Micro-benchmarks of the hot path with ordo-one/benchmark (release build): time and allocations
# per request for the codec, the coordinator's routing step, a journal append and an in-process
# perform. They are the nested package in Benchmarks/ (Benchmarks/Package.swift). Writes
# Benchmarks/results/micro.md (or FILE) and prints it.
#
#   scripts/perf/microbench.sh [--out FILE]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=Benchmarks/results/micro.md
if [ "${1:-}" = "--out" ]; then out="$2"; fi
scripts/setup.sh >/dev/null
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! swift package --package-path Benchmarks benchmark --target ActionBusMicroBenchmarks \
    --format markdown --no-progress >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "microbench: the benchmark run failed" >&2
    exit 1
fi
report=$(sed -n '/^## /,$p' "$log")
{
    echo "# ActionBus micro-benchmarks"
    echo ""
    echo "\`scripts/perf/microbench.sh\`, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, release build. Per request (each sample handles 1 000,"
    echo "prepared before the clock starts); allocations counted by ordo-one/benchmark's malloc interposer."
    echo ""
    echo "$report" | sed 's/^## /### /; s/^### ActionBusMicroBenchmarks$//'
} >"$out"
cat "$out"
