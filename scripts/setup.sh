#!/usr/bin/env bash
# Installs what ActionBus needs on a Debian machine with Swift: libzmq (and pkg-config to find it).
# Safe to run again: it installs only what is missing.
set -euo pipefail

need=()
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
pkg-config --exists libzmq 2>/dev/null || need+=(libzmq3-dev)

if [ ${#need[@]} -gt 0 ]; then
    echo "setup: installing ${need[*]}"
    sudo_cmd=()
    [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${need[@]}"
fi

echo "setup: libzmq $(pkg-config --modversion libzmq), $(swift --version 2>&1 | head -n 1)"
