#!/usr/bin/env bash
# Runs the bash batch job under supervise through one background/foreground cycle,
# scripted on stdin, and prints the report's timeline.
set -euo pipefail
cd "$(dirname "$0")/.."
supervise=${SUPERVISE:-.build/release/supervise}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

status=0
printf '%s\n' background 'wait suspended' status foreground 'wait active' terminate |
    CHECKPOINT="$work/checkpoint.txt" "$supervise" --window 2 --report "$work/report.json" \
        -- examples/bash/batch-job.sh || status=$?
echo "supervise exited with $status; checkpoint: $(cat "$work/checkpoint.txt" 2>/dev/null || echo none)"
python3 - "$work/report.json" <<'PY'
import json, sys
child = json.load(open(sys.argv[1]))["children"][0]
for entry in child["timeline"]:
    print(f'{entry["t_ms"]:9.1f} ms  {entry["kind"]:<8} {entry["text"]}')
PY
exit "$status"
