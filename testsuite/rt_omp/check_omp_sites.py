#!/usr/bin/python3
"""check_omp_sites.py FILE NRANKS MODE SOURCE DIR - omp_sites' file.

MODE measured: every rank has its main thread and one OpenMP worker, and on
each thread the three parallel regions with exactly 7, 5 and 3 visits.
MODE hidden: one thread per rank, no OpenMP regions.  Both: ranks.cpu_ns is
at least the process CPU time the program measured itself (DIR/omp_sites.
rank<r>.cpu, written just before MPI_Finalize) and no more than 2 s above."""
import re
import sys

try:
    import h5py
except ImportError:
    print("python3-h5py missing"); sys.exit(77)

VISITS = {"phase_alpha": 7, "phase_beta": 5, "phase_gamma": 3}
fails = 0


def check(cond, what):
    global fails
    if not cond:
        fails += 1
        print("FAILED:", what)


def main():
    path, nranks, mode, src, wd = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
    f = h5py.File(path, "r")
    check(int(f.attrs["nranks"]) == nranks, "nranks %d, want %d" % (f.attrs["nranks"], nranks))
    regions = {int(r["id"]): r for r in f["regions"][:]}
    root = [i for i, r in regions.items() if int(r["parent"]) < 0]
    top_par = {i for i, r in regions.items() if int(r["kind"]) == 3 and int(r["parent"]) in root}
    stats = f["region_stats"][:]
    th = f["threads"][:]
    for rank in range(nranks):
        kinds = sorted(int(t["kind"]) for t in th if int(t["rank"]) == rank)
        want = [0, 1] if mode == "measured" else [0]
        check(kinds == want, "rank %d: thread kinds %s, want %s" % (rank, kinds, want))
        for t in th[th["rank"] == rank]:
            rows = stats[(stats["rank"] == rank) & (stats["thread"] == t["thread"])]
            visits = sorted(int(r["visits"]) for r in rows if int(r["region"]) in top_par)
            want = sorted(VISITS.values()) if mode == "measured" else []
            check(visits == want, "rank %d thread %d: parallel-region visits %s, want %s"
                  % (rank, t["thread"], visits, want))
        rk = f["ranks"][f["ranks"]["rank"] == rank]
        own = int(open("%s/omp_sites.rank%d.cpu" % (wd, rank)).read())
        cpu = int(rk["cpu_ns"][0])
        check(own <= cpu <= own + 2_000_000_000,
              "rank %d: ranks.cpu_ns %d, the program measured %d before MPI_Finalize" % (rank, cpu, own))
        if mode == "hidden":
            # the unmeasured worker burnt CPU: the process total exceeds the one thread's
            ev = [e.decode() for e in f["events"]["name"]]
            if "perf::TASK-CLOCK" in ev:
                k = ev.index("perf::TASK-CLOCK")
                main = [r for r in stats[stats["rank"] == rank] if int(r["region"]) in root][0]
                check(cpu > 1.3 * int(main["counters"][k]),
                      "rank %d: process CPU %d not above the main thread's %d" % (rank, cpu, main["counters"][k]))
    print("%s: %d failure(s)" % (path, fails))
    sys.exit(1 if fails else 0)


main()
