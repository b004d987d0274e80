#!/usr/bin/env bash
# A batch job that follows the iOS background rules, in plain bash:
# - says hello, so supervise treats it as an aware child;
# - on did-enter-background, writes a checkpoint and holds a task assertion
#   while it "uploads" it, says done at once (its handler has returned: the
#   task keeps it running), and ends the task when the upload is finished;
# - on expire, stops uploading and ends the task at once;
# - on will-terminate (or when the supervisor goes away), writes a final
#   checkpoint and exits.
#
#   supervise --aware --window 2 -- examples/bash/batch-job.sh
#
# (--aware: it says hello first thing, so a run where it does not fails.)
#
# The checkpoint goes to $CHECKPOINT, which is kept. Without it, the job keeps its
# checkpoint in a directory of its own under ${TMPDIR:-/tmp} and removes it on exit,
# so a run leaves no file behind. An upload takes $UPLOAD_SECONDS (default 1).
events=${SUPERVISE_EVENTS_FD:-3}
requests=${SUPERVISE_REQUESTS_FD:-4}
upload_seconds=${UPLOAD_SECONDS:-1}

request() { printf '%s\n' "$*" >&"$requests"; }    # one line, one write
log() { printf 'batch-job: %s\n' "$*" >&2; }

if [ -z "${SUPERVISE_PROTOCOL:-}" ]; then
    log "not running under supervise; working without lifecycle events"
    exec sleep infinity
fi

scratch=
if [ -n "${CHECKPOINT:-}" ]; then
    checkpoint=$CHECKPOINT
else
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/batch-job.XXXXXX") || exit 1
    checkpoint=$scratch/checkpoint.txt
fi

# Uploads the checkpoint of background entry $1 under task upload-$1. Runs beside
# the event loop, so an expire can still be read; on SIGTERM it stops early.
upload() {
    local seq=$1 sleeper
    trap 'kill "$sleeper" 2>/dev/null; exit' TERM
    sleep "$upload_seconds" & sleeper=$!
    wait "$sleeper"
    log "checkpoint uploaded"
    request end "upload-$seq"
}

stop_upload() {
    [ -n "$upload_pid" ] && kill "$upload_pid" 2>/dev/null
    upload_pid=
}

finish() {
    stop_upload
    echo "processed=$processed final" > "$checkpoint"
    if [ -n "$scratch" ]; then
        log "final checkpoint: $(cat "$checkpoint") (set CHECKPOINT to keep it)"
        rm -rf "$scratch"
    fi
    exit 0
}

request hello 1
processed=0
upload_pid=
trap finish TERM INT    # stopped by a signal rather than will-terminate: still clean up

while IFS= read -r -u "$events" line; do
    read -r -a field <<< "$line"
    case ${field[0]} in
    did-finish-launching|did-become-active|will-resign-active|will-enter-foreground|event)
        log "$line"
        ;;
    did-enter-background)
        seq=${field[1]}
        log "background #$seq: checkpointing after $processed events"
        echo "processed=$processed" > "$checkpoint"
        request begin "upload-$seq" "upload checkpoint"
        upload "$seq" &
        upload_pid=$!
        # The handler has returned; the task keeps the job running. (A done written after
        # the end could arrive after the job was already suspended, and be lost.)
        request done "$seq"
        ;;
    expire)
        log "task ${field[1]} expired: stopping the upload"
        stop_upload
        request end "${field[1]}"
        ;;
    error)
        log "the supervisor refused a request: ${line#error }"
        ;;
    will-terminate)
        log "terminating: final checkpoint"
        finish
        ;;
    esac
    processed=$((processed + 1))
done
log "the supervisor went away"
finish
