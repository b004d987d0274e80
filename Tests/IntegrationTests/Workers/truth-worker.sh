#!/usr/bin/env bash
# An aware worker with a process tree that beats, for the truth monitor.
#   truth-worker.sh DIR              the main process
#   truth-worker.sh DIR --beat NAME  one beating loop
# Every process of the tree (main, "one" in its process group, "escaped" out of it
# with setsid) appends a byte to DIR/NAME every ~20-50 ms and writes its pid to
# DIR/NAME.pid, so the size of DIR/NAME shows whether it runs. The main process
# logs the events it reads to DIR/events.log and takes orders from the FIFO
# DIR/orders, one line each, read before every event:
#   mode done|task|none   on did-enter-background: say done / begin a task bSEQ and
#                         say done / say nothing (default: done)
#   expire end|hold       on expire ID: end the task (default) / keep holding it
#   say REQUEST           write REQUEST to the supervisor; a bare "done" means the
#                         current background entry
# With AWARE=0 it never says hello nor answers did-enter-background: an unaware
# child, suspended when its window passes.
dir=$1
exec >/dev/null 2>&1
beat() {
    exec 3<&- 4>&- 5<&-
    echo "$BASHPID" > "$dir/$1.pid"
    while :; do
        printf . >> "$dir/$1"
        sleep 0.05
    done
}
if [ "$2" = --beat ]; then
    beat "$3"
fi

say() { printf '%s\n' "$1" >&4; }
mode=done expire=end seq=0
obey() {
    local order
    while read -r -t 0 -u 5; do
        IFS= read -r -u 5 order || return
        case $order in
        "mode "*) mode=${order#mode } ;;
        "expire "*) expire=${order#expire } ;;
        "say done") say "done $seq" ;;
        "say "*) say "${order#say }" ;;
        esac
    done
}

exec 5<>"$dir/orders"
beat one &
setsid "$0" "$dir" --beat escaped &
echo $$ > "$dir/main.pid"
if [ "${AWARE:-1}" = 1 ]; then say "hello 1"; else mode=none; fi
partial=
while :; do
    printf . >> "$dir/main"
    obey
    IFS= read -r -t 0.02 -u 3 chunk
    status=$?
    if [ $status -gt 128 ]; then
        # Timed out, maybe mid-line: a stop and continue lets the timer run out after the
        # first byte of an event. Keep what was read.
        partial+=$chunk
        continue
    fi
    [ $status -ne 0 ] && exit 0    # end of file: the supervisor is gone
    line=$partial$chunk partial=
    obey
    printf '%s\n' "$line" >> "$dir/events.log"
    read -r -a field <<< "$line"
    case ${field[0]} in
    did-enter-background)
        seq=${field[1]}
        case $mode in
        done) say "done $seq" ;;
        task) say "begin b$seq background work"; say "done $seq" ;;
        esac
        ;;
    expire) [ "$expire" = end ] && say "end ${field[1]}" ;;
    will-terminate) exit 0 ;;
    esac
done
