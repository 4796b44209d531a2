#!/usr/bin/python3
"""check_fortran.py FILE mpi|omp [NTHREADS] - exact values in the files of
the Fortran programs (fmpi_*.f90 on 2 ranks, fomp_app.f90)."""
import sys
import os

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from th import check  # noqa: E402
import th as th_harness  # noqa: E402

try:
    import h5py
except ImportError:
    print("python3-h5py missing"); sys.exit(77)

STEPS = 3


def check_mpi(f):
    check(f.attrs["nranks"] == 2 and f.attrs["partial"] == 0, "nranks 2, complete file")
    got = {(int(r["rank"]), r["function"].decode()): (int(r["calls"]), int(r["bytes_sent"]),
                                                      int(r["bytes_recv"])) for r in f["mpi"][:]}
    want = {(0, "MPI_Send"): (STEPS, STEPS * 800, 0), (1, "MPI_Recv"): (STEPS, 0, STEPS * 800),
            (0, "MPI_Allreduce"): (STEPS, STEPS * 80, STEPS * 80),
            (1, "MPI_Allreduce"): (STEPS, STEPS * 80, STEPS * 80),
            (0, "MPI_Bcast"): (STEPS, STEPS * 28, 0), (1, "MPI_Bcast"): (STEPS, 0, STEPS * 28)}
    for key, w in want.items():
        check(got.get(key) == w, "rank %d %s: (calls, sent, recv) %s, want %s" % (key + (got.get(key), w)))
    for key, v in got.items():
        if key[1] in ("MPI_Send", "MPI_Recv", "MPI_Allreduce", "MPI_Bcast"):
            check(key in want, "unexpected row %s %s" % (key, v))
    for r in f["mpi"][:]:
        check(not r["function"].decode().lower().endswith("_f08") and r["function"].decode().startswith("MPI_"),
              "C name for %s" % r["function"])


def check_omp(f, nth):
    threads = {int(t["thread"]): int(t["kind"]) for t in f["threads"][:]}
    check(len(threads) == nth, "%d thread rows, want %d" % (len(threads), nth))
    check(sorted(threads.values()) == [0] + [1] * (nth - 1), "one main and %d OpenMP threads: %s" % (nth - 1, threads))
    paths = {int(r["id"]): r["path"].decode() for r in f["regions"][:]}
    kinds = {int(r["id"]): int(r["kind"]) for r in f["regions"][:]}
    st = f["region_stats"][:]
    for th in threads:
        rows = st[st["thread"] == th]
        par = sum(int(r["visits"]) for r in rows if kinds[int(r["region"])] == 3)
        loops = sum(int(r["visits"]) for r in rows if kinds[int(r["region"])] == 4)
        check(par == 5, "thread %d: parallel-region visits %d, want 5" % (th, par))
        check(loops == 5, "thread %d: loop visits %d, want 5" % (th, loops))
        check(len(rows) >= 3, "thread %d has region rows %s" % (th, [paths[int(r["region"])] for r in rows]))


def main():
    f = h5py.File(sys.argv[1], "r")
    if sys.argv[2] == "mpi":
        check_mpi(f)
    else:
        check_omp(f, int(sys.argv[3]))
    sys.exit(th_harness.done(str(sys.argv[1])))


main()
