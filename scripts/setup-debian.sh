#!/usr/bin/env bash
# Installs what building, running and testing supervise needs on Debian/Ubuntu.
# The Swift toolchain (6.0 or later) must already be on PATH: see swift.org/install.
set -euo pipefail

# nginx, postgresql: the real-program tests run their own on 127.0.0.1 (RealProgramTests).
# time: docs/performance.md measures with /usr/bin/time, and DocCommandTests runs those commands.
# chromium: PictureTests renders the HTML picture of a run (--html) headless and checks its pixels.
# tini: PIDOneTests runs the same pid-1 cases under tini (docker run --init) to compare.
# python3-yaml: DeployExampleTests parses examples/kubernetes/pod.yaml.
# python3-pip: installs gunicorn and junitparser below.
# man-db: InstallTests reads the installed manual page with man.
# debootstrap, docker.io (with runc and containerd), podman, systemd-container: the engine tests
# (Tests/IntegrationTests/Engines) make Debian roots and run supervise under Docker, runc, Podman
# and a real systemd in systemd-nspawn; they start the daemons they need themselves.
# dpkg-dev: scripts/package.sh makes the .deb (dpkg-shlibdeps computes its Depends; PackageTests).
packages=(libcap-dev strace procps python3 util-linux nginx postgresql time chromium tini python3-yaml python3-pip man-db
          debootstrap docker.io runc podman systemd-container
          dpkg-dev)
missing=()
for package in "${packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    # Installing nginx or postgresql must not start a system service (nginx on port 80): a policy-rc.d that says 101
    # (action forbidden) stops invoke-rc.d and deb-systemd-invoke from starting any service,
    # unless the machine already has a policy of its own (containers usually do).
    policy=/usr/sbin/policy-rc.d
    if [ ! -e "$policy" ]; then
        trap '$sudo rm -f "$policy"' EXIT
        printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
        $sudo chmod 755 "$policy"
    fi
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
    # Nor at boot: the package enables nginx.service.
    if [[ " ${missing[*]} " == *" nginx "* ]] && command -v systemctl >/dev/null; then
        $sudo systemctl disable --quiet nginx.service 2>/dev/null || true
    fi
fi
# gunicorn: ForwardTargetTests reloads it with SIGHUP under load; junitparser: CIRunnerTests
# reads the JUnit results as CI test reporters do. From PyPI into the system python3 (Debian's
# own gunicorn lags far behind, and it has no junitparser); pip before 23 has no
# --break-system-packages.
if ! /usr/bin/python3 -c 'import gunicorn, junitparser' 2>/dev/null; then
    pip=(/usr/bin/python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore)
    [ "$(id -u)" -eq 0 ] || pip=(sudo "${pip[@]}")
    "${pip[@]}" --break-system-packages gunicorn junitparser 2>/dev/null || "${pip[@]}" gunicorn junitparser
fi
# The privilege tests run children as this unprivileged user (docs/security.md); they make it
# themselves when run as root, this saves them the trouble.
if ! getent passwd supervise-test >/dev/null; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin supervise-test
fi
if ! command -v swift >/dev/null; then
    echo "setup-debian: swift is not on PATH; install a Swift 6 toolchain (swift.org/install) and retry" >&2
    exit 1
fi
