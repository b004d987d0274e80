#!/usr/bin/env python3
"""N `sleep` children from one config on one freezer: how long launch, `background all`
until all are verified suspended, `foreground all` until all are active, and
`terminate all` until supervise exits take, and its exit status (0 when every child
ended by its stop signal within its grace). docs/performance.md has the figures.

    python3 Benchmarks/scale-per-freezer.py .build/release/supervise sigstop 1000
"""
import subprocess, sys, time, os, tempfile
binary, freezer, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = tempfile.mkdtemp()
cfg = os.path.join(d, "s.toml")
with open(cfg, "w") as f:
    f.write(f'freezer = "{freezer}"\nwindow = "0"\n')
    for i in range(n):
        f.write(f'[child.c{i}]\ncommand = ["sleep", "300"]\n')
p = subprocess.Popen([binary, "--config", cfg, "--log-level", "error"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
def ask(cmds):
    p.stdin.write(cmds + "status\n"); p.stdin.flush()
    for _ in range(n): p.stdout.readline()
t0 = time.time(); ask("wait active all timeout=300s\n"); t1 = time.time()
ask("background all\nwait suspended all timeout=300s\n"); t2 = time.time()
ask("foreground all\nwait active all timeout=300s\n"); t3 = time.time()
p.stdin.write("terminate all\n"); p.stdin.close(); p.wait(); t4 = time.time()
print(f"{freezer} N={n}: launch {t1-t0:.2f}s, background→all suspended {t2-t1:.3f}s, foreground→all active {t3-t2:.3f}s, terminate→exit {t4-t3:.2f}s, exit {p.returncode}")
