#!/usr/bin/env bash
# Fails (exit 1) when a Swift file under Sources/ imports a module its target may not, or
# when a target re-exports anything (@_exported): one line per file and import. The
# layers, lowest first, are drawn in Package.swift and docs/architecture.md.
#
# Usage: scripts/check-layers.sh [SOURCES_DIRECTORY]   (default: this repository's Sources)
set -euo pipefail

sources=${1:-"$(cd "$(dirname "$0")/.." && pwd)/Sources"}

# What each target may import besides the Swift standard library (Swift, _Concurrency).
allowed_imports() {
    case $1 in
        SuperviseProtocol) echo "" ;;
        SuperviseSystemCall) echo "Glibc SystemPackage" ;;
        SuperviseLifecycle) echo "SuperviseProtocol" ;;
        SuperviseSystem) echo "SuperviseLifecycle SuperviseProtocol SuperviseSystemCall _SuperviseCShims CLibcap SystemPackage Glibc" ;;
        # SuperviseProtocol for LaunchState (`launch = "background"`); Glibc for the signal
        # numbers of the signal table only.
        SuperviseConfig) echo "SuperviseLifecycle SuperviseProtocol SuperviseSystem Glibc" ;;
        SuperviseShell) echo "SuperviseConfig SuperviseLifecycle SuperviseProtocol SuperviseSystem Logging" ;;
        SuperviseReport) echo "SuperviseLifecycle SuperviseShell" ;;
        supervise) echo "SuperviseConfig SuperviseLifecycle SuperviseProtocol SuperviseReport SuperviseShell SuperviseSystem ArgumentParser Logging" ;;
        SuperviseClient) echo "SuperviseProtocol SuperviseSystemCall Glibc Synchronization SystemPackage" ;;
        *) return 1 ;;
    esac
}

failed=0
while IFS= read -r -d '' file; do
    relative=${file#"$sources"/}
    target=${relative%%/*}
    if ! allowed=$(allowed_imports "$target"); then
        echo "$file: target $target has no layer rule: add it to scripts/check-layers.sh"
        failed=1
        continue
    fi
    if grep -q '@_exported' "$file"; then
        echo "$file: @_exported: no target re-exports a module; import it where it is used"
        failed=1
    fi
    # `import M`, `import M.Sub`, `import struct M.T`, `@preconcurrency import M`, …
    while IFS= read -r module; do
        [[ -z $module ]] && continue
        case " Swift _Concurrency $allowed " in
            *" $module "*) continue ;;
        esac
        echo "$file: imports $module, which $target may not (allowed: ${allowed:-the standard library only})"
        failed=1
    done < <(sed -nE 's/^[[:space:]]*(@[A-Za-z_]+(\([^)]*\))?[[:space:]]+)*import[[:space:]]+((typealias|struct|class|enum|protocol|let|var|func)[[:space:]]+)?([A-Za-z_][A-Za-z0-9_]*).*/\5/p' "$file")
done < <(find "$sources" -name '*.swift' -print0 | sort -z)

exit $failed
