#!/usr/bin/env bash
# Sets up the machine, builds ActionBus and runs the local all-in-one example.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build -c release --product actionbus
exec .build/release/actionbus dev "$@"
