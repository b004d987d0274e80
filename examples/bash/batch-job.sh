#!/usr/bin/env bash
# A batch job that follows the iOS background rules, in plain bash:
# - says hello, so supervise treats it as an aware child;
# - on did-enter-background, writes a checkpoint and holds a task assertion
#   while it "uploads" it, then ends the task and says done;
# - on expire, stops uploading and ends the task at once;
# - on will-terminate, cleans up and exits.
#
#   supervise --window 2 -- examples/bash/batch-job.sh
#
# The checkpoint goes to $CHECKPOINT (default ./checkpoint.txt).
events=${SUPERVISE_EVENTS_FD:-3}
requests=${SUPERVISE_REQUESTS_FD:-4}
checkpoint=${CHECKPOINT:-./checkpoint.txt}
upload_seconds=${UPLOAD_SECONDS:-1}

request() { printf '%s\n' "$*" >&"$requests"; }    # one line, one write
log() { printf 'batch-job: %s\n' "$*" >&2; }

if [ -z "${SUPERVISE_PROTOCOL:-}" ]; then
    log "not running under supervise; working without lifecycle events"
    exec sleep infinity
fi

request hello 1
processed=0
upload_pid=

while IFS= read -r -u "$events" line; do
    read -r -a field <<< "$line"
    case ${field[0]} in
    did-finish-launching|did-become-active|will-resign-active|will-enter-foreground)
        log "$line"
        ;;
    did-enter-background)
        seq=${field[1]}
        log "background #$seq: checkpointing after $processed items"
        echo "processed=$processed" > "$checkpoint"
        request begin "upload-$seq" "upload checkpoint"
        # The upload runs beside the event loop so expire can still be read.
        ( sleep "$upload_seconds"; request end "upload-$seq"; request done "$seq" ) &
        upload_pid=$!
        ;;
    expire)
        log "task ${field[1]} expired: stopping the upload"
        [ -n "$upload_pid" ] && kill "$upload_pid" 2>/dev/null
        request end "${field[1]}"
        ;;
    will-terminate)
        log "terminating: final checkpoint"
        echo "processed=$processed final" > "$checkpoint"
        exit 0
        ;;
    esac
    processed=$((processed + 1))
done
log "the supervisor went away"
exit 0
