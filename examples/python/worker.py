#!/usr/bin/env python3
"""A worker that follows the iOS background rules, in Python with no third-party packages.

In the foreground it processes items. When it is moved to the background it starts
flushing its results under a task assertion and says it is done with the window at once;
if the flush outlasts the time the supervisor allows, the task's `expire` arrives and the
worker stops flushing and ends the task, so it is suspended instead of killed.

    supervise --aware --window 2 --limit 10 -- python3 examples/python/worker.py

--aware: it says hello as it starts, so a run where it never does (it hangs first, or
is not this worker) fails.

FLUSH_SECONDS (default 2) is how long a complete flush takes. Under memory pressure
(`memory-warning LEVEL`) it drops the cache of recent items it keeps, as an iOS app
frees caches in didReceiveMemoryWarning.

REFRESH_EVERY (seconds; unset: never) makes it a BackgroundTasks-style app too: it asks to
be woken in the background for a `refresh` task that long from now (`schedule refresh
refresh earliest=MSms`, with `requires=network` when REFRESH_NEEDS_NETWORK=1). When the
supervisor sends `task refresh refresh LIMIT_MS`, it refreshes for REFRESH_SECONDS (default
0.2), says `task-completed refresh success` (or `failure` if `expire refresh` stopped it
first) and schedules the next one.
"""

import os
import signal
import sys
import threading
import time


class Supervisor:
    """The child side of supervise's protocol 1: events in on one pipe, requests out on another.

    Takes the channels only when they are meant for this process (SUPERVISE_PID), then
    hides them from sub-processes. Not under supervise, `connected` is False and every
    request is dropped, so the worker runs normally.
    """

    MAX_LINE = 1024  # bytes per line, newline included

    def __init__(self):
        env = os.environ
        self.connected = env.get("SUPERVISE_PROTOCOL") == "1" and env.get("SUPERVISE_PID") == str(os.getpid())
        self.name = env.get("SUPERVISE_NAME")
        if not self.connected:
            return
        self._events = int(env.get("SUPERVISE_EVENTS_FD", "3"))
        self._requests = int(env.get("SUPERVISE_REQUESTS_FD", "4"))
        for fd in (self._events, self._requests):
            os.set_inheritable(fd, False)  # close-on-exec: sub-processes never read our events
        for key in [key for key in env if key.startswith("SUPERVISE_")]:
            del os.environ[key]
        self._lock = threading.Lock()
        self._next_task = 1
        self._open_tasks = set()
        self._pending = b""
        self.send("hello", "1")

    def send(self, *fields):
        """Writes one request line with a single write(2), so threads never interleave."""
        if not self.connected:
            return
        line = " ".join(fields).replace("\r", " ").replace("\n", " ").encode()
        line = line[: self.MAX_LINE - 1].decode(errors="ignore").encode() + b"\n"
        try:
            os.write(self._requests, line)
        except BrokenPipeError:  # Python ignores SIGPIPE: a vanished supervisor is an error here
            self.connected = False

    def begin(self, name=None):
        """Begins a task assertion and returns its ID (a counter: IDs are never reused)."""
        with self._lock:
            task = str(self._next_task)
            self._next_task += 1
            self._open_tasks.add(task)
        self.send("begin", task, *([name] if name else []))
        return task

    def end(self, task):
        """Ends a task assertion; ending one twice sends nothing the second time."""
        with self._lock:
            if task not in self._open_tasks:
                return
            self._open_tasks.discard(task)
        self.send("end", task)

    def done(self, seq):
        """Says the handler of background entry SEQ has returned."""
        self.send("done", seq)

    def schedule(self, task, kind, earliest_ms=None, requires=()):
        """Asks to be woken in the background for TASK (a `refresh` or `processing` task) once
        EARLIEST_MS have passed and every condition in REQUIRES (idle, power, network) holds;
        a second request for the same TASK replaces the first."""
        fields = ["schedule", task, kind]
        if earliest_ms is not None:
            fields.append(f"earliest={max(0, int(earliest_ms))}ms")
        if requires:
            fields.append("requires=" + ",".join(requires))
        self.send(*fields)

    def cancel(self, task):
        """Drops the pending request for TASK."""
        self.send("cancel", task)

    def task_completed(self, task, success):
        """Says the scheduled TASK the supervisor started is finished."""
        self.send("task-completed", task, "success" if success else "failure")

    def events(self):
        """Yields each event as a list of fields; end of file becomes ['will-terminate', '0']."""
        while self.connected:
            while b"\n" not in self._pending:
                chunk = os.read(self._events, 4096)
                if not chunk:
                    self.connected = False
                    yield ["will-terminate", "0"]
                    return
                self._pending += chunk
            line, self._pending = self._pending.split(b"\n", 1)
            yield line.rstrip(b"\r").decode(errors="replace").split(" ")


def log(message):
    print(f"python-worker: {message}", file=sys.stderr, flush=True)


class Worker:
    def __init__(self, supervisor):
        self.supervisor = supervisor
        self.results = 0
        self.cache = []  # recent items, kept only to be freed under memory pressure
        self.active = threading.Event()
        self.flush_stop = threading.Event()
        self.refresh_stop = threading.Event()
        self.refresh_every = os.environ.get("REFRESH_EVERY")
        self.refresh_requires = ("network",) if os.environ.get("REFRESH_NEEDS_NETWORK") == "1" else ()

    def schedule_refresh(self):
        if self.refresh_every is not None:
            self.supervisor.schedule("refresh", "refresh", float(self.refresh_every) * 1000, self.refresh_requires)

    def refresh(self, task, seconds):
        """The scheduled work: refreshes in steps until finished or expired, then completes the
        task and asks for the next one."""
        steps = max(1, int(seconds * 10))
        stopped = any(self.refresh_stop.wait(seconds / steps) for _ in range(steps))
        log(f"refresh {'stopped by expire' if stopped else 'finished'}")
        self.supervisor.task_completed(task, success=not stopped)
        self.schedule_refresh()

    def process_items(self):
        """The foreground work: one item every 50 ms while active."""
        while True:
            self.active.wait()
            self.results += 1
            self.cache = self.cache[-999:] + [bytes(1024)]
            time.sleep(0.05)

    def flush(self, task, seconds):
        """Writes the results out in steps, until finished or told to stop, then ends the task."""
        steps = max(1, int(seconds * 10))
        for step in range(steps):
            if self.flush_stop.wait(seconds / steps):
                log(f"flush stopped after {step} of {steps} steps")
                break
        else:
            log(f"flushed {self.results} results")
        self.supervisor.end(task)

    def run(self):
        threading.Thread(target=self.process_items, daemon=True).start()
        flush_seconds = float(os.environ.get("FLUSH_SECONDS", "2"))
        if not self.supervisor.connected:
            log("not running under supervise; working without lifecycle events")
            self.active.set()
            while True:
                signal.pause()
        self.schedule_refresh()
        for fields in self.supervisor.events():
            verb = fields[0]
            if verb in ("did-finish-launching", "will-resign-active", "will-enter-foreground"):
                log(" ".join(fields))
            elif verb == "did-become-active":
                self.active.set()
            elif verb == "did-enter-background":
                seq = fields[1]
                self.active.clear()
                self.flush_stop.clear()
                task = self.supervisor.begin("flush results")
                threading.Thread(target=self.flush, args=(task, flush_seconds), daemon=True).start()
                self.supervisor.done(seq)  # the handler returns; the task keeps the worker running
            elif verb == "event":
                log(f"resumed for event {' '.join(fields[2:])}")
            elif verb == "task":
                task, kind, limit = fields[1], fields[2], fields[3]
                log(f"woken for {kind} task {task} ({limit} ms)")
                self.refresh_stop.clear()
                refresh_seconds = float(os.environ.get("REFRESH_SECONDS", "0.2"))
                threading.Thread(target=self.refresh, args=(task, refresh_seconds), daemon=True).start()
            elif verb == "expire" and fields[1] == "refresh":
                self.refresh_stop.set()
            elif verb == "expire":
                log(f"task {fields[1]} expired: stopping the flush")
                self.flush_stop.set()
                self.supervisor.end(fields[1])
            elif verb == "memory-warning":
                freed, self.cache = len(self.cache), []
                log(f"memory warning {fields[1]}: dropped {freed} cached items")
            elif verb == "error":
                log(f"the supervisor refused a request: {' '.join(fields[1:])}")
            elif verb == "will-terminate":
                log(f"terminating after {self.results} results")
                return 0
        return 0


if __name__ == "__main__":
    sys.exit(Worker(Supervisor()).run())
