#!/usr/bin/env bash
# Installs the peers supervise-bench compares supervise with (Debian/Ubuntu packages).
# The harness itself installs nothing: it detects these and skips what is missing.
set -euo pipefail

packages=(tini dumb-init runit s6 supervisor)
missing=()
for package in "${packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "install-peers: all present: ${packages[*]}"
    exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
echo "install-peers: installed ${missing[*]}"
