#!/usr/bin/python3
"""check_rt_file.py FILE|PARTIAL-GLOB MODE - assert exact values in files of rt_app."""
import glob
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from th import check  # noqa: E402
import th as th_harness  # noqa: E402

sys.path.insert(0, os.environ.get("TLY_TEST_PYTHONPATH", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                         "..", "..", "analysis")))
try:
    import tally  # noqa: E402  (tally.raw: the rows as stored, through the reader)
    import tally.fileio  # noqa: F401,E402  (the reader's HDF5 layer: ImportError without h5py)
except ImportError:
    print("python3-h5py missing"); sys.exit(77)

REASON = {"term": "SIGTERM", "hang": "SIGTERM", "abort": "MPI_Abort", "exit": "exit() without MPI_Finalize"}


def by_path(f):
    return {int(r["id"]): r["path"].decode() for r in f["regions"][:]}


def check_tree(f, steps, complete):
    paths = by_path(f)
    parent = {int(r["id"]): int(r["parent"]) for r in f["regions"][:]}
    st = f["region_stats"][:]
    ranks = sorted(set(int(x) for x in st["rank"]))
    for rank in ranks:
        rows = st[st["rank"] == rank]
        threads = sorted(set(int(x) for x in rows["thread"]))
        check(len(threads) >= 2, "rank %d has rows for %d threads, want >= 2" % (rank, len(threads)))
        for th in threads:
            tr = rows[rows["thread"] == th]
            incl = {int(r["region"]): int(r["incl_ns"]) for r in tr}
            kids = {}
            for reg in incl:
                if parent[reg] >= 0:
                    kids[parent[reg]] = kids.get(parent[reg], 0) + incl[reg]
            for reg, s in kids.items():
                check(incl[reg] >= s, "rank %d thread %d %s: inclusive %d < children %d" %
                      (rank, th, paths[reg], incl[reg], s))
            names = {paths[int(r["region"])]: int(r["visits"]) for r in tr}
            kind = {(int(t["rank"]), int(t["thread"])): int(t["kind"]) for t in f["threads"][:]}[(rank, th)]
            if kind == 0:
                check(names.get("(thread) / step") == steps, "rank %d step visits %s" % (rank, names.get("(thread) / step")))
                check(names.get("(thread) / step / comm") == steps, "rank %d comm visits" % rank)
                check(names.get("(thread) / step / comm / MPI_Sendrecv") == steps, "rank %d MPI_Sendrecv region" % rank)
            pre = "(thread) / step / omp parallel" if kind == 0 else "(thread) / omp parallel"
            par = [v for p, v in names.items() if p.startswith(pre) and p.count(" / ") == pre.count(" / ")]
            check(sum(par) == steps, "rank %d thread %d: omp parallel visits %s, want %d" % (rank, th, par, steps))
    return ranks


def check_mpi(f, size, steps):
    for r in f["mpi"][:]:
        rank, fn = int(r["rank"]), r["function"].decode()
        want = {
            "MPI_Sendrecv": (800 * (rank + 1) * steps, 800 * ((rank + size - 1) % size + 1) * steps),
            "MPI_Allreduce": (80 * steps, 80 * steps),
            "MPI_Bcast": (28 * steps if rank == 0 else 0, 0 if rank == 0 else 28 * steps),
        }.get(fn)
        if want is None:
            continue
        check(int(r["calls"]) == steps, "rank %d %s calls %d" % (rank, fn, r["calls"]))
        check((int(r["bytes_sent"]), int(r["bytes_recv"])) == want,
              "rank %d %s bytes %d/%d, want %s" % (rank, fn, r["bytes_sent"], r["bytes_recv"], want))
        check(int(sum(r["hist"])) == steps, "rank %d %s histogram total" % (rank, fn))


def schema_version():
    """The version schema.def defines (the file must carry it), as the reader parses it."""
    from tally import schema
    here = os.path.dirname(os.path.abspath(__file__))
    return schema.load(os.path.join(here, "..", "..", "wrappers", "output", "schema.def")).version


def main():
    target, mode = sys.argv[1], sys.argv[2]
    if mode == "ok":
        f = tally.raw(target)
        check(f.attrs["schema_version"] == schema_version(), "schema_version")
        check(f.attrs["nranks"] == 4 and f.attrs["partial"] == 0, "nranks/partial")
        check(len(f["ranks"]) == 4, "4 rank rows")
        check(len(f["events"]) >= 1, "events listed")
        check(len(f["threads"]) == 8, "8 thread rows, got %d" % len(f["threads"]))
        check(check_tree(f, 5, True) == [0, 1, 2, 3], "ranks 0..3 have region rows")
        check_mpi(f, 4, 5)
    else:
        files = sorted(glob.glob(target))
        tmps = sorted(glob.glob(target + ".*.tmp"))  # <file>.XXXXXX.tmp (out_file.c)
        if mode == "hang":
            # SIGTERM to mpirun: a rank that Open MPI SIGKILLs while writing
            # leaves only its .tmp; every rank must have left one or the other
            ranks = sorted(fn.split(".rank")[1][:5] for fn in files + tmps)
            check(ranks == ["%05d" % r for r in range(4)], "each rank left a partial file or its .tmp: %s" % ranks)
            check(len(files) >= 1, "at least one complete partial file")
            if tmps:
                print("note: %d rank(s) killed by mpirun while writing left only %s" % (len(tmps), tmps))
        else:
            check(len(files) == 4, "4 partial files, got %s" % files)
        for fn in files:
            f = tally.raw(fn)
            check(f.attrs["partial"] == 1, fn + " partial flag")
            check(f.attrs["nranks"] == 4, fn + " nranks %d, want the job's 4" % f.attrs["nranks"])
            check("rank%05d" % f.attrs["partial_rank"] in fn, fn + " partial_rank %d" % f.attrs["partial_rank"])
            check(f.attrs["partial_reason"].decode() == REASON[mode], fn + " reason %s" % f.attrs["partial_reason"])
            check([int(x) for x in f["ranks"]["rank"]] == [int(f.attrs["partial_rank"])], fn + " rank row")
            check(len(f["ranks"]) == 1, fn + " one rank")
            check_tree(f, 3, False)
            check_mpi(f, 4, 3)
    sys.exit(th_harness.done(str(target)))


main()
