#!/usr/bin/env bash
# Drives a worker through one lifecycle from outside, one `supervise ctl` a step, the
# way a CI job does across its steps: supervise starts in the background with a control
# socket, each step is a command whose exit status fails the job, and the run's own exit
# status (violations: 124) comes last. The worker is run with --aware: it must speak the
# protocol, and say hello within the launch timeout.
#
#   background → suspended → event ci-check → suspended again → foreground → terminate
#
#   examples/ci/ctl-lifecycle.sh python3 examples/python/worker.py
#
# With TASK=ID, the worker's scheduled background task ID is checked too, after the event:
# listed by `schedules`, run at once by `run-task` (as Xcode's
# _simulateLaunchForTaskWithIdentifier: the parked worker is thawed for it), completed, and
# the worker frozen again:
#
#   TASK=sync examples/ci/ctl-lifecycle.sh examples/bash/cache-sync.sh
#
# Exit status: 0 when every step passed and the worker followed the rules; 123 when a
# step's wait failed (the worker never got there); 2 when a step was refused (no task ID
# pending); 124 when supervise killed the worker for a violation (a task held past its
# time too); 1 when its scheduled task completed with failure; otherwise supervise's own
# status.
#
# Settings, from the environment:
#   SUPERVISE        the supervise binary (default: supervise on PATH)
#   WINDOW, LIMIT    timing rules in seconds (default 5, 30: supervise's own, with headroom for
#                    a loaded CI runner; see docs/deploy.md, "GitHub Actions")
#   LAUNCH_TIMEOUT   how long the worker has to say hello, in seconds (default 20)
#   REPORT           where to keep the JSON report (default: none)
#   TASK             the ID of a scheduled task of the worker's to check (default: none)
set -uo pipefail

if [ $# -eq 0 ]; then
    echo "usage: $0 WORKER [ARGUMENT...]" >&2
    exit 2
fi
supervise=${SUPERVISE:-supervise}
window=${WINDOW:-5}
limit=${LIMIT:-30}
step_timeout=$((${limit%.*} + 10))s
launch_timeout=${LAUNCH_TIMEOUT:-20}
# Past the launch timeout a worker that never said hello has been killed: the wait fails.
launch_wait=$((${launch_timeout%.*} + 10))s
directory=$(mktemp -d)
# Every `supervise ctl` below finds the socket here (a CI job would export it for its steps).
export SUPERVISE_SOCKET=$directory/supervise.sock

# Step 1: start the supervisor in the background; its stdin is not for commands.
report_options=()
[ -z "${REPORT:-}" ] || report_options=(--report "$REPORT")
"$supervise" --name worker --aware --launch-timeout "$launch_timeout" --window "$window" --limit "$limit" --control none \
    --socket "$SUPERVISE_SOCKET" "${report_options[@]}" -- "$@" &
supervisor=$!
finish() {
    # A failed step leaves the worker running: terminate it, and wait for the report.
    "$supervise" ctl terminate >/dev/null 2>&1
    wait "$supervisor" 2>/dev/null
    rm -rf "$directory"
}
trap finish EXIT

# Step 2: wait until it answers (69 until the socket is there).
for _ in $(seq 100); do
    "$supervise" ctl version >/dev/null 2>&1 && break
    sleep 0.1
done

step() {
    echo "step: supervise ctl $*"
    "$supervise" ctl "$@"
    status=$?
    if [ "$status" -ne 0 ]; then
        echo "lifecycle check: FAILED at 'supervise ctl $*' (exit status $status)"
        exit "$status"
    fi
}
step wait active timeout="$launch_wait"
step background
step wait suspended timeout="$step_timeout"
step event worker ci-check resumed by the lifecycle check
step wait suspended timeout="$step_timeout"
if [ -n "${TASK:-}" ]; then
    step schedules
    step run-task worker "$TASK"
    step wait suspended timeout="$step_timeout"
fi
step foreground
step wait active timeout="$step_timeout"
step --format json status
step terminate

# Last step: the run's own verdict.
wait "$supervisor"
status=$?
trap 'rm -rf "$directory"' EXIT
case $status in
0) echo "lifecycle check: passed" ;;
124) echo "lifecycle check: FAILED: the worker overran its window, held a task at the limit or never said hello" ;;
1) echo "lifecycle check: FAILED: a scheduled task completed with failure (or the worker exited 1)" ;;
*) echo "lifecycle check: FAILED: supervise exited with $status" ;;
esac
exit "$status"
