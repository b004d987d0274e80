#!/usr/bin/env bash
# Checks a worker's scheduled background task end to end, one `supervise ctl` a step:
# the worker asks for a task (`schedule sync …`), is parked (suspended), is woken for the
# task at once by `run-task` (as Xcode's _simulateLaunchForTaskWithIdentifier), completes
# it, and is frozen again; the report must say the task completed with success.
#
#   examples/ci/check-scheduled-task.sh examples/bash/cache-sync.sh
#
# Exit status: 0 when every step passed and the task succeeded; 123 when a step's wait
# failed; 2 when a step was refused (no such task pending); 124 when supervise killed the
# worker for a violation (a task held past its time); 1 when the task completed with
# failure; otherwise supervise's own status.
#
# Settings, from the environment:
#   SUPERVISE   the supervise binary (default: supervise on PATH)
#   TASK        the scheduled task's ID (default: sync)
#   WINDOW      the did-enter-background window in seconds (default 5)
set -uo pipefail

if [ $# -eq 0 ]; then
    echo "usage: $0 WORKER [ARGUMENT...]" >&2
    exit 2
fi
supervise=${SUPERVISE:-supervise}
task=${TASK:-sync}
directory=$(mktemp -d)
export SUPERVISE_SOCKET=$directory/supervise.sock
report=$directory/report.json

"$supervise" --name worker --aware --window "${WINDOW:-5}" --control none --socket "$SUPERVISE_SOCKET" \
    --report "$report" -- "$@" &
supervisor=$!
finish() {
    "$supervise" ctl terminate >/dev/null 2>&1
    wait "$supervisor" 2>/dev/null
    rm -rf "$directory"
}
trap finish EXIT

for _ in $(seq 100); do
    "$supervise" ctl version >/dev/null 2>&1 && break
    sleep 0.1
done

step() {
    echo "step: supervise ctl $*"
    "$supervise" ctl "$@"
    status=$?
    if [ "$status" -ne 0 ]; then
        echo "scheduled task check: FAILED at 'supervise ctl $*' (exit status $status)"
        exit "$status"
    fi
}
step wait active timeout=30s
step background
step wait suspended timeout=40s
step schedules
step run-task worker "$task"
step wait suspended timeout=60s
step terminate

wait "$supervisor"
status=$?
outcome=$(grep -o "\"id\":\"$task\",\"kind\":\"[a-z]*\",[^}]*\"outcome\":\"[a-z]*\"" "$report" | grep -o '"outcome":"[a-z]*"' | head -1)
trap 'rm -rf "$directory"' EXIT
case $status in
0) [ "$outcome" = '"outcome":"success"' ] && echo "scheduled task check: passed" && exit 0
   echo "scheduled task check: FAILED: the task never completed (${outcome:-not run})"; exit 1 ;;
1) echo "scheduled task check: FAILED: the task completed with failure" ;;
124) echo "scheduled task check: FAILED: the worker held its task past its time, or broke another rule" ;;
*) echo "scheduled task check: FAILED: supervise exited with $status" ;;
esac
exit "$status"
