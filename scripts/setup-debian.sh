#!/usr/bin/env bash
# Installs what building, running and testing supervise needs on Debian/Ubuntu.
# The Swift toolchain (6.0 or later) must already be on PATH: see swift.org/install.
set -euo pipefail

packages=(libcap-dev strace procps python3 util-linux)
missing=()
for package in "${packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if ! command -v swift >/dev/null; then
    echo "setup-debian: swift is not on PATH; install a Swift 6 toolchain (swift.org/install) and retry" >&2
    exit 1
fi
