#!/usr/bin/env bash
# The test suite as the README and CI run it: `swift test`, with the integration tests running
# the release `supervise` (the binary users install and the .deb ships) and the Swift example
# beside it, both built first. The unit tests run in the debug test build as usual.
#
# Why release: a debug `supervise` spends about half of each start in ArgumentParser's
# debug-only check of the command definition, and the suite starts it some 1,100 times
# (docs/testing.md). No check of ours is debug-only: Sources has no `assert`, and a release
# build still traps on overflow and failed preconditions.
#
# The tests themselves are built optimized (-O, in the debug configuration, so `@testable`
# still works), in a scratch folder of their own so that `swift build` for debugging is not
# redone each time: the CLI fuzz test's parses, the other fuzz tests and the unit tests then
# take a fifth less CPU, and the suite 99 s instead of 118 s on a 2-core VM (docs/testing.md).
#
#   scripts/test.sh [SWIFT_TEST_ARGUMENT...]     e.g. --skip-build, --filter TruthTests
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product supervise
swift build -c release --product swift-worker-example
tests=(--scratch-path .build-tests -Xswiftc -O)
# swift-argument-parser's tool, which ManualTests runs to compare docs/supervise.1 with the parser.
swift build "${tests[@]}" --product generate-manual
SUPERVISE_BIN="$PWD/.build/release/supervise" exec swift test "${tests[@]}" "$@"
