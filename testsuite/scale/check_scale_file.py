#!/usr/bin/env python3
"""check_scale_file.py FILE NP DIR - the job file of scale_app holds, for
every rank 0..NP-1, exactly the region visits and MPI calls that rank
wrote to DIR/truth.<rank>, and no user-region rows it did not report.
Read with tally.read (TLY_TEST_PYTHONPATH names the package; not a TALLY_ name,
which the runtime would call an unknown setting)."""
import collections, os, sys

sys.path.insert(0, os.environ.get("TLY_TEST_PYTHONPATH", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                     "..", "..", "analysis")))
import tally  # noqa: E402

run = tally.read(sys.argv[1])
tb = run.tables
np_, d = int(sys.argv[2]), sys.argv[3]
bad = []
paths = {int(i): (int(k), p) for i, k, p in zip(tb["regions"]["id"], tb["regions"]["kind"], tb["regions"]["path"])}
got_reg = collections.defaultdict(dict)
st = tb["region_stats"]
for reg, rank, visits in zip(st["region"], st["rank"], st["visits"]):
    kind, path = paths[int(reg)]
    if kind == 1:
        got_reg[int(rank)][path.rsplit(" / ", 1)[-1]] = int(visits)
got_mpi = collections.defaultdict(dict)
for rank, fn, calls in zip(tb["mpi"]["rank"], tb["mpi"]["function"], tb["mpi"]["calls"]):
    got_mpi[int(rank)][fn] = int(calls)
if int(run.meta["nranks"]) != np_ or int(run.meta["partial"]) != 0:
    bad.append("nranks %d partial %d" % (run.meta["nranks"], run.meta["partial"]))
if sorted(int(x) for x in tb["ranks"]["rank"]) != list(range(np_)):
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
rows = len(st)
print("%d ranks, %d regions, %d region rows, %d mpi rows, file %.2f MB, write %.3f s: %s" % (
    np_, len(paths), rows, len(tb["mpi"]), os.path.getsize(sys.argv[1]) / 1e6,
    float(run.meta["write_seconds"]), "ok" if not bad else "%d mismatches" % len(bad)))
for b in bad[:20]:
    print("  " + b)
sys.exit(1 if bad else 0)
