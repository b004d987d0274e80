#!/usr/bin/env python3
"""Tries to undo its own supervision and a sibling's; prints one `escape NAME RESULT` line per
attempt (RESULT: the errno's name, or `allowed`) and one `cgroup-file PATH UID MODE` per file
of a supervise cgroup it can see. Run by PrivilegeEscapeTests as a --user child.

Usage: escape-probe.py FREEZER   (cgroup2, cgroup1 or sigstop)
The sibling is the other child of the same supervisor; the probe waits until it is frozen.
"""
import ctypes
import errno
import os
import signal
import sys
import time

V2 = "/sys/fs/cgroup/unified"
V1 = "/sys/fs/cgroup/freezer"
freezer = sys.argv[1]
supervisor = os.getppid()


def stat_fields(pid):
    with open(f"/proc/{pid}/stat") as f:
        text = f.read()
    return text[text.rindex(")") + 2:].split()


def sibling():
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != os.getpid():
            try:
                if int(stat_fields(name)[1]) == supervisor:
                    return int(name)
            except (OSError, ValueError, IndexError):
                pass
    return None


def cgroup_of(pid, controller):
    with open(f"/proc/{pid}/cgroup") as f:
        for line in f:
            number, controllers, path = line.rstrip("\n").split(":", 2)
            if (controller == "" and number == "0") or controller in controllers.split(","):
                return path
    return "/"


def is_frozen(pid):
    if freezer == "sigstop":
        return stat_fields(pid)[0] == "T"
    if freezer == "cgroup2":
        with open(V2 + cgroup_of(pid, "") + "/cgroup.events") as f:
            return "frozen 1" in f.read()
    with open(V1 + cgroup_of(pid, "freezer") + "/freezer.state") as f:
        return f.read().strip() == "FROZEN"


def attempt(name, action):
    try:
        action()
        print(f"escape {name} allowed", flush=True)
    except OSError as error:
        print(f"escape {name} {errno.errorcode.get(error.errno, error.errno)}", flush=True)


def ptrace_attach(pid):
    def action():
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.ptrace(16, pid, None, None) != 0:  # PTRACE_ATTACH
            raise OSError(ctypes.get_errno(), "ptrace")
    return action


def write(path, text):
    def action():
        with open(path, "w") as f:
            f.write(text)
    return action


def open_fd(pid, fd, mode):
    def action():
        with open(f"/proc/{pid}/fd/{fd}", mode):
            pass
    return action


victim = None
deadline = time.monotonic() + 20
while time.monotonic() < deadline:
    victim = victim or sibling()
    if victim and is_frozen(victim):
        break
    time.sleep(0.05)
else:
    print("escape sibling-never-frozen allowed", flush=True)
    sys.exit(1)

attempt("signal-supervisor-term", lambda: os.kill(supervisor, signal.SIGTERM))
attempt("signal-supervisor-cont", lambda: os.kill(supervisor, signal.SIGCONT))
attempt("signal-sibling-cont", lambda: os.kill(victim, signal.SIGCONT))
attempt("signal-sibling-kill", lambda: os.kill(victim, signal.SIGKILL))
attempt("sibling-events-pipe", open_fd(victim, 3, "r"))
attempt("sibling-requests-pipe", open_fd(victim, 4, "w"))
attempt("supervisor-fds", lambda: os.listdir(f"/proc/{supervisor}/fd"))
attempt("ptrace-supervisor", ptrace_attach(supervisor))
attempt("ptrace-sibling", ptrace_attach(victim))

if freezer == "cgroup2":
    own, theirs = V2 + cgroup_of("self", ""), V2 + cgroup_of(victim, "")
    attempt("thaw-self", write(own + "/cgroup.freeze", "0"))
    attempt("thaw-sibling", write(theirs + "/cgroup.freeze", "0"))
    attempt("move-self-up", write(os.path.dirname(own) + "/cgroup.procs", str(os.getpid())))
    attempt("move-self-to-root", write(V2 + "/cgroup.procs", str(os.getpid())))
    attempt("move-sibling-out", write(V2 + "/cgroup.procs", str(victim)))
    attempt("make-cgroup", lambda: os.mkdir(own + "/escape"))
    files = [own, own + "/cgroup.procs", own + "/cgroup.freeze", os.path.dirname(own)]
elif freezer == "cgroup1":
    own, theirs = V1 + cgroup_of("self", "freezer"), V1 + cgroup_of(victim, "freezer")
    attempt("thaw-self", write(own + "/freezer.state", "THAWED"))
    attempt("thaw-sibling", write(theirs + "/freezer.state", "THAWED"))
    attempt("move-self-up", write(os.path.dirname(own) + "/cgroup.procs", str(os.getpid())))
    attempt("move-self-to-root", write(V1 + "/tasks", str(os.getpid())))
    attempt("move-sibling-out", write(V1 + "/cgroup.procs", str(victim)))
    attempt("make-cgroup", lambda: os.mkdir(own + "/escape"))
    files = [own, own + "/cgroup.procs", own + "/tasks", own + "/freezer.state", os.path.dirname(own)]
else:
    attempt("move-self-to-v2-root", write(V2 + "/cgroup.procs", str(os.getpid())))
    files = []

for path in files:
    status = os.stat(path)
    print(f"cgroup-file {path} {status.st_uid} {oct(status.st_mode & 0o7777)}", flush=True)
print("escape-probe done", flush=True)
