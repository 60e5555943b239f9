# Sourced (not run) by the scripts in scripts/perf/ (compare.sh, wakeups.sh, allocations.sh and
# interleaved.sh), from the repository's root: builds the bare relay (Benchmarks/relay/relay.c),
# makes a work directory and kills every PID in `pids` on exit; starts the relay and the bus, and
# counts their processes under `perf stat`.
mkdir -p .build-relay
# Any C compiler: the Swift toolchain's clang will do where the system has no cc.
"$(command -v cc || command -v clang)" -O2 -o .build-relay/relay Benchmarks/relay/relay.c -lzmq
relay="$PWD/.build-relay/relay"

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# Waits (bounded) until a TCP port accepts connections.
wait_port() {
    for _ in $(seq 1 100); do
        python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $1), 0.1)" 2>/dev/null && return 0
        sleep 0.1
    done
    echo "$(basename "$0"): nothing listens on port $1" >&2
    return 1
}

# Sets `examples` to what makes a worker of `$bin` host the example features: `--examples`, or
# nothing for a build older than that flag (a baseline of interleaved.sh), which hosted them always.
example_features() {
    local help
    help=$("$bin" worker --help 2>&1 || true)
    examples=()
    if [[ $help == *--examples* ]]; then examples=(--examples); fi
}

# The relay on free ports: zmq_proxy and two echo workers. Sets relay_front, proxy, rw1, rw2.
start_relay() {
    local back
    relay_front=$(free_port); back=$(free_port)
    "$relay" proxy "tcp://127.0.0.1:$relay_front" "tcp://127.0.0.1:$back" & proxy=$!; pids+=("$proxy")
    "$relay" worker "tcp://127.0.0.1:$back" & rw1=$!; pids+=("$rw1")
    "$relay" worker "tcp://127.0.0.1:$back" & rw2=$!; pids+=("$rw2")
    wait_port "$relay_front"
}

# The bus on free ports, journal off (ACTIONBUS_PERF_JOURNAL=1: on, a fresh one in the work
# directory for each bus): a coordinator and two workers of `$bin`. With `bus_standby=1` (and a
# journal) the coordinator replicates to a standby of `$bin` with a fresh directory. Sets
# bus_clients, coordinator, bw1, bw2, standby (or nothing), and bus_input (the request
# compare.sh measures).
start_bus() {
    local workers outcomes journal=(--no-journal) replication
    bus_clients=$(free_port); workers=$(free_port); outcomes=$(free_port)
    if [[ ${ACTIONBUS_PERF_JOURNAL:-} == 1 ]]; then journal=(--data-dir "$(mktemp -d -p "$work")"); fi
    standby=
    if [[ ${bus_standby:-0} == 1 ]]; then
        replication=$(free_port)
        "$bin" standby --listen "tcp://127.0.0.1:$replication" --data-dir "$(mktemp -d -p "$work")" --log-level warning & standby=$!; pids+=("$standby")
        wait_port "$replication"
        journal+=(--standby "tcp://127.0.0.1:$replication")
    fi
    example_features
    "$bin" coordinator --clients "tcp://127.0.0.1:$bus_clients" --workers "tcp://127.0.0.1:$workers" \
        --outcomes "tcp://127.0.0.1:$outcomes" "${journal[@]}" --log-level warning & coordinator=$!; pids+=("$coordinator")
    wait_port "$bus_clients"
    "$bin" worker "${examples[@]}" --coordinator "tcp://127.0.0.1:$workers" --credits 256 --name w1 --log-level warning & bw1=$!; pids+=("$bw1")
    "$bin" worker "${examples[@]}" --coordinator "tcp://127.0.0.1:$workers" --credits 256 --name w2 --log-level warning & bw2=$!; pids+=("$bw2")
    bus_input='{"text":"0123456789012345678901234567890123456789012345"}'
}

# Runs REQUESTS through the relay at CONCURRENCY under `perf stat -e EVENTS`, the proxy and both
# workers counted alongside: writes $work/relay-proxy, relay-workers, relay-client, relay.json.
stat_relay() {
    local events=$1 requests=$2 concurrency=$3 p1 p2
    "$relay" client "tcp://127.0.0.1:$relay_front" 2000 "$concurrency" 64 >/dev/null
    perf stat -e "$events" -p "$proxy" -o "$work/relay-proxy" >/dev/null 2>&1 & p1=$!
    perf stat -e "$events" -p "$rw1,$rw2" -o "$work/relay-workers" >/dev/null 2>&1 & p2=$!
    sleep 0.3
    perf stat -e "$events" -o "$work/relay-client" "$relay" client "tcp://127.0.0.1:$relay_front" "$requests" "$concurrency" 64 >"$work/relay.json"
    kill -INT "$p1" "$p2"; wait "$p1" "$p2" 2>/dev/null || true
}

# The same through the bus with `actionbus bench` performing ACTION: writes $work/bus-coordinator,
# bus-workers, bus-client, bus.json.
stat_bus() {
    local events=$1 requests=$2 concurrency=$3 action=$4 p1 p2
    # The warm-up also waits for the workers to register: a request queues until one serves it.
    "$bin" bench --requests 2000 --concurrency "$concurrency" --action "$action" --input "$bus_input" --json \
        --coordinator "tcp://127.0.0.1:$bus_clients" >/dev/null
    perf stat -e "$events" -p "$coordinator" -o "$work/bus-coordinator" >/dev/null 2>&1 & p1=$!
    perf stat -e "$events" -p "$bw1,$bw2" -o "$work/bus-workers" >/dev/null 2>&1 & p2=$!
    sleep 0.3
    perf stat -e "$events" -o "$work/bus-client" "$bin" bench --warmup 0 --requests "$requests" --concurrency "$concurrency" \
        --action "$action" --input "$bus_input" --json --coordinator "tcp://127.0.0.1:$bus_clients" >"$work/bus.json"
    kill -INT "$p1" "$p2"; wait "$p1" "$p2" 2>/dev/null || true
}
