#!/usr/bin/env bash
# Fuzzes the wire codec with libFuzzer for a bounded time (default 30 s): every decoder, on
# arbitrary frames, must reject or round-trip, never crash. Usage: scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
out=.build-fuzz
mkdir -p "$out/corpus"
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name WireFuzz -package-name actionbus \
    Sources/ActionWire/*.swift scripts/fuzz/WireFuzz.swift -o "$out/wire-fuzz" 2>&1 \
    | { grep -v "Cannot export local symbol" || true; }
test -x "$out/wire-fuzz"
# Seeds (length-prefixed frames): a valid PERFORM (its request one packed record), an MDP/0.1
# worker's READY after a routing id, and the PERFORM packed into one frame (ABP/5).
printf '\x06ABUS\x05\x01\x39\x00\x00\x00\x03c:1\x00\x00\x00\x08Echo.say\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x10application/json\x00\x00\x00\x02{}' > "$out/corpus/perform"
printf '\x01\xaa\x00\x06MDPW01\x01\x01\x08Echo.say' > "$out/corpus/mdp01-ready"
# The same PERFORM packed into one frame, as ABP/5 sends it.
printf '\x43ABUS\x05\x01\x00\x00\x00\x39\x00\x00\x00\x03c:1\x00\x00\x00\x08Echo.say\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x10application/json\x00\x00\x00\x02{}' > "$out/corpus/packed-perform"
"$out/wire-fuzz" -max_total_time="$seconds" -rss_limit_mb=2048 -print_final_stats=1 "$out/corpus" 2>&1 | tail -n 12
