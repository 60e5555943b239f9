# Sourced (not run) by scripts/compare.sh, scripts/wakeups.sh and scripts/allocations.sh, from the repository's root:
# builds the bare relay, makes a work directory and kills every PID in `pids` on exit.
mkdir -p .build-relay
# Any C compiler: the Swift toolchain's clang will do where the system has no cc.
"$(command -v cc || command -v clang)" -O2 -o .build-relay/relay benchmarks/relay/relay.c -lzmq
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
