#!/usr/bin/env bash
# Builds the example packages as a user's packages are built (each has its own Package.swift
# that depends on ActionBus by path) and runs them against a real bus: `actionbus coordinator`
# on free loopback ports, Examples/CustomWorker's `custom-worker` serving its Greeting feature,
# then Examples/ClientApp's `client-app`, which performs Greeting's actions and follows them on
# the outcome stream. Exits 0 only if the client app's checks pass and the worker then shuts
# down gracefully; stops everything it started, by PID, whatever happens.
#
#   scripts/examples.sh                  builds (debug) and runs
#   ACTIONBUS=path/to/actionbus scripts/examples.sh   uses that actionbus instead of building it
set -euo pipefail
cd "$(dirname "$0")/.."

# Prints a command, then runs it.
run() {
    echo "+ $*"
    "$@"
}

# Polls `$@` every 0.2 s until it succeeds or $1 seconds pass.
wait_for() {
    local seconds=$1
    shift
    local deadline=$((SECONDS + seconds))
    until "$@"; do
        [ "$SECONDS" -lt "$deadline" ] || return 1
        sleep 0.2
    done
}

scripts/setup.sh    # libzmq and pkg-config, when missing

echo "== build the example packages"
run swift build --package-path Examples/CustomWorker
run swift build --package-path Examples/ClientApp
custom_worker="$(swift build --package-path Examples/CustomWorker --show-bin-path)/custom-worker"
client_app="$(swift build --package-path Examples/ClientApp --show-bin-path)/client-app"

if [ -n "${ACTIONBUS:-}" ]; then
    actionbus=$ACTIONBUS
else
    echo "== build actionbus"
    run swift build --product actionbus
    actionbus="$(swift build --show-bin-path)/actionbus"
fi

# Everything started here is stopped by PID on exit: SIGTERM, then SIGKILL after 5 s.
work=$(mktemp -d "${TMPDIR:-/tmp}/actionbus-examples.XXXXXX")
pids=()
cleanup() {
    local status=$?
    for pid in "${pids[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        for _ in $(seq 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    if [ "$status" -ne 0 ]; then
        for log in "$work"/*.log; do
            [ -s "$log" ] || continue
            echo "---- $(basename "$log") (last 40 lines)"
            tail -n 40 "$log"
        done
        echo "examples: FAILED (exit status $status)"
    fi
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Three free loopback ports (the kernel's choice; released just before the coordinator binds them).
read -r clients_port workers_port outcomes_port < <(python3 -c '
import socket
sockets = [socket.socket() for _ in range(3)]
for s in sockets:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in sockets))
')
clients=tcp://127.0.0.1:$clients_port
workers=tcp://127.0.0.1:$workers_port
outcomes=tcp://127.0.0.1:$outcomes_port

echo "== run them against a coordinator"
echo "+ $actionbus coordinator --no-journal --clients $clients --workers $workers --outcomes $outcomes &"
"$actionbus" coordinator --no-journal --clients "$clients" --workers "$workers" --outcomes "$outcomes" \
    >"$work/coordinator.log" 2>&1 &
coordinator_pid=$!
pids+=("$coordinator_pid")
coordinator_listens() {
    kill -0 "$coordinator_pid" 2>/dev/null || { echo "examples: the coordinator exited"; exit 1; }
    grep -q "coordinator listening" "$work/coordinator.log"
}
wait_for 20 coordinator_listens || { echo "examples: the coordinator did not start within 20 s"; exit 1; }

worker_name=greeter-examples
echo "+ $custom_worker $workers $worker_name &"
"$custom_worker" "$workers" "$worker_name" >"$work/custom-worker.log" 2>&1 &
worker_pid=$!
pids+=("$worker_pid")
# Registered: the coordinator lists it, with Greeting.hello among its actions.
worker_registered() {
    kill -0 "$worker_pid" 2>/dev/null || { echo "examples: custom-worker exited"; exit 1; }
    "$actionbus" workers --json --timeout 2 --coordinator "$clients" 2>/dev/null | python3 -c '
import json, sys
report = json.load(sys.stdin)
sys.exit(0 if any(w["name"] == sys.argv[1] and "Greeting.hello" in w["actions"] for w in report["workers"]) else 1)
' "$worker_name"
}
echo "+ $actionbus workers --json --coordinator $clients   (until $worker_name serves Greeting.hello)"
wait_for 30 worker_registered || { echo "examples: custom-worker did not register within 30 s"; exit 1; }
run "$actionbus" workers --coordinator "$clients"

client_status=0
run "$client_app" "$clients" "$outcomes" || client_status=$?    # its own deadline: 30 s
if [ "$client_status" -ne 0 ]; then
    echo "examples: client-app failed with exit status $client_status"
    exit 1
fi

# SIGTERM: the worker's ServiceGroup drains it, it tells the coordinator it leaves, and exits 0.
echo "+ kill -TERM $worker_pid   (custom-worker: a graceful shutdown)"
kill -TERM "$worker_pid"
worker_gone() { ! kill -0 "$worker_pid" 2>/dev/null; }
wait_for 15 worker_gone || { echo "examples: custom-worker did not stop within 15 s of SIGTERM"; exit 1; }
worker_status=0
wait "$worker_pid" || worker_status=$?
pids=("$coordinator_pid")
if [ "$worker_status" -ne 0 ]; then
    echo "examples: custom-worker exited with status $worker_status after SIGTERM, expected 0"
    exit 1
fi
wait_for 10 grep -q "worker.name=$worker_name .*worker left" "$work/coordinator.log" \
    || { echo "examples: the coordinator did not see custom-worker leave"; exit 1; }

echo "examples: OK (custom-worker served client-app's requests and left cleanly)"
