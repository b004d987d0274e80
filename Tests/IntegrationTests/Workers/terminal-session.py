#!/usr/bin/env python3
"""Plays steps against an interactive bash on a real pseudo-terminal, as a person would type.

Usage: terminal-session.py STEP...   where each STEP is one of
  send:TEXT      types TEXT (Python escapes: \\n, \\x03 for Ctrl-C, \\x1a for Ctrl-Z)
  expect:REGEX   waits until the screen's text since the last expect matches REGEX
  sleep:SECONDS  waits
The prompt is 'PROMPT$ '. Prints the whole transcript on stdout. Exits 0 when every step was
met, 1 when an expect was not met within its time (10 s), saying which on stderr. Whatever is
left on the terminal is hung up at the end, and then every process of bash's session is killed:
a job left stopped (a wedged terminal) would not die of the hangup.
"""
import os
import pty
import re
import select
import signal
import sys
import time

EXPECT_SECONDS = 10


def kill_session(session):
    """SIGKILLs every process of `session` (bash leads it: its pid is the session's id)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            if int(fields[3]) == session:  # after the state, ppid, pgrp: the session
                os.kill(int(entry), signal.SIGKILL)
        except (OSError, ValueError, IndexError):
            pass


def main(steps):
    environment = dict(os.environ, PS1="PROMPT$ ", TERM="dumb", HISTFILE="/dev/null")
    pid, master = pty.fork()
    if pid == 0:
        os.execvpe("bash", ["bash", "--norc", "--noprofile", "-i"], environment)
    transcript = bytearray()
    unmatched = 0  # where the text not yet matched by an expect begins

    def read_for(seconds):
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            ready, _, _ = select.select([master], [], [], left)
            if not ready:
                return
            try:
                data = os.read(master, 4096)
            except OSError:
                return
            if not data:
                return
            transcript.extend(data)
            yield

    status = 0
    for step in steps:
        kind, _, argument = step.partition(":")
        if kind == "send":
            os.write(master, argument.encode().decode("unicode_escape").encode("latin-1"))
        elif kind == "sleep":
            for _ in read_for(float(argument)):
                pass
        elif kind == "expect":
            pattern = re.compile(argument.encode())
            match = pattern.search(transcript, unmatched)
            if not match:
                for _ in read_for(EXPECT_SECONDS):
                    match = pattern.search(transcript, unmatched)
                    if match:
                        break
            if not match:
                sys.stderr.write(f"terminal-session: not seen within {EXPECT_SECONDS} s: {argument!r}\n")
                status = 1
                break
            unmatched = match.end()
        else:
            sys.stderr.write(f"terminal-session: unknown step {step!r}\n")
            status = 2
            break
    os.kill(pid, signal.SIGHUP)
    for _ in read_for(0.5):
        pass
    kill_session(pid)
    os.waitpid(pid, 0)
    sys.stdout.write(transcript.decode("utf-8", "replace"))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
