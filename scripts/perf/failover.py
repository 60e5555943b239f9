#!/usr/bin/env python3
"""Failover figures for a coordinator group: how long clients go without an outcome when the
leader is killed (kill -9) or stopped gracefully (SIGTERM).

Starts its own etcd and a three-member group on free loopback ports, one worker and one client
(`actionbus perform Echo.say --concurrency 1`, every outcome a JSON line read as it arrives).
Each round stops the current leader, measures from the signal to the first outcome that
arrives after it (the new leader's), restarts the stopped member and waits until all three are
in sync again. Prints a Markdown table; with --out, writes it there too.

    scripts/perf/failover.py --actionbus .build/release/actionbus --rounds 10 --out Benchmarks/results/failover.md
"""
import argparse, base64, json, os, shutil, signal, socket, subprocess, sys, tempfile, threading, time, urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def etcd_get(port, key):
    body = json.dumps({"key": base64.b64encode(key.encode()).decode()}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/v3/kv/range", data=body, method="POST")
    with urllib.request.urlopen(request, timeout=2) as answer:
        kvs = json.load(answer).get("kvs") or []
    if not kvs:
        return None
    kv = kvs[0]
    return base64.b64decode(kv["value"]).decode(), int(kv["create_revision"])


def wait_for(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if condition():
                return
        except Exception:
            pass
        time.sleep(0.05)
    sys.exit(f"failover.py: timed out waiting for {what}")


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--actionbus", default=".build/release/actionbus")
    parser.add_argument("--rounds", type=int, default=10, help="rounds of each kind")
    parser.add_argument("--lease-ttl", type=int, default=3)
    parser.add_argument("--member-option", action="append", default=[], help="an option for every member (repeat for each)")
    parser.add_argument("--client-option", action="append", default=[], help="an option for the client (repeat for each)")
    parser.add_argument("--out")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (every process's log)")
    arguments = parser.parse_args()
    binary = os.path.abspath(arguments.actionbus)
    etcd = shutil.which("etcd") or sys.exit("failover.py: etcd is not installed (apt-get install etcd-server)")
    directory = tempfile.mkdtemp(prefix="actionbus-failover-")
    processes = []

    def start(name, command):
        log = open(os.path.join(directory, f"{name}.log"), "ab")
        process = subprocess.Popen(command, stdout=subprocess.PIPE if name == "client" else log, stderr=log, cwd=directory)
        processes.append(process)
        return process

    etcd_port, peer_port = free_port(), free_port()
    start("etcd", [etcd, "--name", "f", "--data-dir", os.path.join(directory, "etcd"),
                   "--listen-client-urls", f"http://127.0.0.1:{etcd_port}", "--advertise-client-urls", f"http://127.0.0.1:{etcd_port}",
                   "--listen-peer-urls", f"http://127.0.0.1:{peer_port}", "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer_port}",
                   "--initial-cluster", f"f=http://127.0.0.1:{peer_port}"])
    wait_for(lambda: urllib.request.urlopen(f"http://127.0.0.1:{etcd_port}/health", timeout=1).status == 200, 20, "etcd")

    names = ["a", "b", "c"]
    ports = {name: {kind: free_port() for kind in ("replication", "clients", "workers", "outcomes")} for name in names}
    member_options = [option for name in names for option in ("--member", f"{name}=tcp://127.0.0.1:{ports[name]['replication']}")]
    members = {}

    def start_member(name):
        p = ports[name]
        members[name] = start(name, [binary, "coordinator", "--group", "f", "--etcd", f"http://127.0.0.1:{etcd_port}", "--name", name,
                                     "--clients", f"tcp://127.0.0.1:{p['clients']}", "--workers", f"tcp://127.0.0.1:{p['workers']}",
                                     "--outcomes", f"tcp://127.0.0.1:{p['outcomes']}", "--data-dir", os.path.join(directory, f"data-{name}"),
                                     "--lease-ttl", str(arguments.lease_ttl), "--heartbeat-ms", "200"] + member_options
                                    + arguments.member_option)

    def in_sync():
        value = etcd_get(etcd_port, "/actionbus/f/insync")
        return value is not None and len(json.loads(value[0])) == 3 and etcd_get(etcd_port, "/actionbus/f/leader") is not None

    try:
        for name in names:
            start_member(name)
        wait_for(in_sync, 30, "a leader with three members in sync")
        endpoints = lambda kind: ",".join(f"tcp://127.0.0.1:{ports[name][kind]}" for name in names)
        start("worker", [binary, "worker", "--examples", "--coordinator", endpoints("workers"), "--heartbeat-ms", "200"])
        client = start("client", [binary, "perform", "Echo.say", "--input", '{"text":"x"}', "--count", "100000000", "--concurrency", "1",
                                  "--timeout", "60", "--json", "--coordinator", endpoints("clients")]
                       + arguments.client_option)
        arrivals = []
        lock = threading.Lock()

        def read():
            # With --keep, each outcome line as it arrived (wall-clock), to line up with the logs.
            kept = open(os.path.join(directory, "client.out"), "w") if arguments.keep else None
            for line in client.stdout:
                now = time.monotonic()
                if kept:
                    kept.write(f"{time.time():.3f} {line.decode(errors='replace') if isinstance(line, bytes) else line}")
                    kept.flush()
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                code = None if record.get("outcome") == "success" else (record.get("error") or {}).get("code", "?")
                with lock:
                    arrivals.append((now, code))

        threading.Thread(target=read, daemon=True).start()
        wait_for(lambda: len(arrivals) > 100, 30, "the client's first outcomes")

        figures = {"kill": [], "term": []}
        for round_number in range(arguments.rounds * 2):
            kind = "kill" if round_number % 2 == 0 else "term"
            time.sleep(1)
            leader, _ = etcd_get(etcd_port, "/actionbus/f/leader")
            signalled_at = time.monotonic()
            if arguments.keep:
                # Wall-clock time, to line the round up with the members' logs.
                now = time.time()
                stamp = time.strftime("%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}"
                print(f"round {round_number}: {kind} of {leader} at {stamp}", file=sys.stderr)
            members[leader].send_signal(signal.SIGKILL if kind == "kill" else signal.SIGTERM)
            # Outcomes that arrive within 2 ms of the signal may still be the old leader's.
            after = lambda: [entry for entry in arrivals if entry[0] > signalled_at + 0.002]
            wait_for(lambda: after(), 60, f"an outcome after round {round_number}'s {kind}")
            first = after()[0]
            figures[kind].append(first[0] - signalled_at)
            if arguments.keep:
                print(f"round {round_number}: first outcome after {first[0] - signalled_at:.3f} s", file=sys.stderr)
            members[leader].wait(timeout=30)
            start_member(leader)
            wait_for(in_sync, 60, f"three members in sync after round {round_number}")
        with lock:
            total = len(arrivals)
            failed = {}
            for _, code in arrivals:
                if code is not None:
                    failed[code] = failed.get(code, 0) + 1
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
        for process in processes:
            process.wait()

    lines = [
        f"# Failover of a three-member coordinator group ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})",
        "",
        f"`scripts/perf/failover.py --rounds {arguments.rounds}`, `{os.path.relpath(binary)}`, lease TTL {arguments.lease_ttl} s,"
        " etcd and every process on one machine's loopback. From the signal to the first outcome that",
        "reaches a client sending one request at a time; each round restarts the stopped member and waits until all three are in sync.",
        "",
        "| leader stopped by | rounds | p50 | p99 | max |",
        "| --- | --- | --- | --- | --- |",
    ]
    for kind, label in (("kill", "`kill -9`"), ("term", "SIGTERM (graceful handover)")):
        values = figures[kind]
        lines.append(f"| {label} | {len(values)} | {percentile(values, 0.5):.2f} s | {percentile(values, 0.99):.2f} s | {max(values):.2f} s |")
    lines.append("")
    for kind, label in (("kill", "`kill -9`"), ("term", "SIGTERM")):
        lines.append(f"{label}, round by round (s): " + ", ".join(f"{value:.2f}" for value in figures[kind]))
    failures = ", ".join(f"{count} {code}" for code, count in sorted(failed.items())) or "none"
    lines += ["", f"Outcomes received: {total}; failed: {failures}."]
    text = "\n".join(lines) + "\n"
    print(text)
    if arguments.out:
        with open(arguments.out, "w") as out:
            out.write(text)
    if arguments.keep:
        print(f"kept {directory}")
    else:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
