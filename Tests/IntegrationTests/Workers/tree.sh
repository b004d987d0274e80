#!/bin/sh
# A worker with a process tree: two background loops in its process group and
# one double-forked with setsid (out of the group). Each loop writes an
# increasing counter to DIR/NAME and its pid to DIR/NAME.pid. With AWARE=1 it
# says hello and holds a task it never ends (so it is killed at the limit).
#   tree.sh DIR            the whole tree
#   tree.sh DIR NAME       one counting loop
dir=$1
# The loops must not hold the supervisor's output open: the one that escapes
# the process group outlives a SIGSTOP-frozen tree on purpose.
exec >/dev/null 2>&1
count() {
    echo $$ > "$dir/$1.pid"
    n=0
    while :; do
        n=$((n + 1))
        echo $n > "$dir/$1.tmp.$$" && mv "$dir/$1.tmp.$$" "$dir/$1"
        sleep 0.02
    done
}
if [ -n "$2" ]; then
    count "$2"
fi
if [ "${AWARE:-0}" = 1 ]; then
    printf 'hello 1\nbegin keep holding on\n' >&4
fi
"$0" "$dir" one &
"$0" "$dir" two &
setsid "$0" "$dir" escaped &
count main
