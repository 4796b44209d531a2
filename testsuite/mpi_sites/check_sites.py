#!/usr/bin/python3
"""check_sites.py FILE DEPTH SOURCE DIR APP - the mpi_sites table of sites_app.

Per rank: the two MPI_Allreduce sites are two rows named "site_a (file:line)"
and "site_b (file:line)" (SITE markers of SOURCE) whose calls equal the
program's own counts (DIR/sites_app.rank<r>.txt) and whose bytes are calls x
8 x doubles; MPI_Bcast from helper() is one row at depth 1 (calls x + y)
and two rows at depth 2 ("helper (...) < caller_x (...)", "... < caller_y
(...)"); each function's site calls sum to its row of the mpi table; every
address names its frame as addr2line does."""
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



def markers(src):
    out = {}
    for n, text in enumerate(open(src), 1):
        if m := re.search(r"/\* (SITE|CALL) (\w+) \*/", text):
            out[m.groups()] = n
    return out


def addr2line(app, raw):
    off = int(raw.split("+")[1], 16) - 1
    out = subprocess.run(["addr2line", "-f", "-i", "-e", app, hex(off)], capture_output=True, text=True).stdout.split("\n")
    return " in ".join("%s (%s)" % (out[i], os.path.basename(out[i + 1].split(" ")[0])) for i in range(0, len(out) - 1, 2))


def check_report(report, path, sites):
    """tally-report's call-site section: per (function, site) the file's calls summed over ranks."""
    import json
    out = subprocess.run([report, path, "--format", "json", "--top", "0"], capture_output=True, text=True)
    check(out.returncode == 0, "tally-report failed: %s" % out.stderr)
    sec = {s["title"]: s["rows"] for s in json.loads(out.stdout or "{}").get("sections", [])}
    rows = sec.get("MPI call sites by time")
    check(rows is not None, "no 'MPI call sites by time' section: %s" % sorted(sec))
    want = {}
    for r in sites:
        k = (r["function"].decode(), r["site"].decode())
        want[k] = want.get(k, 0) + int(r["calls"])
    got = {(r["function"], r["site"]): r["calls"] for r in rows or []}
    check(got == want, "report sites %s, file %s" % (got, want))


def main():
    path, depth, src, wd, app = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
    base = os.path.basename(src)
    mk = markers(src)
    # a CALL marker main_<x> is a line of main
    at = {k: "%s (%s:%d)" % ("main" if k[1].startswith("main_") else k[1], base, n) for k, n in mk.items()}
    f = tally.raw(path)
    sites = f["mpi_sites"][:]
    mpi = f["mpi"][:]
    for rank in range(int(f.attrs["nranks"])):
        own = dict(l.split() for l in open("%s/sites_app.rank%d.txt" % (wd, rank)))
        own = {k: int(v) for k, v in own.items()}
        rows = sites[sites["rank"] == rank]
        # one row per address stack; an unrolled loop calls from several
        # addresses of one line: rows of one name are one source site
        got = {}
        for r in rows:
            key = (r["function"].decode(), r["site"].decode())
            g = got.setdefault(key, {"calls": 0, "bytes_sent": 0, "bytes_recv": 0, "time_ns": 0, "address": []})
            for c in ("calls", "bytes_sent", "bytes_recv", "time_ns"):
                g[c] += int(r[c])
            g["address"].append(r["address"].decode())
        deeper = {x: " < " + at[("CALL", "main_" + x[-1])] if depth > 1 else "" for x in ("site_a", "site_b")}
        want = {("MPI_Allreduce", at[("SITE", "site_a")] + deeper["site_a"]): (own["site_a"], 8),
                ("MPI_Allreduce", at[("SITE", "site_b")] + deeper["site_b"]): (own["site_b"], 32)}
        if depth == 1:
            want[("MPI_Bcast", at[("SITE", "helper")])] = (own["caller_x"] + own["caller_y"], 8)
        else:
            for c in ("caller_x", "caller_y"):
                want[("MPI_Bcast", at[("SITE", "helper")] + " < " + at[("CALL", c)])] = (own[c], 8)
        for key, (calls, size) in want.items():
            r = got.get(key)
            check(r is not None, "rank %d: no row %s; rows: %s" % (rank, key, sorted(got)))
            if r is None:
                continue
            check(int(r["calls"]) == calls, "rank %d %s: %d calls, the program counted %d" % (rank, key, r["calls"], calls))
            moved = int(r["bytes_sent"]) + int(r["bytes_recv"])
            check(moved >= calls * size, "rank %d %s: %d bytes for %d calls of %d" % (rank, key, moved, calls, size))
            check(int(r["time_ns"]) > 0, "rank %d %s: time" % (rank, key))
            for stack in r["address"]:
                for frame, raw in zip(key[1].split(" < "), stack.split(" < ")):
                    if shutil.which("addr2line"):
                        check(addr2line(app, raw) == frame, "%s: addr2line says %s" % (raw, addr2line(app, raw)))
        for fn in ("MPI_Allreduce", "MPI_Bcast"):
            total = int(mpi[(mpi["rank"] == rank) & (mpi["function"] == fn.encode())]["calls"].sum())
            check(sum(int(r["calls"]) for r in rows if r["function"].decode() == fn) == total,
                  "rank %d %s: site calls do not add up to the profile's %d" % (rank, fn, total))
    if len(sys.argv) > 6 and os.path.exists(sys.argv[6]):
        check_report(sys.argv[6], path, sites)
    sys.exit(th_harness.done(str(path)))


main()
