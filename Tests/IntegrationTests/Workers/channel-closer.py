#!/usr/bin/env python3
"""An aware child that closes the descriptors named in its arguments (3: events, 4: requests,
1 and 2: its output) and then idles, reading nothing: a hostile child for the supervisor's loop."""
import os
import sys
import time

os.write(4, b"hello 1\n")
time.sleep(0.2)
for fd in sys.argv[1:]:
    os.close(int(fd))
time.sleep(60)
