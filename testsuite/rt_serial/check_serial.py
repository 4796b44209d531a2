#!/usr/bin/python3
"""check_serial.py FILE NTHREADS - exact values in the file of serial_app,
read with tally.read (TLY_TEST_PYTHONPATH names the package; not a TALLY_ name,
which the runtime would call an unknown setting)."""
import sys
import os

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from th import check  # noqa: E402
import th as th_harness  # noqa: E402

sys.path.insert(0, os.environ.get("TLY_TEST_PYTHONPATH", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                     "..", "..", "analysis")))
try:
    import tally  # noqa: E402
    import tally.fileio  # noqa: F401,E402  (the reader's HDF5 layer: ImportError without h5py)
except ImportError:
    print("python3-h5py missing"); sys.exit(77)

OUTER, INNER = 4, 3


def main():
    run = tally.read(sys.argv[1], stored_tree=True)   # each thread's tree as written
    t = run.tables
    nth = int(sys.argv[2])
    check(int(run.meta["nranks"]) == 1 and int(run.meta["partial"]) == 0, "nranks 1, partial 0")
    check(len(t["ranks"]) == 1 and len(t["mpi"]) == 0, "one rank row, no MPI rows")
    threads = dict(zip(t["threads"]["thread"].astype(int), t["threads"]["kind"].astype(int)))
    check(len(threads) == nth, "%d thread rows, want %d: %s" % (len(threads), nth, threads))
    check(list(threads.values()).count(0) == 1, "one main thread")
    paths = dict(zip(t["regions"]["id"].astype(int), t["regions"]["path"]))
    parent = dict(zip(t["regions"]["id"].astype(int), t["regions"]["parent"].astype(int)))
    check(not any("reentered" in p for p in paths.values()), "call made inside start-up not recorded")
    st = t["region_stats"]
    events = list(t["events"]["name"])
    for th, kind in threads.items():
        rows = st[st["thread"] == th]
        visits = {paths[int(r)]: int(v) for r, v in zip(rows["region"], rows["visits"])}
        incl = {int(r): int(v) for r, v in zip(rows["region"], rows["incl_ns"])}
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
        check(len(events) >= 1 and all(e in rows.columns for e in events),
              "thread %d has counter columns %s" % (th, events))
        if kind == 0:
            check(visits.get("(thread) / outer") == OUTER, "outer visits %s" % visits.get("(thread) / outer"))
            check(visits.get("(thread) / outer / inner") == OUTER * INNER, "inner visits")
    sys.exit(th_harness.done(str(sys.argv[1])))


main()
