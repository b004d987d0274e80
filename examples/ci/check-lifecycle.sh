#!/usr/bin/env bash
# Runs a worker under supervise through one scripted lifecycle and fails when the
# worker breaks the background rules, the way a CI job would. The worker is run with
# --aware: it must speak the protocol, and say hello within the launch timeout.
#
#   hello → active → background → (window, tasks, expire) → suspended
#   event ci-check → suspended again → foreground → active → terminate
#
#   examples/ci/check-lifecycle.sh python3 examples/python/worker.py
#
# Exit status: 0 when the worker followed the rules; 124 when supervise killed it
# for overrunning its window, holding a task at the limit, or not saying hello within
# the launch timeout (a violation); 123 when
# it never reached a step (e.g. never got suspended); otherwise the worker's own
# failure status, or 2 for bad settings.
#
# Settings, from the environment:
#   SUPERVISE        the supervise command, split on spaces (default: supervise on PATH;
#                    e.g. "sudo .build/release/supervise" for the cgroup freezer on a CI runner)
#   WINDOW, LIMIT, EXPIRY_WARNING   timing rules in seconds (default 5, 30, 5: supervise's own,
#                    with headroom for a loaded CI runner; see docs/deploy.md, "GitHub Actions")
#   LAUNCH_TIMEOUT   how long the worker has to say hello, in seconds (default 20)
#   SUPERVISE_OPTIONS               more options, split on spaces (e.g. --freezer sigstop, or
#                    --annotations github under sudo, which drops GITHUB_ACTIONS)
#   REPORT           where to keep the JSON report (default: a temporary file)
#   JUNIT            where to write the result as JUnit XML, for CI test reporters (default: none)
#   JUNIT_SUITE      the JUnit suite's name (default: the worker's name, "worker")
#   HTML             where to draw the run as an HTML timeline, to look at (default: none)
# Under sudo the files are the invoking user's (docs/security.md, "Result files").
set -uo pipefail

if [ $# -eq 0 ]; then
    echo "usage: $0 WORKER [ARGUMENT...]" >&2
    exit 2
fi
read -r -a supervise <<< "${SUPERVISE:-supervise}"
window=${WINDOW:-5}
limit=${LIMIT:-30}
expiry_warning=${EXPIRY_WARNING:-5}
launch_timeout=${LAUNCH_TIMEOUT:-20}
# Past the launch timeout a worker that never said hello has been killed: the wait fails.
launch_wait=$(awk -v timeout="$launch_timeout" 'BEGIN { print timeout + 10 "s" }')
# A worker may run for up to the limit before it has to be suspended.
step_timeout=$(awk -v limit="$limit" 'BEGIN { print limit + 10 "s" }')
report=${REPORT:-$(mktemp)}
[ -n "${REPORT:-}" ] || trap 'rm -f "$report"' EXIT

read -r -a extra_options <<< "${SUPERVISE_OPTIONS:-}"
[ -z "${JUNIT:-}" ] || extra_options+=(--junit "$JUNIT")
[ -z "${JUNIT:-}" ] || [ -z "${JUNIT_SUITE:-}" ] || extra_options+=(--junit-suite "$JUNIT_SUITE")
[ -z "${HTML:-}" ] || extra_options+=(--html "$HTML")
"${supervise[@]}" --name worker --aware --launch-timeout "$launch_timeout" \
    --window "$window" --limit "$limit" --expiry-warning "$expiry_warning" \
    --report "$report" "${extra_options[@]}" -- "$@" <<SCRIPT
wait active timeout=$launch_wait
background
wait suspended timeout=$step_timeout
event worker ci-check resumed by the lifecycle check
wait suspended timeout=$step_timeout
foreground
wait active timeout=$step_timeout
terminate
wait exited timeout=$step_timeout
SCRIPT
status=$?

case $status in
0) echo "lifecycle check: passed" ;;
124) echo "lifecycle check: FAILED: the worker overran its window, held a task at the limit or never said hello" ;;
123) echo "lifecycle check: FAILED: the worker did not reach a lifecycle step in time" ;;
*) echo "lifecycle check: FAILED: supervise exited with $status" ;;
esac
if [ "$status" -ne 0 ] && command -v python3 >/dev/null && [ -s "$report" ]; then
    python3 - "$report" <<'PY'
import json, sys
for child in json.load(open(sys.argv[1]))["children"]:
    for violation in child["violations"]:
        tasks = ", ".join(f'{task["id"]} ({task.get("name") or "unnamed"})' for task in violation.get("tasks", []))
        print(f'  {violation["kind"]} violation at {violation["at_ms"]:.0f} ms: {violation["action"]}'
              + (f"; tasks still open: {tasks}" if tasks else ""))
PY
fi
[ -n "${REPORT:-}" ] && echo "lifecycle check: the full record is in $report"
[ -n "${HTML:-}" ] && echo "lifecycle check: the timeline is drawn in $HTML"
exit "$status"
