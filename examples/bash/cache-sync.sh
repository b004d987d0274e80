#!/usr/bin/env bash
# A parked cache that asks to be woken for a sync, in plain bash, as an iOS app does
# with BGTaskScheduler:
# - says hello, and asks for its sync: `schedule sync refresh earliest=SECONDS`;
# - on did-enter-background, says done at once: it has nothing to finish, so it is
#   frozen until the sync is due;
# - on `task sync …` (woken for it: thawed into a new background entry), syncs, says
#   `task-completed sync success`, and asks for the next one, as an app resubmits its
#   request from its handler; on expire, gives up: `task-completed sync failure`;
# - on will-terminate (or when the supervisor goes away), exits.
#
#   supervise --aware -- examples/bash/cache-sync.sh
#
# A sync is due $SYNC_EVERY seconds after the last (default 900) and takes
# $SYNC_SECONDS (default 0.5).
events=${SUPERVISE_EVENTS_FD:-3}
requests=${SUPERVISE_REQUESTS_FD:-4}
every=${SYNC_EVERY:-900}
sync_seconds=${SYNC_SECONDS:-0.5}

request() { printf '%s\n' "$*" >&"$requests"; }    # one line, one write
log() { printf 'cache-sync: %s\n' "$*" >&2; }

if [ -z "${SUPERVISE_PROTOCOL:-}" ]; then
    log "not running under supervise; nothing wakes it for a sync"
    exec sleep infinity
fi

# Syncs beside the event loop, so an expire can still be read.
sync_cache() {
    sleep "$sync_seconds"
    log "synced"
    request task-completed sync success
    request schedule sync refresh "earliest=$every"
}

request hello 1
request schedule sync refresh "earliest=$every"
sync_pid=
while IFS= read -r -u "$events" line; do
    read -r -a field <<< "$line"
    case "${field[0]}" in
    did-enter-background) request done "${field[1]}" ;;
    task)
        log "woken for ${field[1]} (${field[2]}, ${field[3]} ms)"
        sync_cache & sync_pid=$!
        ;;
    expire)
        [ -n "$sync_pid" ] && kill "$sync_pid" 2>/dev/null
        request task-completed "${field[1]}" failure
        ;;
    will-terminate) exit 0 ;;
    esac
done
exit 0
