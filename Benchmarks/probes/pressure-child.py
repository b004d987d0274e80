#!/usr/bin/env python3
"""The memory pressure probe: a child of `supervise --memory-warnings` that makes genuine
pressure and times the warning.

    pressure-child.py PRESSURE_FILE MEMORY_CGROUP HOG

Once active, it arms a trigger of its own on PRESSURE_FILE (the file the supervisor watches,
with the supervisor's default trigger, `some 150 ms in 2 s`), starts HOG (python3 hog, which
thrashes its page cache in the cgroup v1 MEMORY_CGROUP) and prints, in nanoseconds:

    sample pressure-trigger  hog started → its own trigger fired (the kernel's detection)
    sample pressure-warning  its own trigger fired → `memory-warning` read from fd 3

Both triggers fire in the kernel's same pressure update, give or take one poll of it.
"""
import os
import select
import subprocess
import sys
import threading
import time

pressure_file, cgroup, hog = sys.argv[1:4]
events = int(os.environ["SUPERVISE_EVENTS_FD"])
pending = b""


def next_event():
    global pending
    while b"\n" not in pending:
        chunk = os.read(events, 4096)
        if not chunk:
            sys.exit(1)
        pending += chunk
    line, pending = pending.split(b"\n", 1)
    return line.decode()


while next_event() != "did-become-active":
    pass
trigger = os.open(pressure_file, os.O_RDWR | os.O_NONBLOCK)
os.write(trigger, b"some 150000 2000000\0")
fired = []


def watch():
    poll = select.poll()
    poll.register(trigger, select.POLLPRI)
    poll.poll()
    fired.append(time.monotonic_ns())


threading.Thread(target=watch, daemon=True).start()
started = time.monotonic_ns()
process = subprocess.Popen([sys.executable, hog, "96"], env=dict(os.environ, HOG_CGROUP=cgroup))
while not next_event().startswith("memory-warning "):
    pass
read = time.monotonic_ns()
process.kill()
process.wait()
for _ in range(100):
    if fired:
        break
    time.sleep(0.01)
if fired:
    print(f"sample pressure-trigger {fired[0] - started}")
    print(f"sample pressure-warning {read - fired[0]}")
