#!/bin/sh
# The suite's time as docs/testing.md records it: the whole `swift test --skip-build` (the engine
# suites left out), then each test target alone, then the slowest integration suites and tests by
# the time their cases ran on the blocking threads (SUITE_TIMES=1), queueing left out. The
# integration tests run the release supervise, and the tests their optimized build in
# .build-tests, as scripts/test.sh has them. Build first (a run of scripts/test.sh builds all of
# it), and run it on an idle machine: the suite's own threads share it.
#
#   scripts/suite-times.sh            # the whole run, every target, the 15 slowest suites and tests
#   scripts/suite-times.sh --whole    # the whole run and the slowest only
set -eu
cd "$(dirname "$0")/.."
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# The real-engine suites (Docker, runc, Podman, systemd, the .deb) are left out: timed on their own.
export SKIP_ENGINE_TESTS=1
export SUPERVISE_BIN=${SUPERVISE_BIN:-$PWD/.build/release/supervise}
[ -x "$SUPERVISE_BIN" ] || { echo "$SUPERVISE_BIN: no release build: run swift build -c release --product supervise (and --product swift-worker-example)" >&2; exit 1; }

# Runs swift test with the given arguments (after the log's name $1); prints the seconds it took.
# A failed run's log is kept in $TMPDIR, and said so on stderr.
timed() {
    name=$1; shift
    start=$(date +%s.%N)
    if ! SUITE_TIMES=1 swift test --skip-build --scratch-path .build-tests "$@" >"$logs/$name" 2>&1; then
        cp "$logs/$name" "${TMPDIR:-/tmp}/suite-times-$name.log"
        echo "failed: swift test --skip-build $*; log: ${TMPDIR:-/tmp}/suite-times-$name.log" >&2
    fi
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }'
}

printf '%-26s %s\n' "swift test --skip-build" "$(timed all) s"
if [ "${1:-}" != --whole ]; then
    for target in $(sed -n 's/.*\.testTarget(name: "\([A-Za-z]*\)".*/\1/p' Package.swift); do
        printf '%-26s %s\n' "$target" "$(timed "$target" --filter "^$target\.") s"
    done
fi

# "test time: 2.345 s IntegrationTests.SUITE/TEST(LABELS:)/FILE:LINE:COLUMN", one line per case.
echo; echo "slowest suites (cases' time summed; serialized suites run it end to end):"
sed -n 's|^test time: \([0-9.]*\) s [A-Za-z]*\.\([A-Za-z]*\)/.*|\2 \1|p' "$logs/all" \
    | awk '{ sum[$1] += $2; n[$1]++ } END { for (s in sum) printf "%8.1f s %4d cases  %s\n", sum[s], n[s], s }' \
    | sort -rn | head -15
echo; echo "slowest tests (all their cases):"
sed -n 's|^test time: \([0-9.]*\) s [A-Za-z]*\.\([A-Za-z]*/[A-Za-z]*\).*|\2 \1|p' "$logs/all" \
    | awk '{ sum[$1] += $2; n[$1]++ } END { for (t in sum) printf "%8.1f s %4d cases  %s\n", sum[t], n[t], t }' \
    | sort -rn | head -15
