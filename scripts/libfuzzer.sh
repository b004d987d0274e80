#!/bin/sh
# Builds and runs a libFuzzer target over the request, event, control, duration and TOML
# parsers (docs/testing.md), compiled from their sources with -sanitize=fuzzer,address.
#   scripts/libfuzzer.sh [libFuzzer options, e.g. -max_total_time=600 -rss_limit_mb=2048]
set -eu
cd "$(dirname "$0")/.."
out=.build-libfuzzer
mkdir -p "$out/corpus"
# The parsers' files from three targets, compiled as one module: their imports of each other go.
sources="$out/sources"
rm -rf "$sources" && mkdir -p "$sources"
config=Sources/SuperviseConfig
for file in Sources/SuperviseProtocol/*.swift \
    $config/ControlParser.swift $config/ControlCommand.swift $config/ControlText.swift \
    $config/DurationParser.swift $config/UsageError.swift \
    $config/TOMLParser.swift $config/TOMLValue.swift $config/TOMLNumber.swift \
    Sources/SuperviseLifecycle/ChildState.swift Sources/SuperviseLifecycle/Instant.swift; do
    sed '/^import Supervise/d' "$file" > "$sources/$(basename "$file")"
done
swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name SuperviseProtocol \
    "$sources"/*.swift scripts/libfuzzer/ParserFuzzer.swift -o "$out/parser-fuzzer" 2>&1 | grep -v 'Cannot export local symbol' || true
exec "$out/parser-fuzzer" "$out/corpus" "$@"
