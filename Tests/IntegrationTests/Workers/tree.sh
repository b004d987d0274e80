#!/bin/sh
# A worker with a process tree: two background loops in its process group, one
# that leaves it with setsid, and one double-forked with setsid (orphaned at
# once: its parent exits, so it is reparented to the supervisor). Each loop
# writes an increasing counter to DIR/NAME and its pid to DIR/NAME.pid; on
# SIGTERM it writes DIR/NAME.term and exits. With STUBBORN=1 the loops other
# than main ignore SIGTERM. With AWARE=1 the worker says hello and holds a task
# it never ends (so it is killed at the limit).
#   tree.sh DIR            the whole tree
#   tree.sh DIR NAME       one counting loop
dir=$1
# The loops must not hold the supervisor's output open: one that outlives the
# supervisor (killed with SIGKILL) would keep its pipes open.
exec >/dev/null 2>&1
count() {
    echo $$ > "$dir/$1.pid"
    if [ "${STUBBORN:-0}" = 1 ] && [ "$1" != main ]; then
        trap '' TERM
    else
        trap "echo term > '$dir/$1.term'; exit 0" TERM
    fi
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
(setsid "$0" "$dir" orphan &)
count main
