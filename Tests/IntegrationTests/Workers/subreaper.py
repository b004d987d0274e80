# Runs the command given as arguments under a child subreaper, and once it has exited collects
# whatever it left behind: a zombie it did not reap (or a process still alive) is reparented here.
# Prints "exit STATUS left COUNT".
import ctypes, os, subprocess, sys, time

PR_SET_CHILD_SUBREAPER = 36
if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
    sys.exit("prctl(PR_SET_CHILD_SUBREAPER) failed")
command = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL)
command.wait()
left = 0
deadline = time.monotonic() + 3
while time.monotonic() < deadline:
    try:
        pid, _ = os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        break
    if pid:
        left += 1
    else:
        time.sleep(0.01)
print("exit", command.returncode, "left", left, flush=True)
