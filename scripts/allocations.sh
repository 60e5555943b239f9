#!/usr/bin/env bash
# How many times each process calls malloc per request at 1 000 in flight, for the bare relay
# and for the bus, back to back: a uprobe on libc's malloc, counted by perf stat.
#
#   scripts/allocations.sh [REQUESTS] [ACTION]     (default 50000 Echo.say; needs `perf` and root)
#
# Every allocation is a malloc and a free, often on two threads, plus the retains and releases
# of what it holds: counting them per process says where a request's objects are made, and a
# change that should remove one shows it exactly, where a CPU figure moves by a tenth between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
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
source scripts/lib/relay-harness.sh
trap 'cleanup; [ "$made_probe" = false ] || perf probe -q -d probe_libc:malloc' EXIT
per_request() {
    awk -v n="$requests" -v who="$2" '/probe_libc:malloc/ { gsub(",", "", $1); printf "| %s | %.1f |\n", who, $1 / n }' "$1"
}

echo "| process | mallocs a request |"
echo "| --- | --- |"

front=$(free_port); back=$(free_port)
"$relay" proxy "tcp://127.0.0.1:$front" "tcp://127.0.0.1:$back" & proxy=$!; pids+=("$proxy")
"$relay" worker "tcp://127.0.0.1:$back" & rw1=$!; pids+=("$rw1")
"$relay" worker "tcp://127.0.0.1:$back" & rw2=$!; pids+=("$rw2")
wait_port "$front"
"$relay" client "tcp://127.0.0.1:$front" 2000 1000 64 >/dev/null
perf stat -e probe_libc:malloc -p "$proxy" -o "$work/relay-proxy" >/dev/null 2>&1 & p1=$!
perf stat -e probe_libc:malloc -p "$rw1,$rw2" -o "$work/relay-workers" >/dev/null 2>&1 & p2=$!
sleep 0.3
perf stat -e probe_libc:malloc -o "$work/relay-client" "$relay" client "tcp://127.0.0.1:$front" "$requests" 1000 64 >/dev/null
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
"$bin" bench --requests 2000 --concurrency 1000 --action "$action" --input "$input" --json --coordinator "tcp://127.0.0.1:$clients" >/dev/null
perf stat -e probe_libc:malloc -p "$coordinator" -o "$work/bus-coordinator" >/dev/null 2>&1 & p1=$!
perf stat -e probe_libc:malloc -p "$bw1,$bw2" -o "$work/bus-workers" >/dev/null 2>&1 & p2=$!
sleep 0.3
perf stat -e probe_libc:malloc -o "$work/bus-client" "$bin" bench --warmup 0 --requests "$requests" --concurrency 1000 \
    --action "$action" --input "$input" --json --coordinator "tcp://127.0.0.1:$clients" >/dev/null
kill -INT "$p1" "$p2"; wait "$p1" "$p2" 2>/dev/null || true
per_request "$work/bus-coordinator" "bus: coordinator"
per_request "$work/bus-workers" "bus: both workers"
per_request "$work/bus-client" "bus: client (actionbus bench)"
kill "$coordinator" "$bw1" "$bw2" 2>/dev/null || true
wait 2>/dev/null || true
