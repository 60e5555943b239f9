#!/usr/bin/env bash
# Interleaved A/B of two builds of actionbus: each round runs a bus (coordinator, two workers,
# `actionbus bench`) of each build, back to back, so both see the
# same minutes of this machine, whose speed drifts by a third between runs (the order alternates
# from round to round, so that drift within a round favours neither). Prints, per round
# and build, the throughput at 1 000 in flight with each process's CPU per request, then p50
# latency at one in flight.
#
#   scripts/perf/interleaved.sh BASELINE [CANDIDATE] [ROUNDS]
#
# ACTIONBUS_PERF_JOURNAL=1 runs each coordinator with a journal (a fresh directory per bus)
# instead of --no-journal, to compare journaled throughput. ACTIONBUS_PERF_STANDBY=candidate
# (with a journal) gives the candidate's coordinators a standby (`actionbus standby`) to
# replicate to: with the same binary as both builds, it measures what replication costs.
#
# BASELINE and CANDIDATE are actionbus binaries (CANDIDATE defaults to this tree's release
# build, made first); ROUNDS defaults to 3. To get a baseline of an earlier commit:
#   git worktree add /tmp/base <commit> && (cd /tmp/base && swift build -c release --product actionbus)
#   scripts/perf/interleaved.sh /tmp/base/.build/release/actionbus
set -euo pipefail
cd "$(dirname "$0")/../.."
baseline=${1:?usage: scripts/perf/interleaved.sh BASELINE [CANDIDATE] [ROUNDS]}
candidate=${2:-}
rounds=${3:-3}
if [ -z "$candidate" ]; then
    swift build -c release --product actionbus 2>&1 | grep -E "error|Build complete" || true
    candidate="$PWD/.build/release/actionbus"
fi
# start_bus, the work directory and PID cleanup (the relay is built, not run).
source scripts/perf/lib/relay-harness.sh

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# One bus of BINARY (the harness's `start_bus`): REQUESTS at CONCURRENCY after a warm-up;
# prints LABEL and the result on one line. Run in this shell, not a subshell, so that the
# harness's exit trap still kills what it started should anything fail.
run_bus() {
    local label=$1 requests=$3 concurrency=$4
    bin=$2
    bus_standby=0
    if [[ $label == *candidate* && ${ACTIONBUS_PERF_STANDBY:-} == candidate ]]; then bus_standby=1; fi
    start_bus
    # The warm-up also waits for the workers: requests queue until one serves them.
    "$bin" bench --requests 2000 --concurrency "$concurrency" --action Echo.say --input "$bus_input" --json \
        --coordinator "tcp://127.0.0.1:$bus_clients" >/dev/null
    local c0 w0 c1 w1t line client
    c0=$(cpu_ticks "$coordinator"); w0=$(( $(cpu_ticks "$bw1") + $(cpu_ticks "$bw2") ))
    line=$(/usr/bin/time -f "%U %S" -o "$work/client-time" "$bin" bench --warmup 0 --requests "$requests" \
        --concurrency "$concurrency" --action Echo.say --input "$bus_input" --json --coordinator "tcp://127.0.0.1:$bus_clients")
    c1=$(cpu_ticks "$coordinator"); w1t=$(( $(cpu_ticks "$bw1") + $(cpu_ticks "$bw2") ))
    kill "$coordinator" "$bw1" "$bw2" $standby 2>/dev/null || true
    wait "$coordinator" "$bw1" "$bw2" $standby 2>/dev/null || true
    client=$(tail -1 "$work/client-time")
    python3 - "$label" "$line" "$requests" "$(getconf CLK_TCK)" "$c0" "$c1" "$w0" "$w1t" $client <<'PY'
import json, sys
label, line, n, hz, c0, c1, w0, w1, user, system = sys.argv[1:]
d, n, hz = json.loads(line), int(n), int(hz)
per = lambda ticks: ticks * 1e6 / hz / n
print(f"{label}  {d['throughput']:>8}/s  p50 {d['p50Us']:>9.1f} µs  coordinator {per(int(c1) - int(c0)):6.1f} µs"
      f"  workers {per(int(w1) - int(w0)):6.1f} µs  client {(float(user) + float(system)) * 1e6 / n:6.1f} µs")
PY
}

[ -x /usr/bin/time ] || { echo "interleaved: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
echo "baseline:  $baseline"
echo "candidate: $candidate"
echo "## 1 000 in flight, 150 000 requests (CPU per request; client CPU includes its start-up)"
# The order alternates from round to round: the machine drifts within a round too, and a
# fixed order would credit the drift to whichever build runs second (one A/B that always ran
# the baseline first, while the machine sped up, showed three times the real gain).
pair() {
    local round=$1 requests=$2 concurrency=$3
    if (( round % 2 == 1 )); then
        run_bus "round $round baseline " "$baseline" "$requests" "$concurrency"
        run_bus "round $round candidate" "$candidate" "$requests" "$concurrency"
    else
        run_bus "round $round candidate" "$candidate" "$requests" "$concurrency"
        run_bus "round $round baseline " "$baseline" "$requests" "$concurrency"
    fi
}
for round in $(seq 1 "$rounds"); do pair "$round" 150000 1000; done
echo "## 1 in flight, 4 000 requests"
for round in $(seq 1 "$rounds"); do pair "$round" 4000 1; done
