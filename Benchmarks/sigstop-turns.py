#!/usr/bin/env python3
"""How long each turn of supervise's loop takes around a sigstop freeze of a large tree, and
what in it: a child of N processes (fork-tree.py) is sent to the background, asked its status
three times with `ctl`, brought to the foreground, and sent a SIGWINCH forwarded to its tree.
`perf record` takes uprobes on the sigstop freezer's functions (entry and return) and the
`epoll_wait` tracepoints: a turn is the time from one `epoll_wait`'s return to the next call.
Needs root, perf, tracefs and `swift demangle`. docs/performance.md has the figures.

    python3 Benchmarks/sigstop-turns.py .build/release/supervise 2000
"""
import collections, json, os, select, signal, subprocess, sys, tempfile, time

binary, n = os.path.abspath(sys.argv[1]), int(sys.argv[2])
worker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "IntegrationTests", "Workers", "fork-tree.py")
tracing, group = "/sys/kernel/tracing/uprobe_events", f"sigstopturns{os.getpid()}"
probed = {"SignalStopUnit.checkFreeze()": "check", "SignalStopUnit.outsideChange()": "look",
          "SignalStopUnit.resourceUsage()": "snapshot", "SignalStopUnit.thaw()": "thaw",
          "SignalStopUnit.continueThaw()": "thawOn",
          "SignalStopFreezer.endMoment()": "endMoment", "SignalStopFreezer.rescan()": "scan"}

# Uprobes at the functions' offsets (the text segment of the binary starts at offset 0).
symbols = [line.split() for line in subprocess.run(["nm", binary], capture_output=True, text=True).stdout.splitlines()]
symbols = [(s[0], s[2]) for s in symbols if len(s) == 3 and s[1] in "tT" and "SignalStop" in s[2]]
names = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(s for _, s in symbols),
                       capture_output=True, text=True).stdout.splitlines()
probes = [(probed[name], address) for (address, _), name in zip(symbols, names) if name in probed]
def trace(definition):
    """Adds or removes one uprobe (tracefs takes one a write)."""
    events = os.open(tracing, os.O_WRONLY | os.O_APPEND)
    os.write(events, (definition + "\n").encode())
    os.close(events)

for short, address in probes:
    trace(f"p:{group}/{short}_in {binary}:0x{address}")
    trace(f"r:{group}/{short}_out {binary}:0x{address}")

directory = tempfile.mkdtemp()
socket, ready = directory + "/control", directory + "/ready"
supervise = subprocess.Popen([binary, "--freezer", "sigstop", "--window", "0", "--freeze-timeout", "120",
                              "--signal", "WINCH=forward-tree", "--control", "stdin", "--socket", socket,
                              "--", "python3", worker, str(n), ready],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)

def status(commands):
    """Sends `commands` then `status`; the child's state once answered, and the milliseconds it took."""
    started = time.monotonic()
    supervise.stdin.write("".join(c + "\n" for c in commands + ["status"]))
    supervise.stdin.flush()
    while select.select([supervise.stdout], [], [], 180)[0]:
        line = supervise.stdout.readline()
        if line.startswith('{"name":'):
            return json.loads(line)["state"], (time.monotonic() - started) * 1000
    sys.exit("supervise said nothing for 3 minutes")

def ctl_status():
    started = time.monotonic()
    subprocess.run([binary, "ctl", "--socket", socket, "status"], capture_output=True, check=True)
    return (time.monotonic() - started) * 1000

while not os.path.exists(ready):
    time.sleep(0.1)
idle = [ctl_status() for _ in range(3)]
data = directory + "/perf.data"
perf = subprocess.Popen(["perf", "record", "-q", "-k", "mono", "-o", data, "-p", str(supervise.pid), "-e", f"{group}:*",
                         "-e", "syscalls:sys_enter_epoll_wait", "-e", "syscalls:sys_exit_epoll_wait"],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(2)
marks = [("background", time.clock_gettime(time.CLOCK_MONOTONIC))]
suspended = status(["background", "wait suspended timeout=120s"])
marks.append(("ctl status", time.clock_gettime(time.CLOCK_MONOTONIC)))
asked = [ctl_status() for _ in range(3)]
time.sleep(0.3)
marks.append(("foreground", time.clock_gettime(time.CLOCK_MONOTONIC)))
active = status(["foreground", "wait active timeout=60s"])
time.sleep(0.3)
marks.append(("signal to the tree", time.clock_gettime(time.CLOCK_MONOTONIC)))
os.kill(supervise.pid, signal.SIGWINCH)
time.sleep(1)
marks.append(("end", time.clock_gettime(time.CLOCK_MONOTONIC)))
perf.send_signal(signal.SIGINT)
perf.wait()
supervise.stdin.write("terminate\n")
supervise.stdin.close()
supervise.wait(120)
for short, _ in probes:
    trace(f"-:{group}/{short}_in")
    trace(f"-:{group}/{short}_out")

print(f"N = {n}, load average {os.getloadavg()[0]:.2f}")
print(f"background -> {suspended[0]}: {suspended[1]:.0f} ms; foreground -> {active[0]}: {active[1]:.0f} ms")
print("ctl status ms, active: " + ", ".join(f"{t:.1f}" for t in idle) + "; suspended: " + ", ".join(f"{t:.1f}" for t in asked))
turns = collections.defaultdict(list)
entered, start, work = {}, None, None
script = subprocess.run(["perf", "script", "-i", data, "-F", "time,event"], capture_output=True, text=True).stdout
for line in script.splitlines():
    fields = line.split()
    at, event = float(fields[0].rstrip(":")), fields[1].rstrip(":").split(":")[-1]
    if event == "sys_exit_epoll_wait":
        start, work = at, collections.Counter()
    elif event == "sys_enter_epoll_wait" and start is not None:
        phase = [name for name, mark in marks if mark <= start][-1:] or ["before"]
        turns[phase[0]].append(((at - start) * 1000, work))
        start = None
    elif event.endswith("_in"):
        entered[event[:-3]] = at
    elif event.endswith("_out") and event[:-4] in entered and work is not None:
        work[event[:-4]] += (at - entered.pop(event[:-4])) * 1000
for phase, _ in marks[:-1]:
    longest = sorted(turns[phase], key=lambda turn: -turn[0])[:3]
    print(f"{phase}: {len(turns[phase])} turns; the longest: " + "; ".join(
        f"{took:.1f} ms (" + ", ".join(f"{k} {v:.1f}" for k, v in work.items() if v >= 0.05) + ")" for took, work in longest))
