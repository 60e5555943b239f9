#!/usr/bin/env bash
# Sets up the machine and runs every test: the whole suite, then the thread-sanitized suites.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

echo "== swift test"
swift test

# The sanitized build lives in its own folder so the two builds never invalidate each other.
echo "== swift test --sanitize=thread (ActionCore, ZeroMQ)"
swift test --scratch-path .build-tsan --sanitize=thread --filter 'ActionCoreTests|ZeroMQTests'
