#!/usr/bin/env python3
"""check_app.py - compare Tally's file of an application run with the test's
own counters and the application's own results.

Usage: check_app.py TALLY_FILE COUNT_DIR NRANKS NTHREADS PLAIN_OUT TALLY_OUT APP

  MPI:    for every rank and MPI function, calls and bytes sent/received in
          the file's `mpi` table equal the sums of the C and Fortran
          counters (count_mpi_c.c, count_mpi_f.c: c.<rank>.txt, f.<rank>.txt);
          a function on one side only is a difference.
  OpenMP: every rank has NTHREADS threads when the program starts parallel
          regions; for each rank's initial thread, the visits of the OpenMP
          parallel regions (kind 3) of each code address SITE (regions.address,
          summed over the paths they appear under) equal the GOMP_parallel
          calls from SITE (count_omp.c); and the program ran on the OpenMP
          runtime it was built with: no LLVM libomp among the libraries
          mapped into any rank (/proc/self/maps, count_omp.c's maps.<rank>.txt),
          and GCC's libgomp there when the program started parallel regions.
  Results: the result lines (results.py) of the plain and the measured run
          are the same.
Reads the rows as stored through tally.raw (TLY_TEST_PYTHONPATH, else the
source tree's analysis/, names the package).  Exit 0 when all hold.
"""
import collections
import glob
import os
import sys

import results

sys.path.insert(0, os.environ.get("TLY_TEST_PYTHONPATH", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                     "..", "..", "analysis")))
import tally  # noqa: E402


def counters(cdir, nranks):
    got = {}
    for r in range(nranks):
        rows = {}
        paths = [p for p in (os.path.join(cdir, "c.%d.txt" % r), os.path.join(cdir, "f.%d.txt" % r))
                 if os.path.exists(p)]
        if not paths:
            raise SystemExit("no counter file for rank %d in %s" % (r, cdir))
        for p in paths:
            for line in open(p):
                name, calls, sent, recv = line.split()
                old = rows.get(name, (0, 0, 0))
                rows[name] = (old[0] + int(calls), old[1] + int(sent), old[2] + int(recv))
        got[r] = rows
    return got


def tally_mpi(f):
    got = collections.defaultdict(dict)
    for row in f["mpi"][:]:
        got[int(row["rank"])][row["function"].decode()] = (
            int(row["calls"]), int(row["bytes_sent"]), int(row["bytes_recv"]))
    return got


def check_mpi(f, cdir, nranks):
    want, have = counters(cdir, nranks), tally_mpi(f)
    bad = 0
    print("%-4s %-22s %12s %14s %14s   %s" % ("rank", "function", "calls", "sent", "received", "counter"))
    for r in range(nranks):
        for name in sorted(set(want[r]) | set(have.get(r, {}))):
            w, h = want[r].get(name), have.get(r, {}).get(name)
            ok = w == h
            bad += not ok
            shown = h if h else (0, 0, 0)
            print("%-4d %-22s %12d %14d %14d   %s" % (r, name, *shown,
                  "equal" if ok else "DIFFERS: counter %s" % (w,)))
    for r in range(nranks):
        if not want[r]:
            print("rank %d: the counters saw no MPI call" % r)
            bad += 1
    if set(have) - set(range(nranks)):
        print("the file has ranks %s, the job had %d" % (sorted(have), nranks))
        bad += 1
    return bad


def omp_sites(cdir, rank):
    p = os.path.join(cdir, "omp.%d.txt" % rank)
    if not os.path.exists(p):
        raise SystemExit("no OpenMP counter file %s" % p)
    sites = {}
    for line in open(p):
        site, calls = line.split()
        if site == "overflow":
            raise SystemExit("%s: the counter's table overflowed" % p)
        sites[site] = int(calls)
    return sites


def check_omp(f, cdir, nranks, nthreads):
    # kind 3: OpenMP parallel; address: module+0xoffset of its code (schema 2)
    regions = {int(r["id"]): r["address"].decode() for r in f["regions"][:] if int(r["kind"]) == 3}
    threads = f["threads"][:]
    stats = f["region_stats"][:]
    bad = 0
    for r in range(nranks):
        want = omp_sites(cdir, r)
        mine = threads[threads["rank"] == r]
        initial = [int(t["thread"]) for t in mine if int(t["kind"]) == 0]
        if len(initial) != 1:
            print("rank %d: want one initial thread, the file has %d" % (r, len(initial)))
            bad += 1
            continue
        have = collections.Counter()
        for s in stats[(stats["rank"] == r) & (stats["thread"] == initial[0])]:
            site = regions.get(int(s["region"]))
            if site is not None:
                have[site] += int(s["visits"])
        print("rank %d: %d thread(s) in the file (want %d), %d parallel region site(s), "
              "%d region start(s) by the initial thread" %
              (r, len(mine), nthreads if want else 1, len(want), sum(want.values())))
        if want and len(mine) != nthreads:
            bad += 1
        for site in sorted(set(want) | set(have)):
            if want.get(site, 0) != have.get(site, 0):
                print("  %-40s GOMP_parallel calls %d, Tally visits %d: DIFFERS" %
                      (site, want.get(site, 0), have.get(site, 0)))
                bad += 1
        if want and want == dict(have):
            print("  every site: Tally's visits equal the GOMP_parallel calls")
    return bad


def check_runtime(cdir, nranks):
    """No runtime swap: libgomp mapped (when regions were started), no libomp."""
    bad = 0
    for r in range(nranks):
        p = os.path.join(cdir, "maps.%d.txt" % r)
        if not os.path.exists(p):
            print("rank %d: no maps file %s" % (r, p))
            bad += 1
            continue
        libs = [line.strip() for line in open(p) if line.strip()]
        bases = [os.path.basename(x) for x in libs]
        libomp = [x for x in bases if x.startswith("libomp")]
        gomp = [x for x in bases if x.startswith("libgomp")]
        started = sum(omp_sites(cdir, r).values())
        print("rank %d: OpenMP runtimes mapped: %s" % (r, ", ".join(libs) or "none"))
        if libomp:
            print("  LLVM's libomp is mapped: the program was moved off its own runtime")
            bad += 1
        if started and not gomp:
            print("  %d parallel regions started but no libgomp mapped" % started)
            bad += 1
    return bad


def main():
    if len(sys.argv) != 8:
        raise SystemExit(__doc__)
    path, cdir, nranks, nthreads, plain_out, tally_out, app = sys.argv[1:]
    nranks, nthreads = int(nranks), int(nthreads)
    bad = 0
    with tally.raw(path) as f:
        print("== MPI calls and bytes: Tally's file against the test's counters")
        bad += check_mpi(f, cdir, nranks)
        print("== OpenMP parallel regions: Tally's visits against GOMP_parallel calls")
        bad += check_omp(f, cdir, nranks, nthreads)
        print("== OpenMP runtime: the one the program was built with")
        bad += check_runtime(cdir, nranks)
    print("== %s's result lines: plain run against measured run" % app)
    bad += results.compare(app, plain_out, tally_out)
    print("check_app: %s" % ("all equal" if not bad else "%d difference(s)" % bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
