# Forks a tree of COUNT processes in all (this one, 40 children, and the rest below them, as
# evenly as it goes), writes its pid to READY once every one of them runs, then each waits for signals.
# Forked, not exec'd: a few thousand processes cost little memory and start in a second.
import os, signal, sys

count, ready = int(sys.argv[1]), sys.argv[2]
width = 40
below = [(count - 1 - width) // width + (1 if i < (count - 1 - width) % width else 0) for i in range(width)]
reader, writer = os.pipe()
for grandchildren in below:
    if os.fork() == 0:
        os.close(reader)
        for _ in range(grandchildren):
            if os.fork() == 0:
                os.write(writer, b"x")
                while True:
                    signal.pause()
        os.write(writer, b"x")
        while True:
            signal.pause()
os.close(writer)
started = 0
while started < count - 1:
    started += len(os.read(reader, 4096))
with open(ready + ".new", "w") as file:
    file.write(str(os.getpid()))
os.replace(ready + ".new", ready)  # whole when it appears
while True:
    signal.pause()
