#!/usr/bin/python3
"""check_fortran.py FILE mpi|omp [NTHREADS] - exact values in the files of
the Fortran programs (fmpi_*.f90 on 2 ranks, fomp_app.f90), read with
tally.read (TLY_TEST_PYTHONPATH names the package; not a TALLY_ name,
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

STEPS = 3


def check_mpi(run):
    check(int(run.meta["nranks"]) == 2 and int(run.meta["partial"]) == 0, "nranks 2, complete file")
    m = run.tables["mpi"]
    got = {(int(r), fn): (int(c), int(s), int(v)) for r, fn, c, s, v in
           zip(m["rank"], m["function"], m["calls"], m["bytes_sent"], m["bytes_recv"])}
    want = {(0, "MPI_Send"): (STEPS, STEPS * 800, 0), (1, "MPI_Recv"): (STEPS, 0, STEPS * 800),
            (0, "MPI_Allreduce"): (STEPS, STEPS * 80, STEPS * 80),
            (1, "MPI_Allreduce"): (STEPS, STEPS * 80, STEPS * 80),
            (0, "MPI_Bcast"): (STEPS, STEPS * 28, 0), (1, "MPI_Bcast"): (STEPS, 0, STEPS * 28)}
    for key, w in want.items():
        check(got.get(key) == w, "rank %d %s: (calls, sent, recv) %s, want %s" % (key + (got.get(key), w)))
    for key, v in got.items():
        if key[1] in ("MPI_Send", "MPI_Recv", "MPI_Allreduce", "MPI_Bcast"):
            check(key in want, "unexpected row %s %s" % (key, v))
    for fn in m["function"]:
        check(not fn.lower().endswith("_f08") and fn.startswith("MPI_"), "C name for %s" % fn)


def check_omp(run, nth):
    t = run.tables
    threads = dict(zip(t["threads"]["thread"].astype(int), t["threads"]["kind"].astype(int)))
    check(len(threads) == nth, "%d thread rows, want %d" % (len(threads), nth))
    check(sorted(threads.values()) == [0] + [1] * (nth - 1), "one main and %d OpenMP threads: %s" % (nth - 1, threads))
    paths = dict(zip(t["regions"]["id"].astype(int), t["regions"]["path"]))
    kinds = dict(zip(t["regions"]["id"].astype(int), t["regions"]["kind"].astype(int)))
    st = t["region_stats"]
    for th in threads:
        rows = st[st["thread"] == th]
        pairs = list(zip(rows["region"].astype(int), rows["visits"].astype(int)))
        par = sum(v for r, v in pairs if kinds[r] == 3)
        loops = sum(v for r, v in pairs if kinds[r] == 4)
        check(par == 5, "thread %d: parallel-region visits %d, want 5" % (th, par))
        check(loops == 5, "thread %d: loop visits %d, want 5" % (th, loops))
        check(len(rows) >= 3, "thread %d has region rows %s" % (th, [paths[r] for r, _ in pairs]))


def main():
    run = tally.read(sys.argv[1], stored_tree=True)   # each thread's tree as written
    if sys.argv[2] == "mpi":
        check_mpi(run)
    else:
        check_omp(run, int(sys.argv[3]))
    sys.exit(th_harness.done(str(sys.argv[1])))


main()
