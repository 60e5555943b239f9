#!/usr/bin/env bash
# What one request costs each process while it sleeps between messages: system calls, context
# switches and CPU time per request at one request in flight, for the bare relay and for the
# bus, back to back (perf stat over every thread of each process).
#
#   scripts/wakeups.sh [REQUESTS] [ACTION]     (default 4000 Echo.say; needs `perf`)
#
# This is how the latency gap was told apart from extra messages or wake-ups: where the two
# make as many calls and switches, the difference is the work each hop does cold.
set -euo pipefail
cd "$(dirname "$0")/.."
requests=${1:-4000}
action=${2:-Echo.say}
command -v perf >/dev/null || { echo "wakeups: perf is not installed" >&2; exit 1; }

swift build -c release --product actionbus 2>&1 | grep -E "error|Build complete" || true
bin="$PWD/.build/release/actionbus"
# The relay, the work directory, PID cleanup, free_port and wait_port.
source scripts/lib/relay-harness.sh
events=raw_syscalls:sys_enter,context-switches,task-clock
# One line from a perf stat file: calls, switches and CPU microseconds per request.
per_request() {
    awk -v n="$requests" -v who="$2" '
        /sys_enter/ { gsub(",", "", $1); calls = $1 }
        /context-switches/ { gsub(",", "", $1); switches = $1 }
        /task-clock/ { gsub(",", "", $1); msec = $1 }
        END { printf "| %s | %.1f | %.1f | %.0f µs |\n", who, calls / n, switches / n, msec * 1000 / n }' "$1"
}

echo "| process | system calls a request | context switches a request | CPU a request |"
echo "| --- | --- | --- | --- |"

front=$(free_port); back=$(free_port)
"$relay" proxy "tcp://127.0.0.1:$front" "tcp://127.0.0.1:$back" & proxy=$!; pids+=("$proxy")
"$relay" worker "tcp://127.0.0.1:$back" & rw1=$!; pids+=("$rw1")
"$relay" worker "tcp://127.0.0.1:$back" & rw2=$!; pids+=("$rw2")
wait_port "$front"
"$relay" client "tcp://127.0.0.1:$front" 1000 1 64 >/dev/null
perf stat -e "$events" -p "$proxy" -o "$work/relay-proxy" >/dev/null 2>&1 & p1=$!
perf stat -e "$events" -p "$rw1,$rw2" -o "$work/relay-workers" >/dev/null 2>&1 & p2=$!
sleep 0.3
perf stat -e "$events" -o "$work/relay-client" "$relay" client "tcp://127.0.0.1:$front" "$requests" 1 64 >"$work/relay.json"
kill -INT "$p1" "$p2"; wait "$p1" "$p2" 2>/dev/null || true
per_request "$work/relay-proxy" "relay: zmq_proxy"
per_request "$work/relay-workers" "relay: both workers"
per_request "$work/relay-client" "relay: client"
kill "$proxy" "$rw1" "$rw2" 2>/dev/null || true

clients=$(free_port); workers=$(free_port); outcomes=$(free_port)
"$bin" coordinator --clients "tcp://127.0.0.1:$clients" --workers "tcp://127.0.0.1:$workers" \
    --outcomes "tcp://127.0.0.1:$outcomes" --no-journal --log-level warning & coordinator=$!; pids+=("$coordinator")
wait_port "$clients"
for name in w1 w2; do
    "$bin" worker --coordinator "tcp://127.0.0.1:$workers" --credits 256 --name "$name" --log-level warning & pids+=($!)
done
bw1=${pids[-2]}; bw2=${pids[-1]}
input='{"text":"0123456789012345678901234567890123456789012345"}'
# The warm-up also waits for the workers to register: a request queues until one serves it.
"$bin" bench --requests 1000 --concurrency 1 --action "$action" --input "$input" --json --coordinator "tcp://127.0.0.1:$clients" >/dev/null
perf stat -e "$events" -p "$coordinator" -o "$work/bus-coordinator" >/dev/null 2>&1 & p1=$!
perf stat -e "$events" -p "$bw1,$bw2" -o "$work/bus-workers" >/dev/null 2>&1 & p2=$!
sleep 0.3
perf stat -e "$events" -o "$work/bus-client" "$bin" bench --warmup 0 --requests "$requests" --concurrency 1 \
    --action "$action" --input "$input" --json --coordinator "tcp://127.0.0.1:$clients" >"$work/bus.json"
kill -INT "$p1" "$p2"; wait "$p1" "$p2" 2>/dev/null || true
per_request "$work/bus-coordinator" "bus: coordinator"
per_request "$work/bus-workers" "bus: both workers"
per_request "$work/bus-client" "bus: client (actionbus bench)"
echo
echo "relay: $(cat "$work/relay.json")"
echo "bus ($action): $(cat "$work/bus.json")"
kill "$coordinator" "$bw1" "$bw2" 2>/dev/null || true
wait 2>/dev/null || true
