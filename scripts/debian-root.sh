#!/usr/bin/env bash
# Makes (once) and prints the path of a cached Debian bookworm root file system, as a tarball:
#
#   scripts/debian-root.sh CACHE_DIR NAME [PACKAGE ...]
#
# NAME.tar in CACHE_DIR holds `debootstrap --variant=minbase` plus PACKAGEs, from Debian's own
# mirror (nothing from a container registry). The engine tests (Tests/IntegrationTests/Engines) use
# it for local base images and for `systemd-nspawn` roots; a second run finds the tarball and is
# instant. Concurrent callers for one NAME wait on a lock and share one build.
set -euo pipefail
if [ $# -lt 2 ]; then
    echo "usage: debian-root.sh CACHE_DIR NAME [PACKAGE ...]" >&2
    exit 2
fi
cache=$1 name=$2
shift 2
case $name in
    *[!A-Za-z0-9._-]* | "" | .*) echo "debian-root: name '$name' must be letters, digits, . _ -" >&2; exit 2 ;;
esac
command -v debootstrap >/dev/null || { echo "debian-root: debootstrap is not installed (scripts/setup-debian.sh installs it)" >&2; exit 69; }
mkdir -p "$cache"
tarball=$cache/$name.tar
exec 9>"$cache/$name.lock"
flock 9
if [ ! -s "$tarball" ]; then
    work=$(mktemp -d "$cache/.$name.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    include=()
    [ $# -eq 0 ] || include=(--include="$(IFS=,; echo "$*")")
    mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
    if ! debootstrap --variant=minbase "${include[@]}" bookworm "$work/root" "$mirror" >"$work/log" 2>&1; then
        tail -n 20 "$work/log" >&2
        echo "debian-root: debootstrap of '$name' from $mirror failed" >&2
        exit 69
    fi
    rm -rf "$work/root/var/cache/apt/archives/"*.deb "$work/root/var/lib/apt/lists/"*
    tar --numeric-owner --xattrs -C "$work/root" -cf "$work/$name.tar" .
    mv "$work/$name.tar" "$tarball"
fi
echo "$tarball"
