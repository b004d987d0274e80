#!/usr/bin/env python3
"""Genuine memory pressure: thrashes its page cache in a memory-limited cgroup v1.

Moves itself into the cgroup v1 memory directory $HOG_CGROUP (whose memory.limit_in_bytes is
far below MIB, argv[1]), writes MIB mebibytes to a file of its own (on disk, not tmpfs: page
cache can be reclaimed), then reads it again and again through a mapping: every pass refaults
what the limit pushed out, and its tasks stall on memory, as the kernel's PSI counts. Runs
until killed.
"""
import mmap
import os
import sys

with open(os.path.join(os.environ["HOG_CGROUP"], "cgroup.procs"), "w") as procs:
    procs.write(str(os.getpid()))
size = int(sys.argv[1]) << 20
path = os.path.join(os.environ.get("HOG_DIRECTORY", "/var/tmp"), "memory-hog-%d" % os.getpid())
fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
os.unlink(path)  # nothing is left behind, however the hog is killed
for _ in range(size >> 20):
    os.write(fd, os.urandom(1 << 20))
os.fsync(fd)
pages = mmap.mmap(fd, size, prot=mmap.PROT_READ)
total = 0
while True:
    for offset in range(0, size, 4096):
        total += pages[offset]
