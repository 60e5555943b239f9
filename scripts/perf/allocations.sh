#!/usr/bin/env bash
# How many times each process calls malloc per request at 1 000 in flight, for the bare relay
# and for the bus, back to back: a uprobe on libc's malloc, counted by perf stat.
#
#   scripts/perf/allocations.sh [REQUESTS] [ACTION]     (default 50000 Echo.say; needs `perf` and root)
#
# Every allocation is a malloc and a free, often on two threads, plus the retains and releases
# of what it holds: counting them per process says where a request's objects are made, and a
# change that should remove one shows it exactly, where a CPU figure moves by a tenth between runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
requests=${1:-50000}
action=${2:-Echo.say}
command -v perf >/dev/null || { echo "allocations: perf is not installed" >&2; exit 1; }
libc=$(ldconfig -p | awk '/libc\.so\.6 .*x86-64/ { print $NF; exit }')
[ -n "$libc" ] || libc=$(ldconfig -p | awk '/libc\.so\.6/ { print $NF; exit }')
made_probe=false
if ! perf probe -l 2>/dev/null | grep -q 'probe_libc:malloc'; then
    perf probe -q -x "$libc" malloc || { echo "allocations: cannot place a uprobe on malloc (root and uprobes needed)" >&2; exit 1; }
    made_probe=true
fi

swift build -c release --product actionbus 2>&1 | grep -E "error|Build complete" || true
bin="$PWD/.build/release/actionbus"
# The relay, the work directory, PID cleanup, free_port and wait_port.
source scripts/perf/lib/relay-harness.sh
trap 'cleanup; [ "$made_probe" = false ] || perf probe -q -d probe_libc:malloc' EXIT
per_request() {
    awk -v n="$requests" -v who="$2" '/probe_libc:malloc/ { gsub(",", "", $1); printf "| %s | %.1f |\n", who, $1 / n }' "$1"
}

echo "| process | mallocs a request |"
echo "| --- | --- |"

start_relay
stat_relay probe_libc:malloc "$requests" 1000
per_request "$work/relay-proxy" "relay: zmq_proxy"
per_request "$work/relay-workers" "relay: both workers"
per_request "$work/relay-client" "relay: client"
kill "$proxy" "$rw1" "$rw2" 2>/dev/null || true

start_bus
stat_bus probe_libc:malloc "$requests" 1000 "$action"
per_request "$work/bus-coordinator" "bus: coordinator"
per_request "$work/bus-workers" "bus: both workers"
per_request "$work/bus-client" "bus: client (actionbus bench)"
kill "$coordinator" "$bw1" "$bw2" 2>/dev/null || true
wait 2>/dev/null || true
