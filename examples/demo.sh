#!/usr/bin/env bash
# Runs the bash batch job under supervise through one background/foreground cycle,
# scripted on stdin, and prints the report's timeline (with python3, where it is installed).
# It runs $SUPERVISE, else the release build of the checkout it is in, else the supervise on PATH
# (where the .deb or the tarball installed it, with the examples).
set -euo pipefail
cd "$(dirname "$0")/.."
supervise=${SUPERVISE:-.build/release/supervise}
[[ -n ${SUPERVISE:-} || -x $supervise ]] || supervise=supervise
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

status=0
printf '%s\n' background 'wait suspended' status foreground 'wait active' terminate |
    CHECKPOINT="$work/checkpoint.txt" "$supervise" --window 2 --report "$work/report.json" \
        -- examples/bash/batch-job.sh || status=$?
echo "supervise exited with $status; checkpoint: $(cat "$work/checkpoint.txt" 2>/dev/null || echo none)"
command -v python3 >/dev/null || { echo "(python3 is not installed: no timeline)"; exit "$status"; }
python3 - "$work/report.json" <<'PY'
import json, sys
child = json.load(open(sys.argv[1]))["children"][0]
for entry in child["timeline"]:
    print(f'{entry["t_ms"]:9.1f} ms  {entry["kind"]:<8} {entry["text"]}')
PY
exit "$status"
