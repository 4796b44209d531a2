#!/usr/bin/python3
"""check_serial.py FILE NTHREADS - exact values in the file of serial_app."""
import sys
import os

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from th import check  # noqa: E402
import th as th_harness  # noqa: E402

try:
    import h5py
except ImportError:
    print("python3-h5py missing"); sys.exit(77)

OUTER, INNER = 4, 3


def main():
    f = h5py.File(sys.argv[1], "r")
    nth = int(sys.argv[2])
    check(f.attrs["nranks"] == 1 and f.attrs["partial"] == 0, "nranks 1, partial 0")
    check(len(f["ranks"]) == 1 and len(f["mpi"]) == 0, "one rank row, no MPI rows")
    threads = {int(t["thread"]): int(t["kind"]) for t in f["threads"][:]}
    check(len(threads) == nth, "%d thread rows, want %d: %s" % (len(threads), nth, threads))
    check(list(threads.values()).count(0) == 1, "one main thread")
    paths = {int(r["id"]): r["path"].decode() for r in f["regions"][:]}
    parent = {int(r["id"]): int(r["parent"]) for r in f["regions"][:]}
    check(not any("reentered" in p for p in paths.values()), "call made inside start-up not recorded")
    st = f["region_stats"][:]
    for th, kind in threads.items():
        rows = st[st["thread"] == th]
        visits = {paths[int(r["region"])]: int(r["visits"]) for r in rows}
        incl = {int(r["region"]): int(r["incl_ns"]) for r in rows}
        kids = {}
        for reg, v in incl.items():
            if parent[reg] >= 0:
                kids[parent[reg]] = kids.get(parent[reg], 0) + v
        for reg, s in kids.items():
            check(incl[reg] >= s, "thread %d %s: inclusive %d < children %d" % (th, paths[reg], incl[reg], s))
        work = sum(v for p, v in visits.items() if p.endswith(" / work"))
        par = sum(v for p, v in visits.items() if p.split(" / ")[-1].startswith("omp parallel")
                  or (" / " in p and "parallel" in p.split(" / ")[-1]))
        check(work == OUTER * INNER, "thread %d: work visits %d, want %d" % (th, work, OUTER * INNER))
        check(par == OUTER * INNER, "thread %d: parallel-region visits %d, want %d" % (th, par, OUTER * INNER))
        check(all(len(r["counters"]) >= 1 for r in rows), "thread %d has counter columns" % th)
        if kind == 0:
            check(visits.get("(thread) / outer") == OUTER, "outer visits %s" % visits.get("(thread) / outer"))
            check(visits.get("(thread) / outer / inner") == OUTER * INNER, "inner visits")
    sys.exit(th_harness.done(str(sys.argv[1])))


main()
