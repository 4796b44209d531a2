#!/usr/bin/env python3
"""check_scale_file.py FILE NP DIR - the job file of scale_app holds, for
every rank 0..NP-1, exactly the region visits and MPI calls that rank
wrote to DIR/truth.<rank>, and no user-region rows it did not report."""
import collections, os, sys
import h5py

f = h5py.File(sys.argv[1], "r")
np_, d = int(sys.argv[2]), sys.argv[3]
bad = []
paths = {int(r["id"]): (int(r["kind"]), r["path"].decode()) for r in f["regions"][:]}
got_reg = collections.defaultdict(dict)
for r in f["region_stats"][:]:
    kind, path = paths[int(r["region"])]
    if kind == 1:
        got_reg[int(r["rank"])][path.rsplit(" / ", 1)[-1]] = int(r["visits"])
got_mpi = collections.defaultdict(dict)
for r in f["mpi"][:]:
    got_mpi[int(r["rank"])][r["function"].decode()] = int(r["calls"])
if int(f.attrs["nranks"]) != np_ or int(f.attrs["partial"]) != 0:
    bad.append("nranks %d partial %d" % (f.attrs["nranks"], f.attrs["partial"]))
if sorted(int(x) for x in f["ranks"]["rank"]) != list(range(np_)):
    bad.append("ranks table is not 0..%d" % (np_ - 1))
for rank in range(np_):
    want_reg, want_mpi = {}, {}
    with open(os.path.join(d, "truth.%d" % rank)) as t:
        for line in t:
            what, name, n = line.split()
            (want_reg if what == "region" else want_mpi)[name] = int(n)
    if got_reg[rank] != want_reg:
        bad.append("rank %d regions %s, measured %s" % (rank, got_reg[rank], want_reg))
    for fn, n in want_mpi.items():
        if got_mpi[rank].get(fn) != n:
            bad.append("rank %d %s calls %s, measured %d" % (rank, fn, got_mpi[rank].get(fn), n))
rows = len(f["region_stats"])
print("%d ranks, %d regions, %d region rows, %d mpi rows, file %.2f MB, write %.3f s: %s" % (
    np_, len(paths), rows, len(f["mpi"]), os.path.getsize(sys.argv[1]) / 1e6,
    f.attrs["write_seconds"], "ok" if not bad else "%d mismatches" % len(bad)))
for b in bad[:20]:
    print("  " + b)
sys.exit(1 if bad else 0)
