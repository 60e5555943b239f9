#!/usr/bin/env bash
# Builds the benchmarks in release mode and writes the figures to benchmarks/results.md.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build -c release --product actionbus-bench
mkdir -p benchmarks
.build/release/actionbus-bench benchmarks/results.md
