#!/usr/bin/env bash
# Builds supervise for release, with the Swift runtime linked in, and installs it stripped, with
# its manual page (docs/supervise.1, generated from the parser: docs/cli.md says how).
#
#   scripts/install.sh [PREFIX]                      build, then install PREFIX/bin/supervise
#   scripts/install.sh --binary PATH [PREFIX]        install an already built binary
#
# Both install PREFIX/share/man/man1/supervise.1 too.
#
# PREFIX defaults to /usr/local. The binary needs only the C libraries every Debian has
# (libc, libm, libstdc++, libgcc_s) and libcap (libcap2); a fully static one needs Swift's static Linux SDK.
set -euo pipefail
cd "$(dirname "$0")/.."

binary=""
if [[ ${1:-} == --binary ]]; then
    binary=${2:?"--binary needs the path of a built supervise"}
    shift 2
fi
prefix=${1:-/usr/local}

if [[ -z $binary ]]; then
    swift build -c release --product supervise
    binary="$(swift build -c release --show-bin-path)/supervise"
fi
[[ -x $binary ]] || { echo "install.sh: $binary is not an executable" >&2; exit 1; }

install -d "$prefix/bin"
install -m 0755 -s "$binary" "$prefix/bin/supervise"
echo "installed $prefix/bin/supervise ($(du -k "$prefix/bin/supervise" | cut -f1) KiB)"
install -d "$prefix/share/man/man1"
install -m 0644 docs/supervise.1 "$prefix/share/man/man1/supervise.1"
echo "installed $prefix/share/man/man1/supervise.1"
