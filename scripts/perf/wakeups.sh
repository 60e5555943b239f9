#!/usr/bin/env bash
# What one request costs each process while it sleeps between messages: system calls, context
# switches and CPU time per request at one request in flight, for the bare relay and for the
# bus, back to back (perf stat over every thread of each process).
#
#   scripts/perf/wakeups.sh [REQUESTS] [ACTION]     (default 4000 Echo.say; needs `perf`)
#
# This is how the latency gap was told apart from extra messages or wake-ups: where the two
# make as many calls and switches, the difference is the work each hop does cold.
set -euo pipefail
cd "$(dirname "$0")/../.."
requests=${1:-4000}
action=${2:-Echo.say}
command -v perf >/dev/null || { echo "wakeups: perf is not installed" >&2; exit 1; }

swift build -c release --product actionbus 2>&1 | grep -E "error|Build complete" || true
bin="$PWD/.build/release/actionbus"
# The relay, the work directory, PID cleanup, free_port and wait_port.
source scripts/perf/lib/relay-harness.sh
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

start_relay
stat_relay "$events" "$requests" 1
per_request "$work/relay-proxy" "relay: zmq_proxy"
per_request "$work/relay-workers" "relay: both workers"
per_request "$work/relay-client" "relay: client"
kill "$proxy" "$rw1" "$rw2" 2>/dev/null || true

start_bus
stat_bus "$events" "$requests" 1 "$action"
per_request "$work/bus-coordinator" "bus: coordinator"
per_request "$work/bus-workers" "bus: both workers"
per_request "$work/bus-client" "bus: client (actionbus bench)"
echo
echo "relay: $(cat "$work/relay.json")"
echo "bus ($action): $(cat "$work/bus.json")"
kill "$coordinator" "$bw1" "$bw2" 2>/dev/null || true
wait 2>/dev/null || true
