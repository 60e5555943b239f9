#!/usr/bin/env bash
# Sets up the machine (libzmq), builds ActionBus and runs the all-in-one local bus:
# a coordinator and two workers hosting the example features, until Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build --product actionbus
echo "In another terminal:  $PWD/.build/debug/actionbus perform Echo.say --input '{\"text\":\"hi\"}'"
exec .build/debug/actionbus dev "$@"
