#!/usr/bin/env bash
# Checks the deployment files in deploy/ the way their tools would:
#   systemd units    systemd-analyze verify (any warning fails)
#   Kubernetes       kubernetes-validate --strict against the Kubernetes schemas
#   compose file     parsed, and its services and their commands checked
# Needs scripts/setup.sh --test (systemd-analyze, and .venv-test with kubernetes-validate).
set -euo pipefail
cd "$(dirname "$0")/.."
python=".venv-test/bin/python"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "check-deploy: systemd units"
# verify checks that ExecStart's program exists: point it at one that does.
for unit in deploy/systemd/*.service; do
    name=$(basename "$unit")
    [ "${name%@.service}" != "$name" ] && name="${name%@.service}@1.service"
    sed "s|/usr/local/bin/actionbus|$(command -v true)|" "$unit" >"$work/$name"
done
(cd "$work" && systemd-analyze verify ./*.service) >"$work/verify.log" 2>&1 || true
if [ -s "$work/verify.log" ]; then
    cat "$work/verify.log" >&2
    echo "check-deploy: systemd-analyze verify found problems in deploy/systemd" >&2
    exit 1
fi

echo "check-deploy: Kubernetes manifests"
"$python" -m kubernetes_validate --strict --kubernetes-version 1.31.0 deploy/kubernetes/*.yaml

echo "check-deploy: compose file"
"$python" - <<'PY'
import sys, yaml
compose = yaml.safe_load(open("deploy/compose.yaml"))
services = compose["services"]
problems = []
if set(services) != {"coordinator", "worker"}:
    problems.append(f"services are {sorted(services)}, expected coordinator and worker")
coordinator, worker = services.get("coordinator", {}), services.get("worker", {})
if coordinator.get("command", [None])[0] != "coordinator":
    problems.append("the coordinator service does not run `actionbus coordinator`")
if worker.get("command", [None])[0] != "worker":
    problems.append("the worker service does not run `actionbus worker`")
if "tcp://coordinator:5556" not in worker.get("command", []):
    problems.append("workers do not connect to the coordinator service's workers port")
if worker.get("deploy", {}).get("replicas") != 3:
    problems.append("there are not 3 workers")
if not any(str(port).endswith(":5555") for port in coordinator.get("ports", [])):
    problems.append("the clients port is not published")
if "journal" not in compose.get("volumes", {}):
    problems.append("the journal has no named volume")
for problem in problems:
    print(f"check-deploy: deploy/compose.yaml: {problem}", file=sys.stderr)
sys.exit(1 if problems else 0)
PY
echo "check-deploy: coordinator group compose file"
"$python" - <<'PY'
import sys, yaml
compose = yaml.safe_load(open("deploy/compose-group.yaml"))
services = compose["services"]
problems = []
members = {name: service for name, service in services.items() if name.startswith("member-")}
if "etcd" not in services:
    problems.append("there is no etcd service")
if len(members) != 3:
    problems.append(f"members are {sorted(members)}, expected three")
lists = set()
for name, service in members.items():
    command = service.get("command", [])
    if command[:1] != ["coordinator"] or "--group" not in command:
        problems.append(f"{name} does not run `actionbus coordinator --group`")
        continue
    lists.add(tuple(command[i + 1] for i, word in enumerate(command) if word == "--member"))
    member_name = command[command.index("--name") + 1]
    if f"{member_name}=tcp://{name}:5560" not in command:
        problems.append(f"{name}'s --name {member_name} is not its own --member entry")
    if not any(volume.endswith(":/var/lib/actionbus/data") for volume in service.get("volumes", [])):
        problems.append(f"{name} has no journal volume")
if len(lists) != 1:
    problems.append("the members are not given the same --member list in the same order")
worker = services.get("worker", {}).get("command", [])
expected = ",".join(f"tcp://{name}:5556" for name in sorted(members))
if expected not in worker:
    problems.append(f"workers are not given every member's workers endpoint ({expected})")
for problem in problems:
    print(f"check-deploy: deploy/compose-group.yaml: {problem}", file=sys.stderr)
sys.exit(1 if problems else 0)
PY

echo "check-deploy: no deployment serves Fault.*"
if grep -rn -- "--fault-injection" deploy/; then
    echo "check-deploy: a deployment serves Fault.* (any client could crash or hang its workers)" >&2
    exit 1
fi

echo "check-deploy: ok"
