#!/usr/bin/env python3
"""A worker that holds a known amount of memory and parks.

Allocates MIB mebibytes (argv[1]) and touches every page, says `hello 1`, answers each read of
events that began a background entry with `done SEQ` (an entry's `event` comes in the same
write), logs every event line to $EVENT_LOG/$SUPERVISE_NAME, and exits 0 on `will-terminate`,
or at its launch in the foreground when $EXIT_IN_FOREGROUND is set.
"""
import os
import sys

block = bytearray(int(sys.argv[1]) << 20)
for page in range(0, len(block), 4096):
    block[page] = 1
events, requests = int(os.environ["SUPERVISE_EVENTS_FD"]), int(os.environ["SUPERVISE_REQUESTS_FD"])
log = open(os.path.join(os.environ["EVENT_LOG"], os.environ["SUPERVISE_NAME"]), "a")


def send(*fields):
    os.write(requests, (" ".join(fields) + "\n").encode())


send("hello", "1")
pending = b""
while True:
    chunk = os.read(events, 65536)
    if not chunk:
        sys.exit(0)
    *lines, pending = (pending + chunk).split(b"\n")
    entry = None
    for raw in lines:
        line = raw.decode()
        log.write(line + "\n")
        log.flush()
        verb, *fields = line.split(" ")
        if verb == "did-enter-background":
            entry = fields[0]
        elif verb == "will-terminate":
            sys.exit(0)
        elif verb == "did-finish-launching" and fields[0] == "foreground" and os.environ.get("EXIT_IN_FOREGROUND"):
            sys.exit(0)
    if entry:
        send("done", entry)
