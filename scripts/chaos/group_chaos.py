#!/usr/bin/env python3
"""A chaos run of a coordinator group, with a history checker.

Every process runs on a host of its own, a Linux network namespace: etcd, three members and an
"app" host (workers, clients, a subscriber). The hosts meet on three bridges, so that one link
can be cut alone: `ctl` (members and etcd), `repl` (member to member) and `svc` (the app host
to the members). Each member's journal is on a file system of its own (an ext4 image on a loop
device), so that its disk can be stalled (`fsfreeze`).

Under load (sessions of `Sequence.step`, each session's requests pipelined), faults are thrown
at the group one after another, each healed before the next, chosen by a seeded random
generator. Then the history is checked:

- every request ended in exactly one outcome to its client, a success;
- each session's requests started in submission order and never ran on two hosts at once (the
  times each step reports);
- a subscriber resuming from position 1 saw every outcome once, in growing positions.

It also counts second runs (a step number a session skips on a worker: a run whose result no
client got), reported but not a violation: see `check`.

    sudo scripts/chaos/group_chaos.py --actionbus .build/debug/actionbus --seed 7 --faults all
    sudo scripts/chaos/group_chaos.py --seed 7 --duration 600           # the long run: faults until 600 s have passed

Needs root (namespaces, loop devices), `ip`, `etcd`, `mkfs.ext4`, `fsfreeze`. Exits 0 when the
history is clean, 1 when the checker found a violation (each printed), 2 when the run itself
could not be made. Prints the seed first, so a failing run can be repeated.
"""
import argparse, base64, json, os, random, shutil, signal, subprocess, sys, tempfile, threading, time

FAULTS = ["kill-leader", "pause-leader", "cut-replication", "cut-etcd", "kill-standby-then-leader", "restart-etcd", "stall-disk"]
MEMBERS = ["a", "b", "c"]
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def run(*command, check=True):
    return subprocess.run(command, check=check, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


class Network:
    """The namespaces, bridges and links of one run, named after its id so runs never meet."""

    NETS = {"ctl": 1, "repl": 2, "svc": 3}

    def __init__(self, run_id):
        self.prefix = f"abx{run_id}"
        self.hosts = []

    def ns(self, host):
        return f"{self.prefix}-{host}"

    def address(self, host, net):
        number = {"etcd": 2, "app": 3, "a": 11, "b": 12, "c": 13}[host]
        return f"10.77.{self.NETS[net]}.{number}"

    def create(self, layout):
        switch = self.ns("sw")
        run("ip", "netns", "add", switch)
        self.hosts.append("sw")
        for net in self.NETS:
            run("ip", "-n", switch, "link", "add", f"br-{net}", "type", "bridge")
            run("ip", "-n", switch, "link", "set", f"br-{net}", "up")
        for host, nets in layout.items():
            run("ip", "netns", "add", self.ns(host))
            self.hosts.append(host)
            run("ip", "-n", self.ns(host), "link", "set", "lo", "up")
            for net in nets:
                outside, inside = self.link_names(host, net)
                run("ip", "-n", switch, "link", "add", outside, "type", "veth", "peer", "name", inside, "netns", self.ns(host))
                run("ip", "-n", switch, "link", "set", outside, "master", f"br-{net}", "up")
                run("ip", "-n", self.ns(host), "addr", "add", f"{self.address(host, net)}/24", "dev", inside)
                run("ip", "-n", self.ns(host), "link", "set", inside, "up")

    @staticmethod
    def link_names(host, net):
        return f"{host}-{net}", net

    def set_link(self, host, net, up):
        outside, _ = self.link_names(host, net)
        run("ip", "-n", self.ns("sw"), "link", "set", outside, "up" if up else "down")

    def delete(self):
        for host in self.hosts:
            run("ip", "netns", "del", self.ns(host), check=False)


class Chaos:
    def __init__(self, arguments):
        self.arguments = arguments
        self.binary = os.path.abspath(arguments.actionbus)
        self.directory = tempfile.mkdtemp(prefix="actionbus-chaos-")
        self.network = Network(os.getpid() % 100000)
        self.processes = {}
        self.load_processes = {}
        self.loads_stop = threading.Event()
        self.mounts = []
        self.log_lines = []
        self.random = random.Random(arguments.seed)

    def say(self, text):
        line = f"[{time.strftime('%H:%M:%S')}] {text}"
        self.log_lines.append(line)
        print(line, flush=True)

    # MARK: Hosts and processes

    def start(self, name, host, command, stdout=None):
        log = open(os.path.join(self.directory, f"{name}.log"), "ab")
        out = open(os.path.join(self.directory, f"{name}.out"), "wb") if stdout else log
        process = subprocess.Popen(["ip", "netns", "exec", self.network.ns(host)] + command, stdout=out, stderr=log, cwd=self.directory)
        self.processes[name] = process
        return process

    def stop(self, name, sig=signal.SIGKILL):
        process = self.processes.get(name)
        if process and process.poll() is None:
            process.send_signal(sig)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def etcd_url(self):
        return f"http://{self.network.address('etcd', 'ctl')}:2379"

    def start_etcd(self):
        address = self.network.address("etcd", "ctl")
        self.start("etcd", "etcd", [shutil.which("etcd"), "--name", "chaos", "--data-dir", os.path.join(self.directory, "etcd"),
                                    "--listen-client-urls", f"http://{address}:2379", "--advertise-client-urls", f"http://{address}:2379",
                                    "--listen-peer-urls", f"http://{address}:2380", "--initial-advertise-peer-urls", f"http://{address}:2380",
                                    "--initial-cluster", f"chaos=http://{address}:2380"])
        self.wait_for(lambda: self.etcd_get("/health-probe") is not False, 30, "etcd")

    def etcd_get(self, key):
        """The value and create revision of `key`; None when absent; False when etcd does not answer."""
        body = json.dumps({"key": base64.b64encode(key.encode()).decode()}).encode()
        command = ["ip", "netns", "exec", self.network.ns("etcd"), "curl", "-s", "-m", "2", "-X", "POST", "--data-binary", "@-",
                   f"{self.etcd_url()}/v3/kv/range"]
        answer = subprocess.run(command, input=body, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        if answer.returncode != 0:
            return False
        try:
            kvs = json.loads(answer.stdout).get("kvs") or []
        except ValueError:
            return False
        if not kvs:
            return None
        return base64.b64decode(kvs[0]["value"]).decode(), int(kvs[0]["create_revision"])

    def leader(self):
        record = self.etcd_get(f"/actionbus/{self.group}/leader")
        return record[0] if record else None

    def in_sync(self):
        record = self.etcd_get(f"/actionbus/{self.group}/insync")
        return json.loads(record[0]) if record else []

    def make_disk(self, name):
        image = os.path.join(self.directory, f"disk-{name}.img")
        mount = os.path.join(self.directory, f"data-{name}")
        os.makedirs(mount)
        with open(image, "wb") as file:
            file.truncate(512 << 20)
        run("mkfs.ext4", "-q", "-F", image)
        run("mount", "-o", "loop", image, mount)
        self.mounts.append(mount)
        return mount

    def member_command(self, name):
        address = lambda net: self.network.address(name, net)
        members = [option for other in MEMBERS for option in ("--member", f"{other}=tcp://{self.network.address(other, 'repl')}:5560")]
        return [self.binary, "coordinator", "--group", self.group, "--etcd", self.etcd_url(), "--name", name,
                "--clients", f"tcp://{address('svc')}:5555", "--workers", f"tcp://{address('svc')}:5556",
                "--outcomes", f"tcp://{address('svc')}:5557", "--data-dir", self.disks[name], "--lease-ttl", "3",
                "--standby-timeout", "1s", "--log-format", "json"] + members

    def start_member(self, name):
        self.start(f"member-{name}", name, self.member_command(name))

    def endpoints(self, port):
        return ",".join(f"tcp://{self.network.address(name, 'svc')}:{port}" for name in MEMBERS)

    def wait_for(self, condition, timeout, what):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if condition():
                    return True
            except Exception:
                pass
            time.sleep(0.1)
        raise TimeoutError(f"timed out after {timeout} s waiting for {what}")

    def healthy(self, timeout=180):
        """A leader that serves, every member in sync: the group has healed. Right after a fault
        etcd may still name a leader that is gone (its lease has not run out), so the keys must
        also hold still for a lease."""
        started, seen = time.monotonic(), [None]

        def note(state):
            # What the group looks like while it heals, each change once: a slow heal says why.
            if state != seen[0]:
                seen[0] = state
                self.say(f"  healing, {time.monotonic() - started:.1f} s: {state}")

        def settled():
            leader, members = self.leader(), self.in_sync()
            if leader is None or len(members) != 3:
                note(f"leader {leader}, in sync {members}")
                return False
            time.sleep(3.5)
            if self.leader() != leader or len(self.in_sync()) != 3:
                note("the keys moved")
                return False
            if not self.serves():
                note(f"leader {leader} does not answer stats: {self.last_stats_error}")
                return False
            return True
        self.wait_for(settled, timeout, "a leader that serves, with three members in sync")
        self.say(f"  healed in {time.monotonic() - started:.1f} s; the leader's counters: {self.recovery_counters()}")

    def serves(self):
        answer = subprocess.run(["ip", "netns", "exec", self.network.ns("app"), self.binary, "stats", "--json", "--timeout", "3",
                                 "--coordinator", self.endpoints(5555)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.last_stats_error = answer.stderr.decode(errors="replace").strip()[-400:]
        self.last_stats = answer.stdout.decode(errors="replace") if answer.returncode == 0 else ""
        return answer.returncode == 0

    def recovery_counters(self):
        """What the leader that answered `stats` last did with the work of the one before it."""
        try:
            counters = json.loads(self.last_stats)
        except ValueError:
            return "unknown"
        names = ("recovered", "adoptedRunning", "adoptedResults", "resentResults", "orphanRunsAdopted", "lateResultsDiscarded")
        return ", ".join(f"{name} {counters.get(name, 0)}" for name in names)

    # MARK: Faults

    def fault(self, kind):
        leader = self.leader()
        self.say(f"fault {kind} (leader {leader})")
        if kind == "kill-leader":
            self.stop(f"member-{leader}")
            time.sleep(self.random.uniform(0.5, 3))
            self.start_member(leader)
        elif kind == "pause-leader":
            process = self.processes[f"member-{leader}"]
            process.send_signal(signal.SIGSTOP)
            self.wait_for(lambda: self.leader() not in (None, leader), 30, "another leader while the old one is paused")
            time.sleep(self.random.uniform(0, 2))
            process.send_signal(signal.SIGCONT)
        elif kind == "cut-replication":
            self.network.set_link(leader, "repl", False)
            time.sleep(self.random.uniform(2, 6))
            self.network.set_link(leader, "repl", True)
        elif kind == "cut-etcd":
            self.network.set_link(leader, "ctl", False)
            self.wait_for(lambda: self.leader() not in (None, leader), 30, "another leader while the old one is cut from etcd")
            time.sleep(self.random.uniform(0, 2))
            self.network.set_link(leader, "ctl", True)
        elif kind == "kill-standby-then-leader":
            standby = self.random.choice([name for name in MEMBERS if name != leader])
            self.stop(f"member-{standby}")
            time.sleep(self.random.uniform(0.5, 2))
            self.stop(f"member-{leader}")
            time.sleep(self.random.uniform(0.5, 2))
            self.start_member(standby)
            self.start_member(leader)
        elif kind == "restart-etcd":
            self.stop("etcd")
            time.sleep(self.random.uniform(0.5, 4))
            self.start_etcd()
        elif kind == "stall-disk":
            mount = self.disks[leader]
            run("fsfreeze", "-f", mount)
            try:
                self.wait_for(lambda: self.leader() not in (None, leader), 30, "another leader while the old one's disk is stalled")
                time.sleep(self.random.uniform(0, 2))
            finally:
                run("fsfreeze", "-u", mount)
        self.healthy()

    # MARK: The run

    def run(self):
        arguments = self.arguments
        self.group = "chaos"
        self.say(f"seed {arguments.seed}; work directory {self.directory}")
        self.network.create({"etcd": ["ctl"], "a": ["ctl", "repl", "svc"], "b": ["ctl", "repl", "svc"],
                             "c": ["ctl", "repl", "svc"], "app": ["svc"]})
        self.disks = {name: self.make_disk(name) for name in MEMBERS}
        self.start_etcd()
        for name in MEMBERS:
            self.start_member(name)
        self.healthy()
        for index in range(2):
            self.start(f"worker-{index}", "app", [self.binary, "worker", "--examples", "--name", f"w{index}", "--credits", "8",
                                                  "--coordinator", self.endpoints(5556), "--log-format", "json"])
        self.start("subscriber", "app", [self.binary, "subscribe", "--from", "1", "--json", "--timeout", "60",
                                         "--coordinator", self.endpoints(5555), "--outcomes", self.endpoints(5557)], stdout=True)
        # Each session is a run of `perform` batches, one after another (so submission order
        # runs across them), until the faults are over: every batch ends by itself.
        self.loads_stop.clear()
        self.batches = {index: [] for index in range(arguments.sessions)}
        loads = [threading.Thread(target=self.session_load, args=(index,), daemon=True) for index in range(arguments.sessions)]
        for load in loads:
            load.start()
        started = time.monotonic()
        faults = FAULTS if arguments.faults == "all" else arguments.faults.split(",")
        plan = list(faults)
        self.random.shuffle(plan)
        thrown = []
        while True:
            time.sleep(self.random.uniform(1, 3))
            if arguments.duration is None and not plan:
                break
            if arguments.duration is not None and time.monotonic() - started > arguments.duration:
                break
            kind = plan.pop() if plan else self.random.choice(faults)
            self.fault(kind)
            thrown.append(kind)
        self.say(f"{len(thrown)} faults thrown; the sessions finish their batches")
        time.sleep(2)
        self.loads_stop.set()
        # Healed, the group finishes a batch in seconds; one still running after this is stuck,
        # which the checker reports (its exit status).
        settle = time.monotonic() + arguments.settle
        for load in loads:
            load.join(timeout=max(1, settle - time.monotonic()))
            for process in self.load_processes.values():
                if process.poll() is None and time.monotonic() > settle:
                    process.kill()
        answered = sum((len(self.read_lines(batch)) for batches in self.batches.values() for batch in batches), 0)
        # The subscriber has every answered outcome once it has printed as many lines.
        try:
            self.wait_for(lambda: self.count_lines("subscriber") >= answered, 60, "the resumed subscriber to see every outcome")
        except TimeoutError:
            pass
        self.stop("subscriber", signal.SIGTERM)
        return self.check(thrown)

    def session_load(self, index):
        number = 0
        while not self.loads_stop.is_set():
            name = f"session-{index}-{number}"
            process = self.start(name, "app", [
                self.binary, "perform", "Sequence.step", "--input", json.dumps({"ms": self.arguments.step_ms}), "--session", f"s{index}",
                "--count", str(self.arguments.requests), "--concurrency", "4", "--timeout", "600", "--json",
                "--coordinator", self.endpoints(5555)], stdout=True)
            self.load_processes[name] = process
            self.batches[index].append(name)
            process.wait()
            number += 1

    def count_lines(self, name):
        with open(os.path.join(self.directory, f"{name}.out"), "rb") as file:
            return sum(1 for line in file if line.strip())

    # MARK: The checker

    @staticmethod
    def sequence_number(request_id):
        number = 0
        for character in request_id.split(":", 1)[1]:
            number = number * 64 + ALPHABET.index(character)
        return number

    def read_lines(self, name):
        lines = []
        with open(os.path.join(self.directory, f"{name}.out")) as file:
            for line in file:
                line = line.strip()
                if line:
                    lines.append(json.loads(line))
        return lines

    def check(self, thrown):
        arguments = self.arguments
        violations = []
        # Runs whose result no client got: a request run a second time. Reported, not a
        # violation: a REQUEST leaves before its acceptance is durable, so one whose leader was
        # lost before the commit was never accepted, and its client's resend runs it again (the
        # documented limit); what was accepted and running is adopted (AdoptionTests).
        second_runs, second_run_count = [], 0
        answered = []
        for index in range(arguments.sessions):
            outcomes, steps = [], []
            for batch_number, name in enumerate(self.batches[index]):
                code = self.processes[name].returncode
                batch = self.read_lines(name)
                ids = [outcome["request"] for outcome in batch]
                if code != 0:
                    violations.append(f"{name}: perform exited {code}")
                if len(batch) != arguments.requests or len(set(ids)) != len(ids):
                    violations.append(f"{name}: {len(batch)} outcomes, {len(set(ids))} distinct, for {arguments.requests} requests")
                failed = [outcome for outcome in batch if outcome["outcome"] != "success"]
                if failed:
                    violations.append(f"{name}: {len(failed)} failed, e.g. {failed[0]}")
                outcomes += batch
                steps += [((batch_number, self.sequence_number(outcome["request"])), outcome) for outcome in batch if outcome["outcome"] == "success"]
            ids = [outcome["request"] for outcome in outcomes]
            steps.sort(key=lambda step: step[0])
            for (_, before), (_, after) in zip(steps, steps[1:]):
                if before["output"]["startedUs"] >= after["output"]["startedUs"]:
                    violations.append(f"session s{index}: {after['request']} started before {before['request']} (out of submission order)")
                # On one worker a session's asynchronous actions may overlap (Flint's sessions
                # dispatch in order, each action on its own executor); on two, never: a session
                # moves to another host only once what it runs on the old one has finished.
                if before["worker"] != after["worker"] and before["output"]["endedUs"] > after["output"]["startedUs"]:
                    violations.append(f"session s{index}: {after['request']} started on {after['worker']} before {before['request']} "
                                      f"ended on {before['worker']} (the session ran on two hosts at once)")
            by_worker = {}
            for _, outcome in steps:
                by_worker.setdefault(outcome["worker"], []).append(outcome["output"]["n"])
            for worker, numbers in by_worker.items():
                numbers.sort()
                missing = sorted(set(range(numbers[0], numbers[-1] + 1)) - set(numbers))
                if missing:
                    second_runs.append(f"session s{index} on {worker}: step numbers skip {missing[:5]}")
                    second_run_count += len(missing)
            answered += ids
        seen = self.read_lines("subscriber")
        seen_ids = [outcome["request"] for outcome in seen]
        positions = [outcome.get("position", 0) for outcome in seen]
        if sorted(seen_ids) != sorted(answered):
            missing = set(answered) - set(seen_ids)
            violations.append(f"the resumed subscriber saw {len(seen_ids)} outcomes ({len(set(seen_ids))} distinct) for {len(answered)} answered; "
                              f"{len(missing)} missing")
        if any(later <= earlier for earlier, later in zip(positions, positions[1:])):
            violations.append("the resumed subscriber's positions do not only grow")
        report = {"seed": arguments.seed, "faults": thrown, "requests": len(answered), "streamed": len(seen_ids),
                  "secondRuns": second_run_count, "violationCount": len(violations), "violations": violations[:50],
                  "secondRunsBySession": second_runs}
        self.say(json.dumps({key: value for key, value in report.items() if key not in ("violations", "secondRunsBySession")}))
        for second_run in second_runs[:10]:
            self.say(f"second run: {second_run}")
        for violation in violations[:20]:
            self.say(f"violation: {violation}")
        if arguments.out:
            with open(arguments.out, "w") as out:
                json.dump(report, out, indent=2)
        return 1 if violations else 0

    def cleanup(self):
        # A copy: the sessions' threads may still be adding batches.
        processes = list(self.processes.values())
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGCONT)
                process.kill()
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        for mount in self.mounts:
            run("fsfreeze", "-u", mount, check=False)
            run("umount", mount, check=False)
        self.network.delete()
        if self.arguments.keep:
            print(f"kept {self.directory}")
        else:
            shutil.rmtree(self.directory, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--actionbus", default=".build/debug/actionbus")
    parser.add_argument("--seed", type=int, default=None, help="the fault plan's seed (default: drawn, and printed)")
    parser.add_argument("--faults", default="all", help=f"comma-separated, from {','.join(FAULTS)}; or all")
    parser.add_argument("--duration", type=float, help="throw faults until this many seconds have passed (default: each fault once)")
    parser.add_argument("--sessions", type=int, default=6)
    parser.add_argument("--requests", type=int, default=1000, help="requests per perform batch of a session")
    parser.add_argument("--step-ms", type=int, default=2)
    parser.add_argument("--settle", type=float, default=120, help="seconds the sessions may take to end their batches after the last fault")
    parser.add_argument("--out", help="write the checker's report here as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (logs, outputs)")
    arguments = parser.parse_args()
    if arguments.seed is None:
        arguments.seed = random.randrange(1 << 31)
    for tool in ("ip", "etcd", "mkfs.ext4", "fsfreeze", "curl"):
        if shutil.which(tool) is None:
            print(f"group_chaos.py: {tool} is not installed", file=sys.stderr)
            sys.exit(2)
    if os.geteuid() != 0:
        print("group_chaos.py: needs root (network namespaces, loop devices)", file=sys.stderr)
        sys.exit(2)
    chaos = Chaos(arguments)
    try:
        code = chaos.run()
    except Exception as error:
        chaos.say(f"the run failed: {error!r} (seed {arguments.seed})")
        code = 2
    finally:
        chaos.loads_stop.set()
        chaos.cleanup()
    sys.exit(code)


if __name__ == "__main__":
    main()
