#!/usr/bin/env python3
"""check_torch_wrap.py DIR LOG N - run_torch_wrap.sh's checks on one run:
DIR holds exactly one job file, wrap.h5 (the requested name: no ddp.1.h5,
no file of a helper command); its program is Python, not dirname,
basename or sed; N ranks whose pids are those the program printed (WORK
lines of LOG); every rank has the work's kernels with instruction values,
the same kernels and launches in every rank; the log names no other job
file."""
import os
import re
import sys

sys.path.insert(0, os.environ.get("TLY_TEST_PYTHONPATH", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                     "..", "..", "analysis")))
from tally import raw as read_raw  # noqa: E402  (the rows as stored, through the reader's checks)

ok = True


def check(cond, what):
    global ok
    print(("ok   " if cond else "FAIL ") + what)
    ok = ok and bool(cond)


def s(v):
    return v.decode() if isinstance(v, bytes) else str(v)


d, logf, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
log = open(logf, errors="replace").read()
files = sorted(f for f in os.listdir(d) if f.endswith(".h5"))
check(files == ["wrap.h5"], f"N={n}: one job file, the requested wrap.h5 ({files})")
work = {int(r): int(p) for r, p in re.findall(r"^WORK (\d+) (\d+) ", log, re.M)}
check(sorted(work) == list(range(n)), f"N={n}: the program ran on ranks {sorted(work)}")
other = [l for l in log.splitlines() if "the job file is" in l or re.search(r"wrap\.\d+\.h5", l)]
check(not other, f"N={n}: no other job file named in the log {other[:3]}")
if "wrap.h5" in files:
    with read_raw(os.path.join(d, "wrap.h5")) as f:
        prog, nranks = s(f.attrs["program"]), int(f.attrs["nranks"])
        pids = {int(r["rank"]): int(r["pid"]) for r in f["ranks"][:]}
        kern = {}
        for r in f["gpu_kernels"][:] if "gpu_kernels" in f else []:
            if s(r["metric"]) == "smsp__inst_executed.sum" and float(r["total"]) > 0:
                k = kern.setdefault(int(r["rank"]), {})
                k[s(r["kernel"])] = k.get(s(r["kernel"]), 0) + int(r["launches"])
    check("python" in prog.lower() and prog not in ("dirname", "basename", "sed"), f"N={n}: program {prog!r}")
    check(nranks == n and pids == work, f"N={n}: {nranks} rank(s), pids {pids} == the program's {work}")
    for rank in range(n):
        k = kern.get(rank, {})
        check(sum(k.values()) >= 20, f"N={n}: rank {rank}: {len(k)} kernels, {sum(k.values())} launches with values")
    check(all(kern.get(r) == kern.get(0) for r in range(n)), f"N={n}: the same kernels and launches in every rank")
print("all checks passed" if ok else "FAILED")
sys.exit(0 if ok else 1)
