#!/usr/bin/env bash
# A protocol-1 worker for the integration tests. It logs every event it reads to
# $WORKER_LOG (one line each) and reacts as the WORKER_* variables say:
#   WORKER_HELLO=0                 never say hello (an unaware child that reads events)
#   WORKER_HELLO_DELAY=SECONDS     wait that long before saying hello (a slow start)
#   WORKER_ON_BACKGROUND=done      answer did-enter-background with done SEQ
#   WORKER_ON_BACKGROUND=task      begin a task, end it after $WORKER_TASK_SECONDS, then done
#   WORKER_ON_BACKGROUND=hold      begin a task and never end it
#   WORKER_ON_BACKGROUND=ignore    do nothing (misses its window)
#   WORKER_ON_BACKGROUND=late-done answer done after $WORKER_DONE_STEPS sleeps of 0.1 s (time it
#                                  ran: a freeze holds the count back)
#   WORKER_ON_EXPIRE=end           end a task when it gets expire
#   WORKER_ON_TERMINATE=exit       exit 0 on will-terminate (default); =ignore keeps running
#   WORKER_REQUESTS="a|b|c"        requests to write once at start (for malformed-request tests)
#   WORKER_ON_TASK=success         answer a scheduled task (task ID KIND LIMIT) with task-completed ID
#                                  success after $WORKER_TASK_SECONDS; =failure the same with failure;
#                                  =hold never completes it
log=${WORKER_LOG:-/dev/null}
say() { printf '%s\n' "$1" >&"${SUPERVISE_REQUESTS_FD:-4}"; }

[ -z "${WORKER_HELLO_DELAY:-}" ] || sleep "$WORKER_HELLO_DELAY"
[ "${WORKER_HELLO:-1}" = 1 ] && say "hello 1"
if [ -n "${WORKER_REQUESTS:-}" ]; then
    IFS='|' read -r -a requests <<< "$WORKER_REQUESTS"
    for request in "${requests[@]}"; do say "$request"; done
fi

while IFS= read -r -u "${SUPERVISE_EVENTS_FD:-3}" line; do
    printf '%s\n' "$line" >> "$log"
    read -r -a field <<< "$line"
    case "${field[0]}" in
    did-enter-background)
        seq=${field[1]}
        case "${WORKER_ON_BACKGROUND:-done}" in
        done) say "done $seq" ;;
        task)
            say "begin t$seq upload"
            ( sleep "${WORKER_TASK_SECONDS:-0.5}"; say "end t$seq"; say "done $seq" ) &
            ;;
        hold) say "begin t$seq upload" ;;
        late-done)
            ( i=0
              while [ "$i" -lt "${WORKER_DONE_STEPS:-10}" ]; do sleep 0.1; i=$((i + 1)); done
              say "done $seq" ) &
            ;;
        ignore) ;;
        esac
        ;;
    task)
        case "${WORKER_ON_TASK:-success}" in
        success|failure)
            ( sleep "${WORKER_TASK_SECONDS:-0.5}"; say "task-completed ${field[1]} ${WORKER_ON_TASK:-success}" ) &
            ;;
        esac
        ;;
    expire)
        [ "${WORKER_ON_EXPIRE:-}" = end ] && say "end ${field[1]}"
        ;;
    will-terminate)
        [ "${WORKER_ON_TERMINATE:-exit}" = exit ] && exit 0
        ;;
    esac
done
# EOF on the events pipe: the supervisor is gone.
exit 0
