#!/bin/sh
# Builds and runs a libFuzzer target over the request, event, control, duration and TOML
# parsers (docs/testing.md), compiled from their sources with -sanitize=fuzzer,address.
#   scripts/libfuzzer.sh [libFuzzer options, e.g. -max_total_time=600 -rss_limit_mb=2048]
set -eu
cd "$(dirname "$0")/.."
out=.build-libfuzzer
mkdir -p "$out/corpus"
control=Sources/SuperviseCore/Control
swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name SuperviseProtocol \
    Sources/SuperviseProtocol/*.swift \
    $control/ControlParser.swift $control/ControlCommand.swift $control/ControlText.swift \
    $control/DurationParser.swift $control/UsageError.swift \
    $control/TOMLParser.swift $control/TOMLValue.swift $control/TOMLNumber.swift \
    Sources/SuperviseCore/Lifecycle/ChildState.swift Sources/SuperviseCore/Lifecycle/Instant.swift \
    scripts/libfuzzer/ParserFuzzer.swift -o "$out/parser-fuzzer" 2>&1 | grep -v 'Cannot export local symbol' || true
exec "$out/parser-fuzzer" "$out/corpus" "$@"
