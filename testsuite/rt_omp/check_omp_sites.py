#!/usr/bin/python3
"""check_omp_sites.py FILE NRANKS MODE SOURCE DIR APP - omp_sites' file.

MODE measured (inside libgomp) and libomp (on LLVM's libomp, OMPT): every
rank has its main thread and one OpenMP worker, and on each thread the
three parallel regions with exactly 7, 5 and 3 visits, each named
"function (file:line)" from DWARF as the SITE/CALL markers of SOURCE say
(the inlined one "gamma_body (...) in phase_gamma (...)"), its raw address
(regions.address, module+0xoffset) named the same by addr2line; the
program ran on libgomp and no libomp was mapped (measured), or libomp was
mapped (libomp) (DIR/omp_sites.rank<r>.maps, from /proc/self/maps).
ranks.cpu_ns is at least the process CPU time the program measured itself
(DIR/omp_sites.rank<r>.cpu, written just before MPI_Finalize) and no more
than 2 s above."""
import os
import re
import shutil
import subprocess
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

VISITS = {"phase_alpha": 7, "phase_beta": 5, "phase_gamma": 3}
NAMES = {"phase_alpha": "phase_alpha", "phase_beta": "phase_beta", "phase_gamma": "gamma_body"}


def expected_names(src):
    """Region name per phase from the markers in the source."""
    base = os.path.basename(src)
    lines = {}
    for n, text in enumerate(open(src), 1):
        if m := re.search(r"/\* (SITE|CALL) (\w+) \*/", text):
            lines[m.groups()] = n
    out = {}
    for phase, fn in NAMES.items():
        name = "omp parallel @ %s (%s:%d)" % (fn, base, lines[("SITE", fn)])
        if fn != phase:
            name += " in %s (%s:%d)" % (phase, base, lines[("CALL", phase)])
        out[phase] = name
    return out


def addr2line(app, addr):
    """addr2line's function and file:line for module+0xoffset (a return address)."""
    mod, off = addr.split("+")
    out = subprocess.run(["addr2line", "-f", "-i", "-e", app, hex(int(off, 16) - 1)],
                         capture_output=True, text=True).stdout.split("\n")
    return [(out[i], os.path.basename(out[i + 1].split(" ")[0])) for i in range(0, len(out) - 1, 2)]


def check_names(f, src, app, top_par, regions):
    want = expected_names(src)
    names = {regions[i]["name"].decode(): regions[i]["address"].decode() for i in top_par}
    check(sorted(names) == sorted(want.values()), "region names %s, want %s" % (sorted(names), sorted(want.values())))
    for name, addr in names.items():
        check(re.fullmatch(r"%s\+0x[0-9a-f]+" % re.escape(os.path.basename(app)), addr),
              "%s: address %r is not %s+0x..." % (name, addr, os.path.basename(app)))
        if shutil.which("addr2line") and "+" in addr:
            frames = addr2line(app, addr)
            got = " in ".join("%s (%s)" % fr for fr in frames)
            check(name == "omp parallel @ " + got, "%s: addr2line says %s" % (name, got))


def main():
    path, nranks, mode, src, wd, app = sys.argv[1:7]
    nranks = int(nranks)
    f = tally.raw(path)
    check(int(f.attrs["nranks"]) == nranks, "nranks %d, want %d" % (f.attrs["nranks"], nranks))
    regions = {int(r["id"]): r for r in f["regions"][:]}
    root = [i for i, r in regions.items() if int(r["parent"]) < 0]
    top_par = {i for i, r in regions.items() if int(r["kind"]) == 3 and int(r["parent"]) in root}
    check_names(f, src, app, top_par, regions)
    phase_of = {v: k for k, v in expected_names(src).items()}
    stats = f["region_stats"][:]
    thr = f["threads"][:]
    for rank in range(nranks):
        kinds = sorted(int(t["kind"]) for t in thr if int(t["rank"]) == rank)
        want = [0, 1]
        check(kinds == want, "rank %d: thread kinds %s, want %s" % (rank, kinds, want))
        for t in thr[thr["rank"] == rank]:
            rows = stats[(stats["rank"] == rank) & (stats["thread"] == t["thread"])]
            visits = {phase_of.get(regions[int(r["region"])]["name"].decode(), "?"): int(r["visits"])
                      for r in rows if int(r["region"]) in top_par}
            want = VISITS
            check(visits == want, "rank %d thread %d: parallel-region visits %s, want %s"
                  % (rank, t["thread"], visits, want))
        rk = f["ranks"][f["ranks"]["rank"] == rank]
        own = int(open("%s/omp_sites.rank%d.cpu" % (wd, rank)).read())
        cpu = int(rk["cpu_ns"][0])
        check(own <= cpu <= own + 2_000_000_000,
              "rank %d: ranks.cpu_ns %d, the program measured %d before MPI_Finalize" % (rank, cpu, own))
        libs = [os.path.basename(x.strip()) for x in open("%s/omp_sites.rank%d.maps" % (wd, rank))]
        libomp = any(x.startswith("libomp") for x in libs)
        gomp = any(x.startswith("libgomp") for x in libs)
        if mode == "libomp":
            check(libomp, "rank %d: runtimes mapped %s, want LLVM's libomp" % (rank, libs))
        else:
            check(gomp and not libomp, "rank %d: runtimes mapped %s, want libgomp and no libomp" % (rank, libs))
    sys.exit(th_harness.done(str(path)))


main()
