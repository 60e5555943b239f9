#!/usr/bin/env bash
# Installs what ActionBus needs on a Debian machine with Swift: libzmq (and pkg-config to find it).
# With --test it also makes .venv-test, a Python venv with majortomo (the Majordomo interop tests),
# kubernetes-validate (scripts/check-deploy.sh) and websocket-client (the dashboard test), and
# installs systemd-analyze, chromium and etcd.
# Safe to run again: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
apt_updated=false
apt_install() {
    if [ "$apt_updated" = false ]; then
        "${sudo_cmd[@]}" apt-get update -qq
        apt_updated=true
    fi
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "$@"
}

need=()
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
# The tests and scripts/perf/compare.sh drive processes and measure with small Python helpers.
command -v python3 >/dev/null 2>&1 || need+=(python3)
pkg-config --exists libzmq 2>/dev/null || need+=(libzmq3-dev)
if [ ${#need[@]} -gt 0 ]; then
    echo "setup: installing ${need[*]}"
    apt_install "${need[@]}"
fi
echo "setup: libzmq $(pkg-config --modversion libzmq), $(swift --version 2>&1 | head -n 1)"

if [ "${1:-}" = "--test" ]; then
    # scripts/check-deploy.sh verifies the systemd units with systemd-analyze; the dashboard test
    # drives Debian's chromium.
    command -v systemd-analyze >/dev/null 2>&1 || apt_install systemd
    command -v chromium >/dev/null 2>&1 || apt_install chromium
    # The several-hosts test makes network namespaces with iproute2.
    command -v ip >/dev/null 2>&1 || apt_install iproute2
    # The coordinator group's leadership tests start a real etcd (Debian's, 3.4).
    command -v etcd >/dev/null 2>&1 || apt_install etcd-server etcd-client
    # The chaos run puts each member's journal on an ext4 image it can freeze, and asks etcd with curl.
    command -v mkfs.ext4 >/dev/null 2>&1 || apt_install e2fsprogs
    command -v fsfreeze >/dev/null 2>&1 || apt_install util-linux
    command -v curl >/dev/null 2>&1 || apt_install curl
    if ! .venv-test/bin/python -c 'import majortomo, six, kubernetes_validate, websocket' >/dev/null 2>&1; then
        command -v python3 >/dev/null 2>&1 || apt_install python3
        [ -x .venv-test/bin/python ] || python3 -m venv .venv-test 2>/dev/null || { apt_install python3-venv; python3 -m venv .venv-test; }
        .venv-test/bin/pip install -q --disable-pip-version-check majortomo==0.2.0 six kubernetes-validate==1.37.0 websocket-client==1.9.2
    fi
    echo "setup: $(.venv-test/bin/python -c 'import majortomo, zmq; print("majortomo", majortomo.__version__ if hasattr(majortomo, "__version__") else "0.2.0", "pyzmq", zmq.__version__)')"
fi
