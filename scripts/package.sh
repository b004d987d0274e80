#!/usr/bin/env bash
# Makes supervise's release artifacts, for machines without a Swift toolchain:
#
#   scripts/package.sh [--binary PATH] [OUTDIR]
#
# OUTDIR (default .build/dist) gets
#
#   supervise_VERSION_ARCH.deb             /usr/bin/supervise, /usr/share/man/man1/supervise.1.gz,
#                                          /usr/share/doc/supervise/{examples/,README.md,copyright}
#   supervise-VERSION-linux-ARCH.tar.gz    the same under supervise-VERSION-linux-ARCH/ as a prefix:
#                                          bin/supervise, share/man/man1/supervise.1.gz, share/doc/supervise/
#
# The binary and the manual page are what scripts/install.sh installs: the release build (with the
# Swift runtime linked in; --binary hands it one already built), stripped. VERSION is
# SuperviseVersion.number (a binary that says another is refused), ARCH is dpkg's, and the .deb's
# Depends is what dpkg-shlibdeps finds the stripped binary needs (libc6, libgcc-s1, libstdc++6,
# libcap2); a binary that needs the Swift runtime (a debug build) is refused. Prints the path of
# each artifact it made.
set -euo pipefail
cd "$(dirname "$0")/.."

install_arguments=()
if [[ ${1:-} == --binary ]]; then
    install_arguments=(--binary "${2:?"--binary needs the path of a built supervise"}")
    shift 2
fi
out=${1:-.build/dist}
for tool in dpkg-deb dpkg-shlibdeps objdump; do
    command -v $tool >/dev/null || { echo "package.sh: $tool is not installed (Debian's dpkg-dev: scripts/setup-debian.sh)" >&2; exit 69; }
done

version=$(sed -n 's/^ *public static let number = "\(.*\)"$/\1/p' Sources/SuperviseShell/SuperviseVersion.swift)
[[ -n $version ]] || { echo "package.sh: no version number in Sources/SuperviseShell/SuperviseVersion.swift" >&2; exit 1; }
arch=$(dpkg --print-architecture)
maintainer="supervise maintainers <maintainers@users.noreply.a-seed-31260228.example>"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/debian/supervise    # where dpkg-shlibdeps expects the package's files
scripts/install.sh "${install_arguments[@]}" "$root/usr" >&2    # the build's progress; stdout is the artifacts
said=$("$root/usr/bin/supervise" --version)
[[ $said == "supervise $version "* ]] || { echo "package.sh: the binary says '$said', the sources say $version: build it again" >&2; exit 1; }
runtime=$(objdump -p "$root/usr/bin/supervise" | awk '$1 == "NEEDED" && $2 ~ /^lib(swift|Foundation)/ && !found { print $2; found = 1 }')
[[ -z $runtime ]] || { echo "package.sh: the binary needs the Swift runtime ($runtime), which no Debian root has: package the release build" >&2; exit 1; }
gzip -9n "$root/usr/share/man/man1/supervise.1"

doc=$root/usr/share/doc/supervise
install -d "$doc"
cp -R examples "$doc/examples"
install -m 0644 README.md "$doc/README.md"
cat >"$doc/copyright" <<'EOF'
supervise: run programs under the iOS app lifecycle.

Copyright: the supervise maintainers <maintainers@users.noreply.a-seed-31260228.example>.

The binary links in the Swift runtime and libraries (Apache License 2.0 with Runtime Library
Exception), swift-argument-parser, swift-log and swift-system (Apache License 2.0); libcap is
linked dynamically (Debian's libcap2). The repository states no license for supervise itself yet.
EOF
chmod -R u=rwX,go=rX "$root/usr"

printf 'Source: supervise\n\nPackage: supervise\nArchitecture: any\n' >"$work/debian/control"
install -d "$root/DEBIAN"
depends=$(cd "$work" && dpkg-shlibdeps -O debian/supervise/usr/bin/supervise | sed -n 's/^shlibs:Depends=//p')
[[ -n $depends ]] || { echo "package.sh: dpkg-shlibdeps found no libraries the binary needs" >&2; exit 1; }
cat >"$root/DEBIAN/control" <<EOF
Package: supervise
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Section: admin
Priority: optional
Description: run programs under the iOS app lifecycle
 supervise moves a child process between the foreground and the background.
 In the background the child gets a short window to checkpoint, may hold
 task assertions up to a time limit, gets an expiry warning before it, is
 killed if it overruns, and is otherwise frozen (cgroup v2, cgroup v1 or
 SIGSTOP) and verified frozen. Use it to test in CI that workers shut down
 gracefully, or to park idle workers without killing them.
EOF

mkdir -p "$out"
deb=$out/supervise_${version}_$arch.deb
dpkg-deb --root-owner-group --build "$root" "$deb" >/dev/null
echo "$deb"

name=supervise-$version-linux-$arch
mkdir "$work/$name"
cp -R "$root/usr/." "$work/$name/"
tarball=$out/$name.tar.gz
tar --owner=0 --group=0 --numeric-owner --sort=name -C "$work" -czf "$tarball" "$name"
echo "$tarball"
