#!/usr/bin/env bash
# Fails (exit 1) when a Swift file under Sources/ imports a module its target may not, or one
# Package.swift does not declare for its target, when a target re-exports anything
# (@_exported), or when a file imports a module it uses nothing of: one line per file and
# import. The layers, lowest first, are drawn in Package.swift and
# docs/architecture.md.
#
# An import is unused when nothing in the file comes from that module: the compiler
# type-checks each target (swiftc -dump-ast, against the modules the build made) and prints,
# for each name it resolved, the module that declares it; a type named only in a declaration's
# signature is printed bare, so a file naming a type the module declares uses it too. What it
# reports, the file compiles without (it may miss an import whose type names happen to be words
# of the file). One type-check per target, not one compile per import. It needs a build
# (`swift build`), and looks only once the layers hold.
#
# Usage: scripts/check-layers.sh [SOURCES_DIRECTORY [TARGET...]]
#   SOURCES_DIRECTORY  default: this repository's Sources; its package's Package.swift beside it
#   TARGET...          look for unused imports in these targets only (default: every target)
#   $SUPERVISE_BUILD   the build directory whose Modules/ the targets are checked against
#                      (default: this repository's .build/debug)
set -euo pipefail
# Bytes, not characters: grep reads the compiler's dumps (12 MB for a target) about four times
# as fast without UTF-8 matching, and every name it looks for is ASCII.
export LC_ALL=C

repository=$(cd "$(dirname "$0")/.." && pwd)
sources=${1:-"$repository/Sources"}
shift $(($# > 0 ? 1 : 0))
build=${SUPERVISE_BUILD:-"$repository/.build/debug"}

# What each target may import besides the Swift standard library (Swift, _Concurrency), into
# $allowed: a function that sets a variable, as the loops below call it for every file (a
# command substitution would fork each time).
allowed_imports() {
    case $1 in
        SuperviseProtocol) allowed="" ;;
        SuperviseSystemCall) allowed="Glibc SystemPackage" ;;
        SuperviseLifecycle) allowed="SuperviseProtocol" ;;
        SuperviseSystem) allowed="SuperviseLifecycle SuperviseProtocol SuperviseSystemCall _SuperviseCShims CLibcap SystemPackage Glibc" ;;
        # SuperviseProtocol for LaunchState (`launch = "background"`); Glibc for the signal
        # numbers of the signal table only.
        SuperviseConfig) allowed="SuperviseLifecycle SuperviseProtocol SuperviseSystem Glibc" ;;
        SuperviseShell) allowed="SuperviseConfig SuperviseLifecycle SuperviseProtocol SuperviseSystem Logging" ;;
        SuperviseReport) allowed="SuperviseLifecycle SuperviseShell" ;;
        supervise) allowed="SuperviseConfig SuperviseLifecycle SuperviseProtocol SuperviseReport SuperviseShell SuperviseSystem ArgumentParser Logging" ;;
        SuperviseClient) allowed="SuperviseProtocol SuperviseSystemCall Glibc Synchronization SystemPackage" ;;
        *) return 1 ;;
    esac
}

# The modules each file imports: `import M`, `import M.Sub`, `import struct M.T`,
# `@preconcurrency import M`, … Read once, by one sed for every file (F names the file).
declare -A imports=()
while IFS= read -r file && IFS= read -r module; do
    imports[$file]+=$module$'\n'
done < <(find "$sources" -name '*.swift' -exec sed -snE \
    '/^[[:space:]]*(@[A-Za-z_]+(\([^)]*\))?[[:space:]]+)*import[[:space:]]+((typealias|struct|class|enum|protocol|let|var|func)[[:space:]]+)?([A-Za-z_][A-Za-z0-9_]*).*/{F;s//\5/p}' {} +)

# What each target declares it depends on in the package's manifest (Package.swift beside
# SOURCES_DIRECTORY), one "TARGET MODULE" a line. The toolchain's own modules need no entry.
# A scratch directory of its own: the package's .build is locked while `swift test` runs this.
# Reading the manifest compiles it (about a second of CPU; LayerTests reads the same one seven
# times a run), so its JSON is kept in the build folder, named by a hash of the manifest and the
# toolchain's version.
package=$(dirname "$sources")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
key=$({ cat "$package/Package.swift" 2>/dev/null || true; swift --version 2>&1; } | sha256sum | cut -c1-16)
kept=$build/check-layers-manifest-$key.json
if [[ -s $kept ]]; then
    manifest=$(<"$kept")
elif manifest=$(swift package --package-path "$package" --scratch-path "$work/scratch" dump-package 2>&1); then
    # Written whole beside it, then renamed: tests beside this one may read it meanwhile.
    if [[ -d $build ]]; then printf '%s\n' "$manifest" >"$kept.$$" && mv "$kept.$$" "$kept"; fi
else
    echo "$package/Package.swift: cannot be read: $manifest"
    exit 1
fi
declared=$(python3 -c '
import json, sys
for target in json.load(sys.stdin)["targets"]:
    for dependency in target["dependencies"]:
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                print(target["name"], dependency[kind][0])
' <<<"$manifest")

failed=0
while IFS= read -r -d '' file; do
    relative=${file#"$sources"/}
    target=${relative%%/*}
    if ! allowed_imports "$target"; then
        echo "$file: target $target has no layer rule: add it to scripts/check-layers.sh"
        failed=1
        continue
    fi
    IFS= read -r -d '' content <"$file" || true
    if [[ $content == *@_exported* ]]; then
        echo "$file: @_exported: no target re-exports a module; import it where it is used"
        failed=1
    fi
    while IFS= read -r module; do
        case $module in "" | Swift | _Concurrency) continue ;; esac
        case " $allowed " in
            *" $module "*) ;;
            *)
                echo "$file: imports $module, which $target may not (allowed: ${allowed:-the standard library only})"
                failed=1
                continue
                ;;
        esac
        case $module in Glibc | Synchronization) continue ;; esac
        if [[ $'\n'$declared$'\n' != *$'\n'"$target $module"$'\n'* ]]; then
            echo "$file: imports $module, which Package.swift does not declare as a dependency of $target"
            failed=1
        fi
    done <<<"${imports[$file]-}"
done < <(find "$sources" -name '*.swift' -print0 | sort -z)

[[ $failed == 0 ]] || exit 1

# The modules whose declarations `import M` makes visible, into $declaring: Glibc's C
# declarations belong to SwiftGlibc, which it re-exports, as the C modules do (`export *`).
declaring_modules() {
    case $1 in
        Glibc | _SuperviseCShims | CLibcap) declaring="$1 SwiftGlibc" ;;
        *) declaring=$1 ;;
    esac
}

# The types `import M` makes visible, for a module of this package or a checked-out
# dependency: the compiler prints what a name in a declaration's signature (an enum case's
# payload, a parameter) resolved to only as the bare type name.
declared_types() {
    local directory
    case $1 in
        SystemPackage) directory=$repository/.build/checkouts/swift-system/Sources/System ;;
        Logging) directory=$repository/.build/checkouts/swift-log/Sources/Logging ;;
        ArgumentParser) directory=$repository/.build/checkouts/swift-argument-parser/Sources/ArgumentParser ;;
        *) directory=$sources/$1 ;;
    esac
    [[ -d $directory ]] || return 0
    grep -rhoE '^[[:space:]]*(@[A-Za-z_]+[[:space:]]+)*(public|open)[[:space:]]+(final[[:space:]]+)?(struct|enum|class|protocol|typealias|actor)[[:space:]]+[A-Za-z_][A-Za-z0-9_]*' \
        --include='*.swift' "$directory" | awk '{ print $NF }' | sort -u || true
}

if [[ ! -d $build/Modules ]]; then
    echo "$build/Modules: no build to look for unused imports against: run swift build first"
    exit 1
fi
if ! command -v swiftc >/dev/null; then
    echo "swiftc: not on PATH, so unused imports can't be looked for: add the toolchain's bin to PATH"
    exit 1
fi
# Its real path: the module cache's compiled C modules record the path they were built at.
build=$(cd "$build" && pwd -P)
targets=("$@")
if [[ ${#targets[@]} == 0 ]]; then
    for directory in "$sources"/*/; do
        name=$(basename "$directory")
        [[ -n $(find "$directory" -name '*.swift' -print -quit) ]] && targets+=("$name")
    done
fi
# Type-checks `target` against the build's modules, the AST (on standard error, or output for
# a target of one file) to $work/ast-TARGET; a failure
# leaves $work/failed-TARGET.
dump_target() {
    local target=$1 files=() library=(-parse-as-library)
    while IFS= read -r -d '' file; do files+=("$file"); done < <(find "$sources/$target" -name '*.swift' -print0)
    [[ -e $sources/$target/main.swift ]] && library=()
    swiftc -dump-ast -enable-batch-mode -j1 -module-name "$target" "${library[@]}" -swift-version 6 "${files[@]}" \
        -I "$build/Modules" -module-cache-path "$build/ModuleCache" \
        -Xcc -fmodule-map-file="$sources/CLibcap/module.modulemap" \
        -Xcc -fmodule-map-file="$sources/_SuperviseCShims/include/module.modulemap" \
        -Xcc -fmodule-map-file="$repository/.build/checkouts/swift-system/Sources/CSystem/include/module.modulemap" \
        >"$work/ast-$target" 2>&1 || touch "$work/failed-$target"
}

# Two at a time: the machine's cores, not the targets, bound it.
for target in "${targets[@]}"; do
    while (($(jobs -rp | wc -l) >= 2)); do wait -n || true; done
    dump_target "$target" &
done
wait

for target in "${targets[@]}"; do
    if [[ -e $work/failed-$target ]]; then
        echo "$sources/$target: does not compile against $build/Modules, so its imports were not checked:"
        grep -a 'error:' "$work/ast-$target" | head -5
        failed=1
        continue
    fi
    # One line per file and module a name in it resolved to: "FILE MODULE". One compiler
    # type-checks every file (batch mode), its files' dumps run on, each after a ")". The shims
    # include system headers: what the compiler met there first is the C library's (SwiftGlibc).
    grep -aoE '(^|\))\(source_file "[^"]*"|(decl|bind)="[A-Za-z_][A-Za-z0-9_]*\.[^"@]*(@/usr/include/)?' "$work/ast-$target" \
        | awk '/^\)?\(source_file/ { sub(/^\)/, ""); file = substr($0, 15, length($0) - 15); next }
               { sub(/^(decl|bind)="/, ""); module = $0; sub(/\..*/, "", module)
                 print file " " (module == "_SuperviseCShims" && /@\/usr\/include\/$/ ? "SwiftGlibc" : module) }' | sort -u >"$work/used" || true
    declare -A resolved=()
    while IFS= read -r line; do resolved[$line]=1; done <"$work/used"
    while IFS= read -r -d '' file; do
        while IFS= read -r module; do
            [[ -z $module || $module == Swift || $module == _Concurrency ]] && continue
            used=0
            declaring_modules "$module"
            for name in $declaring; do
                [[ -n ${resolved["$file $name"]-} ]] && used=1
            done
            if [[ $used == 0 ]]; then
                [[ -e $work/types-$module ]] || declared_types "$module" >"$work/types-$module"
            fi
            # (None to look for, as for Glibc: grep given no pattern would not read its input.)
            if [[ $used == 0 && -s $work/types-$module ]]; then
                # The file's identifiers outside comments, against the types the module declares.
                # grep reads to the end (no -q): under a parent that ignores SIGPIPE (swift test),
                # sort would otherwise fail aloud writing to a pipe closed early.
                sed -E 's|//.*||' "$file" | grep -oE '[A-Za-z_][A-Za-z0-9_]*' | sort -u \
                    | grep -xFf "$work/types-$module" >/dev/null && used=1
            fi
            if [[ $used == 0 ]]; then
                echo "$file: imports $module but uses nothing of it: remove the import"
                failed=1
            fi
        done <<<"${imports[$file]-}"
    done < <(find "$sources/$target" -name '*.swift' -print0 | sort -z)
done

exit $failed
