#!/usr/bin/env bash
# Measures ActionBus against a bare libzmq relay, on this machine, in one run: the relay and the
# bus carry the same messages at the same window, so only their ratio means anything (this
# machine's wake-up latency moves by 3x between runs).
#
#   scripts/perf/compare.sh [--quick] [--out FILE]
#
# Runs, each with CPU time per request for every process (from /proc):
#   relay      C client -> zmq_proxy (ROUTER/DEALER) -> 2 C echo workers, 64-byte messages
#   bus        actionbus coordinator + 2 workers + `actionbus bench`, Echo.say, 46-byte text:
#              journal off, journal on, journal on with one in-sync standby (`actionbus standby`,
#              its CPU too), a Majordomo client (C, pipelined), 10 stream subscribers,
#              one request in flight (interleaved with the relay's), journal on over a disk
#              whose syncs take 10 ms more (a preloaded shim), and a burst of N requests
#              with no worker at the start and two started later, from 1 and from 10 clients.
# Writes a markdown report to FILE (default Benchmarks/results/compare.md) and prints it. --quick runs
# small counts, as CI's smoke run: it fails when something breaks, never on a number.
set -euo pipefail
cd "$(dirname "$0")/../.."

quick=false
out=Benchmarks/results/compare.md
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=true ;;
        --out) out="$2"; shift ;;
        *) echo "usage: scripts/perf/compare.sh [--quick] [--out FILE]" >&2; exit 2 ;;
    esac
    shift
done

if $quick; then
    requests=20000; window=1000; single=2000; single_rounds=1; burst=20000; rounds=1
else
    requests=300000; window=1000; single=5000; single_rounds=9; burst=1000000; rounds=3
fi

scripts/setup.sh >/dev/null
swift build -c release --product actionbus 2>&1 | grep -E "error|Compiling|Build complete" | grep -v "^.*Compiling" || true
bin="$PWD/.build/release/actionbus"
test -x "$bin"
# The relay, the work directory, PID cleanup, free_port and wait_port.
source scripts/perf/lib/relay-harness.sh
# The workers host the example features (Echo.say, Echo.sayDirect): `examples` says how.
example_features

ticks_per_second=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
json_field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }
# Microseconds of CPU per request: ticks used since `before`, over `count` requests.
us_per_request() { python3 -c "print(f'{($2 - $1) * 1e6 / $ticks_per_second / $3:.1f}')"; }
# Runs a command, prints its output, and writes its CPU seconds (user + system) to FILE.
with_cpu() {  # FILE command...
    python3 -c '
import resource, subprocess, sys
result = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE, text=True)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write(f"{usage.ru_utime + usage.ru_stime}\n")
sys.stdout.write(result.stdout)
sys.exit(result.returncode)
' "$@"
}
stop() {
    for pid in "$@"; do kill "$pid" 2>/dev/null || true; done
    for pid in "$@"; do wait "$pid" 2>/dev/null || true; done
}

report=()
add() { report+=("$1"); }

# --- the bare relay -------------------------------------------------------------------------

relay_front=$(free_port); relay_back=$(free_port)
"$relay" proxy "tcp://127.0.0.1:$relay_front" "tcp://127.0.0.1:$relay_back" & proxy_pid=$!; pids+=("$proxy_pid")
"$relay" worker "tcp://127.0.0.1:$relay_back" & relay_w1=$!; pids+=("$relay_w1")
"$relay" worker "tcp://127.0.0.1:$relay_back" & relay_w2=$!; pids+=("$relay_w2")
wait_port "$relay_front"

# Each run prints its JSON line and leaves its CPU figures in $work/cpu (runs are subshells).
last_cpu() { cat "$work/cpu"; }

relay_run() {  # count window -> JSON line
    local before_proxy before_w1 before_w2 line
    before_proxy=$(cpu_ticks "$proxy_pid"); before_w1=$(cpu_ticks "$relay_w1"); before_w2=$(cpu_ticks "$relay_w2")
    line=$(with_cpu "$work/relay-client.time" "$relay" client "tcp://127.0.0.1:$relay_front" "$1" "$2" 64)
    local client_seconds
    client_seconds=$(cat "$work/relay-client.time")
    echo "proxy $(us_per_request "$before_proxy" "$(cpu_ticks "$proxy_pid")" "$1") µs, workers $(us_per_request "$((before_w1 + before_w2))" "$(( $(cpu_ticks "$relay_w1") + $(cpu_ticks "$relay_w2") ))" "$1") µs, client $(python3 -c "print(f'{$client_seconds * 1e6 / $1:.1f}')") µs" >"$work/cpu"
    echo "$line"
}

# --- the bus ---------------------------------------------------------------------------------

bus_clients=""; bus_workers=""; bus_outcomes=""; coordinator_pid=""; worker_pids=(); standby_pid=""
coordinator_env=()  # NAME=value pairs the next coordinator starts with
start_coordinator() {  # extra coordinator options...
    bus_clients=$(free_port); bus_workers=$(free_port); bus_outcomes=$(free_port)
    rm -rf "$work/data"
    env "${coordinator_env[@]}" "$bin" coordinator --clients "tcp://127.0.0.1:$bus_clients" --workers "tcp://127.0.0.1:$bus_workers" \
        --outcomes "tcp://127.0.0.1:$bus_outcomes" --log-level warning "$@" 2>>"$work/coordinator.log" &
    coordinator_pid=$!; pids+=("$coordinator_pid")
    wait_port "$bus_clients"
}
start_workers() {
    worker_pids=()
    for name in w1 w2; do
        "$bin" worker "${examples[@]}" --coordinator "tcp://127.0.0.1:$bus_workers" --credits 256 --name "$name" --log-level notice \
            2>>"$work/workers.log" &
        worker_pids+=($!); pids+=($!)
    done
}
wait_workers() {  # until both registered (bounded)
    for _ in $(seq 1 100); do
        [ "$("$bin" stats --json --coordinator "tcp://127.0.0.1:$bus_clients" | python3 -c 'import json,sys; print(json.load(sys.stdin)["workers"])')" = 2 ] && return 0
        sleep 0.1
    done
    echo "compare: workers did not register" >&2; return 1
}
stop_bus() { stop "${worker_pids[@]}" "$coordinator_pid"; }

bus_run() {  # count window [bench options...] -> JSON line
    local count=$1 window=$2 warmup=2000; shift 2
    local before_c before_w before_s=0 standby_cpu=""
    before_c=$(cpu_ticks "$coordinator_pid"); before_w=$(( $(cpu_ticks "${worker_pids[0]}") + $(cpu_ticks "${worker_pids[1]}") ))
    [ -n "$standby_pid" ] && before_s=$(cpu_ticks "$standby_pid")
    local line
    line=$(with_cpu "$work/bench.time" "$bin" bench --requests "$count" --concurrency "$window" \
        --warmup "$warmup" --json --coordinator "tcp://127.0.0.1:$bus_clients" "$@")
    local client_seconds
    client_seconds=$(cat "$work/bench.time")
    [ -n "$standby_pid" ] && standby_cpu=", standby $(us_per_request "$before_s" "$(cpu_ticks "$standby_pid")" "$((count + warmup))") µs"
    # The warm-up's requests ran inside the measured span, so they count in every divisor.
    echo "coordinator $(us_per_request "$before_c" "$(cpu_ticks "$coordinator_pid")" "$((count + warmup))") µs, workers $(us_per_request "$before_w" "$(( $(cpu_ticks "${worker_pids[0]}") + $(cpu_ticks "${worker_pids[1]}") ))" "$((count + warmup))") µs, client $(python3 -c "print(f'{$client_seconds * 1e6 / ($count + $warmup):.1f}')") µs$standby_cpu" >"$work/cpu"
    echo "$line"
}

ratio() { python3 -c "print(f'{$1 / $2:.3f}')"; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }
# "lowest to highest" of the values given.
spread() { printf '%s\n' "$@" | sort -g | sed -n '1p;$p' | paste -sd' ' | sed 's/ / to /'; }

# Lines of "kind X µs, kind Y µs, ..." (a round's CPU each) -> one such line, each kind's median:
# one round's figures move with the machine's phase as much as the ratio does.
median_cpu() {
    python3 -c '
import re, statistics, sys
rounds = [dict(re.findall(r"(\w+) ([0-9.]+) µs", line)) for line in sys.stdin if line.strip()]
print(", ".join(f"{kind} {statistics.median(float(r[kind]) for r in rounds):.1f} µs" for kind in rounds[0]))'
}

# A throughput row, measured in rounds: each round runs the relay and then the bus back to back,
# so that both see the same phase of this machine (its speed moves by a third over minutes). The
# row gives the round with the median ratio, and the range of the rounds' ratios.
interleaved() {  # label [bench options...]
    local label=$1; shift
    local rows=() relay_line bus_line
    for _ in $(seq 1 "$rounds"); do
        relay_line=$(relay_run "$requests" "$window"); local relay_cpu; relay_cpu=$(last_cpu)
        bus_line=$(bus_run "$requests" "$window" "$@"); local bus_cpu; bus_cpu=$(last_cpu)
        local rt bt
        rt=$(json_field "$relay_line" throughput); bt=$(json_field "$bus_line" throughput)
        rows+=("$(ratio "$bt" "$rt")|$rt|$bt|$relay_cpu|$bus_cpu")
    done
    local median_row q rt bt relay_cpu bus_cpu range=""
    median_row=$(printf '%s\n' "${rows[@]}" | sort -t'|' -k1 -g | awk -v n="${#rows[@]}" 'NR == int((n + 1) / 2)')
    IFS='|' read -r q rt bt relay_cpu bus_cpu <<<"$median_row"
    relay_cpu=$(printf '%s\n' "${rows[@]}" | cut -d'|' -f4 | median_cpu)
    bus_cpu=$(printf '%s\n' "${rows[@]}" | cut -d'|' -f5 | median_cpu)
    if [ "$rounds" -gt 1 ]; then
        range=" ($(spread $(printf '%s\n' "${rows[@]}" | cut -d'|' -f1)))"
    fi
    add "| $label | $rt/s | $bt/s | $q$range | $relay_cpu | $bus_cpu |"
    last_relay_ratio=$q
}

add "# ActionBus against a bare libzmq relay"
add ""
add "\`scripts/perf/compare.sh$($quick && echo " --quick")\`, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, libzmq $(pkg-config --modversion libzmq), release build."
add "Throughput in round trips per second; CPU is microseconds of CPU time per request, per process kind (both workers together)."
add ""
add "Each throughput row is measured in $rounds round(s) of the relay and the bus back to back; it shows the round with the median ratio, and the range of the rounds' ratios. Its CPU figures are each process kind's median over the rounds."
add ""
add "| run | relay | ActionBus | ratio | relay CPU per request | ActionBus CPU per request |"
add "| --- | --- | --- | --- | --- | --- |"

start_coordinator --no-journal
start_workers; wait_workers
interleaved "$window in flight, journal off"

# The same echo declared on the direct executor: it runs on the worker's I/O thread, as the
# relay's echo does, with no hop to the session's queue and back.
interleaved "$window in flight, journal off, Echo.sayDirect" --action Echo.sayDirect

# Ten subscribers reading every outcome, on the same bus.
subscriber_pids=()
for _ in $(seq 1 10); do
    "$bin" subscribe --json --outcomes "tcp://127.0.0.1:$bus_outcomes" >/dev/null 2>&1 &
    subscriber_pids+=($!); pids+=($!)
done
sleep 1
interleaved "$window in flight, 10 subscribers"
stop "${subscriber_pids[@]}"

# A plain Majordomo client, pipelined, the same window, right after a relay run.
relay_line=$(relay_run "$requests" "$window"); relay_t=$(json_field "$relay_line" throughput); relay_cpu_main=$(last_cpu)
before_c=$(cpu_ticks "$coordinator_pid")
mdp_line=$("$relay" mdp-client "tcp://127.0.0.1:$bus_clients" "$requests" "$window" Echo.say '{"text":"a forty-six byte text, as the benchmarks use"}')
mdp_t=$(json_field "$mdp_line" throughput)
add "| $window in flight, Majordomo client | $relay_t/s | $mdp_t/s | $(ratio "$mdp_t" "$relay_t") | $relay_cpu_main | coordinator $(us_per_request "$before_c" "$(cpu_ticks "$coordinator_pid")" "$requests") µs |"

# One in flight, interleaved with the relay: each round runs the relay, Echo.say and
# Echo.sayDirect back to back (the order turning round by round, so drift within a round favours
# none), and the row gives the median of the rounds' own ratios: the machine's wake-up latency
# moves by 3x between minutes, so a ratio means something only between runs of the same minute
# (the p50 columns are each run kind's median, for scale).
relay_p50s=(); bus_p50s=(); direct_p50s=(); say_ratios=(); direct_ratios=()
single_p50() {  # relay|say|direct -> p50 of one run at one in flight
    case $1 in
        relay) json_field "$(relay_run "$single" 1)" p50Us ;;
        say) json_field "$(bus_run "$single" 1)" p50Us ;;
        direct) json_field "$(bus_run "$single" 1 --action Echo.sayDirect)" p50Us ;;
    esac
}
kinds=(relay say direct)
declare -A p50  # this round's, by kind
for round in $(seq 1 "$single_rounds"); do
    for step in 0 1 2; do
        kind=${kinds[$(( (round + step) % 3 ))]}
        p50[$kind]=$(single_p50 "$kind")
    done
    relay_p50s+=("${p50[relay]}"); bus_p50s+=("${p50[say]}"); direct_p50s+=("${p50[direct]}")
    say_ratios+=("$(ratio "${p50[say]}" "${p50[relay]}")"); direct_ratios+=("$(ratio "${p50[direct]}" "${p50[relay]}")")
done
relay_p50=$(median "${relay_p50s[@]}"); bus_p50=$(median "${bus_p50s[@]}"); direct_p50=$(median "${direct_p50s[@]}")
rounds_note=""
[ "$single_rounds" -gt 1 ] && rounds_note=" ($(spread "${say_ratios[@]}") over $single_rounds rounds)"
direct_note=""
[ "$single_rounds" -gt 1 ] && direct_note=" ($(spread "${direct_ratios[@]}"))"
add "| 1 in flight, p50 latency | ${relay_p50} µs | ${bus_p50} µs | $(median "${say_ratios[@]}")$rounds_note × the relay's, the median of the rounds' ratios | | |"
add "| 1 in flight, p50 latency, Echo.sayDirect | ${relay_p50} µs | ${direct_p50} µs | $(median "${direct_ratios[@]}")$direct_note × the relay's, the median of the rounds' ratios | | |"
stop_bus

start_coordinator --data-dir "$work/data"
start_workers; wait_workers
interleaved "$window in flight, journal on"
journaled_ratio=$last_relay_ratio
stop_bus

# The same with one in-sync standby on this machine (its own journal, its own fdatasync): a
# batch's replies wait for both syncs. Each is compared with the relay of its own rounds, so
# their quotient is the standby's cost, free of the machine's phase.
standby_port=$(free_port)
rm -rf "$work/standby"
"$bin" standby --listen "tcp://127.0.0.1:$standby_port" --data-dir "$work/standby" --log-level warning 2>>"$work/standby.log" &
standby_pid=$!; pids+=("$standby_pid")
wait_port "$standby_port"
start_coordinator --data-dir "$work/data" --standby "tcp://127.0.0.1:$standby_port"
start_workers; wait_workers
interleaved "$window in flight, journal on, one in-sync standby"
add "| journal on with a standby ÷ journal on alone | | | $(ratio "$last_relay_ratio" "$journaled_ratio") (the two rows' ratios to the relay) | | |"
stop_bus
stop "$standby_pid"; standby_pid=""
stop "$proxy_pid" "$relay_w1" "$relay_w2"

# --- a slow disk: the journal's syncs take 10 ms more than a turn of the loop -------------------

add ""
add "## A slow disk: journal on, every fdatasync 10 ms longer (Benchmarks/relay/slowsync.c, preloaded)"
add ""
add "| run | requests | throughput | p50 latency | p99 latency | fdatasyncs per 1 000 requests | ActionBus CPU per request |"
add "| --- | --- | --- | --- | --- | --- | --- |"
# The shim, preloaded into this coordinator alone: each fdatasync SLOW_SYNC_US (10 ms) longer.
"$(command -v cc || command -v clang)" -O2 -shared -fPIC -o .build-relay/slowsync.so Benchmarks/relay/slowsync.c -ldl
coordinator_env=("LD_PRELOAD=$PWD/.build-relay/slowsync.so" "SLOW_SYNC_US=10000" "SLOW_SYNC_COUNT=$work/syncs")
start_coordinator --data-dir "$work/data"
coordinator_env=()
start_workers; wait_workers
slow_requests=$((requests / 3))
syncs_count() { cat "$work/syncs" 2>/dev/null || echo 0; }
syncs_before=$(syncs_count)
slow_line=$(bus_run "$slow_requests" "$window")
# The syncs of the run and of its 2 000-request warm-up.
syncs=$(( $(syncs_count) - syncs_before ))
add "| $window in flight | $slow_requests | $(json_field "$slow_line" throughput)/s | $(json_field "$slow_line" p50Us) µs | $(json_field "$slow_line" p99Us) µs | $(python3 -c "print(f'{1000 * $syncs / ($slow_requests + 2000):.1f}')") | $(last_cpu) |"
stop_bus

# --- bursts: no worker at the start, two started later ------------------------------------------

add ""
add "## Bursts of $burst requests, no worker at the start, two workers 3 s later"
add ""
add "| run | seconds | outcomes delivered | distinct | succeeded | accepted | actions run (workers) | duplicate sends | undeliverable replies | deferred replies | coordinator stalls |"
add "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"

burst_run() {  # label clients coordinator-options...
    local label=$1 clients=$2; shift 2
    start_coordinator --no-worker-grace 600 --max-queued-per-client 1000000 "$@"
    : >"$work/workers.log"
    local started per=$((burst / clients)) perform_pids=()
    started=$(date +%s.%N)
    for index in $(seq 1 "$clients"); do
        "$bin" perform Echo.say --input '{"text":"q"}' --count "$per" --concurrency "$per" --timeout 600 --json \
            --coordinator "tcp://127.0.0.1:$bus_clients" >"$work/burst-$index.out" 2>"$work/burst-$index.err" &
        perform_pids+=($!); pids+=($!)
    done
    sleep 3
    start_workers
    local failed=0
    for pid in "${perform_pids[@]}"; do wait "$pid" || failed=1; done
    local seconds
    seconds=$(python3 -c "import time; print(f'{time.time() - $started:.1f}')")
    local stats
    stats=$("$bin" stats --json --coordinator "tcp://127.0.0.1:$bus_clients")
    stop_bus
    local ran
    ran=$(grep -o 'worker.completed=[0-9]*' "$work/workers.log" | cut -d= -f2 | awk '{sum += $1} END {print sum}')
    python3 - "$work" "$clients" "$stats" <<'PY' >"$work/burst.txt"
import json, sys, glob
work, clients, stats = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
lines = [json.loads(l) for i in range(1, clients + 1) for l in open(f"{work}/burst-{i}.out")]
ids = {l["request"] for l in lines}
ok = sum(1 for l in lines if l["outcome"] == "success")
print(len(lines), len(ids), ok, stats["accepted"], stats["duplicates"], stats["undeliverableReplies"], stats["deferredReplies"], stats["stalls"])
PY
    read -r delivered distinct succeeded accepted duplicates undeliverable deferred stalls <"$work/burst.txt"
    add "| $label | $seconds | $delivered | $distinct | $succeeded | $accepted | ${ran:-?} | $duplicates ($(python3 -c "print(f'{100 * $duplicates / max(1, $burst):.2f}')") %) | $undeliverable | $deferred | $stalls |"
    if [ "$failed" = 1 ] || [ "$delivered" != "$burst" ] || [ "$distinct" != "$burst" ]; then
        echo "compare: the burst '$label' lost or duplicated outcomes (see above)" >&2
        burst_failed=1
    fi
}
burst_failed=0
burst_run "1 client, journal off" 1 --no-journal
burst_run "1 client, journal on" 1 --data-dir "$work/data"
burst_run "10 clients, journal off" 10 --no-journal
burst_run "10 clients, journal on" 10 --data-dir "$work/data"

# --- queue scale: a million queued, no worker ---------------------------------------------------

add ""
add "## Queue scale: $burst requests queued with no worker (an ABP/5 client in C floods the coordinator)"
add ""
add "| journal | accepted per second over the first 10 000 (whole drains of ACCEPTEDs: at least 10 000) | over the last 10 000 (likewise) | memory per queued request (RSS growth / requests) | CPU of the idle coordinator holding them, 5 s |"
add "| --- | --- | --- | --- | --- |"
queue_scale() {  # label coordinator-options...
    local label=$1; shift
    # ACCEPTED goes as soon as it is recorded: the default holds it 100 ms (most requests
    # finish sooner), which the flood client would see as 100 ms more in its first window
    # and as a cluster of acceptances at the end.
    start_coordinator --no-worker-grace 3600 --max-queued-per-client "$burst" --acceptance-delay-ms 0 "$@"
    local rss_before rss_after line before after
    rss_before=$(awk '/VmRSS/ {print $2}' "/proc/$coordinator_pid/status")
    line=$("$relay" abp-flood "tcp://127.0.0.1:$bus_clients" "$burst")
    rss_after=$(awk '/VmRSS/ {print $2}' "/proc/$coordinator_pid/status")
    before=$(cpu_ticks "$coordinator_pid"); sleep 5; after=$(cpu_ticks "$coordinator_pid")
    add "| $label | $(json_field "$line" firstRate)/s | $(json_field "$line" lastRate)/s | $(( (rss_after - rss_before) * 1024 / burst )) bytes (input and id: about 30) | $(python3 -c "print(f'{100 * ($after - $before) / $ticks_per_second / 5:.1f}')") % of a core |"
    stop "$coordinator_pid"
}
queue_scale "off" --no-journal
queue_scale "on" --data-dir "$work/data"

mkdir -p "$(dirname "$out")"
printf '%s\n' "${report[@]}" | tee "$out"
exit "$burst_failed"
