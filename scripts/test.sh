#!/usr/bin/env bash
# Sets up the machine and runs every test: the whole suite (unit, wire, multi-process), then the
# core and wrapper suites under the thread sanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test

# The Majordomo interop tests must run here, not skip quietly.
export ACTIONBUS_PYTHON="$PWD/.venv-test/bin/python"
export ACTIONBUS_REQUIRE_PYTHON=1
# So must the dashboard test in a real browser.
export ACTIONBUS_REQUIRE_BROWSER=1
# And the disk watermark's tests on a small tmpfs (CI runs as root, which may mount one).
export ACTIONBUS_REQUIRE_TMPFS=1
# And the group leadership tests against a real etcd.
export ACTIONBUS_REQUIRE_ETCD=1

echo "== portability (no Linux-only call outside an os(Linux) branch)"
scripts/check-portability.sh

echo "== docs (links inside the repository, no paths differing only by case)"
scripts/check-docs.sh

echo "== deployment files (systemd-analyze, kubernetes-validate, compose)"
scripts/check-deploy.sh

echo "== wire codec fuzzing (libFuzzer, 30 s)"
scripts/fuzz.sh 30

echo "== swift test"
swift test --no-parallel

# A coordinator group in network namespaces under every kind of fault once, with its history
# checked (needs root: CI runs as root). The long run is the same script with --duration.
echo "== scripts/chaos/group_chaos.py (each fault once)"
scripts/chaos/group_chaos.py --actionbus .build/debug/actionbus --seed "${ACTIONBUS_CHAOS_SEED:-$RANDOM}" --faults all

# Every product's DocC catalog builds, its articles' symbol links resolve (after the debug build).
echo "== scripts/check-docc.sh"
scripts/check-docc.sh

# The sanitized build lives in its own folder so the two builds never invalidate each other.
echo "== swift test --sanitize=thread (ActionCore, ZeroMQ)"
swift test --scratch-path .build-tsan --sanitize=thread --filter 'ActionCoreTests|ZeroMQTests'

# The examples as a user's packages (depending on ActionBus by path), run against a real bus.
echo "== scripts/examples.sh"
scripts/examples.sh

# The micro-benchmarks' package reaches the bus's package-access internals: keep it building.
echo "== swift build --package-path Benchmarks"
swift build --package-path Benchmarks

# A smoke run of the relay comparison (release build): it fails when something breaks (a lost
# or duplicated outcome in a burst), never on a number.
echo "== scripts/perf/compare.sh --quick"
scripts/perf/compare.sh --quick --out .build/compare-quick.md
