#!/usr/bin/env python3
"""probe_crash.py FILE - tally-report when libhdf5 itself crashes on FILE.

A bit-flipped file once made libhdf5 free an invalid pointer inside the
reader's probe child: glibc printed "free(): invalid pointer" on the
user's stderr before tally-report's own sentence.  Here the probe child's
first libhdf5 call (h5py.File) is made to do exactly that (glibc aborts
with its message); tally-report must still answer with exit status 2 and
one line on stderr naming the file and the crash."""
import ctypes
import os
import subprocess
import sys

import h5py   # its File is replaced by a crash on purpose (allowed: testsuite/layout/check_h5py.py)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import th  # noqa: E402


def crash(*_a, **_k):
    libc = ctypes.CDLL(None)
    p = libc.malloc(64)
    libc.free(ctypes.c_void_p(p + 16))   # not a pointer malloc gave: glibc aborts


def child(path):
    from tally import cli
    h5py.File = crash
    sys.exit(cli.main([path]))


def main(argv):
    if len(argv) == 3 and argv[1] == "--child":
        child(argv[2])
    if len(argv) != 2 or not os.path.isfile(argv[1]):
        print(__doc__, file=sys.stderr)
        return 2
    p = subprocess.run([sys.executable, argv[0], "--child", argv[1]], capture_output=True, text=True,
                       timeout=120, env=dict(os.environ, LIBC_FATAL_STDERR_="1"))
    lines = p.stderr.strip().splitlines()
    print(p.stderr, end="")
    th.check(p.returncode == 2, f"exit status {p.returncode}, want 2")
    th.check(len(lines) == 1, f"{len(lines)} lines on stderr, want 1")
    th.check(bool(lines) and lines[0].startswith("tally-report: ") and "crashed" in lines[0]
             and argv[1] in lines[0], "the line names the file and the crash")
    th.check("free()" not in p.stderr, "glibc's own message reached stderr")
    return th.done("probe_crash")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
