#!/bin/sh
# An unaware worker that proves it runs: it writes an increasing counter to $1
# every 20 ms, so a test can see progress stop while it is frozen.
out=$1
n=0
while :; do
    n=$((n + 1))
    echo "$n" > "$out.tmp" && mv "$out.tmp" "$out"
    sleep 0.02
done
